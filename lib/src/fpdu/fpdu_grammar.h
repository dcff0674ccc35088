// The FPDU grammar (RFC 5044 4.1-4.4): marker, ULPDU_Length, ULPDU, pad and CRC for one sender
// framing (sender_framing.h) on one marker grid, with the running CRC. It consumes octets and
// says what happened as a value; it judges nothing (the FPDU reader holds the rules).
//
// Markers are not a state but an interruption: before any octet at a marker position of the
// grid is taken as FPDU content, four octets are read as a marker. A marker met before the
// ULPDU_Length field is the FPDU's leading marker (FPDUPTR 0, inside its CRC). The CRC is
// updated over each contiguous run of one piece of octets, so no FPDU is ever copied, and
// nothing is allocated in the steady state.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "mpa/events.h"
#include "mpa/marker_grid.h"
#include "mpa/sender_framing.h"
#include "mpa/tcp_seq.h"

namespace mpa {

class FpduGrammar {
 public:
  static constexpr std::size_t kUlpduHeadSize = 64;

  enum class Step : std::uint8_t {
    NeedMore,     // every octet given was taken
    Marker,       // a marker not exact where the grammar reads it (marker_exact): last_marker()
    ShortUlpdu,   // ULPDU_Length read; the ULPDU has no room for a DDP header: judge the boundary
    UlpduBegins,  // the ULPDU's first two octets are in (ulpdu_head()), not `ordinary`
    Complete,     // the FPDU is complete: event()
  };
  struct Result {
    Step step;
    std::size_t consumed;  // octets taken before it
  };

  FpduGrammar(TcpSeq start, std::uint64_t offset, MarkerGrid grid, bool crc, bool keep_ulpdu,
              std::uint32_t connection, Direction direction);

  // A push from `frame` begins; the FPDU in progress no longer lies within one segment when it
  // brings octets and starts a segment or comes in another frame. Returns whether it did.
  bool begin_push(std::uint64_t frame, bool segment_start, bool nonempty) {
    const bool within = current_.within_one_segment;
    if (seen_any_octet_ && nonempty && (segment_start || frame != current_.first_frame)) {
      current_.within_one_segment = false;  // another segment carries part of this FPDU
    }
    return within;
  }
  // Takes octets from `p` (the continuation of the previous call within one push) until
  // something happens. `push_start`: p is the push's first octet and it starts a segment.
  // `judged`: whether an FPDU that begins here is judged (FpduEvent::judged). `ordinary`, asked
  // of the grammar once a ULPDU's first two octets are in: true when its caller needs no
  // UlpduBegins for it (the common case then costs no return).
  template <typename OrdinaryStart>
  Result feed(const std::uint8_t* p, std::size_t left, std::uint64_t frame, bool push_start,
              bool judged, const OrdinaryStart& ordinary);
  // `data` is what the next feed() brings, its first octet the next FPDU's (no FPDU in
  // progress), and `state` the running CRC32c (crc32c.h) over all of `data` but its last four
  // octets, worked out elsewhere (on the pipeline's reading thread: FpduReaderConfig::
  // payload_crc). Where the FPDU that begins there fills `data` exactly, its CRC field the
  // last four octets (the usual case: one FPDU to a segment, RFC 5044 4.3), that FPDU's CRC is
  // `state` and the grammar computes none; else this does nothing. Returns whether it took it.
  // The FPDU's end is foreseen with the grammar's own arithmetic (fpdu_wire_length), so it
  // completes at the last octet of `data`, unless a step ends the push before (the reader then
  // abandons the FPDU: it is read again from held copies, with no CRC given). Where such a
  // CRC does not match the field, the markers' crc_before are worked out from `data` at
  // completion; where it matches they are not (MarkerFact::crc_before).
  bool give_crc(std::span<const std::uint8_t> data, std::uint32_t state);
  // Whether `data` may be one whole FPDU whose CRC give_crc takes: its ULPDU_Length (first,
  // or after a leading marker) makes an FPDU of about its size, whatever the markers and the
  // sender's framing (ULPDU_Length off by up to 128). False only where give_crc would refuse,
  // so that whoever works CRCs out ahead (the pipeline's reading thread) spares the octets of
  // FPDUs that span segments.
  static bool may_be_one_fpdu(std::span<const std::uint8_t> data);
  // The one reset of the FPDU in progress: the next octet, at `seq`, begins an FPDU.
  void reset(TcpSeq seq, std::uint64_t offset) {
    // (No CRC run is open at the end of an FPDU: the CRC field folds it, and only a framing
    // without CRCs sends no CRC field.)
    pos_ = seq;
    offset_ = offset;
    state_ = State::Header;
    header_.got = 0;
    marker_.got = 0;
    seen_any_octet_ = false;
    crc_.run = nullptr;
    given_.armed = given_.in_progress = false;
  }
  void reframe(SenderFraming framing, MarkerGrid grid) {
    framing_ = framing;
    grid_ = grid;
  }
  // Octets passed by unread.
  void skip(std::uint64_t n) {
    pos_ += static_cast<std::uint32_t>(n);
    offset_ += n;
  }
  // The FPDU just completed was longer than read (its sender's CRC field lies further on):
  // its ULPDU goes on with `more` (markers removed).
  void extend_ulpdu(std::span<const std::uint8_t> more) {
    const std::size_t head = std::min<std::size_t>(more.size(), kUlpduHeadSize - ulpdu_.head_size);
    std::copy_n(more.begin(), head, ulpdu_.head.begin() + ulpdu_.head_size);
    ulpdu_.head_size += static_cast<std::uint32_t>(head);
    current_.ulpdu_head = {ulpdu_.head.data(), ulpdu_.head_size};
    if (!ulpdu_.keep) return;
    ulpdu_.whole.insert(ulpdu_.whole.end(), more.begin(), more.end());
    current_.ulpdu = ulpdu_.whole;
  }
  // The rest of a push is not read (the CRC run over it is dropped).
  void abandon_push() {
    crc_.run = nullptr;
    given_.armed = false;
  }

  // Exactly how many more octets finish the unit in progress (fpdu_reader.h).
  std::uint32_t bytes_needed() const;
  bool in_fpdu() const { return seen_any_octet_; }

  TcpSeq position() const { return pos_; }
  std::uint64_t offset() const { return offset_; }
  const MarkerGrid& grid() const { return grid_; }
  const SenderFraming& framing() const { return framing_; }
  // The FPDU in progress, or the one just completed.
  FpduEvent& event() { return current_; }
  const FpduEvent& event() const { return current_; }
  std::uint32_t ulpdu_size() const { return ulpdu_.size; }  // as the sender frames it
  const std::uint8_t* ulpdu_head() const { return ulpdu_.head.data(); }
  std::uint64_t header_frame() const { return header_frame_; }  // completed its ULPDU_Length
  bool pad_nonzero() const { return pad_nonzero_; }
  std::uint32_t crc_state() const { return crc_.state; }  // over the octets before the CRC field
  // The FPDU in progress has its ULPDU_Length (and so its extent, as a framing counts it).
  bool header_read() const { return seen_any_octet_ && state_ != State::Header; }
  std::uint32_t ulpdu_head_size() const { return ulpdu_.head_size; }
  // Between pushes: the running CRC32c of the FPDU in progress and the octet before which it
  // runs (nullopt: not computed here, or a marker or the CRC field is being read).
  std::optional<std::pair<std::uint32_t, TcpSeq>> crc_so_far() const;
  // The stream ended inside the FPDU in progress where another framing ends it: completed as
  // read (the reader reframes the event), the grammar at the next FPDU.
  void complete_here(std::uint64_t frame) { complete(frame); }
  const MarkerFact& last_marker() const { return marker_.facts.back(); }
  bool last_marker_leading() const { return marker_.last_leading; }

 private:
  enum class State : std::uint8_t { Header, Ulpdu, Pad, Crc };

  // The running CRC32c (crc32c.h) of the FPDU in progress. RFC 5044 4.4: the CRC covers the
  // FPDU from its first octet (the leading marker, if any) through the pad, markers
  // included: one contiguous run of each push, folded into `state` in one call when the CRC
  // field (or the end of the push, or a marker) is reached.
  struct RunningCrc {
    bool checked = false;  // CRCs are on
    // The CRC is computed: with CRCs on, and with them off (crc_unchecked) for the first FPDU
    // and the next ones while each CRC field held its CRC32c.
    bool computed = true;
    bool unchecked_due = true;
    std::uint32_t state = 0;
    std::uint32_t before_marker = 0;    // `state` before the marker being read
    const std::uint8_t* run = nullptr;  // first covered octet of this push not yet in it

    // The octets from `at` on are covered (the run begins there unless it is open).
    void cover(const std::uint8_t* at) {
      if (computed && run == nullptr) run = at;
    }
    // The run ends before `upto` (fpdu_grammar_feed.h).
    void fold(const std::uint8_t* upto);
  };
  // give_crc: the FPDU begun next (armed) or in progress (in_progress), whose first octet is
  // at `first`, has its CRC state given.
  struct GivenCrc {
    bool armed = false;
    bool in_progress = false;
    std::uint32_t state = 0;
    const std::uint8_t* first = nullptr;
  };
  // A field of N octets read as they come, a marker between any two of them.
  template <std::size_t N>
  struct Field {
    std::array<std::uint8_t, N> octets{};
    std::uint32_t got = 0;
  };
  // The marker being read, and the facts of the current FPDU's markers.
  struct Markers {
    std::array<std::uint8_t, kMarkerSize> octets{};
    std::uint32_t got = 0;
    bool last_leading = false;
    std::vector<MarkerFact> facts;
  };
  // The current FPDU's ULPDU: its size as the sender frames it, how much of it came, its
  // first octets (markers removed), and the whole of it with keep_ulpdu.
  struct Ulpdu {
    bool keep = false;
    std::uint32_t size = 0;
    std::uint32_t got = 0;
    std::array<std::uint8_t, kUlpduHeadSize> head{};
    std::uint32_t head_size = 0;
    std::vector<std::uint8_t> whole;
  };

  bool completed() const { return state_ == State::Crc && remaining_ == 0; }
  void begin(std::uint64_t frame, bool segment_start, bool judged);
  // One per state of the grammar (and the marker that interrupts any of them): takes octets
  // of its unit from `p`, at most `limit` (a marker's: `left`), and returns how many; a step
  // its caller returns is put in `step`. The caller moves the position on.
  std::uint32_t take_marker(const std::uint8_t* p, std::size_t left);
  std::uint32_t take_header(const std::uint8_t* p, std::uint32_t limit, std::uint64_t frame,
                            Step& step);
  template <typename OrdinaryStart>
  std::uint32_t take_ulpdu(const std::uint8_t* p, std::uint32_t limit,
                           const OrdinaryStart& ordinary, Step& step);
  std::uint32_t take_pad(const std::uint8_t* p, std::uint32_t limit);
  std::uint32_t take_crc_field(const std::uint8_t* p, std::uint32_t limit);
  bool read_marker();  // the marker just read, recorded; whether it is exact
  void complete(std::uint64_t frame);
  // The markers' crc_before over the given FPDU's octets (its CRC did not match).
  void marker_states_from_given();
  void after_pad() {
    state_ = State::Crc;
    remaining_ = framing_.crc_field ? kCrcSize : 0;
  }
  void after_ulpdu() {
    if (current_.pad_length > 0) {
      state_ = State::Pad;
      remaining_ = current_.pad_length;
    } else {
      after_pad();
    }
  }

  MarkerGrid grid_;
  SenderFraming framing_;
  RunningCrc crc_;
  GivenCrc given_;
  TcpSeq pos_;
  std::uint64_t offset_ = 0;

  std::uint32_t remaining_ = 0;  // octets left in the current state (Ulpdu/Pad/Crc)
  Field<kUlpduLengthSize> header_;
  Markers marker_;
  std::array<std::uint8_t, kCrcSize> crc_field_{};
  // Apart from remaining_: read together after both were stored separately (completed()),
  // the two would wait for the stores to reach the cache (a store-forwarding stall, 24% of
  // FpduReader::push's samples).
  State state_ = State::Header;
  bool pad_nonzero_ = false;
  bool seen_any_octet_ = false;  // of the current FPDU
  FpduEvent current_;
  Ulpdu ulpdu_;
  std::uint64_t header_frame_ = 0;
};

}  // namespace mpa
