// SARIF 2.1.0 (OASIS, errata 01) for code-scanning dashboards: one run; the catalogue as
// tool.driver.rules (id, summary, the RFC section at rfc-editor.org, the RFC error code);
// a result per error and warning (notes too with --notes: a dashboard would drown in them),
// its level the catalogue's severity, its location the capture (a URI relative to the
// working folder) with the frame's octets in the file as its region (byteOffset/byteLength,
// SARIF 3.30.13: a capture is a binary artifact) and the frame as a logical location; its
// partialFingerprints what stays the same from run to run and machine to machine (the rule,
// the capture's file name, the connection's endpoints, the direction and stream offset, or
// the frame of a finding of no connection: no path, no time); a finding a rule
// accepted carries an external suppression with the rule's reason. A capture not read to
// its end is a tool execution notification (and the invocation did not succeed).
//
// Written one result at a time, as the JSON report is: a capture may hold hundreds of
// thousands of findings.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "json_text.h"
#include "report.h"

namespace mpa::report {
namespace {

using nlohmann::ordered_json;

constexpr std::string_view kSchema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
constexpr std::string_view kBase = "%SRCROOT%";  // the working folder

std::string_view level(Severity s) {
  switch (s) {
    case Severity::Error:
      return "error";
    case Severity::Warning:
      return "warning";
    case Severity::Note:
      return "note";
  }
  return "none";
}

// A path as a URI path: octets other than unreserved ones and '/' percent-encoded.
std::string uri_path(std::string_view path) {
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || c == '/') {
      out += ch;
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

// Where a file is: a URI relative to the working folder ("../" where it lies outside it),
// so that the report names no folder of the machine that wrote it but its base.
ordered_json artifact_location(const std::string& path, const std::string& working_folder) {
  const std::string relative =
      std::filesystem::path(path).lexically_relative(working_folder).string();
  if (relative.empty()) return {{"uri", "file://" + uri_path(path)}};
  return {{"uri", uri_path(relative)}, {"uriBaseId", kBase}};
}

ordered_json rule_json(const DiagnosticInfo& d) {
  ordered_json rule;
  rule["id"] = d.name;
  rule["shortDescription"] = {{"text", d.summary}};
  rule["fullDescription"] = {
      {"text", fmt::format("{} ({}{})", d.summary, d.rfc,
                           d.error_code != MpaError::None
                               ? fmt::format(", error code {}", number(d.error_code))
                               : std::string())}};
  if (const std::string url = rfc_url(d.rfc); !url.empty()) rule["helpUri"] = url;
  rule["defaultConfiguration"] = {{"level", level(d.severity)}};
  ordered_json properties;
  properties["rfc"] = d.rfc;
  if (d.error_code != MpaError::None) properties["rfc_error_code"] = number(d.error_code);
  properties["tags"] = {"mpa", "iwarp"};
  rule["properties"] = properties;
  return rule;
}

// FNV-1a, 64 bits: a short, stable digest (the same on every machine and build) of what
// identifies a finding; partialFingerprints are compared for equality only.
std::string fingerprint(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325u;
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3u;
  }
  return fmt::format("{:016x}", h);
}

// What identifies a finding across runs (SARIF 3.27.17): the rule; the capture's file name
// (not its folder, which differs between machines); the connection by its endpoints and
// the direction and stream offset within it, or the frame for a finding about the capture.
ordered_json partial_fingerprints(const CaptureReport& cap, const ReportedFinding& rf,
                                  const ConnectionReport* c) {
  const Finding& f = rf.finding;
  std::string what = fmt::format("{}|{}", info(f.id).name, cap.place.name);
  if (c) {
    what += fmt::format("|{}|{}|{}", describe_endpoints(c->summary), to_string(f.direction),
                        f.stream_offset);
  } else {
    what += fmt::format("|frame {}", f.frame);
  }
  return {{"mpaFinding/v1", fingerprint(what)}};
}

ordered_json physical_location(const CaptureReport& cap, std::size_t artifact, const Finding& f,
                               const SarifOptions& options) {
  ordered_json where = artifact_location(cap.place.path, options.working_folder);
  where["index"] = artifact;
  ordered_json physical = {{"artifactLocation", where}};
  // The frame's captured octets where the file holds them as they are (a plain capture).
  if (f.frame_place.length > 0) {
    physical["region"] = {{"byteOffset", f.frame_place.offset},
                          {"byteLength", f.frame_place.length}};
  }
  return physical;
}

ordered_json result_json(const CaptureReport& cap, std::size_t artifact, const ReportedFinding& rf,
                         const ConnectionReport* c, std::size_t rule_index,
                         const SarifOptions& options) {
  const Finding& f = rf.finding;
  const DiagnosticInfo& d = info(f.id);
  ordered_json result;
  result["ruleId"] = d.name;
  result["ruleIndex"] = rule_index;
  result["level"] = level(d.severity);
  result["message"] = {{"text", f.message}};
  ordered_json location;
  if (!cap.place.path.empty())
    location["physicalLocation"] = physical_location(cap, artifact, f, options);
  std::string qualified = cap.file;
  if (c) qualified += fmt::format("/connection {}/{}", c->summary.id, to_string(f.direction));
  qualified += fmt::format("/frame {}", f.frame);
  location["logicalLocations"] = ordered_json::array({{{"name", fmt::format("frame {}", f.frame)},
                                                       {"fullyQualifiedName", qualified},
                                                       {"kind", "element"}}});
  result["locations"] = ordered_json::array({location});
  if (rf.suppressed_by) {
    const Suppression& rule = *rf.suppressed_by;
    ordered_json suppression = {
        {"kind", "external"}, {"status", "accepted"}, {"justification", rule.reason}};
    ordered_json rule_file =
        artifact_location(capture_place(rule.file, true).path, options.working_folder);
    suppression["location"] = {
        {"physicalLocation",
         {{"artifactLocation", rule_file}, {"region", {{"startLine", rule.line}}}}}};
    result["suppressions"] = ordered_json::array({suppression});
  }
  result["partialFingerprints"] = partial_fingerprints(cap, rf, c);
  ordered_json properties;
  properties["frame"] = f.frame;
  properties["certain_at"] = f.certain_at;
  if (c) {
    properties["connection"] = c->summary.id;
    properties["endpoints"] = describe_endpoints(c->summary);
    const auto name = [c](Direction d) {
      const std::string label = c->implementation(d).label();
      return label.empty() ? ordered_json(nullptr) : ordered_json(label);
    };
    properties["implementations"] = {{"initiator", name(Direction::Initiator)},
                                     {"responder", name(Direction::Responder)}};
    properties["direction"] = to_string(f.direction);
    properties["tcp_seq"] = f.tcp_seq.value();
    properties["stream_offset"] = f.stream_offset;
  }
  properties["rfc"] = d.rfc;
  if (d.error_code != MpaError::None) properties["rfc_error_code"] = number(d.error_code);
  if (rf.over_count) {
    properties["over_count"] = {{"file", rf.over_count->file},
                                {"line", rf.over_count->line},
                                {"count", *rf.over_count->count}};
  }
  result["properties"] = properties;
  return result;
}

}  // namespace

void write_sarif(std::ostream& out, const std::vector<CaptureReport>& captures,
                 const SarifOptions& options) {
  std::map<DiagId, std::size_t> rule_index;
  ordered_json rules = ordered_json::array();
  for (const DiagnosticInfo& d : catalogue()) {
    rule_index[d.id] = rules.size();
    rules.push_back(rule_json(d));
  }
  ordered_json driver;
  driver["name"] = "mpa-check";
  driver["version"] = options.version;
  driver["shortDescription"] = {{"text", "MPA (RFC 5044 / RFC 6581) conformance checker"}};
  driver["rules"] = std::move(rules);

  bool all_read = true;
  ordered_json notifications = ordered_json::array();
  ordered_json artifacts = ordered_json::array();
  for (const CaptureReport& cap : captures) {
    ordered_json artifact;
    if (!cap.place.path.empty())
      artifact["location"] = artifact_location(cap.place.path, options.working_folder);
    artifact["roles"] = {"analysisTarget"};
    if (cap.place.path.empty()) artifact["description"] = {{"text", cap.file}};
    const std::uint64_t not_listed = [&] {
      std::uint64_t n = 0;
      for (const ConnectionReport& c : cap.connections) n += c.findings_not_stored;
      return n;
    }();
    artifact["properties"] = {{"verdict", !cap.result.ok               ? "unreadable"
                                          : fails(cap, options.policy) ? "fail"
                                                                       : "pass"},
                              {"findings_not_listed", not_listed}};
    artifacts.push_back(std::move(artifact));
    if (!cap.result.ok) {
      all_read = false;
      ordered_json notification = {{"level", "error"}, {"message", {{"text", cap.result.error}}}};
      if (!cap.place.path.empty()) {
        notification["locations"] = ordered_json::array(
            {{{"physicalLocation",
               {{"artifactLocation",
                 artifact_location(cap.place.path, options.working_folder)}}}}});
      }
      notifications.push_back(std::move(notification));
    }
  }
  ordered_json invocation = {{"executionSuccessful", all_read}};
  if (!options.command.empty()) invocation["commandLine"] = options.command;
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = notifications;
  std::string folder = uri_path(options.working_folder);
  if (!folder.ends_with('/')) folder += '/';

  out << "{\n\"$schema\": " << ordered_json(kSchema).dump(-1, ' ', false, kInvalidUtf8)
      << ",\n\"version\": \"2.1.0\",\n"
      << "\"runs\": [{\n\"tool\": "
      << ordered_json{{"driver", driver}}.dump(-1, ' ', false, kInvalidUtf8) << ",\n"
      << "\"invocations\": " << ordered_json::array({invocation}).dump(-1, ' ', false, kInvalidUtf8)
      << ",\n"
      << "\"originalUriBaseIds\": "
      << ordered_json{{kBase, {{"uri", "file://" + folder}}}}.dump(-1, ' ', false, kInvalidUtf8)
      << ",\n"
      << "\"artifacts\": " << artifacts.dump(-1, ' ', false, kInvalidUtf8) << ",\n\"results\": [";
  bool first = true;
  auto put = [&](const CaptureReport& cap, std::size_t i, const ReportedFinding& f,
                 const ConnectionReport* c) {
    if (info(f.finding.id).severity == Severity::Note && !options.notes) return;
    out << (first ? "\n" : ",\n")
        << result_json(cap, i, f, c, rule_index[f.finding.id], options)
               .dump(-1, ' ', false, kInvalidUtf8);
    first = false;
  };
  for (std::size_t i = 0; i < captures.size(); ++i) {
    const CaptureReport& cap = captures[i];
    for (const ConnectionReport& c : cap.connections) {
      for (const ReportedFinding& f : c.findings) put(cap, i, f, &c);
    }
    for (const ReportedFinding& f : cap.capture_findings) put(cap, i, f, nullptr);
  }
  out << "]\n}]\n}\n";
}

}  // namespace mpa::report
