// The marker grid and FPDU sizes (RFC 5044 4.1, 4.3, 4.5): markers every 512 octets of TCP
// sequence space counted from the first octet of full operation, modulo 2^32. The single
// implementation of marker arithmetic in the library: the FPDU reader, the FPDU search,
// framing inference and the FPDU layout (fpdu_layout.h: the ULPDU runs between markers,
// which the Wireshark plugin shows) all count markers with it. The plugin itself sizes no
// FPDU (the library's FpduEvent says how long each is); the capture generator of
// tests/synth deliberately frames FPDUs with arithmetic of its own, as an independent
// writer the library is tested against.
#pragma once

#include <cstdint>

#include "mpa/tcp_seq.h"

namespace mpa {

inline constexpr std::uint32_t kMarkerInterval = 512;  // RFC 5044 4.3
inline constexpr std::uint32_t kMarkerSize = 4;        // RFC 5044 4.2
inline constexpr std::uint32_t kUlpduLengthSize = 2;   // RFC 5044 4.1
inline constexpr std::uint32_t kCrcSize = 4;

// Pad octets after a ULPDU so that the FPDU is a multiple of four (RFC 5044 4.1).
constexpr std::uint32_t pad_length(std::uint32_t ulpdu_length) {
  return (4 - (kUlpduLengthSize + ulpdu_length) % 4) % 4;
}
// FPDU octets other than markers: ULPDU_Length, ULPDU, pad, CRC.
constexpr std::uint32_t fpdu_length_without_markers(std::uint32_t ulpdu_length) {
  return kUlpduLengthSize + ulpdu_length + pad_length(ulpdu_length) + kCrcSize;
}

// MULPDU for an EMSS (RFC 5044 4.5), never below 128:
//   markers:    EMSS - (6 + 4 * Ceiling(EMSS / 512) + EMSS mod 4)
//   no markers: EMSS - (6 + EMSS mod 4)
constexpr std::uint32_t mulpdu(std::uint32_t emss, bool markers) {
  std::uint32_t overhead = 6 + emss % 4;
  if (markers) {
    overhead += kMarkerSize * (emss / kMarkerInterval + (emss % kMarkerInterval != 0 ? 1 : 0));
  }
  if (emss <= overhead + 128) return 128;
  return emss - overhead;
}

class MarkerGrid {
 public:
  // A disabled grid: no markers in this direction.
  constexpr MarkerGrid() = default;
  // Markers at `origin` (the first octet of full operation) and every 512 octets after.
  constexpr explicit MarkerGrid(TcpSeq origin) : enabled_(true), origin_(origin) {}
  // The grid with a marker at `marker_seq`: every marker of a direction lies on the same
  // grid, so any one of them gives it.
  static constexpr MarkerGrid through(TcpSeq marker_seq) { return MarkerGrid(marker_seq); }

  constexpr bool enabled() const { return enabled_; }
  constexpr TcpSeq origin() const { return origin_; }

  // Octets from `seq` to the next marker position at or after it (0: a marker starts here).
  // Meaningless (returns UINT32_MAX) when disabled.
  constexpr std::uint32_t distance_to_marker(TcpSeq seq) const {
    if (!enabled_) return UINT32_MAX;
    const std::uint32_t phase = seq.distance_from(origin_) % kMarkerInterval;
    return phase == 0 ? 0 : kMarkerInterval - phase;
  }
  constexpr bool is_marker_at(TcpSeq seq) const {
    return enabled_ && seq.distance_from(origin_) % kMarkerInterval == 0;
  }

  // Markers met while `content_octets` octets of FPDU content (anything but markers) are
  // taken from `from` on: a marker at `from` is met first and counts; a marker right after
  // the last of those octets does not (it precedes whatever follows).
  constexpr std::uint32_t markers_within(TcpSeq from, std::uint32_t content_octets) const {
    if (!enabled_ || content_octets == 0) return 0;
    std::uint32_t first = distance_to_marker(from);  // content octets before the first marker
    std::uint32_t count = 0;
    if (first == 0) {
      count = 1;  // a marker at `from`
      first = kMarkerInterval - kMarkerSize;
    }
    if (first < content_octets)
      count += 1 + (content_octets - 1 - first) / (kMarkerInterval - kMarkerSize);
    return count;
  }
  // Markers inside an FPDU whose first octet is at `start` (a marker there precedes the
  // header and belongs to this FPDU, RFC 5044 4.3; a marker right after the CRC belongs to
  // the next FPDU).
  constexpr std::uint32_t markers_in_fpdu(TcpSeq start, std::uint32_t ulpdu_length) const {
    return markers_within(start, fpdu_length_without_markers(ulpdu_length));
  }
  // On-the-wire length of that FPDU, markers included.
  constexpr std::uint32_t fpdu_wire_length(TcpSeq start, std::uint32_t ulpdu_length) const {
    return fpdu_length_without_markers(ulpdu_length) +
           kMarkerSize * markers_in_fpdu(start, ulpdu_length);
  }

 private:
  bool enabled_ = false;
  TcpSeq origin_;
};

}  // namespace mpa
