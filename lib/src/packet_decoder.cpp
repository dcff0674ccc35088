// Link, IP and TCP header decoding: Ethernet with IEEE 802.1Q/802.1ad tags, Linux SLL/SLL2,
// BSD NULL/LOOP loopback, raw IP; RFC 791 IPv4 (options, fragments), RFC 8200 IPv6
// (extension headers, fragments), RFC 793 TCP (data offset, RFC 879 MSS option).
//
// Every field that carries a length is treated as hostile: each offset is checked against
// both the captured bytes and the length the enclosing header declares before it is read.
// The common path (a well-formed TCP segment) does not allocate: `detail` is only written
// when something is wrong or the packet is a fragment.
#include "mpa/packet_decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "byte_order.h"

namespace mpa {
namespace {

constexpr std::uint16_t kEtherTypeIpv4 = 0x0800;
constexpr std::uint16_t kEtherTypeIpv6 = 0x86dd;
constexpr std::uint16_t kEtherTypeVlan = 0x8100;     // IEEE 802.1Q C-tag
constexpr std::uint16_t kEtherTypeQinQ = 0x88a8;     // IEEE 802.1ad S-tag
constexpr std::uint16_t kEtherTypeQinQOld = 0x9100;  // pre-standard QinQ

constexpr std::size_t kEthernetHeader = 14;
constexpr std::size_t kVlanTag = 4;
constexpr std::size_t kSllHeader = 16;
constexpr std::size_t kSllProtocolOffset = 14;
constexpr std::size_t kSll2Header = 20;
constexpr std::size_t kSll2ProtocolOffset = 0;
constexpr std::size_t kLoopbackHeader = 4;

constexpr std::size_t kIpv4MinHeader = 20;
constexpr std::size_t kIpv6Header = 40;
constexpr std::size_t kTcpMinHeader = 20;

constexpr std::uint8_t kProtoHopByHop = 0;
constexpr std::uint8_t kProtoTcp = 6;
constexpr std::uint8_t kProtoRouting = 43;
constexpr std::uint8_t kProtoFragment = 44;
constexpr std::uint8_t kProtoEsp = 50;
constexpr std::uint8_t kProtoAh = 51;
constexpr std::uint8_t kProtoNoNext = 59;
constexpr std::uint8_t kProtoDestOptions = 60;

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

// Decodes one frame into `result`. Offsets are frame offsets; "captured" is data.size(),
// "wire" the original length (never less than what was captured).
class FrameDecoder {
 public:
  FrameDecoder(std::span<const std::uint8_t> data, std::uint32_t original_length,
               DecodeResult& result)
      : data_(data),
        captured_(data.size()),
        wire_(std::max<std::uint64_t>(original_length, data.size())),
        result_(result) {}

  void decode(std::uint32_t link_type);

 private:
  // What the link layer says the network layer is.
  enum class Network : std::uint8_t { Ipv4, Ipv6, Any };

  void decode_ethertype(std::size_t type_offset, std::size_t payload_offset);
  void decode_ip(std::size_t offset, Network expected);
  void decode_ipv4(std::size_t offset);
  void decode_ipv6(std::size_t offset);
  // `end` is where the IP header says the segment ends; it may lie beyond the captured bytes
  // (snaplen) but never beyond the wire length.
  void decode_tcp(std::size_t offset, std::uint64_t end);
  void parse_tcp_options(std::size_t begin, std::size_t end);
  void fill_ports_if_captured(std::size_t offset);

  void not_tcp() { result_.status = DecodeStatus::NotTcp; }
  template <typename... Args>
  void malformed(fmt::format_string<Args...> format, Args&&... args) {
    result_.status = DecodeStatus::Malformed;
    result_.detail = fmt::format(format, std::forward<Args>(args)...);
  }
  template <typename... Args>
  void fragment(fmt::format_string<Args...> format, Args&&... args) {
    result_.status = DecodeStatus::IpFragment;
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
};

void FrameDecoder::decode(std::uint32_t link_type) {
  switch (link_type) {
    case link_type::kEthernet:
      if (!captured(0, kEthernetHeader)) {
        return malformed("Ethernet header truncated ({} of {} bytes)", captured_, kEthernetHeader);
      }
      return decode_ethertype(12, kEthernetHeader);
    case link_type::kLinuxSll:
      if (!captured(0, kSllHeader)) {
        return malformed("Linux SLL header truncated ({} of {} bytes)", captured_, kSllHeader);
      }
      return decode_ethertype(kSllProtocolOffset, kSllHeader);
    case link_type::kLinuxSll2:
      if (!captured(0, kSll2Header)) {
        return malformed("Linux SLL2 header truncated ({} of {} bytes)", captured_, kSll2Header);
      }
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
      if (is_bsd_inet(be) || is_bsd_inet(le)) return decode_ip(kLoopbackHeader, Network::Ipv4);
      if (is_bsd_inet6(be) || is_bsd_inet6(le)) {
        return decode_ip(kLoopbackHeader, Network::Ipv6);
      }
      return not_tcp();
    }
    case link_type::kRaw:
      return decode_ip(0, Network::Any);
    case link_type::kIpv4:
      return decode_ip(0, Network::Ipv4);
    case link_type::kIpv6:
      return decode_ip(0, Network::Ipv6);
    default:
      result_.status = DecodeStatus::UnsupportedLinkType;
      result_.detail = fmt::format("unsupported link type {}", link_type);
      return;
  }
}

// `type_offset` holds the EtherType; the payload starts at `payload_offset`. A VLAN tag
// occupies the first four payload bytes (TCI, then the inner EtherType), so each tag moves
// both forward: for Ethernet the inner type sits right after the TCI, for SLL2 as well.
void FrameDecoder::decode_ethertype(std::size_t type_offset, std::size_t payload_offset) {
  std::uint16_t type = load_be16(at(type_offset));
  while (type == kEtherTypeVlan || type == kEtherTypeQinQ || type == kEtherTypeQinQOld) {
    if (!captured(payload_offset, kVlanTag)) {
      return malformed("VLAN tag truncated at offset {}", payload_offset);
    }
    type = load_be16(at(payload_offset + 2));
    payload_offset += kVlanTag;
  }
  if (type == kEtherTypeIpv4) return decode_ip(payload_offset, Network::Ipv4);
  if (type == kEtherTypeIpv6) return decode_ip(payload_offset, Network::Ipv6);
  // ARP, LLC (a type below 0x0600 is an 802.3 length), MPLS, ...: not ours.
  return not_tcp();
}

void FrameDecoder::decode_ip(std::size_t offset, Network expected) {
  if (!captured(offset, 1)) return malformed("IP header missing (frame ends at {})", captured_);
  const unsigned version = data_[offset] >> 4;
  if (version == 4 && expected != Network::Ipv6) return decode_ipv4(offset);
  if (version == 6 && expected != Network::Ipv4) return decode_ipv6(offset);
  if (expected == Network::Any) return malformed("IP version {} in a raw IP frame", version);
  return malformed("IP version {} where the link layer announced IPv{}", version,
                   expected == Network::Ipv4 ? 4 : 6);
}

void FrameDecoder::decode_ipv4(std::size_t offset) {
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
  const std::size_t total_length = load_be16(ip + 2);
  if (total_length < header_length) {
    return malformed("IPv4 total length {} below the header length {}", total_length,
                     header_length);
  }
  if (offset + total_length > wire_) {
    return malformed("IPv4 total length {} exceeds the {} bytes of the frame", total_length,
                     wire_ - offset);
  }

  TcpSegment& segment = result_.segment;
  segment.source.address.family = 4;
  segment.destination.address.family = 4;
  std::copy_n(ip + 12, 4, segment.source.address.bytes.begin());
  std::copy_n(ip + 16, 4, segment.destination.address.bytes.begin());

  const std::uint8_t protocol = ip[9];
  const std::uint16_t fragment_field = load_be16(ip + 6);
  const bool more_fragments = (fragment_field & 0x2000) != 0;
  const std::size_t fragment_offset = std::size_t{fragment_field & 0x1fffu} * 8;
  if (more_fragments || fragment_offset != 0) {
    // Fragments of other protocols are none of our business; TCP ones are reported because
    // their bytes cannot be checked without reassembly.
    if (protocol != kProtoTcp) return not_tcp();
    if (fragment_offset == 0) fill_ports_if_captured(offset + header_length);
    return fragment("IPv4 fragment (id 0x{:04x}, offset {}, {} bytes{})", load_be16(ip + 4),
                    fragment_offset, total_length - header_length,
                    more_fragments ? ", more fragments" : ", last fragment");
  }
  if (protocol != kProtoTcp) return not_tcp();
  decode_tcp(offset + header_length, std::uint64_t{offset} + total_length);
}

void FrameDecoder::decode_ipv6(std::size_t offset) {
  if (!captured(offset, kIpv6Header)) {
    return malformed("IPv6 header truncated ({} of {} bytes)", captured_ - offset, kIpv6Header);
  }
  const std::uint8_t* ip = at(offset);
  const std::size_t payload_length = load_be16(ip + 4);
  std::uint8_t next = ip[6];
  const std::uint64_t end = std::uint64_t{offset} + kIpv6Header + payload_length;
  if (end > wire_) {
    return malformed("IPv6 payload length {} exceeds the {} bytes of the frame", payload_length,
                     wire_ - offset - kIpv6Header);
  }
  if (payload_length == 0 && next != kProtoNoNext) {
    // RFC 2675 jumbograms (or offloaded super-segments) carry their length elsewhere.
    return malformed("IPv6 payload length 0 (jumbogram) not supported");
  }

  TcpSegment& segment = result_.segment;
  segment.source.address.family = 6;
  segment.destination.address.family = 6;
  std::copy_n(ip + 8, 16, segment.source.address.bytes.begin());
  std::copy_n(ip + 24, 16, segment.destination.address.bytes.begin());

  std::size_t position = offset + kIpv6Header;
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
        return not_tcp();
      default:  // no next header (59), UDP, ICMPv6, ...
        return not_tcp();
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
      const std::size_t fragment_offset = field & 0xfff8u;
      const bool more_fragments = (field & 1) != 0;
      const std::uint8_t inner = header[0];
      if (fragment_offset != 0 || more_fragments) {
        // The unfragmentable part ends here; what follows is TCP (or headers that may
        // precede it) only in the first fragment, but `inner` names it in every fragment.
        if (inner != kProtoTcp && inner != kProtoDestOptions && inner != kProtoRouting &&
            inner != kProtoAh) {
          return not_tcp();
        }
        if (fragment_offset == 0 && inner == kProtoTcp) fill_ports_if_captured(position + 8);
        return fragment("IPv6 fragment (id 0x{:08x}, offset {}, {} bytes{})", load_be32(header + 4),
                        fragment_offset, end - position - 8,
                        more_fragments ? ", more fragments" : ", last fragment");
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
                          std::uint64_t timestamp_ns) {
  DecodeResult result;
  result.segment.frame = frame;
  result.segment.timestamp_ns = timestamp_ns;
  FrameDecoder(data, original_length, result).decode(link_type);
  return result;
}

}  // namespace mpa
