// Reports from reports: the JSON report of an earlier run (--format json, version 1) read back
// into CaptureReports, so that the matrix, the text summary, the HTML overview and a
// comparison can be made from runs on other machines (CI shards, batch jobs) with no rerun.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "report.h"

namespace mpa::report {

// Appends the captures of the JSON report at `path` to `out`, each marked from_json (its
// octets are not at hand: no ladder or dumps). A finding's suppression is kept as a rule in
// `rules` (which must outlive the reports). What the JSON report does not hold stays empty
// (private data, capture times); connection counts by severity are the report's (or, from a
// report without them, those of its listed findings). False, with `error` naming the file and
// what is wrong, when it cannot be read or is no mpa-check JSON report.
bool read_json_report(const std::string& path, std::vector<CaptureReport>& out,
                      std::deque<Suppression>& rules, std::string& error);

}  // namespace mpa::report
