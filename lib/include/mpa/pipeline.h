// The whole capture pipeline: a capture file through the packet decoder into the
// Analyzer. Part of mpa_capture (libpcap).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "mpa/analyzer.h"
#include "mpa/capture_reader.h"

namespace mpa {

struct CaptureStats {
  std::uint64_t frames = 0;
  std::uint64_t bytes = 0;          // captured octets of all records
  std::uint64_t tcp_segments = 0;
  std::uint64_t other_frames = 0;   // not TCP
  std::uint64_t malformed_frames = 0;
  std::uint64_t ip_fragments = 0;
};

struct PipelineResult {
  bool ok = true;      // false: the file could not be read to its end (see error)
  std::string error;   // names the file and the record
  CaptureStats stats;
};

// Reads every record of `reader`, decodes it and feeds TCP segments to `analyzer`, then
// finishes the analyzer. `progress` (may be empty) is called now and then with the reader.
PipelineResult run_pipeline(CaptureReader& reader, Analyzer& analyzer,
                            const std::function<void(const CaptureReader&)>& progress = {});

}  // namespace mpa
