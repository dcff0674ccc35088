// Encapsulations as a capture effect (see encapsulation.h). Each wrapper builds the headers
// the RFC or the vendor's format gives, around the frame or its IP packet.
#include "encapsulation.h"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <utility>

namespace mpa::synth {
namespace {

constexpr std::size_t kEthernetHeader = 14;
constexpr std::uint16_t kIpv4 = 0x0800;
constexpr std::uint16_t kIpv6 = 0x86dd;
constexpr std::uint8_t kUdp = 17;

struct Parts {
  Bytes macs;          // destination and source MAC of the inner frame
  std::uint16_t type;  // its EtherType
  Bytes ip;            // its IP packet
};

Parts split(const Bytes& frame) {
  if (frame.size() < kEthernetHeader) throw std::invalid_argument("frame too short to wrap");
  Parts p;
  p.macs.assign(frame.begin(), frame.begin() + 12);
  p.type = static_cast<std::uint16_t>(frame[12] << 8 | frame[13]);
  p.ip.assign(frame.begin() + kEthernetHeader, frame.end());
  if (p.type != kIpv4 && p.type != kIpv6) {
    throw std::invalid_argument("only untagged IP frames are wrapped");
  }
  return p;
}

// RFC 1071 Internet checksum.
std::uint16_t checksum(const Bytes& data, std::size_t from = 0) {
  std::uint32_t sum = 0;
  for (std::size_t i = from; i < data.size(); i += 2) {
    sum += static_cast<std::uint32_t>(data[i] << 8) | (i + 1 < data.size() ? data[i + 1] : 0u);
  }
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

// The outer Ethernet header of a tunnel endpoint (its own MACs, not the inner frame's).
Bytes outer_ethernet(Dir dir, std::uint16_t type) {
  const std::uint8_t a = dir == Dir::Initiator ? 1 : 2, b = dir == Dir::Initiator ? 2 : 1;
  Bytes out = {0x02, 0x00, 0x5E, 0x99, 0x00, b, 0x02, 0x00, 0x5E, 0x99, 0x00, a};
  put_be16(out, type);
  return out;
}

// The last octet of outer host `host` (1: the Initiator's side, 2: the Responder's) of the
// pair e.outer_host.
std::uint8_t outer_host_octet(const Encapsulation& e, std::uint8_t host) {
  return static_cast<std::uint8_t>(2 * e.outer_host - 2 + host);
}

// Outer Ethernet + IPv4 (198.51.100.2h-1 <-> 198.51.100.2h for outer_host h) carrying `payload` as
// `protocol`.
Bytes outer_ipv4(const Encapsulation& e, Dir dir, std::uint8_t protocol, const Bytes& payload) {
  Bytes out = outer_ethernet(dir, kIpv4);
  const std::size_t ip = out.size();
  const std::uint8_t src = dir == Dir::Initiator ? 1 : 2, dst = dir == Dir::Initiator ? 2 : 1;
  put_u8(out, 0x45);
  put_u8(out, 0);
  put_be16(out, static_cast<std::uint16_t>(20 + payload.size()));
  put_be16(out, 0x1234);
  put_be16(out, 0x4000);  // DF
  put_u8(out, 64);
  put_u8(out, protocol);
  put_be16(out, 0);
  for (std::uint8_t host : {src, dst}) {  // documentation range (RFC 5737 TEST-NET-2)
    put_u8(out, 198);
    put_u8(out, 51);
    put_u8(out, 100);
    put_u8(out, outer_host_octet(e, host));
  }
  set_be16(out, ip + 10, checksum(Bytes(out.begin() + static_cast<long>(ip), out.end())));
  append(out, payload);
  return out;
}

// 2001:db8:5100::<octet> (RFC 3849 documentation prefix).
Bytes ipv6_address(std::uint8_t octet) {
  Bytes out = {0x20, 0x01, 0x0d, 0xb8, 0x51, 0x00};
  out.resize(15, 0);
  out.push_back(octet);
  return out;
}

// RFC 8200 8.1: over IPv6 the UDP checksum is not optional; it covers a pseudo-header of the
// addresses, the upper-layer length and the next header.
void set_udp_checksum_over_ipv6(Bytes& udp, const Bytes& source, const Bytes& destination) {
  Bytes covered = source;
  append(covered, destination);
  put_be32(covered, static_cast<std::uint32_t>(udp.size()));
  put_be32(covered, kUdp);
  append(covered, udp);
  const std::uint16_t sum = checksum(covered);
  set_be16(udp, 6, sum == 0 ? 0xffff : sum);  // 0 would say "none"
}

// Outer Ethernet + IPv6 (2001:db8:5100::2h-1 <-> ::2h for outer_host h) carrying `payload` as
// `protocol`.
Bytes outer_ipv6(const Encapsulation& e, Dir dir, std::uint8_t protocol, Bytes payload) {
  const Bytes source = ipv6_address(outer_host_octet(e, dir == Dir::Initiator ? 1 : 2));
  const Bytes destination = ipv6_address(outer_host_octet(e, dir == Dir::Initiator ? 2 : 1));
  if (protocol == kUdp) set_udp_checksum_over_ipv6(payload, source, destination);
  Bytes out = outer_ethernet(dir, kIpv6);
  put_be32(out, 0x60000000);  // version 6, traffic class 0, flow label 0
  put_be16(out, static_cast<std::uint16_t>(payload.size()));
  put_u8(out, protocol);
  put_u8(out, 64);  // hop limit
  append(out, source);
  append(out, destination);
  append(out, payload);
  return out;
}

// The outer headers of an IP-underlay wrapper: on its underlay, from the side that sends
// (`dir`) or, for a mirror session, always from the mirroring switch to its collector.
Bytes outer_ip(const Encapsulation& e, Dir dir, std::uint8_t protocol, Bytes payload) {
  const Dir sender = e.outer_addresses == OuterAddresses::Mirror ? Dir::Initiator : dir;
  if (e.underlay == Underlay::Ipv6) return outer_ipv6(e, sender, protocol, std::move(payload));
  return outer_ipv4(e, sender, protocol, payload);
}

Bytes udp(std::uint16_t port, const Bytes& payload) {
  Bytes out;
  put_be16(out, 49999);  // a tunnel's source port is a flow hash
  put_be16(out, port);
  put_be16(out, static_cast<std::uint16_t>(8 + payload.size()));
  put_be16(out, 0);  // no checksum (allowed over IPv4, RFC 768; outer_ipv6 sets one)
  append(out, payload);
  return out;
}

// RFC 2784 / RFC 2890.
Bytes gre(const Encapsulation& e, bool key, bool sequence, bool csum, std::uint16_t type,
          const Bytes& payload) {
  Bytes out;
  put_be16(out, static_cast<std::uint16_t>((csum ? 0x8000 : 0) | (key ? 0x2000 : 0) |
                                           (sequence ? 0x1000 : 0)));
  put_be16(out, type);
  if (csum) put_be32(out, 0);
  if (key) put_be32(out, e.id);
  if (sequence) put_be32(out, 7);
  append(out, payload);
  if (csum) set_be16(out, 4, checksum(out));
  return out;
}

Bytes vlan_tags(const Bytes& frame, std::initializer_list<std::uint16_t> tpids, std::uint32_t id) {
  Bytes out(frame.begin(), frame.begin() + 12);
  for (std::uint16_t tpid : tpids) {
    put_be16(out, tpid);
    put_be16(out, static_cast<std::uint16_t>(id++ & 0x0fff));
  }
  out.insert(out.end(), frame.begin() + 12, frame.end());
  return out;
}

Bytes mpls_labels(const Encapsulation& e) {
  Bytes out;
  put_be32(out, (e.id << 12) | 64);                // label, TC 0, S 0, TTL 64
  put_be32(out, ((e.id + 1) << 12) | 0x100 | 64);  // bottom of stack
  return out;
}

Bytes erspan2_header(const Encapsulation& e) {
  Bytes out;
  put_be16(out, 0x1000);  // version 1, VLAN 0
  put_be16(out, static_cast<std::uint16_t>(e.id & 0x3ff));
  put_be32(out, 0);  // reserved, index
  return out;
}

Bytes erspan3_header(const Encapsulation& e) {
  Bytes out;
  put_be16(out, 0x2000);  // version 2, VLAN 0
  put_be16(out, static_cast<std::uint16_t>(e.id & 0x3ff));
  put_be32(out, 0x01020304);                                       // timestamp
  put_be16(out, 0);                                                // SGT
  put_be16(out, e.platform_subheader ? 1 : 0);                     // P 0, FT 0 (Ethernet), ..., O
  if (e.platform_subheader) put_be64(out, 0x0800000000000000ull);  // platform id 1
  return out;
}

Bytes geneve(const Encapsulation& e, std::uint16_t type, const Bytes& payload) {
  Bytes out;
  put_u8(out, static_cast<std::uint8_t>(e.geneve_option_words & 0x3f));
  put_u8(out, 0);
  put_be16(out, type);
  put_be32(out, e.id << 8);
  std::size_t words = e.geneve_option_words;
  while (words > 0) {  // options of class 0x0103 (Linux), as long as allowed (31 words)
    const std::size_t data = std::min<std::size_t>(words - 1, 31);
    put_be16(out, 0x0103);
    put_u8(out, 0x01);
    put_u8(out, static_cast<std::uint8_t>(data));
    for (std::size_t i = 0; i < data; ++i)
      put_be32(out, 0xabcd0000u + static_cast<std::uint32_t>(i));
    words -= data + 1;
  }
  append(out, payload);
  return out;
}

}  // namespace

Bytes encapsulate(const Bytes& frame, const Encapsulation& e, Dir dir) {
  const Parts inner = split(frame);
  switch (e.wrapper) {
    case Wrapper::VlanStack:
      return vlan_tags(frame, {0x9100, 0x88a8, 0x8100}, e.id);
    case Wrapper::QinQ:
      return vlan_tags(frame, {0x88a8, 0x8100}, e.id);
    case Wrapper::Mpls: {
      Bytes out = outer_ethernet(dir, 0x8847);
      append(out, mpls_labels(e));
      append(out, inner.ip);
      return out;
    }
    case Wrapper::MplsPw: {
      Bytes out = outer_ethernet(dir, 0x8847);
      append(out, mpls_labels(e));
      put_be32(out, 0);  // RFC 4385 control word
      append(out, frame);
      return out;
    }
    case Wrapper::Gre:
      return outer_ip(e, dir, 47,
                      gre(e, e.gre_key, e.gre_sequence, e.gre_checksum, inner.type, inner.ip));
    case Wrapper::GreEthernet:
      return outer_ip(e, dir, 47, gre(e, e.gre_key, e.gre_sequence, e.gre_checksum, 0x6558, frame));
    case Wrapper::IpInIp:
      return outer_ip(e, dir, inner.type == kIpv4 ? 4 : 41, inner.ip);
    case Wrapper::ErspanI:
      return outer_ip(e, dir, 47, gre(e, false, false, false, 0x88be, frame));
    case Wrapper::ErspanII: {
      Bytes payload = erspan2_header(e);
      append(payload, frame);
      return outer_ip(e, dir, 47, gre(e, false, true, false, 0x88be, payload));
    }
    case Wrapper::ErspanIII: {
      Bytes payload = erspan3_header(e);
      append(payload, frame);
      return outer_ip(e, dir, 47, gre(e, false, true, false, 0x22eb, payload));
    }
    case Wrapper::Vxlan: {
      Bytes payload = {0x08, 0, 0, 0};  // I flag
      put_be32(payload, e.id << 8);
      append(payload, frame);
      return outer_ip(e, dir, kUdp, udp(e.udp_port ? e.udp_port : 4789, payload));
    }
    case Wrapper::Geneve:
      return outer_ip(e, dir, kUdp, udp(e.udp_port ? e.udp_port : 6081, geneve(e, 0x6558, frame)));
    case Wrapper::GeneveIp:
      return outer_ip(e, dir, kUdp,
                      udp(e.udp_port ? e.udp_port : 6081, geneve(e, inner.type, inner.ip)));
  }
  throw std::invalid_argument("unknown wrapper");
}

bool has_ip_underlay(Wrapper wrapper) {
  switch (wrapper) {
    case Wrapper::VlanStack:
    case Wrapper::QinQ:
    case Wrapper::Mpls:
    case Wrapper::MplsPw:
      return false;
    default:
      return true;
  }
}

std::vector<std::pair<std::string, Encapsulation>> named_encapsulations() {
  auto with = [](Wrapper w, auto&& change) {
    Encapsulation e;
    e.wrapper = w;
    change(e);
    return e;
  };
  auto plain = [](Encapsulation&) {};
  // A mirror session sends both directions' frames from the switch to the collector.
  auto mirrored = [](Encapsulation& e) { e.outer_addresses = OuterAddresses::Mirror; };
  return {
      {"vlan-stack", with(Wrapper::VlanStack, plain)},
      {"qinq", with(Wrapper::QinQ, plain)},
      {"mpls", with(Wrapper::Mpls, plain)},
      {"mpls-pw", with(Wrapper::MplsPw, plain)},
      {"gre", with(Wrapper::Gre, [](Encapsulation& e) { e.gre_key = false; })},
      {"gre-key", with(Wrapper::Gre, plain)},
      {"gre-key-seq-csum",
       with(Wrapper::Gre, [](Encapsulation& e) { e.gre_sequence = e.gre_checksum = true; })},
      {"gre-csum", with(Wrapper::Gre,
                        [](Encapsulation& e) {
                          e.gre_key = false;
                          e.gre_checksum = true;
                        })},
      {"gre-eth", with(Wrapper::GreEthernet, plain)},
      {"ipip", with(Wrapper::IpInIp, plain)},
      {"erspan-i", with(Wrapper::ErspanI, mirrored)},
      {"erspan-ii", with(Wrapper::ErspanII, mirrored)},
      {"erspan-iii", with(Wrapper::ErspanIII, mirrored)},
      {"erspan-iii-sub", with(Wrapper::ErspanIII,
                              [&](Encapsulation& e) {
                                mirrored(e);
                                e.platform_subheader = true;
                              })},
      {"vxlan", with(Wrapper::Vxlan, plain)},
      {"geneve", with(Wrapper::Geneve, plain)},
      {"geneve-options",
       with(Wrapper::Geneve, [](Encapsulation& e) { e.geneve_option_words = 6; })},
      {"geneve-ip", with(Wrapper::GeneveIp, [](Encapsulation& e) { e.geneve_option_words = 2; })},
  };
}

std::optional<Encapsulation> encapsulation_named(std::string_view name) {
  std::optional<std::uint32_t> id;
  if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    try {
      id = static_cast<std::uint32_t>(std::stoul(std::string(name.substr(colon + 1))));
    } catch (const std::exception&) {
      return std::nullopt;
    }
    name = name.substr(0, colon);
  }
  for (auto& [known, e] : named_encapsulations()) {
    if (known != name) continue;
    if (id) e.id = *id;
    return e;
  }
  return std::nullopt;
}

}  // namespace mpa::synth
