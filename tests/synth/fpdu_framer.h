// MPA framing of one direction (RFC 5044 4): ULPDU_Length, ULPDU, pad, CRC32c, and the
// markers every 512 octets of the direction's stream counted from the first octet of full
// operation. Written on its own, without lib/'s marker grid, so that a misreading of the
// RFC shared by generator and checker cannot hide.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "chunk.h"

namespace mpa::synth {

inline constexpr std::uint64_t kMarkerInterval = 512;
inline constexpr std::size_t kMarkerLength = 4;

// Deliberate damage to one marker: the first marker inside the FPDU after its header.
struct MarkerTweak {
  std::uint16_t reserved = 0;      // marker.reserved-nonzero
  std::int32_t fpduptr_delta = 0;  // marker.fpduptr-mismatch
  std::uint16_t fpduptr_or = 0;    // marker.fpduptr-low-bits
};

// Deliberate damage to one FPDU. The CRC is computed over what is sent (pad and markers
// included), so only `corrupt_crc` makes the CRC wrong.
struct FpduTweaks {
  bool corrupt_crc = false;
  std::uint8_t pad_fill = 0;
  std::optional<MarkerTweak> marker;
  bool split_across_segments = false;
};

class FpduFramer {
 public:
  FpduFramer(bool markers, bool crc) : markers_(markers), crc_(crc) {}

  // The next FPDU of the stream, with the markers that fall in it.
  Chunk frame(std::span<const std::uint8_t> ulpdu, const FpduTweaks& tweaks = {});

  // Octets of full operation framed so far (markers included).
  std::uint64_t stream_offset() const { return offset_; }

 private:
  bool at_marker_position() const { return markers_ && offset_ % kMarkerInterval == 0; }
  void put_marker(Chunk& out, std::uint16_t fpduptr, const std::optional<MarkerTweak>& tweak);
  void put_stream(Chunk& out, std::span<const std::uint8_t> data, std::uint64_t header_offset,
                  std::optional<MarkerTweak>& tweak);
  void put_crc(Chunk& out, bool corrupt);

  bool markers_;
  bool crc_;
  std::uint64_t offset_ = 0;  // of the next octet, from the first octet of full operation
};

// Pad octets after a ULPDU of `ulpdu_length` octets (FPDUs are multiples of 4).
inline std::size_t pad_length(std::size_t ulpdu_length) { return (4 - (2 + ulpdu_length) % 4) % 4; }

// MULPDU for an EMSS (RFC 5044 4.5).
std::size_t mulpdu(std::size_t emss, bool markers);

}  // namespace mpa::synth
