// The FPDU reader (RFC 5044 4.1-4.4, 6, 8). See fpdu_reader.h.
//
// The reader is a state machine over the FPDU fields (Header -> Ulpdu -> Pad -> Crc);
// markers are not a state but an interruption: before any octet at a marker position of
// the grid is taken as FPDU content, four octets are read as a marker. A marker met before
// the ULPDU_Length field is the FPDU's leading marker (FPDUPTR 0, inside its CRC). The CRC
// is updated over each contiguous run, so no FPDU is ever copied.
#include "mpa/fpdu_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "byte_order.h"
#include "mpa/crc32c.h"
#include "mpa/ddp.h"
#include "mpa/fpdu_layout.h"
#include "mpa/fpdu_rules.h"
#include "mpa/fpdu_search.h"

namespace mpa {
FpduReader::FpduReader(const FpduReaderConfig& config)
    : config_(config),
      grid_(config.markers
                ? MarkerGrid(config.grid_origin_set ? config.grid_origin : config.start_seq)
                : MarkerGrid()),
      pos_(config.start_seq),
      offset_(config.start_offset) {
  current_.connection = config.connection;
  current_.direction = config.direction;
}

void FpduReader::stop_judging() {
  if (!judging_) return;
  judging_ = false;
  pending_not_judged_ = true;
}

void FpduReader::report(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset,
                        std::uint64_t frame, std::string message) {
  Finding finding;
  finding.id = id;
  finding.connection = config_.connection;
  finding.direction = config_.direction;
  finding.frame = frame;
  finding.tcp_seq = seq;
  finding.stream_offset = offset;
  finding.message = std::move(message);
  sink.on_finding(std::move(finding));
}

void FpduReader::fatal(FpduSink& sink, DiagId id, TcpSeq seq, std::uint64_t offset,
                       std::uint64_t frame, std::string message) {
  report(sink, id, seq, offset, frame, std::move(message));
  stop_judging();
}

std::uint32_t FpduReader::bytes_needed() const {
  if (lost_ || testing_ || abandoned_) return 1;
  if (state_ == State::Header) {
    // The rest of ULPDU_Length, the rest of a marker being read, and the markers in between.
    const std::uint32_t header_left = kUlpduLengthSize - header_got_;
    if (marker_got_ > 0) {
      const std::uint32_t marker_left = kMarkerSize - marker_got_;
      return header_left + marker_left +
             kMarkerSize * grid_.markers_within(pos_ + marker_left, header_left);
    }
    return header_left + kMarkerSize * grid_.markers_within(pos_, header_left);
  }
  const std::uint32_t wire =
      fpdu_wire_length(grid_, current_.start_seq, framing_, current_.ulpdu_length);
  return wire - static_cast<std::uint32_t>(offset_ - current_.start_offset);
}

void FpduReader::begin_fpdu(std::uint64_t frame, bool segment_start) {
  seen_any_octet_ = true;
  fpdu_judged_ = judging_;
  current_.start_seq = pos_;
  current_.start_offset = offset_;
  current_.header_seq = pos_;
  current_.leading_marker = false;
  current_.first_frame = frame;
  current_.starts_segment = segment_start;
  current_.within_one_segment = true;
  markers_.clear();
  crc_state_ = kCrc32cInit;
  pad_nonzero_ = false;
  ulpdu_head_size_ = 0;
  ulpdu_got_ = 0;
  ulpdu_.clear();
}

void FpduReader::read_marker(const std::uint8_t* data, std::uint32_t n, std::uint64_t frame,
                             FpduSink& sink) {
  // (push() folds the marker into the CRC.)
  std::memcpy(&marker_[marker_got_], data, n);
  marker_got_ += n;
  if (marker_got_ < kMarkerSize) return;
  marker_got_ = 0;

  // pos_ and offset_ already point just past the marker.
  const Marker marker = marker_from_wire(marker_.data());
  MarkerFact fact;
  fact.seq = pos_ - kMarkerSize;
  fact.reserved = marker.reserved;
  fact.fpdu_ptr = marker.fpdu_ptr;
  const bool leading = state_ == State::Header && header_got_ == 0;
  if (leading) {
    current_.leading_marker = true;
    fact.expected_fpdu_ptr = kFpduPtrBeforeHeader;
  } else {
    fact.expected_fpdu_ptr = expected_fpdu_ptr(fact.seq, current_.header_seq);
  }
  markers_.push_back(fact);
  if (!judging_) return;
  if (leading && config_.check_sender_framing && !marker_fits(marker, kFpduPtrBeforeHeader) &&
      !(exempt_ && current_.start_seq == exempt_seq_)) {
    // Before saying anything about it: is this no marker at all, or an FPDU read in the
    // wrong place? (fpdu_reader_framing.cpp)
    pending_trigger_ = fact.seq == config_.start_seq ? Trigger::FirstMarker : Trigger::Boundary;
    return;
  }
  const std::uint64_t marker_offset = offset_ - kMarkerSize;
  if (!marker_reserved_is_zero(marker)) {
    report(sink, DiagId::MarkerReservedNonzero, fact.seq, marker_offset, frame,
           fmt::format("marker at seq {} has reserved field 0x{:04x}", fact.seq.value(),
                       fact.reserved));
  }
  if (!fpdu_ptr_low_bits_are_zero(marker)) {
    report(sink, DiagId::MarkerFpduptrLowBits, fact.seq, marker_offset, frame,
           fmt::format("marker at seq {} has FPDUPTR 0x{:04x} with low bits set", fact.seq.value(),
                       fact.fpdu_ptr));
  }
  if (!marker_points_at(marker, fact.expected_fpdu_ptr)) {
    fatal(sink, DiagId::MarkerFpduptrMismatch, fact.seq, marker_offset, frame,
          leading ? fmt::format("marker at seq {} before an FPDU header has FPDUPTR {} "
                                "(expected 0)",
                                fact.seq.value(), fact.fpdu_ptr)
                  : fmt::format("marker at seq {} has FPDUPTR {}, but the FPDU header is {} "
                                "octets before it (seq {})",
                                fact.seq.value(), fact.fpdu_ptr, fact.expected_fpdu_ptr,
                                current_.header_seq.value()));
  }
}

bool FpduReader::finish_fpdu(std::uint64_t frame, FpduSink& sink) {
  current_.last_frame = frame;
  current_.ulpdu_size = ulpdu_size_;
  current_.crc_field = framing_.crc_field;
  current_.crc_received = framing_.crc_field ? crc_from_wire(crc_bytes_.data()) : 0;
  current_.wire_length = static_cast<std::uint32_t>(offset_ - current_.start_offset);
  if (config_.crc) {
    current_.crc_computed = crc32c_finish(crc_state_);
    current_.crc_status =
        current_.crc_computed == current_.crc_received ? CrcStatus::Good : CrcStatus::Bad;
  } else {
    current_.crc_computed = 0;
    current_.crc_status = CrcStatus::NotChecked;
  }
  current_.markers = markers_;
  current_.ulpdu_head = {ulpdu_head_.data(), ulpdu_head_size_};
  current_.ulpdu = ulpdu_;
  current_.judged = fpdu_judged_;
  if (config_.now_ns != nullptr) current_.timestamp_ns = *config_.now_ns;
  state_ = State::Header;
  header_got_ = 0;
  seen_any_octet_ = false;
  // A wrong CRC, or a CRC looked for in the wrong place? (fpdu_reader_framing.cpp)
  if (current_.crc_status == CrcStatus::Bad && config_.check_sender_framing && judging_ &&
      fpdu_judged_ && !framing_named_ && explain_bad_crc(frame, sink)) {
    return false;
  }
  emit_fpdu(frame, sink, false);
  return true;
}

void FpduReader::emit_fpdu(std::uint64_t frame, FpduSink& sink, bool crc_explained) {
  ++fpdus_;
  ulpdu_bytes_ += current_.ulpdu_length;
  const bool crc_bad = current_.crc_status == CrcStatus::Bad;
  if (crc_bad) ++crc_failures_;
  if (!fpdu_judged_ ? pending_not_judged_
                    : judging_ && (pad_nonzero_ || (crc_bad && !crc_explained))) {
    judge_fpdu(frame, sink, crc_explained);
  }
  sink.on_fpdu(current_);
  have_prev_ = true;
  prev_start_ = current_.start_seq;
  prev_ulpdu_length_ = current_.ulpdu_length;
  prev_crc_good_ = current_.crc_status == CrcStatus::Good && !crc_explained;
  prev_has_control_ = current_.ulpdu_head.size() >= 2;
  if (prev_has_control_) std::copy_n(current_.ulpdu_head.begin(), 2, prev_control_.begin());
}

void FpduReader::judge_fpdu(std::uint64_t frame, FpduSink& sink, bool crc_explained) {
  // Findings about the FPDU name its ULPDU_Length field (after a leading marker).
  const std::uint64_t header_offset = current_.header_offset();
  if (!fpdu_judged_) {
    if (pending_not_judged_ && !said_not_judged_) {
      said_not_judged_ = true;
      pending_not_judged_ = false;
      report(sink, DiagId::FpduNotJudgedAfterError, current_.header_seq, header_offset, frame,
             "an earlier error ended MPA in this direction (RFC 5044 8); later FPDUs "
             "are counted but not judged");
    }
    return;
  }
  if (!judging_) return;  // (an error earlier in this FPDU ended judgement)
  if (pad_nonzero_) {
    report(sink, DiagId::FpduPadNonzero, current_.header_seq, header_offset, frame,
           fmt::format("FPDU at seq {} (ULPDU_Length {}) has non-zero pad octets",
                       current_.header_seq.value(), current_.ulpdu_length));
  }
  if (current_.crc_status == CrcStatus::Bad && !crc_explained) {
    fatal(sink, DiagId::FpduCrcMismatch, current_.header_seq, header_offset, frame,
          fmt::format("FPDU at seq {} (ULPDU_Length {}): CRC received 0x{:08x}, computed "
                      "0x{:08x}",
                      current_.header_seq.value(), current_.ulpdu_length, current_.crc_received,
                      current_.crc_computed));
  }
}

void FpduReader::push(std::span<const std::uint8_t> data, std::uint64_t frame, bool segment_start,
                      FpduSink& sink) {
  if (lost_) {
    push_lost(data, frame, segment_start, sink);
    return;
  }
  if (testing_) {
    push_testing(data, frame, segment_start, sink);
    return;
  }
  if (abandoned_) {
    pos_ += static_cast<std::uint32_t>(data.size());
    offset_ += data.size();
    return;
  }
  if (!said_unverifiable_ && !config_.crc && !grid_.enabled() && config_.check_sender_framing &&
      judging_ && !data.empty()) {
    said_unverifiable_ = true;
    report(sink, DiagId::FpduFramingUnverifiable, pos_, offset_, frame,
           fmt::format(
               "from seq {}: no markers and no CRC in this direction, so FPDU boundaries rest on "
               "ULPDU_Length and the plausibility of the DDP headers alone",
               pos_.value()));
  }
  const TcpSeq push_seq = pos_;
  const std::uint64_t push_offset = offset_;
  push_data_ = data;
  push_seq_ = push_seq;
  push_within_ = current_.within_one_segment;
  if (seen_any_octet_ && !data.empty() && (segment_start || frame != current_.first_frame)) {
    current_.within_one_segment = false;  // another segment carries part of this FPDU
  }
  const std::uint8_t* p = data.data();
  std::size_t left = data.size();
  // RFC 5044 4.4: the CRC covers the FPDU from its first octet (the leading marker, if any)
  // through the pad, markers included: one contiguous run. Covered octets are folded into
  // crc_state_ in one call when the CRC field (or the end of `data`) is reached.
  const std::uint8_t* crc_run = nullptr;  // first covered octet not yet in crc_state_
  const auto cover = [&](const std::uint8_t* from) {
    if (config_.crc && crc_run == nullptr) crc_run = from;
  };
  const auto fold = [&](const std::uint8_t* upto) {
    if (crc_run == nullptr) return;
    crc_state_ = crc32c_update(crc_state_, {crc_run, static_cast<std::size_t>(upto - crc_run)});
    crc_run = nullptr;
  };
  while (left > 0) {
    if (!seen_any_octet_) begin_fpdu(frame, segment_start && left == data.size());
    std::uint32_t take;
    const std::uint32_t to_marker = marker_got_ > 0 ? 0 : grid_.distance_to_marker(pos_);
    if (to_marker == 0) {
      take = static_cast<std::uint32_t>(std::min<std::size_t>(kMarkerSize - marker_got_, left));
      // Every marker is inside the CRC of the FPDU holding it, including one right after the
      // pad; only one misplaced inside the CRC field itself is not.
      if (state_ == State::Crc && remaining_ < kCrcSize) {
        fold(p);
      } else {
        cover(p);
      }
      pos_ += take;
      offset_ += take;
      read_marker(p, take, frame, sink);
      if (pending_trigger_) break;  // (only read_marker, check_start and finish_fpdu set it)
      p += take;
      left -= take;
      continue;
    }
    const std::uint32_t limit = static_cast<std::uint32_t>(std::min<std::size_t>(left, to_marker));
    bool stop = false;  // a framing test begins here
    switch (state_) {
      case State::Header: {
        take = std::min<std::uint32_t>(limit, kUlpduLengthSize - header_got_);
        if (header_got_ == 0) current_.header_seq = pos_;
        std::memcpy(&header_[header_got_], p, take);
        cover(p);
        header_got_ += take;
        if (header_got_ == kUlpduLengthSize) {
          current_.ulpdu_length = load_be16(header_.data());
          ulpdu_size_ = ulpdu_octets(framing_, current_.ulpdu_length).value_or(0);
          current_.pad_length = static_cast<std::uint8_t>(pad_octets(framing_, ulpdu_size_));
          header_frame_ = frame;
          // Too short for a DDP header: judged now (else when its first two octets are in).
          if (ulpdu_size_ < 2) {
            check_start(nullptr, sink);
            if ((stop = pending_trigger_.has_value())) break;
          }
          if (ulpdu_size_ > 0) {
            state_ = State::Ulpdu;
            remaining_ = ulpdu_size_;
          } else {
            after_ulpdu();
          }
        }
        break;
      }
      case State::Ulpdu: {
        take = std::min(limit, remaining_);
        if (ulpdu_head_size_ < kUlpduHeadSize) {
          const std::uint32_t copy =
              std::min<std::uint32_t>(take, kUlpduHeadSize - ulpdu_head_size_);
          std::memcpy(&ulpdu_head_[ulpdu_head_size_], p, copy);
          ulpdu_head_size_ += copy;
        }
        if (config_.keep_ulpdu) ulpdu_.insert(ulpdu_.end(), p, p + take);
        cover(p);
        remaining_ -= take;
        const std::uint32_t got = ulpdu_got_;
        ulpdu_got_ += take;
        if (got < 2 && got + take >= 2) {
          // Its first two octets are in. (The common case, a plausible header of a sensible
          // size, costs no call.)
          if (!ulpdu_header_plausible(ulpdu_size_, ulpdu_head_[0], ulpdu_head_[1]) ||
              exempt_empty_run_ || current_.ulpdu_length > kLargestMulpdu) {
            check_start(ulpdu_head_.data(), sink);
            if ((stop = pending_trigger_.has_value())) break;
          }
        }
        if (remaining_ == 0) after_ulpdu();
        break;
      }
      case State::Pad: {
        take = std::min(limit, remaining_);
        for (std::uint32_t i = 0; i < take; ++i) pad_nonzero_ |= p[i] != 0;
        cover(p);
        remaining_ -= take;
        if (remaining_ == 0) {
          state_ = State::Crc;
          remaining_ = framing_.crc_field ? kCrcSize : 0;
        }
        break;
      }
      case State::Crc:
      default: {
        fold(p);
        take = std::min(limit, remaining_);
        std::memcpy(&crc_bytes_[kCrcSize - remaining_], p, take);
        remaining_ -= take;
        break;
      }
    }
    if (stop) break;
    pos_ += take;
    offset_ += take;
    p += take;
    left -= take;
    if (state_ == State::Crc && remaining_ == 0 && !finish_fpdu(frame, sink)) break;
  }
  if (pending_trigger_ == Trigger::Crc) {
    // Go on from where the sender's own framing ends the FPDU.
    pending_trigger_.reset();
    hold_tail(push_seq, push_offset);
    hold(data, frame, segment_start);
    replay_from(crc_resume_.distance_from(lost_seq_), frame, sink);
    return;
  }
  if (pending_trigger_) {
    begin_test(*pending_trigger_, push_seq, push_offset, data, frame, segment_start);
    pending_trigger_.reset();
    push_testing({}, frame, segment_start, sink);  // (decides at once when it can)
    return;
  }
  fold(p);
  remember_tail(data, frame, segment_start);
}

void FpduReader::check_start(const std::uint8_t* control, FpduSink& sink) {
  if (!judging_ || abandoned_) return;
  const bool exempt =
      (exempt_ && current_.start_seq == exempt_seq_) || (exempt_empty_run_ && ulpdu_size_ == 0);
  if (config_.check_sender_framing && !exempt &&
      (control == nullptr ? true : !ulpdu_header_plausible(ulpdu_size_, control[0], control[1]))) {
    pending_trigger_ = Trigger::Boundary;
    return;
  }
  if (ulpdu_size_ > 0) exempt_empty_run_ = false;
  if (current_.ulpdu_length > kLargestMulpdu) {
    report(sink, DiagId::FpduUlpduLengthTooLarge, current_.header_seq, current_.header_offset(),
           header_frame_,
           fmt::format("FPDU at seq {} has ULPDU_Length {} (more than {}: no MTU-sized "
                       "path's MULPDU is that large)",
                       current_.header_seq.value(), current_.ulpdu_length, kLargestMulpdu));
  }
}

}  // namespace mpa
