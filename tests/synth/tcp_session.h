// The TCP side of a synthetic conversation: sequence and acknowledgement numbers of both
// endpoints, the three-way handshake, data segments, pure ACKs and the close. Everything
// sent is delivered in order; capture effects (loss, reordering) are applied afterwards.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "mpa/tcp_seq.h"
#include "tcp_packet.h"

namespace mpa::synth {

struct TcpEndpointConfig {
  std::uint32_t isn = 0;
  std::uint16_t mss = 1460;  // advertised in its SYN
  // The window scale option in its SYN (RFC 7323 2; in effect when both sides send it):
  // the window field, always kTcpWindow, then advertises kTcpWindow << shift.
  std::optional<std::uint8_t> window_scale;
};

class TcpSession {
 public:
  TcpSession(TcpEndpointConfig initiator, TcpEndpointConfig responder);

  // SYN from the Initiator, SYN-ACK, ACK.
  void handshake();
  // One data segment from `from`, acknowledging everything the peer sent so far, or only up
  // to `ack` (a segment sent before the peer's latest octets reached its sender).
  void send_data(Dir from, Bytes payload, Phase phase, std::optional<TcpSeq> ack = std::nullopt);
  // A pure ACK from `from`, if it has anything unacknowledged to acknowledge.
  void acknowledge(Dir from, Phase phase);
  // FIN from `closer`, the peer's FIN, the closer's final ACK.
  void close_gracefully(Dir closer);
  // RST from `closer`.
  void reset(Dir closer);
  // Extra idle time before the next packet.
  void pause(std::uint32_t microseconds) { pending_gap_us_ += microseconds; }

  // The next sequence number `d` will send.
  TcpSeq next_seq(Dir d) const { return state(d).next; }
  std::uint16_t mss(Dir d) const { return state(d).mss; }
  const std::vector<TcpPacket>& packets() const { return packets_; }
  std::vector<TcpPacket> take_packets() { return std::move(packets_); }

 private:
  struct EndpointState {
    TcpSeq next;
    TcpSeq acked_by_peer_up_to;  // what the peer last acknowledged of this side
    std::uint16_t mss;
    std::optional<std::uint8_t> window_scale;
  };
  EndpointState& state(Dir d) { return endpoints_[index_of(d)]; }
  const EndpointState& state(Dir d) const { return endpoints_[index_of(d)]; }
  TcpPacket& emit(Dir from, std::uint8_t flags, Phase phase,
                  std::optional<TcpSeq> ack = std::nullopt);

  std::array<EndpointState, 2> endpoints_;
  std::vector<TcpPacket> packets_;
  std::uint32_t pending_gap_us_ = 0;
};

inline constexpr std::uint16_t kTcpWindow = 64240;
inline constexpr std::uint32_t kPacketGapUs = 40;

}  // namespace mpa::synth
