// Octets held back with the frames that delivered them, to be replayed later in order:
// the Initiator's octets before the Reply, the first octets of full operation while the
// marker probe decides, a stream under study for framing inference.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "mpa/tcp_seq.h"

namespace mpa {

struct HeldBytes {
  std::vector<std::uint8_t> bytes;
  std::vector<std::pair<std::size_t, std::uint64_t>> chunks;  // (index in bytes, frame)
  TcpSeq seq;                                                 // of bytes[0]
  std::uint64_t offset = 0;                                   // stream offset of bytes[0]

  HeldBytes() = default;
  HeldBytes(TcpSeq at, std::uint64_t at_offset) : seq(at), offset(at_offset) {}

  // (Octets of the frame that delivered the last ones continue its segment: one chunk.)
  void append(std::span<const std::uint8_t> data, std::uint64_t frame) {
    if (data.empty()) return;
    if (chunks.empty() || chunks.back().second != frame) chunks.emplace_back(bytes.size(), frame);
    bytes.insert(bytes.end(), data.begin(), data.end());
  }
  // The same, keeping at most `limit` octets in all (the rest is dropped).
  void append_up_to(std::size_t limit, std::span<const std::uint8_t> data, std::uint64_t frame) {
    const std::size_t room = limit - std::min(limit, bytes.size());
    append(data.first(std::min(room, data.size())), frame);
  }
  // The frame that delivered the first octet (`otherwise` when nothing is held).
  std::uint64_t first_frame(std::uint64_t otherwise) const {
    return chunks.empty() ? otherwise : chunks.front().second;
  }
  // Hands the held octets from index `from` on to `deliver(offset, seq, data, frame)`, one
  // call per delivering frame.
  template <typename Deliver>
  void replay(Deliver&& deliver, std::size_t from = 0) const {
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const std::size_t begin = std::max(chunks[i].first, from);
      const std::size_t end = i + 1 < chunks.size() ? chunks[i + 1].first : bytes.size();
      if (begin >= end) continue;
      deliver(offset + begin, seq + static_cast<std::uint32_t>(begin),
              std::span<const std::uint8_t>(bytes).subspan(begin, end - begin), chunks[i].second);
    }
  }
};

}  // namespace mpa
