// mpa-check's command line: --help's text and groups, and the parse into Options (CLI11).
#include "options.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <type_traits>
#include <utility>

#include "mpa/capture_reader.h"
#include "mpa/crc32c.h"
#include "plugfest.h"

namespace mpa::cli {
namespace {

// The values of an option that names one of a few words, as --help shows them ("{text,json}")
// and as CLI::IsMember says a word that is none of them ("xml not in {text,json}"); the word
// becomes its enum value.
template <typename E>
CLI::Validator choice(std::vector<std::pair<std::string, E>> words) {
  std::string set = "{";
  for (const auto& [word, value] : words) set += (set.size() > 1 ? "," : "") + word;
  set += "}";
  return CLI::Validator(
      [words, set](std::string& input) {
        for (const auto& [word, value] : words) {
          if (input != word) continue;
          input = std::to_string(static_cast<std::underlying_type_t<E>>(value));
          return std::string();
        }
        return input + " not in " + set;
      },
      set);
}

const std::vector<std::pair<std::string, When>> kWhen = {
    {"auto", When::Auto}, {"always", When::Always}, {"never", When::Never}};
const std::vector<std::pair<std::string, OnOff>> kOnOff = {{"on", OnOff::On}, {"off", OnOff::Off}};

// What the command line names before it becomes Options: the flags that choose a mode and
// the report files, "-" for standard output.
struct Parsed {
  Options& options;
  bool list_diagnostics = false;
  bool list_rules = false;
  std::string junit, sarif, html;
};

constexpr const char* kDescription =
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
    "always, listed with --notes or -v.";

constexpr const char* kFooter =
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
    "avx512-vpclmul, armv8-crc) instead of the fastest this CPU runs; --version shows which.";

// The options are declared in the order --help lists them within each group (CLI11 also
// checks their values in this order).

// The captures and where the reports go.
void add_outputs(CLI::App& app, Parsed& parsed) {
  Options& o = parsed.options;
  // Named for the man page and --help: CAPTURE ..., not "captures TEXT ...".
  app.add_option(
         "CAPTURE", o.captures,
         "Capture files (pcap or pcapng, compressed or not) or folders (searched recursively); - "
         "reads standard input")
      ->type_name("");
  app.add_option("--format", o.reports.format, "Report format on standard output")
      ->transform(
          choice<OutputFormat>({{"text", OutputFormat::Text}, {"json", OutputFormat::Json}}))
      ->type_name("FORMAT")
      ->group("Reports");
  app.add_option("--junit", parsed.junit,
                 "Also write a JUnit XML report to FILE (- : standard output, "
                 "instead of the report)")
      ->type_name("FILE")
      ->group("Reports");
  app.add_option("--sarif", parsed.sarif,
                 "Also write a SARIF 2.1.0 report to FILE (- : standard output, instead of the "
                 "report)")
      ->type_name("FILE")
      ->group("Reports");
  app.add_option("--html", parsed.html,
                 "Also write a self-contained HTML report to FILE (ladder diagrams, charts, the "
                 "octets behind "
                 "the findings; - : standard output, instead of the report)")
      ->type_name("FILE")
      ->group("Reports");
}

void add_verdict(CLI::App& app, VerdictOptions& o) {
  // (A callback: CLI11 would show Severity's default through to_string, a string_view.)
  app.add_option_function<Severity>(
         "--fail-on", [&o](const Severity& severity) { o.fail_on = severity; },
         "Lowest severity that fails a capture (exit status 1)")
      ->transform(choice<Severity>({{"error", Severity::Error}, {"warning", Severity::Warning}}))
      ->type_name("SEVERITY")
      ->group("Verdict and suppressions");
  app.add_flag("--require-mpa", o.require_mpa,
               "A capture without any MPA connection fails (a CI job that captured the wrong port)")
      ->group("Verdict and suppressions");
  app.add_option(
         "--suppress", o.suppress,
         "Suppression file of accepted deviations (default: .mpa-check-suppressions if present)")
      ->type_name("FILE")
      ->group("Verdict and suppressions");
  app.add_flag("--no-suppress", o.no_suppress, "Ignore every suppression file")
      ->group("Verdict and suppressions");
  app.add_flag("--show-suppressed", o.show_suppressed,
               "Text format: list suppressed findings too, as 'suppressed' (never 'error' or "
               "'warning')")
      ->group("Verdict and suppressions");
  app.add_option("--write-baseline", o.write_baseline,
                 "Write a suppression file accepting every error and warning of this run to FILE "
                 "(capture paths as given, relative to FILE as given, symbolic links not "
                 "resolved; with counts); the run is then reported with it (exit 0 unless a "
                 "capture could not be read or --require-mpa fails). A capture matches a path "
                 "rule where it is there as named or with links resolved; a suppression file "
                 "that accepts nothing says so on stderr with the captures it expected")
      ->type_name("FILE")
      ->group("Verdict and suppressions");
}

void add_text_format(CLI::App& app, ReportOptions& o) {
  app.add_flag("--notes", o.notes,
               "List notes too, in the text format and in SARIF (which has errors and warnings "
               "only by default, as code-scanning dashboards want); notes are always counted")
      ->group("Reports");
  app.add_flag("-v,--verbose", o.verbose,
               "Text format: list notes and a summary of every connection")
      ->group("Reports");
  app.add_option("--fold", o.fold,
                 "Findings of one id in one connection listed before folding (default 3)")
      ->group("Reports");
  app.add_option("--color", o.color, "Colour the severity in text output")
      ->transform(choice(kWhen))
      ->type_name("WHEN")
      ->group("Reports");
}

void add_live_capture(CLI::App& app, LiveOptions& o) {
  app.add_option(
         "-i,--interface", o.interface,
         "Capture live on this interface (findings printed as they become certain; Ctrl-C ends "
         "with the summary)")
      ->type_name("INTERFACE")
      ->group("Live capture");
  app.add_option("-f,--filter", o.filter, "BPF capture filter for -i (e.g. \"tcp port 4420\")")
      ->type_name("FILTER")
      ->group("Live capture");
  app.add_option("-w,--write", o.write,
                 "With -i: also write every frame captured to FILE (pcapng; frame N of it is "
                 "frame N of the report)")
      ->type_name("FILE")
      ->group("Live capture");
  app.add_option("--duration", o.duration, "Seconds to capture with -i (default: until Ctrl-C)")
      ->check(CLI::PositiveNumber)
      ->group("Live capture");
}

void add_threads(CLI::App& app, ReadingOptions& o) {
  app.add_option("-j,--jobs", o.jobs,
                 "Captures analysed in parallel (output keeps the given order)")
      ->check(CLI::Range(1u, 256u))
      ->group("Reading captures");
  app.add_option("--read-threads", o.read_threads,
                 "Threads per capture file: 2 reads and decompresses on one while the other "
                 "analyses, 1 does both on one; the same output either way (default: 2 where "
                 "the machine has two cores or more and its load average leaves one free)")
      ->check(CLI::Range(1u, 2u))
      ->group("Reading captures");
}

void add_catalogue(CLI::App& app, Parsed& parsed) {
  app.add_flag("--list-diagnostics", parsed.list_diagnostics,
               "Print the diagnostics catalogue (with --format json: as JSON) and exit")
      ->group("Catalogue");
  app.add_flag("--list-rules", parsed.list_rules,
               "Print the conformance matrix: every rule of RFC 5044 and RFC 6581, where a breach "
               "shows, the catalogue ids that check it (with --format json: as JSON) and exit")
      ->group("Catalogue");
}

// How captures are decoded: framing without startup frames, bounds, tunnel ports.
void add_decoding(CLI::App& app, ReadingOptions& o) {
  app.add_option("--markers", o.markers,
                 "Captures without startup frames: markers are on/off (default: inferred)")
      ->transform(choice(kOnOff))
      ->type_name("ON_OFF")
      ->group("Reading captures");
  app.add_option("--crc", o.crc,
                 "Captures without startup frames: CRCs are on/off (default: inferred)")
      ->transform(choice(kOnOff))
      ->type_name("ON_OFF")
      ->group("Reading captures");
  app.add_flag(
         "--infer-all", o.infer_all,
         "Look for FPDUs also in connections whose SYN was captured but that sent no startup frame")
      ->group("Reading captures");
  app.add_option("--max-buffer", o.max_buffer,
                 "Ceiling on buffered out-of-order octets per direction (default 4 MiB)")
      ->group("Reading captures");
  app.add_option("--max-connections", o.max_connections,
                 "Connections tracked at once (default 16384)")
      ->group("Reading captures");
  app.add_option("--idle-timeout", o.idle_timeout,
                 "Seconds without a segment after which a connection is finished and freed, "
                 "counted as expired, never an error (default: 300 with -i, never for files; 0: "
                 "never)")
      ->check(CLI::NonNegativeNumber)
      ->group("Reading captures");
  app.add_option("--vxlan-port", o.vxlan_ports,
                 "Also decode UDP port N as VXLAN (besides 4789; repeatable or N,M)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group("Reading captures");
  app.add_option("--geneve-port", o.geneve_ports,
                 "Also decode UDP port N as Geneve (besides 6081; repeatable or N,M)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->group("Reading captures");
}

void add_listing(CLI::App& app, ReportOptions& o) {
  app.add_flag("--list-fpdus", o.list_fpdus,
               "Also list every FPDU (frame completing it, frame where it starts, direction, seq, "
               "ULPDU_Length, CRC, markers)")
      ->group("Reports");
  app.add_flag("--list-messages", o.list_messages,
               "Also list every RDMA message (opcode, queue and MSN or STag and TO, octets, "
               "DDP segments, first and last frame; a Read Request's size, source and sink)")
      ->group("Reports");
  app.add_flag("--no-summary", o.no_summary,
               "Text format: findings only, no capture lines or totals")
      ->group("Reports");
  app.add_option("--progress", o.progress, "Progress on stderr for large inputs")
      ->transform(choice(kWhen))
      ->type_name("WHEN")
      ->group("Reports");
}

void add_plugfest(CLI::App& app, PlugfestOptions& o) {
  app.add_option("--hosts", o.hosts_file,
                 "Name the implementations: FILE maps addresses, subnets (ADDR/BITS) and MAC "
                 "prefixes to NAME [VERSION], one a line, # comments; a host it does not name is "
                 "named by its stack fingerprint, as a guess (\"looks like Linux siw\")")
      ->type_name("FILE")
      ->group("Plugfest");
  app.add_flag("--matrix", o.matrix,
               fmt::format("Text format: also print the interop matrix (Initiator implementation "
                           "x Responder implementation over all captures: connections, verdict, "
                           "first failing rule and the side that broke it; pairs never tried). "
                           "JSON (\"matrix\") and HTML show it where its implementations are "
                           "named or few: unless more than {} are known by their address only "
                           "(no --hosts entry, no stack fingerprint); --matrix always",
                           report::kMatrixUnnamedMost))
      ->group("Plugfest");
  app.add_option("--compare", o.compare,
                 "Compare two JSON reports of earlier runs (OLD NEW): per pair of implementations "
                 "and per connection what is new, fixed and stayed; exit status 1 when something "
                 "is new (an error or warning, by id and the side that broke it, that the pair "
                 "did not show in OLD), else 0 (with --format json: the comparison as JSON)")
      ->expected(2)
      ->type_name("JSON")
      ->group("Plugfest");
  app.add_option("--from-json", o.from_json,
                 "Make the reports (text summary, --matrix, --format json, --html, --junit, "
                 "--sarif) from JSON reports of earlier runs (CI shards, batch jobs) instead of "
                 "reading captures: no rerun; the HTML links findings to their captures instead "
                 "of showing their octets")
      ->expected(1, -1)
      ->type_name("JSON")
      ->group("Plugfest");
}

void declare(CLI::App& app, Parsed& parsed) {
  Options& o = parsed.options;
  app.set_version_flag("--version", [] {
    return fmt::format("mpa-check {}\nCRC32c: {} ({})\n{}", MPA_VERSION,
                       mpa::crc32c_active_implementation(),
                       mpa::crc32c_forced() ? fmt::format("forced by {}", mpa::kCrc32cEnvironment)
                                            : "chosen at run time for this CPU",
                       mpa::libpcap_version());
  });
  app.footer(kFooter);
  add_outputs(app, parsed);
  add_verdict(app, o.verdict);
  add_text_format(app, o.reports);
  add_live_capture(app, o.live);
  add_threads(app, o.reading);
  add_catalogue(app, parsed);
  add_decoding(app, o.reading);
  add_listing(app, o.reports);
  add_plugfest(app, o.plugfest);
}

// --junit, --sarif, --html: "-" is standard output.
ReportDestination destination(const std::string& value) {
  if (value.empty()) return {};
  if (value == "-") return {Sink::StandardOutput, {}};
  return {Sink::File, value};
}

// Whether `path` is still being written while we read it: standard input or a FIFO that is
// not a regular file.
bool arriving(const std::string& path) {
  struct stat st {};
  if (is_standard_input(path)) return fstat(STDIN_FILENO, &st) != 0 || !S_ISREG(st.st_mode);
  return stat(path.c_str(), &st) == 0 &&
         (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode));
}

// A live interface or a capture still arriving (a pipe): findings are printed as they become
// certain. (Not a pipe read as JSON, with a report on standard output instead, or while
// writing a baseline: the run is reported once its end is known.)
bool live(const Options& o) {
  if (!o.live.interface.empty()) return true;
  return o.reports.format == OutputFormat::Text && !stdout_taken(o.reports) &&
         o.captures.size() == 1 && arriving(o.captures[0]) && o.verdict.write_baseline.empty();
}

Mode mode_of(const Parsed& parsed) {
  const Options& o = parsed.options;
  if (parsed.list_diagnostics) return Mode::ListDiagnostics;
  if (parsed.list_rules) return Mode::ListRules;
  if (!o.plugfest.compare.empty()) return Mode::Compare;
  if (!o.plugfest.from_json.empty()) return Mode::FromJson;
  return live(o) ? Mode::Live : Mode::Check;
}

}  // namespace

std::optional<bool> on_off(OnOff value) {
  if (value == OnOff::Inferred) return std::nullopt;
  return value == OnOff::On;
}

bool is_standard_input(const std::string& capture) { return capture == "-"; }

bool stdout_taken(const ReportOptions& reports) {
  return reports.junit.sink == Sink::StandardOutput || reports.html.sink == Sink::StandardOutput ||
         reports.sarif.sink == Sink::StandardOutput;
}

std::optional<int> parse_options(int argc, char** argv, Options& options) {
  Parsed parsed{options, false, false, {}, {}, {}};
  CLI::App app{kDescription};
  declare(app, parsed);
  try {
    app.parse(argc, argv);
    for (int i = 0; i < argc; ++i) options.command += (i ? " " : "") + std::string(argv[i]);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitClean : kExitUsage;
  }
  options.reports.junit = destination(parsed.junit);
  options.reports.sarif = destination(parsed.sarif);
  options.reports.html = destination(parsed.html);
  options.mode = mode_of(parsed);
  if (options.reading.idle_timeout < 0)
    options.reading.idle_timeout = options.live.interface.empty() ? 0 : kLiveIdleTimeout;
  return std::nullopt;
}

std::optional<std::string> usage_error(const Options& o) {
  const bool captures = !o.captures.empty(), interface = !o.live.interface.empty();
  if (!o.plugfest.from_json.empty()) {
    if (captures || interface)
      return "--from-json makes the reports from JSON reports; give no capture with it";
    if (!o.verdict.write_baseline.empty())
      return "--write-baseline needs the captures, not JSON reports";
  }
  if (!captures && !interface && o.plugfest.from_json.empty())
    return "no capture given (try --help)";
  // Live-only options on files would be ignored: refused, as -w is.
  if (!o.live.write.empty() && !interface) return "-w keeps a live capture; give it with -i";
  if (!o.live.filter.empty() && !interface) return "-f filters a live capture; give it with -i";
  if (o.live.duration > 0 && !interface) return "--duration bounds a live capture; give it with -i";
  if (interface && captures) return "-i reads an interface; give no capture file with it";
  const int on_stdout = (o.reports.junit.sink == Sink::StandardOutput) +
                        (o.reports.html.sink == Sink::StandardOutput) +
                        (o.reports.sarif.sink == Sink::StandardOutput);
  if (on_stdout > 1)
    return "only one of --junit, --html and --sarif can write to standard output (-)";
  // The JSON report is standard output's: a second report there would drop it.
  if (on_stdout > 0 && o.reports.format == OutputFormat::Json)
    return "--format json writes to standard output; give --junit, --html or --sarif a FILE, not -";
  return std::nullopt;
}

}  // namespace mpa::cli
