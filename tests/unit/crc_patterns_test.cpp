// Tests for CRCs made a recognisable wrong way (crc_patterns.h; RFC 5044 4.4, 8): the pure
// decider, and the FPDU reader naming fpdu.crc-miscomputed instead of fpdu.crc-mismatch for the
// first wrong CRC of a direction (an error with code 2 all the same; nothing judged after it).
#include "fpdu/crc_patterns.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fpdu/fpdu_reader.h"
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

// The octets of `f` the CRC covers (RFC 5044 4.4: from its first octet to the CRC field),
// without its markers (`leading_only`: without the one before ULPDU_Length only).
Bytes covered_without_markers(const Bytes& stream, const test::BuiltFpdu& f, bool leading_only) {
  Bytes out;
  for (std::size_t i = f.start; i < f.end() - 4; ++i) {
    bool in_marker = false;
    for (const test::BuiltMarker& m : f.markers) {
      if (leading_only && m.index != f.start) continue;
      in_marker = in_marker || (i >= m.index && i < m.index + 4);
    }
    if (!in_marker) out.push_back(stream[i]);
  }
  return out;
}

// Markers on, CRC on: FPDU 0 (ULPDU 600) opens full operation with the zero marker and holds
// another at 512; FPDU 1 (ULPDU 40, pad 2) holds none; FPDU 2 (ULPDU 1500, pad 2, non-zero)
// holds several. FPDU `which` gets the CRC `crc_of` computes from the stream and the FPDU.
template <typename CrcOf>
std::vector<RecordingSink> read_marked_with_crc(std::size_t which, CrcOf crc_of,
                                                FpduStreamBuilder& builder) {
  builder.add_random(600, 1);
  builder.add_random(40, 2);
  builder.add_random(1500, 3, {.pad_value = 0x5A});
  builder.add_random(100, 4);
  Bytes bytes = builder.bytes();
  const test::BuiltFpdu& f = builder.fpdus()[which];
  const std::uint32_t value = crc_of(bytes, f);
  for (std::size_t k = 0; k < 4; ++k)
    bytes[f.end() - 4 + k] = static_cast<std::uint8_t>(value >> (8 * k));
  // Whole, and cut in every way that splits a marker, a pad or the CRC run between pushes.
  std::vector<RecordingSink> sinks;
  for (const std::vector<std::size_t>& cuts :
       {std::vector<std::size_t>{}, test::every(1, bytes.size()), test::every(3, bytes.size()),
        test::every(510, bytes.size()), test::random_cuts(bytes.size(), 40, 7)}) {
    sinks.push_back(read_in_pieces(reader_config(100, true, true), bytes, cuts));
  }
  // One FPDU to a segment, each with its CRC given (SegmentFacts::payload_crc): the
  // markers' states are worked out where the CRC does not match.
  sinks.push_back(read_in_pieces(reader_config(100, true, true), bytes, test::fpdu_ends(builder),
                                 test::crc_but_last_four));
  return sinks;
}

void expect_miscomputed(const std::vector<RecordingSink>& sinks, const test::BuiltFpdu& f,
                        const std::string& words) {
  for (const RecordingSink& sink : sinks) {
    // (FPDU 2's non-zero pad is named too, when it is judged.)
    Names names = sink.finding_names();
    const std::size_t at = names.front() == "fpdu.pad-nonzero" ? 1 : 0;
    names.erase(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(at));
    ASSERT_EQ(names, (Names{"fpdu.crc-miscomputed", "fpdu.not-judged-after-error"}));
    EXPECT_EQ(sink.findings[at].seq, f.header_seq);
    EXPECT_NE(sink.findings[at].message.find(words), std::string::npos)
        << sink.findings[at].message;
  }
}

TEST(FpduReaderCrcPatterns, CrcsThatLeaveTheMarkersOutAreNamedAsSuch) {
  for (const std::size_t which : {0u, 2u}) {
    FpduStreamBuilder builder({.start_seq = 100, .markers = true, .crc = true});
    const auto sinks = read_marked_with_crc(
        which,
        [](const Bytes& bytes, const test::BuiltFpdu& f) {
          return crc32c(covered_without_markers(bytes, f, false));
        },
        builder);
    ASSERT_GE(builder.fpdus()[which].markers.size(), 2u);
    expect_miscomputed(sinks, builder.fpdus()[which], "without the markers");
  }
}

TEST(FpduReaderCrcPatterns, ACrcThatLeavesOutTheMarkerBeforeUlpduLengthIsNamedAsSuch) {
  {
    // FPDU 0: the leading marker left out, the one inside it counted.
    FpduStreamBuilder builder({.start_seq = 100, .markers = true, .crc = true});
    const auto sinks = read_marked_with_crc(
        0,
        [](const Bytes& bytes, const test::BuiltFpdu& f) {
          return crc32c(covered_without_markers(bytes, f, true));
        },
        builder);
    ASSERT_TRUE(builder.fpdus()[0].leading_marker);
    expect_miscomputed(sinks, builder.fpdus()[0], "without the marker before ULPDU_Length");
  }
  {
    // The leading marker the only one: both ways of leaving markers out give this CRC.
    FpduStreamBuilder builder({.start_seq = 100, .markers = true, .crc = true});
    builder.add_random(40, 9);
    Bytes bytes = builder.bytes();
    const test::BuiltFpdu& f = builder.fpdus()[0];
    ASSERT_EQ(f.markers.size(), 1u);
    const std::uint32_t value = crc32c(covered_without_markers(bytes, f, false));
    for (std::size_t k = 0; k < 4; ++k)
      bytes[f.end() - 4 + k] = static_cast<std::uint8_t>(value >> (8 * k));
    const RecordingSink sink = read_in_pieces(reader_config(100, true, true), bytes, {2, 5, 9});
    ASSERT_EQ(sink.finding_names(), (Names{"fpdu.crc-miscomputed"}));
    EXPECT_NE(sink.findings[0].message.find("without the marker before ULPDU_Length"),
              std::string::npos);
  }
}

TEST(FpduReaderCrcPatterns, CrcsOverTheUlpduAloneOrWithItsPadAreNamedAsSuch) {
  for (const std::size_t which : {0u, 1u, 2u}) {
    {
      FpduStreamBuilder builder({.start_seq = 100, .markers = true, .crc = true});
      const auto sinks = read_marked_with_crc(
          which, [](const Bytes&, const test::BuiltFpdu& f) { return crc32c(f.ulpdu); }, builder);
      expect_miscomputed(sinks, builder.fpdus()[which], "over the ULPDU alone");
    }
    {
      FpduStreamBuilder builder({.start_seq = 100, .markers = true, .crc = true});
      const auto sinks = read_marked_with_crc(
          which,
          [](const Bytes&, const test::BuiltFpdu& f) {
            Bytes data = f.ulpdu;
            data.resize(data.size() + f.pad_length, f.ulpdu.size() == 1500 ? 0x5A : 0);
            return crc32c(data);
          },
          builder);
      expect_miscomputed(sinks, builder.fpdus()[which], "over the ULPDU and its pad");
    }
  }
  // Without markers too.
  FpduStreamBuilder builder({.start_seq = 100, .markers = false, .crc = true});
  for (std::uint32_t i = 0; i < 3; ++i) builder.add_random(601 + i, i);
  Bytes bytes = builder.bytes();
  const test::BuiltFpdu& f = builder.fpdus()[1];
  const std::uint32_t value = crc32c(f.ulpdu);
  for (std::size_t k = 0; k < 4; ++k)
    bytes[f.end() - 4 + k] = static_cast<std::uint8_t>(value >> (8 * k));
  const RecordingSink plain = read_in_pieces(reader_config(100, false, true), bytes, {7, 700});
  ASSERT_EQ(plain.finding_names(), (Names{"fpdu.crc-miscomputed", "fpdu.not-judged-after-error"}));
  EXPECT_NE(plain.findings[0].message.find("over the ULPDU alone"), std::string::npos);
}

// CRCs off: the CRC32c is computed for the first FPDU, and on while each CRC field held it, so
// the first FPDU whose field does not is known (receiver.legal-fpdu-refused).
TEST(FpduReaderCrcOff, TheCrc32cIsKnownUpToTheFirstFieldThatDoesNotHoldIt) {
  FpduStreamBuilder builder({.start_seq = 100, .markers = true, .crc = true});
  for (std::uint32_t i = 0; i < 5; ++i) builder.add_random(300 + 200 * i, i);
  Bytes bytes = builder.bytes();
  // Right CRC32cs in the first two, zero in the third, right again after.
  const test::BuiltFpdu& third = builder.fpdus()[2];
  for (std::size_t k = 0; k < 4; ++k) bytes[third.end() - 4 + k] = 0;
  for (const std::vector<std::size_t>& cuts :
       {std::vector<std::size_t>{}, test::every(7, bytes.size())}) {
    const RecordingSink sink = read_in_pieces(reader_config(100, true, false), bytes, cuts);
    ASSERT_EQ(sink.fpdus.size(), 5u);
    for (std::size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(sink.fpdus[i].crc_status, CrcStatus::NotChecked);
      EXPECT_EQ(sink.crc_unchecked[i], builder.fpdus()[i].crc_correct) << i;
    }
    EXPECT_EQ(sink.crc_unchecked[2], third.crc_correct);
    EXPECT_EQ(sink.fpdus[2].crc_received, 0u);
    EXPECT_EQ(sink.crc_unchecked[3], std::nullopt);
    EXPECT_EQ(sink.crc_unchecked[4], std::nullopt);
    EXPECT_TRUE(sink.findings.empty());  // (nothing is judged by it)
  }
  // With CRCs on, never.
  const RecordingSink on = read_in_pieces(reader_config(100, true, true), builder.bytes(), {});
  for (const auto& c : on.crc_unchecked) EXPECT_EQ(c, std::nullopt);
}

TEST(FpduReaderCrcPatterns, AnyOtherWrongCrcOfAMarkedStreamIsAMismatch) {
  FpduStreamBuilder builder({.start_seq = 100, .markers = true, .crc = true});
  const auto sinks = read_marked_with_crc(
      2,
      [](const Bytes& bytes, const test::BuiltFpdu& f) {
        return crc32c(covered_without_markers(bytes, f, false)) ^ 0x100u;
      },
      builder);
  for (const RecordingSink& sink : sinks) {
    EXPECT_EQ(sink.finding_names(),
              (Names{"fpdu.pad-nonzero", "fpdu.crc-mismatch", "fpdu.not-judged-after-error"}));
  }
  // A right CRC of a marked stream read in any pieces is right.
  FpduStreamBuilder right({.start_seq = 100, .markers = true, .crc = true});
  const auto clean = read_marked_with_crc(
      2, [](const Bytes&, const test::BuiltFpdu& f) { return f.crc_correct; }, right);
  for (const RecordingSink& sink : clean)
    EXPECT_EQ(sink.finding_names(), Names{"fpdu.pad-nonzero"});
}

}  // namespace
}  // namespace mpa
