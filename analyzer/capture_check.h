// Reading captures for mpa-check: a capture file, standard input or a live interface into a
// CaptureReport, many files on --jobs threads, folders searched for captures.
#pragma once

#include <string>
#include <vector>

#include "html_trace.h"
#include "mpa/implementations.h"
#include "options.h"
#include "report.h"

namespace mpa::cli {

// What reading a capture needs besides the capture: the options, the hosts file's names and
// the suppression rules (null: none).
struct Reading {
  const Options& options;
  const HostMap* hosts = nullptr;
  const report::Suppressions* suppressions = nullptr;
};

// Reads one capture (`path`, or the interface of -i) to its end. `unreadable` is set when it
// could not be found, opened or read to its end; `stream` is told of findings as they are
// decided; `trace` keeps what the HTML page draws.
report::CaptureReport check_file(const std::string& path, const Reading& reading, bool& unreadable,
                                 report::FindingObserver* stream = nullptr,
                                 report::CaptureTrace* trace = nullptr);

// Analyses `files` with --jobs threads; the reports come back in the order of `files`.
std::vector<report::CaptureReport> check_files(const std::vector<std::string>& files,
                                               const Reading& reading, bool& unreadable,
                                               std::vector<report::CaptureTrace>& traces,
                                               bool say_errors = true);

// The captures named on the command line: files as given, directories searched recursively
// for pcap/pcapng files (in name order). A name that does not exist stays in the list: it is
// reported as a capture that could not be read, after the others were analysed.
void expand_inputs(const std::vector<std::string>& names, std::vector<std::string>& files);

// Ctrl-C (SIGINT) or SIGTERM ends the capture being read; the report of what was read follows.
void stop_reading_on_interrupt();

}  // namespace mpa::cli
