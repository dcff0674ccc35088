// Which capture frame delivered each recent octet of a stream, so that a finding is placed
// where its octets are (Finding::frame) rather than where it became certain
// (Finding::certain_at): a framing deviation decided at the FIN is about FPDUs many frames
// earlier.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace mpa {

class OctetFrames {
 public:
  // How far back octets are remembered: more than any octets held for a decision (the
  // early-octets limit, 256 KiB; the marker probe; an FPDU of 64 KiB with its markers).
  static constexpr std::uint64_t kSpan = 1u << 20;
  static constexpr std::size_t kMaxRuns = 8192;  // (tiny segments: fewer octets remembered)

  // `size` octets from stream offset `offset` arrived in `frame` (in stream order).
  void note(std::uint64_t offset, std::size_t size, std::uint64_t frame) {
    if (size == 0) return;
    if (runs_.size() > head_ && runs_.back().frame == frame && runs_.back().end == offset) {
      runs_.back().end += size;
      return;
    }
    runs_.push_back({offset, offset + size, frame});
    while (runs_.size() - head_ > kMaxRuns || runs_[head_].end + kSpan < offset) ++head_;
    if (head_ >= 64 && head_ * 2 >= runs_.size()) {  // drop what was forgotten
      runs_.erase(runs_.begin(), runs_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }

  // The frame that delivered the octet at `offset` (nullopt: it never arrived, or too long
  // ago).
  std::optional<std::uint64_t> frame_of(std::uint64_t offset) const {
    const auto first = runs_.begin() + static_cast<std::ptrdiff_t>(head_);
    auto it = std::upper_bound(first, runs_.end(), offset,
                               [](std::uint64_t o, const Run& r) { return o < r.begin; });
    if (it == first) return std::nullopt;
    --it;
    if (offset >= it->end) return std::nullopt;
    return it->frame;
  }

 private:
  struct Run {
    std::uint64_t begin;
    std::uint64_t end;
    std::uint64_t frame;
  };
  std::vector<Run> runs_;
  std::size_t head_ = 0;  // runs before it are forgotten
};

}  // namespace mpa
