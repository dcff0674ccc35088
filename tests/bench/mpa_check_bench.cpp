// Benchmark of the whole mpa-check pipeline (issue: mpa-check performance; issue 24: speed at
// the limit). Builds a capture of at least 1 GiB (hundreds of MPA connections, markers and CRC
// on, mixed FPDU sizes, MTU 1500 and 9000) with the mpa-synth library, and its gzip and zstd
// copies (gzip -6 and zstd -3, as the command-line tools write them), then prints in one run,
// from page cache, for each of the three files:
//   - its floor: for the plain file a libpcap loop that reads every record and touches every
//     byte; for a compressed one the decompressor alone (the library mpa-check uses, output
//     thrown away, as `zcat | wc -c`; zlib's own beside ISA-L's for gzip),
//   - mpa-check's throughput over it (in octets of the capture, uncompressed), its ratio to
//     the floor, and mpa-check's peak RSS;
// and mpa-check with --read-threads 1 on the plain file, and CaptureReader's reading alone.
// Then the rows shaped like the field (issue 44): see field_rows.
// Run: build/tests/bench/mpa_check_bench [--size-mib N] [--file PATH] [--binary MPA_CHECK]
//      [--rows first|field|all|a] [--against OLD] [--field-size-mib N] [--write-soak PATH]
//      [--rounds N] [--write-only]
// Each figure is the best of N rounds (5 by default), a floor and mpa-check side by side in
// each: on a shared machine whose host takes a core away now and then, a run that needs both
// cores at once is slowed more often than a floor on one, and five rounds give both a fair
// chance at a quiet moment (three gave the plain file 0.80-1.05 of its floor in the same hour).
// (not part of ctest; --file may be a pcapng, which the libpcap loop reads too).
// --write-only writes the capture and exits: tests/bench/live_rate.sh (issue 24) replays one
// onto a veth pair to find the rate at which `mpa-check -i` loses nothing.
#include <fcntl.h>
#include <fmt/format.h>
#include <pcap/pcap.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if MPA_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <zlib.h>
#include <zstd.h>

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

// Writes one pcap record of `frame` at `time_us`.
void write_record(std::ofstream& out, const std::vector<std::uint8_t>& frame, std::uint64_t time_us,
                  std::uint64_t& written) {
  const std::uint32_t record[4] = {
      static_cast<std::uint32_t>(time_us / 1000000), static_cast<std::uint32_t>(time_us % 1000000),
      static_cast<std::uint32_t>(frame.size()), static_cast<std::uint32_t>(frame.size())};
  out.write(reinterpret_cast<const char*>(record), sizeof record);
  out.write(reinterpret_cast<const char*>(frame.data()),
            static_cast<std::streamsize>(frame.size()));
  written += sizeof record + frame.size();
}

// `f` with the template's client port (the SYN's source port) replaced by `port`, so that
// copies of one template are connections of their own. Ethernet + IPv4 without options: the
// TCP ports are at 34 and 36.
std::vector<std::uint8_t> with_client_port(const std::vector<mpa::synth::CapturedFrame>& frames,
                                           const mpa::synth::CapturedFrame& f, std::uint16_t port) {
  std::vector<std::uint8_t> frame = f.bytes;
  const std::uint16_t client =
      static_cast<std::uint16_t>(frames[0].bytes[34] << 8 | frames[0].bytes[35]);
  for (int at : {34, 36}) {
    if (frame.size() >= 38 && (frame[at] << 8 | frame[at + 1]) == client) {
      frame[at] = static_cast<std::uint8_t>(port >> 8);
      frame[at + 1] = static_cast<std::uint8_t>(port);
    }
  }
  return frame;
}

std::ofstream pcap_file(const std::string& path, std::uint64_t& written) {
  std::ofstream out(path, std::ios::binary);
  const std::uint32_t header[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 262144, 1};
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  written = sizeof header;
  return out;
}

// Writes copies of the templates, each copy on its own TCP ports, one after the other, until
// `bytes` are written (the first row: few connections at a time, mostly large FPDUs).
void write_capture(const std::string& path, std::uint64_t bytes) {
  std::vector<std::vector<mpa::synth::CapturedFrame>> templates;
  for (std::uint64_t i = 0; i < 4; ++i)
    templates.push_back(conversation(i % 2 ? 8960 : 1460, i + 1));
  std::uint64_t written = 0;
  std::ofstream out = pcap_file(path, written);
  std::uint32_t copy = 0;
  while (written < bytes) {
    for (const auto& frames : templates) {
      const std::uint16_t port = static_cast<std::uint16_t>(10000 + copy++ % 50000);
      for (const auto& f : frames)
        write_record(out, with_client_port(frames, f, port), f.time_us, written);
    }
  }
}

// The rows shaped like the field (issue 44, item 1): many connections open at once, their
// segments interleaved as a switch's mirror port sees them.
struct FieldShape {
  std::vector<std::vector<mpa::synth::CapturedFrame>> templates;
  std::size_t open_at_once = 400;
  std::uint64_t bytes = 0;        // stop when this many octets are written (0: no bound)
  std::uint64_t connections = 0;  // or when this many connections have ended (0: no bound)
};

// Keeps `open_at_once` connections going, each a copy of a template on its own client port;
// the next frame comes from a connection picked at random (fixed seed), and a connection that
// ends is replaced by a new copy. Times rise by 5 us per frame.
void write_interleaved(const std::string& path, const FieldShape& shape) {
  struct Slot {
    std::size_t which = 0;  // template
    std::size_t next = 0;   // frame
    std::uint16_t port = 0;
  };
  std::uint64_t written = 0, started = 0, state = 0x9e3779b97f4a7c15ull;
  const auto random = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const auto fresh = [&] {
    const std::uint64_t n = started++;
    return Slot{n % shape.templates.size(), 0, static_cast<std::uint16_t>(10000 + n % 50000)};
  };
  std::ofstream out = pcap_file(path, written);
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < shape.open_at_once; ++i) slots.push_back(fresh());
  std::uint64_t time_us = 1704067200000000ull;
  while (!slots.empty()) {
    if (shape.bytes && written >= shape.bytes) break;
    const std::size_t pick = random() % slots.size();
    Slot& slot = slots[pick];
    const auto& frames = shape.templates[slot.which];
    write_record(out, with_client_port(frames, frames[slot.next], slot.port), time_us += 5,
                 written);
    if (++slot.next < frames.size()) continue;
    if (!shape.connections || started < shape.connections) {
      slot = fresh();
    } else {
      slots[pick] = slots.back();
      slots.pop_back();
    }
  }
}

// Row (a): 16 templates of interleaved connections, ULPDUs spread from 64 to 9000 octets
// (log-uniform), markers on half of them, CRC on all, MSS for MTU 1500 on half and 9000 on the
// rest; 400 open at once.
FieldShape many_connections(std::uint64_t bytes) {
  FieldShape shape;
  shape.bytes = bytes;
  shape.open_at_once = 400;
  std::uint64_t state = 7;
  for (std::uint64_t i = 0; i < 16; ++i) {
    std::vector<std::size_t> sizes;
    for (int k = 0; k < 64; ++k) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const double u = static_cast<double>(state >> 11) / 9007199254740992.0;
      sizes.push_back(static_cast<std::size_t>(64.0 * std::pow(9000.0 / 64.0, u)));
    }
    mpa::synth::Scenario s = mpa::synth::base_scenario("field");
    mpa::synth::set_revision(s, 2);
    s.initiator.frame.m = s.responder.frame.m = (i / 2) % 2 == 1;
    s.initiator.frame.c = true;
    s.initiator.tcp.mss = s.responder.tcp.mss = i % 2 ? 8960 : 1460;
    s.seed = 100 + i;
    s.initiator.messages = mpa::synth::mixed_messages(300, sizes);
    s.responder.messages = mpa::synth::mixed_messages(150, sizes);
    shape.templates.push_back(mpa::synth::generate_frames(s));
  }
  return shape;
}

// Row (b): 100,000 short connections (startup, three small messages each way, FIN), with
// `open_at_once` of them open at once.
FieldShape short_connections(std::size_t open_at_once) {
  FieldShape shape;
  shape.connections = 100000;
  shape.open_at_once = open_at_once;
  for (std::uint64_t i = 0; i < 4; ++i) {
    mpa::synth::Scenario s = mpa::synth::base_scenario("short");
    s.initiator.frame.m = s.responder.frame.m = i % 2 == 1;
    s.initiator.frame.c = true;
    s.seed = 200 + i;
    s.initiator.messages = mpa::synth::mixed_messages(3, {64, 200, 1000});
    s.responder.messages = mpa::synth::mixed_messages(3, {100, 64, 600});
    shape.templates.push_back(mpa::synth::generate_frames(s));
  }
  return shape;
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

// mpa-check's own reading alone: CaptureReader (pcap read in place from chunks, libpcap at
// any record it reads otherwise; pcapng_stream for pcapng) touching every byte as the libpcap
// loop does.
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

// The decompressors alone: every octet of `path` decompressed into a reused 1 MiB buffer
// and thrown away (what `zcat FILE | wc -c` measures, without the pipe). Returns the seconds
// and sets `octets` to the decompressed size.
double zlib_seconds(const std::string& path, std::uint64_t& octets) {
  const auto start = Clock::now();
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) throw std::runtime_error("cannot open " + path);
  gzbuffer(in, 1u << 18);
  std::vector<char> out(1u << 20);
  octets = 0;
  for (int n; (n = gzread(in, out.data(), static_cast<unsigned>(out.size()))) > 0;) octets += n;
  gzclose(in);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

#if MPA_HAVE_ISAL
double isal_seconds(const std::string& path, std::uint64_t& octets) {
  const auto start = Clock::now();
  FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::uint8_t> input(1u << 18), out(1u << 20);
  inflate_state state;
  isal_inflate_init(&state);
  state.crc_flag = ISAL_GZIP;
  octets = 0;
  std::size_t got = 0;
  while ((got = std::fread(input.data(), 1, input.size(), in)) > 0) {
    state.next_in = input.data();
    state.avail_in = static_cast<std::uint32_t>(got);
    while (state.avail_in > 0) {
      state.next_out = out.data();
      state.avail_out = static_cast<std::uint32_t>(out.size());
      if (isal_inflate(&state) != ISAL_DECOMP_OK) throw std::runtime_error("igzip failed");
      octets += out.size() - state.avail_out;
      if (state.block_state == ISAL_BLOCK_FINISH) {  // another member may follow
        const std::uint8_t* rest = state.next_in;
        const std::uint32_t left = state.avail_in;
        isal_inflate_init(&state);
        state.crc_flag = ISAL_GZIP;
        state.next_in = const_cast<std::uint8_t*>(rest);
        state.avail_in = left;
      }
    }
  }
  std::fclose(in);
  return std::chrono::duration<double>(Clock::now() - start).count();
}
#endif

double zstd_seconds(const std::string& path, std::uint64_t& octets) {
  const auto start = Clock::now();
  FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::uint8_t> input(1u << 18), out(1u << 20);
  ZSTD_DCtx* z = ZSTD_createDCtx();
  octets = 0;
  std::size_t got = 0;
  while ((got = std::fread(input.data(), 1, input.size(), in)) > 0) {
    ZSTD_inBuffer zin{input.data(), got, 0};
    while (zin.pos < zin.size) {
      ZSTD_outBuffer zout{out.data(), out.size(), 0};
      if (ZSTD_isError(ZSTD_decompressStream(z, &zout, &zin)))
        throw std::runtime_error("zstd failed");
      octets += zout.pos;
    }
  }
  ZSTD_freeDCtx(z);
  std::fclose(in);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Whether `binary` has --read-threads (an older build, given with --binary, has not: it is
// run without it, on one thread).
bool has_read_threads(const std::string& binary) {
  const std::string line =
      fmt::format("'{}' --help 2>/dev/null | grep -q -- --read-threads", binary);
  return std::system(line.c_str()) == 0;
}

double run_mpa_check(const std::string& binary, const std::string& path, long& max_rss_kib,
                     const char* read_threads = nullptr) {
  static std::map<std::string, bool> threads_option;  // (per binary: --against's may differ)
  const auto known = threads_option.try_emplace(binary, false);
  if (known.second) known.first->second = has_read_threads(binary);
  if (!known.first->second) read_threads = nullptr;
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    if (read_threads) {
      execl(binary.c_str(), binary.c_str(), "--no-summary", "--progress", "never", "--read-threads",
            read_threads, path.c_str(), nullptr);
    } else {
      execl(binary.c_str(), binary.c_str(), "--no-summary", "--progress", "never", path.c_str(),
            nullptr);
    }
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

// Compresses `path` into `packed` with `command` (gzip -6, zstd -3) when it is not there yet.
void compressed_copy(const std::string& path, const std::string& packed, const char* command) {
  if (std::filesystem::exists(packed) &&
      std::filesystem::last_write_time(packed) >= std::filesystem::last_write_time(path)) {
    return;
  }
  fmt::print("writing {} ...\n", packed);
  std::fflush(stdout);
  const std::string line = fmt::format("{} < '{}' > '{}.part' && mv '{}.part' '{}'", command, path,
                                       packed, packed, packed);
  if (std::system(line.c_str()) != 0) throw std::runtime_error("failed: " + line);
}

// Runs `write` in a child process, so that the generator's memory never counts in this
// process's resident set: each mpa-check run is forked from it, and a process's peak RSS
// (ru_maxrss) includes what it held before exec: written in this process, a run gave 29.6 MiB
// for every row; written by a child, 13.5, 9.2, 20.4 and 23.5 MiB.
void write_in_child(const std::string& path, const std::function<void()>& write) {
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    try {
      write();
    } catch (const std::exception& e) {
      fmt::print(stderr, "mpa_check_bench: {}\n", e.what());
      _exit(1);
    }
    _exit(0);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    throw std::runtime_error("writing the capture failed: " + path);
  }
}

struct Row {
  std::string name;
  std::string floor_name;
  double floor = 1e9;  // best seconds
  double mpa = 1e9;
  long rss_kib = 0;
};

// The rows shaped like the field (issue 44, item 1), each beside its own floor in the same
// round: (a) 400 interleaved connections, small and large FPDUs, markers on half; (b) 100,000
// short connections, 10,000 open at once; and the memory an open connection costs, from (b)
// against the same connections 100 at a time.
void field_rows(const std::string& binary, int rounds, std::uint64_t field_mib) {
  const std::string a = fmt::format(MPA_BINARY_DIR "/bench-field-{}mib-v1.pcap", field_mib);
  const std::string b = MPA_BINARY_DIR "/bench-short-10000-open-v1.pcap";
  const std::string b100 = MPA_BINARY_DIR "/bench-short-100-open-v1.pcap";
  // The templates are made in the child that writes, not here (see write_in_child).
  if (!std::filesystem::exists(a)) {
    fmt::print("writing {} ...\n", a);
    write_in_child(a, [&] { write_interleaved(a + ".part", many_connections(field_mib << 20)); });
    std::filesystem::rename(a + ".part", a);
  }
  for (const auto& [path, open] :
       {std::pair{b, std::size_t{10000}}, std::pair{b100, std::size_t{100}}}) {
    if (std::filesystem::exists(path)) continue;
    fmt::print("writing {} ...\n", path);
    write_in_child(path, [&] { write_interleaved(path + ".part", short_connections(open)); });
    std::filesystem::rename(path + ".part", path);
  }
  std::uint64_t checksum = 0;
  Row many{"(a) 400 open, 64-9000 B", "libpcap read-and-touch loop"};
  Row short_lived{"(b) 100,000, 10,000 open", "libpcap read-and-touch loop"};
  long rss_100_open = 0;
  for (int round = 0; round < rounds; ++round) {
    long r = 0;
    many.floor = std::min(many.floor, pcap_loop_seconds(a, checksum));
    many.mpa = std::min(many.mpa, run_mpa_check(binary, a, r, "2"));
    many.rss_kib = std::max(many.rss_kib, r);
    short_lived.floor = std::min(short_lived.floor, pcap_loop_seconds(b, checksum));
    short_lived.mpa = std::min(short_lived.mpa, run_mpa_check(binary, b, r, "2"));
    short_lived.rss_kib = std::max(short_lived.rss_kib, r);
    run_mpa_check(binary, b100, r, "2");
    rss_100_open = std::max(rss_100_open, r);
  }
  fmt::print("\nrows shaped like the field (best of {} rounds, GB/s of capture octets)\n", rounds);
  fmt::print("{:<27} {:>9} {:>7} {:>10} {:>6} {:>9}\n", "input", "size", "floor", "mpa-check",
             "ratio", "peak RSS");
  for (const auto& [row, path] : {std::pair{&many, a}, std::pair{&short_lived, b}}) {
    const double size = static_cast<double>(std::filesystem::file_size(path));
    fmt::print("{:<27} {:>5.0f} MiB {:>7.2f} {:>10.2f} {:>6.2f} {:>5.1f} MiB\n", row->name,
               size / 1048576.0, size / row->floor / 1e9, size / row->mpa / 1e9,
               row->floor / row->mpa, static_cast<double>(row->rss_kib) / 1024.0);
  }
  fmt::print(
      "memory per open connection: {:.2f} KiB ((b)'s peak RSS {:.1f} MiB less {:.1f} MiB for the "
      "same connections 100 at a time, over 9,900)\n",
      static_cast<double>(short_lived.rss_kib - rss_100_open) / 9900.0,
      static_cast<double>(short_lived.rss_kib) / 1024.0,
      static_cast<double>(rss_100_open) / 1024.0);
}

// Row (a) alone (--rows a), for quick work on its cost: its floor and mpa-check, and, with
// --against OLD, another build's mpa-check over the same file in the same rounds (each round
// runs the floor, this build and OLD one after another, so that a busy machine slows them
// alike). Writes the file first where it is missing, as field_rows does.
void row_a(const std::string& binary, const std::string& against, int rounds,
           std::uint64_t field_mib) {
  const std::string a = fmt::format(MPA_BINARY_DIR "/bench-field-{}mib-v1.pcap", field_mib);
  if (!std::filesystem::exists(a)) {
    fmt::print("writing {} ...\n", a);
    write_in_child(a, [&] { write_interleaved(a + ".part", many_connections(field_mib << 20)); });
    std::filesystem::rename(a + ".part", a);
  }
  std::uint64_t checksum = 0;
  Row mine{"(a) 400 open, 64-9000 B", "libpcap read-and-touch loop"};
  Row old{"(a), --against", "libpcap read-and-touch loop"};
  for (int round = 0; round < rounds; ++round) {
    long r = 0;
    mine.floor = std::min(mine.floor, pcap_loop_seconds(a, checksum));
    mine.mpa = std::min(mine.mpa, run_mpa_check(binary, a, r, "2"));
    mine.rss_kib = std::max(mine.rss_kib, r);
    if (against.empty()) continue;
    old.mpa = std::min(old.mpa, run_mpa_check(against, a, r, "2"));
    old.rss_kib = std::max(old.rss_kib, r);
  }
  old.floor = mine.floor;
  const double size = static_cast<double>(std::filesystem::file_size(a));
  fmt::print("\nrow (a) (best of {} rounds, GB/s of capture octets)\n", rounds);
  fmt::print("{:<27} {:>9} {:>7} {:>10} {:>6} {:>9}\n", "input", "size", "floor", "mpa-check",
             "ratio", "peak RSS");
  for (const Row* row : {&mine, &old}) {
    if (row == &old && against.empty()) break;
    fmt::print("{:<27} {:>5.0f} MiB {:>7.2f} {:>10.2f} {:>6.2f} {:>5.1f} MiB\n", row->name,
               size / 1048576.0, size / row->floor / 1e9, size / row->mpa / 1e9,
               row->floor / row->mpa, static_cast<double>(row->rss_kib) / 1024.0);
  }
  if (!against.empty()) fmt::print("(--against {})\n", against);
}

// The soak (tests/bench/soak.sh): 100,000 short connections (startup, one small message each
// way), 1,000 open at once; half close with FINs, half never close (a live run must let go of
// them: --idle-timeout). Replayed in a loop with tcpreplay --unique-ip, each loop new flows.
FieldShape soak_connections() {
  FieldShape shape;
  shape.connections = 100000;
  shape.open_at_once = 1000;
  for (std::uint64_t i = 0; i < 4; ++i) {
    mpa::synth::Scenario s = mpa::synth::base_scenario("soak");
    s.initiator.frame.c = true;
    s.seed = 300 + i;
    s.initiator.messages = mpa::synth::mixed_messages(1, {64});
    s.responder.messages = mpa::synth::mixed_messages(1, {100});
    if (i % 2) s.close = mpa::synth::Ending::None;
    shape.templates.push_back(mpa::synth::generate_frames(s));
  }
  return shape;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t size_mib = 1100;
  std::string path = MPA_BINARY_DIR "/bench-capture.pcap";
  // --binary: another mpa-check (an older build) measured against the same floors.
  std::string binary = MPA_CHECK_BINARY;
  int rounds = 5;
  std::uint64_t field_mib = 1024;
  // --rows first|field|all: the first row (and its compressed copies), the rows shaped like the
  // field, or both (the default); --rows a: row (a) alone (see row_a).
  std::string rows = "all";
  std::string against;  // --against OLD: with --rows a, another build beside this one
  // --write-only: write the capture (when it is not there yet) and exit: live_rate.sh
  // replays it onto a veth pair.
  bool write_only = false;
  // (An option it does not know, or one missing its value, runs nothing: a full run writes
  // gigabytes and takes minutes.)
  constexpr const char* kUsage =
      "usage: mpa_check_bench [--size-mib N] [--file PATH] [--binary MPA_CHECK]\n"
      "       [--rows first|field|all|a] [--against OLD] [--field-size-mib N]\n"
      "       [--write-soak PATH] [--rounds N] [--write-only]\n";
  const auto known = [](const char* o) {
    for (const char* k : {"--size-mib", "--file", "--binary", "--rounds", "--field-size-mib",
                          "--rows", "--against", "--write-soak"}) {
      if (std::strcmp(o, k) == 0) return true;
    }
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      fmt::print("{}", kUsage);
      return 0;
    }
    if (std::strcmp(argv[i], "--write-only") == 0) {
      write_only = true;
      continue;
    }
    if (!known(argv[i]) || i + 1 >= argc) {
      fmt::print(stderr, "mpa_check_bench: {} {}\n{}", argv[i],
                 known(argv[i]) ? "needs a value" : "is not an option", kUsage);
      return 2;
    }
    if (std::strcmp(argv[i], "--size-mib") == 0) size_mib = std::stoull(argv[i + 1]);
    if (std::strcmp(argv[i], "--file") == 0) path = argv[i + 1];
    if (std::strcmp(argv[i], "--binary") == 0) binary = argv[i + 1];
    if (std::strcmp(argv[i], "--rounds") == 0) rounds = std::stoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--field-size-mib") == 0) field_mib = std::stoull(argv[i + 1]);
    if (std::strcmp(argv[i], "--rows") == 0) rows = argv[i + 1];
    if (std::strcmp(argv[i], "--against") == 0) against = argv[i + 1];
    if (std::strcmp(argv[i], "--write-soak") == 0) {
      const std::string soak = argv[i + 1];
      write_in_child(soak, [&] { write_interleaved(soak, soak_connections()); });
      return 0;
    }
    ++i;
  }
  if (rows == "a" && !write_only) {
    row_a(binary, against, rounds, field_mib);
    return 0;
  }
  if (rows == "field" && !write_only) {
    field_rows(binary, rounds, field_mib);
    return 0;
  }
  const std::uint64_t bytes = size_mib << 20;
  if (!std::filesystem::exists(path) || std::filesystem::file_size(path) < bytes) {
    fmt::print("writing {} MiB capture to {} ...\n", size_mib, path);
    write_in_child(path, [&] { write_capture(path, bytes); });
  }
  if (write_only) return 0;
  const std::string gz = path + ".gz", zst = path + ".zst";
  compressed_copy(path, gz, "gzip -6 -c");
  compressed_copy(path, zst, "zstd -3 -q -c");
  const double size = static_cast<double>(std::filesystem::file_size(path));
  std::uint64_t checksum = 0, octets = 0;
  pcap_loop_seconds(path, checksum);  // warm the page cache
  zlib_seconds(gz, octets);
  zstd_seconds(zst, octets);
  Row plain{"plain, --read-threads 2", "libpcap read-and-touch loop"};
  Row gzip{"gzip -6, --read-threads 2", "decompressor alone"};
  Row zstd{"zstd -3, --read-threads 2", "decompressor alone"};
  Row single{"plain, --read-threads 1", "libpcap read-and-touch loop"};
  double best_reader = 1e9, best_zlib = 1e9;
  std::uint64_t reader_checksum = 0;
  for (int round = 0; round < rounds; ++round) {
    // Each floor beside its mpa-check run, in the same round, so that a busy machine slows both.
    long r = 0;
    plain.floor = std::min(plain.floor, pcap_loop_seconds(path, checksum));
    plain.mpa = std::min(plain.mpa, run_mpa_check(binary, path, r, "2"));
    plain.rss_kib = std::max(plain.rss_kib, r);
    single.mpa = std::min(single.mpa, run_mpa_check(binary, path, r, "1"));
    single.rss_kib = std::max(single.rss_kib, r);
    best_reader = std::min(best_reader, capture_reader_loop_seconds(path, reader_checksum));
    best_zlib = std::min(best_zlib, zlib_seconds(gz, octets));
#if MPA_HAVE_ISAL
    gzip.floor = std::min(gzip.floor, isal_seconds(gz, octets));
    gzip.floor_name = "ISA-L igzip alone";
#else
    gzip.floor = best_zlib;
    gzip.floor_name = "zlib alone";
#endif
    gzip.mpa = std::min(gzip.mpa, run_mpa_check(binary, gz, r, "2"));
    gzip.rss_kib = std::max(gzip.rss_kib, r);
    zstd.floor = std::min(zstd.floor, zstd_seconds(zst, octets));
    zstd.floor_name = "libzstd alone";
    zstd.mpa = std::min(zstd.mpa, run_mpa_check(binary, zst, r, "2"));
    zstd.rss_kib = std::max(zstd.rss_kib, r);
  }
  single.floor = plain.floor;
  const auto gbs = [size](double seconds) { return size / seconds / 1e9; };
  fmt::print(
      "capture {:.0f} MiB ({}), gzip copy {:.0f} MiB, zstd copy {:.0f} MiB; {} cores; "
      "best of {} rounds, GB/s of capture octets\n",
      size / 1048576.0, path, std::filesystem::file_size(gz) / 1048576.0,
      std::filesystem::file_size(zst) / 1048576.0, std::thread::hardware_concurrency(), rounds);
  fmt::print("{:<27} {:<28} {:>7} {:>10} {:>6} {:>9}\n", "input", "floor", "floor", "mpa-check",
             "ratio", "peak RSS");
  for (const Row* row : {&plain, &single, &gzip, &zstd}) {
    fmt::print("{:<27} {:<28} {:>7.2f} {:>10.2f} {:>6.2f} {:>5.1f} MiB\n", row->name,
               row->floor_name, gbs(row->floor), gbs(row->mpa), row->floor / row->mpa,
               static_cast<double>(row->rss_kib) / 1024.0);
  }
  fmt::print(
      "(gzip through zlib alone: {:.2f} GB/s; CaptureReader's reading alone, touching "
      "every byte: {:.2f} GB/s, sum {} / {}; {})\n",
      gbs(best_zlib), gbs(best_reader), reader_checksum % 1000, checksum % 1000, binary);
  if (rows == "all") field_rows(binary, rounds, field_mib);
  return 0;
}
