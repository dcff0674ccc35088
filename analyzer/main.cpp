// mpa-check: the batch MPA conformance checker. Captures in; findings with RFC sections
// and error codes out (text, JSON, JUnit XML); an exit status CI can act on.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "mpa/crc32c.h"
#include "report.h"

namespace {

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitUsage = 2;

struct Settings {
  std::vector<std::string> files;
  std::string format = "text";
  std::string junit;
  std::string fail_on = "error";
  std::string markers;
  std::string crc;
  std::string progress = "auto";
  bool list_diagnostics = false;
  bool no_summary = false;
  bool infer_all = false;
  bool list_fpdus = false;
  std::size_t max_buffer = 4u << 20;
  std::size_t max_connections = 16384;
};

std::optional<bool> on_off(const std::string& value) {
  if (value.empty()) return std::nullopt;
  return value == "on";
}

// A progress line on stderr for large inputs when stderr is a terminal.
class Progress {
 public:
  Progress(const std::string& mode, const std::string& file)
      : file_(file), start_(std::chrono::steady_clock::now()) {
    enabled_ = mode == "always" || (mode == "auto" && isatty(STDERR_FILENO));
  }
  void update(const mpa::CaptureReader& reader) {
    if (!enabled_ || (reader.file_size() < (64u << 20) && reader.file_size() != 0)) return;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double mb = static_cast<double>(reader.bytes_read()) / 1e6;
    if (reader.file_size() > 0) {
      fmt::print(stderr, "\r{}: {:3.0f}% ({:.0f} MB, {:.0f} MB/s)  ", file_,
                 100.0 * static_cast<double>(reader.bytes_read()) / static_cast<double>(reader.file_size()),
                 mb, seconds > 0 ? mb / seconds : 0.0);
    } else {
      fmt::print(stderr, "\r{}: {:.0f} MB ({:.0f} MB/s)  ", file_, mb, seconds > 0 ? mb / seconds : 0.0);
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

mpa::report::CaptureReport check_file(const std::string& path, const Settings& settings,
                                      bool& unreadable) {
  mpa::report::CaptureReport report;
  report.file = path == "-" ? "<stdin>" : path;
  std::string error;
  auto reader = mpa::CaptureReader::open(path, error);
  if (!reader) {
    report.result.ok = false;
    report.result.error = error;
    unreadable = true;
    return report;
  }
  mpa::AnalyzerOptions options;
  options.reassembly.max_buffered_bytes = settings.max_buffer;
  options.max_connections = settings.max_connections;
  options.markers = on_off(settings.markers);
  options.crc = on_off(settings.crc);
  options.infer_with_syn = settings.infer_all;
  mpa::report::Collector collector(report, settings.list_fpdus);
  mpa::Analyzer analyzer(options, collector);
  Progress progress(settings.progress, report.file);
  report.result = mpa::run_pipeline(*reader, analyzer,
                                    [&progress](const mpa::CaptureReader& r) { progress.update(r); });
  collector.finish();
  report.tcp_connections = analyzer.tcp_connections();
  if (!report.result.ok) unreadable = true;
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  CLI::App app{"mpa-check: MPA (RFC 5044 / RFC 6581) conformance checker for pcap and pcapng captures"};
  // --version: what `man mpa-check` (help2man) and bug reports need.
  app.set_version_flag("--version", [] {
    return fmt::format("mpa-check {}\nCRC32c: {} (chosen at run time for this CPU)\n{}", MPA_VERSION,
                       mpa::crc32c_active_implementation(), mpa::libpcap_version());
  });
  app.footer(
      "Exit status: 0 no finding at or above --fail-on, 1 findings at or above it, 2 usage error or a\n"
      "capture that could not be read to its end (what was read before is still reported).\n"
      "Findings name catalogue ids (--list-diagnostics); RFC 5044 section 8 / RFC 6581 error codes.");
  app.add_option("captures", settings.files, "Capture files (pcap or pcapng); - reads standard input");
  app.add_option("--format", settings.format, "Report format on standard output")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--junit", settings.junit, "Also write a JUnit XML report to FILE");
  app.add_option("--fail-on", settings.fail_on, "Lowest severity that makes the exit status 1")
      ->check(CLI::IsMember({"error", "warning"}));
  app.add_flag("--list-diagnostics", settings.list_diagnostics,
               "Print the diagnostics catalogue (with --format json: as JSON) and exit");
  app.add_option("--markers", settings.markers,
                 "Captures without startup frames: markers are on/off (default: inferred)")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--crc", settings.crc,
                 "Captures without startup frames: CRCs are on/off (default: inferred)")
      ->check(CLI::IsMember({"on", "off"}));
  app.add_flag("--infer-all", settings.infer_all,
               "Look for FPDUs also in connections whose SYN was captured but that sent no startup frame");
  app.add_option("--max-buffer", settings.max_buffer,
                 "Ceiling on buffered out-of-order octets per direction (default 4 MiB)");
  app.add_option("--max-connections", settings.max_connections,
                 "Connections tracked at once (default 16384)");
  app.add_flag("--list-fpdus", settings.list_fpdus,
               "Also list every FPDU (frame, direction, seq, ULPDU_Length, CRC status, markers)");
  app.add_flag("--no-summary", settings.no_summary, "Text format: findings only, no summaries");
  app.add_option("--progress", settings.progress, "Progress on stderr for large inputs")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitClean : kExitUsage;
  }
  if (settings.list_diagnostics) {
    mpa::report::write_catalogue(std::cout, settings.format == "json");
    return kExitClean;
  }
  if (settings.files.empty()) {
    std::cerr << "mpa-check: no capture given (try --help)\n";
    return kExitUsage;
  }

  std::vector<mpa::report::CaptureReport> reports;
  bool unreadable = false;
  for (const std::string& path : settings.files) {
    reports.push_back(check_file(path, settings, unreadable));
    if (!reports.back().result.ok) std::cerr << "mpa-check: " << reports.back().result.error << '\n';
  }
  if (settings.format == "json") {
    mpa::report::write_json(std::cout, reports);
  } else {
    mpa::report::write_text(std::cout, reports, !settings.no_summary);
  }
  if (!settings.junit.empty()) {
    std::ofstream junit(settings.junit);
    mpa::report::write_junit(junit, reports);
    if (!junit) {
      std::cerr << "mpa-check: cannot write " << settings.junit << '\n';
      return kExitUsage;
    }
  }
  if (unreadable) return kExitUsage;
  const mpa::report::Totals t = mpa::report::totals(reports);
  if (t.by_severity[mpa::Severity::Error] > 0) return kExitFindings;
  if (settings.fail_on == "warning" && t.by_severity[mpa::Severity::Warning] > 0) return kExitFindings;
  return kExitClean;
}
