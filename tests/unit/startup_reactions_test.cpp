// How each side reacted to the startup exchange (lib/src/connection/startup_reactions.h):
// what the exchange settled and the first close or the Initiator's FPDUs in, findings by
// catalogue id out, each about the side it names.
#include "connection/startup_reactions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decider_support.h"

namespace mpa {
namespace {

using namespace test;
using startup_flags::kC;
using startup_flags::kM;

// A close in frame 40 by `closer`; the Initiator's stream at `initiator_offset`, acknowledged
// by the Responder to `initiator_acked`, and the Responder's at `responder_offset`,
// acknowledged by the Initiator to `responder_acked`.
FirstClose close_by(Direction closer, std::uint64_t initiator_offset,
                    std::optional<std::uint64_t> initiator_acked, std::uint64_t responder_offset,
                    std::optional<std::uint64_t> responder_acked) {
  FirstClose c;
  c.closer = closer;
  c.frame = 40;
  c.initiator = {TcpSeq(1000 + static_cast<std::uint32_t>(initiator_offset)), initiator_offset,
                 initiator_acked};
  c.responder = {TcpSeq(5000 + static_cast<std::uint32_t>(responder_offset)), responder_offset,
                 responder_acked};
  return c;
}

// An Initiator's FPDU begun in `frame`, carrying `ulpdu`.
TestFpdu initiator_fpdu(Bytes ulpdu, std::uint64_t frame) {
  TestFpdu f(std::move(ulpdu));
  f.event.first_frame = frame;
  f.event.last_frame = frame;
  return f;
}

// An RDMAP Terminate (RFC 5040 4.8) naming MPA (layer 2, type 0) and `code`.
Bytes terminate_naming(std::uint8_t mpa_code) {
  Bytes t = untagged(0x7, 2, 1, 0, true, 0);
  t.insert(t.end(), {0x20, mpa_code, 0x00, 0x00});
  return t;
}

TEST(StartupReactions, AResponderThatAcknowledgedAnInvalidRequestAndStayedSilentKeptItOpen) {
  // RFC 5044 7.1.2 rule 2: the Responder MUST close; the Initiator closed first, the whole
  // Request (to offset 20) acknowledged, the Responder having sent nothing since.
  StartupReactions r;
  r.on_invalid_request(3, 20, 0);
  ASSERT_TRUE(r.awaits_close(false));
  std::vector<Finding> out;
  r.on_first_close(close_by(Direction::Initiator, 20, 20, 0, std::nullopt), out);
  ASSERT_EQ(names(out), std::vector<std::string>{"startup.invalid-request-kept-open"});
  EXPECT_EQ(out[0].direction, Direction::Responder);
  EXPECT_EQ(out[0].frame, 40u);
  // Judged once: a second close shows nothing new.
  EXPECT_FALSE(r.awaits_close(true));
}

TEST(StartupReactions, AnInvalidRequestNotSeenAcknowledgedOrAnsweredBlamesNobody) {
  StartupReactions unacked;
  unacked.on_invalid_request(3, 20, 0);
  std::vector<Finding> out;
  unacked.on_first_close(close_by(Direction::Initiator, 20, 12, 0, std::nullopt), out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));

  StartupReactions answered;  // the Responder sent 8 octets after the Request (its answer)
  answered.on_invalid_request(3, 20, 0);
  answered.on_first_close(close_by(Direction::Initiator, 20, 20, 8, std::nullopt), out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));

  StartupReactions closed;  // the Responder closed: what rule 2 asks
  closed.on_invalid_request(3, 20, 0);
  closed.on_first_close(close_by(Direction::Responder, 20, 20, 0, std::nullopt), out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
}

TEST(StartupReactions, AResponderClosingOnAWholeRequestWithoutAReplyIsNamed) {
  const StartupFrame request = parse({kReq, kM, 1});
  FirstClose c = close_by(Direction::Responder, 20, 20, 0, std::nullopt);
  c.request = &request;
  c.request_end_offset = 20;
  c.reply_awaited = true;
  StartupReactions r;
  ASSERT_TRUE(r.awaits_close(true));
  std::vector<Finding> out;
  r.on_first_close(c, out);
  // M=1 asked for markers: a close instead of a Reply may be their refusal (RFC 5044 4.3).
  EXPECT_EQ(names(out), (std::vector<std::string>{"startup.request-closed-without-reply",
                                                  "startup.markers-refused"}));
  for (const Finding& f : out) EXPECT_EQ(f.direction, Direction::Responder);

  // Not all of the Request acknowledged: the Responder may not have had it.
  StartupReactions early;
  out.clear();
  c.initiator.acked = 12;
  early.on_first_close(c, out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
}

TEST(StartupReactions, AnInitiatorGoingOnAfterAnInvalidReplyIsNamedOnceAndATerminateIsNot) {
  StartupReactions r;
  r.on_invalid_reply(9);
  std::vector<Finding> out;
  // An FPDU in the Reply's own frame predates it: not a reaction.
  TestFpdu early = initiator_fpdu(untagged(0x3, 0, 1, 0), 9);
  r.on_initiator_fpdu(early.event, false, false, nullptr, out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
  TestFpdu terminate = initiator_fpdu(terminate_naming(1), 11);
  r.on_initiator_fpdu(terminate.event, true, false, nullptr, out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
  TestFpdu send = initiator_fpdu(untagged(0x3, 0, 1, 0), 12);
  r.on_initiator_fpdu(send.event, false, false, nullptr, out);
  r.on_initiator_fpdu(send.event, false, false, nullptr, out);
  ASSERT_EQ(names(out), std::vector<std::string>{"startup.invalid-reply-ignored"});
  EXPECT_EQ(out[0].frame, 12u);
}

TEST(StartupReactions, AnInitiatorKeepingAnInvalidReplyOpenIsNamedWhenTheResponderCloses) {
  StartupReactions r;
  r.on_reply(30);
  r.on_invalid_reply(9);
  FirstClose c = close_by(Direction::Responder, 20, 20, 30, 30);
  c.reply_done = true;
  c.request_end_offset = 20;
  std::vector<Finding> out;
  r.on_first_close(c, out);
  ASSERT_EQ(names(out), std::vector<std::string>{"startup.invalid-reply-kept-open"});
  EXPECT_EQ(out[0].direction, Direction::Initiator);
}

TEST(StartupReactions, ANegotiationThatOwedATerminateIsJudgedByTheInitiatorsFirstFpdu) {
  // RFC 6581 9.1: an IRD the Initiator cannot meet owes a Terminate with code 6.
  MpaErrorSet due;
  due.add(MpaError::InsufficientIrd);
  const StartupFrame reply = rev2(kRep, kC, false, 8, 8);
  std::vector<Finding> out;

  StartupReactions went_on;
  went_on.on_accepted_reply(due);
  TestFpdu send = initiator_fpdu(untagged(0x3, 0, 1, 0), 12);
  went_on.on_initiator_fpdu(send.event, false, false, &reply, out);
  EXPECT_TRUE(out.empty()) << "going on (a raised IRD) is allowed: "
                           << testing::PrintToString(names(out));

  StartupReactions right;
  right.on_accepted_reply(due);
  TestFpdu code6 = initiator_fpdu(terminate_naming(6), 12);
  right.on_initiator_fpdu(code6.event, true, false, &reply, out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));

  StartupReactions wrong;
  wrong.on_accepted_reply(due);
  TestFpdu code1 = initiator_fpdu(terminate_naming(1), 12);
  wrong.on_initiator_fpdu(code1.event, true, false, &reply, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"startup.negotiation-terminate-missing"});
}

TEST(StartupReactions, AnInitiatorClosingSilentlyOnAnOwedTerminateIsNamed) {
  MpaErrorSet due;
  due.add(MpaError::InsufficientIrd);
  const StartupFrame reply = rev2(kRep, kC, false, 8, 8);
  StartupReactions r;
  r.on_accepted_reply(due);
  FirstClose c = close_by(Direction::Initiator, 20, 20, 30, 30);
  c.reply_done = true;
  c.request_end_offset = 20;
  c.reply = &reply;
  std::vector<Finding> out;
  r.on_first_close(c, out);
  ASSERT_EQ(names(out), std::vector<std::string>{"startup.negotiation-terminate-missing"});
  EXPECT_EQ(out[0].direction, Direction::Initiator);
}

TEST(StartupReactions, ATerminateAnsweringAReplyThatAskedForMarkersReadsAsTheirRefusal) {
  const StartupFrame markers = parse({kRep, static_cast<std::uint8_t>(kM | kC), 1});
  const StartupFrame plain = parse({kRep, kC, 1});
  std::vector<Finding> out;
  StartupReactions asked;
  asked.on_accepted_reply(MpaErrorSet{});
  TestFpdu t = initiator_fpdu(terminate_naming(1), 12);
  asked.on_initiator_fpdu(t.event, true, false, &markers, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"startup.markers-refused"});

  out.clear();
  StartupReactions not_asked;
  not_asked.on_accepted_reply(MpaErrorSet{});
  not_asked.on_initiator_fpdu(t.event, true, false, &plain, out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
}

}  // namespace
}  // namespace mpa
