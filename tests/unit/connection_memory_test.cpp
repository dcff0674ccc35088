// Tests of what an open connection costs (issue 44, item 3): a connection whose senders are
// not sending holds little, flow table entry included; the state a sender needs for
// full operation (its FPDU reader, its DDP/RDMAP checks) is made at its first octets of full
// operation, and its reassembler allocates nothing before its first octet.
// Measured as glibc counts the heap in use (mallinfo2), which no timing noise changes.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdint>
#include <vector>

#include "connection/mpa_connection.h"
#include "generator.h"
#include "mpa/analyzer.h"
#include "mpa/packet_decoder.h"
#include "scenario.h"

namespace mpa {
namespace {

// Heap octets in use, chunk overhead included (what the process's RSS pays for).
std::size_t heap_in_use() { return mallinfo2().uordblks; }

struct NoSink : EventSink {
  void on_finding(const Finding&) override {}
  void on_startup_frame(std::uint32_t, Direction, const StartupFrame&, std::uint64_t,
                        TcpSeq) override {}
};

// Connection `k`: host 10.x.y.z (k + 2) to 10.0.0.1, never closed, `messages` each way.
std::vector<synth::CapturedFrame> connection(std::uint32_t k, std::size_t messages) {
  synth::Scenario s = synth::base_scenario("memory");
  s.initiator.messages = synth::mixed_messages(messages, {64, 1000});
  s.responder.messages = synth::mixed_messages(messages, {100});
  s.close = synth::Ending::None;
  const std::uint32_t peer = k + 2;
  s.ipv4 = {{{10, static_cast<std::uint8_t>(peer >> 16), static_cast<std::uint8_t>(peer >> 8),
              static_cast<std::uint8_t>(peer)},
             {10, 0, 0, 1}}};
  s.seed = k + 1;
  return synth::generate_frames(s);
}

// The heap an Analyzer grows by, per connection, for `n` connections fed whole and left open.
std::size_t heap_per_open_connection(std::uint32_t n, std::size_t messages) {
  std::vector<std::vector<synth::CapturedFrame>> frames;
  for (std::uint32_t k = 0; k < n; ++k) frames.push_back(connection(k, messages));
  NoSink sink;
  Analyzer analyzer(AnalyzerOptions{}, sink);
  std::uint64_t number = 0;
  const std::size_t before = heap_in_use();
  for (const auto& conversation : frames) {
    for (const auto& frame : conversation) {
      DecodeResult decoded =
          decode_frame(link_type::kEthernet, frame.bytes,
                       static_cast<std::uint32_t>(frame.bytes.size()), ++number, frame.time_us);
      if (decoded.status == DecodeStatus::Tcp) analyzer.on_segment(decoded.segment);
    }
  }
  const std::size_t after = heap_in_use();
  EXPECT_EQ(analyzer.tcp_connections(), n);
  EXPECT_EQ(analyzer.mpa_connections(), n);
  analyzer.finish(number);
  return (after - before) / n;
}

TEST(ConnectionMemory, AConnectionNotSendingCostsLittle) {
  // The startup exchange done, both sides acknowledged, no FPDU sent yet: 4,074 octets (the
  // connection 3,712, each reassembler's copy of the startup frame it delivered, the flow
  // table's entry), within the 4 KiB issue 44 asks for. 5,194 before the history held only
  // the octets it copied (each a 512-octet ring laid out over stream offsets); 10,464 + 2 x
  // 4,096 + deques before that.
  const std::size_t bytes = heap_per_open_connection(2000, 0);
  RecordProperty("bytes_per_connection", static_cast<int>(bytes));
  EXPECT_LE(bytes, 4096u);
}

TEST(ConnectionMemory, TheIdleStateOfAConnectionIsSmall) {
  // What every connection holds whatever it does (sizeof: exact, no heap). The parts made
  // at first use (the FPDU reader, the ULP checks, a PrivateDataDue's parser, a receiver's
  // reaction to an error) are not in it.
  EXPECT_LE(sizeof(MpaConnection), 3712u);
  EXPECT_LE(sizeof(Phase), 160u);
  EXPECT_LE(sizeof(ReceiverReactions), 160u);
  EXPECT_LE(sizeof(TcpReassembler), 272u);  // (its out-of-order pieces made at the first)
}

TEST(ConnectionMemory, AReassemblerAllocatesNothingBeforeItsFirstOctet) {
  struct Sink : StreamSink {
    void on_stream_data(std::uint64_t, TcpSeq, std::span<const std::uint8_t>,
                        std::uint64_t) override {}
    void on_stream_gap(std::uint64_t, TcpSeq, std::uint64_t, GapCause, std::uint64_t) override {}
    void on_stream_end(std::uint64_t, TcpSeq, StreamEnd, std::uint64_t) override {}
    void on_retransmission_mismatch(std::uint64_t, TcpSeq, std::uint32_t, MismatchEvidence,
                                    std::uint64_t) override {}
    void on_retransmission_check_stopped(std::uint64_t, TcpSeq, std::uint64_t) override {}
  } sink;
  const std::size_t before = heap_in_use();
  TcpReassembler r;
  TcpSegment syn;
  syn.seq = TcpSeq(1000);
  syn.flags = tcp_flags::kSyn;
  r.on_segment(syn, sink);
  r.on_peer_ack(TcpSeq(1001));  // digesting from here on: its unit cuts are made at the first
  EXPECT_EQ(r.history_bytes(), 0u);
  EXPECT_EQ(heap_in_use(), before);  // (an empty std::deque allocates: none is left)
  const std::vector<std::uint8_t> payload(100, 0x5a);
  TcpSegment data;
  data.seq = TcpSeq(1001);
  data.flags = tcp_flags::kAck;
  data.payload = payload;
  r.on_segment(data, sink);
  EXPECT_GE(r.history_bytes(), 100u);
}

}  // namespace
}  // namespace mpa
