// pcapng file encoding, byte-exact and without libpcap: one Section Header Block, one
// Interface Description Block (nanosecond timestamps, if_tsresol 9) and one Enhanced
// Packet Block per packet, little endian. The generator writes classic pcap
// (pcap_writer.h); this is for tests of pcapng reading.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "bytes.h"
#include "pcap_writer.h"

namespace mpa::synth {

struct PcapngPacket {
  std::uint64_t time_ns = 0;                     // since the Unix epoch
  Bytes bytes;                                   // as captured
  std::optional<std::uint32_t> original_length;  // on the wire; default: bytes.size()
};

Bytes encode_pcapng(const std::vector<PcapngPacket>& packets, std::uint32_t snaplen = 262144,
                    std::uint16_t link_type = kLinktypeEthernet);

}  // namespace mpa::synth
