// What mpa-check does, one function a mode (options.h's Mode): each returns the exit status.
#pragma once

#include "mpa/implementations.h"
#include "options.h"
#include "run_reports.h"

namespace mpa::cli {

// --list-diagnostics, --list-rules: the catalogue, the conformance matrix.
int list_diagnostics(const Options& options);
int list_rules(const Options& options);

// --compare OLD NEW: what changed between two JSON reports.
int compare_runs(const Options& options, const HostMap* hosts);

// --from-json: the reports made from JSON reports of earlier runs.
int reports_from_json(const RunContext& run);

// A live interface or a capture still arriving: findings printed as they become certain.
int check_live(const RunContext& run);

// The captures named (files, folders), each read to its end, then reported; with
// --write-baseline, read again with the baseline written.
int check_captures(const RunContext& run);

}  // namespace mpa::cli
