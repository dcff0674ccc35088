// The MPA connection analyzer (RFC 5044 7.1, 4, 8; RFC 6581): TCP segments of a whole
// capture in, findings and facts out. Per TCP connection it reassembles both directions,
// follows streaming mode -> startup frames -> full operation, settles roles by who sent the
// MPA Request (not who sent the SYN), negotiates markers and CRC per direction, checks the
// startup ordering rules, and hands full-operation bytes to an FpduReader per direction.
// Captures that miss the startup frames are recognised by their FPDU structure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "mpa/analysis_options.h"
#include "mpa/diagnostics.h"
#include "mpa/packet.h"

namespace mpa {

class Analyzer {
 public:
  Analyzer(AnalyzerOptions options, EventSink& sink);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  void on_segment(const TcpSegment& segment);
  // Frame `number` lies at `place` in the capture file: the findings about it say so
  // (Finding::frame_place) while it is among the last kFramePlaces frames given. FrameFeeder
  // gives every frame it is fed, before what the frame holds.
  static constexpr std::size_t kFramePlaces = std::size_t{1} << 15;
  void on_frame(std::uint64_t number, const FramePlace& place);
  // A finding about the capture rather than a connection (IP reassembly: a datagram given up
  // incomplete, overlapping fragments that differ), at `frame`.
  void on_capture_finding(DiagId id, std::uint64_t frame, std::uint64_t timestamp_ns,
                          std::string detail);
  // End of the capture: every open connection is finished.
  void finish(std::uint64_t last_frame);

  std::uint64_t tcp_connections() const;
  std::uint64_t mpa_connections() const;
  // TCP connections finished for being idle (AnalyzerOptions::idle_timeout_ns).
  std::uint64_t expired_connections() const;
  const AnalyzerOptions& options() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mpa
