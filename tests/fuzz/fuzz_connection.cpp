// Fuzz target: the connection analyzer (Analyzer::on_segment, finish) over a sequence of
// TCP segments the fuzzer describes, and, beside it, a TcpReassembler per direction whose
// output is checked against the reassembly contract (every offset delivered exactly once,
// as data or inside a gap, in order; the end reported once, nothing after it).
//
// Input layout:
//   header (12 octets)
//     byte 0    0x01/0x02 markers option set/on, 0x04/0x08 CRC option set/on,
//               0x10 infer_with_syn, 0x20 keep ULPDUs, 0x40 small reassembly ceiling (4 KiB),
//               0x80 small retransmission window (256 octets)
//     byte 1    max_connections (0: the default)
//     byte 2    inference window in units of 256 octets (0: the default)
//     byte 3    reserved
//     bytes 4-7 ISN of the client, bytes 8-11 ISN of the server (little endian): where each
//               direction's relative sequence numbers start
//   then segments, each a 6-octet header and its payload:
//     byte 0    0x01 direction (server to client), 0x06 connection (of 4 port pairs),
//               0x08 SYN, 0x10 FIN, 0x20 RST, 0x40 ACK, 0x80 PSH
//     bytes 1-2 sequence number relative to the furthest sequence number this direction
//               has sent so far (signed, little endian)
//     byte 3    payload length, low 8 bits
//     byte 4    0x0F payload length, high 4 bits; 0xF0 payload octets cut by the snapshot
//               length, in units of 64
//     byte 5    MSS option value / 8 (SYN segments; 0: none)
//     payload   (as many octets as remain, up to the length)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>

#include "fuzz_support.h"
#include "mpa/analyzer.h"
#include "mpa/diagnostics.h"
#include "mpa/tcp_reassembly.h"

namespace {

using mpa::TcpSeq;

constexpr std::size_t kConnections = 4;

// Checks what a TcpReassembler delivers against its contract.
class ContractSink : public mpa::StreamSink {
 public:
  void on_stream_data(std::uint64_t offset, TcpSeq seq, std::span<const std::uint8_t> data,
                      std::uint64_t) override {
    MPA_FUZZ_CHECK(!data.empty(), "empty data event");
    advance(offset, seq, data.size());
  }
  void on_stream_gap(std::uint64_t offset, TcpSeq seq, std::uint64_t length, mpa::GapCause,
                     std::uint64_t) override {
    MPA_FUZZ_CHECK(length > 0, "empty gap");
    advance(offset, seq, length);
  }
  void on_stream_end(std::uint64_t offset, TcpSeq seq, mpa::StreamEnd, std::uint64_t) override {
    MPA_FUZZ_CHECK(!ended_, "two ends");
    MPA_FUZZ_CHECK(offset == next_, "end away from the in-order position");
    check_seq(offset, seq);
    ended_ = true;
  }
  void on_retransmission_mismatch(std::uint64_t offset, TcpSeq seq, std::uint32_t length,
                                  std::uint64_t) override {
    MPA_FUZZ_CHECK(length > 0, "empty mismatch");
    MPA_FUZZ_CHECK(offset < next_ + (std::uint64_t{1} << 31), "mismatch far beyond the stream");
    check_seq(offset, seq);
  }
  std::uint64_t next() const { return next_; }
  bool ended() const { return ended_; }

 private:
  void advance(std::uint64_t offset, TcpSeq seq, std::uint64_t length) {
    MPA_FUZZ_CHECK(!ended_, "bytes after the end");
    MPA_FUZZ_CHECK(offset == next_, "bytes delivered out of order, twice or skipped");
    check_seq(offset, seq);
    next_ += length;
  }
  void check_seq(std::uint64_t offset, TcpSeq seq) {
    const std::uint32_t origin = seq.value() - static_cast<std::uint32_t>(offset);
    if (!origin_) origin_ = origin;
    MPA_FUZZ_CHECK(*origin_ == origin, "sequence number and offset disagree");
  }
  std::uint64_t next_ = 0;
  bool ended_ = false;
  std::optional<std::uint32_t> origin_;
};

class CheckingSink : public mpa::EventSink {
 public:
  void on_finding(const mpa::Finding& f) override {
    MPA_FUZZ_CHECK(static_cast<std::size_t>(f.id) < static_cast<std::size_t>(mpa::DiagId::kCount),
                   "finding id outside the catalogue");
    ++findings;
  }
  void on_fpdu(const mpa::FpduEvent& e) override {
    MPA_FUZZ_CHECK(e.ulpdu_head.size() <= e.ulpdu_length, "ULPDU head longer than the ULPDU");
  }
  void on_connection_end(const mpa::ConnectionSummary& s) override {
    for (const auto& d : s.directions) {
      MPA_FUZZ_CHECK(d.segments_starting_fpdu <= d.segments, "more FPDU-aligned segments than segments");
    }
    ++ends;
  }
  std::uint64_t findings = 0;
  std::uint64_t ends = 0;
};

mpa::Endpoint endpoint(std::uint8_t host, std::uint16_t port) {
  mpa::Endpoint e;
  e.address.family = 4;
  e.address.bytes[0] = 10;
  e.address.bytes[3] = host;
  e.port = port;
  return e;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mpa::fuzz::Input input({data, size});
  const std::uint8_t flags = input.u8();
  mpa::AnalyzerOptions options;
  if (flags & 0x01) options.markers = (flags & 0x02) != 0;
  if (flags & 0x04) options.crc = (flags & 0x08) != 0;
  options.infer_with_syn = flags & 0x10;
  options.keep_ulpdu = flags & 0x20;
  if (flags & 0x40) options.reassembly.max_buffered_bytes = 4096;
  if (flags & 0x80) options.reassembly.retransmission_window = 256;
  if (const std::uint8_t m = input.u8(); m != 0) options.max_connections = m;
  if (const std::uint8_t w = input.u8(); w != 0) options.inference_window = std::size_t{w} * 256;
  input.u8();
  const std::uint32_t isn[2] = {input.u32(), input.u32()};

  CheckingSink sink;
  mpa::Analyzer analyzer(options, sink);
  std::unique_ptr<mpa::TcpReassembler> reassemblers[kConnections][2];
  ContractSink contracts[kConnections][2];
  TcpSeq furthest[kConnections][2];
  bool seen[kConnections][2] = {};

  std::uint64_t frame = 0;
  while (!input.empty()) {
    const std::uint8_t control = input.u8();
    const std::int16_t delta = static_cast<std::int16_t>(input.u16());
    const std::uint8_t len_low = input.u8();
    const std::uint8_t len_high = input.u8();
    const std::uint8_t mss = input.u8();
    const int dir = control & 0x01;
    const int conn = (control >> 1) & 0x03;
    std::uint8_t tcp = 0;
    if (control & 0x08) tcp |= mpa::tcp_flags::kSyn;
    if (control & 0x10) tcp |= mpa::tcp_flags::kFin;
    if (control & 0x20) tcp |= mpa::tcp_flags::kRst;
    if (control & 0x40) tcp |= mpa::tcp_flags::kAck;
    if (control & 0x80) tcp |= mpa::tcp_flags::kPsh;
    const std::size_t length = len_low | ((len_high & 0x0F) << 8);

    mpa::TcpSegment segment;
    segment.frame = ++frame;
    segment.timestamp_ns = frame * 1000;
    const mpa::Endpoint client = endpoint(1, static_cast<std::uint16_t>(40000 + conn));
    const mpa::Endpoint server = endpoint(2, 4420);
    segment.source = dir == 0 ? client : server;
    segment.destination = dir == 0 ? server : client;
    if (!seen[conn][dir]) {
      furthest[conn][dir] = TcpSeq(isn[dir]);
      seen[conn][dir] = true;
    }
    segment.seq = furthest[conn][dir] + static_cast<std::uint32_t>(static_cast<std::int32_t>(delta));
    segment.ack = seen[conn][1 - dir] ? furthest[conn][1 - dir] : TcpSeq(0);
    segment.flags = tcp;
    segment.window = 65535;
    if ((tcp & mpa::tcp_flags::kSyn) && mss != 0) segment.mss = static_cast<std::uint16_t>(mss * 8);
    segment.payload = input.bytes(length);
    segment.payload_missing = (len_high >> 4) * 64u;

    const std::uint32_t span = static_cast<std::uint32_t>(
        segment.payload.size() + segment.payload_missing + ((tcp & mpa::tcp_flags::kSyn) ? 1 : 0) +
        ((tcp & mpa::tcp_flags::kFin) ? 1 : 0));
    const TcpSeq end = segment.seq + span;
    if (end.is_after(furthest[conn][dir])) furthest[conn][dir] = end;

    analyzer.on_segment(segment);

    auto& reassembler = reassemblers[conn][dir];
    if (!reassembler) reassembler = std::make_unique<mpa::TcpReassembler>(options.reassembly);
    reassembler->on_segment(segment, contracts[conn][dir]);
    MPA_FUZZ_CHECK(reassembler->buffered_bytes() <= options.reassembly.max_buffered_bytes,
                   "buffered beyond the ceiling");
    MPA_FUZZ_CHECK(reassembler->next_offset() == contracts[conn][dir].next(),
                   "next_offset() disagrees with what was delivered");
    MPA_FUZZ_CHECK(reassembler->ended() == contracts[conn][dir].ended(), "ended() disagrees");
  }
  analyzer.finish(frame);
  MPA_FUZZ_CHECK(analyzer.mpa_connections() <= analyzer.tcp_connections(), "more MPA than TCP connections");
  MPA_FUZZ_CHECK(sink.ends == analyzer.mpa_connections(), "an MPA connection never ended");
  for (std::size_t c = 0; c < kConnections; ++c) {
    for (int d = 0; d < 2; ++d) {
      if (!reassemblers[c][d]) continue;
      reassemblers[c][d]->finish(frame, contracts[c][d]);
      MPA_FUZZ_CHECK(reassemblers[c][d]->buffered_bytes() == 0 || reassemblers[c][d]->ended(),
                     "data left buffered after finish()");
      MPA_FUZZ_CHECK(reassemblers[c][d]->next_offset() == contracts[c][d].next(), "finish() lost bytes");
    }
  }
  return 0;
}
