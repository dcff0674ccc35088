// Builds hostile captures by hand for the hostile tests: pcap file and record headers with
// any lengths, Ethernet/IPv4/TCP frames, and MPA startup frames and FPDUs (RFC 5044 4,
// 7.1.1). Nothing here validates anything: the point is to write what a broken or
// malicious capture holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bytes.h"  // mpa_synth
#include "mpa/crc32c.h"

namespace mpa::hostile {

using synth::Bytes;
// The byte writers of mpa-synth (tests/synth/bytes.h).
using synth::put_be16;
using synth::put_be32;
using synth::put_le32;

// A classic pcap file (little endian, microseconds), written as it is built.
class PcapFile {
 public:
  PcapFile(const std::string& path, std::uint32_t link_type = 1, std::uint32_t snaplen = 262144)
      : file_(std::fopen(path.c_str(), "wb")) {
    if (file_ == nullptr) throw std::runtime_error("cannot write " + path);
    Bytes h;
    put_le32(h, 0xa1b2c3d4);
    h.insert(h.end(), {2, 0, 4, 0});  // version 2.4
    put_le32(h, 0);                    // thiszone
    put_le32(h, 0);                    // sigfigs
    put_le32(h, snaplen);
    put_le32(h, link_type);
    raw(h);
  }
  ~PcapFile() { close(); }
  PcapFile(const PcapFile&) = delete;
  PcapFile& operator=(const PcapFile&) = delete;

  // A record whose header says `caplen` and `wire_length` whatever the bytes that follow.
  void record_with_lengths(const Bytes& data, std::uint32_t caplen, std::uint32_t wire_length) {
    Bytes h;
    ++records_;
    put_le32(h, static_cast<std::uint32_t>(1700000000 + records_ / 1000000));
    put_le32(h, static_cast<std::uint32_t>(records_ % 1000000));
    put_le32(h, caplen);
    put_le32(h, wire_length);
    raw(h);
    raw(data);
  }
  void record(const Bytes& data) {
    record_with_lengths(data, static_cast<std::uint32_t>(data.size()),
                        static_cast<std::uint32_t>(data.size()));
  }
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

 private:
  std::FILE* file_;
  std::uint64_t records_ = 0;
};

namespace tcp {
inline constexpr std::uint8_t kFin = 0x01, kSyn = 0x02, kRst = 0x04, kPsh = 0x08, kAck = 0x10;
}

// Ethernet + IPv4 + TCP (checksums left zero: mpa-check does not verify them).
inline Bytes tcp_frame(std::uint32_t src_ip, std::uint16_t src_port, std::uint32_t dst_ip,
                       std::uint16_t dst_port, std::uint32_t seq, std::uint32_t ack,
                       std::uint8_t flags, const std::uint8_t* payload, std::size_t size) {
  Bytes f;
  f.reserve(54 + size);
  f.insert(f.end(), {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1});
  put_be16(f, 0x0800);
  f.push_back(0x45);
  f.push_back(0);
  put_be16(f, static_cast<std::uint16_t>(20 + 20 + size));
  put_be16(f, 0);       // id
  put_be16(f, 0x4000);  // DF
  f.push_back(64);
  f.push_back(6);
  put_be16(f, 0);
  put_be32(f, src_ip);
  put_be32(f, dst_ip);
  put_be16(f, src_port);
  put_be16(f, dst_port);
  put_be32(f, seq);
  put_be32(f, ack);
  f.push_back(0x50);
  f.push_back(flags);
  put_be16(f, 65535);
  put_be16(f, 0);
  put_be16(f, 0);
  f.insert(f.end(), payload, payload + size);
  return f;
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
      send(side, tcp::kAck | tcp::kPsh, Bytes(payload.begin() + static_cast<std::ptrdiff_t>(at),
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
  std::uint32_t next_seq(Side side) const { return next_[side]; }

 private:
  void write(Side side, std::uint32_t seq, std::uint8_t flags, const Bytes& payload) {
    const std::uint32_t client_ip = 0x0a000001, server_ip = 0x0a000002;
    const Side peer = side == kClient ? kServer : kClient;
    const std::uint32_t ack = (flags & tcp::kAck) ? next_[peer] : 0;
    pcap_.record(side == kClient
                     ? tcp_frame(client_ip, port_, server_ip, 20049, seq, ack, flags, payload.data(), payload.size())
                     : tcp_frame(server_ip, 20049, client_ip, port_, seq, ack, flags, payload.data(), payload.size()));
  }
  PcapFile& pcap_;
  std::uint16_t port_;
  std::uint32_t next_[2];
};

// RFC 5044 7.1.1: key, flags (M C R Res), revision, PD_Length, private data.
inline Bytes startup_frame(bool request, std::uint8_t flags, std::uint8_t revision,
                           const Bytes& private_data, std::uint16_t pd_length_field) {
  const std::string_view key = request ? "MPA ID Req Frame" : "MPA ID Rep Frame";
  Bytes b(key.begin(), key.end());
  b.push_back(flags);
  b.push_back(revision);
  put_be16(b, pd_length_field);
  b.insert(b.end(), private_data.begin(), private_data.end());
  return b;
}
inline Bytes startup_frame(bool request, std::uint8_t flags, std::uint8_t revision,
                           const Bytes& private_data = {}) {
  return startup_frame(request, flags, revision, private_data,
                       static_cast<std::uint16_t>(private_data.size()));
}

// A DDP untagged Send (RFC 5041 4, RFC 5040 4) carrying `payload` octets of filler.
inline Bytes ddp_send(std::size_t payload) {
  Bytes u = {0x41, 0x43, 0, 0, 0, 0};  // DDP untagged, L=1, version 1; RDMAP v1 Send
  put_be32(u, 0);                          // queue
  put_be32(u, 1);                          // MSN
  put_be32(u, 0);                          // MO
  for (std::size_t i = 0; i < payload; ++i) u.push_back(static_cast<std::uint8_t>(i * 13));
  return u;
}

// An FPDU without markers (RFC 5044 4.1): ULPDU_Length, ULPDU, pad, CRC (zero when off).
inline Bytes fpdu(const Bytes& ulpdu, bool crc) {
  Bytes b;
  put_be16(b, static_cast<std::uint16_t>(ulpdu.size()));
  b.insert(b.end(), ulpdu.begin(), ulpdu.end());
  while (b.size() % 4 != 0) b.push_back(0);  // pad
  const std::uint32_t value = crc ? crc32c(b) : 0;
  put_le32(b, value);  // RFC 5044 4.4: least significant octet first
  return b;
}

}  // namespace mpa::hostile
