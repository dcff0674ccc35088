// A sender's stream events, one handler per phase (see mpa_connection.h): in-order octets,
// gaps, the end of the stream, and the FPDUs its reader frames.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>  // memmem

#include "connection/mpa_connection.h"
#include "fpdu/framing_inference.h"
#include "mpa/ddp.h"
#include "support/overloaded.h"

namespace mpa {
namespace {

constexpr std::size_t kKeyPrefixSize = 9;  // "MPA ID Re"
constexpr std::size_t kNowhere = static_cast<std::size_t>(-1);

// Where "MPA ID Re", the part both startup keys share, first begins in `data` (kNowhere: it
// does not).
std::size_t find_key_prefix(std::span<const std::uint8_t> data) {
  const void* hit = memmem(data.data(), data.size(), kRequestKey.data(), kKeyPrefixSize);
  return hit ? static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - data.data())
             : kNowhere;
}
constexpr std::size_t kEarlyBufferLimit = 256u << 10;

}  // namespace

void MpaConnection::on_data(Sender& s, Chunk chunk) {
  bool segment_start = true;
  while (!chunk.data.empty()) {
    const std::size_t used =
        std::visit([&](auto& phase) { return feed(s, phase, chunk, segment_start); }, s.phase);
    if (used > 0) chunk.payload_crc.reset();  // (what is left is no segment's whole payload)
    chunk.data = chunk.data.subspan(used);
    chunk.offset += used;
    chunk.seq += static_cast<std::uint32_t>(used);
    segment_start = false;
  }
}

// The stream's first 16 octets decide what it opens with: a startup key (also a damaged
// one), FPDUs of a capture that starts after the SYN, or streaming-mode octets. They are held
// until all 16 have come (however the segments cut them), then replayed.
void MpaConnection::open_stream(Sender& s) {
  auto& p = std::get<phase::Streaming>(s.phase);
  p.opened = true;
  const HeldOctets opening = std::move(p.opening);
  const std::span<const std::uint8_t> data = opening.bytes();
  const bool starts_with_key =
      find_key_prefix(data.first(std::min(data.size(), kKeyPrefixSize))) == 0;
  // A capture that starts after the SYN: recognise MPA by its FPDUs, unless the stream
  // opens with a startup frame.
  const bool no_syn = !senders_[0].syn_seen && !senders_[1].syn_seen;
  if (!starts_with_key && data.size() >= kStartupKeySize && looks_like_damaged_key(data)) {
    start_frame(s, opening.offset(), opening.seq(), opening.first_frame(0), 0);  // a damaged key
  } else if (!starts_with_key && !request_done_ && (no_syn || context_.options.infer_with_syn)) {
    s.phase.emplace<phase::Inferring>(
        phase::Inferring{HeldOctets(opening.seq(), opening.offset())});
  }
  replay(s, opening);
}

// Streaming mode: everything before a startup frame.
std::size_t MpaConnection::feed(Sender& s, phase::Streaming& p, const Chunk& chunk, bool) {
  if (!p.opened) {
    const bool at_start = p.opening.empty() ? chunk.offset == 0 && p.octets == 0
                                            : chunk.offset == p.opening.offset() + p.opening.size();
    if (at_start) {
      if (p.opening.empty()) p.opening = HeldOctets(chunk.seq, chunk.offset);
      const std::size_t take = std::min(chunk.data.size(), kStartupKeySize - p.opening.size());
      p.opening.extend(chunk.data.first(take), chunk.frame);
      if (p.opening.size() == kStartupKeySize) open_stream(s);
      return take;
    }
    p.opened = true;  // the stream's start was not seen
  }
  const std::span<const std::uint8_t> data = chunk.data;
  // Look for "MPA ID Re" across the previous chunk's tail and this chunk.
  if (!p.tail.empty()) {
    std::vector<std::uint8_t> joined(p.tail);
    const std::size_t extra = std::min(data.size(), kKeyPrefixSize - 1);
    joined.insert(joined.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(extra));
    // (The first hit is the only one that can begin in the tail.)
    if (const std::size_t i = find_key_prefix(joined); i < p.tail.size()) {
      // The key began in octets already consumed as streaming; the reassembler cannot
      // rewind, so the parser gets them from the joined copy.
      const std::size_t back = p.tail.size() - i;
      start_frame(s, chunk.offset - back, chunk.seq - static_cast<std::uint32_t>(back), chunk.frame,
                  p.octets - back);
      std::get<phase::Startup>(s.phase).parser.push(
          std::span<const std::uint8_t>(&joined[i], back));
      return 0;
    }
  }
  if (const std::size_t at = find_key_prefix(data); at != kNowhere) {
    start_frame(s, chunk.offset + at, chunk.seq + static_cast<std::uint32_t>(at), chunk.frame,
                p.octets + at);
    return at;
  }
  p.octets += data.size();
  // Keep the stream's last octets (the previous tail too, when this chunk is short) so that
  // a key split over many small segments is still found.
  if (data.size() >= kKeyPrefixSize - 1) {
    p.tail.assign(data.end() - static_cast<std::ptrdiff_t>(kKeyPrefixSize - 1), data.end());
  } else {
    p.tail.insert(p.tail.end(), data.begin(), data.end());
    if (p.tail.size() > kKeyPrefixSize - 1) {
      p.tail.erase(p.tail.begin(), p.tail.end() - static_cast<std::ptrdiff_t>(kKeyPrefixSize - 1));
    }
  }
  return data.size();
}

std::size_t MpaConnection::feed(Sender& s, phase::Startup& p, const Chunk& chunk,
                                bool segment_start) {
  // A frame awaited before its sender's first segment was seen (a capture that starts after
  // the SYN-ACK) learns its sequence number from its first octet.
  if (chunk.offset == p.offset) p.seq = chunk.seq;
  // A segment that opens with an FPDU ends the private data, whatever PD_Length said.
  if (segment_start && private_data_cut_short(s, &chunk)) return 0;
  const std::size_t used = p.parser.push(chunk.data);
  if (used != 0) p.last_ns = context_.ns;
  if (!p.parser.complete()) return used;
  return used + startup_complete(s, chunk.frame, chunk.data.subspan(used),
                                 chunk.seq + static_cast<std::uint32_t>(used));
}

std::size_t MpaConnection::feed(Sender& s, phase::AwaitReply& p, const Chunk& chunk, bool) {
  s.order.data_after_startup_seen = true;  // (judged here: the capture shows it before the Reply)
  // While the Reply waits for the private data its PD_Length announced, whether these octets
  // came before the Reply is open: the Responder's next octets tell (its PD_Length may
  // overstate them). They are held unsaid until then (say_early_octets).
  const auto* reply = std::get_if<phase::Startup>(&s.peer->phase);
  const bool reply_open = reply && reply->parser.header_complete() && !reply->parser.complete();
  if (!p.said_early && !reply_open) {
    p.said_early = true;
    report(s, DiagId::StartupInitiatorDataBeforeReply, chunk.frame, chunk.seq, chunk.offset,
           fmt::format("Initiator sent {} octets at seq {} before the MPA Reply arrived",
                       chunk.data.size(), chunk.seq.value()));
  }
  p.held.extend_up_to(kEarlyBufferLimit, chunk.data, chunk.frame);
  return chunk.data.size();
}

std::size_t MpaConnection::feed(Sender& s, phase::Probing& p, const Chunk& chunk, bool) {
  check_responder_first(s, chunk.seq, chunk.offset, chunk.data.size(), chunk.frame);
  if (!s.order.data_after_startup_seen) check_acknowledged_before_sending(s, chunk);
  p.held.extend(chunk.data, chunk.frame);
  finish_probe(s, false);
  return chunk.data.size();
}

std::size_t MpaConnection::feed(Sender& s, phase::Inferring& p, const Chunk& chunk, bool) {
  const std::size_t before = p.held.size();
  p.held.extend(chunk.data, chunk.frame);
  // --infer-all on a connection whose SYN was captured: a startup key after streaming-mode
  // octets (delayed startup, RFC 5044 7.1.3) means the stream is read for its startup frames
  // as without --infer-all; inference only adds connections that have none.
  if (senders_[0].syn_seen || senders_[1].syn_seen) {
    const std::size_t from = before - std::min(before, kKeyPrefixSize - 1);
    const std::span<const std::uint8_t> fresh = p.held.bytes().subspan(from);
    if (find_key_prefix(fresh) != kNowhere) {
      const HeldOctets held = std::move(p.held);
      s.phase.emplace<phase::Streaming>().opened = true;
      replay(s, held);
      return chunk.data.size();
    }
  }
  try_inference(s, chunk.frame, false);
  return chunk.data.size();
}

std::size_t MpaConnection::feed(Sender& s, phase::FullOperation& p, const Chunk& chunk,
                                bool segment_start) {
  if (!initiator().order.first_fpdu_done) {
    check_responder_first(s, chunk.seq, chunk.offset, chunk.data.size(), chunk.frame);
  }
  if (!s.order.data_after_startup_seen) check_acknowledged_before_sending(s, chunk);
  if (segment_start)
    s.stats.on_full_operation_segment(!p.reader->in_fpdu() && p.reader->synchronised());
  p.reader->push(chunk.data, chunk.frame, segment_start, s, {context_.ns, chunk.payload_crc});
  return chunk.data.size();
}

std::size_t MpaConnection::feed(Sender& s, phase::PrivateDataDue& due, const Chunk& chunk, bool) {
  phase::PrivateDataDue::State& p = *due.state;
  p.held.extend_up_to(kEarlyBufferLimit, chunk.data, chunk.frame);
  decide_private_data(s, chunk.frame, p.held.size() >= kEarlyBufferLimit);
  return chunk.data.size();
}

std::size_t MpaConnection::feed(Sender& s, phase::Ended& p, const Chunk& chunk, bool) {
  if (p.holding && &s == initiator_ && !reply_done_ && !p.said_data) {
    // An Initiator whose Request was improperly formatted sends before any Reply came (RFC
    // 5044 7.1.2 rule 3), unless a Reply still waiting for its private data may have come
    // complete before (its octets tell: see AwaitReply).
    const auto* reply = std::get_if<phase::Startup>(&s.peer->phase);
    if (!reply || !reply->parser.header_complete() || reply->parser.complete()) {
      p.said_data = true;
      report(s, DiagId::StartupInitiatorDataBeforeReply, chunk.frame, chunk.seq, chunk.offset,
             fmt::format("Initiator sent {} octets at seq {} before the MPA Reply arrived",
                         chunk.data.size(), chunk.seq.value()));
    }
  }
  if (p.holding) p.held.extend_up_to(kEarlyBufferLimit, chunk.data, chunk.frame);
  if (p.after_reject) {
    const std::size_t before = p.held.size();
    p.held.extend_up_to(kAfterRejectLimit, chunk.data, chunk.frame);
    const std::size_t taken = p.held.size() - before;
    judge_after_reject(s, chunk.frame, false);
    // FPDUs: the octets held were replayed in full operation; the rest goes there too.
    if (!std::holds_alternative<phase::Ended>(s.phase)) return taken;
  }
  if (p.answered_invalid && !p.said_data) {
    p.said_data = true;
    report(
        s, DiagId::StartupInvalidRequestAnswered, chunk.frame, chunk.seq, chunk.offset,
        fmt::format(
            "Responder sent {} more octets at seq {} after answering the improperly formatted MPA "
            "Request, instead of closing the connection",
            chunk.data.size(), chunk.seq.value()));
  }
  return chunk.data.size();
}

void MpaConnection::on_gap(Sender& s, std::uint64_t offset, TcpSeq seq, std::uint64_t length,
                           GapCause cause, std::uint64_t frame) {
  open_early(s);  // (the gap's finding follows what the octets before it showed)
  // Requests or their answers may be among the missing octets (RFC 6581 9.1 counts).
  s.ulp().lose_count();
  s.peer->ulp().lose_count();
  open_early(s);         // (the gap's finding follows what the octets before it showed)
  s.rx.on_unknowable();  // what reached the receivers is unknown from here on
  s.peer->rx.on_unknowable();
  const bool truncated = cause == GapCause::Truncated;
  report(s, truncated ? DiagId::CaptureTruncated : DiagId::CaptureGap, frame, seq, offset,
         fmt::format("{} octets at seq {} {}", length, seq.value(),
                     truncated ? "cut by the snapshot length"
                     : cause == GapCause::BufferLimit
                         ? "dropped: out-of-order data beyond the reassembly ceiling"
                         : "missing from the capture"));
  judge_after_reject(s, frame, true);  // (what follows the gap would not join the octets held)
  if (std::holds_alternative<phase::Probing>(s.phase)) finish_probe(s, true);
  if (std::holds_alternative<phase::PrivateDataDue>(s.phase)) decide_private_data(s, frame, true);
  std::visit(Overloaded{
                 [&](phase::FullOperation& p) {
                   // The first FPDU may be among the missing octets: the ordering rules that
                   // depend on it (Responder waits for it, RFC 5044 7.1.2; it is the RTR,
                   // RFC 6581 5) cannot be checked.
                   s.order.first_fpdu_done = true;
                   p.reader->on_gap(length, frame, s, context_.ns);
                 },
                 [&](phase::AwaitReply& p) {
                   // The startup exchange cannot be followed any more on this side.
                   s.order.first_fpdu_done = true;
                   HeldOctets held = std::move(p.held);
                   s.phase.emplace<phase::Ended>(phase::Ended{std::move(held)});
                 },
                 [&](phase::Startup&) { s.phase.emplace<phase::Ended>(); },
                 [&](phase::Inferring& p) {
                   // Study only what follows the gap.
                   p.held = HeldOctets(seq + static_cast<std::uint32_t>(length), offset + length);
                 },
                 [&](phase::Streaming& p) {
                   p.tail.clear();
                   p.octets += length;
                 },
                 [&](phase::Probing&) {},         // decided above
                 [&](phase::PrivateDataDue&) {},  // decided above
                 // (Held octets stop at the gap: what follows it would not join them.)
                 [&](phase::Ended& p) { p.holding = false; },
             },
             s.phase);
}

void MpaConnection::open_early(Sender& s) {
  const auto* p = std::get_if<phase::Streaming>(&s.phase);
  if (p && !p->opened && !p->opening.empty()) open_stream(s);
}

void MpaConnection::on_end(Sender& s, std::uint64_t frame, StreamEnd how) {
  if (s.ended) return;
  open_early(s);
  s.ended = true;
  // Which side reset: a RST ends both directions, and the note of each names the sender.
  const Sender* resetter = reset_by_ ? reset_by_ : &s;
  const std::string what = how == StreamEnd::Fin ? std::string("closed (FIN)")
                                                 : fmt::format("reset by the {} (RST)",
                                                               to_string(direction_of(*resetter)));
  judge_after_reject(s, frame, true);  // (FPDUs found are read in full operation, below)
  if (how == StreamEnd::Fin) private_data_cut_short(s, nullptr);
  if (std::holds_alternative<phase::Probing>(s.phase)) finish_probe(s, true);
  if (std::holds_alternative<phase::PrivateDataDue>(s.phase)) decide_private_data(s, frame, true);
  const TcpSeq seq = s.reassembler.next_seq();
  const std::uint64_t offset = s.reassembler.next_offset();
  std::visit(
      Overloaded{
          [&](phase::FullOperation& p) {
            p.reader->finish(frame, s, context_.ns);
            settle_alignment(s);
            if (s.held_alignment.too_short) settle_too_short(s, nullptr);
            const FpduReader& r = *p.reader;
            if (!r.synchronised() || !r.judging()) return;
            if (r.in_fpdu()) {
              report(s, DiagId::ConnectionLostMidFpdu, frame, seq, offset,
                     fmt::format("connection {} at seq {} inside an FPDU ({} more octets were due)",
                                 what, seq.value(), r.bytes_needed()));
            } else {
              report(
                  s, DiagId::ConnectionClosed, frame, seq, offset,
                  fmt::format("connection {} at seq {}, at an FPDU boundary", what, seq.value()));
              // A DDP Message it left open (RFC 5041 4.1), closing first: a reset aborts, and
              // a close that answers the peer's tears down what was under way.
              std::vector<Finding> open;
              if (how == StreamEnd::Fin && !s.peer->ended && s.ulp_if_made())
                s.ulp().on_close(frame, seq, offset, open);
              for (Finding& f : open) report(s, std::move(f));
            }
          },
          [&](phase::Startup& p) {
            if (reactions_.invalid_request() && &s != initiator_) {
              // What the Responder sent in answer to an invalid Request, cut short.
              if (p.parser.consumed() > 0) {
                StartupIssue issue = judge_answer_to_invalid_request(p.parser.frame());
                report(s, issue.id, frame, p.seq, p.offset, std::move(issue.message));
              }
              return;
            }
            if (p.parser.header_complete()) {
              // What the header alone shows is still reported (a PD_Length above 512).
              const FrameKind expected = request_done_ ? FrameKind::Reply : FrameKind::Request;
              for (StartupIssue& issue : check_startup_frame(p.parser.frame(), expected)) {
                if (info(issue.id).severity != Severity::Note) {
                  report(s, issue.id, frame, p.seq, p.offset, std::move(issue.message));
                }
              }
            }
            if (p.parser.consumed() > 0) {
              report(s, DiagId::ConnectionLostMidStartup, frame, seq, offset,
                     fmt::format(
                         "connection {} at seq {} inside a startup frame ({} more octets were due)",
                         what, seq.value(), p.parser.bytes_needed()));
            }
          },
          [&](phase::Inferring&) { try_inference(s, frame, true); },
          [&](auto&) {},
      },
      s.phase);
  startup_reaction_to_close(s, frame);
  // Its stream ended: did it go on after an error in the peer's FPDUs without a Terminate?
  std::vector<Finding> found;
  s.peer->rx.set_sender(direction_of(*s.peer));
  s.peer->rx.on_receiver_end(frame, found);
  report_reactions(s, found);
}

// The Responder sends no FPDU or marker before it has received one (RFC 5044 7.1.2 rule 4).
void MpaConnection::check_responder_first(Sender& s, TcpSeq seq, std::uint64_t offset,
                                          std::size_t size, std::uint64_t frame) {
  // (After a Reject neither side is in MPA: the FPDUs it sends are named as such.)
  if (direction_of(s) != Direction::Responder || initiator().order.first_fpdu_done ||
      s.order.said_responder_first || !summary_.startup_seen || reactions_.reject_frame() != 0) {
    return;
  }
  // While the Initiator's reader tests how its sender frames, whether its first FPDU is
  // complete is not known yet: nothing is said.
  if (const FpduReader* r = initiator().reader(); r && r->testing()) return;
  // An Initiator whose first octets the marker probe still holds (octets replayed after a
  // Reply decided late): its first FPDU is complete if they hold one.
  if (const auto* probing = std::get_if<phase::Probing>(&initiator().phase)) {
    const HeldOctets& held = probing->held;
    if (opens_with_fpdu(held.bytes(), held.seq(), probing->config.markers, probing->config.crc) ==
        FpduEvidence::Fpdu)
      return;
  }
  s.order.said_responder_first = true;
  report(
      s, DiagId::FpduResponderSentFirst, frame, seq, offset,
      fmt::format(
          "Responder sent {} octets of full operation at seq {} before the Initiator's first FPDU "
          "was complete",
          size, seq.value()));
}

// A segment carries its sender's ACK of all it had received (RFC 793): the capture point
// aside, an ACK short of the octets the rule waits for shows the sender had not had them.
// Judged on the first octet of full operation each side sends, from the greatest ACK it had
// sent by then (its segment's own included): never later than the truth.
void MpaConnection::check_acknowledged_before_sending(Sender& s, const Chunk& chunk) {
  s.order.data_after_startup_seen = true;
  if (!is_mpa_ || !reactions_.reply_accepted() || chunk.data.empty()) return;
  Sender& peer = *s.peer;
  if (!peer.reassembler.peer_acks_seen()) return;  // (no ACK of its seen: one direction captured)
  const std::uint64_t acked = peer.reassembler.peer_acked_offset();
  if (&s == initiator_) {
    const std::uint64_t reply_end = reactions_.reply_end_offset();
    if (reply_end == 0 || acked >= reply_end) return;
    report(s, DiagId::StartupInitiatorDataBeforeReply, chunk.frame, chunk.seq, chunk.offset,
           fmt::format("Initiator sent {} octets of full operation at seq {} before it had the "
                       "whole MPA Reply: its acknowledgements stop {} octets short of the Reply's "
                       "end",
                       chunk.data.size(), chunk.seq.value(), reply_end - acked));
    return;
  }
  if (s.order.said_responder_first || peer.order.first_fpdu_end == 0 ||
      acked >= peer.order.first_fpdu_end)
    return;
  s.order.said_responder_first = true;
  report(s, DiagId::FpduResponderSentFirst, chunk.frame, chunk.seq, chunk.offset,
         fmt::format("Responder sent {} octets of full operation at seq {} before it had the "
                     "Initiator's first FPDU: its acknowledgements stop {} octets short of that "
                     "FPDU's end",
                     chunk.data.size(), chunk.seq.value(), peer.order.first_fpdu_end - acked));
}

namespace {

// The ULPDU as read holds all but the last 2 octets of the DDP header its first octet announces
// (RFC 5041 4): what the RFC's reading makes of a sender counting ULPDU_Length 2 short.
bool short_by_a_miscount(const FpduEvent& fpdu) {
  if (fpdu.ulpdu_head.empty()) return false;
  const std::uint32_t header =
      (fpdu.ulpdu_head[0] & 0x80) ? kDdpTaggedHeaderSize : kDdpUntaggedHeaderSize;
  const std::uint32_t size = fpdu.ulpdu_size != 0 ? fpdu.ulpdu_size : fpdu.ulpdu_length;
  return size < header && size + 2 >= header;
}

}  // namespace

void MpaConnection::on_fpdu(Sender& s, const FpduEvent& fpdu) {
  if (summary_.first_fpdu_ns == 0) summary_.first_fpdu_ns = context_.ns;
  FpduReader& reader = *s.reader();
  settle_alignment(s);
  if (s.held_alignment.too_short) settle_too_short(s, &fpdu);
  std::vector<Finding>& found = fpdu_findings_;  // reused: most FPDUs have none
  if (fpdu.judged) s.fpdu_rules.check(fpdu, {s.peer->mss, reader.grid().enabled()}, found);
  UlpContext context;
  context.direction = direction_of(s);
  context.first_fpdu = !s.order.first_fpdu_done;
  if (summary_.request) context.revision = summary_.request->revision;
  context.rtr = rtr_ ? &*rtr_ : nullptr;
  context.reply = summary_.reply ? &*summary_.reply : nullptr;
  context.request = summary_.request ? &*summary_.request : nullptr;
  context.siw_sender = s.siw;
  const UlpVerdict verdict = s.ulp().check(fpdu, context, found);
  count_ird_requests(s, fpdu, verdict.ddp, found);
  for (const Finding& f : found) s.rx.on_ulp_error(f.id, fpdu);  // the peer must Terminate
  s.rx.on_sender_fpdu(fpdu, verdict.ddp);
  s.peer->rx.set_sender(direction_of(*s.peer));
  s.peer->rx.on_receiver_fpdu(fpdu, verdict.ddp, verdict.terminate, found);
  if (verdict.terminate) {
    const Sender& peer = *s.peer;
    TerminatePeer receiver{peer.ulp_if_made(), peer.errors_seen, std::nullopt, std::nullopt};
    if (const FpduReader* r = peer.reader()) {
      receiver.crc = r->crc_enabled();
      receiver.markers = r->grid().enabled();
    }
    s.ulp().check_terminate(fpdu, context, receiver, found);
  }
  for (Finding& f : found) {
    if (f.id == DiagId::FpduNotSegmentAligned && reader.judges_sender_framing() &&
        !reader.framing_lost()) {
      f.timestamp_ns = context_.ns;
      s.held_alignment.finding = std::make_unique<Finding>(std::move(f));
      s.held_alignment.named = reader.framing_named();
      continue;
    }
    if (f.id == DiagId::DdpUlpduTooShort && short_by_a_miscount(fpdu) &&
        reader.judges_sender_framing() && !reader.framing_named() && !reader.framing_lost() &&
        !s.held_alignment.too_short) {
      f.timestamp_ns = context_.ns;
      s.held_alignment.too_short =
          std::make_unique<HeldTooShort>(HeldTooShort{std::move(f), fpdu.pad_length < 2});
      continue;
    }
    report(s, std::move(f));
  }
  found.clear();
  if (verdict.stop_judging) reader.stop_judging();
  if (&s == initiator_) {
    reactions_.on_initiator_fpdu(fpdu, verdict.terminate, s.siw,
                                 summary_.reply ? &*summary_.reply : nullptr, found);
    for (Finding& f : found) report(s, std::move(f));
    found.clear();
  }
  s.stats.on_fpdu(fpdu, verdict.ddp, verdict.terminate);
  if (!s.order.first_fpdu_done) s.order.first_fpdu_end = end_offset(fpdu);
  s.order.first_fpdu_done = true;
  context_.sink.on_fpdu(fpdu);
}

void MpaConnection::on_fpdu_revised(Sender& s, const FpduEvent& revised, bool markers) {
  FpduEvent fpdu = revised;
  // Its extent changed: the frame that completed it is the one that delivered its last octet.
  if (fpdu.wire_length != 0) {
    if (const auto frame = s.octet_frames.frame_of(end_offset(fpdu) - 1)) fpdu.last_frame = *frame;
  }
  context_.sink.on_fpdu_revised(fpdu, markers);
}

// RDMA Read and Atomic Requests against the IRD the peer declared (RFC 6581 9.1): the
// Responder's IRD bounds the Initiator's requests; the Initiator's, or the Responder's own
// ORD where that is larger (the Initiator raises its IRD to it or terminates), the
// Responder's. An FPDU that cannot be read as sent may hide a request or an answer.
void MpaConnection::count_ird_requests(Sender& s, const FpduEvent& fpdu,
                                       const std::optional<DdpHeader>& ddp,
                                       std::vector<Finding>& found) {
  if (!ddp || !fpdu.judged || fpdu.crc_status == CrcStatus::Bad) {
    if (fpdu.ulpdu_length != 0 || !fpdu.judged) {
      s.ulp().lose_count();
      s.peer->ulp().lose_count();
    }
    return;
  }
  if (ddp->opcode == static_cast<std::uint8_t>(ddp->tagged ? RdmapOpcode::ReadResponse
                                                           : RdmapOpcode::AtomicResponse)) {
    s.peer->ulp().check_read_response(fpdu, *ddp, direction_of(s), found);
  }
  if (is_ird_response_end(*ddp)) {
    s.peer->ulp().count_answer();
    return;
  }
  if (!is_ird_request(*ddp)) return;
  const bool from_initiator = &s == initiator_;
  const auto& request = summary_.request;
  const auto& reply = summary_.reply;
  std::optional<std::uint16_t> peer_ird;
  if (request && reply && request->enhanced && reply->enhanced) {
    if (from_initiator) {
      if (reply->enhanced->ird != kNoNegotiation) peer_ird = reply->enhanced->ird;
    } else if (request->enhanced->ird != kNoNegotiation && reply->enhanced->ord != kNoNegotiation) {
      peer_ird = std::max(request->enhanced->ird, reply->enhanced->ord);
    }
  }
  s.ulp().count_request(fpdu, *ddp, peer_ird, direction_of(s), found);
}

void MpaConnection::settle_alignment(Sender& s) {
  if (!s.held_alignment.finding) return;
  const FpduReader* r = s.reader();
  if (r && (r->framing_lost() || r->framing_named() != s.held_alignment.named)) {
    s.fpdu_rules.reopen_alignment();
  } else {
    report(s, std::move(*s.held_alignment.finding));
  }
  s.held_alignment.finding.reset();
}

// A ULPDU too short for its DDP header may be the RFC's reading of an FPDU whose sender counts
// ULPDU_Length 2 short (RFC 5044 4.1): its ULPDU 2 octets longer, its pad 2 shorter (or 2
// longer, and then the next FPDU 4 octets later), the CRC over the same octets. An FPDU read
// where the RFC puts it, after one whose pad as read is under 2, refutes that sender (it would
// have begun 4 octets later); a deviation named tells either way; the end of the direction
// leaves the RFC's reading.
void MpaConnection::settle_too_short(Sender& s, const FpduEvent* next) {
  const FpduReader* r = s.reader();
  const bool named = r && r->framing_named();
  HeldTooShort& held = *s.held_alignment.too_short;
  if (!named && r && !r->framing_lost() && next && !held.pad_under_2) {
    held.pad_under_2 = next->pad_length < 2;  // (the FPDU after it tells)
    return;
  }
  std::unique_ptr<HeldTooShort> taken = std::move(s.held_alignment.too_short);
  if (named && r->framing().length_bias < 0) {  // its ULPDU holds the header
    s.ulp().withdraw_too_short();
    return;
  }
  report(s, std::move(taken->finding));
}

}  // namespace mpa
