// The whole capture pipeline: a capture file, record by record, through the frame feeder
// (frame_feeder.h: packet decoder, then the Analyzer), each record by its own link type.
// Part of mpa_capture (libpcap).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "mpa/analyzer.h"
#include "mpa/capture_reader.h"
#include "mpa/frame_feeder.h"

namespace mpa {

struct PipelineResult {
  bool ok = true;     // false: the file could not be read to its end (see error)
  std::string error;  // names the file and the record
  CaptureStats stats;
  // A live capture: libpcap's counters at its end. Packets the kernel dropped are missing
  // from the capture: the gaps they leave are reported as such (capture.gap, "could not
  // verify"), never as protocol errors.
  std::optional<LiveStats> live;
};

// A record as the pipeline feeds it: a frame of its own interface's link type (a pcapng file
// may mix them; CaptureReader::link_type() is only the first interface's).
CapturedFrame captured_frame(const CaptureRecord& record);

struct PipelineOptions {
  // A regular file (plain or compressed) is read, and decompressed, on a thread of its own
  // that hands records over in batches through a bounded queue, while this thread decodes
  // and analyses them: the same records in the same order, so the same results. false: one
  // thread does both, one record after the other. Live captures and pipes are always read
  // on the analysing thread (their records are analysed as soon as they arrive).
  bool read_thread = true;
  // With a reading thread, where a file's records are decoded: unset, on the reading
  // thread while the analysing one has batches waiting, else on the analysing thread (each
  // takes the work the other has no time for); true: always on the reading thread; false:
  // never. A segment decoded on the reading thread comes with the CRC of its payload
  // (TcpSegment::payload_crc), the CRC of an FPDU that fills it, where it may be one
  // (FpduGrammar::may_be_one_fpdu). The results are the same whichever decodes.
  std::optional<bool> decode_while_reading;
};

// Reads every record of `reader`, decodes it (IP fragments reassembled) and feeds TCP
// segments to `analyzer`, then finishes the feeder and the analyzer. `progress` (may be empty) is
// called now and then with the reader (on the thread that reads).
PipelineResult run_pipeline(CaptureReader& reader, Analyzer& analyzer,
                            const std::function<void(const CaptureReader&)>& progress = {},
                            const PipelineOptions& options = {});
// The same through the caller's `feeder` (whose tunnel names a report reads while
// connections end).
PipelineResult run_pipeline(CaptureReader& reader, FrameFeeder& feeder,
                            const std::function<void(const CaptureReader&)>& progress = {},
                            const PipelineOptions& options = {});

}  // namespace mpa
