// The marker grid and FPDU sizes (RFC 5044 4.1, 4.3, 4.5): markers every 512 octets of TCP
// sequence space counted from the first octet of full operation, modulo 2^32. The single
// implementation of marker arithmetic: the FPDU reader, the connection analyzer, the
// capture generator and the Wireshark plugin all size FPDUs with it.
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

  // Markers inside an FPDU whose first octet is at `start` (a marker there precedes the
  // header and belongs to this FPDU, RFC 5044 4.3; a marker right after the CRC belongs to
  // the next FPDU).
  constexpr std::uint32_t markers_in_fpdu(TcpSeq start, std::uint32_t ulpdu_length) const {
    if (!enabled_) return 0;
    const std::uint32_t content = fpdu_length_without_markers(ulpdu_length);
    std::uint32_t first = distance_to_marker(start);  // content octets before first marker
    std::uint32_t count = 0;
    if (first == 0) {
      count = 1;  // leading marker
      first = kMarkerInterval - kMarkerSize;
    }
    if (first < content) count += 1 + (content - 1 - first) / (kMarkerInterval - kMarkerSize);
    return count;
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
