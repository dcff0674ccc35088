// The capture pipeline: records -> decode_frame -> Analyzer (see pipeline.h).
#include "mpa/pipeline.h"

#include <fmt/format.h>

#include "mpa/packet_decoder.h"

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
  for (;;) {
    const ReadStatus status = reader.next(record);
    if (status == ReadStatus::End) break;
    if (status == ReadStatus::Error) {
      result.ok = false;
      result.error = reader.error();
      break;
    }
    ++result.stats.frames;
    result.stats.bytes += record.data.size();
    const DecodeResult decoded = decode_frame(link, record.data, record.original_length,
                                              record.number, record.timestamp_ns);
    switch (decoded.status) {
      case DecodeStatus::Tcp:
        ++result.stats.tcp_segments;
        analyzer.on_segment(decoded.segment);
        break;
      case DecodeStatus::IpFragment:
        ++result.stats.ip_fragments;
        analyzer.on_ip_fragment(record.number, decoded.detail);
        break;
      case DecodeStatus::Malformed: ++result.stats.malformed_frames; break;
      default: ++result.stats.other_frames; break;
    }
    if (progress && (record.number & 0x3FFF) == 0) progress(reader);
  }
  analyzer.finish(result.stats.frames);
  return result;
}

}  // namespace mpa
