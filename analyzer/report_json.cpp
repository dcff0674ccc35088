// The JSON report (the contract documented in docs/json.md, version 1, and published as
// docs/mpa-check-report.schema.json): its keys are report_json_model.h's tables.
#include <charconv>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "json_text.h"
#include "mpa/conformance.h"
#include "plugfest.h"
#include "report.h"
#include "report_json_model.h"
#include "report_json_stream.h"

namespace mpa::report {
namespace {

using nlohmann::ordered_json;
using namespace json_model;

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

// The tables' writer (report_json_model.h): each key into an object, in the tables' order.
class JsonWriter {
 public:
  // `policy`: for a capture's verdict (nullptr where no table needs it).
  explicit JsonWriter(ordered_json& j, const Policy* policy = nullptr) : j_(j), policy_(policy) {}

  template <typename T>
  void field(const char* key, const T& v) {
    j_[key] = v;
  }
  template <typename T>
  void field_or(const char* key, const T& v, const T& /*absent*/) {
    j_[key] = v;
  }
  template <typename T>
  void nullable(const char* key, const T& v) {
    null_unless(key, v, v != T{});
  }
  template <typename T>
  void null_unless(const char* key, const T& v, bool shown) {
    j_[key] = shown ? ordered_json(v) : ordered_json(nullptr);
  }
  template <typename T>
  void or_null(const char* key, const std::optional<T>& v) {
    j_[key] = v ? ordered_json(*v) : ordered_json(nullptr);
  }
  template <typename T>
  void unsigned_or_null(const char* key, const std::optional<T>& v) {
    or_null(key, v);
  }
  template <typename T>
  void when_set(const char* key, const std::optional<T>& v) {
    if (v) j_[key] = *v;
  }
  template <typename Words, typename T>
  void spelled(const char* key, const T& v) {
    j_[key] = Words::spell(v);
  }
  template <typename F>
  void derived(const char* key, F f) {
    if constexpr (std::is_invocable_v<F, const Policy&>) {
      j_[key] = f(*policy_);
    } else {
      j_[key] = f();
    }
  }
  template <typename F>
  void written_if(bool written, F f) {
    if (written) f();
  }
  template <typename T, typename Table>
  void object(const char* key, const T& v, Table table) {
    j_[key] = object_of(v, table);
  }
  template <typename T, typename Table, typename F>
  void object_or(const char* key, const T& v, Table table, F /*fallback*/) {
    object(key, v, table);
  }
  template <typename T, typename Table>
  void optional_object(const char* key, const std::optional<T>& v, Table table) {
    if (v) object(key, *v, table);
  }
  template <typename T, typename Table>
  void inline_optional(const std::optional<T>& v, Table table) {
    if (v) table(*this, *v);
  }
  template <typename T, typename To, typename From, typename Table>
  void view(const char* key, const T& v, To to, From /*from*/, Table table) {
    object(key, to(v), table);
  }
  template <std::size_t N, typename Label>
  void tally(const char* key, const std::array<std::uint64_t, N>& counts, Label label, bool zeros) {
    ordered_json j = ordered_json::object();
    for (std::size_t i = 0; i < N; ++i) {
      if (zeros || counts[i]) j[label(i)] = counts[i];
    }
    j_[key] = std::move(j);
  }
  template <typename T, typename Table>
  void list(const char* key, const std::vector<T>& items, Table table) {
    ordered_json j = ordered_json::array();
    for (const T& item : items) j.push_back(object_of(item, table));
    j_[key] = std::move(j);
  }
  bool diagnostic(const char* key, DiagId id) {
    j_[key] = info(id).name;
    return true;
  }
  template <typename Table>
  void rule(const char* key, const Suppression* rule, Table table, std::string_view /*id*/) {
    if (rule) object(key, *rule, table);
  }

 protected:
  template <typename T, typename Table>
  ordered_json object_of(const T& v, Table table) const {
    ordered_json j = ordered_json::object();
    JsonWriter w(j, policy_);
    table(w, v);
    return j;
  }

 private:
  ordered_json& j_;
  const Policy* policy_;
};

template <typename T, typename Table>
ordered_json json_of(const T& v, Table table) {
  ordered_json j = ordered_json::object();
  JsonWriter w(j);
  table(w, v);
  return j;
}

// The object a StreamedWriter collects its keys in (a base, so that it is made first).
struct Collected {
  ordered_json collected = ordered_json::object();
};

// A capture as the document holds it, written as it goes so that the report never holds
// more than one connection's JSON in memory (a capture may carry hundreds of thousands of
// findings): its keys up to the streamed list on one line, then each item of the list as a
// JSON text of its own, then the keys after it, indented.
class StreamedWriter : private Collected, public JsonWriter {
 public:
  StreamedWriter(std::ostream& out, const Policy& policy)
      : JsonWriter(collected, &policy), out_(out), policy_(&policy) {}

  template <typename T, typename Table>
  void streamed(const char* key, const std::vector<T>& items, Table table) {
    std::string text = collected.dump(-1, ' ', false, kInvalidUtf8);
    text.pop_back();  // the closing brace: the list and what follows it come next
    out_ << text << ",\n\"" << key << "\": [";
    // Each item straight to text (StreamWriter: the bytes dump(1) of its object would be),
    // flushed every few items so that the text held stays small.
    JsonText text_out;
    StreamWriter::Memo memo;
    for (std::size_t k = 0; k < items.size(); ++k) {
      text_out.put(k ? ",\n" : "\n");
      StreamWriter(text_out, policy_, &memo).write_object(items[k], table);
      if (text_out.size() >= kFlushAt) {
        out_ << text_out.view();
        text_out.clear();
      }
    }
    out_ << text_out.view();
    out_ << "]";
    collected = ordered_json::object();
  }
  // The keys after the streamed list, and the closing brace.
  void finish() {
    for (const auto& [key, value] : collected.items())
      out_ << ",\n\"" << key << "\": " << value.dump(1, ' ', false, kInvalidUtf8);
    out_ << "}";
  }

 private:
  static constexpr std::size_t kFlushAt = 1 << 16;
  std::ostream& out_;
  const Policy* policy_;
};

ordered_json counts_json(const SeverityCounts& c) { return json_of(c, map_counts); }

}  // namespace

namespace json_model {

// to_string(Endpoint): an IPv4 address as inet_ntop writes it (decimal octets, no leading
// zeros), then its port; any other address through to_string itself.
void StreamWriter::spell(EndpointWords, const Endpoint& e) {
  if (e.address.family != 4) return text(to_string(e));
  char buf[24];
  char* p = buf;
  for (std::size_t i = 0; i < 4; ++i) {
    const unsigned octet = e.address.bytes[i];
    if (octet >= 100) *p++ = static_cast<char>('0' + octet / 100);
    if (octet >= 10) *p++ = static_cast<char>('0' + octet / 10 % 10);
    *p++ = static_cast<char>('0' + octet % 10);
    *p++ = i < 3 ? '.' : ':';
  }
  p = std::to_chars(p, buf + sizeof buf, e.port).ptr;
  out_.quoted(std::string_view(buf, static_cast<std::size_t>(p - buf)));
}

// to_string(MacAddress): six lower-case hex pairs joined by ':'; null when not seen.
void StreamWriter::spell(MacWords, const std::optional<MacAddress>& mac) {
  if (!mac) return out_.put("null");
  static constexpr char kHex[] = "0123456789abcdef";
  char buf[19];
  buf[0] = '"';
  for (std::size_t i = 0; i < 6; ++i) {
    buf[1 + 3 * i] = kHex[mac->bytes[i] >> 4];
    buf[2 + 3 * i] = kHex[mac->bytes[i] & 0xf];
    buf[3 + 3 * i] = i < 5 ? ':' : '"';
  }
  out_.put(std::string_view(buf, sizeof buf));
}

// FindingTimeWords::spell: utc_time of the frame's time (else the finding's), its date and
// second made once per second (Memo), its microseconds here; null without a time.
void StreamWriter::spell(FindingTimeWords, const Finding& f) {
  const std::uint64_t ns = f.frame_place.timestamp_ns ? f.frame_place.timestamp_ns : f.timestamp_ns;
  if (!ns) return out_.put("null");
  out_.put('"');
  out_.put(memo_->second_of(ns));
  char fraction[9] = {'.', '0', '0', '0', '0', '0', '0', 'Z', '"'};
  auto micro = static_cast<unsigned>(ns % 1'000'000'000u / 1000u);
  for (std::size_t i = 6; i >= 1; --i, micro /= 10)
    fraction[i] = static_cast<char>('0' + micro % 10);
  out_.put(std::string_view(fraction, sizeof fraction));
}

}  // namespace json_model

namespace {

// A cell of the interop matrix (plugfest.h), tried or not.
ordered_json cell_json(const Matrix& m, std::size_t i, std::size_t r,
                       const std::vector<CaptureReport>& captures) {
  const MatrixCell& cell = m.cell(i, r);
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
  return j;
}

// `j` as dump(1) writes it at nesting `depth` of a document dumped with indent 1 (JSON text
// holds no raw newline inside a string: each newline starts a line of its own).
void dump_at(std::ostream& out, const ordered_json& j, std::size_t depth) {
  const std::string text = j.dump(1, ' ', false, kInvalidUtf8);
  std::size_t from = 0;
  for (std::size_t at; (at = text.find('\n', from)) != std::string::npos; from = at + 1)
    out << std::string_view(text).substr(from, at + 1 - from) << std::string(depth, ' ');
  out << std::string_view(text).substr(from);
}

// The interop matrix: the implementations, and a cell per pair: every pair up to
// Matrix::kMatrixGridMost implementations, beyond that the pairs tried (walked from the map of
// the pairs tried, never from all pairs). Written one cell at a time, as one ordered_json of
// the matrix dumped with indent 1 would be.
void write_matrix_json(std::ostream& out, const std::vector<CaptureReport>& captures) {
  const Matrix m = build_matrix(captures);
  ordered_json implementations = ordered_json::array();
  for (const MatrixImplementation& impl : m.implementations) {
    ordered_json j = json_of(impl.name, map_implementation_name);
    j["addresses"] = impl.addresses;
    implementations.push_back(std::move(j));
  }
  out << "{\n \"implementations\": ";
  dump_at(out, implementations, 1);
  out << ",\n \"pairs\": " << m.size() * m.size() << ",\n \"tried\": " << m.tried()
      << ",\n \"untried_listed\": " << (m.whole() ? "true" : "false") << ",\n \"cells\": [";
  bool first = true;
  const auto cell = [&](std::size_t i, std::size_t r) {
    out << (first ? "\n  " : ",\n  ");
    first = false;
    dump_at(out, cell_json(m, i, r, captures), 2);
  };
  if (m.whole()) {
    for (std::size_t i = 0; i < m.size(); ++i) {
      for (std::size_t r = 0; r < m.size(); ++r) cell(i, r);
    }
  } else {
    for (const auto& tried : m.tried_cells) cell(tried.first.first, tried.first.second);
  }
  out << (first ? "]\n}" : "\n ]\n}");
}

}  // namespace

void write_json(std::ostream& out, const std::vector<CaptureReport>& captures, const Policy& policy,
                const RuleReview& review, bool matrix, std::string_view tool_version) {
  out << "{\n\"" << kVersionKey << "\": " << kVersion << ",\n\"" << kToolKey
      << "\": " << tool_json(tool_version).dump(-1, ' ', false, kInvalidUtf8) << ",\n\""
      << kCapturesKey << "\": [";
  for (std::size_t i = 0; i < captures.size(); ++i) {
    out << (i ? ",\n" : "\n");
    StreamedWriter capture(out, policy);
    map_capture(capture, captures[i]);
    capture.finish();
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
  out << "],\n\"summary\": " << summary.dump(-1, ' ', false, kInvalidUtf8);
  // "matrix" where the matrix is shown (plugfest.h, matrix_shown): absent otherwise.
  if (matrix_shown(captures, matrix)) {
    out << ",\n\"matrix\": ";
    write_matrix_json(out, captures);
  }
  out << "\n}\n";
}

namespace {

class JsonLines : public FindingObserver {
 public:
  JsonLines(std::ostream& out, std::string capture) : out_(out), capture_(std::move(capture)) {}
  void on_decided(const ReportedFinding& f, std::uint32_t connection) override {
    ordered_json j;
    j["event"] = "finding";
    j["time"] = nullptr;  // first on the line; its value is map_finding's
    j["capture"] = capture_;
    j["connection"] =
        connection == kCaptureFinding ? ordered_json(nullptr) : ordered_json(connection);
    JsonWriter w(j);
    map_finding(w, f, connection != kCaptureFinding);
    out_ << j.dump(-1, ' ', false, kInvalidUtf8) << '\n' << std::flush;
  }
  // The connection without its findings: each was a line of its own.
  void on_connection_end(const ConnectionReport& c) override {
    ordered_json j;
    j["event"] = "connection";
    j["capture"] = capture_;
    JsonWriter w(j);
    map_connection_about(w, c);
    map_connection_counts(w, c);
    out_ << j.dump(-1, ' ', false, kInvalidUtf8) << '\n' << std::flush;
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
  JsonWriter w(j, &policy);
  map_capture_reading(w, cap);
  map_capture_verdict(w, cap);
  out << j.dump(-1, ' ', false, kInvalidUtf8) << '\n' << std::flush;
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
  out << list.dump(2, ' ', false, kInvalidUtf8) << '\n';
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
  out << list.dump(2, ' ', false, kInvalidUtf8) << '\n';
}

}  // namespace mpa::report
