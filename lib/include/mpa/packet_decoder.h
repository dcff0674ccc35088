// Link, IP and TCP header decoding (IEEE 802.3/802.1Q, Linux SLL/SLL2, BSD loopback,
// RFC 791 IPv4 with options, RFC 8200 IPv6 with extension headers, RFC 793 TCP).
// Pure: bytes in, a TcpSegment (or why not) out.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "mpa/packet.h"

namespace mpa {

// Link types as numbered by tcpdump.org (LINKTYPE_*).
namespace link_type {
inline constexpr std::uint32_t kNull = 0;  // BSD loopback, host byte order family
inline constexpr std::uint32_t kEthernet = 1;
inline constexpr std::uint32_t kRaw = 101;   // raw IPv4/IPv6
inline constexpr std::uint32_t kLoop = 108;  // OpenBSD loopback, network byte order
inline constexpr std::uint32_t kLinuxSll = 113;
inline constexpr std::uint32_t kIpv4 = 228;
inline constexpr std::uint32_t kIpv6 = 229;
inline constexpr std::uint32_t kLinuxSll2 = 276;
}  // namespace link_type

bool is_supported_link_type(std::uint32_t link_type);

enum class DecodeStatus : std::uint8_t {
  Tcp,         // `segment` is filled
  NotTcp,      // a valid frame of something else (ARP, UDP, ...)
  IpFragment,  // an IP fragment (not reassembled); `segment` endpoints filled when known
  Malformed,   // headers inconsistent or cut short; `detail` says how
  UnsupportedLinkType,
};

struct DecodeResult {
  DecodeStatus status = DecodeStatus::NotTcp;
  TcpSegment segment;  // payload points into the frame bytes passed in
  std::string detail;  // for Malformed / IpFragment
};

// `data` holds the captured bytes (caplen), `original_length` the length on the wire.
// Bytes between caplen and original_length that belong to the TCP payload are reported in
// segment.payload_missing.
DecodeResult decode_frame(std::uint32_t link_type, std::span<const std::uint8_t> data,
                          std::uint32_t original_length, std::uint64_t frame,
                          std::uint64_t timestamp_ns);

}  // namespace mpa
