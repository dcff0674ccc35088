// Fuzz target: the suppression-file parser and the baseline writer (analyzer/suppressions.h).
//
// Input layout: byte 0 (mod the catalogue's size) picks a catalogue id; byte 1 (n) the length
// of a capture path and byte 2 (m) the length of a stack name, taken next; the rest is a
// suppression file.
//
// The file, read from a memfd: either rules, each with a catalogue id, a reason and a line
// number within the file, in file order; or an error that names the file and a line within
// it. Reading the same file twice gives the same answer. The path and stack (any octets):
// a baseline written for two findings of that id in that capture (a file named relative to
// the working folder, or standard input or an interface by name) is read back without error
// as one rule with count=2, and that rule accepts those two findings and no third.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "fuzz_support.h"
#include "mpa/diagnostics.h"
#include "report.h"
#include "suppressions.h"

namespace {

using mpa::report::Suppressions;

// The text at a path the parser opens like any other file.
std::string write_file(std::string_view text) {
  return mpa::fuzz::write_memory_file(
      {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

void check_file(std::string_view text) {
  const std::string path = write_file(text);
  std::string error;
  const auto loaded = Suppressions::load(path, error);
  const std::size_t lines =
      static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  if (!loaded) {
    MPA_FUZZ_CHECK(error.rfind(path + ":", 0) == 0, "error does not name the file");
    const std::size_t line = std::strtoull(error.c_str() + path.size() + 1, nullptr, 10);
    MPA_FUZZ_CHECK(line >= 1 && line <= lines, "error names a line the file does not have");
  } else {
    std::size_t previous = 0;
    for (const auto& rule : loaded->rules()) {
      MPA_FUZZ_CHECK(mpa::find_diagnostic(rule.id).has_value(),
                     "rule with an id not in the catalogue");
      MPA_FUZZ_CHECK(!rule.reason.empty(), "rule without a reason");
      MPA_FUZZ_CHECK(rule.file == path && rule.line > previous && rule.line <= lines,
                     "rule's line");
      previous = rule.line;
    }
  }
  std::string again_error;
  const auto again = Suppressions::load(path, again_error);
  MPA_FUZZ_CHECK(again.has_value() == loaded.has_value() && again_error == error &&
                     (!again || again->rules().size() == loaded->rules().size()),
                 "the same file read twice gives two answers");
}

void check_baseline(mpa::DiagId id, std::string capture, const std::string& stack, bool is_file) {
  // The baseline is read from a file in some folder; the capture is a file named relative to
  // the working folder (any octets but NUL), or standard input / an interface by name.
  std::erase(capture, '\0');
  const std::string path = write_file("");
  const std::string folder =
      std::filesystem::path(mpa::report::capture_place(path, true).path).parent_path().string();
  mpa::report::CaptureReport report;
  report.file = capture;
  report.place = mpa::report::capture_place(capture, is_file && !capture.empty());
  mpa::report::ConnectionReport connection;
  connection.summary.directions[static_cast<int>(mpa::Direction::Initiator)].stack = stack;
  mpa::report::ReportedFinding finding;
  finding.finding = mpa::make_finding(id, 1, mpa::TcpSeq(0), 0, "fuzz");
  finding.finding.direction = mpa::Direction::Initiator;
  connection.findings.push_back(finding);
  report.connections.push_back(connection);
  report.found_by_id[id] = 2;
  std::ostringstream out;
  mpa::report::write_baseline(out, {report}, "2026-01-01", folder);
  const std::string baseline = write_file(out.str());  // the same path
  std::string error;
  const auto loaded = Suppressions::load(baseline, error);
  MPA_FUZZ_CHECK(loaded.has_value(), "a written baseline does not read back");
  const bool note = mpa::info(id).severity == mpa::Severity::Note;
  MPA_FUZZ_CHECK(loaded->rules().size() == (note ? 0u : 1u), "baseline rule count");
  if (!note) {
    const mpa::report::Suppression& rule = loaded->rules().front();
    MPA_FUZZ_CHECK(rule.count == 2u, "a baseline rule counts the occurrences");
    mpa::report::RuleUses used;
    for (int i = 0; i < 2; ++i) {
      const auto judgement =
          loaded->match(report.place, finding.finding, &connection.summary, used);
      MPA_FUZZ_CHECK(judgement.by == &rule,
                     "a baseline does not accept the findings it was written from");
      ++used[judgement.by];
    }
    const auto third = loaded->match(report.place, finding.finding, &connection.summary, used);
    MPA_FUZZ_CHECK(!third.by && third.over_count == &rule, "a baseline accepts more than found");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  mpa::fuzz::Input in({data, size});
  const auto ids = mpa::catalogue();
  const mpa::DiagId id = ids[in.u8() % ids.size()].id;
  const std::size_t capture_length = in.u8();
  const std::size_t stack_length = in.u8();
  const auto capture_bytes = in.bytes(capture_length);
  const auto stack_bytes = in.bytes(stack_length);
  const auto file = in.rest();
  check_file({reinterpret_cast<const char*>(file.data()), file.size()});
  check_baseline(id, {capture_bytes.begin(), capture_bytes.end()},
                 {stack_bytes.begin(), stack_bytes.end()}, capture_length % 2 == 0);
  return 0;
}
