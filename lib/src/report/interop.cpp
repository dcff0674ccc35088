// Vendor knowledge: stack fingerprints and interop hints (see interop.h).
#include "report/interop.h"

#include <fmt/format.h>

namespace mpa {
namespace {

constexpr std::uint8_t kEchoMask =
    static_cast<std::uint8_t>(~(startup_flags::kR | startup_flags::kM));

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
    return StackGuess{"Alibaba erdma",
                      "Rev 129 with an 8-octet extension after the 20-octet header", false};
  }
  if (f.revision == 0) {
    return StackGuess{"an RDMA Consortium (Rev 0) RNIC",
                      "Rev 0 startup frame (RFC 5044 Appendix C)", false};
  }
  if (request && f.kind == FrameKind::Reply && f.revision == request->revision &&
      (f.flags & kEchoMask) == (request->flags & kEchoMask) && f.pd_length == kEnhancedBlockSize &&
      f.s() && !f.m() && !request->m() && request->pd_length == kEnhancedBlockSize) {
    return StackGuess{
        "Linux siw",
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

void name_vendor_deviations(std::vector<StartupIssue>& issues, const StartupFrame& f,
                            FrameKind role) {
  for (StartupIssue& issue : issues) {
    if (issue.id == DiagId::StartupReservedBitsSet && (f.flags & startup_flags::kRes) == 0x08) {
      issue.id = DiagId::StartupReservedBitSiwGso;
      issue.message = fmt::format(
          "reserved flag bit 0x08 set in the MPA {} (flags 0x{:02x}): Linux "
          "siw's GSO experiment; FPDUs larger than the MSS are to be expected",
          to_string(f.kind == FrameKind::Unknown ? role : f.kind), f.flags);
    }
  }
}

void RefusedRequests::remember(const Endpoint& initiator, const Endpoint& responder,
                               std::uint64_t frame) {
  refused_[{initiator.address, responder}] = frame;
}

std::optional<std::uint64_t> RefusedRequests::refused_before(const Endpoint& initiator,
                                                             const Endpoint& responder) const {
  const auto it = refused_.find({initiator.address, responder});
  if (it == refused_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> p2p_required_hint(const StartupFrame& request, bool rejected) {
  if (request.revision != 2 || !request.enhanced || request.enhanced->peer_to_peer)
    return std::nullopt;
  return fmt::format(
      "the Responder {} a Rev 2 Request with A=0 (client-server): Intel irdma "
      "refuses such frames and requires peer-to-peer (A=1)",
      rejected ? "rejected (R=1)" : "reset the connection after");
}

}  // namespace mpa
