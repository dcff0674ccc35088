// pcapng file encoding, byte-exact and without libpcap. encode_pcapng: one Section Header
// Block, one Interface Description Block (nanosecond timestamps, if_tsresol 9) and one
// Enhanced Packet Block per packet, little endian. encode_pcapng_sections: what `dumpcap -i
// lo -i eth0` and mergecap write and libpcap 1.10 refuses: several sections, each in either
// byte order, several interfaces of their own link type, snaplen, if_tsresol and if_tsoffset,
// Enhanced, Simple and obsolete Packet Blocks. The generator writes classic pcap
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

struct PcapngInterfaceSpec {
  std::uint16_t link_type = kLinktypeEthernet;
  std::uint32_t snaplen = 262144;
  std::optional<std::uint8_t> tsresol;     // absent: the default, microseconds
  std::optional<std::int64_t> tsoffset_s;  // if_tsoffset
};

enum class PcapngBlockKind : std::uint8_t { Enhanced, Simple, ObsoletePacket };

struct PcapngRecordSpec {
  std::uint32_t interface = 0;
  PcapngBlockKind kind = PcapngBlockKind::Enhanced;
  std::uint64_t timestamp = 0;                   // in the interface's units
  Bytes bytes;                                   // as captured
  std::optional<std::uint32_t> original_length;  // default: bytes.size()
};

struct PcapngSectionSpec {
  bool big_endian = false;
  std::vector<PcapngInterfaceSpec> interfaces;  // written after the section header
  std::vector<PcapngRecordSpec> records;        // then these, in order
  bool statistics_block = false;                // an Interface Statistics Block between records
};

Bytes encode_pcapng_sections(const std::vector<PcapngSectionSpec>& sections);

}  // namespace mpa::synth
