// Per-FPDU rules that need the connection's context (see fpdu_rules.h).
#include "mpa/fpdu_rules.h"

#include <fmt/format.h>

#include "mpa/marker_grid.h"

namespace mpa {

void FpduRules::check(const FpduEvent& fpdu, const FpduRuleContext& context, std::vector<Finding>& out) {
  if (fpdu.ulpdu_length == 0) {
    out.push_back(make_finding(DiagId::FpduUlpduLengthZero, fpdu.last_frame, fpdu.header_seq, fpdu.header_offset(),
                               fmt::format("FPDU at seq {} has ULPDU_Length 0", fpdu.header_seq.value())));
  }
  // MULPDU from the MSS the receiver announced (RFC 5044 4.5).
  const auto& mss = context.receiver_mss;
  if (mss && !said_mulpdu_) {
    const std::uint32_t limit = mulpdu(*mss, context.markers);
    if (fpdu.ulpdu_length > limit) {
      said_mulpdu_ = true;
      out.push_back(make_finding(DiagId::FpduExceedsMulpdu, fpdu.last_frame, fpdu.header_seq, fpdu.header_offset(),
                                 fmt::format("ULPDU_Length {} exceeds the MULPDU {} that the peer's MSS {} "
                                             "allows (first of this direction)",
                                             fpdu.ulpdu_length, limit, *mss)));
    }
  }
  // RFC 5044 5.1: an FPDU that fits a segment should travel in one.
  if (!said_alignment_ && !fpdu.within_one_segment && (!mss || fpdu.wire_length <= *mss)) {
    said_alignment_ = true;
    out.push_back(make_finding(DiagId::FpduNotSegmentAligned, fpdu.last_frame, fpdu.header_seq, fpdu.header_offset(),
                               fmt::format("FPDU at seq {} ({} octets on the wire) spans TCP segments "
                                           "(first of this direction)",
                                           fpdu.header_seq.value(), fpdu.wire_length)));
  }
}

}  // namespace mpa
