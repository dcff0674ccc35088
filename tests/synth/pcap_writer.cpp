// Classic pcap encoding (see pcap_writer.h).
#include "pcap_writer.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace mpa::synth {
namespace {

void put_record(Bytes& out, const CapturedFrame& frame, std::uint32_t snaplen) {
  const auto orig_len = static_cast<std::uint32_t>(frame.bytes.size());
  const std::uint32_t incl_len = std::min(orig_len, snaplen);
  put_pcap_record_header(out, frame.time_us, incl_len, orig_len);
  out.insert(out.end(), frame.bytes.begin(), frame.bytes.begin() + incl_len);
}

}  // namespace

void put_pcap_file_header(Bytes& out, std::uint32_t snaplen, std::uint32_t link_type) {
  put_le32(out, 0xA1B2C3D4u);  // magic: microsecond timestamps
  put_le16(out, 2);            // version major
  put_le16(out, 4);            // version minor
  put_le32(out, 0);            // thiszone
  put_le32(out, 0);            // sigfigs
  put_le32(out, snaplen);
  put_le32(out, link_type);
}

void put_pcap_record_header(Bytes& out, std::uint64_t time_us, std::uint32_t captured_length,
                            std::uint32_t original_length) {
  put_le32(out, static_cast<std::uint32_t>(time_us / 1000000));
  put_le32(out, static_cast<std::uint32_t>(time_us % 1000000));
  put_le32(out, captured_length);
  put_le32(out, original_length);
}

Bytes encode_pcap(const std::vector<CapturedFrame>& frames, std::uint32_t snaplen) {
  Bytes out;
  put_pcap_file_header(out, snaplen);
  for (const CapturedFrame& frame : frames) put_record(out, frame, snaplen);
  return out;
}

void write_file(const std::filesystem::path& path, const Bytes& data) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!file) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace mpa::synth
