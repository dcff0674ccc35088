// One TCP connection as MPA sees it: two senders, each a TCP stream whose in-order octets
// drive a state machine with one type per phase, and the connection-wide facts the startup
// exchange settles (roles, peer-to-peer, the startup frames). Deciders (startup_exchange,
// framing_inference, fpdu_rules, ulp_checks, interop) judge; this file applies their
// verdicts, and every finding passes one gate (report) on its way to the EventSink.
//
//   Streaming --key found--> Startup --Request done--> AwaitReply (Initiator)
//                                    --Reply done----> Probing (M=0) / FullOperation
//   Inferring (no startup in the capture) --FPDUs recognised--> FullOperation
//   Probing --markers or not decided--> FullOperation
//   Ended: MPA is over in this direction (rejected, a startup error, a gap in startup).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "connection/receiver_reactions.h"
#include "connection/startup_reactions.h"
#include "decode/flow_table.h"
#include "fpdu/fpdu_reader.h"
#include "fpdu/fpdu_rules.h"
#include "fpdu/held_octets.h"
#include "fpdu/octet_frames.h"
#include "mpa/analysis_options.h"
#include "mpa/analyzer.h"
#include "mpa/startup_frame.h"
#include "mpa/tcp_reassembly.h"
#include "report/direction_stats.h"
#include "report/frame_places.h"
#include "report/interop.h"
#include "startup/startup_exchange.h"
#include "ulp/ulp_checks.h"

namespace mpa {

// What all connections of one analysis share.
struct AnalysisContext {
  AnalysisContext(AnalyzerOptions o, EventSink& s) : options(std::move(o)), sink(s) {}
  AnalyzerOptions options;
  EventSink& sink;
  std::uint64_t frame = 0;  // the segment being analysed
  std::uint64_t ns = 0;     // its time stamp
  RefusedRequests refused;  // Rev 2 Requests refused so far (interop hints)
  std::uint64_t mpa_connections = 0;
  // Where the last frames lie in the capture file: each finding is stamped with its frame's
  // place at the gate (MpaConnection::report).
  FramePlaces frame_places{Analyzer::kFramePlaces};
};

// Octets each side sends after a Reject that are looked at for FPDUs.
inline constexpr std::size_t kAfterRejectLimit = 64u << 10;

// Whether octets open with an FPDU, as evidence against reading them as something else.
enum class FpduEvidence : std::uint8_t { Fpdu, NotFpdu, Undecided };

// Whether `bytes` (the first at `seq`, where full operation would begin: RFC 5044 7.1.2 rule
// 7) open with an FPDU: a CRC that matches proves one; with CRCs off, a well-formed FPDU
// whose ULPDU begins like DDP. `markers`, `crc`: as the startup frames declare them (nullopt:
// not known yet, both are tried). Undecided: the octets end inside an FPDU that begins like
// one.
FpduEvidence opens_with_fpdu(std::span<const std::uint8_t> bytes, TcpSeq seq,
                             std::optional<bool> markers, std::optional<bool> crc);

// The phases of one sender; each holds only its own state.
namespace phase {
struct Streaming {
  std::vector<std::uint8_t> tail;  // the last octets, to find a key split over segments
  std::uint64_t octets = 0;        // streaming-mode octets so far
  // The stream's first octets, held until there are enough to tell a startup key from FPDUs
  // (a capture that starts at the Request may bring them in segments shorter than the key).
  HeldOctets opening;
  bool opened = false;  // decided: what the stream opens with is known
};
struct Startup {
  StartupFrameParser parser;
  TcpSeq seq;  // the frame's first octet
  std::uint64_t offset = 0;
  std::uint64_t first_frame = 0;  // the capture frame holding it
  std::uint64_t prefix = 0;       // streaming-mode octets before it
  std::uint64_t last_ns = 0;      // capture time of the segment that brought its last octet
};
struct AwaitReply {
  HeldOctets held;  // octets the Initiator sent early, replayed once the Reply is in
  bool said_early = false;
};
struct Probing {
  HeldOctets held;  // the first octets of full operation, until the marker probe decides
  FpduReaderConfig config;
  bool unjudged = false;  // an error ended judgement before the reader existed
};
struct Inferring {
  HeldOctets held;                  // octets under study
  std::size_t next_attempt = 4096;  // held octets at the next attempt
};
// The reader is made here, at the sender's first octets of full operation, and on the heap: a
// phase is as large as its largest alternative, and most senders never get this far.
struct FullOperation {
  explicit FullOperation(const FpduReaderConfig& config)
      : reader(std::make_unique<FpduReader>(config)) {}
  std::unique_ptr<FpduReader> reader;
};
// An Initiator whose Request still waited for private data when the peer's Reply came: are
// the octets that follow the private data it sent an FPDU (its PD_Length overstated the
// private data, RFC 5044 7.1.2 rule 9), or the rest of the private data (the Responder
// answered too early)? Its octets are held until they show which; the Responder's octets
// after its Reply are held meanwhile.
struct PrivateDataDue {
  struct State {
    StartupFrameParser parser;  // the Request as far as it came
    TcpSeq seq;                 // the Request's first octet
    std::uint64_t offset = 0;
    std::uint64_t first_frame = 0;
    std::uint64_t prefix = 0;
    HeldOctets held;  // what the Initiator sent after the private data the Reply found
    // The Reply, applied once the Request is decided.
    StartupFrame reply;
    TcpSeq reply_seq;
    std::uint64_t reply_offset = 0;
    std::uint64_t reply_frame = 0;
    std::uint64_t request_ns = 0;  // capture time of the segment that brought its last octet
  };
  // On the heap: the largest phase and a rare one, and a phase is as large as its largest.
  std::unique_ptr<State> state;
};
struct Ended {
  // Octets the Initiator sent before the Reply when a gap ended its startup: replayed if
  // the Reply arrives after all.
  HeldOctets held;
  // A Responder that answered an improperly formatted Request instead of closing: its
  // first octets after that answer are reported too.
  bool answered_invalid = false;
  bool said_data = false;  // (also: an Initiator's octets before any Reply, said once)
  // An Initiator whose Request was improperly formatted: what it sends is held (up to the
  // early-octets limit) in case the Responder accepts the Request all the same.
  bool holding = false;
  // After a Reject (R=1): the first octets either side sends are held to see whether they
  // are FPDUs (RFC 5044 7.1.2: both sides MUST have left MPA).
  bool after_reject = false;
  // ... and the framing a sender that goes on all the same would use: the startup frames'
  // parameters as if the Reply had accepted (markers X->Y iff Y asked, CRCs iff either C).
  bool reject_markers = false;
  bool reject_crc = false;
  std::size_t next_attempt = 4096;  // held octets at the next look
};
}  // namespace phase
using Phase =
    std::variant<phase::Streaming, phase::Startup, phase::AwaitReply, phase::Probing,
                 phase::Inferring, phase::FullOperation, phase::PrivateDataDue, phase::Ended>;

class MpaConnection;

// How a sender's full operation began, as the ordering rules of the opening (RFC 5044 7.1.2
// rules 3 and 4) see it.
struct OpeningOrder {
  bool first_fpdu_done = false;  // its first FPDU is complete (or lost in a gap)
  // Just after its first FPDU's last octet (0: lost in a gap, or none yet).
  std::uint64_t first_fpdu_end = 0;
  bool said_responder_first = false;
  bool data_after_startup_seen = false;  // its first octet of full operation was judged
};

// fpdu.not-segment-aligned, held until the next FPDU (or the end) shows that the framing
// the FPDU was read with is the sender's: a deviation named (or framing lost) in between
// makes it the reader's misreading, and it is dropped.
// ddp.ulpdu-too-short while no framing is named: a sender counting ULPDU_Length 2 short
// sends 2 more octets of ULPDU (its DDP header's last) than the RFC's reading holds, and
// only the FPDUs after it tell (MpaConnection::settle_too_short).
struct HeldTooShort {
  Finding finding;
  bool pad_under_2 = false;  // the pad as read of the FPDU read last since (its own at first)
};

struct HeldAlignment {
  std::unique_ptr<Finding> finding;  // (on the heap: rare, and every sender has one)
  std::unique_ptr<HeldTooShort> too_short;
  bool named = false;  // the reader's framing_named() when `finding` was held
};

// The segment a sender's reassembler is taking: its payload, delivered whole and in order,
// comes with the CRC the reading thread worked out for it (TcpSegment::payload_crc).
struct ArrivingSegment {
  std::uint64_t frame = 0;
  std::uint64_t offset = 0;  // where its payload goes in the stream, in order
  std::size_t size = 0;
  std::optional<std::uint32_t> payload_crc;

  // The CRC of the octets at `at` (`length` of them, delivered by `by`): none unless they
  // are this segment's whole payload.
  std::optional<std::uint32_t> crc_of(std::uint64_t at, std::size_t length,
                                      std::uint64_t by) const {
    if (!payload_crc || by != frame || at != offset || length != size) return std::nullopt;
    return payload_crc;
  }
};

// One direction of the connection, named after the one who sends it (conformance is
// judged on the sender). Its stream events go to the connection.
struct Sender final : StreamSink, FpduSink {
  Sender(MpaConnection& c, ReassemblyOptions options) : connection(c), reassembler(options) {}

  MpaConnection& connection;
  Sender* peer = nullptr;
  Endpoint endpoint;
  TcpReassembler reassembler;
  ArrivingSegment arriving;  // (none: payload_crc unset)
  bool syn_seen = false;
  bool ended = false;
  std::optional<std::uint16_t> mss;  // the MSS option in this sender's SYN
  Phase phase;
  OpeningOrder order;
  bool siw = false;         // its startup frame looks like Linux siw's
  MpaErrorSet errors_seen;  // RFC error codes found in its data
  FpduRules fpdu_rules;
  // What its FPDUs carry (DDP/RDMAP checks, the recent FPDUs a Terminate may quote, the DDP
  // Stream): made at first use, as a sender that never reaches full operation needs none.
  // (Asked for at every FPDU, made once: the making out of line, so that the asking is inlined,
  // which it was not with the making in it.)
  UlpChecks& ulp() { return ulp_ ? *ulp_ : make_ulp(); }
  const UlpChecks* ulp_if_made() const { return ulp_.get(); }
  ReceiverReactions rx;  // how the peer reacts to a CRC or marker error in this sender's FPDUs
  DirectionStats stats;
  TcpControlSeen tcp;        // its first SYN, FIN and RST
  OctetFrames octet_frames;  // where its recent octets arrived (findings point at them)
  HeldAlignment held_alignment;

  FpduReader* reader() {
    auto* full = std::get_if<phase::FullOperation>(&phase);
    return full ? full->reader.get() : nullptr;
  }
  const FpduReader* reader() const {
    const auto* full = std::get_if<phase::FullOperation>(&phase);
    return full ? full->reader.get() : nullptr;
  }

  void on_stream_data(std::uint64_t offset, TcpSeq seq, std::span<const std::uint8_t> data,
                      std::uint64_t frame) override;
  void on_stream_gap(std::uint64_t offset, TcpSeq seq, std::uint64_t length, GapCause cause,
                     std::uint64_t frame) override;
  void on_stream_end(std::uint64_t offset, TcpSeq seq, StreamEnd how, std::uint64_t frame) override;
  void on_retransmission_mismatch(std::uint64_t offset, TcpSeq seq, std::uint32_t length,
                                  MismatchEvidence evidence, std::uint64_t frame) override;
  void on_retransmission_check_stopped(std::uint64_t offset, TcpSeq seq,
                                       std::uint64_t frame) override;
  void on_fpdu(const FpduEvent& fpdu) override;
  void on_fpdu_revised(const FpduEvent& revised, bool markers) override;
  void on_finding(Finding&& finding) override;

 private:
  UlpChecks& make_ulp();
  std::unique_ptr<UlpChecks> ulp_;
};

// In-order octets of one sender, as the reassembler delivers them.
struct Chunk {
  std::uint64_t offset = 0;
  TcpSeq seq;
  std::span<const std::uint8_t> data;
  std::uint64_t frame = 0;
  // The CRC worked out before for the segment whose whole payload these octets are (none:
  // they are not, or none was worked out; see FpduReader's SegmentFacts).
  std::optional<std::uint32_t> payload_crc;
};

class MpaConnection {
 public:
  // `first`: the segment that opened the connection (it settles which side is the client).
  MpaConnection(AnalysisContext& context, const TcpSegment& first);
  MpaConnection(const MpaConnection&) = delete;
  MpaConnection& operator=(const MpaConnection&) = delete;

  const FlowKey& key() const { return key_; }
  // A pure SYN on these ports that opens a new connection (this one's stream has begun).
  bool reopened_by(const TcpSegment& syn) const;
  void on_segment(const TcpSegment& segment);
  bool both_ended() const { return senders_[0].ended && senders_[1].ended; }
  // Ends the analysis of this connection (closed, evicted or the capture ended).
  void finish(std::uint64_t frame);
  // The analysis lets go of it for being idle (AnalyzerOptions::idle_timeout_ns): said in its
  // summary when it is finished.
  void mark_expired() { summary_.expired = true; }

  // Sender events (sender_events.cpp holds the per-phase handlers).
  void on_data(Sender& s, Chunk chunk);
  void on_gap(Sender& s, std::uint64_t offset, TcpSeq seq, std::uint64_t length, GapCause cause,
              std::uint64_t frame);
  void on_end(Sender& s, std::uint64_t frame, StreamEnd how);
  void on_fpdu(Sender& s, const FpduEvent& fpdu);
  void on_fpdu_revised(Sender& s, const FpduEvent& revised, bool markers);
  void count_ird_requests(Sender& s, const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp,
                          std::vector<Finding>& found);
  // The finding gate: held until the connection is known to carry MPA, then stamped with
  // connection and direction, counted and delivered.
  void report(Sender& s, Finding&& finding);
  void report(Sender& s, DiagId id, std::uint64_t frame, TcpSeq seq, std::uint64_t offset,
              std::string message) {
    report(s, make_finding(id, frame, seq, offset, std::move(message)));
  }

 private:
  Direction direction_of(const Sender& s) const {
    return &s == initiator_ ? Direction::Initiator : Direction::Responder;
  }
  Sender& initiator() { return *initiator_; }
  void become_mpa();

  // Per-phase handlers of in-order octets; each returns the octets it consumed.
  std::size_t feed(Sender& s, phase::Streaming& p, const Chunk& chunk, bool segment_start);
  // Decides what the stream opens with on the octets held (`final`: no more will come before
  // a gap or the end) and replays them in the phase chosen.
  void open_stream(Sender& s);
  // The same before the stream's first 16 octets have come: a gap or the end cuts them short.
  void open_early(Sender& s);
  std::size_t feed(Sender& s, phase::Startup& p, const Chunk& chunk, bool segment_start);
  std::size_t feed(Sender& s, phase::AwaitReply& p, const Chunk& chunk, bool segment_start);
  std::size_t feed(Sender& s, phase::Probing& p, const Chunk& chunk, bool segment_start);
  std::size_t feed(Sender& s, phase::Inferring& p, const Chunk& chunk, bool segment_start);
  std::size_t feed(Sender& s, phase::FullOperation& p, const Chunk& chunk, bool segment_start);
  std::size_t feed(Sender& s, phase::PrivateDataDue& p, const Chunk& chunk, bool segment_start);
  std::size_t feed(Sender& s, phase::Ended& p, const Chunk& chunk, bool segment_start);

  // Startup (startup_application.cpp).
  void start_frame(Sender& s, std::uint64_t offset, TcpSeq seq, std::uint64_t frame,
                   std::uint64_t prefix);
  // `trailing`: the octets after the frame in the segment that completed it (at `trailing_seq`).
  // Returns how many of them it took as private data beyond PD_Length.
  std::size_t startup_complete(Sender& s, std::uint64_t frame,
                               std::span<const std::uint8_t> trailing, TcpSeq trailing_seq);
  // How many of `trailing` (after frame `f` in its segment) are private data beyond its
  // PD_Length: those before the first octet where an FPDU begins (or all).
  std::size_t private_data_beyond(const StartupFrame& f, std::span<const std::uint8_t> trailing,
                                  TcpSeq trailing_seq) const;
  // A startup frame still short of its PD_Length's private data when its sender's next
  // segment begins with an FPDU (`chunk`), or when its stream ends (`chunk` nullptr): the
  // frame ends where its octets do and is applied as cut short. True if it was.
  bool private_data_cut_short(Sender& s, const Chunk* chunk);
  // The Initiator's octets held while the Reply still waited for private data, said now
  // that the Reply proved complete after them (RFC 5044 7.1.2 rule 3).
  void say_early_octets(Sender& init);
  // Applies the verdict on startup frame `f` of `s` (first octet at `at`, `prefix`
  // streaming-mode octets before it), complete in `frame`.
  void apply_startup_frame(Sender& s, const StartupFrame& f, StartupVerdict v, TcpSeq at,
                           std::uint64_t at_offset, std::uint64_t first_frame, std::uint64_t prefix,
                           std::uint64_t frame);
  // ... whose role is the Request's (`prefixed`: streaming-mode octets before it), or the
  // Reply's; `after`, `after_offset`: just after the frame.
  void apply_request(Sender& s, const StartupFrame& f, const StartupVerdict& v, TcpSeq at,
                     std::uint64_t at_offset, std::uint64_t frame, bool prefixed);
  void apply_reply(Sender& s, const StartupFrame& f, const StartupVerdict& v, TcpSeq after,
                   std::uint64_t after_offset, std::uint64_t frame);
  // A Reject: both sides leave MPA; what they send next is held to see whether it is FPDUs,
  // framed then as the verdict declares (`v`, the Reject's).
  void after_reject(Sender& s, const StartupVerdict& v, TcpSeq after, std::uint64_t after_offset,
                    std::uint64_t frame);
  // A Reply that accepted: both sides enter full operation as the verdict frames them.
  void accept_reply(Sender& s, const StartupFrame& f, const StartupVerdict& v, TcpSeq after,
                    std::uint64_t after_offset);
  // The peer `s` sent Reply `f` while `init`'s Request still waited for private data:
  // `init` enters PrivateDataDue.
  void reply_before_private_data(Sender& s, Sender& init, const StartupFrame& f, TcpSeq at,
                                 std::uint64_t at_offset, std::uint64_t frame);
  // Decides PrivateDataDue on the octets held (`final`: no more come before a gap or the end).
  void decide_private_data(Sender& init, std::uint64_t frame, bool final);
  // `s` (the Responder) answered an improperly formatted Request with `f` instead of closing.
  // (`blame`: report it; false when the Responder's fault is already named.)
  void answer_to_invalid_request(Sender& s, const StartupFrame& f, TcpSeq at,
                                 std::uint64_t at_offset, std::uint64_t frame, bool blame);
  // After a Request: the peer's next octets are its answer; after a Request found behind
  // streaming-mode octets, only a startup key of the peer's is (non-MPA streams carry keys).
  void await_answer(Sender& peer, std::uint64_t frame, bool prefixed);
  // EventSink::on_startup_frame, held like findings until the connection is MPA.
  void startup_event(Sender& s, const StartupFrame& f, std::uint64_t frame, TcpSeq at);
  void end_mpa();
  void start_full_operation(Sender& s, TcpSeq seq, std::uint64_t offset, bool markers, bool crc,
                            bool inferred, std::optional<TcpSeq> grid_origin = std::nullopt,
                            bool unjudged = false);
  // Hands `held` from index `from` on to on_data, a frame at a time.
  void replay(Sender& s, const HeldOctets& held, std::size_t from = 0);
  HeldOctets take_early_octets(Sender& initiator);
  void settle_alignment(Sender& s);
  // The held ddp.ulpdu-too-short, once the reader's framing tells (`next`: the FPDU read
  // after it; none: the direction ends).
  void settle_too_short(Sender& s, const FpduEvent* next);
  void check_responder_first(Sender& s, TcpSeq seq, std::uint64_t offset, std::size_t size,
                             std::uint64_t frame);
  void finish_probe(Sender& s, bool final);
  void try_inference(Sender& s, std::uint64_t frame, bool final);
  void interop_hints(std::uint64_t frame);
  // How each side reacted to the startup exchange, judged where the capture shows it
  // (StartupReactions): `s` closed (FIN or RST) in `frame`.
  void startup_reaction_to_close(Sender& s, std::uint64_t frame);
  // The ordering of the opening as the sender's acknowledgements show it (RFC 5044 7.1.2
  // rules 3 and 4): an Initiator's first octets of full operation sent before its ACKs covered
  // the Reply; a Responder's before they covered the Initiator's first FPDU.
  void check_acknowledged_before_sending(Sender& s, const Chunk& chunk);
  void judge_terminate_after_reject(Sender& s, std::span<const std::uint8_t> ulpdu, TcpSeq at,
                                    std::uint64_t offset, std::uint64_t frame);
  // Reports what StartupReactions found, each finding about the side its direction names.
  void report_startup_reactions(std::vector<Finding>& found);
  // After a Reject: whether the octets `s` sent frame as FPDUs (`final`: no more will come);
  // if they do, they are named once and read, counted and judged from the first FPDU on.
  void judge_after_reject(Sender& s, std::uint64_t frame, bool final);
  // ... the FPDUs found at `start` of the octets held after the Reject: named, then read.
  void read_after_reject(Sender& s, HeldOctets held, std::size_t start, bool markers, bool crc,
                         std::uint64_t frame);
  // Reports what `s`'s reaction to an error in its peer's FPDUs showed (receiver_reactions.h).
  void report_reactions(Sender& s, std::vector<Finding>& found);
  void startup_frame_cut(Sender& s, std::uint64_t frame);

  AnalysisContext& context_;
  std::uint32_t number_ = 0;  // ConnectionSummary::id, from become_mpa()
  FlowKey key_;
  Sender senders_[2];  // [0]: the TCP client (SYN sender, or first sender seen)
  Sender* initiator_;  // sender of the MPA Request (the client until one is seen)
  bool is_mpa_ = false;
  bool request_done_ = false;
  bool reply_done_ = false;
  bool finished_ = false;
  bool said_not_seen_ = false;
  StartupReactions reactions_;  // the startup exchange as each side reacted
  const Sender* reset_by_ = nullptr;
  std::optional<RtrNegotiation> rtr_;  // peer-to-peer negotiated
  TcpSeq request_end_seq_;             // just after the Request
  std::uint64_t request_end_offset_ = 0;
  ConnectionSummary summary_;
  std::vector<std::pair<Sender*, Finding>> pending_;  // held until is_mpa_
  struct PendingStartup {
    Sender* sender;
    StartupFrame frame;
    std::uint64_t frame_number;
    TcpSeq seq;
  };
  std::vector<PendingStartup> pending_startup_;  // held until is_mpa_
  std::vector<Finding> fpdu_findings_;           // on_fpdu's, reused
};

}  // namespace mpa
