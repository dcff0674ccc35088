// JUnit XML for CI dashboards: a test suite per capture, a test case per MPA connection
// failed by exactly the findings that fail the exit status (--fail-on, suppressions), the
// other warnings in system-out; --require-mpa adds a test case for a capture without MPA.
// Times: the run's wall time, each capture's analysis time, and an equal share of it for
// each of its test cases (the connections of a capture are analysed together). The class
// name is the capture with its dots as underscores, under "mpa-check.": viewers split class
// names at dots into packages, and would cut the file name at ".pcap".
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

#include "html_escape.h"
#include "report.h"

namespace mpa::report {
namespace {

std::string class_name(const std::string& file) {
  std::string name = "mpa-check." + file;
  std::replace(name.begin() + 10, name.end(), '.', '_');
  return xml_attribute_escape(name);
}

// A test case: an MPA connection, failed by the findings that fail the exit status.
struct Case {
  std::string name;
  std::vector<const ReportedFinding*> failures;
  std::string system_out;
};

Case case_of(const ConnectionReport& c, const Policy& policy) {
  Case k{fmt::format("connection {} {}", c.summary.id, describe_endpoints(c)), {}, {}};
  for (const ReportedFinding& f : c.findings) {
    const DiagnosticInfo& d = info(f.finding.id);
    if (!f.suppressed_by && counts_as_failure(d.severity, policy)) {
      k.failures.push_back(&f);
    } else if (d.severity != Severity::Note) {
      // What does not fail the run still shows in the CI tool's output.
      k.system_out += fmt::format(
          "{}{}: frame {}, {} data, seq {}: {} [{}]{}\n", f.suppressed_by ? "suppressed " : "",
          to_string(d.severity), f.finding.frame, to_string(f.finding.direction),
          f.finding.tcp_seq.value(), f.finding.message, d.name,
          f.suppressed_by ? fmt::format(" ({}:{}: {})", f.suppressed_by->file,
                                        f.suppressed_by->line, f.suppressed_by->reason)
                          : std::string());
    }
  }
  if (c.findings_not_stored)
    k.system_out += fmt::format("{} more findings not listed\n", c.findings_not_stored);
  return k;
}

void write_case(std::ostream& out, const Case& k, const std::string& classname, double share) {
  fmt::print(out, "    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\">\n", classname,
             xml_attribute_escape(k.name), share);
  if (!k.failures.empty()) {
    // One failure element a test case (what CI tools show), every finding in its text.
    // Its type is the worst finding's id (an error before a warning, the first of them),
    // not merely the connection's first: what a CI tool shows as the cause.
    const DiagnosticInfo* worst = &info(k.failures.front()->finding.id);
    for (const ReportedFinding* f : k.failures) {
      const DiagnosticInfo& d = info(f->finding.id);
      if (static_cast<int>(d.severity) > static_cast<int>(worst->severity)) worst = &d;
    }
    std::string body;
    for (const ReportedFinding* f : k.failures) {
      const DiagnosticInfo& d = info(f->finding.id);
      body += fmt::format("{}: frame {}, {} data, seq {}: {} [{}] ({}{})\n", to_string(d.severity),
                          f->finding.frame, to_string(f->finding.direction),
                          f->finding.tcp_seq.value(), f->finding.message, d.name, d.rfc,
                          d.error_code != MpaError::None
                              ? fmt::format(", error code {}", number(d.error_code))
                              : std::string());
    }
    fmt::print(out, "      <failure type=\"{}\" message=\"{}: {}\">{}</failure>\n", worst->name,
               count_of(k.failures.size(), "finding"), xml_attribute_escape(worst->summary),
               html_escape(body));
  }
  if (!k.system_out.empty())
    fmt::print(out, "      <system-out>{}</system-out>\n", html_escape(k.system_out));
  out << "    </testcase>\n";
}

// A capture's test suite: its connections, then what fails the capture itself.
void write_suite(std::ostream& out, const CaptureReport& cap, const Policy& policy) {
  const bool read_error = !cap.result.ok;
  const bool no_mpa = policy.require_mpa && cap.mpa_connections == 0;
  std::vector<Case> cases;
  for (const ConnectionReport& c : cap.connections) cases.push_back(case_of(c, policy));
  std::size_t failed_cases = 0;
  for (const Case& k : cases) failed_cases += k.failures.empty() ? 0 : 1;
  const std::size_t tests = cases.size() + (read_error ? 1 : 0) + (no_mpa ? 1 : 0);
  fmt::print(out,
             "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
             "time=\"{:.3f}\">\n",
             xml_attribute_escape(cap.file), tests, failed_cases + (no_mpa ? 1 : 0),
             read_error ? 1 : 0, cap.seconds);
  const std::string classname = class_name(cap.file);
  const double share = tests ? cap.seconds / static_cast<double>(tests) : 0.0;
  for (const Case& k : cases) write_case(out, k, classname, share);
  if (no_mpa) {
    fmt::print(
        out,
        "    <testcase classname=\"{}\" name=\"MPA present\" time=\"{:.3f}\">\n      <failure "
        "type=\"no-mpa\" message=\"no MPA connection in the capture (--require-mpa)\"/>\n    "
        "</testcase>\n",
        classname, share);
  }
  if (read_error) {
    fmt::print(out,
               "    <testcase classname=\"{}\" name=\"read capture\" time=\"{:.3f}\">\n      "
               "<error message=\"{}\"/>\n    </testcase>\n",
               classname, share, xml_attribute_escape(cap.result.error));
  }
  out << "  </testsuite>\n";
}

}  // namespace

void write_junit(std::ostream& out, const std::vector<CaptureReport>& captures,
                 const Policy& policy, double seconds) {
  fmt::print(out,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mpa-check\" "
             "time=\"{:.3f}\">\n",
             seconds);
  for (const CaptureReport& cap : captures) write_suite(out, cap, policy);
  out << "</testsuites>\n";
}

}  // namespace mpa::report
