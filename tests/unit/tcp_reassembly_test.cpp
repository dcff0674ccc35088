// Tests for TcpReassembler: one direction of a TCP connection in, in-order bytes, gaps and
// the end of the stream out.
#include "mpa/tcp_reassembly.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace mpa {
namespace {

struct Event {
  enum Kind { Data, Gap, End, Mismatch, Stopped };
  Kind kind = Data;
  std::uint64_t offset = 0;
  std::uint32_t seq = 0;
  std::string bytes;         // Data
  std::uint64_t length = 0;  // Data, Gap, Mismatch
  GapCause cause = GapCause::NotCaptured;
  StreamEnd how = StreamEnd::Fin;
  MismatchEvidence evidence = MismatchEvidence::Octets;  // Mismatch
  std::uint64_t frame = 0;
};

class RecordingSink : public StreamSink {
 public:
  void on_stream_data(std::uint64_t offset, TcpSeq seq, std::span<const std::uint8_t> data,
                      std::uint64_t frame) override {
    Event e;
    e.kind = Event::Data;
    e.offset = offset;
    e.seq = seq.value();
    e.bytes.assign(data.begin(), data.end());
    e.length = data.size();
    e.frame = frame;
    events.push_back(e);
  }
  void on_stream_gap(std::uint64_t offset, TcpSeq seq, std::uint64_t length, GapCause cause,
                     std::uint64_t frame) override {
    Event e;
    e.kind = Event::Gap;
    e.offset = offset;
    e.seq = seq.value();
    e.length = length;
    e.cause = cause;
    e.frame = frame;
    events.push_back(e);
  }
  void on_stream_end(std::uint64_t offset, TcpSeq seq, StreamEnd how,
                     std::uint64_t frame) override {
    Event e;
    e.kind = Event::End;
    e.offset = offset;
    e.seq = seq.value();
    e.how = how;
    e.frame = frame;
    events.push_back(e);
  }
  void on_retransmission_mismatch(std::uint64_t offset, TcpSeq seq, std::uint32_t length,
                                  MismatchEvidence evidence, std::uint64_t frame) override {
    Event e;
    e.kind = Event::Mismatch;
    e.offset = offset;
    e.seq = seq.value();
    e.length = length;
    e.evidence = evidence;
    e.frame = frame;
    events.push_back(e);
  }
  void on_retransmission_check_stopped(std::uint64_t offset, TcpSeq seq,
                                       std::uint64_t frame) override {
    Event e;
    e.kind = Event::Stopped;
    e.offset = offset;
    e.seq = seq.value();
    e.frame = frame;
    events.push_back(e);
  }

  // The stream as delivered so far: data as is, each gap byte as '?'.
  std::string stream() const {
    std::string out;
    for (const auto& e : events) {
      if (e.kind == Event::Data) out += e.bytes;
      if (e.kind == Event::Gap) out.append(e.length, '?');
    }
    return out;
  }
  std::size_t count(Event::Kind kind) const {
    return std::count_if(events.begin(), events.end(),
                         [&](const Event& e) { return e.kind == kind; });
  }

  std::vector<Event> events;
};

constexpr std::uint8_t kAck = tcp_flags::kAck;
constexpr std::uint8_t kSyn = tcp_flags::kSyn;
constexpr std::uint8_t kFin = tcp_flags::kFin | tcp_flags::kAck;
constexpr std::uint8_t kRst = tcp_flags::kRst;

// Feeds segments to one reassembler, numbering frames from 1.
class Harness {
 public:
  explicit Harness(ReassemblyOptions options = {}) : reassembler(options) {}

  SegmentOutcome syn(std::uint32_t isn) { return send(isn, "", kSyn); }
  SegmentOutcome send(std::uint32_t seq, std::string_view payload, std::uint8_t flags = kAck,
                      std::uint32_t missing = 0) {
    TcpSegment segment;
    segment.frame = ++frame;
    segment.seq = TcpSeq(seq);
    segment.flags = flags;
    segment.payload =
        std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size());
    segment.payload_missing = missing;
    return reassembler.on_segment(segment, sink);
  }
  void finish() { reassembler.finish(++frame, sink); }
  // The peer's segment acknowledging everything before `seq`.
  void ack(std::uint32_t seq) { reassembler.on_peer_ack(TcpSeq(seq)); }

  TcpReassembler reassembler;
  RecordingSink sink;
  std::uint64_t frame = 0;
};

TEST(TcpReassembler, DeliversInOrderSegmentsImmediately) {
  Harness h;
  EXPECT_EQ(h.syn(1000), SegmentOutcome::Control);
  EXPECT_EQ(h.send(1001, "hello"), SegmentOutcome::Delivered);
  EXPECT_EQ(h.send(1006, " world"), SegmentOutcome::Delivered);

  ASSERT_EQ(h.sink.events.size(), 2u);
  EXPECT_EQ(h.sink.events[0].offset, 0u);
  EXPECT_EQ(h.sink.events[0].seq, 1001u);
  EXPECT_EQ(h.sink.events[0].frame, 2u);
  EXPECT_EQ(h.sink.events[1].offset, 5u);
  EXPECT_EQ(h.sink.events[1].seq, 1006u);
  EXPECT_EQ(h.sink.events[1].frame, 3u);
  EXPECT_EQ(h.sink.stream(), "hello world");
  EXPECT_EQ(h.reassembler.next_offset(), 11u);
  EXPECT_EQ(h.reassembler.next_seq(), TcpSeq(1012));
}

TEST(TcpReassembler, DeliversOutOfOrderSegmentsInOrder) {
  Harness h;
  h.syn(1000);
  EXPECT_EQ(h.send(1012, "!"), SegmentOutcome::Buffered);       // frame 2
  EXPECT_EQ(h.send(1006, " world"), SegmentOutcome::Buffered);  // frame 3
  EXPECT_TRUE(h.sink.events.empty());
  EXPECT_EQ(h.reassembler.buffered_bytes(), 7u);

  EXPECT_EQ(h.send(1001, "hello"), SegmentOutcome::Delivered);  // frame 4
  EXPECT_EQ(h.sink.stream(), "hello world!");
  ASSERT_EQ(h.sink.events.size(), 3u);
  // Each piece is attributed to the frame it arrived in.
  EXPECT_EQ(h.sink.events[0].frame, 4u);
  EXPECT_EQ(h.sink.events[1].frame, 3u);
  EXPECT_EQ(h.sink.events[1].offset, 5u);
  EXPECT_EQ(h.sink.events[2].frame, 2u);
  EXPECT_EQ(h.sink.events[2].offset, 11u);
  EXPECT_EQ(h.reassembler.buffered_bytes(), 0u);
}

TEST(TcpReassembler, TrimsOverlappingOutOfOrderSegments) {
  Harness h;
  h.syn(1000);
  EXPECT_EQ(h.send(1004, "defg"), SegmentOutcome::Buffered);
  EXPECT_EQ(h.send(1003, "cdefghi"), SegmentOutcome::Buffered);  // only c and hi are new
  EXPECT_EQ(h.reassembler.buffered_bytes(), 7u);
  EXPECT_EQ(h.send(1005, "efg"), SegmentOutcome::Retransmission);  // all buffered already
  EXPECT_EQ(h.send(1001, "ab"), SegmentOutcome::Delivered);
  EXPECT_EQ(h.sink.stream(), "abcdefghi");
  EXPECT_EQ(h.sink.count(Event::Mismatch), 0u);
}

TEST(TcpReassembler, IgnoresAnIdenticalRetransmissionSilently) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello");
  h.send(1006, " world");
  EXPECT_EQ(h.send(1001, "hello"), SegmentOutcome::Retransmission);
  EXPECT_EQ(h.send(1003, "llo wo"), SegmentOutcome::Retransmission);  // resegmented
  EXPECT_EQ(h.sink.events.size(), 2u);
}

TEST(TcpReassembler, ReportsADifferingRetransmissionAtTheFirstDifferingByte) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello world");
  EXPECT_EQ(h.send(1001, "hellO wOrld"), SegmentOutcome::RetransmissionMismatch);  // frame 3

  ASSERT_EQ(h.sink.count(Event::Mismatch), 1u);  // once per segment
  const Event& e = h.sink.events.back();
  EXPECT_EQ(e.kind, Event::Mismatch);
  EXPECT_EQ(e.offset, 4u);
  EXPECT_EQ(e.seq, 1005u);
  EXPECT_EQ(e.length, 7u);  // from the first difference to the end of the overlap
  EXPECT_EQ(e.frame, 3u);
  EXPECT_EQ(h.sink.stream(), "hello world");  // the first copy stands
}

TEST(TcpReassembler, ReportsARetransmissionDifferingFromBufferedData) {
  Harness h;
  h.syn(1000);
  h.send(1006, "world");
  EXPECT_EQ(h.send(1006, "wOrld"), SegmentOutcome::RetransmissionMismatch);
  ASSERT_EQ(h.sink.events.size(), 1u);
  EXPECT_EQ(h.sink.events[0].kind, Event::Mismatch);
  EXPECT_EQ(h.sink.events[0].offset, 6u);
  EXPECT_EQ(h.sink.events[0].length, 4u);
  h.send(1001, "hello");
  EXPECT_EQ(h.sink.stream(), "helloworld");
}

TEST(TcpReassembler, DeliversOnlyTheNewPartOfAPartialOverlap) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello");
  EXPECT_EQ(h.send(1003, "llo world"), SegmentOutcome::Delivered);
  ASSERT_EQ(h.sink.events.size(), 2u);
  EXPECT_EQ(h.sink.events[1].offset, 5u);
  EXPECT_EQ(h.sink.events[1].bytes, " world");
  EXPECT_EQ(h.sink.stream(), "hello world");
}

TEST(TcpReassembler, ComparesTheOldPartOfAPartialOverlapAndDeliversTheRest) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello");
  EXPECT_EQ(h.send(1003, "lLo world"), SegmentOutcome::RetransmissionMismatch);
  ASSERT_EQ(h.sink.count(Event::Mismatch), 1u);
  const auto mismatch = std::find_if(h.sink.events.begin(), h.sink.events.end(),
                                     [](const Event& e) { return e.kind == Event::Mismatch; });
  EXPECT_EQ(mismatch->offset, 3u);
  EXPECT_EQ(mismatch->length, 2u);
  EXPECT_EQ(h.sink.stream(), "hello world");
}

TEST(TcpReassembler, UnwrapsSequenceNumbersAcrossTheWrap) {
  Harness h;
  h.syn(0xFFFFFFF8u);                                     // offset 0 = 0xFFFFFFF9
  EXPECT_EQ(h.send(3, "klm"), SegmentOutcome::Buffered);  // offset 10, after the wrap
  EXPECT_EQ(h.send(0xFFFFFFF9u, "abcdef"), SegmentOutcome::Delivered);
  EXPECT_EQ(h.send(0xFFFFFFFFu, "ghij"), SegmentOutcome::Delivered);  // crosses 0
  EXPECT_EQ(h.send(0xFFFFFFFEu, "fgh"), SegmentOutcome::Retransmission);
  EXPECT_EQ(h.sink.stream(), "abcdefghijklm");
  ASSERT_EQ(h.sink.events.size(), 3u);
  EXPECT_EQ(h.sink.events[1].offset, 6u);
  EXPECT_EQ(h.sink.events[1].seq, 0xFFFFFFFFu);
  EXPECT_EQ(h.sink.events[2].offset, 10u);
  EXPECT_EQ(h.sink.events[2].seq, 3u);
  EXPECT_EQ(h.reassembler.next_seq(), TcpSeq(6));
}

// Counts instead of recording, for streams too long to keep.
class CountingSink : public StreamSink {
 public:
  void on_stream_data(std::uint64_t offset, TcpSeq, std::span<const std::uint8_t> data,
                      std::uint64_t) override {
    EXPECT_EQ(offset, delivered);
    delivered += data.size();
  }
  void on_stream_gap(std::uint64_t, TcpSeq, std::uint64_t, GapCause, std::uint64_t) override {
    ++gaps;
  }
  void on_stream_end(std::uint64_t, TcpSeq, StreamEnd, std::uint64_t) override {}
  void on_retransmission_mismatch(std::uint64_t, TcpSeq, std::uint32_t, MismatchEvidence,
                                  std::uint64_t) override {
    ++mismatches;
  }
  void on_retransmission_check_stopped(std::uint64_t, TcpSeq, std::uint64_t) override { ++stopped; }
  std::uint64_t delivered = 0;
  int gaps = 0;
  int mismatches = 0;
  int stopped = 0;
};

TEST(TcpReassembler, KeepsCountingOffsetsPastFourGibibytes) {
  TcpReassembler r;
  CountingSink sink;
  std::vector<std::uint8_t> chunk(1u << 16, 0x5a);
  TcpSegment segment;
  segment.flags = kSyn;
  segment.seq = TcpSeq(0x80000000u);
  r.on_segment(segment, sink);
  segment.flags = kAck;
  segment.payload = chunk;
  TcpSeq seq(0x80000001u);
  const std::uint64_t chunks = (std::uint64_t{1} << 32) / chunk.size() + 2;
  for (std::uint64_t i = 0; i < chunks; ++i) {
    segment.frame = i + 2;
    segment.seq = seq;
    ASSERT_EQ(r.on_segment(segment, sink), SegmentOutcome::Delivered);
    seq += static_cast<std::uint32_t>(chunk.size());
  }
  EXPECT_EQ(r.next_offset(), chunks * chunk.size());
  EXPECT_EQ(sink.delivered, chunks * chunk.size());
  // An identical retransmission of the last chunk is still recognised after the wraps.
  segment.seq = seq - static_cast<std::uint32_t>(chunk.size());
  EXPECT_EQ(r.on_segment(segment, sink), SegmentOutcome::Retransmission);
  EXPECT_EQ(sink.mismatches, 0);
  EXPECT_EQ(sink.gaps, 0);
}

TEST(TcpReassembler, StartsAfterTheSynWhenTheSynIsSeen) {
  Harness h;
  EXPECT_FALSE(h.reassembler.started());
  h.syn(5000);
  EXPECT_TRUE(h.reassembler.started());
  EXPECT_EQ(h.reassembler.next_seq(), TcpSeq(5001));
  EXPECT_EQ(h.send(5003, "cd"), SegmentOutcome::Buffered);  // the SYN fixed the origin
  h.send(5001, "ab");
  EXPECT_EQ(h.sink.stream(), "abcd");
}

TEST(TcpReassembler, StartsAtTheFirstPayloadWithoutASyn) {
  Harness h;
  EXPECT_EQ(h.send(4000, ""), SegmentOutcome::Control);  // a pure ACK does not start it
  EXPECT_FALSE(h.reassembler.started());
  EXPECT_EQ(h.send(5000, "abc"), SegmentOutcome::Delivered);
  ASSERT_EQ(h.sink.events.size(), 1u);
  EXPECT_EQ(h.sink.events[0].offset, 0u);
  EXPECT_EQ(h.sink.events[0].seq, 5000u);

  EXPECT_EQ(h.send(4990, "0123456789"), SegmentOutcome::BeforeStart);
  // Straddling the origin: the part before it is ignored, the rest compared or delivered.
  EXPECT_EQ(h.send(4998, "xyabcde"), SegmentOutcome::Delivered);
  EXPECT_EQ(h.sink.stream(), "abcde");
  EXPECT_EQ(h.sink.count(Event::Mismatch), 0u);
}

TEST(TcpReassembler, EndsOnceWhenTheFinIsReached) {
  Harness h;
  h.syn(1000);
  EXPECT_EQ(h.send(1001, "hello", kFin), SegmentOutcome::Delivered);  // frame 2
  ASSERT_EQ(h.sink.events.size(), 2u);
  const Event& end = h.sink.events[1];
  EXPECT_EQ(end.kind, Event::End);
  EXPECT_EQ(end.how, StreamEnd::Fin);
  EXPECT_EQ(end.offset, 5u);
  EXPECT_EQ(end.seq, 1006u);
  EXPECT_EQ(end.frame, 2u);
  EXPECT_TRUE(h.reassembler.ended());

  EXPECT_EQ(h.send(1001, "hello", kFin), SegmentOutcome::Retransmission);
  EXPECT_EQ(h.send(1006, "", kFin), SegmentOutcome::Control);
  EXPECT_EQ(h.send(1006, "more"), SegmentOutcome::Control);  // after the FIN: ignored
  EXPECT_EQ(h.send(1001, "", kRst), SegmentOutcome::Control);
  EXPECT_EQ(h.sink.events.size(), 2u);
}

TEST(TcpReassembler, EndsAtAnOutOfOrderFinOnlyAfterTheHoleFills) {
  Harness h;
  h.syn(1000);
  EXPECT_EQ(h.send(1006, "world", kFin), SegmentOutcome::Buffered);  // frame 2
  EXPECT_FALSE(h.reassembler.ended());
  EXPECT_TRUE(h.sink.events.empty());
  h.send(1001, "hello");
  ASSERT_EQ(h.sink.events.size(), 3u);
  EXPECT_EQ(h.sink.stream(), "helloworld");
  EXPECT_EQ(h.sink.events[2].kind, Event::End);
  EXPECT_EQ(h.sink.events[2].offset, 10u);
  EXPECT_EQ(h.sink.events[2].frame, 2u);
}

TEST(TcpReassembler, DiscardsBufferedDataBeyondAFin) {
  Harness h;
  h.syn(1000);
  h.send(1010, "zz");
  EXPECT_EQ(h.reassembler.buffered_bytes(), 2u);
  h.send(1006, "", kFin);
  EXPECT_EQ(h.reassembler.buffered_bytes(), 0u);
  h.send(1001, "hello");
  EXPECT_EQ(h.sink.stream(), "hello");
  EXPECT_EQ(h.sink.events.back().kind, Event::End);
  EXPECT_EQ(h.sink.events.back().offset, 5u);
}

TEST(TcpReassembler, EndsAtTheRstAfterFlushingBufferedData) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello");
  h.send(1010, "xyz");
  EXPECT_EQ(h.send(1006, "", kRst), SegmentOutcome::Control);  // frame 4
  ASSERT_EQ(h.sink.events.size(), 4u);
  EXPECT_EQ(h.sink.events[1].kind, Event::Gap);
  EXPECT_EQ(h.sink.events[1].offset, 5u);
  EXPECT_EQ(h.sink.events[1].length, 4u);
  EXPECT_EQ(h.sink.events[1].cause, GapCause::NotCaptured);
  EXPECT_EQ(h.sink.events[2].bytes, "xyz");
  EXPECT_EQ(h.sink.events[3].kind, Event::End);
  EXPECT_EQ(h.sink.events[3].how, StreamEnd::Rst);
  EXPECT_EQ(h.sink.events[3].offset, 12u);
  EXPECT_EQ(h.sink.events[3].frame, 4u);
  EXPECT_EQ(h.reassembler.buffered_bytes(), 0u);

  h.send(1013, "late", kFin);
  h.finish();
  EXPECT_EQ(h.sink.count(Event::End), 1u);  // one end event per direction
}

TEST(TcpReassembler, TreatsAGarbageOctetBeforeNextSeqAsAKeepAlive) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello");
  EXPECT_EQ(h.send(1005, std::string_view("\0", 1)), SegmentOutcome::KeepAlive);  // Linux
  EXPECT_EQ(h.send(1005, ""), SegmentOutcome::KeepAlive);  // zero-length variant
  EXPECT_EQ(h.sink.events.size(), 1u);                     // never a mismatch
}

TEST(TcpReassembler, TreatsAKeepAliveAfterCaptureLossAsAKeepAlive) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello");
  h.send(1010, "xyz");  // 1006..1009 never captured; the sender's snd_una is 1013
  EXPECT_EQ(h.send(1012, std::string_view("\0", 1)), SegmentOutcome::KeepAlive);
  h.finish();
  EXPECT_EQ(h.sink.stream(), "hello????xyz");
  EXPECT_EQ(h.sink.count(Event::Mismatch), 0u);
}

TEST(TcpReassembler, PassesZeroWindowProbesThroughTheNormalPaths) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello");
  EXPECT_EQ(h.send(1006, "w"), SegmentOutcome::Delivered);  // the probe carries new data
  h.send(1006, "w");                                        // resent identical: silent
  EXPECT_EQ(h.send(1006, "world"), SegmentOutcome::Delivered);
  EXPECT_EQ(h.sink.stream(), "helloworld");
  EXPECT_EQ(h.sink.count(Event::Mismatch), 0u);
}

TEST(TcpReassembler, ReportsSnaplenTruncatedBytesAsAGapWhenReachedInOrder) {
  Harness h;
  h.syn(1000);
  EXPECT_EQ(h.send(1001, "hel", kAck, 2), SegmentOutcome::Delivered);  // frame 2
  ASSERT_EQ(h.sink.events.size(), 2u);
  EXPECT_EQ(h.sink.events[1].kind, Event::Gap);
  EXPECT_EQ(h.sink.events[1].offset, 3u);
  EXPECT_EQ(h.sink.events[1].length, 2u);
  EXPECT_EQ(h.sink.events[1].cause, GapCause::Truncated);
  EXPECT_EQ(h.sink.events[1].frame, 2u);
  // The full retransmission comes too late: the bytes were already reported as a gap.
  EXPECT_EQ(h.send(1001, "hello"), SegmentOutcome::Retransmission);
  h.send(1006, "world");
  EXPECT_EQ(h.sink.stream(), "hel??world");
  EXPECT_EQ(h.sink.count(Event::Mismatch), 0u);
}

TEST(TcpReassembler, ReportsABufferedTruncatedSegmentWhenItIsReached) {
  Harness h;
  h.syn(1000);
  EXPECT_EQ(h.send(1006, "wo", kAck, 3), SegmentOutcome::Buffered);  // frame 2
  EXPECT_EQ(h.reassembler.buffered_bytes(), 2u);
  h.send(1001, "hello");
  EXPECT_EQ(h.sink.stream(), "hellowo???");
  ASSERT_EQ(h.sink.events.size(), 3u);
  EXPECT_EQ(h.sink.events[2].cause, GapCause::Truncated);
  EXPECT_EQ(h.sink.events[2].frame, 2u);
  EXPECT_EQ(h.reassembler.buffered_bytes(), 0u);
}

TEST(TcpReassembler, TurnsARemainingHoleIntoANotCapturedGapAtFinish) {
  Harness h;
  h.syn(1000);
  h.send(1001, "hello");
  h.send(1010, "xyz");     // frame 3
  h.send(1015, "", kFin);  // frame 4: FIN at offset 14, after a second hole
  h.finish();              // frame 5
  EXPECT_EQ(h.sink.stream(), "hello????xyz??");
  ASSERT_EQ(h.sink.events.size(), 5u);
  EXPECT_EQ(h.sink.events[1].cause, GapCause::NotCaptured);
  EXPECT_EQ(h.sink.events[1].frame, 5u);
  EXPECT_EQ(h.sink.events[2].frame, 3u);
  EXPECT_EQ(h.sink.events[3].cause, GapCause::NotCaptured);
  EXPECT_EQ(h.sink.events[4].kind, Event::End);
  EXPECT_EQ(h.sink.events[4].how, StreamEnd::Fin);
  EXPECT_EQ(h.sink.events[4].offset, 14u);
  EXPECT_EQ(h.sink.events[4].frame, 4u);
  h.finish();
  EXPECT_EQ(h.sink.events.size(), 5u);
}

TEST(TcpReassembler, TurnsBufferOverflowIntoABufferLimitGap) {
  Harness h(ReassemblyOptions{.max_buffered_bytes = 8});
  h.syn(1000);
  h.send(1001, "hello");                                      // offsets 0..5
  EXPECT_EQ(h.send(1010, "abcd"), SegmentOutcome::Buffered);  // 9..13
  EXPECT_EQ(h.send(1020, "efgh"), SegmentOutcome::Buffered);  // 19..23
  EXPECT_EQ(h.reassembler.buffered_bytes(), 8u);

  EXPECT_EQ(h.send(1030, "ijk"), SegmentOutcome::DroppedOverLimit);  // 29..32, frame 5
  ASSERT_EQ(h.sink.events.size(), 3u);
  EXPECT_EQ(h.sink.events[1].kind, Event::Gap);
  EXPECT_EQ(h.sink.events[1].offset, 5u);
  EXPECT_EQ(h.sink.events[1].length, 4u);
  EXPECT_EQ(h.sink.events[1].cause, GapCause::BufferLimit);
  EXPECT_EQ(h.sink.events[1].frame, 5u);
  EXPECT_EQ(h.sink.events[2].bytes, "abcd");
  EXPECT_EQ(h.reassembler.buffered_bytes(), 7u);  // efgh + ijk fit now
  EXPECT_LE(h.reassembler.buffered_bytes(), 8u);

  h.finish();
  EXPECT_EQ(h.sink.stream(), "hello????abcd??????efgh??????ijk");
}

TEST(TcpReassembler, SkipsToAnOverflowingSegmentThatPrecedesTheBufferedData) {
  Harness h(ReassemblyOptions{.max_buffered_bytes = 4});
  h.syn(1000);
  h.send(1020, "wxyz");                                                 // 19..23
  EXPECT_EQ(h.send(1005, "efghij"), SegmentOutcome::DroppedOverLimit);  // 4..10
  // The hole before the segment is given up, the segment is delivered, the buffer kept.
  EXPECT_EQ(h.sink.stream(), "????efghij");
  EXPECT_EQ(h.reassembler.buffered_bytes(), 4u);
  EXPECT_EQ(h.send(1001, "abcd"), SegmentOutcome::Retransmission);  // inside the gap: silent
  h.send(1011, "klmnopqrs");
  EXPECT_EQ(h.sink.stream(), "????efghijklmnopqrswxyz");
}

TEST(TcpReassembler, DeliversASegmentLargerThanTheCeilingAfterAGap) {
  Harness h(ReassemblyOptions{.max_buffered_bytes = 0});
  h.syn(1000);
  EXPECT_EQ(h.send(1003, "cd"), SegmentOutcome::DroppedOverLimit);
  EXPECT_EQ(h.sink.stream(), "??cd");
  EXPECT_EQ(h.sink.events[0].cause, GapCause::BufferLimit);
}

TEST(TcpReassembler, CannotCheckRetransmissionsOlderThanTheWindow) {
  Harness h(ReassemblyOptions{.retransmission_window = 4});
  h.syn(1000);
  h.send(1001, "hello world");
  EXPECT_EQ(h.send(1001, "HELLO"), SegmentOutcome::Retransmission);  // too old: silent
  EXPECT_EQ(h.send(1007, "worlD"), SegmentOutcome::RetransmissionMismatch);
  ASSERT_EQ(h.sink.count(Event::Mismatch), 1u);
  EXPECT_EQ(h.sink.events.back().offset, 10u);
  EXPECT_EQ(h.sink.events.back().length, 1u);
}

TEST(TcpReassembler, ChecksRetransmissionsAcrossTheHistoryRingBoundary) {
  Harness h(ReassemblyOptions{.retransmission_window = 4096});
  h.syn(0);
  std::string stream;
  for (int i = 0; i < 5000; ++i) stream.push_back(static_cast<char>('a' + i % 26));
  for (std::size_t at = 0; at < stream.size(); at += 1000) {
    h.send(1 + static_cast<std::uint32_t>(at), std::string_view(stream).substr(at, 1000));
  }
  // Offsets 4000..4200 sit at ring positions 4000..4095 and 0..103.
  std::string resent = stream.substr(4000, 200);
  EXPECT_EQ(h.send(4001, resent), SegmentOutcome::Retransmission);
  resent[150] = '#';
  EXPECT_EQ(h.send(4001, resent), SegmentOutcome::RetransmissionMismatch);
  EXPECT_EQ(h.sink.events.back().offset, 4150u);
  EXPECT_EQ(h.sink.events.back().length, 50u);
}

// Property: however a stream is cut, reordered, duplicated, lost or truncated, the events
// tile [0, end) exactly once, the data equals the original bytes, and the buffer never
// exceeds its ceiling.
TEST(TcpReassembler, TilesARandomlyCutReorderedAndDuplicatedStreamExactlyOnce) {
  std::mt19937_64 rng(20240611);
  auto uniform = [&](std::uint64_t lo, std::uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  // How often each path was taken, to show the rounds exercise them all.
  std::map<GapCause, int> gaps_by_cause;
  std::map<SegmentOutcome, int> outcomes;
  for (int round = 0; round < 400; ++round) {
    const std::size_t length = uniform(1, 6000);
    std::string original(length, '\0');
    for (auto& c : original) c = static_cast<char>(uniform(0, 255));
    // Half the rounds start right before the wrap.
    const auto isn = static_cast<std::uint32_t>(round % 2 ? uniform(0xFFFFF000u, 0xFFFFFFFFu)
                                                          : uniform(0, 0xFFFFFFFFu));
    const bool lossy = round % 4 == 3;
    const bool truncating = round % 8 >= 6;
    const bool with_fin = round % 3 != 0;
    ReassemblyOptions options;
    options.max_buffered_bytes = uniform(0, 3000);
    options.retransmission_window = uniform(0, 2048);

    struct Piece {
      std::size_t begin, end;
      std::uint32_t missing;
    };
    std::vector<Piece> pieces;
    for (std::size_t at = 0; at < length;) {
      const std::size_t end = std::min<std::size_t>(length, at + uniform(1, 700));
      pieces.push_back({at, end, 0});
      at = end;
    }
    const std::size_t duplicates = uniform(0, pieces.size());
    for (std::size_t i = 0; i < duplicates; ++i) {  // resegmented retransmissions
      const std::size_t begin = uniform(0, length - 1);
      pieces.push_back({begin, std::min<std::size_t>(length, begin + uniform(1, 900)), 0});
    }
    if (lossy) {
      for (std::size_t i = 0; i < pieces.size() / 5; ++i) {
        pieces.erase(pieces.begin() + static_cast<std::ptrdiff_t>(uniform(0, pieces.size() - 1)));
      }
    }
    if (truncating) {
      for (auto& p : pieces) {
        if (uniform(0, 3) == 0) {
          const std::size_t kept = uniform(0, p.end - p.begin - 1);
          p.missing = static_cast<std::uint32_t>(p.end - p.begin - kept);
          p.end = p.begin + kept;
        }
      }
    }
    // Reorder: a full shuffle or a local one.
    if (round % 5 == 0) {
      std::shuffle(pieces.begin(), pieces.end(), rng);
    } else {
      for (std::size_t i = 0; i + 1 < pieces.size(); ++i) {
        std::swap(pieces[i], pieces[std::min(pieces.size() - 1, i + uniform(0, 4))]);
      }
    }

    Harness h(options);
    h.syn(isn);
    bool fin_sent = false;
    std::uint64_t expected_end = 0;
    for (const auto& p : pieces) {
      const bool fin = with_fin && p.end + p.missing == length;
      fin_sent |= fin;
      expected_end = std::max<std::uint64_t>(expected_end, p.end + p.missing);
      ++outcomes[h.send(isn + 1 + static_cast<std::uint32_t>(p.begin),
                        std::string_view(original).substr(p.begin, p.end - p.begin),
                        fin ? kFin : kAck, p.missing)];
      ASSERT_LE(h.reassembler.buffered_bytes(), options.max_buffered_bytes);
    }
    h.finish();
    EXPECT_EQ(h.reassembler.buffered_bytes(), 0u);

    SCOPED_TRACE(::testing::Message() << "round " << round << " length " << length);
    std::uint64_t at = 0;
    int ends = 0;
    for (const auto& e : h.sink.events) {
      ASSERT_NE(e.kind, Event::Mismatch);  // duplicates are identical
      ASSERT_EQ(ends, 0) << "an event after the end";
      ASSERT_EQ(e.offset, at);
      ASSERT_EQ(e.seq, static_cast<std::uint32_t>(isn + 1 + at));
      if (e.kind == Event::Data) {
        ASSERT_GT(e.length, 0u);
        ASSERT_EQ(e.bytes, original.substr(at, e.length));
        at += e.length;
      } else if (e.kind == Event::Gap) {
        ASSERT_GT(e.length, 0u);
        ++gaps_by_cause[e.cause];
        if (!lossy && !truncating) {
          ASSERT_EQ(e.cause, GapCause::BufferLimit);
        }
        if (!truncating) {
          ASSERT_NE(e.cause, GapCause::Truncated);
        }
        at += e.length;
      } else {
        ASSERT_EQ(e.how, StreamEnd::Fin);
        ++ends;
      }
    }
    EXPECT_EQ(at, fin_sent ? length : expected_end);
    EXPECT_EQ(ends, fin_sent ? 1 : 0);
    if (options.max_buffered_bytes >= length && !lossy && !truncating) {
      EXPECT_EQ(h.sink.count(Event::Gap), 0u);
    }
  }
  EXPECT_GT(gaps_by_cause[GapCause::BufferLimit], 0);
  EXPECT_GT(gaps_by_cause[GapCause::NotCaptured], 0);
  EXPECT_GT(gaps_by_cause[GapCause::Truncated], 0);
  for (auto outcome : {SegmentOutcome::Delivered, SegmentOutcome::Buffered,
                       SegmentOutcome::Retransmission, SegmentOutcome::DroppedOverLimit}) {
    EXPECT_GT(outcomes[outcome], 0) << static_cast<int>(outcome);
  }
}

// ---- retransmissions as far back as TCP allows (digests beyond the window)

// `length` octets that differ from one KiB to the next.
std::string patterned(std::size_t length) {
  std::string out(length, '\0');
  for (std::size_t i = 0; i < length; ++i) {
    out[i] = static_cast<char>((i * 131 + i / 1000 * 7 + 3) & 0xFF);
  }
  return out;
}

// Sends `stream` from offset `from` on (ISN 0, so offset + 1 is the sequence number) in
// segments of `mss`.
void send_stream(Harness& h, const std::string& stream, std::size_t from = 0,
                 std::size_t mss = 1448) {
  for (std::size_t at = from; at < stream.size(); at += mss) {
    const std::size_t n = std::min(mss, stream.size() - at);
    ASSERT_EQ(h.send(1 + static_cast<std::uint32_t>(at), std::string_view(stream).substr(at, n)),
              SegmentOutcome::Delivered);
  }
}

constexpr std::size_t kFarBack = 300u << 10;

TEST(TcpReassembler, ComparesAnUnacknowledgedRetransmissionFarBehindTheWindow) {
  Harness h;
  h.syn(0);
  h.ack(1);  // the SYN-ACK: the peer acknowledges the SYN, nothing more
  const std::string stream = patterned(400u << 10);
  send_stream(h, stream);
  EXPECT_GT(h.reassembler.digests(), 0u);
  // The original segment at 100 KiB (69 * 1448 = 99912), 300 KiB behind the newest octet.
  const std::size_t at = 69 * 1448;
  ASSERT_GT(stream.size() - at, kFarBack);
  std::string resent = stream.substr(at, 1448);
  EXPECT_EQ(h.send(1 + at, resent), SegmentOutcome::Retransmission);  // identical: silent
  resent[724] ^= 0x5A;
  EXPECT_EQ(h.send(1 + at, resent), SegmentOutcome::RetransmissionMismatch);
  ASSERT_EQ(h.sink.count(Event::Mismatch), 1u);
  const Event& e = h.sink.events.back();
  EXPECT_EQ(e.evidence, MismatchEvidence::Digest);
  EXPECT_LE(e.offset, at + 724);
  EXPECT_GT(e.offset + e.length, at + 724);
  EXPECT_LE(e.length, 1024u);
  EXPECT_EQ(e.seq, static_cast<std::uint32_t>(e.offset + 1));
  EXPECT_EQ(h.sink.count(Event::Stopped), 0u);
  // A retransmission cut differently still covers whole units (1 KiB blocks) inside it.
  std::string recut = stream.substr(at + 500, 3000);
  recut[1700] ^= 0x01;
  EXPECT_EQ(h.send(1 + at + 500, recut), SegmentOutcome::RetransmissionMismatch);
  EXPECT_EQ(h.sink.count(Event::Mismatch), 2u);
  // Every octet delivered exactly once, nothing else reported.
  EXPECT_EQ(h.sink.stream(), stream);
}

TEST(TcpReassembler, StopsComparingOctetsOnceThePeerAcknowledgedThem) {
  Harness h;
  h.syn(0);
  h.ack(1);
  const std::string stream = patterned(400u << 10);
  send_stream(h, stream);
  const std::size_t at = 69 * 1448;
  const std::size_t before = h.reassembler.digests();
  ASSERT_GT(before, 0u);
  // The peer acknowledges up to 200 KiB: the digests below are dropped...
  h.ack(1 + (200u << 10));
  EXPECT_LT(h.reassembler.digests(), before);
  EXPECT_GE(h.reassembler.digests_from() + 1024, std::uint64_t{200u << 10});
  EXPECT_EQ(h.reassembler.peer_acked_offset(), std::uint64_t{200u << 10});
  // ... and a differing copy of acknowledged octets is not compared: no finding, nothing
  // delivered again, no other event.
  const std::size_t events = h.sink.events.size();
  std::string resent = stream.substr(at, 1448);
  resent[724] ^= 0x5A;
  EXPECT_EQ(h.send(1 + at, resent), SegmentOutcome::Retransmission);
  EXPECT_EQ(h.sink.events.size(), events);
  // Unacknowledged octets further on are still compared.
  const std::size_t later = 180 * 1448;  // 260640: unacknowledged, 150 KiB back
  std::string unacked = stream.substr(later, 1448);
  unacked[100] ^= 0x5A;
  EXPECT_EQ(h.send(1 + later, unacked), SegmentOutcome::RetransmissionMismatch);
  // An acknowledgement of everything (and of a FIN-like octet beyond) leaves no digest.
  h.ack(1 + static_cast<std::uint32_t>(stream.size()) + 1);
  EXPECT_EQ(h.reassembler.digests(), 0u);
  EXPECT_EQ(h.send(1 + later, unacked), SegmentOutcome::Retransmission);
  EXPECT_EQ(h.sink.count(Event::Mismatch), 1u);
  EXPECT_EQ(h.sink.count(Event::Stopped), 0u);
  // Within the window, acknowledged octets are compared as before.
  std::string recent = stream.substr(stream.size() - 1000, 1000);
  recent[10] ^= 0x01;
  EXPECT_EQ(h.send(1 + static_cast<std::uint32_t>(stream.size() - 1000), recent),
            SegmentOutcome::RetransmissionMismatch);
  EXPECT_EQ(h.sink.events.back().evidence, MismatchEvidence::Octets);
}

TEST(TcpReassembler, KeepsOnlyTheWindowWhenNoAcknowledgementIsSeen) {
  Harness h;  // a capture of one direction: the peer's ACKs are not in it
  h.syn(0);
  const std::string stream = patterned(400u << 10);
  send_stream(h, stream);
  EXPECT_FALSE(h.reassembler.peer_acks_seen());
  EXPECT_EQ(h.reassembler.digests(), 0u);
  std::string resent = stream.substr(69 * 1448, 1448);
  resent[724] ^= 0x5A;
  EXPECT_EQ(h.send(1 + 69 * 1448, resent), SegmentOutcome::Retransmission);
  EXPECT_EQ(h.sink.count(Event::Mismatch), 0u);
  EXPECT_EQ(h.sink.count(Event::Stopped), 0u);
}

TEST(TcpReassembler, SaysOnceThatTheCheckStoppedPastItsReach) {
  ReassemblyOptions options;
  options.retransmission_reach = 256u << 10;
  Harness h(options);
  h.syn(0);
  h.ack(1);  // and never again: the peer's ACKs are lost, or it never acknowledges
  const std::string stream = patterned(1u << 20);
  send_stream(h, stream);
  ASSERT_EQ(h.sink.count(Event::Stopped), 1u);
  const auto stopped = std::find_if(h.sink.events.begin(), h.sink.events.end(),
                                    [](const Event& e) { return e.kind == Event::Stopped; });
  // Told when the first unacknowledged digest had to go: 256 KiB behind the newest octet
  // then, and the octets before it are no longer compared.
  EXPECT_GT(stopped->offset, 0u);
  EXPECT_LE(stopped->offset, std::uint64_t{(256u << 10) + 64 * 1024 + 2048});
  EXPECT_EQ(stopped->seq, static_cast<std::uint32_t>(stopped->offset + 1));
  // Memory stays bounded: digests cover at most the reach.
  EXPECT_GE(h.reassembler.digests_from() + (256u << 10), stream.size());
  EXPECT_LE(h.reassembler.digests(), (256u << 10) / 256 + (256u << 10) / 1024 + 2);
  // Within the reach: compared; beyond it: silent.
  std::string inside = stream.substr(stream.size() - (200u << 10), 1448);
  inside[700] ^= 0x5A;
  EXPECT_EQ(h.send(1 + static_cast<std::uint32_t>(stream.size() - (200u << 10)), inside),
            SegmentOutcome::RetransmissionMismatch);
  std::string beyond = stream.substr(100u << 10, 1448);
  beyond[700] ^= 0x5A;
  EXPECT_EQ(h.send(1 + (100u << 10), beyond), SegmentOutcome::Retransmission);
  // More data past the bound: still once.
  send_stream(h, stream + patterned(300u << 10), stream.size());
  EXPECT_EQ(h.sink.count(Event::Stopped), 1u);
}

TEST(TcpReassembler, KeepsDigestsOfTheOctetsBeforeAGap) {
  ReassemblyOptions options;
  options.max_buffered_bytes = 0;  // out of order: a BufferLimit gap at once
  Harness h(options);
  h.syn(0);
  h.ack(1);
  const std::string stream = patterned(100u << 10);
  send_stream(h, stream.substr(0, 40000));
  // 2000 octets never seen, then the rest: the ring starts again after the gap.
  const std::string tail = stream.substr(42000);
  EXPECT_EQ(h.send(42001, tail.substr(0, 1448)), SegmentOutcome::DroppedOverLimit);
  for (std::size_t at = 1448; at < tail.size(); at += 1448) {
    h.send(42001 + static_cast<std::uint32_t>(at),
           std::string_view(tail).substr(at, std::min<std::size_t>(1448, tail.size() - at)));
  }
  ASSERT_EQ(h.sink.count(Event::Gap), 1u);
  // The last segment before the gap (its units end where the gap starts) and one well
  // before it are compared by digest.
  for (const std::size_t at : {std::size_t{27 * 1448}, std::size_t{5 * 1448}}) {
    std::string resent = stream.substr(at, std::min<std::size_t>(1448, 40000 - at));
    resent[resent.size() - 1] ^= 0x01;
    EXPECT_EQ(h.send(1 + static_cast<std::uint32_t>(at), resent),
              SegmentOutcome::RetransmissionMismatch)
        << at;
    EXPECT_EQ(h.sink.events.back().evidence, MismatchEvidence::Digest);
  }
}

// Property: identical retransmissions, however they are cut, are never reported, whatever
// the peer acknowledged; a differing one is reported (if at all) over a range that holds
// the differing octet; digests stay within the reach.
TEST(TcpReassembler, NeverReportsAnIdenticalRetransmissionFromDigests) {
  std::mt19937_64 rng(20261126);
  auto uniform = [&](std::uint64_t lo, std::uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  int found_by_digest = 0;
  for (int round = 0; round < 12; ++round) {
    ReassemblyOptions options;
    options.retransmission_window = 4096u << uniform(0, 2);
    options.retransmission_reach = options.retransmission_window * uniform(2, 40);
    Harness h(options);
    const auto isn = static_cast<std::uint32_t>(uniform(0, 0xFFFFFFFFu));
    h.syn(isn);
    h.ack(isn + 1);
    std::string stream(uniform(100000, 400000), '\0');
    for (auto& c : stream) c = static_cast<char>(uniform(0, 255));
    std::uint64_t acked = 0;
    for (std::size_t at = 0; at < stream.size();) {
      // Now and then a segment larger than the window (TSO/GRO-sized): its head leaves
      // the ring before it is ever written there.
      const std::size_t n = std::min<std::size_t>(
          stream.size() - at, uniform(0, 15) == 0 ? uniform(4000, 40000) : uniform(1, 3000));
      h.send(isn + 1 + static_cast<std::uint32_t>(at), std::string_view(stream).substr(at, n));
      at += n;
      if (uniform(0, 7) == 0) {  // the peer acknowledges, lagging behind
        acked =
            std::max<std::uint64_t>(acked, at - std::min<std::uint64_t>(at, uniform(0, 200000)));
        h.ack(isn + 1 + static_cast<std::uint32_t>(acked));
      }
      if (uniform(0, 5) == 0 && at > 1) {  // a retransmission of something sent
        const std::size_t from = uniform(0, at - 1);
        const std::size_t len = std::min<std::size_t>(at - from, uniform(1, 4000));
        std::string resent = stream.substr(from, len);
        const bool differ = uniform(0, 1) == 1;
        const std::size_t flip = uniform(0, len - 1);
        if (differ) resent[flip] ^= 0x20;
        const std::size_t mismatches = h.sink.count(Event::Mismatch);
        h.send(isn + 1 + static_cast<std::uint32_t>(from), resent);
        if (!differ) {
          ASSERT_EQ(h.sink.count(Event::Mismatch), mismatches) << "round " << round;
        } else if (h.sink.count(Event::Mismatch) > mismatches) {
          const Event& e = h.sink.events.back();
          ASSERT_LE(e.offset, from + flip);
          ASSERT_GT(e.offset + e.length, from + flip);
          if (e.evidence == MismatchEvidence::Octets) {
            ASSERT_EQ(e.offset, from + flip);
          }
          found_by_digest += e.evidence == MismatchEvidence::Digest;
        }
      }
      const std::uint64_t reach = options.retransmission_reach;
      ASSERT_LE(h.reassembler.digests(), reach / 256 + reach / 1024 + 2);
      if (h.reassembler.digests() > 0) {
        ASSERT_GE(h.reassembler.digests_from() + reach, h.reassembler.next_offset());
        ASSERT_GT(h.reassembler.digests_from() + 1024, acked);
      }
    }
    EXPECT_EQ(h.sink.stream(), stream);
    EXPECT_LE(h.sink.count(Event::Stopped), 1u);
  }
  EXPECT_GT(found_by_digest, 0);
}

// A capture file as the reassembly sees it: each segment's payload laid down where the file
// holds it (CaptureReader::read_again in the tool), other octets between them.
class SegmentFile : public OctetSource {
 public:
  // Appends `payload` after a few octets of its own and returns where it lies.
  std::uint64_t add(std::string_view payload) {
    octets_.append(16, '\x7f');  // (a record header)
    const std::uint64_t at = octets_.size();
    octets_.append(payload);
    return at;
  }
  bool read_again(std::uint64_t at, std::span<std::uint8_t> out) const override {
    ++reads;
    if (at < readable_from || at > octets_.size() || out.size() > octets_.size() - at) return false;
    std::memcpy(out.data(), octets_.data() + at, out.size());
    return true;
  }
  mutable std::size_t reads = 0;
  std::uint64_t readable_from = 0;  // octets before it are gone (the file shrank)

 private:
  std::string octets_;
};

// Sends as Harness::send, the payload placed in `file` (TcpSegment::payload_source).
SegmentOutcome send_placed(Harness& h, SegmentFile& file, std::uint32_t seq,
                           std::string_view payload) {
  TcpSegment segment;
  segment.frame = ++h.frame;
  segment.seq = TcpSeq(seq);
  segment.flags = kAck;
  segment.payload =
      std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size());
  segment.payload_source = &file;
  segment.payload_at = file.add(payload);
  return h.reassembler.on_segment(segment, h.sink);
}

bool same_events(const std::vector<Event>& a, const std::vector<Event>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Event& x = a[i];
    const Event& y = b[i];
    if (x.kind != y.kind || x.offset != y.offset || x.seq != y.seq || x.bytes != y.bytes ||
        x.length != y.length || x.cause != y.cause || x.how != y.how || x.evidence != y.evidence ||
        x.frame != y.frame) {
      return false;
    }
  }
  return true;
}

// Octets whose place in the capture is known are kept as that place, not copied, and read
// again to compare a retransmission: the same events as with every octet copied, however the
// stream is cut (segments from 1 octet to larger than the window, so runs both placed and
// copied), reordered, retransmitted the same or not, acknowledged or not (digests of placed
// octets), and cut by the buffer's ceiling (gaps).
TEST(TcpReassembler, OctetsReadAgainFromWhereTheyLieCompareAsCopiedOctets) {
  std::mt19937_64 rng(20261127);
  auto uniform = [&](std::uint64_t lo, std::uint64_t hi) {  // inclusive
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  std::size_t mismatches = 0, by_digest = 0, reads = 0;
  for (int round = 0; round < 16; ++round) {
    ReassemblyOptions options;
    options.retransmission_window = 4096u << uniform(0, 4);
    options.retransmission_reach = options.retransmission_window * uniform(2, 40);
    options.max_buffered_bytes = uniform(0, 1) == 0 ? 8192 : 4u << 20;
    options.copy_after_reading_again = std::array<std::size_t, 3>{0, 4096, 1u << 20}[round % 3];
    Harness copied(options), placed(options);
    SegmentFile file;
    const auto isn = static_cast<std::uint32_t>(uniform(0, 0xFFFFFFFFu));
    const bool acks = round % 4 != 3;  // (no acknowledgement: only the window is compared)
    for (Harness* h : {&copied, &placed}) {
      h->syn(isn);
      if (acks) h->ack(isn + 1);
    }
    std::string stream(uniform(100000, 400000), '\0');
    for (auto& c : stream) c = static_cast<char>(uniform(0, 255));
    const auto send = [&](std::size_t from, const std::string& payload) {
      const auto seq = isn + 1 + static_cast<std::uint32_t>(from);
      ASSERT_EQ(send_placed(placed, file, seq, payload), copied.send(seq, payload));
    };
    std::uint64_t acked = 0;
    for (std::size_t at = 0; at < stream.size();) {
      const std::size_t n = std::min<std::size_t>(
          stream.size() - at, uniform(0, 15) == 0 ? uniform(4000, 70000) : uniform(1, 3000));
      if (uniform(0, 9) == 0 && at + n < stream.size()) {  // the next one first
        const std::size_t m = std::min<std::size_t>(stream.size() - at - n, uniform(1, 3000));
        send(at + n, stream.substr(at + n, m));
      }
      send(at, stream.substr(at, n));
      at += n;
      if (acks && uniform(0, 7) == 0) {
        acked =
            std::max<std::uint64_t>(acked, at - std::min<std::uint64_t>(at, uniform(0, 200000)));
        copied.ack(isn + 1 + static_cast<std::uint32_t>(acked));
        placed.ack(isn + 1 + static_cast<std::uint32_t>(acked));
      }
      if (uniform(0, 4) == 0) {  // a retransmission of something sent, the same or not
        const std::size_t from = uniform(0, at - 1);
        std::string resent =
            stream.substr(from, std::min<std::size_t>(at - from, uniform(1, 6000)));
        if (uniform(0, 1) == 1) resent[uniform(0, resent.size() - 1)] ^= 0x20;
        send(from, resent);
      }
      ASSERT_TRUE(same_events(placed.sink.events, copied.sink.events)) << "round " << round;
    }
    placed.finish();
    copied.finish();
    EXPECT_TRUE(same_events(placed.sink.events, copied.sink.events)) << "round " << round;
    mismatches += placed.sink.count(Event::Mismatch);
    for (const Event& e : placed.sink.events) {
      by_digest += e.kind == Event::Mismatch && e.evidence == MismatchEvidence::Digest;
    }
    reads += file.reads;
  }
  // Retransmissions were compared with octets read again, by their octets and by digests.
  EXPECT_GT(reads, 100u);
  EXPECT_GT(mismatches, 20u);
  EXPECT_GT(by_digest, 5u);
}

// A run of placed octets is read again only where a retransmission (or a digest) needs it;
// after that the direction copies what it delivers for a while (a capture full of
// retransmissions is not read twice), then places octets again.
TEST(TcpReassembler, ReadsOctetsAgainOnlyForARetransmissionThenCopiesForAWhile) {
  Harness h;
  SegmentFile file;
  h.syn(0);
  const std::string stream = patterned(3u << 20);
  const auto send_up_to = [&](std::size_t& at, std::size_t to) {
    for (; at < to; at += 1448) {
      const std::size_t n = std::min<std::size_t>(1448, stream.size() - at);
      ASSERT_EQ(send_placed(h, file, 1 + static_cast<std::uint32_t>(at),
                            std::string_view(stream).substr(at, n)),
                SegmentOutcome::Delivered);
    }
  };
  std::size_t at = 0;
  send_up_to(at, 100u << 10);
  EXPECT_EQ(file.reads, 0u);
  const std::size_t old = at - 10 * 1448;
  EXPECT_EQ(send_placed(h, file, 1 + old, std::string_view(stream).substr(old, 1448)),
            SegmentOutcome::Retransmission);
  EXPECT_EQ(file.reads, 1u);
  // Within the next MiB: copied, so a retransmission reads nothing again.
  send_up_to(at, 400u << 10);
  std::string resent = stream.substr(at - 5 * 1448, 1448);
  resent[100] ^= 1;
  EXPECT_EQ(send_placed(h, file, 1 + static_cast<std::uint32_t>(at - 5 * 1448), resent),
            SegmentOutcome::RetransmissionMismatch);
  EXPECT_EQ(h.sink.events.back().offset, at - 5 * 1448 + 100);
  EXPECT_EQ(file.reads, 1u);
  EXPECT_GE(h.reassembler.history_bytes(), 65536u);  // (the window, copied)
  // Past it, placed again, and the copies given back.
  send_up_to(at, 2u << 20);
  EXPECT_LT(h.reassembler.history_bytes(), 16384u);
  EXPECT_EQ(send_placed(h, file, 1 + static_cast<std::uint32_t>(at - 3 * 1448),
                        std::string_view(stream).substr(at - 3 * 1448, 1448)),
            SegmentOutcome::Retransmission);
  EXPECT_EQ(file.reads, 2u);
  EXPECT_EQ(h.sink.count(Event::Mismatch), 1u);
}

// A direction read in place copies few octets (those with no place): its history holds them
// and the places of the others, not a window of octets (issue 44: the rings laid out over the
// window cost 400 connections 50 MiB). What it holds is compared as before, acknowledged or
// not; a direction that copies everything (a compressed capture) holds the window.
TEST(TcpReassembler, HoldsCopiesOnlyOfTheOctetsItCopied) {
  Harness h, copied;
  SegmentFile file;
  for (Harness* x : {&h, &copied}) {
    x->syn(0);
    x->ack(1);
  }
  const std::string stream = patterned(1u << 20);
  std::vector<std::size_t> small;  // where the 100-octet segments start
  for (std::size_t at = 0, k = 0; at < stream.size(); ++k) {
    const std::size_t n = std::min<std::size_t>(k % 20 == 0 ? 100 : 1448, stream.size() - at);
    if (n == 100) small.push_back(at);
    const std::string_view payload = std::string_view(stream).substr(at, n);
    // (The small ones with no place, so copied: as octets delivered from the out-of-order
    // buffer are.)
    ASSERT_EQ(n == 100 ? h.send(1 + static_cast<std::uint32_t>(at), payload)
                       : send_placed(h, file, 1 + static_cast<std::uint32_t>(at), payload),
              SegmentOutcome::Delivered);
    ASSERT_EQ(copied.send(1 + static_cast<std::uint32_t>(at), payload), SegmentOutcome::Delivered);
    at += n;
    h.ack(1 + static_cast<std::uint32_t>(at));
    copied.ack(1 + static_cast<std::uint32_t>(at));
  }
  EXPECT_LT(h.reassembler.history_bytes(), 8192u);  // (65,536 and more before)
  EXPECT_GE(copied.reassembler.history_bytes(), 65536u);
  // Acknowledged octets in the window, copied and placed: a differing copy is found.
  const std::size_t copied_at = small.back();
  std::string resent = stream.substr(copied_at, 100);
  resent[30] ^= 0x11;
  EXPECT_EQ(send_placed(h, file, 1 + static_cast<std::uint32_t>(copied_at), resent),
            SegmentOutcome::RetransmissionMismatch);
  EXPECT_EQ(h.sink.events.back().offset, copied_at + 30);
  EXPECT_EQ(h.sink.events.back().evidence, MismatchEvidence::Octets);
  const std::size_t placed_at = copied_at + 100 + 1448;
  resent = stream.substr(placed_at - 50, 1448);  // across two placed segments
  resent[1000] ^= 0x11;
  EXPECT_EQ(send_placed(h, file, 1 + static_cast<std::uint32_t>(placed_at - 50), resent),
            SegmentOutcome::RetransmissionMismatch);
  EXPECT_EQ(h.sink.events.back().offset, placed_at + 950);
  EXPECT_EQ(h.sink.count(Event::Mismatch), 2u);
}

// Octets the capture no longer holds (the file shrank while it was read) are not compared:
// no retransmission is judged on octets that were not seen; those after them still are.
TEST(TcpReassembler, DoesNotCompareOctetsThatCannotBeReadAgain) {
  Harness h;
  SegmentFile file;
  h.syn(0);
  const std::string stream = patterned(20000);
  std::vector<std::uint64_t> places;
  for (std::size_t at = 0; at < stream.size(); at += 1000) {
    TcpSegment segment;
    const std::string_view payload = std::string_view(stream).substr(at, 1000);
    segment.frame = ++h.frame;
    segment.seq = TcpSeq(1 + static_cast<std::uint32_t>(at));
    segment.flags = kAck;
    segment.payload =
        std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size());
    segment.payload_source = &file;
    segment.payload_at = file.add(payload);
    places.push_back(segment.payload_at);
    ASSERT_EQ(h.reassembler.on_segment(segment, h.sink), SegmentOutcome::Delivered);
  }
  file.readable_from = places[6];  // the octets from 0 to 6000 are gone
  std::string resent = stream.substr(5000, 2000);
  resent[10] ^= 1;
  EXPECT_EQ(send_placed(h, file, 5001, resent), SegmentOutcome::Retransmission);
  EXPECT_EQ(h.sink.count(Event::Mismatch), 0u);
  EXPECT_EQ(file.reads, 2u);
  resent[1500] ^= 1;  // and one the file still holds
  EXPECT_EQ(send_placed(h, file, 5001, resent), SegmentOutcome::RetransmissionMismatch);
  EXPECT_EQ(h.sink.events.back().offset, 6500u);
  EXPECT_EQ(h.sink.events.back().length, 500u);
  file.readable_from = 0;
  EXPECT_EQ(send_placed(h, file, 5001, resent), SegmentOutcome::RetransmissionMismatch);
  EXPECT_EQ(h.sink.events.back().offset, 5010u);
}

}  // namespace
}  // namespace mpa
