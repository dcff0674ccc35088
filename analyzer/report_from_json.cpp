// Reports from reports (see report_from_json.h): the JSON contract of report_json.cpp read
// back.
#include "report_from_json.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

namespace mpa::report {
namespace {

using nlohmann::json;

// "10.0.0.1:4000" or "[2001:db8::1]:4000".
Endpoint parse_endpoint(const std::string& text) {
  Endpoint e;
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) return e;
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (inet_pton(AF_INET, host.c_str(), e.address.bytes.data()) == 1) {
    e.address.family = 4;
  } else if (inet_pton(AF_INET6, host.c_str(), e.address.bytes.data()) == 1) {
    e.address.family = 6;
  }
  const std::string port = text.substr(colon + 1);
  if (!port.empty() && port.size() <= 5 &&
      port.find_first_not_of("0123456789") == std::string::npos)
    e.port = static_cast<std::uint16_t>(std::stoul(port));
  return e;
}

std::optional<MacAddress> parse_mac(const json& j) {
  if (!j.is_string()) return std::nullopt;
  const std::string text = j.get<std::string>();
  MacAddress mac;
  unsigned b[6];
  if (std::sscanf(text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x", &b[0], &b[1], &b[2], &b[3], &b[4],
                  &b[5]) != 6)
    return std::nullopt;
  for (int i = 0; i < 6; ++i) mac.bytes[i] = static_cast<std::uint8_t>(b[i]);
  return mac;
}

// An integer member (a report's numbers are all integers but the percentages, which are not
// read back); anything else, the fallback. Out-of-range values wrap as integer conversions do.
template <typename T>
T number(const json& j, const char* key, T fallback = 0) {
  const auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (it->is_number_unsigned()) return static_cast<T>(it->get<std::uint64_t>());
  if (it->is_number_integer()) return static_cast<T>(it->get<std::int64_t>());
  return fallback;
}

bool flag(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

std::string text(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

StartupFrame startup_from(const json& j) {
  StartupFrame f;
  const std::string kind = text(j, "kind");
  f.kind = kind == "request" ? FrameKind::Request
           : kind == "reply" ? FrameKind::Reply
                             : FrameKind::Unknown;
  f.revision = number<std::uint8_t>(j, "revision");
  f.flags = number<std::uint8_t>(j, "flags");
  f.pd_length = number<std::uint16_t>(j, "pd_length");
  if (j.contains("ird")) {
    EnhancedBlock e;
    e.ird = number<std::uint16_t>(j, "ird");
    e.ord = number<std::uint16_t>(j, "ord");
    e.peer_to_peer = flag(j, "peer_to_peer");
    if (const auto rtr = j.find("rtr"); rtr != j.end() && rtr->is_object()) {
      e.send_rtr = flag(*rtr, "send");
      e.write_rtr = flag(*rtr, "write");
      e.read_rtr = flag(*rtr, "read");
    }
    f.enhanced = e;
  }
  return f;
}

DirectionSummary direction_from(const json& j) {
  DirectionSummary d;
  d.markers = flag(j, "markers");
  d.crc = flag(j, "crc");
  d.full_operation = flag(j, "full_operation");
  d.inferred = flag(j, "parameters_inferred");
  d.fpdus = number<std::uint64_t>(j, "fpdus");
  d.ulpdu_bytes = number<std::uint64_t>(j, "ulpdu_bytes");
  d.crc_failures = number<std::uint64_t>(j, "crc_failures");
  d.segments = number<std::uint64_t>(j, "segments");
  d.segments_starting_fpdu = number<std::uint64_t>(j, "segments_starting_fpdu");
  d.fpdus_in_one_segment = number<std::uint64_t>(j, "fpdus_in_one_segment");
  d.max_ulpdu = number<std::uint16_t>(j, "max_ulpdu_length");
  if (const auto mss = j.find("mss"); mss != j.end() && mss->is_number())
    d.mss = mss->get<std::uint16_t>();
  d.mulpdu = number<std::uint32_t>(j, "mulpdu");
  if (const auto sizes = j.find("ulpdu_sizes"); sizes != j.end() && sizes->is_object()) {
    for (std::size_t i = 0; i < d.ulpdu_sizes.size(); ++i)
      d.ulpdu_sizes[i] = number<std::uint64_t>(*sizes, ulpdu_bucket_label(i).c_str());
  }
  if (const auto ops = j.find("rdmap_opcodes"); ops != j.end() && ops->is_object()) {
    for (std::size_t i = 0; i < d.rdmap_opcodes.size(); ++i)
      d.rdmap_opcodes[i] = number<std::uint64_t>(*ops, std::string(rdmap_opcode_name(i)).c_str());
  }
  d.terminates = number<std::uint64_t>(j, "terminates");
  d.stack = text(j, "stack");
  if (const auto mac = j.find("mac"); mac != j.end()) d.mac = parse_mac(*mac);
  d.bytes = number<std::uint64_t>(j, "payload_octets");
  return d;
}

ImplementationName implementation_from(const json& j, const Endpoint& endpoint) {
  ImplementationName n;
  n.address = to_string(endpoint.address);
  if (!j.is_object()) return n;
  n.source = name_source_from(text(j, "source")).value_or(NameSource::Address);
  n.name = text(j, "name");
  n.version = text(j, "version");
  n.rule = text(j, "rule");
  if (n.name.empty()) n.source = NameSource::Address;
  return n;
}

// The rule a finding names (kept in `rules`, found again by file and line).
const Suppression* rule_of(const json& j, const std::string& id, std::deque<Suppression>& rules) {
  const std::string file = text(j, "file");
  const std::size_t line = number<std::size_t>(j, "line");
  for (const Suppression& r : rules) {
    if (r.file == file && r.line == line && r.id == id) return &r;
  }
  Suppression& r = rules.emplace_back();
  r.file = file;
  r.line = line;
  r.id = id;
  r.reason = text(j, "reason");
  if (j.contains("count")) r.count = number<std::uint64_t>(j, "count");
  return &r;
}

// A finding; false when its id is not in this catalogue (a report of a newer mpa-check).
bool finding_from(const json& j, std::uint32_t connection, std::deque<Suppression>& rules,
                  ReportedFinding& out, std::string& unknown) {
  const std::string name = text(j, "id");
  const std::optional<DiagId> id = find_diagnostic(name);
  if (!id) {
    unknown = name;
    return false;
  }
  Finding& f = out.finding;
  f.id = *id;
  f.connection = connection;
  f.direction = text(j, "direction") == "responder" ? Direction::Responder : Direction::Initiator;
  f.frame = number<std::uint64_t>(j, "frame");
  f.certain_at = number<std::uint64_t>(j, "certain_at", f.frame);
  f.tcp_seq = TcpSeq(number<std::uint32_t>(j, "tcp_seq"));
  f.stream_offset = number<std::uint64_t>(j, "stream_offset");
  f.message = text(j, "message");
  if (const auto s = j.find("suppressed"); s != j.end() && s->is_object())
    out.suppressed_by = rule_of(*s, name, rules);
  if (const auto s = j.find("over_count"); s != j.end() && s->is_object())
    out.over_count = rule_of(*s, name, rules);
  return true;
}

void count(const ReportedFinding& f, SeverityCounts& active, SeverityCounts& suppressed) {
  ++(f.suppressed_by ? suppressed : active)[info(f.finding.id).severity];
}

SeverityCounts counts_from(const json& j) {
  SeverityCounts c;
  c[Severity::Error] = number<std::uint64_t>(j, "errors");
  c[Severity::Warning] = number<std::uint64_t>(j, "warnings");
  c[Severity::Note] = number<std::uint64_t>(j, "notes");
  return c;
}

bool capture_from(const json& j, std::deque<Suppression>& rules, CaptureReport& cap,
                  std::string& error) {
  cap.from_json = true;
  cap.file = text(j, "file");
  cap.place = capture_place(cap.file, !cap.file.empty() && cap.file != "<stdin>");
  CaptureStats& st = cap.result.stats;
  st.frames = number<std::uint64_t>(j, "frames");
  cap.result.ok = !j.contains("complete") || flag(j, "complete");
  cap.result.error = text(j, "error");
  cap.missing = !cap.result.ok && cap.result.error.ends_with(": no such file or directory");
  cap.tcp_connections = number<std::uint64_t>(j, "tcp_connections");
  st.tcp_segments = number<std::uint64_t>(j, "tcp_segments");
  st.tunnelled_segments = number<std::uint64_t>(j, "tunnelled_segments");
  st.reassembled_segments = number<std::uint64_t>(j, "reassembled_segments");
  st.ip_datagrams = number<std::uint64_t>(j, "ip_datagrams");
  st.ip_datagrams_incomplete = number<std::uint64_t>(j, "ip_datagrams_incomplete");
  if (const auto n = j.find("not_tcp"); n != j.end() && n->is_object()) {
    st.other_ethertype = number<std::uint64_t>(*n, "other_ethertype");
    st.other_ip_protocol = number<std::uint64_t>(*n, "other_ip_protocol");
    st.tunnel_payload = number<std::uint64_t>(*n, "tunnel_payload");
    st.too_deep = number<std::uint64_t>(*n, "too_deep");
    st.unsupported_link_type = number<std::uint64_t>(*n, "unsupported_link_type");
    st.malformed_frames = number<std::uint64_t>(*n, "malformed");
    st.ip_fragments = number<std::uint64_t>(*n, "ip_fragments");
  }
  st.other_frames = st.other_ethertype + st.other_ip_protocol + st.tunnel_payload + st.too_deep +
                    st.unsupported_link_type;
  st.first_unreached_frame = number<std::uint64_t>(j, "first_unreached_frame");
  // "... (why; first: frame N, DETAIL)": the detail, as the warning will be written again.
  if (const std::string warning = text(j, "capture_warning"); !warning.empty()) {
    const std::string first = fmt::format("first: frame {}, ", st.first_unreached_frame);
    if (const std::size_t at = warning.find(first);
        at != std::string::npos && warning.ends_with(")"))
      st.first_unreached_detail =
          warning.substr(at + first.size(), warning.size() - at - first.size() - 1);
  }
  cap.active = counts_from(j.value("counts", json::object()));
  cap.suppressed = counts_from(j.value("suppressed", json::object()));
  std::string unknown;
  const auto by_id = [&cap](const ReportedFinding& f) {
    ++cap.found_by_id[f.finding.id];
    if (f.suppressed_by) {
      ++cap.suppressed_by[f.suppressed_by];
    } else {
      ++cap.active_by_id[f.finding.id];
    }
  };
  if (const auto conns = j.find("connections"); conns != j.end() && conns->is_array()) {
    for (const json& cj : *conns) {
      if (!cj.is_object()) {
        error = fmt::format("capture {}: a connection that is not an object", cap.file);
        return false;
      }
      ConnectionReport c;
      ConnectionSummary& s = c.summary;
      s.id = number<std::uint32_t>(cj, "id");
      s.initiator = parse_endpoint(text(cj, "initiator"));
      s.responder = parse_endpoint(text(cj, "responder"));
      c.tunnel = text(cj, "tunnel");
      s.startup_seen = flag(cj, "startup_seen");
      if (const auto r = cj.find("request"); r != cj.end() && r->is_object())
        s.request = startup_from(*r);
      if (const auto r = cj.find("reply"); r != cj.end() && r->is_object())
        s.reply = startup_from(*r);
      if (const auto d = cj.find("directions"); d != cj.end() && d->is_object()) {
        s.directions[0] = direction_from(d->value("initiator", json::object()));
        s.directions[1] = direction_from(d->value("responder", json::object()));
      }
      s.first_frame = number<std::uint64_t>(cj, "first_frame");
      s.last_frame = number<std::uint64_t>(cj, "last_frame");
      // Latencies only (the capture times are not in the report).
      if (const auto l = cj.find("startup_latency_us"); l != cj.end() && l->is_object()) {
        s.reply_ns = std::uint64_t{1} << 50;  // (any time: only the differences are shown)
        // (null when not seen; a latency beyond 2^50 ns, some 13 days, is cut there)
        constexpr std::uint64_t kMostUs = (std::uint64_t{1} << 50) / 1000 - 1;
        if (const auto r = l->find("request_to_reply"); r != l->end() && r->is_number_unsigned())
          s.request_ns = s.reply_ns - std::min(r->get<std::uint64_t>(), kMostUs) * 1000;
        if (const auto f = l->find("reply_to_first_fpdu"); f != l->end() && f->is_number_unsigned())
          s.first_fpdu_ns = s.reply_ns + std::min(f->get<std::uint64_t>(), kMostUs) * 1000;
        if (!s.request_ns && !s.first_fpdu_ns) s.reply_ns = 0;
      }
      if (const auto impl = cj.find("implementations"); impl != cj.end() && impl->is_object()) {
        c.implementations[0] =
            implementation_from(impl->value("initiator", json::object()), s.initiator);
        c.implementations[1] =
            implementation_from(impl->value("responder", json::object()), s.responder);
      } else {
        c.implementations[0].address = to_string(s.initiator.address);
        c.implementations[1].address = to_string(s.responder.address);
      }
      SeverityCounts active, suppressed;
      if (const auto fs = cj.find("findings"); fs != cj.end() && fs->is_array()) {
        for (const json& fj : *fs) {
          ReportedFinding f;
          if (!finding_from(fj, s.id, rules, f, unknown)) {
            error = fmt::format(
                "capture {} connection {}: catalogue id '{}' not known to this "
                "mpa-check",
                cap.file, s.id, unknown);
            return false;
          }
          count(f, active, suppressed);
          by_id(f);
          c.findings.push_back(std::move(f));
        }
      }
      c.findings_not_stored = number<std::uint64_t>(cj, "findings_not_listed");
      c.active =
          cj.contains("counts") && cj["counts"].is_object() ? counts_from(cj["counts"]) : active;
      c.suppressed = cj.contains("suppressed") && cj["suppressed"].is_object()
                         ? counts_from(cj["suppressed"])
                         : suppressed;
      for (const Severity sev : {Severity::Note, Severity::Warning, Severity::Error})
        s.findings[sev] = c.active[sev] + c.suppressed[sev];
      if (const auto fp = cj.find("fpdus"); fp != cj.end() && fp->is_array()) {
        for (const json& r : *fp) {
          FpduRecord rec;
          rec.frame = number<std::uint64_t>(r, "frame");
          rec.direction =
              text(r, "direction") == "responder" ? Direction::Responder : Direction::Initiator;
          rec.seq = TcpSeq(number<std::uint32_t>(r, "tcp_seq"));
          rec.ulpdu_length = number<std::uint16_t>(r, "ulpdu_length");
          const std::string crc = text(r, "crc");
          rec.crc = crc == "good"  ? CrcStatus::Good
                    : crc == "bad" ? CrcStatus::Bad
                                   : CrcStatus::NotChecked;
          rec.markers = number<std::uint32_t>(r, "markers");
          rec.first_frame = number<std::uint64_t>(r, "first_frame");
          c.fpdus.push_back(rec);
        }
      }
      cap.connections.push_back(std::move(c));
    }
  }
  cap.mpa_connections = cap.connections.size();
  if (const auto fs = j.find("findings"); fs != j.end() && fs->is_array()) {
    for (const json& fj : *fs) {
      ReportedFinding f;
      if (!finding_from(fj, kCaptureFinding, rules, f, unknown)) {
        error = fmt::format("capture {}: catalogue id '{}' not known to this mpa-check", cap.file,
                            unknown);
        return false;
      }
      by_id(f);
      cap.capture_findings.push_back(std::move(f));
    }
  }
  return true;
}

}  // namespace

bool read_json_report(const std::string& path, std::vector<CaptureReport>& out,
                      std::deque<Suppression>& rules, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = fmt::format("{}: cannot read the JSON report", path);
    return false;
  }
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    error = fmt::format("{}: not JSON (a syntax error at byte {})", path, e.byte);
    return false;
  } catch (const json::exception&) {
    error = fmt::format("{}: not JSON", path);
    return false;
  }
  if (!doc.is_object() || !doc.contains("captures") || !doc["captures"].is_array() ||
      number<int>(doc, "version") != 1) {
    error = fmt::format(
        "{}: not a JSON report of mpa-check (version 1, with \"captures\"; made by --format json)",
        path);
    return false;
  }
  for (const json& cj : doc["captures"]) {
    CaptureReport cap;
    std::string why;
    if (!cj.is_object() || !capture_from(cj, rules, cap, why)) {
      error = fmt::format("{}: {}", path, why.empty() ? "a capture that is not an object" : why);
      return false;
    }
    out.push_back(std::move(cap));
  }
  return true;
}

}  // namespace mpa::report
