// The end of a run of mpa-check: the reports a run asked for, where it asked for them, and
// the exit status CI acts on.
#include "run_reports.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string_view>

#include "plugfest.h"
#include "report_from_json.h"
#include "report_html.h"

namespace mpa::cli {
namespace {

bool use_color(When mode, int fd) {
  if (mode == When::Always) return true;
  if (mode == When::Never) return false;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return isatty(fd) && !(no_color && *no_color) && !(term && std::string_view(term) == "dumb");
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The reports of a run and what each is made with.
struct RunReports {
  std::vector<report::CaptureReport>& reports;
  const RunContext& context;
  report::Policy policy;
  const std::vector<report::CaptureTrace>& traces;
  double seconds;

  void html(std::ostream& out) const {
    report::HtmlOptions options;
    options.policy = policy;
    options.version = MPA_VERSION;
    options.command = context.options.command;
    options.matrix = context.options.plugfest.matrix;
    if (context.options.reports.html.sink == Sink::File) {
      std::error_code ec;
      options.folder =
          std::filesystem::absolute(context.options.reports.html.file, ec).parent_path().string();
    }
    report::write_html(out, reports, traces, options);
  }
  void sarif(std::ostream& out) const {
    report::SarifOptions options;
    options.policy = policy;
    options.notes = context.options.reports.notes;
    options.version = MPA_VERSION;
    options.command = context.options.command;
    std::error_code ec;
    options.working_folder = std::filesystem::current_path(ec).string();
    report::write_sarif(out, reports, options);
  }
  void junit(std::ostream& out) const { report::write_junit(out, reports, policy, seconds); }
};

// The report of --format, or the one of --junit, --html or --sarif that takes its place.
void write_standard_output(const RunReports& run, const report::RuleReview& review, bool streamed) {
  const ReportOptions& o = run.context.options.reports;
  if (o.junit.sink == Sink::StandardOutput) {
    run.junit(std::cout);
  } else if (o.html.sink == Sink::StandardOutput) {
    run.html(std::cout);
  } else if (o.sarif.sink == Sink::StandardOutput) {
    run.sarif(std::cout);
  } else if (o.format == OutputFormat::Json && streamed) {
    for (const report::CaptureReport& report : run.reports) {
      report::write_json_lines_end(std::cout, report, run.policy);
    }
  } else if (o.format == OutputFormat::Json) {
    report::write_json(std::cout, run.reports, run.policy, review,
                       run.context.options.plugfest.matrix, MPA_VERSION);
  } else {
    report::TextOptions text = text_options(run.context.options);
    text.list_findings = !streamed;
    if (streamed) text.connections = false;  // printed as each connection ended
    report::write_text(std::cout, run.reports, text);
    if (run.context.options.plugfest.matrix) {
      report::write_matrix_text(std::cout, report::build_matrix(run.reports), run.reports);
    }
    if (!o.no_summary) report::write_text_end(std::cout, run.reports, text);
  }
}

// Writes the report of `destination` when it is a file; false (said on stderr) when it cannot.
template <typename Write>
bool to_file(const ReportDestination& destination, std::ios::openmode mode, Write&& write) {
  if (destination.sink != Sink::File) return true;
  std::ofstream out(destination.file, mode);
  write(out);
  out.close();
  if (!out) {
    std::cerr << "mpa-check: cannot write " << destination.file << '\n';
    return false;
  }
  return true;
}

}  // namespace

report::Policy policy_of(const VerdictOptions& verdict) {
  report::Policy policy;
  policy.fail_on = verdict.fail_on;
  policy.require_mpa = verdict.require_mpa;
  return policy;
}

report::TextOptions text_options(const Options& options) {
  report::TextOptions text;
  text.notes = options.reports.notes || options.reports.verbose;
  text.connections = options.reports.verbose;
  text.certain_at = options.reports.verbose;
  text.color = use_color(options.reports.color, STDOUT_FILENO);
  text.fold_after = options.reports.fold;
  text.policy = policy_of(options.verdict);
  text.capture_lines = !options.reports.no_summary;
  text.suppressed = options.verdict.show_suppressed;
  text.timestamps = !options.live.interface.empty();
  return text;
}

int finish_reports(std::vector<report::CaptureReport>& reports, const RunContext& run,
                   bool unreadable, bool streamed,
                   const std::vector<report::CaptureTrace>& traces) {
  const RunReports out{reports, run, policy_of(run.options.verdict), traces,
                       seconds_since(run.start)};
  // Who is who, over the whole run: the hosts file, else the stacks seen from each address.
  report::name_implementations(reports, run.hosts);
  const report::RuleReview review =
      run.suppressions ? run.suppressions->review(reports) : report::RuleReview{};
  // What is said of the rules goes to stderr: it is about the suppression file, not the
  // captures, and standard output stays what grep and CI count.
  report::write_rule_review(std::cerr, review);
  write_standard_output(out, review, streamed);
  const ReportOptions& o = run.options.reports;
  if (!to_file(o.junit, std::ios::out, [&](std::ostream& s) { out.junit(s); }) ||
      !to_file(o.sarif, std::ios::out, [&](std::ostream& s) { out.sarif(s); }) ||
      !to_file(o.html, std::ios::out | std::ios::binary, [&](std::ostream& s) { out.html(s); })) {
    return kExitUsage;
  }
  if (unreadable) return kExitUsage;
  return report::totals(reports, out.policy).failed_captures ? kExitFindings : kExitClean;
}

bool read_reports(const std::vector<std::string>& paths,
                  std::vector<report::CaptureReport>& reports,
                  std::deque<report::Suppression>& rules) {
  for (const std::string& path : paths) {
    std::string error;
    if (!report::read_json_report(path, reports, rules, error)) {
      std::cerr << "mpa-check: " << error << '\n';
      return false;
    }
  }
  return true;
}

bool write_baseline_file(const std::vector<report::CaptureReport>& reports,
                         const std::string& path) {
  std::ofstream baseline(path);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  const std::string folder =
      std::filesystem::path(report::capture_place(path, true).given).parent_path().string();
  report::write_baseline(baseline, reports, date, folder);
  baseline.close();
  if (!baseline) {
    std::cerr << "mpa-check: cannot write " << path << '\n';
    return false;
  }
  return true;
}

}  // namespace mpa::cli
