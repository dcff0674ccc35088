// The plugfest view of a run: who each side of each connection is (by the hosts file, the
// stack fingerprints seen over the run, or the address), the interop matrix of Initiator
// implementation x Responder implementation, the stable identity of a connection from one run
// to the next, and what changed between two runs (--compare). The names come from the
// library (mpa/implementations.h); this module only gathers them over a run. The faces
// display what it computes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "report.h"

namespace mpa::report {

// Names both sides of every connection of the run: the hosts file first, else the stacks seen
// from the host's address anywhere in the run (a guess), else the address. Connections read
// back from a JSON report keep the names it gives when `hosts` is null and the report named
// them from its own hosts file.
void name_implementations(std::vector<CaptureReport>& captures, const HostMap* hosts);

// A connection's verdict as the matrix shows it, in rank order.
enum class PairVerdict : std::uint8_t { NotTried, NotJudged, Clean, Warnings, Errors };
std::string_view to_string(PairVerdict verdict);  // "not tried", "not judged", "clean", ...
// Errors or warnings that no rule suppressed; else clean when the capture shows the startup
// exchange (Request and Reply) or FPDUs in full operation, not judged when it shows neither.
PairVerdict connection_verdict(const ConnectionReport& connection);

// The finding that makes a connection's verdict: its first error not suppressed, else its
// first such warning; nullptr when it has neither.
const ReportedFinding* first_failure(const ConnectionReport& connection);
// The side that broke the rule a finding names (mpa::broken_by), as a word: "initiator",
// "responder", or "" for a finding about the capture.
std::string side_word(const ReportedFinding& finding);

// What stays the same for a connection from one run to the next: both sides'
// implementations (ImplementationName::identity), the Responder's port and the startup
// parameters (revision, flags, IRD/ORD, peer-to-peer RTRs of the Request and of the Reply);
// not frame numbers, times or the Initiator's ephemeral port.
struct ConnectionIdentity {
  std::string initiator;
  std::string responder;
  std::uint16_t port = 0;
  std::string startup;  // "Request Rev 1 M=0 C=1 R=0; Reply Rev 1 M=0 C=1 R=0"
  std::string text() const;
  friend bool operator==(const ConnectionIdentity&, const ConnectionIdentity&) = default;
  friend auto operator<=>(const ConnectionIdentity&, const ConnectionIdentity&) = default;
};
ConnectionIdentity identity_of(const ConnectionReport& connection);

// A connection of the run: capture index and the connection in it.
struct ConnectionRef {
  std::size_t capture = 0;
  const ConnectionReport* connection = nullptr;
  PairVerdict verdict = PairVerdict::NotJudged;
};

struct MatrixCell {
  PairVerdict verdict = PairVerdict::NotTried;  // the worst of its connections'
  std::vector<ConnectionRef> connections;       // in the order of the run
  std::uint64_t by_verdict[5] = {};             // connections by PairVerdict
  // The first finding that made the verdict (errors before warnings, then in run order).
  const ReportedFinding* failure = nullptr;
  ConnectionRef failure_at;
};

struct MatrixImplementation {
  std::string key;          // ImplementationName::key
  ImplementationName name;  // as first seen
  std::vector<std::string> addresses;
};

// Initiator implementation x Responder implementation over every connection of a run. Both
// axes list every implementation seen in either role (hosts-file names, then guesses, then
// addresses, each alphabetically), so that a pair never tried shows as such. It is built from
// the connections seen: only the pairs tried are stored, keyed by the pair, and nothing walks
// all pairs beyond kMatrixGridMost implementations (a capture of many unnamed hosts makes a
// large, sparse matrix: 5,001 hosts, 25,010,001 pairs, 5,000 of them tried).
struct Matrix {
  std::vector<MatrixImplementation> implementations;
  std::map<std::pair<std::size_t, std::size_t>, MatrixCell>
      tried_cells;  // by (initiator, responder)
  std::uint64_t connections = 0;
  std::size_t size() const { return implementations.size(); }
  // The cell of a pair, tried or not.
  const MatrixCell& cell(std::size_t initiator, std::size_t responder) const;
  std::size_t tried() const { return tried_cells.size(); }
  // Whether every pair is shown (a grid, untried cells listed): at most kMatrixGridMost
  // implementations; beyond, the pairs tried only.
  bool whole() const { return size() <= kMatrixGridMost; }
  static constexpr std::size_t kMatrixGridMost = 64;
};
Matrix build_matrix(const std::vector<CaptureReport>& captures);

// Whether the reports show the matrix (JSON "matrix", the HTML report's matrix; the text with
// --matrix only). By default where its implementations are named or few: unless more than
// kMatrixUnnamedMost of them are unnamed, known by their address only (no hosts-file entry, no
// stack fingerprint); a capture of many hosts nothing names has no interop to show, only as
// many pairs as connections. `asked` (--matrix) shows it always. (--help, docs/json.md and the
// schema, docs/mpa-check-report.schema.json, say 8.)
constexpr std::size_t kMatrixUnnamedMost = 8;
bool matrix_shown(const std::vector<CaptureReport>& captures, bool asked);
// A cell's connections by verdict: "1 with errors, 2 clean".
std::string verdict_counts(const MatrixCell& cell);

// --matrix: the grid (Initiator in rows, Responder in columns), then a line per pair tried
// with its verdict and first failing rule, and the pairs never tried.
void write_matrix_text(std::ostream& out, const Matrix& matrix,
                       const std::vector<CaptureReport>& captures);

// --compare OLD.json NEW.json: what is new, fixed and stayed per pair and per connection.
// Errors and warnings not suppressed are compared, by catalogue id and the side that broke
// the rule. Each returns the exit status (1: something new, 0: nothing new); the comparison
// as text, or as JSON (--format json).
int write_comparison_text(std::ostream& out, const std::string& old_name,
                          const std::vector<CaptureReport>& old_run, const std::string& new_name,
                          const std::vector<CaptureReport>& new_run);
int write_comparison_json(std::ostream& out, const std::string& old_name,
                          const std::vector<CaptureReport>& old_run, const std::string& new_name,
                          const std::vector<CaptureReport>& new_run);

}  // namespace mpa::report
