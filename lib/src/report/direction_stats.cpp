// Statistics of one sender (see direction_stats.h).
#include "report/direction_stats.h"

#include <algorithm>

#include "fpdu/fpdu_rules.h"

namespace mpa {

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
  d.mulpdu = receiver_mss ? connection_mulpdu(*receiver_mss, d.markers) : 0;
  return d;
}

}  // namespace mpa
