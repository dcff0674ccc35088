// JUnit XML for CI dashboards: a test suite per capture, a test case per MPA connection,
// a failure per error finding.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report.h"

namespace mpa::report {
namespace {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control characters but tab, newline, carriage return.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') {
          out += '?';
        } else {
          out += ch;
        }
    }
  }
  return out;
}

}  // namespace

void write_junit(std::ostream& out, const std::vector<CaptureReport>& captures) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mpa-check\">\n";
  for (const CaptureReport& cap : captures) {
    std::uint64_t failures = 0;
    for (const ConnectionReport& c : cap.connections) failures += c.summary.findings[Severity::Error] ? 1 : 0;
    const bool read_error = !cap.result.ok;
    fmt::print(out, "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
               xml_escape(cap.file), cap.connections.size() + (read_error ? 1 : 0), failures,
               read_error ? 1 : 0);
    for (const ConnectionReport& c : cap.connections) {
      const ConnectionSummary& s = c.summary;
      fmt::print(out, "    <testcase classname=\"{}\" name=\"connection {} {}\">\n",
                 xml_escape(cap.file), s.id, xml_escape(describe_endpoints(s)));
      for (const Finding& f : c.findings) {
        const DiagnosticInfo& d = info(f.id);
        if (d.severity != Severity::Error) continue;
        fmt::print(out, "      <failure type=\"{}\" message=\"{}\">frame {}, {} data, seq {}: {} ({}{})</failure>\n",
                   d.name, xml_escape(d.summary), f.frame, to_string(f.direction),
                   f.tcp_seq.value(), xml_escape(f.message), d.rfc,
                   d.error_code != MpaError::None ? fmt::format(", error code {}", number(d.error_code)) : std::string());
      }
      out << "    </testcase>\n";
    }
    if (read_error) {
      fmt::print(out, "    <testcase classname=\"{}\" name=\"read capture\">\n      <error message=\"{}\"/>\n    </testcase>\n",
                 xml_escape(cap.file), xml_escape(cap.result.error));
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

}  // namespace mpa::report
