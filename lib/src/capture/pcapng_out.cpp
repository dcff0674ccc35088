// pcapng written record by record (see pcapng_out.h), in the host's byte order as the
// format allows (the byte-order magic tells readers which).
#include "capture/pcapng_out.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace mpa::capture {
namespace {

constexpr std::uint32_t kSectionHeader = 0x0A0D0D0A;
constexpr std::uint32_t kInterfaceDescription = 1;
constexpr std::uint32_t kEnhancedPacket = 6;
constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr std::uint16_t kOptionTsResol = 9;

void append32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  out.insert(out.end(), p, p + 4);
}
void append16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  out.insert(out.end(), p, p + 2);
}
// Writes the block's total length in its two places (after the type, and last).
void close_block(std::vector<std::uint8_t>& block) {
  const auto length = static_cast<std::uint32_t>(block.size() + 4);
  std::memcpy(block.data() + 4, &length, 4);
  append32(block, length);
}

}  // namespace

PcapngWriter::~PcapngWriter() {
  if (file_) std::fclose(file_);
}

bool PcapngWriter::put(std::span<const std::uint8_t> bytes) {
  if (!failed_ && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    failed_ = true;
  }
  return !failed_;
}

bool PcapngWriter::open(const std::string& path, std::uint32_t link_type, std::uint32_t snaplen,
                        std::string& error) {
  path_ = path;
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    error = fmt::format("{}: cannot write: {}", path, std::strerror(errno));
    return false;
  }
  std::vector<std::uint8_t> shb;
  append32(shb, kSectionHeader);
  append32(shb, 0);  // total length, filled in
  append32(shb, kByteOrderMagic);
  append16(shb, 1);  // version 1.0
  append16(shb, 0);
  append32(shb, 0xFFFFFFFFu);  // section length: not given
  append32(shb, 0xFFFFFFFFu);
  close_block(shb);
  std::vector<std::uint8_t> idb;
  append32(idb, kInterfaceDescription);
  append32(idb, 0);
  append16(idb, static_cast<std::uint16_t>(link_type));
  append16(idb, 0);
  append32(idb, snaplen);
  append16(idb, kOptionTsResol);  // if_tsresol: 10^-9 s
  append16(idb, 1);
  idb.insert(idb.end(), {9, 0, 0, 0});
  append32(idb, 0);  // opt_endofopt
  close_block(idb);
  if (!put(shb) || !put(idb)) {
    error = fmt::format("{}: cannot write: {}", path, std::strerror(errno));
    return false;
  }
  return true;
}

bool PcapngWriter::write(std::uint64_t timestamp_ns, std::uint32_t original_length,
                         std::span<const std::uint8_t> data, std::string& error) {
  std::vector<std::uint8_t> epb;
  epb.reserve(32 + data.size() + 4);
  append32(epb, kEnhancedPacket);
  append32(epb, 0);
  append32(epb, 0);  // interface 0
  append32(epb, static_cast<std::uint32_t>(timestamp_ns >> 32));
  append32(epb, static_cast<std::uint32_t>(timestamp_ns));
  append32(epb, static_cast<std::uint32_t>(data.size()));
  append32(epb, original_length);
  epb.insert(epb.end(), data.begin(), data.end());
  epb.resize((epb.size() + 3) & ~std::size_t{3}, 0);
  close_block(epb);
  if (!put(epb)) {
    error = fmt::format("{}: cannot write: {}", path_, std::strerror(errno));
    return false;
  }
  return true;
}

bool PcapngWriter::flush(std::string& error) {
  if (failed_ || std::fflush(file_) != 0) {
    failed_ = true;
    error = fmt::format("{}: cannot write: {}", path_, std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace mpa::capture
