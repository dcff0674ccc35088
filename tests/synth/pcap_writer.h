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
};

inline constexpr std::uint32_t kLinktypeEthernet = 1;

// The pcap file image: little-endian magic 0xa1b2c3d4, version 2.4.
Bytes encode_pcap(const std::vector<CapturedFrame>& frames, std::uint32_t snaplen);

// Writes `data` to `path`; throws std::runtime_error on failure.
void write_file(const std::filesystem::path& path, const Bytes& data);

}  // namespace mpa::synth
