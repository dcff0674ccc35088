// What mpa-check reports: per capture, its MPA connections with their findings, collected
// from the library's events; and the reporters that print it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "mpa/analyzer.h"
#include "mpa/implementations.h"
#include "mpa/pipeline.h"
#include "mpa/rdma_messages.h"
#include "suppressions.h"

namespace mpa::report {

// One FPDU as listed by --list-fpdus.
struct FpduRecord {
  std::uint64_t frame = 0;  // the frame that completed it
  Direction direction{};
  TcpSeq seq;  // its ULPDU_Length field
  std::uint16_t ulpdu_length = 0;
  CrcStatus crc = CrcStatus::NotChecked;
  std::uint32_t markers = 0;
  std::uint64_t first_frame =
      0;  // the frame holding its first octet (findings on its header name it)
};

// The RDMA messages of a connection (mpa/rdma_messages.h): counts by opcode per side always,
// the messages themselves only with --list-messages.
struct ConnectionMessages {
  std::array<RdmaMessageCounts, 2> counts{};  // by Direction
  std::vector<RdmaMessage> list;              // only with --list-messages
  std::uint64_t not_listed = 0;               // beyond kMaxListedMessages (--list-messages)
  const RdmaMessageCounts& of(Direction d) const { return counts[static_cast<int>(d)]; }
};

// A finding as reported: the library's, and the suppression rule that accepted it, if any.
struct ReportedFinding {
  Finding finding;
  const Suppression* suppressed_by = nullptr;
  // Not suppressed because this rule's count= was used up in the capture (else nullptr).
  const Suppression* over_count = nullptr;
  bool decided = true;  // false until the connection's end decides a rule that needs it
};

struct ConnectionReport {
  ConnectionSummary summary;
  std::string tunnel;             // the tunnels it travelled in, outermost first ("": none)
  std::vector<FpduRecord> fpdus;  // only with --list-fpdus
  ConnectionMessages messages;
  std::vector<ReportedFinding> findings;  // in the order found (at most kMaxStoredFindings)
  std::uint64_t findings_not_stored = 0;
  // Every finding of the connection, listed or not, once decided.
  SeverityCounts active;  // not suppressed
  SeverityCounts suppressed;
  // Who each side is, by Direction: the hosts file's name, the stack its startup frames
  // looked like (a guess), or its address (plugfest.h names them over the whole run).
  ImplementationName implementations[2];
  const ImplementationName& implementation(Direction d) const {
    return implementations[static_cast<int>(d)];
  }
};

struct CaptureReport {
  std::string file;         // as named on the command line ("<stdin>", or the interface)
  CapturePlace place;       // where it is, for suppression rules and SARIF
  double seconds = 0;       // the time its analysis took
  bool missing = false;     // named on the command line but not there (result.ok is false)
  bool not_opened = false;  // could not be opened at all (a bad interface or capture filter)
  // Read back from the JSON report of an earlier run (--from-json): no trace of its octets.
  bool from_json = false;
  PipelineResult result;
  std::vector<ConnectionReport> connections;      // by connection id
  std::vector<ReportedFinding> capture_findings;  // not tied to a connection (IP fragments)
  std::uint64_t tcp_connections = 0;
  std::uint64_t mpa_connections = 0;      // also those not kept (a live capture keeps none)
  std::uint64_t expired_connections = 0;  // TCP connections let go for being idle (--idle-timeout)
  // Every finding of the capture, listed or not.
  SeverityCounts active;  // not suppressed
  SeverityCounts suppressed;
  std::map<DiagId, std::uint64_t> active_by_id;
  std::map<DiagId, std::uint64_t> found_by_id;  // suppressed or not
  RuleUses suppressed_by;                       // findings each rule accepted
};

// What makes a capture fail: findings at or above `fail_on` that no rule suppressed, and
// (with require_mpa) a capture without any MPA connection. A capture that could not be read
// to its end is an error of its own (exit status 2).
struct Policy {
  Severity fail_on = Severity::Error;
  bool require_mpa = false;
};
bool fails(const CaptureReport& capture, const Policy& policy);
bool counts_as_failure(Severity severity, const Policy& policy);
// Why a capture failed, in a few words ("2 errors", "no MPA connection").
std::string failure_reason(const CaptureReport& capture, const Policy& policy);

struct Totals {
  std::uint64_t connections = 0;
  SeverityCounts active;
  SeverityCounts suppressed;
  std::uint64_t failed_captures = 0;
  bool read_error = false;
};
Totals totals(const std::vector<CaptureReport>& captures, const Policy& policy);

// "1 error", "3 warnings".
std::string count_of(std::uint64_t n, std::string_view singular);

inline constexpr std::size_t kMaxStoredFindings = 10000;             // per connection
inline constexpr std::size_t kMaxStoredFindingsPerCapture = 200000;  // bounds memory

// Told of each finding once its suppression is decided, and of each connection's end: the
// streaming text output of a live capture or a pipe.
class FindingObserver {
 public:
  virtual ~FindingObserver() = default;
  // `connection`: the finding's connection number (kCaptureFinding: none).
  virtual void on_decided(const ReportedFinding& finding, std::uint32_t connection) = 0;
  virtual void on_connection_end(const ConnectionReport& connection) = 0;
};

// Collects the events of one capture into a CaptureReport, deciding suppressions.
class Collector : public EventSink {
 public:
  Collector(CaptureReport& report, bool list_fpdus, const Suppressions* suppressions = nullptr,
            const HostMap* hosts = nullptr)
      : report_(report), list_fpdus_(list_fpdus), suppressions_(suppressions), namer_(hosts) {}
  // Connections that end are named their tunnel from `names` (the frame feeder's, filled as
  // frames arrive), so that live output names it too.
  void name_tunnels_from(const TunnelNames& names) { tunnel_names_ = &names; }
  // List every RDMA message (--list-messages), not only count them.
  void list_messages(bool list) { list_messages_ = list; }
  // Streaming: tell `observer` of every decided finding; with keep_connections false, a
  // finished connection is only counted (bounded memory over hours of live capture).
  void stream_to(FindingObserver* observer, bool keep_connections) {
    observer_ = observer;
    keep_connections_ = keep_connections;
  }
  void on_finding(const Finding& finding) override;
  void on_fpdu(const FpduEvent& fpdu) override;
  void on_fpdu_revised(const FpduEvent& revised, bool markers) override;
  void on_connection_start(const ConnectionSummary& summary) override;
  void on_connection_end(const ConnectionSummary& summary) override;
  // Orders connections by id once the capture is done.
  void finish();

 private:
  void count(const ReportedFinding& f, std::uint32_t connection, ConnectionReport* c);
  ReportedFinding judge(const Finding& finding, bool stored);

  CaptureReport& report_;
  bool list_fpdus_ = false;
  bool list_messages_ = false;
  const Suppressions* suppressions_ = nullptr;
  FindingObserver* observer_ = nullptr;
  bool keep_connections_ = true;
  const TunnelNames* tunnel_names_ = nullptr;
  HostNamer namer_;         // names each connection's sides as it ends (the run names them again)
  std::size_t stored_ = 0;  // findings stored for this capture
  std::map<std::uint32_t, ConnectionReport> open_;  // by number (ConnectionSummary::id)
  // Of the open connections that sent FPDUs: hashed, and the last one asked for in each slot
  // of a small table by the low bits of its number kept at hand (an FPDU's lookup was a tree
  // walk over every open connection: 7% of the FPDU's cost on the benchmark's row (a), 400
  // open; then a hash lookup, 55 instructions an FPDU: connections are numbered as they
  // begin, so those open at once mostly have slots of their own). Nodes stay put when the
  // table grows.
  std::unordered_map<std::uint32_t, RdmaMessageLog> messages_;
  struct LogSlot {
    std::uint32_t id = 0;
    RdmaMessageLog* log = nullptr;
  };
  static constexpr std::size_t kLogSlots = 1024;
  std::array<LogSlot, kLogSlots> log_slots_{};
  RdmaMessageLog& message_log(std::uint32_t connection);
  // Findings beyond the listing limit whose rules need the connection: decided at its end,
  // by number and id (the first such finding, and how many).
  std::map<std::uint32_t, std::map<DiagId, std::pair<Finding, std::uint64_t>>> pending_;
};

struct TextOptions {
  bool notes = false;        // list notes (always counted)
  bool connections = false;  // a summary block per connection
  bool certain_at = false;   // name the frame where a finding became certain, when later
  bool color = false;
  std::size_t fold_after = 3;  // findings of one id in one connection listed before folding
  bool capture_lines = true;   // one line per capture with its verdict and counts
  bool list_findings = true;   // false: the findings were streamed already
  bool suppressed = false;     // list suppressed findings too (as "suppressed", never as
                               // "error" or "warning")
  bool timestamps = false;     // streamed lines start with their capture time (live capture)
  Policy policy;
};
// A capture time (nanoseconds since the epoch) as UTC, ISO 8601 with microseconds:
// "2026-11-26T11:20:01.123456Z".
std::string utc_time(std::uint64_t ns);
void write_text(std::ostream& out, const std::vector<CaptureReport>& captures,
                const TextOptions& options);
// Whether the text report lists a finding: suppressed ones with `suppressed`, notes with
// `notes`, errors and warnings always.
bool listed(const ReportedFinding& finding, const TextOptions& options);
// A finding line of the text report, and the line that folds repeats.
// `certain_at`: name the frame where it became certain when that is later than its own;
// `side_name`: the name of the side whose data it is about (ImplementationName::label).
std::string finding_line(const std::string& file, const ReportedFinding& finding,
                         const ConnectionSummary* connection, bool color, bool certain_at = false,
                         std::string_view side_name = {});
// The summary block of one connection (-v).
void write_connection(std::ostream& out, const ConnectionReport& connection);
std::string fold_line(const std::string& file, const ReportedFinding& first_folded,
                      std::uint64_t more, std::uint32_t connection, bool color);
// The end of the text report: the failed captures, the totals.
void write_text_end(std::ostream& out, const std::vector<CaptureReport>& captures,
                    const TextOptions& options);
// What the run says of the suppression rules (unused ones, counts not reached), for
// standard error: "FILE:LINE: unused: ..." and "FILE:LINE: note: ...".
void write_rule_review(std::ostream& out, const RuleReview& review);
std::string_view to_string(CrcStatus status);
// `matrix` (--matrix): the interop matrix even where it is not shown by default (plugfest.h).
// `tool_version`: mpa-check's, written in "tool" (null when empty).
void write_json(std::ostream& out, const std::vector<CaptureReport>& captures, const Policy& policy,
                const RuleReview& review, bool matrix = false, std::string_view tool_version = {});
// `seconds`: the run's wall time (the test suites' own are each capture's analysis).
void write_junit(std::ostream& out, const std::vector<CaptureReport>& captures,
                 const Policy& policy, double seconds = 0);
// SARIF 2.1.0: a result per finding (suppressed ones with their suppression), the
// catalogue as the driver's rules, a notification per capture not read to its end.
struct SarifOptions {
  Policy policy;               // for each capture's verdict
  bool notes = false;          // list notes too (--notes; a dashboard shows errors and warnings)
  std::string version;         // mpa-check's
  std::string command;         // the command line
  std::string working_folder;  // absolute: capture paths are given relative to it
};
void write_sarif(std::ostream& out, const std::vector<CaptureReport>& captures,
                 const SarifOptions& options);
// The rfc-editor.org address of a catalogue entry's reference ("RFC 5044 4.4" ->
// https://www.rfc-editor.org/rfc/rfc5044#section-4.4); "" when it names no RFC.
std::string rfc_url(std::string_view rfc);
// Live capture with --format json: JSON Lines, one event a line as it happens ("finding" when
// a finding is decided, "connection" when a connection ends, without its findings) and an
// "end" line with the capture's verdict and counts (write_json_lines_end).
std::unique_ptr<FindingObserver> json_lines_observer(std::ostream& out, std::string capture);
void write_json_lines_end(std::ostream& out, const CaptureReport& capture, const Policy& policy);
void write_catalogue(std::ostream& out, bool json);
void write_catalogue_json(std::ostream& out);
// The conformance matrix (mpa/conformance.h): --list-rules.
void write_rules(std::ostream& out, bool json);
void write_rules_json(std::ostream& out);

// RDMAP opcode names (RFC 5040 4.2; 8-11 from RFC 7306) and ULPDU size bucket labels, shared
// by the reporters.
std::string_view rdmap_opcode_name(std::size_t opcode);
std::string ulpdu_bucket_label(std::size_t bucket);
// Share of a in b as a percentage (0 when b is 0).
double percent(std::uint64_t a, std::uint64_t b);

// "10.0.0.1:4000 -> 10.0.0.2:20049"
std::string describe_endpoints(const ConnectionSummary& summary);
// The same with each side's name beside its address where it has one:
// "10.0.0.1:4000 (Ardent 2.1) -> 10.0.0.2:20049 (looks like Linux siw)"
std::string describe_endpoints(const ConnectionReport& connection);
// An endpoint with its side's name: "10.0.0.1:4000 (Ardent 2.1)", or the endpoint alone.
std::string endpoint_with_name(const ConnectionReport& connection, Direction side);
// The frames not decoded to TCP by reason ("other IP protocol 3, malformed 1"); "" for none.
std::string not_tcp_counts(const CaptureStats& stats);
// What IP reassembly did ("20 reassembled from 46 IP fragments, 1 IP datagram incomplete");
// "" when the capture held no IP fragment.
std::string ip_reassembly_counts(const CaptureStats& stats);
// The warning a capture earns when frames may have carried TCP that was not analysed
// (a tunnel payload not decoded, nesting too deep, a link type not supported); "" if none.
std::string unreached_warning(const CaptureStats& stats);
// A live capture's libpcap counters ("5000 packets received, 12 dropped by the kernel, 0 by
// the interface"), and what drops mean for the report; "" for a file.
std::string live_counts(const PipelineResult& result);
// When packets were dropped: what that means for the report; "" otherwise.
std::string drops_warning(const PipelineResult& result);

}  // namespace mpa::report
