// mpa-check's command line as values: the options --help lists, parsed once into enums and
// plain values (parse_options), so that what follows never compares a setting's text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mpa/diagnostics.h"

namespace mpa::cli {

constexpr int kExitClean = 0;
constexpr int kExitFindings = 1;
constexpr int kExitUsage = 2;

// What a run does: one function each (modes.h).
enum class Mode : std::uint8_t {
  Check,            // read the captures named, then report
  Live,             // a live interface (-i) or a capture still arriving: findings as found
  FromJson,         // --from-json: the reports made from JSON reports of earlier runs
  Compare,          // --compare OLD NEW
  ListDiagnostics,  // --list-diagnostics
  ListRules,        // --list-rules
};

enum class OutputFormat : std::uint8_t { Text, Json };  // --format

// --color and --progress: always, never, or where standard error/output is a terminal.
enum class When : std::uint8_t { Auto, Always, Never };

// --markers and --crc for captures without startup frames.
enum class OnOff : std::uint8_t { Inferred, On, Off };
std::optional<bool> on_off(OnOff value);

// Where a report besides the one of --format goes (--junit, --sarif, --html FILE): nowhere,
// to FILE, or to standard output ("-"), instead of the report of --format.
enum class Sink : std::uint8_t { None, File, StandardOutput };
struct ReportDestination {
  Sink sink = Sink::None;
  std::string file;  // with Sink::File
};

// The Reports group.
struct ReportOptions {
  OutputFormat format = OutputFormat::Text;
  ReportDestination junit;
  ReportDestination sarif;
  ReportDestination html;
  bool notes = false;
  bool verbose = false;
  std::size_t fold = 3;
  When color = When::Auto;
  bool list_fpdus = false;
  bool list_messages = false;  // --list-messages
  bool no_summary = false;
  When progress = When::Auto;
};

// The Verdict and suppressions group.
struct VerdictOptions {
  Severity fail_on = Severity::Error;
  bool require_mpa = false;
  std::string suppress;
  bool no_suppress = false;
  bool show_suppressed = false;
  std::string write_baseline;
};

// The Live capture group.
struct LiveOptions {
  std::string interface;
  std::string filter;
  std::string write;  // -w
  double duration = 0;
};

// The Reading captures group.
struct ReadingOptions {
  unsigned jobs = 1;
  // Threads per capture file: 2 reads (and decompresses) on one while the other analyses;
  // 0: 2 where a second core is free (see auto_read_threads).
  unsigned read_threads = 0;
  OnOff markers = OnOff::Inferred;
  OnOff crc = OnOff::Inferred;
  bool infer_all = false;
  std::size_t max_buffer = 4u << 20;
  std::size_t max_connections = 16384;
  // --idle-timeout: seconds without a segment after which a connection is finished and freed
  // ("expired"); 0: never. Unset on the command line: kLiveIdleTimeout with -i, never for files.
  double idle_timeout = -1;
  std::vector<std::uint16_t> vxlan_ports;   // in addition to 4789
  std::vector<std::uint16_t> geneve_ports;  // in addition to 6081
};

// A live run's idle timeout unless --idle-timeout says otherwise: Zeek's TCP inactivity
// timeout (5 minutes).
constexpr double kLiveIdleTimeout = 300;

// The Plugfest group (--matrix is a report: it is here as --help groups it).
struct PlugfestOptions {
  std::string hosts_file;              // --hosts
  bool matrix = false;                 // --matrix
  std::vector<std::string> compare;    // --compare OLD NEW
  std::vector<std::string> from_json;  // --from-json A B ...
};

struct Options {
  Mode mode = Mode::Check;
  std::vector<std::string> captures;  // as named: files, folders, - for standard input
  std::string command;                // the command line, for the HTML and SARIF reports
  ReportOptions reports;
  VerdictOptions verdict;
  LiveOptions live;
  ReadingOptions reading;
  PlugfestOptions plugfest;
};

// Parses the command line into `options`; the exit status when the parse ends the run
// (--help, --version: 0; a usage error, said on stderr: 2), else nullopt.
std::optional<int> parse_options(int argc, char** argv, Options& options);

// The usage error of a run that reads captures or JSON reports (options that do not go
// together, nothing to read), as said after "mpa-check: "; nullopt when there is none.
std::optional<std::string> usage_error(const Options& options);

// Whether a capture name is standard input ("-").
bool is_standard_input(const std::string& capture);

// Whether the report of --format is replaced on standard output by --junit, --sarif or --html.
bool stdout_taken(const ReportOptions& reports);

}  // namespace mpa::cli
