// The DDP Stream a direction's DDP Segments make (ddp_stream.h), judged through the ULP layer's
// face (UlpChecks::check): per-queue MSN and MO, the tagged message's STag and TO, the DDP and
// RDMAP Control fields, each opcode's model and queue, and nothing after a Terminate. Segments
// whose CRC failed are never judged.
#include <gtest/gtest.h>

#include "decider_support.h"
#include "ulp/ulp_checks.h"

namespace mpa {
namespace {

using namespace test;

Bytes send(std::uint32_t msn, std::uint32_t mo = 0, bool last = true, std::size_t payload = 8) {
  return untagged(0x3, 0, msn, mo, last, payload);
}
// A tagged DDP segment (RFC 5041 4.2): RDMA Write.
Bytes write(std::uint32_t stag, std::uint64_t to, bool last, std::size_t payload = 8) {
  return tagged(0x0, stag, to, last, payload);
}

// Feeds `segments` in order as the Responder's FPDUs from its first (startup seen), and
// returns the names of what was found.
std::vector<std::string> judge(const std::vector<Bytes>& segments,
                               const std::vector<std::size_t>& crc_failed = {},
                               std::uint16_t reply_pd_length = 80) {
  UlpChecks checks;
  std::vector<Finding> out;
  StartupFrame reply;  // 20 octets and 80 of private data: the first FPDU's offset, 100
  reply.pd_length = reply_pd_length;
  std::uint32_t seq = 1000;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    TestFpdu fpdu(segments[i], seq);
    seq += 100;
    if (std::find(crc_failed.begin(), crc_failed.end(), i) != crc_failed.end()) {
      fpdu.event.crc_status = CrcStatus::Bad;
    }
    UlpContext c;
    c.direction = Direction::Responder;  // (whose first MSNs are judged: ulp_checks.cpp)
    c.first_fpdu = i == 0;
    c.revision = 1;
    c.reply = &reply;
    checks.check(fpdu.event, c, out);
  }
  return names(out);
}

using Names = std::vector<std::string>;

TEST(DdpStream, ASoundStreamRaisesNothing) {
  EXPECT_EQ(judge({send(1), send(2, 0, false), send(2, 8, false), send(2, 16), write(7, 100, false),
                   write(7, 108, true), untagged(0x1, 1, 1, 0, true, 28), send(3)}),
            Names{});
}

TEST(DdpStream, EachQueuesFirstMsnIsOneAndGoesUpByOnePerMessage) {
  EXPECT_EQ(judge({send(2)}), Names{"ddp.msn-invalid"});
  EXPECT_EQ(judge({send(1), send(5)}), Names{"ddp.msn-invalid"});
  // A Last flag, then the same MSN again.
  EXPECT_EQ(judge({send(1), send(1)}), Names{"ddp.msn-invalid"});
  // Queues count apart: the Read Request's MSN 1 follows Sends 1 and 2.
  EXPECT_EQ(judge({send(1), send(2), untagged(0x1, 1, 1, 0, true, 28)}), Names{});
}

TEST(DdpStream, TheFirstMsnIsJudgedOnlyWhereTheFirstFpduFollowsTheStartupFrameAtOnce) {
  // Octets between the Reply and this FPDU may have held MSN 1.
  EXPECT_EQ(judge({send(2), send(3)}, {}, 60), Names{});
  EXPECT_EQ(judge({send(2), send(4)}, {}, 60), Names{"ddp.msn-invalid"});
}

TEST(DdpStream, AMessageWithoutItsLastFlagIsNamedWhenTheNextBegins) {
  EXPECT_EQ(judge({send(1, 0, false), send(2)}), Names{"ddp.message-unfinished"});
  EXPECT_EQ(judge({write(7, 0, false), write(9, 500, true)}), Names{"ddp.message-unfinished"});
}

TEST(DdpStream, SegmentsGoOnWhereThePreviousPayloadEnded) {
  EXPECT_EQ(judge({send(1, 0, false), send(1, 12)}), Names{"ddp.segments-out-of-order"});
  EXPECT_EQ(judge({send(1, 4)}), Names{"ddp.segments-out-of-order"});
  // (In TO order or not, the payloads tile one interval: RFC 5041 5.2 holds, 5.3's SHOULD not.)
  EXPECT_EQ(judge({write(7, 8, false), write(7, 0, true)}), Names{"ddp.segments-out-of-order"});
  EXPECT_EQ(judge({write(7, 0, false), write(8, 8, true)}), Names{"ddp.stag-changed"});
}

TEST(DdpStream, QueuesOpcodesAndReservedFieldsAreRfc5040s) {
  EXPECT_EQ(judge({untagged(0x3, 7, 1, 0)}), Names{"ddp.queue-invalid"});
  EXPECT_EQ(judge({untagged(0x3, 1, 1, 0)}), Names{"rdmap.opcode-misplaced"});
  Bytes tagged_send = write(7, 0, true);
  tagged_send[1] = 0x43;  // a Send in a tagged segment
  EXPECT_EQ(judge({tagged_send}), Names{"rdmap.opcode-misplaced"});
  EXPECT_EQ(judge({untagged(0xc, 0, 1, 0)}), Names{"rdmap.opcode-invalid"});
  Bytes reserved = send(1);
  reserved[0] |= 0x04;
  EXPECT_EQ(judge({reserved}), Names{"ddp.reserved-nonzero"});
  Bytes rdmap_reserved = send(1);
  rdmap_reserved[1] |= 0x20;
  EXPECT_EQ(judge({rdmap_reserved}), Names{"rdmap.reserved-nonzero"});
  Bytes invalidate = send(1);
  invalidate[5] = 0x01;  // an Invalidate STag in a plain Send
  EXPECT_EQ(judge({invalidate}), Names{"rdmap.reserved-nonzero"});
  Bytes version = send(2);
  version[0] ^= 0x01;
  EXPECT_EQ(judge({send(1), version}), (Names{"ddp.version-changed", "ddp.version-mismatch"}));
}

TEST(DdpStream, NothingFollowsATerminate) {
  Bytes terminate = untagged(0x7, 2, 1, 0, true, 0);
  terminate.resize(18 + 4, 0);  // a Terminate header quoting nothing (M, D, R clear)
  EXPECT_EQ(judge({send(1), terminate, send(2)}), Names{"rdmap.after-terminate"});
}

TEST(DdpStream, EachFindingIsNamedOncePerDirection) {
  EXPECT_EQ(judge({send(3), send(9), send(20)}), Names{"ddp.msn-invalid"});
}

TEST(DdpStream, EveryCatalogueIdIsNamedOnceApartFromTheOthers) {
  // Every id of the catalogue, not only the DDP Stream's own (a bit per id shifted by its
  // distance from DdpReservedNonzero was undefined below it and past 31 ids above it, and
  // folded ids onto one another): each is new the first time only.
  SaidOnce said;
  constexpr auto kIds = static_cast<std::size_t>(DiagId::kCount);
  for (std::size_t i = 0; i < kIds; ++i) EXPECT_TRUE(said.first(static_cast<DiagId>(i))) << i;
  for (std::size_t i = 0; i < kIds; ++i) EXPECT_FALSE(said.first(static_cast<DiagId>(i))) << i;
}

TEST(DdpStream, SegmentsWhoseCrcFailedAreNotJudgedAndTheQueueIsTakenAsItComesNext) {
  // The second Send's CRC failed (its receiver dropped it): neither its stray MSN nor the
  // third's, which follows a message the capture cannot vouch for, is named.
  EXPECT_EQ(judge({send(1), send(77), send(3)}, {1}), Names{});
  EXPECT_EQ(judge({send(1), send(2, 0, false), send(4)}, {1}), Names{});
}

}  // namespace
}  // namespace mpa
