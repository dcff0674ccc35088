// Benchmark of the reports' scale (issue 44, item 4: reports linear in what they report). Writes
// with the mpa-synth library a capture of many short MPA connections between many hosts nothing
// names (5,000 by default: one hub, the Responder, answering 5,000 peers, 5,001 hosts, about
// 6 MB), then times mpa-check over it in the same run as text (the summary) and as JSON
// (--format json), and as JSON with --matrix (the interop matrix forced: 5,001 implementations,
// 5,000 pairs tried), and prints each one's seconds and peak RSS and its ratio to the text run,
// and its CPU seconds (user and system, the best and the median of the rounds) and their
// ratios to the text run's: on a shared machine the wall time is noise, the CPU time less so.
// Run: build/tests/bench/report_scale_bench [--connections N] [--file PATH] [--binary MPA_CHECK]
//      [--rounds N] [--write-only]
// Each figure is the best of N rounds (5 by default). --binary measures another mpa-check (an
// older build) on the same capture. --write-only writes the capture and exits.
// (not part of ctest)
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "generator.h"
#include "scenario.h"

namespace {

using Clock = std::chrono::steady_clock;

// Connection k: peer 10.0.0.2 + k, the Initiator, to the hub 10.0.0.1. Rev 1, CRC on, one short
// message each way: no stack fingerprint, so every host is known by its address only.
std::vector<mpa::synth::CapturedFrame> connection(std::uint32_t k) {
  mpa::synth::Scenario s = mpa::synth::base_scenario("report-scale");
  s.initiator.messages = mpa::synth::mixed_messages(1, {64});
  s.responder.messages = mpa::synth::mixed_messages(1, {64});
  const std::uint32_t peer = k + 2;  // 10.0.0.2 onwards
  s.ipv4 = {{{10, static_cast<std::uint8_t>(peer >> 16), static_cast<std::uint8_t>(peer >> 8),
              static_cast<std::uint8_t>(peer)},
             {10, 0, 0, 1}}};
  s.seed = k + 1;
  s.start_time_us += std::uint64_t{k} * 1000;
  return mpa::synth::generate_frames(s);
}

void write_capture(const std::string& path, std::uint32_t connections) {
  std::ofstream out(path, std::ios::binary);
  const std::uint32_t header[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 262144, 1};
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  for (std::uint32_t k = 0; k < connections; ++k) {
    for (const auto& f : connection(k)) {
      const std::uint32_t record[4] = {static_cast<std::uint32_t>(f.time_us / 1000000),
                                       static_cast<std::uint32_t>(f.time_us % 1000000),
                                       static_cast<std::uint32_t>(f.bytes.size()),
                                       static_cast<std::uint32_t>(f.bytes.size())};
      out.write(reinterpret_cast<const char*>(record), sizeof record);
      out.write(reinterpret_cast<const char*>(f.bytes.data()),
                static_cast<std::streamsize>(f.bytes.size()));
    }
  }
  if (!out) throw std::runtime_error("cannot write " + path);
}

struct Run {
  double seconds = 1e9;  // best of the rounds
  long rss_kib = 0;
  std::vector<double> cpu;  // user and system seconds, each round's
  double best_cpu() const { return *std::min_element(cpu.begin(), cpu.end()); }
  double median_cpu() const {
    std::vector<double> sorted = cpu;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
};

double seconds_of(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
}

// One mpa-check run, its output thrown away: seconds, CPU seconds and peak RSS.
void run_mpa_check(const std::string& binary, const std::vector<std::string>& args, Run& best) {
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) throw std::runtime_error("mpa-check failed");
  best.seconds = std::min(best.seconds, seconds);
  best.rss_kib = std::max(best.rss_kib, usage.ru_maxrss);
  best.cpu.push_back(seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime));
}

}  // namespace

int main(int argc, char** argv) {
  std::uint32_t connections = 5000;
  std::string path;
  std::string binary = MPA_CHECK_BINARY;
  int rounds = 5;
  bool write_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--write-only") == 0) {
      write_only = true;
      continue;
    }
    if (i + 1 >= argc) break;
    if (std::strcmp(argv[i], "--connections") == 0)
      connections = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
    if (std::strcmp(argv[i], "--file") == 0) path = argv[i + 1];
    if (std::strcmp(argv[i], "--binary") == 0) binary = argv[i + 1];
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::stoi(argv[i + 1]);
    ++i;
  }
  if (path.empty()) path = fmt::format("{}/report-scale-{}.pcap", MPA_BINARY_DIR, connections);
  if (!std::filesystem::exists(path)) {
    fmt::print("writing {} connections to {} ...\n", connections, path);
    std::fflush(stdout);
    write_capture(path + ".part", connections);
    std::filesystem::rename(path + ".part", path);
  }
  if (write_only) return 0;
  const std::vector<std::pair<std::string, std::vector<std::string>>> rows = {
      {"text", {"--progress", "never", path}},
      {"json", {"--progress", "never", "--format", "json", path}},
      {"json --matrix", {"--progress", "never", "--format", "json", "--matrix", path}},
  };
  std::vector<Run> runs(rows.size());
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t i = 0; i < rows.size(); ++i) run_mpa_check(binary, rows[i].second, runs[i]);
  }
  fmt::print("{} ({} connections, {:.1f} MB), {}: best of {}\n", path, connections,
             static_cast<double>(std::filesystem::file_size(path)) / 1e6, binary, rounds);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    fmt::print(
        "  {:<14} {:7.3f} s  {:6.1f} MiB  {:5.2f}x text;  CPU {:7.3f} s (median {:7.3f} s)  "
        "{:5.2f}x text (median {:5.2f}x)\n",
        rows[i].first, runs[i].seconds, static_cast<double>(runs[i].rss_kib) / 1024,
        runs[i].seconds / runs[0].seconds, runs[i].best_cpu(), runs[i].median_cpu(),
        runs[i].best_cpu() / runs[0].best_cpu(), runs[i].median_cpu() / runs[0].median_cpu());
  }
  return 0;
}
