// Fuzz target: reports from reports (--from-json, --compare): read_json_report
// (analyzer/report_from_json.h) on any octets, and the reports made from what it read.
//
// Input: a JSON report, or anything else (written to a memfd).
//
// Either an error naming the file, or captures that the reports take as from a run: written as
// JSON, read back and written again, the two writings are equal (a report read back is written
// as it was read); the interop matrix, the text report with the matrix, the HTML page and the
// comparison of the run with itself are made (nothing new: 0).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "plugfest.h"
#include "report.h"
#include "report_from_json.h"
#include "report_html.h"

namespace {

using mpa::report::CaptureReport;

std::string written(std::vector<CaptureReport>& run) {
  mpa::report::name_implementations(run, nullptr);
  std::ostringstream out;
  mpa::report::write_json(out, run, mpa::report::Policy{}, mpa::report::RuleReview{});
  return out.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = mpa::fuzz::write_memory_file({data, size});
  std::deque<mpa::report::Suppression> rules;
  std::vector<CaptureReport> run;
  std::string error;
  if (!mpa::report::read_json_report(path, run, rules, error)) {
    MPA_FUZZ_CHECK(error.rfind(path + ":", 0) == 0, "an error that does not name the report");
    return 0;
  }
  const std::string first = written(run);
  const std::string again_path = mpa::fuzz::write_memory_file(
      {reinterpret_cast<const std::uint8_t*>(first.data()), first.size()});
  std::vector<CaptureReport> reread;
  std::deque<mpa::report::Suppression> reread_rules;
  MPA_FUZZ_CHECK(mpa::report::read_json_report(again_path, reread, reread_rules, error),
                 "a report written from a report does not read back");
  MPA_FUZZ_CHECK(written(reread) == first, "a report read back is not written as it was read");

  mpa::report::TextOptions text;
  text.notes = text.connections = true;
  std::ostringstream out;
  mpa::report::write_text(out, run, text);
  mpa::report::write_matrix_text(out, mpa::report::build_matrix(run), run);
  const std::vector<mpa::report::CaptureTrace> traces(run.size());
  mpa::report::write_html(out, run, traces, mpa::report::HtmlOptions{});
  std::ostringstream comparison;
  MPA_FUZZ_CHECK(mpa::report::write_comparison_text(comparison, "a", run, "b", run) == 0,
                 "a run compared with itself has something new");
  return 0;
}
