// Tests for sender_framing.h (the framings a broken sender uses) and test_framing
// (fpdu_search.h), on streams written by mpa-synth's own framer with the same deviations.
#include "mpa/sender_framing.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fpdu/fpdu_search.h"
#include "fpdu_framer.h"
#include "mpa/ddp.h"

namespace mpa {
namespace {

using synth::SenderQuirks;

// An untagged RDMAP Send of `size` octets (DDP and RDMAP version 1; RFC 5041 4, RFC 5040 4).
std::vector<std::uint8_t> send_ulpdu(std::size_t size) {
  std::vector<std::uint8_t> u(size, 0x5a);
  u[0] = 0x41;  // untagged, last, DDP version 1
  u[1] = 0x43;  // RDMAP version 1, Send
  for (std::size_t i = 2; i < kDdpUntaggedHeaderSize && i < size; ++i) u[i] = 0;
  return u;
}

// `count` Sends of odd and even sizes framed as `quirks` says, from seq 1000.
std::vector<std::uint8_t> stream(SenderQuirks quirks, bool markers, bool crc, std::size_t count) {
  synth::FpduFramer framer(markers, crc, 0, quirks);
  std::vector<std::uint8_t> out;
  const std::size_t sizes[] = {1015, 301, 46, 777, 120};
  for (std::size_t i = 0; i < count; ++i) {
    const synth::Chunk c = framer.frame(send_ulpdu(sizes[i % 5]));
    out.insert(out.end(), c.bytes.begin(), c.bytes.end());
  }
  return out;
}

const SenderHypothesis& hypothesis_for(bool markers, bool crc, SenderFraming framing,
                                       bool with_markers) {
  for (const SenderHypothesis& h : framing_hypotheses(markers, crc)) {
    if (h.framing == framing && h.markers == with_markers) return h;
  }
  ADD_FAILURE() << "no such hypothesis";
  return framing_hypotheses(markers, crc)[0];
}

TEST(SenderFraming, PadRulesAndLengthsFollowTheirDefinitions) {
  // RFC 5044 4.1: ULPDU_Length field, ULPDU and pad a multiple of four.
  EXPECT_EQ(pad_octets(kRfcFraming, 1015), 3u);
  EXPECT_EQ(pad_octets({PadRule::UlpduPlus2Mod4, true, 0}, 1015), 1u);
  EXPECT_EQ(pad_octets({PadRule::None, true, 0}, 1015), 0u);
  EXPECT_EQ(fpdu_content_length(kRfcFraming, 1015), 2u + 1015 + 3 + 4);
  EXPECT_EQ(fpdu_content_length({PadRule::Rfc, false, 0}, 1015), 2u + 1015 + 3);
  // ULPDU_Length counting its own two octets: 1014 octets follow a field reading 1016.
  EXPECT_EQ(ulpdu_octets({PadRule::Rfc, true, 2}, 1016), 1014u);
  EXPECT_EQ(fpdu_content_length({PadRule::Rfc, true, 2}, 1016), 2u + 1014 + 0 + 4);
  EXPECT_FALSE(ulpdu_octets({PadRule::Rfc, true, 4}, 3).has_value());
  // Markers every 512 octets inside the FPDU count on the wire.
  const MarkerGrid grid(TcpSeq(0));
  EXPECT_EQ(fpdu_wire_length(grid, TcpSeq(0), kRfcFraming, 1015), 1024u + 4 * 3);
}

TEST(SenderFraming, HypothesesStartWithTheRfcAndFitTheNegotiation) {
  for (const bool markers : {false, true}) {
    for (const bool crc : {false, true}) {
      const auto hs = framing_hypotheses(markers, crc);
      ASSERT_FALSE(hs.empty());
      EXPECT_FALSE(hs[0].id.has_value());
      EXPECT_EQ(hs[0].framing, kRfcFraming);
      EXPECT_EQ(hs[0].markers, markers);
      bool markers_missing = false, crc_field_missing = false;
      for (const SenderHypothesis& h : hs) {
        markers_missing |= h.id == DiagId::FpduMarkersMissing;
        crc_field_missing |= h.id == DiagId::FpduCrcFieldMissing;
      }
      EXPECT_EQ(markers_missing, markers);  // tested only where markers were asked for
      // No CRC field is tried with CRCs on too (the DDP headers confirm it), and last there.
      EXPECT_TRUE(crc_field_missing);
      EXPECT_EQ(hs.back().id == DiagId::FpduCrcFieldMissing, crc);
    }
  }
}

TEST(SenderFraming, DeviationsSayWhatWasSentAndWhatTheRfcNeeds) {
  const SenderHypothesis& pad =
      hypothesis_for(false, false, {PadRule::UlpduPlus2Mod4, true, 0}, false);
  EXPECT_EQ(deviation_of(pad, 1015),
            "ULPDU_Length 1015: 1 octet of pad sent, RFC 5044 4.1 needs 3");
  EXPECT_EQ(describe(pad), "pad = (ULPDU_Length + 2) mod 4");
}

struct StreamCase {
  SenderQuirks quirks;
  SenderFraming framing;
  bool crc;
};

class TestFraming : public ::testing::TestWithParam<StreamCase> {};

TEST_P(TestFraming, OnlyTheSendersOwnFramingReadsItsStream) {
  const StreamCase c = GetParam();
  const std::vector<std::uint8_t> bytes = stream(c.quirks, false, c.crc, 10);
  const MarkerGrid none;
  const SenderHypothesis& own = hypothesis_for(false, c.crc, c.framing, false);
  const FramingTest as_sent = test_framing(bytes, TcpSeq(1000), 0, none, c.crc, own, false, 100);
  EXPECT_EQ(as_sent.stop, FramingTest::Stop::EndOfBuffer);
  EXPECT_EQ(as_sent.fpdus, 10u);
  // The RFC's framing reads the first FPDU (as the exempt one) and then fails.
  const SenderHypothesis& rfc = framing_hypotheses(false, c.crc)[0];
  const FramingTest as_rfc = test_framing(bytes, TcpSeq(1000), 0, none, c.crc, rfc, true, 100);
  EXPECT_NE(as_rfc.stop, FramingTest::Stop::EndOfBuffer);
  EXPECT_LT(as_rfc.fpdus, 2u);
  // Enough: stops after the number asked for.
  const FramingTest four = test_framing(bytes, TcpSeq(1000), 0, none, c.crc, own, false, 4);
  EXPECT_EQ(four.stop, FramingTest::Stop::Enough);
  EXPECT_EQ(four.fpdus, 4u);
}

INSTANTIATE_TEST_SUITE_P(
    Deviations, TestFraming,
    ::testing::Values(
        StreamCase{{SenderQuirks::Pad::UlpduPlus2Mod4, false, 0},
                   {PadRule::UlpduPlus2Mod4, true, 0},
                   false},
        StreamCase{{SenderQuirks::Pad::UlpduPlus2Mod4, false, 0},
                   {PadRule::UlpduPlus2Mod4, true, 0},
                   true},
        StreamCase{{SenderQuirks::Pad::Rfc, true, 0}, {PadRule::Rfc, false, 0}, false},
        // No CRC field although CRCs were negotiated: read by its DDP headers alone.
        StreamCase{{SenderQuirks::Pad::Rfc, true, 0}, {PadRule::Rfc, false, 0}, true},
        StreamCase{{SenderQuirks::Pad::Rfc, false, 2}, {PadRule::Rfc, true, 2}, true},
        StreamCase{{SenderQuirks::Pad::Rfc, false, -4}, {PadRule::Rfc, true, -4}, false}));

TEST(TestFraming, AStrayHeaderIsInvalidAndACutStreamIsIncomplete) {
  std::vector<std::uint8_t> bytes = stream({}, false, false, 3);
  const MarkerGrid none;
  const SenderHypothesis& rfc = framing_hypotheses(false, false)[0];
  EXPECT_EQ(test_framing(bytes, TcpSeq(0), 0, none, false, rfc, false, 100).fpdus, 3u);
  std::vector<std::uint8_t> cut(bytes.begin(), bytes.end() - 5);
  EXPECT_EQ(test_framing(cut, TcpSeq(0), 0, none, false, rfc, false, 100).stop,
            FramingTest::Stop::Incomplete);
  bytes[3] = 0x00;  // the first RDMAP control octet: version 0 against DDP version 1
  EXPECT_EQ(test_framing(bytes, TcpSeq(0), 0, none, false, rfc, false, 100).stop,
            FramingTest::Stop::Invalid);
  EXPECT_EQ(test_framing(bytes, TcpSeq(0), 0, none, false, rfc, true, 100).fpdus,
            2u);  // exempt first
}

TEST(TestFraming, AVerdictNamesTheFewestOctetsThatGiveIt) {
  const std::vector<std::uint8_t> bytes = stream({}, false, false, 3);
  const MarkerGrid none;
  const SenderHypothesis& rfc = framing_hypotheses(false, false)[0];
  const std::size_t fpdu = 2 + 1015 + 3 + 4;  // the first FPDU (then 2 + 301 + 1 + 4)
  // Enough as soon as the last FPDU asked for is whole, even where the buffer ends with it.
  const FramingTest enough = test_framing(bytes, TcpSeq(0), 0, none, false, rfc, false, 3);
  EXPECT_EQ(enough.stop, FramingTest::Stop::Enough);
  EXPECT_EQ(enough.decided_at, bytes.size());
  EXPECT_EQ(enough.first_counted_at, fpdu);
  const FramingTest two = test_framing(bytes, TcpSeq(0), 0, none, false, rfc, false, 2);
  EXPECT_EQ(two.decided_at, fpdu + 308);
  // Invalid at the octet that refutes it, and so in every buffer that holds that octet.
  std::vector<std::uint8_t> bad = bytes;
  bad[fpdu + 3] = 0x00;  // the second FPDU's first RDMAP control octet
  for (const std::size_t held : {bad.size(), fpdu + 4, fpdu + 5}) {
    const FramingTest refuted = test_framing(std::span<const std::uint8_t>(bad).first(held),
                                             TcpSeq(0), 0, none, false, rfc, false, 100);
    EXPECT_EQ(refuted.stop, FramingTest::Stop::Invalid) << held;
    EXPECT_EQ(refuted.decided_at, fpdu + 4) << held;
  }
  EXPECT_EQ(test_framing(std::span<const std::uint8_t>(bad).first(fpdu + 3), TcpSeq(0), 0, none,
                         false, rfc, false, 100)
                .stop,
            FramingTest::Stop::Incomplete);
}

TEST(DdpHeader, PlausibleHeadersNeedTheirModelAndRoom) {
  EXPECT_TRUE(ulpdu_header_plausible(18, 0x41, 0x43));   // untagged Send
  EXPECT_FALSE(ulpdu_header_plausible(17, 0x41, 0x43));  // too short for an untagged header
  EXPECT_TRUE(ulpdu_header_plausible(14, 0xc1, 0x40));   // tagged RDMA Write
  EXPECT_FALSE(ulpdu_header_plausible(64, 0x41, 0x40));  // RDMA Write untagged
  EXPECT_FALSE(ulpdu_header_plausible(64, 0x00, 0x00));  // zeros: an untagged Write
  EXPECT_FALSE(ulpdu_header_plausible(64, 0x41, 0x4c));  // opcode 12 does not exist
  EXPECT_TRUE(ulpdu_header_plausible(64, 0x40, 0x03));   // Rev 0: DDP and RDMAP version 0
}

}  // namespace
}  // namespace mpa
