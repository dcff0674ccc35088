// pcapng encoding (see pcapng_writer.h).
#include "pcapng_writer.h"

namespace mpa::synth {
namespace {

constexpr std::uint32_t kSectionHeaderBlock = 0x0A0D0D0Au;
constexpr std::uint32_t kInterfaceDescriptionBlock = 1;
constexpr std::uint32_t kEnhancedPacketBlock = 6;
constexpr std::uint16_t kOptionEnd = 0;
constexpr std::uint16_t kOptionTsresol = 9;

// Type, total length, the body padded to 32 bits, the total length again.
void put_block(Bytes& out, std::uint32_t type, Bytes body) {
  body.resize((body.size() + 3) / 4 * 4, 0);
  const auto total = static_cast<std::uint32_t>(body.size() + 12);
  put_le32(out, type);
  put_le32(out, total);
  append(out, body);
  put_le32(out, total);
}

}  // namespace

Bytes encode_pcapng(const std::vector<PcapngPacket>& packets, std::uint32_t snaplen,
                    std::uint16_t link_type) {
  Bytes out;
  Bytes section;
  put_le32(section, 0x1A2B3C4Du);  // byte-order magic
  put_le16(section, 1);            // version 1.0
  put_le16(section, 0);
  put_le32(section, 0xFFFFFFFFu);  // section length: not given
  put_le32(section, 0xFFFFFFFFu);
  put_block(out, kSectionHeaderBlock, std::move(section));

  Bytes interface;
  put_le16(interface, link_type);
  put_le16(interface, 0);  // reserved
  put_le32(interface, snaplen);
  put_le16(interface, kOptionTsresol);
  put_le16(interface, 1);
  put_le32(interface, 9);  // 10^-9 s, and three octets of option padding
  put_le16(interface, kOptionEnd);
  put_le16(interface, 0);
  put_block(out, kInterfaceDescriptionBlock, std::move(interface));

  for (const PcapngPacket& packet : packets) {
    const auto captured = static_cast<std::uint32_t>(packet.bytes.size());
    Bytes epb;
    put_le32(epb, 0);  // interface 0
    put_le32(epb, static_cast<std::uint32_t>(packet.time_ns >> 32));
    put_le32(epb, static_cast<std::uint32_t>(packet.time_ns));
    put_le32(epb, captured);
    put_le32(epb, packet.original_length.value_or(captured));
    append(epb, packet.bytes);
    put_block(out, kEnhancedPacketBlock, std::move(epb));
  }
  return out;
}

}  // namespace mpa::synth
