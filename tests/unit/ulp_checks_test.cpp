// Checks of what MPA carries (ulp_checks.h): RTR under peer-to-peer, DDP/RDMAP versions,
// short ULPDUs, Terminates and whether their MPA error matches what mpa-check saw.
#include "ulp/ulp_checks.h"

#include <gtest/gtest.h>

#include "decider_support.h"
#include "mpa/terminate.h"

namespace mpa {
namespace {

using namespace test;

// An RDMAP Terminate (RFC 5040 4.8) carrying an LLP (MPA) error `code`; with `quoted`, the
// terminated DDP header follows (D bit).
Bytes terminate(std::uint8_t code, const Bytes& quoted = {}, bool siw_layout = false,
                std::uint8_t first = 0x20) {
  Bytes t = {0x41, 0x47, 0, 0, 0, 0};
  put_be32(t, 2);  // queue 2: Terminates
  put_be32(t, 1);
  put_be32(t, 0);
  if (siw_layout) {
    t.insert(t.end(), {0x02, code, static_cast<std::uint8_t>(quoted.empty() ? 0x01 : 0x03), 0});
  } else {
    t.insert(t.end(), {first, code, static_cast<std::uint8_t>(quoted.empty() ? 0x80 : 0xC0), 0});
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
  TestFpdu next(ddp_send(1, 10));  // (the queue's next message)
  checks.check(next.event, rev0, out);
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

// Chelsio cxgb4 (LAYER_MPA | DDP_LLP) and Intel irdma write an MPA error as layer 2, error
// type 3: the first octet 0x23. Decoded as the MPA error it is, the stack named.
TEST(Terminate, ChelsioAndIntelLayoutIsAnMpaErrorWithErrorType3) {
  const Bytes octets = terminate(2, {}, false, 0x23);
  const auto t = decode_terminate(octets, false);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->layout, TerminateLayout::CxgbIrdma);
  EXPECT_FALSE(t->siw_layout);
  EXPECT_EQ(t->layer, 2);
  EXPECT_EQ(t->etype, 3);
  EXPECT_EQ(t->mpa_error(), MpaError::CrcError);
  EXPECT_TRUE(t->segment_length_valid);  // flags where RFC 5040 Figure 8 puts them
  EXPECT_NE(describe(*t).find("error type 3"), std::string::npos) << describe(*t);
  EXPECT_EQ(layout_stack(t->layout), "Chelsio cxgb4 / Intel irdma");
  // RFC 5040's own layout (0x20) and siw's (0x02) are told apart from it.
  const auto rfc = decode_terminate(terminate(2), false);
  ASSERT_TRUE(rfc);
  EXPECT_EQ(rfc->layout, TerminateLayout::Rfc5040);
  EXPECT_EQ(rfc->mpa_error(), MpaError::CrcError);
  const auto siw = decode_terminate(terminate(2, {}, true), true);
  ASSERT_TRUE(siw);
  EXPECT_EQ(siw->layout, TerminateLayout::Siw);
  EXPECT_EQ(siw->mpa_error(), MpaError::CrcError);
  // Layer 2 with error type 3 and a code no MPA error has: not an MPA error, no stack.
  const auto other = decode_terminate(terminate(0x20, {}, false, 0x23), false);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->layout, TerminateLayout::Rfc5040);
  EXPECT_FALSE(other->mpa_error_code());
  // What the header needs: 4 octets; with D, the segment length and a DDP header; with R, the
  // Read Request header.
  EXPECT_EQ(terminate_header_size(*rfc), 4u);
  Terminate with_d = *rfc;
  with_d.ddp_header_included = true;
  EXPECT_EQ(terminate_header_size(with_d), 4u + 2 + 14);
  with_d.rdmap_header_included = true;
  EXPECT_EQ(terminate_header_size(with_d), 4u + 2 + 14 + 28);
}

TEST(UlpChecks, ChelsioAndIntelTerminatesAreJudgedUnderTheirLayout) {
  UlpChecks sender, peer;
  std::vector<Finding> out;
  TestFpdu t(terminate(2, {}, false, 0x23));
  UlpContext context;
  context.direction = Direction::Responder;
  ASSERT_TRUE(sender.check(t.event, context, out).terminate);
  MpaErrorSet seen;
  seen.add(MpaError::CrcError);
  sender.check_terminate(t.event, context, {&peer, seen, true, false}, out);
  ASSERT_EQ(names(out), (std::vector<std::string>{"rdmap.terminate", "rdmap.terminate-encoding"}));
  EXPECT_NE(out[0].message.find("Chelsio cxgb4 / Intel irdma"), std::string::npos)
      << out[0].message;
  EXPECT_NE(out[1].message.find("23 02"), std::string::npos) << out[1].message;
  // The same claim without CRCs on the connection: contradicted, read as a CRC claim.
  out.clear();
  sender.check_terminate(t.event, context, {&peer, {}, false, false}, out);
  ASSERT_EQ(names(out), (std::vector<std::string>{"rdmap.terminate", "rdmap.terminate-encoding",
                                                  "rdmap.terminate-disagrees"}));
  EXPECT_NE(out[2].message.find("CRCs were not negotiated"), std::string::npos) << out[2].message;
}

// siw answers a ULPDU too short for its headers with code 3 (its LLP_ECODE_FPDU_START): not a
// marker claim when mpa-check saw such a ULPDU.
TEST(UlpChecks, SiwsCode3AgreesWithATooShortUlpdu) {
  UlpChecks sender, peer;
  UlpContext context;
  context.siw_sender = true;
  std::vector<Finding> scratch;
  Bytes cut = {0x41, 0x41, 0, 0, 0, 0};
  put_be32(cut, 1);
  put_be32(cut, 1);
  put_be32(cut, 0);
  cut.resize(18 + 12, 0);  // 12 of the Read Request's 28 header octets
  TestFpdu short_read(cut);
  peer.check(short_read.event, {}, scratch);
  EXPECT_EQ(names(scratch), std::vector<std::string>{"ddp.ulpdu-too-short"});
  EXPECT_TRUE(peer.saw_too_short());
  TestFpdu t(terminate(3, {}, true));
  std::vector<Finding> out;
  sender.check_terminate(t.event, context, {&peer, {}, true, false}, out);
  EXPECT_EQ(names(out), (std::vector<std::string>{"rdmap.terminate", "rdmap.terminate-encoding"}));
  // Without such a ULPDU (and no marker error) siw's code 3 has no cause.
  UlpChecks clean_peer;
  out.clear();
  sender.check_terminate(t.event, context, {&clean_peer, {}, true, false}, out);
  ASSERT_EQ(names(out), (std::vector<std::string>{"rdmap.terminate", "rdmap.terminate-encoding",
                                                  "rdmap.terminate-disagrees"}));
  EXPECT_NE(out[2].message.find("Linux siw"), std::string::npos) << out[2].message;
  EXPECT_EQ(out[2].message.find("no markers were negotiated"), std::string::npos) << out[2].message;
}

// Octets that failed their CRC are not judged as DDP/RDMAP (RFC 5044 8: the receiver drops the
// FPDU; fpdu.crc-mismatch is the error). The case: six stray octets between two FPDUs, read as
// an FPDU (ULPDU_Length 0x1234) whose "DDP header" begins ff ff, the next FPDU's octets after.
TEST(UlpChecks, NothingIsJudgedOfOctetsWhoseCrcFailed) {
  Bytes stray = {0xff, 0xff};
  const Bytes next = ddp_send(0, 64);
  stray.insert(stray.end(), next.begin(), next.end());
  UlpContext rev1;
  rev1.revision = 1;
  TestFpdu misread(stray);
  misread.event.crc_status = CrcStatus::Bad;
  UlpChecks checks;
  std::vector<Finding> out;
  const UlpVerdict v = checks.check(misread.event, rev1, out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
  EXPECT_FALSE(v.stop_judging);
  // (The octets still decode, for what knows their CRC failed.)
  ASSERT_TRUE(v.ddp);
  EXPECT_EQ(v.ddp->ddp_version, 3);
  // The same octets with a CRC that matched (or CRCs off: nothing to gate on) are judged.
  for (const CrcStatus crc : {CrcStatus::Good, CrcStatus::NotChecked}) {
    misread.event.crc_status = crc;
    std::vector<Finding> judged;
    UlpChecks(checks).check(misread.event, rev1, judged);
    // (ff ff: reserved bits of both Control fields set, opcode 15, DDP version 3.)
    EXPECT_EQ(names(judged),
              (std::vector<std::string>{"ddp.reserved-nonzero", "rdmap.reserved-nonzero",
                                        "rdmap.opcode-invalid", "ddp.version-mismatch"}));
  }
  // Nor is a ULPDU too short for its DDP header, a first FPDU that is no RTR, ...
  TestFpdu short_one(Bytes{0x41, 0x43, 0, 0});
  short_one.event.crc_status = CrcStatus::Bad;
  checks.check(short_one.event, rev1, out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
  EXPECT_FALSE(checks.saw_too_short());
  RtrNegotiation rtr;
  rtr.request.read_rtr = rtr.reply.read_rtr = true;
  TestFpdu send(ddp_send(0, 10));
  send.event.crc_status = CrcStatus::Bad;
  EXPECT_FALSE(checks.check(send.event, initiator_first(&rtr), out).stop_judging);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
  // ... nor a Terminate.
  UlpChecks peer;
  TestFpdu t(terminate(3, {}, true));
  t.event.crc_status = CrcStatus::Bad;
  UlpContext siw;
  siw.siw_sender = true;
  checks.check_terminate(t.event, siw, {&peer, {}, true, false}, out);
  EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
}

// ddp.ulpdu-too-short: the RDMAP header each opcode needs, not only DDP's.
TEST(UlpChecks, AUlpduShorterThanItsOpcodesHeader) {
  const auto untagged = [](std::uint8_t opcode, std::uint32_t queue, std::size_t size) {
    Bytes u = {0x41, static_cast<std::uint8_t>(0x40 | opcode), 0, 0, 0, 0};
    put_be32(u, queue);
    put_be32(u, 1);
    put_be32(u, 0);
    u.resize(size, 0);
    return u;
  };
  struct Case {
    Bytes ulpdu;
    bool too_short;
    const char* words;
  };
  const Case cases[] = {
      {untagged(0x1, 1, 18 + 27), true, "28-octet RDMA Read Request header"},
      {untagged(0x1, 1, 18 + 28), false, ""},
      {untagged(0xA, 3, 18 + 20), true, "at least 52-octet Atomic Request header"},
      {untagged(0xA, 3, 18 + 28), true, "at least 52-octet Atomic Request header"},
      {untagged(0xA, 3, 18 + 52), false, ""},
      {untagged(0xB, 4, 18 + 11), true, "12-octet Atomic Response header"},
      {untagged(0xB, 4, 18 + 12), false, ""},
      {untagged(0x7, 2, 18 + 3), true, "4-octet Terminate header"},
      {untagged(0x3, 0, 18), false, ""},  // an empty Send
      {untagged(0x8, 0, 18 + 8), false, ""},
  };
  for (const Case& c : cases) {
    UlpChecks checks;
    std::vector<Finding> out;
    TestFpdu f(c.ulpdu);
    checks.check(f.event, {}, out);
    SCOPED_TRACE(c.words);
    EXPECT_EQ(checks.saw_too_short(), c.too_short);
    if (!c.too_short) {
      EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
      continue;
    }
    ASSERT_EQ(names(out), std::vector<std::string>{"ddp.ulpdu-too-short"});
    EXPECT_NE(out[0].message.find(c.words), std::string::npos) << out[0].message;
  }
  // A Terminate whose D bit announces a quoted DDP header it does not carry.
  UlpChecks checks;
  std::vector<Finding> out;
  Bytes t = terminate(2, Bytes(14, 0));
  t.resize(t.size() - 1);
  TestFpdu f(t);
  checks.check(f.event, {}, out);
  ASSERT_EQ(names(out), std::vector<std::string>{"ddp.ulpdu-too-short"});
  EXPECT_NE(out[0].message.find("20-octet Terminate header"), std::string::npos) << out[0].message;
}

// RDMA Read and Atomic Requests against the peer's IRD (RFC 6581 9.1): counted, answered in
// order, named once; never once the count is uncertain or without an IRD.
TEST(UlpChecks, OutstandingRequestsBeyondThePeersIrdOnce) {
  Bytes read = {0x41, 0x41, 0, 0, 0, 0};
  put_be32(read, 1);
  put_be32(read, 7);
  put_be32(read, 0);
  read.resize(18 + 28, 0);
  TestFpdu f(read);
  const DdpHeader h = *decode_ddp(read);
  UlpChecks checks;
  std::vector<Finding> out;
  checks.count_request(f.event, h, 2, Direction::Initiator, out);
  checks.count_request(f.event, h, 2, Direction::Initiator, out);
  EXPECT_TRUE(out.empty());
  checks.count_answer();
  checks.count_request(f.event, h, 2, Direction::Initiator, out);  // 2 outstanding: fine
  EXPECT_TRUE(out.empty());
  checks.count_request(f.event, h, 2, Direction::Initiator, out);  // 3 > 2
  ASSERT_EQ(names(out), std::vector<std::string>{"rdmap.ird-exceeded"});
  EXPECT_NE(out[0].message.find("RDMA Read Request (MSN 7)"), std::string::npos) << out[0].message;
  EXPECT_NE(out[0].message.find("3 requests outstanding"), std::string::npos) << out[0].message;
  EXPECT_NE(out[0].message.find("IRD of 2 the Responder declared"), std::string::npos)
      << out[0].message;
  checks.count_request(f.event, h, 2, Direction::Initiator, out);  // once per direction
  EXPECT_EQ(out.size(), 1u);
  // Unknown IRD: nothing; a lost count: nothing.
  UlpChecks unknown;
  std::vector<Finding> none;
  for (int i = 0; i < 5; ++i)
    unknown.count_request(f.event, h, std::nullopt, Direction::Initiator, none);
  UlpChecks lost;
  lost.lose_count();
  for (int i = 0; i < 5; ++i) lost.count_request(f.event, h, 2, Direction::Initiator, none);
  // An answer to a request the capture did not show makes the count uncertain.
  UlpChecks unmatched;
  unmatched.count_answer();
  for (int i = 0; i < 5; ++i) unmatched.count_request(f.event, h, 2, Direction::Responder, none);
  EXPECT_TRUE(none.empty()) << testing::PrintToString(names(none));
}

// ---- Terminates of DDP and RDMAP errors (RFC 5040 4.8, 7.1; RFC 5041 7.1, 7.2)

// A Terminate of `layer` (0 RDMAP, 1 DDP), error type `etype` and `code`, quoting `quoted`.
Bytes ulp_terminate(std::uint8_t layer, std::uint8_t etype, std::uint8_t code,
                    const Bytes& quoted = {}) {
  return terminate(code, quoted, false, static_cast<std::uint8_t>(layer << 4 | etype));
}
Bytes header_of(const Bytes& segment) {
  const std::size_t size = (segment[0] & 0x80) ? 14 : 18;
  return Bytes(segment.begin(), segment.begin() + static_cast<std::ptrdiff_t>(size));
}
std::vector<std::string> judge_terminate(const UlpChecks& peer, const Bytes& t,
                                         std::optional<int> revision = std::nullopt) {
  UlpChecks sender;
  UlpContext context;
  context.revision = revision;
  TestFpdu fpdu(t, 9000);
  std::vector<Finding> out;
  sender.check_terminate(fpdu.event, context, {&peer, {}, true, false}, out);
  return names(out);
}
const std::vector<std::string> kAgrees = {"rdmap.terminate"};
const std::vector<std::string> kDisagrees = {"rdmap.terminate", "rdmap.terminate-disagrees"};

// RFC 5040 4.8: the 13 Reserved bits after Terminate Control are zero on transmit, in RFC 5040's
// layout (the third octet's low 5 bits, the fourth octet) and in siw's (its high 5 bits).
TEST(UlpChecks, ATerminatesReservedBitsMustBeZero) {
  UlpChecks peer;
  Bytes t = ulp_terminate(0, 1, 0x00);  // RDMAP, remote protection error, invalid STag
  EXPECT_EQ(judge_terminate(peer, t), kAgrees);
  t[18 + 3] = 0x01;
  EXPECT_EQ(judge_terminate(peer, t),
            (std::vector<std::string>{"rdmap.terminate", "rdmap.reserved-nonzero"}));
  t[18 + 3] = 0;
  t[18 + 2] |= 0x10;
  EXPECT_EQ(judge_terminate(peer, t),
            (std::vector<std::string>{"rdmap.terminate", "rdmap.reserved-nonzero"}));
  Bytes siw = terminate(2, {}, true);
  siw[18 + 2] |= 0x08;
  const auto decoded = decode_terminate(siw, true);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->reserved, 0x100);
  EXPECT_EQ(decode_terminate(terminate(2, {}, true), true)->reserved, 0);
}

// RFC 5040 7.1 (rule 4), RFC 5041 7.1: the Terminate names the first segment in error, as a
// conforming receiver would; errors inside the receiver (buffers, STags) are not held to it.
TEST(UlpChecks, ADdpOrRdmapTerminateIsHeldToThePeersFirstSegmentInError) {
  UlpChecks peer;
  std::vector<Finding> scratch;
  const Bytes good = untagged(3, 0, 1, 0);
  const Bytes bad = untagged(3, 7, 2, 0);  // a Send on queue 7: invalid QN
  const Bytes later = untagged(3, 0, 3, 0);
  TestFpdu a(good, 5000), b(bad, 5100), c(later, 5200);
  peer.check(a.event, {}, scratch);
  ASSERT_TRUE(peer.first_error() == nullptr);
  peer.check(b.event, {}, scratch);
  ASSERT_EQ(names(scratch), std::vector<std::string>{"ddp.queue-invalid"});
  peer.check(c.event, {}, scratch);
  ASSERT_TRUE(peer.first_error() != nullptr);
  EXPECT_EQ(peer.first_error()->fpdu.seq, TcpSeq(5100));
  // The right Terminate: DDP, untagged buffer error, invalid QN, quoting the bad segment.
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x01, header_of(bad))), kAgrees);
  // Another capture-visible error of that segment: not what it shows.
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(0, 2, 0x06, header_of(bad))), kDisagrees);
  // A segment after it: DDP dropped it.
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x01, header_of(later))), kDisagrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(0, 1, 0x00, header_of(later))), kDisagrees);
  // Errors inside the receiver, on that segment or one before it: the capture cannot tell.
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x02, header_of(bad))), kAgrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(0, 1, 0x00, header_of(good))), kAgrees);
  // No header quoted, and the capture did not show every segment before it: not judged.
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(0, 2, 0x06)), kAgrees);
  // A zero-length segment's QN is not validated (RFC 5041 7.1): not an error a receiver detects.
  UlpChecks empty;
  TestFpdu zero(untagged(3, 7, 1, 0, true, 0), 5000);
  empty.check(zero.event, {}, scratch);
  EXPECT_TRUE(empty.first_error() == nullptr);
}

// Every segment seen (the startup, then the first FPDU): a Terminate quoting nothing is held
// to the first error too.
TEST(UlpChecks, AnUnquotingTerminateIsHeldToTheFirstErrorWhenEverySegmentWasSeen) {
  UlpChecks peer;
  std::vector<Finding> scratch;
  const StartupFrame reply = rev2(kRep, 0, false, 4, 4);
  UlpContext first;
  first.first_fpdu = true;
  first.revision = 1;
  first.reply = &reply;
  TestFpdu a(untagged(3, 0, 1, 0), 5000), b(untagged(0xD, 0, 2, 0), 5100);  // opcode 0xD
  peer.check(a.event, first, scratch);
  peer.check(b.event, {}, scratch);
  ASSERT_TRUE(peer.first_error() != nullptr);
  EXPECT_TRUE(peer.first_error()->all_seen);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(0, 2, 0x06)), kAgrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x01)), kDisagrees);
}

// What the quoted header shows against the error named, whatever else was seen.
TEST(UlpChecks, ATerminateContradictingTheHeaderItQuotesDisagrees) {
  UlpChecks peer;
  const Bytes send = untagged(3, 0, 1, 0);
  const Bytes write = tagged(0, 0x1234, 0x100, true);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x01, header_of(send))), kDisagrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 1, 0x00, header_of(send))), kDisagrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x02, header_of(write))), kDisagrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 1, 0x00, header_of(write))), kAgrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x06, header_of(send)), 1), kDisagrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(0, 2, 0x05, header_of(send)), 2), kDisagrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x06, header_of(send)), 0), kAgrees);
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x06, header_of(send))), kAgrees);
  // A zeroed header (RFC 5040 7.1 rule 1) is none.
  EXPECT_EQ(judge_terminate(peer, ulp_terminate(1, 2, 0x01, Bytes(18, 0))), kAgrees);
}

// RFC 5041 7.1: DDP drops the segments after one in error; a Read Response to a Read Request
// sent after it shows it placed.
TEST(UlpChecks, AReadResponseToARequestSentAfterASegmentInErrorIsNamed) {
  const StartupFrame reply = rev2(kRep, 0, false, 4, 4);
  UlpContext first;
  first.first_fpdu = true;
  first.revision = 1;
  first.reply = &reply;
  Bytes read = untagged(1, 1, 1, 0, true, 0);
  put_be32(read, 0x1234);  // Data Sink STag
  put_be32(read, 0);
  put_be32(read, 0x100);  // Data Sink TO
  put_be32(read, 8);      // RDMA Read Message Size
  put_be32(read, 0x5678);
  put_be32(read, 0);
  put_be32(read, 0);
  const Bytes response = tagged(2, 0x1234, 0x100, true);
  for (const bool request_first : {false, true}) {
    SCOPED_TRACE(request_first);
    UlpChecks requester;
    std::vector<Finding> out;
    TestFpdu a(untagged(3, 0, 1, 0), 5000), bad(untagged(3, 7, 2, 0), 5100);
    TestFpdu request(read, request_first ? 5050 : 5200);
    requester.check(a.event, first, out);
    auto send_request = [&] {
      const auto ddp = requester.check(request.event, {}, out).ddp;
      requester.count_request(request.event, *ddp, std::nullopt, Direction::Initiator, out);
    };
    if (request_first) send_request();
    requester.check(bad.event, {}, out);
    if (!request_first) send_request();
    out.clear();
    TestFpdu answer(response, 7000);
    requester.check_read_response(answer.event, *decode_ddp(answer.event.ulpdu_head),
                                  Direction::Responder, out);
    if (request_first) {
      EXPECT_TRUE(out.empty()) << testing::PrintToString(names(out));
    } else {
      ASSERT_EQ(names(out), std::vector<std::string>{"receiver.segment-after-error-placed"});
      EXPECT_NE(out[0].message.find("seq 5200"), std::string::npos) << out[0].message;
    }
  }
  // An RFC 7306 Atomic Request after the error, answered by its Atomic Response (its Request
  // Identifier 71), as rdma_requests_test lays them out.
  Bytes atomic = untagged(0xA, 1, 1, 0, true, 0);
  for (std::uint32_t word : {0u, 71u, 0x7700u, 0u, 0x40u}) put_be32(atomic, word);
  atomic.resize(atomic.size() + 32, 0x01);
  Bytes atomic_answer = untagged(0xB, 3, 1, 0, true, 0);
  put_be32(atomic_answer, 71);
  atomic_answer.resize(atomic_answer.size() + 8, 0x02);
  UlpChecks requester;
  std::vector<Finding> out;
  TestFpdu a(untagged(3, 0, 1, 0), 5000), bad(untagged(3, 7, 2, 0), 5100), request(atomic, 5200);
  requester.check(a.event, first, out);
  requester.check(bad.event, {}, out);
  const auto ddp = requester.check(request.event, {}, out).ddp;
  requester.count_request(request.event, *ddp, std::nullopt, Direction::Initiator, out);
  out.clear();
  TestFpdu answer(atomic_answer, 7000);
  requester.check_read_response(answer.event, *decode_ddp(answer.event.ulpdu_head),
                                Direction::Responder, out);
  ASSERT_EQ(names(out), std::vector<std::string>{"receiver.segment-after-error-placed"});
  EXPECT_NE(out[0].message.find("Atomic Request"), std::string::npos) << out[0].message;
}

}  // namespace
}  // namespace mpa
