// Fuzz target: the whole pipeline. The fuzzer's bytes are a pcap or pcapng file (or one
// compressed), read by CaptureReader (libpcap for pcap, pcapng_stream for pcapng) from a
// memfd, decoded (link, IP, TCP) and analyzed to the end.
// A file that cannot be read must say so with a message naming the file; records before
// the unreadable one are still analyzed.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "fuzz_support.h"
#include "mpa/analyzer.h"
#include "mpa/capture_reader.h"
#include "mpa/diagnostics.h"
#include "mpa/pipeline.h"

namespace {

class CountingSink : public mpa::EventSink {
 public:
  void on_finding(const mpa::Finding& f) override {
    MPA_FUZZ_CHECK(static_cast<std::size_t>(f.id) < static_cast<std::size_t>(mpa::DiagId::kCount),
                   "finding id outside the catalogue");
    ++findings;
  }
  void on_connection_end(const mpa::ConnectionSummary&) override { ++ends; }
  std::uint64_t findings = 0;
  std::uint64_t ends = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = mpa::fuzz::write_memory_file({data, size});

  std::string error;
  auto reader = mpa::CaptureReader::open(path, error);
  if (!reader) {
    MPA_FUZZ_CHECK(error.find(path) != std::string::npos, "open error does not name the file");
    return 0;
  }
  CountingSink sink;
  mpa::AnalyzerOptions options;
  // Small ceilings so that fuzzed captures reach them.
  options.max_connections = 8;
  options.reassembly.max_buffered_bytes = 64u << 10;
  options.inference_window = 16u << 10;
  options.ip_reassembly.max_datagrams = 8;
  options.ip_reassembly.max_octets = 256u << 10;
  mpa::Analyzer analyzer(options, sink);
  std::uint64_t progress_calls = 0;
  const mpa::PipelineResult result =
      mpa::run_pipeline(*reader, analyzer, [&progress_calls](const mpa::CaptureReader& r) {
        ++progress_calls;
        MPA_FUZZ_CHECK(r.file_size() == 0 || r.bytes_read() <= r.file_size(),
                       "read beyond the file");
      });
  if (!result.ok) {
    MPA_FUZZ_CHECK(result.error.find(path) != std::string::npos,
                   "read error does not name the file");
  }
  // Each frame, and each datagram reassembled from IP fragments, counted once by what it held.
  MPA_FUZZ_CHECK(result.stats.tcp_segments + result.stats.other_frames +
                         result.stats.malformed_frames + result.stats.ip_fragments ==
                     result.stats.frames + result.stats.ip_datagrams,
                 "frames counted twice or not at all");
  MPA_FUZZ_CHECK(result.stats.reassembled_segments <= result.stats.ip_datagrams &&
                     result.stats.ip_datagrams <= result.stats.ip_fragments,
                 "a datagram reassembled from no fragment");
  MPA_FUZZ_CHECK(sink.ends == analyzer.mpa_connections(), "an MPA connection never ended");
  return 0;
}
