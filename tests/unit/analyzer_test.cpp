// Tests of the connection analyzer (lib/src/connection/analyzer.cpp) over conversations made by the
// mpa-synth library: split invariance across segmentation policies, roles, negotiation per
// direction, and recognition of captures that miss their startup frames.
#include "mpa/analyzer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "conversation.h"
#include "faults.h"
#include "generator.h"
#include "mpa/packet_decoder.h"
#include "scenario.h"
#include "scenario_analysis.h"

namespace mpa {
namespace {

synth::Scenario conversation(bool markers, bool crc, std::uint8_t revision) {
  synth::Scenario s = synth::base_scenario("analyzer-test");
  synth::set_revision(s, revision);
  s.initiator.frame.m = markers;
  s.responder.frame.m = markers;
  s.initiator.frame.c = crc;
  s.responder.frame.c = crc;
  s.initiator.messages = synth::mixed_messages(12, {100, 1, 1441, 4000, 3, 602, 0, 513});
  s.responder.messages = synth::mixed_messages(9, {17, 2000, 64, 3});
  return s;
}

class AnalyzerSplitInvariance
    : public ::testing::TestWithParam<std::tuple<bool, bool, std::uint8_t>> {};

TEST_P(AnalyzerSplitInvariance, EverySegmentationGivesTheSameFpdusAndFindings) {
  const auto [markers, crc, revision] = GetParam();
  synth::Scenario reference = conversation(markers, crc, revision);
  reference.segmentation = *synth::SegmentationPolicy::parse("one");
  const Recorder expected = analyze(reference);
  ASSERT_GT(expected.fpdus.size(), 20u);
  ASSERT_EQ(expected.connections.size(), 1u);
  for (const char* policy : {"packed", "middlebox:7", "middlebox:139", "middlebox:1000", "bytes"}) {
    SCOPED_TRACE(policy);
    synth::Scenario s = conversation(markers, crc, revision);
    s.segmentation = *synth::SegmentationPolicy::parse(policy);
    const Recorder got = analyze(s);
    EXPECT_EQ(got.fpdus, expected.fpdus);
    EXPECT_EQ(got.ids(true), expected.ids(true));
    for (const Finding& f : got.findings) {
      EXPECT_NE(info(f.id).severity, Severity::Error) << info(f.id).name << ": " << f.message;
      EXPECT_NE(info(f.id).severity, Severity::Warning) << info(f.id).name << ": " << f.message;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(MarkersCrcRevision, AnalyzerSplitInvariance,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(),
                                            ::testing::Values<std::uint8_t>(1, 2)));

TEST(Analyzer, NegotiatesMarkersPerDirectionFromThePeersMBit) {
  synth::Scenario s = conversation(false, true, 1);
  s.responder.frame.m = true;  // the Reply's M: markers Initiator -> Responder only
  const Recorder r = analyze(s);
  ASSERT_EQ(r.connections.size(), 1u);
  EXPECT_TRUE(r.connections[0].direction(Direction::Initiator).markers);
  EXPECT_FALSE(r.connections[0].direction(Direction::Responder).markers);
  for (const FpduFact& f : r.fpdus) {
    if (f.direction == Direction::Responder) {
      EXPECT_EQ(f.markers, 0u);
    }
  }
  EXPECT_TRUE(std::any_of(r.fpdus.begin(), r.fpdus.end(), [](const FpduFact& f) {
    return f.direction == Direction::Initiator && f.markers > 0;
  }));
}

TEST(Analyzer, CrcIsOnInBothDirectionsWhenEitherSideAsks) {
  synth::Scenario s = conversation(false, false, 1);
  s.initiator.frame.c = true;
  const Recorder r = analyze(s);
  ASSERT_FALSE(r.fpdus.empty());
  for (const FpduFact& f : r.fpdus) EXPECT_EQ(f.crc, CrcStatus::Good);
}

TEST(Analyzer, RecognisesFpdusWhenTheCaptureStartsMidConnection) {
  synth::Scenario full = conversation(true, true, 1);
  const Recorder whole = analyze(full);
  synth::Scenario late = conversation(true, true, 1);
  late.effects.start_at = synth::SegmentRef{synth::Dir::Initiator, 3};
  const Recorder r = analyze(late);
  EXPECT_TRUE(r.has(DiagId::CaptureStartupNotSeen));
  EXPECT_TRUE(r.has(DiagId::CaptureParametersInferred));
  ASSERT_EQ(r.connections.size(), 1u);
  EXPECT_TRUE(r.connections[0].direction(Direction::Initiator).markers);
  EXPECT_TRUE(r.connections[0].direction(Direction::Initiator).crc);
  EXPECT_TRUE(r.connections[0].direction(Direction::Initiator).inferred);
  // Every FPDU seen after the late start is one of the whole capture's, CRC good.
  ASSERT_FALSE(r.fpdus.empty());
  for (const FpduFact& f : r.fpdus) {
    EXPECT_EQ(f.crc, CrcStatus::Good);
    EXPECT_NE(std::find_if(whole.fpdus.begin(), whole.fpdus.end(),
                           [&](const FpduFact& w) {
                             return w.header_seq == f.header_seq &&
                                    w.ulpdu_length == f.ulpdu_length;
                           }),
              whole.fpdus.end());
  }
  for (const Finding& f : r.findings)
    EXPECT_EQ(info(f.id).severity, Severity::Note) << info(f.id).name;
}

TEST(Analyzer, DeclaredParametersAreUsedWithoutStartupFrames) {
  synth::Scenario late = conversation(false, true, 1);
  late.effects.start_at = synth::SegmentRef{synth::Dir::Initiator, 2};
  AnalyzerOptions options;
  options.markers = false;
  options.crc = true;
  const Recorder r = analyze(late, options);
  ASSERT_EQ(r.connections.size(), 1u);
  EXPECT_FALSE(r.connections[0].direction(Direction::Initiator).markers);
  EXPECT_TRUE(r.connections[0].direction(Direction::Initiator).crc);
  EXPECT_FALSE(r.fpdus.empty());
}

TEST(Analyzer, ACorruptedCrcIsOneErrorAndNothingIsJudgedAfterIt) {
  synth::Scenario s = conversation(true, true, 1);
  s.initiator.messages[2].tweaks.corrupt_crc = true;
  const Recorder r = analyze(s);
  const auto errors = std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return info(f.id).severity == Severity::Error;
  });
  EXPECT_EQ(errors, 1);
  EXPECT_TRUE(r.has(DiagId::FpduCrcMismatch));
  EXPECT_TRUE(r.has(DiagId::FpduNotJudgedAfterError));
}

// ---- Sender framing: a sender that frames FPDUs by rules of its own (fault recipes of
// tests/synth) is named by the catalogue id of what it did, with nothing else above a note,
// and the rest of its stream is read as it sent it: the FPDU count is the sender's own.

struct FramingFault {
  const char* id;
  DiagId expected;
};

class SenderFraming : public ::testing::TestWithParam<FramingFault> {};

synth::Scenario with_fault(const std::string& recipe) {
  synth::Scenario s = synth::base_scenario("analyzer-test-" + recipe);
  const synth::FaultRecipe* r = synth::find_fault(recipe);
  EXPECT_NE(r, nullptr) << recipe;
  if (r) synth::apply_fault(s, *r);
  return s;
}

std::size_t fpdus_of(const Recorder& r, Direction d) {
  return static_cast<std::size_t>(std::count_if(
      r.fpdus.begin(), r.fpdus.end(), [d](const FpduFact& f) { return f.direction == d; }));
}

TEST_P(SenderFraming, IsNamedAndTheRestIsReadAsSent) {
  const FramingFault fault = GetParam();
  const synth::Scenario s = with_fault(fault.id);
  const Recorder r = analyze(s);
  std::vector<DiagId> above_notes;
  for (const Finding& f : r.findings) {
    if (info(f.id).severity != Severity::Note) above_notes.push_back(f.id);
  }
  ASSERT_EQ(above_notes, std::vector<DiagId>{fault.expected});
  const auto named = std::find_if(r.findings.begin(), r.findings.end(),
                                  [&](const Finding& f) { return f.id == fault.expected; });
  EXPECT_EQ(named->direction, Direction::Initiator);
  // Every FPDU the sender framed is counted once (the framing-lost capture: those before
  // the stray octets only, since nothing after them is read).
  const std::size_t sent = synth::frame_fpdus(s, synth::Dir::Initiator).size();
  if (fault.expected == DiagId::FpduFramingLost) {
    EXPECT_LT(fpdus_of(r, Direction::Initiator), sent);
    EXPECT_FALSE(r.has(DiagId::ConnectionLostMidFpdu));
  } else {
    EXPECT_EQ(fpdus_of(r, Direction::Initiator), sent);
    EXPECT_EQ(fpdus_of(r, Direction::Responder),
              synth::frame_fpdus(s, synth::Dir::Responder).size());
    EXPECT_TRUE(r.has(DiagId::ConnectionClosed));  // at the sender's own FPDU boundary
  }
}

// The FPDU a deviation was named from was reported as the RFC frames it before the deviation
// was known: it is reported again as its sender framed it, ending where the next begins.
TEST_P(SenderFraming, TheFpduItWasNamedFromIsReportedAgainAsItsSenderFramedIt) {
  const FramingFault fault = GetParam();
  const Recorder r = analyze(with_fault(fault.id));
  // Not reported before the deviation was named, so not again: missing markers are found at
  // the first one, before its FPDU is reported; a miscounted ULPDU_Length (CRCs on) by the
  // CRC that matches only with it, as the FPDU is reported; lost framing frames nothing.
  if (fault.expected == DiagId::FpduFramingLost || fault.expected == DiagId::FpduMarkersMissing ||
      fault.expected == DiagId::FpduUlpduLengthMiscounted) {
    EXPECT_TRUE(r.revised.empty());
    return;
  }
  ASSERT_EQ(r.revised.size(), 1u);
  const RevisedFact& revised = r.revised[0];
  EXPECT_EQ(revised.direction, Direction::Initiator);
  const auto named = std::find_if(r.findings.begin(), r.findings.end(),
                                  [&](const Finding& f) { return f.id == fault.expected; });
  ASSERT_NE(named, r.findings.end());
  EXPECT_EQ(revised.start_seq, named->tcp_seq.value());
  EXPECT_EQ(revised.crc_field, fault.expected != DiagId::FpduCrcFieldMissing);
  EXPECT_FALSE(revised.markers);  // (none negotiated)
  // The sender's next FPDU begins right after it (no markers in these conversations).
  const auto next = std::find_if(r.fpdus.begin(), r.fpdus.end(), [&](const FpduFact& f) {
    return f.direction == Direction::Initiator &&
           TcpSeq(f.header_seq).is_after(TcpSeq(revised.start_seq));
  });
  ASSERT_NE(next, r.fpdus.end());
  EXPECT_EQ(next->header_seq - revised.start_seq, revised.wire_length);
}

TEST_P(SenderFraming, EverySegmentationGivesTheSameFpdusAndFindings) {
  const FramingFault fault = GetParam();
  synth::Scenario reference = with_fault(fault.id);
  reference.segmentation = *synth::SegmentationPolicy::parse("one");
  const Recorder expected = analyze(reference);
  for (const char* policy : {"packed", "middlebox:7", "middlebox:139", "bytes"}) {
    SCOPED_TRACE(policy);
    synth::Scenario s = with_fault(fault.id);
    s.segmentation = *synth::SegmentationPolicy::parse(policy);
    const Recorder got = analyze(s);
    EXPECT_EQ(got.fpdus, expected.fpdus);
    EXPECT_EQ(got.ids(true), expected.ids(true));
    EXPECT_EQ(got.revised, expected.revised);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, SenderFraming,
    ::testing::Values(FramingFault{"fpdu.pad-rule-wrong", DiagId::FpduPadRuleWrong},
                      FramingFault{"fpdu.crc-field-missing", DiagId::FpduCrcFieldMissing},
                      FramingFault{"fpdu.markers-missing", DiagId::FpduMarkersMissing},
                      FramingFault{"fpdu.ulpdu-length-miscounted",
                                   DiagId::FpduUlpduLengthMiscounted},
                      FramingFault{"fpdu.framing-lost", DiagId::FpduFramingLost}),
    [](const auto& info) {
      std::string name = info.param.id;
      std::replace_if(
          name.begin(), name.end(), [](char c) { return c == '.' || c == '-'; }, '_');
      return name;
    });

TEST(Analyzer, SegmentAlignmentIsJudgedOnFpdusAsTheSenderFramedThem) {
  for (const char* recipe :
       {"fpdu.pad-rule-wrong", "fpdu.crc-field-missing", "fpdu.ulpdu-length-miscounted"}) {
    SCOPED_TRACE(recipe);
    // One FPDU per segment: the odd FPDU, read with the RFC's lengths before the deviation
    // was named, ran into the next segment; that was the misreading, not the sender.
    EXPECT_FALSE(analyze(with_fault(recipe)).has(DiagId::FpduNotSegmentAligned));
    // Cut by a middlebox: the sender's own FPDUs span segments, and that is said once.
    synth::Scenario s = with_fault(recipe);
    s.segmentation = *synth::SegmentationPolicy::parse("middlebox:139");
    const Recorder r = analyze(s);
    EXPECT_EQ(std::count_if(r.findings.begin(), r.findings.end(),
                            [](const Finding& f) {
                              return f.id == DiagId::FpduNotSegmentAligned &&
                                     f.direction == Direction::Initiator;
                            }),
              1);
  }
}

TEST(Analyzer, AGenuineFaultAfterANamedDeviationIsReportedAsSent) {
  // An oversized ULPDU after the pad bug: read with the sender's pad rule, it is found (before
  // framing truth, the misframed rest hid it).
  synth::Scenario s = with_fault("fpdu.pad-rule-wrong");
  synth::MessageSpec big;
  big.size = 65000;
  big.unsplit = true;
  s.initiator.messages.push_back(big);
  s.initiator.messages.push_back(s.initiator.messages.front());
  const Recorder r = analyze(s);
  std::set<std::string> above_notes;
  for (const Finding& f : r.findings) {
    if (info(f.id).severity != Severity::Note) above_notes.emplace(info(f.id).name);
  }
  EXPECT_EQ(above_notes,
            (std::set<std::string>{"fpdu.pad-rule-wrong", "fpdu.ulpdu-length-too-large"}));
  EXPECT_TRUE(r.has(DiagId::FpduExceedsMulpdu));
  EXPECT_EQ(fpdus_of(r, Direction::Initiator), synth::frame_fpdus(s, synth::Dir::Initiator).size());
  EXPECT_TRUE(r.has(DiagId::ConnectionClosed));
}

TEST(Analyzer, TheSamePadBugWithCrcsIsNamedByTheCrcAtOnce) {
  synth::Scenario s = with_fault("fpdu.pad-rule-wrong");
  s.initiator.frame.c = s.responder.frame.c = true;
  const Recorder r = analyze(s);
  ASSERT_TRUE(r.has(DiagId::FpduPadRuleWrong));
  EXPECT_FALSE(r.has(DiagId::FpduCrcMismatch));
  EXPECT_EQ(fpdus_of(r, Direction::Initiator), synth::frame_fpdus(s, synth::Dir::Initiator).size());
  for (const FpduFact& f : r.fpdus) EXPECT_EQ(f.crc, CrcStatus::Good);
}

TEST(Analyzer, ARealCrcErrorIsNotExplainedAway) {
  synth::Scenario s = conversation(false, true, 1);
  s.initiator.messages[2].tweaks.corrupt_crc = true;
  const Recorder r = analyze(s);
  EXPECT_TRUE(r.has(DiagId::FpduCrcMismatch));
  for (const DiagId id :
       {DiagId::FpduPadRuleWrong, DiagId::FpduUlpduLengthMiscounted, DiagId::FpduFramingLost}) {
    EXPECT_FALSE(r.has(id)) << info(id).name;
  }
}

TEST(Analyzer, OddFpdusOfAConformantSenderAreNotTakenForLostFraming) {
  // CRC off, no markers: a zero-length ULPDU and a DDP header too short for its kind are odd
  // FPDUs, but the RFC's framing reads on after each: no deviation, no lost framing.
  synth::Scenario s = conversation(false, false, 1);
  s.initiator.messages[3].size = 0;
  synth::MessageSpec short_ddp;
  short_ddp.kind = synth::MessageKind::TruncatedDdp;
  s.initiator.messages.insert(s.initiator.messages.begin() + 5, short_ddp);
  const Recorder r = analyze(s);
  for (const DiagId id : {DiagId::FpduPadRuleWrong, DiagId::FpduCrcFieldMissing,
                          DiagId::FpduUlpduLengthMiscounted, DiagId::FpduFramingLost}) {
    EXPECT_FALSE(r.has(id)) << info(id).name;
  }
  EXPECT_TRUE(r.has(DiagId::DdpUlpduTooShort));
  EXPECT_EQ(fpdus_of(r, Direction::Initiator), synth::frame_fpdus(s, synth::Dir::Initiator).size());
}

// The Initiator's ULPDU_Length counts 2 octets short; its untagged Sends carry `payloads`.
synth::Scenario counting_2_short(bool markers, bool crc, std::vector<std::size_t> payloads) {
  synth::Scenario s = conversation(markers, crc, 1);
  s.initiator.messages.clear();
  for (const std::size_t payload : payloads) {
    synth::MessageSpec m;
    m.size = payload;
    s.initiator.messages.push_back(m);
  }
  s.initiator_quirks.length_bias = -2;
  return s;
}

TEST(Analyzer, AUlpduTooShortIsNotSaidOfASenderCountingItsLength2Short) {
  // CRC on: the Initiator's ULPDU_Length counts 2 octets short. Its first ULPDU (18 octets,
  // the DDP header alone) reads as 16 with 2 octets of pad, a ULPDU too short for its header,
  // and nothing on that FPDU tells it from the RFC's. The second (19 octets) reads as 17 with
  // 1 of pad, ending 4 octets early, and the third's header is misread: the sender is named.
  // The first ULPDU, as it sent it, holds its header.
  const synth::Scenario s = counting_2_short(false, true, {0, 1, 4, 2, 100, 6});
  const Recorder r = analyze(s);
  EXPECT_TRUE(r.has(DiagId::FpduUlpduLengthMiscounted));
  EXPECT_FALSE(r.has(DiagId::DdpUlpduTooShort));
  EXPECT_EQ(fpdus_of(r, Direction::Initiator), synth::frame_fpdus(s, synth::Dir::Initiator).size());
}

TEST(Analyzer, ASenderCountingItsLength2ShortIsNamedWithCrcsOff) {
  // The sender above with CRCs off and no markers: its first FPDU (the DDP header alone, 18
  // octets as sent) is as long on the wire as the RFC reads it, so nothing on it tells the two
  // apart, and the FPDUs after it decide. Nothing is blamed on the Responder, which waited.
  const synth::Scenario s = counting_2_short(false, false, {0, 1, 4, 2, 100, 6});
  const Recorder r = analyze(s);
  EXPECT_TRUE(r.has(DiagId::FpduUlpduLengthMiscounted));
  for (const DiagId id :
       {DiagId::FpduFramingLost, DiagId::FpduResponderSentFirst, DiagId::DdpUlpduTooShort}) {
    EXPECT_FALSE(r.has(id)) << info(id).name;
  }
  EXPECT_EQ(fpdus_of(r, Direction::Initiator), synth::frame_fpdus(s, synth::Dir::Initiator).size());
}

std::vector<std::string> errors_and_warnings(const Recorder& r) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) {
    if (info(f.id).severity != Severity::Note) out.emplace_back(info(f.id).name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Analyzer, ASenderCounting2ShortFramedAsTheRfcsReadingIsReadAsTheRfcSays) {
  // The sender above with ULPDUs of 1 and 2 mod 4 octets only: each FPDU frames exactly as an
  // RFC sender's of a ULPDU 2 octets shorter, the DDP header of a zero-length Send running 2
  // octets into the pad. Nothing on the wire tells the two apart; wherever the too-short ULPDUs
  // stand and whatever the CRCs and markers, the RFC's reading stands, and what it finds
  // (ddp.ulpdu-too-short, fpdu.pad-nonzero where ULPDU octets stand in its pad) is said.
  for (const std::vector<std::size_t>& payloads : std::vector<std::vector<std::size_t>>{
           {0, 0, 0, 0, 0, 0}, {0, 4, 3, 7, 4}, {4, 0, 4, 7, 3}, {0, 0, 4, 7, 3}, {4, 4, 3, 0}}) {
    for (const bool crc : {false, true}) {
      for (const bool markers : {false, true}) {
        const synth::Scenario s = counting_2_short(markers, crc, payloads);
        const Recorder r = analyze(s);
        const std::string where =
            testing::PrintToString(payloads) + (crc ? " CRC" : "") + (markers ? " markers" : "");
        EXPECT_TRUE(r.has(DiagId::DdpUlpduTooShort)) << where;
        for (const std::string& name : errors_and_warnings(r)) {
          EXPECT_TRUE(name == "ddp.ulpdu-too-short" || name == "fpdu.pad-nonzero" ||
                      name == "fpdu.framing-unverifiable")
              << name << ": " << where;
        }
        EXPECT_EQ(fpdus_of(r, Direction::Initiator), payloads.size()) << where;
      }
    }
  }
}

TEST(Analyzer, AUlpduTooShortAfterOneTakenBackIsSaid) {
  // The sender above, then a ULPDU of 10 octets (an untagged DDP header cut short, its CRC
  // right): too short under the sender's own framing too, and said, although the first FPDU's
  // too-short reading was taken back.
  synth::Scenario s = counting_2_short(false, true, {0, 1, 4, 2, 100, 6, 8});
  s.initiator.messages.back().edit_ulpdu = [](std::size_t, synth::Bytes& ulpdu) {
    ulpdu.resize(10);
  };
  const Recorder r = analyze(s);
  EXPECT_TRUE(r.has(DiagId::FpduUlpduLengthMiscounted));
  EXPECT_EQ(std::count_if(r.findings.begin(), r.findings.end(),
                          [](const Finding& f) { return f.id == DiagId::DdpUlpduTooShort; }),
            1);
}

// ---- startup frames answered or sent that should not have been

// Each new recipe gives exactly its intended errors and warnings, whatever the segmentation.
class StartupRecipeSplitInvariance : public ::testing::TestWithParam<const char*> {};

TEST_P(StartupRecipeSplitInvariance, EverySegmentationGivesTheIntendedFindings) {
  synth::Scenario reference = with_fault(GetParam());
  std::vector<std::string> intended = reference.expected.findings;
  std::sort(intended.begin(), intended.end());
  const Recorder expected = analyze(reference);
  std::vector<std::string> got = errors_and_warnings(expected);
  got.erase(std::unique(got.begin(), got.end()), got.end());
  EXPECT_EQ(got, intended);
  for (const char* policy : {"packed", "middlebox:7", "middlebox:139", "bytes"}) {
    SCOPED_TRACE(policy);
    synth::Scenario s = with_fault(GetParam());
    s.segmentation = *synth::SegmentationPolicy::parse(policy);
    const Recorder r = analyze(s);
    EXPECT_EQ(r.ids(true), expected.ids(true));
    EXPECT_EQ(r.fpdus, expected.fpdus);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Recipes, StartupRecipeSplitInvariance,
    ::testing::Values("startup.pd-length-mismatch--overstated-answered",
                      "startup.invalid-request-answered", "startup.insufficient-ird--ord-3fff",
                      "startup.no-negotiation-unsolicited", "startup.reply-before-private-data",
                      "startup.invalid-reply-ignored", "startup.invalid-reply-kept-open",
                      "startup.request-closed-without-reply", "startup.markers-refused--initiator",
                      "startup.negotiation-terminate-missing--wrong-code",
                      "startup.fpdu-after-reject", "startup.invalid-request-kept-open",
                      "startup.markers-refused--terminate",
                      "startup.negotiation-terminate-missing--reject",
                      "startup.fpdu-after-reject--judged", "fpdu.crc-mismatch--after-reject"));

// A Responder that accepts an improperly formatted Request: the error is said once, then both
// sides' FPDUs are framed with the parameters the frames declare, counted and judged.
TEST(Analyzer, FpdusAfterAnAcceptedInvalidRequestAreReadAndJudgedAsSent) {
  for (const bool markers : {false, true}) {
    SCOPED_TRACE(markers ? "markers" : "no markers");
    synth::Scenario s = with_fault("startup.invalid-request-answered");
    s.initiator.frame.m = s.responder.frame.m = markers;
    s.responder.messages[1].tweaks.corrupt_crc = true;  // a real fault after the answer
    const Recorder r = analyze(s);
    ASSERT_EQ(r.connections.size(), 1u);
    const ConnectionSummary& c = r.connections.front();
    EXPECT_GE(c.direction(Direction::Initiator).fpdus, s.initiator.messages.size());
    EXPECT_GE(c.direction(Direction::Responder).fpdus, s.responder.messages.size());
    EXPECT_EQ(c.direction(Direction::Responder).markers, markers);
    std::vector<std::pair<std::string, Direction>> expected = {
        {"connection.closed", Direction::Initiator},  // (the Responder's close is not judged)
        {"fpdu.crc-mismatch", Direction::Responder},
        {"fpdu.not-judged-after-error", Direction::Responder},
        // The Initiator acknowledged the bad FPDU, went on sending and closed: no Terminate.
        {"receiver.error-ignored", Direction::Initiator},
        {"startup.invalid-request-answered", Direction::Responder},
        {"startup.revision-unsupported", Direction::Initiator}};
    EXPECT_EQ(r.ids(true), expected);
  }
}

TEST(Analyzer, FpdusAfterAnIgnoredInvalidReplyAreReadAndJudgedAsSent) {
  for (const bool markers : {false, true}) {
    SCOPED_TRACE(markers ? "markers" : "no markers");
    synth::Scenario s = with_fault("startup.invalid-reply-ignored");
    s.initiator.frame.m = s.responder.frame.m = markers;
    s.responder.messages[1].tweaks.corrupt_crc = true;  // a real fault after the Reply
    const Recorder r = analyze(s);
    ASSERT_EQ(r.connections.size(), 1u);
    const ConnectionSummary& c = r.connections.front();
    EXPECT_GE(c.direction(Direction::Initiator).fpdus, s.initiator.messages.size());
    EXPECT_GE(c.direction(Direction::Responder).fpdus, s.responder.messages.size());
    EXPECT_EQ(c.direction(Direction::Initiator).markers, markers);
    std::vector<std::pair<std::string, Direction>> expected = {
        {"connection.closed", Direction::Initiator},
        {"fpdu.crc-mismatch", Direction::Responder},
        {"fpdu.not-judged-after-error", Direction::Responder},
        {"receiver.error-ignored", Direction::Initiator},  // (as above)
        {"startup.invalid-reply-ignored", Direction::Initiator},
        {"startup.key-invalid", Direction::Responder}};
    EXPECT_EQ(r.ids(true), expected);
  }
}

TEST(Analyzer, AnInitiatorThatTerminatesAfterAnInvalidReplyIsNotBlamed) {
  const Recorder r = analyze(with_fault("startup.key-invalid"));
  EXPECT_TRUE(r.has(DiagId::StartupKeyInvalid));
  EXPECT_FALSE(r.has(DiagId::StartupInvalidReplyIgnored));
  EXPECT_FALSE(r.has(DiagId::StartupInvalidReplyKeptOpen));  // it closed first
}

// The reactions to the startup exchange are judged only where the capture shows them.
TEST(Analyzer, AnInitiatorKeepingAnInvalidReplysConnectionIsNamedWhenTheResponderCloses) {
  const Recorder kept = analyze(with_fault("startup.invalid-reply-kept-open"));
  EXPECT_EQ(errors_and_warnings(kept),
            (std::vector<std::string>{"startup.invalid-reply-kept-open", "startup.key-invalid"}));
  for (const Finding& f : kept.findings) {
    if (f.id == DiagId::StartupInvalidReplyKeptOpen) {
      EXPECT_EQ(f.direction, Direction::Initiator);
    }
  }
  // The capture ends with the connection open: how long the Initiator waited is not shown.
  synth::Scenario open = with_fault("startup.invalid-reply-kept-open");
  open.edit_plan = [](synth::Plan& p) {
    p.turns.resize(synth::find_turn(p, synth::Dir::Responder, synth::Phase::Startup) + 1);
  };
  open.close = synth::Ending::None;
  EXPECT_FALSE(analyze(open).has(DiagId::StartupInvalidReplyKeptOpen));
}

TEST(Analyzer, AResponderKeepingAnInvalidRequestsConnectionIsNamedWhenTheInitiatorCloses) {
  const Recorder kept = analyze(with_fault("startup.invalid-request-kept-open"));
  EXPECT_EQ(errors_and_warnings(kept),
            (std::vector<std::string>{"startup.invalid-request-kept-open",
                                      "startup.revision-unsupported"}));
  for (const Finding& f : kept.findings) {
    if (f.id == DiagId::StartupInvalidRequestKeptOpen) {
      EXPECT_EQ(f.direction, Direction::Responder);
    }
  }
  // The Responder closes first, as it must: nothing to name.
  EXPECT_FALSE(analyze(with_fault("startup.revision-unsupported"))
                   .has(DiagId::StartupInvalidRequestKeptOpen));
  // The capture ends with the connection open: how long the Responder waited is not shown.
  synth::Scenario open = with_fault("startup.invalid-request-kept-open");
  open.edit_plan = [](synth::Plan& p) {
    p.turns.resize(synth::find_turn(p, synth::Dir::Responder, synth::Phase::Startup));
  };
  open.close = synth::Ending::None;
  EXPECT_FALSE(analyze(open).has(DiagId::StartupInvalidRequestKeptOpen));
}

// An Initiator whose first FPDU after an accepting Reply with M=1 is a Terminate refuses the
// markers, if they were the cause; after a failed negotiation the Terminate is owed.
TEST(Analyzer, AnInitiatorTerminatingAfterAnM1ReplyMayRefuseTheMarkers) {
  const Recorder r = analyze(with_fault("startup.markers-refused--terminate"));
  EXPECT_EQ(errors_and_warnings(r), std::vector<std::string>{"startup.markers-refused"});
  synth::Scenario owed = with_fault("startup.insufficient-ird");
  owed.responder.frame.m = true;
  owed.markers_to_responder.reset();
  EXPECT_FALSE(analyze(owed).has(DiagId::StartupMarkersRefused));
}

TEST(Analyzer, AResponderClosingOnARequestIsWarnedOfOnlyWhereAReplyWasOwed) {
  const Recorder rev1 = analyze(with_fault("startup.request-closed-without-reply"));
  EXPECT_TRUE(rev1.has(DiagId::StartupRequestClosedWithoutReply));
  EXPECT_FALSE(rev1.has(DiagId::StartupMarkersRefused));
  // An enhanced Request, closed on by an unenhanced Responder (RFC 6581 10): as it must.
  synth::Scenario enhanced = with_fault("startup.request-closed-without-reply");
  synth::set_revision(enhanced, 2);
  EXPECT_FALSE(analyze(enhanced).has(DiagId::StartupRequestClosedWithoutReply));
  // The Initiator closes first: the Responder's close answers it.
  synth::Scenario initiator_first = with_fault("startup.request-closed-without-reply");
  initiator_first.edit_plan = [](synth::Plan& p) {
    synth::close_instead_from(p, synth::find_turn(p, synth::Dir::Responder, synth::Phase::Startup),
                              synth::Dir::Initiator);
  };
  EXPECT_FALSE(analyze(initiator_first).has(DiagId::StartupRequestClosedWithoutReply));
}

TEST(Analyzer, TheTerminateOwedAfterAFailedNegotiation) {
  // Terminate 2/0/6 (insufficient IRD), 2/0/7 (no usable RTR), then a close: as required.
  for (const char* recipe : {"startup.insufficient-ird", "startup.insufficient-ird--ord-3fff",
                             "startup.no-matching-rtr", "startup.reply-without-rtr"}) {
    SCOPED_TRACE(recipe);
    const Recorder r = analyze(with_fault(recipe));
    EXPECT_TRUE(r.has(DiagId::RdmapTerminate));
    EXPECT_FALSE(r.has(DiagId::StartupNegotiationTerminateMissing));
    EXPECT_FALSE(r.has(DiagId::RdmapTerminateDisagrees));
    EXPECT_FALSE(r.has(DiagId::FpduRtrMissing));  // a Terminate may come before the RTR
  }
  for (const char* recipe :
       {"startup.negotiation-terminate-missing", "startup.negotiation-terminate-missing--no-rtr",
        "startup.negotiation-terminate-missing--wrong-code"}) {
    SCOPED_TRACE(recipe);
    const Recorder r = analyze(with_fault(recipe));
    const auto f = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& g) {
      return g.id == DiagId::StartupNegotiationTerminateMissing;
    });
    ASSERT_NE(f, r.findings.end());
    EXPECT_EQ(f->direction, Direction::Initiator);
  }
}

TEST(Analyzer, AnInitiatorSendingTheRespondersOwnRtrIsNotBlamed) {
  synth::Scenario s = synth::base_scenario("analyzer-test-responder-rtr");
  synth::set_revision(s, 2);
  synth::make_peer_to_peer(s, synth::MessageKind::WriteRtr);
  s.initiator.frame.enhanced->write_rtr = s.initiator.frame.enhanced->read_rtr = false;
  const Recorder r = analyze(s);
  EXPECT_TRUE(r.has(DiagId::StartupNoMatchingRtr));
  EXPECT_TRUE(errors_and_warnings(r).empty()) << testing::PrintToString(errors_and_warnings(r));
  // Its own offer (Send) is no RTR the Responder named.
  s.initiator.messages.front().kind = synth::MessageKind::SendRtr;
  EXPECT_TRUE(analyze(s).has(DiagId::FpduRtrMissing));
}

TEST(Analyzer, FpdusAfterARejectAreNamedOtherProtocolsAreNot) {
  const Recorder r = analyze(with_fault("startup.fpdu-after-reject"));
  std::vector<Direction> sides;
  for (const Finding& f : r.findings) {
    if (f.id == DiagId::StartupFpduAfterReject) sides.push_back(f.direction);
  }
  std::sort(sides.begin(), sides.end());
  EXPECT_EQ(sides, (std::vector<Direction>{Direction::Initiator, Direction::Responder}));
  // The same Reject with markers asked for: also a refusal of markers.
  synth::Scenario markers = with_fault("startup.fpdu-after-reject");
  markers.initiator.frame.m = true;
  EXPECT_TRUE(analyze(markers).has(DiagId::StartupMarkersRefused));
  // Without CRCs the FPDUs still frame with DDP headers throughout.
  synth::Scenario no_crc = with_fault("startup.fpdu-after-reject");
  no_crc.initiator.frame.c = no_crc.responder.frame.c = false;
  no_crc.initiator.messages = synth::mixed_messages(12, synth::kDefaultSizes);
  EXPECT_TRUE(analyze(no_crc).has(DiagId::StartupFpduAfterReject));
  // A Terminate right after the Reject (RFC 6581 9.1 ties one, code 6, to a Reject over the
  // IRD) is not named; a Send is.
  synth::Scenario terminate = with_fault("startup.fpdu-after-reject");
  synth::MessageSpec term;
  term.kind = synth::MessageKind::Terminate;
  term.terminate.emplace();
  term.terminate->layer = 2;  // LLP
  term.terminate->code = 6;   // MPA error 6: insufficient IRD
  terminate.initiator.messages.clear();
  terminate.responder.messages = {term};
  EXPECT_FALSE(analyze(terminate).has(DiagId::StartupFpduAfterReject));
  terminate.responder.messages.front() = synth::MessageSpec{};
  terminate.responder.messages.front().size = 40;
  EXPECT_TRUE(analyze(terminate).has(DiagId::StartupFpduAfterReject));
  // A Reject and a close: nothing after it.
  EXPECT_FALSE(
      analyze(with_fault("startup.connection-rejected")).has(DiagId::StartupFpduAfterReject));
}

const Finding* first_of(const Recorder& r, DiagId id) {
  const auto it = std::find_if(r.findings.begin(), r.findings.end(),
                               [id](const Finding& f) { return f.id == id; });
  return it == r.findings.end() ? nullptr : &*it;
}

const Finding* first_of(const Recorder& r, DiagId id, Direction d) {
  const auto it = std::find_if(r.findings.begin(), r.findings.end(),
                               [&](const Finding& f) { return f.id == id && f.direction == d; });
  return it == r.findings.end() ? nullptr : &*it;
}

std::vector<FpduFact> fpdu_facts_of(const Recorder& r, Direction d) {
  std::vector<FpduFact> out;
  for (const FpduFact& f : r.fpdus) {
    if (f.direction == d) out.push_back(f);
  }
  return out;
}

// After a Reject both sides go on with FPDUs: named once each, at the first FPDU, and then
// read as the startup frames declared (markers X->Y iff Y asked, the Reject's M for the
// Initiator's data; CRCs iff either C): every FPDU counted, judged, at its sequence number.
TEST(Analyzer, FpdusAfterARejectAreCountedAndJudgedAsTheFramesDeclared) {
  for (const char* recipe : {"startup.fpdu-after-reject", "startup.fpdu-after-reject--judged"}) {
    SCOPED_TRACE(recipe);
    const synth::Scenario s = with_fault(recipe);
    const Recorder r = analyze(s);
    EXPECT_EQ(errors_and_warnings(r),
              (std::vector<std::string>{"startup.fpdu-after-reject", "startup.fpdu-after-reject"}));
    for (const Direction d : {Direction::Initiator, Direction::Responder}) {
      SCOPED_TRACE(to_string(d));
      const synth::Dir from =
          d == Direction::Initiator ? synth::Dir::Initiator : synth::Dir::Responder;
      const std::vector<FpduFact> read = fpdu_facts_of(r, d);
      ASSERT_EQ(read.size(), synth::frame_fpdus(s, from).size());
      const bool markers = s.markers_from(from);
      for (const FpduFact& f : read) EXPECT_EQ(f.crc, CrcStatus::Good);
      // Markers where the frames declared them: the first FPDU holds the one opening the data.
      EXPECT_EQ(read.front().markers, markers ? 1u : 0u);
      const Finding* named = first_of(r, DiagId::StartupFpduAfterReject, d);
      ASSERT_NE(named, nullptr);
      EXPECT_EQ(named->tcp_seq.value() + (markers ? 4u : 0u), read.front().header_seq);
    }
    // Read as the same conversation accepted would be: the same FPDUs at the same seqs.
    synth::Scenario accepted = s;
    accepted.responder.frame.r = false;
    EXPECT_EQ(r.fpdus, analyze(accepted).fpdus);
  }
}

// The neighbour: an improperly formatted Request answered with a Reject (where the Responder
// MUST have closed), and both sides going on with FPDUs: the answer is named, then what
// follows it is read as after any Reject.
TEST(Analyzer, FpdusAfterARejectOfAnInvalidRequestAreCountedAndJudged) {
  synth::Scenario s = with_fault("startup.invalid-request-answered");
  s.responder.frame.r = true;
  const Recorder r = analyze(s);
  EXPECT_EQ(errors_and_warnings(r),
            (std::vector<std::string>{"startup.fpdu-after-reject", "startup.fpdu-after-reject",
                                      "startup.invalid-request-answered",
                                      "startup.revision-unsupported"}));
  synth::Scenario accepted = s;
  accepted.responder.frame.r = false;
  const Recorder a = analyze(accepted);
  ASSERT_EQ(r.fpdus.size(), synth::frame_fpdus(s, synth::Dir::Initiator).size() +
                                synth::frame_fpdus(s, synth::Dir::Responder).size());
  EXPECT_EQ(r.fpdus, a.fpdus);
}

// A CRC error among the FPDUs after a Reject is named at its FPDU, as in full operation.
TEST(Analyzer, ACrcErrorAmongFpdusAfterARejectIsNamedAtItsFpdu) {
  const synth::Scenario s = with_fault("fpdu.crc-mismatch--after-reject");
  const Recorder r = analyze(s);
  EXPECT_EQ(errors_and_warnings(r),
            (std::vector<std::string>{"fpdu.crc-mismatch", "startup.fpdu-after-reject",
                                      "startup.fpdu-after-reject"}));
  const std::vector<FpduFact> read = fpdu_facts_of(r, Direction::Initiator);
  ASSERT_EQ(read.size(), synth::frame_fpdus(s, synth::Dir::Initiator).size());
  EXPECT_EQ(read[0].crc, CrcStatus::Good);
  EXPECT_EQ(read[1].crc, CrcStatus::Bad);
  const Finding* bad = first_of(r, DiagId::FpduCrcMismatch);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->direction, Direction::Initiator);
  EXPECT_EQ(bad->tcp_seq.value(), read[1].header_seq);
  synth::Scenario accepted = s;
  accepted.responder.frame.r = false;
  EXPECT_EQ(r.fpdus, analyze(accepted).fpdus);
}

// PD_Length 16, 8 octets of private data, a Reply, then FPDUs: the overstatement is certain
// only once the octets after the 8 prove to be an FPDU, after the Reply's frame.
TEST(Analyzer, AnOverstatedPdLengthIsBlamedOnTheRequestOnceAnFpduFollowsItsPrivateData) {
  for (const bool markers : {false, true}) {
    SCOPED_TRACE(markers ? "markers" : "no markers");
    synth::Scenario s = with_fault("startup.pd-length-mismatch--overstated-answered");
    s.initiator.frame.m = s.responder.frame.m = markers;
    const Recorder r = analyze(s);
    const Finding* early = first_of(r, DiagId::StartupReplyBeforePrivateData);
    const Finding* overstated = first_of(r, DiagId::StartupPdLengthMismatch);
    ASSERT_NE(early, nullptr);
    ASSERT_NE(overstated, nullptr);
    EXPECT_EQ(early->direction, Direction::Responder);
    EXPECT_EQ(overstated->direction, Direction::Initiator);
    // Placed at the Request (where its octets are), certain only after the Reply.
    EXPECT_LT(overstated->frame, early->frame);
    EXPECT_GT(overstated->certain_at, early->frame);
    EXPECT_EQ(early->certain_at, early->frame);
    EXPECT_FALSE(r.has(DiagId::StartupInvalidRequestAnswered));  // named once, as the early Reply
    ASSERT_EQ(r.connections.size(), 1u);
    const ConnectionSummary& c = r.connections.front();
    EXPECT_GE(c.direction(Direction::Initiator).fpdus, s.initiator.messages.size());
    EXPECT_GE(c.direction(Direction::Responder).fpdus, s.responder.messages.size());
    EXPECT_FALSE(r.has(DiagId::FpduCrcMismatch));
  }
}

// The same early Reply, but the rest of the private data follows it: the Request was right.
TEST(Analyzer, PrivateDataThatFollowsAnEarlyReplyCompletesTheRequest) {
  for (const bool markers : {false, true}) {
    SCOPED_TRACE(markers ? "markers" : "no markers");
    synth::Scenario s = with_fault("startup.reply-before-private-data");
    s.initiator.frame.m = s.responder.frame.m = markers;
    const Recorder r = analyze(s);
    const std::vector<std::pair<std::string, Direction>> expected = {
        {"connection.closed", Direction::Initiator},
        {"connection.closed", Direction::Responder},
        {"startup.reply-before-private-data", Direction::Responder}};
    EXPECT_EQ(r.ids(true), expected);
    ASSERT_EQ(r.connections.size(), 1u);
    const ConnectionSummary& c = r.connections.front();
    ASSERT_TRUE(c.request.has_value());
    EXPECT_EQ(c.request->private_data.size(), 16u);
    EXPECT_GE(c.direction(Direction::Initiator).fpdus, s.initiator.messages.size());
    EXPECT_GE(c.direction(Direction::Responder).fpdus, s.responder.messages.size());
  }
}

TEST(Analyzer, AResponderThatClosesOnAnInvalidRequestIsNotBlamed) {
  const Recorder r = analyze(with_fault("startup.revision-unsupported"));
  EXPECT_TRUE(r.has(DiagId::StartupRevisionUnsupported));
  EXPECT_FALSE(r.has(DiagId::StartupInvalidRequestAnswered));
}

TEST(Analyzer, Ord3fffNotAnsweringIrd3fffFoundsTheInitiatorsTerminate) {
  const Recorder r = analyze(with_fault("startup.insufficient-ird--ord-3fff"));
  EXPECT_TRUE(r.has(DiagId::StartupInsufficientIrd));
  EXPECT_TRUE(r.has(DiagId::RdmapTerminate));
  EXPECT_FALSE(r.has(DiagId::RdmapTerminateDisagrees));
}

// HTTP: a GET, then a response whose body holds an MPA conversation's bytes after the header.
synth::Scenario http_download_of(const synth::Bytes& body) {
  synth::Scenario s = synth::base_scenario("analyzer-test-http");
  s.edit_plan = [body](synth::Plan& p) {
    auto turn = [](synth::Dir dir, synth::Bytes bytes, synth::Ending ending) {
      synth::Turn t;
      t.dir = dir;
      t.phase = synth::Phase::Streaming;
      synth::Chunk c;
      c.kind = synth::ChunkKind::Streaming;
      c.bytes = std::move(bytes);
      t.chunks.push_back(std::move(c));
      t.ending = ending;
      return t;
    };
    synth::Bytes get, response;
    synth::append(get, "GET /x.pcap HTTP/1.1\r\nHost: example.org\r\n\r\n");
    synth::append(response, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n");
    synth::append(response, body);
    p.turns = {turn(synth::Dir::Initiator, std::move(get), synth::Ending::None),
               turn(synth::Dir::Responder, std::move(response), synth::Ending::Fin)};
  };
  return s;
}
synth::Scenario http_download_of(const synth::Scenario& inner) {
  return http_download_of(synth::generate_pcap(inner));
}

// A sender's framing deviation is decided only after several FPDUs (here at the end of the
// stream), yet each face points at the FPDU whose octets show it.
TEST(Analyzer, AFindingIsPlacedWhereItsOctetsAreAndSaysWhereItBecameCertain) {
  for (const char* recipe : {"fpdu.pad-rule-wrong", "fpdu.crc-field-missing"}) {
    SCOPED_TRACE(recipe);
    const synth::Scenario s = with_fault(recipe);
    const Recorder r = analyze(s);
    const auto it = std::find_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
      return f.id == DiagId::FpduPadRuleWrong || f.id == DiagId::FpduCrcFieldMissing;
    });
    ASSERT_NE(it, r.findings.end());
    EXPECT_LT(it->frame, it->certain_at);
    // The frame holding the first deviating FPDU's ULPDU_Length field: the Initiator's first
    // data segment after the startup frames.
    const auto frames = synth::generate_frames(s);
    std::uint64_t number = 0;
    std::uint64_t first_fpdu_frame = 0;
    for (const auto& frame : frames) {
      ++number;
      const DecodeResult d =
          decode_frame(link_type::kEthernet, frame.bytes,
                       static_cast<std::uint32_t>(frame.bytes.size()), number, 0);
      if (d.status != DecodeStatus::Tcp || d.segment.payload.empty()) continue;
      const std::uint32_t into = it->tcp_seq.value() - d.segment.seq.value();
      if (d.segment.source == r.connections.at(0).initiator && into < d.segment.payload.size()) {
        first_fpdu_frame = number;
        break;
      }
    }
    EXPECT_EQ(it->frame, first_fpdu_frame);
  }
}

// RFC 5044's own text (tests/unit/data/README.md): it holds both startup keys, and its
// letters frame as "FPDUs" without CRCs or markers.
TEST(Analyzer, TheRfcsOwnTextDownloadedOverHttpIsNotMpaWhereverTheCaptureStarts) {
  std::ifstream in(MPA_SOURCE_DIR "/tests/unit/data/rfc5044.txt", std::ios::binary);
  const synth::Bytes text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_GT(text.size(), 100000u);
  for (const std::size_t start : {0, 2, 9}) {
    for (const bool infer_all : {false, true}) {
      SCOPED_TRACE(fmt::format("capture starts at the Responder's segment {}{}", start,
                               infer_all ? ", --infer-all" : ""));
      synth::Scenario s = http_download_of(text);
      // (The generator starts captures at segments of full operation: the download is one.)
      s.edit_plan = [edit = s.edit_plan](synth::Plan& p) {
        edit(p);
        p.turns.back().phase = synth::Phase::FullOperation;
      };
      if (start > 0) s.effects.start_at = synth::SegmentRef{synth::Dir::Responder, start};
      AnalyzerOptions options;
      options.infer_with_syn = infer_all;
      const Recorder r = analyze(s, options);
      EXPECT_TRUE(r.findings.empty())
          << info(r.findings.front().id).name << ": " << r.findings.front().message;
      EXPECT_TRUE(r.connections.empty());
    }
  }
}

TEST(Analyzer, KeysInsideANonMpaStreamThatNoPeerAnswersAreNotMpa) {
  for (const char* recipe :
       {"startup.revision-unsupported", "startup.no-reply", "startup.key-invalid"}) {
    SCOPED_TRACE(recipe);
    const Recorder r = analyze(http_download_of(with_fault(recipe)));
    EXPECT_TRUE(r.findings.empty())
        << info(r.findings.front().id).name << ": " << r.findings.front().message;
    EXPECT_TRUE(r.connections.empty());
    EXPECT_EQ(r.tcp_connections, 1u);
  }
  synth::Scenario valid = synth::base_scenario("analyzer-test-inner");
  const Recorder r = analyze(http_download_of(valid));
  EXPECT_TRUE(r.findings.empty());
  EXPECT_TRUE(r.connections.empty());
}

TEST(Analyzer, ADuplicatedRstIsOneTcpConnectionAndTheNotesNameWhoReset) {
  synth::Scenario s = conversation(false, true, 1);
  s.close = synth::Ending::Rst;
  s.closer = synth::Dir::Responder;
  s.effects.duplicate_rst = true;
  const Recorder r = analyze(s);
  EXPECT_EQ(r.tcp_connections, 1u);
  ASSERT_EQ(r.connections.size(), 1u);
  std::size_t closed = 0;
  for (const Finding& f : r.findings) {
    if (f.id != DiagId::ConnectionClosed) continue;
    ++closed;
    EXPECT_NE(f.message.find("reset by the responder (RST)"), std::string::npos) << f.message;
  }
  EXPECT_EQ(closed, 2u);
}

TEST(Analyzer, SummaryNamesEachSidesFirstSynFinAndRstWithTheirTimes) {
  synth::Scenario s = conversation(false, true, 1);
  s.close = synth::Ending::Rst;
  s.closer = synth::Dir::Responder;
  const Recorder r = analyze(s);
  ASSERT_EQ(r.connections.size(), 1u);
  const ConnectionSummary& c = r.connections[0];
  const TcpControlSeen& init = c.direction(Direction::Initiator).tcp;
  const TcpControlSeen& resp = c.direction(Direction::Responder).tcp;
  EXPECT_EQ(init.syn.frame, 1u);  // the SYN opens the capture
  EXPECT_GT(resp.syn.frame, 1u);  // the SYN-ACK follows
  EXPECT_EQ(init.rst.frame, 0u);
  EXPECT_EQ(resp.rst.frame, c.last_frame);
  EXPECT_EQ(init.fin.frame, 0u);
  EXPECT_EQ(resp.fin.frame, 0u);
  EXPECT_GE(init.syn.ns, s.start_time_us * 1000);
  EXPECT_EQ(c.first_ns, init.syn.ns);
  EXPECT_EQ(c.last_ns, resp.rst.ns);
  EXPECT_GT(c.last_ns, c.first_ns);
}

TEST(Analyzer, FpdusAndFindingsCarryTheTimeOfTheSegmentThatCompletedThem) {
  synth::Scenario s = conversation(true, true, 1);
  s.initiator.messages[2].tweaks.corrupt_crc = true;
  const Recorder r = analyze(s);
  ASSERT_EQ(r.connections.size(), 1u);
  const ConnectionSummary& c = r.connections[0];
  ASSERT_FALSE(r.fpdu_times.empty());
  EXPECT_EQ(r.fpdu_times.front(), c.first_fpdu_ns);
  for (std::uint64_t t : r.fpdu_times) {
    EXPECT_GE(t, c.first_ns);
    EXPECT_LE(t, c.last_ns);
  }
  EXPECT_TRUE(std::is_sorted(r.fpdu_times.begin(), r.fpdu_times.end()));
  for (const Finding& f : r.findings) {
    EXPECT_GE(f.timestamp_ns, c.first_ns) << info(f.id).name;
    EXPECT_LE(f.timestamp_ns, c.last_ns) << info(f.id).name;
  }
}

// --infer-all adds connections without startup frames; it never changes what is found on a
// connection whose startup frames are in the capture, also after streaming-mode octets
// (RFC 5044 7.1.3 delayed startup).
TEST(Analyzer, InferAllLeavesAConnectionWithStartupFramesAsItIs) {
  for (const std::size_t prefix : {0u, 100u, 3000u}) {
    SCOPED_TRACE(prefix);
    synth::Scenario s = conversation(true, true, 1);
    s.streaming_prefix = prefix;
    s.initiator.messages[2].tweaks.corrupt_crc = true;
    AnalyzerOptions infer_all;
    infer_all.infer_with_syn = true;
    const Recorder plain = analyze(s);
    const Recorder inferred = analyze(s, infer_all);
    EXPECT_TRUE(plain.has(DiagId::FpduCrcMismatch));
    EXPECT_EQ(inferred.ids(), plain.ids());
    EXPECT_EQ(inferred.fpdus, plain.fpdus);
  }
}

// The frames of `s` with the Initiator's TCP port moved to `port`: another connection between
// the same hosts (IPv4 over Ethernet, as synth writes it; the decoder reads no checksum).
std::vector<synth::CapturedFrame> frames_on_port(const synth::Scenario& s, std::uint16_t port) {
  std::vector<synth::CapturedFrame> frames = synth::generate_frames(s);
  const auto tcp_at = [](const synth::Bytes& b) { return 14u + 4u * (b[14] & 0x0fu); };
  const auto port_of = [](const synth::Bytes& b, std::size_t at) {
    return static_cast<std::uint16_t>(b[at] << 8 | b[at + 1]);
  };
  const std::uint16_t initiator = port_of(frames.front().bytes, tcp_at(frames.front().bytes));
  for (synth::CapturedFrame& f : frames) {
    const std::size_t tcp = tcp_at(f.bytes);
    for (std::size_t at : {tcp, tcp + 2}) {
      if (port_of(f.bytes, at) != initiator) continue;
      f.bytes[at] = static_cast<std::uint8_t>(port >> 8);
      f.bytes[at + 1] = static_cast<std::uint8_t>(port);
    }
  }
  return frames;
}

// Every event names a connection by the number all faces show: MPA connections from 0 in the
// order they became MPA, not the order TCP opened them; a TCP connection without MPA takes none.
TEST(Analyzer, ConnectionsAreNumberedInTheOrderTheyBecameMpa) {
  struct Numbers : EventSink {
    std::vector<std::uint32_t> started;
    std::map<std::uint32_t, std::uint16_t> initiator_port;  // at the end, by number
    std::map<std::uint32_t, std::uint64_t> fpdus, startup_frames, findings;
    void on_finding(const Finding& f) override { ++findings[f.connection]; }
    void on_fpdu(const FpduEvent& e) override { ++fpdus[e.connection]; }
    void on_startup_frame(std::uint32_t connection, Direction, const StartupFrame&, std::uint64_t,
                          TcpSeq) override {
      ++startup_frames[connection];
    }
    void on_connection_start(const ConnectionSummary& c) override { started.push_back(c.id); }
    void on_connection_end(const ConnectionSummary& c) override {
      initiator_port[c.id] = c.initiator.port;
      EXPECT_EQ(c.direction(Direction::Initiator).fpdus + c.direction(Direction::Responder).fpdus,
                fpdus[c.id]);
      EXPECT_EQ(std::accumulate(c.findings.values.begin(), c.findings.values.end(), 0ull),
                findings[c.id]);
    }
  };
  synth::Scenario faulty = conversation(false, true, 1);
  faulty.initiator.messages[2].tweaks.corrupt_crc = true;
  const auto not_mpa = frames_on_port(http_download_of(synth::base_scenario("inner")), 2000);
  const auto opened_second = frames_on_port(faulty, 3000);
  const auto opened_first = frames_on_port(conversation(true, true, 2), 4000);
  // TCP opens 2000, then 4000 (its handshake only), then 3000, which becomes MPA first.
  std::vector<const synth::CapturedFrame*> order;
  for (const auto& f : not_mpa) order.push_back(&f);
  for (std::size_t i = 0; i < 3; ++i) order.push_back(&opened_first[i]);
  for (const auto& f : opened_second) order.push_back(&f);
  for (std::size_t i = 3; i < opened_first.size(); ++i) order.push_back(&opened_first[i]);

  Numbers numbers;
  Analyzer analyzer({}, numbers);
  std::uint64_t number = 0;
  for (const synth::CapturedFrame* frame : order) {
    ++number;
    const DecodeResult decoded =
        decode_frame(link_type::kEthernet, frame->bytes,
                     static_cast<std::uint32_t>(frame->bytes.size()), number, number * 1000);
    ASSERT_EQ(decoded.status, DecodeStatus::Tcp);
    analyzer.on_segment(decoded.segment);
  }
  analyzer.finish(number);
  EXPECT_EQ(analyzer.tcp_connections(), 3u);
  EXPECT_EQ(numbers.started, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(numbers.initiator_port, (std::map<std::uint32_t, std::uint16_t>{{0, 3000}, {1, 4000}}));
  EXPECT_EQ(numbers.startup_frames, (std::map<std::uint32_t, std::uint64_t>{{0, 2}, {1, 2}}));
  EXPECT_GT(numbers.fpdus[0], 0u);
  EXPECT_GT(numbers.fpdus[1], 0u);
  EXPECT_EQ(numbers.fpdus.size(), 2u);
  EXPECT_GT(numbers.findings[0], 0u);  // the corrupted CRC
}

// A segment's CRC worked out before the analysis (TcpSegment::payload_crc, as the pipeline's
// reading thread gives it) is taken for the FPDU that fills the segment: given right, the
// analysis is the one without it; given one bit off, those FPDUs' CRCs are wrong.
TEST(Analyzer, ACrcGivenWithASegmentIsTheCrcOfTheFpduThatFillsIt) {
  synth::Scenario s = synth::base_scenario("given-crc");
  synth::set_revision(s, 2);
  s.initiator.frame.m = s.responder.frame.m = true;
  s.initiator.frame.c = true;
  s.initiator.messages = synth::mixed_messages(40, {1442, 64, 9000, 17});
  s.responder.messages = synth::mixed_messages(20, {512, 4096});
  const auto given = [](std::uint32_t off) {
    return [off](std::span<const std::uint8_t> payload) -> std::optional<std::uint32_t> {
      const std::optional<std::uint32_t> state = test::crc_but_last_four(payload);
      if (!state) return std::nullopt;
      return *state ^ off;
    };
  };
  const Recorder computed = analyze(s);
  const Recorder right = analyze(s, {}, given(0));
  const Recorder wrong = analyze(s, {}, given(1));
  ASSERT_GT(computed.fpdus.size(), 60u);
  EXPECT_FALSE(computed.has(DiagId::FpduCrcMismatch));
  EXPECT_EQ(right.fpdus, computed.fpdus);
  EXPECT_EQ(right.ids(), computed.ids());
  EXPECT_TRUE(wrong.has(DiagId::FpduCrcMismatch));
}

}  // namespace
}  // namespace mpa
