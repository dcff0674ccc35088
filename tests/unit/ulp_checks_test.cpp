// Checks of what MPA carries (ulp_checks.h): RTR under peer-to-peer, DDP/RDMAP versions,
// short ULPDUs, Terminates and whether their MPA error matches what mpa-check saw.
#include "mpa/ulp_checks.h"

#include <gtest/gtest.h>

#include "decider_support.h"

namespace mpa {
namespace {

using namespace test;

// An RDMAP Terminate (RFC 5040 4.8) carrying an LLP (MPA) error `code`; with `quoted`, the
// terminated DDP header follows (D bit).
Bytes terminate(std::uint8_t code, const Bytes& quoted = {}, bool siw_layout = false) {
  Bytes t = {0x41, 0x47, 0, 0, 0, 0};
  put_be32(t, 2);  // queue 2: Terminates
  put_be32(t, 1);
  put_be32(t, 0);
  if (siw_layout) {
    t.insert(t.end(), {0x02, code, static_cast<std::uint8_t>(quoted.empty() ? 0x01 : 0x03), 0});
  } else {
    t.insert(t.end(), {0x20, code, static_cast<std::uint8_t>(quoted.empty() ? 0x80 : 0xC0), 0});
  }
  put_be16(t, 0);  // DDP segment length
  t.insert(t.end(), quoted.begin(), quoted.end());
  return t;
}

// A zero-length RDMA Read Request used as RTR (RFC 6581 9.2): untagged, queue 1, opcode 1.
Bytes read_rtr() {
  Bytes r = {0x41, 0x41, 0, 0, 0, 0};
  put_be32(r, 1);
  put_be32(r, 1);
  put_be32(r, 0);
  r.resize(18 + 28, 0);  // sink STag/TO, length 0, source STag/TO
  return r;
}

UlpContext initiator_first(const RtrNegotiation* rtr) {
  UlpContext c;
  c.direction = Direction::Initiator;
  c.first_fpdu = true;
  c.revision = 2;
  c.rtr = rtr;
  return c;
}

TEST(UlpChecks, UnderPeerToPeerTheInitiatorsFirstFpduMustBeANegotiatedRtr) {
  RtrNegotiation rtr;
  rtr.request.read_rtr = rtr.reply.read_rtr = true;
  UlpChecks checks;
  std::vector<Finding> out;
  TestFpdu send(ddp_send(0, 10));
  const UlpVerdict v = checks.check(send.event, initiator_first(&rtr), out);
  EXPECT_EQ(names(out), std::vector<std::string>{"fpdu.rtr-missing"});
  EXPECT_TRUE(v.stop_judging);
  // The negotiated zero-length Read RTR is what the rule wants; a Write RTR was not offered.
  UlpChecks with_rtr;
  std::vector<Finding> fine;
  TestFpdu rtr_fpdu(read_rtr());
  EXPECT_FALSE(with_rtr.check(rtr_fpdu.event, initiator_first(&rtr), fine).stop_judging);
  EXPECT_TRUE(fine.empty()) << testing::PrintToString(names(fine));
  // Write offered and accepted, Read only the Responder's extra: Read was not negotiated.
  rtr.request.read_rtr = false;
  rtr.request.write_rtr = rtr.reply.write_rtr = true;
  UlpChecks unoffered;
  std::vector<Finding> refused;
  EXPECT_TRUE(unoffered.check(rtr_fpdu.event, initiator_first(&rtr), refused).stop_judging);
  ASSERT_EQ(names(refused), std::vector<std::string>{"fpdu.rtr-missing"});
  EXPECT_NE(refused[0].message.find("not negotiated"), std::string::npos);
  // No option in common: the Responder's own are what is left (RFC 6581 9.2).
  rtr.reply.write_rtr = false;
  UlpChecks own;
  std::vector<Finding> allowed;
  EXPECT_FALSE(own.check(rtr_fpdu.event, initiator_first(&rtr), allowed).stop_judging);
  EXPECT_TRUE(allowed.empty()) << testing::PrintToString(names(allowed));
  // Not the first FPDU, or not peer-to-peer, or the Responder: no rule.
  for (UlpContext c : {initiator_first(nullptr), initiator_first(&rtr)}) {
    UlpChecks fresh;
    std::vector<Finding> none;
    if (c.rtr) c.first_fpdu = false;
    EXPECT_FALSE(fresh.check(send.event, c, none).stop_judging);
    EXPECT_TRUE(none.empty());
  }
}

TEST(UlpChecks, DdpVersionMustBelongToTheMpaRevisionOnce) {
  UlpChecks checks;
  UlpContext rev0;
  rev0.revision = 0;  // Rev 0 peers speak DDP/RDMAP version 0
  std::vector<Finding> out;
  TestFpdu v1(ddp_send(0, 10));
  const UlpVerdict verdict = checks.check(v1.event, rev0, out);
  checks.check(v1.event, rev0, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"ddp.version-mismatch"});
  ASSERT_TRUE(verdict.ddp);
  EXPECT_EQ(verdict.ddp->opcode, 3);
  UlpContext rev1;
  rev1.revision = 1;
  UlpChecks ok;
  std::vector<Finding> none;
  ok.check(v1.event, rev1, none);
  EXPECT_TRUE(none.empty());
}

TEST(UlpChecks, AUlpduShorterThanItsDdpHeaderOnce) {
  UlpChecks checks;
  std::vector<Finding> out;
  TestFpdu short_one(Bytes{0x41, 0x43, 0, 0});
  checks.check(short_one.event, {}, out);
  checks.check(short_one.event, {}, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"ddp.ulpdu-too-short"});
  // Not judged (after an error ended MPA): nothing said.
  UlpChecks after;
  std::vector<Finding> none;
  short_one.event.judged = false;
  after.check(short_one.event, {}, none);
  EXPECT_TRUE(none.empty());
}

TEST(UlpChecks, ATerminateIsDecodedAndHeldAgainstThePeersData) {
  UlpChecks sender, peer;
  std::vector<Finding> out;
  TestFpdu t(terminate(2));  // "CRC error"
  UlpContext context;
  context.direction = Direction::Responder;
  const UlpVerdict v = sender.check(t.event, context, out);
  ASSERT_TRUE(v.terminate);
  TerminatePeer receiver{&peer, {}, true, false};
  sender.check_terminate(t.event, context, receiver, out);
  EXPECT_EQ(names(out), (std::vector<std::string>{"rdmap.terminate", "rdmap.terminate-disagrees"}));
  EXPECT_NE(out[1].message.find("every CRC mpa-check checked"), std::string::npos)
      << out[1].message;
  // When the peer's data did have a CRC error, the Terminate is right.
  out.clear();
  MpaErrorSet seen;
  seen.add(MpaError::CrcError);
  sender.check_terminate(t.event, context, {&peer, seen, true, false}, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"rdmap.terminate"});
  // CRCs not negotiated: a CRC error claim cannot be right.
  out.clear();
  sender.check_terminate(t.event, context, {&peer, {}, false, false}, out);
  EXPECT_NE(out.back().message.find("CRCs were not negotiated"), std::string::npos);
}

TEST(UlpChecks, ATerminateQuotingAnFpduWithAGoodCrcIsContradicted) {
  UlpChecks sender, peer;
  std::vector<Finding> scratch;
  TestFpdu blamed(ddp_send(42, 100), 5000);
  blamed.event.crc_status = CrcStatus::Good;
  blamed.event.last_frame = 12;
  peer.check(blamed.event, {}, scratch);
  const Bytes quoted(blamed.ulpdu.begin(), blamed.ulpdu.begin() + 18);
  TestFpdu t(terminate(2, quoted));
  std::vector<Finding> out;
  UlpContext context;
  sender.check_terminate(t.event, context, {&peer, {}, true, false}, out);
  ASSERT_EQ(names(out), (std::vector<std::string>{"rdmap.terminate", "rdmap.terminate-disagrees"}));
  EXPECT_NE(out[0].message.find("quotes the FPDU at frame 12 (seq 5000)"), std::string::npos)
      << out[0].message;
  EXPECT_NE(out[1].message.find("has a correct CRC"), std::string::npos) << out[1].message;
}

TEST(UlpChecks, SiwsTerminateLayoutIsNamed) {
  UlpChecks sender, peer;
  std::vector<Finding> out;
  TestFpdu t(terminate(6, {}, true));
  UlpContext context;
  context.siw_sender = true;
  StartupFrame reply = rev2(kRep, 0, false, kNoNegotiation, kNoNegotiation);
  context.reply = &reply;
  sender.check_terminate(t.event, context, {&peer, {}, true, false}, out);
  EXPECT_EQ(names(out), (std::vector<std::string>{"rdmap.terminate", "rdmap.terminate-encoding",
                                                  "rdmap.terminate-disagrees"}));
  EXPECT_NE(out[2].message.find("0x3FFF"), std::string::npos) << out[2].message;
}

TEST(UlpChecks, MarkerAndRtrClaimsAreHeldAgainstTheNegotiation) {
  UlpChecks sender, peer;
  std::vector<Finding> out;
  TestFpdu marker(terminate(3));
  sender.check_terminate(marker.event, {}, {&peer, {}, true, false}, out);
  EXPECT_NE(out.back().message.find("no markers were negotiated"), std::string::npos);
  out.clear();
  TestFpdu rtr(terminate(7));
  MpaErrorSet seen;
  seen.add(MpaError::NoMatchingRtr);
  sender.check_terminate(rtr.event, {}, {&peer, seen, true, false}, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"rdmap.terminate"});
}

}  // namespace
}  // namespace mpa
