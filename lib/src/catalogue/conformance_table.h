// The conformance matrix's rules read from their table (conformance_rules.txt, whose opening
// comment says how it is written) into ConformanceRules, and checked as the table is read.
#pragma once

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpa/conformance.h"

namespace mpa {

class ConformanceTable {
 public:
  // Reads `text`, the table file named `file`, and checks it: ids unique and named after
  // their RFC and section, lines and words present, the keyword in the RFC's words, coverage
  // consistent with observability and ids, every checked rule backed by a capture, every id
  // in the catalogue, and every catalogue entry tied to a rule or listed in `untied`, never
  // both. Throws std::runtime_error listing every fault as "file:line: what".
  ConformanceTable(std::string_view text, std::string_view file,
                   std::span<const UntiedDiagnostic> untied);
  ConformanceTable(const ConformanceTable&) = delete;
  ConformanceTable& operator=(const ConformanceTable&) = delete;

  std::span<const ConformanceRule> rules() const { return rules_; }

 private:
  std::deque<std::string> words_;  // what the rules' string_views view (a deque: never moves)
  std::vector<ConformanceRule> rules_;
};

}  // namespace mpa
