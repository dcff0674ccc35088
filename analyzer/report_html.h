// The HTML report (--html FILE): see report_html.cpp.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "html_trace.h"
#include "report.h"

namespace mpa::report {

struct HtmlOptions {
  Policy policy;
  std::string version;
  std::string command;  // the command line, shown at the foot of the page
  // The folder the page is written to: captures read back from JSON reports (--from-json) are
  // linked relative to it.
  std::string folder;
  // --matrix: the interop matrix even where it is not shown by default (plugfest.h).
  bool matrix = false;
};

// `traces[i]` belongs to `captures[i]`.
void write_html(std::ostream& out, const std::vector<CaptureReport>& captures,
                const std::vector<CaptureTrace>& traces, const HtmlOptions& options);

}  // namespace mpa::report
