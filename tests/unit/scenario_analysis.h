// A synthetic conversation (mpa-synth) run through the connection analyzer, with what it
// reported recorded: the unit tests' way to hold the analyzer to a scenario.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "generator.h"
#include "mpa/analyzer.h"
#include "mpa/packet_decoder.h"
#include "scenario.h"
#include "test_streams.h"  // test::GivenCrc

namespace mpa {

struct FpduFact {
  Direction direction;
  std::uint32_t header_seq;
  std::uint16_t ulpdu_length;
  CrcStatus crc;
  std::size_t markers;
  friend bool operator==(const FpduFact&, const FpduFact&) = default;
};

// An FPDU reported again as its sender framed it (EventSink::on_fpdu_revised).
struct RevisedFact {
  Direction direction;
  std::uint32_t start_seq;
  std::uint32_t ulpdu_size;
  std::uint8_t pad_length;
  bool crc_field;
  std::uint32_t wire_length;
  bool markers;
  friend bool operator==(const RevisedFact&, const RevisedFact&) = default;
};

struct Recorder : EventSink {
  std::vector<Finding> findings;
  std::vector<FpduFact> fpdus;
  std::vector<ConnectionSummary> connections;
  std::uint64_t tcp_connections = 0;
  std::vector<std::uint64_t> fpdu_times;
  void on_finding(const Finding& f) override { findings.push_back(f); }
  void on_fpdu(const FpduEvent& e) override {
    fpdu_times.push_back(e.timestamp_ns);
    fpdus.push_back(
        {e.direction, e.header_seq.value(), e.ulpdu_length, e.crc_status, e.markers.size()});
  }
  void on_connection_end(const ConnectionSummary& s) override { connections.push_back(s); }
  std::vector<RevisedFact> revised;
  void on_fpdu_revised(const FpduEvent& e, bool markers) override {
    revised.push_back({e.direction, e.start_seq.value(), e.ulpdu_size, e.pad_length, e.crc_field,
                       e.wire_length, markers});
  }

  std::vector<std::pair<std::string, Direction>> ids(
      bool without_segmentation_notes = false) const {
    std::vector<std::pair<std::string, Direction>> out;
    for (const Finding& f : findings) {
      if (without_segmentation_notes && f.id == DiagId::FpduNotSegmentAligned) continue;
      out.emplace_back(std::string(info(f.id).name), f.direction);
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  bool has(DiagId id) const {
    return std::any_of(findings.begin(), findings.end(),
                       [id](const Finding& f) { return f.id == id; });
  }
};

// `payload_crc`: what each segment comes with as TcpSegment::payload_crc (none: as decoded).
inline Recorder analyze(const synth::Scenario& scenario, AnalyzerOptions options = {},
                        const test::GivenCrc& payload_crc = {}) {
  Recorder recorder;
  Analyzer analyzer(options, recorder);
  const auto frames = synth::generate_frames(scenario);
  std::uint64_t number = 0;
  for (const auto& frame : frames) {
    ++number;
    DecodeResult decoded =
        decode_frame(link_type::kEthernet, frame.bytes,
                     static_cast<std::uint32_t>(frame.bytes.size()), number, frame.time_us * 1000);
    if (payload_crc) decoded.segment.payload_crc = payload_crc(decoded.segment.payload);
    if (decoded.status == DecodeStatus::Tcp) analyzer.on_segment(decoded.segment);
  }
  analyzer.finish(number);
  recorder.tcp_connections = analyzer.tcp_connections();
  return recorder;
}

}  // namespace mpa
