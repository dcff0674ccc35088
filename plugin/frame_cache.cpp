// The plugin's per-frame cache (see frame_cache.h).
#include "frame_cache.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "mpa/diagnostics.h"
#include "mpa/fpdu_layout.h"
#include "mpa/marker_grid.h"

namespace mpa_plugin
{

int
direction_view(mpa::Direction d)
{
    return d == mpa::Direction::Initiator ? MPA_INITIATOR : MPA_RESPONDER;
}

int
crc_status_view(mpa::CrcStatus status)
{
    switch (status) {
    case mpa::CrcStatus::Good:
        return MPA_CRC_GOOD;
    case mpa::CrcStatus::Bad:
        return MPA_CRC_BAD;
    case mpa::CrcStatus::NotChecked:
        break;
    }
    return MPA_CRC_UNCHECKED;
}

mpa_range
Window::locate(mpa::SeqRange range) const
{
    if (range.length == 0)
        return {};
    const std::int64_t begin = range.seq.signed_distance_from(seq);
    const std::int64_t end = begin + range.length;
    const std::int64_t lo = std::max<std::int64_t>(begin, 0);
    const std::int64_t hi = std::min<std::int64_t>(end, length);
    if (hi <= lo)
        return {};
    return { offset + static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi - lo) };
}

const std::uint8_t *
ByteArena::keep(std::span<const std::uint8_t> bytes)
{
    if (bytes.empty())
        return nullptr;
    if (bytes.size() > room_) {
        const std::size_t size = std::max(bytes.size(), kChunk);
        chunks_.push_back(std::make_unique_for_overwrite<std::uint8_t[]>(size));
        next_ = chunks_.back().get();
        room_ = size;
    }
    std::uint8_t *at = next_;
    std::memcpy(at, bytes.data(), bytes.size());
    next_ += bytes.size();
    room_ -= bytes.size();
    return at;
}

namespace
{

// The marker grid of an FPDU's direction, from the markers the library reported in it (an
// FPDU without markers has no marker inside, whichever grid its direction has).
template <typename MarkerSeq>
mpa::MarkerGrid
grid_of(std::uint32_t marker_count, MarkerSeq first_marker_seq)
{
    return marker_count > 0 ? mpa::MarkerGrid::through(first_marker_seq()) : mpa::MarkerGrid();
}

} // namespace

// ---- Filling

void
FrameCache::begin_frame(std::uint64_t frame, const std::uint8_t *data)
{
    current_ = {};
    current_.frame = frame;
    current_.data = data;
}

void
FrameCache::begin_segment(const Window &payload)
{
    current_.segment = true;
    current_.payload = payload;
    recent_windows_.emplace_back(current_.frame, payload);
    if (recent_windows_.size() > kRecentWindows)
        recent_windows_.pop_front();
}

const Window *
FrameCache::recent_window(std::uint64_t frame) const
{
    for (auto it = recent_windows_.rbegin(); it != recent_windows_.rend(); ++it) {
        if (it->first == frame)
            return &it->second;
        if (it->first < frame)
            break;
    }
    return nullptr;
}

void
FrameCache::end_frame()
{
    current_.segment = false;
    current_.data = nullptr;
}

std::span<const std::uint64_t>
FrameCache::filed_earlier(std::uint64_t frame) const
{
    if (frame != current_.frame)
        return {};
    return current_.earlier;
}

mpa_range
FrameCache::locate_in_segment(std::uint64_t frame, mpa::SeqRange range) const
{
    if (frame != current_.frame || !current_.segment)
        return {};
    return current_.payload.locate(range);
}

void
FrameCache::add_finding(std::uint64_t frame, const mpa_finding_view &finding)
{
    findings_.append(extras_of(frame).findings, finding);
}

void
FrameCache::add_startup(std::uint64_t frame, const mpa_startup_view &startup)
{
    startups_.append(extras_of(frame).startups, startup);
}

void
FrameCache::add_ended(std::uint64_t frame, const mpa_connection_view *connection)
{
    ended_.append(extras_of(frame).ended, connection);
}

void
FrameCache::add_fpdu(const mpa::FpduEvent &e, std::uint32_t connection)
{
    FpduRecord r{};
    r.connection = connection;
    r.start_seq = e.start_seq.value();
    r.header_seq = e.header_seq.value();
    r.wire_length = e.wire_length;
    r.crc_received = e.crc_received;
    r.crc_computed = e.crc_computed;
    r.first_frame = static_cast<std::uint32_t>(std::min<std::uint64_t>(e.first_frame, kMaxFrame));
    r.ulpdu_length = e.ulpdu_length;
    r.ulpdu_size = e.ulpdu_size;
    r.pad_length = e.pad_length;
    r.bits = static_cast<std::uint8_t>(crc_status_view(e.crc_status) << FpduRecord::kCrcShift);
    if (direction_view(e.direction) == MPA_RESPONDER)
        r.bits |= FpduRecord::kResponder;
    if (e.judged)
        r.bits |= FpduRecord::kJudged;
    if (!e.crc_field)
        r.bits |= FpduRecord::kNoCrcField;
    // Byte ranges only when this very segment completed the FPDU: then it is the segment's
    // direction and sequence space.
    const bool here = e.last_frame == current_.frame && current_.segment;
    if (here)
        r.bits |= FpduRecord::kHere;
    for (const mpa::MarkerFact &m : e.markers) {
        markers_.append(r.markers, { m.seq.value(), m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr });
    }
    if (!e.ulpdu.empty() && e.ulpdu.size() == e.ulpdu_size) {
        // A ULPDU that lies in this frame is shown from the frame's bytes; one that began in
        // an earlier frame from a copy (later passes see one frame at a time).
        if (here && ulpdu_in_segment(e)) {
            r.bits |= FpduRecord::kUlpduInFrame;
        } else {
            r.ulpdu = bytes_.keep(e.ulpdu);
        }
    }
    fpdus_.append(record(e.last_frame).fpdus, r);
}

void
FrameCache::revise_fpdu(const mpa::FpduEvent &e, bool markers)
{
    // The record sits at the frame that completed the FPDU as first read: between the frame
    // holding its first octet and this one.
    const bool responder = direction_view(e.direction) == MPA_RESPONDER;
    const std::uint64_t last = std::min<std::uint64_t>(current_.frame, frame_index_.size() - 1);
    for (std::uint64_t frame = e.first_frame; frame <= last; ++frame) {
        if (frame_index_[frame] == 0)
            continue;
        const Span span = records_.at(frame_index_[frame] - 1).fpdus;
        for (std::uint32_t i = 0; i < span.count; ++i) {
            FpduRecord &old = fpdus_.at(span.begin + i);
            if ((old.bits & FpduRecord::kRevised) || old.connection != e.connection ||
                old.start_seq != e.start_seq.value() ||
                ((old.bits & FpduRecord::kResponder) != 0) != responder)
                continue;
            FpduRecord r = old;
            old.bits |= FpduRecord::kRevised;
            r.wire_length = e.wire_length;
            r.ulpdu_size = e.ulpdu_size;
            r.pad_length = e.pad_length;
            r.crc_received = e.crc_received;
            r.crc_computed = e.crc_computed;
            r.bits &= static_cast<std::uint8_t>(
                ~(FpduRecord::kNoCrcField | FpduRecord::kHere | (3u << FpduRecord::kCrcShift)));
            r.bits |=
                static_cast<std::uint8_t>(crc_status_view(e.crc_status) << FpduRecord::kCrcShift);
            if (!e.crc_field)
                r.bits |= FpduRecord::kNoCrcField;
            // Its markers as read before, those that lie within it (none: the sender inserts
            // none, and what was read as markers was data).
            r.markers = {};
            const mpa::SeqRange extent{ e.start_seq, e.wire_length };
            for (std::uint32_t k = 0; markers && k < old.markers.count; ++k) {
                const MarkerRecord m = markers_.at(old.markers.begin + k);
                if (extent.contains(mpa::TcpSeq(m.seq)))
                    markers_.append(r.markers, m);
            }
            // Its ULPDU: a copy of the first reading's octets holds the sender's (a prefix);
            // octets in the frame stay where they are when it is still filed there.
            const bool moved = e.last_frame != frame;
            if ((r.bits & FpduRecord::kUlpduInFrame) && moved)
                r.bits &= static_cast<std::uint8_t>(~FpduRecord::kUlpduInFrame);
            if (r.ulpdu != nullptr && e.ulpdu_size > old.ulpdu_size)
                r.ulpdu = nullptr;
            FrameRecord &target = record(e.last_frame);
            if (!target.has_payload) {
                if (const Window *w = recent_window(e.last_frame)) {
                    target.payload = *w;
                    target.has_payload = true;
                }
            }
            if (target.has_payload)
                r.bits |= FpduRecord::kHere;
            // A ULPDU wholly inside the frame now filed under: shown from its octets.
            if (target.has_payload && r.ulpdu == nullptr && e.first_frame == e.last_frame)
                r.bits |= FpduRecord::kUlpduInFrame;
            fpdus_.append(record(e.last_frame).fpdus, r);
            return;
        }
    }
}

// True when the segment being fed holds the whole ULPDU between the FPDU's markers, checked
// octet for octet against the library's ULPDU.
bool
FrameCache::ulpdu_in_segment(const mpa::FpduEvent &e) const
{
    const mpa::MarkerGrid grid =
        grid_of(static_cast<std::uint32_t>(e.markers.size()), [&] { return e.markers[0].seq; });
    const std::uint8_t *expected = e.ulpdu.data();
    return mpa::for_each_ulpdu_run(grid, e.header_seq, e.ulpdu_size, [&](mpa::SeqRange run) {
        const mpa_range r = current_.payload.locate(run);
        if (r.length != run.length ||
            std::memcmp(current_.data + r.offset, expected, run.length) != 0)
            return false;
        expected += run.length;
        return true;
    });
}

FrameCache::FrameRecord &
FrameCache::record(std::uint64_t frame)
{
    if (frame > kMaxFrame)
        frame = 0;
    if (frame != 0 && frame < current_.frame) {
        std::vector<std::uint64_t> &earlier = current_.earlier;
        const auto at = std::lower_bound(earlier.begin(), earlier.end(), frame);
        if (at == earlier.end() || *at != frame)
            earlier.insert(at, frame);
    }
    if (frame >= frame_index_.size())
        frame_index_.resize(frame + 1, 0);
    std::uint32_t &slot = frame_index_[frame];
    if (slot == 0) {
        FrameRecord r;
        if (frame == current_.frame && current_.segment) {
            r.payload = current_.payload;
            r.has_payload = true;
        }
        slot = records_.add(r) + 1;
    }
    return records_.at(slot - 1);
}

FrameCache::FrameExtras &
FrameCache::extras_of(std::uint64_t frame)
{
    FrameRecord &r = record(frame);
    if (r.extras == 0)
        r.extras = extras_.add(FrameExtras{}) + 1;
    return extras_.at(r.extras - 1);
}

// ---- Rendering

void
FrameCache::render_fpdus(const FrameRecord &r)
{
    const Window *window = r.has_payload ? &r.payload : nullptr;
    rendered_markers_.clear();
    rendered_pieces_.clear();
    rendered_fpdus_.clear();
    // First the markers and pieces of every FPDU (their vectors then stay put), then the views.
    auto &firsts = rendered_firsts_;
    firsts.clear();
    for (std::uint32_t i = 0; i < r.fpdus.count; ++i) {
        const FpduRecord &f = fpdus_.at(r.fpdus.begin + i);
        const bool here = window != nullptr && (f.bits & FpduRecord::kHere);
        firsts.emplace_back(rendered_markers_.size(), rendered_pieces_.size());
        if (f.bits & FpduRecord::kRevised)
            continue; // drawn as its sender framed it, where that reading completed it
        for (std::uint32_t k = 0; k < f.markers.count; ++k) {
            const MarkerRecord &m = markers_.at(f.markers.begin + k);
            const mpa::TcpSeq seq(m.seq);
            rendered_markers_.push_back(
                { m.seq, m.reserved, m.fpdu_ptr, m.expected_fpdu_ptr,
                  mpa::marker_target(seq, { m.reserved, m.fpdu_ptr }).value(),
                  here ? window->locate(mpa::marker_field(seq)) : mpa_range{} });
        }
        if (here && (f.bits & FpduRecord::kUlpduInFrame)) {
            const mpa::MarkerGrid grid = grid_of(
                f.markers.count, [&] { return mpa::TcpSeq(markers_.at(f.markers.begin).seq); });
            mpa::for_each_ulpdu_run(
                grid, mpa::TcpSeq(f.header_seq), f.ulpdu_size, [&](mpa::SeqRange run) {
                    const mpa_range piece = window->locate(run);
                    if (!rendered_pieces_.empty() &&
                        firsts.back().second < rendered_pieces_.size() &&
                        rendered_pieces_.back().offset + rendered_pieces_.back().length ==
                            piece.offset) {
                        rendered_pieces_.back().length += piece.length; // adjacent in the frame
                    } else {
                        rendered_pieces_.push_back(piece);
                    }
                    return true;
                });
        }
    }
    for (std::uint32_t i = 0; i < r.fpdus.count; ++i) {
        const FpduRecord &f = fpdus_.at(r.fpdus.begin + i);
        if (f.bits & FpduRecord::kRevised)
            continue;
        const bool here = window != nullptr && (f.bits & FpduRecord::kHere);
        const std::size_t marker_end =
            i + 1 < r.fpdus.count ? firsts[i + 1].first : rendered_markers_.size();
        const std::size_t piece_end =
            i + 1 < r.fpdus.count ? firsts[i + 1].second : rendered_pieces_.size();
        mpa_fpdu_view v{};
        v.connection = f.connection;
        v.direction = (f.bits & FpduRecord::kResponder) ? MPA_RESPONDER : MPA_INITIATOR;
        v.start_seq = f.start_seq;
        v.header_seq = f.header_seq;
        v.ulpdu_length = f.ulpdu_length;
        v.ulpdu_size = f.ulpdu_size;
        v.pad_length = f.pad_length;
        v.wire_length = f.wire_length;
        v.crc_field = (f.bits & FpduRecord::kNoCrcField) == 0;
        v.crc_status = (f.bits >> FpduRecord::kCrcShift) & 3;
        v.crc_received = f.crc_received;
        v.crc_computed = f.crc_computed;
        v.judged = (f.bits & FpduRecord::kJudged) != 0;
        v.first_frame = f.first_frame;
        v.marker_count = static_cast<std::uint32_t>(marker_end - firsts[i].first);
        v.markers = v.marker_count ? rendered_markers_.data() + firsts[i].first : nullptr;
        v.ulpdu_piece_count = static_cast<std::uint32_t>(piece_end - firsts[i].second);
        v.ulpdu_pieces = v.ulpdu_piece_count ? rendered_pieces_.data() + firsts[i].second : nullptr;
        if (f.ulpdu != nullptr) {
            v.ulpdu = f.ulpdu;
            v.ulpdu_kept = f.ulpdu_size;
        }
        if (here) {
            const mpa::TcpSeq start(f.start_seq);
            v.range = window->locate({ start, f.wire_length });
            v.header_range = window->locate(mpa::ulpdu_length_field(mpa::TcpSeq(f.header_seq)));
            if (v.crc_field)
                v.crc_range = window->locate(mpa::crc_field(start, f.wire_length));
            // The pad's octets (one run, unless a marker splits it: from its first to its last).
            if (f.pad_length > 0) {
                const mpa::MarkerGrid grid = grid_of(
                    f.markers.count, [&] { return mpa::TcpSeq(markers_.at(f.markers.begin).seq); });
                mpa::for_each_pad_run(grid, mpa::TcpSeq(f.header_seq), f.ulpdu_size, f.pad_length,
                                      [&](mpa::SeqRange run) {
                                          const mpa_range r = window->locate(run);
                                          if (r.length == 0)
                                              return true;
                                          if (v.pad_range.length == 0)
                                              v.pad_range = r;
                                          else
                                              v.pad_range.length =
                                                  r.offset + r.length - v.pad_range.offset;
                                          return true;
                                      });
            }
        }
        rendered_fpdus_.push_back(v);
    }
}

// ---- Which field a finding is about (the catalogue says which kind: DiagField), among what
// the frame shows.

namespace
{

// The FPDU views hold the direction as the C enum; findings too.
bool
same_sender(const mpa_finding_view &f, std::uint32_t connection, int direction)
{
    return f.connection == connection && f.direction == direction;
}

// Frames looked at after a finding's own for the frame that shows its FPDU or startup frame
// (an FPDU that spans frames is shown at the frame that completes it).
constexpr std::uint64_t kShownInScan = 1u << 16;

} // namespace

void
FrameCache::match_findings(std::uint64_t frame)
{
    for (mpa_finding_view &f : rendered_findings_) {
        f.subject = MPA_SUBJECT_NONE;
        f.subject_index = 0;
        f.marker_index = -1;
        f.shown_in = 0;
        const auto field = static_cast<mpa::DiagField>(f.field);
        const mpa::TcpSeq seq(f.tcp_seq);
        if (mpa::is_fpdu_field(field)) {
            for (std::size_t i = 0; i < rendered_fpdus_.size(); ++i) {
                const mpa_fpdu_view &v = rendered_fpdus_[i];
                if (!same_sender(f, v.connection, v.direction) ||
                    !mpa::SeqRange{ mpa::TcpSeq(v.start_seq), v.wire_length }.contains(seq))
                    continue;
                f.subject = MPA_SUBJECT_FPDU;
                f.subject_index = static_cast<std::uint32_t>(i);
                for (std::uint32_t k = 0; field == mpa::DiagField::Marker && k < v.marker_count;
                     ++k) {
                    if (v.markers[k].tcp_seq == f.tcp_seq)
                        f.marker_index = static_cast<std::int32_t>(k);
                }
                break;
            }
            if (f.subject == MPA_SUBJECT_NONE)
                f.shown_in = frame_showing_fpdu(frame, f);
        } else if (mpa::is_startup_field(field)) {
            for (std::size_t i = 0; i < rendered_startups_.size(); ++i) {
                const mpa_startup_view &v = rendered_startups_[i];
                if (same_sender(f, v.connection, v.direction) && v.tcp_seq == f.tcp_seq) {
                    f.subject = MPA_SUBJECT_STARTUP;
                    f.subject_index = static_cast<std::uint32_t>(i);
                    break;
                }
            }
            if (f.subject == MPA_SUBJECT_NONE)
                f.shown_in = frame_showing_startup(frame, f);
        }
    }
}

std::uint64_t
FrameCache::frame_showing_fpdu(std::uint64_t after, const mpa_finding_view &f) const
{
    // A direction's FPDUs complete in stream order: the first one of the finding's direction
    // completed after its frame holds the finding's octet, or none does.
    const mpa::TcpSeq seq(f.tcp_seq);
    const std::uint64_t end = std::min<std::uint64_t>(frame_index_.size(), after + kShownInScan);
    for (std::uint64_t frame = after + 1; frame < end; ++frame) {
        if (frame_index_[frame] == 0)
            continue;
        const Span span = records_.at(frame_index_[frame] - 1).fpdus;
        for (std::uint32_t i = 0; i < span.count; ++i) {
            const FpduRecord &r = fpdus_.at(span.begin + i);
            const int direction = (r.bits & FpduRecord::kResponder) ? MPA_RESPONDER : MPA_INITIATOR;
            if ((r.bits & FpduRecord::kRevised) || !same_sender(f, r.connection, direction))
                continue;
            if (mpa::SeqRange{ mpa::TcpSeq(r.start_seq), r.wire_length }.contains(seq))
                return frame;
            if (mpa::TcpSeq(r.start_seq).is_after(seq))
                return 0;
        }
    }
    return 0;
}

std::uint64_t
FrameCache::frame_showing_startup(std::uint64_t after, const mpa_finding_view &f) const
{
    const std::uint64_t end = std::min<std::uint64_t>(frame_index_.size(), after + kShownInScan);
    for (std::uint64_t frame = after + 1; frame < end; ++frame) {
        if (frame_index_[frame] == 0)
            continue;
        const FrameRecord &r = records_.at(frame_index_[frame] - 1);
        if (r.extras == 0)
            continue;
        const Span span = extras_.at(r.extras - 1).startups;
        for (std::uint32_t i = 0; i < span.count; ++i) {
            const mpa_startup_view &s = startups_.at(span.begin + i);
            if (same_sender(f, s.connection, s.direction) && s.tcp_seq == f.tcp_seq)
                return frame;
        }
    }
    return 0;
}

const mpa_frame_view *
FrameCache::view(std::uint64_t frame)
{
    if (frame >= frame_index_.size() || frame_index_[frame] == 0)
        return nullptr;
    const FrameRecord &r = records_.at(frame_index_[frame] - 1);
    render_fpdus(r);
    const FrameExtras *x = r.extras ? &extras_.at(r.extras - 1) : nullptr;
    copy_out(findings_, x ? x->findings : Span{}, rendered_findings_);
    copy_out(startups_, x ? x->startups : Span{}, rendered_startups_);
    copy_out(ended_, x ? x->ended : Span{}, rendered_ended_);
    match_findings(frame);

    mpa_frame_view &v = rendered_;
    v.mpa_payload = !rendered_startups_.empty() || !rendered_fpdus_.empty();
    v.findings = rendered_findings_.data();
    v.finding_count = static_cast<std::uint32_t>(rendered_findings_.size());
    v.startups = rendered_startups_.data();
    v.startup_count = static_cast<std::uint32_t>(rendered_startups_.size());
    v.fpdus = rendered_fpdus_.data();
    v.fpdu_count = static_cast<std::uint32_t>(rendered_fpdus_.size());
    v.ended = rendered_ended_.data();
    v.ended_count = static_cast<std::uint32_t>(rendered_ended_.size());
    v.payload = r.has_payload ? mpa_range{ r.payload.offset, r.payload.length } : mpa_range{};
    return &v;
}

} // namespace mpa_plugin
