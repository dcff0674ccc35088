// The octets behind the HTML report's hex dumps, read back from the capture file: a second
// pass that decodes only the frames between the first and the last frame that hold a dumped
// place (from the first frame on when IP fragments are to be reassembled), and stops after
// the last. The octets are the capture's own (the first copy of each sequence number, as the
// reassembler keeps it), never rebuilt from parsed values.
#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>
#include <variant>

#include "html_trace.h"
#include "mpa/capture_reader.h"
#include "mpa/frame_feeder.h"
#include "mpa/ip_reassembly.h"
#include "mpa/pipeline.h"
#include "report.h"

namespace mpa::report {
namespace {

struct Want {
  Place* place;
  std::uint64_t from, to;  // frames
};

// Copies the octets of `seg` that fall into the parts `place` shows.
void copy_overlap(const TcpSegment& seg, Place& place) {
  const auto plen = static_cast<std::uint32_t>(seg.payload.size());
  std::size_t base = 0;  // index into place.octets of the current part
  for (const SeqRange& r : place.shown) {
    std::uint32_t part_at = 0, seg_at = 0, count = 0;
    const std::uint32_t d = r.seq.distance_from(seg.seq);
    if (d < plen) {
      seg_at = d;
      count = std::min(plen - d, r.length);
    } else {
      const std::uint32_t e = seg.seq.distance_from(r.seq);
      if (e < r.length) {
        part_at = e;
        count = std::min(r.length - e, plen);
      }
    }
    for (std::uint32_t i = 0; i < count; ++i) {
      const std::size_t k = base + part_at + i;
      if (place.present[k]) continue;
      place.octets[k] = seg.payload[seg_at + i];
      place.present[k] = true;
    }
    base += r.length;
  }
}

// The first pass reported what reassembly met; this one only needs the datagrams.
struct Quiet : IpReassemblyEvents {
  void on_fragment_overlap_mismatch(std::uint64_t, std::uint64_t, std::string) override {}
  void on_datagram_incomplete(const IncompleteDatagram&) override {}
};

using Wants = std::map<std::pair<Endpoint, Endpoint>, std::vector<Want>>;  // (source, destination)
using Retimes = std::map<std::uint64_t, std::vector<std::uint64_t*>>;  // frame: the times to set

// The frames the second pass reads: from the first to the last that a place or a time needs.
struct FrameSpan {
  std::uint64_t first = UINT64_MAX, last = 0;
  void add(std::uint64_t from, std::uint64_t to) {
    first = std::min(first, from);
    last = std::max(last, to);
  }
};

// The dumped places of the connections (their octets made room for), by flow.
Wants wanted_places(const std::vector<ConnectionReport>& connections, CaptureTrace& trace,
                    FrameSpan& span) {
  Wants wants;
  for (const ConnectionReport& c : connections) {
    auto t = trace.connections.find(c.summary.id);
    if (t == trace.connections.end()) continue;
    for (auto& [index, place] : t->second.places) {
      if (place.kind != Place::Kind::Fpdu) continue;  // startup frames: octets kept as parsed
      std::size_t total = 0;
      for (const SeqRange& r : place.shown) total += r.length;
      place.octets.assign(total, 0);
      place.present.assign(total, false);
      const bool from_initiator = place.direction == Direction::Initiator;
      const Endpoint& src = from_initiator ? c.summary.initiator : c.summary.responder;
      const Endpoint& dst = from_initiator ? c.summary.responder : c.summary.initiator;
      const std::uint64_t from = std::max(place.first_frame, c.summary.first_frame);
      const std::uint64_t to = place.last_frame ? place.last_frame : c.summary.last_frame;
      wants[{src, dst}].push_back({&place, from, to});
      span.add(from, to);
    }
  }
  return wants;
}

// The ladder's rows at the capture time of their frames, where the library's time may be
// another frame's (LadderItem::retime, Band::retime_last).
Retimes frames_to_retime(CaptureTrace& trace) {
  Retimes times;
  std::vector<std::pair<std::uint64_t, std::uint64_t*>> band_ends;
  for (auto& [id, c] : trace.connections) {
    for (LadderItem& item : c.ladder) {
      if (item.retime && item.frame) times[item.frame].push_back(&item.ns);
      if (auto* band = std::get_if<ladder::Band>(&item.what);
          band && band->retime_last && band->last_frame)
        band_ends.emplace_back(band->last_frame, &band->last_ns);
    }
  }
  for (auto [frame, ns] : band_ends) times[frame].push_back(ns);
  return times;
}

// The capture cannot be read again: the places show no octets, and the page says why.
void unreadable(Wants& wants, CaptureTrace& trace, std::string note) {
  trace.bytes_readable = false;
  trace.bytes_note = std::move(note);
  for (auto& [flow, list] : wants) {
    for (Want& w : list) w.place->octets.clear(), w.place->present.clear();
  }
}

// Frames worth decoding: the union of the places' frame ranges, asked in frame order.
class FrameRanges {
 public:
  enum class Answer : std::uint8_t { Wanted, NotWanted, NoMore };
  explicit FrameRanges(const Wants& wants) {
    for (const auto& [flow, list] : wants) {
      for (const Want& w : list) ranges_.emplace_back(w.from, w.to);
    }
    std::sort(ranges_.begin(), ranges_.end());
  }
  Answer at(std::uint64_t frame) {
    while (next_ < ranges_.size() && ranges_[next_].second < frame) ++next_;
    if (next_ == ranges_.size()) return Answer::NoMore;
    for (std::size_t r = next_; r < ranges_.size() && ranges_[r].first <= frame; ++r) {
      if (ranges_[r].second >= frame) return Answer::Wanted;
    }
    return Answer::NotWanted;
  }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;
  std::size_t next_ = 0;
};

// The TCP segment of the datagram a record completes (a fragment) or carries.
DecodeResult reassembled(IpReassembler& reassembler, const CaptureRecord& record,
                         const DecodeOptions& decode, Quiet& quiet) {
  DecodeResult decoded = decode_captured(captured_frame(record), decode);
  if (decoded.status == DecodeStatus::IpFragment) {
    DecodeResult carried;  // the segment of the datagram this fragment completes
    reassemble(reassembler, decoded, record.number, record.timestamp_ns, decode, quiet,
               [&](const DecodeResult& datagram) {
                 if (datagram.status == DecodeStatus::Tcp) carried = datagram;
               });
    decoded = std::move(carried);
  }
  return decoded;
}

// Copies the octets of a decoded frame into the places of its flow whose frames it is among.
void copy_wanted(const DecodeResult& decoded, std::uint64_t frame, Wants& wants) {
  if (decoded.status != DecodeStatus::Tcp || decoded.segment.payload.empty()) return;
  auto it = wants.find({decoded.segment.source, decoded.segment.destination});
  if (it == wants.end()) return;
  for (Want& w : it->second) {
    if (frame >= w.from && frame <= w.to) copy_overlap(decoded.segment, *w.place);
  }
}

// The second pass over the capture: the times of `times` set, the octets of `wants` copied.
void read_again(CaptureReader& reader, Wants& wants, Retimes& times, const FrameSpan& span,
                const AnalyzerOptions& options, bool ip_fragments) {
  FrameRanges ranges(wants);
  IpReassembler reassembler(options.ip_reassembly);
  Quiet quiet;
  CaptureRecord record;
  auto next_time = times.begin();
  while (reader.next(record) == ReadStatus::Record) {
    if (record.number > span.last) break;
    while (next_time != times.end() && next_time->first < record.number) ++next_time;
    if (next_time != times.end() && next_time->first == record.number) {
      for (std::uint64_t* ns : next_time->second) *ns = record.timestamp_ns;
    }
    if (wants.empty()) continue;
    // Each record by its own interface's link type, as the pipeline decoded it; a fragment
    // before the first place may complete a datagram inside the range.
    DecodeResult decoded;
    if (ip_fragments) decoded = reassembled(reassembler, record, options.decode, quiet);
    if (record.number < span.first) continue;
    const FrameRanges::Answer answer = ranges.at(record.number);
    if (answer == FrameRanges::Answer::NoMore) {
      if (next_time == times.end()) break;
      continue;
    }
    if (answer == FrameRanges::Answer::NotWanted) continue;
    if (!ip_fragments) decoded = decode_captured(captured_frame(record), options.decode);
    copy_wanted(decoded, record.number, wants);
  }
}

}  // namespace

void read_places(const std::string& path, const std::vector<ConnectionReport>& connections,
                 CaptureTrace& trace, const AnalyzerOptions& options, bool ip_fragments) {
  FrameSpan span;
  Wants wants = wanted_places(connections, trace, span);
  Retimes times = frames_to_retime(trace);
  if (!times.empty()) span.add(times.begin()->first, times.rbegin()->first);
  if (wants.empty() && times.empty()) return;
  std::error_code ec;
  if (path == "-" || path == "<stdin>" || !std::filesystem::is_regular_file(path, ec)) {
    if (wants.empty()) return;  // (the ladder keeps the times the library gave)
    unreadable(wants, trace,
               "not a regular file (a pipe or a live capture): the octets could not be read again");
    return;
  }
  std::string error;
  std::unique_ptr<CaptureReader> reader = CaptureReader::open(path, error);
  if (!reader || reader->live()) {
    if (wants.empty()) return;
    unreadable(wants, trace, reader ? "a live capture: the octets could not be read again" : error);
    return;
  }
  read_again(*reader, wants, times, span, options, ip_fragments);
}

}  // namespace mpa::report
