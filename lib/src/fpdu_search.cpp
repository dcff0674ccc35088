// Finding FPDU boundaries in bytes whose framing is unknown (RFC 5044 6, Appendix A.3).
#include "mpa/fpdu_search.h"

#include "mpa/crc32c.h"

namespace mpa {
namespace {

std::uint16_t load_be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

// Content index of the CRC field; unknown (max) while ULPDU_Length is still being read.
std::uint32_t crc_field_start(std::uint32_t content_needed) {
  return content_needed == kUlpduLengthSize ? UINT32_MAX : content_needed - kCrcSize;
}

// Walks one FPDU in `buffer` from index `start`, skipping and checking markers.
enum class WalkResult : std::uint8_t { Valid, Invalid, Incomplete };

WalkResult walk_fpdu(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq, std::size_t start,
                     const MarkerGrid& grid, bool crc, std::size_t& end) {
  std::size_t i = start;
  std::uint32_t state = kCrc32cInit;
  TcpSeq header_seq;
  bool header_started = false;
  std::uint32_t content_needed = kUlpduLengthSize;  // grows once ULPDU_Length is known
  std::uint32_t content_got = 0;
  std::uint8_t header[2] = {0, 0};
  std::uint32_t ulpdu_length = 0;
  std::uint32_t crc_value = 0;
  while (content_got < content_needed) {
    if (i >= buffer.size()) return WalkResult::Incomplete;
    const TcpSeq seq = buffer_seq + static_cast<std::uint32_t>(i);
    if (grid.is_marker_at(seq)) {
      if (i + kMarkerSize > buffer.size()) return WalkResult::Incomplete;
      const std::uint16_t reserved = load_be16(&buffer[i]);
      const std::uint16_t ptr = load_be16(&buffer[i + 2]) & 0xFFFC;
      const std::uint32_t expected = header_started ? seq.distance_from(header_seq) : 0;
      if (reserved != 0 || ptr != expected) return WalkResult::Invalid;
      // Markers up to and including one right before the CRC field are covered (4.4).
      if (crc && content_got <= crc_field_start(content_needed)) {
        state = crc32c_update(state, buffer.subspan(i, kMarkerSize));
      }
      i += kMarkerSize;
      continue;
    }
    if (!header_started) {
      header_started = true;
      header_seq = seq;
    }
    const std::uint8_t octet = buffer[i];
    if (content_got < 2) {
      header[content_got] = octet;
    } else if (content_got >= crc_field_start(content_needed)) {
      crc_value |= static_cast<std::uint32_t>(octet) << (8 * (content_got - (content_needed - kCrcSize)));
    } else if (content_got >= kUlpduLengthSize + ulpdu_length && octet != 0) {
      return WalkResult::Invalid;  // pad must be zero (RFC 5044 4.1)
    }
    if (crc && content_got < crc_field_start(content_needed)) {
      state = crc32c_update(state, buffer.subspan(i, 1));
    }
    ++content_got;
    ++i;
    if (content_got == 2) {
      ulpdu_length = load_be16(header);
      content_needed = fpdu_length_without_markers(ulpdu_length);
    }
  }
  end = i;
  if (crc && crc32c_finish(state) != crc_value) return WalkResult::Invalid;
  return WalkResult::Valid;
}

}  // namespace

std::size_t count_valid_fpdus(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq,
                              std::size_t start, const MarkerGrid& grid, bool crc,
                              std::size_t count, bool& reached_end) {
  reached_end = false;
  std::size_t valid = 0;
  std::size_t pos = start;
  while (valid < count) {
    std::size_t end = 0;
    const WalkResult result = walk_fpdu(buffer, buffer_seq, pos, grid, crc, end);
    if (result == WalkResult::Incomplete) {
      reached_end = true;
      break;
    }
    if (result == WalkResult::Invalid) break;
    ++valid;
    pos = end;
    if (pos == buffer.size()) {
      reached_end = true;
      break;
    }
  }
  return valid;
}

SearchResult find_fpdu_start(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq,
                             const MarkerGrid& grid, bool crc, std::size_t from,
                             std::uint32_t alignment) {
  SearchResult result;
  if (grid.enabled()) {
    // RFC 5044 4.3: each marker points back at the header of the FPDU holding it, or is
    // zero when an FPDU starts right after it.
    std::size_t m = from + grid.distance_to_marker(buffer_seq + static_cast<std::uint32_t>(from));
    for (; m + kMarkerSize <= buffer.size(); m += kMarkerInterval) {
      const std::uint16_t reserved = load_be16(&buffer[m]);
      const std::uint16_t ptr = load_be16(&buffer[m + 2]) & 0xFFFC;
      if (reserved != 0) continue;
      std::size_t start;
      if (ptr == 0) {
        start = m;
      } else {
        if (ptr > m || m - ptr < from) continue;
        start = m - ptr;
        // A header right after a marker position belongs to an FPDU with a leading marker.
        if (start >= kMarkerSize &&
            grid.is_marker_at(buffer_seq + static_cast<std::uint32_t>(start - kMarkerSize))) {
          start -= kMarkerSize;
          if (start < from) continue;
        }
      }
      bool reached_end = false;
      const std::size_t valid = count_valid_fpdus(buffer, buffer_seq, start, grid, crc, 2, reached_end);
      if (valid >= 1 && (valid == 2 || reached_end)) {
        result.kind = SearchResult::Kind::Found;
        result.start = start;
        return result;
      }
      if (valid == 0 && reached_end) {
        result.kind = SearchResult::Kind::NeedMore;
        result.start = start;
        return result;
      }
    }
    result.kind = SearchResult::Kind::NeedMore;
    result.start = m > kMarkerInterval ? m - kMarkerInterval : from;
    if (result.start < from) result.start = from;
    return result;
  }
  // No markers: try every aligned index. With CRCs one valid FPDU followed by the start of
  // another is evidence; without, a chain of three well-formed FPDUs is.
  const std::size_t needed = crc ? 2 : 3;
  for (std::size_t i = from; i + kUlpduLengthSize <= buffer.size(); ++i) {
    if (alignment < 4 && ((buffer_seq.value() + i) & 3u) != alignment) continue;
    bool reached_end = false;
    const std::size_t valid = count_valid_fpdus(buffer, buffer_seq, i, grid, crc, needed, reached_end);
    if (valid == needed || (valid >= 1 && reached_end && crc)) {
      result.kind = SearchResult::Kind::Found;
      result.start = i;
      return result;
    }
    if (reached_end) {
      result.kind = SearchResult::Kind::NeedMore;
      result.start = i;
      return result;
    }
  }
  result.kind = SearchResult::Kind::NeedMore;
  result.start = buffer.size() >= kUlpduLengthSize ? buffer.size() - 1 : from;
  if (result.start < from) result.start = from;
  return result;
}

}  // namespace mpa
