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
#include <cstring>
#include <string>

#include "mpa/crc32c.h"
#include "mpa/ddp.h"
#include "mpa/fpdu_layout.h"
#include "mpa/fpdu_reader.h"
#include "mpa/fpdu_search.h"

namespace mpa {
namespace {

// FPDUs beginning like DDP that confirm a hypothesis (a misframed boundary passes the DDP
// test about one time in eight); with CRCs, one whose CRC matches is proof enough.
constexpr std::size_t kConfirmingFpdus = 4;
constexpr std::size_t kConfirmingFpdusWithCrc = 1;
// Octets held at most while testing; then the test is decided on what it has.
constexpr std::size_t kTestBufferLimit = 256u << 10;

}  // namespace

void FpduReader::remember_short_tail(std::span<const std::uint8_t> data, std::uint64_t frame,
                                     bool segment_start) {
  const std::size_t keep = std::min(tail_size_, kTailSize - data.size());
  const std::size_t drop = tail_size_ - keep;
  std::memmove(tail_.data(), tail_.data() + drop, keep);
  std::memcpy(tail_.data() + keep, data.data(), data.size());
  tail_chunk_count_ = drop_front(tail_chunks_.data(), tail_chunk_count_, drop, tail_size_);
  tail_chunks_[tail_chunk_count_++] = {keep, frame, segment_start};
  tail_size_ = keep + data.size();
}

void FpduReader::hold_tail(TcpSeq push_seq, std::uint64_t push_offset) {
  lost_buffer_.assign(tail_.begin(), tail_.begin() + static_cast<std::ptrdiff_t>(tail_size_));
  lost_chunks_.assign(tail_chunks_.begin(),
                      tail_chunks_.begin() + static_cast<std::ptrdiff_t>(tail_chunk_count_));
  lost_seq_ = push_seq - static_cast<std::uint32_t>(tail_size_);
  lost_offset_ = push_offset - tail_size_;
  tail_size_ = tail_chunk_count_ = 0;
}

void FpduReader::begin_test(Trigger trigger, TcpSeq push_seq, std::uint64_t push_offset,
                            std::span<const std::uint8_t> data, std::uint64_t frame,
                            bool segment_start) {
  testing_ = true;
  trigger_ = trigger;
  trigger_seq_ = current_.header_seq;
  trigger_offset_ = current_.header_offset();
  trigger_ulpdu_length_ = current_.ulpdu_length;
  if (trigger == Trigger::FirstMarker) {
    trigger_seq_ = current_.start_seq;
    trigger_offset_ = current_.start_offset;
  }
  // The octets under test: the tail kept behind this push, and the whole push.
  hold_tail(push_seq, push_offset);
  pos_ = push_seq;
  offset_ = push_offset;
  hold(data, frame, segment_start);

  // Where each hypothesis puts the next FPDU. The RFC's: at the odd FPDU itself (exempt), or
  // after the FPDU whose CRC failed. A deviation: after the FPDU it would have framed
  // differently, the one before the odd FPDU or the one whose CRC failed.
  // A start the held octets have not reached yet is a candidate too: it waits for them (which
  // hypotheses are tried must not depend on how much of the stream this push brought).
  const auto index_of = [&](TcpSeq seq) -> std::optional<std::size_t> {
    if (seq.is_before(lost_seq_)) return std::nullopt;
    return seq.distance_from(lost_seq_);
  };
  candidates_.clear();
  const std::span<const SenderHypothesis> hypotheses =
      framing_named_ ? std::span<const SenderHypothesis>()
                     : framing_hypotheses(grid_.enabled(), config_.crc);
  const TcpSeq odd_start = current_.start_seq;
  SenderHypothesis as_framed{std::nullopt, framing_, grid_.enabled()};
  if (const auto at = index_of(odd_start)) candidates_.push_back({as_framed, *at, true});
  for (const SenderHypothesis& h : hypotheses) {
    if (!h.id) continue;
    const MarkerGrid grid = h.markers ? grid_ : MarkerGrid();
    if (trigger == Trigger::FirstMarker) {
      // Only markers nobody inserted explain a first "marker" that is none.
      if (h.markers) continue;
      if (const auto at = index_of(odd_start)) candidates_.push_back({h, *at, false});
      continue;
    }
    if (h.markers != grid_.enabled()) continue;  // (missing markers fail the first one)
    if (!have_prev_) continue;
    // A CRC that matched where the RFC puts it proves the FPDU before was framed as the RFC
    // says (by chance: 2^-32); no deviation framed it longer or shorter.
    if (prev_crc_good_) continue;
    // The FPDU the deviation names is its first: held to what test_framing asks of the rest,
    // a ULPDU that begins like DDP as the deviation frames it (an empty FPDU, or one read only
    // because the RFC's reading was adopted, is none the deviation could have sent).
    const std::optional<std::uint32_t> prev_ulpdu = ulpdu_octets(h.framing, prev_ulpdu_length_);
    if (!prev_ulpdu || !prev_has_control_ ||
        !ulpdu_header_plausible(*prev_ulpdu, prev_control_[0], prev_control_[1])) {
      continue;
    }
    const TcpSeq next =
        prev_start_ + fpdu_wire_length(grid, prev_start_, h.framing, prev_ulpdu_length_);
    if (const auto at = index_of(next)) candidates_.push_back({h, *at, false});
  }
}

void FpduReader::push_testing(std::span<const std::uint8_t> data, std::uint64_t frame,
                              bool segment_start, FpduSink& sink) {
  hold(data, frame, segment_start);
  if (decide(false, frame, sink)) return;
  if (lost_buffer_.size() > kTestBufferLimit) decide(true, frame, sink);
}

void FpduReader::finish(std::uint64_t frame, FpduSink& sink) {
  // (Replaying what a decision adopted may open another test: each ends at the stream's end.)
  while (testing_) decide(true, frame, sink);
}

bool FpduReader::decide(bool final, std::uint64_t frame, FpduSink& sink) {
  // Each hypothesis read as far as the held octets go (a verdict that more octets cannot
  // change is kept).
  const std::size_t needed = config_.crc ? kConfirmingFpdusWithCrc : kConfirmingFpdus;
  for (Candidate& c : candidates_) {
    if (c.test.settled()) continue;
    const MarkerGrid grid = c.hypothesis.markers ? grid_ : MarkerGrid();
    c.test = test_framing(lost_buffer_, lost_seq_, c.start, grid, config_.crc, c.hypothesis,
                          c.exempt, needed);
  }
  // The verdict is the one the held octets gave first, at the fewest octets that give one,
  // however many have arrived since: how the stream was cut must not matter.
  std::vector<std::size_t> points;
  for (const Candidate& c : candidates_) {
    if (c.test.settled()) points.push_back(c.test.decided_at);
  }
  std::sort(points.begin(), points.end());
  for (const std::size_t held : points) {
    if (const std::optional<Verdict> verdict = verdict_with(held))
      return act(*verdict, frame, sink);
  }
  if (!final) return false;
  // The stream ends (or a gap cuts it) with hypotheses still reading: decided on all it has.
  std::optional<std::size_t> weak_rfc;  // the RFC's reading, cut off by the end of the stream
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    const Candidate& c = candidates_[i];
    const bool as_framed = !c.hypothesis.id.has_value();
    if (c.test.stop == FramingTest::Stop::EndOfBuffer && (c.test.fpdus > 0 || as_framed)) {
      return act({i, c.test.fpdus}, frame, sink);
    }
    if (c.test.stop == FramingTest::Stop::Incomplete && as_framed) weak_rfc = i;
  }
  return act(fallback(weak_rfc.has_value()), frame, sink);
}

std::optional<FpduReader::Verdict> FpduReader::verdict_with(std::size_t held) const {
  // The first hypothesis, in order, that reads on, once every one before it is refuted.
  // (The RFC's reading still inside the odd FPDU itself, with no FPDU beginning like DDP
  // read yet, does not hold back a deviation that has read on.)
  bool waiting = false;
  for (std::size_t i = 0; i < candidates_.size(); ++i) {
    const Candidate& c = candidates_[i];
    const bool settled = c.test.settled() && c.test.decided_at <= held;
    if (settled && c.test.stop == FramingTest::Stop::Enough) return Verdict{i, c.test.fpdus};
    if (settled) continue;
    if (!c.hypothesis.id && c.exempt && c.test.first_counted_at > held) {
      waiting = true;
      continue;
    }
    return std::nullopt;
  }
  if (waiting) return std::nullopt;
  return fallback(false);
}

FpduReader::Verdict FpduReader::fallback(bool weak_rfc) const {
  // Nothing reads on (more octets would not change that). Where a CRC or the markers vouch
  // for the RFC's reading, it stands (the findings it gives are real); without either, only
  // when the end of the stream cut it short.
  if (!candidates_.empty() && !candidates_[0].hypothesis.id &&
      (weak_rfc || config_.crc || grid_.enabled())) {
    return {0, 0};
  }
  return {kFramingLost, 0};
}

bool FpduReader::act(const Verdict& verdict, std::uint64_t frame, FpduSink& sink) {
  if (verdict.candidate == kFramingLost) {
    lose_framing(frame, sink);
  } else {
    adopt(candidates_[verdict.candidate], verdict.fpdus, frame, sink);
  }
  return true;
}

void FpduReader::adopt(const Candidate& c, std::size_t fpdus, std::uint64_t frame, FpduSink& sink) {
  testing_ = false;
  const SenderHypothesis& h = c.hypothesis;
  if (h.id) {
    const bool first_marker = trigger_ == Trigger::FirstMarker;
    const TcpSeq where = first_marker ? trigger_seq_ : prev_start_;
    const std::uint32_t length = first_marker ? trigger_ulpdu_length_ : prev_ulpdu_length_;
    const std::uint64_t where_offset = trigger_offset_ - trigger_seq_.distance_from(where);
    report(sink, *h.id, where, where_offset, frame,
           fmt::format(
               "FPDU at seq {}: {}; {} only with {}{}; the rest of this direction is read as sent",
               where.value(), deviation_of(h, length),
               fpdus == 1 ? std::string("the next FPDU parses")
                          : fmt::format("the next {} FPDUs parse", fpdus),
               describe(h),
               config_.crc ? (fpdus == 1 ? " (its CRC matches)" : " (their CRCs match)") : ""));
    framing_ = h.framing;
    if (!h.markers) grid_ = MarkerGrid();
    framing_named_ = true;
    have_prev_ = false;
  } else if (c.exempt) {
    exempt_ = exempt_empty_run_ = true;
    exempt_seq_ = lost_seq_ + static_cast<std::uint32_t>(c.start);
  }
  candidates_.clear();
  replay_from(c.start, frame, sink);
}

void FpduReader::lose_framing(std::uint64_t frame, FpduSink& sink) {
  testing_ = false;
  candidates_.clear();
  const std::uint32_t tried = static_cast<std::uint32_t>(
      framing_named_ ? 1 : framing_hypotheses(grid_.enabled(), config_.crc).size());
  fatal(sink, DiagId::FpduFramingLost, trigger_seq_, trigger_offset_, frame,
        fmt::format(
            "FPDU at seq {} (ULPDU_Length {}) is no FPDU carrying DDP, and none of {} framing{} "
            "tried reads on from it ({}); the rest of this direction is not read",
            trigger_seq_.value(), trigger_ulpdu_length_, tried, tried == 1 ? "" : "s",
            framing_named_ ? "the sender's own, named before"
                           : "the RFC's, pad rules, CRC field, markers, ULPDU_Length +-2/+-4"));
  abandoned_ = true;
  seen_any_octet_ = false;
  lost_buffer_.clear();
  lost_chunks_.clear();
}

bool FpduReader::explain_bad_crc(std::uint64_t frame, FpduSink& sink) {
  std::vector<std::uint8_t> window(tail_.begin(),
                                   tail_.begin() + static_cast<std::ptrdiff_t>(tail_size_));
  window.insert(window.end(), push_data_.begin(), push_data_.end());
  const TcpSeq window_seq = push_seq_ - static_cast<std::uint32_t>(tail_size_);
  const std::optional<SenderHypothesis> h =
      explain_crc(window, window_seq, crc_resume_, pad_nonzero_);
  if (!h) return false;
  const MarkerGrid grid = h->markers ? grid_ : MarkerGrid();
  const std::uint32_t ulpdu = ulpdu_octets(h->framing, current_.ulpdu_length).value_or(0);
  current_.ulpdu_size = ulpdu;
  current_.crc_field = h->framing.crc_field;
  // (It was read with the RFC's length: the octets after the sender's ULPDU are not its.)
  if (current_.ulpdu.size() > ulpdu) current_.ulpdu = current_.ulpdu.first(ulpdu);
  if (current_.ulpdu_head.size() > ulpdu) current_.ulpdu_head = current_.ulpdu_head.first(ulpdu);
  current_.pad_length = static_cast<std::uint8_t>(pad_octets(h->framing, ulpdu));
  current_.wire_length =
      fpdu_wire_length(grid, current_.start_seq, h->framing, current_.ulpdu_length);
  current_.crc_status = CrcStatus::Good;
  current_.crc_received = current_.crc_computed = 0;  // (where the sender put it: not kept)
  // Ended before this push: whether it lay within one segment is what it was before.
  if (!crc_resume_.is_after(push_seq_)) current_.within_one_segment = push_within_;
  emit_fpdu(frame, sink, true);
  report(sink, *h->id, current_.header_seq, current_.header_offset(), frame,
         fmt::format("FPDU at seq {}: {}; its CRC matches only with {}, and so the rest of this "
                     "direction is read",
                     current_.header_seq.value(), deviation_of(*h, current_.ulpdu_length),
                     describe(*h)));
  framing_ = h->framing;
  framing_named_ = true;
  have_prev_ = false;
  pending_trigger_ = Trigger::Crc;
  return true;
}

std::optional<SenderHypothesis> FpduReader::explain_crc(std::span<const std::uint8_t> window,
                                                        TcpSeq window_seq, TcpSeq& resume,
                                                        bool& pad_nonzero) const {
  // Where each deviation puts this FPDU's CRC field: the CRC over the octets before it must
  // match what sits there (by chance: 2^-32). crc_state_ covers the octets before the RFC's
  // CRC field; it is run back to where the deviation's CRC field begins.
  const std::uint32_t rfc =
      crc_field(current_.start_seq, current_.wire_length).seq.distance_from(window_seq);
  if (rfc > window.size()) return std::nullopt;
  for (const SenderHypothesis& h : framing_hypotheses(grid_.enabled(), config_.crc)) {
    if (!h.id || h.markers != grid_.enabled() || !h.framing.crc_field) continue;
    if (!ulpdu_octets(h.framing, current_.ulpdu_length)) continue;
    const std::uint32_t wire =
        fpdu_wire_length(grid_, current_.start_seq, h.framing, current_.ulpdu_length);
    const TcpSeq field = current_.start_seq + (wire - kCrcSize);
    const std::uint32_t at = field.distance_from(window_seq);
    // Only CRC fields up to the RFC's own: the octets after it may not have arrived yet, and
    // what is decided must not depend on how the stream was cut. (A sender whose FPDUs are
    // longer than the RFC says meets the CRC error instead.)
    if (at > rfc || rfc - at > kTailSize) continue;
    if (grid_.markers_within(field, kCrcSize) > 0) continue;  // (a marker inside it: not tried)
    const std::span<const std::uint8_t> bytes(window);
    const std::uint32_t crc = crc32c_finish(crc32c_rewind(crc_state_, bytes.subspan(at, rfc - at)));
    if (crc != crc_from_wire(&window[at])) continue;
    resume = current_.start_seq + wire;
    const std::uint32_t ulpdu = ulpdu_octets(h.framing, current_.ulpdu_length).value_or(0);
    const std::uint32_t pad = pad_octets(h.framing, ulpdu);
    pad_nonzero = false;
    if (at >= pad && grid_.markers_within(field - pad, pad) == 0) {
      for (std::uint32_t k = at - pad; k < at; ++k) pad_nonzero |= window[k] != 0;
    }
    return h;
  }
  return std::nullopt;
}

}  // namespace mpa
