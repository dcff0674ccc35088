// Reports from reports (see report_from_json.h): the JSON report read back through the tables
// that write it (report_json_model.h).
#include "report_from_json.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "report_json_model.h"

namespace mpa::report {
namespace {

using nlohmann::json;
using namespace json_model;

// What reading one report shares: the rules its findings name, and what went wrong.
struct ReadState {
  std::deque<Suppression>& rules;
  const std::string* capture = nullptr;  // the file of the capture being read
  // A finding's catalogue id not known to this mpa-check (a report of a newer one).
  std::optional<std::string> unknown;
  std::string error;
  bool failed() const { return unknown || !error.empty(); }
};

// The first key a table names: inline_optional's block is there when that key is.
struct FirstKey {
  const char* key = nullptr;
  template <typename... A>
  void field(const char* k, A&&...) {
    if (!key) key = k;
  }
  template <typename... A>
  void object(const char* k, A&&...) {
    if (!key) key = k;
  }
};

// The rule a finding names, kept in `rules` (found again by file, line and id). A rule with
// count= is written without its count where it suppressed a finding ("suppressed") and with it
// where a finding was over it ("over_count"): the count is taken from whichever names it.
const Suppression* kept_rule(std::deque<Suppression>& rules, Suppression&& read) {
  for (Suppression& r : rules) {
    if (r.file != read.file || r.line != read.line || r.id != read.id) continue;
    if (!r.count) r.count = read.count;
    return &r;
  }
  return &rules.emplace_back(std::move(read));
}

// The tables' reader (report_json_model.h): a member absent or not of its type is read as
// empty (0, "", false) unless the table says otherwise; nothing the writer works out is read.
class JsonReader {
 public:
  JsonReader(const json& j, ReadState& state) : j_(j), state_(state) {}

  template <typename T>
  void field(const char* key, T& v) {
    field_or(key, v, T{});
  }
  template <typename T>
  void field_or(const char* key, T& v, T absent) {
    const json* x = find(key);
    v = x ? value_of<T>(*x, absent) : absent;
  }
  template <typename T>
  void nullable(const char* key, T& v) {
    field(key, v);
  }
  template <typename T>
  void null_unless(const char* key, T& v, bool /*shown*/) {
    field(key, v);
  }
  template <typename T>
  void or_null(const char* key, std::optional<T>& v) {
    if (const json* x = find(key); x && x->is_number()) v = x->get<T>();
  }
  template <typename T>
  void unsigned_or_null(const char* key, std::optional<T>& v) {
    if (const json* x = find(key); x && x->is_number_unsigned()) v = x->get<T>();
  }
  template <typename T>
  void when_set(const char* key, std::optional<T>& v) {
    if (const json* x = find(key)) v = value_of<T>(*x);
  }
  template <typename Words, typename T>
  void spelled(const char* key, T& v) {
    static const json kAbsent;
    const json* x = find(key);
    Words::parse(x ? *x : kAbsent, v);
  }
  template <typename F>
  void derived(const char* /*key*/, F&& /*f*/) {}
  template <typename F>
  void written_if(bool /*written*/, F f) {
    f();
  }
  template <typename T, typename Table>
  bool object(const char* key, T& v, Table table) {
    const json* x = find(key);
    if (!x || !x->is_object()) return false;
    JsonReader r(*x, state_);
    table(r, v);
    return true;
  }
  template <typename T, typename Table, typename F>
  void object_or(const char* key, T& v, Table table, F fallback) {
    if (!object(key, v, table)) v = fallback();
  }
  template <typename T, typename Table>
  void optional_object(const char* key, std::optional<T>& v, Table table) {
    const json* x = find(key);
    if (!x || !x->is_object()) return;
    JsonReader r(*x, state_);
    table(r, v.emplace());
  }
  template <typename T, typename Table>
  void inline_optional(std::optional<T>& v, Table table) {
    FirstKey first;
    T scratch;
    table(first, scratch);
    if (j_.contains(first.key)) table(*this, v.emplace());
  }
  template <typename T, typename To, typename From, typename Table>
  void view(const char* key, T& v, To /*to*/, From from, Table table) {
    const json* x = find(key);
    if (!x || !x->is_object()) return;
    std::invoke_result_t<To, const T&> seen{};
    JsonReader r(*x, state_);
    table(r, seen);
    from(seen, v);
  }
  template <std::size_t N, typename Label>
  void tally(const char* key, std::array<std::uint64_t, N>& counts, Label label, bool /*zeros*/) {
    const json* x = find(key);
    if (!x || !x->is_object()) return;
    JsonReader r(*x, state_);
    for (std::size_t i = 0; i < N; ++i) r.field(label(i).c_str(), counts[i]);
  }
  template <typename T, typename Table>
  void list(const char* key, std::vector<T>& items, Table table) {
    const json* x = find(key);
    if (!x || !x->is_array()) return;
    for (const json& e : *x) {
      if (state_.failed()) return;
      T item;
      if (!read_item(e, item, table)) return;
      items.push_back(std::move(item));
    }
  }
  template <typename T, typename Table>
  void streamed(const char* key, std::vector<T>& items, Table table) {
    list(key, items, table);
  }
  bool diagnostic(const char* key, DiagId& id) {
    const json* x = find(key);
    const std::string name = x ? text_of(*x) : std::string();
    const std::optional<DiagId> found = find_diagnostic(name);
    if (!found) {
      state_.unknown = name;
      return false;
    }
    id = *found;
    return true;
  }
  template <typename Table>
  void rule(const char* key, const Suppression*& rule, Table table, std::string_view id) {
    const json* x = find(key);
    if (!x || !x->is_object()) return;
    Suppression read;
    JsonReader r(*x, state_);
    table(r, read);
    read.id = id;
    rule = kept_rule(state_.rules, std::move(read));
  }

 private:
  const json* find(const char* key) const {
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  template <typename T, typename Table>
  bool read_item(const json& e, T& item, Table table) {
    JsonReader r(e, state_);
    table(r, item);
    return !state_.failed();
  }
  template <typename Table>
  bool read_item(const json& e, ConnectionReport& c, Table table);

  const json& j_;
  ReadState& state_;
};

// What a connection read back holds beyond its JSON: its findings' connection, each side's
// address (from its endpoint), its finding counts in the summary.
void complete_connection(ConnectionReport& c) {
  ConnectionSummary& s = c.summary;
  for (ReportedFinding& f : c.findings) f.finding.connection = s.id;
  const Endpoint* endpoints[2] = {&s.initiator, &s.responder};
  for (int side = 0; side < 2; ++side) {
    ImplementationName& n = c.implementations[side];
    n.address = to_string(endpoints[side]->address);
    if (n.name.empty()) n.source = NameSource::Address;
  }
  for (const Severity sev : {Severity::Note, Severity::Warning, Severity::Error})
    s.findings[sev] = c.active[sev] + c.suppressed[sev];
}

template <typename Table>
bool JsonReader::read_item(const json& e, ConnectionReport& c, Table table) {
  if (!e.is_object()) {
    state_.error = fmt::format("capture {}: a connection that is not an object", *state_.capture);
    return false;
  }
  JsonReader r(e, state_);
  table(r, c);
  if (state_.unknown) {
    state_.error =
        fmt::format("capture {} connection {}: catalogue id '{}' not known to this mpa-check",
                    *state_.capture, c.summary.id, *state_.unknown);
  }
  if (state_.failed()) return false;
  complete_connection(c);
  return true;
}

// What a capture read back holds beyond its JSON: where it is, its totals, its findings by id.
void complete_capture(CaptureReport& cap) {
  cap.from_json = true;
  cap.place = capture_place(cap.file, !cap.file.empty() && cap.file != "<stdin>");
  CaptureStats& st = cap.result.stats;
  st.other_frames = st.other_ethertype + st.other_ip_protocol + st.tunnel_payload + st.too_deep +
                    st.unsupported_link_type;
  cap.missing = !cap.result.ok && cap.result.error.ends_with(": no such file or directory");
  cap.mpa_connections = cap.connections.size();
  for (ReportedFinding& f : cap.capture_findings) f.finding.connection = kCaptureFinding;
  const auto by_id = [&cap](const ReportedFinding& f) {
    ++cap.found_by_id[f.finding.id];
    if (f.suppressed_by) {
      ++cap.suppressed_by[f.suppressed_by];
    } else {
      ++cap.active_by_id[f.finding.id];
    }
  };
  for (const ConnectionReport& c : cap.connections) {
    for (const ReportedFinding& f : c.findings) by_id(f);
  }
  for (const ReportedFinding& f : cap.capture_findings) by_id(f);
}

bool capture_from(const json& j, std::deque<Suppression>& rules, CaptureReport& cap,
                  std::string& error) {
  ReadState state{rules, &cap.file, std::nullopt, {}};
  JsonReader reader(j, state);
  map_capture(reader, cap);
  if (state.unknown && state.error.empty()) {
    state.error = fmt::format("capture {}: catalogue id '{}' not known to this mpa-check", cap.file,
                              *state.unknown);
  }
  error = state.error;
  if (state.failed()) return false;
  complete_capture(cap);
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
  const auto version = doc.is_object() ? doc.find(kVersionKey) : doc.end();
  const auto captures = doc.is_object() ? doc.find(kCapturesKey) : doc.end();
  if (captures == doc.end() || !captures->is_array() || version == doc.end() ||
      value_of<int>(*version) != kVersion) {
    error = fmt::format(
        "{}: not a JSON report of mpa-check (version 1, with \"captures\"; made by --format json)",
        path);
    return false;
  }
  for (const json& cj : *captures) {
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
