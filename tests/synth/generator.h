// The whole pipeline for one scenario: ISNs and addresses, plan, TCP packets, capture
// effects, frames with timestamps, pcap file image.
#pragma once

#include <vector>

#include "frame_builder.h"
#include "pcap_writer.h"
#include "scenario.h"

namespace mpa::synth {

// Fills in what the scenario left open (ISNs from its seed or its wrap point).
Scenario resolved(Scenario s);

// Addresses, ports and MACs of the scenario's two endpoints.
LinkConfig link_config(const Scenario& s);

// The TCP packets as captured (effects applied).
std::vector<TcpPacket> generate_packets(const Scenario& s);

// Frames with timestamps.
std::vector<CapturedFrame> generate_frames(const Scenario& s);

// The pcap file image of the scenario.
Bytes generate_pcap(const Scenario& s);

}  // namespace mpa::synth
