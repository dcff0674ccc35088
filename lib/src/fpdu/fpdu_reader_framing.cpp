// Framing truth for the FPDU reader (see fpdu_reader.h, sender_framing.h): when the RFC's
// grammar stops making sense at an FPDU, the reader tests the framings a broken sender
// could be using before it says anything about that FPDU:
//
//   Crc          an FPDU's CRC fails: is there a CRC that matches where a deviation (pad
//                rule, ULPDU_Length counting other octets) puts the CRC field? A match is
//                proof (2^-32 by chance) and is named at once.
//   Boundary     an FPDU begins with octets that carry no DDP header: the FPDU before it
//                may have been longer or shorter than the RFC says (pad rule, CRC field
//                left out, ULPDU_Length counting other octets)
//   FirstMarker  the first marker of full operation is no marker: the sender may insert none
//
// For the last two the reader holds what follows and tries the RFC's own reading first (the
// odd FPDU exempt), then each deviation in turn, each from where it puts the next FPDU. The
// first that reads on (four FPDUs beginning like DDP, or FPDUs up to the end of the stream)
// is adopted: a deviation is named by its catalogue id with its evidence and the reader
// frames as the sender does from there; the RFC's reading replays the octets as if nothing
// had happened. If none reads on and no CRC or marker vouches for the RFC's reading,
// fpdu.framing-lost ends reading: a phantom finding after a misframing is worse than silence.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "fpdu/fpdu_reader.h"
#include "fpdu/fpdu_rules.h"
#include "fpdu/fpdu_search.h"
#include "mpa/crc32c.h"
#include "mpa/ddp.h"
#include "mpa/fpdu_layout.h"

namespace mpa {
namespace {

// FPDUs beginning like DDP that confirm a hypothesis (a misframed boundary passes the DDP
// test about one time in eight); with CRCs, one whose CRC matches is proof enough.
constexpr std::size_t kConfirmingFpdus = 4;
constexpr std::size_t kConfirmingFpdusWithCrc = 1;
// Octets held at most while testing; then the test is decided on what it has.
constexpr std::size_t kTestBufferLimit = 256u << 10;
// How much later than the RFC's a deviation may put the CRC field (ULPDU_Length 4 short,
// pads of up to 3 where the RFC's is 0, a marker between).
constexpr std::uint32_t kLongerFpduOctets = 4 + 3 + kMarkerSize;
// Octets of the next FPDU that may have come with the end of the Initiator's first FPDU as a
// deviation frames it (still within the tail kept: TailOctets::kSize, less a CRC field and pad).
constexpr std::uint32_t kNextFpduOctetsRead = 16;
// fpdu.pad-nonzero warnings held at most: a sender whose every pad is wrong is told at once.
constexpr std::size_t kHeldPadsLimit = 64;

// Whether the pad of `pad` octets after a ULPDU of `ulpdu` octets (the FPDU's ULPDU_Length at
// `header_seq`) has an octet other than zero among those `bytes` (from `bytes_seq`) hold. A
// marker may stand among them or between them and the CRC field, off the multiples of 4.
bool pad_nonzero_in(const MarkerGrid& grid, TcpSeq header_seq, std::uint32_t ulpdu,
                    std::uint32_t pad, std::span<const std::uint8_t> bytes, TcpSeq bytes_seq) {
  bool nonzero = false;
  for_each_pad_run(grid, header_seq, ulpdu, pad, [&](SeqRange run) {
    if (run.seq.is_before(bytes_seq)) return true;  // (not held: not judged)
    const std::size_t at = run.seq.distance_from(bytes_seq);
    for (std::size_t k = at; k < std::min<std::size_t>(at + run.length, bytes.size()); ++k)
      nonzero |= bytes[k] != 0;
    return true;
  });
  return nonzero;
}

// The CRC field of an FPDU that ends before `end`: where it begins, and the octet of it a
// marker stands before (kCrcSize: none). A pad off a multiple of 4 may put a marker inside the
// field: it splits it and is not covered by the CRC (RFC 5044 4.4 covers the markers before it).
struct CrcFieldPlace {
  TcpSeq seq;
  std::uint32_t split = kCrcSize;
  std::uint32_t span() const { return kCrcSize + (split < kCrcSize ? kMarkerSize : 0); }
};
CrcFieldPlace crc_field_before(const MarkerGrid& grid, TcpSeq end) {
  std::uint32_t split = kCrcSize;
  for (std::uint32_t k = 1; k < kCrcSize; ++k) {
    if (grid.is_marker_at(end - (kCrcSize + kMarkerSize) + k)) split = k;
  }
  CrcFieldPlace place{end, split};
  place.seq = end - place.span();
  return place;
}
// The CRC field's value from `bytes` at `at`, the marker splitting it left out.
std::uint32_t crc_field_value(std::span<const std::uint8_t> bytes, std::size_t at,
                              std::uint32_t split) {
  std::array<std::uint8_t, kCrcSize> value{};
  for (std::uint32_t k = 0; k < kCrcSize; ++k)
    value[k] = bytes[at + k + (k >= split ? kMarkerSize : 0)];
  return crc_from_wire(value.data());
}

// A failing CRC that matches where a deviation puts the CRC field of the FPDU `grammar` just
// completed: that deviation, `resume` where the next FPDU begins and `pad_nonzero` its pad as
// that sender framed it. `window`: the octets from the tail to the end of the push.
std::optional<SenderHypothesis> explain_crc(const FpduGrammar& grammar, bool crc_on,
                                            std::span<const std::uint8_t> window, TcpSeq window_seq,
                                            TcpSeq& resume, bool& pad_nonzero,
                                            const SenderFraming* besides = nullptr) {
  const FpduEvent& fpdu = grammar.event();
  // Where each deviation puts this FPDU's CRC field: the CRC over the octets before it must
  // match what sits there (by chance: 2^-32). The grammar's running CRC covers the octets
  // before the RFC's CRC field; it is run back to where the deviation's CRC field begins.
  const std::uint32_t rfc = crc_field_before(grammar.grid(), fpdu.start_seq + fpdu.wire_length)
                                .seq.distance_from(window_seq);
  if (rfc > window.size()) return std::nullopt;
  for (const SenderHypothesis& h : framing_hypotheses(grammar.grid().enabled(), crc_on)) {
    if (!h.id || h.markers != grammar.grid().enabled() || !h.framing.crc_field) continue;
    if (h.framing == grammar.framing()) continue;  // (the framing it was read with)
    if (besides && h.framing == *besides) continue;
    if (!ulpdu_octets(h.framing, fpdu.ulpdu_length)) continue;
    const std::uint32_t wire =
        fpdu_wire_length(grammar.grid(), fpdu.start_seq, h.framing, fpdu.ulpdu_length);
    const CrcFieldPlace place = crc_field_before(grammar.grid(), fpdu.start_seq + wire);
    const std::uint32_t span = place.span();
    const std::uint32_t at = place.seq.distance_from(window_seq);
    // CRC fields before the RFC's own (its state run back), or after it (run on, over the
    // RFC's CRC field and what follows: a sender whose FPDUs are longer than the RFC says, by
    // a few octets of pad or length) where this push has brought them.
    if (at <= rfc ? rfc - at > TailOctets::kSize || at + span > window.size()
                  : at - rfc > kLongerFpduOctets || at + span > window.size()) {
      continue;
    }
    const std::span<const std::uint8_t> bytes(window);
    const std::uint32_t state =
        at <= rfc ? crc32c_rewind(grammar.crc_state(), bytes.subspan(at, rfc - at))
                  : crc32c_update(grammar.crc_state(), bytes.subspan(rfc, at - rfc));
    if (crc32c_finish(state) != crc_field_value(bytes, at, place.split)) continue;
    resume = fpdu.start_seq + wire;
    const std::uint32_t ulpdu = ulpdu_octets(h.framing, fpdu.ulpdu_length).value_or(0);
    pad_nonzero = pad_nonzero_in(grammar.grid(), fpdu.header_seq, ulpdu,
                                 pad_octets(h.framing, ulpdu), window, window_seq);
    return h;
  }
  return std::nullopt;
}

// A deviation's candidate after an FPDU whose CRC matched nowhere (Trigger::CrcUnmatched): from
// where it ends that FPDU, if the octets held begin an FPDU carrying DDP there. Only there: a
// CRC that is merely wrong is named at once, not when more octets come (the peer's Terminate
// may come first).
std::optional<reader_mode::Candidate> unmatched_candidate(const SenderHypothesis& h,
                                                          const FpduEvent& odd,
                                                          const MarkerGrid& grid,
                                                          const HeldOctets& held) {
  // (A deviation with a CRC field whose next FPDU the push shows has its CRC field in the push
  // too: explain_crc found no match there.)
  if (h.framing.crc_field) return {};
  const std::optional<std::uint32_t> ulpdu = ulpdu_octets(h.framing, odd.ulpdu_length);
  const std::span<const std::uint8_t> head = odd.ulpdu_head;
  if (!ulpdu || head.size() < 2 || !ulpdu_header_plausible(*ulpdu, head[0], head[1])) return {};
  const TcpSeq next =
      odd.start_seq + fpdu_wire_length(grid, odd.start_seq, h.framing, odd.ulpdu_length);
  if (next.is_before(held.seq())) return {};
  const std::size_t at = next.distance_from(held.seq());
  if (!starts_like_ddp(held.bytes(), held.seq(), at, grid).value_or(false)) return {};
  return reader_mode::Candidate{h, at, false};
}

// A deviation's candidate after an FPDU whose CRC matched nowhere in the octets the push
// brought, where the deviation puts its CRC field further on (a few octets of ULPDU or pad
// more than the RFC's): its CRC decides once those octets come (`state`: the CRC before the
// RFC's CRC field). How the stream was cut must not decide which framings are tried.
std::optional<reader_mode::Candidate> pending_crc_candidate(const SenderHypothesis& h,
                                                            const FpduEvent& odd,
                                                            const MarkerGrid& grid,
                                                            const HeldOctets& held,
                                                            std::uint32_t state) {
  if (!h.framing.crc_field) return {};
  const std::optional<std::uint32_t> ulpdu = ulpdu_octets(h.framing, odd.ulpdu_length);
  const std::span<const std::uint8_t> head = odd.ulpdu_head;
  if (!ulpdu || head.size() < 2 || !ulpdu_header_plausible(*ulpdu, head[0], head[1])) return {};
  const std::uint32_t wire = fpdu_wire_length(grid, odd.start_seq, h.framing, odd.ulpdu_length);
  const CrcFieldPlace place = crc_field_before(grid, odd.start_seq + wire);
  const TcpSeq field = place.seq;
  const TcpSeq rfc = crc_field_before(grid, odd.start_seq + odd.wire_length).seq;
  // (A field at or before the RFC's, or one the push holds: explain_crc tried it.)
  if (!field.is_after(rfc) || field.distance_from(rfc) > kLongerFpduOctets ||
      rfc.is_before(held.seq())) {
    return {};
  }
  const std::size_t at = field.distance_from(held.seq());
  if (at + place.span() <= held.size()) return {};
  // An FPDU that is one whole segment as the RFC frames it (RFC 5044 4.1's alignment) bears the
  // RFC's framing out: its CRC is wrong, and said at once (the peer's Terminate may come next).
  if (odd.starts_segment && odd.within_one_segment &&
      rfc.distance_from(held.seq()) + kCrcSize == held.size()) {
    return {};
  }
  reader_mode::Candidate c{h, at + place.span(), false};
  c.crc = reader_mode::PendingCrc{rfc.distance_from(held.seq()), at, state, place.split};
  return c;
}

// What bears a deviation out: its own CRC (a PendingCrc), or the FPDUs that follow.
std::string evidence(bool own_crc, std::size_t fpdus) {
  if (own_crc) return "its CRC matches";
  return fpdus == 1 ? std::string("the next FPDU parses")
                    : fmt::format("the next {} FPDUs parse", fpdus);
}

// How far the held octets decide a PendingCrc candidate (Enough: its CRC matches there).
FramingTest pending_crc_test(const reader_mode::PendingCrc& p, std::span<const std::uint8_t> held) {
  FramingTest t{.stop = FramingTest::Stop::Incomplete};
  if (held.size() < p.field + p.span()) return t;
  const std::uint32_t state = crc32c_update(p.state, held.subspan(p.rfc, p.field - p.rfc));
  const bool match = crc32c_finish(state) == crc_field_value(held, p.field, p.split);
  t.stop = match ? FramingTest::Stop::Enough : FramingTest::Stop::Invalid;
  t.fpdus = match ? 1 : 0;
  t.decided_at = t.first_counted_at = p.field + p.span();
  return t;
}

// No FPDU read before the odd one (the first of the direction): it may be the deviation's
// own first, its ULPDU as `h` frames it beginning like DDP, within `bound` (the MULPDU, RFC
// 5044 4.5), where the RFC's reading is not: ULPDU_Length counted short reads a ULPDU too
// short for the DDP header it begins with, counted long one beyond the MULPDU. Where `h` ends
// it where the RFC's reading does, the FPDUs after it tell them apart (Candidate::shares_odd).
bool own_first(const SenderHypothesis& h, const FpduEvent& odd, const FpduGrammar& grammar,
               std::uint32_t bound) {
  const std::optional<std::uint32_t> ulpdu = ulpdu_octets(h.framing, odd.ulpdu_length);
  const std::uint8_t* head = grammar.ulpdu_head();
  return (h.framing.length_bias < 0 || odd.ulpdu_length > bound) && ulpdu && *ulpdu <= bound &&
         grammar.ulpdu_head_size() >= 2 && ulpdu_header_plausible(*ulpdu, head[0], head[1]);
}

// Of the deviations that read on alike with the one `chosen`, of its id (their own CRC
// matching at the same octet, or their next FPDU at the same one: ULPDU_Length 2 or 4 short
// frames an FPDU alike where the pads make up for it), the first whose pad is zero in the FPDU
// the deviation names (its ULPDU_Length field at `header_seq`): the others read ULPDU octets
// as pad there (RFC 5044 4.1).
std::size_t with_zero_pad(const reader_mode::Testing& t, std::size_t chosen, TcpSeq header_seq,
                          std::uint32_t ulpdu_length, const MarkerGrid& grid) {
  const auto pad_zero = [&](const reader_mode::Candidate& c) {
    const std::uint32_t ulpdu = ulpdu_octets(c.hypothesis.framing, ulpdu_length).value_or(0);
    return !pad_nonzero_in(grid, header_seq, ulpdu, pad_octets(c.hypothesis.framing, ulpdu),
                           t.held.bytes(), t.held.seq());
  };
  const reader_mode::Candidate& c = t.candidates[chosen];
  if (!c.hypothesis.id || pad_zero(c)) return chosen;
  for (std::size_t i = 0; i < t.candidates.size(); ++i) {
    const reader_mode::Candidate& o = t.candidates[i];
    const bool alike = c.crc ? o.crc && o.crc->field == c.crc->field : !o.crc && o.start == c.start;
    if (alike && o.hypothesis.id == c.hypothesis.id && o.test.stop == FramingTest::Stop::Enough &&
        pad_zero(o)) {
      return i;
    }
  }
  return chosen;
}

}  // namespace

using reader_mode::Candidate;
using reader_mode::kFramingLost;
using reader_mode::Testing;
using reader_mode::Verdict;

void FpduReader::begin_test(Trigger trigger, TcpSeq push_seq, std::uint64_t push_offset,
                            std::span<const std::uint8_t> data, std::uint64_t frame,
                            bool segment_start) {
  const FpduEvent& odd = grammar_.event();
  const MarkerGrid& grid_now = grammar_.grid();
  Testing t;
  t.trigger = trigger;
  const bool first_marker = trigger == Trigger::FirstMarker;  // (the odd FPDU's first octet)
  t.trigger_seq = first_marker ? odd.start_seq : odd.header_seq;
  t.trigger_offset = first_marker ? odd.start_offset : header_offset(odd);
  t.trigger_ulpdu_length = odd.ulpdu_length;
  // The octets under test: the tail kept behind this push, and the whole push.
  t.held = tail_.hold(push_seq, push_offset);
  // (Where more are kept, all of them: a marker may show a header misread long before it.)
  if (std::optional<HeldOctets> recent = recent_.take(push_seq, t.held.size()))
    t.held = std::move(*recent);
  t.held.append(data, frame, segment_start);

  // Where each hypothesis puts the next FPDU. The RFC's: at the odd FPDU itself (exempt), or
  // after the FPDU whose CRC failed. A deviation: after the FPDU it would have framed
  // differently, the one before the odd FPDU or the one whose CRC failed.
  // A start the held octets have not reached yet is a candidate too: it waits for them (which
  // hypotheses are tried must not depend on how much of the stream this push brought).
  const TcpSeq held_seq = t.held.seq();
  const auto index_of = [&](TcpSeq seq) -> std::optional<std::size_t> {
    if (seq.is_before(held_seq)) return std::nullopt;
    return seq.distance_from(held_seq);
  };
  std::vector<Candidate>& candidates = t.candidates;
  // (After a deviation was named, the others too: a later FPDU may refute the rule named. The
  // rules of the id named come first: where another frames alike, the id named stands.)
  const std::span<const SenderHypothesis> all = framing_hypotheses(grid_now.enabled(), config_.crc);
  std::vector<SenderHypothesis> hypotheses(all.begin(), all.end());
  if (const std::optional<DiagId> named = framing_named_ ? named_id() : std::nullopt) {
    std::stable_partition(hypotheses.begin(), hypotheses.end(),
                          [&](const SenderHypothesis& h) { return !h.id || h.id == named; });
  }
  const TcpSeq odd_start = odd.start_seq;
  SenderHypothesis as_framed{std::nullopt, grammar_.framing(), grid_now.enabled()};
  if (trigger == Trigger::CrcUnmatched) {
    // The FPDU is complete (its CRC failed): the RFC's reading goes on after it, a deviation
    // where it would have ended the FPDU. (Its CRC, where the octets held show the deviation's
    // CRC field, did not match: explain_crc. So the FPDUs after it decide.)
    candidates.push_back({as_framed, *index_of(odd_start + odd.wire_length), false});
  } else if (const auto at = index_of(odd_start)) {
    candidates.push_back({as_framed, *at, true});
  }
  for (const SenderHypothesis& h : hypotheses) {
    if (!h.id || (h.framing == as_framed.framing && h.markers == as_framed.markers)) continue;
    const MarkerGrid grid = h.markers ? grid_now : MarkerGrid();
    if (trigger == Trigger::CrcUnmatched) {
      if (h.markers != grid_now.enabled()) continue;
      if (auto c = unmatched_candidate(h, odd, grid, t.held)) {
        candidates.push_back(*c);
      } else if (auto p = pending_crc_candidate(h, odd, grid, t.held, grammar_.crc_state())) {
        candidates.push_back(*p);
      }
      continue;
    }
    if (trigger == Trigger::FirstMarker) {
      // Only markers nobody inserted explain a first "marker" that is none.
      if (h.markers) continue;
      if (const auto at = index_of(odd_start)) candidates.push_back({h, *at, false});
      continue;
    }
    if (h.markers != grid_now.enabled()) continue;  // (missing markers fail the first one)
    const std::optional<TcpSeq> next = boundary_start(h, odd, grid);
    if (const auto at = next ? index_of(*next) : std::nullopt) {
      candidates.push_back({h, *at, false});
      candidates.back().shares_odd =
          *next == odd_start &&
          fpdu_wire_length(grid, odd_start, h.framing, odd.ulpdu_length) ==
              fpdu_wire_length(grid, odd_start, as_framed.framing, odd.ulpdu_length);
    }
  }
  mode_ = std::move(t);
}

std::optional<TcpSeq> FpduReader::boundary_start(const SenderHypothesis& h, const FpduEvent& odd,
                                                 const MarkerGrid& grid) const {
  if (!prev_) {
    if (own_first(h, odd, grammar_, std::min(kLargestMulpdu, ulpdu_bound_))) return odd.start_seq;
    return std::nullopt;
  }
  // A CRC that matched where the RFC puts it proves the FPDU before was framed as the RFC
  // says (by chance: 2^-32); no deviation framed it longer or shorter.
  if (prev_->crc_good) return std::nullopt;
  // The FPDU the deviation names is its first: held to what test_framing asks of the rest,
  // a ULPDU that begins like DDP as the deviation frames it (an empty FPDU, or one read only
  // because the RFC's reading was adopted, is none the deviation could have sent).
  const std::optional<std::uint32_t> prev_ulpdu = ulpdu_octets(h.framing, prev_->ulpdu_length);
  if (!prev_ulpdu || !prev_->control ||
      !ulpdu_header_plausible(*prev_ulpdu, (*prev_->control)[0], (*prev_->control)[1])) {
    return std::nullopt;
  }
  return prev_->start + fpdu_wire_length(grid, prev_->start, h.framing, prev_->ulpdu_length);
}

std::optional<FpduReader::Resume> FpduReader::test(Testing& trial,
                                                   std::span<const std::uint8_t> data,
                                                   std::uint64_t frame, bool segment_start,
                                                   FpduSink& sink) {
  trial.held.append(data, frame, segment_start);
  std::optional<Resume> resume = decide(false, frame, sink);
  if (!in_test()) return resume;
  if (std::get<Testing>(mode_).held.size() > kTestBufferLimit) return decide(true, frame, sink);
  return std::nullopt;
}

void FpduReader::finish(std::uint64_t frame, FpduSink& sink, std::uint64_t timestamp_ns) {
  now_ns_ = timestamp_ns;
  // (Replaying what a decision adopted may open another test: each ends at the stream's end.)
  while (in_test()) run(decide(true, frame, sink), sink);
  give_deferred_marker(sink);  // (its FPDU never completed: the marker stands as read)
  first_complete_as_deviation_ = false;
  if (std::holds_alternative<reader_mode::Reading>(mode_) && grammar_.in_fpdu() &&
      !close_after_previous(frame, sink) && grammar_.header_read()) {
    close_as_deviation(frame, sink);
  }
  if (!held_pads_.empty()) give_pad_warnings(sink);  // (nothing came to explain them)
}

bool FpduReader::ends_as(const SenderHypothesis& h, std::uint32_t ulpdu, TcpSeq end) const {
  // The octets of the FPDU's end are among the newest read (tail_), ending at the position.
  const std::span<const std::uint8_t> tail = tail_.bytes();
  const TcpSeq tail_seq = grammar_.position() - static_cast<std::uint32_t>(tail.size());
  const auto held = [&](TcpSeq seq,
                        std::uint32_t n) -> std::optional<std::span<const std::uint8_t>> {
    if (seq.is_before(tail_seq) || seq.distance_from(tail_seq) + n > tail.size()) return {};
    return tail.subspan(seq.distance_from(tail_seq), n);
  };
  const MarkerGrid& grid = grammar_.grid();
  const std::uint32_t crc = h.framing.crc_field ? kCrcSize : 0;
  if (config_.crc && h.framing.crc_field) {
    // Its CRC matches where it puts the CRC field (2^-32 by chance).
    const TcpSeq field = end - kCrcSize;
    const auto so_far = grammar_.crc_so_far();
    const auto value = held(field, kCrcSize);
    if (!so_far || !value || grid.markers_within(field, kCrcSize) > 0) return false;
    const auto [state, upto] = *so_far;
    const bool back = !upto.is_before(field);
    const auto between =
        back ? held(field, upto.distance_from(field)) : held(upto, field.distance_from(upto));
    if (!between) return false;
    const std::uint32_t at = back ? crc32c_rewind(state, *between) : crc32c_update(state, *between);
    return crc32c_finish(at) == crc_from_wire(value->data());
  }
  // No CRC to match (CRCs off, or no CRC field sent): its pad is zero, as RFC 5044 4.1 has it.
  const std::uint32_t pad = pad_octets(h.framing, ulpdu);
  const auto pad_octets_held = held(end - crc - pad, pad);
  if (!pad_octets_held || grid.markers_within(end - crc - pad, pad) > 0) return false;
  return std::all_of(pad_octets_held->begin(), pad_octets_held->end(),
                     [](std::uint8_t b) { return b == 0; });
}

const SenderHypothesis* FpduReader::ending_deviation(bool exactly) const {
  // An FPDU in progress that ends here as a deviation frames it, its ULPDU beginning like DDP
  // and its CRC (or, without one, its pad) bearing it out.
  if (!config_.check_sender_framing || !judge_.judging() || !grammar_.header_read() ||
      !grammar_.event().judged) {
    return nullptr;
  }
  const FpduEvent& fpdu = grammar_.event();
  const MarkerGrid& grid = grammar_.grid();
  const auto read = static_cast<std::uint32_t>(grammar_.offset() - fpdu.start_offset);
  const std::uint8_t* head = grammar_.ulpdu_head();
  const SenderHypothesis* found = nullptr;
  for (const SenderHypothesis& h : framing_hypotheses(grid.enabled(), config_.crc)) {
    if (!h.id || h.markers != grid.enabled() || h.framing == grammar_.framing()) continue;
    const std::optional<std::uint32_t> ulpdu = ulpdu_octets(h.framing, fpdu.ulpdu_length);
    if (!ulpdu) continue;
    const std::uint32_t wire = fpdu_wire_length(grid, fpdu.start_seq, h.framing, fpdu.ulpdu_length);
    // (Not exactly: the next FPDU's first few octets may have come too.)
    if (exactly ? wire != read : wire > read || read - wire > kNextFpduOctetsRead) continue;
    if (grammar_.ulpdu_head_size() >= 2 && ulpdu_header_plausible(*ulpdu, head[0], head[1]) &&
        ends_as(h, *ulpdu, fpdu.start_seq + wire) &&
        (!found || preferred(h, *found, fpdu.start_seq + wire))) {
      found = &h;
    }
  }
  return found;
}

bool FpduReader::preferred(const SenderHypothesis& h, const SenderHypothesis& over,
                           TcpSeq end) const {
  // Both end the FPDU at `end`. The deviation named already, where its id is the one (the
  // sender's rule read so far: one FPDU fitting two rules left which open).
  const std::optional<DiagId> named = framing_named_ ? named_id() : std::nullopt;
  if (named && (h.id == named) != (over.id == named)) return h.id == named;
  // CRCs off: a CRC field of zeros where `h` puts it, and no CRC field in `over`. RFC 5044 4.1
  // lets such a field hold any value; zero is what senders write. Read as ULPDU and pad it is
  // a ULPDU that ends in zeros exactly where a CRC field would be: the field is likelier.
  if (config_.crc || over.framing.crc_field || !h.framing.crc_field) return false;
  const std::span<const std::uint8_t> tail = tail_.bytes();
  const TcpSeq tail_seq = grammar_.position() - static_cast<std::uint32_t>(tail.size());
  const TcpSeq field = end - kCrcSize;
  if (field.is_before(tail_seq) || field.distance_from(tail_seq) + kCrcSize > tail.size() ||
      grammar_.grid().markers_within(field, kCrcSize) > 0) {
    return false;
  }
  const auto octets = tail.subspan(field.distance_from(tail_seq), kCrcSize);
  return std::all_of(octets.begin(), octets.end(), [](std::uint8_t b) { return b == 0; });
}

void FpduReader::close_as_deviation(std::uint64_t frame, FpduSink& sink) {
  // RFC 5044 4.1: a sender ends its stream at an FPDU boundary. One that ends inside the FPDU
  // the reader frames, where a deviation ends it (ending_deviation), framed its last FPDU so.
  if (const SenderHypothesis* found = ending_deviation(true)) {
    const SenderHypothesis& h = *found;
    const MarkerGrid grid = grammar_.grid();
    const std::span<const std::uint8_t> tail = tail_.bytes();
    const TcpSeq tail_seq = grammar_.position() - static_cast<std::uint32_t>(tail.size());
    grammar_.complete_here(frame);
    grammar_.event().timestamp_ns = now_ns_;
    reframe_event(h, tail, tail_seq);
    const bool checked = config_.crc && h.framing.crc_field;
    grammar_.event().crc_status = checked ? CrcStatus::Good : CrcStatus::NotChecked;
    emit_fpdu(frame, sink, true, false);
    const FpduEvent& done = grammar_.event();
    if (!framing_named_ || named_id() != h.id) {
      judge_.report(sink, *h.id, done.header_seq, header_offset(done), frame,
                    fmt::format("FPDU at seq {}: {}; the stream ends where {} ends it{}",
                                done.header_seq.value(), deviation_of(h, done.ulpdu_length),
                                describe(h), checked ? " (its CRC matches there)" : ""));
    }
    grammar_.reframe(h.framing, grid);
    framing_named_ = true;
    prev_.reset();
  }
}

bool FpduReader::close_after_previous(std::uint64_t frame, FpduSink& sink) {
  // RFC 5044 4.1: a sender ends its stream at an FPDU boundary. Where a deviation frames the
  // FPDU completed last a few octets longer than the RFC (a pad of 2 or 3 where the RFC's is
  // 0 or 1, ULPDU_Length counted short), the octets after it read as the next FPDU's header;
  // a stream that ends exactly at that sender's boundary, its pad zero there, shows it.
  // (With CRCs, that FPDU's CRC failed where the RFC puts it and was tested then.)
  if (!prev_ || config_.crc || !config_.check_sender_framing || !judge_.judging() ||
      !prev_->judged || !prev_->control) {
    return false;
  }
  const MarkerGrid& grid = grammar_.grid();
  const reader_mode::PreviousFpdu& prev = *prev_;
  const TcpSeq end = grammar_.position();
  const TcpSeq read_end =
      prev.start + fpdu_wire_length(grid, prev.start, grammar_.framing(), prev.ulpdu_length);
  if (grammar_.event().start_seq != read_end || !end.is_after(read_end) ||
      end.distance_from(read_end) > kLongerFpduOctets) {
    return false;
  }
  const SenderHypothesis* found = nullptr;
  for (const SenderHypothesis& h : framing_hypotheses(grid.enabled(), config_.crc)) {
    if (!h.id || h.markers != grid.enabled() || h.framing == grammar_.framing()) continue;
    const std::optional<std::uint32_t> ulpdu = ulpdu_octets(h.framing, prev.ulpdu_length);
    if (ulpdu && ulpdu_header_plausible(*ulpdu, (*prev.control)[0], (*prev.control)[1]) &&
        prev.start + fpdu_wire_length(grid, prev.start, h.framing, prev.ulpdu_length) == end &&
        ends_as(h, *ulpdu, end) && (!found || preferred(h, *found, end))) {
      found = &h;
    }
  }
  if (found) {
    const SenderHypothesis& h = *found;
    if (!framing_named_ || named_id() != h.id) {
      judge_.report(
          sink, *h.id, prev.header_seq,
          prev.start_offset + prev.header_seq.distance_from(prev.start), frame,
          fmt::format("FPDU at seq {}: {}; the stream ends where {} ends it, {} octets after "
                      "the RFC's end",
                      prev.header_seq.value(), deviation_of(h, prev.ulpdu_length), describe(h),
                      end.distance_from(read_end)));
    }
    held_pads_.clear();  // (its pad as read was the sender's ULPDU or pad)
    revise_previous(h, sink);
    grammar_.reset(end, grammar_.offset());
    grammar_.reframe(h.framing, grid);
    framing_named_ = true;
    prev_.reset();
    return true;
  }
  return false;
}

bool FpduReader::hold_pad_warning(const FpduEvent& fpdu, bool crc_explained, std::uint64_t frame,
                                  FpduSink& sink) {
  if (!config_.check_sender_framing || !judge_.judging() || !fpdu.judged) return false;
  // Its first two pad octets may be the ULPDU's last two, counted short by 2 (RFC 5044 4.1:
  // the sender's own pad, the rest, zero).
  bool short_count_fits = fpdu.pad_length >= 2 && grammar_.framing().length_bias >= 0;
  for (std::size_t i = 2; i < fpdu.pad_length; ++i) short_count_fits &= fpdu.pad[i] == 0;
  if (config_.crc) {
    // A CRC vouches for where an FPDU ends, not for where its ULPDU does: a sender whose
    // ULPDU_Length counts 2 octets short ends its FPDU where the RFC does whenever the RFC's
    // pad is 2 or 3 octets, and the last two octets of its ULPDU read as the pad's first two.
    if (fpdu.crc_status != CrcStatus::Good || crc_explained || !short_count_fits) return false;
  }
  // (Without CRCs, the "pad" may also be the next FPDU's first octets, until that FPDU begins.)
  if (held_pads_.size() >= kHeldPadsLimit) give_pad_warnings(sink);  // (bounded)
  held_pads_.push_back(
      {fpdu.header_seq, header_offset(fpdu), frame, fpdu.ulpdu_length, short_count_fits});
  return true;
}

void FpduReader::settle_pad_warnings(const FpduEvent& fpdu, bool crc_explained, FpduSink& sink) {
  // With CRCs: an FPDU whose CRC matches with a pad of 0 or 1 octets, which a sender counting
  // 2 short would have ended 4 octets later.
  if (config_.crc) {
    if (fpdu.crc_status == CrcStatus::Good && !crc_explained && fpdu.pad_length < 2)
      give_pad_warnings(sink);
    return;
  }
  // Without CRCs: another FPDU followed, where the RFC puts it (the pad was no next header);
  // a pad that a sender counting 2 short explains waits until an FPDU with a pad under 2 was
  // followed by another where the RFC puts it (that sender would have ended it 4 octets later).
  const bool short_count_refuted = prev_ && prev_->short_pad;
  std::erase_if(held_pads_, [&](const HeldPadWarning& w) {
    if (w.short_count_fits && !short_count_refuted) return false;
    judge_.pad_nonzero(sink, w.header_seq, w.offset, w.frame, w.ulpdu_length);
    return true;
  });
}

void FpduReader::give_pad_warnings(FpduSink& sink) {
  for (const HeldPadWarning& w : held_pads_) {
    judge_.pad_nonzero(sink, w.header_seq, w.offset, w.frame, w.ulpdu_length);
  }
  held_pads_.clear();
}

std::optional<FpduReader::Resume> FpduReader::decide(bool final, std::uint64_t frame,
                                                     FpduSink& sink) {
  const std::optional<Verdict> verdict =
      std::get<Testing>(mode_).decide(final, grammar_.grid(), config_.crc);
  if (!verdict) return std::nullopt;
  return act(*verdict, frame, sink);
}

std::optional<Verdict> Testing::decide(bool final, const MarkerGrid& grid_now, bool crc) {
  // Each hypothesis read as far as the held octets go (a verdict that more octets cannot
  // change is kept).
  // (A sender without a CRC field has none to match: its DDP headers alone confirm it.)
  const bool vouched = crc || grid_now.enabled();
  for (Candidate& c : candidates) {
    if (c.test.settled()) continue;
    if (c.crc) {
      c.test = pending_crc_test(*c.crc, held.bytes());
      continue;
    }
    const MarkerGrid grid = c.hypothesis.markers ? grid_now : MarkerGrid();
    const std::size_t needed =
        (crc && c.hypothesis.framing.crc_field ? kConfirmingFpdusWithCrc : kConfirmingFpdus) +
        (c.shares_odd ? 1 : 0);
    c.test =
        test_framing(held.bytes(), held.seq(), c.start, grid, crc, c.hypothesis, c.exempt, needed);
  }
  // The verdict is the one the held octets gave first, at the fewest octets that give one,
  // however many have arrived since: how the stream was cut must not matter.
  std::vector<std::size_t> points;
  for (const Candidate& c : candidates) {
    if (c.test.settled()) points.push_back(c.test.decided_at);
  }
  std::sort(points.begin(), points.end());
  // After a CRC that matched nowhere: once every deviation is refuted, the CRC was wrong.
  if (trigger == Trigger::CrcUnmatched &&
      std::all_of(candidates.begin() + 1, candidates.end(),
                  [](const Candidate& c) { return c.test.stop == FramingTest::Stop::Invalid; })) {
    return Verdict{0, 0};
  }
  for (const std::size_t at : points) {
    if (const std::optional<Verdict> verdict = verdict_with(at, vouched)) return verdict;
  }
  if (!final) return std::nullopt;
  // The stream ends (or a gap cuts it) with hypotheses still reading: decided on all it has.
  // A hypothesis confirmed outright (its CRC, or as many FPDUs beginning like DDP as a test
  // asks) beats a reading the end of the stream stopped short of that: the RFC's too, which
  // the odd FPDU put in doubt (the empty FPDUs a misread header makes of zeros count nothing).
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].test.stop == FramingTest::Stop::Enough)
      return Verdict{i, candidates[i].test.fpdus};
  }
  std::optional<std::size_t> weak_rfc;  // the RFC's reading, cut off by the end of the stream
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const bool as_framed = !c.hypothesis.id.has_value();
    if (c.test.stop == FramingTest::Stop::EndOfBuffer && (c.test.fpdus > 0 || as_framed)) {
      return Verdict{crc ? i : with_zero_crc_field(i), c.test.fpdus};
    }
    if (c.test.stop == FramingTest::Stop::Incomplete && as_framed) weak_rfc = i;
  }
  return fallback(weak_rfc.has_value(), vouched);
}

std::optional<Verdict> Testing::verdict_with(std::size_t at, bool vouched) const {
  // The first hypothesis, in order, that reads on, once every one before it is refuted.
  // (The RFC's reading still inside the odd FPDU itself, with no FPDU beginning like DDP
  // read yet, does not hold back a deviation that has read on.)
  bool waiting = false;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    const bool settled = c.test.settled() && c.test.decided_at <= at;
    if (settled && c.test.stop == FramingTest::Stop::Enough) return Verdict{i, c.test.fpdus};
    if (settled) continue;
    if (!c.hypothesis.id && c.exempt && c.test.first_counted_at > at) {
      waiting = true;
      continue;
    }
    return std::nullopt;
  }
  if (waiting) return std::nullopt;
  return fallback(false, vouched);
}

std::size_t Testing::with_zero_crc_field(std::size_t i) const {
  // CRCs off, the stream ending where candidate `i`, sending no CRC field, ends its last FPDU:
  // a later candidate with a CRC field that reads as many FPDUs to the same end, its last CRC
  // field zero, is likelier (FpduReader::preferred: zero is what senders write there).
  const Candidate& c = candidates[i];
  const std::span<const std::uint8_t> bytes = held.bytes();
  if (!c.hypothesis.id || c.hypothesis.framing.crc_field || bytes.size() < kCrcSize ||
      !std::all_of(bytes.end() - kCrcSize, bytes.end(), [](std::uint8_t b) { return b == 0; })) {
    return i;
  }
  for (std::size_t j = i + 1; j < candidates.size(); ++j) {
    const Candidate& other = candidates[j];
    if (other.hypothesis.framing.crc_field && !other.crc &&
        other.test.stop == FramingTest::Stop::EndOfBuffer && other.test.fpdus == c.test.fpdus) {
      return j;
    }
  }
  return i;
}

Verdict Testing::fallback(bool weak_rfc, bool vouched) const {
  // Nothing reads on (more octets would not change that). Where a CRC or the markers vouch
  // for the RFC's reading, it stands (the findings it gives are real); without either, only
  // when the end of the stream cut it short.
  if (!candidates.empty() && !candidates[0].hypothesis.id && (weak_rfc || vouched)) {
    return {0, 0};
  }
  return {kFramingLost, 0};
}

std::optional<FpduReader::Resume> FpduReader::act(const Verdict& verdict, std::uint64_t frame,
                                                  FpduSink& sink) {
  Testing t = std::move(std::get<Testing>(mode_));
  if (verdict.candidate == kFramingLost) {
    // fpdu.framing-lost: the rest is not read.
    mode_ = reader_mode::Abandoned{};
    held_pads_.clear();  // (pads of FPDUs read on a framing that read no further)
    const std::uint32_t tried = static_cast<std::uint32_t>(
        framing_hypotheses(grammar_.grid().enabled(), config_.crc).size());
    judge_.fatal(
        sink, DiagId::FpduFramingLost, t.trigger_seq, t.trigger_offset, frame,
        fmt::format(
            "FPDU at seq {} (ULPDU_Length {}) is no FPDU carrying DDP, and none of {} framing{} "
            "tried reads on from it ({}); the rest of this direction is not read",
            t.trigger_seq.value(), t.trigger_ulpdu_length, tried, tried == 1 ? "" : "s",
            framing_named_ ? "the sender's own, named before, and the others"
                           : "the RFC's, pad rules, CRC field, markers, ULPDU_Length +-2/+-4"));
    grammar_.reset(t.held.end_seq(), t.held.end_offset());
    return std::nullopt;
  }
  // Adopted: the deviation named, or the RFC's reading replayed as if nothing had happened.
  mode_ = reader_mode::Reading{};
  const bool named_at_odd =
      t.trigger == Trigger::FirstMarker || t.trigger == Trigger::CrcUnmatched || !prev_;
  const Candidate& c = t.candidates[with_zero_pad(
      t, verdict.candidate, named_at_odd ? grammar_.event().header_seq : prev_->header_seq,
      named_at_odd ? t.trigger_ulpdu_length : prev_->ulpdu_length, grammar_.grid())];
  const std::size_t fpdus = verdict.fpdus;
  const SenderHypothesis& h = c.hypothesis;
  SenderFraming framing = grammar_.framing();
  MarkerGrid grid = grammar_.grid();
  // The FPDU whose CRC matched nowhere: as the RFC frames it (its CRC judged wrong), or as the
  // deviation adopted does (no CRC it could be held to).
  const bool unmatched = t.trigger == Trigger::CrcUnmatched;
  if (unmatched && h.id) {
    reframe_event(h, t.held.bytes(), t.held.seq());
    bool pad_nonzero = grammar_.pad_nonzero() && grammar_.event().pad_length > 0;
    grammar_.event().crc_status = CrcStatus::NotChecked;
    if (c.crc) extend_to_crc_field(*c.crc, t.held, pad_nonzero);
    emit_fpdu(grammar_.event().last_frame, sink, true, pad_nonzero);
  } else if (unmatched) {
    emit_fpdu(grammar_.event().last_frame, sink, false, grammar_.pad_nonzero());
  }
  if (h.id) {
    const bool first_marker = t.trigger == Trigger::FirstMarker;
    // (No FPDU before the odd one: the deviation's first is the odd FPDU itself, own_first.)
    const bool at_odd = first_marker || unmatched || !prev_;
    const TcpSeq where = at_odd ? t.trigger_seq : prev_->start;
    const std::uint32_t length = at_odd ? t.trigger_ulpdu_length : prev_->ulpdu_length;
    const std::uint64_t where_offset = t.trigger_offset - t.trigger_seq.distance_from(where);
    // Another rule of the same dimension that reads on as far (odd ULPDUs alone do not tell
    // (n + 2) mod 4 from the ULPDU alone to 4): both named; a later FPDU settles it silently.
    std::string rule = describe(h);
    for (const Candidate& other : t.candidates) {
      if (&other == &c || other.hypothesis.id != h.id || other.start != c.start ||
          other.test.stop != FramingTest::Stop::Enough) {
        continue;
      }
      rule = fmt::format("{} or {} (these FPDUs fit both)", rule, describe(other.hypothesis));
      break;
    }
    if (!framing_named_ || named_id() != h.id)
      judge_.report(
          sink, *h.id, where, where_offset, frame,
          fmt::format(
              "FPDU at seq {}: {}; {} only with {}{}; the rest of this direction is read as sent",
              where.value(), deviation_of(h, length), evidence(c.crc.has_value(), fpdus), rule,
              config_.crc && !c.crc ? (fpdus == 1 ? " (its CRC matches)" : " (their CRCs match)")
                                    : ""));
    framing = h.framing;
    // The pads held were the named FPDU's misread end, or ULPDU octets counted short.
    if (!config_.crc || h.framing.length_bias < 0) held_pads_.clear();
    if (!h.markers) grid = MarkerGrid();
    framing_named_ = true;
    if (!at_odd) revise_previous(h, sink);
    prev_.reset();
  } else if (c.exempt) {
    exempt_seq_ = t.held.seq() + static_cast<std::uint32_t>(c.start);
    exempt_empty_run_ = true;
  }
  return Resume{std::move(t.held), c.start, framing, grid};
}

std::optional<DiagId> FpduReader::named_id() const {
  // The id of the deviation the reader frames by now (one dimension of the RFC's changed).
  const SenderFraming& f = grammar_.framing();
  if (f.pad != PadRule::Rfc) return DiagId::FpduPadRuleWrong;
  if (f.length_bias != 0) return DiagId::FpduUlpduLengthMiscounted;
  if (!f.crc_field) return DiagId::FpduCrcFieldMissing;
  if (config_.markers && !grammar_.grid().enabled()) return DiagId::FpduMarkersMissing;
  return std::nullopt;
}

void FpduReader::revise_previous(const SenderHypothesis& h, FpduSink& sink) {
  // The FPDU the deviation names was reported as the RFC frames it: report it again as the
  // sender framed it (ULPDU, pad, CRC field, extent), so that faces that drew it redraw it.
  const reader_mode::PreviousFpdu& prev = *prev_;
  FpduEvent revised;                                 // (no markers, ULPDU or CRC given again)
  revised.connection = grammar_.event().connection;  // (the reader's own, as every event's)
  revised.direction = grammar_.event().direction;
  revised.start_seq = prev.start;
  revised.start_offset = prev.start_offset;
  revised.header_seq = prev.header_seq;
  revised.ulpdu_length = prev.ulpdu_length;
  revised.leading_marker = prev.leading_marker;
  revised.first_frame = prev.first_frame;
  revised.last_frame = prev.last_frame;
  revised.starts_segment = prev.starts_segment;
  revised.within_one_segment = prev.within_one_segment;
  revised.judged = prev.judged;
  revised.timestamp_ns = prev.timestamp_ns;
  const MarkerGrid grid = h.markers ? grammar_.grid() : MarkerGrid();
  revised.ulpdu_size = ulpdu_octets(h.framing, revised.ulpdu_length).value_or(0);
  revised.pad_length = static_cast<std::uint8_t>(pad_octets(h.framing, revised.ulpdu_size));
  revised.crc_field = h.framing.crc_field;
  revised.wire_length = fpdu_wire_length(grid, revised.start_seq, h.framing, revised.ulpdu_length);
  revised.leading_marker = revised.leading_marker && h.markers;
  revised.crc_status = CrcStatus::NotChecked;
  revised.crc_received = revised.crc_computed = 0;
  sink.on_fpdu_revised(revised, h.markers);
}

void FpduReader::extend_to_crc_field(const reader_mode::PendingCrc& p, const HeldOctets& held,
                                     bool& pad_nonzero) {
  // The FPDU reframed (reframe_event) ends at its sender's CRC field, which matched: its CRC
  // is good there, its pad the octets before that field, its last octets from later frames.
  FpduEvent& fpdu = grammar_.event();
  fpdu.crc_status = CrcStatus::Good;
  const std::span<const std::uint8_t> bytes = held.bytes();
  pad_nonzero = pad_nonzero_in(grammar_.grid(), fpdu.header_seq, fpdu.ulpdu_size, fpdu.pad_length,
                               bytes, held.seq());
  const auto [last, other] = held.frames_of(p.rfc, p.field + p.span(), fpdu.last_frame);
  fpdu.last_frame = last;
  if (other) fpdu.within_one_segment = false;
}

void FpduReader::reframe_event(const SenderHypothesis& h, std::span<const std::uint8_t> window,
                               TcpSeq window_seq) {
  // The FPDU just completed, as `h` frames it (its octets from `window`, at `window_seq`).
  FpduEvent& fpdu = grammar_.event();
  const MarkerGrid grid = h.markers ? grammar_.grid() : MarkerGrid();
  const std::uint32_t ulpdu = ulpdu_octets(h.framing, fpdu.ulpdu_length).value_or(0);
  if (ulpdu > fpdu.ulpdu_size) {
    // (Longer than read: its ULPDU goes on over what was read as pad and CRC field.)
    std::vector<std::uint8_t> more;
    for_each_ulpdu_octets_run(
        grid, fpdu.header_seq, fpdu.ulpdu_size, ulpdu - fpdu.ulpdu_size, [&](SeqRange r) {
          const std::size_t at = r.seq.distance_from(window_seq);
          if (at + r.length > window.size()) return false;  // (not held: left out)
          more.insert(more.end(), window.begin() + at, window.begin() + at + r.length);
          return true;
        });
    grammar_.extend_ulpdu(more);
  }
  fpdu.ulpdu_size = ulpdu;
  fpdu.crc_field = h.framing.crc_field;
  // (It was read with the RFC's length: the octets after the sender's ULPDU are not its.)
  if (fpdu.ulpdu.size() > ulpdu) fpdu.ulpdu = fpdu.ulpdu.first(ulpdu);
  if (fpdu.ulpdu_head.size() > ulpdu) fpdu.ulpdu_head = fpdu.ulpdu_head.first(ulpdu);
  fpdu.pad_length = static_cast<std::uint8_t>(pad_octets(h.framing, ulpdu));
  fpdu.wire_length = fpdu_wire_length(grid, fpdu.start_seq, h.framing, fpdu.ulpdu_length);
  fpdu.crc_received = fpdu.crc_computed = 0;  // (where the sender put it: not kept)
}

std::optional<TcpSeq> FpduReader::explain_bad_crc(std::uint64_t frame,
                                                  std::span<const std::uint8_t> data,
                                                  TcpSeq push_seq, bool push_within,
                                                  FpduSink& sink) {
  const std::span<const std::uint8_t> tail = tail_.bytes();
  std::vector<std::uint8_t> window(tail.begin(), tail.end());
  window.insert(window.end(), data.begin(), data.end());
  const TcpSeq window_seq = push_seq - static_cast<std::uint32_t>(tail.size());
  TcpSeq resume;
  bool pad_nonzero = grammar_.pad_nonzero();
  std::optional<SenderHypothesis> h =
      explain_crc(grammar_, config_.crc, window, window_seq, resume, pad_nonzero);
  if (!h) return std::nullopt;
  // Another rule of the same dimension that fits this FPDU as well (a sender 4 long ends an
  // FPDU whose pad the RFC makes 2 or 3 where one 2 long would): both are named, and the
  // next FPDU that tells them apart settles it without naming the id again.
  TcpSeq other_resume;
  bool other_pad = false;
  std::optional<SenderHypothesis> also =
      explain_crc(grammar_, config_.crc, window, window_seq, other_resume, other_pad, &h->framing);
  // (Of the two, the one whose pad is zero: the other reads ULPDU octets as pad, RFC 5044 4.1.)
  if (also && also->id == h->id && other_resume == resume && pad_nonzero && !other_pad) {
    std::swap(h, also);
    pad_nonzero = false;
  }
  const std::string rule =
      also && also->id == h->id && other_resume == resume
          ? fmt::format("{} or {} (this FPDU fits both)", describe(*h), describe(*also))
          : describe(*h);
  FpduEvent& fpdu = grammar_.event();
  reframe_event(*h, window, window_seq);
  fpdu.crc_status = CrcStatus::Good;
  // Ended before this push: whether it lay within one segment is what it was before.
  if (!resume.is_after(push_seq)) fpdu.within_one_segment = push_within;
  if (h->framing.length_bias < 0) held_pads_.clear();  // (ULPDU octets counted short)
  emit_fpdu(frame, sink, true, pad_nonzero);
  // A verdict reopened (the rule named before fits no more): the id was named already, with
  // the rule the FPDUs up to here allowed; another id is named as it is found.
  if (!framing_named_ || named_id() != h->id) {
    judge_.report(
        sink, *h->id, fpdu.header_seq, header_offset(fpdu), frame,
        fmt::format("FPDU at seq {}: {}; its CRC matches only with {}, and so the rest of "
                    "this direction is read",
                    fpdu.header_seq.value(), deviation_of(*h, fpdu.ulpdu_length), rule));
  }
  grammar_.reframe(h->framing, grammar_.grid());
  framing_named_ = true;
  prev_.reset();
  return resume;
}

}  // namespace mpa
