// Helpers shared by the fuzz targets: reading structured choices from the fuzzer's bytes,
// checking invariants (a broken invariant aborts, so libFuzzer keeps the input), and a file
// in memory for the entry points that open a path.
#pragma once

#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

namespace mpa::fuzz {

[[noreturn]] inline void fail(const char* file, int line, const char* condition, const char* what) {
  std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s (%s)\n", file, line, condition, what);
  std::abort();
}

// Reads choices front to back; past the end every read yields zeros, so any input is valid.
class Input {
 public:
  explicit Input(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  std::uint8_t u8() { return pos_ < bytes_.size() ? bytes_[pos_++] : 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u16()) | (std::uint32_t{u16()} << 16); }
  // Up to `n` bytes (fewer at the end of the input).
  std::span<const std::uint8_t> bytes(std::size_t n) {
    const std::size_t take = n < remaining() ? n : remaining();
    const auto out = bytes_.subspan(pos_, take);
    pos_ += take;
    return out;
  }
  // Takes `n` bytes off the end of the input (fewer if there are not that many).
  std::span<const std::uint8_t> take_back(std::size_t n) {
    const std::size_t take = n < remaining() ? n : remaining();
    const auto out = bytes_.subspan(bytes_.size() - take, take);
    bytes_ = bytes_.first(bytes_.size() - take);
    return out;
  }
  std::span<const std::uint8_t> rest() { return bytes(remaining()); }
  std::size_t remaining() const { return bytes_.size() - pos_; }
  bool empty() const { return remaining() == 0; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

// Writes `bytes` into one memfd per process (made on first use) and returns a path that opens
// it, like any file: /proc/self/fd/N.
inline std::string write_memory_file(std::span<const std::uint8_t> bytes) {
  static const int fd = [] {
    const int created = memfd_create("mpa-fuzz-input", 0);
    if (created < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    return created;
  }();
  if (ftruncate(fd, 0) != 0) std::abort();
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n =
        pwrite(fd, bytes.data() + written, bytes.size() - written, static_cast<off_t>(written));
    if (n <= 0) std::abort();
    written += static_cast<std::size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace mpa::fuzz

#define MPA_FUZZ_CHECK(condition, what) \
  ((condition) ? (void)0 : ::mpa::fuzz::fail(__FILE__, __LINE__, #condition, what))
