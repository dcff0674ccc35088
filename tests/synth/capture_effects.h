// Effects between the wire and the capture file, applied to a conversation's packets:
// reordering, identical and differing retransmissions (also one resent late, behind a
// window's worth of data), capture loss, IP fragmentation,
// a capture that starts in the middle of the connection or at a packet of its opening, and one
// that ends inside a startup frame.
#pragma once

#include <vector>

#include "scenario.h"

namespace mpa::synth {

// Applies `effects`; throws std::invalid_argument when a SegmentRef names no segment.
void apply_capture_effects(std::vector<TcpPacket>& packets, const CaptureEffects& effects);

}  // namespace mpa::synth
