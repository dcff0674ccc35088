// The connection target's input layout (see fuzz_connection.cpp), decoded in one place for
// the target and for corpus_to_pcap, which turns the same inputs into captures for the
// plugin's robustness test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "fuzz_support.h"
#include "mpa/analyzer.h"
#include "mpa/packet.h"
#include "mpa/tcp_seq.h"

namespace mpa::fuzz {

inline constexpr std::size_t kConnections = 4;

// The 12-octet header: analyzer options and the ISN of each direction.
struct ConnectionHeader {
  AnalyzerOptions options;
  std::uint32_t isn[2] = {0, 0};
};

inline ConnectionHeader read_connection_header(Input& input) {
  ConnectionHeader h;
  const std::uint8_t flags = input.u8();
  if (flags & 0x01) h.options.markers = (flags & 0x02) != 0;
  if (flags & 0x04) h.options.crc = (flags & 0x08) != 0;
  h.options.infer_with_syn = flags & 0x10;
  h.options.keep_ulpdu = flags & 0x20;
  if (flags & 0x40) h.options.reassembly.max_buffered_bytes = 4096;
  if (flags & 0x80) h.options.reassembly.retransmission_window = 256;
  if (const std::uint8_t m = input.u8(); m != 0) h.options.max_connections = m;
  if (const std::uint8_t w = input.u8(); w != 0) h.options.inference_window = std::size_t{w} * 256;
  input.u8();
  h.isn[0] = input.u32();
  h.isn[1] = input.u32();
  return h;
}

inline Endpoint fuzz_endpoint(std::uint8_t host, std::uint16_t port) {
  Endpoint e;
  e.address.family = 4;
  e.address.bytes[0] = 10;
  e.address.bytes[3] = host;
  e.port = port;
  return e;
}

// Feeds one connection to an Analyzer segment by segment: side 0, the Initiator, is
// 10.0.0.10:40000, side 1 10.0.0.20:20049; each side's sequence numbers run on from its ISN
// (a SYN or FIN counts one), each ACK acknowledges all the other side has sent.
class ConversationWire {
 public:
  ConversationWire(Analyzer& analyzer, std::uint32_t initiator_isn, std::uint32_t responder_isn)
      : analyzer_(analyzer), next_{initiator_isn, responder_isn} {}
  void send(int from, std::uint8_t flags, const std::uint8_t* data, std::size_t size,
            std::optional<std::uint16_t> mss = std::nullopt) {
    TcpSegment s;
    s.frame = ++frame_;
    s.timestamp_ns = frame_ * 10000;
    s.source = fuzz_endpoint(from == 0 ? 10 : 20, from == 0 ? 40000 : 20049);
    s.destination = fuzz_endpoint(from == 0 ? 20 : 10, from == 0 ? 20049 : 40000);
    s.seq = TcpSeq(next_[from]);
    s.ack = TcpSeq(flags == tcp_flags::kSyn ? 0 : next_[1 - from]);
    s.flags = flags;
    s.window = 65535;
    s.mss = mss;
    s.payload = {data, size};
    analyzer_.on_segment(s);
    const bool syn_fin = flags & (tcp_flags::kSyn | tcp_flags::kFin);
    next_[from] += static_cast<std::uint32_t>(size) + (syn_fin ? 1 : 0);
  }
  std::uint32_t next(int side) const { return next_[side]; }
  std::uint64_t frames() const { return frame_; }

 private:
  Analyzer& analyzer_;
  std::uint32_t next_[2];
  std::uint64_t frame_ = 0;
};

// The segments that follow the header, one at a time, with the sequence numbers each
// (connection, direction) has reached so far.
class SegmentReader {
 public:
  explicit SegmentReader(const ConnectionHeader& header) : isn_{header.isn[0], header.isn[1]} {}

  struct Next {
    TcpSegment segment;
    std::size_t connection = 0;
    int direction = 0;
  };

  // Call only while !input.empty().
  Next next(Input& input) {
    const std::uint8_t control = input.u8();
    const std::int16_t delta = static_cast<std::int16_t>(input.u16());
    const std::uint8_t len_low = input.u8();
    const std::uint8_t len_high = input.u8();
    const std::uint8_t mss = input.u8();
    Next n;
    const int dir = n.direction = control & 0x01;
    const std::size_t conn = n.connection = (control >> 1) & 0x03;
    std::uint8_t tcp = 0;
    if (control & 0x08) tcp |= tcp_flags::kSyn;
    if (control & 0x10) tcp |= tcp_flags::kFin;
    if (control & 0x20) tcp |= tcp_flags::kRst;
    if (control & 0x40) tcp |= tcp_flags::kAck;
    if (control & 0x80) tcp |= tcp_flags::kPsh;
    const std::size_t length = len_low | ((len_high & 0x0F) << 8);

    TcpSegment& segment = n.segment;
    segment.frame = ++frame_;
    segment.timestamp_ns = frame_ * 1000;
    const Endpoint client = fuzz_endpoint(1, static_cast<std::uint16_t>(40000 + conn));
    const Endpoint server = fuzz_endpoint(2, 4420);
    segment.source = dir == 0 ? client : server;
    segment.destination = dir == 0 ? server : client;
    if (!seen_[conn][dir]) {
      furthest_[conn][dir] = TcpSeq(isn_[dir]);
      seen_[conn][dir] = true;
    }
    segment.seq =
        furthest_[conn][dir] + static_cast<std::uint32_t>(static_cast<std::int32_t>(delta));
    segment.ack = seen_[conn][1 - dir] ? furthest_[conn][1 - dir] : TcpSeq(0);
    segment.flags = tcp;
    segment.window = 65535;
    if ((tcp & tcp_flags::kSyn) && mss != 0) segment.mss = static_cast<std::uint16_t>(mss * 8);
    segment.payload = input.bytes(length);
    segment.payload_missing = (len_high >> 4) * 64u;

    const std::uint32_t span = static_cast<std::uint32_t>(
        segment.payload.size() + segment.payload_missing + ((tcp & tcp_flags::kSyn) ? 1 : 0) +
        ((tcp & tcp_flags::kFin) ? 1 : 0));
    const TcpSeq end = segment.seq + span;
    if (end.is_after(furthest_[conn][dir])) furthest_[conn][dir] = end;
    return n;
  }

  std::uint64_t frames() const { return frame_; }

 private:
  std::uint32_t isn_[2];
  TcpSeq furthest_[kConnections][2];
  bool seen_[kConnections][2] = {};
  std::uint64_t frame_ = 0;
};

}  // namespace mpa::fuzz
