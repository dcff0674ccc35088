// What mpa-check does, one function a mode: list the catalogue or the rules, compare two
// runs, report from JSON reports, read a live capture, read captures.
#include "modes.h"

#include <algorithm>
#include <deque>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture_check.h"
#include "plugfest.h"
#include "streaming_text.h"
#include "suppressions.h"

namespace mpa::cli {
namespace {

void say_baseline_listed(const std::string& path) {
  std::cerr << "mpa-check: wrote " << path
            << " (findings listed as found: it accepts them from the next run on)\n";
}

// --write-baseline over standard input, read once (`reports`, without the HTML page): its
// findings are reported as found, and the baseline accepts them from the next run on.
int report_as_found(std::vector<report::CaptureReport>& reports, const RunContext& run,
                    const Options& first, bool unreadable) {
  say_baseline_listed(run.options.verdict.write_baseline);
  if (run.options.reports.html.sink != Sink::None) {
    std::cerr << "mpa-check: no HTML report when a baseline is written from standard input\n";
  }
  const int status = finish_reports(reports, {first, run.hosts, run.suppressions, run.start},
                                    unreadable, false, {});
  return status == kExitFindings ? kExitClean : status;
}

}  // namespace

int list_diagnostics(const Options& options) {
  report::write_catalogue(std::cout, options.reports.format == OutputFormat::Json);
  return kExitClean;
}

int list_rules(const Options& options) {
  report::write_rules(std::cout, options.reports.format == OutputFormat::Json);
  return kExitClean;
}

int compare_runs(const Options& options, const HostMap* hosts) {
  if (!options.captures.empty() || !options.plugfest.from_json.empty() ||
      !options.live.interface.empty()) {
    std::cerr << "mpa-check: --compare reads two JSON reports; give no capture with it\n";
    return kExitUsage;
  }
  const std::string& old_name = options.plugfest.compare[0];
  const std::string& new_name = options.plugfest.compare[1];
  std::deque<report::Suppression> rules;
  std::vector<report::CaptureReport> old_run, new_run;
  if (!read_reports({old_name}, old_run, rules) || !read_reports({new_name}, new_run, rules)) {
    return kExitUsage;
  }
  report::name_implementations(old_run, hosts);
  report::name_implementations(new_run, hosts);
  if (options.reports.format == OutputFormat::Json)
    return report::write_comparison_json(std::cout, old_name, old_run, new_name, new_run);
  return report::write_comparison_text(std::cout, old_name, old_run, new_name, new_run);
}

int reports_from_json(const RunContext& run) {
  // Reports from reports: the findings as the earlier runs judged them (their suppressions
  // included), the verdicts by this run's --fail-on and --require-mpa.
  std::deque<report::Suppression> rules;
  std::vector<report::CaptureReport> reports;
  if (!read_reports(run.options.plugfest.from_json, reports, rules)) return kExitUsage;
  bool unreadable = false;
  for (const report::CaptureReport& r : reports) unreadable |= !r.result.ok;
  std::vector<report::CaptureTrace> traces(
      run.options.reports.html.sink == Sink::None ? 0 : reports.size());
  const RunContext unsuppressed{run.options, run.hosts, nullptr, run.start};
  return finish_reports(reports, unsuppressed, unreadable, false, traces);
}

int check_live(const RunContext& run) {
  const Options& o = run.options;
  // Ctrl-C (SIGINT) or SIGTERM ends the capture and the summary follows.
  stop_reading_on_interrupt();
  const bool interface = !o.live.interface.empty();
  const bool streaming = o.reports.format == OutputFormat::Text && !stdout_taken(o.reports);
  // Live capture as JSON: JSON Lines, an event a line as it happens.
  const bool json_lines = o.reports.format == OutputFormat::Json && !stdout_taken(o.reports);
  const std::string name = interface ? o.live.interface
                           : is_standard_input(o.captures[0]) ? "<stdin>"
                                                              : o.captures[0];
  report::StreamingText printer(std::cout, name, text_options(o));
  const std::unique_ptr<report::FindingObserver> events =
      json_lines ? report::json_lines_observer(std::cout, name) : nullptr;
  std::vector<report::CaptureTrace> traces(o.reports.html.sink == Sink::None ? 0 : 1);
  bool unreadable = false;
  std::vector<report::CaptureReport> reports;
  reports.push_back(check_file(
      o.captures.empty() ? "" : o.captures[0], {o, run.hosts, run.suppressions}, unreadable,
      streaming ? &printer : events.get(), traces.empty() ? nullptr : &traces[0]));
  if (unreadable) std::cerr << "mpa-check: " << reports.back().result.error << '\n';
  // An interface or filter that could not be opened read nothing: the message above, no
  // report of zero frames, exit 2.
  if (interface && reports.back().not_opened) return kExitUsage;
  if (!o.verdict.write_baseline.empty()) {
    // Read once: its findings are reported as found; the baseline accepts them next time.
    if (!write_baseline_file(reports, o.verdict.write_baseline)) return kExitUsage;
    say_baseline_listed(o.verdict.write_baseline);
  }
  const int status = finish_reports(reports, run, unreadable, streaming || json_lines, traces);
  return o.verdict.write_baseline.empty() || status != kExitFindings ? status : kExitClean;
}

int check_captures(const RunContext& run) {
  std::vector<std::string> files;
  expand_inputs(run.options.captures, files);
  if (files.empty()) {
    std::cerr << "mpa-check: no pcap or pcapng file in the folders given\n";
    return kExitUsage;
  }
  const std::string& baseline = run.options.verdict.write_baseline;
  std::optional<report::Suppressions> accepted;  // the baseline written
  const report::Suppressions* suppressions = run.suppressions;
  if (!baseline.empty()) {
    // The baseline accepts what this run finds; the run is then read again with it alone,
    // so that it reports what the next run with the baseline will (standard input cannot be
    // read twice: its findings are reported as found).
    Options first = run.options;
    first.reports.html = {};  // the page is drawn from the second reading
    std::vector<report::CaptureTrace> no_traces;
    bool first_unreadable = false;
    std::vector<report::CaptureReport> reports =
        check_files(files, {first, run.hosts, suppressions}, first_unreadable, no_traces, false);
    if (!write_baseline_file(reports, baseline)) return kExitUsage;
    if (std::any_of(files.begin(), files.end(), is_standard_input)) {
      return report_as_found(reports, run, first, first_unreadable);
    }
    std::string error;
    accepted = report::Suppressions::load(baseline, error);
    if (!accepted) {
      std::cerr << "mpa-check: " << error << '\n';
      return kExitUsage;
    }
    suppressions = &*accepted;
    std::cerr << "mpa-check: wrote " << baseline << "; the run is reported with it\n";
  }
  bool unreadable = false;
  std::vector<report::CaptureTrace> traces;
  std::vector<report::CaptureReport> reports =
      check_files(files, {run.options, run.hosts, suppressions}, unreadable, traces);
  return finish_reports(reports, {run.options, run.hosts, suppressions, run.start}, unreadable,
                        false, traces);
}

}  // namespace mpa::cli
