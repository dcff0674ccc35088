// Turns a scenario into a conversation: the plan (who sends which streaming bytes, startup
// frames and FPDUs, in which order, and who closes), then the TCP segments carrying it.
#pragma once

#include <vector>

#include "scenario.h"

namespace mpa::synth {

// The plan of `s` (its edit_plan hook applied). ISNs must already be resolved.
Plan build_plan(const Scenario& s);

// The TCP packets of `plan`: handshake, each turn segmented and ACKed by the peer, close.
std::vector<TcpPacket> run_plan(const Plan& plan, const Scenario& s);

// The FPDUs each side sends, framed (markers, pad, CRC) in stream order.
std::vector<Chunk> frame_fpdus(const Scenario& s, Dir from);

// Helpers for fault recipes editing a plan.
// Index of the first turn of `dir` in `phase`, or turns.size().
std::size_t find_turn(const Plan& plan, Dir dir, Phase phase);
// Drops every turn from `first` on and lets `closer` close gracefully in their place.
// `pause_us`: how long the closer waits first (a timeout), default a short turn gap.
void close_instead_from(Plan& plan, std::size_t first, Dir closer, Ending how = Ending::Fin,
                        std::optional<std::uint32_t> pause_us = std::nullopt);

}  // namespace mpa::synth
