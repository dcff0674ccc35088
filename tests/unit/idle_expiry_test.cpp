// Tests of the idle timeout (AnalyzerOptions::idle_timeout_ns, issue 44 item 5): a connection
// with no segment for longer than the timeout is finished and freed as at the end of the
// capture, its summary says it expired, and nothing else about it changes.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "generator.h"
#include "mpa/analyzer.h"
#include "mpa/packet_decoder.h"
#include "scenario.h"
#include "scenario_analysis.h"

namespace mpa {
namespace {

constexpr std::uint64_t kMinute = 60'000'000'000ull;

// A conversation between `host` and its peer that never closes (a live run's idle connection).
synth::Scenario open_conversation(std::uint8_t host) {
  synth::Scenario s = synth::base_scenario("idle");
  s.ipv4 = std::array<std::array<std::uint8_t, 4>, 2>{{{192, 0, 2, host}, {192, 0, 2, 200}}};
  s.initiator.messages = synth::mixed_messages(4, {100, 2000, 64});
  s.responder.messages = synth::mixed_messages(3, {300, 17});
  s.close = synth::Ending::None;
  return s;
}

// Each conversation's frames in turn, the second starting `pause_ns` after the first's last
// frame, then the capture's end.
struct Outcome {
  Recorder recorder;
  std::uint64_t expired = 0;
  // Connections ended before the second conversation's first segment, and after it.
  std::size_t ended_before_second = 0, ended_after_its_first = 0;
};

Outcome analyze_two(std::uint64_t timeout_ns, std::uint64_t pause_ns) {
  Outcome out;
  AnalyzerOptions options;
  options.idle_timeout_ns = timeout_ns;
  Analyzer analyzer(options, out.recorder);
  std::uint64_t number = 0, shift_ns = 0, last_ns = 0;
  int which = 0;
  std::uint64_t first_number = 0;
  for (std::uint8_t host : {10, 20}) {
    first_number = number + 1;
    for (const auto& frame : synth::generate_frames(open_conversation(host))) {
      std::uint64_t ns = frame.time_us * 1000 + shift_ns;
      if (which == 1 && shift_ns == 0) shift_ns = last_ns + pause_ns - ns, ns = last_ns + pause_ns;
      DecodeResult decoded =
          decode_frame(link_type::kEthernet, frame.bytes,
                       static_cast<std::uint32_t>(frame.bytes.size()), ++number, ns);
      const bool first_of_second = which == 1 && number == first_number;
      if (first_of_second) out.ended_before_second = out.recorder.connections.size();
      if (decoded.status == DecodeStatus::Tcp) analyzer.on_segment(decoded.segment);
      if (first_of_second) out.ended_after_its_first = out.recorder.connections.size();
      last_ns = ns;
    }
    ++which;
  }
  analyzer.finish(number);
  out.expired = analyzer.expired_connections();
  return out;
}

TEST(IdleExpiry, AConnectionIdleLongerThanTheTimeoutIsFinishedBeforeTheNextSegment) {
  const Outcome r = analyze_two(5 * kMinute, 10 * kMinute);
  ASSERT_EQ(r.recorder.connections.size(), 2u);
  EXPECT_EQ(r.expired, 1u);
  // The first ended (expired) when the second's first segment came, before the capture's end.
  EXPECT_EQ(r.ended_before_second, 0u);
  EXPECT_EQ(r.ended_after_its_first, 1u);
  EXPECT_TRUE(r.recorder.connections[0].expired);
  EXPECT_FALSE(r.recorder.connections[1].expired);  // ended by the capture's end
  EXPECT_EQ(r.recorder.connections[0].initiator.address.bytes[3], 10);
}

TEST(IdleExpiry, ExpiringChangesNothingButTheSummarysWord) {
  const Outcome expired = analyze_two(5 * kMinute, 10 * kMinute);
  const Outcome kept = analyze_two(0, 10 * kMinute);
  EXPECT_EQ(kept.expired, 0u);
  ASSERT_EQ(kept.recorder.connections.size(), 2u);
  EXPECT_FALSE(kept.recorder.connections[0].expired);
  EXPECT_EQ(expired.recorder.ids(), kept.recorder.ids());
  EXPECT_EQ(expired.recorder.fpdus, kept.recorder.fpdus);
  for (const Finding& f : expired.recorder.findings) {
    EXPECT_NE(info(f.id).severity, Severity::Error) << info(f.id).name << ": " << f.message;
  }
}

TEST(IdleExpiry, AConnectionActiveWithinTheTimeoutStays) {
  const Outcome r = analyze_two(5 * kMinute, 4 * kMinute);
  EXPECT_EQ(r.expired, 0u);
  EXPECT_EQ(r.ended_after_its_first, 0u);
  ASSERT_EQ(r.recorder.connections.size(), 2u);
  EXPECT_FALSE(r.recorder.connections[0].expired);
  EXPECT_FALSE(r.recorder.connections[1].expired);
}

}  // namespace
}  // namespace mpa
