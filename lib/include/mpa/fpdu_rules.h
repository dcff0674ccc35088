// Per-FPDU rules of MPA that need more than the FPDU itself (RFC 5044 4.5, 5.1): the
// MULPDU the receiver's MSS allows, and FPDUs aligned with TCP segments. One object per
// sender; each rule is said once per direction. Pure: an FPDU in, findings out.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mpa/events.h"

namespace mpa {

struct FpduRuleContext {
  std::optional<std::uint16_t> receiver_mss;  // the MSS option in the receiver's SYN
  bool markers = false;                       // markers in this direction
};

class FpduRules {
 public:
  // Appends to `out` what `fpdu` (a judged FPDU) breaks.
  void check(const FpduEvent& fpdu, const FpduRuleContext& context, std::vector<Finding>& out);

 private:
  bool said_mulpdu_ = false;
  bool said_alignment_ = false;
};

}  // namespace mpa
