// Tests for the marker grid and FPDU sizes (marker_grid.h; RFC 5044 4.1, 4.3, 4.5), checked
// against the octet-by-octet stream builder of test_streams.h.
#include "mpa/marker_grid.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "test_streams.h"

namespace mpa {
namespace {

using test::FpduStreamBuilder;

TEST(MarkerGrid, PadMakesEveryFpduAMultipleOfFour) {
  EXPECT_EQ(pad_length(0), 2u);
  EXPECT_EQ(pad_length(1), 1u);
  EXPECT_EQ(pad_length(2), 0u);
  EXPECT_EQ(pad_length(3), 3u);
  EXPECT_EQ(pad_length(42), 0u);  // RFC 5044 Figure 5
  EXPECT_EQ(pad_length(16), 2u);  // RFC 5044 Figure 4
  for (std::uint32_t length = 0; length <= 65535; ++length) {
    ASSERT_EQ(fpdu_length_without_markers(length) % 4, 0u) << length;
    ASSERT_EQ(fpdu_length_without_markers(length), 2 + length + pad_length(length) + 4) << length;
    ASSERT_LT(pad_length(length), 4u);
  }
}

TEST(MarkerGrid, DisabledGridHasNoMarkers) {
  const MarkerGrid grid;
  EXPECT_FALSE(grid.enabled());
  EXPECT_FALSE(grid.is_marker_at(TcpSeq(0)));
  EXPECT_EQ(grid.distance_to_marker(TcpSeq(0)), UINT32_MAX);
  EXPECT_EQ(grid.markers_in_fpdu(TcpSeq(0), 2000), 0u);
  EXPECT_EQ(grid.fpdu_wire_length(TcpSeq(0), 2000), fpdu_length_without_markers(2000));
}

TEST(MarkerGrid, MarkersSitEvery512OctetsFromTheOriginAsInRfcExample) {
  // RFC 5044 4.3: "started at TCP sequence number 11 ... Markers will begin at 523, 1035".
  const MarkerGrid grid(TcpSeq(11));
  EXPECT_TRUE(grid.is_marker_at(TcpSeq(11)));
  EXPECT_TRUE(grid.is_marker_at(TcpSeq(523)));
  EXPECT_TRUE(grid.is_marker_at(TcpSeq(1035)));
  EXPECT_FALSE(grid.is_marker_at(TcpSeq(12)));
  EXPECT_FALSE(grid.is_marker_at(TcpSeq(522)));
  EXPECT_EQ(grid.distance_to_marker(TcpSeq(11)), 0u);
  EXPECT_EQ(grid.distance_to_marker(TcpSeq(12)), 511u);
  EXPECT_EQ(grid.distance_to_marker(TcpSeq(522)), 1u);
}

TEST(MarkerGrid, PositionsAreComputedModulo2To32AcrossTheWrap) {
  const MarkerGrid grid(TcpSeq(0xFFFFFF00u));
  EXPECT_TRUE(grid.is_marker_at(TcpSeq(0xFFFFFF00u)));
  // 0xFFFFFF00 + 512 wraps to 0x100.
  EXPECT_TRUE(grid.is_marker_at(TcpSeq(0x00000100u)));
  EXPECT_TRUE(grid.is_marker_at(TcpSeq(0x00000300u)));
  EXPECT_FALSE(grid.is_marker_at(TcpSeq(0x00000000u)));
  EXPECT_EQ(grid.distance_to_marker(TcpSeq(0xFFFFFFFFu)), 257u);
  EXPECT_EQ(grid.distance_to_marker(TcpSeq(0x00000000u)), 256u);
  // Positions before the origin (modulo 2^32) are on the same grid.
  EXPECT_TRUE(grid.is_marker_at(TcpSeq(0xFFFFFD00u)));
  EXPECT_EQ(grid.distance_to_marker(TcpSeq(0xFFFFFCFFu)), 1u);
}

TEST(MarkerGrid, RfcFigure4FpduHoldsOneMarker) {
  // RFC 5044 Figure 4: ULPDU_Length 16; the marker follows the header and 10 ULPDU octets,
  // FPDUPTR 0x000C; the FPDU is 2 + 16 + 2 (pad) + 4 (CRC) + 4 (marker) octets.
  const MarkerGrid grid(TcpSeq(1000));
  const TcpSeq start = TcpSeq(1000 + 512 - 12);
  EXPECT_EQ(grid.markers_in_fpdu(start, 16), 1u);
  EXPECT_EQ(grid.fpdu_wire_length(start, 16), 28u);

  FpduStreamBuilder builder({.start_seq = 1000, .markers = true, .crc = true});
  builder.add_random(512 - 12 - 4 - 2 - 4 - 2, 1);  // leading marker + an FPDU ending at 500
  ASSERT_EQ(builder.next_seq(), start.value());
  const test::BuiltFpdu& fpdu = builder.add_random(16, 2);
  ASSERT_EQ(fpdu.markers.size(), 1u);
  EXPECT_EQ(fpdu.markers[0].fpdu_ptr, 0x000C);
  EXPECT_EQ(fpdu.markers[0].index - fpdu.header, 12u);
  EXPECT_EQ(fpdu.wire_length, 28u);
}

// Every ULPDU length 0..2100 at every 4-aligned start phase: the grid's count of markers and
// wire length equal the octet-by-octet builder's.
TEST(MarkerGrid, WireLengthMatchesOctetByOctetBuilderForEveryLengthAndAlignedPhase) {
  // Near the wrap, so that FPDUs at every phase cross sequence number 0.
  for (const std::uint32_t origin : {0xFFFFFE00u}) {
    const MarkerGrid grid{TcpSeq(origin)};
    for (std::uint32_t phase = 0; phase < kMarkerInterval; phase += 4) {
      for (std::uint32_t length = 0; length <= 2100; ++length) {
        FpduStreamBuilder builder(
            {.start_seq = origin + phase, .markers = true, .crc = false, .grid_origin = origin});
        const test::BuiltFpdu& fpdu = builder.add(test::Bytes(length, 0));
        const TcpSeq start(origin + phase);
        ASSERT_EQ(grid.markers_in_fpdu(start, length), fpdu.markers.size())
            << "origin " << origin << " phase " << phase << " length " << length;
        ASSERT_EQ(grid.fpdu_wire_length(start, length), fpdu.wire_length)
            << "origin " << origin << " phase " << phase << " length " << length;
      }
    }
  }
}

// Misaligned phases (a broken sender) still count the markers the octets meet.
TEST(MarkerGrid, WireLengthMatchesBuilderAtEveryPhaseForSomeLengths) {
  const MarkerGrid grid{TcpSeq(0)};
  for (std::uint32_t phase = 0; phase < kMarkerInterval; ++phase) {
    for (std::uint32_t length :
         {0u, 1u, 2u, 3u, 500u, 501u, 502u, 503u, 504u, 1020u, 1442u, 2100u}) {
      FpduStreamBuilder builder(
          {.start_seq = phase, .markers = true, .crc = false, .grid_origin = 0});
      const test::BuiltFpdu& fpdu = builder.add(test::Bytes(length, 0));
      ASSERT_EQ(grid.fpdu_wire_length(TcpSeq(phase), length), fpdu.wire_length)
          << "phase " << phase << " length " << length;
    }
  }
}

TEST(MarkerGrid, MarkerRightAfterTheCrcBelongsToTheNextFpdu) {
  // An FPDU of 508 content octets after a leading marker ends exactly at the next marker.
  const MarkerGrid grid{TcpSeq(0)};
  const std::uint32_t length = 508 - 2 - 4;  // no pad
  EXPECT_EQ(grid.markers_in_fpdu(TcpSeq(0), length), 1u);
  EXPECT_EQ(grid.fpdu_wire_length(TcpSeq(0), length), 512u);
  EXPECT_EQ(grid.markers_in_fpdu(TcpSeq(512), 0), 1u);  // the next one leads with it
  // One octet more of ULPDU (and pad) and the second marker falls inside, before the CRC.
  EXPECT_EQ(grid.markers_in_fpdu(TcpSeq(0), length + 1), 2u);
}

TEST(MarkerGrid, MarkersWithinCountsAMarkerAtTheStartButNotOneRightAfterTheLastOctet) {
  const MarkerGrid grid{TcpSeq(0)};
  EXPECT_EQ(grid.markers_within(TcpSeq(0), 0), 0u);
  EXPECT_EQ(grid.markers_within(TcpSeq(0), 1), 1u);    // the marker at 0 comes first
  EXPECT_EQ(grid.markers_within(TcpSeq(4), 508), 0u);  // ends right before the marker at 512
  EXPECT_EQ(grid.markers_within(TcpSeq(4), 509), 1u);
  EXPECT_EQ(grid.markers_within(TcpSeq(510), 2), 0u);  // 510, 511
  EXPECT_EQ(grid.markers_within(TcpSeq(511), 2), 1u);  // 511, (marker), 516
  EXPECT_EQ(grid.markers_within(TcpSeq(4), 508 * 3 + 1), 3u);
  EXPECT_EQ(MarkerGrid().markers_within(TcpSeq(0), 5000), 0u);
  // The count an FPDU holds is the count within its content.
  for (std::uint32_t phase = 0; phase < kMarkerInterval; ++phase) {
    for (std::uint32_t length : {0u, 42u, 1442u}) {
      ASSERT_EQ(grid.markers_in_fpdu(TcpSeq(phase), length),
                grid.markers_within(TcpSeq(phase), fpdu_length_without_markers(length)));
    }
  }
}

TEST(MarkerGrid, AnyMarkerGivesTheGridOfItsDirection) {
  const MarkerGrid grid{TcpSeq(0xFFFFFF00u)};
  const MarkerGrid through = MarkerGrid::through(TcpSeq(0x00000300u));  // a marker after the wrap
  EXPECT_TRUE(through.enabled());
  for (std::uint32_t seq = 0xFFFFF000u; seq != 0x00001000u; ++seq) {
    ASSERT_EQ(through.distance_to_marker(TcpSeq(seq)), grid.distance_to_marker(TcpSeq(seq))) << seq;
  }
}

TEST(MarkerGrid, MulpduFollowsRfc5044Section45) {
  // With markers: EMSS - (6 + 4 * Ceiling(EMSS / 512) + EMSS mod 4).
  EXPECT_EQ(mulpdu(1460, true), 1460u - (6 + 4 * 3 + 0));
  EXPECT_EQ(mulpdu(1448, true), 1448u - (6 + 4 * 3 + 0));
  EXPECT_EQ(mulpdu(1461, true), 1461u - (6 + 4 * 3 + 1));
  EXPECT_EQ(mulpdu(1536, true), 1536u - (6 + 4 * 3 + 0));  // exactly 3 intervals
  EXPECT_EQ(mulpdu(1537, true), 1537u - (6 + 4 * 4 + 1));
  EXPECT_EQ(mulpdu(8960, true), 8960u - (6 + 4 * 18 + 0));
  EXPECT_EQ(mulpdu(65495, true), 65495u - (6 + 4 * 128 + 3));
  // Without markers: EMSS - (6 + EMSS mod 4).
  EXPECT_EQ(mulpdu(1460, false), 1454u);
  EXPECT_EQ(mulpdu(1448, false), 1442u);
  EXPECT_EQ(mulpdu(1459, false), 1459u - 9);
  EXPECT_EQ(mulpdu(65495, false), 65495u - 9);
  // RFC 5044 4.5: never below 128.
  EXPECT_EQ(mulpdu(100, false), 128u);
  EXPECT_EQ(mulpdu(134, false), 128u);  // 134 - 8 = 126
  EXPECT_EQ(mulpdu(136, false), 130u);
  EXPECT_EQ(mulpdu(136, true), 128u);  // 136 - 10 = 126
  EXPECT_EQ(mulpdu(140, true), 130u);
  EXPECT_EQ(mulpdu(0, true), 128u);
  // Huge EMSS values do not overflow the Ceiling.
  EXPECT_EQ(mulpdu(0xFFFFFFFFu, false), 0xFFFFFFFFu - 9);
  EXPECT_EQ(mulpdu(0xFFFFFE01u, true), 0xFFFFFE01u - (6 + 4 * 0x800000u + 1));
}

TEST(MarkerGrid, MulpduFpduFitsTheEmss) {
  // A ULPDU of MULPDU octets, wherever it starts on the grid, fits in EMSS octets.
  for (std::uint32_t emss = 200; emss <= 9000; emss += 7) {
    const std::uint32_t with = mulpdu(emss, true);
    const std::uint32_t without = mulpdu(emss, false);
    EXPECT_LE(fpdu_length_without_markers(without), emss) << emss;
    for (std::uint32_t phase = 0; phase < kMarkerInterval; phase += 4) {
      ASSERT_LE(MarkerGrid(TcpSeq(0)).fpdu_wire_length(TcpSeq(phase), with), emss)
          << emss << " " << phase;
    }
  }
}

}  // namespace
}  // namespace mpa
