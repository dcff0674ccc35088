// Wraps TCP segments in real frames: Ethernet (optionally 802.1Q tagged), IPv4 with its
// header checksum or IPv6, and TCP with its checksum over the pseudo header.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "bytes.h"
#include "tcp_packet.h"

namespace mpa::synth {

// Addresses of the two endpoints, indexed by index_of(Dir).
struct LinkConfig {
  bool ipv6 = false;
  std::optional<std::uint16_t> vlan;  // 802.1Q VLAN id
  std::array<std::array<std::uint8_t, 6>, 2> mac{};
  std::array<std::array<std::uint8_t, 4>, 2> ipv4{};
  std::array<std::array<std::uint8_t, 16>, 2> ipv6_addr{};
  std::array<std::uint16_t, 2> port{};
};

// The frame carrying one TCP segment (its fragmentation aside: fragmentation.h). `ip_id` is
// the IPv4 identification (ignored for IPv6); DF is set.
Bytes build_frame(const TcpPacket& packet, const LinkConfig& link, std::uint16_t ip_id);

// The Internet checksum (RFC 1071) of `data`, folded and complemented, seeded with `sum`.
std::uint16_t internet_checksum(std::span<const std::uint8_t> data, std::uint32_t sum = 0);

}  // namespace mpa::synth
