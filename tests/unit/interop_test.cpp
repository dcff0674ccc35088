// Vendor knowledge (interop.h): fingerprints, siw's GSO bit, refused Rev 2 Requests, the
// irdma peer-to-peer hint.
#include "report/interop.h"

#include <gtest/gtest.h>

#include "decider_support.h"

namespace mpa {
namespace {

using namespace test;
using startup_flags::kC;
using startup_flags::kM;

TEST(Interop, RecognisesSiwByItsRequestAndEchoingReply) {
  const StartupFrame request = rev2(kReq, 0, false, 8, 8);
  const auto r = recognise_stack(request, nullptr);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->name, "Linux siw");
  const auto reply = recognise_stack(rev2(kRep, 0, false, 8, 8), &request);
  ASSERT_TRUE(reply);
  EXPECT_TRUE(reply->siw);
  // Markers asked: not siw (siw never sets M).
  EXPECT_FALSE(recognise_stack(rev2(kReq, kM, false, 8, 8), nullptr));
}

TEST(Interop, RecognisesIntelChelsioErdmaAndRev0) {
  EXPECT_EQ(recognise_stack(rev2(kReq, kC, true, 8, 8, false, true, true), nullptr)->name,
            "Intel irdma");
  EXPECT_EQ(recognise_stack(rev2(kReq, kC, true, 8, 8, false, false, true), nullptr)->name,
            "Chelsio cxgb4");
  std::array<std::uint8_t, 8> ext{};
  EXPECT_EQ(recognise_stack(parse({kReq, kC, 129, {}, std::nullopt, ext}), nullptr)->name,
            "Alibaba erdma");
  EXPECT_NE(recognise_stack(parse({kReq, kC, 0}), nullptr)->name.find("Rev 0"), std::string::npos);
  EXPECT_FALSE(recognise_stack(parse({kReq, kC, 1}), nullptr));
}

TEST(Interop, TheGsoBitIsNamedAsSiwsExperiment) {
  const StartupFrame f = parse({kReq, 0x08, 1});
  std::vector<StartupIssue> issues = check_startup_frame(f, FrameKind::Request);
  ASSERT_EQ(names(issues), std::vector<std::string>{"startup.reserved-bits-set"});
  name_vendor_deviations(issues, f, FrameKind::Request);
  EXPECT_EQ(names(issues), std::vector<std::string>{"startup.reserved-bit-siw-gso"});
  // Another reserved bit stays generic.
  const StartupFrame other = parse({kReq, 0x04, 1});
  std::vector<StartupIssue> generic = check_startup_frame(other, FrameKind::Request);
  name_vendor_deviations(generic, other, FrameKind::Request);
  EXPECT_EQ(names(generic), std::vector<std::string>{"startup.reserved-bits-set"});
}

Endpoint endpoint(std::uint8_t last, std::uint16_t port) {
  Endpoint e;
  e.address.family = 4;
  e.address.bytes[3] = last;
  e.port = port;
  return e;
}

TEST(Interop, RefusedRequestsAreRememberedByInitiatorAddressAndResponder) {
  RefusedRequests refused;
  refused.remember(endpoint(1, 40000), endpoint(2, 4791), 17);
  // Another source port of the same host counts (the retry uses a new connection).
  EXPECT_EQ(refused.refused_before(endpoint(1, 40001), endpoint(2, 4791)), 17u);
  EXPECT_FALSE(refused.refused_before(endpoint(3, 40001), endpoint(2, 4791)));
  EXPECT_FALSE(refused.refused_before(endpoint(1, 40001), endpoint(2, 4792)));
}

TEST(Interop, P2pHintOnlyForRev2RequestsWithoutA) {
  EXPECT_TRUE(p2p_required_hint(rev2(kReq, kC, false, 8, 8), true));
  EXPECT_FALSE(p2p_required_hint(rev2(kReq, kC, true, 8, 8), true));
  EXPECT_FALSE(p2p_required_hint(parse({kReq, kC, 1}), true));
  EXPECT_NE(p2p_required_hint(rev2(kReq, kC, false, 8, 8), false)->find("reset"),
            std::string::npos);
}

}  // namespace
}  // namespace mpa
