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

// Deliberate damage to a marker.
struct MarkerTweak {
  std::uint16_t reserved = 0;      // marker.reserved-nonzero
  std::int32_t fpduptr_delta = 0;  // marker.fpduptr-mismatch
  std::uint16_t fpduptr_or = 0;    // marker.fpduptr-low-bits
};

// Deliberate damage to one FPDU. The CRC is computed over what is sent (pad and markers
// included), so only `corrupt_crc` and `crc_xor` make the CRC field wrong.
struct FpduTweaks {
  bool corrupt_crc = false;
  std::uint8_t pad_fill = 0;
  std::optional<MarkerTweak> marker;  // the first marker inside the FPDU after its header
  bool split_across_segments = false;
  // Damage to every marker of the FPDU: `reserved` and `fpduptr_or` to all of them,
  // `fpduptr_delta` to those after the header (they point back at it).
  MarkerTweak every_marker;
  std::optional<std::uint16_t> leading_fpduptr;  // FPDUPTR of a marker leading the FPDU (else 0)
  std::uint32_t crc_xor = 0;                     // XORed into the CRC field as sent
};

// A sender that frames FPDUs by rules of its own (RFC 5044 4.1 broken on purpose), written
// with the generator's own arithmetic, not lib/'s sender_framing.h.
struct SenderQuirks {
  enum class Pad : std::uint8_t {
    Rfc,             // FPDU a multiple of four
    UlpduPlus2Mod4,  // (ULPDU_Length + 2) mod 4 pad octets
    None,            // no pad
    UlpduTo4,        // the ULPDU alone padded to a multiple of four
  } pad = Pad::Rfc;
  bool omit_crc_field = false;  // no CRC field at all
  int length_bias = 0;          // added to the ULPDU_Length field (it counts other octets)
  // How it makes its CRCs (RFC 5044 4.4 broken on purpose): zero instead of a CRC, the CRC32c
  // written most-significant octet first, the CRC32c without its final inversion, or the
  // CRC32c over other octets: without the markers (RFC 5044 4.3), without only the marker
  // before ULPDU_Length, over the ULPDU alone, over the ULPDU and its pad (iSCSI's data digest).
  enum class Crc : std::uint8_t {
    Rfc,
    Zero,
    ByteSwapped,
    NotInverted,
    WithoutMarkers,
    WithoutLeadingMarker,
    UlpduOnly,
    UlpduAndPad,
  } crc = Crc::Rfc;
  bool operator==(const SenderQuirks&) const = default;
};

class FpduFramer {
 public:
  // `grid_phase`: octets from the first octet of full operation (where the marker grid
  // starts, RFC 5044 4.3) to the first octet this framer writes; 0 for a stream framed from
  // its start. A phase that is not a multiple of 4 (a broken sender) puts markers anywhere,
  // inside a CRC field too.
  FpduFramer(bool markers, bool crc, std::uint64_t grid_phase = 0, SenderQuirks quirks = {})
      : markers_(markers), crc_(crc), offset_(grid_phase), quirks_(quirks) {}

  // The next FPDU of the stream, with the markers that fall in it.
  Chunk frame(std::span<const std::uint8_t> ulpdu, const FpduTweaks& tweaks = {});

  // Octets the sender put into the stream outside any FPDU (a damaged stream): the grid
  // moves on, no marker is written.
  void skip(std::uint64_t octets) { offset_ += octets; }

  // Octets from the grid's origin to the next octet (markers included).
  std::uint64_t stream_offset() const { return offset_; }

 private:
  bool at_marker_position() const { return markers_ && offset_ % kMarkerInterval == 0; }
  void put_marker(Chunk& out, std::uint16_t reserved, std::uint16_t fpduptr);
  void put_inner_marker(Chunk& out, std::uint64_t header_offset, const FpduTweaks& tweaks,
                        std::optional<MarkerTweak>& first);
  void put_stream(Chunk& out, std::span<const std::uint8_t> data, std::uint64_t header_offset,
                  const FpduTweaks& tweaks, std::optional<MarkerTweak>& first);

  bool markers_;
  bool crc_;
  std::uint64_t offset_;  // of the next octet, from the grid's origin
  SenderQuirks quirks_;
};

// Pad octets after a ULPDU of `ulpdu_length` octets (FPDUs are multiples of 4).
inline std::size_t pad_length(std::size_t ulpdu_length) { return (4 - (2 + ulpdu_length) % 4) % 4; }

// MULPDU for an EMSS (RFC 5044 4.5).
std::size_t mulpdu(std::size_t emss, bool markers);

}  // namespace mpa::synth
