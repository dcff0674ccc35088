// The modes of the FPDU reader (fpdu_reader.h), each with the data it alone needs, named as
// Spicy names its synchronisation and trial modes:
//
//   Reading    the grammar (fpdu_grammar.h) reads each push as it comes
//   Lost       after a gap: the octets since are held and searched for the next FPDU
//   Testing    an FPDU boundary made no sense: the octets from before it are held while the
//              framings of sender_framing.h are tried on them (fpdu_reader_framing.cpp)
//   Abandoned  fpdu.framing-lost: the rest of the direction is not read
//
// A mode that ends says where reading resumes (Resume): at an octet of its held octets, with
// the framing found; the reader reads them from there, as they arrived.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "fpdu/fpdu_search.h"
#include "fpdu/held_octets.h"
#include "mpa/events.h"
#include "mpa/marker_grid.h"
#include "mpa/sender_framing.h"
#include "mpa/tcp_seq.h"

namespace mpa::reader_mode {

// Why a framing test began.
enum class Trigger : std::uint8_t {
  Boundary,      // the FPDU begun here does not begin like an FPDU carrying DDP
  Crc,           // the FPDU just completed fails its CRC but matches as a deviation frames it
  CrcUnmatched,  // ... and matches nowhere in the octets the push brought: the next FPDU, where
                 // the RFC and each deviation put it, tells whether its CRC was wrong or the
                 // sender frames otherwise (no CRC field, a CRC field beyond the push)
  FirstMarker,   // the first marker of full operation is no marker
};

// A deviation's CRC field further on than the octets the odd FPDU's push brought
// (Trigger::CrcUnmatched): the CRC state before the RFC's CRC field (index `rfc` of the held
// octets), run on to the deviation's (index `field`), must match what the sender wrote there.
// A marker may split that field before its octet `split` (kCrcSize: none).
struct PendingCrc {
  std::size_t rfc;
  std::size_t field;
  std::uint32_t state;
  std::uint32_t split = kCrcSize;
  // The octets from the field's first to the FPDU's end (the field, and a marker splitting it).
  std::size_t span() const { return kCrcSize + (split < kCrcSize ? kMarkerSize : 0); }
};

// One framing tried: from where it puts the next FPDU (an index into the held octets).
struct Candidate {
  SenderHypothesis hypothesis;
  std::size_t start;
  bool exempt;                                              // its first FPDU is the odd one itself
  FramingTest test{.stop = FramingTest::Stop::Incomplete};  // how far it reads the held octets
                                                            // (untested: Incomplete)
  std::optional<PendingCrc> crc =
      std::nullopt;  // its odd FPDU's CRC decides it, not the FPDUs after
  // A deviation that frames the odd FPDU where the RFC's reading does: that FPDU is not counted
  // for it either (it reads one FPDU more), so that the RFC's reading, tried first, stands where
  // no later FPDU tells them apart.
  bool shares_odd = false;
};

// A framing test's outcome: the candidate adopted (or fpdu.framing-lost), and the FPDUs that
// confirmed it.
struct Verdict {
  std::size_t candidate;
  std::size_t fpdus;
};
inline constexpr std::size_t kFramingLost = static_cast<std::size_t>(-1);

struct Reading {};

struct Lost {
  HeldOctets held;               // since the gap ended
  std::size_t search_from = 0;   // candidates before this index are decided
  std::uint64_t gap_end_offset;  // first octet after the gap
};

struct Testing {
  HeldOctets held;  // from the newest octets read before the odd FPDU's push on
  Trigger trigger = Trigger::Boundary;
  TcpSeq trigger_seq;  // the odd FPDU's ULPDU_Length field (its first octet: FirstMarker)
  std::uint64_t trigger_offset = 0;
  std::uint32_t trigger_ulpdu_length = 0;
  std::vector<Candidate> candidates;

  // Each hypothesis read as far as the held octets go, then the verdict they give (none:
  // more octets are needed; `final`: there are no more, and one is always given). `grid`:
  // the negotiated markers; `crc`: CRCs on.
  std::optional<Verdict> decide(bool final, const MarkerGrid& grid, bool crc);
  // The verdict the first `held` octets give (none: more are needed).
  std::optional<Verdict> verdict_with(std::size_t held, bool vouched) const;
  // Nothing reads on: the RFC's reading when vouched for (`vouched`: CRCs or markers).
  Verdict fallback(bool weak_rfc, bool vouched) const;
  // The candidate the end of the stream adopts in place of `i` (CRCs off: see the .cpp).
  std::size_t with_zero_crc_field(std::size_t i) const;
};

struct Abandoned {};

using Mode = std::variant<Reading, Lost, Testing, Abandoned>;

// Reading resumes at octet `from` of `held`, framed as `framing` on `grid`.
struct Resume {
  HeldOctets held;
  std::size_t from;
  SenderFraming framing;
  MarkerGrid grid;
};

// The FPDU completed last, from which a framing test starts.
struct PreviousFpdu {
  TcpSeq start;
  std::uint16_t ulpdu_length = 0;
  bool crc_good = false;  // its CRC matched where the RFC puts it: no deviation framed it
  // Its pad as read was under 2 octets, and it was not explained as a deviation framed it: a
  // sender counting ULPDU_Length 2 short would have ended it 4 octets later, so an FPDU read
  // after it where the RFC puts it refutes that sender (fpdu.pad-nonzero held for it is given).
  bool short_pad = false;
  std::optional<std::array<std::uint8_t, 2>> control;  // its ULPDU's first two octets
  // What a revision reports again of it, if a deviation names it (FpduReader::revise_previous:
  // the rest is its sender's framing, or its reader's own): a few scalars, not the whole event,
  // since this is kept for every FPDU.
  std::uint64_t start_offset = 0;
  TcpSeq header_seq;
  std::uint64_t first_frame = 0;
  std::uint64_t last_frame = 0;
  std::uint64_t timestamp_ns = 0;
  bool leading_marker = false;
  bool starts_segment = false;
  bool within_one_segment = false;
  bool judged = true;
};

}  // namespace mpa::reader_mode
