// Known deviations a team has accepted: a suppression file, one rule a line. A rule names
// a catalogue id and, optionally, a capture (glob), an endpoint and a stack fingerprint;
// its reason is mandatory. Suppressed findings are still counted and listed as such; a
// rule that matched nothing in a run is reported, so the file does not rot.
//
//   # .mpa-check-suppressions
//   id=fpdu.pad-nonzero stack="Linux siw" reason="siw pads perftest control FPDUs with garbage"
//   id=fpdu.crc-mismatch capture="captures/faulty-*.pcap" endpoint=10.0.0.2:4791 reason="..."
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpa/analyzer.h"

namespace mpa::report {

struct CaptureReport;

struct Suppression {
  std::string file;  // where the rule was read
  std::size_t line = 0;
  std::string id;        // catalogue id (checked against the catalogue when read)
  std::string capture;   // glob on the capture path as given (empty: any)
  std::string endpoint;  // "address:port" of either side (empty: any)
  std::string stack;     // stack fingerprint of either side, e.g. "Linux siw" (empty: any)
  std::string reason;
  // Whether the rule can be decided from the finding alone (no endpoint, no stack).
  bool needs_connection() const { return !endpoint.empty() || !stack.empty(); }
};

class Suppressions {
 public:
  // The default file looked up in the working folder.
  static constexpr const char* kDefaultFile = ".mpa-check-suppressions";

  // Reads `path`; on a syntax error, an unknown id or a missing reason returns nullopt with
  // `error` naming the file and line.
  static std::optional<Suppressions> load(const std::string& path, std::string& error);

  bool empty() const { return rules_.empty(); }
  const std::vector<Suppression>& rules() const { return rules_; }
  // The first rule matching a finding of `capture` (nullptr: none). `connection` is the
  // finding's connection when known; rules that need one do not match without it.
  const Suppression* match(const std::string& capture, const Finding& finding,
                           const ConnectionSummary* connection) const;
  // Whether some rule for this id needs the connection to decide.
  bool needs_connection(DiagId id) const;

  // The rules that suppressed nothing in `captures`.
  std::vector<const Suppression*> unused(const std::vector<CaptureReport>& captures) const;

 private:
  std::vector<Suppression> rules_;
};

// Writes a suppression file that accepts every error and warning of `captures`: one rule
// per (capture, id, stack), reason "baseline ...: review".
void write_baseline(std::ostream& out, const std::vector<CaptureReport>& captures,
                    const std::string& date);

}  // namespace mpa::report
