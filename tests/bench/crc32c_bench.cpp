// CRC32c throughput (RFC 5044 4.4; iSCSI RFC 3720 B.4): every implementation, the
// dispatched crc32c_update and, when found at configure time, ISA-L's crc32_iscsi as the
// baseline, each at 64 B, 1.5 KiB, 9 KiB and 64 KiB.
//
// Run (bytes_per_second is the throughput; compare BM_Crc32c/dispatch/N with
// BM_Crc32c/isal/N):
//   cmake --build build --target crc32c_bench
//   ./build/tests/bench/crc32c_bench --benchmark_min_time=0.2
//   ./build/tests/bench/crc32c_bench --benchmark_filter='/1536$'   # one size
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mpa/crc32c.h"

#ifdef MPA_HAVE_ISAL
#include <isa-l/crc.h>
#endif

namespace {

constexpr std::int64_t kSizes[] = {64, 1536, 9216, 65536};

std::vector<std::uint8_t> make_buffer(std::size_t size) {
  std::vector<std::uint8_t> buffer(size);
  std::uint32_t x = 0x12345678u;
  for (std::uint8_t& b : buffer) {
    x = x * 1664525u + 1013904223u;  // any non-constant content will do
    b = static_cast<std::uint8_t>(x >> 24);
  }
  return buffer;
}

template <typename Update>
void run(benchmark::State& state, Update update) {
  const auto buffer = make_buffer(static_cast<std::size_t>(state.range(0)));
  std::uint32_t crc = mpa::kCrc32cInit;
  for (auto _ : state) {
    crc = update(crc, buffer.data(), buffer.size());
    benchmark::DoNotOptimize(crc);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

// Registered size by size, so each size's rows sit together and dispatch is beside isal.
void register_all() {
  for (const std::int64_t size : kSizes) {
    for (const mpa::Crc32cImplementation& implementation : mpa::crc32c_implementations()) {
      if (!implementation.available) continue;
      const auto update = implementation.update;
      benchmark::RegisterBenchmark(("BM_Crc32c/" + std::string(implementation.name)).c_str(),
                                   [update](benchmark::State& state) { run(state, update); })
          ->Arg(size);
    }

    benchmark::RegisterBenchmark("BM_Crc32c/dispatch", [](benchmark::State& state) {
      state.SetLabel(std::string(mpa::crc32c_active_implementation()));
      run(state, [](std::uint32_t crc, const std::uint8_t* data, std::size_t n) {
        return mpa::crc32c_update(crc, {data, n});
      });
    })->Arg(size);

#ifdef MPA_HAVE_ISAL
    benchmark::RegisterBenchmark("BM_Crc32c/isal", [](benchmark::State& state) {
      run(state, [](std::uint32_t crc, const std::uint8_t* data, std::size_t n) {
        // ISA-L takes and returns the same running (non-inverted) state.
        return crc32_iscsi(const_cast<unsigned char*>(data), static_cast<int>(n), crc);
      });
    })->Arg(size);
#endif
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
