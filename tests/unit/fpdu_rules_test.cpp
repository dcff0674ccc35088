// Per-FPDU rules that need the connection's context (fpdu_rules.h).
#include "fpdu/fpdu_rules.h"

#include <gtest/gtest.h>

#include "decider_support.h"

namespace mpa {
namespace {

using namespace test;

TEST(FpduRules, UlpduLengthZeroEveryTime) {
  FpduRules rules;
  TestFpdu f(Bytes{});
  std::vector<Finding> out;
  rules.check(f.event, {}, out);
  rules.check(f.event, {}, out);
  EXPECT_EQ(names(out),
            (std::vector<std::string>{"fpdu.ulpdu-length-zero", "fpdu.ulpdu-length-zero"}));
  EXPECT_EQ(out[0].tcp_seq, TcpSeq(1000));
  EXPECT_EQ(out[0].frame, 7u);
}

TEST(FpduRules, MulpduFromTheReceiversMssOncePerDirection) {
  FpduRules rules;
  // MSS 1460 without markers: MULPDU 1460 - (6 + 0) = 1454 (RFC 5044 4.5).
  ASSERT_EQ(mulpdu(1460, false), 1454u);
  TestFpdu fits(ddp_send(1, 1454 - 18));
  TestFpdu over(ddp_send(1, 1455 - 18));
  std::vector<Finding> out;
  rules.check(fits.event, {1460, false}, out);
  EXPECT_TRUE(out.empty());
  rules.check(over.event, {1460, false}, out);
  rules.check(over.event, {1460, false}, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"fpdu.exceeds-mulpdu"});
  // With markers the MULPDU is smaller: 1455 octets exceed it too, 1400 do not.
  FpduRules marked;
  std::vector<Finding> m;
  TestFpdu mid(ddp_send(1, 1400 - 18));
  marked.check(mid.event, {1460, true}, m);
  EXPECT_TRUE(m.empty()) << mulpdu(1460, true);
}

TEST(FpduRules, AlignmentOnlyForFpdusThatFitASegment) {
  FpduRules rules;
  TestFpdu big(ddp_send(1, 3000));
  big.event.within_one_segment = false;
  std::vector<Finding> out;
  rules.check(big.event, {1460, false}, out);  // larger than the MSS: spanning is unavoidable
  EXPECT_EQ(names(out), std::vector<std::string>{"fpdu.exceeds-mulpdu"});
  TestFpdu small(ddp_send(1, 100));
  small.event.within_one_segment = false;
  out.clear();
  rules.check(small.event, {1460, false}, out);
  rules.check(small.event, {1460, false}, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"fpdu.not-segment-aligned"});
  // Unknown MSS: any spanning FPDU counts.
  FpduRules unknown;
  out.clear();
  unknown.check(big.event, {}, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"fpdu.not-segment-aligned"});
}

}  // namespace
}  // namespace mpa
