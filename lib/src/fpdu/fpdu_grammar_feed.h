// FpduGrammar::feed (fpdu_grammar.h), inline: the FPDU reader's loop over what it says is
// then one function, as fast as the reader before the grammar was its own (fpdu_reader_bench).
// Included only where the grammar is fed (fpdu_reader.cpp).
#pragma once

#include <algorithm>
#include <cstring>

#include "decode/byte_order.h"
#include "fpdu/fpdu_grammar.h"
#include "mpa/crc32c.h"
#include "mpa/fpdu_layout.h"

namespace mpa {

// Copies `n` octets of a field of N: the whole field, the usual case, by its constant size
// (moves inline, where a call to memcpy for a few octets cost the analysing thread a tenth
// of its time on the bench capture), a part of it as it comes.
template <std::size_t N>
[[gnu::always_inline]] inline void copy_field(std::uint8_t* to, const std::uint8_t* from,
                                              std::size_t n) {
  if (n == N) {
    std::memcpy(to, from, N);
  } else {
    std::memcpy(to, from, n);
  }
}

[[gnu::always_inline]] inline bool FpduGrammar::read_marker() {
  // pos_ already points just past the marker.
  const Marker marker = marker_from_wire(marker_.data());
  MarkerFact fact;
  fact.seq = pos_ - kMarkerSize;
  fact.reserved = marker.reserved;
  fact.fpdu_ptr = marker.fpdu_ptr;
  last_marker_leading_ = state_ == State::Header && header_got_ == 0;
  if (last_marker_leading_) {
    current_.leading_marker = true;
    fact.expected_fpdu_ptr = kFpduPtrBeforeHeader;
  } else {
    fact.expected_fpdu_ptr = expected_fpdu_ptr(fact.seq, current_.header_seq);
  }
  fact.crc_before = marker_crc_before_;
  markers_.push_back(fact);
  return marker_exact(marker, fact.expected_fpdu_ptr);
}

template <typename OrdinaryStart>
[[gnu::always_inline]] inline FpduGrammar::Result FpduGrammar::feed(const std::uint8_t* p,
                                                                    std::size_t left,
                                                                    std::uint64_t frame,
                                                                    bool push_start, bool judged,
                                                                    const OrdinaryStart& ordinary) {
  const std::uint8_t* const from = p;
  // RFC 5044 4.4: the CRC covers the FPDU from its first octet (the leading marker, if any)
  // through the pad, markers included: one contiguous run. Covered octets are folded into
  // crc_state_ in one call when the CRC field (or the end of the push) is reached.
  const auto cover = [&](const std::uint8_t* at) {
    if (compute_crc_ && crc_run_ == nullptr) crc_run_ = at;
  };
  const auto fold = [&](const std::uint8_t* upto) {
    if (crc_run_ == nullptr) return;
    crc_state_ = crc32c_update(crc_state_, {crc_run_, static_cast<std::size_t>(upto - crc_run_)});
    crc_run_ = nullptr;
  };
  const auto done = [&](Step step) { return Result{step, static_cast<std::size_t>(p - from)}; };
  const auto completed = [&] { return state_ == State::Crc && remaining_ == 0; };
  if (completed()) {  // (left so when the last call returned another step)
    complete(frame);
    return done(Step::Complete);
  }
  for (;;) {
    if (left == 0) {
      fold(p);
      return done(Step::NeedMore);
    }
    if (!seen_any_octet_) begin(frame, push_start && p == from, judged);
    std::uint32_t take;
    const std::uint32_t to_marker = marker_got_ > 0 ? 0 : grid_.distance_to_marker(pos_);
    if (to_marker == 0) {
      take = static_cast<std::uint32_t>(std::min<std::size_t>(kMarkerSize - marker_got_, left));
      // Every marker is inside the CRC of the FPDU holding it, including one right after the
      // pad; only one misplaced inside the CRC field itself is not.
      if (state_ == State::Crc && remaining_ < kCrcSize) {
        fold(p);
      } else {
        // The state before the marker is kept (a CRC that leaves markers out is recognised
        // from it, crc_patterns.h): the run is folded there, once per marker.
        if (marker_got_ == 0) fold(p);
        cover(p);
      }
      if (marker_got_ == 0) marker_crc_before_ = crc_state_;
      copy_field<kMarkerSize>(&marker_[marker_got_], p, take);
      marker_got_ += take;
      pos_ += take;
      offset_ += take;
      p += take;
      left -= take;
      if (marker_got_ < kMarkerSize) continue;
      marker_got_ = 0;
      if (!read_marker()) return done(Step::Marker);
      continue;  // (exact: recorded, nothing to say)
    }
    const std::uint32_t limit = static_cast<std::uint32_t>(std::min<std::size_t>(left, to_marker));
    Step event = Step::NeedMore;  // (none)
    switch (state_) {
      case State::Header: {
        take = std::min<std::uint32_t>(limit, kUlpduLengthSize - header_got_);
        if (header_got_ == 0) current_.header_seq = pos_;
        copy_field<kUlpduLengthSize>(&header_[header_got_], p, take);
        cover(p);
        header_got_ += take;
        if (header_got_ == kUlpduLengthSize) {
          current_.ulpdu_length = load_be16(header_.data());
          ulpdu_size_ = ulpdu_octets(framing_, current_.ulpdu_length).value_or(0);
          current_.pad_length = static_cast<std::uint8_t>(pad_octets(framing_, ulpdu_size_));
          header_frame_ = frame;
          if (ulpdu_size_ < 2) event = Step::ShortUlpdu;
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
          copy_field<kUlpduHeadSize>(&ulpdu_head_[ulpdu_head_size_], p, copy);
          ulpdu_head_size_ += copy;
        }
        if (keep_ulpdu_) ulpdu_.insert(ulpdu_.end(), p, p + take);
        cover(p);
        remaining_ -= take;
        const std::uint32_t got = ulpdu_got_;
        ulpdu_got_ += take;
        if (got < 2 && got + take >= 2 && !ordinary(*this)) event = Step::UlpduBegins;
        if (remaining_ == 0) after_ulpdu();
        break;
      }
      case State::Pad: {
        take = std::min(limit, remaining_);
        for (std::uint32_t i = 0; i < take; ++i) {
          pad_nonzero_ |= p[i] != 0;
          const std::uint32_t at = current_.pad_length - remaining_ + i;
          if (at < current_.pad.size()) current_.pad[at] = p[i];
        }
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
        copy_field<kCrcSize>(&crc_bytes_[kCrcSize - remaining_], p, take);
        remaining_ -= take;
        break;
      }
    }
    pos_ += take;
    offset_ += take;
    p += take;
    left -= take;
    if (event != Step::NeedMore) return done(event);
    if (completed()) {  // (a marker leaves the state as it was)
      complete(frame);
      return done(Step::Complete);
    }
  }
}

}  // namespace mpa
