// mpa-check: the batch MPA conformance checker. Captures in; findings with RFC sections
// and error codes out (text, JSON, JUnit XML); an exit status CI can act on.
#include <fmt/format.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "html_trace.h"
#include "mpa/crc32c.h"
#include "mpa/implementations.h"
#include "plugfest.h"
#include "report.h"
#include "report_from_json.h"
#include "report_html.h"
#include "streaming_text.h"

namespace {

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitUsage = 2;

struct Settings {
  std::vector<std::string> files;
  std::string format = "text";
  std::string junit;
  std::string html;
  std::string sarif;
  std::string command;  // the command line, for the HTML page
  std::string fail_on = "error";
  std::string markers;
  std::string crc;
  std::string progress = "auto";
  bool list_diagnostics = false;
  bool list_rules = false;
  bool no_summary = false;
  bool infer_all = false;
  bool list_fpdus = false;
  bool require_mpa = false;
  std::string suppress;
  bool no_suppress = false;
  bool show_suppressed = false;
  std::string write_baseline;
  bool notes = false;
  bool verbose = false;
  std::size_t fold = 3;
  std::string color = "auto";
  unsigned jobs = 1;
  // Threads per capture file: 2 reads (and decompresses) on one while the other analyses;
  // 0: 2 where a second core is free (see auto_read_threads).
  unsigned read_threads = 0;
  std::string interface;
  std::string write;  // -w
  std::string filter;
  double duration = 0;
  std::size_t max_buffer = 4u << 20;
  std::size_t max_connections = 16384;
  std::vector<std::uint16_t> vxlan_ports;   // in addition to 4789
  std::vector<std::uint16_t> geneve_ports;  // in addition to 6081
  std::string hosts_file;                   // --hosts
  const mpa::HostMap* hosts = nullptr;      // read from it
  bool matrix = false;                      // --matrix
  std::vector<std::string> compare;         // --compare OLD NEW
  std::vector<std::string> from_json;       // --from-json A B ...
};

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

// Whether `path` is still being written while we read it: standard input or a FIFO that is
// not a regular file.
bool arriving(const std::string& path) {
  struct stat st {};
  if (path == "-") return fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode);
  return stat(path.c_str(), &st) == 0 &&
         (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode));
}

mpa::report::CaptureReport check_file(const std::string& path, const Settings& settings,
                                      const mpa::report::Suppressions* suppressions,
                                      bool& unreadable,
                                      mpa::report::FindingObserver* stream = nullptr,
                                      mpa::report::CaptureTrace* trace = nullptr) {
  const auto start = std::chrono::steady_clock::now();
  mpa::report::CaptureReport report;
  report.file = path == "-" ? "<stdin>" : path;
  report.place =
      mpa::report::capture_place(settings.interface.empty() ? report.file : settings.interface,
                                 settings.interface.empty() && path != "-");
  std::string error;
  std::unique_ptr<mpa::CaptureReader> reader;
  std::error_code missing;
  if (settings.interface.empty() && path != "-" && !std::filesystem::exists(path, missing) &&
      !missing) {
    // Named on the command line but not there: reported, and the other captures are read.
    report.result.ok = false;
    report.result.error = fmt::format("{}: no such file or directory", path);
    report.missing = true;
    unreadable = true;
    return report;
  }
  if (!settings.interface.empty()) {
    mpa::CaptureReader::LiveOptions live;
    live.interface = settings.interface;
    live.filter = settings.filter;
    live.duration_ms = static_cast<std::uint64_t>(settings.duration * 1000.0);
    reader = mpa::CaptureReader::open_live(live, error);
    report.file = settings.interface;
    // -w: what is analysed is kept, frame for frame.
    if (reader && !settings.write.empty() && !reader->keep(settings.write, error)) reader.reset();
  } else {
    reader = mpa::CaptureReader::open(path, error);
  }
  if (!reader) {
    report.result.ok = false;
    report.result.error = error;
    report.not_opened = true;
    unreadable = true;
    return report;
  }
  mpa::AnalyzerOptions options;
  options.reassembly.max_buffered_bytes = settings.max_buffer;
  options.max_connections = settings.max_connections;
  options.markers = on_off(settings.markers);
  options.crc = on_off(settings.crc);
  options.infer_with_syn = settings.infer_all;
  for (const std::uint16_t port : settings.vxlan_ports) options.decode.vxlan_ports.push_back(port);
  for (const std::uint16_t port : settings.geneve_ports) {
    options.decode.geneve_ports.push_back(port);
  }
  mpa::report::Collector collector(report, settings.list_fpdus, suppressions, settings.hosts);
  // Streaming keeps no finished connection (bounded memory) unless a report needs them all.
  if (stream) {
    collector.stream_to(stream, (settings.format == "json" && settings.interface.empty()) ||
                                    !settings.junit.empty() || !settings.html.empty());
  }
  // --html: a tracer in front of the collector keeps what the page draws.
  std::optional<mpa::report::HtmlTracer> tracer;
  if (trace) tracer.emplace(collector, *trace);
  mpa::Analyzer analyzer(options, tracer ? static_cast<mpa::EventSink&>(*tracer) : collector);
  Progress progress(settings.jobs > 1 || stream ? "never" : settings.progress, report.file);
  g_reader = reader.get();
  mpa::FrameFeeder feeder(analyzer);
  collector.name_tunnels_from(feeder.tunnel_names());
  mpa::PipelineOptions pipeline;
  pipeline.read_thread =
      (settings.read_threads == 0 ? auto_read_threads() : settings.read_threads) >= 2;
  report.result = mpa::run_pipeline(
      *reader, feeder, [&progress](const mpa::CaptureReader& r) { progress.update(r); }, pipeline);
  g_reader = nullptr;
  collector.finish();
  report.tcp_connections = analyzer.tcp_connections();
  if (trace && settings.interface.empty())
    mpa::report::read_places(path, report.connections, *trace, options,
                             report.result.stats.ip_fragments != 0);
  if (!report.result.ok) unreadable = true;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

// The captures named on the command line: files as given, directories searched recursively
// for pcap/pcapng files (in name order). A name that does not exist stays in the list: it is
// reported as a capture that could not be read, after the others were analysed.
void expand_inputs(const std::vector<std::string>& names, std::vector<std::string>& files) {
  namespace fs = std::filesystem;
  for (const std::string& name : names) {
    if (name == "-") {
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

// Analyses `files` with `jobs` threads; the reports come back in the order of `files`.
std::vector<mpa::report::CaptureReport> check_files(const std::vector<std::string>& files,
                                                    const Settings& settings,
                                                    const mpa::report::Suppressions* suppressions,
                                                    unsigned jobs, bool& unreadable,
                                                    std::vector<mpa::report::CaptureTrace>& traces,
                                                    bool say_errors = true) {
  std::vector<mpa::report::CaptureReport> reports(files.size());
  if (!settings.html.empty()) traces.resize(files.size());
  std::vector<char> failed(files.size(), 0);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      bool bad = false;
      reports[i] = check_file(files[i], settings, suppressions, bad, nullptr,
                              settings.html.empty() ? nullptr : &traces[i]);
      failed[i] = bad;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::min<std::size_t>(jobs, files.size()); ++t)
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

int finish_reports(std::vector<mpa::report::CaptureReport>& reports, const Settings& settings,
                   const mpa::report::Policy& policy, mpa::report::TextOptions text,
                   const mpa::report::Suppressions* suppressions, bool unreadable, bool streamed,
                   const std::vector<mpa::report::CaptureTrace>& traces, double seconds);

// Reads the JSON reports of earlier runs (--from-json, --compare); false (said on stderr) when
// one cannot be read.
bool read_reports(const std::vector<std::string>& paths,
                  std::vector<mpa::report::CaptureReport>& reports,
                  std::deque<mpa::report::Suppression>& rules) {
  for (const std::string& path : paths) {
    std::string error;
    if (!mpa::report::read_json_report(path, reports, rules, error)) {
      std::cerr << "mpa-check: " << error << '\n';
      return false;
    }
  }
  return true;
}

// Writes the suppression file of --write-baseline; false (said on stderr) when it cannot.
bool write_baseline_file(const std::vector<mpa::report::CaptureReport>& reports,
                         const std::string& path) {
  std::ofstream baseline(path);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  const std::string folder =
      std::filesystem::path(mpa::report::capture_place(path, true).path).parent_path().string();
  mpa::report::write_baseline(baseline, reports, date, folder);
  baseline.close();
  if (!baseline) {
    std::cerr << "mpa-check: cannot write " << path << '\n';
    return false;
  }
  return true;
}

bool use_color(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return isatty(fd) && !(no_color && *no_color) && !(term && std::string_view(term) == "dumb");
}

}  // namespace

int main(int argc, char** argv) {
  if (const std::string error = mpa::crc32c_environment_error(); !error.empty()) {
    fmt::print(stderr, "mpa-check: {}\n", error);
    return 2;
  }
  Settings settings;
  CLI::App app{
      "mpa-check: MPA (RFC 5044 / RFC 6581) conformance checker for pcap and pcapng captures.\n\n"
      "Text output leads with errors and warnings, one line each:\n"
      "  FILE:FRAME: SEVERITY: MESSAGE (connection N, initiator|responder data, seq S; RFC "
      "SECTION, code C) [ID]\n"
      "FRAME is the 1-based record holding the octets the finding is about (where the FPDU,\n"
      "marker, pad or startup frame begins; -v adds the frame where it became certain); ID is a\n"
      "permanent catalogue id (--list-diagnostics); code C is the RFC 5044 section 8 / RFC 6581\n"
      "error code. Repeats of\n"
      "one id in one connection are folded after the first few. Then one line per capture (ok or\n"
      "FAIL, counts, counts by id), the captures that failed, and the totals. Notes are counted\n"
      "always, listed with --notes or -v."};
  app.set_version_flag("--version", [] {
    return fmt::format("mpa-check {}\nCRC32c: {} ({})\n{}", MPA_VERSION,
                       mpa::crc32c_active_implementation(),
                       mpa::crc32c_forced() ? fmt::format("forced by {}", mpa::kCrc32cEnvironment)
                                            : "chosen at run time for this CPU",
                       mpa::libpcap_version());
  });
  app.footer(
      "Exit status: 0 no capture failed; 1 a capture failed (findings at or above --fail-on that "
      "no\n"
      "suppression rule accepted, or no MPA with --require-mpa); 2 a usage error or a capture "
      "that\n"
      "could not be found or read to its end (named on stderr; the other captures and what was\n"
      "read before the fault are still analysed and reported).\n"
      "Suppressions: --suppress FILE, or .mpa-check-suppressions in the working folder; one rule "
      "a\n"
      "line: id=ID [capture=PATH|GLOB] [endpoint=ADDR:PORT] [stack=\"NAME\"] [count=N] "
      "reason=\"WHY\".\n"
      "capture= with a '/' is relative to the suppression file's folder, without one a file name "
      "glob.\n"
      "Suppressed findings are counted, not listed (--show-suppressed: as 'suppressed' lines);\n"
      "rules that matched nothing are named on stderr when every capture the file names was "
      "read.\n"
      "--compare: exit status 0 nothing new, 1 something new, 2 a report that cannot be read.\n"
      "Environment: MPA_CRC32C=NAME uses that CRC32c implementation (table, sse4.2, sse4.2-3way,\n"
      "avx512-vpclmul, armv8-crc) instead of the fastest this CPU runs; --version shows which.");
  app.add_option(
      "captures", settings.files,
      "Capture files (pcap or pcapng) or folders (searched recursively); - reads standard input");
  app.add_option("--format", settings.format, "Report format on standard output")
      ->check(CLI::IsMember({"text", "json"}))
      ->group("Reports");
  app.add_option("--junit", settings.junit,
                 "Also write a JUnit XML report to FILE (- : standard output, "
                 "instead of the report)")
      ->group("Reports");
  app.add_option("--sarif", settings.sarif,
                 "Also write a SARIF 2.1.0 report to FILE (- : standard output, instead of the "
                 "report)")
      ->group("Reports");
  app.add_option("--html", settings.html,
                 "Also write a self-contained HTML report to FILE (ladder diagrams, charts, the "
                 "octets behind "
                 "the findings; - : standard output, instead of the report)")
      ->group("Reports");
  app.add_option("--fail-on", settings.fail_on,
                 "Lowest severity that fails a capture (exit status 1)")
      ->check(CLI::IsMember({"error", "warning"}))
      ->group("Verdict and suppressions");
  app.add_flag("--require-mpa", settings.require_mpa,
               "A capture without any MPA connection fails (a CI job that captured the wrong port)")
      ->group("Verdict and suppressions");
  app.add_option(
         "--suppress", settings.suppress,
         "Suppression file of accepted deviations (default: .mpa-check-suppressions if present)")
      ->group("Verdict and suppressions");
  app.add_flag("--no-suppress", settings.no_suppress, "Ignore every suppression file")
      ->group("Verdict and suppressions");
  app.add_flag("--show-suppressed", settings.show_suppressed,
               "Text format: list suppressed findings too, as 'suppressed' (never 'error' or "
               "'warning')")
      ->group("Verdict and suppressions");
  app.add_option("--write-baseline", settings.write_baseline,
                 "Write a suppression file accepting every error and warning of this run to FILE "
                 "(capture paths relative to it, with counts); the run is then reported with it "
                 "(exit 0 unless a capture could not be read or --require-mpa fails)")
      ->group("Verdict and suppressions");
  app.add_flag("--notes", settings.notes, "Text format: list notes too (they are always counted)")
      ->group("Reports");
  app.add_flag("-v,--verbose", settings.verbose,
               "Text format: list notes and a summary of every connection")
      ->group("Reports");
  app.add_option("--fold", settings.fold,
                 "Findings of one id in one connection listed before folding (default 3)")
      ->group("Reports");
  app.add_option("--color", settings.color, "Colour the severity in text output")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->group("Reports");
  app.add_option(
         "-i,--interface", settings.interface,
         "Capture live on this interface (findings printed as they become certain; Ctrl-C ends "
         "with the summary)")
      ->group("Live capture");
  app.add_option("-f,--filter", settings.filter,
                 "BPF capture filter for -i (e.g. \"tcp port 4420\")")
      ->group("Live capture");
  app.add_option("-w,--write", settings.write,
                 "With -i: also write every frame captured to FILE (pcapng; frame N of it is "
                 "frame N of the report)")
      ->group("Live capture");
  app.add_option("--duration", settings.duration,
                 "Seconds to capture with -i (default: until Ctrl-C)")
      ->check(CLI::PositiveNumber)
      ->group("Live capture");
  app.add_option("-j,--jobs", settings.jobs,
                 "Captures analysed in parallel (output keeps the given order)")
      ->check(CLI::Range(1u, 256u))
      ->group("Reading captures");
  app.add_option("--read-threads", settings.read_threads,
                 "Threads per capture file: 2 reads and decompresses on one while the other "
                 "analyses, 1 does both on one; the same output either way (default: 2 where "
                 "the machine has two cores or more and its load average leaves one free)")
      ->check(CLI::Range(1u, 2u))
      ->group("Reading captures");
  app.add_flag("--list-diagnostics", settings.list_diagnostics,
               "Print the diagnostics catalogue (with --format json: as JSON) and exit")
      ->group("Catalogue");
  app.add_flag("--list-rules", settings.list_rules,
               "Print the conformance matrix: every rule of RFC 5044 and RFC 6581, where a breach "
               "shows, the catalogue ids that check it (with --format json: as JSON) and exit")
      ->group("Catalogue");
  app.add_option("--markers", settings.markers,
                 "Captures without startup frames: markers are on/off (default: inferred)")
      ->check(CLI::IsMember({"on", "off"}))
      ->group("Reading captures");
  app.add_option("--crc", settings.crc,
                 "Captures without startup frames: CRCs are on/off (default: inferred)")
      ->check(CLI::IsMember({"on", "off"}))
      ->group("Reading captures");
  app.add_flag(
         "--infer-all", settings.infer_all,
         "Look for FPDUs also in connections whose SYN was captured but that sent no startup frame")
      ->group("Reading captures");
  app.add_option("--max-buffer", settings.max_buffer,
                 "Ceiling on buffered out-of-order octets per direction (default 4 MiB)")
      ->group("Reading captures");
  app.add_option("--max-connections", settings.max_connections,
                 "Connections tracked at once (default 16384)")
      ->group("Reading captures");
  app.add_option("--vxlan-port", settings.vxlan_ports,
                 "Also decode UDP port N as VXLAN (besides 4789; repeatable or N,M)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group("Reading captures");
  app.add_option("--geneve-port", settings.geneve_ports,
                 "Also decode UDP port N as Geneve (besides 6081; repeatable or N,M)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group("Reading captures");
  app.add_flag("--list-fpdus", settings.list_fpdus,
               "Also list every FPDU (frame completing it, frame where it starts, direction, seq, "
               "ULPDU_Length, CRC, markers)")
      ->group("Reports");
  app.add_flag("--no-summary", settings.no_summary,
               "Text format: findings only, no capture lines or totals")
      ->group("Reports");
  app.add_option("--progress", settings.progress, "Progress on stderr for large inputs")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->group("Reports");
  app.add_option("--hosts", settings.hosts_file,
                 "Name the implementations: FILE maps addresses, subnets (ADDR/BITS) and MAC "
                 "prefixes to NAME [VERSION], one a line, # comments; a host it does not name is "
                 "named by its stack fingerprint, as a guess (\"looks like Linux siw\")")
      ->group("Plugfest");
  app.add_flag("--matrix", settings.matrix,
               "Text format: also print the interop matrix (Initiator implementation x Responder "
               "implementation over all captures: connections, verdict, first failing rule and "
               "the side that broke it; pairs never tried); JSON always carries it as \"matrix\"")
      ->group("Plugfest");
  app.add_option("--compare", settings.compare,
                 "Compare two JSON reports of earlier runs (OLD NEW): per pair of implementations "
                 "and per connection what is new, fixed and stayed; exit status 1 when something "
                 "is new (an error or warning, by id and the side that broke it, that the pair "
                 "did not show in OLD), else 0 (with --format json: the comparison as JSON)")
      ->expected(2)
      ->group("Plugfest");
  app.add_option("--from-json", settings.from_json,
                 "Make the reports (text summary, --matrix, --format json, --html, --junit, "
                 "--sarif) from JSON reports of earlier runs (CI shards, batch jobs) instead of "
                 "reading captures: no rerun; the HTML links findings to their captures instead "
                 "of showing their octets")
      ->expected(1, -1)
      ->group("Plugfest");
  try {
    app.parse(argc, argv);
    for (int i = 0; i < argc; ++i) settings.command += (i ? " " : "") + std::string(argv[i]);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitClean : kExitUsage;
  }
  if (settings.list_diagnostics) {
    mpa::report::write_catalogue(std::cout, settings.format == "json");
    return kExitClean;
  }
  if (settings.list_rules) {
    mpa::report::write_rules(std::cout, settings.format == "json");
    return kExitClean;
  }
  std::optional<mpa::HostMap> hosts;
  if (!settings.hosts_file.empty()) {
    std::string error;
    hosts = mpa::HostMap::load(settings.hosts_file, error);
    if (!hosts) {
      std::cerr << "mpa-check: " << error << '\n';
      return kExitUsage;
    }
    settings.hosts = &*hosts;
  }
  if (!settings.compare.empty()) {
    if (!settings.files.empty() || !settings.from_json.empty() || !settings.interface.empty()) {
      std::cerr << "mpa-check: --compare reads two JSON reports; give no capture with it\n";
      return kExitUsage;
    }
    std::deque<mpa::report::Suppression> rules;
    std::vector<mpa::report::CaptureReport> old_run, new_run;
    if (!read_reports({settings.compare[0]}, old_run, rules) ||
        !read_reports({settings.compare[1]}, new_run, rules)) {
      return kExitUsage;
    }
    mpa::report::name_implementations(old_run, settings.hosts);
    mpa::report::name_implementations(new_run, settings.hosts);
    return mpa::report::write_comparison(std::cout, settings.compare[0], old_run,
                                         settings.compare[1], new_run, settings.format == "json");
  }
  if (!settings.from_json.empty()) {
    if (!settings.files.empty() || !settings.interface.empty()) {
      std::cerr << "mpa-check: --from-json makes the reports from JSON reports; give no capture "
                   "with it\n";
      return kExitUsage;
    }
    if (!settings.write_baseline.empty()) {
      std::cerr << "mpa-check: --write-baseline needs the captures, not JSON reports\n";
      return kExitUsage;
    }
  }
  if (settings.files.empty() && settings.interface.empty() && settings.from_json.empty()) {
    std::cerr << "mpa-check: no capture given (try --help)\n";
    return kExitUsage;
  }
  if (!settings.write.empty() && settings.interface.empty()) {
    std::cerr << "mpa-check: -w keeps a live capture; give it with -i\n";
    return kExitUsage;
  }
  if (!settings.interface.empty() && !settings.files.empty()) {
    std::cerr << "mpa-check: -i reads an interface; give no capture file with it\n";
    return kExitUsage;
  }
  if ((settings.junit == "-") + (settings.html == "-") + (settings.sarif == "-") > 1) {
    std::cerr << "mpa-check: only one of --junit, --html and --sarif can write to standard "
                 "output (-)\n";
    return kExitUsage;
  }
  const auto run_start = std::chrono::steady_clock::now();
  auto run_seconds = [&run_start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  };
  if (!settings.html.empty()) {
    // The HTML trace's long-lived allocations change where the heap's top lies: without this,
    // each connection's end gave the reassembler's buffer back to the kernel (brk) and the next
    // connection faulted it in again (+50% CPU on the 1 GiB benchmark). Keep up to 64 MiB.
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
  }
  std::optional<mpa::report::Suppressions> suppressions;
  if (!settings.no_suppress) {
    std::string path = settings.suppress;
    if (path.empty() && std::filesystem::exists(mpa::report::Suppressions::kDefaultFile)) {
      path = mpa::report::Suppressions::kDefaultFile;
    }
    if (!path.empty()) {
      std::string error;
      suppressions = mpa::report::Suppressions::load(path, error);
      if (!suppressions) {
        std::cerr << "mpa-check: " << error << '\n';
        return kExitUsage;
      }
    }
  }
  mpa::report::Policy policy;
  policy.fail_on = settings.fail_on == "warning" ? mpa::Severity::Warning : mpa::Severity::Error;
  policy.require_mpa = settings.require_mpa;
  mpa::report::TextOptions text;
  text.notes = settings.notes || settings.verbose;
  text.connections = settings.verbose;
  text.certain_at = settings.verbose;
  text.color = use_color(settings.color, STDOUT_FILENO);
  text.fold_after = settings.fold;
  text.policy = policy;
  text.capture_lines = !settings.no_summary;
  text.suppressed = settings.show_suppressed;

  // A live interface or a capture still arriving (a pipe): findings are printed as they
  // become certain; Ctrl-C (SIGINT) or SIGTERM ends the capture and the summary follows.
  // (Not while writing a baseline from a pipe: the run is reported once its end is known.)
  const bool to_stdout = settings.junit == "-" || settings.html == "-" || settings.sarif == "-";
  const bool streaming =
      settings.format == "text" && !to_stdout &&
      (!settings.interface.empty() || (settings.files.size() == 1 && arriving(settings.files[0]) &&
                                       settings.write_baseline.empty()));
  // Live capture as JSON: JSON Lines, an event a line as it happens.
  const bool json_lines = settings.format == "json" && !to_stdout && !settings.interface.empty();
  text.timestamps = !settings.interface.empty();
  if (streaming || !settings.interface.empty()) {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
  }
  if (streaming || !settings.interface.empty()) {
    bool unreadable = false;
    const std::string name = settings.interface.empty()
                                 ? (settings.files[0] == "-" ? "<stdin>" : settings.files[0])
                                 : settings.interface;
    mpa::report::StreamingText printer(std::cout, name, text);
    const std::unique_ptr<mpa::report::FindingObserver> events =
        json_lines ? mpa::report::json_lines_observer(std::cout, name) : nullptr;
    std::vector<mpa::report::CaptureReport> reports;
    std::vector<mpa::report::CaptureTrace> traces(settings.html.empty() ? 0 : 1);
    reports.push_back(check_file(settings.files.empty() ? "" : settings.files[0], settings,
                                 suppressions ? &*suppressions : nullptr, unreadable,
                                 streaming ? &printer : events.get(),
                                 traces.empty() ? nullptr : &traces[0]));
    if (unreadable) std::cerr << "mpa-check: " << reports.back().result.error << '\n';
    // An interface or filter that could not be opened read nothing: the message above, no
    // report of zero frames, exit 2.
    if (!settings.interface.empty() && reports.back().not_opened) return kExitUsage;
    if (!settings.write_baseline.empty()) {
      // Read once: its findings are reported as found; the baseline accepts them next time.
      if (!write_baseline_file(reports, settings.write_baseline)) return kExitUsage;
      std::cerr << "mpa-check: wrote " << settings.write_baseline
                << " (findings listed as found: it accepts them from the next run on)\n";
    }
    const int status =
        finish_reports(reports, settings, policy, text, suppressions ? &*suppressions : nullptr,
                       unreadable, streaming || json_lines, traces, run_seconds());
    return settings.write_baseline.empty() || status != kExitFindings ? status : kExitClean;
  }
  if (!settings.from_json.empty()) {
    // Reports from reports: the findings as the earlier runs judged them (their suppressions
    // included), the verdicts by this run's --fail-on and --require-mpa.
    std::deque<mpa::report::Suppression> rules;
    std::vector<mpa::report::CaptureReport> reports;
    if (!read_reports(settings.from_json, reports, rules)) return kExitUsage;
    bool unreadable = false;
    for (const mpa::report::CaptureReport& r : reports) unreadable |= !r.result.ok;
    std::vector<mpa::report::CaptureTrace> traces(settings.html.empty() ? 0 : reports.size());
    return finish_reports(reports, settings, policy, text, nullptr, unreadable, false, traces,
                          run_seconds());
  }
  std::vector<std::string> files;
  expand_inputs(settings.files, files);
  if (files.empty()) {
    std::cerr << "mpa-check: no pcap or pcapng file in the folders given\n";
    return kExitUsage;
  }

  bool unreadable = false;
  std::vector<mpa::report::CaptureTrace> traces;
  std::vector<mpa::report::CaptureReport> reports;
  if (!settings.write_baseline.empty()) {
    // The baseline accepts what this run finds; the run is then read again with it alone,
    // so that it reports what the next run with the baseline will (standard input cannot be
    // read twice: its findings are reported as found).
    Settings first = settings;
    first.html.clear();  // the page is drawn from the second reading
    std::vector<mpa::report::CaptureTrace> no_traces;
    bool first_unreadable = false;
    reports = check_files(files, first, suppressions ? &*suppressions : nullptr, settings.jobs,
                          first_unreadable, no_traces, false);
    if (!write_baseline_file(reports, settings.write_baseline)) return kExitUsage;
    if (std::find(files.begin(), files.end(), "-") != files.end()) {
      std::cerr << "mpa-check: wrote " << settings.write_baseline
                << " (findings listed as found: it accepts them from the next run on)\n";
      if (!settings.html.empty()) {
        std::cerr << "mpa-check: no HTML report when a baseline is written from standard input\n";
      }
      const int status =
          finish_reports(reports, first, policy, text, suppressions ? &*suppressions : nullptr,
                         first_unreadable, false, no_traces, run_seconds());
      return status == kExitFindings ? kExitClean : status;
    }
    std::string error;
    suppressions = mpa::report::Suppressions::load(settings.write_baseline, error);
    if (!suppressions) {
      std::cerr << "mpa-check: " << error << '\n';
      return kExitUsage;
    }
    std::cerr << "mpa-check: wrote " << settings.write_baseline
              << "; the run is reported with it\n";
  }
  reports = check_files(files, settings, suppressions ? &*suppressions : nullptr, settings.jobs,
                        unreadable, traces);
  return finish_reports(reports, settings, policy, text, suppressions ? &*suppressions : nullptr,
                        unreadable, false, traces, run_seconds());
}

namespace {

// Writes the reports of a run (text, JSON, JUnit, SARIF, HTML) and returns the exit status.
int finish_reports(std::vector<mpa::report::CaptureReport>& reports, const Settings& settings,
                   const mpa::report::Policy& policy, mpa::report::TextOptions text,
                   const mpa::report::Suppressions* suppressions, bool unreadable, bool streamed,
                   const std::vector<mpa::report::CaptureTrace>& traces, double seconds) {
  // Who is who, over the whole run: the hosts file, else the stacks seen from each address.
  mpa::report::name_implementations(reports, settings.hosts);
  const mpa::report::RuleReview review =
      suppressions ? suppressions->review(reports) : mpa::report::RuleReview{};
  // What is said of the rules goes to stderr: it is about the suppression file, not the
  // captures, and standard output stays what grep and CI count.
  mpa::report::write_rule_review(std::cerr, review);
  auto write_html = [&](std::ostream& out) {
    mpa::report::HtmlOptions options;
    options.policy = policy;
    options.version = MPA_VERSION;
    options.command = settings.command;
    if (settings.html != "-") {
      std::error_code ec;
      options.folder = std::filesystem::absolute(settings.html, ec).parent_path().string();
    }
    mpa::report::write_html(out, reports, traces, options);
  };
  auto write_sarif = [&](std::ostream& out) {
    mpa::report::SarifOptions options;
    options.policy = policy;
    options.version = MPA_VERSION;
    options.command = settings.command;
    std::error_code ec;
    options.working_folder = std::filesystem::current_path(ec).string();
    mpa::report::write_sarif(out, reports, options);
  };
  if (settings.junit == "-") {
    mpa::report::write_junit(std::cout, reports, policy, seconds);
  } else if (settings.html == "-") {
    write_html(std::cout);
  } else if (settings.sarif == "-") {
    write_sarif(std::cout);
  } else if (settings.format == "json" && streamed) {
    for (const mpa::report::CaptureReport& report : reports) {
      mpa::report::write_json_lines_end(std::cout, report, policy);
    }
  } else if (settings.format == "json") {
    mpa::report::write_json(std::cout, reports, policy, review);
  } else {
    text.list_findings = !streamed;
    if (streamed) text.connections = false;  // printed as each connection ended
    mpa::report::write_text(std::cout, reports, text);
    if (settings.matrix) {
      mpa::report::write_matrix_text(std::cout, mpa::report::build_matrix(reports), reports);
    }
    if (!settings.no_summary) mpa::report::write_text_end(std::cout, reports, text);
  }
  auto to_file = [](const std::string& path, std::ios::openmode mode, auto&& write) {
    std::ofstream out(path, mode);
    write(out);
    out.close();
    if (!out) {
      std::cerr << "mpa-check: cannot write " << path << '\n';
      return false;
    }
    return true;
  };
  if (!settings.junit.empty() && settings.junit != "-" &&
      !to_file(settings.junit, std::ios::out, [&](std::ostream& out) {
        mpa::report::write_junit(out, reports, policy, seconds);
      })) {
    return kExitUsage;
  }
  if (!settings.sarif.empty() && settings.sarif != "-" &&
      !to_file(settings.sarif, std::ios::out, write_sarif)) {
    return kExitUsage;
  }
  if (!settings.html.empty() && settings.html != "-" &&
      !to_file(settings.html, std::ios::out | std::ios::binary, write_html)) {
    return kExitUsage;
  }
  if (unreadable) return kExitUsage;
  return mpa::report::totals(reports, policy).failed_captures ? kExitFindings : kExitClean;
}

}  // namespace
