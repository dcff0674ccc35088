// Segmentation policies (see segmentation.h).
#include "segmentation.h"

#include <algorithm>
#include <charconv>

namespace mpa::synth {
namespace {

void cut_every(std::vector<Bytes>& out, std::span<const std::uint8_t> data, std::size_t every) {
  while (!data.empty()) {
    const std::size_t n = std::min(every, data.size());
    out.emplace_back(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
    data = data.subspan(n);
  }
}

// A chunk its sender cuts in two: the first part ends in the middle of the ULPDU.
void cut_in_two(std::vector<Bytes>& out, const Chunk& chunk) {
  const std::size_t first = chunk.bytes.size() / 2 + 1;
  out.emplace_back(chunk.bytes.begin(), chunk.bytes.begin() + static_cast<std::ptrdiff_t>(first));
  out.emplace_back(chunk.bytes.begin() + static_cast<std::ptrdiff_t>(first), chunk.bytes.end());
}

void one_per_segment(std::vector<Bytes>& out, const Chunk& chunk, std::size_t emss, bool oversize) {
  if (chunk.split_across_segments) {
    cut_in_two(out, chunk);
  } else if (oversize) {
    out.push_back(chunk.bytes);
  } else {
    cut_every(out, chunk.bytes, emss);
  }
}

std::vector<Bytes> packed(const std::vector<Chunk>& chunks, std::size_t emss, bool oversize) {
  std::vector<Bytes> out;
  Bytes pending;
  auto flush = [&] {
    if (!pending.empty()) out.push_back(std::move(pending));
    pending.clear();
  };
  for (const Chunk& chunk : chunks) {
    const bool fits_alone = chunk.bytes.size() <= emss && !chunk.split_across_segments;
    if (!fits_alone) {
      flush();
      one_per_segment(out, chunk, emss, oversize);
      continue;
    }
    if (pending.size() + chunk.bytes.size() > emss) flush();
    append(pending, chunk.bytes);
  }
  flush();
  return out;
}

Bytes concatenated(const std::vector<Chunk>& chunks) {
  Bytes all;
  for (const Chunk& chunk : chunks) append(all, chunk.bytes);
  return all;
}

}  // namespace

std::optional<SegmentationPolicy> SegmentationPolicy::parse(std::string_view text) {
  SegmentationPolicy p;
  if (text == "one") return p;
  if (text == "packed") {
    p.kind = Kind::Packed;
    return p;
  }
  if (text == "bytes") {
    p.kind = Kind::Bytes;
    return p;
  }
  constexpr std::string_view kMiddlebox = "middlebox:";
  if (!text.starts_with(kMiddlebox)) return std::nullopt;
  text.remove_prefix(kMiddlebox.size());
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), p.every);
  if (ec != std::errc() || end != text.data() + text.size() || p.every == 0) return std::nullopt;
  p.kind = Kind::Middlebox;
  return p;
}

std::string SegmentationPolicy::to_string() const {
  switch (kind) {
    case Kind::One:
      return "one";
    case Kind::Packed:
      return "packed";
    case Kind::Middlebox:
      return "middlebox:" + std::to_string(every);
    case Kind::Bytes:
      return "bytes";
  }
  return "?";
}

std::vector<Bytes> segment_chunks(const std::vector<Chunk>& chunks,
                                  const SegmentationPolicy& policy, std::size_t emss,
                                  bool allow_oversize) {
  std::vector<Bytes> out;
  switch (policy.kind) {
    case SegmentationPolicy::Kind::One:
      for (const Chunk& chunk : chunks) one_per_segment(out, chunk, emss, allow_oversize);
      return out;
    case SegmentationPolicy::Kind::Packed:
      return packed(chunks, emss, allow_oversize);
    case SegmentationPolicy::Kind::Middlebox:
      cut_every(out, concatenated(chunks), std::min(policy.every, emss));
      return out;
    case SegmentationPolicy::Kind::Bytes:
      cut_every(out, concatenated(chunks), 1);
      return out;
  }
  return out;
}

}  // namespace mpa::synth
