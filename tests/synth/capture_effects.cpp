// Capture effects (see capture_effects.h).
#include "capture_effects.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace mpa::synth {
namespace {

constexpr std::uint32_t kRetransmissionTimeoutUs = 200000;

bool is_full_operation_data(const TcpPacket& p, Dir dir) {
  return p.dir == dir && p.phase == Phase::FullOperation && !p.payload.empty() && !p.retransmission;
}

// Packets are tagged with their original position so that effects can find them after
// other effects moved things around.
struct Tagged {
  TcpPacket packet;
  std::size_t serial;
};

std::size_t serial_of(const std::vector<Tagged>& packets, const SegmentRef& ref) {
  std::size_t seen = 0;
  for (const Tagged& t : packets) {
    if (!is_full_operation_data(t.packet, ref.dir)) continue;
    if (seen++ == ref.index) return t.serial;
  }
  throw std::invalid_argument("no full-operation data segment " + std::to_string(ref.index) +
                              " from the " +
                              (ref.dir == Dir::Initiator ? "Initiator" : "Responder"));
}

std::size_t position_of(const std::vector<Tagged>& packets, std::size_t serial) {
  for (std::size_t i = 0; i < packets.size(); ++i) {
    if (packets[i].serial == serial) return i;
  }
  throw std::logic_error("packet vanished");
}

// A copy of the segment, three packets later, after a retransmission timeout.
void retransmit(std::vector<Tagged>& packets, std::size_t serial, bool change_an_octet) {
  const std::size_t pos = position_of(packets, serial);
  Tagged copy = packets[pos];
  copy.packet.retransmission = true;
  copy.packet.gap_us = kRetransmissionTimeoutUs;
  copy.serial = packets.size() + 1000000;
  if (change_an_octet) copy.packet.payload[copy.packet.payload.size() / 2] ^= 0x5A;
  const std::size_t at = std::min(pos + 4, packets.size());
  packets.insert(packets.begin() + static_cast<std::ptrdiff_t>(at), std::move(copy));
}

// The segment, lost downstream, resent after its sender sent `late.after_octets` more; the
// peer's ACKs in between stop at its first octet.
void retransmit_late(std::vector<Tagged>& packets, std::size_t serial,
                     const LateRetransmission& late) {
  const std::size_t pos = position_of(packets, serial);
  const TcpPacket& original = packets[pos].packet;
  std::size_t sent = 0;
  std::size_t at = pos + 1;
  for (; at < packets.size() && sent < late.after_octets; ++at) {
    const TcpPacket& p = packets[at].packet;
    if (p.dir == original.dir && !p.retransmission) sent += p.payload.size();
  }
  if (sent < late.after_octets) {
    throw std::invalid_argument("the sender sends only " + std::to_string(sent) +
                                " octets after the late segment");
  }
  const std::uint32_t hole = original.seq;
  for (std::size_t q = pos + 1; q < at; ++q) {
    TcpPacket& p = packets[q].packet;
    if (p.dir != original.dir && (p.flags & tcp_flag::kAck) &&
        static_cast<std::int32_t>(p.ack - hole) > 0) {
      p.ack = hole;
    }
  }
  Tagged copy = packets[pos];
  copy.packet.retransmission = true;
  copy.serial = packets.size() + 3000000;
  if (late.change_an_octet) copy.packet.payload[copy.packet.payload.size() / 2] ^= 0x5A;
  packets.insert(packets.begin() + static_cast<std::ptrdiff_t>(at), std::move(copy));
}

// The next data segment of the same sender overtakes this one.
void reorder(std::vector<Tagged>& packets, std::size_t serial) {
  const std::size_t pos = position_of(packets, serial);
  const Dir dir = packets[pos].packet.dir;
  for (std::size_t q = pos + 1; q < packets.size(); ++q) {
    if (!is_full_operation_data(packets[q].packet, dir)) continue;
    Tagged later = std::move(packets[q]);
    packets.erase(packets.begin() + static_cast<std::ptrdiff_t>(q));
    packets.insert(packets.begin() + static_cast<std::ptrdiff_t>(pos), std::move(later));
    return;
  }
  throw std::invalid_argument("reordered segment is its sender's last");
}

// The first packet that is `edge` (the capture's start) or one of the startup frame's segments.
bool is_edge(const TcpPacket& p, CaptureEdge edge) {
  const bool syn_ack = (p.flags & tcp_flag::kSyn) && (p.flags & tcp_flag::kAck);
  switch (edge) {
    case CaptureEdge::SynAck:
      return syn_ack;
    case CaptureEdge::FinalAck:
      return p.phase == Phase::Handshake && !(p.flags & tcp_flag::kSyn) && p.dir == Dir::Initiator;
    case CaptureEdge::Request:
      return p.phase == Phase::Startup && p.dir == Dir::Initiator && !p.payload.empty();
    case CaptureEdge::Reply:
      return p.phase == Phase::Startup && p.dir == Dir::Responder && !p.payload.empty();
  }
  return false;
}

std::size_t edge_position(const std::vector<Tagged>& packets, CaptureEdge edge) {
  for (std::size_t i = 0; i < packets.size(); ++i) {
    if (is_edge(packets[i].packet, edge)) return i;
  }
  throw std::invalid_argument("the conversation has no such packet at its opening");
}

// Keeps the packets up to the `inside.segments`-th segment of the startup frame.
void end_inside(std::vector<Tagged>& packets, const EndInside& inside) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < packets.size(); ++i) {
    if (!is_edge(packets[i].packet, inside.frame) || ++seen < inside.segments) continue;
    packets.erase(packets.begin() + static_cast<std::ptrdiff_t>(i + 1), packets.end());
    return;
  }
  throw std::invalid_argument("the startup frame has fewer segments than the capture keeps");
}

void erase_serial(std::vector<Tagged>& packets, std::size_t serial) {
  packets.erase(packets.begin() + static_cast<std::ptrdiff_t>(position_of(packets, serial)));
}

}  // namespace

void apply_capture_effects(std::vector<TcpPacket>& in, const CaptureEffects& effects) {
  std::vector<Tagged> packets;
  for (std::size_t i = 0; i < in.size(); ++i) packets.push_back({std::move(in[i]), i});
  auto serials = [&](const std::vector<SegmentRef>& refs) {
    std::vector<std::size_t> out;
    for (const SegmentRef& r : refs) out.push_back(serial_of(packets, r));
    return out;
  };
  const bool resend_late = effects.late.has_value();  // (not std::optional: see start below)
  const std::size_t late = resend_late ? serial_of(packets, effects.late->segment) : 0;
  const auto fragment = serials(effects.fragment), fragment_lost = serials(effects.fragment_lost),
             fragment_overlap = serials(effects.fragment_overlap),
             duplicate = serials(effects.duplicate), mismatch = serials(effects.mismatch),
             reordered = serials(effects.reorder), dropped = serials(effects.drop);
  // The packet the capture starts at, by serial (a bool and a value, not std::optional:
  // g++ 12 -O3 warns maybe-uninitialized on an optional read under its own test).
  const bool cut_start = effects.start_at.has_value();
  const std::size_t start = cut_start ? serial_of(packets, *effects.start_at) : 0;

  const auto fragment_as = [&](const std::vector<std::size_t>& serials, bool lost, bool overlap) {
    IpFragmentation f;  // two fragments
    f.lose_last = lost;
    f.overlap_mismatch = overlap;
    for (std::size_t s : serials) packets[position_of(packets, s)].packet.fragmentation = f;
  };
  fragment_as(fragment, false, false);
  fragment_as(fragment_lost, true, false);
  fragment_as(fragment_overlap, false, true);
  for (std::size_t s : duplicate) retransmit(packets, s, false);
  for (std::size_t s : mismatch) retransmit(packets, s, true);
  if (resend_late) retransmit_late(packets, late, *effects.late);
  for (std::size_t s : reordered) reorder(packets, s);
  for (std::size_t s : dropped) erase_serial(packets, s);
  if (effects.duplicate_rst) {
    const auto rst = std::find_if(packets.rbegin(), packets.rend(), [](const Tagged& t) {
      return (t.packet.flags & tcp_flag::kRst) != 0;
    });
    if (rst == packets.rend())
      throw std::invalid_argument("duplicate_rst: the conversation sends no RST");
    Tagged copy = *rst;
    copy.packet.retransmission = true;
    copy.packet.gap_us = 40;
    copy.serial = packets.size() + 2000000;
    packets.insert(rst.base(), std::move(copy));
  }
  if (cut_start) {
    packets.erase(packets.begin(),
                  packets.begin() + static_cast<std::ptrdiff_t>(position_of(packets, start)));
  }
  if (effects.end_inside) end_inside(packets, *effects.end_inside);
  if (effects.start_at_edge) {
    packets.erase(packets.begin(), packets.begin() + static_cast<std::ptrdiff_t>(edge_position(
                                                         packets, *effects.start_at_edge)));
  }
  in.clear();
  for (Tagged& t : packets) in.push_back(std::move(t.packet));
}

}  // namespace mpa::synth
