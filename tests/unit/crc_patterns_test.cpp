// Tests for CRCs made a recognisable wrong way (crc_patterns.h; RFC 5044 4.4, 8): the pure
// decider, and the FPDU reader naming fpdu.crc-miscomputed instead of fpdu.crc-mismatch for the
// first wrong CRC of a direction (an error with code 2 all the same; nothing judged after it).
#include "mpa/crc_patterns.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mpa/fpdu_reader.h"
#include "test_streams.h"

namespace mpa {
namespace {

using test::Bytes;
using test::FpduStreamBuilder;
using test::read_in_pieces;
using test::reader_config;
using test::RecordingSink;

using Names = std::vector<std::string>;

constexpr std::uint32_t kRight = 0x83992352u;  // RFC 5044 Figure 5's CRC

TEST(CrcPatterns, RecognisesEachWrongWayOfMakingTheCrc) {
  EXPECT_EQ(recognise_crc_pattern(0x52239983u, kRight), CrcPattern::ByteSwapped);
  EXPECT_EQ(recognise_crc_pattern(~kRight, kRight), CrcPattern::NotInverted);
  EXPECT_EQ(recognise_crc_pattern(0xADDC667Cu, kRight), CrcPattern::ByteSwappedNotInverted);
  EXPECT_EQ(recognise_crc_pattern(0, kRight), CrcPattern::Zero);
}

TEST(CrcPatterns, ARightCrcOrAnyOtherWrongOneIsNoPattern) {
  EXPECT_EQ(recognise_crc_pattern(kRight, kRight), std::nullopt);
  EXPECT_EQ(recognise_crc_pattern(kRight ^ 0x00010000u, kRight), std::nullopt);  // one bit
  EXPECT_EQ(recognise_crc_pattern(0x52239984u, kRight), std::nullopt);  // swapped, one bit off
  EXPECT_EQ(recognise_crc_pattern(0, 0), std::nullopt);  // a CRC32c of zero, sent right
  for (CrcPattern p : {CrcPattern::Zero, CrcPattern::ByteSwapped, CrcPattern::NotInverted,
                       CrcPattern::ByteSwappedNotInverted}) {
    EXPECT_FALSE(describe(p).empty());
  }
}

// Four FPDUs (no markers, CRC on); from `first` on, every CRC field is rewritten by `rewrite`.
template <typename Rewrite>
RecordingSink read_with_crcs(std::size_t first, Rewrite rewrite, FpduStreamBuilder& builder) {
  for (std::uint32_t i = 0; i < 4; ++i) builder.add_random(600 + i, i);
  Bytes bytes = builder.bytes();
  for (std::size_t i = first; i < builder.fpdus().size(); ++i) {
    const auto& f = builder.fpdus()[i];
    const std::uint32_t value = rewrite(f.crc_correct);
    for (std::size_t k = 0; k < 4; ++k) {
      bytes[f.end() - 4 + k] = static_cast<std::uint8_t>(value >> (8 * k));  // LSB first
    }
  }
  return read_in_pieces(reader_config(100, false, true), bytes, {});
}

TEST(FpduReaderCrcPatterns, ByteSwappedCrcsAreNamedOnceAsMiscomputedWithCode2) {
  FpduStreamBuilder builder({.start_seq = 100, .markers = false, .crc = true});
  const RecordingSink sink = read_with_crcs(
      1,
      [](std::uint32_t v) {
        return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
      },
      builder);
  ASSERT_EQ(sink.fpdus.size(), 4u);
  EXPECT_EQ(sink.finding_names(), (Names{"fpdu.crc-miscomputed", "fpdu.not-judged-after-error"}));
  EXPECT_EQ(sink.findings[0].seq, builder.fpdus()[1].header_seq);
  EXPECT_EQ(info(sink.findings[0].id).error_code, MpaError::CrcError);
  EXPECT_EQ(info(sink.findings[0].id).severity, Severity::Error);
  EXPECT_NE(sink.findings[0].message.find("byte-swapped"), std::string::npos);
  EXPECT_FALSE(sink.fpdus[2].judged);
}

TEST(FpduReaderCrcPatterns, ZeroAndNotInvertedCrcsAreMiscomputedAndOtherWrongOnesMismatches) {
  {
    FpduStreamBuilder builder({.start_seq = 100, .markers = false, .crc = true});
    const RecordingSink sink = read_with_crcs(
        0, [](std::uint32_t) { return 0u; }, builder);
    EXPECT_EQ(sink.finding_names(), (Names{"fpdu.crc-miscomputed", "fpdu.not-judged-after-error"}));
    EXPECT_NE(sink.findings[0].message.find("zero"), std::string::npos);
  }
  {
    FpduStreamBuilder builder({.start_seq = 100, .markers = false, .crc = true});
    const RecordingSink sink = read_with_crcs(
        2, [](std::uint32_t v) { return ~v; }, builder);
    EXPECT_EQ(sink.finding_names(), (Names{"fpdu.crc-miscomputed", "fpdu.not-judged-after-error"}));
    EXPECT_EQ(sink.findings[0].seq, builder.fpdus()[2].header_seq);
  }
  {
    FpduStreamBuilder builder({.start_seq = 100, .markers = false, .crc = true});
    const RecordingSink sink = read_with_crcs(
        1, [](std::uint32_t v) { return v ^ 0x00400000u; }, builder);
    EXPECT_EQ(sink.finding_names(), (Names{"fpdu.crc-mismatch", "fpdu.not-judged-after-error"}));
  }
}

}  // namespace
}  // namespace mpa
