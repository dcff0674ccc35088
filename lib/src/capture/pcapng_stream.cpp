// pcapng read block by block (see pcapng_stream.h; draft-ietf-opsawg-pcapng sections 3-4).
#include "capture/pcapng_stream.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>

#include "mpa/packet_decoder.h"

namespace mpa::capture {
namespace {

constexpr std::uint32_t kSectionHeader = 0x0A0D0D0Au;  // the same in both byte orders
constexpr std::uint32_t kInterfaceDescription = 1;
constexpr std::uint32_t kObsoletePacket = 2;
constexpr std::uint32_t kSimplePacket = 3;
constexpr std::uint32_t kEnhancedPacket = 6;
constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4Du;
constexpr std::uint16_t kOptionEnd = 0;
constexpr std::uint16_t kOptionTsresol = 9;
constexpr std::uint16_t kOptionTsoffset = 14;
// Wireshark's and libpcap's ceiling on one block; a length beyond it is a damaged file.
constexpr std::uint32_t kMaxBlock = 16u << 20;

// LINKTYPE 12 and 14 are raw IP where files were written (DLT_RAW on BSD/OS, OpenBSD);
// Wireshark reads both as raw IP, and so does the pcap path (capture_reader.cpp).
std::uint32_t normalised_link_type(std::uint32_t link) {
  return link == 12 || link == 14 ? link_type::kRaw : link;
}

std::uint64_t to_nanoseconds(std::uint64_t units, const PcapngInterface& interface) {
  std::uint64_t ns = 0;
  if (interface.binary) {
    const unsigned shift = std::min<unsigned>(interface.exponent, 127);
    ns = static_cast<std::uint64_t>((static_cast<unsigned __int128>(units) * 1'000'000'000u) >>
                                    shift);
  } else if (interface.exponent <= 9) {
    std::uint64_t scale = 1;
    for (unsigned i = interface.exponent; i < 9; ++i) scale *= 10;
    ns = units * scale;
  } else {
    std::uint64_t scale = 1;
    for (unsigned i = 9; i < interface.exponent && i < 29; ++i) {
      if (scale > std::numeric_limits<std::uint64_t>::max() / 10) return 0;
      scale *= 10;
    }
    ns = units / scale;
  }
  if (interface.offset_s != 0) {
    const auto offset_ns = static_cast<__int128>(interface.offset_s) * 1'000'000'000;
    const __int128 total = static_cast<__int128>(ns) + offset_ns;
    ns = total < 0 ? 0 : static_cast<std::uint64_t>(total);
  }
  return ns;
}

}  // namespace

std::uint16_t PcapngStream::u16(const std::uint8_t* at) const {
  std::uint16_t v;
  std::memcpy(&v, at, sizeof v);
  return swapped_ ? static_cast<std::uint16_t>((v >> 8) | (v << 8)) : v;
}

std::uint32_t PcapngStream::u32(const std::uint8_t* at) const {
  std::uint32_t v;
  std::memcpy(&v, at, sizeof v);
  return swapped_ ? __builtin_bswap32(v) : v;
}

PcapngStream::Block PcapngStream::read_block(std::string& detail) {
  if (map_ != nullptr) {
    // In place, when the mapping holds the whole block and it is well formed; anything else
    // is read through the stream from the block's offset, which says what is wrong with it.
    const std::uint64_t at = consumed_;
    if (block_in_place(at)) return Block::Ok;
    map_ = nullptr;
    if (fseeko(stream_, static_cast<off_t>(at), SEEK_SET) != 0) {
      detail = fmt::format("read error: {}", std::strerror(errno ? errno : EIO));
      return Block::ReadError;
    }
  }
  body_mapped_ = false;
  std::uint8_t header[12];
  std::uint32_t body_start = 0;  // octets of the body already read (the byte-order magic)
  std::uint32_t total = 0;
  const Block head = read_block_header(header, body_start, total, detail);
  if (head != Block::Ok) return head;
  // The body and the trailing copy of the total length, in one read.
  const std::size_t rest = total - 8 - body_start;
  if (block_.size() < rest + body_start) block_.resize(rest + body_start);
  if (body_start) std::memcpy(block_.data(), header + 8, body_start);
  const std::size_t got_rest = std::fread(block_.data() + body_start, 1, rest, stream_);
  if (got_rest < rest) {
    if (std::ferror(stream_)) {
      detail = fmt::format("read error: {}", std::strerror(errno ? errno : EIO));
      return Block::ReadError;
    }
    detail = fmt::format("the file ends inside a block of {} octets ({} read)", total,
                         8 + body_start + got_rest);
    return Block::Truncated;
  }
  body_size_ = total - 12;
  body_ = block_.data();
  const std::uint32_t trailer = u32(block_.data() + body_size_);
  if (trailer != total) {
    detail = fmt::format("block of type 0x{:x}: total length {} at its start, {} at its end", type_,
                         total, trailer);
    return Block::Malformed;
  }
  consumed_ += total;
  return Block::Ok;
}

bool PcapngStream::block_in_place(std::uint64_t at) {
  if (at >= map_size_ || map_size_ - at < 12) return false;
  const std::uint8_t* block = map_ + at;
  std::uint32_t raw_type, magic;
  std::memcpy(&raw_type, block, 4);
  std::memcpy(&magic, block + 8, 4);
  const bool section = raw_type == kSectionHeader;
  bool swapped = swapped_;
  bool ok = in_section_;
  if (section) {
    swapped = magic == __builtin_bswap32(kByteOrderMagic);
    ok = swapped || magic == kByteOrderMagic;
  }
  std::uint32_t total, type;
  std::memcpy(&total, block + 4, 4);
  std::memcpy(&type, block, 4);
  if (swapped) total = __builtin_bswap32(total), type = __builtin_bswap32(type);
  if (!ok || total < (section ? 16u : 12u) || total % 4 != 0 || total > kMaxBlock ||
      total > map_size_ - at) {
    return false;
  }
  std::uint32_t trailer;
  std::memcpy(&trailer, block + total - 4, 4);
  if (swapped) trailer = __builtin_bswap32(trailer);
  if (trailer != total) return false;
  swapped_ = swapped;
  type_ = section ? kSectionHeader : type;
  body_ = block + 8;
  body_size_ = total - 12;
  body_mapped_ = true;
  consumed_ += total;
  return true;
}

PcapngStream::Block PcapngStream::read_block_header(std::uint8_t* header, std::uint32_t& body_start,
                                                    std::uint32_t& total, std::string& detail) {
  const std::size_t got = std::fread(header, 1, 8, stream_);
  if (got < 8) {
    if (std::ferror(stream_)) {
      detail = fmt::format("read error: {}", std::strerror(errno ? errno : EIO));
      return Block::ReadError;
    }
    if (got == 0) return Block::End;
    detail = fmt::format("the file ends inside a block header ({} of 8 octets)", got);
    return Block::Truncated;
  }
  std::uint32_t raw_type;
  std::memcpy(&raw_type, header, 4);
  if (raw_type == kSectionHeader) {
    // The byte-order magic tells how to read this section, its own length included.
    if (std::fread(header + 8, 1, 4, stream_) < 4) {
      detail = "the file ends inside a Section Header Block";
      return std::ferror(stream_) ? Block::ReadError : Block::Truncated;
    }
    std::uint32_t magic;
    std::memcpy(&magic, header + 8, 4);
    if (magic == kByteOrderMagic) {
      swapped_ = false;
    } else if (magic == __builtin_bswap32(kByteOrderMagic)) {
      swapped_ = true;
    } else {
      detail = fmt::format("Section Header Block with byte-order magic 0x{:08x}", magic);
      return Block::Malformed;
    }
    body_start = 4;
    type_ = kSectionHeader;
  } else {
    if (!in_section_) {
      detail = "no Section Header Block before the first block";
      return Block::Malformed;
    }
    type_ = u32(header);
  }
  total = u32(header + 4);
  if (total < 12 + body_start || total % 4 != 0 || total > kMaxBlock) {
    detail = fmt::format("block of type 0x{:x} claims a total length of {} octets", type_, total);
    return Block::Malformed;
  }
  return Block::Ok;
}

bool PcapngStream::section_header(std::string& detail) {
  if (body_size_ < 16) {
    detail = "Section Header Block too short";
    return false;
  }
  const std::uint16_t major = u16(body_ + 4);
  if (major != 1) {
    detail = fmt::format("pcapng version {}.{} (only 1.x is defined)", major, u16(body_ + 6));
    return false;
  }
  // A new section: its interfaces are numbered from 0 again.
  interfaces_.clear();
  in_section_ = true;
  return true;
}

bool PcapngStream::interface_description(std::string& detail) {
  if (body_size_ < 8) {
    detail = "Interface Description Block too short";
    return false;
  }
  PcapngInterface interface;
  interface.link_type = normalised_link_type(u16(body_));
  interface.snaplen = u32(body_ + 4);
  // Options: code, length, value padded to 32 bits. A damaged option list ends the options.
  std::size_t at = 8;
  while (at + 4 <= body_size_) {
    const std::uint16_t code = u16(body_ + at);
    const std::uint16_t length = u16(body_ + at + 2);
    at += 4;
    if (code == kOptionEnd || at + length > body_size_) break;
    if (code == kOptionTsresol && length >= 1) {
      const std::uint8_t resolution = body_[at];
      interface.binary = (resolution & 0x80) != 0;
      interface.exponent = resolution & 0x7F;
    } else if (code == kOptionTsoffset && length >= 8) {
      // A 64-bit value in the section's byte order: its high half first when big endian.
      const bool big_endian = (std::endian::native == std::endian::big) != swapped_;
      const std::uint64_t first = u32(body_ + at), second = u32(body_ + at + 4);
      const std::uint64_t offset = big_endian ? (first << 32) | second : (second << 32) | first;
      interface.offset_s = static_cast<std::int64_t>(offset);
    }
    at += (length + 3u) & ~3u;
  }
  interfaces_.push_back(interface);
  return true;
}

PcapngStream::Result PcapngStream::packet_from_block(PcapngPacket& packet, std::string& detail) {
  const std::uint8_t* body = body_;
  std::uint32_t interface_id = 0;
  std::uint64_t units = 0;
  std::uint32_t captured = 0;
  std::uint32_t original = 0;
  std::size_t data_at = 20;
  if (type_ == kSimplePacket) {
    if (body_size_ < 4) {
      detail = "Simple Packet Block too short";
      return Result::Malformed;
    }
    original = u32(body);
    data_at = 4;
    captured = std::min(original, static_cast<std::uint32_t>(body_size_ - 4));
  } else {
    if (body_size_ < 20) {
      detail = "packet block too short";
      return Result::Malformed;
    }
    // The obsolete Packet Block has a 16-bit interface id and a 16-bit drops count.
    interface_id = type_ == kObsoletePacket ? u16(body) : u32(body);
    units = (static_cast<std::uint64_t>(u32(body + 4)) << 32) | u32(body + 8);
    captured = u32(body + 12);
    original = u32(body + 16);
    if (captured > body_size_ - 20) {
      detail = fmt::format("captured length {} exceeds its block ({} octets of data)", captured,
                           body_size_ - 20);
      return Result::Malformed;
    }
  }
  if (interface_id >= interfaces_.size()) {
    detail = fmt::format("packet of interface {}, but the section declares {} interface{}",
                         interface_id, interfaces_.size(), interfaces_.size() == 1 ? "" : "s");
    return Result::Malformed;
  }
  const PcapngInterface& interface = interfaces_[interface_id];
  if (type_ == kSimplePacket && interface.snaplen != 0) {
    captured = std::min(captured, interface.snaplen);
  }
  packet.interface_id = interface_id;
  packet.link_type = interface.link_type;
  packet.timestamp_ns = type_ == kSimplePacket ? 0 : to_nanoseconds(units, interface);
  packet.original_length = original;
  packet.data = std::span<const std::uint8_t>(body + data_at, captured);
  packet.mapped = body_mapped_;
  return Result::Packet;
}

bool PcapngStream::open(std::FILE* stream, std::string& detail) {
  stream_ = stream;
  const Block first = read_block(detail);
  if (first == Block::End) {
    detail = "empty file";
    return false;
  }
  if (first != Block::Ok) return false;
  if (type_ != kSectionHeader) {
    detail = "no Section Header Block at the start";
    return false;
  }
  if (!section_header(detail)) return false;
  // Up to the first packet, so that every interface declared before it is known.
  pending_result_ = next(pending_packet_, pending_detail_);
  pending_ = true;
  return true;
}

PcapngStream::Result PcapngStream::next(PcapngPacket& packet, std::string& detail) {
  if (pending_) {
    pending_ = false;
    if (pending_result_ == Result::Packet) packet = pending_packet_;
    detail = pending_detail_;
    return pending_result_;
  }
  for (;;) {
    switch (read_block(detail)) {
      case Block::Ok:
        break;
      case Block::End:
        return Result::End;
      case Block::Truncated:
        return Result::Truncated;
      case Block::Malformed:
        return Result::Malformed;
      case Block::ReadError:
        return Result::ReadError;
    }
    switch (type_) {
      case kSectionHeader:
        if (!section_header(detail)) return Result::Malformed;
        break;
      case kInterfaceDescription:
        if (!interface_description(detail)) return Result::Malformed;
        break;
      case kEnhancedPacket:
      case kSimplePacket:
      case kObsoletePacket:
        return packet_from_block(packet, detail);
      default:  // statistics, name resolution, secrets, custom blocks: nothing for MPA
        break;
    }
  }
}

}  // namespace mpa::capture
