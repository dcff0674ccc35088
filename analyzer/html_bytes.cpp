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

}  // namespace

void read_places(const std::string& path, const std::vector<ConnectionReport>& connections,
                 CaptureTrace& trace, const AnalyzerOptions& options, bool ip_fragments) {
  const DecodeOptions& decode = options.decode;
  std::map<std::pair<Endpoint, Endpoint>, std::vector<Want>> wants;  // (source, destination)
  std::uint64_t min_frame = UINT64_MAX, max_frame = 0;
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
      min_frame = std::min(min_frame, from);
      max_frame = std::max(max_frame, to);
    }
  }
  // The ladder's rows at the capture time of their frames, where the library's time may be
  // another frame's (LadderItem::retime, Band::retime_last).
  std::map<std::uint64_t, std::vector<std::uint64_t*>> times;  // frame: the times to set
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
  if (!times.empty()) {
    min_frame = std::min(min_frame, times.begin()->first);
    max_frame = std::max(max_frame, times.rbegin()->first);
  }
  if (wants.empty() && times.empty()) return;
  std::error_code ec;
  if (path == "-" || path == "<stdin>" || !std::filesystem::is_regular_file(path, ec)) {
    if (wants.empty()) return;  // (the ladder keeps the times the library gave)
    trace.bytes_readable = false;
    trace.bytes_note =
        "not a regular file (a pipe or a live capture): the octets could not be read again";
    for (auto& [flow, list] : wants) {
      for (Want& w : list) w.place->octets.clear(), w.place->present.clear();
    }
    return;
  }
  std::string error;
  std::unique_ptr<CaptureReader> reader = CaptureReader::open(path, error);
  if (!reader || reader->live()) {
    if (wants.empty()) return;
    trace.bytes_readable = false;
    trace.bytes_note = reader ? "a live capture: the octets could not be read again" : error;
    for (auto& [flow, list] : wants) {
      for (Want& w : list) w.place->octets.clear(), w.place->present.clear();
    }
    return;
  }
  // Frames worth decoding: the union of the places' frame ranges.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& [flow, list] : wants) {
    for (const Want& w : list) ranges.emplace_back(w.from, w.to);
  }
  std::sort(ranges.begin(), ranges.end());
  std::size_t next_range = 0;
  IpReassembler reassembler(options.ip_reassembly);
  Quiet quiet;
  CaptureRecord record;
  auto next_time = times.begin();
  while (reader->next(record) == ReadStatus::Record) {
    if (record.number > max_frame) break;
    while (next_time != times.end() && next_time->first < record.number) ++next_time;
    if (next_time != times.end() && next_time->first == record.number) {
      for (std::uint64_t* ns : next_time->second) *ns = record.timestamp_ns;
    }
    if (wants.empty()) continue;
    // Each record by its own interface's link type, as the pipeline decoded it; a fragment
    // before the first place may complete a datagram inside the range.
    DecodeResult decoded;
    if (ip_fragments) {
      decoded = decode_captured(captured_frame(record), decode);
      if (decoded.status == DecodeStatus::IpFragment) {
        DecodeResult carried;  // the segment of the datagram this fragment completes
        reassemble(reassembler, decoded, record.number, record.timestamp_ns, decode, quiet,
                   [&](const DecodeResult& datagram) {
                     if (datagram.status == DecodeStatus::Tcp) carried = datagram;
                   });
        decoded = std::move(carried);
      }
    }
    if (record.number < min_frame) continue;
    while (next_range < ranges.size() && ranges[next_range].second < record.number) ++next_range;
    if (next_range == ranges.size()) {
      if (next_time == times.end()) break;
      continue;
    }
    bool wanted = false;
    for (std::size_t r = next_range; r < ranges.size() && ranges[r].first <= record.number; ++r) {
      if (ranges[r].second >= record.number) {
        wanted = true;
        break;
      }
    }
    if (!wanted) continue;
    if (!ip_fragments) decoded = decode_captured(captured_frame(record), decode);
    if (decoded.status != DecodeStatus::Tcp || decoded.segment.payload.empty()) continue;
    auto it = wants.find({decoded.segment.source, decoded.segment.destination});
    if (it == wants.end()) continue;
    for (Want& w : it->second) {
      if (record.number >= w.from && record.number <= w.to) copy_overlap(decoded.segment, *w.place);
    }
  }
}

}  // namespace mpa::report
