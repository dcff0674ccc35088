// Applying the startup exchange's verdicts (startup_exchange.h) and the framing deciders
// (framing_inference.h) to a connection: phase changes, full operation, replays.
#include <fmt/format.h>

#include <algorithm>

#include "mpa/ddp.h"
#include "mpa/fpdu_search.h"
#include "mpa/framing_inference.h"
#include "mpa/sender_framing.h"
#include "mpa/startup_exchange.h"
#include "mpa/terminate.h"
#include "mpa_connection.h"

namespace mpa {
namespace {

// Whether the FPDU whose ULPDU_Length field is at `at` carries an RDMAP Terminate.
bool terminate_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  if (bytes.size() < at + 2) return false;
  const auto ddp = decode_ddp(bytes.subspan(at + 2));
  return ddp && !ddp->tagged && ddp->opcode == static_cast<std::uint8_t>(RdmapOpcode::Terminate);
}

}  // namespace

void MpaConnection::start_frame(Sender& s, std::uint64_t offset, TcpSeq seq, std::uint64_t frame,
                                std::uint64_t prefix) {
  phase::Startup& p = s.phase.emplace<phase::Startup>();
  p.seq = seq;
  p.offset = offset;
  p.first_frame = frame;
  p.prefix = prefix;
}

void MpaConnection::end_mpa() {
  for (Sender& s : senders_) {
    if (!std::holds_alternative<phase::FullOperation>(s.phase)) s.phase.emplace<phase::Ended>();
  }
}

HeldBytes MpaConnection::take_early_octets(Sender& init) {
  if (auto* p = std::get_if<phase::AwaitReply>(&init.phase)) return std::move(p->held);
  if (auto* p = std::get_if<phase::Ended>(&init.phase)) return std::move(p->held);
  return HeldBytes(request_end_seq_, request_end_offset_);
}

void MpaConnection::startup_complete(Sender& s, std::uint64_t frame, bool trailing_in_segment) {
  const phase::Startup& p = std::get<phase::Startup>(s.phase);
  const StartupFrame f = p.parser.frame();
  const TcpSeq at = p.seq;
  const std::uint64_t at_offset = p.offset;
  const std::uint64_t first_frame = p.first_frame;
  const std::uint64_t prefix = p.prefix;
  // A Reply while the peer's Request still waits for private data: the Responder answered
  // too early, and either that Request's PD_Length overstated what it carried or the rest of
  // its private data is still to come (the Initiator's next octets tell which).
  if (!request_done_ && !invalid_request_ && f.kind == FrameKind::Reply) {
    const auto* q = std::get_if<phase::Startup>(&s.peer->phase);
    if (q && q->parser.header_complete() && q->parser.frame().kind == FrameKind::Request) {
      reply_before_private_data(s, *s.peer, f, at, at_offset, frame);
      return;
    }
  }
  if (invalid_request_ && &s != initiator_) {
    answer_to_invalid_request(s, f, at, at_offset, frame, true);
    return;
  }
  StartupVerdict v =
      judge_startup_frame(f, request_done_ ? &*summary_.request : nullptr, trailing_in_segment);
  apply_startup_frame(s, f, std::move(v), at, at_offset, first_frame, prefix, frame);
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
  const std::uint32_t request_length = static_cast<std::uint32_t>(partial.wire_length());
  phase::PrivateDataDue due{std::move(q.parser),
                            q.seq,
                            q.offset,
                            q.first_frame,
                            q.prefix,
                            HeldBytes(q.seq + request_length, q.offset + request_length),
                            f,
                            at,
                            at_offset,
                            frame};
  init.phase.emplace<phase::PrivateDataDue>(std::move(due));
  const std::uint32_t reply_length = static_cast<std::uint32_t>(f.wire_length());
  phase::Ended& held = s.phase.emplace<phase::Ended>();
  held.held = HeldBytes(at + reply_length, at_offset + reply_length);
  held.holding = true;
}

void MpaConnection::decide_private_data(Sender& init, std::uint64_t frame, bool final) {
  phase::PrivateDataDue& p = std::get<phase::PrivateDataDue>(init.phase);
  const StartupFrame partial = p.parser.frame();
  const std::size_t due = partial.pd_length - partial.private_data.size();
  // Framed as the frames declare: markers in the Initiator's data iff the Reply asked.
  const bool markers = p.reply.m();
  const bool crc = partial.c() || p.reply.c();
  const FramingTest t =
      test_framing(p.held.bytes, p.held.seq, 0, markers ? MarkerGrid(p.held.seq) : MarkerGrid(),
                   crc, framing_hypotheses(markers, crc).front(), false, crc ? 1 : 2);
  const bool fpdu_follows = t.stop == FramingTest::Stop::Enough ||
                            (final && t.stop == FramingTest::Stop::EndOfBuffer && t.fpdus > 0);
  const bool rest_came = p.held.bytes.size() >= due;
  if (!fpdu_follows && !(rest_came && (final || t.stop == FramingTest::Stop::Invalid))) {
    if (!final) return;
    // The capture ends (or loses octets) inside the private data: the Request is left as a
    // startup frame cut short, as if the Reply had not come.
    phase::PrivateDataDue taken = std::move(p);
    taken.parser.push(taken.held.bytes);
    phase::Startup& startup = init.phase.emplace<phase::Startup>();
    startup.parser = std::move(taken.parser);
    startup.seq = taken.seq;
    startup.offset = taken.offset;
    startup.first_frame = taken.first_frame;
    startup.prefix = taken.prefix;
    return;
  }
  phase::PrivateDataDue taken = std::move(p);
  Sender& responder = *init.peer;
  HeldBytes responder_held = std::move(std::get<phase::Ended>(responder.phase).held);
  std::size_t replay_from = 0;
  if (fpdu_follows) {
    // PD_Length overstated the private data (RFC 5044 7.1.1, 7.1.2 rule 9): certain now.
    apply_startup_frame(init, partial, judge_request_cut_short(partial, taken.first_frame),
                        taken.seq, taken.offset, taken.first_frame, taken.prefix, frame);
    answer_to_invalid_request(responder, taken.reply, taken.reply_seq, taken.reply_offset,
                              taken.reply_frame, false);
  } else {
    // The rest of the private data: the Request is complete, then the Reply is applied.
    replay_from = taken.parser.push(std::span<const std::uint8_t>(taken.held.bytes).first(due));
    const StartupFrame request = taken.parser.frame();
    apply_startup_frame(init, request, judge_startup_frame(request, nullptr, false), taken.seq,
                        taken.offset, taken.first_frame, taken.prefix, frame);
    if (invalid_request_) {
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
    HeldBytes early = take_early_octets(init);
    start_full_operation(init, early.seq, early.offset, f.m(), crc, false);
    start_full_operation(s, at + static_cast<std::uint32_t>(f.wire_length()),
                         at_offset + f.wire_length(), request.m(), crc, false);
    if (init.reader()) replay(init, early);
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
  const TcpSeq after = at + static_cast<std::uint32_t>(f.wire_length());
  const std::uint64_t after_offset = at_offset + f.wire_length();

  if (v.role == FrameKind::Request) {
    summary_.request = f;  // shown in the summary even when malformed
    if (v.step == StartupStep::EndMpa) {
      if (f.kind == FrameKind::Reply) {
        end_mpa();
        return;
      }
      // An improperly formatted Request: the Responder MUST close (RFC 5044 7.1.2 rule 2);
      // whatever it sends instead is its answer.
      invalid_request_ = true;
      invalid_request_frame_ = frame;
      invalid_request_end_offset_ = after_offset;
      responder_offset_at_invalid_request_ = s.peer->reassembler.next_offset();
      // (Its octets are held: if the Responder accepts it all the same, they are its FPDUs.)
      phase::Ended& ended = s.phase.emplace<phase::Ended>();
      ended.held = HeldBytes(after, after_offset);
      ended.holding = true;
      await_answer(*s.peer, frame, prefix > 0);
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
    s.phase.emplace<phase::AwaitReply>(phase::AwaitReply{HeldBytes(after, after_offset)});
    await_answer(peer, frame, prefix > 0);
    return;
  }
  // The Reply (or what came in its place).
  reply_done_ = true;
  summary_.reply = f;
  summary_.reply_ns = context_.ns;
  reply_end_offset_ = after_offset;
  Sender& init = initiator();
  switch (v.step) {
    case StartupStep::EndMpa:
      end_mpa();
      if (f.kind == FrameKind::Reply && f.r() &&
          !std::any_of(v.issues.begin(), v.issues.end(), [](const StartupIssue& i) {
            return info(i.id).error_code == MpaError::InvalidStartupFrame;
          })) {
        // A Reject: both sides leave MPA; what they send next is held to see whether it is
        // FPDUs all the same.
        reject_frame_ = frame;
        for (Sender* side : {&init, &s}) {
          phase::Ended& ended = side->phase.emplace<phase::Ended>();
          ended.after_reject = true;
          ended.held =
              side == &s ? HeldBytes(after, after_offset)
                         : HeldBytes(side->reassembler.next_seq(), side->reassembler.next_offset());
        }
      }
      return;
    case StartupStep::InvalidReply: {
      // The Initiator MUST close (RFC 5044 7.1.2 rule 3), after a Terminate if it sends one.
      // What either side sends instead is framed with the parameters the frames declare and
      // judged as sent; the Initiator's FPDUs after the Reply are named (on_fpdu).
      invalid_reply_frame_ = frame;
      HeldBytes early = take_early_octets(init);
      start_full_operation(init, early.seq, early.offset, v.initiator_markers, v.crc, false);
      start_full_operation(s, after, after_offset, v.responder_markers, v.crc, false);
      if (init.reader()) replay(init, early);
      return;
    }
    case StartupStep::AwaitReply:
      return;  // not a Reply's verdict
    case StartupStep::FullOperation:
      break;
  }
  reply_accepted_ = true;
  terminate_due_ = v.terminate_due;
  // A Terminate with the code owed has its cause in the Reply (rdmap.terminate-disagrees).
  for (const MpaError code : {MpaError::InsufficientIrd, MpaError::NoMatchingRtr}) {
    if (v.terminate_due.contains(code)) s.errors_seen.add(code);
  }
  if (v.peer_to_peer) rtr_ = RtrNegotiation{*summary_.request->enhanced, *f.enhanced};
  // Markers X->Y iff Y asked (RFC 5044 7.1.1): the Reply's M governs the Initiator's data.
  HeldBytes early = take_early_octets(init);
  start_full_operation(init, early.seq, early.offset, v.initiator_markers, v.crc, false);
  start_full_operation(s, after, after_offset, v.responder_markers, v.crc, false);
  // Errors of RFC 6581 (codes 6, 7) in the Reply end judgement of the Responder's side.
  if (v.responder_unjudged) {
    if (auto* probing = std::get_if<phase::Probing>(&s.phase)) probing->unjudged = true;
    if (FpduReader* r = s.reader()) r->stop_judging();
  }
  // Replay what the Initiator sent too early (while the marker probe holds the Initiator's
  // first octets, they are not replayed: the probe starts from the end of the Request).
  if (init.reader()) replay(init, early);
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
  config.now_ns = &context_.ns;
  config.payload_crc = &context_.payload_crc;
  config.check_sender_framing = !inferred;
  if (grid_origin) {
    config.grid_origin = *grid_origin;
    config.grid_origin_set = true;
  }
  if (!markers && !inferred && !unjudged) {
    // RFC 5044 7.1.1: M=0 means no markers. Hold the first octets to see whether the
    // sender inserts them anyway (marker.unexpected).
    s.phase.emplace<phase::Probing>(phase::Probing{HeldBytes(seq, offset), config, false});
  } else {
    FpduReader& reader = s.phase.emplace<phase::FullOperation>(config).reader;
    if (unjudged) reader.stop_judging();
  }
  s.stats.on_full_operation(markers, crc, inferred);
}

void MpaConnection::replay(Sender& s, const HeldBytes& held, std::size_t from) {
  held.replay(
      [&](std::uint64_t offset, TcpSeq seq, std::span<const std::uint8_t> data,
          std::uint64_t frame) {
        on_data(s, Chunk{offset, seq, data, frame});
      },
      from);
}

// Full operation without negotiated markers: a stream that opens with a zero marker and
// frames only with markers carries markers its receiver did not ask for.
void MpaConnection::finish_probe(Sender& s, bool final) {
  phase::Probing& p = std::get<phase::Probing>(s.phase);
  const MarkerProbe verdict = probe_markers(p.held.bytes, p.held.seq, p.config.crc, final);
  if (verdict == MarkerProbe::Undecided) return;
  const bool unexpected = verdict == MarkerProbe::Present;
  FpduReaderConfig config = p.config;
  const bool unjudged = p.unjudged;
  HeldBytes held = std::move(p.held);
  if (unexpected) {
    config.markers = true;
    config.grid_origin = held.seq;
    config.grid_origin_set = true;
    s.stats.on_markers_found();
  }
  FpduReader& reader = s.phase.emplace<phase::FullOperation>(config).reader;
  if (unjudged) reader.stop_judging();
  if (unexpected) {
    report(
        s, DiagId::MarkerUnexpected, held.first_frame(context_.frame), held.seq, held.offset,
        fmt::format("{} sends markers (first at seq {}) although its peer's startup frame had M=0",
                    to_string(direction_of(s)), held.seq.value()));
    reader.stop_judging();
  }
  replay(s, held);
}

// ---- how each side reacted to the startup exchange

void MpaConnection::startup_reaction_to_close(Sender& s, std::uint64_t frame) {
  if (!is_mpa_ || startup_close_judged_ || (!request_done_ && !invalid_request_)) return;
  Sender& init = initiator();
  Sender& resp = *init.peer;
  // Only the first close shows a reaction: the second may answer it.
  if (s.peer->ended) return;
  startup_close_judged_ = true;
  if (invalid_request_) {
    // An improperly formatted Request: the Responder MUST close (RFC 5044 7.1.2 rule 2). The
    // Initiator closed first, the Responder having acknowledged the whole Request and sent
    // nothing since: it kept the connection open.
    const bool acked = init.reassembler.peer_acks_seen() &&
                       init.reassembler.peer_acked_offset() >= invalid_request_end_offset_;
    const bool silent = resp.reassembler.next_offset() == responder_offset_at_invalid_request_;
    if (&s == &init && acked && silent) {
      StartupIssue issue = judge_invalid_request_kept_open(invalid_request_frame_);
      report(resp, issue.id, frame, resp.reassembler.next_seq(), resp.reassembler.next_offset(),
             std::move(issue.message));
    }
    return;
  }
  const bool init_silent = init.reassembler.next_offset() == request_end_offset_;
  const auto report_all = [&](Sender& on, std::vector<StartupIssue> issues) {
    for (StartupIssue& issue : issues) {
      report(on, issue.id, frame, on.reassembler.next_seq(), on.reassembler.next_offset(),
             std::move(issue.message));
    }
  };
  if (&s == &resp) {
    // The Responder closed first. It must have had the whole Request: its acknowledgement
    // covers it.
    const bool request_acked = init.reassembler.peer_acks_seen() &&
                               init.reassembler.peer_acked_offset() >= request_end_offset_;
    if (!reply_done_) {
      const auto* awaited = std::get_if<phase::Startup>(&resp.phase);
      if (request_acked && awaited && awaited->parser.consumed() == 0)
        report_all(resp, judge_close_without_reply(*summary_.request));
      return;
    }
    const bool reply_acked = resp.reassembler.peer_acks_seen() &&
                             resp.reassembler.peer_acked_offset() >= reply_end_offset_;
    if (invalid_reply_frame_ != 0 && init_silent && reply_acked) {
      StartupIssue issue = judge_invalid_reply_kept_open(invalid_reply_frame_);
      report(init, issue.id, frame, init.reassembler.next_seq(), init.reassembler.next_offset(),
             std::move(issue.message));
    }
    return;
  }
  // The Initiator closed first.
  if (!reply_accepted_ || !init_silent) return;
  const bool owed = terminate_due_.contains(MpaError::InsufficientIrd) ||
                    terminate_due_.contains(MpaError::NoMatchingRtr);
  if (!initiator_reacted_) {
    initiator_reacted_ = true;
    if (auto issue = judge_negotiation_exit(terminate_due_, false, std::nullopt)) {
      std::vector<StartupIssue> one;
      one.push_back(std::move(*issue));
      report_all(init, std::move(one));
    }
  }
  report_all(init, judge_initiator_close_after_accept(*summary_.reply, owed));
}

void MpaConnection::startup_reaction_to_fpdu(Sender& s, const FpduEvent& fpdu, bool terminate) {
  if (&s != initiator_ || !reply_accepted_ || initiator_reacted_) return;
  initiator_reacted_ = true;
  if (!terminate) return;  // it went on (an RTR of the Responder's, or a raised IRD)
  if (!terminate_due_.terminate_owed() && summary_.reply && summary_.reply->m()) {
    // Its first FPDU a Terminate, nothing in the negotiation owed one: with M=1 in the Reply,
    // a refusal of the markers asked for (RFC 5044 4.3), if they were the cause.
    report(s, DiagId::StartupMarkersRefused, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
           "Initiator answered a Reply that accepted and asked for markers (M=1) with a Terminate "
           "as its first FPDU: if the markers were the cause, it cannot generate them");
    return;
  }
  const auto t = decode_terminate(fpdu.ulpdu_head, s.siw);
  if (auto issue =
          judge_negotiation_exit(terminate_due_, true, t ? t->mpa_error_code() : std::nullopt)) {
    report(s, issue->id, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
           std::move(issue->message));
  }
}

// FPDUs after a Reject (RFC 5044 7.1.2 rules 2 and 3): the connection may carry another
// protocol then, so only a framing that FPDUs alone explain counts (infer_framing: matching
// CRCs, or DDP headers throughout), looked for in the first octets each side sends.
void MpaConnection::judge_after_reject(Sender& s, std::uint64_t frame, bool final) {
  auto* p = std::get_if<phase::Ended>(&s.phase);
  if (!p || !p->after_reject) return;
  const std::size_t size = p->held.bytes.size();
  const bool last = final || size >= kAfterRejectLimit;
  if (size == 0) {
    p->after_reject = !final;
    return;
  }
  if (!last && size < p->next_attempt) return;
  p->next_attempt = std::max<std::size_t>(4096, size * 2);
  const auto h = infer_framing(p->held.bytes, p->held.seq, FramingChoices{}, last);
  if (!h && !last) return;
  p->after_reject = false;
  const HeldBytes held = std::move(p->held);
  p->held = HeldBytes();
  if (!h) return;
  // RFC 6581 9.1 ties a Terminate (MPA error 6) to a Reject over the IRD: a Terminate that
  // opens what follows the Reject (after the zero marker, with markers) is not named as an
  // FPDU after the Reject; after a Reject whose ORD exceeds the Initiator's IRD, its code is
  // checked.
  const std::span<const std::uint8_t> bytes = held.bytes;
  for (const std::size_t at : {h->start, h->start + (h->markers ? 4 : 0)}) {
    if (!terminate_at(bytes, at)) continue;
    judge_terminate_after_reject(s, bytes.subspan(at + 2),
                                 held.seq + static_cast<std::uint32_t>(at), held.offset + at,
                                 frame);
    return;
  }
  const TcpSeq at = held.seq + static_cast<std::uint32_t>(h->start);
  report(s, DiagId::StartupFpduAfterReject, frame, at, held.offset + h->start,
         fmt::format("{} sent MPA FPDUs (first at seq {}; markers {}, CRC {}) after the MPA Reply "
                     "in frame {} rejected the connection (R=1), where it MUST have left MPA",
                     to_string(direction_of(s)), at.value(), h->markers ? "on" : "off",
                     h->crc ? "on, matching" : "off", reject_frame_));
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
  const std::size_t size = p.held.bytes.size();
  const std::size_t window = context_.options.inference_window;
  // Try at 4 KiB, then each time the held octets double (not at every segment: the search
  // is linear in the held octets), and at the window's end.
  if (!final && size < window && size < p.next_attempt) return;
  p.next_attempt = std::max<std::size_t>(4096, size * 2);
  const FramingChoices choices{context_.options.markers, context_.options.crc};
  const auto h = infer_framing(p.held.bytes, p.held.seq, choices, final || size >= window);
  if (!h) {
    if (final || size >= window) {
      // Not recognisable as MPA: treat the octets as streaming mode (a startup frame may
      // still come).
      HeldBytes held = std::move(p.held);
      s.phase.emplace<phase::Streaming>().octets = 1;  // not at the stream's start
      if (!final) replay(s, held);
    }
    return;
  }
  become_mpa();
  HeldBytes held = std::move(p.held);
  const TcpSeq start = held.seq + static_cast<std::uint32_t>(h->start);
  if (!summary_.startup_seen && !said_not_seen_) {
    said_not_seen_ = true;
    report(s, DiagId::CaptureStartupNotSeen, frame, start, held.offset + h->start,
           "the capture holds no MPA startup frames for this connection; startup rules could not "
           "be checked");
  }
  report(s, DiagId::CaptureParametersInferred, frame, start, held.offset + h->start,
         fmt::format("{} from the data: markers {}, CRC {}; first FPDU at seq {}{}",
                     context_.options.markers || context_.options.crc
                         ? "taken from options and checked"
                         : "inferred",
                     h->markers ? fmt::format("on (grid at seq {})", (held.seq + h->phase).value())
                                : std::string("off"),
                     h->crc ? "on" : "off", start.value(),
                     h->start > 0 ? fmt::format(" ({} octets before it not verified)", h->start)
                                  : std::string()));
  start_full_operation(s, start, held.offset + h->start, h->markers, h->crc, true,
                       held.seq + h->phase);
  replay(s, held, h->start);
}

}  // namespace mpa
