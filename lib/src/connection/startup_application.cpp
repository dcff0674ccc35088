// Applying the startup exchange's verdicts (startup_exchange.h) and the framing deciders
// (framing_inference.h) to a connection: phase changes, full operation, replays.
#include <fmt/format.h>

#include <algorithm>

#include "connection/mpa_connection.h"
#include "fpdu/fpdu_search.h"
#include "fpdu/framing_inference.h"
#include "mpa/ddp.h"
#include "mpa/sender_framing.h"
#include "mpa/terminate.h"
#include "startup/startup_exchange.h"

namespace mpa {
namespace {

// Whether the FPDU whose ULPDU_Length field is at `at` carries an RDMAP Terminate.
bool terminate_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  if (bytes.size() < at + 2) return false;
  const auto ddp = decode_ddp(bytes.subspan(at + 2));
  return ddp && !ddp->tagged && ddp->opcode == static_cast<std::uint8_t>(RdmapOpcode::Terminate);
}

enum class Declared : std::uint8_t { Yes, No, Undecided };

// Whether the octets a sender sent after a Reject open with an FPDU framed as the startup
// frames declared (`markers`, CRCs on) whose CRC matches: certain at the first such FPDU.
Declared opens_as_declared(const HeldOctets& held, bool markers) {
  const std::span<const std::uint8_t> bytes = held.bytes();
  const MarkerGrid grid = markers ? MarkerGrid(held.seq()) : MarkerGrid();
  const SenderHypothesis& rfc = framing_hypotheses(markers, true).front();
  const auto verdict = [](const FramingTest& t) {
    if (t.stop == FramingTest::Stop::Enough || t.stop == FramingTest::Stop::EndOfBuffer)
      return t.fpdus > 0 ? Declared::Yes : Declared::Undecided;
    return t.stop == FramingTest::Stop::Invalid ? Declared::No : Declared::Undecided;
  };
  const Declared first = verdict(test_framing(bytes, held.seq(), 0, grid, true, rfc, false, 1));
  if (first != Declared::No) return first;
  // The first FPDU's own CRC may be what fails (a fault of its own, judged once read): the
  // FPDUs count from it if it is well formed but for its CRC and the next one frames as
  // declared with a CRC that matches.
  const FramingTest shape = test_framing(bytes, held.seq(), 0, grid, false,
                                         framing_hypotheses(markers, false).front(), false, 1);
  if (shape.fpdus == 0) return shape.stop == FramingTest::Stop::Invalid ? Declared::No : first;
  if (shape.first_counted_at >= bytes.size()) return Declared::Undecided;
  return verdict(
      test_framing(bytes, held.seq(), shape.first_counted_at, grid, true, rfc, false, 1));
}

}  // namespace

FpduEvidence opens_with_fpdu(std::span<const std::uint8_t> bytes, TcpSeq seq,
                             std::optional<bool> markers, std::optional<bool> crc) {
  FpduEvidence verdict = FpduEvidence::NotFpdu;
  for (const bool m : {false, true}) {
    if (markers && *markers != m) continue;
    const MarkerGrid grid = m ? MarkerGrid(seq) : MarkerGrid();
    const bool like_ddp = starts_like_ddp(bytes, seq, 0, grid).value_or(false);
    for (const bool c : {true, false}) {
      if ((crc && *crc != c) || (!c && !like_ddp)) continue;
      bool reached_end = false;
      if (count_valid_fpdus(bytes, seq, 0, grid, c, 1, reached_end) == 1) return FpduEvidence::Fpdu;
      if (reached_end && like_ddp) verdict = FpduEvidence::Undecided;
    }
  }
  return verdict;
}

void MpaConnection::start_frame(Sender& s, std::uint64_t offset, TcpSeq seq, std::uint64_t frame,
                                std::uint64_t prefix) {
  phase::Startup& p = s.phase.emplace<phase::Startup>();
  p.seq = seq;
  p.offset = offset;
  p.first_frame = frame;
  p.prefix = prefix;
  p.last_ns = context_.ns;
}

void MpaConnection::end_mpa() {
  for (Sender& s : senders_) {
    if (!std::holds_alternative<phase::FullOperation>(s.phase)) s.phase.emplace<phase::Ended>();
  }
}

HeldOctets MpaConnection::take_early_octets(Sender& init) {
  if (auto* p = std::get_if<phase::AwaitReply>(&init.phase)) return std::move(p->held);
  if (auto* p = std::get_if<phase::Ended>(&init.phase)) return std::move(p->held);
  return HeldOctets(request_end_seq_, request_end_offset_);
}

std::size_t MpaConnection::startup_complete(Sender& s, std::uint64_t frame,
                                            std::span<const std::uint8_t> trailing,
                                            TcpSeq trailing_seq) {
  const phase::Startup& p = std::get<phase::Startup>(s.phase);
  // Octets after the frame in its segment, before the peer could have answered it: more
  // private data than PD_Length names (RFC 5044 7.1.2 rule 9), up to the first octet where
  // an FPDU begins (by its CRC, or a well-formed FPDU that begins like DDP with CRCs off) or
  // to the segment's end. The frame is read as its sender wrote it, and an FPDU after it as
  // one sent too early (rules 3, 4), judged where its octets go.
  StartupFrame f = p.parser.frame();
  const std::size_t extra = private_data_beyond(f, trailing, trailing_seq);
  const bool trailing_in_segment = extra > 0;
  f.private_data.insert(f.private_data.end(), trailing.begin(),
                        trailing.begin() + static_cast<std::ptrdiff_t>(extra));
  const TcpSeq at = p.seq;
  const std::uint64_t at_offset = p.offset;
  const std::uint64_t first_frame = p.first_frame;
  const std::uint64_t prefix = p.prefix;
  // A Reply while the peer's Request still waits for private data: the Responder answered
  // too early, and either that Request's PD_Length overstated what it carried or the rest of
  // its private data is still to come (the Initiator's next octets tell which).
  if (!request_done_ && !reactions_.invalid_request() && f.kind == FrameKind::Reply) {
    const auto* q = std::get_if<phase::Startup>(&s.peer->phase);
    if (q && q->parser.header_complete() && q->parser.frame().kind == FrameKind::Request) {
      reply_before_private_data(s, *s.peer, f, at, at_offset, frame);
      return extra;
    }
  }
  if (reactions_.invalid_request() && &s != initiator_) {
    answer_to_invalid_request(s, f, at, at_offset, frame, true);
    return extra;
  }
  if (&s != initiator_) say_early_octets(initiator());
  StartupVerdict v =
      judge_startup_frame(f, request_done_ ? &*summary_.request : nullptr, trailing_in_segment);
  apply_startup_frame(s, f, std::move(v), at, at_offset, first_frame, prefix, frame);
  return extra;
}

std::size_t MpaConnection::private_data_beyond(const StartupFrame& f,
                                               std::span<const std::uint8_t> trailing,
                                               TcpSeq trailing_seq) const {
  std::optional<bool> markers;
  std::optional<bool> crc;
  if (request_done_ && summary_.request) {
    markers = summary_.request->m();
    crc = summary_.request->c() || f.c();
  }
  // (No more than the most private data a frame may carry is looked through.)
  // Right after the frame, an FPDU that runs on into the next segment (it begins like one)
  // is taken as one; further in, only a whole FPDU is evidence.
  const std::size_t last = std::min<std::size_t>(trailing.size(), kMaxPrivateData + 1u);
  for (std::size_t i = 0; i < last; ++i) {
    const FpduEvidence e = opens_with_fpdu(
        trailing.subspan(i), trailing_seq + static_cast<std::uint32_t>(i), markers, crc);
    if (e == FpduEvidence::Fpdu || (i == 0 && e == FpduEvidence::Undecided)) return i;
  }
  return trailing.size();
}

bool MpaConnection::private_data_cut_short(Sender& s, const Chunk* chunk) {
  auto* p = std::get_if<phase::Startup>(&s.phase);
  if (!p || !p->parser.header_complete() || p->parser.complete() || p->parser.consumed() == 0)
    return false;
  if (chunk && chunk->offset == p->offset) return false;
  // (What a Responder sends after an improperly formatted Request is judged as its answer.)
  if (reactions_.invalid_request() && &s != initiator_) return false;
  const StartupFrame partial = p->parser.frame();
  if (partial.kind == FrameKind::Unknown) return false;
  const StartupFrame* request = request_done_ && summary_.request ? &*summary_.request : nullptr;
  std::string what = "its sender closed the connection (FIN)";
  if (chunk) {
    // Framed as the frames declare when the Request is known; a Request's own FPDU is tried
    // with markers and without, with CRCs and without (only the Reply settles them).
    std::optional<bool> markers;
    std::optional<bool> crc;
    if (request) {
      markers = request->m();
      crc = request->c() || partial.c();
    }
    if (opens_with_fpdu(chunk->data, chunk->seq, markers, crc) != FpduEvidence::Fpdu) return false;
    what = fmt::format("an FPDU of its sender begins at seq {}", chunk->seq.value());
  }
  const std::uint64_t last = chunk ? chunk->offset - 1 : p->offset + p->parser.consumed() - 1;
  const std::uint64_t frame = s.octet_frames.frame_of(last).value_or(p->first_frame);
  const TcpSeq at = p->seq;
  const std::uint64_t at_offset = p->offset;
  const std::uint64_t first_frame = p->first_frame;
  const std::uint64_t prefix = p->prefix;
  // Applied now, at a later segment (or the close): the frame's time (the connection's
  // request_ns or reply_ns) is that of the segment that brought its last octet.
  const std::uint64_t last_ns = p->last_ns;
  const std::uint64_t request_ns = summary_.request_ns, reply_ns = summary_.reply_ns;
  apply_startup_frame(s, partial, judge_frame_cut_short(partial, request, what), at, at_offset,
                      first_frame, prefix, frame);
  if (summary_.request_ns != request_ns) summary_.request_ns = last_ns;
  if (summary_.reply_ns != reply_ns) summary_.reply_ns = last_ns;
  // A peer whose stream ended before this one (its octets held meanwhile, replayed now) has
  // nothing more to come: the marker probe decides on what it holds.
  for (Sender& side : senders_) {
    if (side.ended && std::holds_alternative<phase::Probing>(side.phase)) finish_probe(side, true);
  }
  return true;
}

void MpaConnection::say_early_octets(Sender& init) {
  auto* p = std::get_if<phase::AwaitReply>(&init.phase);
  if (!p || p->said_early || p->held.empty()) return;
  p->said_early = true;
  report(init, DiagId::StartupInitiatorDataBeforeReply, p->held.first_frame(context_.frame),
         p->held.seq(), p->held.offset(),
         fmt::format("Initiator sent {} octets at seq {} before the MPA Reply arrived",
                     p->held.size(), p->held.seq().value()));
}

void MpaConnection::reply_before_private_data(Sender& s, Sender& init, const StartupFrame& f,
                                              TcpSeq at, std::uint64_t at_offset,
                                              std::uint64_t frame) {
  phase::Startup& q = std::get<phase::Startup>(init.phase);
  const StartupFrame partial = q.parser.frame();
  become_mpa();  // (the Reply answers the Request, also one behind streaming-mode octets)
  report(s, DiagId::StartupReplyBeforePrivateData, frame, at, at_offset,
         fmt::format("Responder sent its MPA Reply when {} of the {} octets of private data the "
                     "Request's PD_Length announced had arrived",
                     partial.private_data.size(), partial.pd_length));
  const std::uint32_t request_length = static_cast<std::uint32_t>(octets_sent(partial));
  phase::PrivateDataDue::State due{std::move(q.parser),
                                   q.seq,
                                   q.offset,
                                   q.first_frame,
                                   q.prefix,
                                   HeldOctets(q.seq + request_length, q.offset + request_length),
                                   f,
                                   at,
                                   at_offset,
                                   frame};
  due.request_ns = q.last_ns;
  init.phase.emplace<phase::PrivateDataDue>(
      phase::PrivateDataDue{std::make_unique<phase::PrivateDataDue::State>(std::move(due))});
  const std::uint32_t reply_length = static_cast<std::uint32_t>(octets_sent(f));
  phase::Ended& held = s.phase.emplace<phase::Ended>();
  held.held = HeldOctets(at + reply_length, at_offset + reply_length);
  held.holding = true;
}

void MpaConnection::decide_private_data(Sender& init, std::uint64_t frame, bool final) {
  phase::PrivateDataDue::State& p = *std::get<phase::PrivateDataDue>(init.phase).state;
  const StartupFrame partial = p.parser.frame();
  const std::size_t due = partial.pd_length - partial.private_data.size();
  // Framed as the frames declare: markers in the Initiator's data iff the Reply asked.
  const bool markers = p.reply.m();
  const bool crc = partial.c() || p.reply.c();
  const FramingTest t = test_framing(p.held.bytes(), p.held.seq(), 0,
                                     markers ? MarkerGrid(p.held.seq()) : MarkerGrid(), crc,
                                     framing_hypotheses(markers, crc).front(), false, crc ? 1 : 2);
  const bool fpdu_follows = t.stop == FramingTest::Stop::Enough ||
                            (final && t.stop == FramingTest::Stop::EndOfBuffer && t.fpdus > 0);
  const bool rest_came = p.held.size() >= due;
  if (!fpdu_follows && !(rest_came && (final || t.stop == FramingTest::Stop::Invalid))) {
    if (!final) return;
    // The capture ends (or loses octets) inside the private data: the Request is left as a
    // startup frame cut short, as if the Reply had not come.
    phase::PrivateDataDue::State taken = std::move(p);
    taken.parser.push(taken.held.bytes());
    phase::Startup& startup = init.phase.emplace<phase::Startup>();
    startup.parser = std::move(taken.parser);
    startup.seq = taken.seq;
    startup.offset = taken.offset;
    startup.first_frame = taken.first_frame;
    startup.prefix = taken.prefix;
    startup.last_ns = taken.request_ns;
    return;
  }
  phase::PrivateDataDue::State taken = std::move(p);
  Sender& responder = *init.peer;
  HeldOctets responder_held = std::move(std::get<phase::Ended>(responder.phase).held);
  std::size_t replay_from = 0;
  if (fpdu_follows) {
    // PD_Length overstated the private data (RFC 5044 7.1.1, 7.1.2 rule 9): certain now.
    const std::uint64_t request_ns = summary_.request_ns;
    apply_startup_frame(init, partial, judge_request_cut_short(partial, taken.first_frame),
                        taken.seq, taken.offset, taken.first_frame, taken.prefix, frame);
    if (summary_.request_ns != request_ns) summary_.request_ns = taken.request_ns;
    answer_to_invalid_request(responder, taken.reply, taken.reply_seq, taken.reply_offset,
                              taken.reply_frame, false);
  } else {
    // The rest of the private data: the Request is complete, then the Reply is applied.
    replay_from = taken.parser.push(taken.held.bytes().first(due));
    const StartupFrame request = taken.parser.frame();
    apply_startup_frame(init, request, judge_startup_frame(request, nullptr, false), taken.seq,
                        taken.offset, taken.first_frame, taken.prefix, frame);
    if (reactions_.invalid_request()) {
      answer_to_invalid_request(responder, taken.reply, taken.reply_seq, taken.reply_offset,
                                taken.reply_frame, true);
    } else {
      apply_startup_frame(
          responder, taken.reply, judge_startup_frame(taken.reply, &*summary_.request, false),
          taken.reply_seq, taken.reply_offset, taken.reply_frame, 0, taken.reply_frame);
    }
  }
  replay(init, taken.held, replay_from);
  replay(responder, responder_held);
}

void MpaConnection::answer_to_invalid_request(Sender& s, const StartupFrame& f, TcpSeq at,
                                              std::uint64_t at_offset, std::uint64_t frame,
                                              bool blame) {
  become_mpa();
  if (f.kind != FrameKind::Unknown || looks_like_startup_key(f.key)) {
    reply_done_ = true;
    summary_.reply = f;
    summary_.reply_ns = context_.ns;
    startup_event(s, f, frame, at);
  }
  if (blame) {
    StartupIssue issue = judge_answer_to_invalid_request(f);
    report(s, issue.id, frame, at, at_offset, std::move(issue.message));
  }
  if (f.kind == FrameKind::Reply && !f.r() && summary_.request) {
    // Accepted all the same: the error is said, then both sides are read and judged as they
    // send, framed with the parameters their frames declare (markers X->Y iff Y asked).
    const StartupFrame& request = *summary_.request;
    const bool crc = request.c() || f.c();
    Sender& init = initiator();
    HeldOctets early = take_early_octets(init);
    start_full_operation(init, early.seq(), early.offset(), f.m(), crc, false);
    start_full_operation(s, at + static_cast<std::uint32_t>(octets_sent(f)),
                         at_offset + octets_sent(f), request.m(), crc, false);
    replay(init, early);
    return;
  }
  if (f.kind == FrameKind::Reply && f.r() && summary_.request) {
    // Rejected: the answer is said; what either side sends after it is looked at as after
    // any Reject, and FPDUs are read as the frames declare.
    StartupVerdict rejected;
    rejected.initiator_markers = f.m();
    rejected.responder_markers = summary_.request->m();
    rejected.crc = summary_.request->c() || f.c();
    after_reject(s, rejected, at + static_cast<std::uint32_t>(octets_sent(f)),
                 at_offset + octets_sent(f), frame);
    return;
  }
  phase::Ended& ended = s.phase.emplace<phase::Ended>();
  ended.answered_invalid = true;
}

void MpaConnection::await_answer(Sender& peer, std::uint64_t frame, bool prefixed) {
  if (prefixed) return;  // the peer stays in streaming mode: only its own startup key counts
  if (auto* streaming = std::get_if<phase::Streaming>(&peer.phase)) {
    start_frame(peer, peer.reassembler.next_offset(), peer.reassembler.next_seq(), frame,
                streaming->octets);
  } else if (std::holds_alternative<phase::Inferring>(peer.phase)) {
    start_frame(peer, peer.reassembler.next_offset(), peer.reassembler.next_seq(), frame, 0);
  }
}

void MpaConnection::startup_event(Sender& s, const StartupFrame& f, std::uint64_t frame,
                                  TcpSeq at) {
  if (is_mpa_) {
    context_.sink.on_startup_frame(number_, direction_of(s), f, frame, at);
  } else {
    pending_startup_.push_back({&s, f, frame, at});
  }
}

void MpaConnection::apply_startup_frame(Sender& s, const StartupFrame& f, StartupVerdict v,
                                        TcpSeq at, std::uint64_t at_offset,
                                        std::uint64_t first_frame, std::uint64_t prefix,
                                        std::uint64_t frame) {
  const bool request_due = !request_done_;
  if (request_due && f.kind != FrameKind::Reply) initiator_ = &s;  // roles follow the Request
  // A Request behind streaming-mode octets may be bytes of another protocol that happen to
  // hold a key (a download of RFC 5044, of a capture): MPA only once the peer answers it
  // with a startup frame of its own. Until then every finding is held, and dropped if none comes.
  if (prefix == 0 || !request_due) become_mpa();
  summary_.startup_seen = true;
  if (prefix > 0) {
    report(s, DiagId::StartupStreamingPrefix, first_frame, at, at_offset,
           fmt::format("{} streaming-mode octets precede the MPA {}", prefix, to_string(f.kind)));
  }
  if (v.stack) {
    s.siw = v.stack->siw;
    s.stats.on_stack(v.stack->name);
  }
  startup_event(s, f, frame, at);
  for (StartupIssue& issue : v.issues)
    report(s, issue.id, frame, at, at_offset, std::move(issue.message));
  if (v.role == FrameKind::Request) {
    apply_request(s, f, v, at, at_offset, frame, prefix > 0);
  } else {
    // The Reply (or what came in its place).
    apply_reply(s, f, v, at + static_cast<std::uint32_t>(octets_sent(f)),
                at_offset + octets_sent(f), frame);
  }
}

void MpaConnection::apply_request(Sender& s, const StartupFrame& f, const StartupVerdict& v,
                                  TcpSeq at, std::uint64_t at_offset, std::uint64_t frame,
                                  bool prefixed) {
  const TcpSeq after = at + static_cast<std::uint32_t>(octets_sent(f));
  const std::uint64_t after_offset = at_offset + octets_sent(f);
  summary_.request = f;  // shown in the summary even when malformed
  if (v.step == StartupStep::EndMpa) {
    if (f.kind == FrameKind::Reply) {
      end_mpa();
      return;
    }
    // An improperly formatted Request: the Responder MUST close (RFC 5044 7.1.2 rule 2);
    // whatever it sends instead is its answer.
    reactions_.on_invalid_request(frame, after_offset, s.peer->reassembler.next_offset());
    // (Its octets are held: if the Responder accepts it all the same, they are its FPDUs.)
    phase::Ended& ended = s.phase.emplace<phase::Ended>();
    ended.held = HeldOctets(after, after_offset);
    ended.holding = true;
    await_answer(*s.peer, frame, prefixed);
    return;
  }
  request_done_ = true;
  summary_.request_ns = context_.ns;
  Sender& peer = *s.peer;
  if (f.revision == 1) {
    if (const auto refused = context_.refused.refused_before(s.endpoint, peer.endpoint)) {
      report(s, DiagId::InteropRev2RetriedAsRev1, frame, at, at_offset,
             fmt::format(
                 "Rev 1 Request after a Rev 2 Request to the same peer was refused (frame {}): "
                 "the Chelsio/Intel fallback",
                 *refused));
    }
  }
  request_end_seq_ = after;
  request_end_offset_ = after_offset;
  s.phase.emplace<phase::AwaitReply>(phase::AwaitReply{HeldOctets(after, after_offset)});
  await_answer(peer, frame, prefixed);
}

void MpaConnection::apply_reply(Sender& s, const StartupFrame& f, const StartupVerdict& v,
                                TcpSeq after, std::uint64_t after_offset, std::uint64_t frame) {
  reply_done_ = true;
  summary_.reply = f;
  summary_.reply_ns = context_.ns;
  reactions_.on_reply(after_offset);
  Sender& init = initiator();
  switch (v.step) {
    case StartupStep::EndMpa:
      if (f.kind == FrameKind::Reply && f.r() &&
          !std::any_of(v.issues.begin(), v.issues.end(), [](const StartupIssue& i) {
            return info(i.id).error_code == MpaError::InvalidStartupFrame;
          })) {
        after_reject(s, v, after, after_offset, frame);  // (both sides leave MPA there)
        return;
      }
      end_mpa();
      return;
    case StartupStep::InvalidReply: {
      // The Initiator MUST close (RFC 5044 7.1.2 rule 3), after a Terminate if it sends one.
      // What either side sends instead is framed with the parameters the frames declare and
      // judged as sent; the Initiator's FPDUs after the Reply are named (on_fpdu).
      reactions_.on_invalid_reply(frame);
      HeldOctets early = take_early_octets(init);
      start_full_operation(init, early.seq(), early.offset(), v.initiator_markers, v.crc, false);
      start_full_operation(s, after, after_offset, v.responder_markers, v.crc, false);
      replay(init, early);
      return;
    }
    case StartupStep::AwaitReply:
      return;  // not a Reply's verdict
    case StartupStep::FullOperation:
      accept_reply(s, f, v, after, after_offset);
      return;
  }
}

void MpaConnection::after_reject(Sender& s, const StartupVerdict& v, TcpSeq after,
                                 std::uint64_t after_offset, std::uint64_t frame) {
  // A Reject: both sides leave MPA; what they send next is held to see whether it is
  // FPDUs all the same. The Initiator's octets are held from the end of its Request (what it
  // sent before the Reply too); the Responder's from the end of the Reject.
  reactions_.on_reject(frame);
  Sender& init = initiator();
  HeldOctets early = take_early_octets(init);
  for (Sender* side : {&init, &s}) {
    phase::Ended& ended = side->phase.emplace<phase::Ended>();
    ended.after_reject = true;
    // A sender that goes on after the Reject frames as if it had accepted (RFC 5044 7.1.1:
    // markers X->Y iff Y asked, the Reject's M for the Initiator's data, the Request's for
    // the Responder's; CRCs iff either C).
    ended.reject_markers = side == &init ? v.initiator_markers : v.responder_markers;
    ended.reject_crc = v.crc;
    ended.held = side == &s ? HeldOctets(after, after_offset) : std::move(early);
  }
}

void MpaConnection::accept_reply(Sender& s, const StartupFrame& f, const StartupVerdict& v,
                                 TcpSeq after, std::uint64_t after_offset) {
  Sender& init = initiator();
  reactions_.on_accepted_reply(v.terminate_due);
  // A Terminate with the code owed has its cause in the Reply (rdmap.terminate-disagrees).
  for (const MpaError code : {MpaError::InsufficientIrd, MpaError::NoMatchingRtr}) {
    if (v.terminate_due.contains(code)) s.errors_seen.add(code);
  }
  if (v.peer_to_peer) rtr_ = RtrNegotiation{*summary_.request->enhanced, *f.enhanced};
  // Markers X->Y iff Y asked (RFC 5044 7.1.1): the Reply's M governs the Initiator's data.
  HeldOctets early = take_early_octets(init);
  start_full_operation(init, early.seq(), early.offset(), v.initiator_markers, v.crc, false);
  start_full_operation(s, after, after_offset, v.responder_markers, v.crc, false);
  // Errors of RFC 6581 (codes 6, 7) in the Reply end judgement of the Responder's side.
  if (v.responder_unjudged) {
    if (auto* probing = std::get_if<phase::Probing>(&s.phase)) probing->unjudged = true;
    if (FpduReader* r = s.reader()) r->stop_judging();
  }
  // Replay what the Initiator sent too early: its FPDUs are read, counted and judged where
  // they are (the marker probe, too, starts from the end of the Request).
  replay(init, early);
}

void MpaConnection::start_full_operation(Sender& s, TcpSeq seq, std::uint64_t offset, bool markers,
                                         bool crc, bool inferred, std::optional<TcpSeq> grid_origin,
                                         bool unjudged) {
  FpduReaderConfig config;
  config.connection = number_;  // full operation follows become_mpa()
  config.direction = direction_of(s);
  config.start_seq = seq;
  config.start_offset = offset;
  config.markers = markers;
  config.crc = crc;
  config.keep_ulpdu = context_.options.keep_ulpdu;
  config.check_sender_framing = !inferred;
  // RFC 5044 4.5: the MULPDU the receiver's MSS allows (its SYN's MSS option); none where
  // either startup frame has Linux siw's GSO bit (0x08: FPDUs larger than the MSS).
  const auto gso = [](const std::optional<StartupFrame>& f) { return f && (f->flags & 0x08); };
  if (s.peer->mss && !gso(summary_.request) && !gso(summary_.reply))
    config.mulpdu = connection_mulpdu(*s.peer->mss, markers);
  if (grid_origin) {
    config.grid_origin = *grid_origin;
    config.grid_origin_set = true;
  }
  if (!markers && !inferred && !unjudged) {
    // RFC 5044 7.1.1: M=0 means no markers. Hold the first octets to see whether the
    // sender inserts them anyway (marker.unexpected).
    s.phase.emplace<phase::Probing>(phase::Probing{HeldOctets(seq, offset), config, false});
  } else {
    FpduReader& reader = *s.phase.emplace<phase::FullOperation>(config).reader;
    if (unjudged) reader.stop_judging();
  }
  s.stats.on_full_operation(markers, crc, inferred);
}

void MpaConnection::replay(Sender& s, const HeldOctets& held, std::size_t from) {
  // (The pieces come in order from `from` on, one after the other.)
  std::size_t at = from;
  held.replay(from, [&](std::span<const std::uint8_t> data, std::uint64_t frame, bool) {
    // (A copy: the CRC a segment came with is not given again.)
    on_data(s, Chunk{held.offset() + at, held.seq() + static_cast<std::uint32_t>(at), data, frame,
                     std::nullopt});
    at += data.size();
    return true;
  });
}

// Full operation without negotiated markers: a stream that opens with a zero marker and
// frames only with markers carries markers its receiver did not ask for.
void MpaConnection::finish_probe(Sender& s, bool final) {
  phase::Probing& p = std::get<phase::Probing>(s.phase);
  const MarkerProbe verdict = probe_markers(p.held.bytes(), p.held.seq(), p.config.crc, final);
  if (verdict == MarkerProbe::Undecided) return;
  const bool unexpected = verdict == MarkerProbe::Present;
  FpduReaderConfig config = p.config;
  const bool unjudged = p.unjudged;
  HeldOctets held = std::move(p.held);
  if (unexpected) {
    config.markers = true;
    config.grid_origin = held.seq();
    config.grid_origin_set = true;
    s.stats.on_markers_found();
  }
  FpduReader& reader = *s.phase.emplace<phase::FullOperation>(config).reader;
  if (unjudged) reader.stop_judging();
  if (unexpected) {
    report(
        s, DiagId::MarkerUnexpected, held.first_frame(context_.frame), held.seq(), held.offset(),
        fmt::format("{} sends markers (first at seq {}) although its peer's startup frame had M=0",
                    to_string(direction_of(s)), held.seq().value()));
    reader.stop_judging();
  }
  replay(s, held);
}

// ---- how each side reacted to the startup exchange

void MpaConnection::startup_reaction_to_close(Sender& s, std::uint64_t frame) {
  if (!is_mpa_ || !reactions_.awaits_close(request_done_)) return;
  // Only the first close shows a reaction: the second may answer it.
  if (s.peer->ended) return;
  Sender& init = initiator();
  Sender& resp = *init.peer;
  const auto at_close = [](const Sender& side) {
    const TcpReassembler& r = side.reassembler;
    return StreamAtClose{r.next_seq(), r.next_offset(),
                         r.peer_acks_seen() ? std::optional(r.peer_acked_offset()) : std::nullopt};
  };
  const auto* awaited = std::get_if<phase::Startup>(&resp.phase);
  FirstClose close;
  close.closer = direction_of(s);
  close.frame = frame;
  close.initiator = at_close(init);
  close.responder = at_close(resp);
  close.reply_done = reply_done_;
  close.reply_awaited = awaited && awaited->parser.consumed() == 0;
  close.request_end_offset = request_end_offset_;
  close.request = summary_.request ? &*summary_.request : nullptr;
  close.reply = summary_.reply ? &*summary_.reply : nullptr;
  std::vector<Finding> found;
  reactions_.on_first_close(close, found);
  report_startup_reactions(found);
}

void MpaConnection::report_startup_reactions(std::vector<Finding>& found) {
  for (Finding& f : found)
    report(f.direction == Direction::Initiator ? initiator() : *initiator().peer, std::move(f));
  found.clear();
}

// FPDUs after a Reject (RFC 5044 7.1.2 rules 2 and 3): the connection may carry another
// protocol then, so only FPDUs alone explain count: a first FPDU framed as the startup
// frames declared whose CRC matches, or else a framing infer_framing finds (matching CRCs,
// or DDP headers throughout), looked for in the first octets each side sends.
void MpaConnection::judge_after_reject(Sender& s, std::uint64_t frame, bool final) {
  auto* p = std::get_if<phase::Ended>(&s.phase);
  if (!p || !p->after_reject) return;
  const std::size_t size = p->held.size();
  const bool last = final || size >= kAfterRejectLimit;
  if (size == 0) {
    p->after_reject = !final;
    return;
  }
  const bool markers = p->reject_markers;
  const bool crc = p->reject_crc;
  std::optional<FramingHypothesis> h;
  if (crc && opens_as_declared(p->held, markers) == Declared::Yes) {
    h = FramingHypothesis{markers, crc, 0, 0};
  } else {
    if (!last && size < p->next_attempt) return;
    p->next_attempt = std::max<std::size_t>(4096, size * 2);
    h = infer_framing(p->held.bytes(), p->held.seq(), FramingChoices{}, last);
    if (!h && !last) return;
  }
  p->after_reject = false;
  HeldOctets held = std::move(p->held);
  p->held = HeldOctets();
  if (!h) return;
  // RFC 6581 9.1 ties a Terminate (MPA error 6) to a Reject over the IRD: a Terminate that
  // opens what follows the Reject (after the zero marker, with markers) is not named as an
  // FPDU after the Reject; after a Reject whose ORD exceeds the Initiator's IRD, its code is
  // checked.
  const std::span<const std::uint8_t> bytes = held.bytes();
  for (const std::size_t at : {h->start, h->start + (h->markers ? 4 : 0)}) {
    if (!terminate_at(bytes, at)) continue;
    judge_terminate_after_reject(s, bytes.subspan(at + 2),
                                 held.seq() + static_cast<std::uint32_t>(at), held.offset() + at,
                                 frame);
    return;
  }
  read_after_reject(s, std::move(held), h->start, markers, crc, frame);
}

// The octets held after the Reject hold FPDUs from `start` on: named once, at the first FPDU,
// then read from there with the parameters the startup frames declared (markers on the grid
// of the octets that follow the startup frames), counted and judged as sent.
void MpaConnection::read_after_reject(Sender& s, HeldOctets held, std::size_t start, bool markers,
                                      bool crc, std::uint64_t frame) {
  const TcpSeq at = held.seq() + static_cast<std::uint32_t>(start);
  std::uint64_t first_frame = frame;
  held.replay(start, [&](std::span<const std::uint8_t>, std::uint64_t f, bool) {
    first_frame = f;
    return false;
  });
  report(s, DiagId::StartupFpduAfterReject, first_frame, at, held.offset() + start,
         fmt::format("{} sent MPA FPDUs (first at seq {}; markers {}, CRC {}) after the MPA Reply "
                     "in frame {} rejected the connection (R=1), where it MUST have left MPA; "
                     "they are read as the startup frames declared",
                     to_string(direction_of(s)), at.value(), markers ? "on" : "off",
                     crc ? "on" : "off", reactions_.reject_frame()));
  start_full_operation(s, at, held.offset() + start, markers, crc, false,
                       markers ? std::optional<TcpSeq>(held.seq()) : std::nullopt);
  replay(s, held, start);
}

// RFC 6581 9.1: a Responder MAY reject a Request whose IRD is too small for the ORD its ULP
// needs, naming that ORD in the Reject; "the TERM message MUST contain Layer 2, Error Type 0,
// Error Code 6". A Terminate opening what either side sends after such a Reject is judged by
// that code.
void MpaConnection::judge_terminate_after_reject(Sender& s, std::span<const std::uint8_t> ulpdu,
                                                 TcpSeq at, std::uint64_t offset,
                                                 std::uint64_t frame) {
  if (!summary_.request || !summary_.reply) return;
  const auto& rq = summary_.request->enhanced;
  const auto& rp = summary_.reply->enhanced;
  if (!rq || !rp || rq->ird == kNoNegotiation || rp->ord == kNoNegotiation || rp->ord <= rq->ird)
    return;
  const auto t = decode_terminate(ulpdu, s.siw);
  if (!t) return;
  const auto code = t->mpa_error_code();
  if (code && mpa_error_from_wire(*code) == MpaError::InsufficientIrd) return;
  report(s, DiagId::StartupNegotiationTerminateMissing, frame, at, offset,
         fmt::format("{}'s Terminate after the Reject over the IRD (Responder ORD {} above "
                     "Initiator IRD {}) carries {} where Layer 2, Error Type 0, code 6 "
                     "(insufficient IRD) is due (RFC 6581 9.1)",
                     &s == initiator_ ? "Initiator" : "Responder", rp->ord, rq->ird, describe(*t)));
}

// Captures without startup frames: recognise MPA by its FPDUs.
void MpaConnection::try_inference(Sender& s, std::uint64_t frame, bool final) {
  phase::Inferring& p = std::get<phase::Inferring>(s.phase);
  const std::size_t size = p.held.size();
  const std::size_t window = context_.options.inference_window;
  // Try at 4 KiB, then each time the held octets double (not at every segment: the search
  // is linear in the held octets), and at the window's end.
  if (!final && size < window && size < p.next_attempt) return;
  p.next_attempt = std::max<std::size_t>(4096, size * 2);
  const FramingChoices choices{context_.options.markers, context_.options.crc};
  const auto h = infer_framing(p.held.bytes(), p.held.seq(), choices, final || size >= window);
  if (!h) {
    if (final || size >= window) {
      // Not recognisable as MPA: treat the octets as streaming mode (a startup frame may
      // still come).
      HeldOctets held = std::move(p.held);
      s.phase.emplace<phase::Streaming>().octets = 1;  // not at the stream's start
      if (!final) replay(s, held);
    }
    return;
  }
  become_mpa();
  HeldOctets held = std::move(p.held);
  const TcpSeq start = held.seq() + static_cast<std::uint32_t>(h->start);
  if (!summary_.startup_seen && !said_not_seen_) {
    said_not_seen_ = true;
    report(s, DiagId::CaptureStartupNotSeen, frame, start, held.offset() + h->start,
           "the capture holds no MPA startup frames for this connection; startup rules could not "
           "be checked");
  }
  report(s, DiagId::CaptureParametersInferred, frame, start, held.offset() + h->start,
         fmt::format(
             "{} from the data: markers {}, CRC {}; first FPDU at seq {}{}",
             context_.options.markers || context_.options.crc ? "taken from options and checked"
                                                              : "inferred",
             h->markers ? fmt::format("on (grid at seq {})", (held.seq() + h->phase).value())
                        : std::string("off"),
             h->crc ? "on" : "off", start.value(),
             h->start > 0 ? fmt::format(" ({} octets before it not verified)", h->start)
                          : std::string()));
  start_full_operation(s, start, held.offset() + h->start, h->markers, h->crc, true,
                       held.seq() + h->phase);
  replay(s, held, h->start);
}

}  // namespace mpa
