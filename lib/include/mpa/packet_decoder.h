// Link, IP and TCP header decoding (IEEE 802.3/802.1Q, Linux SLL/SLL2, BSD loopback,
// RFC 791 IPv4 with options, RFC 8200 IPv6 with extension headers, RFC 793 TCP), and the
// encapsulations Wireshark decodes by default: VLAN stacks, MPLS (RFC 3032, RFC 4448
// Ethernet pseudowires), IP in IP (RFC 2003, RFC 4213), GRE (RFC 2784, RFC 2890), ERSPAN
// types I, II and III, VXLAN (RFC 7348) and Geneve (RFC 8926). IP fragments (RFC 791 2.3,
// RFC 8200 4.5) are described for reassembly (ip_reassembly.h), and a reassembled datagram is
// decoded from its IP payload on (decode_datagram).
// Pure: bytes in, a TcpSegment (or why not) out.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

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
  NotTcp,      // a valid frame of something else (ARP, UDP, ...); `reason` says what
  IpFragment,  // an IP fragment of a datagram that may carry TCP: `fragment` says where it goes
  Malformed,   // headers inconsistent or cut short; `detail` says how
  UnsupportedLinkType,
};

// Why a frame was not decoded to TCP. The last three may hide TCP the checker did not see:
// the report warns of them, so that "0 connections with MPA" never hides traffic.
enum class NotTcpReason : std::uint8_t {
  None,
  OtherEtherType,   // ARP, LLDP, an 802.3 length, ...: no IP in it
  OtherIpProtocol,  // UDP on no tunnel port, ICMP, ESP, ...
  TunnelPayload,    // a tunnel whose payload (or variant) is not decoded
  TooDeep,          // encapsulations nested beyond kMaxTunnelDepth
  LinkType,         // an unsupported link type
};
inline constexpr std::size_t kNotTcpReasons = 6;
std::string_view to_string(NotTcpReason reason);

// Where the UDP tunnels listen (either port of a datagram matches, as in Wireshark).
struct DecodeOptions {
  std::vector<std::uint16_t> vxlan_ports{4789};   // IANA, RFC 7348 5
  std::vector<std::uint16_t> geneve_ports{6081};  // IANA, RFC 8926 3.3
};

// Tunnels deeper than this are given up (hostile input cannot make the decoder loop).
inline constexpr std::size_t kMaxTunnelDepth = 8;

enum class TunnelKind : std::uint8_t { IpInIp, Gre, ErspanI, ErspanII, ErspanIII, Vxlan, Geneve };
std::string_view to_string(TunnelKind kind);

// The tunnels a packet travelled in, outermost first: fixed size, so decoding allocates
// nothing. VLAN tags and MPLS labels are left out: they often differ per direction (each
// hop swaps labels) and Wireshark does not split TCP conversations by them.
struct TunnelLayer {
  TunnelKind kind{};
  bool has_id = false;     // GRE without a key has none
  std::uint32_t id = 0;    // VNI, GRE key or ERSPAN session
  IpAddress outer_source;  // the IP header that carried the tunnel (unset for ERSPAN: its GRE)
  IpAddress outer_destination;
  bool has_outer = false;
};
struct TunnelPath {
  std::array<TunnelLayer, kMaxTunnelDepth> layers{};
  std::size_t depth = 0;
  // A hash of every layer, the same in both directions (outer addresses taken as an
  // unordered pair); 0 for no tunnel.
  std::uint64_t id() const;
};
// "vxlan vni 42 10.0.0.1->10.0.0.2", layers joined by " / ".
std::string to_string(const TunnelPath& path);

// An IP fragment as its header describes it (DecodeStatus::IpFragment). The datagram it
// belongs to is named, as Wireshark keys IP reassembly, by its addresses
// (segment.source/destination.address), the tunnels it came through (segment.source.tunnel),
// `id` and, in IPv4, `protocol`. Its octets are segment.payload (those captured) followed by
// segment.payload_missing octets cut by the snapshot length; for the fragment at offset 0 of a
// TCP datagram, segment.source/destination.port are filled when captured.
struct IpFragmentHeader {
  std::uint32_t id = 0;       // IPv4 identification (16 bits), IPv6 Fragment header's (32 bits)
  std::uint32_t offset = 0;   // where its octets go in the datagram's payload
  std::uint8_t protocol = 0;  // IPv4 protocol; IPv6: the Fragment header's next header
  bool more = false;          // more fragments follow (IPv4 MF, IPv6 M)
};

// IP protocols (IPv6 next headers) whose fragments are reassembled: those that may carry TCP
// (TCP; UDP, IP in IP and GRE tunnels; IPv6 extension headers that may precede TCP). Fragments
// of others count as other IP protocol.
bool reassembles(std::uint8_t protocol);

struct DecodeResult {
  DecodeStatus status = DecodeStatus::NotTcp;
  NotTcpReason reason = NotTcpReason::None;  // for NotTcp and UnsupportedLinkType
  TcpSegment segment;                        // payload points into the frame bytes passed in
  std::string detail;                        // for Malformed
  TunnelPath tunnels;                        // those crossed on the way to where decoding stopped
  IpFragmentHeader fragment;                 // for IpFragment

  // As a new DecodeResult, but for the tunnel layers past tunnels.depth (never looked at, each
  // set as a tunnel is entered): zeroing them cost a third of decoding a plain segment.
  void clear() {
    status = DecodeStatus::NotTcp;
    reason = NotTcpReason::None;
    segment = TcpSegment{};
    detail.clear();
    tunnels.depth = 0;
    fragment = IpFragmentHeader{};
  }
};

// `data` holds the captured bytes (caplen), `original_length` the length on the wire.
// Bytes between caplen and original_length that belong to the TCP payload are reported in
// segment.payload_missing.
DecodeResult decode_frame(std::uint32_t link_type, std::span<const std::uint8_t> data,
                          std::uint32_t original_length, std::uint64_t frame,
                          std::uint64_t timestamp_ns, const DecodeOptions& options);
// The same into `result`, as a new DecodeResult would be (what it held before is replaced):
// a loop over frames reuses one instead of setting up a new one for each.
void decode_frame(DecodeResult& result, std::uint32_t link_type, std::span<const std::uint8_t> data,
                  std::uint32_t original_length, std::uint64_t frame, std::uint64_t timestamp_ns,
                  const DecodeOptions& options);
// The same with the default tunnel ports.
DecodeResult decode_frame(std::uint32_t link_type, std::span<const std::uint8_t> data,
                          std::uint32_t original_length, std::uint64_t frame,
                          std::uint64_t timestamp_ns);

// An IP datagram reassembled from its fragments: the addresses and tunnels its fragments came
// with, what it carries, and its payload (the octets after the IPv4 header or the IPv6
// Fragment header: TCP, a tunnel, or IPv6 extension headers before them).
struct IpDatagram {
  IpAddress source;  // its family says IPv4 or IPv6
  IpAddress destination;
  std::uint8_t protocol = 0;  // IPv4 protocol, IPv6 next header
  TunnelPath tunnels;
  std::span<const std::uint8_t> payload;
};

// Decodes a reassembled datagram's payload as decode_frame decodes what follows an IP header;
// `frame` and `timestamp_ns` are those of the fragment that completed it. The segment's
// payload points into datagram.payload.
DecodeResult decode_datagram(const IpDatagram& datagram, std::uint64_t frame,
                             std::uint64_t timestamp_ns, const DecodeOptions& options);

}  // namespace mpa
