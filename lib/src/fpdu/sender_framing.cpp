// The framings a broken sender is tested for (see sender_framing.h).
#include "mpa/sender_framing.h"

#include <fmt/format.h>

#include <array>

namespace mpa {
namespace {

using enum DiagId;

constexpr SenderFraming with_pad(PadRule rule) { return {rule, true, 0}; }
constexpr SenderFraming with_bias(std::int8_t bias) { return {PadRule::Rfc, true, bias}; }
constexpr SenderFraming without_crc_field() { return {PadRule::Rfc, false, 0}; }

// In order of preference: the RFC's framing first, then the deviations seen in real stacks
// (pad rule, CRC field, markers), then ULPDU_Length counting its own field or the CRC too
// (+2, +4) or leaving the DDP header's first octets out (-2, -4). A sender that negotiated
// CRCs may still send no CRC field: nothing then vouches for its FPDUs but their DDP headers
// (fpdu_search.h: test_framing asks more FPDUs of it), so it is tried after the rest.
template <bool Markers, bool Crc>
constexpr auto hypotheses() {
  constexpr std::size_t count = 1 + (Markers ? 1 : 0) + 4 + 1 + 4;
  std::array<SenderHypothesis, count> out{};
  std::size_t i = 0;
  out[i++] = {std::nullopt, kRfcFraming, Markers};
  if constexpr (Markers) out[i++] = {FpduMarkersMissing, kRfcFraming, false};
  out[i++] = {FpduPadRuleWrong, with_pad(PadRule::UlpduPlus2Mod4), Markers};
  out[i++] = {FpduPadRuleWrong, with_pad(PadRule::UlpduTo4), Markers};
  out[i++] = {FpduPadRuleWrong, with_pad(PadRule::UlpduMod4), Markers};
  out[i++] = {FpduPadRuleWrong, with_pad(PadRule::None), Markers};
  if constexpr (!Crc) out[i++] = {FpduCrcFieldMissing, without_crc_field(), Markers};
  for (const std::int8_t bias : {2, 4, -2, -4})
    out[i++] = {FpduUlpduLengthMiscounted, with_bias(bias), Markers};
  if constexpr (Crc) out[i++] = {FpduCrcFieldMissing, without_crc_field(), Markers};
  return out;
}

constexpr auto kNeither = hypotheses<false, false>();
constexpr auto kCrcOnly = hypotheses<false, true>();
constexpr auto kMarkersOnly = hypotheses<true, false>();
constexpr auto kBoth = hypotheses<true, true>();

std::string octets(std::uint32_t n) { return fmt::format("{} octet{}", n, n == 1 ? "" : "s"); }

}  // namespace

std::span<const SenderHypothesis> framing_hypotheses(bool markers, bool crc) {
  if (markers) return crc ? std::span<const SenderHypothesis>(kBoth) : kMarkersOnly;
  return crc ? std::span<const SenderHypothesis>(kCrcOnly) : kNeither;
}

bool names_sender_framing(DiagId id) {
  switch (id) {
    case FpduMarkersMissing:
    case FpduCrcFieldMissing:
    case FpduPadRuleWrong:
    case FpduUlpduLengthMiscounted:
      return true;
    default:
      return false;
  }
}

std::string describe(const SenderHypothesis& h) {
  if (!h.id) return "the RFC's framing";
  switch (*h.id) {
    case FpduMarkersMissing:
      return "no markers";
    case FpduCrcFieldMissing:
      return "no CRC field";
    case FpduPadRuleWrong:
      switch (h.framing.pad) {
        case PadRule::None:
          return "no pad";
        case PadRule::UlpduTo4:
          return "the ULPDU alone padded to a multiple of 4";
        case PadRule::UlpduMod4:
          return "pad = ULPDU_Length mod 4";
        default:
          return "pad = (ULPDU_Length + 2) mod 4";
      }
    case FpduUlpduLengthMiscounted:
      return h.framing.length_bias > 0 ? fmt::format("ULPDU_Length = ULPDU octets + {}",
                                                     static_cast<int>(h.framing.length_bias))
                                       : fmt::format("ULPDU_Length = ULPDU octets - {}",
                                                     -static_cast<int>(h.framing.length_bias));
    default:
      return "another framing";
  }
}

std::string deviation_of(const SenderHypothesis& h, std::uint32_t ulpdu_length) {
  if (!h.id) return fmt::format("ULPDU_Length {}", ulpdu_length);
  const std::uint32_t ulpdu = ulpdu_octets(h.framing, ulpdu_length).value_or(0);
  switch (*h.id) {
    case FpduPadRuleWrong:
      return fmt::format("ULPDU_Length {}: {} of pad sent, RFC 5044 4.1 needs {}", ulpdu_length,
                         octets(pad_octets(h.framing, ulpdu)), pad_length(ulpdu));
    case FpduCrcFieldMissing:
      return fmt::format(
          "ULPDU_Length {}: the next FPDU follows the pad, where RFC 5044 4.1 puts the "
          "4-octet CRC field",
          ulpdu_length);
    case FpduMarkersMissing:
      return "no marker where the receiver's M=1 puts one (RFC 5044 4.2: every 512 octets)";
    case FpduUlpduLengthMiscounted:
      return fmt::format("ULPDU_Length {}: {} of ULPDU follow it", ulpdu_length, octets(ulpdu));
    default:
      return fmt::format("ULPDU_Length {}", ulpdu_length);
  }
}

}  // namespace mpa
