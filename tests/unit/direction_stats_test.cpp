// Statistics of one sender (direction_stats.h).
#include "report/direction_stats.h"

#include <gtest/gtest.h>

#include "decider_support.h"

namespace mpa {
namespace {

using namespace test;

TEST(DirectionStats, CountsFpdusBySizeOpcodeAndAlignment) {
  DirectionStats stats;
  stats.on_full_operation(true, true, false);
  for (std::size_t size : {0u, 64u, 65u, 1460u, 9001u}) {
    TestFpdu f(Bytes(size, 0));
    f.event.within_one_segment = size < 9000;
    stats.on_fpdu(f.event, size ? decode_ddp(ddp_send(0, 10)) : std::nullopt, false);
  }
  TestFpdu t(Bytes(40, 0));
  stats.on_fpdu(t.event, std::nullopt, true);
  stats.on_full_operation_segment(true);
  stats.on_full_operation_segment(false);
  stats.on_payload(1000);
  const DirectionSummary s = stats.summary(DirectionStats::ReaderCounts{6, 10630, 1}, 1460, 9000);
  EXPECT_TRUE(s.full_operation && s.markers && s.crc && !s.inferred);
  EXPECT_EQ(s.ulpdu_sizes[0], 1u);    // 0
  EXPECT_EQ(s.ulpdu_sizes[1], 2u);    // 1-64: 64 and the 40-octet Terminate
  EXPECT_EQ(s.ulpdu_sizes[2], 1u);    // 65-512
  EXPECT_EQ(s.ulpdu_sizes[3], 1u);    // 513-1460
  EXPECT_EQ(s.ulpdu_sizes[6], 1u);    // 9001-65535
  EXPECT_EQ(s.rdmap_opcodes[3], 4u);  // Send
  EXPECT_EQ(s.terminates, 1u);
  EXPECT_EQ(s.max_ulpdu, 9001);
  EXPECT_EQ(s.fpdus_in_one_segment, 5u);
  EXPECT_EQ(s.segments, 2u);
  EXPECT_EQ(s.segments_starting_fpdu, 1u);
  EXPECT_EQ(s.bytes, 1000u);
  EXPECT_EQ(s.fpdus, 6u);
  EXPECT_EQ(s.crc_failures, 1u);
  EXPECT_EQ(s.mss, 1460);
  EXPECT_EQ(s.mulpdu, mulpdu(9000, true));
}

TEST(DirectionStats, MulpduNeverExceeds64768WhateverTheMss) {
  // Linux loopback announces MSS 65495: RFC 5044 4.5's formula gives 65489 (no markers),
  // above any sensible MULPDU (fpdu.ulpdu-length-too-large's ceiling).
  ASSERT_GT(mulpdu(65495, false), 64768u);
  for (bool markers : {false, true}) {
    DirectionStats stats;
    stats.on_full_operation(markers, true, false);
    EXPECT_EQ(stats.summary(std::nullopt, 65495, 65495).mulpdu, 64768u);
    EXPECT_EQ(stats.summary(std::nullopt, 1460, 1460).mulpdu, mulpdu(1460, markers));
  }
}

TEST(DirectionStats, MarkersFoundLaterAndAStackAreKept) {
  DirectionStats stats;
  stats.on_full_operation(false, false, true);
  stats.on_markers_found();
  stats.on_stack("Linux siw");
  const DirectionSummary s = stats.summary(std::nullopt, std::nullopt, std::nullopt);
  EXPECT_TRUE(s.markers);
  EXPECT_TRUE(s.inferred);
  EXPECT_EQ(s.stack, "Linux siw");
  EXPECT_EQ(s.mulpdu, 0u);
  EXPECT_EQ(s.fpdus, 0u);
}

}  // namespace
}  // namespace mpa
