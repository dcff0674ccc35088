// Tests for the conformance matrix (conformance.h) against the RFC texts and the bundled
// captures: the table of rules reads without a fault; every id a rule names is in the
// catalogue; every catalogue entry checks a rule or is said to be beyond them; every checked
// rule names a capture whose expected findings hold one of its ids; every rule's lines are in
// the section it names and hold its keyword and words; and every keyword of both RFCs is a
// rule's or said not to be one.
#include "mpa/conformance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace mpa {
namespace {

// The RFC as the RFC Editor publishes it: lines[0] is line 1.
std::vector<std::string> rfc_lines(Rfc rfc) {
  const std::string path =
      std::string(MPA_SOURCE_DIR "/tests/unit/data/rfc") + std::string(number(rfc)) + ".txt";
  std::ifstream in(path, std::ios::binary);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

const std::vector<std::string>& text_of(Rfc rfc) {
  static const std::array<std::vector<std::string>, kRfcs.size()> texts{
      rfc_lines(Rfc::Rfc5044),
      rfc_lines(Rfc::Rfc6581),
      rfc_lines(Rfc::Rfc5041),
      rfc_lines(Rfc::Rfc5040),
      {}};  // (RFC 7306's text is not in the tree)
  return texts[static_cast<std::size_t>(rfc)];
}

// A page break: the form feed, and the footer and header around it.
bool page_furniture(const std::string& line) {
  static const std::regex footer(R"(\[Page [0-9]+\]\s*$)");
  return line.starts_with('\f') || std::regex_search(line, footer) ||
         line.starts_with("RFC 5044  ") || line.starts_with("RFC 6581  ") ||
         line.starts_with("RFC 5041  ") || line.starts_with("RFC 5040  ");
}

// Lines first..last (1-based) as one line of words, page breaks left out.
std::string words(Rfc rfc, std::size_t first, std::size_t last) {
  const std::vector<std::string>& lines = text_of(rfc);
  std::string joined;
  for (std::size_t n = first; n <= last && n <= lines.size(); ++n) {
    if (page_furniture(lines[n - 1])) continue;
    std::istringstream split(lines[n - 1]);
    for (std::string word; split >> word;) joined += (joined.empty() ? "" : " ") + word;
  }
  return joined;
}

// The section a line stands in: the last heading at column 0 before it ("7.1.1  MPA Request",
// "7.1.2.  Connection Startup Rules"; the table of contents is indented).
std::string section_of(Rfc rfc, std::size_t line) {
  static const std::regex heading(R"(^([0-9]+(\.[0-9]+)*)\.?  +\S)");
  const std::vector<std::string>& lines = text_of(rfc);
  for (std::size_t n = std::min(line, lines.size()); n > 0; --n) {
    std::smatch m;
    if (std::regex_search(lines[n - 1], m, heading)) return m[1];
  }
  return "";
}

// The ids a capture's expectation holds (captures/<name>.expected.json; the real siw
// captures' beside the golden tests).
std::string expectation_of(std::string_view capture) {
  namespace fs = std::filesystem;
  const std::string name(capture);
  for (const fs::path& path : {fs::path(MPA_SOURCE_DIR "/captures") / (name + ".expected.json"),
                               fs::path(MPA_SOURCE_DIR "/tests/golden/siw") /
                                   (fs::path(name).filename().string() + ".expected.json")}) {
    std::ifstream in(path, std::ios::binary);
    if (in) return std::string(std::istreambuf_iterator<char>(in), {});
  }
  return "";
}

// The table of rules (lib/src/catalogue/conformance_rules.txt) reads without a fault; each fault
// names the table's line.
TEST(Conformance, TheRulesTableReads) { EXPECT_NO_THROW(conformance_rules()); }

TEST(Conformance, TheRfcTextsAreThere) {
  EXPECT_EQ(text_of(Rfc::Rfc5044).size(), 4147u);
  EXPECT_EQ(text_of(Rfc::Rfc6581).size(), 1403u);
  EXPECT_EQ(text_of(Rfc::Rfc5041).size(), 2131u);
  EXPECT_EQ(text_of(Rfc::Rfc5040).size(), 3699u);
  EXPECT_FALSE(text_in_tree(Rfc::Rfc7306));
  EXPECT_TRUE(text_of(Rfc::Rfc7306).empty());
}

TEST(Conformance, EveryIdNamedIsInTheCatalogue) {
  for (const ConformanceRule& rule : conformance_rules()) {
    for (const DiagId id : rule.ids()) {
      ASSERT_LT(static_cast<std::size_t>(id), static_cast<std::size_t>(DiagId::kCount)) << rule.id;
      EXPECT_EQ(find_diagnostic(info(id).name), id) << rule.id;
    }
    EXPECT_EQ(find_rule(rule.id), &rule);
  }
  for (const UntiedDiagnostic& u : untied_diagnostics()) {
    ASSERT_LT(static_cast<std::size_t>(u.id), static_cast<std::size_t>(DiagId::kCount));
    EXPECT_FALSE(u.why.empty()) << info(u.id).name;
  }
  EXPECT_EQ(find_rule("5044-7.1.2-r4")->ids().front(), DiagId::FpduResponderSentFirst);
  EXPECT_EQ(find_rule("no-such-rule"), nullptr);
}

TEST(Conformance, EveryCatalogueEntryChecksARuleOrIsBeyondThem) {
  for (const DiagnosticInfo& d : catalogue()) {
    const bool tied = !rules_of(d.id).empty();
    EXPECT_NE(tied, beyond_rules(d.id).has_value())
        << d.name
        << (tied ? " checks rules and is listed as beyond them"
                 : " checks no rule and is not listed as beyond them");
    EXPECT_EQ(rule_ids_of(d.id).empty(), !tied) << d.name;
  }
  EXPECT_EQ(rule_ids_of(DiagId::StartupRejectBitInRequest), "5044-7.1.1-r11");
  EXPECT_EQ(beyond_rules(DiagId::CaptureGap)->scope, BeyondRules::Capture);
}

TEST(Conformance, EveryCheckedRuleNamesACaptureThatShowsItsIds) {
  for (const ConformanceRule& rule : conformance_rules()) {
    if (!rule.checked()) {
      EXPECT_TRUE(rule.captures().empty()) << rule.id;
      continue;
    }
    EXPECT_FALSE(rule.captures().empty()) << rule.id << " is checked but names no capture";
    for (const std::string_view capture : rule.captures()) {
      const std::string expected = expectation_of(capture);
      ASSERT_FALSE(expected.empty()) << rule.id << ": no expectation for " << capture;
      const bool shown = std::any_of(rule.ids().begin(), rule.ids().end(), [&](DiagId id) {
        return expected.find("\"id\": \"" + std::string(info(id).name) + "\"") != std::string::npos;
      });
      EXPECT_TRUE(shown) << rule.id << ": " << capture << " shows none of its ids";
    }
  }
}

TEST(Conformance, EveryRulesLinesHoldItsKeywordAndWords) {
  for (const ConformanceRule& rule : conformance_rules()) {
    if (!text_in_tree(rule.rfc)) {
      // Nothing to quote: no lines, no section, no keyword claimed; the quote says so.
      EXPECT_EQ(lines_of(rule), "none") << rule.id;
      EXPECT_TRUE(rule.section.empty()) << rule.id;
      EXPECT_EQ(rule.requirement, Requirement::Statement) << rule.id;
      EXPECT_NE(rule.quote.find("not in the tree"), std::string_view::npos) << rule.id;
      continue;
    }
    ASSERT_LE(rule.last_line, text_of(rule.rfc).size()) << rule.id;
    // A rule is a sentence or a paragraph, not a page.
    EXPECT_LE(rule.last_line - rule.first_line, 25) << rule.id;
    const std::string text = words(rule.rfc, rule.first_line, rule.last_line);
    EXPECT_NE(text.find(rule.quote), std::string::npos)
        << rule.id << ": lines " << rule.first_line << "-" << rule.last_line << " do not hold \""
        << rule.quote << "\"; they read: " << text;
    if (rule.requirement != Requirement::Statement) {
      const std::string keyword(to_string(rule.requirement));
      const bool has =
          text.find(keyword) != std::string::npos ||
          (rule.requirement == Requirement::MustNot && text.find("MUST not") != std::string::npos);
      EXPECT_TRUE(has) << rule.id << ": lines " << rule.first_line << "-" << rule.last_line
                       << " hold no " << keyword;
    }
    EXPECT_EQ(section_of(rule.rfc, rule.first_line), rule.section)
        << rule.id << ": line " << rule.first_line << " is not in section " << rule.section;
    EXPECT_EQ(section_of(rule.rfc, rule.last_line), rule.section) << rule.id;
  }
}

// (MPA's two RFCs only: of RFC 5041 and RFC 5040 the table holds the requirements a capture of
// MPA can show, not every keyword of their RNIC, security and IANA sections.)
TEST(Conformance, EveryKeywordIsARulesOrSaidNotToBeOne) {
  static const std::regex keyword(R"(\b(MUST|SHOULD|SHALL|REQUIRED|RECOMMENDED)\b)");
  std::size_t keywords = 0;
  for (const Rfc rfc : {Rfc::Rfc5044, Rfc::Rfc6581}) {
    const std::vector<std::string>& lines = text_of(rfc);
    for (std::size_t n = 1; n <= lines.size(); ++n) {
      if (!std::regex_search(lines[n - 1], keyword)) continue;
      ++keywords;
      const auto in = [&](const auto& range) {
        return range.rfc == rfc && range.first_line <= n && n <= range.last_line;
      };
      const bool ruled = std::any_of(conformance_rules().begin(), conformance_rules().end(), in);
      const bool excused =
          std::any_of(keywords_without_rule().begin(), keywords_without_rule().end(), in);
      EXPECT_TRUE(ruled || excused)
          << to_string(rfc) << " line " << n << " holds a keyword but no rule: " << lines[n - 1];
    }
  }
  EXPECT_GT(keywords, 150u);  // (the texts were read)
}

TEST(Conformance, RulesAreInRfcAndLineOrder) {
  const auto rules = conformance_rules();
  for (std::size_t i = 1; i < rules.size(); ++i) {
    const ConformanceRule& a = rules[i - 1];
    const ConformanceRule& b = rules[i];
    EXPECT_TRUE(a.rfc < b.rfc || (a.rfc == b.rfc && a.first_line <= b.first_line))
        << a.id << " before " << b.id;
  }
}

}  // namespace
}  // namespace mpa
