// TCP sequence numbers: arithmetic modulo 2^32 (RFC 793 3.3). Nobody else subtracts
// sequence numbers by hand.
#pragma once

#include <cstdint>

namespace mpa {

class TcpSeq {
 public:
  constexpr TcpSeq() = default;
  constexpr explicit TcpSeq(std::uint32_t value) : value_(value) {}

  constexpr std::uint32_t value() const { return value_; }

  constexpr TcpSeq operator+(std::uint32_t n) const { return TcpSeq(value_ + n); }
  constexpr TcpSeq operator-(std::uint32_t n) const { return TcpSeq(value_ - n); }
  constexpr TcpSeq& operator+=(std::uint32_t n) {
    value_ += n;
    return *this;
  }
  // Forward distance from `earlier` to this, modulo 2^32.
  constexpr std::uint32_t distance_from(TcpSeq earlier) const { return value_ - earlier.value_; }
  // Signed distance (this - other) as TCP compares sequence numbers.
  constexpr std::int32_t signed_distance_from(TcpSeq other) const {
    return static_cast<std::int32_t>(value_ - other.value_);
  }
  constexpr bool is_before(TcpSeq other) const { return signed_distance_from(other) < 0; }
  constexpr bool is_after(TcpSeq other) const { return signed_distance_from(other) > 0; }

  friend constexpr bool operator==(TcpSeq a, TcpSeq b) = default;

 private:
  std::uint32_t value_ = 0;
};

// A run of sequence space: [seq, seq + length).
struct SeqRange {
  TcpSeq seq;
  std::uint32_t length = 0;

  constexpr TcpSeq end() const { return seq + length; }
  // The octet `i` octets in, and the `n` octets from there.
  constexpr TcpSeq at(std::uint32_t i) const { return seq + i; }
  constexpr SeqRange sub(std::uint32_t i, std::uint32_t n) const { return {seq + i, n}; }
  // Whether `s` is one of its octets (modulo 2^32).
  constexpr bool contains(TcpSeq s) const { return s.distance_from(seq) < length; }
  friend constexpr bool operator==(SeqRange a, SeqRange b) = default;
};

}  // namespace mpa
