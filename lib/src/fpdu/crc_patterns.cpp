// CRCs computed or written a recognisable wrong way (see crc_patterns.h).
#include "fpdu/crc_patterns.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>

#include "mpa/crc32c.h"
#include "mpa/fpdu_layout.h"

namespace mpa {
namespace {

// The running CRC state after `n` zero octets from `state`. The CRC register's step is linear
// in the register and the octet, so this is the part of a later state that `state` accounts
// for, `n` octets on: the running state over A and then B is shift(state over A, |B|) XOR the
// state over B begun from 0.
std::uint32_t shift(std::uint32_t state, std::uint64_t n) {
  static constexpr std::array<std::uint8_t, 4096> kZeros{};
  while (n > 0) {
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, kZeros.size()));
    state = crc32c_update(state, std::span(kZeros).first(take));
    n -= take;
  }
  return state;
}

}  // namespace

CrcOverOtherOctets crc_over_other_octets(const FpduEvent& fpdu) {
  CrcOverOtherOctets out;
  // The octets the CRC covers other than markers: ULPDU_Length, the ULPDU and the pad.
  const std::uint64_t content = kUlpduLengthSize + fpdu.ulpdu_size + fpdu.pad_length;
  const std::uint32_t full = fpdu.crc_computed ^ 0xFFFFFFFFu;  // the running state
  // A state over the octets without some markers differs from the state over all of them by
  // what each marker left out added, carried over the octets both cover after it: a marker
  // changes the running state from crc_before to the state after its octets, and the
  // difference runs on.
  std::uint32_t without_all = 0;
  std::uint32_t without_leading = 0;
  std::size_t covered = 0;
  bool leading = false;
  for (std::size_t k = 0; k < fpdu.markers.size(); ++k) {
    const MarkerFact& m = fpdu.markers[k];
    // Content octets before this marker (the markers before it are 4 octets each).
    const std::uint64_t before = m.seq.distance_from(fpdu.start_seq) - kMarkerSize * k;
    if (before > content) break;  // inside the CRC field: not covered
    const std::array<std::uint8_t, kMarkerSize> octets{
        static_cast<std::uint8_t>(m.reserved >> 8), static_cast<std::uint8_t>(m.reserved),
        static_cast<std::uint8_t>(m.fpdu_ptr >> 8), static_cast<std::uint8_t>(m.fpdu_ptr)};
    const std::uint32_t step = m.crc_before ^ crc32c_update(m.crc_before, octets);
    without_all ^= shift(step, content - before);
    if (k == 0 && fpdu.leading_marker) {
      leading = true;
      without_leading = step;
    }
    ++covered;
  }
  if (covered > 0) out.without_markers = crc32c_finish(full ^ without_all);
  if (leading) {
    // Left out alone, the leading marker's difference runs on over every octet after it.
    out.without_leading_marker =
        crc32c_finish(full ^ shift(without_leading, content + kMarkerSize * (covered - 1)));
  }
  // Without markers, the state over ULPDU_Length, ULPDU and pad; the ULPDU_Length field's part
  // taken out leaves the state over the ULPDU and pad begun from the initial state.
  const std::uint32_t plain = full ^ without_all;
  const std::array<std::uint8_t, 2> length{static_cast<std::uint8_t>(fpdu.ulpdu_length >> 8),
                                           static_cast<std::uint8_t>(fpdu.ulpdu_length)};
  const std::uint32_t after_length = crc32c_update(kCrc32cInit, length);
  const std::uint32_t head = after_length ^ kCrc32cInit;
  out.ulpdu_and_pad =
      crc32c_finish(plain ^ shift(head, std::uint64_t{fpdu.ulpdu_size} + fpdu.pad_length));
  const std::uint32_t before_pad =
      crc32c_rewind(plain, std::span(fpdu.pad).first(std::min<std::size_t>(fpdu.pad_length, 3)));
  out.ulpdu_only = crc32c_finish(before_pad ^ shift(head, fpdu.ulpdu_size));
  return out;
}

std::optional<CrcPattern> recognise_crc_pattern(const FpduEvent& fpdu) {
  if (fpdu.crc_status != CrcStatus::Bad) return std::nullopt;
  if (const auto p = recognise_crc_pattern(fpdu.crc_received, fpdu.crc_computed)) return p;
  if (!fpdu.crc_field) return std::nullopt;
  const CrcOverOtherOctets other = crc_over_other_octets(fpdu);
  const std::uint32_t r = fpdu.crc_received;
  // (With the leading marker the only one covered, both are the same CRC: named after the
  // leading marker, the one RFC 5044 4.3 names.)
  if (other.without_leading_marker == r) return CrcPattern::WithoutLeadingMarker;
  if (other.without_markers == r) return CrcPattern::WithoutMarkers;
  if (other.ulpdu_only == r) return CrcPattern::UlpduOnly;
  if (other.ulpdu_and_pad == r) return CrcPattern::UlpduAndPad;
  return std::nullopt;
}

std::string_view describe(CrcPattern pattern) {
  switch (pattern) {
    case CrcPattern::Zero:
      return "a CRC field of zero (no CRC computed)";
    case CrcPattern::ByteSwapped:
      return "the CRC32c byte-swapped (most-significant octet first on the wire)";
    case CrcPattern::NotInverted:
      return "the CRC32c without its final inversion";
    case CrcPattern::ByteSwappedNotInverted:
      return "the CRC32c without its final inversion, byte-swapped";
    case CrcPattern::WithoutMarkers:
      return "the CRC32c computed without the markers, which it must cover (RFC 5044 4.3, 4.4)";
    case CrcPattern::WithoutLeadingMarker:
      return "the CRC32c computed without the marker before ULPDU_Length, which it must cover "
             "(RFC 5044 4.3)";
    case CrcPattern::UlpduOnly:
      return "the CRC32c over the ULPDU alone, without ULPDU_Length, pad and markers (RFC 5044 "
             "4.4)";
    case CrcPattern::UlpduAndPad:
      return "the CRC32c over the ULPDU and its pad alone, as iSCSI's data digest, without "
             "ULPDU_Length and markers (RFC 5044 4.4)";
  }
  return "?";
}

}  // namespace mpa
