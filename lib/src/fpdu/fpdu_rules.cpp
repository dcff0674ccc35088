// Per-FPDU rules that need the connection's context (see fpdu_rules.h): the findings.
#include "fpdu/fpdu_rules.h"

#include <fmt/format.h>

namespace mpa {

void FpduRules::report(const FpduEvent& fpdu, const FpduRuleContext& context, bool zero, bool over,
                       bool spans, std::vector<Finding>& out) {
  if (zero) {
    out.push_back(make_finding(
        DiagId::FpduUlpduLengthZero, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
        fmt::format("FPDU at seq {} has ULPDU_Length 0", fpdu.header_seq.value())));
  }
  if (over) {
    said_mulpdu_ = true;
    out.push_back(make_finding(
        DiagId::FpduExceedsMulpdu, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
        fmt::format("ULPDU_Length {} exceeds the MULPDU {} that the peer's MSS {} "
                    "allows (first of this direction)",
                    fpdu.ulpdu_length, connection_mulpdu(*context.receiver_mss, context.markers),
                    *context.receiver_mss)));
  }
  if (spans) {
    said_alignment_ = true;
    out.push_back(make_finding(
        DiagId::FpduNotSegmentAligned, fpdu.last_frame, fpdu.header_seq, header_offset(fpdu),
        fmt::format("FPDU at seq {} ({} octets on the wire) spans TCP segments "
                    "(first of this direction)",
                    fpdu.header_seq.value(), fpdu.wire_length)));
  }
}

}  // namespace mpa
