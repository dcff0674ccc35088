// The whole capture pipeline: a capture file, record by record, through the frame feeder
// (frame_feeder.h: packet decoder, then the Analyzer), each record by its own link type.
// Part of mpa_capture (libpcap).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "mpa/analyzer.h"
#include "mpa/capture_reader.h"
#include "mpa/frame_feeder.h"

namespace mpa {

struct PipelineResult {
  bool ok = true;     // false: the file could not be read to its end (see error)
  std::string error;  // names the file and the record
  CaptureStats stats;
};

// A record as the pipeline feeds it: a frame of its own interface's link type (a pcapng file
// may mix them; CaptureReader::link_type() is only the first interface's).
CapturedFrame captured_frame(const CaptureRecord& record);

// Reads every record of `reader`, decodes it (IP fragments reassembled) and feeds TCP
// segments to `analyzer`, then finishes the feeder and the analyzer. `progress` (may be empty) is
// called now and then with the reader.
PipelineResult run_pipeline(CaptureReader& reader, Analyzer& analyzer,
                            const std::function<void(const CaptureReader&)>& progress = {});
// The same through the caller's `feeder` (whose tunnel names a report reads while
// connections end).
PipelineResult run_pipeline(CaptureReader& reader, FrameFeeder& feeder,
                            const std::function<void(const CaptureReader&)>& progress = {});

}  // namespace mpa
