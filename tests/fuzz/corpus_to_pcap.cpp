// corpus_to_pcap: fuzz inputs as captures, for the plugin's robustness test (tshark with the
// plugin over every corpus file and every past crasher; tests/plugin/plugin_test.py).
//
//   corpus_to_pcap TARGET OUT_DIR FILE...     writes OUT_DIR/<target>-<file name>.pcap
//
// connection:    the segments the connection target feeds the analyzer (connection_input.h),
//                each as an Ethernet/IPv4/TCP frame; octets the input cuts by snapshot
//                length are missing from the record, as in a capture with a small snaplen.
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

void connection(const Bytes& in, PcapFile& pcap) {
  mpa::fuzz::Input input(in);
  const mpa::fuzz::ConnectionHeader header = mpa::fuzz::read_connection_header(input);
  mpa::fuzz::SegmentReader segments(header);
  while (!input.empty()) {
    const mpa::TcpSegment s = segments.next(input).segment;
    // The frame as it was on the wire (the missing octets as zeros), its record cut short.
    Bytes payload(s.payload.size() + s.payload_missing, 0);
    std::copy(s.payload.begin(), s.payload.end(), payload.begin());
    const Bytes frame = mpa::hostile::tcp_frame(ipv4(s.source), s.source.port, ipv4(s.destination),
                                                s.destination.port, s.seq.value(), s.ack.value(),
                                                s.flags, payload.data(), payload.size());
    const std::size_t captured = frame.size() - s.payload_missing;
    pcap.record_with_lengths(
        Bytes(frame.begin(), frame.begin() + static_cast<std::ptrdiff_t>(captured)),
        static_cast<std::uint32_t>(captured), static_cast<std::uint32_t>(frame.size()));
  }
}

void startup_frame(const Bytes& in, PcapFile& pcap) {
  mpa::fuzz::Input input(in);
  const std::size_t piece = std::max<std::size_t>(input.u8(), 1);
  const auto rest = input.rest();
  Connection c(pcap, 40001);
  c.handshake();
  c.data(Connection::kClient, Bytes(rest.begin(), rest.end()), piece);
  c.fin(Connection::kClient);
  c.fin(Connection::kServer);
}

void fpdu_reader(const Bytes& in, PcapFile& pcap) {
  const std::uint8_t options = in.empty() ? 0 : in[0];
  const std::uint8_t flags =
      static_cast<std::uint8_t>(((options & 0x01) ? 0x80 : 0) | ((options & 0x02) ? 0x40 : 0));
  Connection c(pcap, 40002);
  c.handshake();
  c.data(Connection::kClient, mpa::hostile::startup_frame(true, flags, 1));
  c.data(Connection::kServer, mpa::hostile::startup_frame(false, flags, 1));
  c.data(Connection::kClient, in);
  c.fin(Connection::kClient);
  c.fin(Connection::kServer);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: corpus_to_pcap connection|startup_frame|fpdu_reader OUT_DIR FILE...\n");
    return 2;
  }
  const std::string_view target = argv[1];
  void (*convert)(const Bytes&, PcapFile&) = target == "connection"      ? connection
                                             : target == "startup_frame" ? startup_frame
                                             : target == "fpdu_reader"   ? fpdu_reader
                                                                         : nullptr;
  if (convert == nullptr) {
    std::fprintf(stderr, "corpus_to_pcap: unknown target '%s'\n", argv[1]);
    return 2;
  }
  const std::filesystem::path out_dir = argv[2];
  for (int i = 3; i < argc; ++i) {
    const std::filesystem::path file = argv[i];
    std::ifstream stream(file, std::ios::binary);
    if (!stream) {
      std::fprintf(stderr, "corpus_to_pcap: cannot read %s\n", argv[i]);
      return 1;
    }
    const Bytes in((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    PcapFile pcap(
        (out_dir / (std::string(target) + "-" + file.filename().string() + ".pcap")).string());
    convert(in, pcap);
  }
  return 0;
}
