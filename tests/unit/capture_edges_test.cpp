// A capture whose edges cut the connection's opening (issue: captures as the field has them):
// started after the SYN, at the SYN-ACK, at the final ACK or exactly at the MPA Request (also
// a Request that arrives in segments shorter than its 16-octet key), or ended inside a
// startup frame. The startup frames are still recognised and judged; the capture's end is
// not the connection's.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "scenario.h"
#include "scenario_analysis.h"

namespace mpa {
namespace {

synth::Scenario conversation(const std::string& segmentation) {
  synth::Scenario s = synth::base_scenario("capture-edges");
  s.segmentation = *synth::SegmentationPolicy::parse(segmentation);
  s.initiator.messages = synth::mixed_messages(6, {100, 1, 1441, 3});
  s.responder.messages = synth::mixed_messages(4, {17, 2000});
  return s;
}

struct EdgeCase {
  synth::CaptureEdge edge;
  const char* segmentation;
};

std::string edge_case_name(const ::testing::TestParamInfo<EdgeCase>& info) {
  static const char* const edges[] = {"SynAck", "FinalAck", "Request", "Reply"};
  std::string name = edges[static_cast<int>(info.param.edge)];
  for (const char c : std::string(info.param.segmentation)) {
    if (std::isalnum(static_cast<unsigned char>(c))) name += c;
  }
  return name;
}

class CaptureStartsAtTheOpening : public ::testing::TestWithParam<EdgeCase> {};

TEST_P(CaptureStartsAtTheOpening, StartupFramesAreRecognisedAndJudged) {
  const synth::Scenario whole = conversation(GetParam().segmentation);
  synth::Scenario cut = whole;
  cut.effects.start_at_edge = GetParam().edge;
  const Recorder all = analyze(whole);
  const Recorder r = analyze(cut);
  ASSERT_EQ(r.connections.size(), 1u);
  const ConnectionSummary& c = r.connections.front();
  EXPECT_TRUE(c.startup_seen);
  EXPECT_TRUE(c.request.has_value());
  EXPECT_TRUE(c.reply.has_value());
  // The same FPDUs and the same findings (the SYN's notes aside) as the whole capture.
  EXPECT_EQ(r.fpdus, all.fpdus);
  std::vector<std::pair<std::string, Direction>> errors;
  for (const Finding& f : r.findings) {
    if (info(f.id).severity != Severity::Note) errors.emplace_back(info(f.id).name, f.direction);
  }
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors.front().first);
}

INSTANTIATE_TEST_SUITE_P(Edges, CaptureStartsAtTheOpening,
                         ::testing::Values(EdgeCase{synth::CaptureEdge::SynAck, "one"},
                                           EdgeCase{synth::CaptureEdge::FinalAck, "one"},
                                           EdgeCase{synth::CaptureEdge::Request, "one"},
                                           EdgeCase{synth::CaptureEdge::Request, "bytes"},
                                           EdgeCase{synth::CaptureEdge::Request, "middlebox:7"},
                                           EdgeCase{synth::CaptureEdge::SynAck, "middlebox:7"}),
                         edge_case_name);

class CaptureEndsInsideAStartupFrame : public ::testing::TestWithParam<EdgeCase> {};

TEST_P(CaptureEndsInsideAStartupFrame, TheConnectionIsListedWithoutALossFinding) {
  synth::Scenario s = conversation(GetParam().segmentation);
  // 12 octets, or 14 (two segments of 7): inside the key, past its distinctive "MPA ID Re".
  const bool bytes = GetParam().segmentation == std::string("bytes");
  s.effects.end_inside = synth::EndInside{GetParam().edge, bytes ? 12u : 2u};
  const Recorder r = analyze(s);
  ASSERT_EQ(r.connections.size(), 1u) << "the connection is not listed";
  const ConnectionSummary& c = r.connections.front();
  if (GetParam().edge == synth::CaptureEdge::Reply) {
    EXPECT_TRUE(c.request.has_value());
  }
  for (const Finding& f : r.findings) {
    EXPECT_EQ(info(f.id).severity, Severity::Note) << info(f.id).name << ": " << f.message;
  }
  EXPECT_TRUE(r.has(DiagId::CaptureStartupFrameCut));
  EXPECT_FALSE(r.has(DiagId::ConnectionLostMidStartup));
}

INSTANTIATE_TEST_SUITE_P(Edges, CaptureEndsInsideAStartupFrame,
                         ::testing::Values(EdgeCase{synth::CaptureEdge::Request, "bytes"},
                                           EdgeCase{synth::CaptureEdge::Request, "middlebox:7"},
                                           EdgeCase{synth::CaptureEdge::Reply, "bytes"},
                                           EdgeCase{synth::CaptureEdge::Reply, "middlebox:7"}),
                         edge_case_name);

}  // namespace
}  // namespace mpa
