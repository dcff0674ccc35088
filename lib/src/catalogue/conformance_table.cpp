// The conformance rules table read and checked (see conformance_table.h and the opening
// comment of conformance_rules.txt): fields, the words rules share, each rule, then the table.
#include "catalogue/conformance_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mpa {
namespace {

constexpr std::string_view kBlanks = " \t\r";

// What is wrong with the table, each fault on a line of its own as "file:line: what" (a fault
// of the table as a whole names no line).
class Faults {
 public:
  explicit Faults(std::string_view file) : file_(file) {}

  void add(std::size_t line, std::string_view what) {
    faults_.push_back({line, std::string(what)});
  }
  std::size_t count() const { return faults_.size(); }
  // In the order of the lines (those of the table as a whole last).
  void throw_if_any() {
    if (faults_.empty()) return;
    std::stable_sort(faults_.begin(), faults_.end(), [](const Fault& a, const Fault& b) {
      return (a.line == 0 ? SIZE_MAX : a.line) < (b.line == 0 ? SIZE_MAX : b.line);
    });
    std::string all;
    for (const Fault& fault : faults_) {
      all += fault.line == 0 ? fmt::format("{}: {}\n", file_, fault.what)
                             : fmt::format("{}:{}: {}\n", file_, fault.line, fault.what);
    }
    all.pop_back();
    throw std::runtime_error(all);
  }

 private:
  struct Fault {
    std::size_t line;
    std::string what;
  };
  std::string_view file_;
  std::vector<Fault> faults_;
};

// A field of the table, `name: value` and the lines below it that go on with it (those that
// begin with a blank), its words joined by one space.
struct Field {
  std::string_view name;
  std::string value;
  std::size_t line = 0;  // where its name stands
};

void append_words(std::string& to, std::string_view text) {
  std::size_t begin = text.find_first_not_of(kBlanks);
  while (begin != std::string_view::npos) {
    const std::size_t end = std::min(text.find_first_of(kBlanks, begin), text.size());
    if (!to.empty()) to += ' ';
    to += text.substr(begin, end - begin);
    begin = text.find_first_not_of(kBlanks, end);
  }
}

// The table's fields in order; blank lines and comments (# at a line's start) end a value.
std::vector<Field> read_fields(std::string_view text, Faults& faults) {
  std::vector<Field> fields;
  bool value_open = false;
  std::size_t number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.find_first_not_of(kBlanks) == std::string_view::npos || line.starts_with('#')) {
      value_open = false;
    } else if (kBlanks.find(line.front()) != std::string_view::npos) {
      if (value_open) {
        append_words(fields.back().value, line);
      } else {
        faults.add(number, "a value going on with no field before it");
      }
    } else if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
      fields.push_back({line.substr(0, colon), "", number});
      append_words(fields.back().value, line.substr(colon + 1));
      value_open = true;
    } else {
      faults.add(number, "neither `name: value`, a value going on, nor a comment");
      value_open = false;
    }
  }
  return fields;
}

// The words several rules share: defined once as a field `{name}: words`, named in a value
// as {name}, which stands for them there.
class SharedWords {
 public:
  static bool defines(const Field& field) {
    return field.name.size() > 2 && field.name.starts_with('{') && field.name.ends_with('}');
  }

  void define(const Field& field, Faults& faults) {
    const std::string_view name = field.name.substr(1, field.name.size() - 2);
    if (!words_.emplace(name, expand(field, faults)).second) {
      faults.add(field.line, fmt::format("{{{}}} is defined twice", name));
    }
  }

  // The field's value with the names in it replaced by their words.
  std::string expand(const Field& field, Faults& faults) const {
    const std::string_view value = field.value;
    std::string out;
    std::size_t done = 0;
    for (std::size_t open = value.find('{'); open != std::string_view::npos;
         open = value.find('{', done)) {
      const std::size_t close = value.find('}', open);
      if (close == std::string_view::npos) {
        faults.add(field.line, "a { that no } closes");
        break;
      }
      out += value.substr(done, open - done);
      const std::string_view name = value.substr(open + 1, close - open - 1);
      const auto found = words_.find(name);
      if (found == words_.end()) {
        faults.add(field.line, fmt::format("{{{}}} names no words defined above it", name));
      } else {
        out += found->second;
      }
      done = close + 1;
    }
    return out + std::string(value.substr(std::min(done, value.size())));
  }

 private:
  std::map<std::string, std::string, std::less<>> words_;
};

// A rule's fields, in the order the table writes them (kFields).
enum class RuleField : std::uint8_t {
  Rule,
  Lines,
  Requirement,
  Quote,
  Summary,
  Observable,
  WhyNot,
  Ids,
  Coverage,
  Missing,
  Captures,
};
struct FieldForm {
  std::string_view name;
  bool optional;          // a rule may leave it out (then it is empty)
  std::string_view form;  // what it holds, for a fault (empty: words)
};
constexpr std::array<FieldForm, 11> kFields{{
    {"rule", false, "an id such as 5044-7.1.2-r4"},
    {"lines", false, "the first and the last line, such as 1546-1548 (none: RFC 7306's)"},
    {"requirement", false, "MUST, MUST NOT, REQUIRED, SHOULD, SHOULD NOT or statement"},
    {"quote", false, ""},
    {"summary", false, ""},
    {"observable", false, "sender, receiver or no"},
    {"why not", true, ""},
    {"ids", true, "catalogue ids separated by commas"},
    {"coverage", false, "full, partial or none"},
    {"missing", true, ""},
    {"captures", true, "capture file names separated by commas"},
}};

const FieldForm& form_of(RuleField field) { return kFields[static_cast<std::size_t>(field)]; }

std::optional<RuleField> rule_field(std::string_view name) {
  for (std::size_t i = 0; i < kFields.size(); ++i) {
    if (kFields[i].name == name) return static_cast<RuleField>(i);
  }
  return std::nullopt;
}

// "rule, lines, ..., captures"
std::string field_order() {
  std::string order;
  for (const FieldForm& field : kFields) {
    order += fmt::format("{}{}", order.empty() ? "" : ", ", field.name);
  }
  return order;
}

// The value of an enum the table writes as to_string does ("MUST NOT", "receiver", "full").
template <typename Enum, std::size_t N>
std::optional<Enum> named(std::string_view name, const std::array<Enum, N>& values) {
  for (const Enum value : values) {
    if (to_string(value) == name) return value;
  }
  return std::nullopt;
}

// "5044-7.1.2-r4": the RFC, the section (digits and dots), then r and the rule's own number;
// "7306-r1" for an RFC whose text is not in the tree (its sections unknown).
bool read_id(std::string_view id, ConformanceRule& rule) {
  rule.id = id;
  const std::size_t dash = id.find('-');
  const std::size_t r = id.rfind("-r");
  if (dash == std::string_view::npos || r == std::string_view::npos || r < dash ||
      r + 2 == id.size()) {
    return false;
  }
  rule.section = r == dash ? std::string_view() : id.substr(dash + 1, r - dash - 1);
  const std::string_view rfc = id.substr(0, dash);
  for (const Rfc known : kRfcs) {
    if (number(known) == rfc) rule.rfc = known;
  }
  return number(rule.rfc) == rfc && rule.section.empty() != text_in_tree(rule.rfc) &&
         rule.section.find_first_not_of("0123456789.") == std::string_view::npos &&
         id.substr(r + 2).find_first_of(" ,") == std::string_view::npos;
}

// "1546-1548": the first and the last line; "none" where the RFC's text is not in the tree.
bool read_lines(std::string_view value, ConformanceRule& rule) {
  if (value == "none") {
    rule.first_line = rule.last_line = 0;
    return !text_in_tree(rule.rfc);
  }
  const char* end = value.data() + value.size();
  const auto first = std::from_chars(value.data(), end, rule.first_line);
  if (first.ec != std::errc() || first.ptr == end || *first.ptr != '-') return false;
  const auto last = std::from_chars(first.ptr + 1, end, rule.last_line);
  return last.ec == std::errc() && last.ptr == end;
}

std::string_view trimmed(std::string_view text) {
  const std::size_t begin = std::min(text.find_first_not_of(kBlanks), text.size());
  const std::size_t end = text.find_last_not_of(kBlanks);
  return end == std::string_view::npos ? std::string_view() : text.substr(begin, end + 1 - begin);
}

// The items of a list separated by commas, blanks around them left out.
std::vector<std::string_view> items_of(std::string_view value) {
  std::vector<std::string_view> items;
  for (std::size_t begin = 0; begin <= value.size();) {
    const std::size_t comma = std::min(value.find(',', begin), value.size());
    items.push_back(trimmed(value.substr(begin, comma - begin)));
    begin = comma + 1;
  }
  return items;
}

// What is wrong with a rule's lines and words (empty: nothing). A rule has lines, the RFC's
// words holding its keyword ("MUST not" is how RFC 5044 writes MUST NOT twice) and ours.
std::string_view words_fault(const ConformanceRule& rule) {
  if (!text_in_tree(rule.rfc)) {
    // No text to quote: the quote says so and where the layout comes from.
    if (rule.quote.empty() || rule.summary.empty()) return "it needs the sources' words and ours";
    if (rule.requirement != Requirement::Statement) return "its keyword is unknown: statement";
    return {};
  }
  if (rule.first_line == 0 || rule.first_line > rule.last_line) {
    return "its lines are none or run backwards";
  }
  if (rule.quote.empty() || rule.summary.empty()) return "it needs the RFC's words and ours";
  const std::string_view word =
      rule.requirement == Requirement::Statement ? std::string_view() : to_string(rule.requirement);
  if (!word.empty() && rule.quote.find(word) == std::string_view::npos &&
      !(rule.requirement == Requirement::MustNot &&
        rule.quote.find("MUST not") != std::string_view::npos)) {
    return "its quote does not hold its requirement's keyword";
  }
  return {};
}

// Not observable: nothing checks it, and why is said. Observable: what is not checked is said
// unless coverage is full (then what no capture can show may be); a checked rule names its ids
// and the captures that show them.
std::string_view coverage_fault(const ConformanceRule& rule) {
  const bool has_ids = !rule.ids().empty();
  if (rule.observable == Observable::No) {
    if (rule.coverage != Coverage::None || has_ids) return "not observable, yet checked";
    if (rule.why_not_observable.empty()) return "not observable, and `why not:` is missing";
    if (!rule.missing.empty() || !rule.captures().empty()) {
      return "not observable, yet it says what is missing or names captures";
    }
    return {};
  }
  if (!rule.why_not_observable.empty()) return "observable, yet it says why not";
  if (has_ids != rule.checked()) return "`ids:` are named exactly where coverage is not none";
  // (A full rule may say what no capture can show; the others say what is not checked.)
  if (rule.coverage != Coverage::Full && rule.missing.empty()) {
    return "coverage not full, and `missing:` is missing";
  }
  if (rule.checked() == rule.captures().empty()) {
    return "`captures:` are named exactly where coverage is not none";
  }
  return {};
}

constexpr std::array kRequirements{Requirement::Must,      Requirement::MustNot,
                                   Requirement::Required,  Requirement::Should,
                                   Requirement::ShouldNot, Requirement::Statement};
constexpr std::array kObservables{Observable::Sender, Observable::Receiver, Observable::No};
constexpr std::array kCoverages{Coverage::Full, Coverage::Partial, Coverage::None};

// Reads the rules from the table's fields, a block a rule: `rule:` begins it, its other fields
// follow in kFields' order. The words of the rules are kept in `words`.
class RuleReader {
 public:
  RuleReader(Faults& faults, std::deque<std::string>& words) : faults_(faults), words_(words) {}

  void read(const std::vector<Field>& fields) {
    for (const Field& field : fields) {
      if (SharedWords::defines(field)) {
        shared_.define(field, faults_);
      } else if (const std::optional<RuleField> which = rule_field(field.name); !which) {
        faults_.add(field.line, fmt::format("no field is called `{}`", field.name));
      } else if (*which == RuleField::Rule) {
        end();
        begin(field);
      } else if (in_rule_ && in_order(*which, field)) {
        take(*which, field);
      } else if (!in_rule_) {
        faults_.add(field.line, fmt::format("`{}:` before any `rule:`", field.name));
      }
    }
    end();
  }

  std::vector<ConformanceRule> rules;
  std::vector<std::size_t> lines;  // of each rule's `rule:`

 private:
  std::string_view keep(std::string words) {
    words_.push_back(std::move(words));
    return words_.back();
  }

  void begin(const Field& field) {
    rule_ = ConformanceRule{};
    line_ = field.line;
    faults_at_begin_ = faults_.count();
    in_rule_ = true;
    seen_ = {};
    seen_[0] = true;
    last_ = RuleField::Rule;
    if (!read_id(keep(field.value), rule_)) fault(RuleField::Rule, field);
  }

  bool in_order(RuleField which, const Field& field) {
    if (which > last_) return true;
    faults_.add(field.line, fmt::format("`{}:` out of place: a rule's fields come in the order {}",
                                        field.name, field_order()));
    return false;
  }

  void take(RuleField which, const Field& field) {
    last_ = which;
    seen_[static_cast<std::size_t>(which)] = true;
    bool read = true;
    switch (which) {
      case RuleField::Rule:
        break;
      case RuleField::Lines:
        read = read_lines(field.value, rule_);
        break;
      case RuleField::Requirement:
        read = set(rule_.requirement, named(field.value, kRequirements));
        break;
      case RuleField::Observable:
        read = set(rule_.observable, named(field.value, kObservables));
        break;
      case RuleField::Coverage:
        read = set(rule_.coverage, named(field.value, kCoverages));
        break;
      case RuleField::Ids:
        read = read_ids(field);
        break;
      case RuleField::Captures:
        read = read_captures(field);
        break;
      case RuleField::Quote:
      case RuleField::Summary:
      case RuleField::WhyNot:
      case RuleField::Missing:
        text_of(which) = keep(shared_.expand(field, faults_));
        break;
    }
    if (!read) fault(which, field);
  }

  template <typename Enum>
  static bool set(Enum& to, std::optional<Enum> value) {
    if (value) to = *value;
    return value.has_value();
  }

  std::string_view& text_of(RuleField which) {
    switch (which) {
      case RuleField::Quote:
        return rule_.quote;
      case RuleField::Summary:
        return rule_.summary;
      case RuleField::WhyNot:
        return rule_.why_not_observable;
      default:  // (Missing)
        return rule_.missing;
    }
  }

  bool read_ids(const Field& field) {
    for (const std::string_view name : items_of(field.value)) {
      if (name.empty()) return false;
      const std::optional<DiagId> id = find_diagnostic(name);
      if (!id) {
        faults_.add(field.line, fmt::format("`{}` is no catalogue id (diagnostics.cpp)", name));
        continue;
      }
      if (rule_.ids().size() == RuleIds::capacity()) {
        faults_.add(field.line,
                    fmt::format("more ids than a rule holds ({})", RuleIds::capacity()));
        break;
      }
      rule_.id_list.push_back(*id);
    }
    return true;
  }

  bool read_captures(const Field& field) {
    for (const std::string_view name : items_of(keep(field.value))) {
      if (name.empty() || name.find(' ') != std::string_view::npos) return false;
      if (rule_.captures().size() == RuleCaptures::capacity()) {
        faults_.add(field.line,
                    fmt::format("more captures than a rule holds ({})", RuleCaptures::capacity()));
        break;
      }
      rule_.capture_list.push_back(name);
    }
    return true;
  }

  void fault(RuleField which, const Field& field) {
    faults_.add(field.line,
                fmt::format("`{}: {}`: expected {}", field.name, field.value, form_of(which).form));
  }

  // The rule read, checked: every field it cannot leave out present, then (when its fields
  // were read without a fault) its words and its coverage consistent.
  void end() {
    if (!in_rule_) return;
    in_rule_ = false;
    bool whole = faults_.count() == faults_at_begin_;
    for (std::size_t i = 0; i < kFields.size(); ++i) {
      if (seen_[i] || kFields[i].optional) continue;
      faults_.add(line_, fmt::format("rule {} lacks `{}:`", rule_.id, kFields[i].name));
      whole = false;
    }
    for (const std::string_view fault : {words_fault(rule_), coverage_fault(rule_)}) {
      if (whole && !fault.empty()) faults_.add(line_, fmt::format("rule {}: {}", rule_.id, fault));
    }
    rules.push_back(rule_);
    lines.push_back(line_);
  }

  Faults& faults_;
  std::deque<std::string>& words_;
  SharedWords shared_;
  ConformanceRule rule_{};  // the rule being read
  std::size_t line_ = 0;    // of its `rule:`
  std::size_t faults_at_begin_ = 0;
  bool in_rule_ = false;
  RuleField last_ = RuleField::Rule;  // the last of its fields read
  std::array<bool, kFields.size()> seen_{};
};

// Rule ids are unique (they are permanent: a new rule takes a new one).
void check_ids_unique(const RuleReader& read, Faults& faults) {
  for (std::size_t i = 0; i < read.rules.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (read.rules[j].id != read.rules[i].id) continue;
      faults.add(read.lines[i],
                 fmt::format("rule {} again (line {})", read.rules[i].id, read.lines[j]));
    }
  }
}

// Every catalogue entry checks some rule or is said to be beyond them, never both.
void check_every_diagnostic_tied_or_beyond(const RuleReader& read,
                                           std::span<const UntiedDiagnostic> untied,
                                           Faults& faults) {
  for (const DiagnosticInfo& entry : catalogue()) {
    std::size_t tied_at = 0;  // the line of the first rule naming it
    for (std::size_t i = 0; i < read.rules.size() && tied_at == 0; ++i) {
      const std::span<const DiagId> ids = read.rules[i].ids();
      if (std::find(ids.begin(), ids.end(), entry.id) != ids.end()) tied_at = read.lines[i];
    }
    const auto beyond = std::count_if(untied.begin(), untied.end(), [&](const UntiedDiagnostic& u) {
      return u.id == entry.id && !u.why.empty();
    });
    if (beyond > 1) {
      faults.add(
          0, fmt::format("{} is listed as beyond the rules twice (conformance.cpp)", entry.name));
    } else if (tied_at != 0 && beyond == 1) {
      faults.add(tied_at, fmt::format("{} checks this rule and is listed as beyond the rules "
                                      "(conformance.cpp)",
                                      entry.name));
    } else if (tied_at == 0 && beyond == 0) {
      faults.add(0, fmt::format("{} checks no rule and is not listed as beyond them "
                                "(conformance.cpp)",
                                entry.name));
    }
  }
}

}  // namespace

ConformanceTable::ConformanceTable(std::string_view text, std::string_view file,
                                   std::span<const UntiedDiagnostic> untied) {
  Faults faults(file);
  RuleReader read(faults, words_);
  read.read(read_fields(text, faults));
  check_ids_unique(read, faults);
  check_every_diagnostic_tied_or_beyond(read, untied, faults);
  faults.throw_if_any();
  rules_ = std::move(read.rules);
}

}  // namespace mpa
