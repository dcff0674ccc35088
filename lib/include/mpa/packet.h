// Decoded packets: what the library needs of a captured frame's link, IP and TCP layers.
// Free of libpcap: the capture reader (lib/capture) fills these from records.
#pragma once

#include <array>
#include <bit>
#include <compare>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>

#include "mpa/tcp_seq.h"

namespace mpa {

struct IpAddress {
  std::uint8_t family = 4;               // 4 or 6
  std::array<std::uint8_t, 16> bytes{};  // IPv4 uses the first 4
  // As the defaulted ones would compare (family, then the octets in order), two words at a time
  // instead of a call to memcmp: flows are looked up by their addresses once per segment.
  friend bool operator==(const IpAddress& a, const IpAddress& b) {
    return a.family == b.family && a.word(0) == b.word(0) && a.word(1) == b.word(1);
  }
  friend std::strong_ordering operator<=>(const IpAddress& a, const IpAddress& b) {
    if (a.family != b.family) return a.family <=> b.family;
    if (a.word(0) != b.word(0)) return a.ordered(0) <=> b.ordered(0);
    return a.ordered(1) <=> b.ordered(1);
  }

 private:
  std::uint64_t word(std::size_t i) const {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + 8 * i, 8);
    return w;
  }
  // The word whose numeric order is the octets' order.
  std::uint64_t ordered(std::size_t i) const {
    const std::uint64_t w = word(i);
    return std::endian::native == std::endian::little ? __builtin_bswap64(w) : w;
  }
};

struct Endpoint {
  IpAddress address;
  std::uint16_t port = 0;
  // The tunnels the packet travelled in (VXLAN VNI, GRE key, ERSPAN session, outer
  // addresses), hashed by the decoder; 0 when it was not tunnelled. An address is only
  // unique within its tunnel: 10.0.0.1 in VNI 42 and in VNI 43 are two hosts, so the
  // tunnel is part of the endpoint and thus of the flow key. Both directions of a flow
  // share it (see TunnelPath::id).
  std::uint64_t tunnel = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
  friend auto operator<=>(const Endpoint&, const Endpoint&) = default;
};

// "10.0.0.1:4000" or "[2001:db8::1]:4000".
std::string to_string(const Endpoint& endpoint);
std::string to_string(const IpAddress& address);

// An IEEE 802 MAC address (the link-layer source of a host's frames).
struct MacAddress {
  std::array<std::uint8_t, 6> bytes{};
  friend bool operator==(const MacAddress&, const MacAddress&) = default;
  friend auto operator<=>(const MacAddress&, const MacAddress&) = default;
};
// "02:00:5e:10:00:01"
std::string to_string(const MacAddress& mac);

namespace tcp_flags {
inline constexpr std::uint8_t kFin = 0x01;
inline constexpr std::uint8_t kSyn = 0x02;
inline constexpr std::uint8_t kRst = 0x04;
inline constexpr std::uint8_t kPsh = 0x08;
inline constexpr std::uint8_t kAck = 0x10;
}  // namespace tcp_flags

// Where captured octets can be read again after the reader has moved on: the capture file
// they lie in (CaptureReader, for a plain pcap or pcapng file). The TCP reassembly keeps the
// place of the octets it delivers instead of a copy, and reads them again only to compare a
// retransmission with them.
class OctetSource {
 public:
  virtual ~OctetSource() = default;
  // The out.size() octets at offset `at` into `out`; false where they cannot all be read.
  // Called from the analysing thread while the reader goes on.
  virtual bool read_again(std::uint64_t at, std::span<std::uint8_t> out) const = 0;
};

// Whether the octets of `part` lie within those of `whole` (a payload within its frame, a
// piece of it within the payload): where they do, their place in `whole`'s source follows.
inline bool octets_within(std::span<const std::uint8_t> part, std::span<const std::uint8_t> whole) {
  const auto p = reinterpret_cast<std::uintptr_t>(part.data());
  const auto w = reinterpret_cast<std::uintptr_t>(whole.data());
  return p >= w && p + part.size() <= w + whole.size();
}

// One TCP segment as captured.
struct TcpSegment {
  std::uint64_t frame = 0;         // 1-based record number in the capture
  std::uint64_t timestamp_ns = 0;  // capture time
  Endpoint source;
  Endpoint destination;
  TcpSeq seq;
  TcpSeq ack;
  std::uint8_t flags = 0;  // tcp_flags bits
  std::uint16_t window = 0;
  std::optional<std::uint16_t> mss;       // MSS option (SYN segments)
  std::span<const std::uint8_t> payload;  // payload bytes the capture holds
  std::uint32_t payload_missing = 0;      // payload bytes cut off (snaplen), after `payload`
  // The running CRC32c (crc32c.h) over the payload but its last four octets, where whoever
  // decoded the segment worked it out (the pipeline's reading thread, when it has time): an
  // FPDU that fills the segment, as senders align them, has its CRC ready for the analysis.
  std::optional<std::uint32_t> payload_crc;
  // Where `payload` can be read again (payload_source nullptr: nowhere but in `payload`): its
  // first octet lies at offset payload_at of payload_source.
  const OctetSource* payload_source = nullptr;
  std::uint64_t payload_at = 0;
  // The link-layer source address of the Ethernet header (or Linux cooked header) nearest
  // the IP header, when the frame has one (none for raw IP, loopback, reassembled datagrams).
  std::optional<MacAddress> source_mac;
};

}  // namespace mpa
