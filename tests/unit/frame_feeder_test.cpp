// Tests for the frame feeder (frame_feeder.h): one captured frame, decoded and handed to
// the Analyzer, counted by what it held. Raw IPv4 frames are written octet by octet.
#include "mpa/frame_feeder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mpa/analyzer.h"
#include "mpa/packet_decoder.h"
#include "mpa/startup_frame.h"

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

// RFC 791 IPv4 (no options) from 10.0.0.1 to 10.0.0.2 carrying `payload` of `protocol`.
Bytes ipv4(std::uint8_t protocol, const Bytes& payload, std::uint16_t fragment_field = 0) {
  Bytes out = {0x45, 0x00};
  put16(out, static_cast<std::uint16_t>(20 + payload.size()));
  put16(out, 0x1234);          // identification
  put16(out, fragment_field);  // flags, fragment offset
  out.push_back(64);           // TTL
  out.push_back(protocol);
  put16(out, 0);  // header checksum (not checked)
  for (std::uint8_t b : {10, 0, 0, 1, 10, 0, 0, 2}) out.push_back(b);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// RFC 793 TCP, port 4000 -> 5000, ACK|PSH, with `payload`.
Bytes tcp(std::uint32_t seq, const Bytes& payload) {
  Bytes out;
  put16(out, 4000);
  put16(out, 5000);
  put32(out, seq);
  put32(out, 1);
  out.push_back(5 << 4);  // data offset: 20 octets
  out.push_back(tcp_flags::kAck | tcp_flags::kPsh);
  put16(out, 0xFFFF);  // window
  put16(out, 0);       // checksum (not checked)
  put16(out, 0);       // urgent pointer
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes mpa_request() {
  Bytes b(kRequestKey.begin(), kRequestKey.end());
  for (std::uint8_t octet : {0x40, 0x01, 0x00, 0x00}) b.push_back(octet);  // C=1 Rev 1 PD_Length 0
  return b;
}

// Records the order in which things happen.
struct Log : EventSink {
  std::vector<std::string> lines;
  void on_finding(const Finding& f) override {
    lines.push_back("finding " + std::string(info(f.id).name));
  }
  void on_connection_start(const ConnectionSummary&) override {
    lines.push_back("connection start");
  }
  void on_startup_frame(std::uint32_t, Direction, const StartupFrame& f, std::uint64_t frame,
                        TcpSeq seq) override {
    lines.push_back("startup " + std::string(to_string(f.kind)) + " frame " +
                    std::to_string(frame) + " seq " + std::to_string(seq.value()));
  }
};

CapturedFrame raw(std::uint64_t number, const Bytes& bytes) {
  return {number, link_type::kRaw, bytes, static_cast<std::uint32_t>(bytes.size()), number * 1000};
}

TEST(FrameFeeder, HandsATcpSegmentToTheAnalyzerAfterTheCallerSawIt) {
  Log log;
  Analyzer analyzer({}, log);
  FrameFeeder feeder(analyzer);
  const Bytes frame = ipv4(6, tcp(1000, mpa_request()));
  std::uint32_t payload_offset = 0;
  const DecodeStatus status = feeder.feed(raw(1, frame), [&](const TcpSegment& segment) {
    log.lines.push_back("segment");
    payload_offset = static_cast<std::uint32_t>(segment.payload.data() - frame.data());
    EXPECT_EQ(segment.seq, TcpSeq(1000));
    EXPECT_EQ(segment.frame, 1u);
    EXPECT_EQ(segment.timestamp_ns, 1000u);
  });
  EXPECT_EQ(status, DecodeStatus::Tcp);
  EXPECT_EQ(payload_offset, 40u);
  EXPECT_EQ(analyzer.tcp_connections(), 1u);
  ASSERT_GE(log.lines.size(), 3u);
  EXPECT_EQ(log.lines[0], "segment");
  EXPECT_EQ(log.lines[1], "connection start");
  EXPECT_EQ(log.lines[2], "startup Request frame 1 seq 1000");
}

TEST(FrameFeeder, CountsFramesByWhatTheyHeld) {
  Log log;
  Analyzer analyzer({}, log);
  FrameFeeder feeder(analyzer);
  int segments_seen = 0;
  const auto count = [&](const TcpSegment&) { ++segments_seen; };
  const Bytes tcp_frame = ipv4(6, tcp(1, Bytes(10, 0)));
  const Bytes udp_frame = ipv4(17, Bytes(8, 0));
  const Bytes fragment = ipv4(6, tcp(1, Bytes(10, 0)), 0x2000);  // MF set
  const Bytes cut = {0x45, 0x00, 0x00};

  EXPECT_EQ(feeder.feed(raw(1, tcp_frame), count), DecodeStatus::Tcp);
  EXPECT_EQ(feeder.feed(raw(2, udp_frame), count), DecodeStatus::NotTcp);
  EXPECT_EQ(feeder.feed(raw(3, fragment), count), DecodeStatus::IpFragment);
  EXPECT_EQ(feeder.feed(raw(4, cut), count), DecodeStatus::Malformed);
  EXPECT_EQ(feeder.feed(raw(5, tcp_frame)), DecodeStatus::Tcp);

  const CaptureStats& stats = feeder.stats();
  EXPECT_EQ(stats.frames, 5u);
  EXPECT_EQ(stats.bytes, 2 * tcp_frame.size() + udp_frame.size() + fragment.size() + cut.size());
  EXPECT_EQ(stats.tcp_segments, 2u);
  EXPECT_EQ(stats.other_frames, 1u);
  EXPECT_EQ(stats.ip_fragments, 1u);
  EXPECT_EQ(stats.malformed_frames, 1u);
  EXPECT_EQ(segments_seen, 1);  // only feed() calls with the callback, only TCP segments
  // The fragment is held for reassembly: nothing to say yet.
  EXPECT_TRUE(log.lines.empty());
  // At the capture's end its datagram is given up: a capture gap, named at its frame.
  feeder.finish(5);
  EXPECT_EQ(feeder.stats().ip_datagrams_incomplete, 1u);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_EQ(log.lines[0], "finding capture.ip-fragment");
}

// ---- IP fragments reassembled

// The IPv4 packet `ip` (no options) cut into fragments of `size` octets of payload (a multiple
// of 8), in order.
std::vector<Bytes> fragments_of(const Bytes& ip, std::size_t size) {
  std::vector<Bytes> out;
  const std::size_t payload = ip.size() - 20;
  for (std::size_t at = 0; at < payload; at += size) {
    const std::size_t n = std::min(size, payload - at);
    Bytes f(ip.begin(), ip.begin() + 20);
    f[2] = static_cast<std::uint8_t>((20 + n) >> 8);
    f[3] = static_cast<std::uint8_t>(20 + n);
    const std::uint16_t field =
        static_cast<std::uint16_t>((at + n < payload ? 0x2000 : 0) | at / 8);
    f[6] = static_cast<std::uint8_t>(field >> 8);
    f[7] = static_cast<std::uint8_t>(field);
    f.insert(f.end(), ip.begin() + static_cast<std::ptrdiff_t>(20 + at),
             ip.begin() + static_cast<std::ptrdiff_t>(20 + at + n));
    out.push_back(f);
  }
  return out;
}

struct Segments : EventSink {
  std::vector<std::uint64_t> frames;  // of the startup frames seen
  std::vector<std::string> findings;
  void on_finding(const Finding& f) override {
    findings.push_back(std::string(info(f.id).name) + " at " + std::to_string(f.frame));
  }
  void on_startup_frame(std::uint32_t, Direction, const StartupFrame&, std::uint64_t frame,
                        TcpSeq) override {
    frames.push_back(frame);
  }
};

TEST(FrameFeeder, ADatagramCountsAtTheFrameOfItsLastFragment) {
  Segments sink;
  Analyzer analyzer({}, sink);
  FrameFeeder feeder(analyzer);
  Bytes request = mpa_request();
  request.resize(request.size() + 64, 0);  // private data the PD_Length does not announce: any
  const auto pieces = fragments_of(ipv4(6, tcp(1000, request)), 32);
  ASSERT_EQ(pieces.size(), 4u);
  int shown = 0;
  // Out of order: the last fragment first; the datagram is complete with the third frame.
  const std::size_t order[] = {3, 0, 2, 1};
  std::uint64_t number = 0;
  for (std::size_t i : order) {
    EXPECT_EQ(feeder.feed(raw(++number, pieces[i]), [&](const TcpSegment&) { ++shown; }),
              DecodeStatus::IpFragment);
  }
  EXPECT_EQ(shown, 0) << "a reassembled segment lies in no one frame";
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0], 4u);
  const CaptureStats& stats = feeder.stats();
  EXPECT_EQ(stats.ip_fragments, 4u);
  EXPECT_EQ(stats.ip_datagrams, 1u);
  EXPECT_EQ(stats.tcp_segments, 1u);
  EXPECT_EQ(stats.reassembled_segments, 1u);
  EXPECT_EQ(stats.frames + stats.ip_datagrams,
            stats.tcp_segments + stats.other_frames + stats.malformed_frames + stats.ip_fragments);
  feeder.finish(number);
  EXPECT_EQ(feeder.stats().ip_datagrams_incomplete, 0u);
}

TEST(FrameFeeder, OverlappingFragmentsThatDifferAreNamedAndTheFirstOctetsKept) {
  Segments sink;
  Analyzer analyzer({}, sink);
  FrameFeeder feeder(analyzer);
  // TCP header, key: fragments of octets 0-15, 16-31 (the key's first 12), 32-39.
  const auto pieces = fragments_of(ipv4(6, tcp(1000, mpa_request())), 16);
  ASSERT_EQ(pieces.size(), 3u);
  Bytes same = pieces[1], other = pieces[1];
  other[20 + 8] ^= 0xff;  // inside the key: analysed, it would be no startup frame
  feeder.feed(raw(1, pieces[0]));
  feeder.feed(raw(2, pieces[1]));
  feeder.feed(raw(3, same));  // a duplicate: nothing to say
  EXPECT_TRUE(sink.findings.empty());
  feeder.feed(raw(4, other));
  ASSERT_EQ(sink.findings.size(), 1u);
  EXPECT_EQ(sink.findings[0], "ip.fragment-overlap-mismatch at 4");
  feeder.feed(raw(5, pieces[2]));
  ASSERT_EQ(sink.frames.size(), 1u) << "the octets captured first make the Request";
  EXPECT_EQ(sink.frames[0], 5u);
}

TEST(FrameFeeder, AnIncompleteUdpDatagramIsNamedOnlyWhenItMayBeATunnel) {
  Segments sink;
  Analyzer analyzer({}, sink);
  FrameFeeder feeder(analyzer);
  Bytes dns = {0x13, 0x88, 0x00, 0x35, 0x01, 0x08, 0, 0};  // 5000 -> 53
  dns.resize(264, 0);
  Bytes vxlan = {0xc3, 0x50, 0x12, 0xb5, 0x01, 0x08, 0, 0};  // 50000 -> 4789
  vxlan.resize(264, 0);
  Bytes dns_ip = ipv4(17, dns), vxlan_ip = ipv4(17, vxlan), unknown_ip = ipv4(17, dns);
  vxlan_ip[5] = 0x35;  // other identifications: other datagrams
  unknown_ip[5] = 0x36;
  feeder.feed(raw(1, fragments_of(dns_ip, 128)[0]));      // DNS: no TCP in it
  feeder.feed(raw(2, fragments_of(vxlan_ip, 128)[0]));    // VXLAN: TCP may be inside
  feeder.feed(raw(3, fragments_of(unknown_ip, 128)[2]));  // its ports never captured
  feeder.finish(3);
  EXPECT_EQ(feeder.stats().ip_datagrams_incomplete, 3u);
  ASSERT_EQ(sink.findings.size(), 2u);
  EXPECT_EQ(sink.findings[0], "capture.ip-fragment at 2");
  EXPECT_EQ(sink.findings[1], "capture.ip-fragment at 3");
}

TEST(FrameFeeder, FragmentsInsideAFragmentedTunnelPacketAreReassembledInTurn) {
  Segments sink;
  Analyzer analyzer({}, sink);
  FrameFeeder feeder(analyzer);
  const auto inner = fragments_of(ipv4(6, tcp(1000, mpa_request())), 16);
  std::uint64_t number = 0;
  for (const Bytes& piece : inner) {
    // Each inner fragment in IP in IP, the outer packet fragmented too.
    Bytes outer = ipv4(4, piece);
    outer[5] = static_cast<std::uint8_t>(number);  // the outer identification
    for (const Bytes& f : fragments_of(outer, 24)) feeder.feed(raw(++number, f));
  }
  ASSERT_EQ(sink.frames.size(), 1u);
  EXPECT_EQ(sink.frames[0], number);
  const CaptureStats& stats = feeder.stats();
  EXPECT_EQ(stats.ip_datagrams, inner.size() + 1);
  EXPECT_EQ(stats.ip_fragments, number + inner.size());
  EXPECT_EQ(stats.tunnelled_segments, 1u);
  EXPECT_EQ(stats.frames + stats.ip_datagrams,
            stats.tcp_segments + stats.other_frames + stats.malformed_frames + stats.ip_fragments);
}

TEST(FrameFeeder, CountsFramesNotTcpByReasonAndNamesTheFirstThatMayHideTcp) {
  Log log;
  Analyzer analyzer({}, log);
  FrameFeeder feeder(analyzer);
  const Bytes udp_frame = ipv4(17, Bytes(8, 0));
  const Bytes gre_ppp = ipv4(47, Bytes{0, 0, 0x88, 0x0b, 0xff, 0x03});  // GRE carrying PPP
  Bytes deep = ipv4(6, tcp(1, Bytes(10, 0)));
  for (std::size_t i = 0; i <= kMaxTunnelDepth; ++i) deep = ipv4(4, deep);  // IP in IP, 9 deep
  feeder.feed(raw(1, udp_frame));
  feeder.feed(raw(2, gre_ppp));
  feeder.feed(raw(3, deep));
  feeder.feed(raw(4, gre_ppp));
  feeder.feed({5, 147, udp_frame, static_cast<std::uint32_t>(udp_frame.size()), 0});
  feeder.feed({6, link_type::kEthernet, Bytes(60, 0), 60, 0});  // EtherType 0: an 802.3 length

  const CaptureStats& stats = feeder.stats();
  EXPECT_EQ(stats.other_frames, 6u);
  EXPECT_EQ(stats.other_ip_protocol, 1u);
  EXPECT_EQ(stats.tunnel_payload, 2u);
  EXPECT_EQ(stats.too_deep, 1u);
  EXPECT_EQ(stats.unsupported_link_type, 1u);
  EXPECT_EQ(stats.other_ethertype, 1u);
  EXPECT_EQ(stats.unreached(), 4u);
  EXPECT_EQ(stats.first_unreached_frame, 2u);
  EXPECT_NE(stats.first_unreached_detail.find("0x880b"), std::string::npos)
      << stats.first_unreached_detail;
  EXPECT_TRUE(feeder.tunnel_names().empty());
}

TEST(FrameFeeder, NamesEachTunnelOnce) {
  Log log;
  Analyzer analyzer({}, log);
  FrameFeeder feeder(analyzer);
  const Bytes tunnelled = ipv4(4, ipv4(6, tcp(1, Bytes(10, 0))));
  std::uint64_t tunnel = 0;
  for (std::uint64_t n = 1; n <= 3; ++n) {
    feeder.feed(raw(n, tunnelled), [&](const TcpSegment& s) { tunnel = s.source.tunnel; });
  }
  EXPECT_EQ(feeder.stats().tunnelled_segments, 3u);
  ASSERT_EQ(feeder.tunnel_names().size(), 1u);
  EXPECT_NE(tunnel, 0u);
  EXPECT_EQ(feeder.tunnel_names().at(tunnel).rfind("ip-in-ip ", 0), 0u);
}

}  // namespace
}  // namespace mpa
