// The text report for people: errors and warnings first, one compiler-style line each
// (file:frame: severity: message (where; RFC) [id]), repeats folded; notes and per-connection
// summaries on request; one line per capture with its verdict and counts by id; then the
// captures that failed.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <map>

#include "mpa/conformance.h"
#include "report.h"

namespace mpa::report {
namespace {

// ANSI colours for the severity word, when the output is a terminal (or --color always).
std::string severity_word(Severity s, bool color) {
  const std::string_view word = to_string(s);
  if (!color) return std::string(word);
  const char* code = s == Severity::Error ? "1;31" : s == Severity::Warning ? "1;35" : "1;36";
  return fmt::format("\033[{}m{}\033[0m", code, word);
}

// The word of a finding line: its severity, or "suppressed" for a finding a rule accepted
// (so that grep ': error:' counts what the totals count).
std::string finding_word(const ReportedFinding& f, bool color) {
  if (!f.suppressed_by) return severity_word(info(f.finding.id).severity, color);
  return color ? "\033[2msuppressed\033[0m" : "suppressed";
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
             "    {:<9} markers {}, CRC {}{}; {}, {} ULPDU octets, {}; "
             "{:.0f}% of segments start an FPDU, {:.0f}% of FPDUs in one segment\n",
             name, on_off(d.markers), on_off(d.crc), d.inferred ? " (inferred)" : "",
             count_of(d.fpdus, "FPDU"), d.ulpdu_bytes, count_of(d.crc_failures, "CRC failure"),
             aligned, whole);
  std::string sizes;
  for (std::size_t i = 0; i < d.ulpdu_sizes.size(); ++i) {
    if (d.ulpdu_sizes[i]) sizes += fmt::format(" {}:{}", ulpdu_bucket_label(i), d.ulpdu_sizes[i]);
  }
  std::string opcodes;
  for (std::size_t i = 0; i < d.rdmap_opcodes.size(); ++i) {
    if (d.rdmap_opcodes[i])
      opcodes += fmt::format(" {}:{}", rdmap_opcode_name(i), d.rdmap_opcodes[i]);
  }
  fmt::print(out, "              max ULPDU {}{}; ULPDU sizes{}; RDMAP{}{}\n", d.max_ulpdu,
             d.mulpdu ? fmt::format(" (MULPDU {} from MSS {})", d.mulpdu, d.mss.value_or(0))
                      : std::string(),
             sizes.empty() ? " -" : sizes, opcodes.empty() ? " -" : opcodes,
             d.stack.empty() ? std::string() : fmt::format("; looks like {}", d.stack));
}

// One line per capture: its verdict, the counts, and the counts by id.
void write_capture_line(std::ostream& out, const CaptureReport& cap, const TextOptions& options) {
  if (cap.missing) {
    fmt::print(out, "{}: {}: no such file or directory\n", cap.file,
               options.color ? "\033[1;31mFAIL\033[0m" : "FAIL");
    return;
  }
  if (cap.not_opened) {
    // Not opened at all (not a capture file, an empty one): the reason on the failing line.
    std::string_view reason(cap.result.error);
    if (reason.starts_with(cap.file + ": ")) reason.remove_prefix(cap.file.size() + 2);
    fmt::print(out, "{}: {}: {}\n", cap.file, options.color ? "\033[1;31mFAIL\033[0m" : "FAIL",
               reason);
    return;
  }
  const bool failed = fails(cap, options.policy) || !cap.result.ok;
  std::string by_id;
  for (const auto& [id, n] : cap.active_by_id) {
    by_id += fmt::format("{}{} {}", by_id.empty() ? ": " : ", ", info(id).name, n);
  }
  const std::uint64_t suppressed = cap.suppressed[Severity::Error] +
                                   cap.suppressed[Severity::Warning] +
                                   cap.suppressed[Severity::Note];
  // TCP but no MPA in it (an HTTP capture, the wrong port range captured) passes unless
  // --require-mpa: never in silence.
  const std::string connections = cap.mpa_connections == 0 && cap.tcp_connections != 0
                                      ? fmt::format("no MPA traffic found in {}",
                                                    count_of(cap.tcp_connections, "TCP connection"))
                                      : count_of(cap.mpa_connections, "connection") + " with MPA";
  // Let go for being idle (--idle-timeout): a count, never a finding.
  const std::string expired =
      cap.expired_connections ? fmt::format(" ({} expired)", cap.expired_connections) : "";
  fmt::print(out, "{}: {}: {} frames, {}{}; {}, {}, {}{}{}\n", cap.file,
             failed ? (options.color ? "\033[1;31mFAIL\033[0m" : "FAIL") : "ok",
             cap.result.stats.frames, connections, expired,
             count_of(cap.active[Severity::Error], "error"),
             count_of(cap.active[Severity::Warning], "warning"),
             count_of(cap.active[Severity::Note], "note"),
             suppressed ? fmt::format(" ({} suppressed)", suppressed) : std::string(), by_id);
  // Frames that may hide TCP are never passed over in silence, nor IP fragments.
  const std::string not_tcp = not_tcp_counts(cap.result.stats);
  const std::string reassembly = ip_reassembly_counts(cap.result.stats);
  if (!not_tcp.empty() || !reassembly.empty()) {
    std::string how;
    if (const std::uint64_t tunnelled = cap.result.stats.tunnelled_segments; tunnelled != 0) {
      how = fmt::format("{} in tunnels", tunnelled);
    }
    if (!reassembly.empty()) how += (how.empty() ? "" : ", ") + reassembly;
    fmt::print(out, "{}:   {} TCP segments{}{}\n", cap.file, cap.result.stats.tcp_segments,
               how.empty() ? std::string() : " (" + how + ")",
               not_tcp.empty() ? std::string() : "; not TCP: " + not_tcp);
  }
  const std::string warning = unreached_warning(cap.result.stats);
  if (!warning.empty()) {
    fmt::print(out, "{}: {}: {}\n", cap.file,
               options.color ? "\033[1;35mwarning\033[0m" : "warning", warning);
  }
  // A live capture: what libpcap counted, and what it lost.
  if (const std::string live = live_counts(cap.result); !live.empty()) {
    fmt::print(out, "{}:   {}\n", cap.file, live);
  }
  if (const std::string drops = drops_warning(cap.result); !drops.empty()) {
    fmt::print(out, "{}: {}: {}\n", cap.file,
               options.color ? "\033[1;35mwarning\033[0m" : "warning", drops);
  }
}

// One line of --list-messages, at the frame that completed the message's last FPDU.
std::string message_line(const std::string& file, std::uint32_t connection, const RdmaMessage& m) {
  return fmt::format("{}:{}: message: connection {} {} #{} {} (frames {}-{})\n", file, m.last_frame,
                     connection, to_string(m.direction), m.number, rdma_message_words(m),
                     m.first_frame, m.last_frame);
}

}  // namespace

bool listed(const ReportedFinding& f, const TextOptions& options) {
  if (f.suppressed_by && !options.suppressed) return false;
  return options.notes || info(f.finding.id).severity != Severity::Note;
}

void write_connection(std::ostream& out, const ConnectionReport& c) {
  const ConnectionSummary& s = c.summary;
  std::string startup = "startup not seen";
  if (s.request) {
    startup = describe(*s.request);
    if (s.reply) startup += "; " + describe(*s.reply);
  }
  fmt::print(out, "  connection {}: {} (initiator -> responder){}, frames {}-{}\n", s.id,
             describe_endpoints(c), c.tunnel.empty() ? std::string() : " in " + c.tunnel,
             s.first_frame, s.last_frame);
  fmt::print(out, "    startup   {}\n", startup);
  if (s.request_ns && s.reply_ns && s.reply_ns >= s.request_ns) {
    fmt::print(out, "    latency   Request->Reply {} us{}\n", (s.reply_ns - s.request_ns) / 1000,
               s.first_fpdu_ns >= s.reply_ns && s.first_fpdu_ns
                   ? fmt::format(", Reply->first FPDU {} us", (s.first_fpdu_ns - s.reply_ns) / 1000)
                   : std::string());
  }
  write_direction(out, "initiator", s.direction(Direction::Initiator));
  write_direction(out, "responder", s.direction(Direction::Responder));
  fmt::print(out, "    findings  {}, {}, {}{}\n", count_of(s.findings[Severity::Error], "error"),
             count_of(s.findings[Severity::Warning], "warning"),
             count_of(s.findings[Severity::Note], "note"),
             c.findings_not_stored ? fmt::format(" ({} not listed)", c.findings_not_stored)
                                   : std::string());
}

// file:frame: severity: message (where; RFC, code) [id] -- the message first, the rest after.
std::string finding_line(const std::string& file, const ReportedFinding& rf,
                         const ConnectionSummary* c, bool color, bool certain_at,
                         std::string_view side_name) {
  const Finding& f = rf.finding;
  const DiagnosticInfo& d = info(f.id);
  std::string where;
  if (c)
    where = fmt::format(
        "connection {}, {} data{}, seq {}{}; ", c->id, to_string(f.direction),
        side_name.empty() ? std::string() : fmt::format(" ({})", side_name), f.tcp_seq.value(),
        certain_at && f.certain_at > f.frame ? fmt::format(", certain at frame {}", f.certain_at)
                                             : std::string());
  std::string reference(d.rfc);
  if (d.error_code != MpaError::None) reference += fmt::format(", code {}", number(d.error_code));
  std::string suppressed;
  if (rf.suppressed_by) {
    suppressed =
        fmt::format(" ({} suppressed by {}:{}: {})", to_string(d.severity), rf.suppressed_by->file,
                    rf.suppressed_by->line, rf.suppressed_by->reason);
  } else if (rf.over_count) {
    suppressed = fmt::format(" (over the {} accepted by {}:{})", *rf.over_count->count,
                             rf.over_count->file, rf.over_count->line);
  }
  return fmt::format("{}:{}: {}: {} ({}{}) [{}]{}\n", file, f.frame, finding_word(rf, color),
                     f.message, where, reference, d.name, suppressed);
}

std::string fold_line(const std::string& file, const ReportedFinding& first_folded,
                      std::uint64_t more, std::uint32_t connection, bool color) {
  const DiagnosticInfo& d = info(first_folded.finding.id);
  return fmt::format("{}:{}: {}: ... and {} more like this in connection {} (from frame {}) [{}]\n",
                     file, first_folded.finding.frame, finding_word(first_folded, color), more,
                     connection, first_folded.finding.frame, d.name);
}

void write_text(std::ostream& out, const std::vector<CaptureReport>& captures,
                const TextOptions& options) {
  for (const CaptureReport& cap : captures) {
    struct Line {
      std::uint64_t frame;
      std::size_t order;
      std::string text;
    };
    std::vector<Line> lines;
    auto shown = [&](const ReportedFinding& f) { return listed(f, options); };
    for (const ConnectionReport& c : cap.connections) {
      // Fold repeats: after `fold_after` findings of one id in this connection (suppressed
      // ones apart), one line says how many more there were.
      std::map<std::pair<DiagId, bool>, std::pair<std::uint64_t, const ReportedFinding*>> repeats;
      for (const ReportedFinding& f : c.findings) {
        if (!shown(f)) continue;
        auto& [n, first_folded] = repeats[{f.finding.id, f.suppressed_by != nullptr}];
        if (++n <= options.fold_after) {
          lines.push_back({f.finding.frame, lines.size(),
                           finding_line(cap.file, f, &c.summary, options.color, options.certain_at,
                                        c.implementation(f.finding.direction).label())});
        } else if (n == options.fold_after + 1) {
          first_folded = &f;
        }
      }
      for (const auto& [id, repeat] : repeats) {
        const auto& [n, first_folded] = repeat;
        if (n <= options.fold_after) continue;
        lines.push_back({first_folded->finding.frame, lines.size(),
                         fold_line(cap.file, *first_folded, n - options.fold_after, c.summary.id,
                                   options.color)});
      }
    }
    for (const ConnectionReport& c : cap.connections) {
      for (const FpduRecord& r : c.fpdus) {
        lines.push_back(
            {r.frame, lines.size(),
             fmt::format("{}:{}: fpdu: connection {} {} seq {} ULPDU_Length {} CRC {} markers {} "
                         "(frame {}: the one completing it; it starts in frame {})\n",
                         cap.file, r.frame, c.summary.id, to_string(r.direction), r.seq.value(),
                         r.ulpdu_length, to_string(r.crc), r.markers, r.frame, r.first_frame)});
      }
    }
    for (const ConnectionReport& c : cap.connections) {
      for (const RdmaMessage& m : c.messages.list) {
        lines.push_back({m.last_frame, lines.size(), message_line(cap.file, c.summary.id, m)});
      }
    }
    for (const ReportedFinding& f : cap.capture_findings) {
      if (shown(f))
        lines.push_back(
            {f.finding.frame, lines.size(), finding_line(cap.file, f, nullptr, options.color)});
    }
    std::stable_sort(lines.begin(), lines.end(),
                     [](const Line& a, const Line& b) { return a.frame < b.frame; });
    if (options.list_findings) {
      for (const Line& line : lines) out << line.text;
    }
    if (options.connections) {
      for (const ConnectionReport& c : cap.connections) write_connection(out, c);
    }
    if (options.capture_lines) write_capture_line(out, cap, options);
  }
}

void write_rule_review(std::ostream& out, const RuleReview& review) {
  if (!review.accepted_nothing.empty()) {
    // Said plainly, so that findings a baseline was meant to accept do not come back unexplained.
    fmt::print(out,
               "{}: accepted nothing: none of this run's captures is one its rules name (paths "
               "are relative to the file as named, symbolic links not resolved); they expect:\n",
               review.accepted_nothing);
    const std::size_t shown = std::min<std::size_t>(review.expected.size(), 10);
    for (std::size_t i = 0; i < shown; ++i) fmt::print(out, "  {}\n", review.expected[i]);
    if (review.expected.size() > shown)
      fmt::print(out, "  and {} more\n", review.expected.size() - shown);
  }
  for (const Suppression* rule : review.unused) {
    fmt::print(out,
               "{}:{}: unused: suppression rule matched nothing in this run (id={}): remove it "
               "or fix it\n",
               rule->file, rule->line, rule->id);
  }
  for (const auto& [rule, most] : review.under_count) {
    fmt::print(out,
               "{}:{}: note: count={} but at most {} occurred in a capture (id={}): the count "
               "may be lowered\n",
               rule->file, rule->line, *rule->count, most, rule->id);
  }
}

void write_text_end(std::ostream& out, const std::vector<CaptureReport>& captures,
                    const TextOptions& options) {
  const Totals t = totals(captures, options.policy);
  if (t.failed_captures) {
    fmt::print(out, "mpa-check: {} of {} failed:\n", t.failed_captures,
               count_of(captures.size(), "capture"));
    for (const CaptureReport& cap : captures) {
      if (fails(cap, options.policy) || !cap.result.ok) {
        fmt::print(out, "  {} ({})\n", cap.file, failure_reason(cap, options.policy));
      }
    }
  }
  const std::uint64_t suppressed = t.suppressed[Severity::Error] + t.suppressed[Severity::Warning] +
                                   t.suppressed[Severity::Note];
  fmt::print(
      out, "mpa-check: {}, {}: {}, {}, {}{}\n", count_of(captures.size(), "capture"),
      count_of(t.connections, "MPA connection"), count_of(t.active[Severity::Error], "error"),
      count_of(t.active[Severity::Warning], "warning"), count_of(t.active[Severity::Note], "note"),
      suppressed ? fmt::format(", {} suppressed", suppressed) : std::string());
}

void write_catalogue(std::ostream& out, bool json) {
  if (json) {
    write_catalogue_json(out);
    return;
  }
  for (const DiagnosticInfo& d : catalogue()) {
    // The rules it checks (--list-rules), or why it checks none.
    const std::string rules = rule_ids_of(d.id);
    const auto beyond = beyond_rules(d.id);
    fmt::print(out, "{:<38} {:<8} {:<20} {}  {}  [{}]\n", d.name, to_string(d.severity), d.rfc,
               d.error_code != MpaError::None ? fmt::format("code {}", number(d.error_code))
                                              : std::string("-     "),
               d.summary,
               !rules.empty() ? fmt::format("rules {}", rules)
               : beyond       ? fmt::format("beyond the RFCs: {}", to_string(beyond->scope))
                              : std::string("no rule"));
  }
}

void write_rules(std::ostream& out, bool json) {
  if (json) {
    write_rules_json(out);
    return;
  }
  // One line a rule: id, where, keyword, where a breach shows, coverage, our words [ids].
  std::array<std::size_t, 6> requirements{};
  std::array<std::size_t, 3> observables{};
  std::array<std::size_t, 3> coverages{};
  for (const ConformanceRule& rule : conformance_rules()) {
    std::string ids;
    for (const DiagId id : rule.ids())
      ids += fmt::format("{}{}", ids.empty() ? "" : ", ", info(id).name);
    fmt::print(out, "{:<16} {:<15} {:<10} {:<11} {:<9} {:<8} {}{}\n", rule.id,
               fmt::format("{} {}", to_string(rule.rfc), rule.section), lines_of(rule),
               to_string(rule.requirement), to_string(rule.observable), to_string(rule.coverage),
               rule.summary, ids.empty() ? std::string() : fmt::format(" [{}]", ids));
    ++requirements[static_cast<std::size_t>(rule.requirement)];
    ++observables[static_cast<std::size_t>(rule.observable)];
    ++coverages[static_cast<std::size_t>(rule.coverage)];
  }
  // The counts, in the enums' order: "111 MUST, 12 MUST NOT, ..."
  const auto counts = [](const auto& by, auto as) {
    std::string line;
    for (std::size_t i = 0; i < by.size(); ++i) {
      using Enum = decltype(as);
      if (by[i])
        line += fmt::format("{}{} {}", line.empty() ? "" : ", ", by[i],
                            to_string(static_cast<Enum>(i)));
    }
    return line;
  };
  fmt::print(out, "{} rules ({}); observable: {}; coverage: {}\n", conformance_rules().size(),
             counts(requirements, Requirement{}), counts(observables, Observable{}),
             counts(coverages, Coverage{}));
}

std::string utc_time(std::uint64_t ns) {
  const std::time_t seconds = static_cast<std::time_t>(ns / 1'000'000'000u);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ns % 1'000'000'000u / 1000u);
}

}  // namespace mpa::report
