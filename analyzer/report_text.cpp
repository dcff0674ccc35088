// The text report for people: one compiler-style line per finding, then a summary per
// connection.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report.h"

namespace mpa::report {
namespace {

std::string finding_line(const std::string& file, const Finding& f, const ConnectionSummary* c) {
  const DiagnosticInfo& d = info(f.id);
  std::string where;
  if (c) {
    where = fmt::format(" [connection {} {}, {} data, seq {}]", c->id, describe_endpoints(*c),
                        to_string(f.direction), f.tcp_seq.value());
  }
  std::string reference(d.rfc);
  if (d.error_code != 0) reference += fmt::format(", error code {}", d.error_code);
  return fmt::format("{}:{}: {}: {}: {}{} [{}] ({})\n", file, f.frame, to_string(d.severity),
                     d.summary, f.message, where, d.name, reference);
}

std::string on_off(bool value) { return value ? "on" : "off"; }

void write_direction(std::ostream& out, std::string_view name, const DirectionSummary& d) {
  if (!d.full_operation) {
    fmt::print(out, "    {:<9} no full operation seen ({} payload octets)\n", name, d.bytes);
    return;
  }
  const double aligned = d.segments ? 100.0 * static_cast<double>(d.segments_starting_fpdu) /
                                          static_cast<double>(d.segments) : 0.0;
  const double whole = d.fpdus ? 100.0 * static_cast<double>(d.fpdus_in_one_segment) /
                                     static_cast<double>(d.fpdus) : 0.0;
  fmt::print(out,
             "    {:<9} markers {}, CRC {}{}; {} FPDUs, {} ULPDU octets, {} CRC failures; "
             "{:.0f}% of segments start an FPDU, {:.0f}% of FPDUs in one segment\n",
             name, on_off(d.markers), on_off(d.crc), d.inferred ? " (inferred)" : "", d.fpdus,
             d.ulpdu_bytes, d.crc_failures, aligned, whole);
}

}  // namespace

void write_text(std::ostream& out, const std::vector<CaptureReport>& captures, bool summaries) {
  for (const CaptureReport& cap : captures) {
    struct Line {
      std::uint64_t frame;
      std::size_t order;
      std::string text;
    };
    std::vector<Line> lines;
    for (const ConnectionReport& c : cap.connections) {
      for (const Finding& f : c.findings) {
        lines.push_back({f.frame, lines.size(), finding_line(cap.file, f, &c.summary)});
      }
    }
    for (const Finding& f : cap.capture_findings) {
      lines.push_back({f.frame, lines.size(), finding_line(cap.file, f, nullptr)});
    }
    std::stable_sort(lines.begin(), lines.end(),
                     [](const Line& a, const Line& b) { return a.frame < b.frame; });
    for (const Line& line : lines) out << line.text;
    if (!cap.result.ok) fmt::print(out, "{}: error: {}\n", cap.file, cap.result.error);
    if (!summaries) continue;
    fmt::print(out, "{}: {} frames, {} TCP connections, {} with MPA\n", cap.file,
               cap.result.stats.frames, cap.tcp_connections, cap.connections.size());
    for (const ConnectionReport& c : cap.connections) {
      const ConnectionSummary& s = c.summary;
      std::string startup = "startup not seen";
      if (s.request) {
        startup = describe(*s.request);
        if (s.reply) startup += "; " + describe(*s.reply);
      }
      fmt::print(out, "  connection {}: {} (initiator -> responder), frames {}-{}\n", s.id,
                 describe_endpoints(s), s.first_frame, s.last_frame);
      fmt::print(out, "    startup   {}\n", startup);
      write_direction(out, "initiator", s.direction(Direction::Initiator));
      write_direction(out, "responder", s.direction(Direction::Responder));
      fmt::print(out, "    findings  {} errors, {} warnings, {} notes{}\n", s.findings[2],
                 s.findings[1], s.findings[0],
                 c.findings_not_stored ? fmt::format(" ({} not listed)", c.findings_not_stored)
                                       : std::string());
    }
  }
  const Totals t = totals(captures);
  fmt::print(out, "mpa-check: {} capture(s), {} MPA connection(s): {} errors, {} warnings, {} notes\n",
             captures.size(), t.connections, t.by_severity[2], t.by_severity[1], t.by_severity[0]);
}

void write_catalogue(std::ostream& out, bool json) {
  if (json) {
    write_catalogue_json(out);
    return;
  }
  for (const DiagnosticInfo& d : catalogue()) {
    fmt::print(out, "{:<38} {:<8} {:<20} {}  {}\n", d.name, to_string(d.severity), d.rfc,
               d.error_code ? fmt::format("code {}", d.error_code) : std::string("-     "),
               d.summary);
  }
}

}  // namespace mpa::report
