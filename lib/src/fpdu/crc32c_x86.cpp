// x86-64 CRC32c (RFC 5044 4.4; iSCSI RFC 3720 B.4): SSE4.2 crc32, three interleaved crc32
// streams joined with PCLMULQDQ, and AVX-512 VPCLMULQDQ folding. Each function carries its
// own target attribute, so this file builds with the compiler's default flags; callers must
// check the matching *_available() first.
#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#define MPA_TARGET_SSE42 __attribute__((target("sse4.2")))
#define MPA_TARGET_PCLMUL __attribute__((target("sse4.2,pclmul")))
#define MPA_TARGET_AVX512 __attribute__((target("sse4.2,pclmul,avx2,avx512f,avx512vl,vpclmulqdq")))

namespace mpa::detail {
namespace {

// ---- constants -------------------------------------------------------------------------
// Polynomials are kept reflected, as the crc32 instruction keeps them: in a 32-bit value
// bit i is the coefficient of x^(31-i).
constexpr std::uint32_t kPolynomial = 0x82F63B78u;

constexpr std::uint32_t multiply_by_x(std::uint32_t value) {
  return (value >> 1) ^ ((value & 1u) != 0 ? kPolynomial : 0u);
}

// x^n mod P.
constexpr std::uint32_t x_pow_mod(std::uint32_t n) {
  std::uint32_t value = 0x80000000u;  // x^0
  for (; n != 0; --n) value = multiply_by_x(value);
  return value;
}

// Why the "-33" below: a carry-less product of two reflected 32-bit values, read as the
// 64-bit operand of crc32 (state 0), yields a*b*x^33 mod P. So shifting a CRC state c
// forward over n zero bits (c * x^n) is crc32_u64(0, clmul(c, x^(n-33) mod P)).

// ---- three crc32 streams ---------------------------------------------------------------
// crc32 has a latency of 3 cycles and a throughput of one per cycle, so one stream uses a
// third of the unit. Three streams over adjacent thirds of a block keep it busy; the first
// two are then shifted over the rest of the block with one PCLMULQDQ each.
constexpr std::size_t kMaxStreamWords = 256;  // 2 KiB per stream: joining costs < 2%
constexpr std::size_t kMinStreamWords = 3;    // below this, one stream is as fast

// kShift[w] = x^(64w - 33) mod P: shifts a stream state over w 8-byte words.
constexpr std::array<std::uint32_t, 2 * kMaxStreamWords + 1> make_shift_table() {
  std::array<std::uint32_t, 2 * kMaxStreamWords + 1> table{};
  table[1] = x_pow_mod(64 - 33);
  for (std::size_t w = 2; w < table.size(); ++w) {
    std::uint32_t value = table[w - 1];
    for (int bit = 0; bit < 64; ++bit) value = multiply_by_x(value);
    table[w] = value;
  }
  return table;
}
constexpr auto kShift = make_shift_table();

// ---- folding ---------------------------------------------------------------------------
// A 128-bit lane V of message (bytes in stream order, so its low quadword H holds the
// higher-degree half: V = H*x^64 + L) is carried forward over d bytes as
//   clmul(H, x^(8d+31)) ^ clmul(L, x^(8d-33)),
// a 96-bit value congruent to V*x^(8d) that lines up with the lane d bytes later.
struct FoldConstants {
  std::uint64_t high_half;  // multiplies the low quadword (H)
  std::uint64_t low_half;   // multiplies the high quadword (L)
};
constexpr FoldConstants fold_constants(std::uint32_t bytes) {
  return {x_pow_mod(8 * bytes + 31), x_pow_mod(8 * bytes - 33)};
}
constexpr FoldConstants kFold16 = fold_constants(16);
constexpr FoldConstants kFold32 = fold_constants(32);
constexpr FoldConstants kFold48 = fold_constants(48);
constexpr FoldConstants kFold64 = fold_constants(64);
constexpr FoldConstants kFold128 = fold_constants(128);
constexpr FoldConstants kFold256 = fold_constants(256);

constexpr std::size_t kFoldMinSize = 512;  // below this the crc32 streams win

// ---- helpers ---------------------------------------------------------------------------
inline std::uint64_t load_u64(const std::uint8_t* p) {
  std::uint64_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}
inline std::uint32_t load_u32(const std::uint8_t* p) {
  std::uint32_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}
inline std::uint16_t load_u16(const std::uint8_t* p) {
  std::uint16_t value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

// One crc32 stream over whole words, then the tail in at most three steps.
MPA_TARGET_SSE42 inline std::uint64_t crc32_single(std::uint64_t crc, const std::uint8_t* data,
                                                   std::size_t size) {
  for (; size >= 8; data += 8, size -= 8) crc = _mm_crc32_u64(crc, load_u64(data));
  if ((size & 4) != 0) {
    crc = _mm_crc32_u32(static_cast<std::uint32_t>(crc), load_u32(data));
    data += 4;
  }
  if ((size & 2) != 0) {
    crc = _mm_crc32_u16(static_cast<std::uint32_t>(crc), load_u16(data));
    data += 2;
  }
  if ((size & 1) != 0) crc = _mm_crc32_u8(static_cast<std::uint32_t>(crc), *data);
  return crc;
}

MPA_TARGET_PCLMUL inline std::uint64_t clmul_u32(std::uint64_t a, std::uint32_t b) {
  const __m128i product = _mm_clmulepi64_si128(_mm_cvtsi64_si128(static_cast<long long>(a)),
                                               _mm_cvtsi32_si128(static_cast<int>(b)), 0x00);
  return static_cast<std::uint64_t>(_mm_cvtsi128_si64(product));
}

MPA_TARGET_PCLMUL std::uint32_t crc32_three_streams(std::uint32_t state, const std::uint8_t* data,
                                                    std::size_t size) {
  std::uint64_t crc = state;
  while (size >= 3 * 8 * kMinStreamWords) {
    const std::size_t words = std::min(size / 24, kMaxStreamWords);
    const std::size_t stream_bytes = 8 * words;
    const std::uint8_t* a = data;
    const std::uint8_t* b = data + stream_bytes;
    const std::uint8_t* c = data + 2 * stream_bytes;
    std::uint64_t crc_a = crc;
    std::uint64_t crc_b = 0;
    std::uint64_t crc_c = 0;
    for (std::size_t i = 0; i + 8 < stream_bytes; i += 8) {
      crc_a = _mm_crc32_u64(crc_a, load_u64(a + i));
      crc_b = _mm_crc32_u64(crc_b, load_u64(b + i));
      crc_c = _mm_crc32_u64(crc_c, load_u64(c + i));
    }
    const std::size_t last = stream_bytes - 8;
    crc_a = _mm_crc32_u64(crc_a, load_u64(a + last));
    crc_b = _mm_crc32_u64(crc_b, load_u64(b + last));
    // Shifting a and b over what follows them is folded into c's last word: crc32 then
    // multiplies the product by x^64 along with the word, which the -33 constants expect.
    const std::uint64_t shifted =
        clmul_u32(crc_a, kShift[2 * words]) ^ clmul_u32(crc_b, kShift[words]);
    crc = _mm_crc32_u64(crc_c, load_u64(c + last) ^ shifted);
    data += 3 * stream_bytes;
    size -= 3 * stream_bytes;
  }
  return static_cast<std::uint32_t>(crc32_single(crc, data, size));
}

MPA_TARGET_AVX512 inline __m512i broadcast(FoldConstants k) {
  // Not _mm512_broadcast_i32x4: g++ 12 warns falsely about its undefined source.
  const auto high = static_cast<long long>(k.high_half);
  const auto low = static_cast<long long>(k.low_half);
  return _mm512_set_epi64(low, high, low, high, low, high, low, high);
}

// Carries x over the distance k was made for and adds (xors) `next`.
MPA_TARGET_AVX512 inline __m512i fold512(__m512i x, __m512i k, __m512i next) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                   _mm512_clmulepi64_epi128(x, k, 0x11), next, 0x96);
}
MPA_TARGET_AVX512 inline __m128i fold128(__m128i x, FoldConstants k, __m128i next) {
  const __m128i kk =
      _mm_set_epi64x(static_cast<long long>(k.low_half), static_cast<long long>(k.high_half));
  return _mm_ternarylogic_epi64(_mm_clmulepi64_si128(x, kk, 0x00),
                                _mm_clmulepi64_si128(x, kk, 0x11), next, 0x96);
}

struct Cpu {
  bool sse42 = false;
  bool pclmul = false;
  bool avx512_vpclmul = false;
};

// xgetbv by hand: _xgetbv would need the xsave target on this one function too.
std::uint64_t read_xcr0() {
  std::uint32_t low = 0;
  std::uint32_t high = 0;
  __asm__("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (static_cast<std::uint64_t>(high) << 32) | low;
}

Cpu detect_cpu() {
  Cpu cpu;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return cpu;
  cpu.sse42 = (ecx & bit_SSE4_2) != 0;
  cpu.pclmul = cpu.sse42 && (ecx & bit_PCLMUL) != 0;
  const bool osxsave = (ecx & bit_OSXSAVE) != 0;
  if (!cpu.pclmul || !osxsave) return cpu;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return cpu;
  const bool avx512 = (ebx & bit_AVX512F) != 0 && (ebx & bit_AVX512VL) != 0 &&
                      (ebx & bit_AVX2) != 0 && (ecx & bit_VPCLMULQDQ) != 0;
  // The OS must save SSE, AVX, opmask and both halves of the ZMM registers.
  constexpr std::uint64_t kZmmState = 0xE6;
  cpu.avx512_vpclmul = avx512 && (read_xcr0() & kZmmState) == kZmmState;
  return cpu;
}

const Cpu& cpu() {
  static const Cpu detected = detect_cpu();
  return detected;
}

}  // namespace

bool crc32c_sse42_available() { return cpu().sse42; }
bool crc32c_sse42_pclmul_available() { return cpu().pclmul; }
bool crc32c_avx512_available() { return cpu().avx512_vpclmul; }

MPA_TARGET_SSE42 std::uint32_t crc32c_sse42_update(std::uint32_t state, const std::uint8_t* data,
                                                   std::size_t size) {
  return static_cast<std::uint32_t>(crc32_single(state, data, size));
}

MPA_TARGET_PCLMUL std::uint32_t crc32c_sse42_pclmul_update(std::uint32_t state,
                                                           const std::uint8_t* data,
                                                           std::size_t size) {
  return crc32_three_streams(state, data, size);
}

MPA_TARGET_AVX512 std::uint32_t crc32c_avx512_update(std::uint32_t state, const std::uint8_t* data,
                                                     std::size_t size) {
  if (size < kFoldMinSize) return crc32_three_streams(state, data, size);

  // The running state is the CRC of everything before; xoring it into the first four
  // message bytes is the same as starting the CRC register with it.
  __m512i x0 =
      _mm512_xor_si512(_mm512_loadu_si512(data), _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, state));
  __m512i x1 = _mm512_loadu_si512(data + 64);
  __m512i x2 = _mm512_loadu_si512(data + 128);
  __m512i x3 = _mm512_loadu_si512(data + 192);
  data += 256;
  size -= 256;

  // Four independent accumulators hide the latency of VPCLMULQDQ.
  const __m512i k256 = broadcast(kFold256);
  for (; size >= 256; data += 256, size -= 256) {
    x0 = fold512(x0, k256, _mm512_loadu_si512(data));
    x1 = fold512(x1, k256, _mm512_loadu_si512(data + 64));
    x2 = fold512(x2, k256, _mm512_loadu_si512(data + 128));
    x3 = fold512(x3, k256, _mm512_loadu_si512(data + 192));
  }

  // Four accumulators to one, as a tree to keep the dependency chain short.
  const __m512i k64 = broadcast(kFold64);
  const __m512i k128 = broadcast(kFold128);
  __m512i x = fold512(fold512(x0, k128, x2), k64, fold512(x1, k128, x3));
  for (; size >= 64; data += 64, size -= 64) x = fold512(x, k64, _mm512_loadu_si512(data));

  // Four lanes to one. The maskz extracts avoid a g++ 12 false maybe-uninitialized warning
  // in the unmasked intrinsics; with a full mask they are the same instruction.
  __m128i lane = _mm512_maskz_extracti32x4_epi32(0xF, x, 3);
  lane = fold128(_mm512_maskz_extracti32x4_epi32(0xF, x, 2), kFold16, lane);
  lane = _mm_xor_si128(lane, fold128(_mm512_maskz_extracti32x4_epi32(0xF, x, 1), kFold32,
                                     fold128(_mm512_maskz_extracti32x4_epi32(0xF, x, 0), kFold48,
                                             _mm_setzero_si128())));

  // What is left is 16 message bytes with a zero state: crc32 reduces them mod P.
  std::uint64_t crc = _mm_crc32_u64(0, static_cast<std::uint64_t>(_mm_cvtsi128_si64(lane)));
  crc = _mm_crc32_u64(crc, static_cast<std::uint64_t>(_mm_extract_epi64(lane, 1)));
  return static_cast<std::uint32_t>(crc32_single(crc, data, size));
}

}  // namespace mpa::detail

#endif  // defined(__x86_64__)
