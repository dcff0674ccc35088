// What mpa-check reports: per capture, its MPA connections with their findings, collected
// from the library's events; and the reporters that print it.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "mpa/analyzer.h"
#include "mpa/pipeline.h"

namespace mpa::report {

// One FPDU as listed by --list-fpdus.
struct FpduRecord {
  std::uint64_t frame = 0;  // the frame that completed it
  Direction direction{};
  TcpSeq seq;               // its ULPDU_Length field
  std::uint16_t ulpdu_length = 0;
  CrcStatus crc = CrcStatus::NotChecked;
  std::uint32_t markers = 0;
};

struct ConnectionReport {
  ConnectionSummary summary;
  std::vector<FpduRecord> fpdus;   // only with --list-fpdus
  std::vector<Finding> findings;   // in the order found (at most kMaxStoredFindings)
  std::uint64_t findings_not_stored = 0;
};

struct CaptureReport {
  std::string file;
  PipelineResult result;
  std::vector<ConnectionReport> connections;  // by connection id
  std::vector<Finding> capture_findings;      // not tied to a connection (IP fragments)
  std::uint64_t tcp_connections = 0;
};

struct Totals {
  std::uint64_t connections = 0;
  SeverityCounts by_severity;
  bool read_error = false;
};
Totals totals(const std::vector<CaptureReport>& captures);

inline constexpr std::size_t kMaxStoredFindings = 10000;            // per connection
inline constexpr std::size_t kMaxStoredFindingsPerCapture = 200000;  // bounds memory

// Collects the events of one capture into a CaptureReport.
class Collector : public EventSink {
 public:
  Collector(CaptureReport& report, bool list_fpdus) : report_(report), list_fpdus_(list_fpdus) {}
  void on_finding(const Finding& finding) override;
  void on_fpdu(const FpduEvent& fpdu) override;
  void on_connection_end(const ConnectionSummary& summary) override;
  // Orders connections by id once the capture is done.
  void finish();

 private:
  CaptureReport& report_;
  bool list_fpdus_ = false;
  std::size_t stored_ = 0;  // findings stored for this capture
  std::map<std::uint32_t, ConnectionReport> open_;
};

void write_text(std::ostream& out, const std::vector<CaptureReport>& captures, bool summaries);
std::string_view to_string(CrcStatus status);
void write_json(std::ostream& out, const std::vector<CaptureReport>& captures);
void write_junit(std::ostream& out, const std::vector<CaptureReport>& captures);
void write_catalogue(std::ostream& out, bool json);
void write_catalogue_json(std::ostream& out);

// RDMAP opcode names (RFC 5040 4.2) and ULPDU size bucket labels, shared by the reporters.
std::string_view rdmap_opcode_name(std::size_t opcode);
std::string ulpdu_bucket_label(std::size_t bucket);
// Share of a in b as a percentage (0 when b is 0).
double percent(std::uint64_t a, std::uint64_t b);

// "10.0.0.1:4000 -> 10.0.0.2:20049"
std::string describe_endpoints(const ConnectionSummary& summary);

}  // namespace mpa::report
