// One MPA connection: its senders, the finding gate, the end of the analysis (see
// mpa_connection.h). The per-phase handlers are in sender_events.cpp, the application of
// the startup exchange's verdicts in startup_application.cpp.
#include "connection/mpa_connection.h"

#include <fmt/format.h>

#include <algorithm>

namespace mpa {
namespace {

constexpr std::size_t kPendingFindingsLimit = 256;

}  // namespace

MpaConnection::MpaConnection(AnalysisContext& context, const TcpSegment& first)
    : context_(context),
      key_(FlowKey::of(first.source, first.destination)),
      senders_{Sender(*this, context.options.reassembly),
               Sender(*this, context.options.reassembly)},
      initiator_(&senders_[0]) {
  // Sender 0 is the TCP client: the SYN sender, or (no SYN) the SYN-ACK's receiver, or the
  // first sender seen.
  const bool from_server = (first.flags & tcp_flags::kSyn) && (first.flags & tcp_flags::kAck);
  senders_[0].endpoint = from_server ? first.destination : first.source;
  senders_[1].endpoint = from_server ? first.source : first.destination;
  senders_[0].peer = &senders_[1];
  senders_[1].peer = &senders_[0];
  summary_.first_frame = first.frame;
  summary_.first_ns = first.timestamp_ns;
}

bool MpaConnection::reopened_by(const TcpSegment& syn) const {
  const Sender& s = senders_[senders_[0].endpoint == syn.source ? 0 : 1];
  return s.reassembler.started() && !(s.syn_seen && s.reassembler.next_offset() == 0);
}

void MpaConnection::on_segment(const TcpSegment& seg) {
  summary_.last_frame = seg.frame;
  summary_.last_ns = seg.timestamp_ns;
  Sender& s = senders_[senders_[0].endpoint == seg.source ? 0 : 1];
  const auto note = [&seg](TcpFlagSeen& seen, std::uint8_t flag) {
    if ((seg.flags & flag) && seen.frame == 0) seen = {seg.frame, seg.timestamp_ns};
  };
  if (seg.flags & (tcp_flags::kSyn | tcp_flags::kFin | tcp_flags::kRst)) {
    note(s.tcp.syn, tcp_flags::kSyn);
    note(s.tcp.fin, tcp_flags::kFin);
    note(s.tcp.rst, tcp_flags::kRst);
  }
  if (seg.flags & tcp_flags::kSyn) {
    s.syn_seen = true;
    if (seg.mss) s.mss = seg.mss;
  }
  s.stats.on_payload(seg.payload.size() + seg.payload_missing);
  s.stats.on_source_mac(seg.source_mac);
  if ((seg.flags & tcp_flags::kRst) && !reset_by_)
    reset_by_ = &s;  // before the stream's end is told
  // The ACK field is the peer's: how far back its retransmissions are compared.
  const bool closes = (seg.flags & (tcp_flags::kFin | tcp_flags::kRst)) != 0;
  if (seg.flags & tcp_flags::kAck) {
    s.peer->reassembler.on_peer_ack(seg.ack);
    s.peer->rx.on_receiver_ack(seg.ack, seg.frame, s.reassembler.next_offset(), closes);
  }
  if (closes) s.rx.on_sender_close(seg.frame);
  // No octet and no SYN, FIN or RST (the acknowledgements, two segments in five of a busy
  // capture): nothing for the reassembler, which would take it as a keep-alive or a control
  // segment and change nothing (its FIN, once reached, ended the stream at once), so it is not
  // given one (issue 44, item 2: what a segment costs).
  if (seg.payload.empty() && seg.payload_missing == 0 &&
      !(seg.flags & (tcp_flags::kSyn | tcp_flags::kFin | tcp_flags::kRst))) {
    return;
  }
  s.arriving = {seg.frame, s.reassembler.next_offset(), seg.payload.size(), seg.payload_crc};
  s.reassembler.on_segment(seg, s);
  s.arriving.payload_crc.reset();  // (nothing else is this segment's payload)
  if (closes) {
    std::vector<Finding> found;
    s.peer->rx.set_sender(direction_of(*s.peer));
    s.peer->rx.on_receiver_close((seg.flags & tcp_flags::kRst) != 0, seg.frame,
                                 s.reassembler.next_seq(), s.reassembler.next_offset(), found);
    report_reactions(s, found);
  }
  if (seg.flags & tcp_flags::kRst) {
    // A reset ends both directions.
    if (!s.peer->ended) on_end(*s.peer, seg.frame, StreamEnd::Rst);
  }
}

// ---- the finding gate

namespace {
// Findings about an event rather than octets the sender sent: they stay at the event's frame.
bool about_an_event(DiagId id) {
  switch (id) {
    case DiagId::TcpRetransmissionMismatch:  // the retransmission, not the original
    case DiagId::StartupNoReply:
    case DiagId::ConnectionClosed:
    case DiagId::ConnectionLostMidFpdu:
    case DiagId::ConnectionLostMidStartup:
    case DiagId::CaptureGap:
    case DiagId::CaptureTruncated:
    case DiagId::CaptureStartupFrameCut:
      return true;
    default:
      return false;
  }
}
}  // namespace

void MpaConnection::report(Sender& s, Finding&& f) {
  if (f.certain_at == 0) {
    f.certain_at = f.frame;
    if (!about_an_event(f.id)) {
      if (const auto at = s.octet_frames.frame_of(f.stream_offset))
        f.frame = std::min(f.frame, *at);
    }
  }
  f.connection = number_;
  if (f.timestamp_ns == 0) f.timestamp_ns = context_.ns;
  context_.frame_places.stamp(f);  // now, while its frame is recent (a held one may not be)
  if (!is_mpa_) {
    if (pending_.size() < kPendingFindingsLimit) pending_.emplace_back(&s, std::move(f));
    return;
  }
  f.direction = direction_of(s);
  const DiagnosticInfo& d = info(f.id);
  if (d.error_code != MpaError::None && f.id != DiagId::ConnectionClosed)
    s.errors_seen.add(d.error_code);
  ++summary_.findings[d.severity];
  context_.sink.on_finding(f);
}

void MpaConnection::report_reactions(Sender& s, std::vector<Finding>& found) {
  for (Finding& f : found) report(s, std::move(f));
  found.clear();
}

void MpaConnection::become_mpa() {
  if (is_mpa_) return;
  is_mpa_ = true;
  number_ = static_cast<std::uint32_t>(context_.mpa_connections++);
  summary_.id = number_;
  summary_.initiator = initiator().endpoint;
  summary_.responder = initiator().peer->endpoint;
  context_.sink.on_connection_start(summary_);
  auto startups = std::move(pending_startup_);
  pending_startup_.clear();
  for (PendingStartup& p : startups) {
    context_.sink.on_startup_frame(number_, direction_of(*p.sender), p.frame, p.frame_number,
                                   p.seq);
  }
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [sender, f] : pending) report(*sender, std::move(f));
}

// ---- the end

// The capture (not the connection: no FIN or RST came) ends inside a startup frame: the
// connection is listed with what was seen of it.
void MpaConnection::startup_frame_cut(Sender& s, std::uint64_t frame) {
  const auto* p = std::get_if<phase::Startup>(&s.phase);
  if (!p || s.ended || p->parser.consumed() == 0) return;
  const bool request = !request_done_;
  if (request) initiator_ = &s;  // roles follow the Request
  become_mpa();
  summary_.startup_seen = true;
  report(s, DiagId::CaptureStartupFrameCut, frame, p->seq, p->offset,
         fmt::format("the capture ends inside the MPA {} at seq {}: {} octets of it seen, at "
                     "least {} more were due",
                     request ? "Request" : "Reply", p->seq.value(), p->parser.consumed(),
                     p->parser.bytes_needed()));
}

// Hints that predict interop failures without being RFC violations.
void MpaConnection::interop_hints(std::uint64_t frame) {
  if (!summary_.request || summary_.request->revision != 2) return;
  Sender& init = initiator();
  Sender& resp = *init.peer;
  const auto& reply = summary_.reply;
  const bool refused = (reply && reply->r()) || (!reply && reset_by_ == &resp);
  if (!refused) return;
  context_.refused.remember(init.endpoint, resp.endpoint, frame);
  if (auto hint = p2p_required_hint(*summary_.request, reply.has_value())) {
    report(resp, DiagId::InteropP2pRequired, frame, resp.reassembler.next_seq(),
           resp.reassembler.next_offset(), std::move(*hint));
  }
}

void MpaConnection::finish(std::uint64_t frame) {
  if (finished_) return;
  finished_ = true;
  for (Sender& s : senders_) s.reassembler.finish(frame, s);
  for (Sender& s : senders_) open_early(s);  // a stream that ended inside its first 16 octets
  for (Sender& s : senders_) {
    if (std::holds_alternative<phase::PrivateDataDue>(s.phase)) decide_private_data(s, frame, true);
  }
  for (Sender& s : senders_) startup_frame_cut(s, frame);
  // (FPDUs after a Reject are read in full operation: before the readers finish.)
  for (Sender& s : senders_) judge_after_reject(s, frame, true);
  for (Sender& s : senders_) {
    if (FpduReader* r = s.reader()) r->finish(frame, s, context_.ns);  // a framing test still open
  }
  for (Sender& s : senders_) {
    if (std::holds_alternative<phase::Probing>(s.phase)) finish_probe(s, true);
  }
  for (Sender& s : senders_) {
    if (std::holds_alternative<phase::Inferring>(s.phase)) try_inference(s, frame, true);
  }
  for (Sender& s : senders_) {
    settle_alignment(s);
    if (s.held_alignment.too_short) settle_too_short(s, nullptr);
  }
  if (request_done_ && !reply_done_) {
    report(initiator(), DiagId::StartupNoReply, frame, request_end_seq_, request_end_offset_,
           "MPA Request seen but no Reply by the end of the capture");
  }
  interop_hints(frame);
  if (!is_mpa_) return;
  summary_.initiator = initiator().endpoint;
  summary_.responder = initiator().peer->endpoint;
  for (const Sender& s : senders_) {
    std::optional<DirectionStats::ReaderCounts> counts;
    if (const FpduReader* r = s.reader())
      counts = {{r->fpdus(), r->ulpdu_bytes(), r->crc_failures()}};
    DirectionSummary& d = summary_.directions[static_cast<int>(direction_of(s))];
    d = s.stats.summary(counts, s.mss, s.peer->mss);
    d.tcp = s.tcp;
  }
  context_.sink.on_connection_end(summary_);
}

// ---- Sender: one-line forwarders to the connection

UlpChecks& Sender::make_ulp() {
  ulp_ = std::make_unique<UlpChecks>();
  return *ulp_;
}

void Sender::on_stream_data(std::uint64_t offset, TcpSeq seq, std::span<const std::uint8_t> data,
                            std::uint64_t frame) {
  octet_frames.note(offset, data.size(), frame);
  connection.on_data(*this,
                     Chunk{offset, seq, data, frame, arriving.crc_of(offset, data.size(), frame)});
}
void Sender::on_stream_gap(std::uint64_t offset, TcpSeq seq, std::uint64_t length, GapCause cause,
                           std::uint64_t frame) {
  connection.on_gap(*this, offset, seq, length, cause, frame);
}
void Sender::on_stream_end(std::uint64_t, TcpSeq, StreamEnd how, std::uint64_t frame) {
  connection.on_end(*this, frame, how);
}
void Sender::on_retransmission_mismatch(std::uint64_t offset, TcpSeq seq, std::uint32_t length,
                                        MismatchEvidence evidence, std::uint64_t frame) {
  rx.on_unknowable();  // which copy the peer took is unknown
  connection.report(
      *this, DiagId::TcpRetransmissionMismatch, frame, seq, offset,
      evidence == MismatchEvidence::Octets
          ? fmt::format("retransmitted octets at seq {} ({} octets) differ from those first sent",
                        seq.value(), length)
          : fmt::format("retransmitted octets among the {} at seq {} differ from those first "
                        "sent (found by their CRC32c digest: the octets first sent are older "
                        "than the last {} kept octet by octet, and not acknowledged)",
                        length, seq.value(), reassembler.options().retransmission_window));
}
void Sender::on_retransmission_check_stopped(std::uint64_t offset, TcpSeq seq,
                                             std::uint64_t frame) {
  const std::size_t reach = reassembler.options().retransmission_reach;
  connection.report(*this, DiagId::TcpRetransmissionCheckStopped, frame, seq, offset,
                    fmt::format("no acknowledgement from the peer (as captured) covers the last "
                                "{} octets sent, the bound of the check: retransmissions of "
                                "octets before seq {} are no longer compared with those first "
                                "sent",
                                reach, seq.value()));
}
void Sender::on_fpdu(const FpduEvent& fpdu) { connection.on_fpdu(*this, fpdu); }
void Sender::on_fpdu_revised(const FpduEvent& revised, bool markers) {
  connection.on_fpdu_revised(*this, revised, markers);
}
void Sender::on_finding(Finding&& finding) {
  rx.on_error(finding.id, finding.stream_offset);
  connection.report(*this, std::move(finding));
}

}  // namespace mpa
