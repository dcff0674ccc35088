// Collecting library events into per-capture reports (see report.h).
#include "report.h"

#include <fmt/format.h>

#include <algorithm>

namespace mpa::report {

void Collector::count(const ReportedFinding& f, std::uint32_t connection, ConnectionReport* c) {
  if (observer_) observer_->on_decided(f, connection);
  const Severity severity = info(f.finding.id).severity;
  ++report_.found_by_id[f.finding.id];
  if (f.suppressed_by) {
    ++report_.suppressed[severity];
    ++report_.suppressed_by[f.suppressed_by];
    if (c) ++c->suppressed[severity];
  } else {
    ++report_.active[severity];
    ++report_.active_by_id[f.finding.id];
    if (c) ++c->active[severity];
  }
}

// Suppression rules that need the connection (endpoint, stack) wait for its end; the
// rules' counts are this capture's.
ReportedFinding Collector::judge(const Finding& finding, bool stored) {
  ReportedFinding f{finding, nullptr, nullptr, true};
  if (!suppressions_ || suppressions_->empty()) return f;
  if (finding.connection != kCaptureFinding && suppressions_->needs_connection(finding.id)) {
    f.decided = false;
    if (!stored) {
      auto& [first, n] = pending_[finding.connection][finding.id];
      if (n++ == 0) first = finding;
    }
    return f;
  }
  const Judgement j = suppressions_->match(report_.place, finding, nullptr, report_.suppressed_by);
  f.suppressed_by = j.by;
  f.over_count = j.over_count;
  return f;
}

void Collector::on_finding(const Finding& finding) {
  if (finding.connection == kCaptureFinding) {
    ReportedFinding f = judge(finding, false);
    count(f, kCaptureFinding, nullptr);
    if (report_.capture_findings.size() < kMaxStoredFindings)
      report_.capture_findings.push_back(std::move(f));
    return;
  }
  ConnectionReport& c = open_[finding.connection];
  const bool stored =
      c.findings.size() < kMaxStoredFindings && stored_ < kMaxStoredFindingsPerCapture;
  ReportedFinding f = judge(finding, stored);
  if (f.decided) count(f, finding.connection, &c);
  if (stored) {
    c.findings.push_back(std::move(f));
    ++stored_;
  } else {
    ++c.findings_not_stored;
  }
}

RdmaMessageLog& Collector::message_log(std::uint32_t connection) {
  LogSlot& slot = log_slots_[connection % kLogSlots];
  if (slot.log == nullptr || slot.id != connection) {
    auto log = messages_.find(connection);
    if (log == messages_.end()) {
      // (Without the listing, only the counts are read: the log builds no messages.)
      log = list_messages_
                ? messages_.emplace(connection, RdmaMessageLog(kMaxListedMessages)).first
                : messages_.emplace(connection, RdmaMessageLog(RdmaMessageLog::CountsOnly{})).first;
    }
    slot = {connection, &log->second};
  }
  return *slot.log;
}

void Collector::on_fpdu(const FpduEvent& fpdu) {
  message_log(fpdu.connection).on_fpdu(fpdu);
  if (!list_fpdus_) return;
  open_[fpdu.connection].fpdus.push_back(
      {fpdu.last_frame, fpdu.direction, fpdu.header_seq, fpdu.ulpdu_length, fpdu.crc_status,
       static_cast<std::uint32_t>(fpdu.markers.size()), fpdu.first_frame});
}

void Collector::on_fpdu_revised(const FpduEvent& revised, bool markers) {
  if (!list_fpdus_) return;
  auto it = open_.find(revised.connection);
  if (it == open_.end()) return;
  std::vector<FpduRecord>& fpdus = it->second.fpdus;
  for (auto r = fpdus.rbegin(); r != fpdus.rend(); ++r) {
    if (r->direction != revised.direction || r->seq != revised.header_seq) continue;
    r->frame = revised.last_frame;
    r->crc = revised.crc_status;
    if (!markers) r->markers = 0;
    return;
  }
}

std::string_view to_string(CrcStatus status) {
  switch (status) {
    case CrcStatus::Good:
      return "good";
    case CrcStatus::Bad:
      return "bad";
    case CrcStatus::NotChecked:
      return "unchecked";
  }
  return "?";
}

void Collector::on_connection_start(const ConnectionSummary& summary) {
  (void)summary;
  ++report_.mpa_connections;
}

void Collector::on_connection_end(const ConnectionSummary& summary) {
  ConnectionReport& c = open_[summary.id];
  c.summary = summary;
  if (auto log = messages_.find(summary.id); log != messages_.end()) {
    for (Direction d : {Direction::Initiator, Direction::Responder}) {
      c.messages.counts[static_cast<int>(d)] = log->second.counts(d);
    }
    if (list_messages_) {
      c.messages.list = log->second.messages();
      c.messages.not_listed = log->second.not_listed();
    }
    if (LogSlot& slot = log_slots_[summary.id % kLogSlots]; slot.log == &log->second) slot = {};
    messages_.erase(log);
  }
  if (const std::uint64_t id = summary.initiator.tunnel; id != 0 && tunnel_names_) {
    const auto it = tunnel_names_->find(id);
    c.tunnel = it != tunnel_names_->end() ? it->second : fmt::format("tunnel {:016x}", id);
  }
  auto decide = [&](ReportedFinding& f) {
    const Judgement j =
        suppressions_->match(report_.place, f.finding, &c.summary, report_.suppressed_by);
    f.suppressed_by = j.by;
    f.over_count = j.over_count;
    f.decided = true;
    count(f, summary.id, &c);
  };
  for (ReportedFinding& f : c.findings) {
    if (!f.decided) decide(f);
  }
  // Those beyond the listing limit: judged as the listed ones, one by one for the counts.
  if (const auto pending = pending_.find(summary.id); pending != pending_.end()) {
    for (const auto& [id, first_and_n] : pending->second) {
      for (std::uint64_t i = 0; i < first_and_n.second; ++i) {
        ReportedFinding f{first_and_n.first, nullptr, nullptr, false};
        decide(f);
      }
    }
    pending_.erase(pending);
  }
  for (const Direction d : {Direction::Initiator, Direction::Responder}) {
    const Endpoint& e = d == Direction::Initiator ? c.summary.initiator : c.summary.responder;
    namer_.observe(e.address, c.summary.direction(d).stack);
  }
  for (const Direction d : {Direction::Initiator, Direction::Responder}) {
    const Endpoint& e = d == Direction::Initiator ? c.summary.initiator : c.summary.responder;
    c.implementations[static_cast<int>(d)] =
        namer_.name(e.address, c.summary.direction(d).mac, c.summary.direction(d).stack);
  }
  if (observer_) observer_->on_connection_end(c);
  if (keep_connections_) report_.connections.push_back(std::move(c));
  open_.erase(summary.id);
}

void Collector::finish() {
  // By number: in the order the connections became MPA (they end in another order).
  std::sort(report_.connections.begin(), report_.connections.end(),
            [](const ConnectionReport& a, const ConnectionReport& b) {
              return a.summary.id < b.summary.id;
            });
}

bool counts_as_failure(Severity severity, const Policy& policy) {
  return static_cast<int>(severity) >= static_cast<int>(policy.fail_on);
}

bool fails(const CaptureReport& cap, const Policy& policy) {
  for (Severity s : {Severity::Note, Severity::Warning, Severity::Error}) {
    if (counts_as_failure(s, policy) && cap.active[s] > 0) return true;
  }
  return policy.require_mpa && cap.mpa_connections == 0;
}

std::string failure_reason(const CaptureReport& cap, const Policy& policy) {
  std::vector<std::string> parts;
  if (cap.active[Severity::Error]) parts.push_back(count_of(cap.active[Severity::Error], "error"));
  if (policy.fail_on == Severity::Warning && cap.active[Severity::Warning]) {
    parts.push_back(count_of(cap.active[Severity::Warning], "warning"));
  }
  if (policy.require_mpa && cap.mpa_connections == 0) parts.push_back("no MPA connection");
  if (cap.missing) {
    parts.push_back("no such file or directory");
  } else if (cap.not_opened && cap.result.error.starts_with(cap.file + ": ")) {
    parts.push_back(cap.result.error.substr(cap.file.size() + 2));  // e.g. not a capture file
  } else if (!cap.result.ok) {
    parts.push_back("not readable to its end");
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

Totals totals(const std::vector<CaptureReport>& captures, const Policy& policy) {
  Totals t;
  for (const CaptureReport& cap : captures) {
    t.connections += cap.mpa_connections;
    t.read_error |= !cap.result.ok;
    for (Severity s : {Severity::Note, Severity::Warning, Severity::Error}) {
      t.active[s] += cap.active[s];
      t.suppressed[s] += cap.suppressed[s];
    }
    if (fails(cap, policy) || !cap.result.ok) ++t.failed_captures;
  }
  return t;
}

std::string count_of(std::uint64_t n, std::string_view singular) {
  return fmt::format("{} {}{}", n, singular, n == 1 ? "" : "s");
}

std::string_view rdmap_opcode_name(std::size_t opcode) {
  static constexpr std::string_view kNames[16] = {
      "rdma_write",      "rdma_read_request", "rdma_read_response", "send",
      "send_invalidate", "send_se",           "send_se_invalidate", "terminate",
      "immediate_data",  "immediate_data_se", "atomic_request",     "atomic_response",
      "opcode_12",       "opcode_13",         "opcode_14",          "opcode_15"};
  return opcode < 16 ? kNames[opcode] : "?";
}

std::string ulpdu_bucket_label(std::size_t bucket) {
  if (bucket == 0) return "0";
  return fmt::format("{}-{}", kUlpduSizeBounds[bucket - 1] + 1, kUlpduSizeBounds[bucket]);
}

std::string rfc_url(std::string_view rfc) {
  // "RFC 5044 4.4", "RFC 6581 5", "RFC 5044 Appendix C"
  if (!rfc.starts_with("RFC ")) return {};
  rfc.remove_prefix(4);
  const std::size_t space = rfc.find(' ');
  const std::string_view number = rfc.substr(0, space);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string_view::npos) return {};
  std::string url = fmt::format("https://www.rfc-editor.org/rfc/rfc{}", number);
  if (space == std::string_view::npos) return url;
  std::string_view section = rfc.substr(space + 1);
  if (section.starts_with("Appendix ")) {
    section.remove_prefix(9);
    return url + fmt::format("#appendix-{}", section);
  }
  return url + fmt::format("#section-{}", section);
}

double percent(std::uint64_t a, std::uint64_t b) {
  return b ? 100.0 * static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

std::string describe_endpoints(const ConnectionSummary& summary) {
  return fmt::format("{} -> {}", to_string(summary.initiator), to_string(summary.responder));
}

std::string endpoint_with_name(const ConnectionReport& connection, Direction side) {
  const ConnectionSummary& s = connection.summary;
  const std::string endpoint = to_string(side == Direction::Initiator ? s.initiator : s.responder);
  const std::string name = connection.implementation(side).label();
  return name.empty() ? endpoint : fmt::format("{} ({})", endpoint, name);
}

std::string describe_endpoints(const ConnectionReport& connection) {
  return fmt::format("{} -> {}", endpoint_with_name(connection, Direction::Initiator),
                     endpoint_with_name(connection, Direction::Responder));
}

namespace {
void append_count(std::string& text, std::uint64_t n, std::string_view what) {
  if (n == 0) return;
  text += fmt::format("{}{} {}", text.empty() ? "" : ", ", what, n);
}
}  // namespace

std::string not_tcp_counts(const CaptureStats& stats) {
  std::string text;
  append_count(text, stats.other_ethertype, "other EtherType");
  append_count(text, stats.other_ip_protocol, "other IP protocol");
  append_count(text, stats.tunnel_payload, "tunnel payload not decoded");
  append_count(text, stats.too_deep, "nested too deep");
  append_count(text, stats.unsupported_link_type, "unsupported link type");
  append_count(text, stats.malformed_frames, "malformed");
  return text;
}

std::string ip_reassembly_counts(const CaptureStats& stats) {
  if (stats.ip_fragments == 0 && stats.ip_datagrams_incomplete == 0) return {};
  std::string text = fmt::format("{} reassembled from {}", stats.reassembled_segments,
                                 count_of(stats.ip_fragments, "IP fragment"));
  if (stats.ip_datagrams_incomplete != 0) {
    text += fmt::format(", {} incomplete", count_of(stats.ip_datagrams_incomplete, "IP datagram"));
  }
  return text;
}

std::string unreached_warning(const CaptureStats& stats) {
  const std::uint64_t n = stats.unreached();
  if (n == 0) return {};
  std::string why;
  append_count(why, stats.tunnel_payload, "tunnel payload not decoded");
  append_count(why, stats.too_deep, "nested too deep");
  append_count(why, stats.unsupported_link_type, "unsupported link type");
  return fmt::format(
      "{} may carry TCP that was not analysed ({}; first: frame {}{})", count_of(n, "frame"), why,
      stats.first_unreached_frame,
      stats.first_unreached_detail.empty() ? "" : ", " + stats.first_unreached_detail);
}

std::string live_counts(const PipelineResult& result) {
  if (!result.live) return {};
  return fmt::format("libpcap: {} received, {} dropped by the kernel, {} by the interface",
                     count_of(result.live->received, "packet"), result.live->dropped,
                     result.live->interface_dropped);
}

std::string drops_warning(const PipelineResult& result) {
  if (!result.live || result.live->dropped + result.live->interface_dropped == 0) return {};
  return fmt::format(
      "{} lost before the analysis (the capture buffer was full, or the interface dropped "
      "them): the octets they held are capture gaps (capture.gap, could not verify), not "
      "protocol errors",
      count_of(result.live->dropped + result.live->interface_dropped, "packet"));
}

}  // namespace mpa::report
