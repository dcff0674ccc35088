// Portable CRC32c (RFC 5044 4.4; iSCSI RFC 3720 B.4): slicing-by-8 over tables built at
// compile time. The reference every hardware path is tested against, and the fallback.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mpa/crc32c.h"

namespace mpa::detail {
namespace {

// Reflected Castagnoli polynomial (RFC 3720 B.4).
constexpr std::uint32_t kPolynomial = 0x82F63B78u;
constexpr int kSlices = 8;

using Tables = std::array<std::array<std::uint32_t, 256>, kSlices>;

// tables[0] is the classic byte table; tables[k][b] is the CRC of byte b followed by k
// zero bytes, so eight bytes can be folded with eight independent look-ups.
constexpr Tables make_tables() {
  Tables tables{};
  for (std::uint32_t byte = 0; byte < 256; ++byte) {
    std::uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1u) != 0 ? kPolynomial : 0u);
    tables[0][byte] = crc;
  }
  for (std::size_t byte = 0; byte < 256; ++byte) {
    for (std::size_t k = 1; k < kSlices; ++k) {
      const std::uint32_t previous = tables[k - 1][byte];
      tables[k][byte] = (previous >> 8) ^ tables[0][previous & 0xFFu];
    }
  }
  return tables;
}

constexpr Tables kTables = make_tables();

static_assert(kTables[0][1] == 0xF26B8303u, "byte table disagrees with RFC 3720 B.4");

inline std::uint32_t update_byte(std::uint32_t crc, std::uint8_t byte) {
  return (crc >> 8) ^ kTables[0][(crc ^ byte) & 0xFFu];
}

}  // namespace

std::uint32_t crc32c_table_update(std::uint32_t state, const std::uint8_t* data, std::size_t size) {
  std::uint32_t crc = state;
  if constexpr (std::endian::native == std::endian::little) {
    // Align so the 8-byte loads below stay within one cache line.
    while (size != 0 && (reinterpret_cast<std::uintptr_t>(data) & 7u) != 0) {
      crc = update_byte(crc, *data++);
      --size;
    }
    while (size >= 8) {
      std::uint64_t word;
      std::memcpy(&word, data, sizeof word);
      word ^= crc;
      crc = kTables[7][word & 0xFF] ^ kTables[6][(word >> 8) & 0xFF] ^
            kTables[5][(word >> 16) & 0xFF] ^ kTables[4][(word >> 24) & 0xFF] ^
            kTables[3][(word >> 32) & 0xFF] ^ kTables[2][(word >> 40) & 0xFF] ^
            kTables[1][(word >> 48) & 0xFF] ^ kTables[0][word >> 56];
      data += 8;
      size -= 8;
    }
  }
  // Big-endian hosts (none we ship on) take the byte loop for everything.
  while (size != 0) {
    crc = update_byte(crc, *data++);
    --size;
  }
  return crc;
}

}  // namespace mpa::detail

namespace mpa {

// The reflected step is crc' = (crc >> 1) ^ (crc & 1 ? P : 0); P's top bit is set and
// crc >> 1's is not, so crc' tells which branch was taken and the step runs backwards.
std::uint32_t crc32c_rewind(std::uint32_t state, std::span<const std::uint8_t> data) {
  for (std::size_t i = data.size(); i-- > 0;) {
    for (int bit = 0; bit < 8; ++bit) {
      state = (state & 0x80000000u) != 0 ? ((state ^ detail::kPolynomial) << 1) | 1u : state << 1;
    }
    state ^= data[i];
  }
  return state;
}

}  // namespace mpa
