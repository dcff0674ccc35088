// The end of a run of mpa-check: its reports written (the one of --format on standard output,
// JUnit, SARIF, HTML), its exit status, and the JSON reports and baselines it reads or writes.
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "html_trace.h"
#include "mpa/implementations.h"
#include "options.h"
#include "report.h"

namespace mpa::cli {

// What a run's reports are made with besides the captures' reports.
struct RunContext {
  const Options& options;
  const HostMap* hosts = nullptr;
  const report::Suppressions* suppressions = nullptr;  // whose rules are reviewed
  std::chrono::steady_clock::time_point start;
};

report::Policy policy_of(const VerdictOptions& verdict);
// The text report's options (the captures' lines, colour, folding) from the command line.
report::TextOptions text_options(const Options& options);

// Writes the reports of a run (text, JSON, JUnit, SARIF, HTML) and returns the exit status.
// `unreadable`: a capture could not be read; `streamed`: the findings were printed as found.
int finish_reports(std::vector<report::CaptureReport>& reports, const RunContext& run,
                   bool unreadable, bool streamed, const std::vector<report::CaptureTrace>& traces);

// Reads the JSON reports of earlier runs (--from-json, --compare); false (said on stderr) when
// one cannot be read.
bool read_reports(const std::vector<std::string>& paths,
                  std::vector<report::CaptureReport>& reports,
                  std::deque<report::Suppression>& rules);

// Writes the suppression file of --write-baseline; false (said on stderr) when it cannot.
bool write_baseline_file(const std::vector<report::CaptureReport>& reports,
                         const std::string& path);

}  // namespace mpa::cli
