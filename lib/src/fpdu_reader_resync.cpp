// Resynchronisation of the FPDU reader after octets the capture does not hold (RFC 5044 6;
// see FpduReader::on_gap in fpdu_reader.h), and the replay of held octets that it and the
// framing tests of fpdu_reader_framing.cpp share.
#include <fmt/format.h>

#include <algorithm>

#include "mpa/fpdu_reader.h"
#include "mpa/fpdu_search.h"

namespace mpa {
namespace {

// Octets kept while looking for the next FPDU after a gap.
constexpr std::size_t kLostBufferLimit = 256u << 10;

}  // namespace

void FpduReader::on_gap(std::uint64_t length, std::uint64_t frame, FpduSink& sink) {
  // A framing test is decided on the octets before the gap; after it, nothing is known of
  // the FPDU before. (Replaying what a decision adopted may open another test: each is
  // decided before the gap, as at the end of the stream.)
  while (testing_) decide(true, frame, sink);
  have_prev_ = false;
  exempt_ = exempt_empty_run_ = false;
  tail_size_ = tail_chunk_count_ = 0;
  if (abandoned_) {
    pos_ += static_cast<std::uint32_t>(length);
    offset_ += length;
    return;
  }
  pos_ += static_cast<std::uint32_t>(length);
  offset_ += length;
  // The FPDU in progress (if any) can no longer be verified; it is dropped silently: the
  // analyzer has reported the gap itself. A gap while already searching restarts the
  // search after it.
  state_ = State::Header;
  header_got_ = 0;
  marker_got_ = 0;
  seen_any_octet_ = false;
  lost_ = true;
  lost_buffer_.clear();
  lost_chunks_.clear();
  lost_search_from_ = 0;
  lost_seq_ = pos_;
  lost_offset_ = offset_;
  gap_end_offset_ = offset_;
}

void FpduReader::hold(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start) {
  if (data.empty()) return;
  lost_chunks_.push_back({lost_buffer_.size(), frame, segment_start});
  lost_buffer_.insert(lost_buffer_.end(), data.begin(), data.end());
  pos_ += static_cast<std::uint32_t>(data.size());
  offset_ += data.size();
}

void FpduReader::push_lost(std::span<const std::uint8_t> data, std::uint64_t frame,
                           bool segment_start, FpduSink& sink) {
  if (data.empty()) return;
  hold(data, frame, segment_start);
  if (try_resync(frame, sink)) return;
  if (lost_buffer_.size() > kLostBufferLimit) {
    // Keep the newest half; the octets dropped stay unverified (they were covered by the gap
    // the analyzer reported).
    const std::size_t drop = lost_buffer_.size() - kLostBufferLimit / 2;
    lost_chunks_.resize(
        drop_front(lost_chunks_.data(), lost_chunks_.size(), drop, lost_buffer_.size()));
    lost_buffer_.erase(lost_buffer_.begin(),
                       lost_buffer_.begin() + static_cast<std::ptrdiff_t>(drop));
    lost_seq_ += static_cast<std::uint32_t>(drop);
    lost_offset_ += drop;
    lost_search_from_ = lost_search_from_ > drop ? lost_search_from_ - drop : 0;
  }
}

std::size_t FpduReader::drop_front(LostChunk* chunks, std::size_t count, std::size_t drop,
                                   std::size_t size) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t end = i + 1 < count ? chunks[i + 1].index : size;
    if (end <= drop) continue;
    LostChunk chunk = chunks[i];
    if (chunk.index < drop) {
      chunk.index = drop;
      chunk.segment_start = false;  // (its first octets are gone)
    }
    chunk.index -= drop;
    chunks[kept++] = chunk;
  }
  return kept;
}

bool FpduReader::try_resync(std::uint64_t frame, FpduSink& sink) {
  // FPDUs are multiples of four octets, so starts keep the phase of the first one.
  const std::uint32_t alignment = config_.start_seq.value() & 3u;
  // More octets may follow: only evidence they cannot refute counts (split invariance).
  const SearchResult found = find_fpdu_start(lost_buffer_, lost_seq_, grid_, config_.crc,
                                             lost_search_from_, alignment, true);
  if (found.kind != SearchResult::Kind::Found) {
    if (found.kind == SearchResult::Kind::NeedMore) {
      lost_search_from_ = std::max(lost_search_from_, found.start);
    }
    return false;
  }
  lost_ = false;
  const TcpSeq start_seq = lost_seq_ + static_cast<std::uint32_t>(found.start);
  const std::uint64_t start_offset = lost_offset_ + found.start;
  report(sink, DiagId::CaptureResynchronised, start_seq, start_offset, frame,
         fmt::format("FPDU framing found again at seq {} ({} octets after the gap{})",
                     start_seq.value(), start_offset - gap_end_offset_,
                     grid_.enabled() ? ", by marker" : (config_.crc ? ", by CRC" : "")));
  replay_from(found.start, frame, sink);
  return true;
}

// Reads the held octets again from index `from`, each piece with the frame that delivered
// it; the reader goes on from there as if they had just arrived.
void FpduReader::replay_from(std::size_t from, std::uint64_t frame, FpduSink& sink) {
  (void)frame;
  const std::vector<std::uint8_t> buffer = std::move(lost_buffer_);
  const std::vector<LostChunk> chunks = std::move(lost_chunks_);
  lost_buffer_.clear();
  lost_chunks_.clear();
  lost_search_from_ = 0;
  pos_ = lost_seq_ + static_cast<std::uint32_t>(from);
  offset_ = lost_offset_ + from;
  state_ = State::Header;
  header_got_ = 0;
  marker_got_ = 0;
  seen_any_octet_ = false;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const std::size_t end = i + 1 < chunks.size() ? chunks[i + 1].index : buffer.size();
    const std::size_t begin = std::max(chunks[i].index, from);
    if (begin >= end) continue;
    push(std::span<const std::uint8_t>(buffer).subspan(begin, end - begin), chunks[i].frame,
         chunks[i].segment_start && begin == chunks[i].index, sink);
  }
}

}  // namespace mpa
