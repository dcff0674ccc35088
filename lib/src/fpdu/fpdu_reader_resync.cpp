// Resynchronisation of the FPDU reader after octets the capture does not hold (RFC 5044 6;
// see FpduReader::on_gap in fpdu_reader.h): the Lost mode.
#include <fmt/format.h>

#include <algorithm>

#include "fpdu/fpdu_reader.h"
#include "fpdu/fpdu_search.h"

namespace mpa {
namespace {

// Octets kept while looking for the next FPDU after a gap.
constexpr std::size_t kLostBufferLimit = 256u << 10;

}  // namespace

void FpduReader::on_gap(std::uint64_t length, std::uint64_t frame, FpduSink& sink,
                        std::uint64_t timestamp_ns) {
  now_ns_ = timestamp_ns;
  // A framing test is decided on the octets before the gap; after it, nothing is known of
  // the FPDU before. (Replaying what a decision adopted may open another test: each is
  // decided before the gap, as at the end of the stream.)
  while (in_test()) run(decide(true, frame, sink), sink);
  give_deferred_marker(sink);
  prev_.reset();
  exempt_seq_.reset();
  exempt_empty_run_ = false;
  tail_.clear();
  recent_.clear();
  if (framing_lost()) {
    grammar_.skip(length);
    return;
  }
  const TcpSeq seq = position() + static_cast<std::uint32_t>(length);
  const std::uint64_t offset = this->offset() + length;
  // The FPDU in progress (if any) can no longer be verified; it is dropped silently: the
  // analyzer has reported the gap itself. A gap while already searching restarts the
  // search after it.
  grammar_.reset(seq, offset);
  mode_ = reader_mode::Lost{HeldOctets(seq, offset), 0, offset};
}

std::optional<FpduReader::Resume> FpduReader::seek(reader_mode::Lost& lost,
                                                   std::span<const std::uint8_t> data,
                                                   std::uint64_t frame, bool segment_start,
                                                   FpduSink& sink) {
  if (data.empty()) return std::nullopt;
  lost.held.append(data, frame, segment_start);
  // FPDUs are multiples of four octets, so starts keep the phase of the first one.
  const std::uint32_t alignment = config_.start_seq.value() & 3u;
  // More octets may follow: only evidence they cannot refute counts (split invariance).
  const SearchResult found = find_fpdu_start(lost.held.bytes(), lost.held.seq(), grammar_.grid(),
                                             config_.crc, lost.search_from, alignment, true);
  if (found.kind == SearchResult::Kind::Found) {
    HeldOctets held = std::move(lost.held);
    const std::uint64_t gap_end_offset = lost.gap_end_offset;
    mode_ = reader_mode::Reading{};
    const TcpSeq start_seq = held.seq() + static_cast<std::uint32_t>(found.start);
    const std::uint64_t start_offset = held.offset() + found.start;
    judge_.report(
        sink, DiagId::CaptureResynchronised, start_seq, start_offset, frame,
        fmt::format("FPDU framing found again at seq {} ({} octets after the gap{})",
                    start_seq.value(), start_offset - gap_end_offset,
                    grammar_.grid().enabled() ? ", by marker" : (config_.crc ? ", by CRC" : "")));
    return Resume{std::move(held), found.start, grammar_.framing(), grammar_.grid()};
  }
  if (found.kind == SearchResult::Kind::NeedMore) {
    lost.search_from = std::max(lost.search_from, found.start);
  }
  if (lost.held.size() > kLostBufferLimit) {
    // Keep the newest half; the octets dropped stay unverified (they were covered by the gap
    // the analyzer reported).
    const std::size_t drop = lost.held.size() - kLostBufferLimit / 2;
    lost.held.drop_front(drop);
    lost.search_from = lost.search_from > drop ? lost.search_from - drop : 0;
  }
  return std::nullopt;
}

}  // namespace mpa
