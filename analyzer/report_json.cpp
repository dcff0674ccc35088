// The JSON report (the contract documented in README.md, version 1).
#include <nlohmann/json.hpp>

#include "mpa/conformance.h"
#include "plugfest.h"
#include "report.h"

namespace mpa::report {
namespace {

using nlohmann::ordered_json;

// The rules a catalogue entry checks (--list-rules ids), and why it checks none.
ordered_json rules_json(DiagId id) {
  ordered_json rules = ordered_json::array();
  for (const ConformanceRule* rule : rules_of(id)) rules.push_back(rule->id);
  return rules;
}
ordered_json beyond_json(DiagId id) {
  const auto beyond = beyond_rules(id);
  if (!beyond) return nullptr;
  return {{"scope", to_string(beyond->scope)}, {"why", beyond->why}};
}

ordered_json finding_json(const ReportedFinding& rf, bool with_direction) {
  const Finding& f = rf.finding;
  const DiagnosticInfo& d = info(f.id);
  ordered_json j;
  j["id"] = d.name;
  j["severity"] = to_string(d.severity);
  j["rfc_error_code"] =
      d.error_code != MpaError::None ? ordered_json(number(d.error_code)) : ordered_json(nullptr);
  j["rfc"] = d.rfc;
  if (with_direction) j["direction"] = to_string(f.direction);
  j["frame"] = f.frame;
  j["certain_at"] = f.certain_at;
  if (with_direction) {
    j["tcp_seq"] = f.tcp_seq.value();
    j["stream_offset"] = f.stream_offset;
  }
  j["message"] = f.message;
  if (rf.suppressed_by) {
    j["suppressed"] = {{"file", rf.suppressed_by->file},
                       {"line", rf.suppressed_by->line},
                       {"reason", rf.suppressed_by->reason}};
  } else if (rf.over_count) {
    j["over_count"] = {{"file", rf.over_count->file},
                       {"line", rf.over_count->line},
                       {"count", *rf.over_count->count}};
  }
  return j;
}

ordered_json direction_json(const DirectionSummary& d) {
  ordered_json j;
  j["markers"] = d.markers;
  j["crc"] = d.crc;
  j["full_operation"] = d.full_operation;
  j["parameters_inferred"] = d.inferred;
  j["fpdus"] = d.fpdus;
  j["ulpdu_bytes"] = d.ulpdu_bytes;
  j["crc_failures"] = d.crc_failures;
  j["segments"] = d.segments;
  j["segments_starting_fpdu"] = d.segments_starting_fpdu;
  j["fpdus_in_one_segment"] = d.fpdus_in_one_segment;
  j["max_ulpdu_length"] = d.max_ulpdu;
  j["mss"] = d.mss ? ordered_json(*d.mss) : ordered_json(nullptr);
  j["mulpdu"] = d.mulpdu ? ordered_json(d.mulpdu) : ordered_json(nullptr);
  j["segments_starting_fpdu_percent"] = percent(d.segments_starting_fpdu, d.segments);
  j["fpdus_in_one_segment_percent"] = percent(d.fpdus_in_one_segment, d.fpdus);
  ordered_json sizes = ordered_json::object();
  for (std::size_t i = 0; i < d.ulpdu_sizes.size(); ++i)
    sizes[ulpdu_bucket_label(i)] = d.ulpdu_sizes[i];
  j["ulpdu_sizes"] = sizes;
  ordered_json opcodes = ordered_json::object();
  for (std::size_t i = 0; i < d.rdmap_opcodes.size(); ++i) {
    if (d.rdmap_opcodes[i]) opcodes[std::string(rdmap_opcode_name(i))] = d.rdmap_opcodes[i];
  }
  j["rdmap_opcodes"] = opcodes;
  j["terminates"] = d.terminates;
  j["stack"] = d.stack.empty() ? ordered_json(nullptr) : ordered_json(d.stack);
  j["mac"] = d.mac ? ordered_json(to_string(*d.mac)) : ordered_json(nullptr);
  j["payload_octets"] = d.bytes;
  return j;
}

ordered_json startup_json(const StartupFrame& f) {
  ordered_json j;
  j["kind"] = f.kind == FrameKind::Request ? "request"
              : f.kind == FrameKind::Reply ? "reply"
                                           : "invalid";
  j["revision"] = f.revision;
  j["m"] = f.m();
  j["c"] = f.c();
  j["r"] = f.r();
  j["s"] = f.s();
  j["flags"] = f.flags;
  j["pd_length"] = f.pd_length;
  if (f.enhanced) {
    j["ird"] = f.enhanced->ird;
    j["ord"] = f.enhanced->ord;
    j["peer_to_peer"] = f.enhanced->peer_to_peer;
    j["rtr"] = {{"send", f.enhanced->send_rtr},
                {"write", f.enhanced->write_rtr},
                {"read", f.enhanced->read_rtr}};
  }
  return j;
}

ordered_json implementation_json(const ImplementationName& n) {
  ordered_json j;
  j["label"] = n.key();
  j["source"] = to_string(n.source);
  j["name"] = n.named() ? ordered_json(n.name) : ordered_json(nullptr);
  j["version"] = n.version.empty() ? ordered_json(nullptr) : ordered_json(n.version);
  j["rule"] = n.rule.empty() ? ordered_json(nullptr) : ordered_json(n.rule);
  j["address"] = n.address;
  return j;
}

ordered_json counts_json(const SeverityCounts& c) {
  return {{"errors", c[Severity::Error]},
          {"warnings", c[Severity::Warning]},
          {"notes", c[Severity::Note]}};
}

}  // namespace

ordered_json connection_json(const ConnectionReport& c) {
  const ConnectionSummary& s = c.summary;
  ordered_json j;
  j["id"] = s.id;
  j["initiator"] = to_string(s.initiator);
  j["responder"] = to_string(s.responder);
  j["tunnel"] = c.tunnel.empty() ? ordered_json(nullptr) : ordered_json(c.tunnel);
  j["implementations"] = {
      {"initiator", implementation_json(c.implementation(Direction::Initiator))},
      {"responder", implementation_json(c.implementation(Direction::Responder))}};
  const ConnectionIdentity identity = identity_of(c);
  j["identity"] = {{"initiator", identity.initiator},
                   {"responder", identity.responder},
                   {"port", identity.port},
                   {"startup", identity.startup}};
  j["verdict"] = to_string(connection_verdict(c));
  j["first_frame"] = s.first_frame;
  j["last_frame"] = s.last_frame;
  j["revision"] = s.request ? ordered_json(s.request->revision) : ordered_json(nullptr);
  j["startup_seen"] = s.startup_seen;
  if (s.request) j["request"] = startup_json(*s.request);
  if (s.reply) j["reply"] = startup_json(*s.reply);
  j["directions"] = {{"initiator", direction_json(s.direction(Direction::Initiator))},
                     {"responder", direction_json(s.direction(Direction::Responder))}};
  auto micros = [](std::uint64_t from, std::uint64_t to) {
    return from && to && to >= from ? ordered_json((to - from) / 1000) : ordered_json(nullptr);
  };
  j["startup_latency_us"] = {{"request_to_reply", micros(s.request_ns, s.reply_ns)},
                             {"reply_to_first_fpdu", micros(s.reply_ns, s.first_fpdu_ns)}};
  j["findings"] = ordered_json::array();
  for (const ReportedFinding& f : c.findings) j["findings"].push_back(finding_json(f, true));
  j["findings_not_listed"] = c.findings_not_stored;
  j["counts"] = counts_json(c.active);
  j["suppressed"] = counts_json(c.suppressed);
  if (!c.fpdus.empty()) {
    ordered_json fpdus = ordered_json::array();
    for (const FpduRecord& r : c.fpdus) {
      fpdus.push_back({{"frame", r.frame},
                       {"direction", to_string(r.direction)},
                       {"tcp_seq", r.seq.value()},
                       {"ulpdu_length", r.ulpdu_length},
                       {"crc", to_string(r.crc)},
                       {"markers", r.markers},
                       {"first_frame", r.first_frame}});
    }
    j["fpdus"] = std::move(fpdus);
  }
  return j;
}

// The interop matrix (plugfest.h): the implementations, and a cell per pair, tried or not.
static ordered_json matrix_json(const std::vector<CaptureReport>& captures) {
  const Matrix m = build_matrix(captures);
  ordered_json implementations = ordered_json::array();
  for (const MatrixImplementation& impl : m.implementations) {
    ordered_json j = implementation_json(impl.name);
    j.erase("address");
    j["addresses"] = impl.addresses;
    implementations.push_back(std::move(j));
  }
  ordered_json cells = ordered_json::array();
  // Every pair up to Matrix::kMatrixGridMost implementations, beyond that the pairs tried.
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t r = 0; r < m.size(); ++r) {
      const MatrixCell& cell = m.cell(i, r);
      if (!m.whole() && cell.verdict == PairVerdict::NotTried) continue;
      ordered_json j;
      j["initiator"] = m.implementations[i].key;
      j["responder"] = m.implementations[r].key;
      j["tried"] = cell.verdict != PairVerdict::NotTried;
      j["verdict"] = to_string(cell.verdict);
      j["connections"] = cell.connections.size();
      j["by_verdict"] = {{"errors", cell.by_verdict[static_cast<int>(PairVerdict::Errors)]},
                         {"warnings", cell.by_verdict[static_cast<int>(PairVerdict::Warnings)]},
                         {"clean", cell.by_verdict[static_cast<int>(PairVerdict::Clean)]},
                         {"not_judged", cell.by_verdict[static_cast<int>(PairVerdict::NotJudged)]}};
      if (cell.failure) {
        const Finding& f = cell.failure->finding;
        const std::string side = side_word(*cell.failure);
        j["first_failure"] = {{"id", info(f.id).name},
                              {"severity", to_string(info(f.id).severity)},
                              {"rules", rules_json(f.id)},
                              {"side", side.empty() ? ordered_json(nullptr) : ordered_json(side)},
                              {"capture", captures[cell.failure_at.capture].file},
                              {"connection", cell.failure_at.connection->summary.id},
                              {"frame", f.frame},
                              {"message", f.message}};
      } else {
        j["first_failure"] = nullptr;
      }
      ordered_json refs = ordered_json::array();
      for (const ConnectionRef& ref : cell.connections) {
        refs.push_back({{"capture", captures[ref.capture].file},
                        {"connection", ref.connection->summary.id},
                        {"verdict", to_string(ref.verdict)}});
      }
      j["refs"] = std::move(refs);
      cells.push_back(std::move(j));
    }
  }
  return {{"implementations", std::move(implementations)},
          {"pairs", m.size() * m.size()},
          {"tried", m.tried()},
          {"untried_listed", m.whole()},
          {"cells", std::move(cells)}};
}

// The document is written one connection at a time, so the report never holds more than
// one connection's JSON in memory (a capture may carry hundreds of thousands of findings).

// A live capture's libpcap counters (packets received and dropped) and what drops mean.
static ordered_json live_json(const PipelineResult& result) {
  const std::string warning = drops_warning(result);
  return {{"packets_received", result.live->received},
          {"packets_dropped", result.live->dropped},
          {"packets_dropped_by_interface", result.live->interface_dropped},
          {"drops_warning", warning.empty() ? ordered_json(nullptr) : ordered_json(warning)}};
}

void write_json(std::ostream& out, const std::vector<CaptureReport>& captures, const Policy& policy,
                const RuleReview& review) {
  out << "{\n\"version\": 1,\n\"captures\": [";
  for (std::size_t i = 0; i < captures.size(); ++i) {
    const CaptureReport& cap = captures[i];
    ordered_json head;
    head["file"] = cap.file;
    head["frames"] = cap.result.stats.frames;
    head["complete"] = cap.result.ok;
    if (!cap.result.ok) head["error"] = cap.result.error;
    head["tcp_connections"] = cap.tcp_connections;
    const CaptureStats& st = cap.result.stats;
    head["tcp_segments"] = st.tcp_segments;
    head["tunnelled_segments"] = st.tunnelled_segments;
    head["reassembled_segments"] = st.reassembled_segments;
    head["ip_datagrams"] = st.ip_datagrams;
    head["ip_datagrams_incomplete"] = st.ip_datagrams_incomplete;
    head["not_tcp"] = {{"other_ethertype", st.other_ethertype},
                       {"other_ip_protocol", st.other_ip_protocol},
                       {"tunnel_payload", st.tunnel_payload},
                       {"too_deep", st.too_deep},
                       {"unsupported_link_type", st.unsupported_link_type},
                       {"malformed", st.malformed_frames},
                       {"ip_fragments", st.ip_fragments}};
    const std::string warning = unreached_warning(st);
    head["unreached_frames"] = st.unreached();
    head["first_unreached_frame"] =
        st.first_unreached_frame ? ordered_json(st.first_unreached_frame) : ordered_json(nullptr);
    head["capture_warning"] = warning.empty() ? ordered_json(nullptr) : ordered_json(warning);
    if (cap.result.live) head["live"] = live_json(cap.result);
    head["verdict"] = !cap.result.ok ? "unreadable" : fails(cap, policy) ? "fail" : "pass";
    head["counts"] = counts_json(cap.active);
    head["suppressed"] = counts_json(cap.suppressed);
    std::string text = head.dump();
    text.pop_back();  // the closing brace: connections and findings follow
    out << (i ? ",\n" : "\n") << text << ",\n\"connections\": [";
    for (std::size_t k = 0; k < cap.connections.size(); ++k) {
      out << (k ? ",\n" : "\n") << connection_json(cap.connections[k]).dump(1);
    }
    ordered_json findings = ordered_json::array();
    for (const ReportedFinding& f : cap.capture_findings)
      findings.push_back(finding_json(f, false));
    out << "],\n\"findings\": " << findings.dump(1) << "}";
  }
  const Totals t = totals(captures, policy);
  ordered_json unused_rules = ordered_json::array();
  for (const Suppression* rule : review.unused) {
    unused_rules.push_back(
        {{"file", rule->file}, {"line", rule->line}, {"id", rule->id}, {"reason", rule->reason}});
  }
  ordered_json under_count = ordered_json::array();
  for (const auto& [rule, most] : review.under_count) {
    under_count.push_back({{"file", rule->file},
                           {"line", rule->line},
                           {"id", rule->id},
                           {"count", *rule->count},
                           {"most_in_a_capture", most}});
  }
  const ordered_json summary = {{"connections", t.connections},
                                {"errors", t.active[Severity::Error]},
                                {"warnings", t.active[Severity::Warning]},
                                {"notes", t.active[Severity::Note]},
                                {"suppressed", counts_json(t.suppressed)},
                                {"failed_captures", t.failed_captures},
                                {"unused_suppressions", unused_rules},
                                {"suppressions_reviewed", review.complete},
                                {"suppressions_under_count", under_count}};
  out << "],\n\"summary\": " << summary.dump() << ",\n\"matrix\": " << matrix_json(captures).dump(1)
      << "\n}\n";
}

namespace {

class JsonLines : public FindingObserver {
 public:
  JsonLines(std::ostream& out, std::string capture) : out_(out), capture_(std::move(capture)) {}
  void on_decided(const ReportedFinding& f, std::uint32_t connection) override {
    ordered_json j;
    j["event"] = "finding";
    j["time"] = utc_time(f.finding.timestamp_ns);
    j["capture"] = capture_;
    j["connection"] =
        connection == kCaptureFinding ? ordered_json(nullptr) : ordered_json(connection);
    j.update(finding_json(f, connection != kCaptureFinding));
    out_ << j.dump() << '\n' << std::flush;
  }
  void on_connection_end(const ConnectionReport& c) override {
    ordered_json j;
    j["event"] = "connection";
    j["capture"] = capture_;
    j.update(connection_json(c));
    j.erase("findings");  // each was a line of its own
    j.erase("findings_not_listed");
    j["counts"] = counts_json(c.active);
    out_ << j.dump() << '\n' << std::flush;
  }

 private:
  std::ostream& out_;
  std::string capture_;
};

}  // namespace

std::unique_ptr<FindingObserver> json_lines_observer(std::ostream& out, std::string capture) {
  return std::make_unique<JsonLines>(out, std::move(capture));
}

void write_json_lines_end(std::ostream& out, const CaptureReport& cap, const Policy& policy) {
  ordered_json j;
  j["event"] = "end";
  j["capture"] = cap.file;
  j["frames"] = cap.result.stats.frames;
  j["complete"] = cap.result.ok;
  if (!cap.result.ok) j["error"] = cap.result.error;
  j["tcp_connections"] = cap.tcp_connections;
  if (cap.result.live) j["live"] = live_json(cap.result);
  j["verdict"] = !cap.result.ok ? "unreadable" : fails(cap, policy) ? "fail" : "pass";
  j["counts"] = counts_json(cap.active);
  j["suppressed"] = counts_json(cap.suppressed);
  out << j.dump() << '\n' << std::flush;
}

void write_catalogue_json(std::ostream& out) {
  ordered_json list = ordered_json::array();
  for (const DiagnosticInfo& d : catalogue()) {
    list.push_back(
        {{"id", d.name},
         {"severity", to_string(d.severity)},
         {"rfc", d.rfc},
         {"rfc_error_code", d.error_code != MpaError::None ? ordered_json(number(d.error_code))
                                                           : ordered_json(nullptr)},
         {"summary", d.summary},
         {"field", to_string(d.field)},
         {"rules", rules_json(d.id)},
         {"beyond_rules", beyond_json(d.id)}});
  }
  out << list.dump(2) << '\n';
}

void write_rules_json(std::ostream& out) {
  ordered_json list = ordered_json::array();
  for (const ConformanceRule& rule : conformance_rules()) {
    ordered_json ids = ordered_json::array();
    for (const DiagId id : rule.ids()) ids.push_back(info(id).name);
    ordered_json captures = ordered_json::array();
    for (const std::string_view capture : rule.captures()) captures.push_back(capture);
    ordered_json j = {{"id", rule.id},
                      {"rfc", to_string(rule.rfc)},
                      {"section", rule.section},
                      {"lines", {rule.first_line, rule.last_line}},
                      {"requirement", to_string(rule.requirement)},
                      {"text", rule.quote},
                      {"summary", rule.summary},
                      {"observable", to_string(rule.observable)}};
    if (rule.observable == Observable::No) j["why_not_observable"] = rule.why_not_observable;
    j["coverage"] = to_string(rule.coverage);
    j["ids"] = std::move(ids);
    if (!rule.missing.empty()) j["missing"] = rule.missing;
    j["captures"] = std::move(captures);
    list.push_back(std::move(j));
  }
  out << list.dump(2) << '\n';
}

}  // namespace mpa::report
