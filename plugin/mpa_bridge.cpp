// The plugin's C++ side (see mpa_bridge.h): per capture file, one mpa::Analyzer fed with
// every captured record on Wireshark's first pass, and an EventSink that caches, per frame,
// the findings, startup frames, FPDUs and connection ends the library reported, as plain C
// views the dissector renders on every pass. Every rule lives in the library; this file only
// translates library values into views and sequence numbers into byte ranges of a frame.
#include "mpa_bridge.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "mpa/analyzer.h"
#include "mpa/diagnostics.h"
#include "mpa/events.h"
#include "mpa/marker_grid.h"
#include "mpa/packet.h"
#include "mpa/packet_decoder.h"
#include "mpa/startup_frame.h"
#include "mpa/tcp_seq.h"

static_assert(MPA_FLAG_M == mpa::startup_flags::kM && MPA_FLAG_C == mpa::startup_flags::kC &&
              MPA_FLAG_R == mpa::startup_flags::kR && MPA_FLAG_S == mpa::startup_flags::kS &&
              MPA_FLAG_RES == mpa::startup_flags::kRes);
static_assert(MPA_SEVERITY_NOTE == static_cast<int>(mpa::Severity::Note) &&
              MPA_SEVERITY_WARNING == static_cast<int>(mpa::Severity::Warning) &&
              MPA_SEVERITY_ERROR == static_cast<int>(mpa::Severity::Error));

namespace {

// ---- The catalogue as C views (NUL-terminated copies of the library's string_views).
struct CatalogueViews {
  std::deque<std::string> strings;
  std::vector<mpa_diag_info> entries;
  std::vector<std::uint32_t> index_of_id;  // DiagId value -> index in `entries`

  CatalogueViews() {
    const auto catalogue = mpa::catalogue();
    auto keep = [this](std::string_view s) { return strings.emplace_back(s).c_str(); };
    for (std::size_t i = 0; i < catalogue.size(); ++i) {
      const mpa::DiagnosticInfo& d = catalogue[i];
      entries.push_back({keep(d.name), static_cast<int>(d.severity), keep(d.rfc), d.error_code,
                         keep(d.summary)});
      const auto id = static_cast<std::size_t>(d.id);
      if (index_of_id.size() <= id) index_of_id.resize(id + 1, 0);
      index_of_id[id] = static_cast<std::uint32_t>(i);
    }
  }
  std::uint32_t index(mpa::DiagId id) const {
    const auto i = static_cast<std::size_t>(id);
    return i < index_of_id.size() ? index_of_id[i] : 0;
  }
};

const CatalogueViews& catalogue_views() {
  static const CatalogueViews views;
  return views;
}

int crc_status(mpa::CrcStatus status) {
  switch (status) {
    case mpa::CrcStatus::Good: return MPA_CRC_GOOD;
    case mpa::CrcStatus::Bad: return MPA_CRC_BAD;
    case mpa::CrcStatus::NotChecked: break;
  }
  return MPA_CRC_UNCHECKED;
}

int frame_kind(mpa::FrameKind kind) {
  switch (kind) {
    case mpa::FrameKind::Request: return MPA_REQUEST;
    case mpa::FrameKind::Reply: return MPA_REPLY;
    case mpa::FrameKind::Unknown: break;
  }
  return MPA_UNKNOWN_FRAME;
}

int direction(mpa::Direction d) { return d == mpa::Direction::Initiator ? MPA_INITIATOR : MPA_RESPONDER; }

// Everything the library reported at one frame.
struct FrameRecord {
  std::vector<mpa_finding_view> findings;
  std::vector<mpa_startup_view> startups;
  std::vector<mpa_fpdu_view> fpdus;
  std::vector<const mpa_connection_view*> ended;
  mpa_range payload{};
  mpa_frame_view view{};
};

// The segment being fed: where its payload sits in the frame, and its sequence numbers.
struct CurrentSegment {
  bool active = false;
  std::uint64_t frame = 0;
  mpa::TcpSeq seq;
  std::uint32_t payload_offset = 0;
  std::uint32_t payload_length = 0;
  const std::uint8_t* frame_data = nullptr;
};

}  // namespace

struct mpa_bridge final : mpa::EventSink {
  explicit mpa_bridge(const mpa::AnalyzerOptions& options) : analyzer(options, *this) {}

  // ---- EventSink: cache what the library reports, by frame.
  void on_finding(const mpa::Finding& f) override {
    record(f.frame).findings.push_back({catalogue_views().index(f.id), f.connection,
                                        direction(f.direction), f.tcp_seq.value(),
                                        keep(f.message)});
  }

  void on_startup_frame(std::uint32_t connection, mpa::Direction dir, const mpa::StartupFrame& f,
                        std::uint64_t frame_number, mpa::TcpSeq seq) override {
    mpa_startup_view v{};
    v.connection = connection;
    v.direction = direction(dir);
    v.kind = frame_kind(f.kind);
    v.description = keep(mpa::describe(f));
    v.tcp_seq = seq.value();
    v.key = keep_bytes(f.key);
    v.key_length = static_cast<std::uint32_t>(f.key.size());
    v.flags = f.flags;
    v.revision = f.revision;
    v.pd_length = f.pd_length;
    v.has_vendor_extension = f.has_vendor_extension;
    v.vendor_extension = keep_bytes(f.vendor_extension);
    v.vendor_extension_length = f.has_vendor_extension ? mpa::kVendorExtensionSize : 0;
    v.private_data = keep_bytes(f.private_data);
    v.private_data_length = static_cast<std::uint32_t>(f.private_data.size());
    if (f.enhanced) {
      v.has_enhanced = 1;
      v.peer_to_peer = f.enhanced->peer_to_peer;
      v.send_rtr = f.enhanced->send_rtr;
      v.write_rtr = f.enhanced->write_rtr;
      v.read_rtr = f.enhanced->read_rtr;
      v.ird = f.enhanced->ird;
      v.ord = f.enhanced->ord;
    }
    if (frame_number == current.frame) {
      // The frame's layout, in the library's constants (RFC 5044 7.1.1, RFC 6581 9).
      v.whole = locate(seq, static_cast<std::uint32_t>(f.wire_length()));
      v.key_range = locate(seq, mpa::kStartupKeySize);
      v.flags_range = locate(seq + mpa::kStartupKeySize, 1);
      v.revision_range = locate(seq + mpa::kStartupKeySize + 1, 1);
      v.pd_length_range = locate(seq + mpa::kStartupKeySize + 2, 2);
      mpa::TcpSeq data_seq = seq + mpa::kStartupHeaderSize;
      if (f.has_vendor_extension) {
        v.vendor_extension_range = locate(data_seq, mpa::kVendorExtensionSize);
        data_seq += mpa::kVendorExtensionSize;
      }
      v.private_data_range = locate(data_seq, v.private_data_length);
      if (f.enhanced) v.enhanced_range = locate(data_seq, mpa::kEnhancedBlockSize);
    }
    record(frame_number).startups.push_back(v);
  }

  void on_fpdu(const mpa::FpduEvent& e) override {
    mpa_fpdu_view v{};
    v.connection = e.connection;
    v.direction = direction(e.direction);
    v.start_seq = e.start_seq.value();
    v.header_seq = e.header_seq.value();
    v.ulpdu_length = e.ulpdu_length;
    v.pad_length = e.pad_length;
    v.wire_length = e.wire_length;
    v.crc_status = crc_status(e.crc_status);
    v.crc_received = e.crc_received;
    v.crc_computed = e.crc_computed;
    v.judged = e.judged;
    v.first_frame = e.first_frame;
    // Byte ranges only when this very segment completed the FPDU: then it is the segment's
    // direction and sequence space.
    const bool here = e.last_frame == current.frame;
    if (!e.markers.empty()) {
      auto& markers = marker_arena.emplace_back();
      markers.reserve(e.markers.size());
      for (const mpa::MarkerFact& m : e.markers) {
        // RFC 5044 4.2: FPDUPTR counts back from the marker to the ULPDU_Length field.
        // (Asked of the library: MarkerFact::points_to().)
        markers.push_back({m.seq.value(), m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr,
                           (m.seq - m.fpdu_ptr).value(),
                           here ? locate(m.seq, mpa::kMarkerSize) : mpa_range{}});
      }
      v.markers = markers.data();
      v.marker_count = static_cast<std::uint32_t>(markers.size());
    }
    if (here) {
      v.range = locate(e.start_seq, e.wire_length);
      v.header_range = locate(e.header_seq, mpa::kUlpduLengthSize);
      // The CRC field closes the FPDU (a marker after it belongs to the next FPDU).
      // (Asked of the library: FpduEvent::crc_seq.)
      v.crc_range = locate(e.start_seq + (e.wire_length - mpa::kCrcSize), mpa::kCrcSize);
    }
    if (!e.ulpdu.empty() && e.ulpdu.size() == e.ulpdu_length) {
      // A ULPDU that lies in this frame is shown from the frame's bytes; one that began in
      // an earlier frame from a copy (later passes see one frame at a time).
      if (!(here && ulpdu_pieces_in_frame(e, v))) {
        v.ulpdu = keep_bytes(e.ulpdu);
        v.ulpdu_kept = static_cast<std::uint32_t>(e.ulpdu.size());
      }
    }
    record(e.last_frame).fpdus.push_back(v);
  }

  // The runs of the current segment that hold the ULPDU between the markers the library
  // reported, checked octet for octet against the library's ULPDU.
  bool ulpdu_pieces_in_frame(const mpa::FpduEvent& e, mpa_fpdu_view& v) {
    std::vector<mpa_range> pieces;
    mpa::TcpSeq pos = e.header_seq + mpa::kUlpduLengthSize;
    std::uint32_t remaining = e.ulpdu_length;
    std::size_t marker = 0;
    const std::uint8_t* expected = e.ulpdu.data();
    while (remaining > 0) {
      while (marker < e.markers.size() && e.markers[marker].seq.is_before(pos)) ++marker;
      if (marker < e.markers.size() && e.markers[marker].seq == pos) {
        pos += mpa::kMarkerSize;
        ++marker;
        continue;
      }
      std::uint32_t run = remaining;
      if (marker < e.markers.size()) run = std::min(run, e.markers[marker].seq.distance_from(pos));
      const mpa_range r = locate(pos, run);
      if (r.length != run || std::memcmp(current.frame_data + r.offset, expected, run) != 0) {
        return false;
      }
      if (!pieces.empty() && pieces.back().offset + pieces.back().length == r.offset) {
        pieces.back().length += run;
      } else {
        pieces.push_back(r);
      }
      expected += run;
      pos += run;
      remaining -= run;
    }
    const auto& kept = piece_arena.emplace_back(std::move(pieces));
    v.ulpdu_pieces = kept.data();
    v.ulpdu_piece_count = static_cast<std::uint32_t>(kept.size());
    return true;
  }

  void on_connection_end(const mpa::ConnectionSummary& s) override {
    mpa_connection_view& v = connections.emplace_back();
    v.id = s.id;
    v.initiator = keep(mpa::to_string(s.initiator));
    v.responder = keep(mpa::to_string(s.responder));
    v.startup_seen = s.startup_seen;
    v.revision = s.revision();
    v.request = s.request ? keep(mpa::describe(*s.request)) : nullptr;
    v.reply = s.reply ? keep(mpa::describe(*s.reply)) : nullptr;
    for (int d = 0; d < 2; ++d) {
      const mpa::DirectionSummary& ds = s.directions[d];
      v.directions[d] = {ds.full_operation, ds.markers, ds.crc, ds.inferred, ds.fpdus,
                         ds.ulpdu_bytes, ds.crc_failures, ds.bytes, ds.max_ulpdu};
    }
    std::copy(std::begin(s.findings), std::end(s.findings), std::begin(v.findings));
    v.first_frame = s.first_frame;
    v.last_frame = s.last_frame;
    v.reported_frame = current.frame;
    record(current.frame).ended.push_back(&v);
  }

  // ---- Feeding (first pass).
  void feed(std::uint64_t frame, std::uint32_t link_type, std::span<const std::uint8_t> data,
            std::uint32_t original_length, std::uint64_t timestamp_ns) {
    last_frame = frame;
    const mpa::DecodeResult decoded =
        mpa::decode_frame(link_type, data, original_length, frame, timestamp_ns);
    current = {};
    current.frame = frame;
    current.frame_data = data.data();
    switch (decoded.status) {
      case mpa::DecodeStatus::Tcp: {
        const mpa::TcpSegment& seg = decoded.segment;
        current.active = true;
        current.seq = seg.seq;
        current.payload_offset = static_cast<std::uint32_t>(seg.payload.data() - data.data());
        current.payload_length = static_cast<std::uint32_t>(seg.payload.size());
        analyzer.on_segment(seg);
        break;
      }
      case mpa::DecodeStatus::IpFragment: analyzer.on_ip_fragment(frame, decoded.detail); break;
      default: break;
    }
    current.active = false;
    current.frame_data = nullptr;
  }

  void finish() {
    current = {};
    current.frame = last_frame;
    analyzer.finish(last_frame);
    finished = true;
  }

  void fail(const char* what) {
    if (!error.empty()) return;
    error = std::string("mpa library: ") + (what ? what : "unknown error");
    error_frame = last_frame;
  }

  // ---- Rendering.
  const mpa_frame_view* view(std::uint64_t frame) {
    auto it = frames.find(frame);
    if (it == frames.end()) return nullptr;
    FrameRecord& r = it->second;
    mpa_frame_view& v = r.view;
    v.mpa_payload = !r.startups.empty() || !r.fpdus.empty();
    v.findings = r.findings.data();
    v.finding_count = static_cast<std::uint32_t>(r.findings.size());
    v.startups = r.startups.data();
    v.startup_count = static_cast<std::uint32_t>(r.startups.size());
    v.fpdus = r.fpdus.data();
    v.fpdu_count = static_cast<std::uint32_t>(r.fpdus.size());
    v.ended = r.ended.data();
    v.ended_count = static_cast<std::uint32_t>(r.ended.size());
    v.payload = r.payload;
    return &v;
  }

  mpa::Analyzer analyzer;
  std::unordered_map<std::uint64_t, FrameRecord> frames;
  std::deque<mpa_connection_view> connections;
  std::uint64_t last_frame = 0;
  bool finished = false;
  std::string error;
  std::uint64_t error_frame = 0;

 private:
  FrameRecord& record(std::uint64_t frame) {
    auto [it, added] = frames.try_emplace(frame);
    if (added && frame == current.frame && current.active) {
      it->second.payload = {current.payload_offset, current.payload_length};
    }
    return it->second;
  }

  // The part of [seq, seq + length) inside the current segment's payload, as frame offsets.
  mpa_range locate(mpa::TcpSeq seq, std::uint32_t length) const {
    if (!current.active || length == 0) return {};
    const std::int64_t begin = seq.signed_distance_from(current.seq);
    const std::int64_t end = begin + length;
    const std::int64_t lo = std::max<std::int64_t>(begin, 0);
    const std::int64_t hi = std::min<std::int64_t>(end, current.payload_length);
    if (hi <= lo) return {};
    return {current.payload_offset + static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi - lo)};
  }

  const char* keep(std::string s) { return strings.emplace_back(std::move(s)).c_str(); }
  template <typename Bytes>
  const std::uint8_t* keep_bytes(const Bytes& bytes) {
    if (std::size(bytes) == 0) return nullptr;
    return byte_arena.emplace_back(std::begin(bytes), std::end(bytes)).data();
  }

  CurrentSegment current;
  // Stable storage for what the views point to (deque elements never move).
  std::deque<std::string> strings;
  std::deque<std::vector<std::uint8_t>> byte_arena;
  std::deque<std::vector<mpa_marker_view>> marker_arena;
  std::deque<std::vector<mpa_range>> piece_arena;
};

// ---- The C interface. Nothing throws past these functions.
extern "C" {

size_t mpa_catalogue_size(void) {
  try {
    return catalogue_views().entries.size();
  } catch (...) {
    return 0;
  }
}

const mpa_diag_info* mpa_catalogue_entry(size_t index) {
  try {
    const auto& entries = catalogue_views().entries;
    return index < entries.size() ? &entries[index] : nullptr;
  } catch (...) {
    return nullptr;
  }
}

int mpa_link_type_supported(uint32_t link_type) {
  try {
    return mpa::is_supported_link_type(link_type);
  } catch (...) {
    return 0;
  }
}

int mpa_looks_like_startup_key(const uint8_t* data, size_t length) {
  if (data == nullptr || length < mpa::kStartupKeySize) return 0;
  try {
    const std::span<const std::uint8_t> key(data, mpa::kStartupKeySize);
    return mpa::classify_key(key) != mpa::FrameKind::Unknown || mpa::looks_like_damaged_key(key);
  } catch (...) {
    return 0;
  }
}

mpa_bridge* mpa_bridge_new(const mpa_bridge_options* options) {
  try {
    mpa::AnalyzerOptions o;
    o.keep_ulpdu = true;
    if (options != nullptr) {
      if (options->markers != MPA_AUTO) o.markers = options->markers == MPA_ON;
      if (options->crc != MPA_AUTO) o.crc = options->crc == MPA_ON;
      o.infer_with_syn = options->infer_all != 0;
    }
    return new mpa_bridge(o);
  } catch (...) {
    return nullptr;
  }
}

void mpa_bridge_free(mpa_bridge* bridge) { delete bridge; }

void mpa_bridge_feed(mpa_bridge* bridge, uint64_t frame, uint32_t link_type, const uint8_t* data,
                     uint32_t captured_length, uint32_t original_length, uint64_t timestamp_ns) {
  if (bridge == nullptr || !bridge->error.empty() || bridge->finished) return;
  if (frame <= bridge->last_frame) return;
  try {
    bridge->feed(frame, link_type, std::span<const std::uint8_t>(data, data ? captured_length : 0),
                 original_length, timestamp_ns);
  } catch (const std::exception& e) {
    bridge->fail(e.what());
  } catch (...) {
    bridge->fail(nullptr);
  }
}

uint64_t mpa_bridge_error_frame(const mpa_bridge* bridge) { return bridge ? bridge->error_frame : 0; }

uint64_t mpa_bridge_last_frame(const mpa_bridge* bridge) { return bridge ? bridge->last_frame : 0; }

void mpa_bridge_finish(mpa_bridge* bridge) {
  if (bridge == nullptr || bridge->finished || !bridge->error.empty()) return;
  try {
    bridge->finish();
  } catch (const std::exception& e) {
    bridge->fail(e.what());
  } catch (...) {
    bridge->fail(nullptr);
  }
  bridge->finished = true;
}

int mpa_bridge_finished(const mpa_bridge* bridge) { return bridge && bridge->finished; }

const char* mpa_bridge_error(const mpa_bridge* bridge) {
  return bridge && !bridge->error.empty() ? bridge->error.c_str() : nullptr;
}

const mpa_frame_view* mpa_bridge_frame(mpa_bridge* bridge, uint64_t frame) {
  if (bridge == nullptr) return nullptr;
  try {
    return bridge->view(frame);
  } catch (...) {
    return nullptr;
  }
}

size_t mpa_bridge_connection_count(const mpa_bridge* bridge) {
  return bridge ? bridge->connections.size() : 0;
}

const mpa_connection_view* mpa_bridge_connection(const mpa_bridge* bridge, size_t index) {
  if (bridge == nullptr || index >= bridge->connections.size()) return nullptr;
  return &bridge->connections[index];
}

}  // extern "C"
