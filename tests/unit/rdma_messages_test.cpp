// Tests for the RDMA message log (rdma_messages.h): messages assembled from DDP Segments
// (RFC 5041 5), and a CountsOnly log counting what a full one counts without building them.
#include "mpa/rdma_messages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "test_streams.h"

namespace mpa {
namespace {

using test::Bytes;
using test::put_be32;

// Untagged (RFC 5041 4.3): control, RDMAP control, Invalidate STag, QN, MSN, MO.
Bytes untagged(std::uint8_t opcode, std::uint32_t queue, std::uint32_t msn, std::uint32_t mo,
               bool last) {
  Bytes out = {static_cast<std::uint8_t>((last ? 0x40 : 0) | 1),
               static_cast<std::uint8_t>(1 << 6 | opcode),
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
Bytes tagged(std::uint8_t opcode, std::uint32_t stag, std::uint64_t to, bool last) {
  Bytes out = {static_cast<std::uint8_t>(0x80 | (last ? 0x40 : 0) | 1),
               static_cast<std::uint8_t>(1 << 6 | opcode)};
  put_be32(out, stag);
  put_be32(out, static_cast<std::uint32_t>(to >> 32));
  put_be32(out, static_cast<std::uint32_t>(to));
  return out;
}

// An RDMA Read Request (RFC 5040 4.4) asking `size` octets, after its untagged header.
Bytes read_request(std::uint32_t msn, std::uint32_t size) {
  Bytes out = untagged(0x1, 1, msn, 0, true);
  for (std::uint32_t v : {0x1111u, 0u, 0x2000u, size, 0x2222u, 0u, 0x3000u}) put_be32(out, v);
  return out;
}

struct Segment {
  Bytes head;
  std::uint16_t ulpdu_length = 0;
  Direction direction = Direction::Initiator;
  CrcStatus crc = CrcStatus::Good;
};

FpduEvent event(const Segment& s, std::uint64_t frame) {
  FpduEvent e;
  e.direction = s.direction;
  e.ulpdu_length = s.ulpdu_length;
  e.ulpdu_size = s.ulpdu_length;
  e.crc_status = s.crc;
  e.first_frame = e.last_frame = frame;
  e.header_seq = TcpSeq(static_cast<std::uint32_t>(1000 * frame));
  e.ulpdu_head = s.head;
  return e;
}

// A Send in two segments, a two-segment RDMA Write, a Read Request, the Responder's Send, then
// a Send whose second segment's CRC failed (its message closed unfinished) and a new one.
std::vector<Segment> stream() {
  return {
      {untagged(0x3, 0, 1, 0, false), 18 + 100},
      {tagged(0x0, 0xabc, 0x1000, false), 14 + 200},
      {untagged(0x3, 0, 1, 100, true), 18 + 50},
      {tagged(0x0, 0xabc, 0x1000 + 200, true), 14 + 300},
      {read_request(1, 4096), 18 + 28},
      {untagged(0x3, 0, 1, 0, true), 18 + 10, Direction::Responder},
      {untagged(0x3, 0, 2, 0, false), 18 + 20},
      {untagged(0x3, 0, 2, 20, false), 18 + 20, Direction::Initiator, CrcStatus::Bad},
      {untagged(0x3, 0, 2, 40, true), 18 + 20},
  };
}

TEST(RdmaMessageLog, AssemblesMessagesFromTheirSegments) {
  RdmaMessageLog log;
  const std::vector<Segment> segments = stream();
  std::vector<const RdmaMessage*> seen;
  for (std::size_t i = 0; i < segments.size(); ++i)
    seen.push_back(log.on_fpdu(event(segments[i], i + 1)));
  EXPECT_EQ(seen[7], nullptr);  // (its CRC failed: no segment the DDP layer takes)
  const std::vector<RdmaMessage>& m = log.messages();
  ASSERT_EQ(m.size(), 6u);
  // The Send in two segments: frames 1 to 3, 150 octets.
  EXPECT_EQ(m[0].opcode, to_wire(RdmapOpcode::Send));
  EXPECT_EQ(m[0].segments, 2u);
  EXPECT_EQ(m[0].octets, 150u);
  EXPECT_EQ(m[0].first_frame, 1u);
  EXPECT_EQ(m[0].last_frame, 3u);
  EXPECT_EQ(m[0].first_seq, TcpSeq(1000));
  EXPECT_EQ(m[0].last_seq, TcpSeq(3000));
  EXPECT_TRUE(m[0].complete);
  EXPECT_FALSE(m[0].read.has_value());
  // The Write, by its STag and TO.
  EXPECT_EQ(m[1].stag, 0xabcu);
  EXPECT_EQ(m[1].to, 0x1000u);
  EXPECT_EQ(m[1].octets, 500u);
  EXPECT_EQ(m[1].first_frame, 2u);
  EXPECT_EQ(m[1].last_frame, 4u);
  // The Read Request, with what it asks.
  ASSERT_TRUE(m[2].read.has_value());
  EXPECT_EQ(m[2].read->size, 4096u);
  EXPECT_EQ(m[2].read->source_stag, 0x2222u);
  EXPECT_EQ(m[2].number, 2u);
  // The Responder's numbers its own.
  EXPECT_EQ(m[3].direction, Direction::Responder);
  EXPECT_EQ(m[3].number, 0u);
  // MSN 2 closed unfinished by the CRC failure; its last segment begins a message of its own.
  EXPECT_FALSE(m[4].complete);
  EXPECT_EQ(m[4].segments, 1u);
  EXPECT_EQ(m[5].msn, 2u);
  EXPECT_EQ(m[5].first_frame, 9u);
  EXPECT_TRUE(m[5].complete);
  ASSERT_NE(seen[8], nullptr);
  EXPECT_EQ(seen[8]->number, 4u);
}

TEST(RdmaMessageLog, CountsOnlyCountsWhatAFullLogCounts) {
  RdmaMessageLog full;
  RdmaMessageLog counts{RdmaMessageLog::CountsOnly{}};
  const std::vector<Segment> segments = stream();
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const FpduEvent e = event(segments[i], i + 1);
    full.on_fpdu(e);
    EXPECT_EQ(counts.on_fpdu(e), nullptr);  // (no message built)
  }
  EXPECT_TRUE(counts.messages().empty());
  EXPECT_EQ(counts.not_listed(), 0u);
  for (Direction d : {Direction::Initiator, Direction::Responder}) {
    EXPECT_EQ(counts.total(d), full.total(d));
    for (std::size_t op = 0; op < 16; ++op) {
      EXPECT_EQ(counts.counts(d)[op].messages, full.counts(d)[op].messages) << op;
      EXPECT_EQ(counts.counts(d)[op].octets, full.counts(d)[op].octets) << op;
      EXPECT_EQ(counts.counts(d)[op].segments, full.counts(d)[op].segments) << op;
    }
  }
  // (and what they count: Sends 1 + 1 (MSN 2, cut) + 1, the Write once in two segments)
  const RdmaOpcodeTally& send = counts.counts(Direction::Initiator)[to_wire(RdmapOpcode::Send)];
  EXPECT_EQ(send.messages, 3u);
  EXPECT_EQ(send.segments, 4u);
  EXPECT_EQ(send.octets, 190u);
  const RdmaOpcodeTally& write = counts.counts(Direction::Initiator)[to_wire(RdmapOpcode::Write)];
  EXPECT_EQ(write.messages, 1u);
  EXPECT_EQ(write.segments, 2u);
  EXPECT_EQ(write.octets, 500u);
  EXPECT_EQ(counts.total(Direction::Initiator), 5u);
  EXPECT_EQ(counts.total(Direction::Responder), 1u);
}

}  // namespace
}  // namespace mpa
