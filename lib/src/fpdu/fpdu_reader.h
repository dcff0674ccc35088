// The FPDU reader (RFC 5044 4, 6): an incremental push parser for the full-operation bytes
// of one direction. In-order bytes arrive in pieces of any size; its grammar
// (fpdu_grammar.h) walks the marker grid, ULPDU_Length, ULPDU, pad and CRC, and it emits one
// FpduEvent per FPDU plus findings for every rule a sender broke (fpdu_judge.h). After an
// error that carries an RFC error code, nothing more is judged in this direction (RFC 5044 8).
// It is in one of the modes of fpdu_reader_modes.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "fpdu/fpdu_grammar.h"
#include "fpdu/fpdu_judge.h"
#include "fpdu/fpdu_reader_modes.h"
#include "fpdu/held_octets.h"
#include "mpa/events.h"
#include "mpa/marker_grid.h"
#include "mpa/sender_framing.h"
#include "mpa/tcp_seq.h"

namespace mpa {

// What a push comes with from its TCP segment, as values: the segment's capture time (the
// timestamp_ns of the FPDUs completed meanwhile) and, where the push is the segment's whole
// payload and its CRC was worked out before the analysis (TcpSegment::payload_crc), the
// running CRC32c (crc32c.h) over all of it but its last four octets: an FPDU that fills the
// push takes its CRC from there (FpduGrammar::give_crc).
struct SegmentFacts {
  std::uint64_t timestamp_ns = 0;
  std::optional<std::uint32_t> payload_crc;
};

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
  // How the sender frames is judged against what was negotiated: an FPDU boundary whose
  // octets are no plausible DDP header makes the reader test the framings of sender_framing.h.
  // Off where the parameters were inferred from the data (a failed inference is no fault of
  // the sender's) or the ULPDUs are not DDP: MPA framing alone is read.
  bool check_sender_framing = true;
  // The MULPDU the receiver's MSS allows (RFC 5044 4.5: an FPDU's ULPDU is at most that; 0:
  // the MSS is not known). Where no CRC vouches for a header, a ULPDU_Length beyond it is a
  // header read in the wrong place, tested as any boundary that makes no sense.
  std::uint32_t mulpdu = 0;
};

class FpduReader {
 public:
  static constexpr std::size_t kUlpduHeadSize = FpduGrammar::kUlpduHeadSize;

  explicit FpduReader(const FpduReaderConfig& config);

  // Consumes all of `data`, which continues the stream exactly where the previous call
  // ended. `frame` delivered it; `segment_start` is true when data[0] is the first payload
  // octet of its TCP segment (false: `data` continues the segment of the previous call).
  // An FPDU is `within_one_segment` unless a later segment (segment_start, or another
  // frame) delivers some of its octets; it `starts_segment` when its first octet (its
  // leading marker, if any) is data[0] of a push with segment_start. `segment`: what the
  // push's segment comes with (none: time 0, no CRC given).
  void push(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start,
            FpduSink& sink, const SegmentFacts& segment = {});

  // Exactly how many more octets finish the unit in progress: the rest of the FPDU when its
  // ULPDU_Length is known (markers included), else the octets up to and including the
  // ULPDU_Length field (and a marker in front of it).
  std::uint32_t bytes_needed() const;

  // True when some but not all octets of an FPDU (or its leading marker) have arrived.
  bool in_fpdu() const { return grammar_.in_fpdu(); }

  // Octets the capture does not hold: the FPDU in progress cannot be verified. The reader
  // skips to the next FPDU it can find: by the marker grid when markers are on (FPDUPTR),
  // otherwise by a CRC- or structure-validated search (fpdu_search.h), and then reports
  // `capture.resynchronised`. The octets searched are replayed with the frames that
  // delivered them. Reports via sink only when framing is found again. Only evidence later
  // octets cannot refute is taken, so where the stream was cut does not matter (except
  // that beyond 256 KiB without evidence the oldest half is dropped, unverified).
  // `timestamp_ns`: the capture time now, for the FPDUs read meanwhile (as with push).
  void on_gap(std::uint64_t length, std::uint64_t frame, FpduSink& sink,
              std::uint64_t timestamp_ns = 0);

  // The stream ends here (FIN, RST, or the end of the capture): a framing test still open
  // is decided on what arrived. Call before asking in_fpdu().
  void finish(std::uint64_t frame, FpduSink& sink, std::uint64_t timestamp_ns = 0);

  // Stop judging: an error (RFC 5044 8) ended MPA in this direction. FPDUs are still
  // framed and counted; `fpdu.not-judged-after-error` is said once, at the first FPDU that
  // begins after the error (the FPDU in which the error arose counts as judged).
  void stop_judging() { judge_.stop_judging(); }
  bool judging() const { return judge_.judging(); }
  bool synchronised() const { return std::holds_alternative<reader_mode::Reading>(mode_); }
  // Whether the FPDU in progress is complete is not known yet: the reader holds octets while
  // it tests how the sender frames (fpdu_reader_framing.cpp), or the Initiator's first FPDU
  // ends where the octets so far end, as a deviation frames it, and not as it is read
  // (RFC 5044 7.1.2: the Responder may send once it is complete; the next octets tell).
  bool testing() const { return in_test() || first_complete_as_deviation_; }
  // How the sender frames its FPDUs: the RFC's framing until a deviation is named.
  const SenderFraming& framing() const { return grammar_.framing(); }
  // Whether FPDU boundaries are judged against how the sender frames (config), a deviation
  // was named, or fpdu.framing-lost ended reading. An FPDU reported before a deviation is
  // named was read with the RFC's lengths: what its length implies (segment alignment) may
  // be the misreading, not the sender's.
  bool judges_sender_framing() const { return config_.check_sender_framing; }
  bool framing_named() const { return framing_named_; }
  bool framing_lost() const { return std::holds_alternative<reader_mode::Abandoned>(mode_); }

  TcpSeq position() const;
  std::uint64_t offset() const;
  const MarkerGrid& grid() const { return grammar_.grid(); }
  bool crc_enabled() const { return config_.crc; }

  std::uint64_t fpdus() const { return fpdus_; }
  std::uint64_t ulpdu_bytes() const { return ulpdu_bytes_; }
  std::uint64_t crc_failures() const { return crc_failures_; }

 private:
  using Resume = reader_mode::Resume;
  using Trigger = reader_mode::Trigger;
  using Octets = std::span<const std::uint8_t>;

  // One push in the reader's mode; a mode that ends says where reading resumes.
  std::optional<Resume> step(Octets data, std::uint64_t frame, bool segment_start, FpduSink& sink);
  // Reads from where `resume` says, push by push as the octets came, until another mode ends
  // (its resumption, with the octets not yet read appended, is returned); run(): to the end.
  std::optional<Resume> replay(Resume resume, FpduSink& sink);
  void run(std::optional<Resume> resume, FpduSink& sink);
  // The held octets before `from` as the newest read (tail_, recent_), reading resuming there.
  void remember_before(const HeldOctets& held, std::size_t from);
  // The modes: Reading (fpdu_reader.cpp), Lost (_resync.cpp), Testing (_framing.cpp).
  // (`given_crc`: SegmentFacts::payload_crc, for a push that came from the segment itself.)
  std::optional<Resume> read(Octets data, std::uint64_t frame, bool segment_start,
                             std::optional<std::uint32_t> given_crc, FpduSink& sink);
  std::optional<Resume> seek(reader_mode::Lost& lost, Octets data, std::uint64_t frame,
                             bool segment_start, FpduSink& sink);
  std::optional<Resume> test(reader_mode::Testing& trial, Octets data, std::uint64_t frame,
                             bool segment_start, FpduSink& sink);
  // What the grammar said, judged (a trigger opens a framing test).
  std::optional<Trigger> on_marker(std::uint64_t frame, TcpSeq push_seq, FpduSink& sink);
  std::optional<Trigger> check_start(const std::uint8_t* control, FpduSink& sink);
  // The FPDU completed; where reading resumes when its CRC matches only as a deviation frames it.
  // (`test`: set when its CRC fails and matches nowhere yet: a framing test decides.)
  std::optional<TcpSeq> complete(std::uint64_t frame, Octets data, TcpSeq push_seq,
                                 bool push_within, FpduSink& sink, std::optional<Trigger>& test);
  std::optional<TcpSeq> explain_bad_crc(std::uint64_t frame, Octets data, TcpSeq push_seq,
                                        bool push_within, FpduSink& sink);
  void emit_fpdu(std::uint64_t frame, FpduSink& sink, bool crc_explained, bool pad_nonzero);
  void emit(std::uint64_t frame, FpduSink& sink, bool crc_explained, bool pad_nonzero);  // inline
  void begin_test(Trigger trigger, TcpSeq push_seq, std::uint64_t push_offset, Octets data,
                  std::uint64_t frame, bool segment_start);
  // Where `h` puts the FPDU after an odd one (Trigger::Boundary: not beginning like DDP).
  std::optional<TcpSeq> boundary_start(const SenderHypothesis& h, const FpduEvent& odd,
                                       const MarkerGrid& grid) const;
  std::optional<Resume> decide(bool final, std::uint64_t frame, FpduSink& sink);
  std::optional<Resume> act(const reader_mode::Verdict& v, std::uint64_t frame, FpduSink& sink);
  // The FPDU just completed as `h` frames it (its octets from `window`, at `window_seq`).
  void reframe_event(const SenderHypothesis& h, Octets window, TcpSeq window_seq);
  // ... and whose CRC matched further on, where that sender put it (reader_mode::PendingCrc).
  void extend_to_crc_field(const reader_mode::PendingCrc& p, const HeldOctets& held,
                           bool& pad_nonzero);
  // The stream ends inside the FPDU in progress, exactly where a deviation ends it (its CRC
  // matching there, or its DDP header and pad bearing it out): that FPDU, and the deviation.
  void close_as_deviation(std::uint64_t frame, FpduSink& sink);
  // ... or a few octets after the FPDU completed last, inside what was read as the next one's
  // header, exactly where a deviation ends that FPDU (its pad zero, no CRC to match): that
  // FPDU as its sender framed it, and the deviation. True when it did.
  bool close_after_previous(std::uint64_t frame, FpduSink& sink);
  bool ends_as(const SenderHypothesis& h, std::uint32_t ulpdu, TcpSeq end) const;
  // The deviation that ends the FPDU in progress where the octets read so far end (`exactly`),
  // or a few octets before (none: nullptr).
  const SenderHypothesis* ending_deviation(bool exactly) const;
  // Of two deviations that end an FPDU at `end`, whether `h` is the likelier than `over`.
  bool preferred(const SenderHypothesis& h, const SenderHypothesis& over, TcpSeq end) const;
  bool in_test() const { return std::holds_alternative<reader_mode::Testing>(mode_); }

  FpduReaderConfig config_;
  // The largest ULPDU_Length taken at its word without a framing test (config_.mulpdu where no
  // CRC vouches for the header; otherwise no bound: kLargestMulpdu is the judge's warning).
  std::uint32_t ulpdu_bound_;
  FpduGrammar grammar_;
  FpduJudge judge_;
  reader_mode::Mode mode_;
  TailOctets tail_;  // the newest octets read: a framing test starts from them
  // ... and more of them where a marker may be the first to show a header misread (recent_).
  RecentOctets recent_;
  bool keeps_recent() const {
    return config_.markers && !config_.crc && config_.check_sender_framing;
  }
  std::optional<reader_mode::PreviousFpdu> prev_;
  // The previous FPDU as `h` frames it, to `sink` (a deviation named from it).
  void revise_previous(const SenderHypothesis& h, FpduSink& sink);
  // The catalogue id of the framing read by now (nullopt: the RFC's).
  std::optional<DiagId> named_id() const;
  // fpdu.pad-nonzero held while the octets may yet show the pad to be the sender's ULPDU or
  // the next FPDU's header (a misreading, not a sender's pad): see hold_pad_warning.
  struct HeldPadWarning {
    TcpSeq header_seq;
    std::uint64_t offset = 0;
    std::uint64_t frame = 0;
    std::uint32_t ulpdu_length = 0;
    // Its first two pad octets non-zero, the rest zero: the ULPDU's last two octets, if its
    // sender counted ULPDU_Length 2 short (only an FPDU of that sender with a pad under 2 tells).
    bool short_count_fits = false;
  };
  std::vector<HeldPadWarning> held_pads_;
  bool hold_pad_warning(const FpduEvent& fpdu, bool crc_explained, std::uint64_t frame,
                        FpduSink& sink);
  void settle_pad_warnings(const FpduEvent& fpdu, bool crc_explained, FpduSink& sink);
  void give_pad_warnings(FpduSink& sink);
  // A marker inside the FPDU in progress pointing elsewhere, with CRCs on: judged once the
  // FPDU's CRC says whether it was read as sent (on_marker).
  struct DeferredMarker {
    MarkerFact fact;
    std::uint64_t offset = 0;
    TcpSeq header_seq;
    std::uint64_t frame = 0;
  };
  std::optional<DeferredMarker> deferred_marker_;
  void give_deferred_marker(FpduSink& sink);
  std::optional<TcpSeq> exempt_seq_;  // the FPDU there was explained as the RFC's own ...
  bool exempt_empty_run_ = false;     // ... and so are the empty FPDUs right after it
  bool framing_named_ = false;        // a deviation was named (reopened if a later FPDU refutes it)
  bool said_unverifiable_ = false;
  bool first_complete_as_deviation_ = false;  // (see testing())
  std::uint64_t now_ns_ = 0;  // the capture time of the segment being read (SegmentFacts)
  std::uint64_t fpdus_ = 0, ulpdu_bytes_ = 0, crc_failures_ = 0;
};

}  // namespace mpa
