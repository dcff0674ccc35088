// The startup exchange decider (RFC 5044 7.1; RFC 6581 6, 9): roles, steps, markers per
// direction, CRC, peer-to-peer, RFC 6581 errors that end judgement of the Responder.
#include "startup/startup_exchange.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "decider_support.h"

namespace mpa {
namespace {

using namespace test;
using startup_flags::kC;
using startup_flags::kM;
using startup_flags::kR;

bool has(const StartupVerdict& v, std::string_view id) {
  const auto n = names(v.issues);
  return std::find(n.begin(), n.end(), id) != n.end();
}

TEST(StartupExchange, AValidRequestMakesItsSenderTheInitiatorAwaitingTheReply) {
  const StartupVerdict v = judge_startup_frame(parse({kReq, kC, 1}), nullptr, false);
  EXPECT_EQ(v.role, FrameKind::Request);
  EXPECT_EQ(v.step, StartupStep::AwaitReply);
  EXPECT_TRUE(v.issues.empty()) << testing::PrintToString(names(v.issues));
}

TEST(StartupExchange, AReplyWhereARequestWasDueEndsMpa) {
  const StartupVerdict v = judge_startup_frame(parse({kRep, kC, 1}), nullptr, false);
  EXPECT_EQ(v.role, FrameKind::Request);
  EXPECT_EQ(v.step, StartupStep::EndMpa);
  EXPECT_TRUE(has(v, "startup.unexpected-reply"));
}

TEST(StartupExchange, MarkersFollowTheReceiversMBitCrcEitherSide) {
  // Request M=1 C=0, Reply M=0 C=1: the Responder's data carries markers (the Initiator
  // asked), the Initiator's does not; CRCs on both ways.
  const StartupFrame request = parse({kReq, kM, 1});
  const StartupVerdict v = judge_startup_frame(parse({kRep, kC, 1}), &request, false);
  EXPECT_EQ(v.step, StartupStep::FullOperation);
  EXPECT_FALSE(v.initiator_markers);
  EXPECT_TRUE(v.responder_markers);
  EXPECT_TRUE(v.crc);
  const StartupFrame plain = parse({kReq, 0, 1});
  const StartupVerdict none = judge_startup_frame(parse({kRep, 0, 1}), &plain, false);
  EXPECT_FALSE(none.crc);
}

TEST(StartupExchange, ARejectingReplyEndsMpaWithoutError) {
  const StartupFrame request = parse({kReq, kC, 1});
  const StartupVerdict v =
      judge_startup_frame(parse({kRep, static_cast<std::uint8_t>(kC | kR), 1}), &request, false);
  EXPECT_EQ(v.step, StartupStep::EndMpa);
  EXPECT_TRUE(has(v, "startup.connection-rejected"));
}

TEST(StartupExchange, AnInvalidReplyStillFramesTheInitiatorForItsTerminate) {
  const StartupFrame request = parse({kReq, kC, 1});
  const StartupVerdict v = judge_startup_frame(parse({"MPA ID Rep Framx", kC, 1}), &request, false);
  EXPECT_EQ(v.step, StartupStep::InvalidReply);
  EXPECT_TRUE(has(v, "startup.key-invalid"));
  EXPECT_TRUE(v.crc);
}

TEST(StartupExchange, ARequestInPlaceOfTheReplyEndsMpa) {
  const StartupFrame request = parse({kReq, kC, 1});
  const StartupVerdict v = judge_startup_frame(parse({kReq, kC, 1}), &request, false);
  EXPECT_EQ(v.step, StartupStep::EndMpa);
  EXPECT_TRUE(has(v, "startup.unexpected-request"));
}

TEST(StartupExchange, PeerToPeerOnlyWhenBothSetA) {
  const StartupFrame request = rev2(kReq, kC, true, 8, 8, false, false, true);
  const StartupVerdict both =
      judge_startup_frame(rev2(kRep, kC, true, 8, 8, false, false, true), &request, false);
  EXPECT_EQ(both.step, StartupStep::FullOperation);
  EXPECT_TRUE(both.peer_to_peer);
  const StartupVerdict one = judge_startup_frame(rev2(kRep, kC, false, 8, 8), &request, false);
  EXPECT_FALSE(one.peer_to_peer);
  EXPECT_TRUE(has(one, "startup.p2p-mismatch"));
}

TEST(StartupExchange, Rfc6581ErrorsInTheReplyEndJudgementOfTheResponder) {
  // Responder ORD 16 > Initiator IRD 8 (RFC 6581 9.1): code 6.
  const StartupFrame request = rev2(kReq, kC, false, 8, 8);
  const StartupVerdict v = judge_startup_frame(rev2(kRep, kC, false, 16, 16), &request, false);
  EXPECT_TRUE(has(v, "startup.insufficient-ird"));
  EXPECT_EQ(v.step, StartupStep::FullOperation);
  EXPECT_TRUE(v.responder_unjudged);
  const StartupVerdict fine = judge_startup_frame(rev2(kRep, kC, false, 8, 8), &request, false);
  EXPECT_FALSE(fine.responder_unjudged);
}

TEST(StartupExchange, OctetsAfterTheFrameInItsSegmentAreAPdLengthMismatch) {
  const StartupVerdict v = judge_startup_frame(parse({kReq, kC, 1}), nullptr, true);
  EXPECT_TRUE(has(v, "startup.pd-length-mismatch"));
  EXPECT_EQ(v.step, StartupStep::EndMpa);  // code 4: an invalid Request
}

TEST(StartupExchange, TheStackFingerprintComesLast) {
  // Linux siw's Request: Rev 2, S only, PD_Length 4 (the IRD/ORD block).
  const StartupVerdict v = judge_startup_frame(rev2(kReq, 0, false, 8, 8), nullptr, false);
  ASSERT_TRUE(v.stack.has_value());
  EXPECT_EQ(v.stack->name, "Linux siw");
  EXPECT_TRUE(v.stack->siw);
  ASSERT_FALSE(v.issues.empty());
  EXPECT_EQ(info(v.issues.back().id).name, "interop.stack-fingerprint");
}

// A Request with PD_Length 16 and 8 octets of private data, answered by a Reply.
TEST(StartupExchange, ARequestCutShortByTheReplyIsItsPdLengthMismatch) {
  StartupFrameParser parser;
  const Bytes whole = startup_frame({kReq, kC, 1, Bytes(8, 0xAB), std::uint16_t{16}});
  parser.push(whole);  // the 20-octet header and the 8 octets that came
  ASSERT_TRUE(parser.header_complete());
  ASSERT_FALSE(parser.complete());
  const StartupVerdict v = judge_request_cut_short(parser.frame(), 4);
  EXPECT_EQ(v.role, FrameKind::Request);
  EXPECT_EQ(v.step, StartupStep::EndMpa);
  ASSERT_EQ(names(v.issues), std::vector<std::string>{"startup.pd-length-mismatch"});
  EXPECT_EQ(info(v.issues[0].id).error_code, MpaError::InvalidStartupFrame);
  EXPECT_NE(v.issues[0].message.find("PD_Length 16"), std::string::npos) << v.issues[0].message;
  EXPECT_NE(v.issues[0].message.find("after 8 octets"), std::string::npos) << v.issues[0].message;
  // (Never "startup.unexpected-reply": the Reply answers a Request, a malformed one.)
}

TEST(StartupExchange, AnAnswerToAnInvalidRequestIsTheResponders) {
  const StartupIssue reply = judge_answer_to_invalid_request(parse({kRep, kC, 1}));
  EXPECT_EQ(reply.id, DiagId::StartupInvalidRequestAnswered);
  EXPECT_EQ(info(reply.id).severity, Severity::Error);
  EXPECT_NE(reply.message.find("MPA Reply (accepting)"), std::string::npos) << reply.message;
  const StartupIssue reject =
      judge_answer_to_invalid_request(parse({kRep, static_cast<std::uint8_t>(kC | kR), 1}));
  EXPECT_NE(reject.message.find("(rejecting)"), std::string::npos) << reject.message;
  const StartupIssue octets = judge_answer_to_invalid_request(parse({"HTTP/1.1 200 OK\r", 0, 1}));
  EXPECT_EQ(octets.id, DiagId::StartupInvalidRequestAnswered);
  EXPECT_NE(octets.message.find("sent octets"), std::string::npos) << octets.message;
}

TEST(StartupExchange, RtrNegotiatedNeedsBothSidesToOfferTheKind) {
  EnhancedBlock request, reply;
  request.read_rtr = reply.read_rtr = true;
  request.write_rtr = true;
  EXPECT_TRUE(rtr_negotiated(RtrKind::Read, request, reply));
  EXPECT_FALSE(rtr_negotiated(RtrKind::Write, request, reply));
  EXPECT_FALSE(rtr_negotiated(RtrKind::Send, request, reply));
  EXPECT_FALSE(rtr_negotiated(RtrKind::None, request, reply));
}

// RFC 6581 9.2: a Responder that supports none of the offered options names its own; an
// Initiator able to send one of them need not terminate.
TEST(StartupExchange, WithNoOptionInCommonTheRespondersOwnAreNegotiated) {
  EnhancedBlock request, reply;
  request.send_rtr = true;
  reply.write_rtr = true;
  EXPECT_TRUE(rtr_negotiated(RtrKind::Write, request, reply));
  EXPECT_FALSE(rtr_negotiated(RtrKind::Send, request, reply));  // not the Responder's
  EXPECT_FALSE(rtr_negotiated(RtrKind::Read, request, reply));
}

TEST(StartupExchange, AFailedNegotiationOwesTheInitiatorsTerminate) {
  // Responder ORD 16 > Initiator IRD 8: code 6 owed.
  const StartupFrame ird_request = rev2(kReq, kC, false, 8, 8);
  const StartupVerdict ird =
      judge_startup_frame(rev2(kRep, kC, false, 16, 16), &ird_request, false);
  EXPECT_TRUE(ird.terminate_due.contains(MpaError::InsufficientIrd));
  EXPECT_FALSE(ird.terminate_due.contains(MpaError::NoMatchingRtr));
  // Write offered, Read named: code 7 owed, a note only.
  const StartupFrame p2p = rev2(kReq, kC, true, 8, 8, false, true, false);
  const StartupVerdict own =
      judge_startup_frame(rev2(kRep, kC, true, 8, 8, false, false, true), &p2p, false);
  EXPECT_TRUE(own.terminate_due.contains(MpaError::NoMatchingRtr));
  EXPECT_TRUE(has(own, "startup.no-matching-rtr"));
  EXPECT_FALSE(has(own, "startup.reply-without-rtr"));
  EXPECT_FALSE(own.responder_unjudged);  // no fault of the Responder's
  // No option at all: also the Responder's warning.
  const StartupVerdict empty = judge_startup_frame(rev2(kRep, kC, true, 8, 8), &p2p, false);
  EXPECT_TRUE(has(empty, "startup.reply-without-rtr"));
  EXPECT_TRUE(empty.terminate_owed());
  EXPECT_TRUE(empty.responder_unjudged);
  // A sound negotiation owes nothing.
  const StartupVerdict fine =
      judge_startup_frame(rev2(kRep, kC, true, 8, 8, false, true, false), &p2p, false);
  EXPECT_FALSE(fine.terminate_owed());
}

TEST(StartupExchange, TheInitiatorsExitFromAFailedNegotiation) {
  MpaErrorSet ird;
  ird.add(MpaError::InsufficientIrd);
  EXPECT_FALSE(judge_negotiation_exit(ird, true, std::uint8_t{6}).has_value());
  const auto closed = judge_negotiation_exit(ird, false, std::nullopt);
  ASSERT_TRUE(closed.has_value());
  EXPECT_EQ(closed->id, DiagId::StartupNegotiationTerminateMissing);
  EXPECT_NE(closed->message.find("code 6"), std::string::npos) << closed->message;
  const auto wrong = judge_negotiation_exit(ird, true, std::uint8_t{5});
  ASSERT_TRUE(wrong.has_value());
  EXPECT_NE(wrong->message.find("MPA error 5"), std::string::npos) << wrong->message;
  EXPECT_TRUE(judge_negotiation_exit(ird, true, std::nullopt).has_value());  // not layer 2/0
  MpaErrorSet rtr;
  rtr.add(MpaError::NoMatchingRtr);
  EXPECT_FALSE(judge_negotiation_exit(rtr, true, std::uint8_t{7}).has_value());
  EXPECT_TRUE(judge_negotiation_exit(rtr, true, std::uint8_t{6}).has_value());
  // Nothing owed: nothing to judge.
  EXPECT_FALSE(judge_negotiation_exit(MpaErrorSet{}, false, std::nullopt).has_value());
}

TEST(StartupExchange, ARejectOfAMarkerRequestIsAMarkersRefusal) {
  const StartupFrame markers = parse({kReq, static_cast<std::uint8_t>(kM | kC), 1});
  const StartupVerdict v =
      judge_startup_frame(parse({kRep, static_cast<std::uint8_t>(kC | kR), 1}), &markers, false);
  EXPECT_EQ(v.step, StartupStep::EndMpa);
  EXPECT_TRUE(has(v, "startup.markers-refused"));
  EXPECT_EQ(info(DiagId::StartupMarkersRefused).severity, Severity::Warning);
  // Accepted, or no markers asked for: no refusal.
  EXPECT_FALSE(
      has(judge_startup_frame(parse({kRep, kC, 1}), &markers, false), "startup.markers-refused"));
  const StartupFrame plain = parse({kReq, kC, 1});
  EXPECT_FALSE(
      has(judge_startup_frame(parse({kRep, static_cast<std::uint8_t>(kC | kR), 1}), &plain, false),
          "startup.markers-refused"));
}

TEST(StartupExchange, AResponderClosingOnARev1RequestOwedAReply) {
  EXPECT_EQ(names(judge_close_without_reply(parse({kReq, kC, 1}))),
            std::vector<std::string>{"startup.request-closed-without-reply"});
  EXPECT_EQ(names(judge_close_without_reply(parse({kReq, static_cast<std::uint8_t>(kM | kC), 1}))),
            (std::vector<std::string>{"startup.request-closed-without-reply",
                                      "startup.markers-refused"}));
  // An enhanced Request may be closed on by an unenhanced Responder (RFC 6581 10), a Rev 0 one
  // by a Responder that cannot interoperate with it (RFC 5044 7.1.1).
  EXPECT_TRUE(judge_close_without_reply(rev2(kReq, kC, false, 8, 8)).empty());
  EXPECT_TRUE(
      judge_close_without_reply(parse({kReq, static_cast<std::uint8_t>(kM | kC), 0})).empty());
}

TEST(StartupExchange, AnInitiatorClosingOnAnAcceptingMarkerReplyRefusesMarkers) {
  const StartupFrame markers = parse({kRep, static_cast<std::uint8_t>(kM | kC), 1});
  EXPECT_EQ(names(judge_initiator_close_after_accept(markers, false)),
            std::vector<std::string>{"startup.markers-refused"});
  // A failed negotiation explains the close; no markers asked for, nothing refused.
  EXPECT_TRUE(judge_initiator_close_after_accept(markers, true).empty());
  EXPECT_TRUE(judge_initiator_close_after_accept(parse({kRep, kC, 1}), false).empty());
}

TEST(StartupExchange, AnInitiatorKeepingAnInvalidReplysConnectionIsAnError) {
  const StartupIssue issue = judge_invalid_reply_kept_open(6);
  EXPECT_EQ(issue.id, DiagId::StartupInvalidReplyKeptOpen);
  EXPECT_EQ(info(issue.id).severity, Severity::Error);
  EXPECT_NE(issue.message.find("frame 6"), std::string::npos) << issue.message;
}

TEST(StartupExchange, AResponderKeepingAnInvalidRequestsConnectionIsAnError) {
  const StartupIssue issue = judge_invalid_request_kept_open(4);
  EXPECT_EQ(issue.id, DiagId::StartupInvalidRequestKeptOpen);
  EXPECT_EQ(info(issue.id).severity, Severity::Error);
  EXPECT_NE(issue.message.find("frame 4"), std::string::npos) << issue.message;
  EXPECT_NE(issue.message.find("Initiator closed"), std::string::npos) << issue.message;
}

}  // namespace
}  // namespace mpa
