// The suppression file (see suppressions.h).
#include "suppressions.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fnmatch.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
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

// A literal string as a glob (fnmatch) matching exactly it.
std::string glob_escape(const std::string& text) {
  std::string glob;
  for (char c : text) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') glob += '\\';
    glob += c;
  }
  return glob;
}

// The absolute folder of a file, resolved as capture_place resolves a capture's, and as named.
std::string folder_of(const std::string& file) {
  return std::filesystem::path(capture_place(file, true).path).parent_path().string();
}
std::string given_folder_of(const std::string& file) {
  return std::filesystem::path(capture_place(file, true).given).parent_path().string();
}

// `capture` (with a '/') relative to `folder`, as an absolute glob.
std::string absolute_glob(const std::string& capture, const std::string& folder) {
  const std::string joined = capture.front() == '/' ? capture : glob_escape(folder) + "/" + capture;
  std::string glob = std::filesystem::path(joined).lexically_normal().string();
  if (glob.size() > 1 && glob.back() == '/') glob.pop_back();
  return glob;
}

// The working folder as the shell names it ($PWD, symbolic links not resolved) where that is
// the working folder, else as the system does.
std::filesystem::path logical_working_folder() {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path real = fs::current_path(ec);
  const char* pwd = std::getenv("PWD");
  if (pwd != nullptr && pwd[0] == '/' && fs::equivalent(pwd, real, ec) && !ec) return pwd;
  return real;
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
  const std::string folder = folder_of(path);
  const std::string given_folder = given_folder_of(path);
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
      if (key == "id") {
        rule.id = value;
      } else if (key == "capture") {
        rule.capture = value;
      } else if (key == "endpoint") {
        rule.endpoint = value;
      } else if (key == "stack") {
        rule.stack = value;
      } else if (key == "reason") {
        rule.reason = value;
      } else if (key == "count") {
        std::uint64_t n = 0;
        const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || end != value.data() + value.size() || n == 0) {
          error = fmt::format("{}:{}: count={} is not a positive number", path, number, value);
          return std::nullopt;
        }
        rule.count = n;
      } else {
        error =
            fmt::format("{}:{}: unknown key \"{}\" (id, capture, endpoint, stack, count, reason)",
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
    if (rule.capture.find('/') == std::string::npos) {
      rule.capture_by_name = true;
      rule.capture_glob = rule.capture;
    } else {
      rule.capture_glob = absolute_glob(rule.capture, folder);
      rule.capture_glob_given = absolute_glob(rule.capture, given_folder);
    }
    s.rules_.push_back(std::move(rule));
  }
  return s;
}

bool Suppression::takes(const CapturePlace& place) const {
  if (capture.empty()) return true;
  if (capture_by_name) return fnmatch(capture_glob.c_str(), place.name.c_str(), 0) == 0;
  if (place.path.empty()) return false;
  return fnmatch(capture_glob.c_str(), place.path.c_str(), 0) == 0 ||
         (!place.given.empty() && fnmatch(capture_glob_given.c_str(), place.given.c_str(), 0) == 0);
}

Judgement Suppressions::match(const CapturePlace& capture, const Finding& finding,
                              const ConnectionSummary* connection, const RuleUses& used) const {
  const std::string_view name = info(finding.id).name;
  Judgement judgement;
  for (const Suppression& rule : rules_) {
    if (rule.id != name || !rule.takes(capture)) continue;
    if (rule.needs_connection()) {
      if (!connection) continue;
      if (!rule.endpoint.empty() && !matches_endpoint(rule.endpoint, *connection)) continue;
      if (!rule.stack.empty() && !matches_stack(rule.stack, *connection)) continue;
    }
    if (rule.count) {
      const auto it = used.find(&rule);
      if (it != used.end() && it->second >= *rule.count) {
        if (!judgement.over_count) judgement.over_count = &rule;
        continue;
      }
    }
    return {&rule, nullptr};
  }
  return judgement;
}

bool Suppressions::needs_connection(DiagId id) const {
  const std::string_view name = info(id).name;
  return std::any_of(rules_.begin(), rules_.end(),
                     [&](const Suppression& r) { return r.id == name && r.needs_connection(); });
}

RuleReview Suppressions::review(const std::vector<CaptureReport>& captures) const {
  RuleReview review;
  std::set<const Suppression*> took;  // rules whose capture= took in a capture of the run
  std::map<const Suppression*, std::uint64_t> most;  // the most accepted in one capture
  for (const CaptureReport& cap : captures) {
    for (const Suppression& rule : rules_) {
      if (!rule.capture.empty() && rule.takes(cap.place)) took.insert(&rule);
    }
    for (const auto& [rule, n] : cap.suppressed_by) most[rule] = std::max(most[rule], n);
  }
  std::uint64_t accepted = 0;
  for (const Suppression& rule : rules_) {
    if (!rule.capture.empty() && !took.contains(&rule)) review.complete = false;
    accepted += most[&rule];
  }
  if (!review.complete && accepted == 0 && !rules_.empty()) {
    review.accepted_nothing = rules_.front().file;
    std::set<std::string> seen;
    for (const Suppression& rule : rules_) {
      if (rule.capture.empty() || took.contains(&rule)) continue;
      const std::string& where = rule.capture_by_name ? rule.capture : rule.capture_glob_given;
      if (seen.insert(where).second) review.expected.push_back(where);
    }
  }
  if (!review.complete) return review;
  for (const Suppression& rule : rules_) {
    const std::uint64_t n = most[&rule];
    if (n == 0) {
      review.unused.push_back(&rule);
    } else if (rule.count && n < *rule.count) {
      review.under_count.emplace_back(&rule, n);
    }
  }
  return review;
}

CapturePlace capture_place(const std::string& file, bool is_file) {
  namespace fs = std::filesystem;
  CapturePlace place;
  if (!is_file) {
    place.name = file;
    return place;
  }
  const fs::path given(file);
  place.name = given.filename().string();
  std::error_code ec;
  const fs::path absolute = fs::absolute(given, ec);
  place.given =
      (given.is_absolute() ? given : logical_working_folder() / given).lexically_normal().string();
  if (place.given.size() > 1 && place.given.back() == '/') place.given.pop_back();
  if (place.name.empty() || place.name == "." || place.name == "..") {
    place.path = fs::weakly_canonical(absolute, ec).string();
    if (place.path.size() > 1 && place.path.back() == '/') place.path.pop_back();
    place.name = fs::path(place.path).filename().string();
    return place;
  }
  fs::path folder = fs::weakly_canonical(absolute.parent_path(), ec);
  if (ec) folder = absolute.parent_path().lexically_normal();
  place.path = (folder / place.name).string();
  return place;
}

void write_baseline(std::ostream& out, const std::vector<CaptureReport>& captures,
                    const std::string& date, const std::string& folder) {
  fmt::print(out,
             "# mpa-check baseline written {}: every error and warning of the run is accepted,\n"
             "# as many times as it occurred (count=) in the capture named relative to this "
             "file.\n"
             "# Review each rule and say why its deviation is acceptable; delete the rest.\n",
             date);
  struct Accepted {
    std::uint64_t count = 0;
    std::set<std::string> stacks;
  };
  // By capture (as written, in the order of the run), then by id; a capture given twice
  // is one capture.
  std::vector<std::string> order;
  std::map<std::string, std::map<DiagId, Accepted>> rules;
  for (const CaptureReport& cap : captures) {
    std::string where;
    if (cap.place.path.empty()) {
      // A name, without a slash (which would make it a path): '?' matches the slash.
      where = path_glob(cap.place.name);
      std::replace(where.begin(), where.end(), '/', '?');
    } else {
      // As the user named it, relative to the file as named: symbolic links stay as they are.
      const std::string& capture = cap.place.given.empty() ? cap.place.path : cap.place.given;
      std::string relative = std::filesystem::path(capture).lexically_relative(folder).string();
      if (relative.empty()) relative = capture;
      // A slash makes it a path (a bare name would be a glob on file names anywhere).
      if (relative.find('/') == std::string::npos) relative = "./" + relative;
      where = path_glob(relative);
    }
    auto [it, added] = rules.try_emplace(where);
    if (added) order.push_back(where);
    std::map<DiagId, Accepted> here;
    for (const auto& [id, n] : cap.found_by_id) {
      if (info(id).severity != Severity::Note) here[id].count = n;
    }
    for (const ConnectionReport& c : cap.connections) {
      for (const ReportedFinding& f : c.findings) {
        const auto found = here.find(f.finding.id);
        const std::string& stack = c.summary.direction(f.finding.direction).stack;
        // A stack name a quoted value cannot hold is left out of the reason.
        if (found != here.end() && !stack.empty() && quotable(stack))
          found->second.stacks.insert(stack);
      }
    }
    for (auto& [id, accepted] : here) {
      Accepted& rule = it->second[id];
      rule.count = std::max(rule.count, accepted.count);
      rule.stacks.merge(accepted.stacks);
    }
  }
  for (const std::string& where : order) {
    for (const auto& [id, accepted] : rules[where]) {
      std::string stacks;
      for (const std::string& s : accepted.stacks) stacks += (stacks.empty() ? " (" : ", ") + s;
      if (!stacks.empty()) stacks += ")";
      fmt::print(out, "id={} capture={} count={} reason={}\n", info(id).name, quoted(where),
                 accepted.count, quoted(fmt::format("baseline {}{}: review", date, stacks)));
    }
  }
}

}  // namespace mpa::report
