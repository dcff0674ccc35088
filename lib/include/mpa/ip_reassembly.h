// IP fragment reassembly as Wireshark does it by default (ip.defragment, ipv6.defragment): the
// fragments of one datagram (RFC 791 2.3 and 3.2, RFC 8200 4.5), keyed by addresses, tunnels,
// identification and (IPv4) protocol, are held until every octet up to the last fragment's end
// is there; the datagram then counts at the frame of the fragment that completed it. Octets
// held first are kept where fragments overlap; overlapping octets that differ are named.
//
// Memory is bounded: at most `max_datagrams` incomplete datagrams and `max_octets` of their
// octets are held; beyond either, and for a datagram whose first fragment is older than
// `timeout_ns` of capture time (RFC 8200 4.5: 60 seconds), the oldest are given up, as are
// those still incomplete at the capture's end. A fragment the snapshot length cut is not held
// (as in Wireshark): its datagram stays incomplete. A given-up datagram is a capture gap:
// what it carried is missing from the analysis, never an error.
// Pure: no I/O; the capture pipeline and the Wireshark plugin reach it through FrameFeeder.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mpa/packet.h"
#include "mpa/packet_decoder.h"

namespace mpa {

struct IpReassemblyLimits {
  std::size_t max_datagrams = 4096;                // incomplete datagrams held at once
  std::size_t max_octets = std::size_t{32} << 20;  // what they hold, as allocated
  std::uint64_t timeout_ns = 60'000'000'000;       // capture time after a datagram's first fragment
};

// Why an incomplete datagram was given up.
enum class GiveUpReason : std::uint8_t { CaptureEnd, Timeout, Limit };

// An incomplete datagram as it was given up: what its fragments said, for a report.
struct IncompleteDatagram {
  IpAddress source;
  IpAddress destination;
  std::uint8_t protocol = 0;
  std::uint32_t id = 0;
  std::optional<std::uint16_t> source_port;  // TCP or UDP ports, when its first octets were held
  std::optional<std::uint16_t> destination_port;
  std::uint32_t fragments = 0;          // fragments captured
  std::uint64_t octets = 0;             // octets held
  std::optional<std::uint64_t> length;  // the payload's length, when its last fragment was held
  bool cut = false;                     // some fragment was cut by the snapshot length
  std::uint64_t first_frame = 0;
  std::uint64_t last_frame = 0;  // the frame of its last fragment captured
  std::uint64_t last_ns = 0;
  GiveUpReason reason = GiveUpReason::CaptureEnd;
};
// "IPv4 datagram 192.0.2.10:49153 -> 192.0.2.20:20049 (TCP, id 0x1a2b) given up at the
// capture's end with 512 octets from 1 fragment (frame 18); its last fragment was not
// captured".
std::string describe(const IncompleteDatagram& datagram, const IpReassemblyLimits& limits);

// What reassembly reports besides datagrams: overlapping octets that differ, and datagrams
// given up.
class IpReassemblyEvents {
 public:
  virtual ~IpReassemblyEvents() = default;
  // Octets of the fragment in `frame` differ from octets held for the same place of its
  // datagram (those held are kept); `detail` says where.
  virtual void on_fragment_overlap_mismatch(std::uint64_t frame, std::uint64_t timestamp_ns,
                                            std::string detail) = 0;
  virtual void on_datagram_incomplete(const IncompleteDatagram& datagram) = 0;
};

class IpReassembler {
 public:
  explicit IpReassembler(IpReassemblyLimits limits = {});
  ~IpReassembler();
  IpReassembler(const IpReassembler&) = delete;
  IpReassembler& operator=(const IpReassembler&) = delete;

  // Holds the fragment `fragment` describes (decoded as DecodeStatus::IpFragment from `frame`,
  // captured at `timestamp_ns`). Returns the datagram when this fragment completes it: its
  // payload is valid until the next call of add() or finish(), which may read it (a fragment
  // inside a reassembled datagram).
  std::optional<IpDatagram> add(const DecodeResult& fragment, std::uint64_t frame,
                                std::uint64_t timestamp_ns, IpReassemblyEvents& events);
  // The capture ended: every datagram still held is given up.
  void finish(IpReassemblyEvents& events);

  std::size_t datagrams_held() const;
  std::size_t octets_held() const;
  const IpReassemblyLimits& limits() const { return limits_; }

 private:
  struct Key {
    std::uint64_t tunnel = 0;
    IpAddress source;
    IpAddress destination;
    std::uint32_t id = 0;
    std::uint8_t protocol = 0;  // IPv4 only (Wireshark keys IPv6 without it)
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const;
  };
  struct Datagram;
  using Held = std::list<Datagram>;  // oldest first (first fragment's arrival)

  void give_up(Held::iterator it, GiveUpReason reason, IpReassemblyEvents& events);
  void give_up_old(IpReassemblyEvents& events);
  void keep_within_limits(const Datagram* keep, IpReassemblyEvents& events);
  void account(Datagram& d);

  IpReassemblyLimits limits_;
  Held held_;
  std::unordered_map<Key, Held::iterator, KeyHash> index_;
  std::size_t octets_ = 0;
  std::uint64_t now_ns_ = 0;             // the latest capture time seen
  std::vector<std::uint8_t> completed_;  // the payload of the datagram add() returned last
};

// Hands `fragment` (decoded from `frame`) to `reassembler`; when it completes a datagram,
// decodes it with `options` and calls on_datagram(const DecodeResult&) with what it held. That
// may be a fragment again (of a packet inside a tunnel), reassembled in turn, as deep as
// tunnels nest.
template <typename OnDatagram>
void reassemble(IpReassembler& reassembler, const DecodeResult& fragment, std::uint64_t frame,
                std::uint64_t timestamp_ns, const DecodeOptions& options,
                IpReassemblyEvents& events, OnDatagram&& on_datagram) {
  const DecodeResult* current = &fragment;
  DecodeResult inner;
  for (std::size_t depth = 0; depth <= kMaxTunnelDepth; ++depth) {
    const std::optional<IpDatagram> datagram =
        reassembler.add(*current, frame, timestamp_ns, events);
    if (!datagram) return;
    inner = decode_datagram(*datagram, frame, timestamp_ns, options);
    on_datagram(static_cast<const DecodeResult&>(inner));
    if (inner.status != DecodeStatus::IpFragment) return;
    current = &inner;
  }
}

}  // namespace mpa
