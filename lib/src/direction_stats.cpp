// Statistics of one sender (see direction_stats.h).
#include "mpa/direction_stats.h"

#include <algorithm>

#include "mpa/marker_grid.h"

namespace mpa {

void DirectionStats::on_fpdu(const FpduEvent& fpdu, const std::optional<DdpHeader>& ddp, bool terminate) {
  if (fpdu.within_one_segment) ++s_.fpdus_in_one_segment;
  s_.max_ulpdu = std::max(s_.max_ulpdu, fpdu.ulpdu_length);
  std::size_t bucket = 0;
  while (bucket + 1 < kUlpduSizeBuckets && fpdu.ulpdu_length > kUlpduSizeBounds[bucket]) ++bucket;
  ++s_.ulpdu_sizes[bucket];
  if (ddp) ++s_.rdmap_opcodes[ddp->opcode & 0x0F];
  if (terminate) ++s_.terminates;
}

DirectionSummary DirectionStats::summary(const std::optional<ReaderCounts>& reader,
                                         std::optional<std::uint16_t> mss,
                                         std::optional<std::uint16_t> receiver_mss) const {
  DirectionSummary d = s_;
  if (reader) {
    d.fpdus = reader->fpdus;
    d.ulpdu_bytes = reader->ulpdu_bytes;
    d.crc_failures = reader->crc_failures;
  }
  d.mss = mss;
  d.mulpdu = receiver_mss ? mulpdu(*receiver_mss, d.markers) : 0;
  return d;
}

}  // namespace mpa
