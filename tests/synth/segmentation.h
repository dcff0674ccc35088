// How a sender (or a middlebox) cuts a turn's bytes into TCP segments: one FPDU per
// segment, several FPDUs packed per segment, a re-segmenting middlebox that cuts every N
// octets (anywhere: inside headers, markers, CRCs), or one octet per segment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chunk.h"

namespace mpa::synth {

struct SegmentationPolicy {
  enum class Kind : std::uint8_t { One, Packed, Middlebox, Bytes };
  Kind kind = Kind::One;
  std::size_t every = 0;  // Middlebox: segment length

  // "one", "packed", "middlebox:N", "bytes"; nullopt if not understood.
  static std::optional<SegmentationPolicy> parse(std::string_view text);
  std::string to_string() const;
  // True for policies that cut wherever they like (they also cut startup frames).
  bool ignores_boundaries() const { return kind == Kind::Middlebox || kind == Kind::Bytes; }
};

// Segment payloads for `chunks` sent back to back. Chunks longer than `emss` are cut at
// `emss` unless `allow_oversize` (a TSO/GSO sender seen before segmentation offload).
std::vector<Bytes> segment_chunks(const std::vector<Chunk>& chunks,
                                  const SegmentationPolicy& policy, std::size_t emss,
                                  bool allow_oversize);

}  // namespace mpa::synth
