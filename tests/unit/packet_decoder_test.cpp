// Unit tests for the link/IP/TCP decoder (IEEE 802.1Q, Linux SLL/SLL2, BSD loopback,
// RFC 791 IPv4, RFC 8200 IPv6, RFC 793 TCP). Frames are built by hand, byte by byte.
#include "mpa/packet_decoder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "encapsulation.h"  // tests/synth: the same wrappers the invariant tests use

namespace mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;

void put16(Bytes& out, std::uint16_t value) {
  out.push_back(static_cast<std::uint8_t>(value >> 8));
  out.push_back(static_cast<std::uint8_t>(value));
}
void put32(Bytes& out, std::uint32_t value) {
  put16(out, static_cast<std::uint16_t>(value >> 16));
  put16(out, static_cast<std::uint16_t>(value));
}
void append(Bytes& out, const Bytes& more) { out.insert(out.end(), more.begin(), more.end()); }
Bytes concat(Bytes a, const Bytes& b) {
  append(a, b);
  return a;
}

constexpr std::uint8_t kTcp = 6;
constexpr std::uint8_t kUdp = 17;

struct TcpSpec {
  std::uint16_t source_port = 4000;
  std::uint16_t destination_port = 5000;
  std::uint32_t seq = 0x11223344;
  std::uint32_t ack = 0x55667788;
  std::uint8_t flags = tcp_flags::kAck | tcp_flags::kPsh;
  std::uint16_t window = 0x1234;
  std::optional<std::uint16_t> mss;
  Bytes extra_options;                      // placed before the MSS option
  std::optional<std::uint8_t> data_offset;  // override (in 32-bit words)
};

Bytes tcp(const TcpSpec& spec, const Bytes& payload) {
  Bytes options = spec.extra_options;
  if (spec.mss) {
    options.push_back(2);
    options.push_back(4);
    put16(options, *spec.mss);
  }
  while (options.size() % 4 != 0) options.push_back(0);  // End of option list padding
  Bytes out;
  put16(out, spec.source_port);
  put16(out, spec.destination_port);
  put32(out, spec.seq);
  put32(out, spec.ack);
  const std::uint8_t words =
      spec.data_offset.value_or(static_cast<std::uint8_t>(5 + options.size() / 4));
  out.push_back(static_cast<std::uint8_t>(words << 4));
  out.push_back(spec.flags);
  put16(out, spec.window);
  put16(out, 0);  // checksum (not checked)
  put16(out, 0);  // urgent pointer
  append(out, options);
  append(out, payload);
  return out;
}

Bytes tcp(const Bytes& payload) { return tcp(TcpSpec{}, payload); }

struct Ipv4Spec {
  std::uint8_t protocol = kTcp;
  Bytes options;                          // multiple of 4
  std::uint16_t fragment_field = 0x4000;  // DF
  std::uint16_t id = 0xbeef;
  std::optional<std::uint16_t> total_length;  // override
  std::optional<std::uint8_t> ihl;            // override (words)
  std::uint8_t version = 4;
};

Bytes ipv4(const Ipv4Spec& spec, const Bytes& payload) {
  const std::size_t header = 20 + spec.options.size();
  Bytes out;
  out.push_back(static_cast<std::uint8_t>(spec.version << 4 | spec.ihl.value_or(header / 4)));
  out.push_back(0);
  put16(out, spec.total_length.value_or(static_cast<std::uint16_t>(header + payload.size())));
  put16(out, spec.id);
  put16(out, spec.fragment_field);
  out.push_back(64);
  out.push_back(spec.protocol);
  put16(out, 0);
  append(out, {10, 0, 0, 1});
  append(out, {10, 0, 0, 2});
  append(out, spec.options);
  append(out, payload);
  return out;
}

Bytes ipv4(const Bytes& payload) { return ipv4(Ipv4Spec{}, payload); }

// `payload` starts with any extension headers; `next` names the first of them.
Bytes ipv6(std::uint8_t next, const Bytes& payload,
           std::optional<std::uint16_t> payload_length = std::nullopt) {
  Bytes out;
  put32(out, 0x60000000);
  put16(out, payload_length.value_or(static_cast<std::uint16_t>(payload.size())));
  out.push_back(next);
  out.push_back(64);
  append(out, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  append(out, {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
  append(out, payload);
  return out;
}

// RFC 2675: a hop-by-hop header holding the Jumbo Payload option (PadN, then C2 04 length).
Bytes jumbo_header(std::uint8_t next, std::uint32_t length) {
  Bytes out = {next, 0, 0xc2, 4};
  put32(out, length);
  return out;
}

// Hop-by-hop / routing / destination options header of (units + 1) * 8 bytes, padded with PadN.
Bytes ipv6_options_header(std::uint8_t next, std::uint8_t units) {
  Bytes out{next, units};
  const std::size_t length = (std::size_t{units} + 1) * 8;
  out.push_back(1);  // PadN
  out.push_back(static_cast<std::uint8_t>(length - 4));
  out.resize(length, 0);
  return out;
}

Bytes ipv6_fragment_header(std::uint8_t next, std::uint16_t offset, bool more,
                           std::uint32_t id = 0xcafe) {
  Bytes out{next, 0};
  put16(out, static_cast<std::uint16_t>(offset | (more ? 1 : 0)));
  put32(out, id);
  return out;
}

Bytes ipv6_ah(std::uint8_t next) {
  Bytes out{next, 4, 0, 0};  // (4 + 2) * 4 = 24 bytes: SPI, sequence, 12-byte ICV
  put32(out, 0x100);
  put32(out, 1);
  out.resize(24, 0xaa);
  return out;
}

Bytes ethernet(const Bytes& payload, std::uint16_t type,
               std::initializer_list<std::uint16_t> tags = {}) {
  Bytes out{0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2};
  for (std::uint16_t tag_type : tags) {
    put16(out, tag_type);
    put16(out, 0x0064);  // TCI: VLAN 100
  }
  put16(out, type);
  append(out, payload);
  return out;
}

Bytes sll(const Bytes& payload, std::uint16_t protocol) {
  Bytes out;
  put16(out, 0);  // packet type: to us
  put16(out, 1);  // ARPHRD_ETHER
  put16(out, 6);  // address length
  append(out, {0x02, 0, 0, 0, 0, 1, 0, 0});
  put16(out, protocol);
  append(out, payload);
  return out;
}

Bytes sll2(const Bytes& payload, std::uint16_t protocol) {
  Bytes out;
  put16(out, protocol);
  put16(out, 0);     // reserved
  put32(out, 3);     // interface index
  put16(out, 1);     // ARPHRD_ETHER
  out.push_back(0);  // packet type
  out.push_back(6);  // address length
  append(out, {0x02, 0, 0, 0, 0, 1, 0, 0});
  append(out, payload);
  return out;
}

Bytes loopback(const Bytes& payload, std::uint32_t family, bool little_endian) {
  Bytes out;
  if (little_endian) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(family >> (8 * i)));
  } else {
    put32(out, family);
  }
  append(out, payload);
  return out;
}

const Bytes kPayload{'h', 'e', 'l', 'l', 'o', ',', ' ', 'M', 'P', 'A'};

// Decodes from an exactly-sized heap copy so that sanitizers catch any read past the end.
DecodeResult decode(std::uint32_t link, const Bytes& frame,
                    std::optional<std::uint32_t> original_length = std::nullopt) {
  static std::unique_ptr<std::uint8_t[]> storage;
  storage = std::make_unique<std::uint8_t[]>(frame.size());
  std::copy(frame.begin(), frame.end(), storage.get());
  return decode_frame(link, std::span<const std::uint8_t>(storage.get(), frame.size()),
                      original_length.value_or(static_cast<std::uint32_t>(frame.size())), 7,
                      123456789);
}

Bytes payload_of(const DecodeResult& result) {
  return Bytes(result.segment.payload.begin(), result.segment.payload.end());
}

void expect_tcp_with_payload(const DecodeResult& result, const Bytes& payload = kPayload) {
  ASSERT_EQ(result.status, DecodeStatus::Tcp) << result.detail;
  EXPECT_TRUE(result.detail.empty());
  EXPECT_EQ(payload_of(result), payload);
  EXPECT_EQ(result.segment.payload_missing, 0u);
  EXPECT_EQ(result.segment.source.port, 4000);
  EXPECT_EQ(result.segment.destination.port, 5000);
}

void expect_malformed(const DecodeResult& result, std::string_view mentions) {
  EXPECT_EQ(result.status, DecodeStatus::Malformed);
  EXPECT_FALSE(result.detail.empty());
  EXPECT_NE(result.detail.find(mentions), std::string::npos) << result.detail;
}

// ---- link layers

TEST(PacketDecoder, DecodesTcpOverEthernetWithAllHeaderFields) {
  const auto result = decode(link_type::kEthernet, ethernet(ipv4(tcp(kPayload)), 0x0800));
  expect_tcp_with_payload(result);
  const TcpSegment& segment = result.segment;
  EXPECT_EQ(segment.frame, 7u);
  EXPECT_EQ(segment.timestamp_ns, 123456789u);
  EXPECT_EQ(to_string(segment.source), "10.0.0.1:4000");
  EXPECT_EQ(to_string(segment.destination), "10.0.0.2:5000");
  EXPECT_EQ(segment.seq, TcpSeq(0x11223344));
  EXPECT_EQ(segment.ack, TcpSeq(0x55667788));
  EXPECT_EQ(segment.flags, tcp_flags::kAck | tcp_flags::kPsh);
  EXPECT_EQ(segment.window, 0x1234);
  EXPECT_FALSE(segment.mss.has_value());
}

TEST(PacketDecoder, DecodesTcpInsideOneVlanTag) {
  expect_tcp_with_payload(
      decode(link_type::kEthernet, ethernet(ipv4(tcp(kPayload)), 0x0800, {0x8100})));
}

TEST(PacketDecoder, DecodesTcpInsideDoubleVlanTags) {
  expect_tcp_with_payload(
      decode(link_type::kEthernet, ethernet(ipv6(kTcp, tcp(kPayload)), 0x86dd, {0x88a8, 0x8100})));
}

TEST(PacketDecoder, DecodesTcpInsideAStackOfThreeTagsIncludingOldQinQ) {
  expect_tcp_with_payload(decode(link_type::kEthernet,
                                 ethernet(ipv4(tcp(kPayload)), 0x0800, {0x9100, 0x88a8, 0x8100})));
}

TEST(PacketDecoder, IgnoresEthernetPaddingAfterTheIpTotalLength) {
  Bytes frame = ethernet(ipv4(tcp({})), 0x0800);
  frame.resize(60, 0xee);  // minimum Ethernet frame; padding is not payload
  const auto result = decode(link_type::kEthernet, frame);
  expect_tcp_with_payload(result, {});
}

TEST(PacketDecoder, ReportsArpAndLlcFramesAsNotTcp) {
  EXPECT_EQ(decode(link_type::kEthernet, ethernet(Bytes(28, 0), 0x0806)).status,
            DecodeStatus::NotTcp);
  EXPECT_EQ(decode(link_type::kEthernet, ethernet(Bytes(28, 0), 0x0030)).status,
            DecodeStatus::NotTcp);
}

TEST(PacketDecoder, ReportsUdpAsNotTcp) {
  Ipv4Spec spec;
  spec.protocol = kUdp;
  EXPECT_EQ(decode(link_type::kEthernet, ethernet(ipv4(spec, Bytes(16, 0)), 0x0800)).status,
            DecodeStatus::NotTcp);
  EXPECT_EQ(decode(link_type::kRaw, ipv6(kUdp, Bytes(16, 0))).status, DecodeStatus::NotTcp);
}

TEST(PacketDecoder, DecodesLinuxCookedSllFrames) {
  expect_tcp_with_payload(decode(link_type::kLinuxSll, sll(ipv4(tcp(kPayload)), 0x0800)));
  expect_tcp_with_payload(decode(link_type::kLinuxSll, sll(ipv6(kTcp, tcp(kPayload)), 0x86dd)));
  EXPECT_EQ(decode(link_type::kLinuxSll, sll(Bytes(28, 0), 0x0806)).status, DecodeStatus::NotTcp);
}

TEST(PacketDecoder, DecodesLinuxCookedSll2Frames) {
  expect_tcp_with_payload(decode(link_type::kLinuxSll2, sll2(ipv4(tcp(kPayload)), 0x0800)));
  expect_tcp_with_payload(decode(link_type::kLinuxSll2, sll2(ipv6(kTcp, tcp(kPayload)), 0x86dd)));
}

// The sending host's link-layer address, for hosts files that name implementations by MAC
// prefix: the Ethernet source, the cooked header's address; none for raw IP.
TEST(PacketDecoder, KeepsTheLinkLayerSourceAddress) {
  const MacAddress ethernet_source{{0x02, 0, 0, 0, 0, 2}};
  const MacAddress cooked_source{{0x02, 0, 0, 0, 0, 1}};
  EXPECT_EQ(decode(link_type::kEthernet, ethernet(ipv4(tcp(kPayload)), 0x0800)).segment.source_mac,
            ethernet_source);
  EXPECT_EQ(decode(link_type::kEthernet, ethernet(ipv4(tcp(kPayload)), 0x0800, {0x8100}))
                .segment.source_mac,
            ethernet_source);
  EXPECT_EQ(decode(link_type::kLinuxSll, sll(ipv4(tcp(kPayload)), 0x0800)).segment.source_mac,
            cooked_source);
  EXPECT_EQ(decode(link_type::kLinuxSll2, sll2(ipv4(tcp(kPayload)), 0x0800)).segment.source_mac,
            cooked_source);
  EXPECT_EQ(decode(link_type::kRaw, ipv4(tcp(kPayload))).segment.source_mac, std::nullopt);
  EXPECT_EQ(to_string(cooked_source), "02:00:00:00:00:01");
}

TEST(PacketDecoder, DecodesRawIpByTheVersionNibble) {
  expect_tcp_with_payload(decode(link_type::kRaw, ipv4(tcp(kPayload))));
  const auto v6 = decode(link_type::kRaw, ipv6(kTcp, tcp(kPayload)));
  expect_tcp_with_payload(v6);
  EXPECT_EQ(to_string(v6.segment.source), "[2001:db8::1]:4000");
  EXPECT_EQ(to_string(v6.segment.destination.address), "2001:db8::2");
  Bytes bogus = ipv4(tcp(kPayload));
  bogus[0] = 0x55;
  EXPECT_EQ(decode(link_type::kRaw, bogus).status, DecodeStatus::Malformed);
}

TEST(PacketDecoder, DecodesIpv4AndIpv6LinkTypesAndRejectsTheOtherVersion) {
  expect_tcp_with_payload(decode(link_type::kIpv4, ipv4(tcp(kPayload))));
  expect_tcp_with_payload(decode(link_type::kIpv6, ipv6(kTcp, tcp(kPayload))));
  EXPECT_EQ(decode(link_type::kIpv4, ipv6(kTcp, tcp(kPayload))).status, DecodeStatus::Malformed);
  EXPECT_EQ(decode(link_type::kIpv6, ipv4(tcp(kPayload))).status, DecodeStatus::Malformed);
}

TEST(PacketDecoder, DecodesBsdNullLoopbackInEitherByteOrder) {
  for (bool little_endian : {true, false}) {
    expect_tcp_with_payload(
        decode(link_type::kNull, loopback(ipv4(tcp(kPayload)), 2, little_endian)));
    for (std::uint32_t family : {24u, 28u, 30u}) {
      expect_tcp_with_payload(
          decode(link_type::kNull, loopback(ipv6(kTcp, tcp(kPayload)), family, little_endian)));
    }
  }
  EXPECT_EQ(decode(link_type::kNull, loopback(Bytes(40, 0), 7, true)).status, DecodeStatus::NotTcp);
}

TEST(PacketDecoder, DecodesOpenBsdLoopInNetworkByteOrder) {
  expect_tcp_with_payload(decode(link_type::kLoop, loopback(ipv4(tcp(kPayload)), 2, false)));
  expect_tcp_with_payload(decode(link_type::kLoop, loopback(ipv6(kTcp, tcp(kPayload)), 24, false)));
}

TEST(PacketDecoder, ReportsUnsupportedLinkTypes) {
  const auto result = decode(147, ipv4(tcp(kPayload)));
  EXPECT_EQ(result.status, DecodeStatus::UnsupportedLinkType);
  EXPECT_NE(result.detail.find("147"), std::string::npos);
  EXPECT_FALSE(is_supported_link_type(147));
  for (std::uint32_t link : {0u, 1u, 101u, 108u, 113u, 228u, 229u, 276u}) {
    EXPECT_TRUE(is_supported_link_type(link)) << link;
  }
}

// ---- IP layers

TEST(PacketDecoder, SkipsIpv4Options) {
  Ipv4Spec spec;
  spec.options = {0x94, 0x04, 0, 0, 0x01, 0x01, 0x01, 0x00};  // router alert, NOPs, end
  expect_tcp_with_payload(
      decode(link_type::kEthernet, ethernet(ipv4(spec, tcp(kPayload)), 0x0800)));
  spec.options = Bytes(40, 0x01);  // the largest header: IHL 15
  expect_tcp_with_payload(decode(link_type::kRaw, ipv4(spec, tcp(kPayload))));
}

TEST(PacketDecoder, WalksIpv6HopByHopRoutingAndDestinationOptionsHeaders) {
  const Bytes chain = concat(concat(concat(ipv6_options_header(43, 0), ipv6_options_header(60, 1)),
                                    ipv6_options_header(kTcp, 0)),
                             tcp(kPayload));
  expect_tcp_with_payload(decode(link_type::kEthernet, ethernet(ipv6(0, chain), 0x86dd)));
}

TEST(PacketDecoder, SkipsIpv6AuthenticationHeader) {
  expect_tcp_with_payload(decode(link_type::kRaw, ipv6(51, concat(ipv6_ah(kTcp), tcp(kPayload)))));
}

TEST(PacketDecoder, ReportsEspAndNoNextHeaderAsNotTcp) {
  EXPECT_EQ(decode(link_type::kRaw, ipv6(50, Bytes(64, 0x5a))).status, DecodeStatus::NotTcp);
  EXPECT_EQ(decode(link_type::kRaw, ipv6(59, {})).status, DecodeStatus::NotTcp);
}

TEST(PacketDecoder, DecodesAtomicIpv6FragmentsAsWholePackets) {
  expect_tcp_with_payload(decode(
      link_type::kRaw, ipv6(44, concat(ipv6_fragment_header(kTcp, 0, false), tcp(kPayload)))));
}

TEST(PacketDecoder, DescribesIpv4FragmentsForReassembly) {
  Ipv4Spec first;
  first.fragment_field = 0x2000;  // MF, offset 0
  const Bytes head_frame = ethernet(ipv4(first, tcp(kPayload)), 0x0800);
  const auto head = decode(link_type::kEthernet, head_frame);
  ASSERT_EQ(head.status, DecodeStatus::IpFragment);
  EXPECT_EQ(head.fragment.id, 0xbeefu);
  EXPECT_EQ(head.fragment.offset, 0u);
  EXPECT_EQ(head.fragment.protocol, kTcp);
  EXPECT_TRUE(head.fragment.more);
  EXPECT_TRUE(head.detail.empty()) << "a fragment is no news: nothing to format";
  EXPECT_EQ(to_string(head.segment.source), "10.0.0.1:4000");
  EXPECT_EQ(to_string(head.segment.destination), "10.0.0.2:5000");
  // Its octets: everything after the IPv4 header (the TCP header included).
  EXPECT_EQ(Bytes(head.segment.payload.begin(), head.segment.payload.end()), tcp(kPayload));
  EXPECT_EQ(head.segment.payload_missing, 0u);

  Ipv4Spec last;
  last.fragment_field = 185;  // offset 1480, no MF
  const auto tail = decode(link_type::kRaw, ipv4(last, Bytes(100, 0x42)));
  ASSERT_EQ(tail.status, DecodeStatus::IpFragment);
  EXPECT_EQ(tail.fragment.offset, 1480u);
  EXPECT_FALSE(tail.fragment.more);
  EXPECT_EQ(tail.segment.payload.size(), 100u);
  EXPECT_EQ(to_string(tail.segment.source.address), "10.0.0.1");
  EXPECT_EQ(tail.segment.source.port, 0);

  // Cut by the snapshot length: the octets not captured are counted.
  const Bytes whole = ipv4(last, Bytes(100, 0x42));
  const auto cut = decode_frame(link_type::kRaw, std::span(whole).first(70),
                                static_cast<std::uint32_t>(whole.size()), 1, 0);
  ASSERT_EQ(cut.status, DecodeStatus::IpFragment);
  EXPECT_EQ(cut.segment.payload.size(), 50u);
  EXPECT_EQ(cut.segment.payload_missing, 50u);
}

TEST(PacketDecoder, DescribesIpv6FragmentsForReassembly) {
  const auto head =
      decode(link_type::kRaw,
             ipv6(44, concat(ipv6_fragment_header(kTcp, 0, true, 0x12345678), tcp(kPayload))));
  ASSERT_EQ(head.status, DecodeStatus::IpFragment);
  EXPECT_EQ(head.fragment.id, 0x12345678u);
  EXPECT_EQ(head.fragment.protocol, kTcp);
  EXPECT_TRUE(head.fragment.more);
  EXPECT_EQ(head.segment.source.port, 4000);
  EXPECT_EQ(head.segment.payload.size(), 20 + kPayload.size());

  // Behind a hop-by-hop header (the unfragmentable part).
  const auto tail = decode(
      link_type::kRaw,
      ipv6(0, concat(concat(ipv6_options_header(44, 0), ipv6_fragment_header(kTcp, 1232, false)),
                     Bytes(50, 1))));
  ASSERT_EQ(tail.status, DecodeStatus::IpFragment);
  EXPECT_EQ(tail.fragment.offset, 1232u);
  EXPECT_FALSE(tail.fragment.more);
  EXPECT_EQ(tail.segment.payload.size(), 50u);
  EXPECT_EQ(to_string(tail.segment.destination.address), "2001:db8::2");
}

TEST(PacketDecoder, FragmentsOfProtocolsThatCannotCarryTcpAreNotTcp) {
  Ipv4Spec spec;
  spec.protocol = 1;  // ICMP
  spec.fragment_field = 0x2000;
  EXPECT_EQ(decode(link_type::kRaw, ipv4(spec, Bytes(64, 0))).reason,
            NotTcpReason::OtherIpProtocol);
  EXPECT_EQ(
      decode(link_type::kRaw, ipv6(44, concat(ipv6_fragment_header(58, 0, true), Bytes(64, 0))))
          .reason,
      NotTcpReason::OtherIpProtocol);
  // UDP may be a tunnel (its ports are in the first fragment only): reassembled.
  spec.protocol = kUdp;
  EXPECT_EQ(decode(link_type::kRaw, ipv4(spec, Bytes(64, 0))).status, DecodeStatus::IpFragment);
  EXPECT_TRUE(reassembles(kTcp) && reassembles(kUdp) && reassembles(47) && reassembles(4) &&
              reassembles(41) && reassembles(60));
  EXPECT_FALSE(reassembles(1) || reassembles(50) || reassembles(58) || reassembles(132));
}

TEST(PacketDecoder, DecodesAReassembledDatagramFromItsIpPayloadOn) {
  IpDatagram d;
  d.source.family = d.destination.family = 4;
  d.source.bytes[0] = 10;
  d.destination.bytes[0] = 11;
  d.protocol = kTcp;
  const Bytes payload = tcp(kPayload);
  d.payload = payload;
  const auto v4 = decode_datagram(d, 7, 7000, DecodeOptions{});
  expect_tcp_with_payload(v4);
  EXPECT_EQ(v4.segment.frame, 7u);
  EXPECT_EQ(v4.segment.timestamp_ns, 7000u);
  EXPECT_EQ(to_string(v4.segment.source), "10.0.0.0:4000");
  EXPECT_EQ(v4.segment.source.tunnel, 0u);

  // IPv6: extension headers may start the fragmentable part; a tunnel inside keeps the
  // tunnels the fragments came through.
  IpDatagram v6;
  v6.source.family = v6.destination.family = 6;
  v6.protocol = 60;
  const Bytes options_then_ipip = concat(ipv6_options_header(4, 0), ipv4(tcp(kPayload)));
  v6.payload = options_then_ipip;
  v6.tunnels.depth = 1;
  v6.tunnels.layers[0].kind = TunnelKind::Vxlan;
  v6.tunnels.layers[0].has_id = true;
  v6.tunnels.layers[0].id = 42;
  const auto inner = decode_datagram(v6, 1, 0, DecodeOptions{});
  expect_tcp_with_payload(inner);
  EXPECT_EQ(inner.tunnels.depth, 2u);
  EXPECT_EQ(inner.tunnels.layers[1].kind, TunnelKind::IpInIp);
  EXPECT_EQ(to_string(inner.tunnels.layers[1].outer_source), "::");
  EXPECT_EQ(inner.segment.source.tunnel, inner.tunnels.id());
}

// ---- TCP

TEST(PacketDecoder, ParsesMssAfterOtherOptions) {
  TcpSpec spec;
  spec.flags = tcp_flags::kSyn;
  spec.extra_options = {1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 4, 2};  // NOP NOP TS SACK-perm
  spec.mss = 1460;
  const auto result = decode(link_type::kEthernet, ethernet(ipv4(tcp(spec, {})), 0x0800));
  ASSERT_EQ(result.status, DecodeStatus::Tcp) << result.detail;
  EXPECT_EQ(result.segment.mss, std::optional<std::uint16_t>(1460));
  EXPECT_EQ(result.segment.flags, tcp_flags::kSyn);
  EXPECT_TRUE(result.segment.payload.empty());
}

TEST(PacketDecoder, ParsesMssOnAnySegmentThatCarriesIt) {
  TcpSpec spec;
  spec.mss = 8960;
  const auto result = decode(link_type::kRaw, ipv6(kTcp, tcp(spec, kPayload)));
  expect_tcp_with_payload(result);
  EXPECT_EQ(result.segment.mss, std::optional<std::uint16_t>(8960));
}

TEST(PacketDecoder, StopsAtImpossibleTcpOptionLengthsButKeepsTheSegment) {
  for (const Bytes& options : {Bytes{2, 0, 0, 0}, Bytes{2, 1, 0, 0}, Bytes{8, 40, 0, 0},
                               Bytes{1, 1, 1, 2}, Bytes{2, 3, 5, 0}}) {
    TcpSpec spec;
    spec.extra_options = options;
    const auto result = decode(link_type::kRaw, ipv4(tcp(spec, kPayload)));
    expect_tcp_with_payload(result);
    EXPECT_FALSE(result.segment.mss.has_value());
  }
}

TEST(PacketDecoder, ReportsPayloadCutBySnaplenAsMissing) {
  Bytes big(1000, 0x33);
  const Bytes frame = ethernet(ipv4(tcp(big)), 0x0800);
  const Bytes captured(frame.begin(), frame.begin() + 14 + 20 + 20 + 100);
  const auto result =
      decode(link_type::kEthernet, captured, static_cast<std::uint32_t>(frame.size()));
  ASSERT_EQ(result.status, DecodeStatus::Tcp) << result.detail;
  EXPECT_EQ(result.segment.payload.size(), 100u);
  EXPECT_EQ(result.segment.payload_missing, 900u);

  const Bytes frame6 = ipv6(0, concat(ipv6_options_header(kTcp, 0), tcp(big)));
  const Bytes headers_only(frame6.begin(), frame6.begin() + 40 + 8 + 20);
  const auto result6 =
      decode(link_type::kRaw, headers_only, static_cast<std::uint32_t>(frame6.size()));
  ASSERT_EQ(result6.status, DecodeStatus::Tcp) << result6.detail;
  EXPECT_TRUE(result6.segment.payload.empty());
  EXPECT_EQ(result6.segment.payload_missing, 1000u);
}

// Everything a DecodeResult says, as text, to compare two.
std::string described(const DecodeResult& r) {
  const TcpSegment& g = r.segment;
  std::string mss = g.mss ? std::to_string(*g.mss) : "-";
  std::string mac = g.source_mac ? to_string(*g.source_mac) : "-";
  return fmt::format(
      "{} {} [{}] {}/{} {}->{} t{}/{} seq {} ack {} flags {} win {} mss {} mac {} payload {} "
      "missing {} | tunnels {} {} {:x} | fragment {} {} {} {}",
      static_cast<int>(r.status), static_cast<int>(r.reason), r.detail, g.frame, g.timestamp_ns,
      to_string(g.source), to_string(g.destination), g.source.tunnel, g.destination.tunnel,
      g.seq.value(), g.ack.value(), g.flags, g.window, mss, mac, fmt::join(payload_of(r), ","),
      g.payload_missing, r.tunnels.depth, to_string(r.tunnels), r.tunnels.id(), r.fragment.id,
      r.fragment.offset, r.fragment.protocol, r.fragment.more);
}

// Decoding into a DecodeResult used before (the capture pipeline's reading thread reuses one)
// gives what decoding into a new one gives, whatever the frame before it held: a tunnel, a
// fragment, an option, a malformed header, a frame that is not TCP.
TEST(PacketDecoder, DecodingIntoAResultUsedBeforeGivesWhatANewOneGives) {
  std::vector<std::pair<std::uint32_t, Bytes>> frames;
  TcpSpec syn;
  syn.flags = tcp_flags::kSyn;
  syn.mss = 1460;
  frames.emplace_back(link_type::kEthernet, ethernet(ipv4(tcp(syn, {})), 0x0800));
  Ipv4Spec fragment;
  fragment.fragment_field = 0x2000;
  frames.emplace_back(link_type::kEthernet, ethernet(ipv4(fragment, tcp(kPayload)), 0x0800));
  for (const auto& [name, e] : synth::named_encapsulations()) {
    frames.emplace_back(
        link_type::kEthernet,
        synth::encapsulate(ethernet(ipv4(tcp(kPayload)), 0x0800), e, synth::Dir::Responder));
  }
  const Bytes plain = ethernet(ipv4(tcp(kPayload)), 0x0800);
  frames.emplace_back(link_type::kEthernet, Bytes(plain.begin(), plain.begin() + 30));
  frames.emplace_back(link_type::kEthernet, ethernet(ipv4(tcp(kPayload)), 0x0806));
  frames.emplace_back(link_type::kRaw, ipv6(kTcp, tcp(kPayload)));
  frames.emplace_back(9999, plain);
  const std::size_t count = frames.size();
  for (std::size_t i = 0; i < count; ++i) {  // each kind after each other kind
    frames.push_back(frames[i]);
    frames.push_back(frames[(i * 7 + 3) % count]);
  }
  DecodeResult reused;
  const DecodeOptions options;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const auto& [link, bytes] = frames[i];
    const auto original = static_cast<std::uint32_t>(bytes.size() + i % 2);
    decode_frame(reused, link, bytes, original, i + 1, 1000 * i, options);
    EXPECT_EQ(described(reused),
              described(decode_frame(link, bytes, original, i + 1, 1000 * i, options)))
        << "frame " << i;
  }
}

// ---- encapsulations (every layout built by tests/synth/encapsulation.cpp)

DecodeResult decode_with(const Bytes& frame, const DecodeOptions& options) {
  return decode_frame(link_type::kEthernet, frame, static_cast<std::uint32_t>(frame.size()), 7, 1,
                      options);
}

Bytes wrapped(const synth::Encapsulation& e, synth::Dir dir = synth::Dir::Initiator,
              bool v6 = false) {
  const Bytes inner =
      v6 ? ethernet(ipv6(kTcp, tcp(kPayload)), 0x86dd) : ethernet(ipv4(tcp(kPayload)), 0x0800);
  return synth::encapsulate(inner, e, dir);
}

bool is_tunnel(synth::Wrapper w) {
  return w != synth::Wrapper::VlanStack && w != synth::Wrapper::QinQ && w != synth::Wrapper::Mpls &&
         w != synth::Wrapper::MplsPw;
}

TEST(PacketDecoder, DecodesTcpInEveryEncapsulationOverIpv4AndIpv6) {
  for (const auto& [name, e] : synth::named_encapsulations()) {
    for (const bool v6 : {false, true}) {
      SCOPED_TRACE(name + (v6 ? " IPv6" : " IPv4"));
      const DecodeResult result =
          decode(link_type::kEthernet, wrapped(e, synth::Dir::Initiator, v6));
      expect_tcp_with_payload(result);
      EXPECT_EQ(result.segment.source.address.family, v6 ? 6 : 4);
      EXPECT_EQ(result.segment.source.tunnel != 0, is_tunnel(e.wrapper));
      EXPECT_EQ(result.segment.source.tunnel, result.segment.destination.tunnel);
    }
  }
}

// An inner address is the inner header's alone, whatever the outer one was: an IPv4 address
// inside an IPv6 underlay once kept octets 4-15 of the outer address.
TEST(PacketDecoder, AnInnerAddressIsWholeOverEitherUnderlay) {
  const Bytes plain_frame = ethernet(ipv4(tcp(kPayload)), 0x0800);
  const DecodeResult plain = decode(link_type::kEthernet, plain_frame);
  for (auto [name, e] : synth::named_encapsulations()) {
    if (!synth::has_ip_underlay(e.wrapper)) continue;
    e.underlay = synth::Underlay::Ipv6;
    for (const auto outer : {synth::OuterAddresses::PerDirection, synth::OuterAddresses::Mirror}) {
      e.outer_addresses = outer;
      for (const synth::Dir dir : {synth::Dir::Initiator, synth::Dir::Responder}) {
        SCOPED_TRACE(name + (outer == synth::OuterAddresses::Mirror ? " mirrored" : " swapped") +
                     (dir == synth::Dir::Initiator ? " there" : " back"));
        const DecodeResult result =
            decode(link_type::kEthernet, synth::encapsulate(plain_frame, e, dir));
        expect_tcp_with_payload(result);
        EXPECT_EQ(result.segment.source.address, plain.segment.source.address);
        EXPECT_EQ(result.segment.destination.address, plain.segment.destination.address);
        EXPECT_NE(result.segment.source.tunnel, 0u);
      }
    }
  }
}

// GRE's S bit makes ERSPAN type II of the header right behind it only: an ERSPAN EtherType
// met further in (here in the Ethernet frame GRE carries) is type I, with no header.
TEST(PacketDecoder, AnOuterGreSequenceNumberDoesNotMakeAnInnerErspanTypeII) {
  const Bytes mirrored = ethernet(ipv4(tcp(kPayload)), 0x0800);
  Bytes gre = {0x10, 0x00, 0x65, 0x58, 0, 0, 0, 7};  // S bit, 0x6558, sequence number 7
  append(gre, ethernet(mirrored, 0x88be));
  Ipv4Spec outer;
  outer.protocol = 47;
  const DecodeResult result = decode(link_type::kEthernet, ethernet(ipv4(outer, gre), 0x0800));
  expect_tcp_with_payload(result);
  EXPECT_EQ(to_string(result.tunnels), "gre 10.0.0.1->10.0.0.2 / erspan-i");
}

TEST(PacketDecoder, NamesTheTunnelTheSameInBothDirectionsAndApartByItsId) {
  for (const auto& [name, e] : synth::named_encapsulations()) {
    if (!is_tunnel(e.wrapper)) continue;
    SCOPED_TRACE(name);
    const auto there = decode(link_type::kEthernet, wrapped(e, synth::Dir::Initiator));
    const auto back = decode(link_type::kEthernet, wrapped(e, synth::Dir::Responder));
    EXPECT_EQ(there.segment.source.tunnel, back.segment.source.tunnel);
    synth::Encapsulation other = e;
    other.outer_host = 7;  // another pair of tunnel endpoints
    EXPECT_NE(decode(link_type::kEthernet, wrapped(other)).segment.source.tunnel,
              there.segment.source.tunnel);
    const bool has_id = e.wrapper != synth::Wrapper::IpInIp &&
                        e.wrapper != synth::Wrapper::ErspanI &&
                        !(e.wrapper == synth::Wrapper::Gre && !e.gre_key);
    if (!has_id) continue;
    other = e;
    other.id = 43;
    EXPECT_NE(decode(link_type::kEthernet, wrapped(other)).segment.source.tunnel,
              there.segment.source.tunnel);
  }
}

TEST(PacketDecoder, DescribesTheTunnelPathOutermostFirst) {
  const auto vxlan = *synth::encapsulation_named("vxlan:42");
  EXPECT_EQ(to_string(decode(link_type::kEthernet, wrapped(vxlan)).tunnels),
            "vxlan vni 42 198.51.100.1->198.51.100.2");
  const auto erspan = *synth::encapsulation_named("erspan-ii:5");
  EXPECT_EQ(to_string(decode(link_type::kEthernet, wrapped(erspan)).tunnels),
            "gre 198.51.100.1->198.51.100.2 / erspan-ii session 5");
  const auto gre = *synth::encapsulation_named("gre-key-seq-csum:9");
  EXPECT_EQ(to_string(decode(link_type::kEthernet, wrapped(gre)).tunnels),
            "gre key 9 198.51.100.1->198.51.100.2");
}

// Where each header sits in the wrapped frame, and what a capture cut inside it is called.
TEST(PacketDecoder, RejectsEncapsulationHeadersCutByTheCaptureAsMalformed) {
  struct Cut {
    const char* wrapper;
    std::size_t at;
    const char* mentions;
  };
  // Outer Ethernet 14 + IPv4 20: GRE or UDP at 34; VXLAN/Geneve at 42; GRE with a sequence
  // number is 8 octets, so ERSPAN II/III headers start at 42.
  const Cut cuts[] = {
      {"mpls", 16, "MPLS label stack truncated"},
      {"mpls", 22, "MPLS payload missing"},
      {"mpls-pw", 30, "inner Ethernet header truncated"},
      {"qinq", 15, "VLAN tag truncated"},
      {"gre", 36, "GRE header truncated"},
      {"gre-key-seq-csum", 44, "GRE header of 16 bytes"},
      {"vxlan", 46, "VXLAN header truncated"},
      {"vxlan", 55, "inner Ethernet header truncated"},
      {"geneve", 45, "Geneve header truncated"},
      {"geneve-options", 54, "Geneve options"},
      {"erspan-ii", 45, "ERSPAN type II header truncated"},
      {"erspan-iii", 50, "ERSPAN type III header truncated"},
      {"erspan-iii-sub", 58, "platform subheader truncated"},
  };
  for (const Cut& cut : cuts) {
    SCOPED_TRACE(cut.wrapper);
    const Bytes frame = wrapped(*synth::encapsulation_named(cut.wrapper));
    const Bytes captured(frame.begin(), frame.begin() + static_cast<long>(cut.at));
    expect_malformed(
        decode(link_type::kEthernet, captured, static_cast<std::uint32_t>(frame.size())),
        cut.mentions);
  }
}

TEST(PacketDecoder, NeverMistakesATruncatedEncapsulationForTcp) {
  for (const auto& [name, e] : synth::named_encapsulations()) {
    SCOPED_TRACE(name);
    const Bytes frame = wrapped(e);
    const std::size_t headers = frame.size() - kPayload.size() - 20;  // up to the inner TCP
    for (std::size_t cut = 0; cut < headers; ++cut) {
      const Bytes captured(frame.begin(), frame.begin() + static_cast<long>(cut));
      const auto result =
          decode(link_type::kEthernet, captured, static_cast<std::uint32_t>(frame.size()));
      EXPECT_NE(result.status, DecodeStatus::Tcp) << cut;
      if (result.status == DecodeStatus::Malformed) {
        EXPECT_FALSE(result.detail.empty()) << cut;
      }
    }
  }
}

TEST(PacketDecoder, GivesUpTunnelsNestedDeeperThanTheBound) {
  Bytes packet = ipv4(tcp(kPayload));
  Ipv4Spec outer;
  outer.protocol = 4;  // IP in IP
  for (std::size_t depth = 1; depth <= kMaxTunnelDepth; ++depth) packet = ipv4(outer, packet);
  expect_tcp_with_payload(decode(link_type::kRaw, packet));
  EXPECT_EQ(decode(link_type::kRaw, packet).tunnels.depth, kMaxTunnelDepth);
  const auto too_deep = decode(link_type::kRaw, ipv4(outer, packet));
  EXPECT_EQ(too_deep.status, DecodeStatus::NotTcp);
  EXPECT_EQ(too_deep.reason, NotTcpReason::TooDeep);
  EXPECT_NE(too_deep.detail.find("deeper than 8"), std::string::npos) << too_deep.detail;
}

TEST(PacketDecoder, GivesUpEthernetPseudowiresNestedWithoutEnd) {
  // MPLS pseudowire in Ethernet in MPLS ...: no tunnel layer, but a bounded recursion.
  Bytes frame = ethernet(ipv4(tcp(kPayload)), 0x0800);
  for (int i = 0; i < 100; ++i) {
    Bytes pw = {0, 0, 0x11, 0x40};  // a label, bottom of stack
    put32(pw, 0);                   // control word
    frame = ethernet(concat(pw, frame), 0x8847);
  }
  const auto result = decode(link_type::kEthernet, frame);
  EXPECT_EQ(result.status, DecodeStatus::NotTcp);
  EXPECT_EQ(result.reason, NotTcpReason::TooDeep);
}

TEST(PacketDecoder, CountsTunnelPayloadsItDoesNotDecodeApart) {
  // GRE carrying PPP (0x880B), GRE version 1 (PPTP), GRE with RFC 1701 routing, ERSPAN III
  // carrying IP (frame type 2), Geneve version 1.
  auto gre = [](std::uint16_t flags, std::uint16_t type) {
    Bytes header;
    put16(header, flags);
    put16(header, type);
    Ipv4Spec outer;
    outer.protocol = 47;
    return ipv4(outer, concat(header, ipv4(tcp(kPayload))));
  };
  for (const Bytes& packet : {gre(0, 0x880b), gre(1, 0x880b), gre(0x4000, 0x0800)}) {
    const auto result = decode(link_type::kRaw, packet);
    EXPECT_EQ(result.status, DecodeStatus::NotTcp);
    EXPECT_EQ(result.reason, NotTcpReason::TunnelPayload);
    EXPECT_FALSE(result.detail.empty());
  }
  Bytes erspan = wrapped(*synth::encapsulation_named("erspan-iii"));
  erspan[42 + 10] = 0x08;  // FT 2
  EXPECT_EQ(decode(link_type::kEthernet, erspan).reason, NotTcpReason::TunnelPayload);
  Bytes geneve = wrapped(*synth::encapsulation_named("geneve"));
  geneve[42] = 0x40;
  EXPECT_EQ(decode(link_type::kEthernet, geneve).reason, NotTcpReason::TunnelPayload);
  // An MPLS payload that is neither IP nor a pseudowire.
  Bytes mpls = wrapped(*synth::encapsulation_named("mpls"));
  mpls[22] = 0x50;
  EXPECT_EQ(decode(link_type::kEthernet, mpls).reason, NotTcpReason::TunnelPayload);
}

TEST(PacketDecoder, DecodesTunnelsWhoseOuterHeaderIsIpv6) {
  // IPv6 in IPv6, IPv4 in IPv6 (RFC 2473), and GRE over IPv6 behind a destination options header.
  const auto six_in_six = decode(link_type::kRaw, ipv6(41, ipv6(kTcp, tcp(kPayload))));
  expect_tcp_with_payload(six_in_six);
  EXPECT_EQ(to_string(six_in_six.tunnels), "ip-in-ip 2001:db8::1->2001:db8::2");
  const auto four_in_six = decode(link_type::kRaw, ipv6(4, ipv4(tcp(kPayload))));
  expect_tcp_with_payload(four_in_six);
  EXPECT_EQ(four_in_six.segment.source.address.family, 4);
  const Bytes gre = {0x20, 0x00, 0x08, 0x00, 0, 0, 0, 9};  // K bit, IPv4, key 9
  const auto gre6 =
      decode(link_type::kRaw,
             ipv6(60, concat(ipv6_options_header(47, 0), concat(gre, ipv4(tcp(kPayload))))));
  expect_tcp_with_payload(gre6);
  EXPECT_EQ(to_string(gre6.tunnels), "gre key 9 2001:db8::1->2001:db8::2");
}

TEST(PacketDecoder, DescribesFragmentsOfTunnelPacketsForReassembly) {
  Ipv4Spec outer;
  outer.protocol = 47;
  outer.fragment_field = 0x2000;  // more fragments
  const auto v4 = decode(link_type::kRaw, ipv4(outer, Bytes(40, 0)));
  EXPECT_EQ(v4.status, DecodeStatus::IpFragment);
  EXPECT_EQ(v4.fragment.protocol, 47);
  const auto v6 =
      decode(link_type::kRaw, ipv6(44, concat(ipv6_fragment_header(4, 8, false), Bytes(40, 0))));
  EXPECT_EQ(v6.status, DecodeStatus::IpFragment);
  EXPECT_EQ(v6.fragment.protocol, 4);
  // A fragment inside a tunnel names the tunnel: its datagram is that tunnel's.
  Ipv4Spec inner;
  inner.fragment_field = 0x2000;
  Ipv4Spec ip_in_ip;
  ip_in_ip.protocol = 4;
  const auto tunnelled = decode(link_type::kRaw, ipv4(ip_in_ip, ipv4(inner, Bytes(40, 0))));
  ASSERT_EQ(tunnelled.status, DecodeStatus::IpFragment);
  EXPECT_EQ(tunnelled.tunnels.depth, 1u);
  EXPECT_NE(tunnelled.segment.source.tunnel, 0u);
  EXPECT_EQ(tunnelled.segment.source.tunnel, tunnelled.tunnels.id());
}

TEST(PacketDecoder, DecodesUdpTunnelsOnTheConfiguredPortsOnly) {
  auto vxlan = *synth::encapsulation_named("vxlan");
  vxlan.udp_port = 8472;  // Linux's pre-IANA VXLAN port
  const Bytes frame = wrapped(vxlan);
  // Not decoded, but not passed over either: it looks like VXLAN.
  const auto plain = decode_with(frame, DecodeOptions{});
  EXPECT_EQ(plain.status, DecodeStatus::NotTcp);
  EXPECT_EQ(plain.reason, NotTcpReason::TunnelPayload);
  EXPECT_NE(plain.detail.find("--vxlan-port 8472"), std::string::npos) << plain.detail;
  // Geneve on an unknown port is only UDP.
  auto geneve_elsewhere = *synth::encapsulation_named("geneve");
  geneve_elsewhere.udp_port = 7000;
  EXPECT_EQ(decode_with(wrapped(geneve_elsewhere), DecodeOptions{}).reason,
            NotTcpReason::OtherIpProtocol);
  DecodeOptions options;
  options.vxlan_ports.push_back(8472);
  expect_tcp_with_payload(decode_with(frame, options));
  auto geneve = *synth::encapsulation_named("geneve");
  geneve.udp_port = 7000;
  options.geneve_ports = {7000};
  expect_tcp_with_payload(decode_with(wrapped(geneve), options));
}

TEST(PacketDecoder, SaysWhyAFrameIsNotTcp) {
  EXPECT_EQ(decode(link_type::kEthernet, ethernet(Bytes(28, 0), 0x0806)).reason,
            NotTcpReason::OtherEtherType);
  Ipv4Spec udp;
  udp.protocol = kUdp;
  EXPECT_EQ(decode(link_type::kRaw, ipv4(udp, Bytes(16, 0))).reason, NotTcpReason::OtherIpProtocol);
  EXPECT_EQ(decode(147, Bytes(40, 0)).reason, NotTcpReason::LinkType);
  EXPECT_EQ(decode(link_type::kEthernet, ethernet(ipv4(tcp(kPayload)), 0x0800)).reason,
            NotTcpReason::None);
}

// ---- captures on the sending host (TSO/GSO super-segments)

TEST(PacketDecoder, TakesTheFrameLengthForAnIpv4TotalLengthOfZero) {
  // Wireshark's ip.tso_support: a super-segment of 200 KiB, before the NIC cut it.
  const Bytes big(200u << 10, 0x5a);
  Ipv4Spec spec;
  spec.total_length = 0;
  expect_tcp_with_payload(decode(link_type::kEthernet, ethernet(ipv4(spec, tcp(big)), 0x0800)),
                          big);
  // Still too short for its own header: malformed.
  expect_malformed(decode(link_type::kRaw, Bytes{0x45, 0, 0, 0, 0, 0, 0, 0, 64, 6}),
                   "IPv4 header truncated");
}

TEST(PacketDecoder, ReadsTheIpv6JumboPayloadOption) {
  const Bytes big(256u << 10, 0x5b);
  const Bytes segment = tcp(big);
  const Bytes frame = ipv6(
      0, concat(jumbo_header(kTcp, static_cast<std::uint32_t>(8 + segment.size())), segment), 0);
  expect_tcp_with_payload(decode(link_type::kRaw, frame), big);
  // Ethernet padding after a jumbogram is not payload.
  expect_tcp_with_payload(
      decode(link_type::kEthernet, ethernet(concat(frame, Bytes(6, 0)), 0x86dd)), big);
}

TEST(PacketDecoder, TakesTheFrameLengthForAnIpv6PayloadLengthOfZeroWithoutJumboOption) {
  // Linux BIG TCP removes the option before the capture sees the packet.
  const Bytes big(70000, 0x5c);
  expect_tcp_with_payload(decode(link_type::kRaw, ipv6(kTcp, tcp(big), 0)), big);
}

// ---- hostile input

TEST(PacketDecoder, RejectsTruncatedLinkHeadersAsMalformed) {
  const Bytes frame = ethernet(ipv4(tcp(kPayload)), 0x0800, {0x8100});
  expect_malformed(decode(link_type::kEthernet, Bytes(frame.begin(), frame.begin() + 13)),
                   "Ethernet");
  expect_malformed(decode(link_type::kEthernet, Bytes(frame.begin(), frame.begin() + 16)), "VLAN");
  expect_malformed(decode(link_type::kEthernet, Bytes(frame.begin(), frame.begin() + 18)), "IP");
  expect_malformed(decode(link_type::kLinuxSll, Bytes(15, 0)), "SLL");
  expect_malformed(decode(link_type::kLinuxSll2, Bytes(19, 0)), "SLL2");
  expect_malformed(decode(link_type::kNull, Bytes(3, 0)), "loopback");
  expect_malformed(decode(link_type::kRaw, {}), "IP");
}

TEST(PacketDecoder, RejectsIpv4HeaderLengthsThatLie) {
  Ipv4Spec spec;
  spec.ihl = 4;
  expect_malformed(decode(link_type::kRaw, ipv4(spec, tcp(kPayload))), "header length 16");
  // IHL 15 (60 bytes) in a 30-byte packet.
  spec.ihl = 15;
  const Bytes frame = ipv4(spec, Bytes(10, 0));
  expect_malformed(decode(link_type::kRaw, frame), "header length 60");
  expect_malformed(decode(link_type::kRaw, Bytes(frame.begin(), frame.begin() + 12)), "truncated");
}

TEST(PacketDecoder, RejectsIpv4TotalLengthsThatLie) {
  Ipv4Spec spec;
  spec.total_length = 19;
  expect_malformed(decode(link_type::kRaw, ipv4(spec, tcp(kPayload))), "total length 19");
  spec.total_length = 1500;
  expect_malformed(decode(link_type::kEthernet, ethernet(ipv4(spec, tcp(kPayload)), 0x0800)),
                   "total length 1500");
  // Room for the IP header, not for the TCP header it announces.
  spec.total_length = 30;
  expect_malformed(decode(link_type::kRaw, ipv4(spec, tcp(kPayload))), "shorter");
}

TEST(PacketDecoder, RejectsTcpDataOffsetsThatLie) {
  TcpSpec spec;
  spec.data_offset = 4;
  expect_malformed(decode(link_type::kRaw, ipv4(tcp(spec, kPayload))), "data offset 4");
  spec.data_offset = 15;  // 60 bytes of header in a 30-byte segment
  expect_malformed(decode(link_type::kRaw, ipv4(tcp(spec, kPayload))), "data offset 15");
  spec.data_offset = 0;
  expect_malformed(decode(link_type::kRaw, ipv6(kTcp, tcp(spec, {}))), "data offset 0");
}

TEST(PacketDecoder, RejectsTcpHeadersCutBySnaplen) {
  TcpSpec spec;
  spec.mss = 1460;
  const Bytes frame = ipv4(tcp(spec, kPayload));
  const auto full = static_cast<std::uint32_t>(frame.size());
  expect_malformed(decode(link_type::kRaw, Bytes(frame.begin(), frame.begin() + 30), full),
                   "TCP header truncated");
  expect_malformed(decode(link_type::kRaw, Bytes(frame.begin(), frame.begin() + 42), full),
                   "TCP options truncated");
}

TEST(PacketDecoder, RejectsIpv6LengthsThatLie) {
  expect_malformed(decode(link_type::kRaw, ipv6(kTcp, tcp(kPayload), 500)), "payload length 500");
  // A Jumbo Payload option longer than the frame.
  expect_malformed(decode(link_type::kRaw, ipv6(0, concat(jumbo_header(kTcp, 70000), tcp({})), 0)),
                   "payload length 70000");
  // A destination options header claiming 8 * 256 bytes.
  expect_malformed(
      decode(link_type::kRaw, ipv6(60, concat(ipv6_options_header(kTcp, 255), tcp(kPayload)),
                                   static_cast<std::uint16_t>(8 + 20 + kPayload.size()))),
      "extension header 60");
  // Extension header announced, payload ends first.
  expect_malformed(decode(link_type::kRaw, ipv6(43, {1, 2, 3, 4})), "beyond the payload length");
  // AH claiming more than the packet holds.
  Bytes ah = ipv6_ah(kTcp);
  ah[1] = 200;
  expect_malformed(decode(link_type::kRaw, ipv6(51, concat(ah, tcp({})))), "extension header 51");
  const Bytes frame = ipv6(kTcp, tcp(kPayload));
  expect_malformed(decode(link_type::kRaw, Bytes(frame.begin(), frame.begin() + 39)),
                   "IPv6 header truncated");
}

// Every truncation and many random corruptions of valid frames: the decoder must stay
// inside the bytes it was given and return spans that lie within them.
TEST(PacketDecoder, NeverReadsOutsideTheFrameWhateverTheBytesSay) {
  TcpSpec spec;
  spec.mss = 1400;
  spec.extra_options = {1, 3, 3, 7};
  std::vector<std::pair<std::uint32_t, Bytes>> frames = {
      {link_type::kEthernet, ethernet(ipv4(tcp(spec, kPayload)), 0x0800, {0x8100, 0x8100})},
      {link_type::kLinuxSll,
       sll(ipv6(0, concat(concat(ipv6_options_header(44, 1), ipv6_fragment_header(51, 0, false)),
                          concat(ipv6_ah(kTcp), tcp(spec, kPayload)))),
           0x86dd)},
      {link_type::kLinuxSll2, sll2(ipv4(tcp(spec, kPayload)), 0x0800)},
      {link_type::kNull, loopback(ipv6(kTcp, tcp(spec, kPayload)), 30, true)},
  };
  // Every encapsulation too: its lengths, flags and option counts are hostile input as well.
  for (const auto& named : synth::named_encapsulations()) {
    frames.emplace_back(link_type::kEthernet,
                        synth::encapsulate(ethernet(ipv6(kTcp, tcp(spec, kPayload)), 0x86dd),
                                           named.second, synth::Dir::Responder));
  }
  std::mt19937 random(12345);
  for (const auto& [link, frame] : frames) {
    ASSERT_EQ(decode(link, frame).status, DecodeStatus::Tcp) << decode(link, frame).detail;
    for (std::size_t length = 0; length <= frame.size(); ++length) {
      const Bytes cut(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(length));
      for (std::uint32_t original :
           {static_cast<std::uint32_t>(length), static_cast<std::uint32_t>(frame.size())}) {
        const auto result = decode(link, cut, original);
        if (result.status == DecodeStatus::Tcp) {
          EXPECT_LE(result.segment.payload.size() + result.segment.payload_missing,
                    kPayload.size());
        } else {
          EXPECT_FALSE(result.detail.empty()) << length;
        }
      }
    }
    for (int round = 0; round < 20000; ++round) {
      Bytes corrupt = frame;
      const int flips = 1 + static_cast<int>(random() % 4);
      for (int i = 0; i < flips; ++i) {
        corrupt[random() % corrupt.size()] = static_cast<std::uint8_t>(random());
      }
      const std::size_t length = random() % (corrupt.size() + 1);
      corrupt.resize(length);
      const auto result = decode(link, corrupt, static_cast<std::uint32_t>(random() % 4000));
      if (result.status == DecodeStatus::Tcp && !result.segment.payload.empty()) {
        // `decode` keeps the frame in static storage until the next call.
        EXPECT_LE(result.segment.payload.size(), length);
      }
    }
  }
}

}  // namespace
}  // namespace mpa
