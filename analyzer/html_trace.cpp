// Collecting what the HTML report draws (see html_trace.h). Field positions come from the
// library's layout functions (fpdu_layout.h, startup_layout.h); nothing here judges.
#include "html_trace.h"

#include <fmt/format.h>

#include <algorithm>

#include "mpa/ddp.h"
#include "mpa/fpdu_layout.h"
#include "mpa/marker_grid.h"
#include "mpa/sender_framing.h"
#include "mpa/startup_layout.h"
#include "mpa/terminate.h"
#include "report.h"

namespace mpa::report {
namespace {

constexpr std::uint32_t kDumpHead = 128;    // octets shown from an FPDU's start
constexpr std::uint32_t kDumpTail = 64;     // and before its end
constexpr std::uint32_t kDumpContext = 32;  // around a highlighted field

// The parts of `whole` a dump shows: its head, its tail and the highlighted fields with
// some context, merged, in stream order.
std::vector<SeqRange> shown_parts(SeqRange whole, const std::vector<Highlight>& highlights) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> parts;  // offsets into whole [from, to)
  auto add = [&](std::uint32_t from, std::uint32_t to) {
    from = std::min(from, whole.length);
    to = std::min(to, whole.length);
    if (from < to) parts.emplace_back(from, to);
  };
  add(0, kDumpHead);
  add(whole.length > kDumpTail ? whole.length - kDumpTail : 0, whole.length);
  for (const Highlight& h : highlights) {
    const std::uint32_t at = h.range.seq.distance_from(whole.seq);
    if (at >= whole.length) continue;
    add(at > kDumpContext ? at - kDumpContext : 0, at + h.range.length + kDumpContext);
  }
  std::sort(parts.begin(), parts.end());
  std::vector<SeqRange> out;
  std::uint32_t end = 0;
  for (auto [from, to] : parts) {
    // (16-octet rows: start parts on a row)
    from -= from % 16;
    if (!out.empty() && from <= end) {
      if (to > end) {
        out.back().length += to - end;
        end = to;
      }
      continue;
    }
    out.push_back(whole.sub(from, to - from));
    end = to;
  }
  return out;
}

// A finding about a Terminate message (rdmap.terminate, rdmap.terminate-encoding,
// rdmap.terminate-disagrees: the stable ids say so).
bool about_a_terminate(DiagId id) { return info(id).name.starts_with("rdmap.terminate"); }

// The fields of an FPDU a finding points at: the field the catalogue says it is about
// (DiagnosticInfo::field), the ULPDU_Length field beside it. `grid`: the markers of its
// direction.
std::vector<Highlight> fpdu_highlights(DiagId id, const FpduEvent& f, TcpSeq finding_seq,
                                       const MarkerGrid& grid) {
  std::vector<Highlight> out;
  const SeqRange length_field = ulpdu_length_field(f.header_seq);
  if (names_sender_framing(id)) {
    out.push_back({length_field, fmt::format("ULPDU_Length {} ({} octets of ULPDU sent)",
                                             f.ulpdu_length, f.ulpdu_size)});
    for_each_pad_run(grid, f.header_seq, f.ulpdu_size, f.pad_length, [&](SeqRange run) {
      out.push_back({run, fmt::format("pad as sent ({} octet{})", f.pad_length,
                                      f.pad_length == 1 ? "" : "s")});
      return true;
    });
    if (f.crc_field) {
      out.push_back({crc_field(f.start_seq, f.wire_length), "CRC field"});
    } else {
      out.push_back({missing_crc_field(f.start_seq, f.wire_length),
                     "no CRC field: the next FPDU begins where it belongs", true});
    }
    return out;
  }
  switch (info(id).field) {
    case DiagField::Crc:
      out.push_back({crc_field(f.start_seq, f.wire_length),
                     fmt::format("CRC received 0x{:08x}, computed 0x{:08x}", f.crc_received,
                                 f.crc_computed)});
      break;
    case DiagField::Ulpdu:
      // RFC 5040 4.8: a Terminate's verdict is in its Terminate Control field.
      if (about_a_terminate(id) &&
          f.ulpdu_size >= kTerminateControlOffset + kTerminateControlSize) {
        for_each_ulpdu_octets_run(
            grid, f.header_seq, kTerminateControlOffset, kTerminateControlSize, [&](SeqRange run) {
              out.push_back({run, "Terminate Control (Layer, EType, Error Code, M D R)"});
              return true;
            });
      }
      out.push_back({length_field, fmt::format("ULPDU_Length {}", f.ulpdu_length)});
      break;
    case DiagField::Pad: {
      for_each_pad_run(grid, f.header_seq, f.ulpdu_size, f.pad_length, [&](SeqRange run) {
        out.push_back({run, fmt::format("pad ({} octets)", f.pad_length)});
        return true;
      });
      break;
    }
    case DiagField::Marker: {
      for (const MarkerFact& m : f.markers) {
        if (m.seq != finding_seq) continue;
        std::string label = fmt::format("marker: reserved 0x{:04x}, FPDUPTR {} (expected {})",
                                        m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr);
        if (fpdu_ptr_byte_swapped({m.reserved, m.fpdu_ptr}, m.expected_fpdu_ptr)) {
          label += fmt::format(
              "; hint: 0x{:04x} read byte-swapped is {}, the expected value (host order, "
              "not network byte order)",
              m.fpdu_ptr, m.expected_fpdu_ptr);
        }
        out.push_back({marker_field(m.seq), std::move(label)});
        out.push_back({ulpdu_length_field(marker_target(m.seq, {m.reserved, m.fpdu_ptr})),
                       fmt::format("where FPDUPTR {} points", m.fpdu_ptr), true});
      }
      if (out.empty()) out.push_back({marker_field(finding_seq), "marker"});
      out.push_back({length_field, fmt::format("ULPDU_Length {}", f.ulpdu_length)});
      break;
    }
    default:
      out.push_back({length_field, fmt::format("ULPDU_Length {}", f.ulpdu_length)});
      break;
  }
  return out;
}

// The fields of a startup frame a finding points at: the field the catalogue says it is about.
std::vector<Highlight> startup_highlights(DiagId id, const StartupFrameFields& fields,
                                          const StartupFrame& frame) {
  std::vector<Highlight> out;
  auto add = [&out](SeqRange r, std::string label) {
    if (r.length) out.push_back({r, std::move(label)});
  };
  switch (info(id).field) {
    case DiagField::StartupKey:
      add(fields.key, "Key");
      break;
    case DiagField::StartupPdLength:
      add(fields.pd_length, fmt::format("PD_Length {}", frame.pd_length));
      break;
    case DiagField::StartupRevision:
      add(fields.revision, fmt::format("Rev {}", frame.revision));
      add(fields.vendor_extension, "vendor extension");
      break;
    case DiagField::StartupPrivateData:
    case DiagField::StartupEnhanced:
      add(fields.flags, fmt::format("flags 0x{:02x}", frame.flags));
      add(fields.enhanced, "IRD/ORD block");
      break;
    case DiagField::StartupFrame:
      add(fields.flags, fmt::format("flags 0x{:02x}", frame.flags));
      add(fields.revision, fmt::format("Rev {}", frame.revision));
      add(fields.vendor_extension, "vendor extension");
      break;
    default:
      add(fields.flags, fmt::format("flags 0x{:02x} (M C R S Res)", frame.flags));
      break;
  }
  return out;
}

Place startup_place(DiagId id, Direction d, TcpSeq at, const StartupFrame& frame,
                    std::uint64_t first_frame, std::uint64_t last_frame) {
  const StartupFrameFields fields = startup_frame_fields(at, frame);
  Place p;
  p.kind = Place::Kind::StartupFrame;
  p.direction = d;
  p.whole = fields.whole;
  p.first_frame = first_frame;
  p.last_frame = last_frame;
  p.highlights = startup_highlights(id, fields, frame);
  p.shown = shown_parts(p.whole, p.highlights);
  p.caption = fmt::format("MPA {} at seq {} (Rev {}, PD_Length {})", to_string(frame.kind),
                          at.value(), frame.revision, frame.pd_length);
  // The octets as received: the parser keeps every one of them, so no second read is needed.
  const std::vector<std::uint8_t> wire = startup_frame_octets(frame);
  for (const SeqRange& part : p.shown) {
    const std::uint32_t at_part = part.seq.distance_from(p.whole.seq);
    for (std::uint32_t k = 0; k < part.length; ++k) {
      const bool have = at_part + k < wire.size();
      p.octets.push_back(have ? wire[at_part + k] : 0);
      p.present.push_back(have);
    }
  }
  return p;
}

// The band at the end of the ladder, if it ends with one.
ladder::Band* last_band(ConnectionTrace& c) {
  return c.ladder.empty() ? nullptr : std::get_if<ladder::Band>(&c.ladder.back().what);
}

// The octets of an FPDU a finding (`id`, at `finding_seq`) concerns. `grid`: the markers of
// its direction (by default, through the FPDU's own: none, none in the way).
Place fpdu_place(DiagId id, const FpduEvent& fpdu, TcpSeq finding_seq,
                 std::optional<MarkerGrid> grid = std::nullopt, bool revised = false) {
  if (!grid) {
    grid = fpdu.markers.empty() ? MarkerGrid() : MarkerGrid::through(fpdu.markers.front().seq);
  }
  Place p;
  p.kind = Place::Kind::Fpdu;
  p.direction = fpdu.direction;
  p.whole = {fpdu.start_seq, fpdu.wire_length};
  // Sent without a CRC field: the dump goes on to where it belongs.
  if (!fpdu.crc_field)
    p.whole.length =
        missing_crc_field(fpdu.start_seq, fpdu.wire_length).end().distance_from(fpdu.start_seq);
  p.first_frame = fpdu.first_frame;
  p.last_frame = fpdu.last_frame;
  p.highlights = fpdu_highlights(id, fpdu, finding_seq, *grid);
  p.shown = shown_parts(p.whole, p.highlights);
  p.caption = fmt::format(
      "FPDU at seq {seq} (ULPDU_Length {length}, pad {pad}, {markers} marker{s}, CRC {crc})",
      fmt::arg("seq", fpdu.header_seq.value()), fmt::arg("length", fpdu.ulpdu_length),
      fmt::arg("pad", fpdu.pad_length), fmt::arg("markers", fpdu.markers.size()),
      fmt::arg("s", fpdu.markers.size() == 1 ? "" : "s"),
      fmt::arg("crc", fpdu.crc_field ? std::string(to_string(fpdu.crc_status))
                                     : std::string("field not sent")));
  if (revised) p.caption += ", as its sender framed it";
  return p;
}

// The marker strip of a direction: the first FPDUs from the first with a marker on, within
// kStripOctets.
void add_to_strip(std::vector<StripFpdu>& strip, const FpduEvent& fpdu) {
  if ((!fpdu.markers.empty() || !strip.empty()) && strip.size() < kStripFpdus &&
      (strip.empty() || fpdu.start_seq.distance_from(TcpSeq(strip.front().start)) < kStripOctets)) {
    strip.push_back({fpdu.start_seq.value(),
                     fpdu.wire_length,
                     fpdu.header_seq.value(),
                     {fpdu.markers.begin(), fpdu.markers.end()}});
  }
}

}  // namespace

namespace ladder {

std::string_view to_string(TcpFlag flag) {
  switch (flag) {
    case TcpFlag::Syn:
      return "SYN";
    case TcpFlag::Fin:
      return "FIN";
    case TcpFlag::Rst:
      return "RST";
  }
  return "?";
}

}  // namespace ladder

void TimeBins::add(std::uint64_t ns, std::uint64_t value) {
  if (ns < origin_ns) ns = origin_ns;
  while ((ns - origin_ns) / width_ns >= kTimeBins) {
    for (std::size_t i = 0; i < kTimeBins / 2; ++i) values[i] = values[2 * i] + values[2 * i + 1];
    for (std::size_t i = kTimeBins / 2; i < kTimeBins; ++i) values[i] = 0;
    width_ns *= 2;
  }
  values[(ns - origin_ns) / width_ns] += value;
}

ConnectionTrace& HtmlTracer::of(std::uint32_t connection) {
  return trace_.connections.at(connection);
}

void HtmlTracer::add(ConnectionTrace& c, LadderItem item) {
  if (c.ladder.size() >= kLadderMaxItems) c.ladder_full = true;
  c.ladder.push_back(std::move(item));
}

// The band the next uneventful FPDU joins: the last ladder item if it is a band, else a new one.
ladder::Band& HtmlTracer::band(ConnectionTrace& c, const FpduEvent& fpdu) {
  if (ladder::Band* b = last_band(c)) return *b;
  c.ladder.push_back({fpdu.direction, fpdu.last_frame, fpdu.timestamp_ns, ladder::Band{}, retime_});
  stamp(c, false, fpdu.last_frame);
  return std::get<ladder::Band>(c.ladder.back().what);
}

void HtmlTracer::clock(std::uint64_t frame, std::uint64_t ns) {
  if (ns != now_ns_) {
    now_ns_ = ns;
    stamped_.clear();
    return;
  }
  for (const Stamped& st : stamped_) {
    if (st.frame >= frame) continue;
    LadderItem& item = st.connection->ladder[st.item];
    if (!st.band_last) {
      item.retime = true;
    } else if (auto* b = std::get_if<ladder::Band>(&item.what)) {
      b->retime_last = true;
    }
  }
}

void HtmlTracer::stamp(ConnectionTrace& c, bool band_last, std::uint64_t frame) {
  if (stamped_.size() < 256) stamped_.push_back({&c, c.ladder.size() - 1, band_last, frame});
}

void HtmlTracer::on_connection_start(const ConnectionSummary& summary) {
  next_.on_connection_start(summary);
  open_.insert(summary.id);
  ConnectionTrace& c = trace_.connections[summary.id];
  for (TimeBins& b : c.throughput) b.origin_ns = summary.first_ns;
  for (TimeBins& b : c.findings_over_time) b.origin_ns = summary.first_ns;
}

void HtmlTracer::on_finding(const Finding& f) {
  next_.on_finding(f);
  const std::uint64_t seen_before = frame_seen_;
  frame_seen_ = std::max(frame_seen_, std::max(f.certain_at, f.frame));
  clock(std::max(f.certain_at, f.frame), f.timestamp_ns);
  if (!open_.contains(f.connection)) return;  // (kCaptureFinding is never open)
  ConnectionTrace& c = of(f.connection);
  const std::size_t index = c.findings_seen++;
  c.findings_over_time[static_cast<std::size_t>(info(f.id).severity)].add(f.timestamp_ns, 1);
  // (stamped when it became certain: the time of its own frame only if that is the same; one
  // reported after later frames were read, as at the capture's end, is stamped later too; the
  // time of its own frame where the library gives it, FramePlace)
  const std::uint64_t own_ns = f.frame_place.timestamp_ns;
  const bool retime =
      own_ns == 0 && ((f.certain_at != 0 && f.certain_at != f.frame) || f.frame < seen_before);
  if (!c.ladder_full) {
    add(c, {f.direction, f.frame, own_ns != 0 ? own_ns : f.timestamp_ns, ladder::Finding{index},
            retime});
    stamp(c, false, f.frame);
  } else if (ladder::Band* b = last_band(c)) {
    ++b->findings;
  } else {
    ladder::Band folded;
    folded.last_frame = f.frame;
    folded.last_ns = f.timestamp_ns;
    folded.retime_last = retime;
    folded.findings = 1;
    c.ladder.push_back({f.direction, f.frame, f.timestamp_ns, folded, retime});
  }
  if (index >= kPlacedFindings || trace_.places >= kPlacedFindingsPerCapture) return;
  const auto d = static_cast<std::size_t>(f.direction);
  if (f.id == DiagId::CaptureGap || f.id == DiagId::CaptureTruncated ||
      f.id == DiagId::ConnectionLostMidFpdu) {
    c.gaps[index] = {
        f.direction, {f.tcp_seq.value(), f.stream_offset, 0}, c.last_fpdu[d], std::nullopt};
    return;
  }
  if (const auto& last = c.last_startup[d]) {
    const StartupFrameFields fields = startup_frame_fields(last->first, last->second);
    if (fields.whole.contains(f.tcp_seq)) {
      c.places[index] =
          startup_place(f.id, f.direction, last->first, last->second, 0, c.last_startup_frame[d]);
      ++trace_.places;
      return;
    }
  }
  // About the FPDU reported last (a finding decided as or after it was reported)?
  if (const std::optional<FpduEvent>& last = c.last_event[d];
      last && f.stream_offset >= last->start_offset && f.stream_offset < end_offset(*last)) {
    c.places[index] = fpdu_place(f.id, *last, f.tcp_seq);
    ++trace_.places;
    if (!names_sender_framing(f.id)) return;  // (else a revision of that FPDU may follow)
  }
  c.waiting.push_back({index, f.direction, f.stream_offset, f.id, f.tcp_seq});
}

void HtmlTracer::on_startup_frame(std::uint32_t connection, Direction direction,
                                  const StartupFrame& frame, std::uint64_t frame_number,
                                  TcpSeq seq) {
  next_.on_startup_frame(connection, direction, frame, frame_number, seq);
  frame_seen_ = std::max(frame_seen_, frame_number);
  if (!open_.contains(connection)) return;
  ConnectionTrace& c = of(connection);
  const auto d = static_cast<std::size_t>(direction);
  c.last_startup[d] = std::make_pair(seq, frame);
  c.last_startup_frame[d] = frame_number;
  // (its time is read again from its frame: the connection's time for the Request or the
  // Reply is that of the segment at which the library took it, another frame's when it came
  // late, when its octets were held and replayed, or when the connection has more than one
  // of its kind)
  add(c, {direction, frame_number, 0, ladder::Startup{frame, seq.value()}, true});
  const StartupFrameFields fields = startup_frame_fields(seq, frame);
  std::erase_if(c.waiting, [&](const ConnectionTrace::Waiting& w) {
    if (w.direction != direction || !fields.whole.contains(w.seq)) return false;
    c.places[w.index] = startup_place(w.id, direction, seq, frame, 0, frame_number);
    ++trace_.places;
    return true;
  });
}

void HtmlTracer::on_fpdu(const FpduEvent& fpdu) {
  next_.on_fpdu(fpdu);
  // Reported after a later frame was read (held for a framing decision): not its frame's time.
  retime_ = fpdu.last_frame < frame_seen_;
  frame_seen_ = std::max(frame_seen_, fpdu.last_frame);
  clock(fpdu.last_frame, fpdu.timestamp_ns);
  if (fpdu.connection != last_id_) {
    if (!open_.contains(fpdu.connection)) return;
    last_id_ = fpdu.connection;
    last_ = &of(fpdu.connection);
  }
  ConnectionTrace& c = *last_;
  const auto d = static_cast<std::size_t>(fpdu.direction);
  c.throughput[d].add(fpdu.timestamp_ns, fpdu.ulpdu_length);
  if (!fpdu.markers.empty()) c.last_marker[d] = fpdu.markers.back().seq;
  c.last_markers[d].assign(fpdu.markers.begin(), fpdu.markers.end());
  FpduEvent& last = c.last_event[d].emplace(fpdu);
  last.markers = c.last_markers[d];
  last.ulpdu_head = {};
  last.ulpdu = {};
  if (auto& past = c.reaching_past[d]) {  // (its octets after the last: this FPDU's first)
    if (auto it = c.places.find(*past); it != c.places.end())
      it->second.last_frame = std::max(it->second.last_frame, fpdu.first_frame);
    past.reset();
  }
  const StreamSpan span{fpdu.start_seq.value(), fpdu.start_offset, fpdu.wire_length};
  c.last_fpdu[d] = span;
  for (auto& [index, gap] : c.gaps) {
    if (gap.direction == fpdu.direction && !gap.after && fpdu.start_offset >= gap.at.offset)
      gap.after = span;
  }
  add_to_strip(c.strip[d], fpdu);
  const RdmaMessage* message = c.messages.on_fpdu(fpdu);
  ladder_fpdu(c, fpdu, place_waiting(c, fpdu), message);
}

// A framing deviation was named: the findings about the FPDU it names (they arrive just
// before) get the dump of that FPDU as its sender framed it.
void HtmlTracer::on_fpdu_revised(const FpduEvent& revised, bool markers) {
  next_.on_fpdu_revised(revised, markers);
  if (!open_.contains(revised.connection)) return;
  ConnectionTrace& c = of(revised.connection);
  const auto d = static_cast<std::size_t>(revised.direction);
  FpduEvent sent = revised;
  sent.markers = {};  // (not given again: the grid of the direction places them)
  sent.ulpdu_head = {};
  sent.ulpdu = {};
  const MarkerGrid grid =
      markers && c.last_marker[d] ? MarkerGrid::through(*c.last_marker[d]) : MarkerGrid();
  const std::uint64_t end = end_offset(sent);
  redraw_revised(c, sent);
  std::erase_if(c.waiting, [&](const ConnectionTrace::Waiting& w) {
    if (w.direction != sent.direction || w.offset < sent.start_offset || w.offset >= end)
      return false;
    // (placed already on the FPDU as first reported: redrawn)
    const bool fresh =
        c.places.insert_or_assign(w.index, fpdu_place(w.id, sent, w.seq, grid, true)).second;
    if (!sent.crc_field) c.reaching_past[d] = w.index;
    if (fresh) ++trace_.places;
    return true;
  });
}

// The FPDU as first reported, drawn on the ladder at the frame that completed it as the RFC
// frames it: drawn again at the frame that completes it as its sender framed it (the frame of
// the finding that names the deviation), at that frame's time, after that finding's pin (a
// finding's pin comes before its FPDU's arrow; the findings arrive just before).
void HtmlTracer::redraw_revised(ConnectionTrace& c, const FpduEvent& revised) {
  for (std::size_t k = c.ladder.size(); k-- > 0;) {
    const auto* drawn = std::get_if<ladder::Fpdu>(&c.ladder[k].what);
    if (!drawn || c.ladder[k].direction != revised.direction ||
        drawn->seq != revised.header_seq.value())
      continue;
    if (c.ladder[k].frame == revised.last_frame) return;
    LadderItem moved = std::move(c.ladder[k]);
    moved.frame = revised.last_frame;
    moved.retime = true;
    c.ladder.erase(c.ladder.begin() + static_cast<std::ptrdiff_t>(k));
    c.ladder.push_back(std::move(moved));
    std::erase_if(stamped_, [&](const Stamped& st) { return st.connection == &c && st.item == k; });
    for (Stamped& st : stamped_) {
      if (st.connection == &c && st.item > k) --st.item;
    }
    return;
  }
}

// Findings about this FPDU (they arrive before it): where it is, and its fields. True if
// any concerns it.
bool HtmlTracer::place_waiting(ConnectionTrace& c, const FpduEvent& fpdu) {
  if (c.waiting.empty()) return false;
  bool eventful = false;
  const std::uint64_t end = end_offset(fpdu);
  std::erase_if(c.waiting, [&](const ConnectionTrace::Waiting& w) {
    if (w.direction != fpdu.direction || w.offset >= end) return false;
    if (w.offset >= fpdu.start_offset) {
      c.places[w.index] = fpdu_place(w.id, fpdu, w.seq);
      ++trace_.places;
      eventful = true;
    }
    return true;  // placed, or about octets before this FPDU (no FPDU of its own)
  });
  return eventful;
}

// The FPDU on the ladder: drawn on its own, or joining a band.
void HtmlTracer::ladder_fpdu(ConnectionTrace& c, const FpduEvent& fpdu, bool eventful,
                             const RdmaMessage* message) {
  const auto d = static_cast<std::size_t>(fpdu.direction);
  const std::int64_t number = message ? static_cast<std::int64_t>(message->number) : -1;
  const bool begins = number > c.last_message[d];
  if (begins) c.last_message[d] = number;
  const bool pinned_before = !c.ladder.empty() &&
                             std::holds_alternative<ladder::Finding>(c.ladder.back().what) &&
                             c.ladder.back().frame == fpdu.last_frame;
  if (!c.ladder_full &&
      (eventful || pinned_before || c.fpdus_drawn[d] < kLadderFpdusPerDirection)) {
    ++c.fpdus_drawn[d];
    ladder::Fpdu drawn{fpdu.header_seq.value(), fpdu.ulpdu_length, -1, fpdu.crc_status};
    if (auto ddp = decode_ddp(fpdu.ulpdu_head)) drawn.rdmap_opcode = ddp->opcode;
    drawn.message = number;
    add(c, {fpdu.direction, fpdu.last_frame, fpdu.timestamp_ns, drawn, retime_});
    stamp(c, false, fpdu.last_frame);
    return;
  }
  ladder::Band& b = band(c, fpdu);
  ++b.fpdus[d];
  b.octets += fpdu.ulpdu_length;
  b.last_frame = fpdu.last_frame;
  b.last_ns = fpdu.timestamp_ns;
  b.retime_last = retime_;
  if (begins) ++b.messages;
  stamp(c, true, fpdu.last_frame);
}

void HtmlTracer::on_connection_end(const ConnectionSummary& summary) {
  next_.on_connection_end(summary);
  if (summary.id == last_id_) last_id_ = UINT32_MAX;
  if (!open_.contains(summary.id)) return;
  ConnectionTrace& c = of(summary.id);
  std::erase_if(stamped_, [&](const Stamped& st) { return st.connection == &c; });
  c.waiting.clear();
  c.waiting.shrink_to_fit();
  for (auto& s : c.last_startup) s.reset();
  for (LadderItem& item : c.ladder) {
    const auto* startup = std::get_if<ladder::Startup>(&item.what);
    if (!startup || item.ns) continue;
    item.ns = startup->frame.kind == FrameKind::Reply ? summary.reply_ns : summary.request_ns;
  }
  // TCP control segments, by frame among the rest.
  for (Direction d : {Direction::Initiator, Direction::Responder}) {
    const TcpControlSeen& tcp = summary.direction(d).tcp;
    const std::pair<const TcpFlagSeen*, ladder::TcpFlag> flags[] = {
        {&tcp.syn, ladder::TcpFlag::Syn},
        {&tcp.fin, ladder::TcpFlag::Fin},
        {&tcp.rst, ladder::TcpFlag::Rst}};
    for (auto [seen, flag] : flags) {
      if (seen->frame == 0) continue;
      c.ladder.push_back({d, seen->frame, seen->ns, ladder::Tcp{flag}});
    }
  }
  std::stable_sort(c.ladder.begin(), c.ladder.end(),
                   [](const LadderItem& a, const LadderItem& b) { return a.frame < b.frame; });
  open_.erase(summary.id);
}

}  // namespace mpa::report
