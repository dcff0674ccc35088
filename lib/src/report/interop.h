// Vendor knowledge, in one place: recognising implementations by their startup frames and
// the hints that predict interop failures between them (from the stacks' sources and
// captures: Linux siw, Chelsio cxgb4, Intel irdma, Alibaba erdma, Rev 0 peers). Hints for
// interop debugging, never conformance verdicts. Pure: frames in, values out.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mpa/packet.h"
#include "mpa/startup_frame.h"

namespace mpa {

struct StackGuess {
  std::string name;  // "Linux siw"
  std::string why;   // the evidence, in a sentence
  bool siw = false;
};

// `request` is the Request a Reply answers (nullptr for a Request).
std::optional<StackGuess> recognise_stack(const StartupFrame& frame, const StartupFrame* request);

// Names a generic startup finding more precisely where a known stack explains it (Linux
// siw's GSO experiment sets reserved bit 0x08). `role`: what the frame was due to be.
void name_vendor_deviations(std::vector<StartupIssue>& issues, const StartupFrame& frame,
                            FrameKind role);

// Rev 2 Requests the peer refused, remembered across the connections of one capture, to
// recognise the Chelsio/Intel fallback of retrying with Rev 1.
class RefusedRequests {
 public:
  // The Initiator's Rev 2 Request was refused (R=1, or a reset instead of a Reply).
  void remember(const Endpoint& initiator, const Endpoint& responder, std::uint64_t frame);
  // The frame of an earlier refusal between the same Initiator address and Responder.
  std::optional<std::uint64_t> refused_before(const Endpoint& initiator,
                                              const Endpoint& responder) const;

 private:
  std::map<std::pair<IpAddress, Endpoint>, std::uint64_t> refused_;
};

// The hint for a refused Rev 2 Request with A=0: Intel irdma requires peer-to-peer.
// nullopt when the Request does not fit. `rejected`: a Reply with R=1 (else a reset).
std::optional<std::string> p2p_required_hint(const StartupFrame& request, bool rejected);

}  // namespace mpa
