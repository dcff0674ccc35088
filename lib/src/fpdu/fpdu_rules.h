// Per-FPDU rules of MPA that need more than the FPDU itself (RFC 5044 4.1, 4.5, 5.1): a
// ULPDU_Length of 0, the MULPDU the receiver's MSS allows, and FPDUs aligned with TCP
// segments. One object per sender; the MULPDU and alignment rules are said once per
// direction. Pure: an FPDU in, findings out.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mpa/events.h"
#include "mpa/marker_grid.h"

namespace mpa {

// No MULPDU exceeds 64768 octets, whatever the MSS (the ceiling of
// fpdu.ulpdu-length-too-large, which the FPDU reader judges every FPDU by): a larger MSS
// (Linux loopback announces 65495) does not make larger ULPDUs sensible. Caveat: Linux
// loopback (MTU 65536) can carry ULPDUs up to ~65470 octets; on such captures that warning
// names FPDUs that do fit that one path.
inline constexpr std::uint32_t kLargestMulpdu = 64768;
// The MULPDU a receiver's MSS allows (RFC 5044 4.5), at most kLargestMulpdu.
constexpr std::uint32_t connection_mulpdu(std::uint32_t receiver_mss, bool markers) {
  const std::uint32_t m = mulpdu(receiver_mss, markers);
  return m < kLargestMulpdu ? m : kLargestMulpdu;
}

struct FpduRuleContext {
  std::optional<std::uint16_t> receiver_mss;  // the MSS option in the receiver's SYN
  bool markers = false;                       // markers in this direction
};

class FpduRules {
 public:
  // Appends to `out` what `fpdu` (a judged FPDU) breaks. Inline: this runs once per FPDU
  // and almost never finds anything.
  void check(const FpduEvent& fpdu, const FpduRuleContext& context, std::vector<Finding>& out) {
    const auto& mss = context.receiver_mss;
    const bool zero = fpdu.ulpdu_length == 0;
    const bool over =
        mss && !said_mulpdu_ && fpdu.ulpdu_length > connection_mulpdu(*mss, context.markers);
    // RFC 5044 5.1: an FPDU that fits a segment should travel in one.
    const bool spans =
        !said_alignment_ && !fpdu.within_one_segment && (!mss || fpdu.wire_length <= *mss);
    if (zero || over || spans) report(fpdu, context, zero, over, spans, out);
  }
  // The FPDU said to span segments was misread (its sender frames otherwise): the rule is
  // judged again on the FPDUs that follow.
  void reopen_alignment() { said_alignment_ = false; }

 private:
  void report(const FpduEvent& fpdu, const FpduRuleContext& context, bool zero, bool over,
              bool spans, std::vector<Finding>& out);

  bool said_mulpdu_ = false;
  bool said_alignment_ = false;
};

}  // namespace mpa
