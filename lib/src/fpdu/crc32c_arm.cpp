// ARMv8 CRC32c (RFC 5044 4.4; iSCSI RFC 3720 B.4) with the optional CRC32 instructions.
// The function carries its own target attribute, so this file builds for plain armv8-a;
// callers must check crc32c_armv8_available() first. Compiled on aarch64 only.
#if defined(__aarch64__)

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#if !defined(__clang__)
#include <arm_acle.h>  // GCC declares the CRC intrinsics under its own +crc pragma
#endif

namespace mpa::detail {
namespace {

// Clang 14's arm_acle.h only declares the intrinsics when +crc is global, so call its
// builtins, which honour the function's target attribute.
#if defined(__clang__)
#define MPA_TARGET_CRC __attribute__((target("crc")))
MPA_TARGET_CRC inline std::uint32_t crc32c_u8(std::uint32_t crc, std::uint8_t v) {
  return __builtin_arm_crc32cb(crc, v);
}
MPA_TARGET_CRC inline std::uint32_t crc32c_u64(std::uint32_t crc, std::uint64_t v) {
  return __builtin_arm_crc32cd(crc, v);
}
#else
#define MPA_TARGET_CRC __attribute__((target("+crc")))
MPA_TARGET_CRC inline std::uint32_t crc32c_u8(std::uint32_t crc, std::uint8_t v) {
  return __crc32cb(crc, v);
}
MPA_TARGET_CRC inline std::uint32_t crc32c_u64(std::uint32_t crc, std::uint64_t v) {
  return __crc32cd(crc, v);
}
#endif

}  // namespace

bool crc32c_armv8_available() {
#if defined(__linux__)
  return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#elif defined(__APPLE__)
  return true;  // every Apple arm64 core has the CRC32 instructions
#else
  return false;
#endif
}

MPA_TARGET_CRC std::uint32_t crc32c_armv8_update(std::uint32_t state, const std::uint8_t* data,
                                                 std::size_t size) {
  std::uint32_t crc = state;
  for (; size >= 8; data += 8, size -= 8) {
    std::uint64_t word;
    std::memcpy(&word, data, sizeof word);
    crc = crc32c_u64(crc, word);
  }
  for (; size != 0; ++data, --size) crc = crc32c_u8(crc, *data);
  return crc;
}

}  // namespace mpa::detail

#endif  // defined(__aarch64__)
