// IP fragmentation as a capture effect: the IP packet of a frame cut into fragments (RFC 791
// 2.3 and 3.2: IPv4 flags and fragment offset; RFC 8200 4.5: the IPv6 Fragment header), as a
// host or router on a smaller MTU sends them, in order or last first, one of them lost or
// captured again with an octet changed. The checker must reassemble them as Wireshark does.
#pragma once

#include <cstdint>
#include <vector>

#include "bytes.h"

namespace mpa::synth {

enum class FragmentOrder : std::uint8_t {
  InOrder,   // by offset
  Reversed,  // the last fragment first (as some stacks send them)
};

struct IpFragmentation {
  // Octets of the IP payload per fragment, rounded down to a multiple of 8 (at least 8);
  // 0: two fragments, the first carrying half the payload rounded up to a multiple of 8.
  // Packets whose payload fits in one fragment are sent whole.
  std::size_t size = 0;
  FragmentOrder order = FragmentOrder::InOrder;
  bool lose_last = false;  // the fragment at the highest offset is missing from the capture
  // The fragment at offset 0 is captured a second time right after itself (before the others:
  // in order only), the last octet of its data changed.
  bool overlap_mismatch = false;
  bool outer = false;  // fragments the outer IP packet of a wrapped frame (--wrap), not the inner
};

// The frames carrying `frame`'s IP packet (after an Ethernet header and any VLAN tags) as
// fragments named `id` (the IPv4 identification's low 16 bits, or the IPv6 Fragment header's
// identification); `frame` itself when it holds no IP packet or one too small to cut.
std::vector<Bytes> fragment_frame(const Bytes& frame, const IpFragmentation& fragmentation,
                                  std::uint32_t id);

}  // namespace mpa::synth
