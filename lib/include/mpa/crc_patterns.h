// CRCs a sender computed or wrote a recognisable wrong way (RFC 5044 4.4): the CRC32c
// byte-swapped (sent most-significant octet first), not inverted at the end, both, or no CRC
// at all (zero). Pure: the CRC received and the one computed in, the pattern out.
//
// One FPDU names the pattern: a wrong CRC equals one of these by chance once in 2^32, and a
// receiver ends MPA at the first wrong CRC (RFC 5044 8), so FPDUs after it are neither judged
// nor, as a rule, sent for long.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mpa {

enum class CrcPattern : std::uint8_t { Zero, ByteSwapped, NotInverted, ByteSwappedNotInverted };

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

// "the CRC32c byte-swapped (most-significant octet first on the wire)"
std::string_view describe(CrcPattern pattern);

}  // namespace mpa
