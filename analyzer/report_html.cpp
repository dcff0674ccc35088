// The HTML report (--html FILE): one self-contained page per run. Inline CSS, inline SVG
// drawn here, one inline script that only sorts, filters and folds; no network. Its
// findings are the CaptureReport's, the same the JSON report lists; the trace
// (html_trace.h) adds the ladder, the charts and the octets behind the first findings.
// Everything taken from a capture passes html_escape.
#include "report_html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "html_assets.h"
#include "html_escape.h"
#include "html_trace.h"
#include "mpa/conformance.h"
#include "mpa/ddp.h"
#include "mpa/fpdu_layout.h"
#include "mpa/startup_layout.h"
#include "plugfest.h"
#include "report.h"

namespace mpa::report {
namespace {

// Page bounds (stated on the page).
constexpr std::size_t kFindingRowsPerConnection = 500;
constexpr std::size_t kManyConnections = 150;    // beyond: shorter ladders, fewer charts
constexpr std::size_t kLadderRowsWhenMany = 14;  // drawn open when the ladders pass...
constexpr std::size_t kLadderRowsOnPage = 6000;  // ... this many rows on the page
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

// Listed or not, as the collector decided them.
Verdict verdict_of(const ConnectionReport& c) { return Verdict{c.active}; }

// Octets of private data shown as text in the negotiation table: as many as RFC 5044 7.1.1
// allows.
constexpr std::size_t kPrivateDataShown = kMaxPrivateData;

// As text: printable ASCII as it is, every other octet as "." (a hex dump's text column).
std::string private_text(const std::vector<std::uint8_t>& pd, std::size_t limit) {
  const std::size_t n = std::min(pd.size(), limit);
  std::string raw;
  for (std::size_t i = 0; i < n; ++i) {
    raw += pd[i] >= 0x20 && pd[i] < 0x7f ? static_cast<char>(pd[i]) : '.';
  }
  std::string out = esc(raw);
  if (pd.size() > limit) out += "…";
  return out;
}

// A startup frame's private data in hex, the IRD/ORD block (RFC 6581 9, where the library
// found one: startup_layout.h) marked and decoded, then as text.
std::string private_data_html(const StartupFrame& f, std::size_t limit) {
  const std::vector<std::uint8_t>& pd = f.private_data;
  if (pd.empty()) return "none";
  const StartupFrameFields fields = startup_frame_fields(TcpSeq(0), f);
  std::uint32_t block_at = 0, block_end = 0;  // octets of the private data
  if (f.enhanced && fields.enhanced.length) {
    block_at = fields.enhanced.seq.distance_from(fields.private_data.seq);
    block_end = block_at + fields.enhanced.length;
  }
  const std::size_t n = std::min(pd.size(), limit);
  std::string out = "<code class=\"pd-hex\">";
  for (std::size_t i = 0; i < n; ++i) {
    if (i == block_at && block_end > block_at) {
      out += fmt::format("<span class=\"ird-ord\" title=\"IRD/ORD block: IRD {} ORD {}\">",
                         f.enhanced->ird, f.enhanced->ord);
    }
    out += fmt::format("{}{:02x}", i == 0 || i == block_at ? "" : " ", pd[i]);
    if (i + 1 == block_end && block_end > block_at) out += "</span> ";
  }
  if (pd.size() > limit) out += " …";
  out += "</code>";
  if (f.enhanced && block_end > block_at) {
    std::string words =
        fmt::format("IRD/ORD block: IRD {}, ORD {}", f.enhanced->ird, f.enhanced->ord);
    if (f.enhanced->peer_to_peer) words += ", P2P";
    if (f.enhanced->send_rtr) words += ", send-RTR";
    if (f.enhanced->write_rtr) words += ", write-RTR";
    if (f.enhanced->read_rtr) words += ", read-RTR";
    out += "<br><span class=\"ird-ord-words\">" + esc(words) + "</span>";
  }
  out += "<br>“" + private_text(pd, limit) + "”";
  return out;
}

std::string startup_words(const StartupFrame& f) {
  std::string s =
      fmt::format("Rev {rev} M={m} C={c} R={r} S={s} PD_Length {pd}", fmt::arg("rev", f.revision),
                  fmt::arg("m", int(f.m())), fmt::arg("c", int(f.c())), fmt::arg("r", int(f.r())),
                  fmt::arg("s", int(f.s())), fmt::arg("pd", f.pd_length));
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

// A side's name beside its address: "Cobalt NIC 5.0", a guess in italics; "" when unnamed.
std::string implementation_html(const ImplementationName& n) {
  if (!n.named()) return {};
  return fmt::format("<span class=\"impl{}\" title=\"{}\">{}</span>",
                     n.source == NameSource::Fingerprint ? " guess" : "",
                     n.source == NameSource::Hosts
                         ? esc("from the hosts file, " + n.rule)
                         : esc("a guess from the stack fingerprint of its startup frames"),
                     esc(n.label()));
}

// "10.0.0.1:4000 (Ardent 2.1)": an endpoint with its side's name.
std::string endpoint_html(const ConnectionReport& c, Direction d) {
  const std::string endpoint =
      esc(to_string(d == Direction::Initiator ? c.summary.initiator : c.summary.responder));
  const std::string name = implementation_html(c.implementation(d));
  return name.empty() ? endpoint : fmt::format("{} ({})", endpoint, name);
}

// A relative URL for a capture file: `file` as named on the command line of the run that
// read it (relative to the working folder), seen from `folder` (where the page is).
std::string capture_href(const std::string& file, const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target = fs::absolute(file, ec);
  std::string path = file;
  if (!ec && !folder.empty()) {
    const fs::path relative = target.lexically_relative(folder);
    if (!relative.empty()) path = relative.generic_string();
  }
  std::string url;
  for (const unsigned char c : path) {
    if (std::isalnum(c) ||
        std::string_view("-._~/").find(static_cast<char>(c)) != std::string_view::npos) {
      url += static_cast<char>(c);
    } else {
      url += fmt::format("%{:02X}", c);
    }
  }
  return url;
}

class Page {
 public:
  Page(std::ostream& out, const std::vector<CaptureReport>& captures,
       const std::vector<CaptureTrace>& traces, const HtmlOptions& options)
      : out_(out), captures_(captures), traces_(traces), options_(options) {
    for (const CaptureReport& c : captures_) connections_ += c.connections.size();
    many_ = connections_ > kManyConnections;
    for (const CaptureTrace& t : traces_) {
      for (const auto& [id, c] : t.connections) ladder_rows_ += c.ladder.size();
    }
    // The folders every capture name shares, shown once above the captures.
    for (const CaptureReport& c : captures_) {
      const std::string_view dir(c.file.data(), c.file.rfind('/') + 1);  // (npos + 1: "")
      if (&c == &captures_.front()) {
        prefix_ = dir;
      } else {
        std::size_t n = 0;
        while (n < prefix_.size() && n < dir.size() && prefix_[n] == dir[n]) ++n;
        while (n > 0 && prefix_[n - 1] != '/') --n;  // (whole folders only)
        prefix_.resize(n);
      }
    }
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
  void matrix();
  void matrix_pairs(const Matrix& m);
  void matrix_grid(const Matrix& m);
  void totals_paragraph();
  void bounds_paragraph();
  void overview(std::vector<Row>& rows);
  void capture_row(std::size_t i);
  void verdict_row(const Row& r);
  void connection(const Row& row, std::size_t ordinal);
  void parameters_table(const ConnectionReport& c);
  void ladder(const Row& row, const ConnectionTrace* trace);
  void ladder_by_message(const Row& row, const ConnectionTrace& trace);
  void ladder_head(const Row& row, int height, std::string_view cls);
  void ladder_svg(const Row& row, std::span<const LadderItem* const> items, std::string_view cls);
  void charts(const Row& row, const ConnectionTrace& trace);
  void histogram(const DirectionSummary& d, std::string_view title);
  void alignment(const DirectionSummary& d, std::string_view title);
  void bins_chart(const std::array<std::uint64_t, kTimeBins>* values, std::size_t series,
                  std::uint64_t width_ns, std::string_view title, std::string_view unit, bool rate);
  void marker_strip(const std::vector<StripFpdu>& strip, std::string_view title);
  void findings(const Row& row, const ConnectionTrace* trace);
  void finding_row(const Row& row, std::size_t i, const ReportedFinding& rf);
  void detail(const Row& row, std::size_t index, const ReportedFinding& f, const Place* place,
              const CaptureTrace& trace);
  void dump(const Place& place, const ConnectionSummary& s, const CaptureTrace& trace);
  void hex_row(const Place& p, const SeqRange& part, std::uint32_t part_at, std::uint32_t row,
               std::size_t base);
  void dump_legend(const Place& p);
  void gap_strip(const GapView& gap, std::string_view id);
  // A capture's name without the folders all share.
  std::string name(std::size_t capture) const {
    return captures_[capture].file.substr(prefix_.size());
  }
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
  std::size_t ladder_rows_ = 0;  // of every ladder on the page
  std::size_t charted_ = 0;
  std::string prefix_;  // the folders every capture name begins with
};

void Page::header() {
  buf_ += R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>mpa-check report</title><style>)";
  buf_ += html_asset::kReportCss;
  buf_ += "</style></head><body>\n";
  // Arrow heads shared by every ladder.
  buf_ += html_asset::kDefsSvg;
  totals_paragraph();
  bounds_paragraph();
  buf_ += "</header>\n";
}

// A matrix heading: the implementation, its addresses and where its name comes from.
std::string matrix_head_html(const MatrixImplementation& impl) {
  std::string addresses;
  for (const std::string& a : impl.addresses) addresses += (addresses.empty() ? "" : ", ") + a;
  // The hosts file's line by the file's name (its path in the title).
  const std::string rule = impl.name.rule.substr(impl.name.rule.rfind('/') + 1);
  const std::string source = impl.name.source == NameSource::Hosts ? rule
                             : impl.name.source == NameSource::Fingerprint
                                 ? std::string("a guess from its startup frames")
                                 : std::string("not named");
  return fmt::format("{}<br><small title=\"{}\">{} ({})</small>",
                     impl.name.named() ? implementation_html(impl.name) : esc(impl.key),
                     esc(impl.name.rule), esc(addresses), esc(source));
}

// A cell: its verdict, connections, first failing rule and the side that broke it, linked.
std::string matrix_cell_html(const Matrix& m, std::size_t i, std::size_t r) {
  const MatrixCell& cell = m.cell(i, r);
  const std::string word(to_string(cell.verdict));
  std::string cls = word;
  std::replace(cls.begin(), cls.end(), ' ', '-');
  const std::string attributes = fmt::format(
      "class=\"m m-{cls}\" data-initiator=\"{i}\" data-responder=\"{r}\" "
      "data-verdict=\"{word}\" data-connections=\"{n}\"",
      fmt::arg("cls", cls), fmt::arg("i", esc(m.implementations[i].key)),
      fmt::arg("r", esc(m.implementations[r].key)), fmt::arg("word", word),
      fmt::arg("n", cell.connections.size()));
  if (cell.verdict == PairVerdict::NotTried)
    return fmt::format("<td {}>not tried</td>", attributes);
  const ConnectionRef& at = cell.failure ? cell.failure_at : cell.connections.front();
  const std::string target = fmt::format("c{}-{}", at.capture, at.connection->summary.id);
  std::string failure, rule;
  if (cell.failure) {
    const std::string side = side_word(*cell.failure);
    const std::string_view id = info(cell.failure->finding.id).name;
    failure = fmt::format(
        " data-first-failure=\"{}\" data-side=\"{}\" data-capture-index=\"{}\" "
        "data-connection=\"{}\" data-frame=\"{}\"",
        id, side, at.capture, at.connection->summary.id, cell.failure->finding.frame);
    rule = fmt::format("<br><code>{}</code> {}", id,
                       side.empty() ? std::string("about the capture") : "by the " + side);
  }
  return fmt::format(
      "<td {attributes}{failure}><a href=\"#{target}\">{word}</a><br><small>{connections}: "
      "{counts}{rule}</small></td>",
      fmt::arg("attributes", attributes), fmt::arg("failure", failure), fmt::arg("target", target),
      fmt::arg("word", word),
      fmt::arg("connections", esc(count_of(cell.connections.size(), "connection"))),
      fmt::arg("counts", esc(verdict_counts(cell))), fmt::arg("rule", rule));
}

// The interop matrix (plugfest.h), first on the page: Initiator implementations in rows,
// Responder implementations in columns, each cell linked to the connection that made its
// verdict; pairs never tried are said to be so. Where it is not shown (plugfest.h,
// matrix_shown), a line says so and why.
void Page::matrix() {
  if (!matrix_shown(captures_, options_.matrix)) {
    buf_ += fmt::format(
        "<section id=\"matrix-section\"><h2>Interop matrix</h2>\n<p class=\"bounds\">Not "
        "shown: more than {} implementations known by their address only (no hosts file entry, "
        "no stack fingerprint), over {}; name them with <code>--hosts</code>, or show it with "
        "<code>--matrix</code>.</p></section>\n",
        kMatrixUnnamedMost, esc(count_of(connections_, "MPA connection")));
    return;
  }
  const Matrix m = build_matrix(captures_);
  buf_ += fmt::format(
      "<section id=\"matrix-section\"><h2>Interop matrix</h2>\n<p class=\"matrix-sum\">{}, {}, {} "
      "of {} pairs tried; the Initiator in rows, the Responder in columns. A cell's verdict is "
      "its worst connection's; it links to the connection with the first failing rule.</p>\n",
      esc(count_of(m.size(), "implementation")), esc(count_of(m.connections, "MPA connection")),
      m.tried(), m.size() * m.size());
  if (m.size() == 0) {
    buf_ += "</section>\n";
    return;
  }
  if (m.whole()) {
    matrix_grid(m);
  } else {
    matrix_pairs(m);
  }
  buf_ += "</tbody></table></section>\n";
  flush();
}

// Too many implementations for a grid: a row per pair tried.
void Page::matrix_pairs(const Matrix& m) {
  buf_ += fmt::format(
      "<p class=\"bounds\">More than {} implementations: the pairs tried, a row each; the {} "
      "pairs never tried are not listed.</p>\n<table id=\"matrix\" class=\"pairs\"><thead><tr>"
      "<th>Initiator</th><th>Responder</th><th>Verdict</th></tr></thead><tbody>\n",
      Matrix::kMatrixGridMost, m.size() * m.size() - m.tried());
  for (const auto& [pair, cell] : m.tried_cells) {
    buf_ +=
        fmt::format("<tr><th class=\"initiator\">{}</th><th class=\"responder\">{}</th>{}</tr>\n",
                    matrix_head_html(m.implementations[pair.first]),
                    matrix_head_html(m.implementations[pair.second]),
                    matrix_cell_html(m, pair.first, pair.second));
    if (buf_.size() > (1u << 16)) flush();
  }
}

void Page::matrix_grid(const Matrix& m) {
  buf_ += "<table id=\"matrix\"><thead><tr><th>Initiator ↓ / Responder →</th>";
  for (const MatrixImplementation& impl : m.implementations) {
    buf_ += fmt::format("<th class=\"responder\" data-key=\"{}\">{}</th>", esc(impl.key),
                        matrix_head_html(impl));
  }
  buf_ += "</tr></thead><tbody>\n";
  for (std::size_t i = 0; i < m.size(); ++i) {
    buf_ += fmt::format("<tr><th class=\"initiator\" data-key=\"{}\">{}</th>",
                        esc(m.implementations[i].key), matrix_head_html(m.implementations[i]));
    for (std::size_t r = 0; r < m.size(); ++r) buf_ += matrix_cell_html(m, i, r);
    buf_ += "</tr>\n";
  }
}

void Page::totals_paragraph() {
  const Totals t = totals(captures_, options_.policy);
  buf_ += fmt::format(
      "<header><h1>mpa-check report</h1><p id=\"totals\">{captures} capture{captures_s}, "
      "{connections} MPA connection{connections_s}: "
      "<span class=\"sev sev-error\">{errors}</span>, "
      "<span class=\"sev sev-warning\">{warnings}</span>, "
      "<span class=\"sev sev-note\">{notes}</span>; {failed} failed (fail on {fail_on}). "
      "mpa-check {version}.</p>\n",
      fmt::arg("captures", captures_.size()),
      fmt::arg("captures_s", captures_.size() == 1 ? "" : "s"),
      fmt::arg("connections", t.connections),
      fmt::arg("connections_s", t.connections == 1 ? "" : "s"),
      fmt::arg("errors", esc(count_of(t.active[Severity::Error], "error"))),
      fmt::arg("warnings", esc(count_of(t.active[Severity::Warning], "warning"))),
      fmt::arg("notes", esc(count_of(t.active[Severity::Note], "note"))),
      fmt::arg("failed", count_of(t.failed_captures, "capture")),
      fmt::arg("fail_on", options_.policy.fail_on == Severity::Warning ? "warning" : "error"),
      fmt::arg("version", esc(options_.version)));
}

void Page::bounds_paragraph() {
  buf_ += fmt::format(
      "<p class=\"bounds\" id=\"bounds\">What this page shows and leaves out: findings as the JSON "
      "report lists them (at most {stored} per connection; beyond that they are counted). "
      "Ladders draw the startup frames, the first {fpdus} FPDUs per direction, every FPDU a "
      "finding concerns and the findings in order, at most {rows} rows and the TCP SYNs, FINs "
      "and RSTs, each ladder whole{rows_many}; the FPDUs "
      "between them are collapsed into bands with their count, octets and duration. Hex dumps "
      "for the first {placed} findings of each connection (at most {placed_capture} in a "
      "capture): an FPDU's octets read back from the capture file after the run, a startup "
      "frame's as the parser received them; the first {head} and last {tail} octets and the "
      "highlighted fields with their surroundings. Throughput and findings over time in {bins} "
      "bins whose width doubles as a connection goes on. Findings listed per connection on this "
      "page: at most {listed}.{charts_many}</p>\n",
      fmt::arg("stored", kMaxStoredFindings), fmt::arg("fpdus", kLadderFpdusPerDirection),
      fmt::arg("rows", kLadderMaxItems),
      fmt::arg("rows_many",
               ladder_rows_ > kLadderRowsOnPage
                   ? fmt::format(" (with more than {} ladder rows on this page, the rows after "
                                 "the first {} of a ladder are drawn when opened below it)",
                                 kLadderRowsOnPage, kLadderRowsWhenMany)
                   : std::string()),
      fmt::arg("placed", kPlacedFindings), fmt::arg("placed_capture", kPlacedFindingsPerCapture),
      fmt::arg("head", 128), fmt::arg("tail", 64), fmt::arg("bins", kTimeBins),
      fmt::arg("listed", kFindingRowsPerConnection),
      fmt::arg("charts_many",
               many_ ? fmt::format(" Charts for the {} connections with the worst verdicts only "
                                   "(of {}).",
                                   kChartedConnectionsWhenMany, connections_)
                     : std::string()));
}

void Page::overview(std::vector<Row>& rows) {
  buf_ += "<section id=\"overview\"><h2>Captures</h2>\n";
  if (!prefix_.empty()) {
    buf_ += fmt::format("<p class=\"prefix\">in <code>{}</code></p>\n", esc(prefix_));
  }
  buf_ +=
      "<table id=\"captures\" "
      "class=\"sortable\"><thead><tr>"
      "<th>Verdict</th><th>Capture</th><th>Frames</th><th>MPA "
      "connections</th><th>Errors</th><th>Warnings</th>"
      "<th>Notes</th><th>Suppressed</th></tr></thead><tbody>\n";
  // Failing captures first (unreadable, then failed), each group in the order given.
  std::vector<std::size_t> order(captures_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto rank = [&](std::size_t i) {
    const CaptureReport& c = captures_[i];
    return !c.result.ok ? 0 : fails(c, options_.policy) ? 1 : 2;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
  for (std::size_t i : order) capture_row(i);
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
    verdict_row(r);
    if (buf_.size() > (1u << 16)) flush();
  }
  buf_ += "</tbody></table></section>\n";
  flush();
}

// The frames not decoded to TCP, by reason, and the warning when they may hide TCP.
// A live capture: libpcap's counters, and the warning when it dropped packets.
static std::string live_html(const PipelineResult& result) {
  std::string html;
  if (const std::string live = live_counts(result); !live.empty()) {
    html += "<br><small class=\"not-tcp\">" + esc(live) + "</small>";
  }
  if (const std::string drops = drops_warning(result); !drops.empty()) {
    html += "<br><span class=\"capture-warning\">warning: " + esc(drops) + "</span>";
  }
  return html;
}

static std::string not_tcp_html(const CaptureStats& stats) {
  std::string html;
  const std::string counts = not_tcp_counts(stats);
  if (!counts.empty()) html += "<br><small class=\"not-tcp\">not TCP: " + esc(counts) + "</small>";
  const std::string reassembly = ip_reassembly_counts(stats);
  if (!reassembly.empty()) {
    html += "<br><small class=\"not-tcp\">TCP segments " + esc(reassembly) + "</small>";
  }
  const std::string warning = unreached_warning(stats);
  if (!warning.empty()) {
    html += "<br><span class=\"capture-warning\">warning: " + esc(warning) + "</span>";
  }
  return html;
}

void Page::capture_row(std::size_t i) {
  const CaptureReport& c = captures_[i];
  const std::string_view v = !c.result.ok                ? "unreadable"
                             : fails(c, options_.policy) ? "fail"
                                                         : "pass";
  const std::uint64_t suppressed = c.suppressed[Severity::Error] + c.suppressed[Severity::Warning] +
                                   c.suppressed[Severity::Note];
  buf_ += fmt::format(
      "<tr class=\"capture-row\" data-capture-index=\"{i}\" data-file=\"{file}\" "
      "data-verdict=\"{v}\"><td data-v=\"{rank}\"><span class=\"v v-{v}\">{v}</span></td>"
      "<td class=\"name\">{name}{error}</td><td class=\"n\">{frames}</td><td class=\"n\">{mpa}</td>"
      "<td class=\"n\">{errors}</td><td class=\"n\">{warnings}</td><td class=\"n\">{notes}</td>"
      "<td class=\"n\">{suppressed}</td></tr>\n",
      fmt::arg("i", i), fmt::arg("file", esc(c.file)), fmt::arg("name", esc(name(i))),
      fmt::arg("v", v), fmt::arg("rank", v == "pass" ? 0 : 1),
      fmt::arg("error", (c.result.ok ? std::string() : " <em>(" + esc(c.result.error) + ")</em>") +
                            not_tcp_html(c.result.stats) + live_html(c.result)),
      fmt::arg("frames", c.result.stats.frames), fmt::arg("mpa", c.mpa_connections),
      fmt::arg("errors", c.active[Severity::Error]),
      fmt::arg("warnings", c.active[Severity::Warning]),
      fmt::arg("notes", c.active[Severity::Note]), fmt::arg("suppressed", suppressed));
  if (c.capture_findings.empty()) return;
  buf_ += fmt::format("<tr class=\"capture-findings\"><td></td><td colspan=\"7\">");
  for (const ReportedFinding& f : c.capture_findings) {
    const DiagnosticInfo& d = info(f.finding.id);
    buf_ += fmt::format(
        "<div class=\"finding capture-finding\" data-capture-index=\"{i}\" data-id=\"{id}\" "
        "data-frame=\"{frame}\"><span class=\"sev sev-{severity}\">{severity}</span> "
        "frame {frame}: {message} <code>[{id}]</code> ({rfc})</div>",
        fmt::arg("i", i), fmt::arg("id", d.name), fmt::arg("frame", f.finding.frame),
        fmt::arg("severity", to_string(d.severity)), fmt::arg("message", esc(f.finding.message)),
        fmt::arg("rfc", esc(d.rfc)));
  }
  buf_ += "</td></tr>\n";
}

void Page::verdict_row(const Row& r) {
  const ConnectionSummary& s = r.connection->summary;
  const DirectionSummary& a = s.direction(Direction::Initiator);
  const DirectionSummary& b = s.direction(Direction::Responder);
  buf_ += fmt::format(
      "<tr class=\"verdict-row\" data-capture-index=\"{capture}\" data-connection=\"{id}\" "
      "data-verdict=\"{word}\" data-section=\"{anchor}\"><td data-v=\"{rank}\">"
      "<a href=\"#{anchor}\"><span class=\"v v-{word}\">{word}</span></a></td>"
      "<td>{file}</td><td class=\"n\">{id}</td><td data-initiator-impl=\"{initiator_key}\" "
      "data-responder-impl=\"{responder_key}\">{initiator} → {responder}</td>"
      "<td>{stacks}</td><td>{sends_i}</td><td>{sends_r}</td>"
      "<td class=\"n\" data-v=\"{fpdus}\">{fpdus_i} / {fpdus_r}</td>"
      "<td class=\"n\" data-v=\"{octets}\">{octets_i} / {octets_r}</td>"
      "<td class=\"n\">{errors}</td><td class=\"n\">{warnings}</td><td class=\"n\">{notes}</td>"
      "</tr>\n",
      fmt::arg("capture", r.capture), fmt::arg("id", s.id), fmt::arg("word", r.verdict.word()),
      fmt::arg("anchor", anchor(r)), fmt::arg("rank", 2 - r.verdict.rank()),
      fmt::arg("file", esc(name(r.capture))),
      fmt::arg("initiator", endpoint_html(*r.connection, Direction::Initiator)),
      fmt::arg("responder", endpoint_html(*r.connection, Direction::Responder)),
      fmt::arg("initiator_key", esc(r.connection->implementation(Direction::Initiator).key())),
      fmt::arg("responder_key", esc(r.connection->implementation(Direction::Responder).key())),
      fmt::arg("stacks", esc(stacks(s))),
      fmt::arg("sends_i", esc(parameters(s, Direction::Initiator))),
      fmt::arg("sends_r", esc(parameters(s, Direction::Responder))),
      fmt::arg("fpdus", a.fpdus + b.fpdus), fmt::arg("fpdus_i", thousands(a.fpdus)),
      fmt::arg("fpdus_r", thousands(b.fpdus)), fmt::arg("octets", a.ulpdu_bytes + b.ulpdu_bytes),
      fmt::arg("octets_i", octets_text(a.ulpdu_bytes)),
      fmt::arg("octets_r", octets_text(b.ulpdu_bytes)),
      fmt::arg("errors", r.verdict.active[Severity::Error]),
      fmt::arg("warnings", r.verdict.active[Severity::Warning]),
      fmt::arg("notes", r.verdict.active[Severity::Note]));
}

// ---- the ladder

constexpr int kLadderWidth = 960;
constexpr int kLaneI = 290, kLaneR = 740;
constexpr int kLaneMid = (kLaneI + kLaneR) / 2;
constexpr int kRow = 24;
constexpr int kLadderTop = 56;

// One connection's ladder, row by row: one function per kind of item.
class LadderSvg {
 public:
  LadderSvg(std::string& out, const ConnectionReport& connection, std::string anchor,
            const RdmaMessageLog* folded = nullptr)
      : b_(out),
        c_(connection),
        s_(connection.summary),
        anchor_(std::move(anchor)),
        folded_(folded) {}
  void item(const LadderItem& item) {
    std::visit([&](const auto& what) { draw(item, what); }, item.what);
  }
  int y() const { return y_; }

 private:
  void draw(const LadderItem& item, const ladder::Tcp& tcp);
  void draw(const LadderItem& item, const ladder::Startup& startup);
  void draw(const LadderItem& item, const ladder::Fpdu& fpdu);
  void draw(const LadderItem& item, const ladder::Band& band);
  void draw(const LadderItem& item, const ladder::Finding& pin);
  std::string when(std::uint64_t ns) const {
    return ns && s_.first_ns && ns >= s_.first_ns
               ? fmt::format("+{}", duration_text(ns - s_.first_ns))
               : std::string();
  }
  void left_label(const LadderItem& item, int at) {
    b_ += fmt::format(
        "<text class=\"when\" data-frame=\"{frame}\" data-ns=\"{ns}\" x=\"4\" y=\"{y}\" "
        "font-size=\"11\" fill=\"#666\">{frame} {when}</text>",
        fmt::arg("frame", item.frame), fmt::arg("ns", item.ns), fmt::arg("y", at + 4),
        fmt::arg("when", when(item.ns)));
  }
  void arrow(Direction d, int at, std::string_view colour, std::string_view marker, double width,
             const std::string& label, std::string_view cls);

  std::string& b_;
  const ConnectionReport& c_;
  const ConnectionSummary& s_;
  std::string anchor_;
  const RdmaMessageLog* folded_;  // FPDUs drawn as the RDMA messages the library grouped them in
  int y_ = kLadderTop;
  bool message(const LadderItem& item, const ladder::Fpdu& fpdu);
};

// The RDMA message an FPDU is a segment of, drawn in its place: its words, its frames.
bool LadderSvg::message(const LadderItem& item, const ladder::Fpdu& fpdu) {
  if (!folded_ || fpdu.message < 0) return false;
  for (const RdmaMessage& m : folded_->messages()) {
    if (m.direction != item.direction || m.number != static_cast<std::uint64_t>(fpdu.message))
      continue;
    left_label(item, y_);
    std::string label = rdma_message_words(m);
    if (m.last_frame != m.first_frame)
      label += fmt::format(" · frames {}–{}", m.first_frame, m.last_frame);
    arrow(item.direction, y_, m.complete ? "#2e7d32" : "#ef6c00", "ahk", 2, esc(label), "message");
    y_ += kRow;
    return true;
  }
  return false;
}

void LadderSvg::arrow(Direction d, int at, std::string_view colour, std::string_view marker,
                      double width, const std::string& label, std::string_view cls) {
  b_ += fmt::format(
      "<g class=\"{cls}\"><line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" "
      "stroke=\"{colour}\" stroke-width=\"{width}\" marker-end=\"url(#{marker})\"/>"
      "<text x=\"{mid}\" y=\"{text_y}\" text-anchor=\"middle\" font-size=\"12\">{label}</text>"
      "</g>\n",
      fmt::arg("cls", cls), fmt::arg("x1", d == Direction::Initiator ? kLaneI : kLaneR),
      fmt::arg("y1", at), fmt::arg("x2", d == Direction::Initiator ? kLaneR : kLaneI),
      fmt::arg("y2", at + 8), fmt::arg("colour", colour), fmt::arg("width", width),
      fmt::arg("marker", marker), fmt::arg("mid", kLaneMid), fmt::arg("text_y", at - 3),
      fmt::arg("label", label));
}

void LadderSvg::draw(const LadderItem& item, const ladder::Tcp& tcp) {
  left_label(item, y_);
  std::string label(ladder::to_string(tcp.flag));
  const auto& mss = s_.direction(item.direction).mss;
  const TcpFlagSeen& peer_syn = s_.direction(other(item.direction)).tcp.syn;
  const bool syn = tcp.flag == ladder::TcpFlag::Syn;
  if (syn && peer_syn.frame && peer_syn.frame < item.frame) label = "SYN-ACK";
  if (syn && mss) label += fmt::format(" (MSS {})", *mss);
  arrow(item.direction, y_, "#888", "ahg", 1.2, esc(label), "tcp");
  y_ += kRow;
}

void LadderSvg::draw(const LadderItem& item, const ladder::Startup& startup) {
  left_label(item, y_ + 8);
  const StartupFrame& f = startup.frame;
  std::string label = fmt::format("MPA {} · {}", to_string(f.kind), startup_words(f));
  arrow(item.direction, y_ + 8, "#1a5fb4", "ahb", 2.5, esc(label), "startup");
  std::string pd = f.private_data.empty()
                       ? "no private data"
                       : "private data “" + private_text(f.private_data, 40) + "”";
  b_ += fmt::format(
      "<text class=\"pd\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\" "
      "fill=\"#444\">{}</text>\n",
      kLaneMid, y_ + 30, pd);
  y_ += 2 * kRow;
}

void LadderSvg::draw(const LadderItem& item, const ladder::Fpdu& fpdu) {
  if (message(item, fpdu)) return;
  left_label(item, y_);
  std::string label =
      fpdu.rdmap_opcode >= 0
          ? std::string(rdmap_opcode_name(static_cast<std::size_t>(fpdu.rdmap_opcode)))
          : std::string("FPDU");
  label += fmt::format(", ULPDU {}", fpdu.ulpdu_length);
  if (fpdu.crc == CrcStatus::Bad) label += ", CRC bad";
  arrow(item.direction, y_, fpdu.crc == CrcStatus::Bad ? "#c62828" : "#333", "ahk", 1.2, esc(label),
        "fpdu");
  y_ += kRow;
}

void LadderSvg::draw(const LadderItem& item, const ladder::Band& band) {
  left_label(item, y_);
  const std::uint64_t n = band.fpdus[0] + band.fpdus[1];
  std::string label =
      fmt::format("{} FPDU{}, {}, {}", thousands(n), n == 1 ? "" : "s", octets_text(band.octets),
                  duration_text(band.last_ns > item.ns ? band.last_ns - item.ns : 0));
  if (band.fpdus[0] && band.fpdus[1]) {
    label += fmt::format(" (→ {}, ← {})", thousands(band.fpdus[0]), thousands(band.fpdus[1]));
  }
  if (folded_ && band.messages)
    label += fmt::format("; {} RDMA message{} began", thousands(band.messages),
                         band.messages == 1 ? "" : "s");
  if (band.findings)
    label += fmt::format("; {} more finding{} (see the table)", band.findings,
                         band.findings == 1 ? "" : "s");
  b_ += fmt::format(
      "<g class=\"band\" data-fpdus=\"{n}\"><rect x=\"{x}\" y=\"{y}\" width=\"{width}\" "
      "height=\"{height}\" rx=\"3\" fill=\"#eceff1\" stroke=\"#b0bec5\" "
      "stroke-dasharray=\"4 3\"/><text x=\"{mid}\" y=\"{text_y}\" text-anchor=\"middle\" "
      "font-size=\"12\" fill=\"#37474f\">{label}</text></g>\n",
      fmt::arg("n", n), fmt::arg("x", kLaneI - 6), fmt::arg("y", y_ - 10),
      fmt::arg("width", kLaneR - kLaneI + 12), fmt::arg("height", kRow - 4),
      fmt::arg("mid", kLaneMid), fmt::arg("text_y", y_ + 6), fmt::arg("label", esc(label)));
  y_ += kRow;
}

void LadderSvg::draw(const LadderItem& item, const ladder::Finding& pin) {
  if (pin.index >= c_.findings.size()) return;
  const ReportedFinding& rf = c_.findings[pin.index];
  const DiagnosticInfo& d = info(rf.finding.id);
  left_label(item, y_);
  const bool from_i = item.direction == Direction::Initiator;
  const int x = from_i ? kLaneI : kLaneR;
  const bool has_detail = pin.index < kPlacedFindings;
  b_ += fmt::format(
      "<a class=\"pin\" href=\"#{target}\" data-id=\"{id}\" data-frame=\"{frame}\">"
      "<circle cx=\"{x}\" cy=\"{y}\" r=\"7\" fill=\"{colour}\" stroke=\"#fff\" "
      "stroke-width=\"1.5\"/><text x=\"{text_x}\" y=\"{text_y}\" text-anchor=\"{anchor}\" "
      "font-size=\"12\" fill=\"{colour}\" font-weight=\"600\">{id}{suppressed}</text>"
      "<title>{message}</title></a>\n",
      fmt::arg("target", fmt::format("{}{}-{}", has_detail ? "d-" : "f-", anchor_, pin.index)),
      fmt::arg("id", d.name), fmt::arg("frame", rf.finding.frame), fmt::arg("x", x),
      fmt::arg("y", y_), fmt::arg("colour", severity_colour(d.severity)),
      fmt::arg("text_x", from_i ? x - 12 : x + 12), fmt::arg("text_y", y_ + 4),
      fmt::arg("anchor", from_i ? "end" : "start"),
      fmt::arg("suppressed", rf.suppressed_by ? " (suppressed)" : ""),
      fmt::arg("message", esc(rf.finding.message)));
  y_ += kRow;
}

void Page::ladder_head(const Row& row, int height, std::string_view cls) {
  const ConnectionSummary& s = row.connection->summary;
  buf_ += fmt::format(
      "<svg class=\"{cls}\" data-capture-index=\"{capture}\" data-connection=\"{id}\" "
      "width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" "
      "aria-label=\"ladder diagram of connection {id}\">\n",
      fmt::arg("cls", cls), fmt::arg("capture", row.capture), fmt::arg("id", s.id),
      fmt::arg("w", kLadderWidth), fmt::arg("h", height));
  buf_ += fmt::format(
      "<text x=\"{xi}\" y=\"18\" text-anchor=\"middle\" font-weight=\"600\">Initiator</text>"
      "<text x=\"{xi}\" y=\"34\" text-anchor=\"middle\" font-size=\"12\">{initiator}</text>"
      "<text x=\"{xr}\" y=\"18\" text-anchor=\"middle\" font-weight=\"600\">Responder</text>"
      "<text x=\"{xr}\" y=\"34\" text-anchor=\"middle\" font-size=\"12\">{responder}</text>"
      "<text x=\"4\" y=\"34\" font-size=\"11\" fill=\"#666\">frame · time</text>"
      "<line x1=\"{xi}\" y1=\"42\" x2=\"{xi}\" y2=\"{bottom}\" stroke=\"#999\" "
      "stroke-width=\"2\"/>"
      "<line x1=\"{xr}\" y1=\"42\" x2=\"{xr}\" y2=\"{bottom}\" stroke=\"#999\" "
      "stroke-width=\"2\"/>\n",
      fmt::arg("xi", kLaneI), fmt::arg("xr", kLaneR),
      fmt::arg("initiator", esc(endpoint_with_name(*row.connection, Direction::Initiator))),
      fmt::arg("responder", esc(endpoint_with_name(*row.connection, Direction::Responder))),
      fmt::arg("bottom", height - 8));
}

// Rows a ladder item takes.
int ladder_rows(const LadderItem& item) {
  return std::holds_alternative<ladder::Startup>(item.what) ? 2 : 1;
}

void Page::ladder_svg(const Row& row, std::span<const LadderItem* const> items,
                      std::string_view cls) {
  int rows = 0;
  for (const LadderItem* i : items) rows += ladder_rows(*i);
  ladder_head(row, kLadderTop + rows * kRow + 16, cls);
  LadderSvg svg(buf_, *row.connection, anchor(row));
  for (const LadderItem* i : items) svg.item(*i);
  buf_ += "</svg>\n";
}

// The ladder, whole. On a page whose ladders together pass kLadderRowsOnPage, the rows after
// the first kLadderRowsWhenMany are drawn in a closed <details> below it, which the browser
// lays out only when opened.
// Whether two drawn FPDUs of the ladder are segments of one RDMA message: folding the ladder
// by message then shortens it (else it would only repeat the ladder, at a third of the page's
// size over the bundled corpus).
bool has_messages(const ConnectionTrace& trace) {
  std::set<std::pair<Direction, std::int64_t>> drawn;
  for (const LadderItem& i : trace.ladder) {
    const auto* fpdu = std::get_if<ladder::Fpdu>(&i.what);
    if (fpdu && fpdu->message >= 0 && !drawn.emplace(i.direction, fpdu->message).second)
      return true;
  }
  return false;
}

// The ladder with each RDMA message in one row where its first FPDU was (the library's
// grouping: ConnectionTrace::messages), shown instead of the FPDUs' by the toggle before both
// (has_messages).
void Page::ladder_by_message(const Row& row, const ConnectionTrace& trace) {
  std::vector<const LadderItem*> items;
  std::set<std::pair<Direction, std::int64_t>> drawn;
  for (const LadderItem& i : trace.ladder) {
    const auto* fpdu = std::get_if<ladder::Fpdu>(&i.what);
    if (fpdu && fpdu->message >= 0 && !drawn.emplace(i.direction, fpdu->message).second) continue;
    items.push_back(&i);
  }
  buf_ += "<div class=\"by-message\">";
  int rows = 0;
  for (const LadderItem* i : items) rows += ladder_rows(*i);
  ladder_head(row, kLadderTop + rows * kRow + 16, "by-message");
  LadderSvg svg(buf_, *row.connection, anchor(row), &trace.messages);
  for (const LadderItem* i : items) svg.item(*i);
  buf_ += "</svg></div>\n";
}

void Page::ladder(const Row& row, const ConnectionTrace* trace) {
  std::vector<const LadderItem*> items;
  if (trace) {
    for (const LadderItem& i : trace->ladder) items.push_back(&i);
  }
  const bool fold = trace && has_messages(*trace);
  if (fold) {
    buf_ += fmt::format(
        "<input type=\"checkbox\" class=\"fold-messages\" id=\"fold-{id}\"><label "
        "for=\"fold-{id}\" class=\"fold-messages\">Fold FPDUs into RDMA messages</label>\n",
        fmt::arg("id", anchor(row)));
  }
  const std::size_t shown =
      ladder_rows_ > kLadderRowsOnPage ? std::min(items.size(), kLadderRowsWhenMany) : items.size();
  const std::span<const LadderItem* const> all(items);
  ladder_svg(row, all.first(shown), "ladder");
  if (shown == items.size()) {
    if (fold) ladder_by_message(row, *trace);
    return;
  }
  const std::span<const LadderItem* const> rest = all.subspan(shown);
  buf_ += fmt::format(
      "<details class=\"ladder-rest\"><summary>{} more ladder row{} (frames {} to {})</summary>\n",
      rest.size(), rest.size() == 1 ? "" : "s", rest.front()->frame, rest.back()->frame);
  ladder_svg(row, rest, "ladder-rest");
  buf_ += "</details>\n";
  if (fold) ladder_by_message(row, *trace);
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
        "<rect x=\"{x}\" y=\"{y}\" width=\"{width}\" height=\"{height}\" fill=\"#5c6bc0\">"
        "<title>{bucket}: {count}</title></rect>"
        "<text x=\"{mid}\" y=\"{text_y}\" font-size=\"8\" text-anchor=\"middle\">{bucket}</text>",
        fmt::arg("x", x + 2), fmt::arg("y", h - bottom - bh), fmt::arg("width", bw - 4),
        fmt::arg("height", bh), fmt::arg("bucket", ulpdu_bucket_label(i)),
        fmt::arg("count", d.ulpdu_sizes[i]), fmt::arg("mid", x + bw / 2),
        fmt::arg("text_y", h - bottom + 11));
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
        "<rect x=\"4\" y=\"{y}\" width=\"{width}\" height=\"14\" fill=\"#eee\"/>"
        "<rect x=\"4\" y=\"{y}\" width=\"{bar}\" height=\"14\" fill=\"#26a69a\"/>"
        "<text x=\"6\" y=\"{text_y}\" font-size=\"11\">{label}</text>",
        fmt::arg("y", y + 14), fmt::arg("width", w - 8),
        fmt::arg("bar", static_cast<int>(std::lround(value / 100.0 * (w - 8)))),
        fmt::arg("text_y", y + 10), fmt::arg("label", esc(label)));
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
      "<text x=\"2\" y=\"{top_y}\" font-size=\"10\">{top}</text>"
      "<text x=\"{left}\" y=\"{axis_y}\" font-size=\"10\" fill=\"#666\">0</text>"
      "<text x=\"{right}\" y=\"{axis_y}\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">"
      "{span} ({bar} a bar; {unit})</text></svg></div>\n",
      fmt::arg("top_y", h - bottom - plot + 8), fmt::arg("top", top_label), fmt::arg("left", left),
      fmt::arg("axis_y", h - bottom + 12), fmt::arg("right", w - 4),
      fmt::arg("span", duration_text(width_ns * used)), fmt::arg("bar", duration_text(width_ns)),
      fmt::arg("unit", unit));
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
          "<rect x=\"{x:.1f}\" y=\"34\" width=\"3\" height=\"34\" fill=\"{colour}\">"
          "<title>marker at seq {at}: FPDUPTR {ptr} (expected {expected})</title></rect>"
          "<path d=\"M{from:.1f},34 C{x:.1f},8 {bend:.1f},8 {to:.1f},38\" fill=\"none\" "
          "stroke=\"{colour}\" stroke-width=\"1.2\" marker-end=\"url(#ahk)\"/>",
          fmt::arg("x", mx), fmt::arg("colour", ok ? "#2e7d32" : "#c62828"),
          fmt::arg("at", m.seq.value()), fmt::arg("ptr", m.fpdu_ptr),
          fmt::arg("expected", m.expected_fpdu_ptr), fmt::arg("from", mx + 1.5),
          fmt::arg("bend", tx + 4), fmt::arg("to", tx));
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

// Which highlight of `p` holds seq (fields before targets), or -1.
int field_at(const Place& p, TcpSeq seq) {
  int best = -1;
  for (std::size_t i = 0; i < p.highlights.size(); ++i) {
    const Highlight& h = p.highlights[i];
    if (h.range.contains(seq)) {
      if (best < 0 || (p.highlights[static_cast<std::size_t>(best)].target && !h.target))
        best = static_cast<int>(i);
    }
  }
  return best;
}

void Page::dump(const Place& p, const ConnectionSummary& s, const CaptureTrace& trace) {
  const bool from_i = p.direction == Direction::Initiator;
  buf_ += fmt::format(
      "<figure class=\"dump\" data-src=\"{src}\" data-dst=\"{dst}\" data-whole-seq=\"{seq}\" "
      "data-whole-length=\"{length}\"><figcaption>{caption}; {src} → {dst}</figcaption>",
      fmt::arg("src", esc(to_string(from_i ? s.initiator : s.responder))),
      fmt::arg("dst", esc(to_string(from_i ? s.responder : s.initiator))),
      fmt::arg("seq", p.whole.seq.value()), fmt::arg("length", p.whole.length),
      fmt::arg("caption", esc(p.caption)));
  if (p.octets.empty()) {
    buf_ += fmt::format("<p class=\"nodump\">No octets: {}</p></figure>\n",
                        esc(trace.bytes_note.empty() ? "not read" : trace.bytes_note));
    return;
  }
  buf_ += "<div class=\"hex\">";
  std::size_t base = 0;
  std::uint32_t last_end = 0;
  for (const SeqRange& part : p.shown) {
    const std::uint32_t part_at = part.seq.distance_from(p.whole.seq);
    if (part_at > last_end)
      buf_ +=
          fmt::format("<span class=\"skip\">… {} octets not shown …</span>\n", part_at - last_end);
    for (std::uint32_t row = 0; row < part.length; row += 16) hex_row(p, part, part_at, row, base);
    base += part.length;
    last_end = part_at + part.length;
  }
  if (last_end < p.whole.length) {
    buf_ += fmt::format("<span class=\"skip\">… {} octets not shown …</span>\n",
                        p.whole.length - last_end);
  }
  buf_ += "</div>";
  dump_legend(p);
}

// One row of a dump: the octets of `part` from `row` on (up to 16), `base`: where the part's
// octets begin in the place's.
void Page::hex_row(const Place& p, const SeqRange& part, std::uint32_t part_at, std::uint32_t row,
                   std::size_t base) {
  const std::uint32_t n = std::min<std::uint32_t>(16, part.length - row);
  buf_ +=
      fmt::format("<span class=\"off\">{:5} {:10}</span>  ", part_at + row, part.at(row).value());
  std::string ascii;
  int open = -1;  // the highlight whose <mark> is open
  for (std::uint32_t k = 0; k < n; ++k) {
    const TcpSeq seq = part.at(row + k);
    const int field = field_at(p, seq);
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

void Page::dump_legend(const Place& p) {
  buf_ += "<ul class=\"legend\">";
  for (const Highlight& h : p.highlights) {
    const bool inside = p.whole.contains(h.range.seq);
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
        "<rect x=\"{x:.1f}\" y=\"30\" width=\"{width:.1f}\" height=\"22\" fill=\"#64b5f6\" "
        "stroke=\"#fff\"/><text x=\"{text_x:.1f}\" y=\"{text_y}\" font-size=\"11\" "
        "text-anchor=\"{anchor}\">{what} FPDU, seq {seq} ({length} octets)</text>",
        fmt::arg("x", x), fmt::arg("width", bw), fmt::arg("text_x", right ? x + bw : x),
        fmt::arg("text_y", label_y), fmt::arg("anchor", right ? "end" : "start"),
        fmt::arg("what", what), fmt::arg("seq", span.seq), fmt::arg("length", span.length));
  };
  if (g.before) box(*g.before, "last", 24, false);
  const double gx = x_of(g.at.offset);
  const double gend = g.after ? x_of(g.after->offset) : w - left;
  buf_ += fmt::format(
      "<rect class=\"missing\" x=\"{x:.1f}\" y=\"30\" width=\"{width:.1f}\" height=\"22\" "
      "fill=\"url(#hatch)\" stroke=\"#c62828\"/><text x=\"{x:.1f}\" y=\"68\" font-size=\"11\" "
      "fill=\"#c62828\">missing from seq {seq} (stream offset {offset}){after}</text>",
      fmt::arg("x", gx), fmt::arg("width", std::max(gend - gx, 2.0)), fmt::arg("seq", g.at.seq),
      fmt::arg("offset", g.at.offset),
      fmt::arg("after", g.after ? fmt::format("; framing again at seq {}", g.after->seq)
                                : std::string("; nothing framed after it")));
  if (g.after) box(*g.after, "next", 12, true);
  buf_ += fmt::format(
      "<text x=\"{}\" y=\"86\" font-size=\"10\" fill=\"#666\">the stream of this direction, to "
      "scale ({} octets across)</text></svg>\n",
      left, to - from);
}

// The rules of RFC 5044 / RFC 6581 a catalogue entry checks (mpa-check --list-rules), or why
// it checks none: the "rules" row of a finding's detail card.
std::string rules_cell(DiagId id) {
  std::string cell;
  for (const ConformanceRule* rule : rules_of(id)) {
    cell +=
        fmt::format("{}<code>{}</code> {} {}, lines {}, {} ({}): {}", cell.empty() ? "" : "<br>",
                    rule->id, to_string(rule->rfc), rule->section, lines_of(*rule),
                    to_string(rule->requirement), to_string(rule->coverage), esc(rule->summary));
  }
  if (const auto beyond = beyond_rules(id)) {
    cell = fmt::format("none: beyond the RFCs' rules ({}: {})", to_string(beyond->scope),
                       esc(beyond->why));
  }
  return cell;
}

void Page::detail(const Row& row, std::size_t index, const ReportedFinding& rf, const Place* place,
                  const CaptureTrace& trace) {
  const Finding& f = rf.finding;
  const DiagnosticInfo& d = info(f.id);
  buf_ += fmt::format(
      "<section class=\"detail sev-{sev}\" id=\"d-{anchor}-{index}\" data-id=\"{id}\" "
      "data-frame=\"{frame}\"><h4><span class=\"sev sev-{sev}\">{sev}</span> <code>{id}</code> "
      "at frame {frame} <a class=\"focus\" href=\"#focus=d-{anchor}-{index}\">open alone</a>"
      "</h4><dl class=\"cat\"><dt>catalogue</dt><dd><code>{id}</code>: {summary}</dd>"
      "<dt>severity</dt><dd>{sev}</dd><dt>RFC</dt><dd>{rfc}</dd><dt>rules</dt><dd>{rules}</dd>"
      "<dt>error code</dt>"
      "<dd>{code}</dd><dt>message</dt><dd>{message}</dd><dt>frame</dt><dd>{frame}</dd>"
      "<dt>certain at</dt><dd>frame {certain_at}</dd><dt>sequence</dt><dd>{seq} (stream offset "
      "{offset}), {direction} data</dd>"
      "{suppressed}</dl>\n",
      fmt::arg("sev", to_string(d.severity)), fmt::arg("anchor", anchor(row)),
      fmt::arg("index", index), fmt::arg("id", d.name), fmt::arg("frame", f.frame),
      fmt::arg("certain_at", f.certain_at), fmt::arg("summary", esc(d.summary)),
      fmt::arg("rfc", esc(d.rfc)), fmt::arg("rules", rules_cell(f.id)),
      fmt::arg("code", d.error_code != MpaError::None ? fmt::format("{} ({})", number(d.error_code),
                                                                    esc(describe(d.error_code)))
                                                      : std::string("none")),
      fmt::arg("message", esc(f.message)), fmt::arg("seq", f.tcp_seq.value()),
      fmt::arg("offset", f.stream_offset), fmt::arg("direction", to_string(f.direction)),
      fmt::arg("suppressed", rf.suppressed_by
                                 ? fmt::format("<dt>suppressed</dt><dd>{}:{}: {}</dd>",
                                               esc(rf.suppressed_by->file), rf.suppressed_by->line,
                                               esc(rf.suppressed_by->reason))
                                 : std::string()));
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
  } else if (captures_[row.capture].from_json) {
    buf_ += fmt::format(
        "<p class=\"nodump\">Read from a JSON report: the octets are in <a class=\"capture-link\" "
        "href=\"{}\">{}</a>, frame {}.</p>\n",
        esc(capture_href(captures_[row.capture].file, options_.folder)),
        esc(captures_[row.capture].file), f.frame);
  } else {
    buf_ +=
        "<p class=\"nodump\">Not about the octets of one FPDU or startup frame (no dump).</p>\n";
  }
  buf_ += "</section>\n";
}

void Page::finding_row(const Row& row, std::size_t i, const ReportedFinding& rf) {
  const DiagnosticInfo& d = info(rf.finding.id);
  buf_ += fmt::format(
      "<tr class=\"finding sev-{sev}{suppressed_class}\" id=\"f-{anchor}-{i}\" "
      "data-capture-index=\"{capture}\" data-connection=\"{connection}\" data-id=\"{id}\" "
      "data-frame=\"{frame}\" data-seq=\"{seq}\" data-direction=\"{direction}\">"
      "<td data-v=\"{rank}\" class=\"sev sev-{sev}\">{sev}</td>"
      "<td><a href=\"#{kind}-{anchor}-{i}\"><code>{id}</code></a></td>"
      "<td class=\"n\">{frame}</td><td>{direction}</td><td class=\"n\">{seq}</td>"
      "<td>{message}{suppressed}</td><td>{rfc}</td><td>{code}</td></tr>\n",
      fmt::arg("sev", to_string(d.severity)),
      fmt::arg("suppressed_class", rf.suppressed_by ? " suppressed" : ""),
      fmt::arg("anchor", anchor(row)), fmt::arg("i", i), fmt::arg("capture", row.capture),
      fmt::arg("connection", row.connection->summary.id), fmt::arg("id", d.name),
      fmt::arg("frame", rf.finding.frame), fmt::arg("seq", rf.finding.tcp_seq.value()),
      fmt::arg("direction", to_string(rf.finding.direction)),
      fmt::arg("rank", 2 - static_cast<int>(d.severity)),
      fmt::arg("kind", i < kPlacedFindings ? "d" : "f"),
      fmt::arg("message", esc(rf.finding.message)),
      fmt::arg("suppressed", rf.suppressed_by ? fmt::format(" <em>(suppressed: {})</em>",
                                                            esc(rf.suppressed_by->reason))
                                              : ""),
      fmt::arg("rfc", esc(d.rfc)),
      fmt::arg("code", d.error_code != MpaError::None ? std::to_string(number(d.error_code))
                                                      : std::string()));
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
    finding_row(row, i, c.findings[i]);
  }
  buf_ += "</tbody></table>\n";
  if (listed < c.findings.size()) {
    buf_ += fmt::format(
        "<p class=\"bounds\">{} further findings of this connection are not listed on this page "
        "(page bound; see --format json).</p>\n",
        c.findings.size() - listed);
  }
  // The cards of the first findings (those the trace placed), the worst first, then by frame.
  std::vector<std::size_t> cards(std::min(c.findings.size(), kPlacedFindings));
  for (std::size_t i = 0; i < cards.size(); ++i) cards[i] = i;
  std::stable_sort(cards.begin(), cards.end(), [&](std::size_t a, std::size_t b) {
    const Finding& fa = c.findings[a].finding;
    const Finding& fb = c.findings[b].finding;
    const auto sa = static_cast<int>(info(fa.id).severity);
    const auto sb = static_cast<int>(info(fb.id).severity);
    return sa != sb ? sa > sb : fa.frame < fb.frame;
  });
  const CaptureTrace& ct = traces_[row.capture];
  for (const std::size_t i : cards) {
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
      "<details class=\"conn\" open id=\"{anchor}\" data-capture-index=\"{capture}\" "
      "data-connection=\"{id}\" data-verdict=\"{word}\"><summary><span class=\"v v-{word}\">"
      "{word}</span> {file} · connection {id} · {initiator} → {responder}{stacks}</summary>\n",
      fmt::arg("anchor", anchor(row)), fmt::arg("capture", row.capture), fmt::arg("id", s.id),
      fmt::arg("word", row.verdict.word()), fmt::arg("file", esc(name(row.capture))),
      fmt::arg("initiator", endpoint_html(*row.connection, Direction::Initiator)),
      fmt::arg("responder", endpoint_html(*row.connection, Direction::Responder)),
      fmt::arg("stacks",
               (stacks(s).empty() ? "" : " · " + esc(stacks(s))) +
                   (row.connection->tunnel.empty() ? std::string()
                                                   : " · in " + esc(row.connection->tunnel))));
  parameters_table(*row.connection);
  if (captures_[row.capture].from_json) {
    // Read back from a JSON report: the octets are in the capture, linked.
    buf_ += fmt::format(
        "<p class=\"from-json\">From a JSON report: no ladder, charts or octets on this page; the "
        "capture is <a class=\"capture-link\" href=\"{href}\">{file}</a> (frames "
        "{first}–{last}).</p>\n",
        fmt::arg("href", esc(capture_href(captures_[row.capture].file, options_.folder))),
        fmt::arg("file", esc(captures_[row.capture].file)), fmt::arg("first", s.first_frame),
        fmt::arg("last", s.last_frame));
    findings(row, trace);
    buf_ += "</details>\n";
    flush();
    return;
  }
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

// Parameters and counts per direction, and the connection's frames and times.
void Page::parameters_table(const ConnectionReport& c) {
  const ConnectionSummary& s = c.summary;
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
  line("private data", s.request ? private_data_html(*s.request, kPrivateDataShown) : "",
       s.reply ? private_data_html(*s.reply, kPrivateDataShown) : "");
  line("sends with", esc(parameters(s, Direction::Initiator)),
       esc(parameters(s, Direction::Responder)));
  line("stack", esc(a.stack), esc(b.stack));
  const auto implementation = [&](Direction d) {
    const ImplementationName& n = c.implementation(d);
    std::string html = n.named() ? implementation_html(n) : std::string("not named");
    html += " · " + esc(n.address);
    if (const auto& mac = s.direction(d).mac) html += " · " + esc(to_string(*mac));
    return html;
  };
  line("implementation", implementation(Direction::Initiator),
       implementation(Direction::Responder));
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
}

void Page::write() {
  header();
  std::vector<Row> rows;
  for (std::size_t i = 0; i < captures_.size(); ++i) {
    for (const ConnectionReport& c : captures_[i].connections)
      rows.push_back({i, &c, verdict_of(c)});
  }
  matrix();
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
