// The FPDU reader (RFC 5044 4, 6): an incremental push parser for the full-operation bytes
// of one direction. In-order bytes arrive in pieces of any size; it walks the marker grid,
// ULPDU_Length, ULPDU, pad and CRC, computes the CRC incrementally, and emits one
// FpduEvent per FPDU plus findings for every rule a sender broke. After an error that
// carries an RFC error code, nothing more is judged in this direction (RFC 5044 8).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "mpa/events.h"
#include "mpa/fpdu_search.h"
#include "mpa/marker_grid.h"
#include "mpa/sender_framing.h"
#include "mpa/tcp_seq.h"

namespace mpa {

struct FpduReaderConfig {
  std::uint32_t connection = 0;
  Direction direction = Direction::Initiator;
  TcpSeq start_seq;                // first octet of full operation in this direction
  std::uint64_t start_offset = 0;  // its stream offset
  bool markers = false;            // the receiver asked for markers (its M=1)
  bool crc = false;                // either side set C=1
  TcpSeq grid_origin;              // marker grid origin; normally start_seq
  bool grid_origin_set = false;
  bool keep_ulpdu = false;  // copy each whole ULPDU into FpduEvent::ulpdu (the plugin)
  const std::uint64_t* now_ns = nullptr;  // capture time of the segment being read, for
                                          // FpduEvent::timestamp_ns (nullptr: 0, unknown)
  // How the sender frames is judged against what was negotiated: an FPDU boundary whose
  // octets are no plausible DDP header makes the reader test the framings of sender_framing.h.
  // Off where the parameters were inferred from the data (a failed inference is no fault of
  // the sender's) or the ULPDUs are not DDP: MPA framing alone is read.
  bool check_sender_framing = true;
};

class FpduReader {
 public:
  static constexpr std::size_t kUlpduHeadSize = 64;

  explicit FpduReader(const FpduReaderConfig& config);

  // Consumes all of `data`, which continues the stream exactly where the previous call
  // ended. `frame` delivered it; `segment_start` is true when data[0] is the first payload
  // octet of its TCP segment (false: `data` continues the segment of the previous call).
  // An FPDU is `within_one_segment` unless a later segment (segment_start, or another
  // frame) delivers some of its octets; it `starts_segment` when its first octet (its
  // leading marker, if any) is data[0] of a push with segment_start.
  void push(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start,
            FpduSink& sink);

  // Exactly how many more octets finish the unit in progress: the rest of the FPDU when its
  // ULPDU_Length is known (markers included), else the octets up to and including the
  // ULPDU_Length field (and a marker in front of it).
  std::uint32_t bytes_needed() const;

  // True when some but not all octets of an FPDU (or its leading marker) have arrived.
  bool in_fpdu() const { return seen_any_octet_; }

  // Octets the capture does not hold: the FPDU in progress cannot be verified. The reader
  // skips to the next FPDU it can find: by the marker grid when markers are on (FPDUPTR),
  // otherwise by a CRC- or structure-validated search (fpdu_search.h), and then reports
  // `capture.resynchronised`. The octets searched are replayed with the frames that
  // delivered them. Reports via sink only when framing is found again. Only evidence later
  // octets cannot refute is taken, so where the stream was cut does not matter (except
  // that beyond 256 KiB without evidence the oldest half is dropped, unverified).
  void on_gap(std::uint64_t length, std::uint64_t frame, FpduSink& sink);

  // The stream ends here (FIN, RST, or the end of the capture): a framing test still open
  // is decided on what arrived. Call before asking in_fpdu().
  void finish(std::uint64_t frame, FpduSink& sink);

  // Stop judging: an error (RFC 5044 8) ended MPA in this direction. FPDUs are still
  // framed and counted; `fpdu.not-judged-after-error` is said once, at the first FPDU that
  // begins after the error (the FPDU in which the error arose counts as judged).
  void stop_judging();
  bool judging() const { return judging_; }
  bool synchronised() const { return !lost_ && !abandoned_ && !testing_; }
  // Holding octets while it tests how the sender frames (fpdu_reader_framing.cpp).
  bool testing() const { return testing_; }
  // How the sender frames its FPDUs: the RFC's framing until a deviation is named.
  const SenderFraming& framing() const { return framing_; }
  // Whether FPDU boundaries are judged against how the sender frames (config), a deviation
  // was named, or fpdu.framing-lost ended reading. An FPDU reported before a deviation is
  // named was read with the RFC's lengths: what its length implies (segment alignment) may
  // be the misreading, not the sender's.
  bool judges_sender_framing() const { return config_.check_sender_framing; }
  bool framing_named() const { return framing_named_; }
  bool framing_lost() const { return abandoned_; }

  TcpSeq position() const { return pos_; }
  std::uint64_t offset() const { return offset_; }
  const MarkerGrid& grid() const { return grid_; }
  bool crc_enabled() const { return config_.crc; }

  std::uint64_t fpdus() const { return fpdus_; }
  std::uint64_t ulpdu_bytes() const { return ulpdu_bytes_; }
  std::uint64_t crc_failures() const { return crc_failures_; }

 private:
  enum class State : std::uint8_t { Header, Ulpdu, Pad, Crc };

  void begin_fpdu(std::uint64_t frame, bool segment_start);
  void read_marker(const std::uint8_t* data, std::uint32_t n, std::uint64_t frame, FpduSink& sink);
  // Completes the FPDU in progress; false when its CRC matched only as a deviating sender
  // frames (the reader then goes on from crc_resume_, as that sender frames).
  bool finish_fpdu(std::uint64_t frame, FpduSink& sink);
  // `resume`: where the next FPDU begins; `pad_nonzero`: the pad as that sender framed it.
  std::optional<SenderHypothesis> explain_crc(std::span<const std::uint8_t> window,
                                              TcpSeq window_seq, TcpSeq& resume,
                                              bool& pad_nonzero) const;
  // A failing CRC that matches where a deviation puts the CRC field: the FPDU is reported as
  // that sender frames it, the deviation named, and true returned (fpdu_reader_framing.cpp).
  bool explain_bad_crc(std::uint64_t frame, FpduSink& sink);
  // Reports the FPDU completed (findings on its own octets, then the event).
  void emit_fpdu(std::uint64_t frame, FpduSink& sink, bool crc_explained);
  // The findings on the FPDU's own octets (pad, CRC), or that it is not judged.
  void judge_fpdu(std::uint64_t frame, FpduSink& sink, bool crc_explained);
  void report(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset, std::uint64_t frame,
              std::string message);
  void fatal(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset, std::uint64_t frame,
             std::string message);
  // Resynchronisation after a gap (see fpdu_reader.cpp).
  void push_lost(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start,
                 FpduSink& sink);
  bool try_resync(std::uint64_t frame, FpduSink& sink);
  void replay_from(std::size_t from, std::uint64_t frame, FpduSink& sink);
  void hold(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start);

  // Framing truth (fpdu_reader_framing.cpp): when an FPDU boundary is implausible, the
  // framings of sender_framing.h are tested on what follows, from the octets kept in
  // tail_, and the one that reads on is adopted (or fpdu.framing-lost ends reading).
  enum class Trigger : std::uint8_t {
    Boundary,     // the FPDU begun here does not begin like an FPDU carrying DDP
    Crc,          // the FPDU just completed fails its CRC but matches as a deviation frames it
    FirstMarker,  // the first marker of full operation is no marker
  };
  struct Candidate {
    SenderHypothesis hypothesis;
    std::size_t start;  // index into the held octets
    bool exempt;        // its first FPDU is the odd one itself
    FramingTest test{.stop = FramingTest::Stop::Incomplete};  // how far it reads the held octets
                                                              // (untested: Incomplete)
  };
  // A framing test's outcome: the candidate adopted (or fpdu.framing-lost), and the FPDUs that
  // confirmed it.
  struct Verdict {
    std::size_t candidate;
    std::size_t fpdus;
  };
  static constexpr std::size_t kFramingLost = static_cast<std::size_t>(-1);
  // The verdict the first `held` octets give (none: more are needed).
  std::optional<Verdict> verdict_with(std::size_t held) const;
  Verdict fallback(bool weak_rfc) const;
  bool act(const Verdict& verdict, std::uint64_t frame, FpduSink& sink);
  // Whether the FPDU begun may go on (its ULPDU begins like DDP, or it is exempt); else sets
  // pending_trigger_. `control`: the ULPDU's first two octets (nullptr: it has fewer).
  void check_start(const std::uint8_t* control, FpduSink& sink);
  void after_ulpdu() {
    if (current_.pad_length > 0) {
      state_ = State::Pad;
      remaining_ = current_.pad_length;
    } else {
      state_ = State::Crc;
      remaining_ = framing_.crc_field ? kCrcSize : 0;
    }
  }
  void begin_test(Trigger trigger, TcpSeq push_seq, std::uint64_t push_offset,
                  std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start);
  void push_testing(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start,
                    FpduSink& sink);
  bool decide(bool final, std::uint64_t frame, FpduSink& sink);
  void adopt(const Candidate& candidate, std::size_t fpdus, std::uint64_t frame, FpduSink& sink);
  void lose_framing(std::uint64_t frame, FpduSink& sink);
  void remember_tail(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start) {
    if (data.size() >= kTailSize) {  // (the common case: a fixed-size copy)
      std::memcpy(tail_.data(), data.data() + data.size() - kTailSize, kTailSize);
      tail_size_ = kTailSize;
      tail_chunks_[0] = {0, frame, segment_start && data.size() == kTailSize};
      tail_chunk_count_ = 1;
    } else if (!data.empty()) {
      remember_short_tail(data, frame, segment_start);
    }
  }
  void remember_short_tail(std::span<const std::uint8_t> data, std::uint64_t frame,
                           bool segment_start);
  // Starts the held octets with the tail, before a push that began at push_seq.
  void hold_tail(TcpSeq push_seq, std::uint64_t push_offset);

  FpduReaderConfig config_;
  MarkerGrid grid_;
  TcpSeq pos_;
  std::uint64_t offset_ = 0;
  bool judging_ = true;
  bool said_not_judged_ = false;
  bool pending_not_judged_ = false;

  // The FPDU in progress.
  State state_ = State::Header;
  std::uint32_t remaining_ = 0;  // octets left in the current state (Ulpdu/Pad/Crc)
  std::array<std::uint8_t, 2> header_{};
  std::uint32_t header_got_ = 0;
  std::array<std::uint8_t, 4> marker_{};
  std::uint32_t marker_got_ = 0;
  std::array<std::uint8_t, 4> crc_bytes_{};
  std::uint32_t crc_state_ = 0;
  bool pad_nonzero_ = false;
  bool seen_any_octet_ = false;  // of the current FPDU
  bool fpdu_judged_ = true;      // judging_ when the current FPDU began
  FpduEvent current_;
  std::vector<MarkerFact> markers_;
  std::array<std::uint8_t, kUlpduHeadSize> ulpdu_head_{};
  std::uint32_t ulpdu_head_size_ = 0;
  std::uint32_t ulpdu_got_ = 0;
  std::vector<std::uint8_t> ulpdu_;  // whole ULPDU, only with keep_ulpdu

  // Lost framing (after a gap): buffered octets since the gap ended, searched for the next
  // FPDU start, with the frames that delivered them (replayed once framing is found).
  struct LostChunk {
    std::size_t index;  // into lost_buffer_
    std::uint64_t frame;
    bool segment_start;
  };
  // The first `drop` of `size` held octets are dropped: the `count` pushes they came in, kept
  // in place with their indices moved down (a push cut at the front no longer starts its
  // segment). Returns how many remain. (Shared by the lost buffer and the tail.)
  static std::size_t drop_front(LostChunk* chunks, std::size_t count, std::size_t drop,
                                std::size_t size);
  bool lost_ = false;
  std::vector<std::uint8_t> lost_buffer_;
  std::vector<LostChunk> lost_chunks_;
  std::size_t lost_search_from_ = 0;  // candidates before this index are decided
  TcpSeq lost_seq_;                   // sequence number of lost_buffer_[0]
  std::uint64_t lost_offset_ = 0;
  std::uint64_t gap_end_offset_ = 0;  // first octet after the last gap

  // Framing truth.
  SenderFraming framing_;
  std::optional<Trigger> pending_trigger_;  // set inside push(), acted on before it returns
  std::uint32_t ulpdu_size_ = 0;    // ULPDU octets of the FPDU in progress, as the sender frames
  std::uint64_t header_frame_ = 0;  // frame that completed its ULPDU_Length field
  bool framing_named_ = false;      // a deviation was named: no second one is looked for
  bool abandoned_ = false;          // fpdu.framing-lost: the rest is not read
  bool said_unverifiable_ = false;
  bool exempt_ = false;            // the FPDU at exempt_seq_ was explained as the RFC's own
  bool exempt_empty_run_ = false;  // ... and so are the empty FPDUs right after it
  TcpSeq exempt_seq_;
  bool have_prev_ = false;  // the FPDU completed last (a framing test starts from it)
  TcpSeq prev_start_;
  std::uint16_t prev_ulpdu_length_ = 0;
  bool prev_crc_good_ = false;  // its CRC matched where the RFC puts it: no deviation framed it
  std::array<std::uint8_t, 2> prev_control_{};  // its ULPDU's first two octets (the DDP header's)
  bool prev_has_control_ = false;               // ... when it has two
  // The newest octets read (enough to start any hypothesis from the FPDU before the odd one:
  // deviations move the next boundary by at most 8 octets, plus a marker, and the odd FPDU's
  // header and first octets may lie before the push), and the frame of the push that brought
  // the last of them. Kept on every push: a fixed-size copy.
  static constexpr std::size_t kTailSize = 32;
  std::array<std::uint8_t, kTailSize> tail_{};
  std::size_t tail_size_ = 0;
  std::array<LostChunk, kTailSize> tail_chunks_{};  // the pushes its octets came in
  std::size_t tail_chunk_count_ = 0;
  bool testing_ = false;  // lost_buffer_ holds the octets under test
  Trigger trigger_ = Trigger::Boundary;
  std::vector<Candidate> candidates_;
  TcpSeq trigger_seq_;  // the odd FPDU's ULPDU_Length field
  std::uint64_t trigger_offset_ = 0;
  std::uint32_t trigger_ulpdu_length_ = 0;
  // The push in progress (a CRC explained needs its octets).
  std::span<const std::uint8_t> push_data_;
  TcpSeq push_seq_;
  bool push_within_ = true;  // the FPDU in progress lay within one segment before this push
  TcpSeq crc_resume_;
  std::uint64_t fpdus_ = 0;
  std::uint64_t ulpdu_bytes_ = 0;
  std::uint64_t crc_failures_ = 0;
};

}  // namespace mpa
