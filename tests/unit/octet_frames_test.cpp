#include "fpdu/octet_frames.h"

#include <gtest/gtest.h>

namespace mpa {
namespace {

TEST(OctetFrames, NamesTheFrameThatDeliveredAnOctet) {
  OctetFrames f;
  f.note(0, 100, 4);
  f.note(100, 50, 4);  // the same frame continues: one run
  f.note(150, 10, 7);
  EXPECT_EQ(f.frame_of(0), 4u);
  EXPECT_EQ(f.frame_of(149), 4u);
  EXPECT_EQ(f.frame_of(150), 7u);
  EXPECT_EQ(f.frame_of(159), 7u);
  EXPECT_FALSE(f.frame_of(160));  // not delivered (yet)
}

TEST(OctetFrames, ForgetsOctetsLongAgoAndOctetsThatNeverCame) {
  OctetFrames f;
  f.note(0, 1000, 1);
  f.note(5000, 1000, 2);  // a gap of 4000 octets before it
  EXPECT_FALSE(f.frame_of(3000));
  std::uint64_t frame = 3;
  for (std::uint64_t at = 6000; at < 6000 + 2 * OctetFrames::kSpan; at += 1000)
    f.note(at, 1000, frame++);
  EXPECT_FALSE(f.frame_of(0));
  EXPECT_FALSE(f.frame_of(5000));
  EXPECT_EQ(f.frame_of(6000 + 2 * OctetFrames::kSpan - 1), frame - 1);
}

TEST(OctetFrames, TinySegmentsKeepABoundedNumberOfRuns) {
  OctetFrames f;
  for (std::uint64_t i = 0; i < 3 * OctetFrames::kMaxRuns; ++i) f.note(i, 1, i + 1);
  EXPECT_FALSE(f.frame_of(0));
  EXPECT_EQ(f.frame_of(3 * OctetFrames::kMaxRuns - 1), 3 * OctetFrames::kMaxRuns);
  EXPECT_EQ(f.frame_of(2 * OctetFrames::kMaxRuns), 2 * OctetFrames::kMaxRuns + 1);
}

}  // namespace
}  // namespace mpa
