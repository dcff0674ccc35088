// The plugin's C++ side (see mpa_bridge.h): per capture file, one mpa::Analyzer fed with
// every captured record on Wireshark's first pass, and an EventSink that caches, per frame,
// the findings, startup frames, FPDUs and connection ends the library reported; every pass
// renders a frame from that cache as plain C views. Every rule lives in the library; this
// file only translates library values into views and sequence numbers into byte ranges of
// a frame.
//
// The cache is compact (Wireshark keeps it for the whole file): an FPDU costs 48 octets
// plus 12 per marker; byte ranges, ULPDU pieces and marker positions are derived again
// when a frame is rendered, from the sequence numbers and the frame's TCP payload.
#include "mpa_bridge.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <type_traits>
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
      entries.push_back({keep(d.name), static_cast<int>(d.severity), keep(d.rfc), mpa::number(d.error_code),
                         keep(d.summary), static_cast<int>(d.category)});
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

// A run of items in a Pool: indices [begin, begin + count).
struct Span {
  std::uint32_t begin = 0;
  std::uint32_t count = 0;
};

// A growable store addressed by index, in chunks of 4096 items: no item ever moves, and
// growth never copies the whole store (a capture's worth of FPDUs would otherwise be held
// twice while a vector doubles). Each frame's items keep consecutive indices: when a frame
// gets another item after some other frame's, its items are appended again first (rare:
// findings about an earlier frame).
template <typename T>
class Pool {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  void append(Span& span, const T& item) {
    if (span.count == 0) {
      span.begin = size_;
    } else if (span.begin + span.count != size_) {
      const Span old = span;
      span.begin = size_;
      for (std::uint32_t i = 0; i < old.count; ++i) push(at(old.begin + i));
    }
    push(item);
    ++span.count;
  }
  // Appends an item of its own (no frame's run); returns its index.
  std::uint32_t add(const T& item) {
    push(item);
    return size_ - 1;
  }
  T& at(std::uint32_t index) { return chunks_[index >> kShift].get()[index & kMask]; }
  const T& at(std::uint32_t index) const { return chunks_[index >> kShift].get()[index & kMask]; }

 private:
  static constexpr std::uint32_t kShift = 12;
  static constexpr std::uint32_t kMask = (1u << kShift) - 1;
  struct Free {
    void operator()(T* p) const { ::operator delete(p); }
  };

  void push(T item) {  // by value: `item` may live in this pool
    if ((size_ & kMask) == 0 && (size_ >> kShift) == chunks_.size()) {
      // Raw storage: pages are touched only as items arrive.
      chunks_.emplace_back(static_cast<T*>(::operator new(sizeof(T) << kShift)));
    }
    new (&chunks_[size_ >> kShift].get()[size_ & kMask]) T(item);
    ++size_;
  }

  std::vector<std::unique_ptr<T, Free>> chunks_;
  std::uint32_t size_ = 0;
};

// Octets that must outlive the frame that carried them (ULPDUs that began in an earlier
// frame, startup keys and private data), in 1 MiB chunks: stable addresses, few allocations.
class ByteArena {
 public:
  const std::uint8_t* keep(std::span<const std::uint8_t> bytes) {
    if (bytes.empty()) return nullptr;
    if (bytes.size() > room_) {
      const std::size_t size = std::max(bytes.size(), kChunk);
      chunks_.push_back(std::make_unique_for_overwrite<std::uint8_t[]>(size));
      next_ = chunks_.back().get();
      room_ = size;
    }
    std::uint8_t* at = next_;
    std::memcpy(at, bytes.data(), bytes.size());
    next_ += bytes.size();
    room_ -= bytes.size();
    return at;
  }

 private:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::vector<std::unique_ptr<std::uint8_t[]>> chunks_;
  std::uint8_t* next_ = nullptr;
  std::size_t room_ = 0;
};

// Where a frame's TCP payload sits: in the frame's bytes and in sequence space.
struct Window {
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
  mpa::TcpSeq seq;

  // The part of [seq, seq + length) inside the payload, as frame offsets (length 0: none).
  mpa_range locate(mpa::TcpSeq from, std::uint32_t count) const {
    if (count == 0) return {};
    const std::int64_t begin = from.signed_distance_from(seq);
    const std::int64_t end = begin + count;
    const std::int64_t lo = std::max<std::int64_t>(begin, 0);
    const std::int64_t hi = std::min<std::int64_t>(end, length);
    if (hi <= lo) return {};
    return {offset + static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi - lo)};
  }
};

// The runs of sequence space between the markers that hold a ULPDU (RFC 5044 4.3: markers
// are not part of the ULPDU): calls run(seq, length) for each, in order. `marker_seq(i)`
// gives the i-th of `markers` marker positions, in stream order.
template <typename MarkerSeq, typename Run>
bool for_each_ulpdu_run(mpa::TcpSeq header_seq, std::uint32_t ulpdu_length, std::size_t markers,
                        MarkerSeq marker_seq, Run run) {
  mpa::TcpSeq pos = header_seq + mpa::kUlpduLengthSize;
  std::uint32_t remaining = ulpdu_length;
  std::size_t marker = 0;
  while (remaining > 0) {
    while (marker < markers && marker_seq(marker).is_before(pos)) ++marker;
    if (marker < markers && marker_seq(marker) == pos) {
      pos += mpa::kMarkerSize;
      ++marker;
      continue;
    }
    std::uint32_t length = remaining;
    if (marker < markers) length = std::min(length, marker_seq(marker).distance_from(pos));
    if (!run(pos, length)) return false;
    pos += length;
    remaining -= length;
  }
  return true;
}

struct MarkerRecord {
  std::uint32_t seq;
  std::uint16_t reserved;
  std::uint16_t fpdu_ptr;
  std::uint16_t expected_fpdu_ptr;
};

// An FPDU as cached.
struct FpduRecord {
  enum Bits : std::uint8_t {
    kResponder = 1,
    kJudged = 2,
    kHere = 4,            // this frame completed it: byte ranges are in this frame
    kUlpduInFrame = 8,    // the ULPDU is this frame's octets between the markers
    kCrcShift = 4,        // two bits: enum mpa_crc_status
  };
  std::uint32_t connection;
  std::uint32_t start_seq;
  std::uint32_t header_seq;
  std::uint32_t wire_length;
  std::uint32_t crc_received;
  std::uint32_t crc_computed;
  std::uint32_t first_frame;
  std::uint16_t ulpdu_length;
  std::uint8_t pad_length;
  std::uint8_t bits;
  Span markers;
  const std::uint8_t* ulpdu;  // a copy (ulpdu_length octets) when not in this frame
};

// What the library reported at one frame besides FPDUs (rare; kept apart).
struct FrameExtras {
  Span findings;
  Span startups;
  Span ended;
};

struct FrameRecord {
  Span fpdus;
  Window payload;               // valid when has_payload
  std::uint32_t extras = 0;     // 1 + index in the extras pool, 0: none
  bool has_payload = false;
};

// The segment being fed.
struct CurrentSegment {
  bool active = false;
  std::uint64_t frame = 0;
  Window payload;
  const std::uint8_t* frame_data = nullptr;
};

}  // namespace

struct mpa_bridge final : mpa::EventSink {
  explicit mpa_bridge(const mpa::AnalyzerOptions& options) : analyzer(options, *this) {}

  // ---- EventSink: cache what the library reports, by frame.
  void on_finding(const mpa::Finding& f) override {
    const mpa_finding_view v{catalogue_views().index(f.id), f.connection, direction(f.direction),
                             f.tcp_seq.value(), keep(f.message)};
    findings.append(extras_of(f.frame).findings, v);
  }

  void on_startup_frame(std::uint32_t connection, mpa::Direction dir, const mpa::StartupFrame& f,
                        std::uint64_t frame_number, mpa::TcpSeq seq) override {
    mpa_startup_view v{};
    v.connection = connection;
    v.direction = direction(dir);
    v.kind = frame_kind(f.kind);
    v.description = keep(mpa::describe(f));
    v.tcp_seq = seq.value();
    v.key = bytes.keep(f.key);
    v.key_length = static_cast<std::uint32_t>(f.key.size());
    v.flags = f.flags;
    v.revision = f.revision;
    v.pd_length = f.pd_length;
    v.has_vendor_extension = f.has_vendor_extension;
    v.vendor_extension = f.has_vendor_extension ? bytes.keep(f.vendor_extension) : nullptr;
    v.vendor_extension_length = f.has_vendor_extension ? mpa::kVendorExtensionSize : 0;
    v.private_data = bytes.keep(f.private_data);
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
    if (frame_number == current.frame && current.active) {
      // The frame's layout, in the library's constants (RFC 5044 7.1.1, RFC 6581 9).
      const Window& w = current.payload;
      v.whole = w.locate(seq, static_cast<std::uint32_t>(f.wire_length()));
      v.key_range = w.locate(seq, mpa::kStartupKeySize);
      v.flags_range = w.locate(seq + mpa::kStartupKeySize, 1);
      v.revision_range = w.locate(seq + mpa::kStartupKeySize + 1, 1);
      v.pd_length_range = w.locate(seq + mpa::kStartupKeySize + 2, 2);
      mpa::TcpSeq data_seq = seq + mpa::kStartupHeaderSize;
      if (f.has_vendor_extension) {
        v.vendor_extension_range = w.locate(data_seq, mpa::kVendorExtensionSize);
        data_seq += mpa::kVendorExtensionSize;
      }
      v.private_data_range = w.locate(data_seq, v.private_data_length);
      if (f.enhanced) v.enhanced_range = w.locate(data_seq, mpa::kEnhancedBlockSize);
    }
    startups.append(extras_of(frame_number).startups, v);
  }

  void on_fpdu(const mpa::FpduEvent& e) override {
    FpduRecord r{};
    r.connection = e.connection;
    r.start_seq = e.start_seq.value();
    r.header_seq = e.header_seq.value();
    r.wire_length = e.wire_length;
    r.crc_received = e.crc_received;
    r.crc_computed = e.crc_computed;
    r.first_frame = static_cast<std::uint32_t>(std::min<std::uint64_t>(e.first_frame, kMaxFrame));
    r.ulpdu_length = e.ulpdu_length;
    r.pad_length = e.pad_length;
    r.bits = static_cast<std::uint8_t>(crc_status(e.crc_status) << FpduRecord::kCrcShift);
    if (direction(e.direction) == MPA_RESPONDER) r.bits |= FpduRecord::kResponder;
    if (e.judged) r.bits |= FpduRecord::kJudged;
    // Byte ranges only when this very segment completed the FPDU: then it is the segment's
    // direction and sequence space.
    const bool here = e.last_frame == current.frame && current.active;
    if (here) r.bits |= FpduRecord::kHere;
    for (const mpa::MarkerFact& m : e.markers) {
      markers.append(r.markers, {m.seq.value(), m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr});
    }
    if (!e.ulpdu.empty() && e.ulpdu.size() == e.ulpdu_length) {
      // A ULPDU that lies in this frame is shown from the frame's bytes; one that began in
      // an earlier frame from a copy (later passes see one frame at a time).
      if (here && ulpdu_in_frame(e)) {
        r.bits |= FpduRecord::kUlpduInFrame;
      } else {
        r.ulpdu = bytes.keep(e.ulpdu);
      }
    }
    FrameRecord& frame = record(e.last_frame);
    fpdus.append(frame.fpdus, r);
  }

  // True when the current segment holds the whole ULPDU between the markers the library
  // reported, checked octet for octet against the library's ULPDU.
  bool ulpdu_in_frame(const mpa::FpduEvent& e) const {
    const std::uint8_t* expected = e.ulpdu.data();
    return for_each_ulpdu_run(
        e.header_seq, e.ulpdu_length, e.markers.size(),
        [&](std::size_t i) { return e.markers[i].seq; },
        [&](mpa::TcpSeq seq, std::uint32_t length) {
          const mpa_range r = current.payload.locate(seq, length);
          if (r.length != length || std::memcmp(current.frame_data + r.offset, expected, length) != 0) {
            return false;
          }
          expected += length;
          return true;
        });
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
    std::copy(s.findings.values.begin(), s.findings.values.end(), std::begin(v.findings));
    v.first_frame = s.first_frame;
    v.last_frame = s.last_frame;
    v.reported_frame = current.frame;
    ended.append(extras_of(current.frame).ended, &v);
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
        current.payload = {static_cast<std::uint32_t>(seg.payload.data() - data.data()),
                           static_cast<std::uint32_t>(seg.payload.size()), seg.seq};
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

  // ---- Rendering: the cached records of one frame as views.
  const mpa_frame_view* view(std::uint64_t frame) {
    if (frame >= frame_index.size() || frame_index[frame] == 0) return nullptr;
    const FrameRecord& r = records.at(frame_index[frame] - 1);
    const Window* window = r.has_payload ? &r.payload : nullptr;

    rendered_markers.clear();
    rendered_pieces.clear();
    rendered_fpdus.clear();
    // First the markers and pieces of every FPDU (their vectors then stay put), then the views.
    auto& firsts = rendered_firsts;  // where each FPDU's markers and pieces begin
    firsts.clear();
    for (std::uint32_t i = 0; i < r.fpdus.count; ++i) {
      const FpduRecord& f = fpdus.at(r.fpdus.begin + i);
      const bool here = window != nullptr && (f.bits & FpduRecord::kHere);
      firsts.emplace_back(rendered_markers.size(), rendered_pieces.size());
      for (std::uint32_t k = 0; k < f.markers.count; ++k) {
        const MarkerRecord& m = markers.at(f.markers.begin + k);
        const mpa::TcpSeq seq(m.seq);
        // RFC 5044 4.2: FPDUPTR counts back from the marker to the ULPDU_Length field.
        rendered_markers.push_back({m.seq, m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr,
                                    (seq - m.fpdu_ptr).value(),
                                    here ? window->locate(seq, mpa::kMarkerSize) : mpa_range{}});
      }
      if (here && (f.bits & FpduRecord::kUlpduInFrame)) {
        for_each_ulpdu_run(
            mpa::TcpSeq(f.header_seq), f.ulpdu_length, f.markers.count,
            [&](std::size_t k) { return mpa::TcpSeq(markers.at(f.markers.begin + k).seq); },
            [&](mpa::TcpSeq seq, std::uint32_t length) {
              const mpa_range piece = window->locate(seq, length);
              if (!rendered_pieces.empty() && firsts.back().second < rendered_pieces.size() &&
                  rendered_pieces.back().offset + rendered_pieces.back().length == piece.offset) {
                rendered_pieces.back().length += piece.length;
              } else {
                rendered_pieces.push_back(piece);
              }
              return true;
            });
      }
    }
    for (std::uint32_t i = 0; i < r.fpdus.count; ++i) {
      const FpduRecord& f = fpdus.at(r.fpdus.begin + i);
      const bool here = window != nullptr && (f.bits & FpduRecord::kHere);
      const std::size_t marker_end =
          i + 1 < r.fpdus.count ? firsts[i + 1].first : rendered_markers.size();
      const std::size_t piece_end =
          i + 1 < r.fpdus.count ? firsts[i + 1].second : rendered_pieces.size();
      mpa_fpdu_view v{};
      v.connection = f.connection;
      v.direction = (f.bits & FpduRecord::kResponder) ? MPA_RESPONDER : MPA_INITIATOR;
      v.start_seq = f.start_seq;
      v.header_seq = f.header_seq;
      v.ulpdu_length = f.ulpdu_length;
      v.pad_length = f.pad_length;
      v.wire_length = f.wire_length;
      v.crc_status = (f.bits >> FpduRecord::kCrcShift) & 3;
      v.crc_received = f.crc_received;
      v.crc_computed = f.crc_computed;
      v.judged = (f.bits & FpduRecord::kJudged) != 0;
      v.first_frame = f.first_frame;
      v.marker_count = static_cast<std::uint32_t>(marker_end - firsts[i].first);
      v.markers = v.marker_count ? rendered_markers.data() + firsts[i].first : nullptr;
      v.ulpdu_piece_count = static_cast<std::uint32_t>(piece_end - firsts[i].second);
      v.ulpdu_pieces = v.ulpdu_piece_count ? rendered_pieces.data() + firsts[i].second : nullptr;
      if (f.ulpdu != nullptr) {
        v.ulpdu = f.ulpdu;
        v.ulpdu_kept = f.ulpdu_length;
      }
      if (here) {
        const mpa::TcpSeq start(f.start_seq);
        v.range = window->locate(start, f.wire_length);
        v.header_range = window->locate(mpa::TcpSeq(f.header_seq), mpa::kUlpduLengthSize);
        // The CRC field closes the FPDU (a marker after it belongs to the next FPDU).
        // (Asked of the library: FpduEvent::crc_seq.)
        v.crc_range = window->locate(start + (f.wire_length - mpa::kCrcSize), mpa::kCrcSize);
      }
      rendered_fpdus.push_back(v);
    }

    const FrameExtras* x = r.extras ? &extras.at(r.extras - 1) : nullptr;
    copy_out(findings, x ? x->findings : Span{}, rendered_findings);
    copy_out(startups, x ? x->startups : Span{}, rendered_startups);
    copy_out(ended, x ? x->ended : Span{}, rendered_ended);

    mpa_frame_view& v = rendered;
    v.mpa_payload = !rendered_startups.empty() || !rendered_fpdus.empty();
    v.findings = rendered_findings.data();
    v.finding_count = static_cast<std::uint32_t>(rendered_findings.size());
    v.startups = rendered_startups.data();
    v.startup_count = static_cast<std::uint32_t>(rendered_startups.size());
    v.fpdus = rendered_fpdus.data();
    v.fpdu_count = static_cast<std::uint32_t>(rendered_fpdus.size());
    v.ended = rendered_ended.data();
    v.ended_count = static_cast<std::uint32_t>(rendered_ended.size());
    v.payload = r.has_payload ? mpa_range{r.payload.offset, r.payload.length} : mpa_range{};
    return &v;
  }

  mpa::Analyzer analyzer;
  std::deque<mpa_connection_view> connections;
  std::uint64_t last_frame = 0;
  bool finished = false;
  std::string error;
  std::uint64_t error_frame = 0;

 private:
  // Wireshark numbers frames from 1 with 32 bits; anything beyond is filed under frame 0.
  static constexpr std::uint64_t kMaxFrame = UINT32_MAX;

  // Frame numbers are dense, so a frame's record is found through a plain index: 4 octets
  // per frame, records only for frames the library reported about.
  FrameRecord& record(std::uint64_t frame) {
    if (frame > kMaxFrame) frame = 0;
    if (frame >= frame_index.size()) frame_index.resize(frame + 1, 0);
    std::uint32_t& slot = frame_index[frame];
    if (slot == 0) {
      FrameRecord r;
      if (frame == current.frame && current.active) {
        r.payload = current.payload;
        r.has_payload = true;
      }
      slot = records.add(r) + 1;
    }
    return records.at(slot - 1);
  }

  FrameExtras& extras_of(std::uint64_t frame) {
    FrameRecord& r = record(frame);
    if (r.extras == 0) {
      r.extras = extras.add(FrameExtras{}) + 1;
    }
    return extras.at(r.extras - 1);
  }

  template <typename T>
  static void copy_out(const Pool<T>& pool, Span span, std::vector<T>& out) {
    out.clear();
    for (std::uint32_t i = 0; i < span.count; ++i) out.push_back(pool.at(span.begin + i));
  }

  const char* keep(std::string s) { return strings.emplace_back(std::move(s)).c_str(); }

  CurrentSegment current;
  std::vector<std::uint32_t> frame_index{0};  // frame -> 1 + index in `records`, 0: none
  Pool<FrameRecord> records;
  Pool<FrameExtras> extras;
  Pool<FpduRecord> fpdus;
  Pool<MarkerRecord> markers;
  Pool<mpa_finding_view> findings;
  Pool<mpa_startup_view> startups;
  Pool<const mpa_connection_view*> ended;
  ByteArena bytes;
  std::deque<std::string> strings;  // messages, descriptions, addresses (stable addresses)
  // The frame being rendered (valid until the next call into the bridge).
  std::vector<std::pair<std::size_t, std::size_t>> rendered_firsts;
  std::vector<mpa_marker_view> rendered_markers;
  std::vector<mpa_range> rendered_pieces;
  std::vector<mpa_fpdu_view> rendered_fpdus;
  std::vector<mpa_finding_view> rendered_findings;
  std::vector<mpa_startup_view> rendered_startups;
  std::vector<const mpa_connection_view*> rendered_ended;
  mpa_frame_view rendered{};
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
