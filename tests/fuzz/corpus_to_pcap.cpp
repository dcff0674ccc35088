// corpus_to_pcap: fuzz inputs as captures, for the plugin's robustness test (tshark with the
// plugin over every corpus file and every past crasher; tests/plugin/plugin_test.py).
//
//   corpus_to_pcap TARGET OUT_DIR FILE...     writes OUT_DIR/<target>-<file name>.pcap
//   corpus_to_pcap --batch TARGET OUT.pcap FILE...
//                  writes every input into the one capture OUT.pcap, input n (from 0) on
//                  client ports of its own (below, plus 4n for connection, plus n for the
//                  others), and prints "FIRST_FRAME LAST_FRAME FILE" per input (FIRST_FRAME
//                  above LAST_FRAME when the input gave no frame): one tshark start-up for
//                  many inputs, its problems mapped back to their input by frame.
//
// connection:    the segments the connection target feeds the analyzer (connection_input.h),
//                each as an Ethernet/IPv4/TCP frame (client port 40000 + its connection); octets
//                the input cuts by snapshot length are missing from the record, as in a capture
//                with a small snaplen.
// startup_frame: the octets after the piece size as the initiator's stream, in pieces of
//                that size, after a handshake.
// fpdu_reader:   an MPA Request and Reply whose M and C flags are the input's options, then
//                the input as the initiator's stream in 1448-octet segments.
// capture inputs are captures already; the test reads them as they are.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "connection_input.h"
#include "fuzz_support.h"
#include "pcap_builder.h"

namespace {

using mpa::hostile::Bytes;
using mpa::hostile::Connection;
using mpa::hostile::PcapFile;

std::uint32_t ipv4(const mpa::Endpoint& e) {
  return (std::uint32_t{e.address.bytes[0]} << 24) | (std::uint32_t{e.address.bytes[1]} << 16) |
         (std::uint32_t{e.address.bytes[2]} << 8) | e.address.bytes[3];
}

// `index`: the input's place in a batch (0 alone), which moves its client ports.
void connection(const Bytes& in, PcapFile& pcap, std::uint16_t index) {
  mpa::fuzz::Input input(in);
  const mpa::fuzz::ConnectionHeader header = mpa::fuzz::read_connection_header(input);
  mpa::fuzz::SegmentReader segments(header);
  while (!input.empty()) {
    const mpa::TcpSegment s = segments.next(input).segment;
    // The frame as it was on the wire (the missing octets as zeros), its record cut short.
    Bytes payload(s.payload.size() + s.payload_missing, 0);
    std::copy(s.payload.begin(), s.payload.end(), payload.begin());
    // The connection target's client ports are 40000-40003 (connection_input.h); its
    // server's, 4420, stays.
    const auto port = [index](std::uint16_t p) {
      return p >= 40000 ? static_cast<std::uint16_t>(p + 4 * index) : p;
    };
    const Bytes frame = mpa::hostile::tcp_frame(
        ipv4(s.source), port(s.source.port), ipv4(s.destination), port(s.destination.port),
        s.seq.value(), s.ack.value(), s.flags, payload.data(), payload.size());
    const std::size_t captured = frame.size() - s.payload_missing;
    pcap.record_with_lengths(
        Bytes(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(captured)),
        static_cast<std::uint32_t>(captured), static_cast<std::uint32_t>(frame.size()));
  }
}

void startup_frame(const Bytes& in, PcapFile& pcap, std::uint16_t index) {
  mpa::fuzz::Input input(in);
  const std::size_t piece = std::max<std::size_t>(input.u8(), 1);
  const auto rest = input.rest();
  Connection c(pcap, static_cast<std::uint16_t>(40001 + index));
  c.handshake();
  c.data(Connection::kClient, Bytes(rest.begin(), rest.end()), piece);
  c.fin(Connection::kClient);
  c.fin(Connection::kServer);
}

void fpdu_reader(const Bytes& in, PcapFile& pcap, std::uint16_t index) {
  const std::uint8_t options = in.empty() ? 0 : in[0];
  const std::uint8_t flags =
      static_cast<std::uint8_t>(((options & 0x01) ? 0x80 : 0) | ((options & 0x02) ? 0x40 : 0));
  Connection c(pcap, static_cast<std::uint16_t>(40002 + index));
  c.handshake();
  c.data(Connection::kClient, mpa::hostile::startup_frame(true, flags, 1));
  c.data(Connection::kServer, mpa::hostile::startup_frame(false, flags, 1));
  c.data(Connection::kClient, in);
  c.fin(Connection::kClient);
  c.fin(Connection::kServer);
}

bool read_input(const char* path, Bytes& in) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    std::fprintf(stderr, "corpus_to_pcap: cannot read %s\n", path);
    return false;
  }
  in.assign(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool batch = argc > 1 && std::string_view(argv[1]) == "--batch";
  if (batch) {
    ++argv;
    --argc;
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: corpus_to_pcap [--batch] connection|startup_frame|fpdu_reader "
                 "OUT_DIR|OUT.pcap FILE...\n");
    return 2;
  }
  const std::string_view target = argv[1];
  void (*convert)(const Bytes&, PcapFile&, std::uint16_t) = target == "connection" ? connection
                                                            : target == "startup_frame"
                                                                ? startup_frame
                                                            : target == "fpdu_reader" ? fpdu_reader
                                                                                      : nullptr;
  if (convert == nullptr) {
    std::fprintf(stderr, "corpus_to_pcap: unknown target '%s'\n", argv[1]);
    return 2;
  }
  Bytes in;
  if (batch) {
    // Client ports up to 40003 + 4 * index stay below 65536.
    if (argc - 3 > 6000) {
      std::fprintf(stderr, "corpus_to_pcap: at most 6000 inputs in a batch\n");
      return 2;
    }
    PcapFile pcap(argv[2]);
    for (int i = 3; i < argc; ++i) {
      if (!read_input(argv[i], in)) return 1;
      const std::uint64_t first = pcap.records() + 1;
      convert(in, pcap, static_cast<std::uint16_t>(i - 3));
      std::printf("%llu %llu %s\n", static_cast<unsigned long long>(first),
                  static_cast<unsigned long long>(pcap.records()), argv[i]);
    }
    return 0;
  }
  const std::filesystem::path out_dir = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::filesystem::path file = argv[i];
    if (!read_input(argv[i], in)) return 1;
    PcapFile pcap(
        (out_dir / (std::string(target) + "-" + file.filename().string() + ".pcap")).string());
    convert(in, pcap, 0);
  }
  return 0;
}
