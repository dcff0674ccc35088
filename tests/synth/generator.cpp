// Scenario to pcap (see generator.h).
#include "generator.h"

#include "capture_effects.h"
#include "conversation.h"
#include "rng.h"

namespace mpa::synth {
namespace {

constexpr std::uint16_t kServerPort = 20049;  // NFS over RDMA (RFC 5666)

// ISN such that `wrap_after` octets into full operation the sequence number is 0.
std::uint32_t wrapping_isn(std::size_t prefix, std::size_t frame_length, std::uint32_t wrap_after) {
  return static_cast<std::uint32_t>(0u - (1u + prefix + frame_length + wrap_after));
}

std::vector<CapturedFrame> render(const std::vector<TcpPacket>& packets, const Scenario& s) {
  const LinkConfig link = link_config(s);
  Rng rng(s.seed + 7);
  std::uint16_t ip_id[2] = {static_cast<std::uint16_t>(rng.next()),
                            static_cast<std::uint16_t>(rng.next())};
  std::uint32_t outer_id = 0x8000;  // wrapped packets fragmented: one sequence for both ways
  std::vector<CapturedFrame> frames;
  std::uint64_t now = s.start_time_us;
  for (std::size_t i = 0; i < packets.size(); ++i) {
    const TcpPacket& p = packets[i];
    now += p.gap_us;
    const std::uint16_t id = ip_id[index_of(p.dir)]++;
    const std::optional<IpFragmentation>& cut =
        p.fragmentation ? p.fragmentation : s.effects.ip_fragments;
    // The IPv6 identification: the same per-direction sequence, the direction above it.
    const std::uint32_t datagram =
        std::uint32_t{id} | static_cast<std::uint32_t>(index_of(p.dir) + 1) << 16;
    std::vector<Bytes> inner = {build_frame(p, link, id)};
    if (cut && !cut->outer) inner = fragment_frame(inner.front(), *cut, datagram);
    for (Bytes& bytes : inner) {
      if (s.effects.wrap) bytes = encapsulate(bytes, *s.effects.wrap, p.dir);
      std::vector<Bytes> outer = {std::move(bytes)};
      if (cut && cut->outer) outer = fragment_frame(outer.front(), *cut, outer_id++);
      for (Bytes& frame : outer) {
        frames.push_back({now, std::move(frame), i});
        now += 1;
      }
    }
  }
  return frames;
}

}  // namespace

Scenario resolved(Scenario s) {
  Rng rng(s.seed);
  for (Dir d : {Dir::Initiator, Dir::Responder}) {
    PeerConfig& p = s.peer(d);
    const std::uint32_t random_isn = static_cast<std::uint32_t>(rng.next());
    if (p.isn_given) continue;
    p.tcp.isn = s.wrap_after
                    ? wrapping_isn(s.streaming_prefix, startup_frame_length(p.frame), *s.wrap_after)
                    : random_isn;
  }
  return s;
}

LinkConfig link_config(const Scenario& s) {
  LinkConfig link;
  link.ipv6 = s.ipv6;
  link.vlan = s.vlan;
  link.mac = {{{0x02, 0x00, 0x5E, 0x10, 0x00, 0x01}, {0x02, 0x00, 0x5E, 0x10, 0x00, 0x02}}};
  link.ipv4 = {{{192, 0, 2, 10}, {192, 0, 2, 20}}};
  link.ipv6_addr = {{{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10},
                     {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20}}};
  link.port = {static_cast<std::uint16_t>(49152 + s.seed % 16000), kServerPort};
  if (s.ipv4) link.ipv4 = *s.ipv4;
  if (s.mac) link.mac = *s.mac;
  return link;
}

std::vector<TcpPacket> generate_packets(const Scenario& scenario) {
  const Scenario s = resolved(scenario);
  std::vector<TcpPacket> packets = run_plan(build_plan(s), s);
  apply_capture_effects(packets, s.effects);
  return packets;
}

std::vector<CapturedFrame> generate_frames(const Scenario& s) {
  return render(generate_packets(s), s);
}

Bytes generate_pcap(const Scenario& s) { return encode_pcap(generate_frames(s), s.snaplen); }

}  // namespace mpa::synth
