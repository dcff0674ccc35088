// Tests for the FPDU layout on the wire (fpdu_layout.h; RFC 5044 4.1-4.4): markers, the
// CRC field, and where an FPDU's parts sit around the markers. RFC 5044 Figures 5 and 6
// (markers from sequence number 0) are built octet by octet from the RFC's hex dumps.
#include "mpa/fpdu_layout.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

#include "mpa/crc32c.h"
#include "mpa/marker_grid.h"
#include "mpa/terminate.h"

namespace mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::vector<SeqRange> ulpdu_runs(const MarkerGrid& grid, TcpSeq header_seq,
                                 std::uint32_t ulpdu_length) {
  std::vector<SeqRange> runs;
  const bool complete = for_each_ulpdu_run(grid, header_seq, ulpdu_length, [&](SeqRange run) {
    runs.push_back(run);
    return true;
  });
  EXPECT_TRUE(complete);
  return runs;
}

// RFC 5044 Figure 5: the first FPDU of full operation, Markers on (first one at 0000).
Bytes rfc_figure_5() {
  Bytes b = {0x00, 0x00, 0x00, 0x00,   // 0000 Marker: Reserved, FPDUPTR 0
             0x00, 0x2a,               // 0004 ULPDU Length 42
             0x41, 0x43,               // 0006 DDP Control Field, Send with Last flag set
             0x00, 0x00, 0x00, 0x00,   // 0008 Reserved (STag position)
             0x00, 0x00, 0x00, 0x00,   // 000c DDP Queue = 0
             0x00, 0x00, 0x00, 0x01,   // 0010 DDP MSN = 1
             0x00, 0x00, 0x00, 0x00};  // 0014 DDP MO = 0
  b.resize(0x30, 0x00);                // 0018 24 octets of Send data
  for (std::uint8_t crc : {0x52, 0x23, 0x99, 0x83}) b.push_back(crc);  // 0030 CRC32c
  return b;
}

// RFC 5044 Figure 6: the second FPDU of that stream, at 01ec, with a Marker at 0200 (the
// bytes from 01ec on).
Bytes rfc_figure_6() {
  Bytes b = {0x00, 0x2a,               // 01ec Length 42
             0x41, 0x43,               // 01ee DDP Control Field
             0x00, 0x00, 0x00, 0x00,   // 01f0 Reserved (STag position)
             0x00, 0x00, 0x00, 0x00,   // 01f4 DDP Queue = 0
             0x00, 0x00, 0x00, 0x02,   // 01f8 DDP MSN = 2
             0x00, 0x00, 0x00, 0x00,   // 01fc DDP MO = 0
             0x00, 0x00, 0x00, 0x14};  // 0200 Marker: Reserved, FPDUPTR 0x14
  b.resize(0x21c - 0x1ec, 0x00);       // 0204 24 octets of Send data
  for (std::uint8_t crc : {0x84, 0x92, 0x58, 0x98}) b.push_back(crc);  // 021c CRC32c
  return b;
}

TEST(FpduLayout, CrcOfRfcFigure5IsReadLeastSignificantOctetFirst) {
  const Bytes fpdu = rfc_figure_5();
  ASSERT_EQ(fpdu.size(), 0x34u);
  EXPECT_EQ(crc_from_wire(&fpdu[0x30]), 0x83992352u);
  // The value read is the CRC32c of every octet before the field, leading marker included.
  EXPECT_EQ(crc_from_wire(&fpdu[0x30]), crc32c(std::span(fpdu).first(0x30)));
}

TEST(FpduLayout, RfcFigure5FpduBeginsWithItsLeadingMarker) {
  const MarkerGrid grid(TcpSeq(0));
  const TcpSeq start(0);
  const Bytes fpdu = rfc_figure_5();
  const Marker marker = marker_from_wire(&fpdu[0]);
  EXPECT_EQ(marker.reserved, 0u);
  EXPECT_EQ(marker.fpdu_ptr, 0u);
  EXPECT_TRUE(marker_fits(marker, kFpduPtrBeforeHeader));
  EXPECT_EQ(fpdu_ptr_target(start, marker.fpdu_ptr), start);  // FPDUPTR 0: the header follows

  EXPECT_TRUE(grid.is_marker_at(start));  // the header follows the leading marker
  EXPECT_EQ(ulpdu_length_field(TcpSeq(4)), (SeqRange{TcpSeq(4), 2}));
  EXPECT_EQ(grid.fpdu_wire_length(start, 42), fpdu.size());
  EXPECT_EQ(crc_field(start, grid.fpdu_wire_length(start, 42)), (SeqRange{TcpSeq(0x30), 4}));
  EXPECT_EQ(ulpdu_runs(grid, TcpSeq(4), 42), (std::vector<SeqRange>{{TcpSeq(6), 42}}));
}

TEST(FpduLayout, RfcFigure6UlpduIsSplitByTheMarkerAt0x200) {
  const MarkerGrid grid(TcpSeq(0));
  const TcpSeq start(0x1ec);
  const Bytes fpdu = rfc_figure_6();
  ASSERT_EQ(fpdu.size(), 0x220u - 0x1ecu);

  EXPECT_FALSE(grid.is_marker_at(start));  // no marker before this header
  EXPECT_EQ(grid.fpdu_wire_length(start, 42), fpdu.size());
  // The marker: FPDUPTR 0x14, the octets from the ULPDU_Length field to the marker.
  const TcpSeq marker_seq(0x200);
  const Marker marker = marker_from_wire(&fpdu[marker_seq.distance_from(start)]);
  EXPECT_EQ(marker.fpdu_ptr, 0x14u);
  EXPECT_EQ(expected_fpdu_ptr(marker_seq, start), 0x14u);
  EXPECT_TRUE(marker_fits(marker, 0x14));
  EXPECT_EQ(fpdu_ptr_target(marker_seq, marker.fpdu_ptr), start);
  EXPECT_EQ(marker_field(marker_seq), (SeqRange{marker_seq, 4}));
  // The ULPDU: 18 octets before the marker, 24 after it.
  EXPECT_EQ(ulpdu_runs(grid, start, 42),
            (std::vector<SeqRange>{{TcpSeq(0x1ee), 18}, {TcpSeq(0x204), 24}}));
  // The CRC field closes the FPDU; bytes 84 92 58 98 cover the marker too.
  const SeqRange crc = crc_field(start, grid.fpdu_wire_length(start, 42));
  EXPECT_EQ(crc, (SeqRange{TcpSeq(0x21c), 4}));
  const std::uint32_t at = crc.seq.distance_from(start);
  EXPECT_EQ(crc_from_wire(&fpdu[at]), 0x98589284u);
  EXPECT_EQ(crc_from_wire(&fpdu[at]), crc32c(std::span(fpdu).first(at)));
}

TEST(FpduLayout, AMissingCrcFieldBelongsRightAfterTheFpduAsSent) {
  // ULPDU_Length 42, pad 0, no CRC field: 44 octets on the wire; the CRC field would have
  // been the next four, where the next FPDU begins instead.
  EXPECT_EQ(missing_crc_field(TcpSeq(0x100), 44), (SeqRange{TcpSeq(0x12c), 4}));
  // Across the wrap of sequence space.
  EXPECT_EQ(missing_crc_field(TcpSeq(0xfffffff0), 0x10), (SeqRange{TcpSeq(0), 4}));
  // A conformant FPDU's CRC field is its own last four octets, right before that place.
  EXPECT_EQ(crc_field(TcpSeq(0x100), 48).end(), missing_crc_field(TcpSeq(0x100), 48).seq);
}

TEST(FpduLayout, OctetsOfAUlpduAreFoundAroundTheMarkers) {
  // RFC 5044 Figure 6: the ULPDU_Length field at 01ec, the ULPDU from 01ee, a marker at 0200.
  const MarkerGrid grid(TcpSeq(0));
  auto runs = [&](std::uint32_t from, std::uint32_t count) {
    std::vector<SeqRange> out;
    EXPECT_TRUE(for_each_ulpdu_octets_run(grid, TcpSeq(0x1ec), from, count, [&](SeqRange r) {
      out.push_back(r);
      return true;
    }));
    return out;
  };
  EXPECT_EQ(runs(0, 4), (std::vector<SeqRange>{{TcpSeq(0x1ee), 4}}));
  EXPECT_EQ(runs(16, 4), (std::vector<SeqRange>{{TcpSeq(0x1fe), 2}, {TcpSeq(0x204), 2}}));
  // A Terminate's control field there: right after the untagged DDP header, past the marker.
  EXPECT_EQ(runs(kTerminateControlOffset, kTerminateControlSize),
            (std::vector<SeqRange>{{TcpSeq(0x204), 4}}));
  // Without markers, the octets follow the ULPDU_Length field.
  std::vector<SeqRange> plain;
  for_each_ulpdu_octets_run(MarkerGrid(), TcpSeq(100), kTerminateControlOffset,
                            kTerminateControlSize, [&](SeqRange r) {
                              plain.push_back(r);
                              return true;
                            });
  EXPECT_EQ(plain, (std::vector<SeqRange>{{TcpSeq(120), 4}}));
}

TEST(FpduLayout, TheTerminateControlFieldIsReadWhereTheLayoutPutsIt) {
  // An untagged DDP header, then Terminate Control: layer 2 (LLP), error type 0, MPA error 2.
  std::vector<std::uint8_t> ulpdu(kTerminateControlOffset + 32, 0);
  ulpdu[0] = 0x43;  // DDP: untagged, last, version 1
  ulpdu[1] = 0x47;  // RDMAP version 1, opcode 7: Terminate
  ulpdu[kTerminateControlOffset] = 0x20;
  ulpdu[kTerminateControlOffset + 1] = 0x02;
  const auto t = decode_terminate(ulpdu, false);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->layer, 2);
  EXPECT_EQ(t->error_code, 2);
}

TEST(FpduLayout, AnFpduptrInHostOrderIsRecognised) {
  EXPECT_TRUE(fpdu_ptr_byte_swapped({0, 0x0002}, 512));
  EXPECT_TRUE(fpdu_ptr_byte_swapped({0, 0x8001}, 384));
  EXPECT_FALSE(fpdu_ptr_byte_swapped({0, 0x0180}, 384));     // right as it is
  EXPECT_FALSE(fpdu_ptr_byte_swapped({0, 0x0188}, 384));     // wrong either way
  EXPECT_FALSE(fpdu_ptr_byte_swapped({0, 0x0404}, 0x0404));  // the same both ways
}

TEST(FpduLayout, MarkerFieldsAreJudgedAsRfc5044Section4_2Says) {
  const std::uint8_t conformant[] = {0x00, 0x00, 0x01, 0x2c};
  const std::uint8_t reserved_set[] = {0x80, 0x01, 0x01, 0x2c};
  const std::uint8_t low_bits_set[] = {0x00, 0x00, 0x01, 0x2e};

  const Marker good = marker_from_wire(conformant);
  EXPECT_EQ(good.reserved, 0u);
  EXPECT_EQ(good.fpdu_ptr, 300u);
  EXPECT_TRUE(marker_reserved_is_zero(good));
  EXPECT_TRUE(fpdu_ptr_low_bits_are_zero(good));
  EXPECT_TRUE(marker_points_at(good, 300));
  EXPECT_FALSE(marker_points_at(good, 304));
  EXPECT_TRUE(marker_fits(good, 300));

  const Marker reserved = marker_from_wire(reserved_set);
  EXPECT_EQ(reserved.reserved, 0x8001u);
  EXPECT_FALSE(marker_reserved_is_zero(reserved));
  EXPECT_TRUE(marker_points_at(reserved, 300));  // ignored on receipt...
  EXPECT_FALSE(marker_fits(reserved, 300));      // ... but no evidence of framing

  // The low two bits MUST be zero and are treated as zero for calculations.
  const Marker low_bits = marker_from_wire(low_bits_set);
  EXPECT_FALSE(fpdu_ptr_low_bits_are_zero(low_bits));
  EXPECT_EQ(fpdu_ptr_for_calculation(low_bits), 300u);
  EXPECT_TRUE(marker_points_at(low_bits, 300));
  EXPECT_TRUE(marker_fits(low_bits, 300));
  // Exact (the FPDU reader's fast path, nothing to say): every rule kept, FPDUPTR as expected.
  EXPECT_TRUE(marker_exact(good, 300));
  EXPECT_FALSE(marker_exact(good, 304));
  EXPECT_FALSE(marker_exact(reserved, 300));
  EXPECT_FALSE(marker_exact(low_bits, 300));
  EXPECT_FALSE(marker_exact(low_bits, 302));
  // What the plugin shows: the target of FPDUPTR as received.
  EXPECT_EQ(fpdu_ptr_target(TcpSeq(1000), low_bits.fpdu_ptr), TcpSeq(1000 - 302));
}

TEST(FpduLayout, FpduPtrIsCountedModulo2To32AcrossTheWrapAndKept16Bits) {
  EXPECT_EQ(expected_fpdu_ptr(TcpSeq(0x00000010u), TcpSeq(0xFFFFFFF0u)), 0x20u);
  EXPECT_EQ(fpdu_ptr_target(TcpSeq(0x00000010u), 0x20), TcpSeq(0xFFFFFFF0u));
  // A header more than 65535 octets back: the 16-bit field holds the distance modulo 2^16.
  EXPECT_EQ(expected_fpdu_ptr(TcpSeq(0x10010u), TcpSeq(0x8u)), 0x0008u);
}

TEST(FpduLayout, UlpduIsOneRunWithoutMarkers) {
  EXPECT_EQ(ulpdu_runs(MarkerGrid(), TcpSeq(0xFFFFFFFEu), 1000),
            (std::vector<SeqRange>{{TcpSeq(0), 1000}}));
  EXPECT_TRUE(ulpdu_runs(MarkerGrid(), TcpSeq(7), 0).empty());
}

// The runs, checked against a walk of the stream octet by octet: every ULPDU octet in
// order, none at a marker position, the first two content octets (ULPDU_Length) skipped.
TEST(FpduLayout, UlpduRunsSkipEveryMarkerForEveryStartPhase) {
  const MarkerGrid grid(TcpSeq(0xFFFFFF00u));  // the FPDUs cross the wrap
  for (std::uint32_t phase = 0; phase < kMarkerInterval; ++phase) {
    for (const std::uint32_t length : {1u, 2u, 3u, 504u, 505u, 1020u, 1442u, 4000u}) {
      const TcpSeq start(0xFFFFFF00u + phase);
      const TcpSeq header = grid.is_marker_at(start) ? start + kMarkerSize : start;
      std::vector<TcpSeq> expected;
      TcpSeq pos = header;
      std::uint32_t content = 0;
      while (expected.size() < length) {
        if (grid.is_marker_at(pos)) {
          pos += kMarkerSize;
          continue;
        }
        if (content++ >= kUlpduLengthSize) expected.push_back(pos);
        pos += 1;
      }
      std::vector<TcpSeq> got;
      TcpSeq previous_end = header;
      for (const SeqRange& run : ulpdu_runs(grid, header, length)) {
        ASSERT_GT(run.length, 0u);
        ASSERT_FALSE(run.seq.is_before(previous_end));
        for (std::uint32_t i = 0; i < run.length; ++i) got.push_back(run.seq + i);
        previous_end = run.end();
      }
      ASSERT_EQ(got, expected) << "phase " << phase << " length " << length;
      // ULPDU + pad + CRC and the markers among them fill the FPDU's wire length.
      ASSERT_EQ(previous_end.distance_from(start) + pad_length(length) + kCrcSize +
                    kMarkerSize * grid.markers_within(previous_end, pad_length(length) + kCrcSize),
                grid.fpdu_wire_length(start, length))
          << "phase " << phase << " length " << length;
    }
  }
}

TEST(FpduLayout, AMisplacedMarkerInsideUlpduLengthIsSkipped) {
  // A broken sender's header straddles the marker at 512: octets 511 and 516.
  const MarkerGrid grid(TcpSeq(0));
  EXPECT_EQ(ulpdu_runs(grid, TcpSeq(511), 10), (std::vector<SeqRange>{{TcpSeq(517), 10}}));
  EXPECT_EQ(ulpdu_runs(grid, TcpSeq(510), 10), (std::vector<SeqRange>{{TcpSeq(516), 10}}));
}

TEST(FpduLayout, ThePadFollowsTheUlpduAcrossAMarker) {
  // ULPDU_Length at 500 (ULPDU 502-512 as content), 11 octets of ULPDU: 502-511 and, after
  // the marker at 512, 516; the pad's one octet is 517.
  const MarkerGrid grid(TcpSeq(0));
  std::vector<SeqRange> pad;
  const auto collect = [&pad](SeqRange r) {
    pad.push_back(r);
    return true;
  };
  EXPECT_TRUE(for_each_pad_run(grid, TcpSeq(500), 11, 1, collect));
  EXPECT_EQ(pad, (std::vector<SeqRange>{{TcpSeq(517), 1}}));
  // A pad the marker splits: ULPDU 502-509, pad 510-511 and 516.
  pad.clear();
  for_each_pad_run(grid, TcpSeq(500), 8, 3, collect);
  EXPECT_EQ(pad, (std::vector<SeqRange>{{TcpSeq(510), 2}, {TcpSeq(516), 1}}));
  pad.clear();
  for_each_pad_run(MarkerGrid(), TcpSeq(0), 8, 0, collect);
  EXPECT_TRUE(pad.empty());
}

TEST(FpduLayout, AMarkerPointsWhereAReceiverCalculates) {
  // RFC 5044 4.2: FPDUPTR's two low bits are taken as zero.
  EXPECT_EQ(marker_target(TcpSeq(1024), Marker{0, 100}), TcpSeq(924));
  EXPECT_EQ(marker_target(TcpSeq(1024), Marker{0, 103}), TcpSeq(924));
  EXPECT_EQ(marker_target(TcpSeq(4), Marker{0, 8}), TcpSeq(0xFFFFFFFCu));
  EXPECT_EQ(marker_target(TcpSeq(512), Marker{0, 0}), TcpSeq(512));  // the header follows it
}

TEST(FpduLayout, UlpduRunsStopWhenTheCallerSaysSo) {
  const MarkerGrid grid(TcpSeq(0));
  int calls = 0;
  const bool complete =
      for_each_ulpdu_run(grid, TcpSeq(100), 2000, [&](SeqRange) { return ++calls < 2; });
  EXPECT_FALSE(complete);
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace mpa
