// Tests for the DDP/RDMAP header decoding (ddp.h; RFC 5041 4, RFC 5040 4) and recognition of
// the RFC 6581 9.2 zero-length RTR messages.
#include "mpa/ddp.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "test_streams.h"

namespace mpa {
namespace {

using test::Bytes;
using test::put_be32;

// Untagged (RFC 5041 4.3): control, RDMAP control, reserved(4), QN, MSN, MO.
Bytes untagged(std::uint8_t opcode, std::uint32_t queue, std::uint32_t msn, std::uint32_t mo,
               std::uint8_t version = 1, bool last = true) {
  Bytes out = {static_cast<std::uint8_t>((last ? 0x40 : 0) | version),
               static_cast<std::uint8_t>(version << 6 | opcode),
               0,
               0,
               0,
               0};
  put_be32(out, queue);
  put_be32(out, msn);
  put_be32(out, mo);
  return out;
}

// Tagged (RFC 5041 4.2): control, RDMAP control, STag, TO (64 bits).
Bytes tagged(std::uint8_t opcode, std::uint32_t stag, std::uint64_t to, std::uint8_t version = 1) {
  Bytes out = {static_cast<std::uint8_t>(0x80 | 0x40 | version),
               static_cast<std::uint8_t>(version << 6 | opcode)};
  put_be32(out, stag);
  put_be32(out, static_cast<std::uint32_t>(to >> 32));
  put_be32(out, static_cast<std::uint32_t>(to));
  return out;
}

// RDMA Read Request (RFC 5040 4.4) after its untagged header.
Bytes read_request(std::uint32_t size) {
  Bytes out = untagged(0x1, 1, 1, 0);
  put_be32(out, 0x1111);  // sink STag
  put_be32(out, 0);       // sink TO
  put_be32(out, 0x2000);
  put_be32(out, size);    // RDMA Read Message Size
  put_be32(out, 0x2222);  // source STag
  put_be32(out, 0);       // source TO
  put_be32(out, 0x3000);
  return out;
}

TEST(Ddp, DecodesRfc5044Figure5SendHeader) {
  // RFC 5044 Figure 5: 41 43, reserved, queue 0, MSN 1, MO 0.
  const Bytes ulpdu = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0};
  const auto h = decode_ddp(ulpdu);
  ASSERT_TRUE(h.has_value());
  EXPECT_FALSE(h->tagged);
  EXPECT_TRUE(h->last);
  EXPECT_EQ(h->ddp_version, 1);
  EXPECT_EQ(h->rdmap_version, 1);
  EXPECT_EQ(h->opcode, static_cast<std::uint8_t>(RdmapOpcode::Send));
  EXPECT_EQ(h->queue, 0u);
  EXPECT_EQ(h->msn, 1u);
  EXPECT_EQ(h->mo, 0u);
  EXPECT_EQ(h->header_size, kDdpUntaggedHeaderSize);
}

TEST(Ddp, DecodesUntaggedFields) {
  const auto h = decode_ddp(untagged(0x7, 2, 0xA1B2C3D4, 0x01020304, 0, false));
  ASSERT_TRUE(h.has_value());
  EXPECT_FALSE(h->last);
  EXPECT_EQ(h->ddp_version, 0);
  EXPECT_EQ(h->rdmap_version, 0);
  EXPECT_EQ(h->opcode, static_cast<std::uint8_t>(RdmapOpcode::Terminate));
  EXPECT_EQ(h->queue, 2u);
  EXPECT_EQ(h->msn, 0xA1B2C3D4u);
  EXPECT_EQ(h->mo, 0x01020304u);
}

TEST(Ddp, DecodesTaggedFields) {
  const auto h = decode_ddp(tagged(0x0, 0xDEADBEEF, 0x0102030405060708ull));
  ASSERT_TRUE(h.has_value());
  EXPECT_TRUE(h->tagged);
  EXPECT_TRUE(h->last);
  EXPECT_EQ(h->opcode, static_cast<std::uint8_t>(RdmapOpcode::Write));
  EXPECT_EQ(h->stag, 0xDEADBEEFu);
  EXPECT_EQ(h->to, 0x0102030405060708ull);
  EXPECT_EQ(h->header_size, kDdpTaggedHeaderSize);
}

TEST(Ddp, ShortUlpdusHaveNoHeader) {
  EXPECT_FALSE(decode_ddp(Bytes{}).has_value());
  EXPECT_FALSE(decode_ddp(Bytes{0x41}).has_value());
  Bytes t = tagged(0, 1, 2);
  t.pop_back();
  EXPECT_FALSE(decode_ddp(t).has_value());
  Bytes u = untagged(3, 0, 1, 0);
  u.pop_back();
  EXPECT_FALSE(decode_ddp(u).has_value());
}

TEST(Ddp, RecognisesZeroLengthSendRtr) {
  EXPECT_EQ(classify_rtr(untagged(0x3, 0, 1, 0), 18), RtrKind::Send);
  EXPECT_EQ(classify_rtr(untagged(0x5, 0, 1, 0), 18), RtrKind::Send);  // Send with SE
  EXPECT_EQ(classify_rtr(untagged(0x3, 0, 1, 0), 19), RtrKind::None);  // carries data
  EXPECT_EQ(classify_rtr(untagged(0x3, 1, 1, 0), 18), RtrKind::None);  // wrong queue
}

TEST(Ddp, RecognisesZeroLengthWriteRtr) {
  EXPECT_EQ(classify_rtr(tagged(0x0, 0, 0), 14), RtrKind::Write);
  EXPECT_EQ(classify_rtr(tagged(0x0, 0, 0), 15), RtrKind::None);
  EXPECT_EQ(classify_rtr(tagged(0x2, 0, 0), 14), RtrKind::None);  // Read Response
}

TEST(Ddp, RecognisesZeroLengthReadRtr) {
  EXPECT_EQ(classify_rtr(read_request(0), 46), RtrKind::Read);
  EXPECT_EQ(classify_rtr(read_request(1), 46), RtrKind::None);  // reads something
  Bytes wrong_queue = read_request(0);
  wrong_queue[9] = 0;
  EXPECT_EQ(classify_rtr(wrong_queue, 46), RtrKind::None);
  // The head is too short to see the RDMA Read Message Size.
  EXPECT_EQ(classify_rtr(std::span<const std::uint8_t>(read_request(0)).first(30), 46),
            RtrKind::None);
}

TEST(Ddp, OrdinaryMessagesAreNotRtrs) {
  Bytes send = untagged(0x3, 0, 1, 0);
  send.resize(18 + 100, 0);
  EXPECT_EQ(classify_rtr(send, 118), RtrKind::None);
  EXPECT_EQ(classify_rtr(untagged(0x7, 2, 1, 0), 18), RtrKind::None);  // Terminate
  EXPECT_EQ(classify_rtr(untagged(0x1, 1, 1, 0), 18), RtrKind::None);  // truncated Read Request
  EXPECT_EQ(classify_rtr(Bytes{}, 0), RtrKind::None);
}

// RFC 5040 4.4 and RFC 7306: the RDMAP header each opcode needs after its DDP header, and
// which messages a peer's IRD holds until their answer ends.
TEST(Ddp, EachOpcodeNeedsItsRdmapHeader) {
  const auto header = [](const Bytes& octets) {
    const auto h = decode_ddp(octets);
    EXPECT_TRUE(h);
    return h.value_or(DdpHeader{});
  };
  EXPECT_EQ(rdmap_header_size(header(untagged(0x1, 1, 1, 0))), 28u);  // RDMA Read Request
  EXPECT_EQ(rdmap_header_size(header(untagged(0xA, 3, 1, 0))), 52u);  // Atomic Request
  EXPECT_EQ(rdmap_header_size(header(untagged(0xB, 4, 1, 0))), 12u);  // Atomic Response
  EXPECT_EQ(rdmap_header_size(header(untagged(0x3, 0, 1, 0))), 0u);   // Send: payload only
  EXPECT_EQ(rdmap_header_size(header(untagged(0x8, 0, 1, 0))), 0u);   // Immediate Data
  EXPECT_EQ(rdmap_header_size(header(tagged(0x1, 5, 0))), 0u);        // a tagged "Read Request": no
  EXPECT_TRUE(is_ird_request(header(untagged(0x1, 1, 1, 0))));
  EXPECT_TRUE(is_ird_request(header(untagged(0xA, 3, 1, 0))));
  EXPECT_FALSE(is_ird_request(header(untagged(0x3, 0, 1, 0))));
  EXPECT_FALSE(is_ird_request(header(tagged(0x1, 5, 0))));
  EXPECT_TRUE(is_ird_response_end(header(tagged(0x2, 5, 0))));  // L=1
  Bytes middle = tagged(0x2, 5, 0);
  middle[0] &= static_cast<std::uint8_t>(~0x40);  // L=0: more segments follow
  EXPECT_FALSE(is_ird_response_end(header(middle)));
  EXPECT_TRUE(is_ird_response_end(header(untagged(0xB, 4, 1, 0))));
  EXPECT_FALSE(is_ird_response_end(header(untagged(0xB, 4, 1, 0, 1, false))));
  EXPECT_FALSE(is_ird_response_end(header(tagged(0x0, 5, 0))));  // RDMA Write
  EXPECT_EQ(rdmap_opcode_words(0x9), "Immediate Data with Solicited Event");
  EXPECT_EQ(rdmap_opcode_words(0xA), "Atomic Request");
  EXPECT_EQ(rdmap_opcode_words(0xC), "opcode 12");
}

}  // namespace
}  // namespace mpa
