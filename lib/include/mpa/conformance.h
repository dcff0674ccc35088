// The conformance matrix: every normative rule of RFC 5044 and RFC 6581, where in the RFC's
// text it stands, whether a capture can show it broken, and which catalogue entries
// (diagnostics.h) check it, fully or in part. The rules are written as a table,
// lib/src/catalogue/conformance_rules.txt, built into the library. Published as `mpa-check
// --list-rules` and as CONFORMANCE.md (generated from it); each catalogue entry names its rules
// (rules_of).
//
// A rule is one requirement of the RFC: the sentence holding an RFC 2119 keyword (MUST, MUST
// NOT, REQUIRED, SHOULD, SHOULD NOT), split where one sentence binds both a sender and a
// receiver. Permissions (MAY, OPTIONAL) are not rules. Lines are those of the RFC text as the
// RFC Editor publishes it (tests/unit/data/rfc5044.txt, rfc6581.txt). Rule ids are permanent:
// add, never renumber, rename or reuse. In RFC 5044 7.1.2 they follow the RFC's own numbered
// rules (5044-7.1.2-r4 is its rule 4; r2a, r2b... the requirements of rule 2); elsewhere they
// count the requirements of a section in order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mpa/diagnostics.h"

namespace mpa {

// RFC 5041 (DDP) and RFC 5040 (RDMAP), what MPA carries, follow MPA's two (their rules come
// after MPA's in the table), then RFC 7306 (RDMAP's Atomic Operations and Immediate Data).
enum class Rfc : std::uint8_t { Rfc5044, Rfc6581, Rfc5041, Rfc5040, Rfc7306 };
inline constexpr std::array kRfcs{Rfc::Rfc5044, Rfc::Rfc6581, Rfc::Rfc5041, Rfc::Rfc5040,
                                  Rfc::Rfc7306};
std::string_view to_string(Rfc rfc);  // "RFC 5044"
std::string_view number(Rfc rfc);     // "5044"
// Whether the RFC's text is in the tree (tests/unit/data/). RFC 7306's is not: its rules are
// taken from the decoders that lay its messages out, name no section and no lines (`lines:
// none`), quote nothing of it and rest on no keyword (`statement`: which one it uses is unknown).
constexpr bool text_in_tree(Rfc rfc) { return rfc != Rfc::Rfc7306; }

// The keyword a rule rests on. Statement: a requirement the RFC states without a keyword
// ("R: This bit is set to zero ... in the MPA Request Frame").
enum class Requirement : std::uint8_t { Must, MustNot, Required, Should, ShouldNot, Statement };
std::string_view to_string(Requirement requirement);  // "MUST NOT", "statement"

// Where a breach shows in a capture: in what a side sends (Sender), in how a side reacts to
// what it received (Receiver), or not at all (No: the rule binds what happens inside a host).
enum class Observable : std::uint8_t { Sender, Receiver, No };
std::string_view to_string(Observable observable);  // "sender", "receiver", "no"

// Full: every breach a complete capture can show is reported by the rule's ids (`missing` may
// say what of the rule no capture can show, and how the ids name what it can). Partial: some
// are (`missing` says which are not). None: no catalogue entry checks the rule.
enum class Coverage : std::uint8_t { Full, Partial, None };
std::string_view to_string(Coverage coverage);  // "full", "partial", "none"

// A short list held in place (a rule's ids, its captures).
template <typename T, std::size_t N>
class FixedList {
 public:
  static constexpr std::size_t capacity() { return N; }
  constexpr void push_back(const T& item) {
    if (size_ == N) throw std::length_error("FixedList: more items than room");
    items_[size_++] = item;
  }
  constexpr std::span<const T> items() const { return {items_.data(), size_}; }

 private:
  std::array<T, N> items_{};
  std::size_t size_ = 0;
};

using RuleIds = FixedList<DiagId, 6>;
using RuleCaptures = FixedList<std::string_view, 4>;

struct ConformanceRule {
  std::string_view id;  // permanent, e.g. "5044-7.1.2-r4"
  Rfc rfc;
  std::string_view section;  // "7.1.2" (empty: its text is not in the tree)
  std::uint16_t first_line;  // the lines of the RFC text holding the rule (0: not in the tree)
  std::uint16_t last_line;
  Requirement requirement;
  std::string_view quote;    // the RFC's own words (whitespace as one space), holding the keyword
  std::string_view summary;  // one line in our words
  Observable observable;
  std::string_view why_not_observable;  // Observable::No: why not
  RuleIds id_list;                      // the catalogue entries that check it
  Coverage coverage;
  // Partial, None (when observable): what is not checked; Full: what no complete capture can
  // show of the rule, and how the ids name the rest (or empty).
  std::string_view missing;
  // Bundled captures (captures/) whose expected findings hold one of the ids: the evidence.
  RuleCaptures capture_list;

  constexpr std::span<const DiagId> ids() const { return id_list.items(); }
  constexpr std::span<const std::string_view> captures() const { return capture_list.items(); }
  constexpr bool checked() const { return coverage != Coverage::None; }
};

// "1546-1548", or "none" for a rule whose RFC's text is not in the tree.
std::string lines_of(const ConformanceRule& rule);

// The rules in table order, read from the table at first use. A fault in the table (the unit
// tests find it) throws std::runtime_error naming the table's file and line, at every call.
std::span<const ConformanceRule> conformance_rules();
const ConformanceRule* find_rule(std::string_view id);
// The rules a catalogue entry checks, in table order (empty for one beyond the rules).
std::vector<const ConformanceRule*> rules_of(DiagId id);
// The same as ids: "5044-4.4-r5, 5044-4.4-r9" (empty for one beyond the rules).
std::string rule_ids_of(DiagId id);

// Why a catalogue entry checks no rule of the two RFCs: it tells what the capture lacked, how
// the connection ended, a legal event, an interoperability hint, or a fault of the layers
// around MPA (DDP/RDMAP above it, IP below it).
enum class BeyondRules : std::uint8_t { Capture, Connection, Event, Interop, DdpRdmap, Ip };
std::string_view to_string(BeyondRules scope);  // "capture", ..., "ddp-rdmap", "ip"
struct UntiedDiagnostic {
  DiagId id;
  BeyondRules scope;
  std::string_view why;  // one line
};
std::span<const UntiedDiagnostic> untied_diagnostics();
std::optional<UntiedDiagnostic> beyond_rules(DiagId id);

// Lines of the RFCs holding a keyword (MUST, SHOULD, REQUIRED...) that state no rule: the RFC
// 2119 boilerplate, a requirement negated, a restatement, the informative appendices. With
// the rules' line ranges they account for every keyword in both texts.
struct KeywordsWithoutRule {
  Rfc rfc;
  std::uint16_t first_line;
  std::uint16_t last_line;
  std::string_view why;
};
std::span<const KeywordsWithoutRule> keywords_without_rule();

}  // namespace mpa
