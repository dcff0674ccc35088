// Reading captures for mpa-check: opening a capture or an interface, the analysis of one
// capture into its report (with the progress line), many at once, and folders of captures.
#include "capture_check.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

namespace mpa::cli {
namespace {

// --read-threads by default: a thread of its own for reading where the machine has two cores
// or more and one of them is free (a load average below the cores less one). On a machine
// busy with other work, the two threads would share what one gets, and handing records over
// between cores costs more than it saves.
unsigned auto_read_threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  if (cores < 2) return 1;
  double load = 0;
  if (getloadavg(&load, 1) != 1) return 2;
  return load < static_cast<double>(cores) - 1.0 ? 2 : 1;
}

// A progress line on stderr for large inputs when stderr is a terminal.
class Progress {
 public:
  Progress(When mode, const std::string& file)
      : file_(file), start_(std::chrono::steady_clock::now()) {
    enabled_ = mode == When::Always || (mode == When::Auto && isatty(STDERR_FILENO));
  }
  void update(const mpa::CaptureReader& reader) {
    if (!enabled_ || (reader.file_size() < (64u << 20) && reader.file_size() != 0)) return;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double mb = static_cast<double>(reader.bytes_read()) / 1e6;
    if (reader.file_size() > 0) {
      fmt::print(stderr, "\r{}: {:3.0f}% ({:.0f} MB, {:.0f} MB/s)  ", file_,
                 100.0 * static_cast<double>(reader.bytes_read()) /
                     static_cast<double>(reader.file_size()),
                 mb, seconds > 0 ? mb / seconds : 0.0);
    } else {
      fmt::print(stderr, "\r{}: {:.0f} MB ({:.0f} MB/s)  ", file_, mb,
                 seconds > 0 ? mb / seconds : 0.0);
    }
    shown_ = true;
  }
  ~Progress() {
    if (shown_) fmt::print(stderr, "\r\033[K");
  }

 private:
  std::string file_;
  std::chrono::steady_clock::time_point start_;
  bool enabled_ = false;
  bool shown_ = false;
};

// The reader being read, for the SIGINT/SIGTERM handler: Ctrl-C ends the capture, and the
// report of what was read follows.
std::atomic<mpa::CaptureReader*> g_reader{nullptr};

extern "C" void on_interrupt(int) {
  if (mpa::CaptureReader* reader = g_reader.load()) reader->stop();
}

// Opens the capture of `report` (the interface of -i, else `path`); null when it cannot be,
// the report then saying why.
std::unique_ptr<CaptureReader> open_capture(const std::string& path, const LiveOptions& live,
                                            report::CaptureReport& report) {
  std::string error;
  std::unique_ptr<CaptureReader> reader;
  if (!live.interface.empty()) {
    CaptureReader::LiveOptions options;
    options.interface = live.interface;
    options.filter = live.filter;
    options.duration_ms = static_cast<std::uint64_t>(live.duration * 1000.0);
    reader = CaptureReader::open_live(options, error);
    report.file = live.interface;
    // -w: what is analysed is kept, frame for frame.
    if (reader && !live.write.empty() && !reader->keep(live.write, error)) reader.reset();
  } else {
    reader = CaptureReader::open(path, error);
  }
  if (!reader) {
    report.result.ok = false;
    report.result.error = error;
    report.not_opened = true;
  }
  return reader;
}

AnalyzerOptions analyzer_options(const ReadingOptions& reading) {
  AnalyzerOptions options;
  options.reassembly.max_buffered_bytes = reading.max_buffer;
  options.max_connections = reading.max_connections;
  options.markers = on_off(reading.markers);
  options.crc = on_off(reading.crc);
  options.infer_with_syn = reading.infer_all;
  options.idle_timeout_ns = static_cast<std::uint64_t>(reading.idle_timeout * 1e9);
  for (const std::uint16_t port : reading.vxlan_ports) options.decode.vxlan_ports.push_back(port);
  for (const std::uint16_t port : reading.geneve_ports) {
    options.decode.geneve_ports.push_back(port);
  }
  return options;
}

// Whether a streamed capture's finished connections are kept: a report of the whole run
// needs them all.
bool keep_connections(const Options& options) {
  return (options.reports.format == OutputFormat::Json && options.live.interface.empty()) ||
         options.reports.junit.sink != Sink::None || options.reports.html.sink != Sink::None;
}

// Analyses what `reader` reads into `report`.
void analyse(CaptureReader& reader, const AnalyzerOptions& options, const Reading& reading,
             report::CaptureReport& report, report::FindingObserver* stream,
             report::CaptureTrace* trace) {
  const Options& o = reading.options;
  report::Collector collector(report, o.reports.list_fpdus, reading.suppressions, reading.hosts);
  collector.list_messages(o.reports.list_messages);
  // Streaming keeps no finished connection (bounded memory) unless a report needs them all.
  if (stream) collector.stream_to(stream, keep_connections(o));
  // --html: a tracer in front of the collector keeps what the page draws.
  std::optional<report::HtmlTracer> tracer;
  if (trace) tracer.emplace(collector, *trace);
  Analyzer analyzer(options, tracer ? static_cast<EventSink&>(*tracer) : collector);
  Progress progress(o.reading.jobs > 1 || stream ? When::Never : o.reports.progress, report.file);
  g_reader = &reader;
  FrameFeeder feeder(analyzer);
  collector.name_tunnels_from(feeder.tunnel_names());
  PipelineOptions pipeline;
  pipeline.read_thread =
      (o.reading.read_threads == 0 ? auto_read_threads() : o.reading.read_threads) >= 2;
  report.result = run_pipeline(
      reader, feeder, [&progress](const CaptureReader& r) { progress.update(r); }, pipeline);
  g_reader = nullptr;
  collector.finish();
  report.tcp_connections = analyzer.tcp_connections();
  report.expired_connections = analyzer.expired_connections();
}

}  // namespace

report::CaptureReport check_file(const std::string& path, const Reading& reading, bool& unreadable,
                                 report::FindingObserver* stream, report::CaptureTrace* trace) {
  const auto start = std::chrono::steady_clock::now();
  const LiveOptions& live = reading.options.live;
  const bool from_file = live.interface.empty() && !is_standard_input(path);
  report::CaptureReport report;
  report.file = is_standard_input(path) ? "<stdin>" : path;
  report.place =
      report::capture_place(live.interface.empty() ? report.file : live.interface, from_file);
  std::error_code missing;
  if (from_file && !std::filesystem::exists(path, missing) && !missing) {
    // Named on the command line but not there: reported, and the other captures are read.
    report.result.ok = false;
    report.result.error = fmt::format("{}: no such file or directory", path);
    report.missing = true;
    unreadable = true;
    return report;
  }
  const std::unique_ptr<CaptureReader> reader = open_capture(path, live, report);
  if (!reader) {
    unreadable = true;
    return report;
  }
  const AnalyzerOptions options = analyzer_options(reading.options.reading);
  analyse(*reader, options, reading, report, stream, trace);
  if (trace && live.interface.empty())
    report::read_places(path, report.connections, *trace, options,
                        report.result.stats.ip_fragments != 0);
  if (!report.result.ok) unreadable = true;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

void expand_inputs(const std::vector<std::string>& names, std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  for (const std::string& name : names) {
    if (is_standard_input(name)) {
      files.push_back(name);
      continue;
    }
    std::error_code ec;
    const fs::file_status status = fs::status(name, ec);
    if (ec || !fs::exists(status) || !fs::is_directory(status)) {
      files.push_back(name);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(
             name, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file()) continue;
      // Captures, also compressed as Wireshark opens them (.gz, .zst, .lz4).
      std::string name = it->path().filename().string();
      for (const char* packed : {".gz", ".zst", ".lz4"}) {
        if (name.ends_with(packed)) name.resize(name.size() - std::strlen(packed));
      }
      if (name.ends_with(".pcap") || name.ends_with(".pcapng") || name.ends_with(".cap")) {
        found.push_back(it->path().string());
      }
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
}

std::vector<report::CaptureReport> check_files(const std::vector<std::string>& files,
                                               const Reading& reading, bool& unreadable,
                                               std::vector<report::CaptureTrace>& traces,
                                               bool say_errors) {
  const bool html = reading.options.reports.html.sink != Sink::None;
  std::vector<report::CaptureReport> reports(files.size());
  if (html) traces.resize(files.size());
  std::vector<char> failed(files.size(), 0);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      bool bad = false;
      reports[i] = check_file(files[i], reading, bad, nullptr, html ? &traces[i] : nullptr);
      failed[i] = bad;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::min<std::size_t>(reading.options.reading.jobs, files.size()); ++t)
    threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (failed[i]) {
      unreadable = true;
      if (say_errors) std::cerr << "mpa-check: " << reports[i].result.error << '\n';
    }
  }
  return reports;
}

void stop_reading_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace mpa::cli
