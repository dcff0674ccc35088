// CRC32c (Castagnoli, reflected polynomial 0x82F63B78) as MPA uses it (RFC 5044 4.4,
// computed as iSCSI does, RFC 3720 B.4). Streaming: feed pieces with crc32c_update.
// The value goes on the wire least significant byte first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace mpa {

// Running state: start with kCrc32cInit, feed pieces, finish with crc32c_finish.
inline constexpr std::uint32_t kCrc32cInit = 0xFFFFFFFFu;

// Updates the running (non-inverted) state with `data`. Uses the fastest implementation
// available on this CPU, chosen once at run time.
std::uint32_t crc32c_update(std::uint32_t state, std::span<const std::uint8_t> data);
inline std::uint32_t crc32c_finish(std::uint32_t state) { return state ^ 0xFFFFFFFFu; }
// The running state before `data` was fed, from the state after it: the CRC register's step
// is a bijection, so it runs backwards (bit by bit; for a few octets, rarely).
std::uint32_t crc32c_rewind(std::uint32_t state, std::span<const std::uint8_t> data);
// One-shot CRC32c of a buffer.
inline std::uint32_t crc32c(std::span<const std::uint8_t> data) {
  return crc32c_finish(crc32c_update(kCrc32cInit, data));
}

// The individual implementations, for tests and benchmarks. `available` is false when the
// CPU lacks the instructions; `update` must then not be called.
struct Crc32cImplementation {
  std::string_view name;
  bool available;
  std::uint32_t (*update)(std::uint32_t state, const std::uint8_t* data, std::size_t size);
};
std::span<const Crc32cImplementation> crc32c_implementations();
// Name of the implementation crc32c_update dispatches to: the one the environment variable
// MPA_CRC32C names (so that tests can run every implementation this CPU can execute), else
// the fastest this CPU supports. Chosen once, on first use.
inline constexpr const char* kCrc32cEnvironment = "MPA_CRC32C";
std::string_view crc32c_active_implementation();
// True when MPA_CRC32C chose the implementation.
bool crc32c_forced();
// Why MPA_CRC32C could not be followed (it names no implementation compiled in, or one this
// CPU cannot run: the fastest is used instead); empty when it is unset or was followed.
std::string crc32c_environment_error();

}  // namespace mpa
