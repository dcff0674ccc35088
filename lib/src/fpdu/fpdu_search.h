// Finding FPDU boundaries in bytes whose framing is unknown (RFC 5044 6: receivers locate
// FPDUs by markers; Appendix A.3): after a gap, and when a capture starts mid-connection.
// A candidate start is accepted only on evidence: a marker pointing at it, or a CRC32c
// that matches, or (CRCs off, no markers) a chain of well-formed FPDUs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "mpa/marker_grid.h"
#include "mpa/sender_framing.h"
#include "mpa/tcp_seq.h"

namespace mpa {

struct SearchResult {
  enum class Kind : std::uint8_t { Found, NotFound, NeedMore } kind = Kind::NotFound;
  std::size_t start = 0;  // index into the buffer of the FPDU's first octet (Found)
};

// Searches `buffer` (whose first octet has sequence number `buffer_seq`) for the first
// FPDU start at index >= `from`. With markers, starts come from FPDUPTRs on `grid`;
// otherwise candidates are indices with `alignment` == (seq mod 4) (pass 4 or more to try
// every index). Evidence: two consecutive valid FPDUs with markers or CRCs, three without
// either. NeedMore: a candidate could not yet be decided; `start` is where the search
// should resume once more bytes have arrived (every candidate before it is decided).
//
// `more_may_follow` false (the buffer is all there is): one valid FPDU ending at the end of
// the buffer (or followed by an incomplete one) is evidence too, with markers or CRCs.
// True (a stream still arriving): only evidence later octets cannot refute counts, so the
// result on a buffer never contradicts the result on a longer one (split invariance).
SearchResult find_fpdu_start(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq,
                             const MarkerGrid& grid, bool crc, std::size_t from,
                             std::uint32_t alignment, bool more_may_follow = false);

// Whether the FPDU whose first octet is at `start` begins like DDP (RFC 5041 4, RFC 5040 4,
// RFC 5044 Appendix C): ULPDU_Length leaves room for a DDP header, and its control octets
// carry a DDP version (0 or 1) equal to the RDMAP version. Markers on `grid` are skipped.
// nullopt when the buffer ends before that can be told.
std::optional<bool> starts_like_ddp(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq,
                                    std::size_t start, const MarkerGrid& grid);

// Checks that `buffer` from `start` holds `count` consecutive well-formed FPDUs: CRC right
// (when `crc`), markers where the grid puts them with zero reserved field and the right
// FPDUPTR (when the grid is enabled; FPDUPTR compared modulo 2^16, low two bits ignored),
// zero pads (only without `crc`: with CRCs a non-zero pad is a sender's warning, not
// evidence against framing). Returns how many were confirmed before the first bad one or
// the end of the buffer; `reached_end` tells whether the check stopped at the end of the
// buffer (an FPDU ending exactly there, or one running past it).
std::size_t count_valid_fpdus(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq,
                              std::size_t start, const MarkerGrid& grid, bool crc,
                              std::size_t count, bool& reached_end);

// How far a framing hypothesis (sender_framing.h) reads a buffer: `fpdus` FPDUs whose ULPDU
// begins like DDP, each well-formed as the hypothesis frames it (markers where its grid
// puts them, the CRC right when `crc`, and for a deviation from the RFC zero pads where no
// CRC vouches for the FPDU), and why it stopped.
struct FramingTest {
  enum class Stop : std::uint8_t {
    Enough,       // `needed` FPDUs read
    Invalid,      // the next FPDU is not one under this hypothesis
    Incomplete,   // the buffer ends inside the next FPDU
    EndOfBuffer,  // the last FPDU read ends exactly where the buffer does
  } stop = Stop::Invalid;
  std::size_t fpdus = 0;
  // Enough and Invalid hold for every longer buffer: `decided_at` is the fewest octets of the
  // buffer that give the same verdict (a verdict rests on them, never on octets after).
  std::size_t decided_at = 0;
  // The octets up to the end of the first FPDU counted (none counted: the largest size_t).
  std::size_t first_counted_at = static_cast<std::size_t>(-1);
  // Enough or Invalid: the verdict more octets cannot change.
  bool settled() const { return stop == Stop::Enough || stop == Stop::Invalid; }
};

// Reads `buffer` (its first octet at `buffer_seq`) from `start` as `hypothesis` frames it,
// with the marker grid `grid` (disabled when the hypothesis has no markers). With
// `exempt_first`, the first FPDU need not begin like DDP and is not counted: it is the one
// whose oddity is being explained. Under the RFC's own framing, empty FPDUs (ULPDU_Length
// 0) are read but not counted.
FramingTest test_framing(std::span<const std::uint8_t> buffer, TcpSeq buffer_seq, std::size_t start,
                         const MarkerGrid& grid, bool crc, const SenderHypothesis& hypothesis,
                         bool exempt_first, std::size_t needed);

}  // namespace mpa
