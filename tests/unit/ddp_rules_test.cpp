// RFC 5041's rules that a DDP Message shows as a whole (its segments' MOs, a zero-length
// message in one segment, the Last flag before the sender's close), the first MSN in either
// direction and the DDP version where the startup was not seen: judged through the ULP layer's
// face (UlpChecks::check, UlpChecks::on_close).
#include <gtest/gtest.h>

#include <optional>

#include "decider_support.h"
#include "ulp/ulp_checks.h"

namespace mpa {
namespace {

using namespace test;
using Names = std::vector<std::string>;

Bytes send(std::uint32_t msn, std::uint32_t mo = 0, bool last = true, std::size_t payload = 8) {
  return untagged(0x3, 0, msn, mo, last, payload);
}
// A tagged DDP segment (RFC 5041 4.2): RDMA Write.
Bytes write(std::uint32_t stag, std::uint64_t to, bool last, std::size_t payload = 8) {
  return tagged(0x0, stag, to, last, payload);
}
Bytes terminate() {
  Bytes t = untagged(0x7, 2, 1, 0, true, 0);
  t.resize(18 + 4, 0);  // a Terminate header quoting nothing (M, D, R clear)
  return t;
}

struct Feed {
  Direction direction = Direction::Responder;
  bool startup = true;          // the startup frames were seen (revision 1)
  bool close = false;           // the sender closes (FIN) after its last segment
  std::size_t crc_failed = 99;  // the segment whose CRC failed
};

// Feeds `segments` in order as one sender's FPDUs from its first, right after its own startup
// frame (100 octets), and returns the names of what was found.
Names judge(const std::vector<Bytes>& segments, Feed feed = {}) {
  UlpChecks checks;
  std::vector<Finding> out;
  StartupFrame frame;  // 20 octets and 80 of private data: the first FPDU's offset, 100
  frame.pd_length = 80;
  std::uint32_t seq = 1000;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    TestFpdu fpdu(segments[i], seq);
    seq += 100;
    if (i == feed.crc_failed) fpdu.event.crc_status = CrcStatus::Bad;
    UlpContext c;
    c.direction = feed.direction;
    c.first_fpdu = i == 0;
    if (feed.startup) {
      c.revision = 1;
      c.reply = &frame;
      c.request = &frame;
    }
    checks.check(fpdu.event, c, out);
  }
  if (feed.close) checks.on_close(9, TcpSeq(seq), 100 + 100 * segments.size(), out);
  return names(out);
}

// RFC 5041 4.3, 5.2: the MO of an untagged message's first octet is 0, each segment's MO its
// payload's place; RFC 5041 4.1: the Last segment carries the highest MO.
TEST(DdpRules, AReadRequestOrATerminateCarriesNoUlpPayload) {
  Bytes read = untagged(0x1, 1, 1, 0, true, 0);
  read.resize(18 + 28, 0);  // sink STag/TO, size, source STag/TO: its header, nothing more
  EXPECT_EQ(judge({read}), Names{});
  EXPECT_EQ(judge({terminate()}), Names{});
  Bytes long_read = read;
  long_read.resize(18 + 28 + 8, 0xAB);
  EXPECT_EQ(judge({long_read}), Names{"rdmap.payload-not-allowed"});
  // A Terminate may hold its DDP Segment Length, a Terminated DDP Header (18 octets at most)
  // and a Terminated RDMA Header (28) whatever its flags (RFC 5040 4.8: they say which MUST be
  // present or valid): 52 octets after the DDP header, and nothing beyond.
  Bytes longest = terminate();
  longest[18 + 2] = 0x40;  // D (Figure 8: M, D, R lead the third octet)
  longest.resize(18 + 4 + 2 + 18 + 28, 0);
  EXPECT_EQ(judge({send(1), longest}), Names{});
  Bytes long_terminate = longest;
  long_terminate.resize(18 + 52 + 4, 0);
  EXPECT_EQ(judge({send(1), long_terminate}), Names{"rdmap.payload-not-allowed"});
}

TEST(DdpRules, AnUntaggedMessagesMosCoverItFromZeroToTheLastSegmentsEnd) {
  // A gap of 8 octets between the first segment and the Last one.
  EXPECT_EQ(judge({send(1, 0, false), send(1, 16), send(2)}),
            (Names{"ddp.segments-out-of-order", "ddp.mo-invalid"}));
  // No segment at MO 0.
  EXPECT_EQ(judge({send(1, 4), send(2)}), (Names{"ddp.segments-out-of-order", "ddp.mo-invalid"}));
  // Sent out of order (the Last segment first), every octet covered: only the SHOULD.
  EXPECT_EQ(judge({send(1, 8, true), send(1, 0, false), send(2)}),
            Names{"ddp.segments-out-of-order"});
  // A segment after the Last one, beyond its end.
  EXPECT_EQ(judge({send(1, 8, true), send(1, 16, false)}),
            (Names{"ddp.segments-out-of-order", "ddp.mo-invalid"}));
  // The Last segment is not the highest: found when the next message begins ...
  EXPECT_EQ(judge({send(1, 0, false), send(1, 16, false), send(1, 8, true), send(2)}),
            (Names{"ddp.segments-out-of-order", "ddp.mo-invalid"}));
  // ... or when the sender closes; not when the capture just ends.
  EXPECT_EQ(judge({send(1, 0, false), send(1, 16, true)}, {.close = true}),
            (Names{"ddp.segments-out-of-order", "ddp.mo-invalid"}));
  EXPECT_EQ(judge({send(1, 0, false), send(1, 16, true)}), Names{"ddp.segments-out-of-order"});
  // Sound messages of several segments, on two queues.
  EXPECT_EQ(judge({send(1, 0, false), send(1, 8, false), send(1, 16), send(2),
                   untagged(0x1, 1, 1, 0, true, 28), send(3, 0, false), send(3, 8)},
                  {.close = true}),
            Names{});
}

TEST(DdpRules, AMessageWhoseFirstSegmentsWereNotSeenIsNotJudgedForItsMos) {
  // The capture started mid-stream: the first message seen may have begun before it.
  EXPECT_EQ(judge({send(7, 8), send(8)}, {.startup = false}), Names{});
  // A CRC-failed segment (dropped by its receiver) may have held the missing octets.
  EXPECT_EQ(judge({send(1, 0, false), send(1, 8, false), send(1, 16), send(2)}, {.crc_failed = 1}),
            Names{});
}

// RFC 5041 5.2: a zero-length message consumes exactly one segment.
TEST(DdpRules, AZeroLengthMessageIsOneSegment) {
  EXPECT_EQ(judge({send(1, 0, false, 0), send(1, 0, true, 0)}), Names{"ddp.zero-length-split"});
  // A zero-length tagged message's STag and TO are not checked: the second empty segment goes on.
  EXPECT_EQ(judge({write(7, 0, false, 0), write(9, 40, true, 0)}), Names{"ddp.zero-length-split"});
  EXPECT_EQ(judge({send(1, 0, true, 0), write(7, 0, true, 0), send(2, 0, true, 0)}), Names{});
  // An empty Last segment closing a message with octets is no zero-length message.
  EXPECT_EQ(judge({send(1, 0, false), send(1, 8, true, 0), send(2)}), Names{});
}

// RFC 5041 4.1: the Last flag closes every message, the last one before the close too.
TEST(DdpRules, AMessageLeftOpenWhenTheSenderClosesIsNamed) {
  EXPECT_EQ(judge({send(1), send(2, 0, false)}, {.close = true}),
            Names{"ddp.message-open-at-close"});
  EXPECT_EQ(judge({write(7, 0, false)}, {.close = true}), Names{"ddp.message-open-at-close"});
  // The capture ends (no close): what would have followed is unknown.
  EXPECT_EQ(judge({send(1), send(2, 0, false)}), Names{});
  // A Terminate ends the stream (RFC 5040 5.4): the open message is abandoned, not unfinished.
  EXPECT_EQ(judge({send(1, 0, false), terminate()}, {.close = true}), Names{});
  // The message's first segment failed its CRC: its Last flag may have come before.
  EXPECT_EQ(
      judge({send(1), write(7, 0, true), write(7, 8, false)}, {.close = true, .crc_failed = 1}),
      Names{});
  EXPECT_EQ(judge({send(1), send(2)}, {.close = true}), Names{});
}

// RFC 5041 4.3: each queue's first MSN is 1, in the Initiator's direction too.
TEST(DdpRules, TheInitiatorsFirstMsnIsJudgedWhereItsFirstFpduFollowsItsRequest) {
  EXPECT_EQ(judge({send(2)}, {.direction = Direction::Initiator}), Names{"ddp.msn-invalid"});
  EXPECT_EQ(judge({send(1), send(2)}, {.direction = Direction::Initiator}), Names{});
  EXPECT_EQ(judge({send(2)}, {.direction = Direction::Initiator, .startup = false}), Names{});
}

// RFC 5041 4.1: DV is 1 (0 from an RDMA Consortium peer); 2 and 3 are nobody's.
TEST(DdpRules, ADdpVersionAboveOneIsNamedWithoutTheStartup) {
  Bytes two = send(1);
  two[0] = static_cast<std::uint8_t>((two[0] & 0xfc) | 0x02);
  EXPECT_EQ(judge({two}, {.startup = false}), Names{"ddp.version-mismatch"});
  Bytes zero = send(1);
  zero[0] &= 0xfc;
  zero[1] &= 0x3f;  // RDMAP version 0 as well: an RDMA Consortium peer
  EXPECT_EQ(judge({zero}, {.startup = false}), Names{});
  EXPECT_EQ(judge({zero}), Names{"ddp.version-mismatch"});
}

// RFC 5041 5.2: a tagged message's segments (from its first to the one with the Last flag)
// carry [TO, TO + length) runs that tile one interval, in any order (RFC 5041 5.3).
TEST(DdpRules, ATaggedMessagesTosTileOneInterval) {
  const Names late{"ddp.segments-out-of-order"};
  const Names both{"ddp.segments-out-of-order", "ddp.tagged-offsets-inconsistent"};
  EXPECT_EQ(judge({write(7, 0, false), write(7, 8, false), write(7, 16, true)}), Names{});
  EXPECT_EQ(judge({write(7, 8, false), write(7, 0, false), write(7, 16, true)}), late);
  // A gap, certain at the Last segment; an overlap, at the segment that makes it.
  EXPECT_EQ(judge({write(7, 0, false), write(7, 16, true)}), both);
  EXPECT_EQ(judge({write(7, 0, false), write(7, 4, false)}), both);
  EXPECT_EQ(judge({write(7, 16, false), write(7, 8, false), write(7, 12, true)}), both);
  // The same STag again after a Last flag is the next message (RFC 5041 5.2's note).
  EXPECT_EQ(judge({write(7, 0, true), write(7, 0, true), write(7, 4, true)}), Names{});
  // Empty segments carry no TOs (RFC 5041 5.2: not checked).
  EXPECT_EQ(judge({write(7, 0, false, 0), write(7, 99, true, 0)}), Names{"ddp.zero-length-split"});
}

// A gap is judged only where every segment of the message was seen; more runs apart at once
// than kept stops judging the message's TOs.
TEST(DdpRules, ATaggedMessagesGapIsJudgedOnlyWhenItsSegmentsAreKnown) {
  const Names late{"ddp.segments-out-of-order"};
  EXPECT_EQ(judge({write(7, 0, false), write(7, 16, true)}, {.startup = false}), late);
  EXPECT_EQ(judge({write(7, 0, true), write(7, 0, false), write(7, 16, true)}, {.startup = false}),
            (Names{"ddp.segments-out-of-order", "ddp.tagged-offsets-inconsistent"}));
  EXPECT_EQ(judge({write(7, 0, false), write(7, 16, false), write(7, 32, false),
                   write(7, 48, false), write(7, 64, false), write(7, 72, true)}),
            late);
}

// RFC 5040 4.1: RV is 01b (0 from an RDMA Consortium peer, with a DV of 0: RFC 5044 Appendix C
// allows no mixing); an RV of 2 or 3, or one apart from the DV, is no revision's, startup or not.
TEST(DdpRules, AnRdmapVersionNoRevisionUsesIsNamedWithoutTheStartup) {
  const auto with_rv = [](std::uint8_t rv) {
    Bytes b = send(1);
    b[1] = static_cast<std::uint8_t>((b[1] & 0x3f) | rv << 6);
    return b;
  };
  EXPECT_EQ(judge({with_rv(2)}, {.startup = false}), Names{"ddp.version-mismatch"});
  EXPECT_EQ(judge({with_rv(3)}, {.startup = false}), Names{"ddp.version-mismatch"});
  EXPECT_EQ(judge({with_rv(0)}, {.startup = false}), Names{"ddp.version-mismatch"});
  EXPECT_EQ(judge({with_rv(1)}, {.startup = false}), Names{});
  EXPECT_EQ(judge({with_rv(2)}), Names{"ddp.version-mismatch"});
}

}  // namespace
}  // namespace mpa
