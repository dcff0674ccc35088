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
  if (c.findings.size() < kMaxStoredFindings && stored_ < kMaxStoredFindingsPerCapture) {
    c.findings.push_back(finding);
    ++stored_;
  } else {
    ++c.findings_not_stored;
  }
}

void Collector::on_fpdu(const FpduEvent& fpdu) {
  if (!list_fpdus_) return;
  open_[fpdu.connection].fpdus.push_back({fpdu.last_frame, fpdu.direction, fpdu.header_seq,
                                          fpdu.ulpdu_length, fpdu.crc_status,
                                          static_cast<std::uint32_t>(fpdu.markers.size())});
}

std::string_view to_string(CrcStatus status) {
  switch (status) {
    case CrcStatus::Good: return "good";
    case CrcStatus::Bad: return "bad";
    case CrcStatus::NotChecked: return "unchecked";
  }
  return "?";
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
      for (Severity s : {Severity::Note, Severity::Warning, Severity::Error}) {
        t.by_severity[s] += c.summary.findings[s];
      }
    }
    for (const Finding& f : cap.capture_findings) ++t.by_severity[info(f.id).severity];
  }
  return t;
}

std::string_view rdmap_opcode_name(std::size_t opcode) {
  static constexpr std::string_view kNames[16] = {
      "rdma_write", "rdma_read_request", "rdma_read_response", "send", "send_invalidate",
      "send_se", "send_se_invalidate", "terminate", "opcode_8", "opcode_9", "opcode_10",
      "opcode_11", "opcode_12", "opcode_13", "opcode_14", "opcode_15"};
  return opcode < 16 ? kNames[opcode] : "?";
}

std::string ulpdu_bucket_label(std::size_t bucket) {
  if (bucket == 0) return "0";
  return fmt::format("{}-{}", kUlpduSizeBounds[bucket - 1] + 1, kUlpduSizeBounds[bucket]);
}

double percent(std::uint64_t a, std::uint64_t b) {
  return b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

std::string describe_endpoints(const ConnectionSummary& summary) {
  return fmt::format("{} -> {}", to_string(summary.initiator), to_string(summary.responder));
}

}  // namespace mpa::report
