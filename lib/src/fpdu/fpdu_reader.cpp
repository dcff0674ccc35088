// The FPDU reader (RFC 5044 4.1-4.4, 6, 8). See fpdu_reader.h.
//
// push() reads in the mode the reader is in (fpdu_reader_modes.h). While Reading, the grammar
// (fpdu_grammar.h) takes the octets and says what it met; the reader judges it (fpdu_judge.h)
// or, where a boundary makes no sense, begins a framing test (fpdu_reader_framing.cpp). A
// mode that ends returns where reading resumes in the octets it held, and push() reads them
// from there in a loop (replay), never by calling itself.
#include "fpdu/fpdu_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "fpdu/fpdu_grammar_feed.h"
#include "fpdu/fpdu_rules.h"
#include "mpa/ddp.h"
#include "mpa/fpdu_layout.h"
#include "support/overloaded.h"

namespace mpa {

using reader_mode::Abandoned;
using reader_mode::Lost;
using reader_mode::Reading;
using reader_mode::Testing;

FpduReader::FpduReader(const FpduReaderConfig& config)
    : config_(config),
      ulpdu_bound_(config.mulpdu != 0 && !config.crc && config.check_sender_framing
                       ? config.mulpdu
                       : std::numeric_limits<std::uint32_t>::max()),
      grammar_(config.start_seq, config.start_offset,
               config.markers
                   ? MarkerGrid(config.grid_origin_set ? config.grid_origin : config.start_seq)
                   : MarkerGrid(),
               config.crc, config.keep_ulpdu, config.connection, config.direction),
      judge_(config.connection, config.direction) {}

TcpSeq FpduReader::position() const {
  if (const auto* lost = std::get_if<Lost>(&mode_)) return lost->held.end_seq();
  if (const auto* testing = std::get_if<Testing>(&mode_)) return testing->held.end_seq();
  return grammar_.position();
}

std::uint64_t FpduReader::offset() const {
  if (const auto* lost = std::get_if<Lost>(&mode_)) return lost->held.end_offset();
  if (const auto* testing = std::get_if<Testing>(&mode_)) return testing->held.end_offset();
  return grammar_.offset();
}

std::uint32_t FpduReader::bytes_needed() const {
  return std::holds_alternative<Reading>(mode_) ? grammar_.bytes_needed() : 1;
}

void FpduReader::push(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start,
                      FpduSink& sink, const SegmentFacts& segment) {
  now_ns_ = segment.timestamp_ns;
  first_complete_as_deviation_ = false;
  // (Reading, the common case, goes straight to read(): no mode dispatch, no optional moved.
  // Only there is the segment's CRC of use: the octets other modes hold are read again later.)
  std::optional<Resume> resume = std::holds_alternative<Reading>(mode_)
                                     ? read(data, frame, segment_start, segment.payload_crc, sink)
                                     : step(data, frame, segment_start, sink);
  while (resume) resume = replay(std::move(*resume), sink);
}

std::optional<FpduReader::Resume> FpduReader::step(std::span<const std::uint8_t> data,
                                                   std::uint64_t frame, bool segment_start,
                                                   FpduSink& sink) {
  return std::visit(
      Overloaded{
          [&](Reading&) { return read(data, frame, segment_start, std::nullopt, sink); },
          [&](Lost& lost) { return seek(lost, data, frame, segment_start, sink); },
          [&](Testing& testing) { return test(testing, data, frame, segment_start, sink); },
          [&](Abandoned&) -> std::optional<Resume> {
            grammar_.skip(data.size());
            return std::nullopt;
          },
      },
      mode_);
}

void FpduReader::run(std::optional<Resume> resume, FpduSink& sink) {
  while (resume) resume = replay(std::move(*resume), sink);
}

std::optional<FpduReader::Resume> FpduReader::replay(Resume resume, FpduSink& sink) {
  mode_ = Reading{};
  grammar_.reframe(resume.framing, resume.grid);
  grammar_.reset(resume.held.seq() + static_cast<std::uint32_t>(resume.from),
                 resume.held.offset() + resume.from);
  remember_before(resume.held, resume.from);
  std::optional<Resume> next;
  const std::size_t rest = resume.held.replay(
      resume.from, [&](std::span<const std::uint8_t> data, std::uint64_t frame, bool start) {
        next = step(data, frame, start, sink);
        return !next.has_value();
      });
  // (The next mode ended within the octets replayed: those after them follow its own.)
  if (next) next->held.append_from(resume.held, rest);
  return next;
}

void FpduReader::remember_before(const HeldOctets& held, std::size_t from) {
  // The octets held before `from` are the newest read when reading resumes there, as they
  // were when they came: a test or a stream's end looks back at them (how far back must not
  // depend on whether a test replayed them).
  tail_.clear();
  recent_.clear();
  const std::size_t back = std::min(from, keeps_recent() ? RecentOctets::kKeep : TailOctets::kSize);
  std::size_t at = from - back;
  if (back == 0) return;
  held.replay(at, [&](std::span<const std::uint8_t> data, std::uint64_t frame, bool start) {
    const std::span<const std::uint8_t> piece = data.first(std::min(data.size(), from - at));
    tail_.remember(piece, frame, start);
    if (keeps_recent()) {
      recent_.remember(piece, held.seq() + static_cast<std::uint32_t>(at), held.offset() + at,
                       frame, start);
    }
    at += piece.size();
    return at < from;
  });
}

[[gnu::always_inline]] inline std::optional<FpduReader::Resume> FpduReader::read(
    std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start,
    std::optional<std::uint32_t> given_crc, FpduSink& sink) {
  if (!said_unverifiable_ && !config_.crc && !grammar_.grid().enabled() &&
      config_.check_sender_framing && judge_.judging() && !data.empty()) {
    said_unverifiable_ = true;
    judge_.report(
        sink, DiagId::FpduFramingUnverifiable, grammar_.position(), grammar_.offset(), frame,
        fmt::format("from seq {}: no markers and no CRC in this direction, so FPDU boundaries rest "
                    "on ULPDU_Length and the plausibility of the DDP headers alone",
                    grammar_.position().value()));
  }
  const TcpSeq push_seq = grammar_.position();
  const std::uint64_t push_offset = grammar_.offset();
  const bool push_within = grammar_.begin_push(frame, segment_start, !data.empty());
  if (given_crc) grammar_.give_crc(data, *given_crc);
  const std::uint8_t* p = data.data();
  std::size_t left = data.size();
  std::optional<Trigger> trigger;
  std::optional<TcpSeq> crc_resume;
  // A ULPDU that begins like DDP, of a sensible size, and is not of an exempt run needs no look.
  const auto ordinary = [this](const FpduGrammar& grammar) {
    const std::uint8_t* head = grammar.ulpdu_head();
    return ulpdu_header_plausible(grammar.ulpdu_size(), head[0], head[1]) && !exempt_empty_run_ &&
           grammar.event().ulpdu_length <= std::min(kLargestMulpdu, ulpdu_bound_);
  };
  while (!trigger) {
    const FpduGrammar::Result r = grammar_.feed(p, left, frame, segment_start && p == data.data(),
                                                judge_.judging(), ordinary);
    p += r.consumed;
    left -= r.consumed;
    switch (r.step) {
      case FpduGrammar::Step::NeedMore:
        tail_.remember(data, frame, segment_start);
        if (keeps_recent()) recent_.remember(data, push_seq, push_offset, frame, segment_start);
        // (Only the Initiator's first FPDU is waited for by its peer: RFC 5044 7.1.2.)
        first_complete_as_deviation_ = fpdus_ == 0 && config_.direction == Direction::Initiator &&
                                       grammar_.header_read() && ending_deviation(false) != nullptr;
        return std::nullopt;
      case FpduGrammar::Step::Marker:
        trigger = on_marker(frame, push_seq, sink);
        break;
      case FpduGrammar::Step::ShortUlpdu:
        trigger = check_start(nullptr, sink);  // too short for a DDP header: judged now
        break;
      case FpduGrammar::Step::UlpduBegins:
        trigger = check_start(grammar_.ulpdu_head(), sink);
        break;
      case FpduGrammar::Step::Complete:
        crc_resume = complete(frame, data, push_seq, push_within, sink, trigger);
        if (crc_resume) trigger = Trigger::Crc;
        break;
    }
  }
  grammar_.abandon_push();
  if (crc_resume) {
    // Go on from where the sender's own framing ends the FPDU.
    HeldOctets held = tail_.hold(push_seq, push_offset);
    recent_.clear();
    held.append(data, frame, segment_start);
    const std::size_t from = crc_resume->distance_from(held.seq());
    return Resume{std::move(held), from, grammar_.framing(), grammar_.grid()};
  }
  begin_test(*trigger, push_seq, push_offset, data, frame, segment_start);
  if (*trigger == Trigger::CrcUnmatched && std::get<Testing>(mode_).candidates.size() == 1)
    return act(reader_mode::Verdict{0, 0}, frame, sink);  // (the RFC's reading alone is left)
  // (decides at once when it can)
  return test(std::get<Testing>(mode_), {}, frame, segment_start, sink);
}

std::optional<FpduReader::Trigger> FpduReader::on_marker(std::uint64_t frame, TcpSeq push_seq,
                                                         FpduSink& sink) {
  if (!judge_.judging()) return std::nullopt;
  const MarkerFact& fact = grammar_.last_marker();
  const bool leading = grammar_.last_marker_leading();
  const FpduEvent& fpdu = grammar_.event();
  const bool exempt = exempt_seq_ && fpdu.start_seq == *exempt_seq_;
  if (leading && config_.check_sender_framing &&
      !marker_fits(Marker{fact.reserved, fact.fpdu_ptr}, kFpduPtrBeforeHeader) && !exempt) {
    // Before saying anything about it: is this no marker at all, or an FPDU read in the
    // wrong place? (fpdu_reader_framing.cpp)
    return fact.seq == config_.start_seq ? Trigger::FirstMarker : Trigger::Boundary;
  }
  // A marker inside the FPDU pointing elsewhere (RFC 5044 4.3): where no CRC vouched for the
  // boundary before it, its header may be misread by a few octets, passing the DDP test by
  // chance; the framing test starts from before that header, while the octets are held.
  const Marker marker{fact.reserved, fact.fpdu_ptr};
  if (!leading && keeps_recent() && !exempt && !marker_points_at(marker, fact.expected_fpdu_ptr) &&
      fact.fpdu_ptr != fact.expected_fpdu_ptr &&
      !fpdu.start_seq.is_before(recent_.origin(push_seq) + TailOctets::kSize)) {
    return Trigger::Boundary;
  }
  // With CRCs, the FPDU's CRC tells whether the FPDU is misread (a deviation ends it elsewhere:
  // explain_bad_crc) or the marker is wrong: a marker pointing elsewhere waits for it.
  if (!leading && config_.crc && config_.check_sender_framing && !exempt && !deferred_marker_ &&
      !marker_points_at(marker, fact.expected_fpdu_ptr) &&
      fact.fpdu_ptr != fact.expected_fpdu_ptr) {
    deferred_marker_ = {fact, grammar_.offset() - kMarkerSize, fpdu.header_seq, frame};
    return std::nullopt;
  }
  judge_.marker(fact, leading, grammar_.offset() - kMarkerSize, fpdu.header_seq, frame, sink);
  return std::nullopt;
}

void FpduReader::give_deferred_marker(FpduSink& sink) {
  if (!deferred_marker_) return;
  const DeferredMarker m = *deferred_marker_;
  deferred_marker_.reset();
  if (judge_.judging()) judge_.marker(m.fact, false, m.offset, m.header_seq, m.frame, sink);
}

std::optional<FpduReader::Trigger> FpduReader::check_start(const std::uint8_t* control,
                                                           FpduSink& sink) {
  // Whether the FPDU begun may go on: its ULPDU begins like DDP, or it is exempt.
  if (!judge_.judging()) return std::nullopt;
  const FpduEvent& fpdu = grammar_.event();
  const std::uint32_t ulpdu_size = grammar_.ulpdu_size();
  const bool exempt =
      (exempt_seq_ && fpdu.start_seq == *exempt_seq_) || (exempt_empty_run_ && ulpdu_size == 0);
  // RFC 5044 4.5: no ULPDU is longer than the MULPDU; where no CRC vouches for the header, one
  // that is was read in the wrong place (a header 2 octets off, in octets CRCs off leave
  // random, passes the DDP test one time in twenty and announces tens of thousands of octets).
  if (config_.check_sender_framing && !exempt &&
      (control == nullptr ? true
                          : !ulpdu_header_plausible(ulpdu_size, control[0], control[1]) ||
                                fpdu.ulpdu_length > ulpdu_bound_)) {
    return Trigger::Boundary;
  }
  if (ulpdu_size > 0) exempt_empty_run_ = false;
  judge_.ulpdu_length(fpdu, grammar_.header_frame(), sink);
  return std::nullopt;
}

[[gnu::always_inline]] inline std::optional<TcpSeq> FpduReader::complete(
    std::uint64_t frame, std::span<const std::uint8_t> data, TcpSeq push_seq, bool push_within,
    FpduSink& sink, std::optional<Trigger>& test) {
  FpduEvent& fpdu = grammar_.event();
  fpdu.timestamp_ns = now_ns_;
  // A wrong CRC, or a CRC looked for in the wrong place? (fpdu_reader_framing.cpp)
  if (fpdu.crc_status == CrcStatus::Bad && config_.check_sender_framing && judge_.judging() &&
      fpdu.judged) {
    if (auto resume = explain_bad_crc(frame, data, push_seq, push_within, sink)) {
      deferred_marker_.reset();  // (read again as the sender framed the FPDU)
      return resume;
    }
    give_deferred_marker(sink);
    // Not where the push shows it: the FPDUs after it tell (emitted once they have).
    test = Trigger::CrcUnmatched;
    return std::nullopt;
  }
  if (deferred_marker_) give_deferred_marker(sink);
  emit(frame, sink, false, grammar_.pad_nonzero());
  return std::nullopt;
}

void FpduReader::emit_fpdu(std::uint64_t frame, FpduSink& sink, bool crc_explained,
                           bool pad_nonzero) {
  emit(frame, sink, crc_explained, pad_nonzero);
}

// (emit_fpdu inline where the reader reads: once per FPDU.)
[[gnu::always_inline]] inline void FpduReader::emit(std::uint64_t frame, FpduSink& sink,
                                                    bool crc_explained, bool pad_nonzero) {
  const FpduEvent& fpdu = grammar_.event();
  ++fpdus_;
  ulpdu_bytes_ += fpdu.ulpdu_length;
  if (fpdu.crc_status == CrcStatus::Bad) ++crc_failures_;
  if (!held_pads_.empty()) settle_pad_warnings(fpdu, crc_explained, sink);
  // A sender named for sending no CRC field, CRCs off: its pad is where a sender counting
  // ULPDU_Length 4 long puts its CRC field (the same boundaries), which may then hold any value
  // (RFC 5044 4.1): the octets do not tell a non-zero pad from that field.
  if (pad_nonzero && !config_.crc && !grammar_.framing().crc_field) pad_nonzero = false;
  if (pad_nonzero && hold_pad_warning(fpdu, crc_explained, frame, sink)) pad_nonzero = false;
  judge_.fpdu(fpdu, pad_nonzero, crc_explained, frame, sink);
  sink.on_fpdu(fpdu);
  reader_mode::PreviousFpdu& prev = prev_.emplace();
  prev.start = fpdu.start_seq;
  prev.ulpdu_length = fpdu.ulpdu_length;
  prev.crc_good = fpdu.crc_status == CrcStatus::Good && !crc_explained;
  prev.short_pad = fpdu.pad_length < 2 && !crc_explained;
  if (fpdu.ulpdu_head.size() >= 2) prev.control = {fpdu.ulpdu_head[0], fpdu.ulpdu_head[1]};
  prev.start_offset = fpdu.start_offset;
  prev.header_seq = fpdu.header_seq;
  prev.first_frame = fpdu.first_frame;
  prev.last_frame = fpdu.last_frame;
  prev.timestamp_ns = fpdu.timestamp_ns;
  prev.leading_marker = fpdu.leading_marker;
  prev.starts_segment = fpdu.starts_segment;
  prev.within_one_segment = fpdu.within_one_segment;
  prev.judged = fpdu.judged;
}

}  // namespace mpa
