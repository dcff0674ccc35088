// The plugin's per-frame cache: what the library reported at each frame of a capture file,
// kept for as long as Wireshark keeps the file and rendered as the plain C views of
// mpa_bridge.h whenever Wireshark shows a frame (on any pass, in any order). Compact: an
// FPDU costs 48 octets plus 12 per marker. Byte ranges, ULPDU pieces and where markers
// point are not stored but derived when a frame is rendered, from sequence numbers and the
// frame's TCP payload, by the library's FPDU layout (mpa/fpdu_layout.h): this file only
// translates sequence space into offsets of a frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "mpa/events.h"
#include "mpa/tcp_seq.h"
#include "mpa_bridge.h"

namespace mpa_plugin
{

// Library values as the C enums of mpa_bridge.h.
int direction_view(mpa::Direction d);
int crc_status_view(mpa::CrcStatus status);

// Where a frame's TCP payload sits: in the frame's bytes and in sequence space.
struct Window {
    std::uint32_t offset = 0;
    std::uint32_t length = 0;
    mpa::TcpSeq seq;

    // The part of `range` inside the payload, as frame offsets (length 0: none).
    mpa_range locate(mpa::SeqRange range) const;
};

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
template <typename T> class Pool
{
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

  public:
    void
    append(Span &span, const T &item)
    {
        if (span.count == 0) {
            span.begin = size_;
        } else if (span.begin + span.count != size_) {
            const Span old = span;
            span.begin = size_;
            for (std::uint32_t i = 0; i < old.count; ++i)
                push(at(old.begin + i));
        }
        push(item);
        ++span.count;
    }
    // Appends an item of its own (no frame's run); returns its index.
    std::uint32_t
    add(const T &item)
    {
        push(item);
        return size_ - 1;
    }
    T &
    at(std::uint32_t index)
    {
        return chunks_[index >> kShift].get()[index & kMask];
    }
    const T &
    at(std::uint32_t index) const
    {
        return chunks_[index >> kShift].get()[index & kMask];
    }

  private:
    static constexpr std::uint32_t kShift = 12;
    static constexpr std::uint32_t kMask = (1u << kShift) - 1;
    struct Free {
        void
        operator()(T *p) const
        {
            ::operator delete(p);
        }
    };

    void
    push(T item)
    { // by value: `item` may live in this pool
        if ((size_ & kMask) == 0 && (size_ >> kShift) == chunks_.size()) {
            // Raw storage: pages are touched only as items arrive.
            chunks_.emplace_back(static_cast<T *>(::operator new(sizeof(T) << kShift)));
        }
        new (&chunks_[size_ >> kShift].get()[size_ & kMask]) T(item);
        ++size_;
    }

    std::vector<std::unique_ptr<T, Free>> chunks_;
    std::uint32_t size_ = 0;
};

// Octets that must outlive the frame that carried them (ULPDUs that began in an earlier
// frame, startup keys and private data), in 1 MiB chunks: stable addresses, few allocations.
class ByteArena
{
  public:
    const std::uint8_t *keep(std::span<const std::uint8_t> bytes);

  private:
    static constexpr std::size_t kChunk = std::size_t{ 1 } << 20;
    std::vector<std::unique_ptr<std::uint8_t[]>> chunks_;
    std::uint8_t *next_ = nullptr;
    std::size_t room_ = 0;
};

class FrameCache
{
  public:
    // ---- Filling (Wireshark's first pass). Events the library reports while a TCP segment
    // is fed get byte ranges in that segment's frame.

    // Frame `frame` is being fed (its captured octets at `data`)...
    void begin_frame(std::uint64_t frame, const std::uint8_t *data);
    // ... and carries a TCP segment whose payload sits at `payload`.
    void begin_segment(const Window &payload);
    // Feeding the frame is over.
    void end_frame();
    // The frame being fed, or the last one fed.
    std::uint64_t
    current_frame() const
    {
        return current_.frame;
    }
    // The frames before `frame` that the library filed something under (an FPDU, a
    // revision, a finding, a startup frame) while `frame` was fed, in order (none when
    // `frame` is not the frame fed last). Wireshark's first pass has dissected those frames
    // already: a single pass (tshark without -2) showed them without it.
    std::span<const std::uint64_t> filed_earlier(std::uint64_t frame) const;
    // `range` as offsets of frame `frame` when that frame's segment is being fed (length 0:
    // not in it, or not being fed).
    mpa_range locate_in_segment(std::uint64_t frame, mpa::SeqRange range) const;

    void add_finding(std::uint64_t frame, const mpa_finding_view &finding);
    void add_startup(std::uint64_t frame, const mpa_startup_view &startup);
    // The FPDU `fpdu` of connection number `connection`, at the frame that completed it.
    void add_fpdu(const mpa::FpduEvent &fpdu, std::uint32_t connection);
    // A deviation named: the FPDU added before at `revised.start_seq` as its sender framed
    // it (EventSink::on_fpdu_revised), filed under the frame that completed it that way.
    void revise_fpdu(const mpa::FpduEvent &revised, bool markers);
    void add_ended(std::uint64_t frame, const mpa_connection_view *connection);

    // Copies that live as long as the cache.
    const std::uint8_t *
    keep(std::span<const std::uint8_t> bytes)
    {
        return bytes_.keep(bytes);
    }
    const char *
    keep(std::string s)
    {
        return strings_.emplace_back(std::move(s)).c_str();
    }

    // ---- Rendering: the cached records of one frame as views; NULL when the library
    // reported nothing at that frame. Valid until the next call.
    const mpa_frame_view *view(std::uint64_t frame);

  private:
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
            kHere = 4,         // this frame completed it: byte ranges are in this frame
            kUlpduInFrame = 8, // the ULPDU is this frame's octets between the markers
            kCrcShift = 4,     // two bits: enum mpa_crc_status
            kNoCrcField = 64,  // its sender sends no CRC field
            kRevised = 128,    // replaced by its sender's framing (filed again, maybe elsewhere)
        };
        std::uint32_t connection;
        std::uint32_t start_seq;
        std::uint32_t header_seq;
        std::uint32_t wire_length;
        std::uint32_t crc_received;
        std::uint32_t crc_computed;
        std::uint32_t first_frame;
        std::uint32_t ulpdu_size;
        std::uint16_t ulpdu_length;
        std::uint8_t pad_length;
        std::uint8_t bits;
        Span markers;
        const std::uint8_t *ulpdu; // a copy (ulpdu_size octets) when not in this frame
    };
    // What the library reported at one frame besides FPDUs (rare; kept apart).
    struct FrameExtras {
        Span findings;
        Span startups;
        Span ended;
    };
    struct FrameRecord {
        Span fpdus;
        Window payload;           // valid when has_payload
        std::uint32_t extras = 0; // 1 + index in the extras pool, 0: none
        bool has_payload = false;
    };
    // The frame being fed.
    struct Current {
        std::uint64_t frame = 0;
        bool segment = false; // it carries a TCP segment, at `payload`
        Window payload;
        const std::uint8_t *data = nullptr;
        std::vector<std::uint64_t> earlier; // see filed_earlier()
    };

    // Wireshark numbers frames from 1 with 32 bits; anything beyond is filed under frame 0.
    static constexpr std::uint64_t kMaxFrame = UINT32_MAX;

    bool ulpdu_in_segment(const mpa::FpduEvent &fpdu) const;
    void render_fpdus(const FrameRecord &r);
    // Each rendered finding's subject among the rendered FPDUs and startup frames (by
    // connection, direction and sequence number), or the later frame that shows it.
    void match_findings(std::uint64_t frame);
    std::uint64_t frame_showing_fpdu(std::uint64_t after, const mpa_finding_view &f) const;
    std::uint64_t frame_showing_startup(std::uint64_t after, const mpa_finding_view &f) const;
    FrameRecord &record(std::uint64_t frame);
    FrameExtras &extras_of(std::uint64_t frame);
    template <typename T>
    static void
    copy_out(const Pool<T> &pool, Span span, std::vector<T> &out)
    {
        out.clear();
        for (std::uint32_t i = 0; i < span.count; ++i)
            out.push_back(pool.at(span.begin + i));
    }

    Current current_;
    // The payload windows of the last frames that carried a segment (a revised FPDU may end
    // in a frame fed before: its byte ranges are located with that frame's window).
    static constexpr std::size_t kRecentWindows = 8192;
    std::deque<std::pair<std::uint64_t, Window>> recent_windows_;
    const Window *recent_window(std::uint64_t frame) const;
    // Frame numbers are dense, so a frame's record is found through a plain index: 4 octets
    // per frame, records only for frames the library reported about.
    std::vector<std::uint32_t> frame_index_{ 0 }; // frame -> 1 + index in `records_`, 0: none
    Pool<FrameRecord> records_;
    Pool<FrameExtras> extras_;
    Pool<FpduRecord> fpdus_;
    Pool<MarkerRecord> markers_;
    Pool<mpa_finding_view> findings_;
    Pool<mpa_startup_view> startups_;
    Pool<const mpa_connection_view *> ended_;
    ByteArena bytes_;
    std::deque<std::string> strings_; // messages, descriptions, addresses (stable addresses)

    // The frame being rendered (valid until the next call).
    std::vector<std::pair<std::size_t, std::size_t>>
        rendered_firsts_; // each FPDU's first marker, piece
    std::vector<mpa_marker_view> rendered_markers_;
    std::vector<mpa_range> rendered_pieces_;
    std::vector<mpa_fpdu_view> rendered_fpdus_;
    std::vector<mpa_finding_view> rendered_findings_;
    std::vector<mpa_startup_view> rendered_startups_;
    std::vector<const mpa_connection_view *> rendered_ended_;
    mpa_frame_view rendered_{};
};

} // namespace mpa_plugin
