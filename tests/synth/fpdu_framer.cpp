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

void FpduFramer::put_marker(Chunk& out, std::uint16_t fpduptr,
                            const std::optional<MarkerTweak>& tweak) {
  std::uint16_t reserved = 0;
  if (tweak) {
    reserved = tweak->reserved;
    fpduptr = static_cast<std::uint16_t>(static_cast<std::int32_t>(fpduptr) + tweak->fpduptr_delta);
    fpduptr |= tweak->fpduptr_or;
  }
  out.marker_offsets.push_back(out.bytes.size());
  put_be16(out.bytes, reserved);
  put_be16(out.bytes, fpduptr);
  offset_ += kMarkerLength;
}

// Appends `data`, inserting a marker wherever the stream reaches a marker position. A
// marker after the header points back to the header (FPDUPTR = marker - header).
void FpduFramer::put_stream(Chunk& out, std::span<const std::uint8_t> data,
                            std::uint64_t header_offset, std::optional<MarkerTweak>& tweak) {
  while (!data.empty()) {
    if (at_marker_position()) {
      put_marker(out, static_cast<std::uint16_t>(offset_ - header_offset), tweak);
      tweak.reset();
    }
    const std::uint64_t room = markers_ ? kMarkerInterval - offset_ % kMarkerInterval : data.size();
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(room, data.size()));
    append(out.bytes, data.first(n));
    offset_ += n;
    data = data.subspan(n);
  }
}

void FpduFramer::put_crc(Chunk& out, bool corrupt) {
  if (at_marker_position()) throw std::logic_error("marker inside a CRC field");
  std::uint32_t value = crc_ ? mpa::crc32c(out.bytes) : 0;
  if (corrupt) value ^= 0x00010000u;
  out.crc_offset = out.bytes.size();
  put_le32(out.bytes, value);  // least significant octet first (RFC 5044 Figure 5)
  offset_ += 4;
}

Chunk FpduFramer::frame(std::span<const std::uint8_t> ulpdu, const FpduTweaks& tweaks) {
  if (ulpdu.size() > 0xFFFF) throw std::invalid_argument("ULPDU longer than 65535 octets");
  Chunk out;
  out.kind = ChunkKind::Fpdu;
  out.split_across_segments = tweaks.split_across_segments;
  // A marker falling between FPDUs belongs to this FPDU: FPDUPTR 0, inside its CRC.
  if (at_marker_position()) put_marker(out, 0, std::nullopt);
  const std::uint64_t header_offset = offset_;
  Bytes body;
  put_be16(body, static_cast<std::uint16_t>(ulpdu.size()));
  append(body, ulpdu);
  body.resize(body.size() + pad_length(ulpdu.size()), tweaks.pad_fill);
  std::optional<MarkerTweak> tweak = tweaks.marker;
  put_stream(out, body, header_offset, tweak);
  // A marker right after the pad is inside this FPDU and covered by its CRC.
  if (at_marker_position()) {
    put_marker(out, static_cast<std::uint16_t>(offset_ - header_offset), tweak);
    tweak.reset();
  }
  if (tweak) throw std::logic_error("marker tweak asked for an FPDU without an inner marker");
  put_crc(out, tweaks.corrupt_crc);
  return out;
}

}  // namespace mpa::synth
