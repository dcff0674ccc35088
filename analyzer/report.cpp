// Collecting library events into per-capture reports (see report.h).
#include "report.h"

#include <algorithm>

#include <fmt/format.h>

namespace mpa::report {

void Collector::on_finding(const Finding& finding) {
  if (finding.connection == UINT32_MAX) {
    if (report_.capture_findings.size() < kMaxStoredFindings) report_.capture_findings.push_back(finding);
    return;
  }
  ConnectionReport& c = open_[finding.connection];
  if (c.findings.size() < kMaxStoredFindings) {
    c.findings.push_back(finding);
  } else {
    ++c.findings_not_stored;
  }
}

void Collector::on_connection_end(const ConnectionSummary& summary) {
  ConnectionReport& c = open_[summary.id];
  c.summary = summary;
  report_.connections.push_back(std::move(c));
  open_.erase(summary.id);
}

void Collector::finish() {
  std::sort(report_.connections.begin(), report_.connections.end(),
            [](const ConnectionReport& a, const ConnectionReport& b) { return a.summary.id < b.summary.id; });
  // Renumber densely so ids in reports count MPA connections of this capture from 0.
  std::uint32_t next = 0;
  for (ConnectionReport& c : report_.connections) {
    c.summary.id = next;
    for (Finding& f : c.findings) f.connection = next;
    ++next;
  }
}

Totals totals(const std::vector<CaptureReport>& captures) {
  Totals t;
  for (const CaptureReport& cap : captures) {
    t.connections += cap.connections.size();
    t.read_error |= !cap.result.ok;
    for (const ConnectionReport& c : cap.connections) {
      for (int i = 0; i < 3; ++i) t.by_severity[i] += c.summary.findings[i];
    }
    for (const Finding& f : cap.capture_findings) ++t.by_severity[static_cast<int>(info(f.id).severity)];
  }
  return t;
}

std::string describe_endpoints(const ConnectionSummary& summary) {
  return fmt::format("{} -> {}", to_string(summary.initiator), to_string(summary.responder));
}

}  // namespace mpa::report
