// The encapsulation invariant: a capture taken inside a tunnel, a mirror session, MPLS or a
// VLAN stack (tests/synth/encapsulation.h) gives exactly the findings of the same capture
// taken plain, through the FrameFeeder both faces use. And the tunnel is part of the flow:
// two tunnels carrying the same inner connection are two connections. The same for IP
// fragmentation (tests/synth/fragmentation.h), IPv4 and IPv6, in order or not, inside a
// tunnel or of the tunnel's own packets: the findings of the whole packets, each at the frame
// of its packet's last fragment.
#include "encapsulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "faults.h"
#include "fragmentation.h"
#include "generator.h"
#include "mpa/analyzer.h"
#include "mpa/frame_feeder.h"
#include "scenario.h"

namespace mpa {
namespace {

// What a finding says, where: the invariant's unit.
using Fact = std::tuple<std::string, Direction, std::uint64_t, std::uint32_t>;

struct Facts : EventSink {
  std::vector<Fact> findings;
  std::vector<ConnectionSummary> connections;
  void on_finding(const Finding& f) override {
    findings.emplace_back(std::string(info(f.id).name), f.direction, f.frame, f.connection);
  }
  void on_connection_end(const ConnectionSummary& s) override { connections.push_back(s); }
};

struct Outcome {
  Facts facts;
  CaptureStats stats;
};

Outcome run(const std::vector<synth::CapturedFrame>& frames, AnalyzerOptions options = {}) {
  Outcome out;
  Analyzer analyzer(options, out.facts);
  FrameFeeder feeder(analyzer);
  std::uint64_t number = 0;
  for (const synth::CapturedFrame& f : frames) {
    feeder.feed({++number, link_type::kEthernet, f.bytes,
                 static_cast<std::uint32_t>(f.bytes.size()), f.time_us * 1000});
  }
  feeder.finish(number);
  out.stats = feeder.stats();
  return out;
}

synth::Scenario with_wrap(synth::Scenario s, std::optional<synth::Encapsulation> wrap) {
  s.effects.wrap = wrap;
  return s;
}

// Valid and faulty conversations, markers on and off, IPv4 and IPv6.
std::vector<std::pair<std::string, synth::Scenario>> scenarios() {
  std::vector<std::pair<std::string, synth::Scenario>> out;
  synth::Scenario valid = synth::base_scenario("encapsulation-valid");
  out.emplace_back("valid", valid);
  synth::Scenario crc = valid;
  crc.initiator.messages[2].tweaks.corrupt_crc = true;
  out.emplace_back("crc-fault", crc);
  synth::Scenario markers = crc;
  markers.initiator.frame.m = markers.responder.frame.m = true;
  out.emplace_back("markers-crc-fault", markers);
  synth::Scenario v6 = crc;
  v6.ipv6 = true;
  out.emplace_back("ipv6-crc-fault", v6);
  for (const char* fault : {"fpdu.pad-nonzero", "startup.pd-length-mismatch"}) {
    synth::Scenario s = valid;
    const synth::FaultRecipe* recipe = synth::find_fault(fault);
    if (!recipe) continue;
    synth::apply_fault(s, *recipe);
    out.emplace_back(fault, s);
  }
  return out;
}

// `plain`'s findings at the frames of `fragmented` that complete the same packets: a packet's
// last frame (its fragments are captured together).
std::vector<Fact> at_last_fragments(const std::vector<Fact>& plain,
                                    const std::vector<synth::CapturedFrame>& plain_frames,
                                    const std::vector<synth::CapturedFrame>& fragmented) {
  std::vector<std::uint64_t> last_frame_of_packet;
  for (std::size_t i = 0; i < fragmented.size(); ++i) {
    const std::size_t packet = fragmented[i].packet;
    if (last_frame_of_packet.size() <= packet) last_frame_of_packet.resize(packet + 1, 0);
    last_frame_of_packet[packet] = i + 1;
  }
  std::vector<Fact> out = plain;
  for (Fact& fact : out) {
    std::uint64_t& frame = std::get<2>(fact);
    frame = last_frame_of_packet.at(plain_frames.at(frame - 1).packet);
  }
  return out;
}

TEST(Encapsulation, IpFragmentationGivesTheFindingsOfTheWholePackets) {
  struct Cut {
    std::string name;
    std::size_t size;
    synth::FragmentOrder order;
    std::optional<synth::Encapsulation> wrap;
    bool outer;
  };
  const auto in = synth::FragmentOrder::InOrder;
  const auto reversed = synth::FragmentOrder::Reversed;
  const std::vector<Cut> cuts = {
      {"512 in order", 512, in, std::nullopt, false},
      {"512 reversed", 512, reversed, std::nullopt, false},
      {"104 in order", 104, in, std::nullopt, false},
      {"200 reversed", 200, reversed, std::nullopt, false},
      {"halves in order", 0, in, std::nullopt, false},
      {"inside vxlan, reversed", 512, reversed, synth::encapsulation_named("vxlan"), false},
      {"vxlan packets, in order", 512, in, synth::encapsulation_named("vxlan"), true},
      {"gre packets, reversed", 256, reversed, synth::encapsulation_named("gre-key"), true},
      {"ip-in-ip packets, in order", 400, in, synth::encapsulation_named("ipip"), true},
      {"erspan-ii packets, reversed", 400, reversed, synth::encapsulation_named("erspan-ii"), true},
  };
  std::size_t fragmented_captures = 0;
  for (const auto& [scenario_name, scenario] : scenarios()) {
    for (const Cut& cut : cuts) {
      SCOPED_TRACE(scenario_name + ", fragments " + cut.name);
      const synth::Scenario wrapped = with_wrap(scenario, cut.wrap);
      const auto whole_frames = synth::generate_frames(wrapped);
      const Outcome whole = run(whole_frames);
      synth::Scenario s = wrapped;
      synth::IpFragmentation f;
      f.size = cut.size;
      f.order = cut.order;
      f.outer = cut.outer;
      s.effects.ip_fragments = f;
      const auto frames = synth::generate_frames(s);
      if (frames.size() == whole_frames.size()) continue;  // no packet long enough to cut
      ++fragmented_captures;
      const Outcome fragmented = run(frames);
      EXPECT_EQ(fragmented.facts.findings,
                at_last_fragments(whole.facts.findings, whole_frames, frames));
      EXPECT_EQ(fragmented.facts.connections.size(), whole.facts.connections.size());
      const CaptureStats& st = fragmented.stats;
      EXPECT_EQ(st.tcp_segments, whole.stats.tcp_segments);
      EXPECT_EQ(st.tunnelled_segments, whole.stats.tunnelled_segments);
      EXPECT_GT(st.ip_datagrams, 0u);
      EXPECT_EQ(st.ip_datagrams_incomplete, 0u);
      EXPECT_EQ(st.unreached(), 0u);
      EXPECT_EQ(st.frames + st.ip_datagrams,
                st.tcp_segments + st.other_frames + st.malformed_frames + st.ip_fragments);
    }
  }
  // Every cut of every scenario but the one whose packets are all short.
  EXPECT_GE(fragmented_captures, (scenarios().size() - 1) * cuts.size());
}

TEST(Encapsulation, EveryWrapperGivesTheFindingsOfThePlainCapture) {
  for (const auto& [scenario_name, scenario] : scenarios()) {
    const Outcome plain = run(synth::generate_frames(scenario));
    ASSERT_FALSE(plain.facts.connections.empty()) << scenario_name;
    if (scenario_name != "valid") {
      EXPECT_FALSE(plain.facts.findings.empty()) << scenario_name;
    }
    for (const auto& [wrap_name, wrap] : synth::named_encapsulations()) {
      SCOPED_TRACE(scenario_name + " in " + wrap_name);
      const Outcome wrapped = run(synth::generate_frames(with_wrap(scenario, wrap)));
      EXPECT_EQ(wrapped.facts.findings, plain.facts.findings);
      EXPECT_EQ(wrapped.facts.connections.size(), plain.facts.connections.size());
      EXPECT_EQ(wrapped.stats.tcp_segments, plain.stats.tcp_segments);
      EXPECT_EQ(wrapped.stats.unreached(), 0u);
    }
  }
}

// Every wrapper with an outer IP header, on either underlay, its outer addresses swapped with
// the direction (tunnel endpoints) or the same both ways (a mirror session).
std::vector<std::pair<std::string, synth::Encapsulation>> on_every_underlay() {
  std::vector<std::pair<std::string, synth::Encapsulation>> out;
  for (const auto& [name, e] : synth::named_encapsulations()) {
    if (!synth::has_ip_underlay(e.wrapper)) continue;
    for (const auto underlay : {synth::Underlay::Ipv4, synth::Underlay::Ipv6}) {
      for (const auto outer :
           {synth::OuterAddresses::PerDirection, synth::OuterAddresses::Mirror}) {
        synth::Encapsulation variant = e;
        variant.underlay = underlay;
        variant.outer_addresses = outer;
        out.emplace_back(name + (underlay == synth::Underlay::Ipv6 ? " over IPv6" : " over IPv4") +
                             (outer == synth::OuterAddresses::Mirror ? ", mirrored" : ", swapped"),
                         variant);
      }
    }
  }
  return out;
}

TEST(Encapsulation, EveryUnderlayAndOuterAddressingGivesTheFindingsOfThePlainCapture) {
  for (const auto& [scenario_name, scenario] : scenarios()) {
    const Outcome plain = run(synth::generate_frames(scenario));
    for (const auto& [wrap_name, wrap] : on_every_underlay()) {
      SCOPED_TRACE(scenario_name + " in " + wrap_name);
      const Outcome wrapped = run(synth::generate_frames(with_wrap(scenario, wrap)));
      EXPECT_EQ(wrapped.facts.findings, plain.facts.findings);
      EXPECT_EQ(wrapped.facts.connections.size(), plain.facts.connections.size());
      EXPECT_EQ(wrapped.stats.tcp_segments, plain.stats.tcp_segments);
      EXPECT_EQ(wrapped.stats.unreached(), 0u);
    }
  }
}

// Cloud traffic mirroring: both directions of an IPv4 connection carried between the same
// two IPv6 addresses. An inner IPv4 address once kept octets 4-15 of the outer IPv6 one, so
// each direction had endpoints of its own: two connections, each with startup errors.
TEST(Encapsulation, AMirroredIpv4ConnectionOverAnIpv6UnderlayIsOneConnection) {
  const synth::Scenario valid = synth::base_scenario("encapsulation-mirror-ipv6");
  const Outcome plain = run(synth::generate_frames(valid));
  for (const char* name : {"vxlan", "geneve", "geneve-ip", "gre-key", "ipip", "erspan-ii"}) {
    SCOPED_TRACE(name);
    synth::Encapsulation mirror = *synth::encapsulation_named(name);
    mirror.underlay = synth::Underlay::Ipv6;
    mirror.outer_addresses = synth::OuterAddresses::Mirror;
    const Outcome got = run(synth::generate_frames(with_wrap(valid, mirror)));
    ASSERT_EQ(got.facts.connections.size(), 1u);
    EXPECT_EQ(got.facts.connections[0].initiator.address.family, 4);
    EXPECT_EQ(got.facts.findings, plain.facts.findings);  // notes only: the close
    EXPECT_TRUE(std::none_of(got.facts.findings.begin(), got.facts.findings.end(),
                             [](const Fact& f) { return std::get<0>(f).starts_with("startup."); }));
    EXPECT_EQ(got.stats.tunnelled_segments, got.stats.tcp_segments);
  }
}

// The same inner connection (same seed: same addresses, ports and ISNs) in two tunnels,
// their frames interleaved: without the tunnel in the flow key they would be one mangled
// connection.
std::vector<synth::CapturedFrame> interleaved(const synth::Scenario& a, const synth::Scenario& b) {
  const auto one = synth::generate_frames(a), two = synth::generate_frames(b);
  std::vector<synth::CapturedFrame> out;
  for (std::size_t i = 0; i < std::max(one.size(), two.size()); ++i) {
    if (i < one.size()) out.push_back(one[i]);
    if (i < two.size()) out.push_back(two[i]);
  }
  return out;
}

TEST(Encapsulation, TwoTunnelsWithTheSameInnerConnectionAreTwoConnections) {
  synth::Scenario faulty = synth::base_scenario("encapsulation-two-tunnels");
  faulty.initiator.messages[2].tweaks.corrupt_crc = true;
  const synth::Scenario valid = synth::base_scenario("encapsulation-two-tunnels");
  for (const char* pair : {"vxlan", "gre-key", "erspan-ii", "geneve"}) {
    SCOPED_TRACE(pair);
    synth::Encapsulation a = *synth::encapsulation_named(pair), b = a;
    b.id = a.id + 1;
    const Outcome both = run(interleaved(with_wrap(faulty, a), with_wrap(valid, b)));
    ASSERT_EQ(both.facts.connections.size(), 2u);
    EXPECT_NE(both.facts.connections[0].initiator.tunnel,
              both.facts.connections[1].initiator.tunnel);
    // Only the faulty tunnel's connection has the CRC error, once.
    const auto crc_errors =
        std::count_if(both.facts.findings.begin(), both.facts.findings.end(),
                      [](const Fact& f) { return std::get<0>(f) == "fpdu.crc-mismatch"; });
    EXPECT_EQ(crc_errors, 1);
  }
  // Outer addresses alone (IP in IP has no id) tell tunnels apart too.
  synth::Encapsulation a = *synth::encapsulation_named("ipip"), b = a;
  b.outer_host = 2;
  EXPECT_EQ(run(interleaved(with_wrap(faulty, a), with_wrap(valid, b))).facts.connections.size(),
            2u);
}

TEST(Encapsulation, FramesNotDecodedAreCountedByReason) {
  synth::Encapsulation vxlan = *synth::encapsulation_named("vxlan");
  vxlan.udp_port = 8472;
  const synth::Scenario s = with_wrap(synth::base_scenario("encapsulation-port"), vxlan);
  const Outcome unknown_port = run(synth::generate_frames(s));
  EXPECT_TRUE(unknown_port.facts.connections.empty());
  // It looks like VXLAN: counted as a tunnel payload not decoded, which the report warns of.
  EXPECT_EQ(unknown_port.stats.tunnel_payload, unknown_port.stats.frames);
  EXPECT_EQ(unknown_port.stats.unreached(), unknown_port.stats.frames);
  AnalyzerOptions options;
  options.decode.vxlan_ports.push_back(8472);
  const Outcome known_port = run(synth::generate_frames(s), options);
  EXPECT_EQ(known_port.facts.connections.size(), 1u);
  EXPECT_EQ(known_port.stats.tunnelled_segments, known_port.stats.frames);

  // GRE carrying a payload type it does not decode: counted as unreached.
  std::vector<synth::CapturedFrame> frames = synth::generate_frames(
      with_wrap(synth::base_scenario("x"), *synth::encapsulation_named("gre")));
  for (auto& f : frames) {  // the GRE protocol type: PPP
    f.bytes[14 + 20 + 2] = 0x88;
    f.bytes[14 + 20 + 3] = 0x0b;
  }
  const Outcome ppp = run(frames);
  EXPECT_EQ(ppp.stats.tunnel_payload, ppp.stats.frames);
  EXPECT_EQ(ppp.stats.unreached(), ppp.stats.frames);
}

}  // namespace
}  // namespace mpa
