// A small deterministic random generator (SplitMix64): identical output on every platform,
// so the corpus regenerates byte for byte (std:: distributions are implementation-defined).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "bytes.h"

namespace mpa::synth {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform enough for test traffic: a value in [0, bound).
  std::uint32_t below(std::uint32_t bound) { return static_cast<std::uint32_t>(next() % bound); }
  void fill(Bytes& out, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) out.push_back(static_cast<std::uint8_t>(next() >> 56));
  }

 private:
  std::uint64_t state_;
};

// FNV-1a: a stable seed derived from a scenario name.
inline std::uint64_t seed_from_name(std::string_view name) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char c : name) {
    h ^= static_cast<std::uint8_t>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

}  // namespace mpa::synth
