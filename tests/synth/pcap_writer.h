// Classic pcap file encoding (LINKTYPE_ETHERNET, microsecond timestamps), byte-exact and
// without libpcap: a global header, then one record per frame cut to the snapshot length.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "bytes.h"

namespace mpa::synth {

struct CapturedFrame {
  std::uint64_t time_us = 0;  // since the Unix epoch
  Bytes bytes;                // the whole frame as it was on the wire
  std::size_t packet = 0;     // which of the conversation's packets (as captured) it carries
};

inline constexpr std::uint32_t kLinktypeEthernet = 1;

// The pcap file image: little-endian magic 0xa1b2c3d4, version 2.4.
Bytes encode_pcap(const std::vector<CapturedFrame>& frames, std::uint32_t snaplen);

// The two headers encode_pcap writes, for writers that stream records one by one or (the
// hostile tests) write records whose lengths lie: the 24-octet file header, and the
// 16-octet record header with the lengths exactly as given.
void put_pcap_file_header(Bytes& out, std::uint32_t snaplen,
                          std::uint32_t link_type = kLinktypeEthernet);
void put_pcap_record_header(Bytes& out, std::uint64_t time_us, std::uint32_t captured_length,
                            std::uint32_t original_length);

// Writes `data` to `path`; throws std::runtime_error on failure.
void write_file(const std::filesystem::path& path, const Bytes& data);

}  // namespace mpa::synth
