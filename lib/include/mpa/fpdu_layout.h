// The FPDU on the wire (RFC 5044 4.1-4.4): what a marker's fields mean, how the CRC field
// is read, and where an FPDU's parts sit in sequence space around the markers of its
// direction. The FPDU reader, the FPDU search and the Wireshark plugin all read the layout
// here; where markers fall and how many an FPDU holds is the marker grid's (marker_grid.h).
// Header-only: the reader calls these once per marker and per FPDU.
//
//   [marker] ULPDU_Length(2) ULPDU [pad] CRC(4)      markers every 512 octets of sequence
//                                                   space, wherever they fall inside
#pragma once

#include <algorithm>
#include <cstdint>

#include "mpa/marker_grid.h"
#include "mpa/tcp_seq.h"

namespace mpa {

// ---- Markers (RFC 5044 4.2, 4.3): RESERVED(16) | FPDUPTR(16), network byte order.

struct Marker {
  std::uint16_t reserved = 0;
  std::uint16_t fpdu_ptr = 0;  // as received
};

// The marker in the four octets at `p`.
constexpr Marker marker_from_wire(const std::uint8_t* p) {
  return {static_cast<std::uint16_t>(p[0] << 8 | p[1]),
          static_cast<std::uint16_t>(p[2] << 8 | p[3])};
}

// RFC 5044 4.2: the reserved field MUST be zero on transmit.
constexpr bool marker_reserved_is_zero(Marker m) { return m.reserved == 0; }
// RFC 5044 4.2: FPDUPTR's two least significant bits MUST be zero on transmit...
constexpr bool fpdu_ptr_low_bits_are_zero(Marker m) { return (m.fpdu_ptr & 0x3u) == 0; }
// ... and receivers treat them as zero for calculations: the FPDUPTR a receiver uses.
constexpr std::uint16_t fpdu_ptr_for_calculation(Marker m) {
  return static_cast<std::uint16_t>(m.fpdu_ptr & ~0x3u);
}

// RFC 5044 4.3: a marker just before an FPDU's ULPDU_Length field (between FPDUs, or the
// first marker of full operation) carries FPDUPTR 0 and belongs to that FPDU.
inline constexpr std::uint16_t kFpduPtrBeforeHeader = 0;
// RFC 5044 4.3: a marker inside an FPDU carries the octets from the first octet of the
// ULPDU_Length field at `header_seq` to the marker's first octet, as a 16-bit field (modulo
// 2^16: only a ULPDU near 65535 octets reaches that far).
constexpr std::uint16_t expected_fpdu_ptr(TcpSeq marker_seq, TcpSeq header_seq) {
  return static_cast<std::uint16_t>(marker_seq.distance_from(header_seq));
}
// Whether the marker points where `expected` says (low two bits treated as zero).
constexpr bool marker_points_at(Marker m, std::uint16_t expected) {
  return fpdu_ptr_for_calculation(m) == expected;
}
// A marker is evidence of framing when it is exactly as a conformant sender writes it
// there: reserved zero, FPDUPTR `expected` (low two bits treated as zero).
constexpr bool marker_fits(Marker m, std::uint16_t expected) {
  return marker_reserved_is_zero(m) && marker_points_at(m, expected);
}
// Every rule of RFC 5044 4.2, 4.3 kept: reserved zero, FPDUPTR exactly `expected`, low bits
// zero. Nothing about such a marker is worth saying (the FPDU reader's fast path).
constexpr bool marker_exact(Marker m, std::uint16_t expected) {
  return m.reserved == 0 && (m.fpdu_ptr & 0x3u) == 0 && m.fpdu_ptr == expected;
}
// A marker whose FPDUPTR is `expected` with its two octets swapped (stored in a
// little-endian host's order, not network byte order): 0x0002 where 512 belongs. Not a rule
// of its own: a hint at the cause of a mismatch.
constexpr bool fpdu_ptr_byte_swapped(Marker m, std::uint16_t expected) {
  const auto swapped = static_cast<std::uint16_t>((m.fpdu_ptr >> 8) | (m.fpdu_ptr << 8));
  return m.fpdu_ptr != expected && swapped == expected;
}
// The sequence number a marker at `marker_seq` with `fpdu_ptr` points to (RFC 5044 4.3:
// the marker's position minus FPDUPTR, modulo 2^32): the ULPDU_Length field of the FPDU
// holding it, or the marker itself for FPDUPTR 0 (the header follows it).
constexpr TcpSeq fpdu_ptr_target(TcpSeq marker_seq, std::uint16_t fpdu_ptr) {
  return marker_seq - fpdu_ptr;
}
// Where a marker at `marker_seq` points as a receiver calculates it (its FPDUPTR with the two
// low bits taken as zero, RFC 5044 4.2).
constexpr TcpSeq marker_target(TcpSeq marker_seq, Marker m) {
  return fpdu_ptr_target(marker_seq, fpdu_ptr_for_calculation(m));
}
// The octets of a marker at `marker_seq`.
constexpr SeqRange marker_field(TcpSeq marker_seq) { return {marker_seq, kMarkerSize}; }

// ---- The FPDU's fields in sequence space.

// The ULPDU_Length field (after a leading marker when the grid puts one at the FPDU's start,
// RFC 5044 4.3: FpduEvent::header_seq).
constexpr SeqRange ulpdu_length_field(TcpSeq header_seq) { return {header_seq, kUlpduLengthSize}; }

// RFC 5044 4.1, 4.4: the CRC field closes the FPDU: its last four octets on the wire
// (`wire_length` counts markers; a marker right after the CRC belongs to the next FPDU).
constexpr SeqRange crc_field(TcpSeq fpdu_start, std::uint32_t wire_length) {
  return {fpdu_start + (wire_length - kCrcSize), kCrcSize};
}
// RFC 5044 4.1: where the CRC field of an FPDU sent without one belongs (`wire_length`
// counts no CRC field): the four octets after its last, which carry the next FPDU's first
// octets instead (fpdu.crc-field-missing).
constexpr SeqRange missing_crc_field(TcpSeq fpdu_start, std::uint32_t wire_length) {
  return {fpdu_start + wire_length, kCrcSize};
}
// RFC 5044 4.4 (Figure 5): the CRC value goes on the wire least significant octet first;
// the value of the four CRC octets at `p`.
constexpr std::uint32_t crc_from_wire(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

// The runs of sequence space that hold the ULPDU of an FPDU whose ULPDU_Length field begins
// at `header_seq`, in order (RFC 5044 4.3: markers are not part of the ULPDU): calls
// run(SeqRange) for each; stops and returns false as soon as run returns false.
template <typename Run>
constexpr bool for_each_ulpdu_run(const MarkerGrid& grid, TcpSeq header_seq,
                                  std::uint32_t ulpdu_length, Run&& run) {
  TcpSeq pos = header_seq;
  std::uint32_t header_left = kUlpduLengthSize;
  std::uint32_t left = ulpdu_length;
  while (left > 0) {
    const std::uint32_t to_marker = grid.distance_to_marker(pos);  // UINT32_MAX: no markers
    if (to_marker == 0) {
      pos += kMarkerSize;
      continue;
    }
    if (header_left > 0) {  // (a misplaced marker may split the ULPDU_Length field)
      const std::uint32_t n = std::min(header_left, to_marker);
      pos += n;
      header_left -= n;
      continue;
    }
    const SeqRange piece{pos, std::min(left, to_marker)};
    if (!run(piece)) return false;
    pos = piece.end();
    left -= piece.length;
  }
  return true;
}

// The runs of sequence space that hold octets [from, from + count) of the ULPDU of an FPDU
// whose ULPDU_Length field begins at `header_seq` (a field of an upper layer's header, such
// as a Terminate's control field), in order, as for_each_ulpdu_run.
template <typename Run>
constexpr bool for_each_ulpdu_octets_run(const MarkerGrid& grid, TcpSeq header_seq,
                                         std::uint32_t from, std::uint32_t count, Run&& run) {
  std::uint32_t skip = from;
  return for_each_ulpdu_run(grid, header_seq, from + count, [&](SeqRange piece) {
    if (skip >= piece.length) {
      skip -= piece.length;
      return true;
    }
    const SeqRange part = piece.sub(skip, piece.length - skip);
    skip = 0;
    return run(part);
  });
}

// The runs of sequence space that hold the pad of an FPDU (RFC 5044 4.1: after its ULPDU of
// `ulpdu_size` octets, before the CRC; markers are not part of it), in order, as
// for_each_ulpdu_run.
template <typename Run>
constexpr bool for_each_pad_run(const MarkerGrid& grid, TcpSeq header_seq, std::uint32_t ulpdu_size,
                                std::uint32_t pad_length, Run&& run) {
  std::uint32_t skip = ulpdu_size;
  return for_each_ulpdu_run(grid, header_seq, ulpdu_size + pad_length, [&](SeqRange piece) {
    if (skip >= piece.length) {
      skip -= piece.length;
      return true;
    }
    const SeqRange pad = piece.sub(skip, piece.length - skip);
    skip = 0;
    return run(pad);
  });
}

}  // namespace mpa
