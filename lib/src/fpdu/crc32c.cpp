// CRC32c as MPA uses it (RFC 5044 4.4; iSCSI RFC 3720 B.4): the list of implementations
// and the run-time dispatch to the fastest one this CPU supports (or the one MPA_CRC32C
// names).
#include "mpa/crc32c.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mpa {
namespace detail {

// Defined in crc32c_table.cpp, crc32c_x86.cpp and crc32c_arm.cpp.
std::uint32_t crc32c_table_update(std::uint32_t state, const std::uint8_t* data, std::size_t size);
#if defined(__x86_64__)
bool crc32c_sse42_available();
bool crc32c_sse42_pclmul_available();
bool crc32c_avx512_available();
std::uint32_t crc32c_sse42_update(std::uint32_t state, const std::uint8_t* data, std::size_t size);
std::uint32_t crc32c_sse42_pclmul_update(std::uint32_t state, const std::uint8_t* data,
                                         std::size_t size);
std::uint32_t crc32c_avx512_update(std::uint32_t state, const std::uint8_t* data, std::size_t size);
#endif
#if defined(__aarch64__)
bool crc32c_armv8_available();
std::uint32_t crc32c_armv8_update(std::uint32_t state, const std::uint8_t* data, std::size_t size);
#endif

}  // namespace detail

namespace {

// Implementations for other architectures are not compiled in, so they are not listed.
// Ordered slowest first: the dispatcher picks the last available one.
constexpr std::size_t kImplementationCount = 1
#if defined(__x86_64__)
                                             + 3
#endif
#if defined(__aarch64__)
                                             + 1
#endif
    ;
using Implementations = std::array<Crc32cImplementation, kImplementationCount>;

const Implementations& implementations() {
  // CPU detection runs once, on first use (thread-safe static initialisation).
  static const Implementations list{{
      {"table", true, &detail::crc32c_table_update},
#if defined(__x86_64__)
      {"sse4.2", detail::crc32c_sse42_available(), &detail::crc32c_sse42_update},
      {"sse4.2-3way", detail::crc32c_sse42_pclmul_available(), &detail::crc32c_sse42_pclmul_update},
      {"avx512-vpclmul", detail::crc32c_avx512_available(), &detail::crc32c_avx512_update},
#endif
#if defined(__aarch64__)
      {"armv8-crc", detail::crc32c_armv8_available(), &detail::crc32c_armv8_update},
#endif
  }};
  return list;
}

// The implementation MPA_CRC32C names, when it names one this CPU can run.
const Crc32cImplementation* requested() {
  const char* name = std::getenv(kCrc32cEnvironment);
  if (name == nullptr || *name == '\0') return nullptr;
  for (const Crc32cImplementation& impl : implementations()) {
    if (impl.name == name && impl.available) return &impl;
  }
  return nullptr;
}

const Crc32cImplementation& active() {
  static const Crc32cImplementation& chosen = []() -> const Crc32cImplementation& {
    if (const Crc32cImplementation* forced = requested()) return *forced;
    const Implementations& list = implementations();
    for (std::size_t i = list.size(); i-- > 1;) {
      if (list[i].available) return list[i];
    }
    return list[0];
  }();
  return chosen;
}

}  // namespace

std::uint32_t crc32c_update(std::uint32_t state, std::span<const std::uint8_t> data) {
  static const auto update = active().update;
  return update(state, data.data(), data.size());
}

std::span<const Crc32cImplementation> crc32c_implementations() { return implementations(); }

std::string_view crc32c_active_implementation() { return active().name; }

bool crc32c_forced() { return requested() == &active(); }

std::string crc32c_environment_error() {
  const char* name = std::getenv(kCrc32cEnvironment);
  if (name == nullptr || *name == '\0' || requested() != nullptr) return {};
  std::vector<std::string_view> runnable;
  for (const Crc32cImplementation& impl : implementations()) {
    if (impl.available) runnable.push_back(impl.name);
  }
  return fmt::format("{}={}: not a CRC32c implementation this CPU can run (it can run: {})",
                     kCrc32cEnvironment, name, fmt::join(runnable, ", "));
}

}  // namespace mpa
