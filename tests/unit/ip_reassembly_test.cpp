// Tests for IP fragment reassembly (ip_reassembly.h): datagrams complete in any order, overlaps
// keep the octets captured first (and name differing ones), datagrams are told apart as
// Wireshark tells them, and memory stays bounded: old datagrams, datagrams beyond the limits
// and those left at the capture's end are given up, each reported once.
#include "mpa/ip_reassembly.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;

struct Reported : IpReassemblyEvents {
  std::vector<std::string> mismatches;
  std::vector<IncompleteDatagram> incomplete;
  void on_fragment_overlap_mismatch(std::uint64_t frame, std::uint64_t,
                                    std::string detail) override {
    mismatches.push_back(std::to_string(frame) + ": " + detail);
  }
  void on_datagram_incomplete(const IncompleteDatagram& d) override { incomplete.push_back(d); }
};

IpAddress v4(std::uint8_t last) {
  IpAddress a;
  a.family = 4;
  a.bytes[0] = 192;
  a.bytes[1] = 0;
  a.bytes[2] = 2;
  a.bytes[3] = last;
  return a;
}

// A fragment as the decoder describes it; its octets in `octets` (kept alive by the caller).
DecodeResult fragment(const Bytes& octets, std::uint32_t offset, bool more, std::uint32_t id = 7,
                      std::uint8_t protocol = 6) {
  DecodeResult r;
  r.status = DecodeStatus::IpFragment;
  r.segment.source.address = v4(10);
  r.segment.destination.address = v4(20);
  r.segment.payload = octets;
  r.fragment = {id, offset, protocol, more};
  return r;
}

Bytes pattern(std::size_t n, std::uint8_t seed = 1) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}
Bytes slice(const Bytes& b, std::size_t from, std::size_t n) {
  return Bytes(b.begin() + static_cast<std::ptrdiff_t>(from),
               b.begin() + static_cast<std::ptrdiff_t>(from + n));
}

TEST(IpReassembly, CompletesInOrderAndOutOfOrderAtTheFragmentThatCompletes) {
  const Bytes whole = pattern(100);
  const Bytes a = slice(whole, 0, 40), b = slice(whole, 40, 40), c = slice(whole, 80, 20);
  for (const auto& order : std::vector<std::vector<int>>{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}}) {
    IpReassembler r;
    Reported events;
    const DecodeResult parts[] = {fragment(a, 0, true), fragment(b, 40, true),
                                  fragment(c, 80, false)};
    std::optional<IpDatagram> done;
    for (std::size_t i = 0; i < order.size(); ++i) {
      done = r.add(parts[order[i]], i + 1, 1000 * (i + 1), events);
      if (i + 1 < order.size()) {
        EXPECT_FALSE(done.has_value());
      }
    }
    ASSERT_TRUE(done.has_value());
    EXPECT_EQ(Bytes(done->payload.begin(), done->payload.end()), whole);
    EXPECT_EQ(done->protocol, 6);
    EXPECT_EQ(done->source, v4(10));
    EXPECT_EQ(r.datagrams_held(), 0u);
    EXPECT_EQ(r.octets_held(), 0u);
    EXPECT_TRUE(events.mismatches.empty());
  }
}

TEST(IpReassembly, OverlapsKeepTheOctetsCapturedFirstAndNameThoseThatDiffer) {
  const Bytes whole = pattern(64);
  IpReassembler r;
  Reported events;
  const Bytes head = slice(whole, 0, 32);
  Bytes overlapping = slice(whole, 16, 32);  // octets 16-47, the same as held
  EXPECT_FALSE(r.add(fragment(head, 0, true), 1, 0, events));
  EXPECT_FALSE(r.add(fragment(overlapping, 16, true), 2, 0, events));
  EXPECT_TRUE(events.mismatches.empty());
  Bytes differing = slice(whole, 8, 16);
  differing[5] ^= 0x80;  // octet 13 of the datagram
  EXPECT_FALSE(r.add(fragment(differing, 8, true), 3, 0, events));
  ASSERT_EQ(events.mismatches.size(), 1u);
  EXPECT_NE(events.mismatches[0].find("3: IPv4 fragment 192.0.2.10 -> 192.0.2.20 (TCP, id 0x0007) "
                                      "at offset 8, 16 octets: octet 13 of the datagram"),
            std::string::npos)
      << events.mismatches[0];
  const Bytes tail = slice(whole, 48, 16);
  const auto done = r.add(fragment(tail, 48, false), 4, 0, events);
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(Bytes(done->payload.begin(), done->payload.end()), whole);
}

TEST(IpReassembly, DatagramsAreToldApartByAddressesTunnelIdAndIpv4Protocol) {
  const Bytes octets = pattern(16);
  IpReassembler r;
  Reported events;
  DecodeResult base = fragment(octets, 0, true);
  r.add(base, 1, 0, events);
  DecodeResult other_id = fragment(octets, 0, true, 8);
  r.add(other_id, 2, 0, events);
  DecodeResult other_protocol = fragment(octets, 0, true, 7, 17);
  r.add(other_protocol, 3, 0, events);
  DecodeResult other_tunnel = base;
  other_tunnel.segment.source.tunnel = other_tunnel.segment.destination.tunnel = 42;
  r.add(other_tunnel, 4, 0, events);
  DecodeResult other_source = base;
  other_source.segment.source.address = v4(11);
  r.add(other_source, 5, 0, events);
  EXPECT_EQ(r.datagrams_held(), 5u);
  // IPv6 keys without the next header (as Wireshark): two fragments, one datagram.
  DecodeResult six = base;
  six.segment.source.address.family = six.segment.destination.address.family = 6;
  r.add(six, 6, 0, events);
  DecodeResult six_tail = fragment(octets, 16, false, 7, 60);
  six_tail.segment.source.address = six.segment.source.address;
  six_tail.segment.destination.address = six.segment.destination.address;
  const auto done = r.add(six_tail, 7, 0, events);
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->protocol, 6) << "the first fragment names what the payload starts with";
  EXPECT_EQ(done->payload.size(), 32u);
  EXPECT_EQ(r.datagrams_held(), 5u);
}

TEST(IpReassembly, DatagramsLeftAtTheCaptureEndAreGivenUpOnceEach) {
  const Bytes octets = pattern(24);
  IpReassembler r;
  Reported events;
  r.add(fragment(octets, 0, true), 3, 0, events);
  r.add(fragment(octets, 48, true), 5, 0, events);
  r.add(fragment(octets, 0, true, 9), 6, 0, events);
  r.add(fragment(octets, 100, false, 9), 8, 0, events);
  r.finish(events);
  r.finish(events);
  ASSERT_EQ(events.incomplete.size(), 2u);
  const IncompleteDatagram& first = events.incomplete[0];
  EXPECT_EQ(first.fragments, 2u);
  EXPECT_EQ(first.octets, 48u);
  EXPECT_EQ(first.first_frame, 3u);
  EXPECT_EQ(first.last_frame, 5u);
  EXPECT_FALSE(first.length.has_value());
  EXPECT_EQ(first.reason, GiveUpReason::CaptureEnd);
  ASSERT_TRUE(first.source_port.has_value());
  EXPECT_EQ(*first.source_port, (octets[0] << 8) | octets[1]);
  EXPECT_EQ(describe(first, r.limits()),
            "IPv4 datagram 192.0.2.10:264 -> 192.0.2.20:3862 (TCP, id 0x0007) given up at the "
            "capture's end with 48 octets from 2 fragments (frames 3-5); its last fragment was "
            "not captured");
  const IncompleteDatagram& second = events.incomplete[1];
  ASSERT_TRUE(second.length.has_value());
  EXPECT_EQ(*second.length, 124u);
  EXPECT_NE(
      describe(second, r.limits()).find("with 48 of its 124 octets from 2 fragments (frames 6-8)"),
      std::string::npos)
      << describe(second, r.limits());
  EXPECT_EQ(r.datagrams_held(), 0u);
}

TEST(IpReassembly, OldDatagramsAreGivenUpAfterTheTimeout) {
  const Bytes octets = pattern(16);
  IpReassemblyLimits limits;
  limits.timeout_ns = 1000;
  IpReassembler r(limits);
  Reported events;
  r.add(fragment(octets, 0, true, 1), 1, 100, events);
  r.add(fragment(octets, 0, true, 2), 2, 600, events);
  r.add(fragment(octets, 16, true, 1), 3, 1100, events);  // 1000 after its first: still held
  EXPECT_TRUE(events.incomplete.empty());
  r.add(fragment(octets, 0, true, 3), 4, 1101, events);  // datagram 1 is older than 1000
  ASSERT_EQ(events.incomplete.size(), 1u);
  EXPECT_EQ(events.incomplete[0].id, 1u);
  EXPECT_EQ(events.incomplete[0].reason, GiveUpReason::Timeout);
  EXPECT_EQ(events.incomplete[0].last_frame, 3u);
  // A fragment of a datagram given up starts it again.
  const auto restarted = r.add(fragment(octets, 16, false, 1), 5, 1200, events);
  EXPECT_FALSE(restarted.has_value());
  EXPECT_EQ(r.datagrams_held(), 3u);
}

TEST(IpReassembly, HoldsNoMoreThanItsLimits) {
  IpReassemblyLimits limits;
  limits.max_datagrams = 3;
  limits.max_octets = std::size_t{1} << 20;
  IpReassembler r(limits);
  Reported events;
  const Bytes octets = pattern(8);
  for (std::uint32_t id = 0; id < 10; ++id) r.add(fragment(octets, 0, true, id), id + 1, 0, events);
  EXPECT_EQ(r.datagrams_held(), 3u);
  ASSERT_EQ(events.incomplete.size(), 7u);
  for (std::uint32_t i = 0; i < 7; ++i) {
    EXPECT_EQ(events.incomplete[i].id, i) << "the oldest first";
    EXPECT_EQ(events.incomplete[i].reason, GiveUpReason::Limit);
  }
  // Octets: a fragment far into its datagram costs the room up to it.
  IpReassemblyLimits small;
  small.max_octets = 200'000;
  IpReassembler bounded(small);
  Reported more;
  for (std::uint32_t id = 0; id < 100; ++id) {
    bounded.add(fragment(octets, 65000, true, id), id + 1, 0, more);
    EXPECT_LE(bounded.octets_held(), small.max_octets);
  }
  EXPECT_LE(bounded.datagrams_held(), 3u);
  EXPECT_GE(more.incomplete.size(), 97u);
  EXPECT_NE(describe(more.incomplete[0], small)
                .find("to hold no more than 4096 datagrams and 200000 octets"),
            std::string::npos);
}

TEST(IpReassembly, AFragmentCutByTheSnapshotLengthIsNotHeld) {
  const Bytes whole = pattern(32);
  IpReassembler r;
  Reported events;
  DecodeResult cut = fragment(slice(whole, 0, 16), 0, true);
  Bytes head = slice(whole, 0, 10);
  cut.segment.payload = head;
  cut.segment.payload_missing = 6;
  EXPECT_FALSE(r.add(cut, 1, 0, events));
  const Bytes tail = slice(whole, 16, 16);
  EXPECT_FALSE(r.add(fragment(tail, 16, false), 2, 0, events)) << "as Wireshark: no reassembly";
  r.finish(events);
  ASSERT_EQ(events.incomplete.size(), 1u);
  EXPECT_TRUE(events.incomplete[0].cut);
  EXPECT_EQ(events.incomplete[0].octets, 16u);
  EXPECT_NE(describe(events.incomplete[0], r.limits()).find("cut by the snapshot length"),
            std::string::npos);
}

TEST(IpReassembly, OctetsBeyondTheLastFragmentsEndAreIgnored) {
  const Bytes whole = pattern(40);
  IpReassembler r;
  Reported events;
  const Bytes tail = slice(whole, 16, 8);
  const Bytes long_middle = slice(whole, 8, 32);  // beyond the end the last fragment sets
  r.add(fragment(tail, 16, false), 1, 0, events);
  r.add(fragment(long_middle, 8, true), 2, 0, events);
  const Bytes head = slice(whole, 0, 8);
  const auto done = r.add(fragment(head, 0, true), 3, 0, events);
  ASSERT_TRUE(done.has_value());
  EXPECT_EQ(done->payload.size(), 24u);
  EXPECT_EQ(Bytes(done->payload.begin(), done->payload.end()), slice(whole, 0, 24));
}

}  // namespace
}  // namespace mpa
