// FPDU reader throughput (RFC 5044 4, 6) beside its floor, plain CRC32c over the same octets,
// measured in the same run. The stream: mixed FPDU sizes (mostly 1442-octet ULPDUs, as
// with a 1460-octet MSS, some small and some up to 9000), built by the independent builder
// of tests/unit/test_streams.h, fed in 1448-octet pieces as TCP segments would bring it.
//
// Run (bytes_per_second is the throughput; reader / CRC is the price of framing):
//   cmake --build build --target fpdu_reader_bench
//   ./build/tests/bench/fpdu_reader_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <span>
#include <string>

#include "../unit/test_streams.h"
#include "fpdu/fpdu_reader.h"
#include "mpa/crc32c.h"

namespace {

constexpr std::size_t kStreamSize = 16u << 20;
constexpr std::size_t kPiece = 1448;
constexpr std::uint32_t kStartSeq = 0xFFF00000u;  // wraps inside the stream

mpa::test::FpduStreamBuilder build_stream(bool markers, bool crc) {
  mpa::test::FpduStreamBuilder builder({.start_seq = kStartSeq, .markers = markers, .crc = crc});
  std::mt19937 generator(5044);
  std::uniform_int_distribution<int> pick(0, 99);
  const mpa::test::Bytes payload = mpa::test::random_bytes(9000, 1);
  // Each ULPDU an untagged Send (the reader checks that every FPDU begins like DDP).
  const std::size_t header = mpa::synth::untagged_send(1, 0, {}).size();
  std::uint32_t msn = 0;
  while (builder.bytes().size() < kStreamSize) {
    const int p = pick(generator);
    std::size_t size = 1442;
    if (p < 8)
      size = 18 + static_cast<std::size_t>(p) * 30;  // small: RDMAP control, Sends
    else if (p < 12)
      size = 4096;
    else if (p < 14)
      size = 8950;  // jumbo-frame MULPDU
    builder.add(mpa::synth::untagged_send(
        1, msn++,
        mpa::test::Bytes(payload.begin(),
                         payload.begin() + static_cast<std::ptrdiff_t>(size - header))));
  }
  return builder;
}

class CountingSink : public mpa::FpduSink {
 public:
  std::uint64_t fpdus = 0;
  std::uint64_t findings = 0;
  std::uint64_t bad = 0;
  void on_fpdu(const mpa::FpduEvent& fpdu) override {
    ++fpdus;
    bad += fpdu.crc_status == mpa::CrcStatus::Bad;
  }
  void on_finding(mpa::Finding&& f) override {
    // (Without markers and CRC the reader says once that boundaries rest on ULPDU_Length.)
    findings += f.id != mpa::DiagId::FpduFramingUnverifiable;
  }
};

void read_stream(benchmark::State& state, bool markers, bool crc) {
  const mpa::test::FpduStreamBuilder builder = build_stream(markers, crc);
  const std::span<const std::uint8_t> stream = builder.bytes();
  mpa::FpduReaderConfig config;
  config.start_seq = mpa::TcpSeq(kStartSeq);
  config.markers = markers;
  config.crc = crc;
  CountingSink sink;
  for (auto _ : state) {
    mpa::FpduReader reader(config);
    std::uint64_t frame = 1;
    for (std::size_t at = 0; at < stream.size(); at += kPiece) {
      reader.push(stream.subspan(at, std::min(kPiece, stream.size() - at)), frame++, true, sink);
    }
    benchmark::DoNotOptimize(reader.fpdus());
  }
  if (sink.findings != 0 || sink.bad != 0 ||
      sink.fpdus != builder.fpdus().size() * static_cast<std::uint64_t>(state.iterations())) {
    state.SkipWithError("the reader did not read the stream as built");
  }
  state.counters["fpdus"] = static_cast<double>(builder.fpdus().size());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(stream.size()));
}

void crc_baseline(benchmark::State& state, bool pieces) {
  const mpa::test::FpduStreamBuilder builder = build_stream(true, true);
  const std::span<const std::uint8_t> stream = builder.bytes();
  for (auto _ : state) {
    std::uint32_t crc = mpa::kCrc32cInit;
    if (pieces) {
      for (std::size_t at = 0; at < stream.size(); at += kPiece) {
        crc = mpa::crc32c_update(crc, stream.subspan(at, std::min(kPiece, stream.size() - at)));
      }
    } else {
      crc = mpa::crc32c_update(crc, stream);
    }
    benchmark::DoNotOptimize(crc);
  }
  state.SetLabel(std::string(mpa::crc32c_active_implementation()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(stream.size()));
}

BENCHMARK_CAPTURE(crc_baseline, whole, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(crc_baseline, pieces_1448, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_stream, markers_crc, true, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_stream, crc_only, false, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_stream, markers_only, true, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(read_stream, neither, false, false)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
