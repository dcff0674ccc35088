// Tests for CRC32c (RFC 5044 4.4; iSCSI RFC 3720 B.4): the RFC 5044 Appendix figures, the
// RFC 3720 B.4 vectors, and every hardware implementation against the table one.
#include "mpa/crc32c.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <span>
#include <string_view>
#include <vector>

namespace mpa {
namespace {

std::span<const std::uint8_t> as_bytes(std::string_view text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// The CRC goes on the wire least significant byte first (RFC 5044 4.4).
std::array<std::uint8_t, 4> wire_bytes(std::uint32_t crc) {
  return {static_cast<std::uint8_t>(crc), static_cast<std::uint8_t>(crc >> 8),
          static_cast<std::uint8_t>(crc >> 16), static_cast<std::uint8_t>(crc >> 24)};
}

const Crc32cImplementation& table_implementation() {
  for (const Crc32cImplementation& implementation : crc32c_implementations()) {
    if (implementation.name == "table") return implementation;
  }
  ADD_FAILURE() << "no table implementation listed";
  return crc32c_implementations().front();
}

std::vector<std::uint8_t> random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<std::uint8_t> bytes(size);
  for (std::uint8_t& b : bytes) b = static_cast<std::uint8_t>(byte(generator));
  return bytes;
}

TEST(Crc32c, MatchesRfc5044Figure5) {
  // Marker, then the FPDU: ULPDU_Length 0x2a, DDP/RDMAP header (untagged, MSN 1), 24 octets.
  const std::vector<std::uint8_t> fpdu = {
      0x00, 0x00, 0x00, 0x00,  // marker
      0x00, 0x2a, 0x41, 0x43,  // ULPDU_Length, DDP control, RDMAP control
      0x00, 0x00, 0x00, 0x00,  // reserved
      0x00, 0x00, 0x00, 0x00,  // queue number
      0x00, 0x00, 0x00, 0x01,  // MSN
      0x00, 0x00, 0x00, 0x00,  // MO
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // data
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  };
  ASSERT_EQ(fpdu.size(), 48u);
  EXPECT_EQ(wire_bytes(crc32c(fpdu)), (std::array<std::uint8_t, 4>{0x52, 0x23, 0x99, 0x83}));
}

TEST(Crc32c, MatchesRfc5044Figure6IncludingTheMarker) {
  // FPDU at stream offset 0x1ec; the marker at 0x200 lies inside it and is covered too.
  const std::vector<std::uint8_t> fpdu = {
      0x00, 0x2a, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00,  // 0x1ec: length, DDP, reserved
      0x00, 0x00, 0x00, 0x00,                          // 0x1f4: queue number
      0x00, 0x00, 0x00, 0x02,                          // 0x1f8: MSN
      0x00, 0x00, 0x00, 0x00,                          // 0x1fc: MO
      0x00, 0x00, 0x00, 0x14,                          // 0x200: marker (FPDU 0x14 back)
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // 0x204: data
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
  };
  ASSERT_EQ(fpdu.size(), 0x21cu - 0x1ecu);
  EXPECT_EQ(wire_bytes(crc32c(fpdu)), (std::array<std::uint8_t, 4>{0x84, 0x92, 0x58, 0x98}));
}

TEST(Crc32c, MatchesTheStandardCheckValue) {
  EXPECT_EQ(crc32c(as_bytes("123456789")), 0xE3069283u);
}

TEST(Crc32c, MatchesRfc3720TestVectors) {
  const std::vector<std::uint8_t> zeros(32, 0x00);
  const std::vector<std::uint8_t> ones(32, 0xFF);
  std::vector<std::uint8_t> incrementing(32);
  std::vector<std::uint8_t> decrementing(32);
  for (std::size_t i = 0; i < 32; ++i) {
    incrementing[i] = static_cast<std::uint8_t>(i);
    decrementing[i] = static_cast<std::uint8_t>(31 - i);
  }
  EXPECT_EQ(crc32c(zeros), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones), 0x62A8AB43u);
  EXPECT_EQ(crc32c(incrementing), 0x46DD794Eu);
  EXPECT_EQ(crc32c(decrementing), 0x113FDB5Cu);
}

TEST(Crc32c, OfNothingIsZeroAndLeavesTheStateAlone) {
  EXPECT_EQ(crc32c({}), 0u);
  EXPECT_EQ(crc32c_update(0x12345678u, {}), 0x12345678u);
}

TEST(Crc32c, ListsTheTableImplementationAndAnAvailableActiveOne) {
  const auto implementations = crc32c_implementations();
  ASSERT_FALSE(implementations.empty());
  EXPECT_TRUE(table_implementation().available);
  const auto active = std::find_if(
      implementations.begin(), implementations.end(),
      [](const Crc32cImplementation& i) { return i.name == crc32c_active_implementation(); });
  ASSERT_NE(active, implementations.end());
  EXPECT_TRUE(active->available);
  for (const Crc32cImplementation& implementation : implementations) {
    EXPECT_NE(implementation.update, nullptr) << implementation.name;
    std::cout << "[          ] " << implementation.name
              << (implementation.available ? " (available)" : " (not available)")
              << (implementation.name == crc32c_active_implementation() ? " <- active" : "")
              << '\n';
  }
}

// MPA_CRC32C (set by the tests that run the suite under every implementation) is obeyed:
// crc32c_update, and so every other test here and in the reader's tests, runs that one.
TEST(Crc32c, RunsTheImplementationTheEnvironmentNames) {
  const char* forced = std::getenv(kCrc32cEnvironment);
  if (forced == nullptr || *forced == '\0') {
    EXPECT_FALSE(crc32c_forced());
    EXPECT_EQ(crc32c_environment_error(), "");
    GTEST_SKIP() << kCrc32cEnvironment << " is not set";
  }
  EXPECT_EQ(crc32c_environment_error(), "");
  EXPECT_EQ(crc32c_active_implementation(), forced);
  EXPECT_TRUE(crc32c_forced());
}

TEST(Crc32c, EveryImplementationMatchesTheTableForEveryLengthAndAlignment) {
  constexpr std::size_t kMaxLength = 4096;
  constexpr std::size_t kMaxOffset = 64;  // a cache line: every load alignment
  const std::vector<std::uint8_t> buffer = random_bytes(kMaxLength + kMaxOffset, 5044);
  const auto reference = table_implementation().update;
  for (const Crc32cImplementation& implementation : crc32c_implementations()) {
    if (!implementation.available) continue;
    SCOPED_TRACE(implementation.name);
    int failures = 0;
    for (std::size_t length = 0; length <= kMaxLength && failures < 10; ++length) {
      // Every offset in a cache line for short lengths; beyond, eight offsets that still
      // cover every 8-byte alignment (all 64 would be slow for what they add).
      const std::size_t offsets = length <= 600 ? kMaxOffset : 8;
      for (std::size_t o = 0; o < offsets; ++o) {
        const std::size_t offset = offsets == kMaxOffset ? o : (length + 9 * o) % kMaxOffset;
        const std::uint8_t* data = buffer.data() + offset;
        const std::uint32_t state = static_cast<std::uint32_t>(length * 0x9E3779B9u) ^ kCrc32cInit;
        const std::uint32_t expected = reference(state, data, length);
        const std::uint32_t actual = implementation.update(state, data, length);
        if (actual != expected) {
          ADD_FAILURE() << "length " << length << " offset " << offset << ": got " << std::hex
                        << actual << ", want " << expected;
          ++failures;
        }
      }
    }
  }
}

TEST(Crc32c, LargeBuffersMatchTheTable) {
  // Past the 3 x 2 KiB blocks of the stream implementation and many folding rounds.
  const std::vector<std::uint8_t> buffer = random_bytes(1 << 20, 3720);
  const auto reference = table_implementation().update;
  for (const std::size_t length : {6143u, 6144u, 6145u, 65536u, 65536u + 255u, 1u << 20}) {
    const std::uint32_t expected = reference(kCrc32cInit, buffer.data(), length);
    for (const Crc32cImplementation& implementation : crc32c_implementations()) {
      if (!implementation.available) continue;
      EXPECT_EQ(implementation.update(kCrc32cInit, buffer.data(), length), expected)
          << implementation.name << " length " << length;
    }
  }
}

TEST(Crc32c, StreamingOverRandomSplitsEqualsOneShot) {
  const std::vector<std::uint8_t> buffer = random_bytes(20000, 793);
  std::mt19937 generator(4);
  for (int round = 0; round < 300; ++round) {
    const std::size_t length =
        std::uniform_int_distribution<std::size_t>(0, buffer.size())(generator);
    const std::span<const std::uint8_t> whole(buffer.data(), length);
    const std::uint32_t expected = crc32c(whole);
    // Pieces from empty up to a few KiB, so every implementation path gets a turn.
    const std::size_t max_piece = round % 2 == 0 ? 64 : 4096;
    std::uint32_t state = kCrc32cInit;
    std::size_t position = 0;
    while (position < length) {
      const std::size_t piece = std::min(
          length - position, std::uniform_int_distribution<std::size_t>(0, max_piece)(generator));
      state = crc32c_update(state, whole.subspan(position, piece));
      position += piece;
    }
    ASSERT_EQ(crc32c_finish(state), expected) << "length " << length << " round " << round;
  }
}

TEST(Crc32c, EveryImplementationStreamsLikeOneShot) {
  const std::vector<std::uint8_t> buffer = random_bytes(10000, 6581);
  std::mt19937 generator(17);
  for (const Crc32cImplementation& implementation : crc32c_implementations()) {
    if (!implementation.available) continue;
    const std::uint32_t expected = implementation.update(kCrc32cInit, buffer.data(), buffer.size());
    std::uint32_t state = kCrc32cInit;
    std::size_t position = 0;
    while (position < buffer.size()) {
      const std::size_t piece = std::min(
          buffer.size() - position, std::uniform_int_distribution<std::size_t>(0, 2000)(generator));
      state = implementation.update(state, buffer.data() + position, piece);
      position += piece;
    }
    EXPECT_EQ(state, expected) << implementation.name;
  }
}

}  // namespace
}  // namespace mpa

namespace mpa {
namespace {

TEST(Crc32c, RewindUndoesUpdateOctetByOctet) {
  std::vector<std::uint8_t> data(300);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 37 + 11);
  const std::span<const std::uint8_t> all(data);
  for (const std::size_t split : {0u, 1u, 7u, 150u, 299u, 300u}) {
    const std::uint32_t before = crc32c_update(kCrc32cInit, all.first(split));
    const std::uint32_t after = crc32c_update(before, all.subspan(split));
    EXPECT_EQ(crc32c_rewind(after, all.subspan(split)), before) << split;
  }
  // Run back over octets other than those fed, it lands elsewhere.
  const std::uint32_t after = crc32c_update(kCrc32cInit, all);
  std::vector<std::uint8_t> other(data.end() - 4, data.end());
  other[0] ^= 1;
  EXPECT_NE(crc32c_rewind(after, other), crc32c_update(kCrc32cInit, all.first(296)));
}

}  // namespace
}  // namespace mpa
