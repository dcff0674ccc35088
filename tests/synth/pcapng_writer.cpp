// pcapng encoding (see pcapng_writer.h).
#include "pcapng_writer.h"

namespace mpa::synth {
namespace {

constexpr std::uint32_t kSectionHeaderBlock = 0x0A0D0D0Au;
constexpr std::uint32_t kInterfaceDescriptionBlock = 1;
constexpr std::uint32_t kEnhancedPacketBlock = 6;
constexpr std::uint16_t kOptionEnd = 0;
constexpr std::uint16_t kOptionTsresol = 9;

// One section's octets in its own byte order.
struct SectionWriter {
  bool big = false;
  Bytes& out;
  void u16(Bytes& b, std::uint16_t v) const { big ? put_be16(b, v) : put_le16(b, v); }
  void u32(Bytes& b, std::uint32_t v) const { big ? put_be32(b, v) : put_le32(b, v); }
  void u64(Bytes& b, std::uint64_t v) const {
    if (big) {
      put_be64(b, v);
    } else {
      put_le32(b, static_cast<std::uint32_t>(v));
      put_le32(b, static_cast<std::uint32_t>(v >> 32));
    }
  }
  // Type, total length, the body padded to 32 bits, the total length again.
  void block(std::uint32_t type, Bytes body) const {
    body.resize((body.size() + 3) / 4 * 4, 0);
    const auto total = static_cast<std::uint32_t>(body.size() + 12);
    u32(out, type);
    u32(out, total);
    append(out, body);
    u32(out, total);
  }
};

}  // namespace

Bytes encode_pcapng(const std::vector<PcapngPacket>& packets, std::uint32_t snaplen,
                    std::uint16_t link_type) {
  Bytes out;
  const SectionWriter w{false, out};  // (little-endian)
  Bytes section;
  put_le32(section, 0x1A2B3C4Du);  // byte-order magic
  put_le16(section, 1);            // version 1.0
  put_le16(section, 0);
  put_le32(section, 0xFFFFFFFFu);  // section length: not given
  put_le32(section, 0xFFFFFFFFu);
  w.block(kSectionHeaderBlock, std::move(section));

  Bytes interface;
  put_le16(interface, link_type);
  put_le16(interface, 0);  // reserved
  put_le32(interface, snaplen);
  put_le16(interface, kOptionTsresol);
  put_le16(interface, 1);
  put_le32(interface, 9);  // 10^-9 s, and three octets of option padding
  put_le16(interface, kOptionEnd);
  put_le16(interface, 0);
  w.block(kInterfaceDescriptionBlock, std::move(interface));

  for (const PcapngPacket& packet : packets) {
    const auto captured = static_cast<std::uint32_t>(packet.bytes.size());
    Bytes epb;
    put_le32(epb, 0);  // interface 0
    put_le32(epb, static_cast<std::uint32_t>(packet.time_ns >> 32));
    put_le32(epb, static_cast<std::uint32_t>(packet.time_ns));
    put_le32(epb, captured);
    put_le32(epb, packet.original_length.value_or(captured));
    append(epb, packet.bytes);
    w.block(kEnhancedPacketBlock, std::move(epb));
  }
  return out;
}

Bytes encode_pcapng_sections(const std::vector<PcapngSectionSpec>& sections) {
  Bytes out;
  for (const PcapngSectionSpec& section : sections) {
    const SectionWriter w{section.big_endian, out};
    Bytes header;
    w.u32(header, 0x1A2B3C4Du);
    w.u16(header, 1);
    w.u16(header, 0);
    w.u64(header, ~std::uint64_t{0});
    w.block(kSectionHeaderBlock, std::move(header));
    for (const PcapngInterfaceSpec& interface : section.interfaces) {
      Bytes body;
      w.u16(body, interface.link_type);
      w.u16(body, 0);
      w.u32(body, interface.snaplen);
      if (interface.tsresol) {
        w.u16(body, kOptionTsresol);
        w.u16(body, 1);
        put_u8(body, *interface.tsresol);
        body.resize(body.size() + 3, 0);
      }
      if (interface.tsoffset_s) {
        w.u16(body, 14);  // if_tsoffset
        w.u16(body, 8);
        w.u64(body, static_cast<std::uint64_t>(*interface.tsoffset_s));
      }
      w.u16(body, kOptionEnd);
      w.u16(body, 0);
      w.block(kInterfaceDescriptionBlock, std::move(body));
    }
    bool statistics_written = false;
    for (const PcapngRecordSpec& record : section.records) {
      const auto captured = static_cast<std::uint32_t>(record.bytes.size());
      const std::uint32_t original = record.original_length.value_or(captured);
      Bytes body;
      switch (record.kind) {
        case PcapngBlockKind::Simple:
          w.u32(body, original);
          append(body, record.bytes);
          w.block(3, std::move(body));
          break;
        case PcapngBlockKind::ObsoletePacket:
          w.u16(body, static_cast<std::uint16_t>(record.interface));
          w.u16(body, 0);  // drops count
          [[fallthrough]];
        case PcapngBlockKind::Enhanced:
          if (record.kind == PcapngBlockKind::Enhanced) w.u32(body, record.interface);
          w.u32(body, static_cast<std::uint32_t>(record.timestamp >> 32));
          w.u32(body, static_cast<std::uint32_t>(record.timestamp));
          w.u32(body, captured);
          w.u32(body, original);
          append(body, record.bytes);
          w.block(record.kind == PcapngBlockKind::Enhanced ? kEnhancedPacketBlock : 2,
                  std::move(body));
          break;
      }
      if (section.statistics_block && !statistics_written) {
        Bytes isb;
        w.u32(isb, record.interface);
        w.u32(isb, 0);
        w.u32(isb, 0);
        w.block(5, std::move(isb));  // Interface Statistics Block: not a packet
        statistics_written = true;
      }
    }
  }
  return out;
}

}  // namespace mpa::synth
