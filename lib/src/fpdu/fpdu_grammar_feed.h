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

[[gnu::always_inline]] inline void FpduGrammar::RunningCrc::fold(const std::uint8_t* upto) {
  if (run == nullptr) return;
  state = crc32c_update(state, {run, static_cast<std::size_t>(upto - run)});
  run = nullptr;
}

[[gnu::always_inline]] inline bool FpduGrammar::read_marker() {
  // pos_ already points just past the marker.
  const Marker marker = marker_from_wire(marker_.octets.data());
  MarkerFact fact;
  fact.seq = pos_ - kMarkerSize;
  fact.reserved = marker.reserved;
  fact.fpdu_ptr = marker.fpdu_ptr;
  marker_.last_leading = state_ == State::Header && header_.got == 0;
  if (marker_.last_leading) {
    current_.leading_marker = true;
    fact.expected_fpdu_ptr = kFpduPtrBeforeHeader;
  } else {
    fact.expected_fpdu_ptr = expected_fpdu_ptr(fact.seq, current_.header_seq);
  }
  fact.crc_before = crc_.before_marker;
  marker_.facts.push_back(fact);
  return marker_exact(marker, fact.expected_fpdu_ptr);
}

[[gnu::always_inline]] inline std::uint32_t FpduGrammar::take_marker(const std::uint8_t* p,
                                                                     std::size_t left) {
  const auto take =
      static_cast<std::uint32_t>(std::min<std::size_t>(kMarkerSize - marker_.got, left));
  // Every marker is inside the CRC of the FPDU holding it, including one right after the
  // pad; only one misplaced inside the CRC field itself is not.
  if (state_ == State::Crc && remaining_ < kCrcSize) {
    crc_.fold(p);
  } else {
    // The state before the marker is kept (a CRC that leaves markers out is recognised
    // from it, crc_patterns.h): the run is folded there, once per marker.
    if (marker_.got == 0) crc_.fold(p);
    crc_.cover(p);
  }
  if (marker_.got == 0) crc_.before_marker = crc_.state;
  copy_field<kMarkerSize>(&marker_.octets[marker_.got], p, take);
  marker_.got += take;
  return take;
}

// RFC 5044 4.1: ULPDU_Length, which says how long the ULPDU and the pad are.
[[gnu::always_inline]] inline std::uint32_t FpduGrammar::take_header(const std::uint8_t* p,
                                                                     std::uint32_t limit,
                                                                     std::uint64_t frame,
                                                                     Step& step) {
  const std::uint32_t take = std::min<std::uint32_t>(limit, kUlpduLengthSize - header_.got);
  if (header_.got == 0) current_.header_seq = pos_;
  copy_field<kUlpduLengthSize>(&header_.octets[header_.got], p, take);
  crc_.cover(p);
  header_.got += take;
  if (header_.got == kUlpduLengthSize) {
    current_.ulpdu_length = load_be16(header_.octets.data());
    ulpdu_.size = ulpdu_octets(framing_, current_.ulpdu_length).value_or(0);
    current_.pad_length = static_cast<std::uint8_t>(pad_octets(framing_, ulpdu_.size));
    header_frame_ = frame;
    if (ulpdu_.size < 2) step = Step::ShortUlpdu;
    if (ulpdu_.size > 0) {
      state_ = State::Ulpdu;
      remaining_ = ulpdu_.size;
    } else {
      after_ulpdu();
    }
  }
  return take;
}

template <typename OrdinaryStart>
[[gnu::always_inline]] inline std::uint32_t FpduGrammar::take_ulpdu(const std::uint8_t* p,
                                                                    std::uint32_t limit,
                                                                    const OrdinaryStart& ordinary,
                                                                    Step& step) {
  const std::uint32_t take = std::min(limit, remaining_);
  if (ulpdu_.head_size < kUlpduHeadSize) {
    const std::uint32_t copy = std::min<std::uint32_t>(take, kUlpduHeadSize - ulpdu_.head_size);
    copy_field<kUlpduHeadSize>(&ulpdu_.head[ulpdu_.head_size], p, copy);
    ulpdu_.head_size += copy;
  }
  if (ulpdu_.keep) ulpdu_.whole.insert(ulpdu_.whole.end(), p, p + take);
  crc_.cover(p);
  remaining_ -= take;
  const std::uint32_t got = ulpdu_.got;
  ulpdu_.got += take;
  if (got < 2 && got + take >= 2 && !ordinary(*this)) step = Step::UlpduBegins;
  if (remaining_ == 0) after_ulpdu();
  return take;
}

[[gnu::always_inline]] inline std::uint32_t FpduGrammar::take_pad(const std::uint8_t* p,
                                                                  std::uint32_t limit) {
  const std::uint32_t take = std::min(limit, remaining_);
  for (std::uint32_t i = 0; i < take; ++i) {
    pad_nonzero_ |= p[i] != 0;
    const std::uint32_t at = current_.pad_length - remaining_ + i;
    if (at < current_.pad.size()) current_.pad[at] = p[i];
  }
  crc_.cover(p);
  remaining_ -= take;
  if (remaining_ == 0) after_pad();
  return take;
}

[[gnu::always_inline]] inline std::uint32_t FpduGrammar::take_crc_field(const std::uint8_t* p,
                                                                        std::uint32_t limit) {
  crc_.fold(p);
  const std::uint32_t take = std::min(limit, remaining_);
  copy_field<kCrcSize>(&crc_field_[kCrcSize - remaining_], p, take);
  remaining_ -= take;
  return take;
}

template <typename OrdinaryStart>
[[gnu::always_inline]] inline FpduGrammar::Result FpduGrammar::feed(const std::uint8_t* p,
                                                                    std::size_t left,
                                                                    std::uint64_t frame,
                                                                    bool push_start, bool judged,
                                                                    const OrdinaryStart& ordinary) {
  const std::uint8_t* const from = p;
  const auto done = [&](Step step) { return Result{step, static_cast<std::size_t>(p - from)}; };
  const auto advance = [&](std::uint32_t take) {
    pos_ += take;
    offset_ += take;
    p += take;
    left -= take;
  };
  if (completed()) {  // (left so when the last call returned another step)
    complete(frame);
    return done(Step::Complete);
  }
  for (;;) {
    if (left == 0) {
      crc_.fold(p);
      return done(Step::NeedMore);
    }
    if (!seen_any_octet_) begin(frame, push_start && p == from, judged);
    const std::uint32_t to_marker = marker_.got > 0 ? 0 : grid_.distance_to_marker(pos_);
    if (to_marker == 0) {
      advance(take_marker(p, left));
      if (marker_.got < kMarkerSize) continue;
      marker_.got = 0;
      if (!read_marker()) return done(Step::Marker);
      continue;  // (exact: recorded, nothing to say)
    }
    const std::uint32_t limit = static_cast<std::uint32_t>(std::min<std::size_t>(left, to_marker));
    Step step = Step::NeedMore;  // (none)
    switch (state_) {
      case State::Header:
        advance(take_header(p, limit, frame, step));
        break;
      case State::Ulpdu:
        advance(take_ulpdu(p, limit, ordinary, step));
        break;
      case State::Pad:
        advance(take_pad(p, limit));
        break;
      case State::Crc:
      default:
        advance(take_crc_field(p, limit));
        break;
    }
    if (step != Step::NeedMore) return done(step);
    if (completed()) {  // (a marker leaves the state as it was)
      complete(frame);
      return done(Step::Complete);
    }
  }
}

}  // namespace mpa
