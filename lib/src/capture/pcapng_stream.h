// pcapng read block by block from a stdio stream, as Wireshark reads it (the pcapng draft,
// draft-ietf-opsawg-pcapng): any number of sections, each in its own byte order; any number
// of interfaces per section, each with its own link type, snaplen, time stamp resolution
// (if_tsresol) and offset (if_tsoffset); Enhanced, Simple and obsolete Packet Blocks. libpcap
// 1.10 refuses a second interface whose link type or snaplen differs from the first one's
// (`dumpcap -i lo -i eth0`, a mergecap of Ethernet and Linux cooked captures); this does not.
// Private to mpa_capture (capture_reader.cpp); no libpcap.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

namespace mpa::capture {

struct PcapngInterface {
  std::uint32_t link_type = 0;  // LINKTYPE_* (12 and 14, raw IP elsewhere, read as 101)
  std::uint32_t snaplen = 0;    // 0: no limit
  // Time stamp units: 10^-exponent s, or 2^-exponent s when `binary`.
  std::uint8_t exponent = 6;
  bool binary = false;
  std::int64_t offset_s = 0;  // if_tsoffset
};

struct PcapngPacket {
  std::uint32_t interface_id = 0;
  std::uint32_t link_type = 0;
  std::uint64_t timestamp_ns = 0;
  std::uint32_t original_length = 0;
  std::span<const std::uint8_t> data;  // valid until the next call to next()
  bool mapped = false;                 // data lies in the mapping (see map())
};

class PcapngStream {
 public:
  enum class Result : std::uint8_t { Packet, End, Truncated, Malformed, ReadError };

  // `stream` is positioned at the first Section Header Block (its type already seen by the
  // caller, not consumed). Reads the blocks up to and including the first packet block, so
  // that interfaces() lists every interface declared before the first packet. On failure
  // returns false with `detail` saying why.
  bool open(std::FILE* stream, std::string& detail);
  // Before open(): the whole file mapped at `base` (`stream` reads the same file). Blocks are
  // read there in place, packets point into it; at a block the mapping does not hold whole
  // (the end: the file may have grown; a block cut short), `stream` reads on from its
  // offset, so that every message is the same.
  void map(const std::uint8_t* base, std::size_t size) {
    map_ = base;
    map_size_ = size;
  }

  // The next packet; Truncated/Malformed/ReadError leave `detail` saying why.
  Result next(PcapngPacket& packet, std::string& detail);

  // Interfaces of the current section (before the first packet: all declared so far).
  const std::vector<PcapngInterface>& interfaces() const { return interfaces_; }
  // Octets consumed from the stream.
  std::uint64_t consumed() const { return consumed_; }

 private:
  enum class Block : std::uint8_t { Ok, End, Truncated, Malformed, ReadError };
  Block read_block(std::string& detail);  // one whole block into block_ (type_, body)
  // The block at offset `at` of the mapping, where it holds it whole and well formed.
  bool block_in_place(std::uint64_t at);
  // From the stream: the block's header (12 octets at most into `header`, the byte-order
  // magic of a section's counted in `body_start`) and its total length.
  Block read_block_header(std::uint8_t* header, std::uint32_t& body_start, std::uint32_t& total,
                          std::string& detail);
  Result packet_from_block(PcapngPacket& packet, std::string& detail);
  bool section_header(std::string& detail);
  bool interface_description(std::string& detail);
  std::uint16_t u16(const std::uint8_t* at) const;
  std::uint32_t u32(const std::uint8_t* at) const;

  std::FILE* stream_ = nullptr;
  bool swapped_ = false;  // the current section's byte order is not ours
  bool in_section_ = false;
  std::uint32_t type_ = 0;
  std::vector<std::uint8_t> block_;     // the block's body (without type and lengths), grown only
  const std::uint8_t* body_ = nullptr;  // the current block's body: in block_ or the mapping
  std::size_t body_size_ = 0;           // octets of the current block's body
  bool body_mapped_ = false;
  const std::uint8_t* map_ = nullptr;  // see map(); nullptr once the stream reads on
  std::size_t map_size_ = 0;
  std::vector<PcapngInterface> interfaces_;
  std::uint64_t consumed_ = 0;
  bool pending_ = false;  // open() read the first packet block: next() returns it
  Result pending_result_ = Result::End;
  PcapngPacket pending_packet_;
  std::string pending_detail_;
};

}  // namespace mpa::capture
