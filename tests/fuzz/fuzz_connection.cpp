// Fuzz target: the connection analyzer (Analyzer::on_segment, finish) over a sequence of
// TCP segments the fuzzer describes, and, beside it, a TcpReassembler per direction whose
// output is checked against the reassembly contract (every offset delivered exactly once,
// as data or inside a gap, in order; the end reported once, nothing after it), and against a
// second TcpReassembler per direction that keeps the place of the octets it delivers in the
// input (TcpSegment::payload_source) instead of copying them: the same events.
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
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "connection_input.h"
#include "fpdu/fpdu_reader.h"
#include "fuzz_support.h"
#include "mpa/analyzer.h"
#include "mpa/diagnostics.h"
#include "mpa/tcp_reassembly.h"

namespace {

using mpa::TcpSeq;
using mpa::fuzz::kConnections;

// Checks what a TcpReassembler delivers against its contract.
// (Every event is logged, to compare two reassemblers.)
class ContractSink : public mpa::StreamSink {
 public:
  void on_stream_data(std::uint64_t offset, TcpSeq seq, std::span<const std::uint8_t> data,
                      std::uint64_t frame) override {
    MPA_FUZZ_CHECK(!data.empty(), "empty data event");
    advance(offset, seq, data.size());
    log.emplace_back(0, offset, data.size(), frame);
  }
  void on_stream_gap(std::uint64_t offset, TcpSeq seq, std::uint64_t length, mpa::GapCause cause,
                     std::uint64_t frame) override {
    MPA_FUZZ_CHECK(length > 0, "empty gap");
    advance(offset, seq, length);
    log.emplace_back(10 + static_cast<int>(cause), offset, length, frame);
  }
  void on_stream_end(std::uint64_t offset, TcpSeq seq, mpa::StreamEnd how,
                     std::uint64_t frame) override {
    log.emplace_back(20 + static_cast<int>(how), offset, 0, frame);
    MPA_FUZZ_CHECK(!ended_, "two ends");
    MPA_FUZZ_CHECK(offset == next_, "end away from the in-order position");
    check_seq(offset, seq);
    ended_ = true;
  }
  void on_retransmission_mismatch(std::uint64_t offset, TcpSeq seq, std::uint32_t length,
                                  mpa::MismatchEvidence evidence, std::uint64_t frame) override {
    log.emplace_back(30 + static_cast<int>(evidence), offset, length, frame);
    MPA_FUZZ_CHECK(length > 0, "empty mismatch");
    MPA_FUZZ_CHECK(offset < next_ + (std::uint64_t{1} << 31), "mismatch far beyond the stream");
    check_seq(offset, seq);
  }
  void on_retransmission_check_stopped(std::uint64_t offset, TcpSeq seq,
                                       std::uint64_t frame) override {
    log.emplace_back(40, offset, 0, frame);
    MPA_FUZZ_CHECK(!stopped_, "the retransmission check stopped twice");
    MPA_FUZZ_CHECK(offset <= next_, "the check stopped beyond the stream");
    check_seq(offset, seq);
    stopped_ = true;
  }
  std::uint64_t next() const { return next_; }
  bool ended() const { return ended_; }
  std::vector<std::tuple<int, std::uint64_t, std::uint64_t, std::uint64_t>> log;

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
  bool stopped_ = false;
  std::optional<std::uint32_t> origin_;
};

// The fuzzer's input as the capture file the segments' payloads lie in.
class InputFile : public mpa::OctetSource {
 public:
  explicit InputFile(std::span<const std::uint8_t> input) : input_(input) {}
  bool read_again(std::uint64_t at, std::span<std::uint8_t> out) const override {
    MPA_FUZZ_CHECK(at <= input_.size() && out.size() <= input_.size() - at,
                   "octets read again from beyond the input");
    std::memcpy(out.data(), input_.data() + at, out.size());
    return true;
  }
  // `segment` with its payload placed where the input holds it (where it lies in the input).
  mpa::TcpSegment placed(const mpa::TcpSegment& segment) const {
    mpa::TcpSegment copy = segment;
    if (!segment.payload.empty() && mpa::octets_within(segment.payload, input_)) {
      copy.payload_source = this;
      copy.payload_at = static_cast<std::uint64_t>(segment.payload.data() - input_.data());
    }
    return copy;
  }

 private:
  std::span<const std::uint8_t> input_;
};

class CheckingSink : public mpa::EventSink {
 public:
  void on_finding(const mpa::Finding& f) override {
    MPA_FUZZ_CHECK(static_cast<std::size_t>(f.id) < static_cast<std::size_t>(mpa::DiagId::kCount),
                   "finding id outside the catalogue");
    ++findings;
  }
  void on_fpdu(const mpa::FpduEvent& e) override {
    // The ULPDU as its sender framed it: ULPDU_Length octets, or up to 4 more or fewer where
    // the reader named a sender whose ULPDU_Length counts other octets (sender_framing.h);
    // the head is its first octets.
    MPA_FUZZ_CHECK(std::uint64_t{e.ulpdu_size} + 4 >= e.ulpdu_length &&
                       e.ulpdu_size <= std::uint64_t{e.ulpdu_length} + 4,
                   "ULPDU size far from ULPDU_Length");
    MPA_FUZZ_CHECK(
        e.ulpdu_head.size() == std::min<std::size_t>(e.ulpdu_size, mpa::FpduReader::kUlpduHeadSize),
        "ULPDU head longer or shorter than the ULPDU's first octets");
  }
  void on_connection_end(const mpa::ConnectionSummary& s) override {
    for (const auto& d : s.directions) {
      MPA_FUZZ_CHECK(d.segments_starting_fpdu <= d.segments,
                     "more FPDU-aligned segments than segments");
    }
    ++ends;
  }
  std::uint64_t findings = 0;
  std::uint64_t ends = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mpa::fuzz::Input input({data, size});
  const mpa::fuzz::ConnectionHeader header = mpa::fuzz::read_connection_header(input);
  const mpa::AnalyzerOptions& options = header.options;

  CheckingSink sink;
  mpa::Analyzer analyzer(options, sink);
  std::unique_ptr<mpa::TcpReassembler> reassemblers[kConnections][2];
  ContractSink contracts[kConnections][2];
  const InputFile file({data, size});
  std::unique_ptr<mpa::TcpReassembler> placed[kConnections][2];
  ContractSink placed_contracts[kConnections][2];
  mpa::fuzz::SegmentReader segments(header);

  while (!input.empty()) {
    const mpa::fuzz::SegmentReader::Next next = segments.next(input);
    const mpa::TcpSegment& segment = next.segment;
    const std::size_t conn = next.connection;
    const int dir = next.direction;
    analyzer.on_segment(segment);

    auto& reassembler = reassemblers[conn][dir];
    if (!reassembler) reassembler = std::make_unique<mpa::TcpReassembler>(options.reassembly);
    if (!placed[conn][dir])
      placed[conn][dir] = std::make_unique<mpa::TcpReassembler>(options.reassembly);
    // The ACK field is the peer's, as MpaConnection feeds it.
    if ((segment.flags & mpa::tcp_flags::kAck) && reassemblers[conn][1 - dir]) {
      reassemblers[conn][1 - dir]->on_peer_ack(segment.ack);
      placed[conn][1 - dir]->on_peer_ack(segment.ack);
    }
    const mpa::SegmentOutcome outcome = reassembler->on_segment(segment, contracts[conn][dir]);
    MPA_FUZZ_CHECK(
        placed[conn][dir]->on_segment(file.placed(segment), placed_contracts[conn][dir]) == outcome,
        "octets kept as their place give another outcome than copied octets");
    MPA_FUZZ_CHECK(reassembler->buffered_bytes() <= options.reassembly.max_buffered_bytes,
                   "buffered beyond the ceiling");
    MPA_FUZZ_CHECK(reassembler->next_offset() == contracts[conn][dir].next(),
                   "next_offset() disagrees with what was delivered");
    MPA_FUZZ_CHECK(reassembler->ended() == contracts[conn][dir].ended(), "ended() disagrees");
  }
  const std::uint64_t frame = segments.frames();
  analyzer.finish(frame);
  MPA_FUZZ_CHECK(analyzer.mpa_connections() <= analyzer.tcp_connections(),
                 "more MPA than TCP connections");
  MPA_FUZZ_CHECK(sink.ends == analyzer.mpa_connections(), "an MPA connection never ended");
  for (std::size_t c = 0; c < kConnections; ++c) {
    for (int d = 0; d < 2; ++d) {
      if (!reassemblers[c][d]) continue;
      reassemblers[c][d]->finish(frame, contracts[c][d]);
      placed[c][d]->finish(frame, placed_contracts[c][d]);
      MPA_FUZZ_CHECK(placed_contracts[c][d].log == contracts[c][d].log,
                     "octets kept as their place give other events than copied octets");
      MPA_FUZZ_CHECK(reassemblers[c][d]->buffered_bytes() == 0 || reassemblers[c][d]->ended(),
                     "data left buffered after finish()");
      MPA_FUZZ_CHECK(reassemblers[c][d]->next_offset() == contracts[c][d].next(),
                     "finish() lost bytes");
    }
  }
  return 0;
}
