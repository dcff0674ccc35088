// The capture pipeline: records -> FrameFeeder (decode_frame -> Analyzer) (see pipeline.h).
#include "mpa/pipeline.h"

#include <fmt/format.h>

#include "mpa/frame_feeder.h"

namespace mpa {

PipelineResult run_pipeline(CaptureReader& reader, Analyzer& analyzer,
                            const std::function<void(const CaptureReader&)>& progress) {
  PipelineResult result;
  CaptureRecord record;
  const std::uint32_t link = reader.link_type();
  if (!is_supported_link_type(link)) {
    result.ok = false;
    result.error = fmt::format("{}: unsupported link type {} (supported: Ethernet, Linux SLL/SLL2, "
                               "raw IP, BSD loopback)",
                               reader.path() == "-" ? std::string("<stdin>") : reader.path(), link);
    analyzer.finish(0);
    return result;
  }
  FrameFeeder feeder(analyzer);
  for (;;) {
    const ReadStatus status = reader.next(record);
    if (status == ReadStatus::End) break;
    if (status == ReadStatus::Error) {
      result.ok = false;
      result.error = reader.error();
      break;
    }
    feeder.feed({record.number, link, record.data, record.original_length, record.timestamp_ns});
    if (progress && (record.number & 0x3FFF) == 0) progress(reader);
  }
  result.stats = feeder.stats();
  analyzer.finish(result.stats.frames);
  return result;
}

}  // namespace mpa
