// Tests of the connection analyzer (lib/src/analyzer.cpp) over conversations made by the
// mpa-synth library: split invariance across segmentation policies, roles, negotiation per
// direction, and recognition of captures that miss their startup frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "generator.h"
#include "mpa/analyzer.h"
#include "mpa/packet_decoder.h"
#include "scenario.h"

namespace mpa {
namespace {

struct FpduFact {
  Direction direction;
  std::uint32_t header_seq;
  std::uint16_t ulpdu_length;
  CrcStatus crc;
  std::size_t markers;
  friend bool operator==(const FpduFact&, const FpduFact&) = default;
};

struct Recorder : EventSink {
  std::vector<Finding> findings;
  std::vector<FpduFact> fpdus;
  std::vector<ConnectionSummary> connections;
  std::vector<std::uint64_t> fpdu_times;
  void on_finding(const Finding& f) override { findings.push_back(f); }
  void on_fpdu(const FpduEvent& e) override {
    fpdu_times.push_back(e.timestamp_ns);
    fpdus.push_back({e.direction, e.header_seq.value(), e.ulpdu_length, e.crc_status, e.markers.size()});
  }
  void on_connection_end(const ConnectionSummary& s) override { connections.push_back(s); }

  std::vector<std::pair<std::string, Direction>> ids(bool without_segmentation_notes = false) const {
    std::vector<std::pair<std::string, Direction>> out;
    for (const Finding& f : findings) {
      if (without_segmentation_notes && f.id == DiagId::FpduNotSegmentAligned) continue;
      out.emplace_back(std::string(info(f.id).name), f.direction);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  bool has(DiagId id) const {
    return std::any_of(findings.begin(), findings.end(), [id](const Finding& f) { return f.id == id; });
  }
};

Recorder analyze(const synth::Scenario& scenario, AnalyzerOptions options = {}) {
  Recorder recorder;
  Analyzer analyzer(options, recorder);
  const auto frames = synth::generate_frames(scenario);
  std::uint64_t number = 0;
  for (const auto& frame : frames) {
    ++number;
    const DecodeResult decoded = decode_frame(link_type::kEthernet, frame.bytes,
                                              static_cast<std::uint32_t>(frame.bytes.size()), number,
                                              frame.time_us * 1000);
    if (decoded.status == DecodeStatus::Tcp) analyzer.on_segment(decoded.segment);
  }
  analyzer.finish(number);
  return recorder;
}

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

class AnalyzerSplitInvariance : public ::testing::TestWithParam<std::tuple<bool, bool, std::uint8_t>> {};

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
                           [&](const FpduFact& w) { return w.header_seq == f.header_seq && w.ulpdu_length == f.ulpdu_length; }),
              whole.fpdus.end());
  }
  for (const Finding& f : r.findings) EXPECT_EQ(info(f.id).severity, Severity::Note) << info(f.id).name;
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

}  // namespace
}  // namespace mpa
