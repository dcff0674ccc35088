// Builds hostile captures for the hostile tests: pcap files whose record headers may say
// any lengths, TCP connections whose segments go anywhere in sequence space, and MPA
// startup frames and FPDUs (RFC 5044 4, 7.1.1). The octets come from mpa-synth's writers
// (tests/synth: pcap_writer.h, frame_builder.h, startup_frame_builder.h, fpdu_framer.h,
// ulpdu_builder.h); nothing here validates anything: the point is to write what a broken or
// malicious capture holds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bytes.h"  // mpa_synth
#include "fpdu_framer.h"
#include "fragmentation.h"
#include "frame_builder.h"
#include "pcap_writer.h"
#include "startup_frame_builder.h"
#include "ulpdu_builder.h"

namespace mpa::hostile {

using synth::Bytes;

// A classic pcap file (little endian, microseconds), written as it is built.
class PcapFile {
 public:
  PcapFile(const std::string& path, std::uint32_t link_type = synth::kLinktypeEthernet,
           std::uint32_t snaplen = 262144)
      : file_(std::fopen(path.c_str(), "wb")) {
    if (file_ == nullptr) throw std::runtime_error("cannot write " + path);
    Bytes h;
    synth::put_pcap_file_header(h, snaplen, link_type);
    raw(h);
  }
  ~PcapFile() { close(); }
  PcapFile(const PcapFile&) = delete;
  PcapFile& operator=(const PcapFile&) = delete;

  // A record whose header says `caplen` and `wire_length` whatever the bytes that follow.
  // Record n is stamped 1700000000 s + n us.
  void record_with_lengths(const Bytes& data, std::uint32_t caplen, std::uint32_t wire_length) {
    Bytes h;
    ++records_;
    synth::put_pcap_record_header(h, kFirstTimeUs + records_, caplen, wire_length);
    raw(h);
    raw(data);
  }
  void record(const Bytes& data) {
    if (wrap) {
      const Bytes wrapped = wrap(data);
      record_with_lengths(wrapped, static_cast<std::uint32_t>(wrapped.size()),
                          static_cast<std::uint32_t>(wrapped.size()));
      return;
    }
    record_with_lengths(data, static_cast<std::uint32_t>(data.size()),
                        static_cast<std::uint32_t>(data.size()));
  }
  // Set: every record() is written as wrap(frame) (a tunnel around the capture).
  std::function<Bytes(const Bytes&)> wrap;
  void raw(const Bytes& data) {
    if (!data.empty() && std::fwrite(data.data(), 1, data.size(), file_) != data.size()) {
      throw std::runtime_error("short write");
    }
  }
  void close() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
  }
  std::uint64_t records() const { return records_; }

  static constexpr std::uint64_t kFirstTimeUs = 1'700'000'000'000'000;

 private:
  std::FILE* file_;
  std::uint64_t records_ = 0;
};

namespace tcp {
inline constexpr std::uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10;
}

// Ethernet + IPv4 + TCP, as mpa-synth frames a segment (checksums right, DF set).
inline Bytes tcp_frame(std::uint32_t src_ip, std::uint16_t src_port, std::uint32_t dst_ip,
                       std::uint16_t dst_port, std::uint32_t seq, std::uint32_t ack,
                       std::uint8_t flags, const std::uint8_t* payload, std::size_t size) {
  const auto address = [](std::uint32_t ip) {
    return std::array<std::uint8_t, 4>{
        static_cast<std::uint8_t>(ip >> 24), static_cast<std::uint8_t>(ip >> 16),
        static_cast<std::uint8_t>(ip >> 8), static_cast<std::uint8_t>(ip)};
  };
  synth::LinkConfig link;  // the sender is endpoint 0
  link.mac = {{{0x02, 0, 0, 0, 0, 1}, {0x02, 0, 0, 0, 0, 2}}};
  link.ipv4 = {address(src_ip), address(dst_ip)};
  link.port = {src_port, dst_port};
  synth::TcpPacket packet;
  packet.dir = synth::Dir::Initiator;
  packet.seq = seq;
  packet.ack = ack;
  packet.flags = flags;
  packet.window = 65535;
  if (size != 0) packet.payload.assign(payload, payload + size);
  return synth::build_frame(packet, link, /*ip_id=*/0);
}

// One TCP connection between 10.0.0.1:port and 10.0.0.2:20049, written into a PcapFile.
// Sequence numbers advance by what each side sends unless a segment is sent `at` a given
// sequence number.
class Connection {
 public:
  Connection(PcapFile& pcap, std::uint16_t client_port, std::uint32_t client_isn = 1000,
             std::uint32_t server_isn = 500000)
      : pcap_(pcap), port_(client_port), next_{client_isn, server_isn} {}

  enum Side { kClient = 0, kServer = 1 };

  void handshake() {
    send(kClient, tcp::kSyn, {});
    send(kServer, tcp::kSyn | tcp::kAck, {});
    send(kClient, tcp::kAck, {});
  }
  // Sends `payload` from `side` in segments of at most `mss` octets.
  void data(Side side, const Bytes& payload, std::size_t mss = 1448) {
    for (std::size_t at = 0; at < payload.size(); at += mss) {
      const std::size_t n = std::min(mss, payload.size() - at);
      send(side, tcp::kAck | tcp::kPsh,
           Bytes(payload.begin() + static_cast<std::ptrdiff_t>(at),
                 payload.begin() + static_cast<std::ptrdiff_t>(at + n)));
    }
  }
  // A segment at an explicit sequence number; the side's next sequence number moves only
  // forward.
  void segment_at(Side side, std::uint32_t seq, std::uint8_t flags, const Bytes& payload) {
    write(side, seq, flags, payload);
    const std::uint32_t end = seq + static_cast<std::uint32_t>(payload.size()) +
                              ((flags & (tcp::kSyn | tcp::kFin)) ? 1u : 0u);
    if (static_cast<std::int32_t>(end - next_[side]) > 0) next_[side] = end;
  }
  void send(Side side, std::uint8_t flags, const Bytes& payload) {
    segment_at(side, next_[side], flags, payload);
  }
  void fin(Side side) { send(side, tcp::kFin | tcp::kAck, {}); }
  // `payload` from `side` in one segment, its IPv4 packet cut into fragments as `cut` says
  // (identification `id`): the frames of the fragments captured are written.
  void send_fragmented(Side side, const Bytes& payload, const synth::IpFragmentation& cut,
                       std::uint16_t id) {
    for (const Bytes& f :
         synth::fragment_frame(frame(side, next_[side], tcp::kAck, payload), cut, id)) {
      pcap_.record(f);
    }
    next_[side] += static_cast<std::uint32_t>(payload.size());
  }
  std::uint32_t next_seq(Side side) const { return next_[side]; }

 private:
  Bytes frame(Side side, std::uint32_t seq, std::uint8_t flags, const Bytes& payload) const {
    const std::uint32_t client_ip = 0x0a000001, server_ip = 0x0a000002;
    const Side peer = side == kClient ? kServer : kClient;
    const std::uint32_t ack = (flags & tcp::kAck) ? next_[peer] : 0;
    return side == kClient ? tcp_frame(client_ip, port_, server_ip, 20049, seq, ack, flags,
                                       payload.data(), payload.size())
                           : tcp_frame(server_ip, 20049, client_ip, port_, seq, ack, flags,
                                       payload.data(), payload.size());
  }
  void write(Side side, std::uint32_t seq, std::uint8_t flags, const Bytes& payload) {
    pcap_.record(frame(side, seq, flags, payload));
  }
  PcapFile& pcap_;
  std::uint16_t port_;
  std::uint32_t next_[2];
};

// RFC 5044 7.1.1: key, flags (M C R Res), revision, PD_Length, private data.
inline Bytes startup_frame(bool request, std::uint8_t flags, std::uint8_t revision,
                           const Bytes& private_data, std::uint16_t pd_length_field) {
  synth::StartupFrameSpec spec;
  spec.kind = request ? synth::FrameKind::Request : synth::FrameKind::Reply;
  synth::set_flags(spec, flags);
  spec.revision = revision;
  spec.pd_length_field = pd_length_field;
  return synth::build_startup_frame_with_private_data(spec, private_data);
}
inline Bytes startup_frame(bool request, std::uint8_t flags, std::uint8_t revision,
                           const Bytes& private_data = {}) {
  return startup_frame(request, flags, revision, private_data,
                       static_cast<std::uint16_t>(private_data.size()));
}

// A whole RDMA Write in one tagged DDP segment (RFC 5041 4.2, RFC 5040 4: T=1, L=1, DDP and
// RDMAP version 1, STag 0x1000, TO 0) carrying `payload` octets of filler. Tagged: the same
// octets may be sent any number of times (an untagged Send carries its MSN, which a sender
// raises by one per message: RFC 5041 5.1).
inline Bytes ddp_send(std::size_t payload) {
  Bytes out = {0xC1, 0x40, 0x00, 0x00, 0x10, 0x00, 0, 0, 0, 0, 0, 0, 0, 0};
  for (std::size_t i = 0; i < payload; ++i) out.push_back(static_cast<std::uint8_t>(i * 13));
  return out;
}

// An FPDU without markers (RFC 5044 4.1): ULPDU_Length, ULPDU, pad, CRC (zero when off).
inline Bytes fpdu(const Bytes& ulpdu, bool crc) {
  return synth::FpduFramer(/*markers=*/false, crc).frame(ulpdu).bytes;
}

}  // namespace mpa::hostile
