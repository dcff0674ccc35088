// mpa-check: the batch MPA conformance checker. Captures in; findings with RFC sections
// and error codes out (text, JSON, JUnit XML); an exit status CI can act on.
#include <fmt/format.h>
#include <malloc.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "modes.h"
#include "mpa/crc32c.h"
#include "mpa/implementations.h"
#include "options.h"
#include "suppressions.h"

namespace {

using namespace mpa::cli;

// --hosts; false (said on stderr) when the file cannot be read.
bool load_hosts(const Options& options, std::optional<mpa::HostMap>& hosts) {
  if (options.plugfest.hosts_file.empty()) return true;
  std::string error;
  hosts = mpa::HostMap::load(options.plugfest.hosts_file, error);
  if (!hosts) std::cerr << "mpa-check: " << error << '\n';
  return hosts.has_value();
}

// --suppress, else .mpa-check-suppressions where present, unless --no-suppress; false (said
// on stderr) when the file cannot be read.
bool load_suppressions(const Options& options,
                       std::optional<mpa::report::Suppressions>& suppressions) {
  if (options.verdict.no_suppress) return true;
  std::string path = options.verdict.suppress;
  if (path.empty() && std::filesystem::exists(mpa::report::Suppressions::kDefaultFile)) {
    path = mpa::report::Suppressions::kDefaultFile;
  }
  if (path.empty()) return true;
  std::string error;
  suppressions = mpa::report::Suppressions::load(path, error);
  if (!suppressions) std::cerr << "mpa-check: " << error << '\n';
  return suppressions.has_value();
}

}  // namespace

int main(int argc, char** argv) {
  if (const std::string error = mpa::crc32c_environment_error(); !error.empty()) {
    fmt::print(stderr, "mpa-check: {}\n", error);
    return kExitUsage;
  }
  Options options;
  if (const std::optional<int> status = parse_options(argc, argv, options)) return *status;
  if (options.mode == Mode::ListDiagnostics) return list_diagnostics(options);
  if (options.mode == Mode::ListRules) return list_rules(options);
  std::optional<mpa::HostMap> hosts;
  if (!load_hosts(options, hosts)) return kExitUsage;
  if (options.mode == Mode::Compare) return compare_runs(options, hosts ? &*hosts : nullptr);
  if (const std::optional<std::string> error = usage_error(options)) {
    std::cerr << "mpa-check: " << *error << '\n';
    return kExitUsage;
  }
  const auto start = std::chrono::steady_clock::now();
  if (options.reports.html.sink != Sink::None) {
    // The HTML trace's long-lived allocations change where the heap's top lies: without this,
    // each connection's end gave the reassembler's buffer back to the kernel (brk) and the next
    // connection faulted it in again (+50% CPU on the 1 GiB benchmark). Keep up to 64 MiB.
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
  }
  std::optional<mpa::report::Suppressions> suppressions;
  if (!load_suppressions(options, suppressions)) return kExitUsage;
  const RunContext run{options, hosts ? &*hosts : nullptr, suppressions ? &*suppressions : nullptr,
                       start};
  switch (options.mode) {
    case Mode::Live:
      return check_live(run);
    case Mode::FromJson:
      return reports_from_json(run);
    default:
      return check_captures(run);
  }
}
