// How a sender really frames its FPDUs (RFC 5044 4.1-4.3), when that is not what the RFC
// says: the framings a broken sender is known or likely to use, as explanations of a stream
// that the RFC's grammar cannot read. The FPDU reader frames by the RFC until an FPDU
// boundary is implausible; then each hypothesis below is tested on the octets that follow
// (fpdu_search.h: test_framing), and the one that reads the rest of the stream is named by
// its catalogue id and used from then on, so that what follows is judged as it was sent.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "mpa/diagnostics.h"
#include "mpa/marker_grid.h"

namespace mpa {

// The pad a sender writes after a ULPDU of `ulpdu` octets.
enum class PadRule : std::uint8_t {
  Rfc,             // RFC 5044 4.1: ULPDU_Length field, ULPDU and pad a multiple of four
  UlpduPlus2Mod4,  // (ULPDU_Length + 2) mod 4: the RFC's complement taken the wrong way
  None,            // no pad at all
  UlpduTo4,        // the ULPDU alone padded to a multiple of four (its field left out)
  UlpduMod4,       // ULPDU_Length mod 4 octets of pad
};

struct SenderFraming {
  PadRule pad = PadRule::Rfc;
  bool crc_field = true;        // the 4-octet CRC field is sent (RFC 5044 4.1: always)
  std::int8_t length_bias = 0;  // ULPDU_Length minus the ULPDU octets that follow it
  friend constexpr bool operator==(const SenderFraming&, const SenderFraming&) = default;
};

inline constexpr SenderFraming kRfcFraming{};

// ULPDU octets that follow a ULPDU_Length field of `ulpdu_length` (nullopt: the field is
// smaller than the bias, so this framing cannot explain it).
constexpr std::optional<std::uint32_t> ulpdu_octets(SenderFraming f, std::uint32_t ulpdu_length) {
  const std::int64_t octets = static_cast<std::int64_t>(ulpdu_length) - f.length_bias;
  if (octets < 0) return std::nullopt;
  return static_cast<std::uint32_t>(octets);
}
constexpr std::uint32_t pad_octets(SenderFraming f, std::uint32_t ulpdu) {
  switch (f.pad) {
    case PadRule::Rfc:
      return pad_length(ulpdu);
    case PadRule::UlpduPlus2Mod4:
      return (ulpdu + kUlpduLengthSize) % 4;
    case PadRule::None:
      return 0;
    case PadRule::UlpduTo4:
      return (4 - ulpdu % 4) % 4;
    case PadRule::UlpduMod4:
      return ulpdu % 4;
  }
  return 0;
}
// FPDU octets other than markers for a ULPDU_Length field of `ulpdu_length`.
constexpr std::uint32_t fpdu_content_length(SenderFraming f, std::uint32_t ulpdu_length) {
  const std::uint32_t ulpdu = ulpdu_octets(f, ulpdu_length).value_or(0);
  return kUlpduLengthSize + ulpdu + pad_octets(f, ulpdu) + (f.crc_field ? kCrcSize : 0);
}
// On-the-wire length of an FPDU whose first octet is at `start`, markers of `grid` included.
constexpr std::uint32_t fpdu_wire_length(const MarkerGrid& grid, TcpSeq start, SenderFraming f,
                                         std::uint32_t ulpdu_length) {
  const std::uint32_t content = fpdu_content_length(f, ulpdu_length);
  return content + kMarkerSize * grid.markers_within(start, content);
}

// One explanation of a stream: the RFC's framing (with the markers the receiver asked for),
// or a sender's deviation from it, named by the catalogue id that reports it.
struct SenderHypothesis {
  std::optional<DiagId> id;  // nullopt: the RFC's framing
  SenderFraming framing;
  bool markers = false;  // the sender inserts markers
};

// True for the ids a SenderHypothesis names: findings about how a sender frames its FPDUs,
// which the faces show on the FPDU as that sender framed it (EventSink::on_fpdu_revised).
bool names_sender_framing(DiagId id);

// The hypotheses worth testing for a direction whose negotiation asked for `markers` and
// `crc`, the RFC's own first. (Markers are only tested absent where they were asked for;
// markers nobody asked for are the marker probe's, framing_inference.h.)
std::span<const SenderHypothesis> framing_hypotheses(bool markers, bool crc);

// What a hypothesis means, in words for a finding: "pad = (ULPDU_Length + 2) mod 4".
std::string describe(const SenderHypothesis& hypothesis);

// The evidence for a hypothesis about the FPDU whose ULPDU_Length field read
// `ulpdu_length`: "ULPDU_Length 1015: 1 pad octet sent, RFC 5044 4.1 needs 3".
std::string deviation_of(const SenderHypothesis& hypothesis, std::uint32_t ulpdu_length);

}  // namespace mpa
