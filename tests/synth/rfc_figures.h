// The capture that carries RFC 5044 Figures 5 and 6 byte-exact inside real connections,
// and the self-check that the generator's framing reproduces them.
#pragma once

#include <vector>

#include "pcap_writer.h"
#include "scenario.h"

namespace mpa::synth {

// Connection 1: the Initiator's first FPDU is Figure 5. Connection 2: the Initiator's
// first FPDU is a 492-octet Send (leading marker included) and its second is Figure 6.
// Both Replies have M=1 and C=1.
std::vector<Scenario> rfc_figure_scenarios();

// Frames of both connections, one after the other. Throws std::logic_error unless the
// Initiator streams hold the figures' octets at the figures' offsets.
std::vector<CapturedFrame> rfc_figures_frames();

// The figures' octets as printed in RFC 5044.
Bytes rfc5044_figure5();
Bytes rfc5044_figure6();  // stream offsets 0x1ec to 0x21f

}  // namespace mpa::synth
