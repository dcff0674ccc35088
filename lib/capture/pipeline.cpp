// The capture pipeline: records -> FrameFeeder (decode_frame -> Analyzer) (see pipeline.h).
#include "mpa/pipeline.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "mpa/frame_feeder.h"

namespace mpa {

CapturedFrame captured_frame(const CaptureRecord& record) {
  return {record.number, record.link_type, record.data, record.original_length,
          record.timestamp_ns};
}

PipelineResult run_pipeline(CaptureReader& reader, Analyzer& analyzer,
                            const std::function<void(const CaptureReader&)>& progress) {
  FrameFeeder feeder(analyzer);
  return run_pipeline(reader, feeder, progress);
}

PipelineResult run_pipeline(CaptureReader& reader, FrameFeeder& feeder,
                            const std::function<void(const CaptureReader&)>& progress) {
  PipelineResult result;
  CaptureRecord record;
  // A capture none of whose interfaces (those declared before its first record) the decoder
  // knows is refused; in one that mixes link types, frames of an unknown one count as not TCP.
  const std::vector<std::uint32_t>& links = reader.link_types();
  if (!links.empty() && std::none_of(links.begin(), links.end(), is_supported_link_type)) {
    result.ok = false;
    result.error = fmt::format(
        "{}: unsupported link type {} (supported: Ethernet, Linux SLL/SLL2, "
        "raw IP, BSD loopback)",
        reader.path() == "-" ? std::string("<stdin>") : reader.path(), fmt::join(links, ", "));
    feeder.finish(0);
    return result;
  }
  for (;;) {
    const ReadStatus status = reader.next(record);
    if (status == ReadStatus::End) break;
    if (status == ReadStatus::Error) {
      result.ok = false;
      result.error = reader.error();
      break;
    }
    feeder.feed(captured_frame(record));
    if (progress && (record.number & 0x3FFF) == 0) progress(reader);
  }
  feeder.finish(feeder.stats().frames);
  result.stats = feeder.stats();
  return result;
}

}  // namespace mpa
