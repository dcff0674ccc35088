// TCP sequence bookkeeping for synthetic conversations (see tcp_session.h).
#include "tcp_session.h"

namespace mpa::synth {

TcpSession::TcpSession(TcpEndpointConfig initiator, TcpEndpointConfig responder) {
  endpoints_[0] = {TcpSeq(initiator.isn), TcpSeq(initiator.isn), initiator.mss,
                   initiator.window_scale};
  endpoints_[1] = {TcpSeq(responder.isn), TcpSeq(responder.isn), responder.mss,
                   responder.window_scale};
}

TcpPacket& TcpSession::emit(Dir from, std::uint8_t flags, Phase phase, std::optional<TcpSeq> ack) {
  TcpPacket p;
  p.dir = from;
  p.seq = state(from).next.value();
  p.flags = flags;
  p.window = kTcpWindow;
  p.phase = phase;
  p.gap_us = kPacketGapUs + pending_gap_us_;
  pending_gap_us_ = 0;
  if (flags & tcp_flag::kAck) {
    if (ack) {
      p.ack = ack->value();  // (what it had then: the rest is still to acknowledge)
    } else {
      p.ack = state(peer_of(from)).next.value();
      state(peer_of(from)).acked_by_peer_up_to = state(peer_of(from)).next;
    }
  }
  packets_.push_back(std::move(p));
  return packets_.back();
}

void TcpSession::handshake() {
  TcpPacket& syn = emit(Dir::Initiator, tcp_flag::kSyn, Phase::Handshake);
  syn.mss_option = mss(Dir::Initiator);
  syn.window_scale_option = state(Dir::Initiator).window_scale;
  state(Dir::Initiator).next += 1;
  pause(100);
  TcpPacket& syn_ack = emit(Dir::Responder, tcp_flag::kSyn | tcp_flag::kAck, Phase::Handshake);
  syn_ack.mss_option = mss(Dir::Responder);
  syn_ack.window_scale_option = state(Dir::Responder).window_scale;
  state(Dir::Responder).next += 1;
  pause(100);
  emit(Dir::Initiator, tcp_flag::kAck, Phase::Handshake);
}

void TcpSession::send_data(Dir from, Bytes payload, Phase phase, std::optional<TcpSeq> ack) {
  const auto length = static_cast<std::uint32_t>(payload.size());
  emit(from, tcp_flag::kAck | tcp_flag::kPsh, phase, ack).payload = std::move(payload);
  state(from).next += length;
}

void TcpSession::acknowledge(Dir from, Phase phase) {
  const EndpointState& peer = state(peer_of(from));
  if (peer.acked_by_peer_up_to == peer.next) return;
  emit(from, tcp_flag::kAck, phase);
}

void TcpSession::close_gracefully(Dir closer) {
  emit(closer, tcp_flag::kFin | tcp_flag::kAck, Phase::Close);
  state(closer).next += 1;
  pause(100);
  emit(peer_of(closer), tcp_flag::kFin | tcp_flag::kAck, Phase::Close);
  state(peer_of(closer)).next += 1;
  pause(100);
  emit(closer, tcp_flag::kAck, Phase::Close);
}

void TcpSession::reset(Dir closer) { emit(closer, tcp_flag::kRst | tcp_flag::kAck, Phase::Close); }

}  // namespace mpa::synth
