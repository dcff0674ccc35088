// Finding FPDU boundaries in bytes whose framing is unknown (RFC 5044 6, Appendix A.3).
#include "fpdu/fpdu_search.h"

#include <algorithm>
#include <array>

#include "decode/byte_order.h"
#include "mpa/crc32c.h"
#include "mpa/ddp.h"
#include "mpa/fpdu_layout.h"
#include "mpa/sender_framing.h"

namespace mpa {
namespace {

// RFC 5044 4.2, 4.3: a marker is evidence of framing when it fits where it sits (reserved
// zero, FPDUPTR `expected` modulo 2^16, low two bits treated as zero), or points exactly at a
// header off a multiple of 4 (a sender whose pad or ULPDU_Length is not the RFC's points at
// its own header: the low bits are its fault, not the pointer's; FpduJudge::marker says the
// same). (Reserved fields stay strict even with CRCs: they are what makes a search over 512
// grid phases cheap.)
bool marker_fits_at(const std::uint8_t* marker, std::uint16_t expected) {
  const Marker m = marker_from_wire(marker);
  return marker_fits(m, expected) || (marker_reserved_is_zero(m) && m.fpdu_ptr == expected);
}

// Walks one FPDU in `buffer` from index `start`, skipping and checking markers. The wire
// length comes from the marker grid once ULPDU_Length is read, so an FPDU that runs past
// the end of the buffer is Incomplete at once (after checking the markers already there).
enum class WalkResult : std::uint8_t { Valid, Invalid, Incomplete };

// What makes an FPDU valid evidence of a framing.
struct WalkRules {
  SenderFraming framing = kRfcFraming;
  bool crc = false;            // the CRC must match (CRCs in use)
  bool zero_pads = false;      // pads must be zero (RFC 5044 4.1)
  bool ddp_start = false;      // the ULPDU must begin with a plausible DDP header (ddp.h)
  bool empty_neutral = false;  // ... unless it is empty (ULPDU_Length 0: legal, no DDP to judge)
  // ... with room for its header in the ULPDU and its pad: the RFC's reading of a sender whose
  // ULPDU_Length counts a few octets short frames the FPDU as that sender does, and the header
  // running into the pad is a finding of DDP's (ddp.ulpdu-too-short), not a misread boundary.
  bool header_into_pad = false;
};

// One FPDU being walked: where in the buffer, and the CRC so far.
struct Walk {
  std::span<const std::uint8_t> buffer;
  TcpSeq buffer_seq;
  const MarkerGrid& grid;
  const WalkRules& rules;
  std::size_t i = 0;                  // the next octet
  std::uint32_t state = kCrc32cInit;  // the running CRC32c (with rules.crc)
  TcpSeq header_seq;                  // the ULPDU_Length field

  Walk(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq, const MarkerGrid& grid,
       const WalkRules& rules, std::size_t start)
      : buffer(buffer), buffer_seq(buffer_seq), grid(grid), rules(rules), i(start) {}
  TcpSeq seq_at(std::size_t at) const { return buffer_seq + static_cast<std::uint32_t>(at); }
  // The next `n` octets are inside the CRC.
  void cover(std::size_t n) {
    if (rules.crc) state = crc32c_update(state, buffer.subspan(i, n));
  }
};

// ULPDU_Length, with a leading marker (FPDUPTR 0, RFC 5044 4.3) or, misaligned, a marker
// between its two octets. Valid: read, the walk past it.
WalkResult read_ulpdu_length(Walk& w, std::uint32_t& ulpdu_length) {
  const std::size_t size = w.buffer.size();
  std::uint8_t header[2] = {0, 0};
  std::uint32_t header_got = 0;
  while (header_got < kUlpduLengthSize) {
    if (w.i >= size) return WalkResult::Incomplete;
    if (w.grid.is_marker_at(w.seq_at(w.i))) {
      if (w.i + kMarkerSize > size) return WalkResult::Incomplete;
      const std::uint16_t expected =
          header_got == 0 ? kFpduPtrBeforeHeader : expected_fpdu_ptr(w.seq_at(w.i), w.header_seq);
      if (!marker_fits_at(&w.buffer[w.i], expected)) return WalkResult::Invalid;
      w.cover(kMarkerSize);
      w.i += kMarkerSize;
      continue;
    }
    if (header_got == 0) w.header_seq = w.seq_at(w.i);
    header[header_got++] = w.buffer[w.i];
    w.cover(1);
    ++w.i;
  }
  ulpdu_length = load_be16(header);
  return WalkResult::Valid;
}

// Where the rules ask for it, the ULPDU of `ulpdu` octets begins with a plausible DDP header.
WalkResult check_ddp_start(const Walk& w, std::uint32_t ulpdu) {
  if (!w.rules.ddp_start || (w.rules.empty_neutral && ulpdu == 0)) return WalkResult::Valid;
  // The DDP and RDMAP control octets. A marker may sit before them or, where a sender frames
  // FPDUs off the multiples of 4 (no pad), between them.
  std::uint8_t control[2] = {0, 0};
  std::size_t c = w.i;
  for (std::uint8_t& octet : control) {
    if (w.grid.is_marker_at(w.seq_at(c))) c += kMarkerSize;
    if (c >= w.buffer.size()) return WalkResult::Incomplete;
    octet = w.buffer[c++];
  }
  const std::uint32_t room = w.rules.header_into_pad ? ulpdu + pad_length(ulpdu) : ulpdu;
  if (!ulpdu_header_plausible(room, control[0], control[1])) return WalkResult::Invalid;
  return WalkResult::Valid;
}

// An FPDU that ends at `wire_end`, past the end of the buffer: check the markers already in
// the buffer (each points at this header), then wait.
WalkResult check_markers_ahead(const Walk& w, std::size_t wire_end) {
  if (w.grid.enabled()) {
    for (std::size_t m = w.i + w.grid.distance_to_marker(w.seq_at(w.i));
         m < wire_end && m + kMarkerSize <= w.buffer.size(); m += kMarkerInterval) {
      if (!marker_fits_at(&w.buffer[m], expected_fpdu_ptr(w.seq_at(m), w.header_seq))) {
        return WalkResult::Invalid;
      }
    }
  }
  return WalkResult::Incomplete;
}

// The rest of the FPDU, in runs between markers: its `content` octets (counted from
// ULPDU_Length's first, markers left out) are all in the buffer, the pad from `pad_start`.
WalkResult walk_content(Walk& w, std::uint32_t content, std::uint32_t pad_start) {
  const std::uint32_t crc_start = w.rules.framing.crc_field ? content - kCrcSize : content;
  std::uint32_t content_got = kUlpduLengthSize;
  std::uint8_t crc_field[kCrcSize] = {0, 0, 0, 0};
  while (content_got < content) {
    const std::uint32_t to_marker = w.grid.distance_to_marker(w.seq_at(w.i));
    if (to_marker == 0) {
      if (!marker_fits_at(&w.buffer[w.i], expected_fpdu_ptr(w.seq_at(w.i), w.header_seq))) {
        return WalkResult::Invalid;
      }
      // RFC 5044 4.4: markers are inside the CRC, including one right after the pad.
      if (content_got <= crc_start) w.cover(kMarkerSize);
      w.i += kMarkerSize;
      continue;
    }
    const std::uint32_t run = std::min(content - content_got, to_marker);
    const std::uint32_t run_end = content_got + run;
    // CRC-covered part: ULPDU and pad.
    if (content_got < crc_start) {
      const std::uint32_t covered = std::min(run_end, crc_start) - content_got;
      w.cover(covered);
      if (w.rules.zero_pads) {
        for (std::uint32_t k = std::max(content_got, pad_start); k < content_got + covered; ++k) {
          if (w.buffer[w.i + (k - content_got)] != 0) return WalkResult::Invalid;
        }
      }
    }
    // The CRC field (a misplaced marker may split it).
    for (std::uint32_t k = std::max(content_got, crc_start); k < run_end; ++k) {
      crc_field[k - crc_start] = w.buffer[w.i + (k - content_got)];
    }
    content_got = run_end;
    w.i += run;
  }
  if (w.rules.crc && crc32c_finish(w.state) != crc_from_wire(crc_field)) {
    return WalkResult::Invalid;
  }
  return WalkResult::Valid;
}

// Walks one FPDU in `buffer` from index `start`, skipping and checking markers. The wire
// length comes from the marker grid once ULPDU_Length is read, so an FPDU that runs past
// the end of the buffer is Incomplete at once (after checking the markers already there).
WalkResult walk_fpdu(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq, std::size_t start,
                     const MarkerGrid& grid, const WalkRules& rules, std::size_t& end,
                     bool* empty = nullptr) {
  Walk w(buffer, buffer_seq, grid, rules, start);
  std::uint32_t ulpdu_length = 0;
  if (const WalkResult r = read_ulpdu_length(w, ulpdu_length); r != WalkResult::Valid) return r;
  const std::optional<std::uint32_t> ulpdu = ulpdu_octets(rules.framing, ulpdu_length);
  if (!ulpdu) return WalkResult::Invalid;
  if (empty) *empty = *ulpdu == 0;
  if (const WalkResult r = check_ddp_start(w, *ulpdu); r != WalkResult::Valid) return r;
  const std::size_t wire_end =
      start + fpdu_wire_length(grid, w.seq_at(start), rules.framing, ulpdu_length);
  if (wire_end > buffer.size()) return check_markers_ahead(w, wire_end);
  const WalkResult result =
      walk_content(w, fpdu_content_length(rules.framing, ulpdu_length), kUlpduLengthSize + *ulpdu);
  end = w.i;
  return result;
}

// The RFC's framing as the search takes evidence from it. Without CRCs, zero pads are part
// of the evidence (RFC 5044 4.1); with CRCs the CRC vouches for the FPDU and a non-zero pad
// is only a warning the reader gives.
WalkRules rfc_evidence(bool crc) { return {kRfcFraming, crc, !crc, false}; }

}  // namespace

std::optional<bool> starts_like_ddp(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq,
                                    std::size_t start, const MarkerGrid& grid) {
  // ULPDU_Length and the DDP and RDMAP control octets, a marker skipped wherever it sits
  // among them (off the multiples of 4, a header may straddle one).
  std::array<std::uint8_t, kUlpduLengthSize + 2> head{};
  std::size_t i = start;
  for (std::uint8_t& octet : head) {
    if (grid.is_marker_at(buffer_seq + static_cast<std::uint32_t>(i))) i += kMarkerSize;
    if (i >= buffer.size()) return std::nullopt;
    octet = buffer[i++];
  }
  return ulpdu_begins_like_ddp(load_be16(head.data()), head[2], head[3]);
}

std::size_t count_valid_fpdus(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq,
                              std::size_t start, const MarkerGrid& grid, bool crc,
                              std::size_t count, bool& reached_end) {
  reached_end = false;
  std::size_t valid = 0;
  std::size_t pos = start;
  while (valid < count) {
    std::size_t end = 0;
    const WalkResult result = walk_fpdu(buffer, buffer_seq, pos, grid, rfc_evidence(crc), end);
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
                             std::uint32_t alignment, bool more_may_follow) {
  SearchResult result;
  if (grid.enabled()) {
    // RFC 5044 4.3: each marker points back at the header of the FPDU holding it, or is
    // zero when an FPDU starts right after it.
    std::size_t m = from + grid.distance_to_marker(buffer_seq + static_cast<std::uint32_t>(from));
    for (; m + kMarkerSize <= buffer.size(); m += kMarkerInterval) {
      const Marker marker = marker_from_wire(&buffer[m]);
      if (!marker_reserved_is_zero(marker)) continue;
      const std::uint16_t ptr = fpdu_ptr_for_calculation(marker);
      std::size_t start;
      if (ptr == 0) {
        start = m;
      } else {
        // `from` says which markers were already judged; the FPDU a later marker points
        // into may begin before it (split invariance: the octets are still in the buffer).
        if (ptr > m) continue;
        start = m - ptr;
        // A header right after a marker position belongs to an FPDU with a leading marker.
        if (start >= kMarkerSize &&
            grid.is_marker_at(buffer_seq + static_cast<std::uint32_t>(start - kMarkerSize))) {
          start -= kMarkerSize;
        }
      }
      bool reached_end = false;
      const std::size_t valid =
          count_valid_fpdus(buffer, buffer_seq, start, grid, crc, 2, reached_end);
      if (valid == 2 || (valid == 1 && reached_end && !more_may_follow)) {
        result.kind = SearchResult::Kind::Found;
        result.start = start;
        return result;
      }
      if (reached_end) {
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
  // another is evidence; without, a chain of three well-formed FPDUs is. A candidate that
  // runs past the end of the buffer stops the search until it can be decided (deciding it
  // costs nothing until then: its length is known from its header).
  const std::size_t needed = crc ? 2 : 3;
  for (std::size_t i = from; i + kUlpduLengthSize <= buffer.size(); ++i) {
    if (alignment < 4 && ((buffer_seq.value() + i) & 3u) != alignment) continue;
    // Without CRCs nearly any octets chain as FPDUs: the candidate must also carry what a
    // DDP header (RFC 5041 4) starts with: room for one, DDP and RDMAP versions that agree.
    // (Not decidable yet: let the chain decide.)
    if (!crc && !starts_like_ddp(buffer, buffer_seq, i, grid).value_or(true)) continue;
    bool reached_end = false;
    const std::size_t valid =
        count_valid_fpdus(buffer, buffer_seq, i, grid, crc, needed, reached_end);
    if (valid == needed || (valid >= 1 && reached_end && crc && !more_may_follow)) {
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

FramingTest test_framing(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq, std::size_t start,
                         const MarkerGrid& grid, bool crc, const SenderHypothesis& hypothesis,
                         bool exempt_first, std::size_t needed) {
  // A deviation must earn its name: zero pads are evidence for it where no CRC vouches for
  // the FPDU. The RFC's own framing is not held to that (a non-zero pad is a warning of its
  // own, which Linux siw earns).
  // An empty FPDU neither confirms nor refutes the RFC's reading (legal framing with no DDP
  // header to judge); a deviation may not ride on them.
  // A sender that sends no CRC field has no CRC to match, CRCs negotiated or not.
  const bool crc_checked = crc && hypothesis.framing.crc_field;
  WalkRules rules{hypothesis.framing,
                  crc_checked,
                  hypothesis.id.has_value() && !crc_checked,
                  true,
                  !hypothesis.id.has_value(),
                  !hypothesis.id.has_value()};
  FramingTest test;
  std::size_t pos = start;
  bool first = true;
  while (test.fpdus < needed) {
    rules.ddp_start = !(first && exempt_first);
    std::size_t end = 0;
    bool empty = false;
    const WalkResult result = walk_fpdu(buffer, buffer_seq, pos, grid, rules, end, &empty);
    if (result == WalkResult::Incomplete) {
      test.stop = FramingTest::Stop::Incomplete;
      return test;
    }
    if (result == WalkResult::Invalid) {
      // The fewest octets that refute this FPDU (the walk only ever refutes on octets it has,
      // so a longer buffer refutes it too).
      std::size_t lo = pos;  // (not refuted: the walk needs at least one octet)
      std::size_t hi = buffer.size();
      while (hi - lo > 1) {
        const std::size_t mid = lo + (hi - lo) / 2;
        std::size_t ignored = 0;
        (walk_fpdu(buffer.first(mid), buffer_seq, pos, grid, rules, ignored) == WalkResult::Invalid
             ? hi
             : lo) = mid;
      }
      test.stop = FramingTest::Stop::Invalid;
      test.decided_at = hi;
      return test;
    }
    if (rules.ddp_start && !empty && ++test.fpdus == 1) test.first_counted_at = end;
    first = false;
    pos = end;
    if (pos == buffer.size() && test.fpdus < needed) {
      test.stop = FramingTest::Stop::EndOfBuffer;
      return test;
    }
  }
  test.decided_at = pos;
  test.stop = FramingTest::Stop::Enough;
  return test;
}

}  // namespace mpa
