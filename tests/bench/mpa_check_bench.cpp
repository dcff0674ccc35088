// Benchmark of the whole mpa-check pipeline (issue: mpa-check performance). Builds a capture
// of at least 1 GiB (hundreds of MPA connections, markers and CRC on, mixed FPDU sizes, MTU
// 1500 and 9000) with the mpa-synth library, then prints in one run, from page cache:
//   - the throughput of a plain libpcap loop that reads every record and touches every byte,
//   - mpa-check's throughput over the same file, and their ratio,
//   - mpa-check's peak RSS.
// Run: build/tests/bench/mpa_check_bench [--size-mib N] [--file PATH] [--binary MPA_CHECK]
// (not part of ctest; --file may be a pcapng, which the libpcap loop reads too)
#include <fcntl.h>
#include <fmt/format.h>
#include <pcap/pcap.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "generator.h"
#include "mpa/capture_reader.h"
#include "scenario.h"

namespace {

using Clock = std::chrono::steady_clock;

// One conversation template: Rev 2, markers both ways, CRC on, mixed sizes.
std::vector<mpa::synth::CapturedFrame> conversation(std::uint16_t mss, std::uint64_t seed) {
  mpa::synth::Scenario s = mpa::synth::base_scenario("bench");
  mpa::synth::set_revision(s, 2);
  s.initiator.frame.m = true;
  s.responder.frame.m = true;
  s.initiator.frame.c = true;
  s.initiator.tcp.mss = mss;
  s.responder.tcp.mss = mss;
  s.seed = seed;
  const std::vector<std::size_t> sizes = {1442, 64, 4096, 512, 8900, 17, 1000, 65000, 300};
  s.initiator.messages = mpa::synth::mixed_messages(400, sizes);
  s.responder.messages = mpa::synth::mixed_messages(200, sizes);
  return mpa::synth::generate_frames(s);
}

// Writes copies of the templates, each copy on its own TCP ports, until `bytes` are written.
void write_capture(const std::string& path, std::uint64_t bytes) {
  std::vector<std::vector<mpa::synth::CapturedFrame>> templates;
  for (std::uint64_t i = 0; i < 4; ++i)
    templates.push_back(conversation(i % 2 ? 8960 : 1460, i + 1));
  std::ofstream out(path, std::ios::binary);
  const std::uint32_t header[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 262144, 1};
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  std::uint64_t written = sizeof header;
  std::uint32_t copy = 0;
  while (written < bytes) {
    for (const auto& frames : templates) {
      const std::uint16_t port = static_cast<std::uint16_t>(10000 + copy++ % 50000);
      for (const auto& f : frames) {
        std::vector<std::uint8_t> frame = f.bytes;
        // Ethernet + IPv4 without options: the TCP ports are at 34 and 36. Give each copy
        // its own client port (the SYN's source port), so connections do not collide.
        const std::uint16_t client =
            static_cast<std::uint16_t>(frames[0].bytes[34] << 8 | frames[0].bytes[35]);
        for (int at : {34, 36}) {
          if (frame.size() >= 38 && (frame[at] << 8 | frame[at + 1]) == client) {
            frame[at] = static_cast<std::uint8_t>(port >> 8);
            frame[at + 1] = static_cast<std::uint8_t>(port);
          }
        }
        const std::uint32_t record[4] = {static_cast<std::uint32_t>(f.time_us / 1000000),
                                         static_cast<std::uint32_t>(f.time_us % 1000000),
                                         static_cast<std::uint32_t>(frame.size()),
                                         static_cast<std::uint32_t>(frame.size())};
        out.write(reinterpret_cast<const char*>(record), sizeof record);
        out.write(reinterpret_cast<const char*>(frame.data()),
                  static_cast<std::streamsize>(frame.size()));
        written += sizeof record + frame.size();
      }
    }
  }
}

// The floor: libpcap reads every record and we touch every byte.
double pcap_loop_seconds(const std::string& path, std::uint64_t& checksum) {
  char err[PCAP_ERRBUF_SIZE];
  const auto start = Clock::now();
  // The same 1 MiB stdio buffer mpa-check's reader uses, so the floor is libpcap's, not stdio's.
  std::vector<char> buffer(1u << 20);
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw std::runtime_error("cannot open " + path);
  std::setvbuf(file, buffer.data(), _IOFBF, buffer.size());
  pcap_t* p = pcap_fopen_offline(file, err);
  if (!p) throw std::runtime_error(err);
  pcap_pkthdr* h;
  const u_char* data;
  std::uint64_t sum = 0;
  while (pcap_next_ex(p, &h, &data) == 1) {
    // Touch every byte, eight at a time (what any real consumer of the bytes does at least).
    std::uint32_t i = 0;
    for (; i + 8 <= h->caplen; i += 8) {
      std::uint64_t word;
      std::memcpy(&word, data + i, 8);
      sum += word;
    }
    for (; i < h->caplen; ++i) sum += data[i];
  }
  pcap_close(p);
  checksum = sum;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// mpa-check's own reading alone: CaptureReader (libpcap for pcap, pcapng_stream for
// pcapng) touching every byte as the libpcap loop does.
double capture_reader_loop_seconds(const std::string& path, std::uint64_t& checksum) {
  const auto start = Clock::now();
  std::string error;
  auto reader = mpa::CaptureReader::open(path, error);
  if (!reader) throw std::runtime_error(error);
  mpa::CaptureRecord record;
  std::uint64_t sum = 0;
  while (reader->next(record) == mpa::ReadStatus::Record) {
    const std::uint8_t* data = record.data.data();
    const std::size_t size = record.data.size();
    std::size_t i = 0;
    for (; i + 8 <= size; i += 8) {
      std::uint64_t word;
      std::memcpy(&word, data + i, 8);
      sum += word;
    }
    for (; i < size; ++i) sum += data[i];
  }
  checksum = sum;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double run_mpa_check(const std::string& binary, const std::string& path, long& max_rss_kib) {
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    execl(binary.c_str(), binary.c_str(), "--no-summary", "--progress", "never", path.c_str(),
          nullptr);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  max_rss_kib = usage.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) throw std::runtime_error("mpa-check failed");
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t size_mib = 1100;
  std::string path = MPA_BINARY_DIR "/bench-capture.pcap";
  // --binary: another mpa-check (an older build) measured against the same libpcap loop.
  std::string binary = MPA_CHECK_BINARY;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--size-mib") == 0) size_mib = std::stoull(argv[i + 1]);
    if (std::strcmp(argv[i], "--file") == 0) path = argv[i + 1];
    if (std::strcmp(argv[i], "--binary") == 0) binary = argv[i + 1];
  }
  const std::uint64_t bytes = size_mib << 20;
  if (!std::filesystem::exists(path) || std::filesystem::file_size(path) < bytes) {
    fmt::print("writing {} MiB capture to {} ...\n", size_mib, path);
    write_capture(path, bytes);
  }
  const double size = static_cast<double>(std::filesystem::file_size(path));
  std::uint64_t checksum = 0;
  pcap_loop_seconds(path, checksum);  // warm the page cache
  double best_pcap = 1e9, best_mpa = 1e9, best_reader = 1e9;
  long rss = 0;
  std::uint64_t reader_checksum = 0;
  for (int round = 0; round < 3; ++round) {
    best_pcap = std::min(best_pcap, pcap_loop_seconds(path, checksum));
    best_reader = std::min(best_reader, capture_reader_loop_seconds(path, reader_checksum));
    long r = 0;
    best_mpa = std::min(best_mpa, run_mpa_check(binary, path, r));
    rss = std::max(rss, r);
  }
  const double pcap_gbs = size / best_pcap / 1e9;
  const double mpa_gbs = size / best_mpa / 1e9;
  fmt::print("capture            {:.0f} MiB ({})\n", size / 1048576.0, path);
  fmt::print("libpcap loop       {:.2f} GB/s  (best of 3; touches every byte, sum {})\n", pcap_gbs,
             checksum % 1000);
  fmt::print(
      "CaptureReader loop {:.2f} GB/s  (best of 3; mpa-check's reading alone, sum {}; {:.2f} of "
      "libpcap's)\n",
      size / best_reader / 1e9, reader_checksum % 1000, best_pcap / best_reader);
  fmt::print("mpa-check          {:.2f} GB/s  (best of 3, single thread; {})\n", mpa_gbs, binary);
  fmt::print("ratio              {:.2f}  (mpa-check / libpcap loop)\n", mpa_gbs / pcap_gbs);
  fmt::print("mpa-check peak RSS {:.1f} MiB\n", static_cast<double>(rss) / 1024.0);
  return 0;
}
