// Framing from the bytes alone (see framing_inference.h).
#include "fpdu/framing_inference.h"

#include <algorithm>
#include <cstdint>

#include "fpdu/fpdu_search.h"
#include "mpa/marker_grid.h"
#include "mpa/sender_framing.h"

namespace mpa {

std::optional<FramingHypothesis> infer_framing(std::span<const std::uint8_t> bytes, TcpSeq seq,
                                               const FramingChoices& choices, bool final) {
  constexpr std::size_t kFpdusNeeded = 3;
  // Without CRCs or markers nothing verifies an FPDU: only a long run of FPDUs that all
  // begin like DDP, with zero pads, is evidence (text, such as the RFC's own, frames as a
  // few "FPDUs" with ULPDU_Lengths read from its letters); a stream that ends is evidence
  // with fewer, when they frame it to its last octet.
  constexpr std::size_t kUnverifiedFpdusNeeded = 8;
  const bool both[] = {true, false};
  const std::span<const bool> crc_choices =
      choices.crc ? std::span<const bool>(&*choices.crc, 1) : both;
  const std::span<const bool> marker_choices =
      choices.markers ? std::span<const bool>(&*choices.markers, 1) : both;
  for (bool crc : crc_choices) {
    for (bool markers : marker_choices) {
      const std::uint32_t phases = markers ? kMarkerInterval : 1;
      for (std::uint32_t phase = 0; phase < phases; ++phase) {
        const MarkerGrid grid = markers ? MarkerGrid(seq + phase) : MarkerGrid();
        const SearchResult r = find_fpdu_start(bytes, seq, grid, crc, 0, 4);
        if (r.kind != SearchResult::Kind::Found) continue;
        if (!crc && !markers) {
          const FramingTest t =
              test_framing(bytes, seq, r.start, grid, false,
                           framing_hypotheses(false, false).front(), false, kUnverifiedFpdusNeeded);
          const bool framed_to_end =
              final && t.stop == FramingTest::Stop::EndOfBuffer && t.fpdus >= kFpdusNeeded;
          if (t.stop != FramingTest::Stop::Enough && !framed_to_end) continue;
          return FramingHypothesis{markers, crc, phase, r.start};
        }
        bool reached_end = false;
        const std::size_t valid =
            count_valid_fpdus(bytes, seq, r.start, grid, crc, SIZE_MAX, reached_end);
        const bool enough = valid >= kFpdusNeeded || (final && valid >= 1 && reached_end);
        if (!enough) continue;
        if (!crc && !reached_end) continue;  // without CRCs, the whole window must frame
        // A ULPDU too short for a DDP header (all-zero data frames as empty FPDUs) or
        // without DDP versions is no evidence.
        if (!crc && !starts_like_ddp(bytes, seq, r.start, grid).value_or(false)) continue;
        return FramingHypothesis{markers, crc, phase, r.start};
      }
    }
  }
  return std::nullopt;
}

MarkerProbe probe_markers(std::span<const std::uint8_t> bytes, TcpSeq seq, bool crc, bool final) {
  if (bytes.size() < kMarkerSize && !final) return MarkerProbe::Undecided;
  const bool zero_start =
      bytes.size() >= kMarkerSize && std::all_of(bytes.begin(), bytes.begin() + kMarkerSize,
                                                 [](std::uint8_t b) { return b == 0; });
  if (!zero_start) return MarkerProbe::Absent;
  // Frame the octets both ways; the reading that frames further is the sender's. (Without
  // CRCs a zero marker also reads as an empty FPDU, so one FPDU decides nothing: compare
  // the chains.) reached_end: the reading is still consistent (it only ran out of octets).
  bool with_end = false;
  bool without_end = false;
  const std::size_t with =
      count_valid_fpdus(bytes, seq, 0, MarkerGrid(seq), crc, SIZE_MAX, with_end);
  const std::size_t without =
      count_valid_fpdus(bytes, seq, 0, MarkerGrid(), crc, SIZE_MAX, without_end);
  if (with_end && without_end && !final && bytes.size() < kMarkerProbeLimit)
    return MarkerProbe::Undecided;
  const bool present = with_end != without_end ? with_end && with >= 1 : with > without;
  return present ? MarkerProbe::Present : MarkerProbe::Absent;
}

}  // namespace mpa
