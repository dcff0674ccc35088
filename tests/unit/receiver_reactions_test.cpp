// The receiver's reaction to a CRC or marker error (lib/src/connection/receiver_reactions.h):
// events in, findings by catalogue id out.
#include "connection/receiver_reactions.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>

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
  // A sender FPDU changed by `odd` (a legal oddity) before it is reported.
  template <typename Odd>
  const FpduEvent& send_odd(Bytes ulpdu, std::uint64_t frame, Odd odd) {
    FpduEvent& e = const_cast<FpduEvent&>(sender.next(std::move(ulpdu), frame));
    odd(e);
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

// ---- legal input refused (RFC 5044 4.1-4.3, 5.1)

void nonzero_pad(FpduEvent& e) {
  e.pad_length = 2;
  e.pad = {0xA5, 0x00, 0x00};
}

TEST_F(ReceiverReactionsTest, ClosingRightAfterAnFpduWithANonzeroPadIsAWarning) {
  send(send_ulpdu(1), 10);
  const FpduEvent& odd = send_odd(send_ulpdu(2), 10, nonzero_pad);
  ack_all(11);              // covers the odd FPDU
  send(send_ulpdu(3), 12);  // sent; never acknowledged before the close
  close(13);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.legal-fpdu-refused"});
  EXPECT_EQ(out[0].frame, 13u);
  EXPECT_NE(out[0].message.find("non-zero pad"), std::string::npos);
  EXPECT_NE(out[0].message.find(std::to_string(odd.header_seq.value())), std::string::npos);
}

TEST_F(ReceiverReactionsTest, TheClosingSegmentsOwnAcknowledgementTakesNothing) {
  send_odd(send_ulpdu(1), 10, nonzero_pad);
  ack_all(11);
  send(send_ulpdu(2), 12);
  // A FIN that acknowledges the later FPDU: its TCP had it, MPA took nothing more.
  rx.on_receiver_ack(TcpSeq(sender.seq), 13, receiver.offset, true);
  close(13);
  EXPECT_EQ(names(out), std::vector<std::string>{"receiver.legal-fpdu-refused"});
}

TEST_F(ReceiverReactionsTest, AReceiverThatTookMoreOrWentOnAcceptedTheOddFpdu) {
  send_odd(send_ulpdu(1), 10, nonzero_pad);
  ack_all(11);
  send(send_ulpdu(2), 12);
  ack_all(13);  // it took the next FPDU too
  close(14);
  EXPECT_TRUE(out.empty());
  ReceiverReactions went_on(Direction::Initiator);
  rx = went_on;
  sender = Stream{};
  receiver = Stream{};
  send_odd(send_ulpdu(1), 10, nonzero_pad);
  ack_all(11);
  send(send_ulpdu(2), 12);
  answer(send_ulpdu(1), 13);  // an FPDU of its own after it had the odd one
  close(14);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, AnOddFpduLastOfItsSenderOrAfterTheSendersCloseIsNotJudged) {
  send_odd(send_ulpdu(1), 10, nonzero_pad);
  ack_all(11);
  close(12);  // the sender had sent nothing more: an end of the conversation
  EXPECT_TRUE(out.empty());
  ReceiverReactions after(Direction::Initiator);
  rx = after;
  sender = Stream{};
  send_odd(send_ulpdu(1), 10, nonzero_pad);
  ack_all(11);
  send(send_ulpdu(2), 12);
  rx.on_sender_close(13);
  close(14);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, AnErrorAfterTheOddFpduMayBeWhatTheCloseAnswers) {
  send_odd(send_ulpdu(1), 10, nonzero_pad);
  ack_all(11);
  send(send_ulpdu(2), 12, DiagId::FpduCrcMismatch);
  close(13);
  EXPECT_EQ(names(out), std::vector<std::string>{});  // (the error was not acknowledged)
}

TEST_F(ReceiverReactionsTest, MarkerOdditiesAreLegalInputButAWrongFpduptrIsAnError) {
  const auto marker = [](std::uint16_t reserved, std::uint16_t ptr, std::uint16_t expected) {
    static MarkerFact fact;
    fact = MarkerFact{};
    fact.seq = TcpSeq(5100);
    fact.reserved = reserved;
    fact.fpdu_ptr = ptr;
    fact.expected_fpdu_ptr = expected;
    return [](FpduEvent& e) { e.markers = std::span<const MarkerFact>(&fact, 1); };
  };
  const std::vector<std::tuple<std::uint16_t, std::uint16_t, std::string>> cases = {
      {0x0100, 100, "reserved field"}, {0, 102, "two low bits"}};
  for (const auto& [reserved, ptr, words] : cases) {
    ReceiverReactions fresh(Direction::Initiator);
    rx = fresh;
    sender = Stream{};
    receiver = Stream{};
    out.clear();
    send_odd(send_ulpdu(1), 10, marker(reserved, ptr, 100));
    ack_all(11);
    send(send_ulpdu(2), 12);
    close(13);
    ASSERT_EQ(names(out), std::vector<std::string>{"receiver.legal-fpdu-refused"}) << words;
    EXPECT_NE(out[0].message.find(words), std::string::npos) << out[0].message;
  }
  ReceiverReactions fresh(Direction::Initiator);
  rx = fresh;
  sender = Stream{};
  out.clear();
  send_odd(send_ulpdu(1), 10, marker(0x0100, 104, 100));  // FPDUPTR wrong: not legal input
  ack_all(11);
  send(send_ulpdu(2), 12);
  close(13);
  EXPECT_TRUE(out.empty());
}

TEST_F(ReceiverReactionsTest, WithCrcsOffTheFirstFpdusCrcFieldIsLegalInput) {
  const auto crc_off = [](std::uint32_t field, std::uint32_t crc32c) {
    return [=](FpduEvent& e) {
      e.crc_status = CrcStatus::NotChecked;
      e.crc_received = field;
      e.crc_unchecked = crc32c;
    };
  };
  send_odd(send_ulpdu(1), 10, crc_off(0, 0x12345678));
  ack_all(11);
  send(send_ulpdu(2), 12);
  close(13);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.legal-fpdu-refused"});
  EXPECT_NE(out[0].message.find("CRCs being off"), std::string::npos);
  // A field that holds the CRC32c is nothing odd.
  ReceiverReactions fresh(Direction::Initiator);
  rx = fresh;
  sender = Stream{};
  out.clear();
  send_odd(send_ulpdu(1), 10, crc_off(0x12345678, 0x12345678));
  ack_all(11);
  send(send_ulpdu(2), 12);
  close(13);
  EXPECT_TRUE(out.empty());
  // Right CRC32cs first (a sender that writes them anyway): the first field that is not one.
  ReceiverReactions later(Direction::Initiator);
  rx = later;
  sender = Stream{};
  send_odd(send_ulpdu(1), 10, crc_off(0x1111, 0x1111));
  send_odd(send_ulpdu(2), 10, crc_off(0, 0x2222));
  ack_all(11);
  send(send_ulpdu(3), 12);
  close(13);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.legal-fpdu-refused"});
  EXPECT_NE(out[0].message.find(std::to_string(sender.kept[1]->event.header_seq.value())),
            std::string::npos);
}

TEST_F(ReceiverReactionsTest, AnFpduSpanningSegmentsIsLegalInput) {
  send_odd(send_ulpdu(1), 10, [](FpduEvent& e) { e.within_one_segment = false; });
  ack_all(11);
  send(send_ulpdu(2), 12);
  close(13, true);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.legal-fpdu-refused"});
  EXPECT_NE(out[0].message.find("spans TCP segments"), std::string::npos);
  EXPECT_NE(out[0].message.find("RST"), std::string::npos);
}

TEST_F(ReceiverReactionsTest, AReadRequestInAnOddFpduLeftUnansweredWhileTheNextIsAnswered) {
  send_odd(read_request(1, 0xE1, 0x1000), 10, nonzero_pad);
  send(read_request(2, 0xE2, 0x2000), 10);
  answer(read_response(0xE2, 0x2000), 12);  // its first Read Response: the second Read's
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.legal-fpdu-refused"});
  EXPECT_EQ(out[0].frame, 12u);
  EXPECT_NE(out[0].message.find("never the one before it"), std::string::npos);
  // Answered in order: nothing.
  ReceiverReactions fresh(Direction::Initiator);
  rx = fresh;
  sender = Stream{};
  receiver = Stream{};
  out.clear();
  send_odd(read_request(1, 0xE1, 0x1000), 10, nonzero_pad);
  send(read_request(2, 0xE2, 0x2000), 10);
  answer(read_response(0xE1, 0x1000), 12);
  answer(read_response(0xE2, 0x2000), 12);
  EXPECT_TRUE(out.empty());
}

// ---- a DDP or RDMAP error the receiver must answer with a Terminate (RFC 5040 7.1)

// A Send on queue 7, which RDMAP does not have (RFC 5041 7.1: invalid QN), `payload` octets.
Bytes send_on_queue_7(std::size_t payload = 40) {
  Bytes b = untagged(0x3, 7, 1);
  b.resize(b.size() + payload, 0xAB);
  return b;
}
// A Send whose RDMAP opcode is 0xC, which no RFC defines (RFC 5040 7.2).
Bytes send_opcode_12() {
  Bytes b = untagged(0xC, 0, 2);
  b.resize(b.size() + 40, 0xAB);
  return b;
}

class UlpErrorTest : public ReceiverReactionsTest {
 protected:
  // The sender's FPDU with a DDP or RDMAP error `id`, as the connection tells it.
  void send_bad(Bytes ulpdu, std::uint64_t frame, DiagId id) {
    const FpduEvent& e = sender.next(std::move(ulpdu), frame);
    rx.on_ulp_error(id, e);
    rx.on_sender_fpdu(e, decode_ddp(e.ulpdu_head));
  }
};

TEST_F(UlpErrorTest, GoingOnAndClosingWithoutATerminateIsAWarning) {
  send(send_ulpdu(1), 10);
  send_bad(send_on_queue_7(), 10, DiagId::DdpQueueInvalid);
  ack_all(11);
  answer(send_ulpdu(1), 12);
  EXPECT_TRUE(out.empty());  // decided when it closes
  rx.on_sender_close(13);    // the sender's close first does not excuse the FPDUs sent instead
  close(14);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.terminate-missing"});
  EXPECT_EQ(out[0].frame, 14u);
  EXPECT_EQ(out[0].certain_at, 14u);
  EXPECT_NE(out[0].message.find("invalid QN"), std::string::npos);
}

TEST_F(UlpErrorTest, ClosingAtOnceWhileThePeerIsOpenIsAWarning) {
  send_bad(send_opcode_12(), 10, DiagId::RdmapOpcodeInvalid);
  ack_all(11);
  close(12, true);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.terminate-missing"});
  EXPECT_NE(out[0].message.find("unexpected opcode"), std::string::npos);
}

TEST_F(UlpErrorTest, ATerminateAnswersIt) {
  send_bad(send_on_queue_7(), 10, DiagId::DdpQueueInvalid);
  ack_all(11);
  answer(send_ulpdu(1), 12);  // before the error was seen
  answer(terminate_ulpdu(), 13, true);
  close(14);
  EXPECT_TRUE(out.empty());
}

TEST_F(UlpErrorTest, WhatTheCaptureCannotHoldAgainstTheReceiverIsNotJudged) {
  // A zero-length segment on queue 7: RFC 5041 7.1 validates non-zero-length ones only.
  send_bad(send_on_queue_7(0), 10, DiagId::DdpQueueInvalid);
  ack_all(11);
  answer(send_ulpdu(1), 12);
  close(13);
  EXPECT_TRUE(out.empty());
  // Never acknowledged: the receiver may not have had it.
  ReceiverReactions unacked(Direction::Initiator);
  const FpduEvent& bad = sender.next(send_on_queue_7(), 20);
  unacked.on_ulp_error(DiagId::DdpQueueInvalid, bad);
  unacked.on_receiver_close(false, 21, TcpSeq(receiver.seq), receiver.offset, out);
  EXPECT_TRUE(out.empty());
  // Closing after its peer closed, sending nothing: it may have been unable to send it.
  ReceiverReactions after_peer(Direction::Initiator);
  const FpduEvent& bad2 = sender.next(send_on_queue_7(), 30);
  after_peer.on_ulp_error(DiagId::DdpQueueInvalid, bad2);
  after_peer.on_receiver_ack(TcpSeq(sender.seq), 31, receiver.offset);
  after_peer.on_sender_close(32);
  after_peer.on_receiver_close(false, 33, TcpSeq(receiver.seq), receiver.offset, out);
  EXPECT_TRUE(out.empty());
  // Octets went missing: what reached the receiver is unknown.
  ReceiverReactions unknown(Direction::Initiator);
  const FpduEvent& bad3 = sender.next(send_on_queue_7(), 40);
  unknown.on_ulp_error(DiagId::RdmapOpcodeInvalid, bad3);
  unknown.on_receiver_ack(TcpSeq(sender.seq), 41, receiver.offset);
  unknown.on_unknowable();
  unknown.on_receiver_close(false, 42, TcpSeq(receiver.seq), receiver.offset, out);
  // Other findings are no such error.
  ReceiverReactions other(Direction::Initiator);
  const FpduEvent& odd = sender.next(send_ulpdu(3), 50);
  other.on_ulp_error(DiagId::DdpMsnInvalid, odd);
  other.on_receiver_ack(TcpSeq(sender.seq), 51, receiver.offset);
  other.on_receiver_close(false, 52, TcpSeq(receiver.seq), receiver.offset, out);
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace mpa::test
