// The JSON report (the contract documented in README.md, version 1).
#include <nlohmann/json.hpp>

#include "report.h"

namespace mpa::report {
namespace {

using nlohmann::ordered_json;

ordered_json finding_json(const Finding& f, bool with_direction) {
  const DiagnosticInfo& d = info(f.id);
  ordered_json j;
  j["id"] = d.name;
  j["severity"] = to_string(d.severity);
  j["rfc_error_code"] = d.error_code ? ordered_json(d.error_code) : ordered_json(nullptr);
  j["rfc"] = d.rfc;
  if (with_direction) j["direction"] = to_string(f.direction);
  j["frame"] = f.frame;
  if (with_direction) {
    j["tcp_seq"] = f.tcp_seq.value();
    j["stream_offset"] = f.stream_offset;
  }
  j["message"] = f.message;
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
  return j;
}

ordered_json startup_json(const StartupFrame& f) {
  ordered_json j;
  j["kind"] = f.kind == FrameKind::Request ? "request" : f.kind == FrameKind::Reply ? "reply" : "invalid";
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
    j["rtr"] = {{"send", f.enhanced->send_rtr}, {"write", f.enhanced->write_rtr},
                {"read", f.enhanced->read_rtr}};
  }
  return j;
}

}  // namespace

void write_json(std::ostream& out, const std::vector<CaptureReport>& captures) {
  ordered_json root;
  root["version"] = 1;
  root["captures"] = ordered_json::array();
  for (const CaptureReport& cap : captures) {
    ordered_json jc;
    jc["file"] = cap.file;
    jc["frames"] = cap.result.stats.frames;
    jc["complete"] = cap.result.ok;
    if (!cap.result.ok) jc["error"] = cap.result.error;
    jc["tcp_connections"] = cap.tcp_connections;
    jc["connections"] = ordered_json::array();
    for (const ConnectionReport& c : cap.connections) {
      const ConnectionSummary& s = c.summary;
      ordered_json j;
      j["id"] = s.id;
      j["initiator"] = to_string(s.initiator);
      j["responder"] = to_string(s.responder);
      j["revision"] = s.request ? ordered_json(s.request->revision) : ordered_json(nullptr);
      j["startup_seen"] = s.startup_seen;
      if (s.request) j["request"] = startup_json(*s.request);
      if (s.reply) j["reply"] = startup_json(*s.reply);
      j["directions"] = {{"initiator", direction_json(s.direction(Direction::Initiator))},
                         {"responder", direction_json(s.direction(Direction::Responder))}};
      j["findings"] = ordered_json::array();
      for (const Finding& f : c.findings) j["findings"].push_back(finding_json(f, true));
      j["findings_not_listed"] = c.findings_not_stored;
      jc["connections"].push_back(std::move(j));
    }
    jc["findings"] = ordered_json::array();
    for (const Finding& f : cap.capture_findings) jc["findings"].push_back(finding_json(f, false));
    root["captures"].push_back(std::move(jc));
  }
  const Totals t = totals(captures);
  root["summary"] = {{"connections", t.connections},
                     {"errors", t.by_severity[2]},
                     {"warnings", t.by_severity[1]},
                     {"notes", t.by_severity[0]}};
  out << root.dump(2) << '\n';
}

void write_catalogue_json(std::ostream& out) {
  ordered_json list = ordered_json::array();
  for (const DiagnosticInfo& d : catalogue()) {
    list.push_back({{"id", d.name},
                    {"severity", to_string(d.severity)},
                    {"rfc", d.rfc},
                    {"rfc_error_code", d.error_code ? ordered_json(d.error_code) : ordered_json(nullptr)},
                    {"summary", d.summary}});
  }
  out << list.dump(2) << '\n';
}

}  // namespace mpa::report
