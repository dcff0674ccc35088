// The HTML report (--html FILE): one self-contained page per run. Inline CSS, inline SVG
// drawn here, one inline script that only sorts, filters and folds; no network. Its
// findings are the CaptureReport's, the same the JSON report lists; the trace
// (html_trace.h) adds the ladder, the charts and the octets behind the first findings.
// Everything taken from a capture passes html_escape.
#include "report_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <string_view>

#include "html_assets.h"
#include "html_escape.h"
#include "html_trace.h"
#include "mpa/ddp.h"
#include "mpa/fpdu_layout.h"
#include "report.h"

namespace mpa::report {
namespace {

// Page bounds (stated on the page).
constexpr std::size_t kFindingRowsPerConnection = 500;
constexpr std::size_t kManyConnections = 150;  // beyond: shorter ladders, fewer charts
constexpr std::size_t kLadderRowsWhenMany = 14;
constexpr std::size_t kChartedConnectionsWhenMany = 60;

std::string esc(std::string_view s) { return html_escape(s); }

std::string thousands(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string octets_text(std::uint64_t n) {
  if (n >= 1000000000) return fmt::format("{:.1f} GB", static_cast<double>(n) / 1e9);
  if (n >= 1000000) return fmt::format("{:.1f} MB", static_cast<double>(n) / 1e6);
  if (n >= 1000) return fmt::format("{:.1f} kB", static_cast<double>(n) / 1e3);
  return fmt::format("{} B", n);
}

std::string duration_text(std::uint64_t ns) {
  if (ns >= 1000000000ull) return fmt::format("{:.2f} s", static_cast<double>(ns) / 1e9);
  if (ns >= 1000000) return fmt::format("{:.1f} ms", static_cast<double>(ns) / 1e6);
  return fmt::format("{:.0f} µs", static_cast<double>(ns) / 1e3);
}

std::string_view severity_colour(Severity s) {
  switch (s) {
    case Severity::Error:
      return "#c62828";
    case Severity::Warning:
      return "#e08600";
    case Severity::Note:
      return "#1565c0";
  }
  return "#1565c0";
}

// Active (unsuppressed) findings of a connection by severity: its verdict.
struct Verdict {
  SeverityCounts active;
  int rank() const { return active[Severity::Error] ? 2 : active[Severity::Warning] ? 1 : 0; }
  std::string_view word() const {
    return rank() == 2 ? "errors" : rank() == 1 ? "warnings" : "clean";
  }
};

Verdict verdict_of(const ConnectionReport& c) {
  Verdict v;
  for (const ReportedFinding& f : c.findings) {
    if (!f.suppressed_by) ++v.active[info(f.finding.id).severity];
  }
  if (c.findings_not_stored) {  // not listed: counted as found (suppression unknown here)
    for (Severity s : {Severity::Note, Severity::Warning, Severity::Error}) {
      v.active[s] = std::max(v.active[s], c.summary.findings[s]);
    }
  }
  return v;
}

// Octets of private data shown as text in the negotiation table: as many as RFC 5044 7.1.1
// allows.
constexpr std::size_t kPrivateDataShown = kMaxPrivateData;

std::string private_text(const std::vector<std::uint8_t>& pd, std::size_t limit) {
  const std::size_t n = std::min(pd.size(), limit);
  std::string raw(reinterpret_cast<const char*>(pd.data()), n);
  std::string out = esc(raw);
  if (pd.size() > limit) out += "…";
  return out;
}

std::string startup_words(const StartupFrame& f) {
  std::string s = fmt::format("Rev {} M={} C={} R={} S={} PD_Length {}", f.revision, int(f.m()),
                              int(f.c()), int(f.r()), int(f.s()), f.pd_length);
  if (f.enhanced) {
    s += fmt::format(", IRD {} ORD {}", f.enhanced->ird, f.enhanced->ord);
    if (f.enhanced->peer_to_peer) s += ", P2P";
    if (f.enhanced->send_rtr) s += " send-RTR";
    if (f.enhanced->write_rtr) s += " write-RTR";
    if (f.enhanced->read_rtr) s += " read-RTR";
  }
  return s;
}

// "Rev 1, markers, CRC, IRD 16 / ORD 16, P2P" for what `sender` sends with.
std::string parameters(const ConnectionSummary& s, Direction d) {
  const DirectionSummary& ds = s.direction(d);
  std::string out = s.request ? fmt::format("Rev {}", s.request->revision) : std::string("Rev ?");
  out += ds.markers ? ", markers" : ", no markers";
  out += ds.crc ? ", CRC" : ", no CRC";
  const std::optional<StartupFrame>& own = d == Direction::Initiator ? s.request : s.reply;
  if (own && own->enhanced) {
    out += fmt::format(", IRD {} / ORD {}", own->enhanced->ird, own->enhanced->ord);
    if (own->enhanced->peer_to_peer) {
      out += ", P2P";
      if (own->enhanced->send_rtr) out += " send";
      if (own->enhanced->write_rtr) out += " write";
      if (own->enhanced->read_rtr) out += " read";
      out += "-RTR";
    }
  }
  if (ds.inferred) out += " (inferred)";
  if (!ds.full_operation) out += " (no full operation)";
  return out;
}

std::string stacks(const ConnectionSummary& s) {
  std::string a = s.direction(Direction::Initiator).stack,
              b = s.direction(Direction::Responder).stack;
  if (a.empty() && b.empty()) return "";
  if (a == b) return a;
  return fmt::format("{} / {}", a.empty() ? "?" : a, b.empty() ? "?" : b);
}

class Page {
 public:
  Page(std::ostream& out, const std::vector<CaptureReport>& captures,
       const std::vector<CaptureTrace>& traces, const HtmlOptions& options)
      : out_(out), captures_(captures), traces_(traces), options_(options) {
    for (const CaptureReport& c : captures_) connections_ += c.connections.size();
    many_ = connections_ > kManyConnections;
  }
  void write();

 private:
  struct Row {
    std::size_t capture;
    const ConnectionReport* connection;
    Verdict verdict;
  };
  void flush() {
    out_ << buf_;
    buf_.clear();
  }
  void header();
  void overview(std::vector<Row>& rows);
  void connection(const Row& row, std::size_t ordinal);
  void ladder(const Row& row, const ConnectionTrace* trace);
  void charts(const Row& row, const ConnectionTrace& trace);
  void histogram(const DirectionSummary& d, std::string_view title);
  void alignment(const DirectionSummary& d, std::string_view title);
  void bins_chart(const std::array<std::uint64_t, kTimeBins>* values, std::size_t series,
                  std::uint64_t width_ns, std::string_view title, std::string_view unit, bool rate);
  void marker_strip(const std::vector<StripFpdu>& strip, std::string_view title);
  void findings(const Row& row, const ConnectionTrace* trace);
  void detail(const Row& row, std::size_t index, const ReportedFinding& f, const Place* place,
              const CaptureTrace& trace);
  void dump(const Place& place, const ConnectionSummary& s, const CaptureTrace& trace);
  void gap_strip(const GapView& gap, std::string_view id);
  std::string anchor(const Row& row) const {
    return fmt::format("c{}-{}", row.capture, row.connection->summary.id);
  }

  std::ostream& out_;
  const std::vector<CaptureReport>& captures_;
  const std::vector<CaptureTrace>& traces_;
  const HtmlOptions& options_;
  std::string buf_;
  std::size_t connections_ = 0;
  bool many_ = false;
  std::size_t charted_ = 0;
};

void Page::header() {
  const Totals t = totals(captures_, options_.policy);
  buf_ += R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>mpa-check report</title><style>)";
  buf_ += html_asset::kReportCss;
  buf_ += "</style></head><body>\n";
  // Arrow heads shared by every ladder.
  buf_ += html_asset::kDefsSvg;

  buf_ += fmt::format(
      "<header><h1>mpa-check report</h1><p id=\"totals\">{} capture{}, {} MPA connection{}: "
      "<span class=\"sev sev-error\">{}</span>, <span class=\"sev sev-warning\">{}</span>, "
      "<span class=\"sev sev-note\">{}</span>; {} failed (fail on {}). mpa-check {}.</p>\n",
      captures_.size(), captures_.size() == 1 ? "" : "s", t.connections,
      t.connections == 1 ? "" : "s", esc(count_of(t.active[Severity::Error], "error")),
      esc(count_of(t.active[Severity::Warning], "warning")),
      esc(count_of(t.active[Severity::Note], "note")), count_of(t.failed_captures, "capture"),
      options_.policy.fail_on == Severity::Warning ? "warning" : "error", esc(options_.version));
  buf_ += fmt::format(
      "<p class=\"bounds\" id=\"bounds\">What this page shows and leaves out: findings as the JSON "
      "report lists "
      "them (at most {} per connection; beyond that they are counted). Ladders draw the startup "
      "frames, the first "
      "{} FPDUs per direction, every FPDU a finding concerns and the findings in order, at most {} "
      "rows{}; "
      "the FPDUs between them are collapsed into bands with their count, octets and duration. Hex "
      "dumps for "
      "the first {} findings of each connection (at most {} in a capture): an FPDU's octets read "
      "back from "
      "the capture file after the run, a startup frame's as the parser received them; the first {} "
      "and last {} octets and the highlighted fields with "
      "their surroundings. Throughput and findings over time in {} bins whose width doubles as a "
      "connection "
      "goes on. Findings listed per connection on this page: at most {}.{}</p>\n",
      kMaxStoredFindings, kLadderFpdusPerDirection, kLadderMaxItems,
      many_ ? fmt::format(" ({} in this run of more than {} connections)", kLadderRowsWhenMany,
                          kManyConnections)
            : std::string(),
      kPlacedFindings, kPlacedFindingsPerCapture, 128, 64, kTimeBins, kFindingRowsPerConnection,
      many_ ? fmt::format(" Charts for the {} connections with the worst verdicts only (of {}).",
                          kChartedConnectionsWhenMany, connections_)
            : std::string());
  buf_ += "</header>\n";
}

void Page::overview(std::vector<Row>& rows) {
  buf_ +=
      "<section id=\"overview\"><h2>Captures</h2>\n<table id=\"captures\" "
      "class=\"sortable\"><thead><tr>"
      "<th>Verdict</th><th>Capture</th><th>Frames</th><th>MPA "
      "connections</th><th>Errors</th><th>Warnings</th>"
      "<th>Notes</th><th>Suppressed</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < captures_.size(); ++i) {
    const CaptureReport& c = captures_[i];
    const std::string_view v = !c.result.ok                ? "unreadable"
                               : fails(c, options_.policy) ? "fail"
                                                           : "pass";
    const std::uint64_t suppressed = c.suppressed[Severity::Error] +
                                     c.suppressed[Severity::Warning] + c.suppressed[Severity::Note];
    buf_ += fmt::format(
        "<tr class=\"capture-row\" data-capture-index=\"{}\" data-file=\"{}\" data-verdict=\"{}\">"
        "<td data-v=\"{}\"><span class=\"v v-{}\">{}</span></td><td>{}{}</td><td "
        "class=\"n\">{}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td "
        "class=\"n\">{}</td>"
        "<td class=\"n\">{}</td></tr>\n",
        i, esc(c.file), v, v == "pass" ? 0 : 1, v, v, esc(c.file),
        c.result.ok ? std::string() : " <em>(" + esc(c.result.error) + ")</em>",
        c.result.stats.frames, c.mpa_connections, c.active[Severity::Error],
        c.active[Severity::Warning], c.active[Severity::Note], suppressed);
    if (!c.capture_findings.empty()) {
      buf_ += fmt::format("<tr class=\"capture-findings\"><td></td><td colspan=\"7\">");
      for (const ReportedFinding& f : c.capture_findings) {
        const DiagnosticInfo& d = info(f.finding.id);
        buf_ += fmt::format(
            "<div class=\"finding capture-finding\" data-capture-index=\"{}\" data-id=\"{}\" "
            "data-frame=\"{}\">"
            "<span class=\"sev sev-{}\">{}</span> frame {}: {} <code>[{}]</code> ({})</div>",
            i, d.name, f.finding.frame, to_string(d.severity), to_string(d.severity),
            f.finding.frame, esc(f.finding.message), d.name, esc(d.rfc));
      }
      buf_ += "</td></tr>\n";
    }
  }
  buf_ += "</tbody></table>\n";
  flush();

  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.verdict.rank() != b.verdict.rank()) return a.verdict.rank() > b.verdict.rank();
    if (a.verdict.active[Severity::Error] != b.verdict.active[Severity::Error]) {
      return a.verdict.active[Severity::Error] > b.verdict.active[Severity::Error];
    }
    return a.verdict.active[Severity::Warning] > b.verdict.active[Severity::Warning];
  });
  buf_ +=
      "<h2>MPA connections, worst first</h2>\n<p class=\"tools\"><input id=\"filter\" "
      "type=\"search\" "
      "placeholder=\"filter: capture, address, stack, verdict…\" aria-label=\"filter\">"
      "<button id=\"fold\" type=\"button\">fold all</button><button id=\"unfold\" "
      "type=\"button\">unfold all"
      "</button><button id=\"fold-clean\" type=\"button\">fold clean</button></p>\n"
      "<table id=\"verdicts\" "
      "class=\"sortable\"><thead><tr><th>Verdict</th><th>Capture</th><th>Conn</th>"
      "<th>Initiator → Responder</th><th>Stacks</th><th>Initiator sends with</th><th>Responder "
      "sends with</th>"
      "<th>FPDUs</th><th>ULPDU "
      "octets</th><th>Errors</th><th>Warnings</th><th>Notes</th></tr></thead><tbody>\n";
  for (const Row& r : rows) {
    const ConnectionSummary& s = r.connection->summary;
    const DirectionSummary& a = s.direction(Direction::Initiator);
    const DirectionSummary& b = s.direction(Direction::Responder);
    buf_ += fmt::format(
        "<tr class=\"verdict-row\" data-capture-index=\"{}\" data-connection=\"{}\" "
        "data-verdict=\"{}\" "
        "data-section=\"{}\"><td data-v=\"{}\"><a href=\"#{}\"><span class=\"v "
        "v-{}\">{}</span></a></td>"
        "<td>{}</td><td class=\"n\">{}</td><td>{} → {}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td class=\"n\" data-v=\"{}\">{} / {}</td><td class=\"n\" data-v=\"{}\">{} / {}</td>"
        "<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
        r.capture, s.id, r.verdict.word(), anchor(r), 2 - r.verdict.rank(), anchor(r),
        r.verdict.word(), r.verdict.word(), esc(captures_[r.capture].file), s.id,
        esc(to_string(s.initiator)), esc(to_string(s.responder)), esc(stacks(s)),
        esc(parameters(s, Direction::Initiator)), esc(parameters(s, Direction::Responder)),
        a.fpdus + b.fpdus, thousands(a.fpdus), thousands(b.fpdus), a.ulpdu_bytes + b.ulpdu_bytes,
        octets_text(a.ulpdu_bytes), octets_text(b.ulpdu_bytes), r.verdict.active[Severity::Error],
        r.verdict.active[Severity::Warning], r.verdict.active[Severity::Note]);
    if (buf_.size() > (1u << 16)) flush();
  }
  buf_ += "</tbody></table></section>\n";
  flush();
}

// ---- the ladder

constexpr int kLadderWidth = 960;
constexpr int kLaneI = 290, kLaneR = 740;
constexpr int kRow = 24;

void Page::ladder(const Row& row, const ConnectionTrace* trace) {
  const ConnectionSummary& s = row.connection->summary;
  std::vector<const LadderItem*> items;
  if (trace) {
    for (const LadderItem& i : trace->ladder) items.push_back(&i);
  }
  const std::size_t limit = many_ ? kLadderRowsWhenMany : kLadderMaxItems + 8;
  std::size_t cut = 0;
  if (items.size() > limit) {
    cut = items.size() - limit;
    items.resize(limit);
  }
  int rows = 0;
  for (const LadderItem* i : items) rows += i->kind == LadderItem::Kind::Startup ? 2 : 1;
  const int height = 56 + (rows + (cut ? 1 : 0)) * kRow + 16;
  std::string& b = buf_;
  b += fmt::format(
      "<svg class=\"ladder\" data-capture-index=\"{}\" data-connection=\"{}\" width=\"{}\" "
      "height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"ladder diagram of connection {}\">\n",
      row.capture, s.id, kLadderWidth, height, kLadderWidth, height, s.id);
  b += fmt::format(
      "<text x=\"{}\" y=\"18\" text-anchor=\"middle\" font-weight=\"600\">Initiator</text>"
      "<text x=\"{}\" y=\"34\" text-anchor=\"middle\" font-size=\"12\">{}</text>"
      "<text x=\"{}\" y=\"18\" text-anchor=\"middle\" font-weight=\"600\">Responder</text>"
      "<text x=\"{}\" y=\"34\" text-anchor=\"middle\" font-size=\"12\">{}</text>"
      "<text x=\"4\" y=\"34\" font-size=\"11\" fill=\"#666\">frame · time</text>"
      "<line x1=\"{}\" y1=\"42\" x2=\"{}\" y2=\"{}\" stroke=\"#999\" stroke-width=\"2\"/>"
      "<line x1=\"{}\" y1=\"42\" x2=\"{}\" y2=\"{}\" stroke=\"#999\" stroke-width=\"2\"/>\n",
      kLaneI, kLaneI, esc(to_string(s.initiator)), kLaneR, kLaneR, esc(to_string(s.responder)),
      kLaneI, kLaneI, height - 8, kLaneR, kLaneR, height - 8);
  int y = 56;
  const auto when = [&s](std::uint64_t ns) {
    return ns && s.first_ns && ns >= s.first_ns ? fmt::format("+{}", duration_text(ns - s.first_ns))
                                                : std::string();
  };
  const auto left_label = [&](std::uint64_t frame, std::uint64_t ns, int at) {
    b += fmt::format("<text x=\"4\" y=\"{}\" font-size=\"11\" fill=\"#666\">{} {}</text>", at + 4,
                     frame, when(ns));
  };
  const auto arrow = [&](Direction d, int at, std::string_view colour, std::string_view marker,
                         double width, const std::string& label, std::string_view cls) {
    const int x1 = d == Direction::Initiator ? kLaneI : kLaneR;
    const int x2 = d == Direction::Initiator ? kLaneR : kLaneI;
    b += fmt::format(
        "<g class=\"{}\"><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
        "stroke-width=\"{}\" "
        "marker-end=\"url(#{})\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\" "
        "font-size=\"12\">{}</text></g>\n",
        cls, x1, at, x2, at + 8, colour, width, marker, (kLaneI + kLaneR) / 2, at - 3, label);
  };
  for (const LadderItem* i : items) {
    switch (i->kind) {
      case LadderItem::Kind::Tcp: {
        left_label(i->frame, i->ns, y);
        std::string label = i->tcp_flag;
        const auto& mss = s.direction(i->direction).mss;
        const TcpFlagSeen& peer_syn = s.direction(other(i->direction)).tcp.syn;
        if (i->tcp_flag == "SYN" && peer_syn.frame && peer_syn.frame < i->frame) label = "SYN-ACK";
        if (i->tcp_flag == "SYN" && mss) label += fmt::format(" (MSS {})", *mss);
        arrow(i->direction, y, "#888", "ahg", 1.2, esc(label), "tcp");
        y += kRow;
        break;
      }
      case LadderItem::Kind::Startup: {
        left_label(i->frame, i->ns, y + 8);
        const StartupFrame& f = *i->startup;
        std::string label = fmt::format("MPA {} · {}", to_string(f.kind), startup_words(f));
        arrow(i->direction, y + 8, "#1a5fb4", "ahb", 2.5, esc(label), "startup");
        std::string pd = f.private_data.empty()
                             ? "no private data"
                             : "private data “" + private_text(f.private_data, 40) + "”";
        b += fmt::format(
            "<text class=\"pd\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" "
            "fill=\"#444\">{}</text>\n",
            (kLaneI + kLaneR) / 2, y + 30, pd);
        y += 2 * kRow;
        break;
      }
      case LadderItem::Kind::Fpdu: {
        left_label(i->frame, i->ns, y);
        std::string label =
            i->rdmap_opcode >= 0
                ? std::string(rdmap_opcode_name(static_cast<std::size_t>(i->rdmap_opcode)))
                : std::string("FPDU");
        label += fmt::format(", ULPDU {}", i->ulpdu_length);
        if (i->crc == CrcStatus::Bad) label += ", CRC bad";
        arrow(i->direction, y, i->crc == CrcStatus::Bad ? "#c62828" : "#333", "ahk", 1.2,
              esc(label), "fpdu");
        y += kRow;
        break;
      }
      case LadderItem::Kind::Band: {
        left_label(i->frame, i->ns, y);
        const std::uint64_t n = i->band_fpdus[0] + i->band_fpdus[1];
        std::string label = fmt::format("{} FPDU{}, {}, {}", thousands(n), n == 1 ? "" : "s",
                                        octets_text(i->band_octets),
                                        duration_text(i->last_ns > i->ns ? i->last_ns - i->ns : 0));
        if (i->band_fpdus[0] && i->band_fpdus[1]) {
          label += fmt::format(" (→ {}, ← {})", thousands(i->band_fpdus[0]),
                               thousands(i->band_fpdus[1]));
        }
        if (i->band_findings)
          label += fmt::format("; {} more finding{} (see the table)", i->band_findings,
                               i->band_findings == 1 ? "" : "s");
        b += fmt::format(
            "<g class=\"band\" data-fpdus=\"{}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" "
            "height=\"{}\" rx=\"3\" "
            "fill=\"#eceff1\" stroke=\"#b0bec5\" stroke-dasharray=\"4 3\"/><text x=\"{}\" y=\"{}\" "
            "text-anchor=\"middle\" font-size=\"12\" fill=\"#37474f\">{}</text></g>\n",
            n, kLaneI - 6, y - 10, kLaneR - kLaneI + 12, kRow - 4, (kLaneI + kLaneR) / 2, y + 6,
            esc(label));
        y += kRow;
        break;
      }
      case LadderItem::Kind::Finding: {
        if (i->finding >= row.connection->findings.size()) break;
        const ReportedFinding& rf = row.connection->findings[i->finding];
        const DiagnosticInfo& d = info(rf.finding.id);
        left_label(i->frame, i->ns, y);
        const int x = i->direction == Direction::Initiator ? kLaneI : kLaneR;
        const bool has_detail = i->finding < kPlacedFindings;
        const std::string target =
            fmt::format("{}{}-{}", has_detail ? "d-" : "f-", anchor(row), i->finding);
        const int tx = i->direction == Direction::Initiator ? x - 12 : x + 12;
        b += fmt::format(
            "<a class=\"pin\" href=\"#{}\" data-id=\"{}\" data-frame=\"{}\"><circle cx=\"{}\" "
            "cy=\"{}\" r=\"7\" "
            "fill=\"{}\" stroke=\"#fff\" stroke-width=\"1.5\"/><text x=\"{}\" y=\"{}\" "
            "text-anchor=\"{}\" "
            "font-size=\"12\" fill=\"{}\" font-weight=\"600\">{}{}</text><title>{}</title></a>\n",
            target, d.name, rf.finding.frame, x, y, severity_colour(d.severity), tx, y + 4,
            i->direction == Direction::Initiator ? "end" : "start", severity_colour(d.severity),
            d.name, rf.suppressed_by ? " (suppressed)" : "", esc(rf.finding.message));
        y += kRow;
        break;
      }
    }
  }
  if (cut) {
    b += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\" fill=\"#666\">… {} more "
        "ladder rows not drawn (page bound); the findings table lists every finding</text>\n",
        (kLaneI + kLaneR) / 2, y, cut);
  }
  b += "</svg>\n";
}

// ---- charts

void Page::histogram(const DirectionSummary& d, std::string_view title) {
  const int w = 380, h = 140, left = 8, bottom = 28;
  std::uint64_t max = 1;
  for (std::uint64_t v : d.ulpdu_sizes) max = std::max(max, v);
  buf_ += fmt::format(
      "<div class=\"chart\"><div class=\"t\">{}</div><svg class=\"hist\" width=\"{}\" "
      "height=\"{}\">",
      title, w, h);
  const int bw = (w - left - 4) / static_cast<int>(kUlpduSizeBuckets);
  for (std::size_t i = 0; i < kUlpduSizeBuckets; ++i) {
    const double frac = static_cast<double>(d.ulpdu_sizes[i]) / static_cast<double>(max);
    const int bh = static_cast<int>(std::lround(frac * (h - bottom - 14)));
    const int x = left + static_cast<int>(i) * bw;
    buf_ += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#5c6bc0\"><title>{}: "
        "{}</title></rect>"
        "<text x=\"{}\" y=\"{}\" font-size=\"8\" text-anchor=\"middle\">{}</text>",
        x + 2, h - bottom - bh, bw - 4, bh, ulpdu_bucket_label(i), d.ulpdu_sizes[i], x + bw / 2,
        h - bottom + 11, ulpdu_bucket_label(i));
    if (d.ulpdu_sizes[i]) {
      buf_ +=
          fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\">{}</text>",
                      x + bw / 2, h - bottom - bh - 2, d.ulpdu_sizes[i]);
    }
  }
  buf_ += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#666\">ULPDU octets</text></svg></div>\n",
      left, h - 4);
}

void Page::alignment(const DirectionSummary& d, std::string_view title) {
  const int w = 300, h = 80;
  const double a = percent(d.segments_starting_fpdu, d.segments),
               b = percent(d.fpdus_in_one_segment, d.fpdus);
  buf_ += fmt::format(
      "<div class=\"chart\"><div class=\"t\">{}</div><svg class=\"align\" width=\"{}\" "
      "height=\"{}\">",
      title, w, h);
  const std::pair<double, std::string> bars[] = {
      {a, fmt::format("segments starting an FPDU: {:.1f}% ({} of {})", a, d.segments_starting_fpdu,
                      d.segments)},
      {b, fmt::format("FPDUs in one segment: {:.1f}% ({} of {})", b, d.fpdus_in_one_segment,
                      d.fpdus)}};
  int y = 6;
  for (const auto& [value, label] : bars) {
    buf_ += fmt::format(
        "<rect x=\"4\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"#eee\"/><rect x=\"4\" y=\"{}\" "
        "width=\"{}\" "
        "height=\"14\" fill=\"#26a69a\"/><text x=\"6\" y=\"{}\" font-size=\"11\">{}</text>",
        y + 14, w - 8, y + 14, static_cast<int>(std::lround(value / 100.0 * (w - 8))), y + 10,
        esc(label));
    y += 34;
  }
  buf_ += "</svg></div>\n";
}

// Bars over time; `series` stacked value arrays (coloured by severity when 3).
void Page::bins_chart(const std::array<std::uint64_t, kTimeBins>* values, std::size_t series,
                      std::uint64_t width_ns, std::string_view title, std::string_view unit,
                      bool rate) {
  const int w = 300, h = 140, left = 40, bottom = 24;
  std::size_t used = 0;
  std::uint64_t max = 0;
  for (std::size_t i = 0; i < kTimeBins; ++i) {
    std::uint64_t sum = 0;
    for (std::size_t k = 0; k < series; ++k) sum += values[k][i];
    if (sum) used = i + 1;
    max = std::max(max, sum);
  }
  buf_ += fmt::format(
      "<div class=\"chart\"><div class=\"t\">{}</div><svg class=\"time\" width=\"{}\" "
      "height=\"{}\">",
      title, w, h);
  if (max == 0) {
    buf_ += "<text x=\"10\" y=\"60\" font-size=\"12\" fill=\"#777\">none</text></svg></div>\n";
    return;
  }
  used = std::max<std::size_t>(used, 8);
  const double bw = static_cast<double>(w - left - 4) / static_cast<double>(used);
  const double plot = h - bottom - 10;
  for (std::size_t i = 0; i < used; ++i) {
    double base = 0;
    for (std::size_t k = 0; k < series; ++k) {
      if (!values[k][i]) continue;
      const double bh = static_cast<double>(values[k][i]) / static_cast<double>(max) * plot;
      const std::string_view colour =
          series == 3 ? severity_colour(static_cast<Severity>(k)) : "#ef6c00";
      buf_ += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>",
          left + static_cast<double>(i) * bw, h - bottom - base - bh, std::max(bw - 1, 0.5), bh,
          colour);
      base += bh;
    }
  }
  const double top = rate ? static_cast<double>(max) / (static_cast<double>(width_ns) / 1e9)
                          : static_cast<double>(max);
  const std::string top_label =
      rate ? fmt::format("{}/s", octets_text(static_cast<std::uint64_t>(top)))
           : fmt::format("{}", max);
  buf_ += fmt::format(
      "<text x=\"2\" y=\"{}\" font-size=\"10\">{}</text><text x=\"{}\" y=\"{}\" font-size=\"10\" "
      "fill=\"#666\">0"
      "</text><text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">{} ({} a "
      "bar; {})</text>"
      "</svg></div>\n",
      h - bottom - plot + 8, top_label, left, h - bottom + 12, w - 4, h - bottom + 12,
      duration_text(width_ns * used), duration_text(width_ns), unit);
}

void Page::marker_strip(const std::vector<StripFpdu>& strip, std::string_view title) {
  if (strip.empty()) return;
  const int w = 900, h = 96, left = 10;
  const TcpSeq origin(strip.front().start);
  const double scale = static_cast<double>(w - 2 * left) / kStripOctets;
  const auto x_of = [&](TcpSeq seq) {
    return left + static_cast<double>(seq.distance_from(origin)) * scale;
  };
  buf_ += fmt::format(
      "<div class=\"chart\"><div class=\"t\">{}</div><svg class=\"strip\" width=\"{}\" "
      "height=\"{}\">",
      title, w, h);
  int k = 0;
  for (const StripFpdu& f : strip) {
    const TcpSeq start(f.start);
    if (start.distance_from(origin) >= kStripOctets) break;
    const double x = x_of(start);
    const double width = std::min(static_cast<double>(f.wire_length) * scale, w - left - x);
    buf_ += fmt::format(
        "<rect x=\"{:.1f}\" y=\"40\" width=\"{:.1f}\" height=\"22\" fill=\"{}\" stroke=\"#fff\">"
        "<title>FPDU at seq {} ({} octets on the wire)</title></rect>",
        x, width, k++ % 2 ? "#90caf9" : "#64b5f6", f.header, f.wire_length);
    for (const MarkerFact& m : f.markers) {
      if (m.seq.distance_from(origin) >= kStripOctets) continue;
      const double mx = x_of(m.seq);
      const Marker marker{m.reserved, m.fpdu_ptr};
      const bool ok = marker_fits(marker, m.expected_fpdu_ptr);
      const TcpSeq target = marker_target(m.seq, marker);
      const double tx = target.distance_from(origin) < kStripOctets ? x_of(target) : left;
      buf_ += fmt::format(
          "<rect x=\"{:.1f}\" y=\"34\" width=\"3\" height=\"34\" fill=\"{}\"><title>marker at seq "
          "{}: FPDUPTR {} "
          "(expected {})</title></rect><path d=\"M{:.1f},34 C{:.1f},8 {:.1f},8 {:.1f},38\" "
          "fill=\"none\" "
          "stroke=\"{}\" stroke-width=\"1.2\" marker-end=\"url(#ahk)\"/>",
          mx, ok ? "#2e7d32" : "#c62828", m.seq.value(), m.fpdu_ptr, m.expected_fpdu_ptr, mx + 1.5,
          mx, tx + 4, tx, ok ? "#2e7d32" : "#c62828");
    }
  }
  buf_ += fmt::format(
      "<text x=\"{}\" y=\"84\" font-size=\"10\" fill=\"#666\">seq {}</text><text x=\"{}\" y=\"84\" "
      "font-size=\"10\" text-anchor=\"end\" fill=\"#666\">+{} octets · markers (bars) and where "
      "their "
      "FPDUPTR points (curves)</text></svg></div>\n",
      left, origin.value(), w - left, kStripOctets);
}

void Page::charts(const Row& row, const ConnectionTrace& t) {
  const ConnectionSummary& s = row.connection->summary;
  buf_ += "<div class=\"charts\">\n";
  for (Direction d : {Direction::Initiator, Direction::Responder}) {
    const std::string who =
        d == Direction::Initiator ? "Initiator → Responder" : "Responder → Initiator";
    const DirectionSummary& ds = s.direction(d);
    histogram(ds, who + ": ULPDU sizes");
    alignment(ds, who + ": FPDU alignment");
    const auto& bins = t.throughput[static_cast<std::size_t>(d)];
    bins_chart(&bins.values, 1, bins.width_ns, who + ": throughput", "ULPDU octets", true);
  }
  std::array<std::uint64_t, kTimeBins> by_severity[3];
  for (std::size_t k = 0; k < 3; ++k) by_severity[k] = t.findings_over_time[k].values;
  bins_chart(by_severity, 3, t.findings_over_time[0].width_ns,
             "Findings over time (notes, warnings, errors)", "findings", false);
  buf_ += "</div>\n";
  for (Direction d : {Direction::Initiator, Direction::Responder}) {
    marker_strip(t.strip[static_cast<std::size_t>(d)], d == Direction::Initiator
                                                           ? "Markers, Initiator → Responder"
                                                           : "Markers, Responder → Initiator");
  }
}

// ---- findings and their details

void Page::dump(const Place& p, const ConnectionSummary& s, const CaptureTrace& trace) {
  const bool from_i = p.direction == Direction::Initiator;
  buf_ += fmt::format(
      "<figure class=\"dump\" data-src=\"{}\" data-dst=\"{}\" data-whole-seq=\"{}\" "
      "data-whole-length=\"{}\">"
      "<figcaption>{}; {} → {}</figcaption>",
      esc(to_string(from_i ? s.initiator : s.responder)),
      esc(to_string(from_i ? s.responder : s.initiator)), p.whole.seq.value(), p.whole.length,
      esc(p.caption), esc(to_string(from_i ? s.initiator : s.responder)),
      esc(to_string(from_i ? s.responder : s.initiator)));
  if (p.octets.empty()) {
    buf_ += fmt::format("<p class=\"nodump\">No octets: {}</p></figure>\n",
                        esc(trace.bytes_note.empty() ? "not read" : trace.bytes_note));
    return;
  }
  buf_ += "<div class=\"hex\">";
  // Which highlight holds seq (fields before targets), or -1.
  const auto field_at = [&p](TcpSeq seq) {
    int best = -1;
    for (std::size_t i = 0; i < p.highlights.size(); ++i) {
      const Highlight& h = p.highlights[i];
      if (seq.distance_from(h.range.seq) < h.range.length) {
        if (best < 0 || (p.highlights[static_cast<std::size_t>(best)].target && !h.target))
          best = static_cast<int>(i);
      }
    }
    return best;
  };
  std::size_t base = 0;
  std::uint32_t last_end = 0;
  for (const SeqRange& part : p.shown) {
    const std::uint32_t part_at = part.seq.distance_from(p.whole.seq);
    if (part_at > last_end)
      buf_ +=
          fmt::format("<span class=\"skip\">… {} octets not shown …</span>\n", part_at - last_end);
    for (std::uint32_t row = 0; row < part.length; row += 16) {
      const std::uint32_t n = std::min<std::uint32_t>(16, part.length - row);
      buf_ += fmt::format("<span class=\"off\">{:5} {:10}</span>  ", part_at + row,
                          part.at(row).value());
      std::string ascii;
      int open = -1;  // the highlight whose <mark> is open
      for (std::uint32_t k = 0; k < n; ++k) {
        const TcpSeq seq = part.at(row + k);
        const int field = field_at(seq);
        if (field != open && open >= 0) buf_ += "</mark>";
        if (k) buf_ += k == 8 ? "  " : " ";
        if (field != open && field >= 0) {
          const Highlight& h = p.highlights[static_cast<std::size_t>(field)];
          buf_ += fmt::format("<mark class=\"hl{}\" data-seq=\"{}\" title=\"{}\">",
                              h.target ? " target" : "", seq.value(), esc(h.label));
        }
        open = field;
        const std::size_t index = base + row + k;
        if (p.present[index]) {
          buf_ += fmt::format("{:02x}", p.octets[index]);
          const char c = static_cast<char>(p.octets[index]);
          ascii += (c >= 0x20 && c < 0x7F) ? esc(std::string_view(&c, 1)) : std::string(".");
        } else {
          buf_ += "<span class=\"miss\">··</span>";
          ascii += ' ';
        }
      }
      if (n < 16) buf_ += std::string((16 - n) * 3 + (n <= 8 ? 1 : 0), ' ');
      if (open >= 0) buf_ += "</mark>";
      buf_ += fmt::format("  <span class=\"asc\">{}</span>\n", ascii);
    }
    base += part.length;
    last_end = part_at + part.length;
  }
  if (last_end < p.whole.length) {
    buf_ += fmt::format("<span class=\"skip\">… {} octets not shown …</span>\n",
                        p.whole.length - last_end);
  }
  buf_ += "</div><ul class=\"legend\">";
  for (const Highlight& h : p.highlights) {
    const bool inside = h.range.seq.distance_from(p.whole.seq) < p.whole.length;
    buf_ += fmt::format("<li><mark class=\"{}\">seq {}–{}</mark> {}{}</li>",
                        h.target ? "target" : "", h.range.seq.value(), (h.range.end() - 1).value(),
                        esc(h.label), inside ? "" : " (outside this FPDU)");
  }
  buf_ += "</ul></figure>\n";
}

// The stream around missing octets: the FPDU framed before, the missing stretch, the FPDU
// framed after (if any), to scale.
void Page::gap_strip(const GapView& g, std::string_view id) {
  const int w = 760, h = 92, left = 20;
  const std::uint64_t from =
      g.before ? g.before->offset : (g.at.offset > 256 ? g.at.offset - 256 : 0);
  const std::uint64_t to = g.after ? g.after->offset + g.after->length : g.at.offset + 256;
  const double scale = static_cast<double>(w - 2 * left) /
                       static_cast<double>(std::max<std::uint64_t>(to - from, 1));
  const auto x_of = [&](std::uint64_t offset) {
    return left + static_cast<double>(offset - from) * scale;
  };
  buf_ += fmt::format("<svg class=\"gap\" data-id=\"{}\" width=\"{}\" height=\"{}\">", id, w, h);
  const auto box = [&](const StreamSpan& span, std::string_view what, int label_y, bool right) {
    const double x = x_of(span.offset);
    const double bw = std::max(static_cast<double>(span.length) * scale, 2.0);
    buf_ += fmt::format(
        "<rect x=\"{:.1f}\" y=\"30\" width=\"{:.1f}\" height=\"22\" fill=\"#64b5f6\" "
        "stroke=\"#fff\"/>"
        "<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"{}\">{} FPDU, seq {} ({} "
        "octets)</text>",
        x, bw, right ? x + bw : x, label_y, right ? "end" : "start", what, span.seq, span.length);
  };
  if (g.before) box(*g.before, "last", 24, false);
  const double gx = x_of(g.at.offset);
  const double gend = g.after ? x_of(g.after->offset) : w - left;
  buf_ += fmt::format(
      "<rect class=\"missing\" x=\"{:.1f}\" y=\"30\" width=\"{:.1f}\" height=\"22\" "
      "fill=\"url(#hatch)\" "
      "stroke=\"#c62828\"/><text x=\"{:.1f}\" y=\"68\" font-size=\"11\" fill=\"#c62828\">missing "
      "from seq {} (stream offset {}){}</text>",
      gx, std::max(gend - gx, 2.0), gx, g.at.seq, g.at.offset,
      g.after ? fmt::format("; framing again at seq {}", g.after->seq)
              : std::string("; nothing framed after it"));
  if (g.after) box(*g.after, "next", 12, true);
  buf_ += fmt::format(
      "<text x=\"{}\" y=\"86\" font-size=\"10\" fill=\"#666\">the stream of this direction, to "
      "scale ({} octets across)</text></svg>\n",
      left, to - from);
}

void Page::detail(const Row& row, std::size_t index, const ReportedFinding& rf, const Place* place,
                  const CaptureTrace& trace) {
  const Finding& f = rf.finding;
  const DiagnosticInfo& d = info(f.id);
  buf_ += fmt::format(
      "<section class=\"detail sev-{}\" id=\"d-{}-{}\" data-id=\"{}\" data-frame=\"{}\"><h4><span "
      "class=\"sev "
      "sev-{}\">{}</span> <code>{}</code> at frame {} <a class=\"focus\" "
      "href=\"#focus=d-{}-{}\">open alone</a></h4><dl "
      "class=\"cat\"><dt>catalogue</dt><dd><code>{}</code>: "
      "{}</dd><dt>severity</dt><dd>{}</dd><dt>RFC</dt><dd>{}</dd><dt>error "
      "code</dt><dd>{}</dd><dt>message</dt>"
      "<dd>{}</dd><dt>frame</dt><dd>{}</dd><dt>sequence</dt><dd>{} (stream offset {}), {} "
      "data</dd>{}</dl>\n",
      to_string(d.severity), anchor(row), index, d.name, f.frame, to_string(d.severity),
      to_string(d.severity), d.name, f.frame, anchor(row), index, d.name, esc(d.summary),
      to_string(d.severity), esc(d.rfc),
      d.error_code != MpaError::None
          ? fmt::format("{} ({})", number(d.error_code), esc(describe(d.error_code)))
          : std::string("none"),
      esc(f.message), f.frame, f.tcp_seq.value(), f.stream_offset, to_string(f.direction),
      rf.suppressed_by
          ? fmt::format("<dt>suppressed</dt><dd>{}:{}: {}</dd>", esc(rf.suppressed_by->file),
                        rf.suppressed_by->line, esc(rf.suppressed_by->reason))
          : std::string());
  const ConnectionTrace* ctrace = nullptr;
  if (auto it = trace.connections.find(row.connection->summary.id); it != trace.connections.end())
    ctrace = &it->second;
  const GapView* gap = nullptr;
  if (ctrace) {
    if (auto it = ctrace->gaps.find(index); it != ctrace->gaps.end()) gap = &it->second;
  }
  if (gap) {
    gap_strip(*gap, d.name);
  } else if (place) {
    dump(*place, row.connection->summary, trace);
  } else {
    buf_ +=
        "<p class=\"nodump\">Not about the octets of one FPDU or startup frame (no dump).</p>\n";
  }
  buf_ += "</section>\n";
}

void Page::findings(const Row& row, const ConnectionTrace* trace) {
  const ConnectionReport& c = *row.connection;
  if (c.findings.empty()) {
    buf_ += "<p>No findings.</p>\n";
    return;
  }
  buf_ += fmt::format(
      "<h3>Findings ({}{})</h3>\n<table class=\"findings sortable\"><thead><tr><th>Severity</th>"
      "<th>Id</th><th>Frame</th><th>Data of</th><th>Seq</th><th>Message</th><th>RFC</th>"
      "<th>Code</th></tr></thead><tbody>\n",
      c.findings.size(),
      c.findings_not_stored ? fmt::format(", {} more not listed", c.findings_not_stored) : "");
  const std::size_t listed = std::min(c.findings.size(), kFindingRowsPerConnection);
  for (std::size_t i = 0; i < listed; ++i) {
    const ReportedFinding& rf = c.findings[i];
    const DiagnosticInfo& d = info(rf.finding.id);
    buf_ += fmt::format(
        "<tr class=\"finding sev-{}{}\" id=\"f-{}-{}\" data-capture-index=\"{}\" "
        "data-connection=\"{}\" "
        "data-id=\"{}\" data-frame=\"{}\" data-seq=\"{}\" data-direction=\"{}\"><td data-v=\"{}\" "
        "class=\"sev "
        "sev-{}\">{}</td><td><a href=\"#{}-{}-{}\"><code>{}</code></a></td><td "
        "class=\"n\">{}</td><td>{}</td>"
        "<td class=\"n\">{}</td><td>{}{}</td><td>{}</td><td>{}</td></tr>\n",
        to_string(d.severity), rf.suppressed_by ? " suppressed" : "", anchor(row), i, row.capture,
        c.summary.id, d.name, rf.finding.frame, rf.finding.tcp_seq.value(),
        to_string(rf.finding.direction), 2 - static_cast<int>(d.severity), to_string(d.severity),
        to_string(d.severity), i < kPlacedFindings ? "d" : "f", anchor(row), i, d.name,
        rf.finding.frame, to_string(rf.finding.direction), rf.finding.tcp_seq.value(),
        esc(rf.finding.message),
        rf.suppressed_by ? fmt::format(" <em>(suppressed: {})</em>", esc(rf.suppressed_by->reason))
                         : "",
        esc(d.rfc),
        d.error_code != MpaError::None ? std::to_string(number(d.error_code)) : std::string());
  }
  buf_ += "</tbody></table>\n";
  if (listed < c.findings.size()) {
    buf_ += fmt::format(
        "<p class=\"bounds\">{} further findings of this connection are not listed on this page "
        "(page bound; see --format json).</p>\n",
        c.findings.size() - listed);
  }
  const CaptureTrace& ct = traces_[row.capture];
  for (std::size_t i = 0; i < std::min(c.findings.size(), kPlacedFindings); ++i) {
    const Place* place = nullptr;
    if (trace) {
      auto it = trace->places.find(i);
      if (it != trace->places.end()) place = &it->second;
    }
    detail(row, i, c.findings[i], place, ct);
    flush();
  }
}

void Page::connection(const Row& row, std::size_t ordinal) {
  const ConnectionSummary& s = row.connection->summary;
  const CaptureTrace& ct = traces_[row.capture];
  auto it = ct.connections.find(s.id);
  const ConnectionTrace* trace = it == ct.connections.end() ? nullptr : &it->second;
  buf_ += fmt::format(
      "<details class=\"conn\" open id=\"{}\" data-capture-index=\"{}\" data-connection=\"{}\" "
      "data-verdict=\"{}\">"
      "<summary><span class=\"v v-{}\">{}</span> {} · connection {} · {} → {}{}</summary>\n",
      anchor(row), row.capture, s.id, row.verdict.word(), row.verdict.word(), row.verdict.word(),
      esc(captures_[row.capture].file), s.id, esc(to_string(s.initiator)),
      esc(to_string(s.responder)), stacks(s).empty() ? "" : " · " + esc(stacks(s)));
  // Parameters and counts per direction.
  buf_ +=
      "<table class=\"params\"><thead><tr><th></th><th>Initiator → Responder</th><th>Responder → "
      "Initiator"
      "</th></tr></thead><tbody>";
  const DirectionSummary& a = s.direction(Direction::Initiator);
  const DirectionSummary& b = s.direction(Direction::Responder);
  const auto line = [&](std::string_view what, const std::string& x, const std::string& y) {
    buf_ += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>", what, x, y);
  };
  line("startup frame", s.request ? esc("Request " + startup_words(*s.request)) : "not seen",
       s.reply ? esc("Reply " + startup_words(*s.reply)) : "not seen");
  line("private data", s.request ? private_text(s.request->private_data, kPrivateDataShown) : "",
       s.reply ? private_text(s.reply->private_data, kPrivateDataShown) : "");
  line("sends with", esc(parameters(s, Direction::Initiator)),
       esc(parameters(s, Direction::Responder)));
  line("stack", esc(a.stack), esc(b.stack));
  line("FPDUs / ULPDU octets", fmt::format("{} / {}", thousands(a.fpdus), thousands(a.ulpdu_bytes)),
       fmt::format("{} / {}", thousands(b.fpdus), thousands(b.ulpdu_bytes)));
  line("CRC failures", std::to_string(a.crc_failures), std::to_string(b.crc_failures));
  line("MSS / MULPDU", fmt::format("{} / {}", a.mss ? std::to_string(*a.mss) : "?", a.mulpdu),
       fmt::format("{} / {}", b.mss ? std::to_string(*b.mss) : "?", b.mulpdu));
  buf_ += fmt::format(
      "</tbody></table><p>frames {}–{}{}{}</p>\n", s.first_frame, s.last_frame,
      s.request_ns && s.reply_ns && s.reply_ns >= s.request_ns
          ? fmt::format("; Request → Reply {}", duration_text(s.reply_ns - s.request_ns))
          : "",
      s.reply_ns && s.first_fpdu_ns && s.first_fpdu_ns >= s.reply_ns
          ? fmt::format("; Reply → first FPDU {}", duration_text(s.first_fpdu_ns - s.reply_ns))
          : "");
  buf_ += "<h3>Ladder</h3>\n";
  ladder(row, trace);
  flush();
  if (trace && (!many_ || ordinal < kChartedConnectionsWhenMany)) {
    buf_ += "<h3>Charts</h3>\n";
    charts(row, *trace);
    ++charted_;
  }
  findings(row, trace);
  buf_ += "</details>\n";
  flush();
}

void Page::write() {
  header();
  std::vector<Row> rows;
  for (std::size_t i = 0; i < captures_.size(); ++i) {
    for (const ConnectionReport& c : captures_[i].connections)
      rows.push_back({i, &c, verdict_of(c)});
  }
  overview(rows);
  buf_ += "<section id=\"connections\"><h2>Connections</h2>\n";
  for (std::size_t k = 0; k < rows.size(); ++k) connection(rows[k], k);
  buf_ += "</section>\n<footer class=\"bounds\">Made by mpa-check";
  if (!options_.command.empty()) buf_ += ": <code>" + esc(options_.command) + "</code>";
  buf_ += "</footer>\n<script>";
  buf_ += html_asset::kReportJs;
  buf_ += "</script>\n</body></html>\n";
  flush();
}

}  // namespace

void write_html(std::ostream& out, const std::vector<CaptureReport>& captures,
                const std::vector<CaptureTrace>& traces, const HtmlOptions& options) {
  Page(out, captures, traces, options).write();
}

}  // namespace mpa::report
