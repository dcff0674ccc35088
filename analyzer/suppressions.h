// Known deviations a team has accepted: a suppression file, one rule a line. A rule names
// a catalogue id and, optionally, captures (a path relative to the suppression file, or a
// file name glob), an endpoint, a stack fingerprint and a count; its reason is mandatory.
// Suppressed findings are still counted; a rule that matched nothing when every capture
// the file names was analysed is reported (on stderr), so the file does not rot.
//
//   # .mpa-check-suppressions
//   id=fpdu.pad-nonzero stack="Linux siw" reason="siw pads perftest control FPDUs with garbage"
//   id=fpdu.crc-mismatch capture="lab/faulty-*.pcap" count=2 reason="..."
//   id=rdmap.terminate-encoding capture="*-siw-*.pcap" endpoint=10.0.0.2:4791 reason="..."
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "mpa/analyzer.h"

namespace mpa::report {

struct CaptureReport;

// Where a capture is, as suppression rules and SARIF locations see it. `path`: the
// capture file's absolute path, its folders resolved (symbolic links, "..") and its file
// name as given; empty for standard input or a live interface. `given`: the same as the user
// named it, symbolic links not resolved (made absolute from the shell's working folder, $PWD,
// where that is the working folder; ".." taken lexically). `name`: the file name
// ("<stdin>", or the interface).
struct CapturePlace {
  std::string path;
  std::string given;
  std::string name;
};
// The place of `file` as named on the command line (is_file false: standard input or a
// live interface, whose name is `file`).
CapturePlace capture_place(const std::string& file, bool is_file);

struct Suppression {
  std::string file;  // where the rule was read
  std::size_t line = 0;
  std::string id;  // catalogue id (checked against the catalogue when read)
  // capture= as written (empty: any). With a '/', a path or glob relative to the
  // suppression file's folder (or absolute); without one, a glob on the file name. The folder
  // is taken both as the file was named (symbolic links not resolved: CapturePlace::given)
  // and resolved (CapturePlace::path): a capture matches if it is there in either view, so a
  // baseline written through a symbolic link to a folder works from the folder's real path
  // and the other way round.
  std::string capture;
  std::string capture_glob;        // what fnmatch compares: an absolute glob, or the name glob
  std::string capture_glob_given;  // the absolute glob from the folder as named
  bool capture_by_name = false;
  std::string endpoint;  // "address:port" of either side (empty: any)
  std::string stack;     // stack fingerprint of either side, e.g. "Linux siw" (empty: any)
  // count=N: the rule accepts at most N of its findings in each capture; the ones after
  // them are not suppressed (nullopt: any number).
  std::optional<std::uint64_t> count;
  std::string reason;
  // Whether the rule can be decided from the finding alone (no endpoint, no stack).
  bool needs_connection() const { return !endpoint.empty() || !stack.empty(); }
  // Whether the rule's capture= takes in this capture (true without capture=).
  bool takes(const CapturePlace& capture) const;
};

// How many findings each rule accepted in one capture.
using RuleUses = std::map<const Suppression*, std::uint64_t>;

// What suppression rules say of a finding: the rule that accepts it, or the rule with a
// count that would have, had its count not been used up in this capture.
struct Judgement {
  const Suppression* by = nullptr;
  const Suppression* over_count = nullptr;
};

// The rules seen over a whole run.
struct RuleReview {
  // False when a rule's capture= took in none of the captures analysed: a run over part of
  // what the file was written for, which cannot tell a stale rule from one for a capture
  // not given; nothing is then said of unused rules or counts.
  bool complete = true;
  std::vector<const Suppression*> unused;  // accepted nothing (only when complete)
  // Rules with a count that no capture reached: the rule and the most it accepted in one
  // capture (only when complete).
  std::vector<std::pair<const Suppression*, std::uint64_t>> under_count;
  // A suppression file none of whose rules accepted anything while its rules name captures
  // this run did not see (a baseline used from elsewhere, or with other captures): the
  // file, and the captures its rules expected (absolute, as named from where the file was
  // named; a file name glob as written).
  std::string accepted_nothing;
  std::vector<std::string> expected;
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
  // The first rule, in file order, that matches a finding of `capture` and whose count
  // `used` (this capture's uses so far) has not reached. `connection` is the finding's
  // connection when known; rules that need one do not match without it.
  Judgement match(const CapturePlace& capture, const Finding& finding,
                  const ConnectionSummary* connection, const RuleUses& used) const;
  // Whether some rule for this id needs the connection to decide.
  bool needs_connection(DiagId id) const;

  // Unused rules and counts not reached, over the captures of a run.
  RuleReview review(const std::vector<CaptureReport>& captures) const;

 private:
  std::vector<Suppression> rules_;
};

// Writes a suppression file that accepts every error and warning of `captures`: one rule
// per capture and id with the number of its findings (count=), the capture as the user named
// it (CapturePlace::given) relative to `folder` (the file's folder as the user named it:
// capture_place(file).given's folder), symbolic links not resolved, reason "baseline DATE:
// review" naming the stacks seen.
void write_baseline(std::ostream& out, const std::vector<CaptureReport>& captures,
                    const std::string& date, const std::string& folder);

}  // namespace mpa::report
