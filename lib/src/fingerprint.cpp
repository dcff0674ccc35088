// Recognising implementations by their startup frames (see fingerprint.h).
#include "mpa/fingerprint.h"

#include <fmt/format.h>

namespace mpa {
namespace {

constexpr std::uint8_t kEchoMask = static_cast<std::uint8_t>(~(startup_flags::kR | startup_flags::kM));

// siw: Rev 2, S set, no markers, PD_Length 4 (the IRD/ORD block and nothing else), IRD/ORD
// clamped to 128.
bool siw_like_request(const StartupFrame& f) {
  return f.revision == 2 && f.s() && !f.m() && f.pd_length == kEnhancedBlockSize && f.enhanced &&
         (f.enhanced->ird <= 128 || f.enhanced->ird == kNoNegotiation) &&
         (f.enhanced->ord <= 128 || f.enhanced->ord == kNoNegotiation) && !f.enhanced->peer_to_peer;
}

}  // namespace

std::optional<StackGuess> recognise_stack(const StartupFrame& f, const StartupFrame* request) {
  if (f.revision == kVendorRevision) {
    return StackGuess{"Alibaba erdma", "Rev 129 with an 8-octet extension after the 20-octet header", false};
  }
  if (f.revision == 0) {
    return StackGuess{"an RDMA Consortium (Rev 0) RNIC", "Rev 0 startup frame (RFC 5044 Appendix C)", false};
  }
  if (request && f.kind == FrameKind::Reply && f.revision == request->revision &&
      (f.flags & kEchoMask) == (request->flags & kEchoMask) && f.pd_length == kEnhancedBlockSize &&
      f.s() && !f.m() && !request->m() && request->pd_length == kEnhancedBlockSize) {
    return StackGuess{"Linux siw",
                      fmt::format("the Reply echoes the Request's revision {} and flag bits 0x{:02x}, "
                                  "private data is only the IRD/ORD block",
                                  f.revision, f.flags & kEchoMask),
                      true};
  }
  if (f.kind == FrameKind::Request && siw_like_request(f)) {
    return StackGuess{"Linux siw",
                      fmt::format("Rev 2 Request with only S{} set, PD_Length 4 (IRD {} / ORD {})",
                                  (f.flags & 0x08) ? " and the GSO bit 0x08" : "", f.enhanced->ird,
                                  f.enhanced->ord),
                      true};
  }
  if (f.revision == 2 && f.enhanced && f.c() && f.enhanced->peer_to_peer) {
    const EnhancedBlock& e = *f.enhanced;
    if (e.write_rtr && e.read_rtr && !e.send_rtr) {
      return StackGuess{"Intel irdma", "Rev 2, C=1, A=1 offering Write and Read RTR", false};
    }
    if (e.read_rtr && !e.write_rtr && !e.send_rtr && !f.m()) {
      return StackGuess{"Chelsio cxgb4", "Rev 2, C=1, M=0, peer-to-peer with Read RTR only", false};
    }
  }
  return std::nullopt;
}

}  // namespace mpa
