// A unit of one direction's byte stream as the generator planned it: streaming bytes, a
// startup frame, or one FPDU (with where its markers and CRC sit, for segmentation checks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "bytes.h"

namespace mpa::synth {

enum class ChunkKind : std::uint8_t { Streaming, StartupFrame, Fpdu };

struct Chunk {
  ChunkKind kind = ChunkKind::Fpdu;
  Bytes bytes;
  std::vector<std::size_t> marker_offsets;  // offsets of markers within `bytes`
  std::size_t crc_offset = 0;               // offset of the CRC field (FPDUs)
  std::uint32_t crc_sent = 0;               // the CRC field's value as sent (FPDUs)
  bool split_across_segments = false;       // a sender that cuts this FPDU in two
};

}  // namespace mpa::synth
