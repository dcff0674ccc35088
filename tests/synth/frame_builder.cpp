// Ethernet / 802.1Q / IPv4 / IPv6 / TCP frame construction (see frame_builder.h).
#include "frame_builder.h"

namespace mpa::synth {
namespace {

constexpr std::uint16_t kEthertypeIpv4 = 0x0800;
constexpr std::uint16_t kEthertypeIpv6 = 0x86DD;
constexpr std::uint16_t kEthertypeVlan = 0x8100;
constexpr std::uint8_t kProtoTcp = 6;
constexpr std::uint8_t kTtl = 64;

std::uint32_t sum_words(std::span<const std::uint8_t> data, std::uint32_t sum) {
  std::size_t i = 0;
  for (; i + 1 < data.size(); i += 2) sum += static_cast<std::uint32_t>(data[i] << 8 | data[i + 1]);
  if (i < data.size()) sum += static_cast<std::uint32_t>(data[i] << 8);
  return sum;
}

std::uint32_t pseudo_header_sum(const LinkConfig& link, Dir dir, std::size_t tcp_length) {
  const std::size_t src = index_of(dir), dst = index_of(peer_of(dir));
  std::uint32_t sum = 0;
  if (link.ipv6) {
    sum = sum_words(link.ipv6_addr[src], sum);
    sum = sum_words(link.ipv6_addr[dst], sum);
  } else {
    sum = sum_words(link.ipv4[src], sum);
    sum = sum_words(link.ipv4[dst], sum);
  }
  return sum + kProtoTcp + static_cast<std::uint32_t>(tcp_length);
}

Bytes tcp_segment(const TcpPacket& p, const LinkConfig& link) {
  const std::size_t header_len = 20 + (p.mss_option ? 4 : 0) + (p.window_scale_option ? 4 : 0);
  Bytes seg;
  put_be16(seg, link.port[index_of(p.dir)]);
  put_be16(seg, link.port[index_of(peer_of(p.dir))]);
  put_be32(seg, p.seq);
  put_be32(seg, p.ack);
  put_u8(seg, static_cast<std::uint8_t>((header_len / 4) << 4));
  put_u8(seg, p.flags);
  put_be16(seg, p.window);
  put_be16(seg, 0);  // checksum, filled below
  put_be16(seg, 0);  // urgent pointer
  if (p.mss_option) {
    put_u8(seg, 2);  // kind: MSS
    put_u8(seg, 4);
    put_be16(seg, *p.mss_option);
  }
  if (p.window_scale_option) {
    put_u8(seg, 1);  // NOP, so that the options end on a 4-octet boundary
    put_u8(seg, 3);  // kind: window scale
    put_u8(seg, 3);
    put_u8(seg, *p.window_scale_option);
  }
  append(seg, p.payload);
  set_be16(seg, 16, internet_checksum(seg, pseudo_header_sum(link, p.dir, seg.size())));
  return seg;
}

void put_ethernet_header(Bytes& out, const LinkConfig& link, Dir dir, std::uint16_t ethertype) {
  append(out, link.mac[index_of(peer_of(dir))]);
  append(out, link.mac[index_of(dir)]);
  if (link.vlan) {
    put_be16(out, kEthertypeVlan);
    put_be16(out, static_cast<std::uint16_t>(*link.vlan & 0x0FFF));  // PCP 0, DEI 0
  }
  put_be16(out, ethertype);
}

// An IPv4 header; `fragment_field` holds the flags and the fragment offset (in 8-octet units).
void put_ipv4_header(Bytes& out, const LinkConfig& link, Dir dir, std::size_t payload_len,
                     std::uint16_t ip_id, std::uint16_t fragment_field) {
  const std::size_t start = out.size();
  put_u8(out, 0x45);
  put_u8(out, 0);
  // A super-segment captured on the sending host before segmentation offload (TSO, GSO,
  // BIG TCP) that does not fit the field carries total length 0 (Wireshark: ip.tso_support).
  const std::size_t total = 20 + payload_len;
  put_be16(out, total > 0xFFFF ? 0 : static_cast<std::uint16_t>(total));
  put_be16(out, ip_id);
  put_be16(out, fragment_field);
  put_u8(out, kTtl);
  put_u8(out, kProtoTcp);
  put_be16(out, 0);
  append(out, link.ipv4[index_of(dir)]);
  append(out, link.ipv4[index_of(peer_of(dir))]);
  const std::span<const std::uint8_t> header(out.data() + start, 20);
  set_be16(out, start + 10, internet_checksum(header));
}

// (A payload beyond 65535 octets goes as a Jumbo Payload, RFC 2675: payload length 0 and a
// hop-by-hop option with the length, as Linux BIG TCP writes it.)
void put_ipv6_header(Bytes& out, const LinkConfig& link, Dir dir, std::size_t payload_len) {
  const bool jumbo = payload_len > 0xFFFF;
  put_be32(out, 0x60000000u);
  put_be16(out, jumbo ? 0 : static_cast<std::uint16_t>(payload_len));
  put_u8(out, jumbo ? 0 : kProtoTcp);  // 0: hop-by-hop options
  put_u8(out, kTtl);
  append(out, link.ipv6_addr[index_of(dir)]);
  append(out, link.ipv6_addr[index_of(peer_of(dir))]);
  if (!jumbo) return;
  put_u8(out, kProtoTcp);  // next header
  put_u8(out, 0);          // 8 octets
  put_u8(out, 0xC2);       // Jumbo Payload
  put_u8(out, 4);
  put_be32(out, static_cast<std::uint32_t>(8 + payload_len));
}

Bytes ipv4_frame(const LinkConfig& link, Dir dir, std::span<const std::uint8_t> ip_payload,
                 std::uint16_t ip_id, std::uint16_t fragment_field) {
  Bytes frame;
  put_ethernet_header(frame, link, dir, kEthertypeIpv4);
  put_ipv4_header(frame, link, dir, ip_payload.size(), ip_id, fragment_field);
  append(frame, ip_payload);
  return frame;
}

}  // namespace

std::uint16_t internet_checksum(std::span<const std::uint8_t> data, std::uint32_t sum) {
  sum = sum_words(data, sum);
  while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

Bytes build_frame(const TcpPacket& packet, const LinkConfig& link, std::uint16_t ip_id) {
  constexpr std::uint16_t kDontFragment = 0x4000;
  const Bytes segment = tcp_segment(packet, link);
  if (link.ipv6) {
    Bytes frame;
    put_ethernet_header(frame, link, packet.dir, kEthertypeIpv6);
    put_ipv6_header(frame, link, packet.dir, segment.size());
    append(frame, segment);
    return frame;
  }
  return ipv4_frame(link, packet.dir, segment, ip_id, kDontFragment);
}

}  // namespace mpa::synth
