// CRCs a sender computed or wrote a recognisable wrong way (RFC 5044 4.4): the CRC32c
// byte-swapped (sent most-significant octet first), not inverted at the end, both, or no CRC
// at all (zero); or the CRC32c over other octets than RFC 5044 4.4 names: without the markers
// (all of them, or only the one before ULPDU_Length, RFC 5044 4.3), or over the ULPDU alone
// (with or without its pad, as iSCSI's data digest covers its data and pad). Pure: the CRC
// received and the ones computed in, the pattern out.
//
// One FPDU names the pattern: a wrong CRC equals one of these by chance once in 2^32 each, and
// a receiver ends MPA at the first wrong CRC (RFC 5044 8), so FPDUs after it are neither judged
// nor, as a rule, sent for long.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "mpa/events.h"

namespace mpa {

enum class CrcPattern : std::uint8_t {
  Zero,
  ByteSwapped,
  NotInverted,
  ByteSwappedNotInverted,
  WithoutMarkers,        // ULPDU_Length, ULPDU and pad, the markers left out
  WithoutLeadingMarker,  // the marker before ULPDU_Length left out, those inside counted
  UlpduOnly,             // the ULPDU alone: no ULPDU_Length, pad or markers
  UlpduAndPad,           // the ULPDU and its pad: no ULPDU_Length or markers
};

// The pattern `received` follows, given the right CRC32c `computed`; nullopt when it follows
// none (or is right).
constexpr std::optional<CrcPattern> recognise_crc_pattern(std::uint32_t received,
                                                          std::uint32_t computed) {
  const auto swap = [](std::uint32_t v) {
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
  };
  if (received == computed) return std::nullopt;
  if (received == 0) return CrcPattern::Zero;
  if (received == swap(computed)) return CrcPattern::ByteSwapped;
  if (received == ~computed) return CrcPattern::NotInverted;
  if (received == swap(~computed)) return CrcPattern::ByteSwappedNotInverted;
  return std::nullopt;
}

// The CRC32c over the octets a sender that covers the wrong ones would have covered, worked
// out from the FPDU's CRC state (crc_computed) and the CRC state before each of its markers
// (MarkerFact::crc_before): nothing of the FPDU is held or read again.
struct CrcOverOtherOctets {
  std::optional<std::uint32_t> without_markers;         // when the CRC covers a marker
  std::optional<std::uint32_t> without_leading_marker;  // ... a leading one
  std::uint32_t ulpdu_only = 0;
  std::uint32_t ulpdu_and_pad = 0;
};
// `fpdu`: complete, with CRCs on (crc_status Good or Bad) and a CRC field.
CrcOverOtherOctets crc_over_other_octets(const FpduEvent& fpdu);

// The pattern of a bad CRC of `fpdu` (crc_status Bad): each way of writing the CRC32c, then
// each other coverage; nullopt when it follows none.
std::optional<CrcPattern> recognise_crc_pattern(const FpduEvent& fpdu);

// "the CRC32c byte-swapped (most-significant octet first on the wire)"
std::string_view describe(CrcPattern pattern);

}  // namespace mpa
