// Framing from the bytes alone (framing_inference.h): inference of markers, CRC, grid phase
// and the first FPDU, and the marker probe. Streams are built by test_streams.h, which
// inserts markers by walking the stream octet by octet.
#include "fpdu/framing_inference.h"

#include <gtest/gtest.h>

#include "decider_support.h"

namespace mpa {
namespace {

using namespace test;

Bytes stream(std::uint32_t seq, bool markers, bool crc, std::size_t fpdus, std::size_t size = 300,
             std::optional<std::uint32_t> origin = std::nullopt, FpduStreamBuilder* out = nullptr) {
  FpduStreamBuilder b({seq, markers, crc, origin});
  for (std::size_t i = 0; i < fpdus; ++i)
    b.add(ddp_send(static_cast<std::uint32_t>(i), size + 37 * i));
  if (out) *out = b;
  return b.bytes();
}

TEST(FramingInference, FindsCrcAndNoMarkers) {
  const Bytes s = stream(5000, false, true, 5);
  const auto h = infer_framing(s, TcpSeq(5000), {}, false);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->crc);
  EXPECT_FALSE(h->markers);
  EXPECT_EQ(h->start, 0u);
}

TEST(FramingInference, FindsMarkersAndTheGridPhaseWhenTheCaptureStartsMidStream) {
  // The grid began 200 octets before the first captured octet; capture from an FPDU start.
  FpduStreamBuilder b({0, true, true, std::nullopt});
  for (std::uint32_t i = 0; i < 12; ++i) b.add(ddp_send(i, 400));
  const std::size_t cut = b.fpdus()[2].start;
  const Bytes tail(b.bytes().begin() + static_cast<std::ptrdiff_t>(cut), b.bytes().end());
  const auto h = infer_framing(tail, TcpSeq(static_cast<std::uint32_t>(cut)), {}, false);
  ASSERT_TRUE(h);
  EXPECT_TRUE(h->markers);
  EXPECT_TRUE(h->crc);
  EXPECT_EQ((cut + h->phase) % 512, 0u) << "grid origin must be a multiple of 512 from seq 0";
}

TEST(FramingInference, SkipsOctetsBeforeTheFirstFpdu) {
  FpduStreamBuilder b({100, false, true, std::nullopt});
  // (Enough FPDUs that every candidate start inside the first one is decided: read from the
  // previous CRC field, a ULPDU_Length may reach 64 KiB ahead.)
  for (std::uint32_t i = 0; i < 350; ++i) b.add(ddp_send(i, 200));
  const std::size_t from = b.fpdus()[0].start + 10;  // mid-FPDU
  const Bytes tail(b.bytes().begin() + static_cast<std::ptrdiff_t>(from), b.bytes().end());
  const auto h = infer_framing(tail, TcpSeq(100 + static_cast<std::uint32_t>(from)), {}, false);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->start, b.fpdus()[1].start - from);
}

TEST(FramingInference, ZerosAndTextAreNotMpa) {
  const Bytes zeros(8192, 0);
  EXPECT_FALSE(infer_framing(zeros, TcpSeq(1), {}, true));
  std::string text;
  while (text.size() < 8192) text += "GET /rfc5044.txt HTTP/1.1\r\nHost: example\r\n\r\n";
  const Bytes http(text.begin(), text.end());
  EXPECT_FALSE(infer_framing(http, TcpSeq(1), {}, true));
}

TEST(FramingInference, DeclaredChoicesRestrictTheSearch) {
  const Bytes s = stream(77, false, true, 5);
  FramingChoices no_crc;
  no_crc.crc = false;
  const auto h = infer_framing(s, TcpSeq(77), no_crc, false);
  // Read without CRCs the stream still frames (the CRC field is just 4 octets), so the
  // answer must honour the choice.
  if (h) {
    EXPECT_FALSE(h->crc);
  }
  FramingChoices markers;
  markers.markers = true;
  EXPECT_FALSE(infer_framing(s, TcpSeq(77), markers, false)) << "markers declared, none present";
}

TEST(FramingInference, WithoutCrcAFramingBrokenByANonZeroPadIsNotEvidence) {
  // Random payloads: runs of zeros would read as chains of empty FPDUs.
  FpduStreamBuilder b({1, false, false, std::nullopt});
  for (std::uint32_t i = 0; i < 7; ++i) {
    Bytes ulpdu = ddp_send(i, 0);
    const Bytes payload = random_bytes(300 + 37 * i, i + 1);
    ulpdu.insert(ulpdu.end(), payload.begin(), payload.end());
    b.add(ulpdu);
  }
  ASSERT_TRUE(infer_framing(b.bytes(), TcpSeq(1), {std::nullopt, false}, true));
  // FPDU 1 has 3 pad octets (ULPDU_Length 355); make them non-zero: without CRCs the chain
  // from FPDU 0 is broken there: no framing may start before FPDU 2 (the search may also
  // find none, when a candidate in the random payload runs past the end undecided).
  const BuiltFpdu& broken = b.fpdus()[1];
  ASSERT_EQ(broken.pad_length, 3u);
  Bytes s = b.bytes();
  const std::size_t pad = broken.header + 2 + broken.ulpdu_length;
  std::fill_n(s.begin() + static_cast<std::ptrdiff_t>(pad), 3, 0xAA);
  const auto h = infer_framing(s, TcpSeq(1), {std::nullopt, false}, true);
  if (h) {
    EXPECT_GE(h->start, b.fpdus()[2].start);
  }
}

TEST(MarkerProbe, DecidesAbsentWhenTheStreamDoesNotOpenWithAZeroMarker) {
  const Bytes s = stream(9, false, true, 3);
  EXPECT_EQ(probe_markers(s, TcpSeq(9), true, false), MarkerProbe::Absent);
}

TEST(MarkerProbe, DecidesPresentForAStreamFramedOnlyWithMarkers) {
  const Bytes s = stream(9, true, true, 4, 700);
  EXPECT_EQ(probe_markers(s, TcpSeq(9), true, false), MarkerProbe::Present);
}

TEST(MarkerProbe, WaitsWhileBothReadingsStillFrame) {
  const Bytes s = stream(9, true, false, 1, 20);  // a zero marker + one small FPDU, no CRC
  const std::span<const std::uint8_t> first(s.data(), 4);
  EXPECT_EQ(probe_markers(first, TcpSeq(9), false, false), MarkerProbe::Undecided);
  EXPECT_EQ(probe_markers(std::span<const std::uint8_t>(s.data(), 2), TcpSeq(9), false, false),
            MarkerProbe::Undecided);
  EXPECT_NE(probe_markers(first, TcpSeq(9), false, true), MarkerProbe::Undecided)
      << "final decides";
}

}  // namespace
}  // namespace mpa
