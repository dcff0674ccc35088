// Link, IP and TCP header decoding: Ethernet with IEEE 802.1Q/802.1ad tags, Linux SLL/SLL2,
// BSD NULL/LOOP loopback, raw IP; RFC 791 IPv4 (options, fragments), RFC 8200 IPv6
// (extension headers, fragments), RFC 793 TCP (data offset, RFC 879 MSS option); and the
// encapsulations Wireshark decodes by default, one row each in FrameDecoder::kRows. A
// fragment is described for reassembly (ip_reassembly.h); a reassembled datagram is decoded
// by the same rows from its IP payload on.
//
// Every field that carries a length is treated as hostile: each offset is checked against
// both the captured bytes and the length the enclosing header declares before it is read.
// The common path (a well-formed TCP segment, or an IP fragment) does not allocate: `detail`
// is only written when something is wrong.
#include "mpa/packet_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>

#include "decode/byte_order.h"

namespace mpa {
namespace {

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86dd;
constexpr std::uint16_t kEtherTypeVlan = 0x8100;     // IEEE 802.1Q C-tag
constexpr std::uint16_t kEtherTypeQinQ = 0x88a8;     // IEEE 802.1ad S-tag
constexpr std::uint16_t kEtherTypeQinQOld = 0x9100;  // pre-standard QinQ
constexpr std::uint16_t kEtherTypeMpls = 0x8847;     // RFC 3032 unicast
constexpr std::uint16_t kEtherTypeMplsMulticast = 0x8848;
constexpr std::uint16_t kEtherTypeTeb = 0x6558;     // transparent Ethernet bridging (GRE, Geneve)
constexpr std::uint16_t kEtherTypeErspan = 0x88be;  // ERSPAN types I and II
constexpr std::uint16_t kEtherTypeErspan3 = 0x22eb;

constexpr std::size_t kEthernetHeader = 14;
constexpr std::size_t kVlanTag = 4;
constexpr std::size_t kSllHeader = 16;
constexpr std::size_t kSllProtocolOffset = 14;
constexpr std::size_t kSll2Header = 20;
constexpr std::size_t kSll2ProtocolOffset = 0;
// The sender's link-layer address: its length, then up to 8 octets.
constexpr std::size_t kSllAddressLengthOffset = 4;    // 16 bits; the address at 6
constexpr std::size_t kSll2AddressLengthOffset = 11;  // 8 bits; the address at 12
constexpr std::size_t kLoopbackHeader = 4;

constexpr std::size_t kIpv4MinHeader = 20;
constexpr std::size_t kIpv6Header = 40;
constexpr std::size_t kTcpMinHeader = 20;

constexpr std::uint8_t kProtoHopByHop = 0;
constexpr std::uint8_t kProtoIpv4 = 4;  // RFC 2003 IP in IP
constexpr std::uint8_t kProtoTcp = 6;
constexpr std::uint8_t kProtoUdp = 17;
constexpr std::uint8_t kProtoIpv6 = 41;  // RFC 4213 IPv6 in IP
constexpr std::uint8_t kProtoGre = 47;
constexpr std::uint8_t kProtoRouting = 43;
constexpr std::uint8_t kProtoFragment = 44;
constexpr std::uint8_t kProtoEsp = 50;
constexpr std::uint8_t kProtoAh = 51;
constexpr std::uint8_t kProtoNoNext = 59;
constexpr std::uint8_t kProtoDestOptions = 60;

constexpr std::size_t kMplsEntry = 4;
constexpr std::size_t kPwControlWord = 4;  // RFC 4385 3
constexpr std::size_t kGreHeader = 4;
constexpr std::size_t kErspan2Header = 8;
constexpr std::size_t kErspan3Header = 12;
constexpr std::size_t kErspan3PlatformHeader = 8;
constexpr std::size_t kUdpHeader = 8;
constexpr std::size_t kVxlanHeader = 8;
constexpr std::size_t kGeneveHeader = 8;
// Header layers (tunnels, IP, Ethernet, ...) one frame may cross: bounds the recursion even
// where each layer is tiny (Ethernet pseudowire in MPLS in Ethernet in ...).
constexpr std::size_t kMaxLayers = 6 * kMaxTunnelDepth;

constexpr std::uint8_t kTcpOptionEnd = 0;
constexpr std::uint8_t kTcpOptionNop = 1;
constexpr std::uint8_t kTcpOptionMss = 2;

// BSD address families as they appear in NULL/LOOP headers. AF_INET6 differs between the
// BSDs (NetBSD/OpenBSD 24, FreeBSD 28, Darwin 30), and captures travel between systems.
constexpr bool is_bsd_inet(std::uint32_t family) { return family == 2; }
constexpr bool is_bsd_inet6(std::uint32_t family) {
  return family == 24 || family == 28 || family == 30;
}

inline std::uint32_t load_le32(const std::uint8_t* p) {
  return (std::uint32_t{p[3]} << 24) | (std::uint32_t{p[2]} << 16) | (std::uint32_t{p[1]} << 8) |
         std::uint32_t{p[0]};
}

// The address of an IP header (4 or 16 octets at `octets`), whole: an inner header replaces
// every octet an outer one wrote, or an IPv4 address inside an IPv6 underlay would keep octets
// 4-15 of the outer address, and the two directions of a mirrored flow (the same outer
// addresses both ways) would be two flows.
IpAddress ip_address(std::uint8_t family, const std::uint8_t* octets) {
  IpAddress address;
  address.family = family;
  std::copy_n(octets, family == 4 ? 4 : 16, address.bytes.begin());
  return address;
}

// Decodes one frame into `result`. Offsets are frame offsets; "captured" is data.size(),
// "wire" the original length (never less than what was captured).
class FrameDecoder {
 public:
  FrameDecoder(std::span<const std::uint8_t> data, std::uint32_t original_length,
               const DecodeOptions& options, DecodeResult& result)
      : data_(data),
        captured_(data.size()),
        wire_(std::max<std::uint64_t>(original_length, data.size())),
        result_(result),
        options_(options) {}

  void decode(std::uint32_t link_type);
  // A reassembled datagram (the decoder's bytes are its payload; addresses and tunnels are
  // set in the result already): what `protocol` says follows the IP header.
  void decode_datagram(bool ipv6, std::uint8_t protocol);

 private:
  // What the link layer says the network layer is.
  enum class Network : std::uint8_t { Ipv4, Ipv6, Any };

  // One row per encapsulation: what selects it and the member that decodes its header.
  // A handler gets where its header starts and where the enclosing packet ends.
  using Handler = void (FrameDecoder::*)(std::size_t offset, std::uint64_t end);
  enum class Key : std::uint8_t { EtherType, IpProtocol, UdpPort };
  struct Row {
    Key key;
    std::uint16_t value;                               // EtherType or IP protocol number
    std::vector<std::uint16_t> DecodeOptions::*ports;  // UdpPort: the configured ports
    Handler handler;
  };
  static const Row kRows[];

  // The row for (key, value) decodes what follows; none: the frame is not TCP for `reason`.
  void dispatch(Key key, std::uint16_t value, std::size_t offset, std::uint64_t end,
                NotTcpReason reason);
  void decode_ethertype(std::size_t type_offset, std::size_t payload_offset);
  void decode_ip(std::size_t offset, Network expected, std::uint64_t end);
  void decode_ipv4(std::size_t offset, std::uint64_t end);
  void decode_ipv6(std::size_t offset, std::uint64_t end);
  // IPv6 extension headers from `position` (their first one named by `next`) to what they
  // precede; `end` is where the IPv6 payload ends.
  void ipv6_headers(std::uint8_t next, std::size_t position, std::uint64_t end);
  // An IP fragment whose octets are [begin, end) of the frame (end may lie beyond the
  // captured octets).
  void ip_fragment(std::uint32_t id, std::uint32_t offset, std::uint8_t protocol, bool more,
                   std::size_t begin, std::uint64_t end);
  void after_ip(std::uint8_t protocol, std::size_t offset, std::uint64_t end);
  // Row handlers.
  void ethernet(std::size_t offset, std::uint64_t end);
  void vlan(std::size_t offset, std::uint64_t end);
  void mpls(std::size_t offset, std::uint64_t end);
  void ipv4_by_type(std::size_t offset, std::uint64_t end) {
    decode_ip(offset, Network::Ipv4, end);
  }
  void ipv6_by_type(std::size_t offset, std::uint64_t end) {
    decode_ip(offset, Network::Ipv6, end);
  }
  void ipv4_in_ip(std::size_t offset, std::uint64_t end);
  void ipv6_in_ip(std::size_t offset, std::uint64_t end);
  void gre(std::size_t offset, std::uint64_t end);
  void erspan(std::size_t offset, std::uint64_t end);
  void erspan3(std::size_t offset, std::uint64_t end);
  void udp(std::size_t offset, std::uint64_t end);
  void vxlan(std::size_t offset, std::uint64_t end);
  void geneve(std::size_t offset, std::uint64_t end);
  bool looks_like_vxlan(std::size_t offset, std::uint64_t end) const;
  // The link-layer source address at `offset` (6 octets, captured): the last one seen before
  // the IP header is the sending host's.
  void source_mac(std::size_t offset) {
    MacAddress mac;
    std::copy_n(at(offset), mac.bytes.size(), mac.bytes.begin());
    result_.segment.source_mac = mac;
  }
  // Notes a tunnel layer (outer addresses from the IP header decoded last); false when the
  // path is full, the frame then given up.
  bool enter_tunnel(TunnelKind kind, std::optional<std::uint32_t> id, bool has_outer);
  std::optional<std::uint64_t> jumbo_length(std::size_t offset, std::uint64_t end);
  // `end` is where the IP header says the segment ends; it may lie beyond the captured bytes
  // (snaplen) but never beyond the wire length.
  void decode_tcp(std::size_t offset, std::uint64_t end);
  void parse_tcp_options(std::size_t begin, std::size_t end);
  void fill_ports_if_captured(std::size_t offset);

  void not_tcp(NotTcpReason reason) {
    result_.status = DecodeStatus::NotTcp;
    result_.reason = reason;
  }
  template <typename... Args>
  void tunnel_payload(fmt::format_string<Args...> format, Args&&... args) {
    not_tcp(NotTcpReason::TunnelPayload);
    result_.detail = fmt::format(format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void malformed(fmt::format_string<Args...> format, Args&&... args) {
    result_.status = DecodeStatus::Malformed;
    result_.detail = fmt::format(format, std::forward<Args>(args)...);
  }
  const std::uint8_t* at(std::size_t offset) const { return data_.data() + offset; }
  // True if [offset, offset + length) is captured; written so that it cannot overflow.
  bool captured(std::size_t offset, std::size_t length) const {
    return offset <= captured_ && length <= captured_ - offset;
  }

  std::span<const std::uint8_t> data_;
  std::size_t captured_;
  std::uint64_t wire_;
  DecodeResult& result_;
  const DecodeOptions& options_;
  std::size_t layers_ = 0;
  // Where the payload of the last GRE header with its S bit starts: an ERSPAN header there is
  // type II, one anywhere else type I (an outer GRE's S bit says nothing of an inner header).
  std::optional<std::size_t> sequenced_gre_payload_;
};

// Most frames are Ethernet, IPv4, TCP: IPv4 comes first; TCP never reaches the table.
const FrameDecoder::Row FrameDecoder::kRows[] = {
    {Key::EtherType, kEtherTypeIpv4, nullptr, &FrameDecoder::ipv4_by_type},
    {Key::EtherType, kEtherTypeIpv6, nullptr, &FrameDecoder::ipv6_by_type},
    {Key::EtherType, kEtherTypeVlan, nullptr, &FrameDecoder::vlan},
    {Key::EtherType, kEtherTypeQinQ, nullptr, &FrameDecoder::vlan},
    {Key::EtherType, kEtherTypeQinQOld, nullptr, &FrameDecoder::vlan},
    {Key::EtherType, kEtherTypeMpls, nullptr, &FrameDecoder::mpls},
    {Key::EtherType, kEtherTypeMplsMulticast, nullptr, &FrameDecoder::mpls},
    {Key::EtherType, kEtherTypeTeb, nullptr, &FrameDecoder::ethernet},
    {Key::EtherType, kEtherTypeErspan, nullptr, &FrameDecoder::erspan},
    {Key::EtherType, kEtherTypeErspan3, nullptr, &FrameDecoder::erspan3},
    {Key::IpProtocol, kProtoUdp, nullptr, &FrameDecoder::udp},
    {Key::IpProtocol, kProtoGre, nullptr, &FrameDecoder::gre},
    {Key::IpProtocol, kProtoIpv4, nullptr, &FrameDecoder::ipv4_in_ip},
    {Key::IpProtocol, kProtoIpv6, nullptr, &FrameDecoder::ipv6_in_ip},
    {Key::UdpPort, 0, &DecodeOptions::vxlan_ports, &FrameDecoder::vxlan},
    {Key::UdpPort, 0, &DecodeOptions::geneve_ports, &FrameDecoder::geneve},
};

void FrameDecoder::dispatch(Key key, std::uint16_t value, std::size_t offset, std::uint64_t end,
                            NotTcpReason reason) {
  if (++layers_ > kMaxLayers) {
    not_tcp(NotTcpReason::TooDeep);
    result_.detail = fmt::format("more than {} header layers", kMaxLayers);
    return;
  }
  for (const Row& row : kRows) {
    if (row.key == key && row.value == value) return (this->*row.handler)(offset, end);
  }
  not_tcp(reason);
  if (reason == NotTcpReason::TunnelPayload) {
    result_.detail = fmt::format("tunnel payload type 0x{:04x} not decoded", value);
  }
}

bool FrameDecoder::enter_tunnel(TunnelKind kind, std::optional<std::uint32_t> id, bool has_outer) {
  TunnelPath& path = result_.tunnels;
  if (path.depth == kMaxTunnelDepth) {
    not_tcp(NotTcpReason::TooDeep);
    result_.detail = fmt::format("tunnels nested deeper than {}", kMaxTunnelDepth);
    return false;
  }
  TunnelLayer& layer = path.layers[path.depth++];
  layer.kind = kind;
  layer.has_id = id.has_value();
  layer.id = id.value_or(0);
  layer.has_outer = has_outer;
  if (has_outer) {
    layer.outer_source = result_.segment.source.address;
    layer.outer_destination = result_.segment.destination.address;
  }
  return true;
}

void FrameDecoder::decode(std::uint32_t link_type) {
  switch (link_type) {
    case link_type::kEthernet:
      if (!captured(0, kEthernetHeader)) {
        return malformed("Ethernet header truncated ({} of {} bytes)", captured_, kEthernetHeader);
      }
      source_mac(6);
      return decode_ethertype(12, kEthernetHeader);
    case link_type::kLinuxSll:
      if (!captured(0, kSllHeader)) {
        return malformed("Linux SLL header truncated ({} of {} bytes)", captured_, kSllHeader);
      }
      if (load_be16(at(kSllAddressLengthOffset)) == 6) source_mac(kSllAddressLengthOffset + 2);
      return decode_ethertype(kSllProtocolOffset, kSllHeader);
    case link_type::kLinuxSll2:
      if (!captured(0, kSll2Header)) {
        return malformed("Linux SLL2 header truncated ({} of {} bytes)", captured_, kSll2Header);
      }
      if (*at(kSll2AddressLengthOffset) == 6) source_mac(kSll2AddressLengthOffset + 1);
      return decode_ethertype(kSll2ProtocolOffset, kSll2Header);
    case link_type::kNull:
    case link_type::kLoop: {
      if (!captured(0, kLoopbackHeader)) {
        return malformed("loopback header truncated ({} of {} bytes)", captured_, kLoopbackHeader);
      }
      // NULL is in the writer's byte order, which the capture does not record: try both.
      // LOOP is always network order. The accepted values cannot be confused across orders.
      const std::uint32_t be = load_be32(at(0));
      const std::uint32_t le = link_type == link_type::kNull ? load_le32(at(0)) : be;
      if (is_bsd_inet(be) || is_bsd_inet(le)) {
        return decode_ip(kLoopbackHeader, Network::Ipv4, wire_);
      }
      if (is_bsd_inet6(be) || is_bsd_inet6(le)) {
        return decode_ip(kLoopbackHeader, Network::Ipv6, wire_);
      }
      return not_tcp(NotTcpReason::OtherEtherType);
    }
    case link_type::kRaw:
      return decode_ip(0, Network::Any, wire_);
    case link_type::kIpv4:
      return decode_ip(0, Network::Ipv4, wire_);
    case link_type::kIpv6:
      return decode_ip(0, Network::Ipv6, wire_);
    default:
      result_.status = DecodeStatus::UnsupportedLinkType;
      result_.reason = NotTcpReason::LinkType;
      result_.detail = fmt::format("unsupported link type {}", link_type);
      return;
  }
}

// `type_offset` holds the EtherType; the payload starts at `payload_offset` (VLAN tags
// included: for Ethernet and SLL2 alike the tag's inner type sits right after its TCI).
void FrameDecoder::decode_ethertype(std::size_t type_offset, std::size_t payload_offset) {
  dispatch(Key::EtherType, load_be16(at(type_offset)), payload_offset, wire_,
           NotTcpReason::OtherEtherType);
}

// Any number of IEEE 802.1Q / 802.1ad tags (TCI, then the next EtherType), read in a loop.
void FrameDecoder::vlan(std::size_t offset, std::uint64_t end) {
  std::uint16_t type = 0;
  do {
    if (!captured(offset, kVlanTag)) return malformed("VLAN tag truncated at offset {}", offset);
    type = load_be16(at(offset + 2));
    offset += kVlanTag;
  } while (type == kEtherTypeVlan || type == kEtherTypeQinQ || type == kEtherTypeQinQOld);
  dispatch(Key::EtherType, type, offset, end, NotTcpReason::OtherEtherType);
}

// An Ethernet header inside a tunnel (GRE 0x6558, VXLAN, Geneve, ERSPAN, a pseudowire).
void FrameDecoder::ethernet(std::size_t offset, std::uint64_t end) {
  if (!captured(offset, kEthernetHeader)) {
    return malformed("inner Ethernet header truncated at offset {}", offset);
  }
  source_mac(offset + 6);
  dispatch(Key::EtherType, load_be16(at(offset + 12)), offset + kEthernetHeader, end,
           NotTcpReason::OtherEtherType);
}

// RFC 3032 label stack entries up to the one with the bottom-of-stack bit. MPLS does not
// name its payload; like Wireshark, the first nibble does: 4 or 6 is IP, 0 an RFC 4448
// Ethernet pseudowire behind its RFC 4385 control word.
void FrameDecoder::mpls(std::size_t offset, std::uint64_t end) {
  bool bottom = false;
  while (!bottom) {
    if (!captured(offset, kMplsEntry)) {
      return malformed("MPLS label stack truncated at offset {}", offset);
    }
    bottom = (data_[offset + 2] & 0x01) != 0;
    offset += kMplsEntry;
  }
  if (!captured(offset, 1)) return malformed("MPLS payload missing at offset {}", offset);
  switch (data_[offset] >> 4) {
    case 4:
      return decode_ip(offset, Network::Ipv4, end);
    case 6:
      return decode_ip(offset, Network::Ipv6, end);
    case 0:
      return ethernet(offset + kPwControlWord, end);
    default:
      return tunnel_payload("MPLS payload with first nibble {} not decoded", data_[offset] >> 4);
  }
}

void FrameDecoder::ipv4_in_ip(std::size_t offset, std::uint64_t end) {
  if (enter_tunnel(TunnelKind::IpInIp, std::nullopt, true)) decode_ip(offset, Network::Ipv4, end);
}
void FrameDecoder::ipv6_in_ip(std::size_t offset, std::uint64_t end) {
  if (enter_tunnel(TunnelKind::IpInIp, std::nullopt, true)) decode_ip(offset, Network::Ipv6, end);
}

// RFC 2784 with RFC 2890's key and sequence number: flags C (checksum), K, S, version 0.
// Routing (RFC 1701's R bit) and version 1 (PPTP) are not decoded.
void FrameDecoder::gre(std::size_t offset, std::uint64_t end) {
  if (!captured(offset, kGreHeader) || offset + kGreHeader > end) {
    return malformed("GRE header truncated at offset {}", offset);
  }
  const std::uint16_t flags = load_be16(at(offset));
  const bool checksum = (flags & 0x8000) != 0;
  const bool key = (flags & 0x2000) != 0;
  const bool sequence = (flags & 0x1000) != 0;
  if ((flags & 0x4000) != 0 || (flags & 0x7) != 0) {
    return tunnel_payload("GRE version {}{} not decoded", flags & 0x7,
                          (flags & 0x4000) ? " with routing" : "");
  }
  const std::size_t length = kGreHeader + (checksum ? 4 : 0) + (key ? 4 : 0) + (sequence ? 4 : 0);
  if (!captured(offset, length) || offset + length > end) {
    return malformed("GRE header of {} bytes truncated at offset {}", length, offset);
  }
  std::optional<std::uint32_t> id;
  if (key) id = load_be32(at(offset + kGreHeader + (checksum ? 4 : 0)));
  if (!enter_tunnel(TunnelKind::Gre, id, true)) return;
  if (sequence) sequenced_gre_payload_ = offset + length;
  dispatch(Key::EtherType, load_be16(at(offset + 2)), offset + length, end,
           NotTcpReason::TunnelPayload);
}

// ERSPAN type II: GRE 0x88BE with a sequence number, an 8-octet header (version 1, session
// id in the low 10 bits of octets 2-3), then the mirrored Ethernet frame. Type I: the same
// GRE type without a sequence number carries the frame with no header.
void FrameDecoder::erspan(std::size_t offset, std::uint64_t end) {
  if (sequenced_gre_payload_ != offset) {
    if (enter_tunnel(TunnelKind::ErspanI, std::nullopt, false)) ethernet(offset, end);
    return;
  }
  if (!captured(offset, kErspan2Header)) {
    return malformed("ERSPAN type II header truncated at offset {}", offset);
  }
  const std::uint32_t session = load_be16(at(offset + 2)) & 0x3ffu;
  if (enter_tunnel(TunnelKind::ErspanII, session, false)) ethernet(offset + kErspan2Header, end);
}

// ERSPAN type III: GRE 0x22EB, a 12-octet header (session id as in type II; frame type FT
// in bits 14-10 and the O bit in bit 0 of octets 10-11), the 8-octet platform-specific
// subheader when O is set, then the mirrored frame (FT 0: Ethernet).
void FrameDecoder::erspan3(std::size_t offset, std::uint64_t end) {
  if (!captured(offset, kErspan3Header)) {
    return malformed("ERSPAN type III header truncated at offset {}", offset);
  }
  const std::uint32_t session = load_be16(at(offset + 2)) & 0x3ffu;
  const std::uint16_t word = load_be16(at(offset + 10));
  const unsigned frame_type = (word >> 10) & 0x1fu;
  std::size_t length = kErspan3Header;
  if ((word & 1) != 0) {
    length += kErspan3PlatformHeader;
    if (!captured(offset, length)) {
      return malformed("ERSPAN type III platform subheader truncated at offset {}", offset);
    }
  }
  if (frame_type != 0)
    return tunnel_payload("ERSPAN type III frame type {} not decoded", frame_type);
  if (enter_tunnel(TunnelKind::ErspanIII, session, false)) ethernet(offset + length, end);
}

// UDP tunnels by port (either port, as Wireshark's udp.port): VXLAN, Geneve.
void FrameDecoder::udp(std::size_t offset, std::uint64_t end) {
  if (!captured(offset, kUdpHeader) || offset + kUdpHeader > end) {
    return malformed("UDP header truncated at offset {}", offset);
  }
  const std::uint16_t source = load_be16(at(offset));
  const std::uint16_t destination = load_be16(at(offset + 2));
  const std::size_t length = load_be16(at(offset + 4));
  // A length of 0 (jumbogram) or beyond the IP payload leaves the IP bound in force.
  if (length >= kUdpHeader && offset + length <= end) end = offset + length;
  for (const Row& row : kRows) {
    if (row.key != Key::UdpPort) continue;
    const std::vector<std::uint16_t>& ports = options_.*row.ports;
    for (const std::uint16_t port : ports) {
      if (port == destination || port == source) {
        if (++layers_ > kMaxLayers) return not_tcp(NotTcpReason::TooDeep);
        return (this->*row.handler)(offset + kUdpHeader, end);
      }
    }
  }
  if (looks_like_vxlan(offset + kUdpHeader, end)) {
    return tunnel_payload("VXLAN on UDP port {}? (not decoded: --vxlan-port {})", destination,
                          destination);
  }
  not_tcp(NotTcpReason::OtherIpProtocol);
}

// A VXLAN header on a port nobody named (Linux's old default 8472, a vendor's choice): the
// I flag alone, reserved octets zero, then an Ethernet header announcing IP or a VLAN tag.
// Random UDP payloads match by chance once in 2^60; a match is only counted, not decoded.
bool FrameDecoder::looks_like_vxlan(std::size_t offset, std::uint64_t end) const {
  if (!captured(offset, kVxlanHeader + kEthernetHeader) ||
      offset + kVxlanHeader + kEthernetHeader > end) {
    return false;
  }
  const std::uint8_t* h = at(offset);
  if (h[0] != 0x08 || h[1] != 0 || h[2] != 0 || h[3] != 0 || h[7] != 0) return false;
  const std::uint16_t type = load_be16(h + kVxlanHeader + 12);
  return type == kEtherTypeIpv4 || type == kEtherTypeIpv6 || type == kEtherTypeVlan;
}

// RFC 7348 5: flags (I bit 0x08), 24 reserved bits, the 24-bit VNI, 8 reserved bits.
void FrameDecoder::vxlan(std::size_t offset, std::uint64_t end) {
  if (!captured(offset, kVxlanHeader)) {
    return malformed("VXLAN header truncated at offset {}", offset);
  }
  const std::uint32_t vni = load_be32(at(offset + 4)) >> 8;
  if (enter_tunnel(TunnelKind::Vxlan, vni, true)) ethernet(offset + kVxlanHeader, end);
}

// RFC 8926 3.4: version (2 bits, 0), options length in 4-octet units (6 bits), flags,
// protocol type (an EtherType), the 24-bit VNI, then the options.
void FrameDecoder::geneve(std::size_t offset, std::uint64_t end) {
  if (!captured(offset, kGeneveHeader)) {
    return malformed("Geneve header truncated at offset {}", offset);
  }
  const std::uint8_t first = data_[offset];
  if ((first >> 6) != 0) return tunnel_payload("Geneve version {} not decoded", first >> 6);
  const std::size_t length = kGeneveHeader + std::size_t{first & 0x3fu} * 4;
  if (!captured(offset, length)) {
    return malformed("Geneve options ({} bytes) truncated at offset {}", length - kGeneveHeader,
                     offset);
  }
  const std::uint32_t vni = load_be32(at(offset + 4)) >> 8;
  if (!enter_tunnel(TunnelKind::Geneve, vni, true)) return;
  dispatch(Key::EtherType, load_be16(at(offset + 2)), offset + length, end,
           NotTcpReason::TunnelPayload);
}

void FrameDecoder::decode_ip(std::size_t offset, Network expected, std::uint64_t end) {
  if (!captured(offset, 1)) return malformed("IP header missing (frame ends at {})", captured_);
  const unsigned version = data_[offset] >> 4;
  if (version == 4 && expected != Network::Ipv6) return decode_ipv4(offset, end);
  if (version == 6 && expected != Network::Ipv4) return decode_ipv6(offset, end);
  if (expected == Network::Any) return malformed("IP version {} in a raw IP frame", version);
  return malformed("IP version {} where the link layer announced IPv{}", version,
                   expected == Network::Ipv4 ? 4 : 6);
}

void FrameDecoder::decode_ipv4(std::size_t offset, std::uint64_t end) {
  if (!captured(offset, kIpv4MinHeader)) {
    return malformed("IPv4 header truncated ({} of {} bytes)", captured_ - offset, kIpv4MinHeader);
  }
  const std::uint8_t* ip = at(offset);
  const std::size_t header_length = std::size_t{ip[0] & 0x0fu} * 4;
  if (header_length < kIpv4MinHeader) {
    return malformed("IPv4 header length {} below the minimum 20", header_length);
  }
  if (!captured(offset, header_length)) {
    return malformed("IPv4 header length {} exceeds the {} bytes captured", header_length,
                     captured_ - offset);
  }
  std::uint64_t total_length = load_be16(ip + 2);
  // A TSO/GSO super-segment captured on the sending host, before the NIC cut it, says 0:
  // it is as long as the frame (Wireshark's ip.tso_support).
  if (total_length == 0) total_length = end - offset;
  if (total_length < header_length) {
    return malformed("IPv4 total length {} below the header length {}", total_length,
                     header_length);
  }
  if (offset + total_length > end) {
    return malformed("IPv4 total length {} exceeds the {} bytes of the frame", total_length,
                     end - offset);
  }

  result_.segment.source.address = ip_address(4, ip + 12);
  result_.segment.destination.address = ip_address(4, ip + 16);

  const std::uint8_t protocol = ip[9];
  const std::uint16_t fragment_field = load_be16(ip + 6);
  const bool more_fragments = (fragment_field & 0x2000) != 0;
  const std::uint32_t fragment_offset = std::uint32_t{fragment_field & 0x1fffu} * 8;
  if (more_fragments || fragment_offset != 0) {
    // Fragments of protocols that cannot lead to TCP are none of our business.
    if (!reassembles(protocol)) return not_tcp(NotTcpReason::OtherIpProtocol);
    if (fragment_offset == 0 && protocol == kProtoTcp) {
      fill_ports_if_captured(offset + header_length);
    }
    return ip_fragment(load_be16(ip + 4), fragment_offset, protocol, more_fragments,
                       offset + header_length, std::uint64_t{offset} + total_length);
  }
  after_ip(protocol, offset + header_length, std::uint64_t{offset} + total_length);
}

void FrameDecoder::ip_fragment(std::uint32_t id, std::uint32_t offset, std::uint8_t protocol,
                               bool more, std::size_t begin, std::uint64_t end) {
  result_.status = DecodeStatus::IpFragment;
  result_.fragment = {id, offset, protocol, more};
  TcpSegment& segment = result_.segment;
  if (result_.tunnels.depth != 0) {
    segment.source.tunnel = segment.destination.tunnel = result_.tunnels.id();
  }
  // begin <= captured (the IP header was captured); end may exceed it (snaplen).
  const std::size_t captured_end =
      static_cast<std::size_t>(std::min<std::uint64_t>(end, captured_));
  segment.payload = data_.subspan(begin, captured_end - begin);
  segment.payload_missing = static_cast<std::uint32_t>(end - captured_end);
}

void FrameDecoder::decode_datagram(bool ipv6, std::uint8_t protocol) {
  if (ipv6) return ipv6_headers(protocol, 0, wire_);
  after_ip(protocol, 0, wire_);
}

void FrameDecoder::after_ip(std::uint8_t protocol, std::size_t offset, std::uint64_t end) {
  if (protocol == kProtoTcp) return decode_tcp(offset, end);
  dispatch(Key::IpProtocol, protocol, offset, end, NotTcpReason::OtherIpProtocol);
}

// RFC 2675: a payload length of 0 with a hop-by-hop header holding the Jumbo Payload option
// (type 0xC2, 4 octets of length). nullopt when there is none.
std::optional<std::uint64_t> FrameDecoder::jumbo_length(std::size_t offset, std::uint64_t end) {
  if (!captured(offset, 8) || offset + 8 > end) return std::nullopt;
  const std::size_t header_end = offset + (std::size_t{data_[offset + 1]} + 1) * 8;
  if (!captured(offset, header_end - offset)) return std::nullopt;
  std::size_t position = offset + 2;
  while (position < header_end) {
    const std::uint8_t type = data_[position];
    if (type == 0) {  // Pad1
      ++position;
      continue;
    }
    if (position + 2 > header_end) return std::nullopt;
    const std::size_t length = data_[position + 1];
    if (position + 2 + length > header_end) return std::nullopt;
    if (type == 0xc2 && length == 4) return load_be32(at(position + 2));
    position += 2 + length;
  }
  return std::nullopt;
}

void FrameDecoder::decode_ipv6(std::size_t offset, std::uint64_t outer_end) {
  if (!captured(offset, kIpv6Header) || offset + kIpv6Header > outer_end) {
    return malformed("IPv6 header truncated ({} of {} bytes)", captured_ - offset, kIpv6Header);
  }
  const std::uint8_t* ip = at(offset);
  std::uint64_t payload_length = load_be16(ip + 4);
  std::uint8_t next = ip[6];
  if (payload_length == 0 && next != kProtoNoNext) {
    // RFC 2675 jumbogram: the length is in the hop-by-hop Jumbo Payload option. Without
    // one, a GSO super-segment captured on the sending host (Linux BIG TCP drops the
    // option): as long as the frame, as for IPv4.
    const auto jumbo =
        next == kProtoHopByHop ? jumbo_length(offset + kIpv6Header, outer_end) : std::nullopt;
    payload_length = jumbo.value_or(outer_end - offset - kIpv6Header);
  }
  const std::uint64_t end = std::uint64_t{offset} + kIpv6Header + payload_length;
  if (end > outer_end) {
    return malformed("IPv6 payload length {} exceeds the {} bytes of the frame", payload_length,
                     outer_end - offset - kIpv6Header);
  }

  result_.segment.source.address = ip_address(6, ip + 8);
  result_.segment.destination.address = ip_address(6, ip + 24);

  ipv6_headers(next, offset + kIpv6Header, end);
}

void FrameDecoder::ipv6_headers(std::uint8_t next, std::size_t position, std::uint64_t end) {
  for (;;) {
    std::size_t header_length = 0;
    switch (next) {
      case kProtoTcp:
        return decode_tcp(position, end);
      case kProtoHopByHop:
      case kProtoRouting:
      case kProtoDestOptions:
      case kProtoFragment:
      case kProtoAh:
        break;
      case kProtoEsp:  // encrypted: nothing readable behind it
        return not_tcp(NotTcpReason::OtherIpProtocol);
      default:  // no next header (59), UDP and tunnels, ICMPv6, ...
        return after_ip(next, position, end);
    }
    // Every extension header handled here is at least 8 bytes and starts with
    // (next header, length).
    if (position + 8 > end) {
      return malformed("IPv6 extension header {} beyond the payload length", next);
    }
    if (!captured(position, 8)) {
      return malformed("IPv6 extension header {} truncated by the capture", next);
    }
    const std::uint8_t* header = at(position);
    if (next == kProtoFragment) {
      const std::uint16_t field = load_be16(header + 2);
      const std::uint32_t fragment_offset = field & 0xfff8u;
      const bool more_fragments = (field & 1) != 0;
      const std::uint8_t inner = header[0];
      if (fragment_offset != 0 || more_fragments) {
        // The unfragmentable part ends here; `inner` names what the fragmentable part starts
        // with in every fragment (RFC 8200 4.5), though only the first holds it.
        if (!reassembles(inner)) return not_tcp(NotTcpReason::OtherIpProtocol);
        if (fragment_offset == 0 && inner == kProtoTcp) fill_ports_if_captured(position + 8);
        return ip_fragment(load_be32(header + 4), fragment_offset, inner, more_fragments,
                           position + 8, end);
      }
      header_length = 8;  // RFC 6946 atomic fragment: the packet is whole.
    } else if (next == kProtoAh) {
      header_length = (std::size_t{header[1]} + 2) * 4;  // RFC 4302: in 4-octet units, minus 2
    } else {
      header_length = (std::size_t{header[1]} + 1) * 8;  // RFC 8200: 8-octet units, minus 1
    }
    if (position + header_length > end) {
      return malformed("IPv6 extension header {} length {} beyond the payload length", next,
                       header_length);
    }
    if (!captured(position, header_length)) {
      return malformed("IPv6 extension header {} truncated by the capture", next);
    }
    next = header[0];
    position += header_length;
  }
}

void FrameDecoder::fill_ports_if_captured(std::size_t offset) {
  if (!captured(offset, 4)) return;
  result_.segment.source.port = load_be16(at(offset));
  result_.segment.destination.port = load_be16(at(offset + 2));
}

void FrameDecoder::decode_tcp(std::size_t offset, std::uint64_t end) {
  // The IP layer guarantees offset <= end <= wire.
  if (end - offset < kTcpMinHeader) {
    return malformed("TCP segment of {} bytes shorter than the 20-byte header", end - offset);
  }
  if (!captured(offset, kTcpMinHeader)) {
    return malformed("TCP header truncated by the capture ({} of 20 bytes)", captured_ - offset);
  }
  const std::uint8_t* tcp = at(offset);
  const std::size_t header_length = std::size_t{tcp[12]} / 16 * 4;
  if (header_length < kTcpMinHeader) {
    return malformed("TCP data offset {} below the minimum 5", header_length / 4);
  }
  if (offset + header_length > end) {
    return malformed("TCP data offset {} ({} bytes) beyond the {}-byte segment", header_length / 4,
                     header_length, end - offset);
  }
  if (!captured(offset, header_length)) {
    return malformed("TCP options truncated by the capture ({} of {} bytes)", captured_ - offset,
                     header_length);
  }

  TcpSegment& segment = result_.segment;
  if (result_.tunnels.depth != 0) {
    segment.source.tunnel = segment.destination.tunnel = result_.tunnels.id();
  }
  segment.source.port = load_be16(tcp);
  segment.destination.port = load_be16(tcp + 2);
  segment.seq = TcpSeq(load_be32(tcp + 4));
  segment.ack = TcpSeq(load_be32(tcp + 8));
  segment.flags = tcp[13];
  segment.window = load_be16(tcp + 14);
  if (header_length > kTcpMinHeader) {
    parse_tcp_options(offset + kTcpMinHeader, offset + header_length);
  }

  const std::size_t payload_begin = offset + header_length;
  // end may exceed what was captured (snaplen) but is bounded by the wire length.
  const std::size_t payload_end = static_cast<std::size_t>(std::min<std::uint64_t>(end, captured_));
  segment.payload = data_.subspan(payload_begin, payload_end - payload_begin);
  segment.payload_missing = static_cast<std::uint32_t>(end - payload_end);
  result_.status = DecodeStatus::Tcp;
}

// Only the MSS option matters here. A broken option list is not fatal: like receiving
// stacks do (Linux tcp_parse_options), parsing stops at an option whose length is
// impossible and the segment itself is kept.
void FrameDecoder::parse_tcp_options(std::size_t begin, std::size_t end) {
  std::size_t position = begin;
  while (position < end) {
    const std::uint8_t kind = data_[position];
    if (kind == kTcpOptionEnd) return;
    if (kind == kTcpOptionNop) {
      ++position;
      continue;
    }
    if (end - position < 2) return;
    const std::size_t length = data_[position + 1];
    if (length < 2 || length > end - position) return;
    if (kind == kTcpOptionMss && length == 4) {
      result_.segment.mss = load_be16(at(position + 2));
    }
    position += length;
  }
}

}  // namespace

bool reassembles(std::uint8_t protocol) {
  switch (protocol) {
    case kProtoTcp:
    case kProtoUdp:
    case kProtoIpv4:
    case kProtoIpv6:
    case kProtoGre:
    case kProtoHopByHop:
    case kProtoRouting:
    case kProtoDestOptions:
    case kProtoAh:
      return true;
    default:
      return false;
  }
}

bool is_supported_link_type(std::uint32_t link_type) {
  switch (link_type) {
    case link_type::kNull:
    case link_type::kEthernet:
    case link_type::kRaw:
    case link_type::kLoop:
    case link_type::kLinuxSll:
    case link_type::kIpv4:
    case link_type::kIpv6:
    case link_type::kLinuxSll2:
      return true;
    default:
      return false;
  }
}

DecodeResult decode_frame(std::uint32_t link_type, std::span<const std::uint8_t> data,
                          std::uint32_t original_length, std::uint64_t frame,
                          std::uint64_t timestamp_ns, const DecodeOptions& options) {
  DecodeResult result;
  decode_frame(result, link_type, data, original_length, frame, timestamp_ns, options);
  return result;
}

void decode_frame(DecodeResult& result, std::uint32_t link_type, std::span<const std::uint8_t> data,
                  std::uint32_t original_length, std::uint64_t frame, std::uint64_t timestamp_ns,
                  const DecodeOptions& options) {
  result.clear();
  result.segment.frame = frame;
  result.segment.timestamp_ns = timestamp_ns;
  FrameDecoder(data, original_length, options, result).decode(link_type);
}

DecodeResult decode_frame(std::uint32_t link_type, std::span<const std::uint8_t> data,
                          std::uint32_t original_length, std::uint64_t frame,
                          std::uint64_t timestamp_ns) {
  static const DecodeOptions defaults;
  return decode_frame(link_type, data, original_length, frame, timestamp_ns, defaults);
}

DecodeResult decode_datagram(const IpDatagram& datagram, std::uint64_t frame,
                             std::uint64_t timestamp_ns, const DecodeOptions& options) {
  DecodeResult result;
  result.segment.frame = frame;
  result.segment.timestamp_ns = timestamp_ns;
  result.segment.source.address = datagram.source;
  result.segment.destination.address = datagram.destination;
  result.tunnels = datagram.tunnels;
  // Every octet of a reassembled datagram is there: captured and wire lengths agree.
  const auto length = static_cast<std::uint32_t>(
      std::min<std::size_t>(datagram.payload.size(), std::numeric_limits<std::uint32_t>::max()));
  FrameDecoder(datagram.payload.first(length), length, options, result)
      .decode_datagram(datagram.source.family == 6, datagram.protocol);
  return result;
}

std::string_view to_string(NotTcpReason reason) {
  switch (reason) {
    case NotTcpReason::None:
      return "none";
    case NotTcpReason::OtherEtherType:
      return "other EtherType";
    case NotTcpReason::OtherIpProtocol:
      return "other IP protocol";
    case NotTcpReason::TunnelPayload:
      return "tunnel payload not decoded";
    case NotTcpReason::TooDeep:
      return "nested too deep";
    case NotTcpReason::LinkType:
      return "unsupported link type";
  }
  return "?";
}

std::string_view to_string(TunnelKind kind) {
  switch (kind) {
    case TunnelKind::IpInIp:
      return "ip-in-ip";
    case TunnelKind::Gre:
      return "gre";
    case TunnelKind::ErspanI:
      return "erspan-i";
    case TunnelKind::ErspanII:
      return "erspan-ii";
    case TunnelKind::ErspanIII:
      return "erspan-iii";
    case TunnelKind::Vxlan:
      return "vxlan";
    case TunnelKind::Geneve:
      return "geneve";
  }
  return "?";
}

namespace {
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h = (h ^ v) * 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}
std::uint64_t address_hash(const IpAddress& a) {
  std::uint64_t h = a.family;
  for (std::size_t i = 0; i < a.bytes.size(); i += 8) {
    std::uint64_t word = 0;
    for (std::size_t k = 0; k < 8; ++k) word = word << 8 | a.bytes[i + k];
    h = mix(h, word);
  }
  return h;
}
std::string_view id_name(TunnelKind kind) {
  switch (kind) {
    case TunnelKind::Gre:
      return "key";
    case TunnelKind::ErspanI:
    case TunnelKind::ErspanII:
    case TunnelKind::ErspanIII:
      return "session";
    default:
      return "vni";
  }
}
}  // namespace

std::uint64_t TunnelPath::id() const {
  if (depth == 0) return 0;
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (std::size_t i = 0; i < depth; ++i) {
    const TunnelLayer& layer = layers[i];
    h = mix(h, std::uint64_t{static_cast<std::uint8_t>(layer.kind)} << 40 |
                   std::uint64_t{layer.has_id} << 32 | layer.id);
    if (layer.has_outer) {
      // The reverse direction swaps the outer addresses: take them as an unordered pair.
      const std::uint64_t a = address_hash(layer.outer_source);
      const std::uint64_t b = address_hash(layer.outer_destination);
      h = mix(mix(h, std::min(a, b)), std::max(a, b));
    }
  }
  return h == 0 ? 1 : h;
}

std::string to_string(const TunnelPath& path) {
  std::string text;
  for (std::size_t i = 0; i < path.depth; ++i) {
    const TunnelLayer& layer = path.layers[i];
    if (i != 0) text += " / ";
    text += to_string(layer.kind);
    if (layer.has_id) text += fmt::format(" {} {}", id_name(layer.kind), layer.id);
    if (layer.has_outer) {
      text +=
          fmt::format(" {}->{}", to_string(layer.outer_source), to_string(layer.outer_destination));
    }
  }
  return text;
}

}  // namespace mpa
