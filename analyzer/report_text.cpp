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
  if (d.error_code != MpaError::None) reference += fmt::format(", error code {}", number(d.error_code));
  return fmt::format("{}:{}: {}: {}: {}{} [{}] ({})\n", file, f.frame, to_string(d.severity),
                     d.summary, f.message, where, d.name, reference);
}

std::string on_off(bool value) { return value ? "on" : "off"; }

void write_direction(std::ostream& out, std::string_view name, const DirectionSummary& d) {
  if (!d.full_operation) {
    fmt::print(out, "    {:<9} no full operation seen ({} payload octets)\n", name, d.bytes);
    return;
  }
  const double aligned = percent(d.segments_starting_fpdu, d.segments);
  const double whole = percent(d.fpdus_in_one_segment, d.fpdus);
  fmt::print(out,
             "    {:<9} markers {}, CRC {}{}; {} FPDUs, {} ULPDU octets, {} CRC failures; "
             "{:.0f}% of segments start an FPDU, {:.0f}% of FPDUs in one segment\n",
             name, on_off(d.markers), on_off(d.crc), d.inferred ? " (inferred)" : "", d.fpdus,
             d.ulpdu_bytes, d.crc_failures, aligned, whole);
  std::string sizes;
  for (std::size_t i = 0; i < d.ulpdu_sizes.size(); ++i) {
    if (d.ulpdu_sizes[i]) sizes += fmt::format(" {}:{}", ulpdu_bucket_label(i), d.ulpdu_sizes[i]);
  }
  std::string opcodes;
  for (std::size_t i = 0; i < d.rdmap_opcodes.size(); ++i) {
    if (d.rdmap_opcodes[i]) opcodes += fmt::format(" {}:{}", rdmap_opcode_name(i), d.rdmap_opcodes[i]);
  }
  fmt::print(out, "              max ULPDU {}{}; ULPDU sizes{}; RDMAP{}{}\n", d.max_ulpdu,
             d.mulpdu ? fmt::format(" (MULPDU {} from MSS {})", d.mulpdu, d.mss.value_or(0)) : std::string(),
             sizes.empty() ? " -" : sizes, opcodes.empty() ? " -" : opcodes,
             d.stack.empty() ? std::string() : fmt::format("; looks like {}", d.stack));
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
    for (const ConnectionReport& c : cap.connections) {
      for (const FpduRecord& r : c.fpdus) {
        lines.push_back({r.frame, lines.size(),
                         fmt::format("{}:{}: fpdu: connection {} {} seq {} ULPDU_Length {} CRC {} markers {}\n",
                                     cap.file, r.frame, c.summary.id, to_string(r.direction), r.seq.value(),
                                     r.ulpdu_length, to_string(r.crc), r.markers)});
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
      if (s.request_ns && s.reply_ns && s.reply_ns >= s.request_ns) {
        fmt::print(out, "    latency   Request->Reply {} us{}\n", (s.reply_ns - s.request_ns) / 1000,
                   s.first_fpdu_ns >= s.reply_ns && s.first_fpdu_ns
                       ? fmt::format(", Reply->first FPDU {} us", (s.first_fpdu_ns - s.reply_ns) / 1000)
                       : std::string());
      }
      write_direction(out, "initiator", s.direction(Direction::Initiator));
      write_direction(out, "responder", s.direction(Direction::Responder));
      fmt::print(out, "    findings  {} errors, {} warnings, {} notes{}\n", s.findings[Severity::Error],
                 s.findings[Severity::Warning], s.findings[Severity::Note],
                 c.findings_not_stored ? fmt::format(" ({} not listed)", c.findings_not_stored)
                                       : std::string());
    }
  }
  const Totals t = totals(captures);
  fmt::print(out, "mpa-check: {} capture(s), {} MPA connection(s): {} errors, {} warnings, {} notes\n",
             captures.size(), t.connections, t.by_severity[Severity::Error], t.by_severity[Severity::Warning], t.by_severity[Severity::Note]);
}

void write_catalogue(std::ostream& out, bool json) {
  if (json) {
    write_catalogue_json(out);
    return;
  }
  for (const DiagnosticInfo& d : catalogue()) {
    fmt::print(out, "{:<38} {:<8} {:<20} {}  {}\n", d.name, to_string(d.severity), d.rfc,
               d.error_code != MpaError::None ? fmt::format("code {}", number(d.error_code)) : std::string("-     "),
               d.summary);
  }
}

}  // namespace mpa::report
