// MPA FPDU framing with markers and CRC32c (see fpdu_framer.h).
#include "fpdu_framer.h"

#include <algorithm>
#include <stdexcept>

#include "mpa/crc32c.h"

namespace mpa::synth {

std::size_t mulpdu(std::size_t emss, bool markers) {
  const std::size_t marker_room = markers ? 4 * ((emss + 511) / 512) : 0;
  return emss - (6 + marker_room + emss % 4);
}

void FpduFramer::put_marker(Chunk& out, std::uint16_t reserved, std::uint16_t fpduptr) {
  out.marker_offsets.push_back(out.bytes.size());
  put_be16(out.bytes, reserved);
  put_be16(out.bytes, fpduptr);
  offset_ += kMarkerLength;
}

// A marker after the FPDU's header points back to it (FPDUPTR = marker - header), with the
// damage asked for: to every marker, then to the first one.
void FpduFramer::put_inner_marker(Chunk& out, std::uint64_t header_offset, const FpduTweaks& tweaks,
                                  std::optional<MarkerTweak>& first) {
  std::uint16_t reserved = tweaks.every_marker.reserved;
  std::int32_t fpduptr =
      static_cast<std::int32_t>(static_cast<std::uint16_t>(offset_ - header_offset));
  fpduptr += tweaks.every_marker.fpduptr_delta;
  std::uint16_t fpduptr_or = tweaks.every_marker.fpduptr_or;
  if (first) {
    reserved |= first->reserved;
    fpduptr += first->fpduptr_delta;
    fpduptr_or |= first->fpduptr_or;
    first.reset();
  }
  put_marker(out, reserved,
             static_cast<std::uint16_t>(static_cast<std::uint16_t>(fpduptr) | fpduptr_or));
}

// Appends `data`, inserting a marker wherever the stream reaches a marker position.
void FpduFramer::put_stream(Chunk& out, std::span<const std::uint8_t> data,
                            std::uint64_t header_offset, const FpduTweaks& tweaks,
                            std::optional<MarkerTweak>& first) {
  while (!data.empty()) {
    if (at_marker_position()) put_inner_marker(out, header_offset, tweaks, first);
    const std::uint64_t room = markers_ ? kMarkerInterval - offset_ % kMarkerInterval : data.size();
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(room, data.size()));
    append(out.bytes, data.first(n));
    offset_ += n;
    data = data.subspan(n);
  }
}

Chunk FpduFramer::frame(std::span<const std::uint8_t> ulpdu, const FpduTweaks& tweaks) {
  if (ulpdu.size() > 0xFFFF) throw std::invalid_argument("ULPDU longer than 65535 octets");
  Chunk out;
  out.kind = ChunkKind::Fpdu;
  out.split_across_segments = tweaks.split_across_segments;
  // A marker falling between FPDUs belongs to this FPDU: FPDUPTR 0, inside its CRC.
  const bool leading = at_marker_position();
  if (leading) {
    put_marker(out, tweaks.every_marker.reserved,
               static_cast<std::uint16_t>(tweaks.leading_fpduptr.value_or(0) |
                                          tweaks.every_marker.fpduptr_or));
  }
  const std::uint64_t header_offset = offset_;
  Bytes body;
  put_be16(body, static_cast<std::uint16_t>(static_cast<int>(ulpdu.size()) + quirks_.length_bias));
  append(body, ulpdu);
  std::size_t pad = pad_length(ulpdu.size());
  if (quirks_.pad == SenderQuirks::Pad::UlpduPlus2Mod4) pad = (ulpdu.size() + 2) % 4;
  if (quirks_.pad == SenderQuirks::Pad::None) pad = 0;
  if (quirks_.pad == SenderQuirks::Pad::UlpduTo4) pad = (4 - ulpdu.size() % 4) % 4;
  body.resize(body.size() + pad, tweaks.pad_fill);
  std::optional<MarkerTweak> first = tweaks.marker;
  put_stream(out, body, header_offset, tweaks, first);
  // A marker right after the pad is inside this FPDU and covered by its CRC.
  if (at_marker_position()) put_inner_marker(out, header_offset, tweaks, first);
  if (first) throw std::logic_error("marker tweak asked for an FPDU without an inner marker");

  // The CRC covers everything so far, markers included (RFC 5044 4.4); it goes on the wire
  // least significant octet first (RFC 5044 Figure 5). On a misaligned grid a marker can
  // fall inside the CRC field: it is written there, not covered.
  if (quirks_.omit_crc_field) return out;
  std::uint32_t value = crc_ ? mpa::crc32c(out.bytes) : 0;
  switch (quirks_.crc) {
    case SenderQuirks::Crc::Rfc:
      break;
    case SenderQuirks::Crc::Zero:
      value = 0;
      break;
    case SenderQuirks::Crc::ByteSwapped:
      value = (value >> 24) | ((value >> 8) & 0x0000FF00u) | ((value << 8) & 0x00FF0000u) |
              (value << 24);
      break;
    case SenderQuirks::Crc::NotInverted:
      value = ~value;
      break;
    case SenderQuirks::Crc::WithoutMarkers:
      value = mpa::crc32c(body);
      break;
    case SenderQuirks::Crc::WithoutLeadingMarker:
      value = mpa::crc32c(std::span(out.bytes).subspan(leading ? kMarkerLength : 0));
      break;
    case SenderQuirks::Crc::UlpduOnly:
      value = mpa::crc32c(ulpdu);
      break;
    case SenderQuirks::Crc::UlpduAndPad:
      value = mpa::crc32c(std::span(body).subspan(2));
      break;
  }
  if (tweaks.corrupt_crc) value ^= 0x00010000u;
  value ^= tweaks.crc_xor;
  out.crc_offset = out.bytes.size();
  out.crc_sent = value;
  Bytes field;
  put_le32(field, value);
  put_stream(out, field, header_offset, tweaks, first);
  return out;
}

}  // namespace mpa::synth
