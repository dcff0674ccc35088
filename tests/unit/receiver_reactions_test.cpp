// The receiver's reaction to a CRC or marker error (lib/include/mpa/receiver_reactions.h):
// events in, findings by catalogue id out.
#include "mpa/receiver_reactions.h"

#include <gtest/gtest.h>

#include <memory>

#include "decider_support.h"

namespace mpa::test {
namespace {

void put32(Bytes& b, std::uint32_t v) {
  for (int i = 3; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void put64(Bytes& b, std::uint64_t v) {
  put32(b, static_cast<std::uint32_t>(v >> 32));
  put32(b, static_cast<std::uint32_t>(v));
}

// Untagged DDP header (RFC 5041 4.3) with the RDMAP control octet, DDP/RDMAP version 1.
Bytes untagged(std::uint8_t opcode, std::uint32_t queue, std::uint32_t msn) {
  Bytes b = {0x41, static_cast<std::uint8_t>(0x40 | opcode)};
  put32(b, 0);
  put32(b, queue);
  put32(b, msn);
  put32(b, 0);
  return b;
}
Bytes read_request(std::uint32_t msn, std::uint32_t sink_stag, std::uint64_t sink_to) {
  Bytes b = untagged(0x1, 1, msn);
  put32(b, sink_stag);
  put64(b, sink_to);
  put32(b, 1000);
  put32(b, 0x55);
  put64(b, 0x1000);
  return b;
}
Bytes send_ulpdu(std::uint32_t msn) {
  Bytes b = untagged(0x3, 0, msn);
  b.resize(b.size() + 40, 0xAB);
  return b;
}
Bytes terminate_ulpdu() {
  Bytes b = untagged(0x7, 2, 1);
  b.insert(b.end(), {0x20, 0x02, 0x00, 0x00});  // LLP, MPA, code 2
  return b;
}
// Tagged DDP header (RFC 5041 4.2), `last` the L bit.
Bytes read_response(std::uint32_t stag, std::uint64_t to, bool last = true) {
  Bytes b = {static_cast<std::uint8_t>(0x81 | (last ? 0x40 : 0)), 0x42};
  put32(b, stag);
  put64(b, to);
  b.resize(b.size() + 100, 0xCD);
  return b;
}

// One direction's FPDUs at consecutive stream offsets, in frames of their own.
struct Stream {
  std::uint32_t seq = 5000;
  std::uint64_t offset = 0;
  std::vector<std::unique_ptr<TestFpdu>> kept;
  const FpduEvent& next(Bytes ulpdu, std::uint64_t frame) {
    kept.push_back(std::make_unique<TestFpdu>(std::move(ulpdu), seq));
    FpduEvent& e = kept.back()->event;
    e.start_offset = offset;
    e.first_frame = e.last_frame = frame;
    seq += e.wire_length;
    offset += e.wire_length;
    return e;
  }
};

class ReceiverReactionsTest : public ::testing::Test {
 protected:
  ReceiverReactions rx{Direction::Initiator};
  Stream sender, receiver;
  std::vector<Finding> out;

  // A sender FPDU; `error`: the reader found `id` in it first.
  const FpduEvent& send(Bytes ulpdu, std::uint64_t frame,
                        std::optional<DiagId> error = std::nullopt) {
    if (error) rx.on_error(*error, sender.offset + 2);
    const FpduEvent& e = sender.next(std::move(ulpdu), frame);
    rx.on_sender_fpdu(e, decode_ddp(e.ulpdu_head));
    return e;
  }
  void answer(Bytes ulpdu, std::uint64_t frame, bool terminate = false) {
    const FpduEvent& e = receiver.next(std::move(ulpdu), frame);
    rx.on_receiver_fpdu(e, decode_ddp(e.ulpdu_head), terminate, out);
  }
  // The receiver acknowledges everything the sender sent so far.
  void ack_all(std::uint64_t frame) {
    rx.on_receiver_ack(TcpSeq(sender.seq), frame, receiver.offset);
  }
  void close(std::uint64_t frame, bool rst = false) {
    rx.on_receiver_close(rst, frame, TcpSeq(receiver.seq), receiver.offset, out);
    rx.on_receiver_end(frame, out);
  }
};

TEST_F(ReceiverReactionsTest, ReadResponseToTheCorruptedReadRequestIsAnError) {
  send(send_ulpdu(1), 10);
  send(read_request(1, 0xC5D001, 0x7F3B00010000), 10, DiagId::FpduCrcMismatch);
  ack_all(11);
  answer(read_response(0xC5D001, 0x7F3B00010000), 12);
  EXPECT_EQ(names(out), std::vector<std::string>{"receiver.invalid-fpdu-answered"});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].frame, 12u);
  EXPECT_NE(out[0].message.find("carried in"), std::string::npos);
  // Judged once: the stream that goes on and closes adds nothing.
  answer(send_ulpdu(1), 13);
  close(14);
  EXPECT_EQ(out.size(), 1u);
}

TEST_F(ReceiverReactionsTest, ReadResponseToAReadRequestAfterTheErrorIsAnError) {
  send(send_ulpdu(1), 10, DiagId::FpduCrcMismatch);
  send(read_request(1, 0xAA, 0x2000), 10);
  answer(read_response(0xAA, 0x2000), 12);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.invalid-fpdu-answered"});
  EXPECT_NE(out[0].message.find("carried after"), std::string::npos);
}

TEST_F(ReceiverReactionsTest, ReadResponsesAnswerReadRequestsInOrder) {
  // The first Read (before the error) names the same sink buffer as the corrupted one: its
  // Response is no reaction; only the second Response answers the corrupted Read.
  send(read_request(1, 0xBB, 0x3000), 9);
  send(read_request(2, 0xBB, 0x3000), 10, DiagId::FpduCrcMismatch);
  answer(read_response(0xBB, 0x3000, false), 11);
  answer(read_response(0xBB, 0x3064), 11);
  EXPECT_TRUE(out.empty());
  answer(read_response(0xBB, 0x3000), 12);
  EXPECT_EQ(names(out), std::vector<std::string>{"receiver.invalid-fpdu-answered"});
}

TEST_F(ReceiverReactionsTest, ReadResponseForAnotherBufferIsNotMatched) {
  send(read_request(1, 0xCC, 0x4000), 10, DiagId::FpduCrcMismatch);
  answer(read_response(0xCD, 0x4000), 12);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, GoingOnAfterAcknowledgingTheBadFpduIsAWarning) {
  send(send_ulpdu(1), 10);
  send(send_ulpdu(2), 10, DiagId::FpduCrcMismatch);
  ack_all(11);
  answer(send_ulpdu(1), 12);
  answer(send_ulpdu(2), 12);
  EXPECT_TRUE(out.empty());  // decided when its stream ends
  close(20);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.error-ignored"});
  EXPECT_EQ(out[0].frame, 12u);
  EXPECT_EQ(out[0].certain_at, 20u);
  EXPECT_EQ(out[0].tcp_seq, receiver.kept[0]->event.header_seq);
}

TEST_F(ReceiverReactionsTest, FpdusBeforeTheAcknowledgementAreNoReaction) {
  send(send_ulpdu(1), 10, DiagId::FpduCrcMismatch);
  answer(send_ulpdu(1), 11);  // in flight before the bad FPDU reached it
  ack_all(12);
  close(13);  // nothing sent after its ACK: it closed right after the error
  EXPECT_EQ(names(out), std::vector<std::string>{"receiver.closed-after-error"});
  out.clear();
  // Had it not closed itself, the FPDU in flight alone would say nothing.
  ReceiverReactions other(Direction::Initiator);
  other.on_error(DiagId::FpduCrcMismatch, 2);
  other.on_sender_fpdu(sender.kept[0]->event, std::nullopt);
  other.on_receiver_fpdu(receiver.kept[0]->event, std::nullopt, false, out);
  other.on_receiver_ack(TcpSeq(sender.seq), 12, receiver.offset);
  other.on_receiver_end(13, out);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, AnAcknowledgementShortOfTheBadFpduShowsNoReceipt) {
  send(send_ulpdu(1), 10, DiagId::FpduCrcMismatch);
  rx.on_receiver_ack(TcpSeq(sender.seq - 1), 11, receiver.offset);
  answer(send_ulpdu(1), 12);
  close(13);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, ATerminateIsTheRightReaction) {
  send(send_ulpdu(1), 10, DiagId::FpduCrcMismatch);
  ack_all(11);
  answer(send_ulpdu(1), 12);  // queued before the error was seen
  answer(terminate_ulpdu(), 13, true);
  close(14);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, ClosingRightAfterTheErrorIsAWarning) {
  send(send_ulpdu(1), 10, DiagId::MarkerFpduptrMismatch);
  ack_all(11);
  close(12, true);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.closed-after-error"});
  EXPECT_EQ(out[0].frame, 12u);
  EXPECT_NE(out[0].message.find("MPA error 3"), std::string::npos);
  EXPECT_NE(out[0].message.find("RST"), std::string::npos);
}

TEST_F(ReceiverReactionsTest, ClosingAfterTheSenderClosedIsNoReaction) {
  send(send_ulpdu(1), 10, DiagId::FpduCrcMismatch);
  ack_all(11);
  rx.on_sender_close(12);
  close(13);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, ClosingWithoutAnAcknowledgementIsNotJudged) {
  send(send_ulpdu(1), 10, DiagId::FpduCrcMismatch);
  close(12);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, ADifferingRetransmissionMakesTheReactionUnknowable) {
  send(read_request(1, 0xDD, 0x5000), 10, DiagId::FpduCrcMismatch);
  rx.on_unknowable();  // the receiver may have taken a good copy
  ack_all(11);
  answer(read_response(0xDD, 0x5000), 12);
  close(13);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, OtherFindingsAreNoError) {
  send(send_ulpdu(1), 10, DiagId::MarkerReservedNonzero);
  ack_all(11);
  answer(send_ulpdu(1), 12);
  close(13);
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(rx.error_seen());
}

}  // namespace
}  // namespace mpa::test
