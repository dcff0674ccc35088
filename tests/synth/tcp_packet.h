// One TCP segment of a synthetic conversation, before it is wrapped in IP and Ethernet:
// who sent it, its header fields and payload, and what part of the MPA conversation it is.
#pragma once

#include <cstdint>
#include <optional>

#include "bytes.h"
#include "fragmentation.h"

namespace mpa::synth {

// The MPA roles. The Initiator is also the TCP active opener (client) here.
enum class Dir : std::uint8_t { Initiator = 0, Responder = 1 };
inline Dir peer_of(Dir d) { return d == Dir::Initiator ? Dir::Responder : Dir::Initiator; }
inline std::size_t index_of(Dir d) { return static_cast<std::size_t>(d); }

enum class Phase : std::uint8_t { Handshake, Streaming, Startup, FullOperation, Close };

namespace tcp_flag {
inline constexpr std::uint8_t kFin = 0x01;
inline constexpr std::uint8_t kSyn = 0x02;
inline constexpr std::uint8_t kRst = 0x04;
inline constexpr std::uint8_t kPsh = 0x08;
inline constexpr std::uint8_t kAck = 0x10;
}  // namespace tcp_flag

struct TcpPacket {
  Dir dir = Dir::Initiator;
  std::uint32_t seq = 0;
  std::uint32_t ack = 0;
  std::uint8_t flags = 0;
  std::uint16_t window = 0;
  std::optional<std::uint16_t> mss_option;          // SYN and SYN-ACK only
  std::optional<std::uint8_t> window_scale_option;  // SYN and SYN-ACK only (RFC 7323 2)
  Bytes payload;
  Phase phase = Phase::Handshake;
  std::uint32_t gap_us = 0;                      // time since the previous packet of the capture
  std::optional<IpFragmentation> fragmentation;  // sent as IP fragments
  bool retransmission = false;                   // a copy of an earlier segment
};

}  // namespace mpa::synth
