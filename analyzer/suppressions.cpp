// The suppression file (see suppressions.h).
#include "suppressions.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <tuple>

#include "report.h"

namespace mpa::report {
namespace {

// Splits `key=value key="value with spaces"` into pairs; false on a malformed line.
bool parse_pairs(const std::string& line, std::vector<std::pair<std::string, std::string>>& out,
                 std::string& why) {
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] == '#') break;
    const std::size_t eq = line.find('=', i);
    if (eq == std::string::npos) {
      why = fmt::format("expected key=value at column {}", i + 1);
      return false;
    }
    std::string key = line.substr(i, eq - i);
    std::string value;
    i = eq + 1;
    if (i < line.size() && line[i] == '"') {
      const std::size_t close = line.find('"', i + 1);
      if (close == std::string::npos) {
        why = fmt::format("unterminated quote after {}=", key);
        return false;
      }
      value = line.substr(i + 1, close - i - 1);
      i = close + 1;
    } else {
      const std::size_t end = line.find_first_of(" \t", i);
      value = line.substr(i, end == std::string::npos ? std::string::npos : end - i);
      i = end == std::string::npos ? line.size() : end;
    }
    out.emplace_back(std::move(key), std::move(value));
  }
  return true;
}

std::string quoted(const std::string& value) { return fmt::format("\"{}\"", value); }

// A capture path as a glob (fnmatch) that matches exactly that path and can be written
// between quotes on one line: glob characters escaped with a backslash; a quote, newline or
// carriage return (which a quoted value cannot hold) as `?`, which matches it.
std::string path_glob(const std::string& path) {
  std::string glob;
  for (char c : path) {
    if (c == '"' || c == '\n' || c == '\r') {
      glob += '?';
      continue;
    }
    if (c == '*' || c == '?' || c == '[' || c == '\\') glob += '\\';
    glob += c;
  }
  return glob;
}

// A value a quoted field can hold as it is.
bool quotable(const std::string& value) {
  return value.find_first_of("\"\n\r") == std::string::npos;
}

bool matches_endpoint(const std::string& pattern, const ConnectionSummary& c) {
  return pattern == to_string(c.initiator) || pattern == to_string(c.responder);
}

bool matches_stack(const std::string& stack, const ConnectionSummary& c) {
  return c.direction(Direction::Initiator).stack == stack ||
         c.direction(Direction::Responder).stack == stack;
}

}  // namespace

std::optional<Suppressions> Suppressions::load(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = fmt::format("{}: cannot read the suppression file", path);
    return std::nullopt;
  }
  Suppressions s;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    std::vector<std::pair<std::string, std::string>> pairs;
    std::string why;
    if (!parse_pairs(line, pairs, why)) {
      error = fmt::format("{}:{}: {}", path, number, why);
      return std::nullopt;
    }
    if (pairs.empty()) continue;
    Suppression rule;
    rule.file = path;
    rule.line = number;
    for (auto& [key, value] : pairs) {
      if (key == "id")
        rule.id = value;
      else if (key == "capture")
        rule.capture = value;
      else if (key == "endpoint")
        rule.endpoint = value;
      else if (key == "stack")
        rule.stack = value;
      else if (key == "reason")
        rule.reason = value;
      else {
        error = fmt::format("{}:{}: unknown key \"{}\" (id, capture, endpoint, stack, reason)",
                            path, number, key);
        return std::nullopt;
      }
    }
    if (rule.id.empty() || !find_diagnostic(rule.id)) {
      error = fmt::format(
          "{}:{}: {} (see mpa-check --list-diagnostics)", path, number,
          rule.id.empty() ? "a rule needs id=" : fmt::format("unknown id \"{}\"", rule.id));
      return std::nullopt;
    }
    if (rule.reason.empty()) {
      error = fmt::format("{}:{}: a rule needs reason=\"...\" (why this deviation is accepted)",
                          path, number);
      return std::nullopt;
    }
    s.rules_.push_back(std::move(rule));
  }
  return s;
}

const Suppression* Suppressions::match(const std::string& capture, const Finding& finding,
                                       const ConnectionSummary* connection) const {
  const std::string_view name = info(finding.id).name;
  for (const Suppression& rule : rules_) {
    if (rule.id != name) continue;
    if (!rule.capture.empty() && fnmatch(rule.capture.c_str(), capture.c_str(), 0) != 0) continue;
    if (rule.needs_connection()) {
      if (!connection) continue;
      if (!rule.endpoint.empty() && !matches_endpoint(rule.endpoint, *connection)) continue;
      if (!rule.stack.empty() && !matches_stack(rule.stack, *connection)) continue;
    }
    return &rule;
  }
  return nullptr;
}

bool Suppressions::needs_connection(DiagId id) const {
  const std::string_view name = info(id).name;
  return std::any_of(rules_.begin(), rules_.end(),
                     [&](const Suppression& r) { return r.id == name && r.needs_connection(); });
}

std::vector<const Suppression*> Suppressions::unused(
    const std::vector<CaptureReport>& captures) const {
  std::set<const Suppression*> used;
  for (const CaptureReport& cap : captures) {
    for (const auto& [rule, count] : cap.suppressed_by) used.insert(rule);
  }
  std::vector<const Suppression*> out;
  for (const Suppression& rule : rules_) {
    if (!used.contains(&rule)) out.push_back(&rule);
  }
  return out;
}

void write_baseline(std::ostream& out, const std::vector<CaptureReport>& captures,
                    const std::string& date) {
  fmt::print(out,
             "# mpa-check baseline written {}: every error and warning of the run is accepted.\n"
             "# Review each rule and say why its deviation is acceptable; delete the rest.\n",
             date);
  std::set<std::tuple<std::string, std::string, std::string>> seen;  // capture, id, stack
  auto add = [&](const std::string& capture, const Finding& f, const ConnectionSummary* c) {
    const DiagnosticInfo& d = info(f.id);
    if (d.severity == Severity::Note) return;
    std::string stack;
    // A stack name a quoted value cannot hold is left out: the rule is then for every stack.
    if (c && quotable(c->direction(f.direction).stack)) stack = c->direction(f.direction).stack;
    if (!seen.emplace(capture, std::string(d.name), stack).second) return;
    fmt::print(out, "id={} capture={}{} reason={}\n", d.name, quoted(path_glob(capture)),
               stack.empty() ? std::string() : " stack=" + quoted(stack),
               quoted(fmt::format("baseline {}: review", date)));
  };
  for (const CaptureReport& cap : captures) {
    for (const ConnectionReport& c : cap.connections) {
      for (const ReportedFinding& f : c.findings) add(cap.file, f.finding, &c.summary);
    }
    for (const ReportedFinding& f : cap.capture_findings) add(cap.file, f.finding, nullptr);
  }
}

}  // namespace mpa::report
