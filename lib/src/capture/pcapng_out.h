// A pcapng file written as records are read (mpa-check -i -w): one section, one interface
// (the capture's link type and snaplen, nanosecond time stamps: if_tsresol 9), an Enhanced
// Packet Block a record, in the order read, so that frame N of the file is record N of the
// report. Private to mpa_capture (capture_reader.cpp); no libpcap.
#pragma once

#include <cstdint>
#include <cstdio>
#include <span>
#include <string>

namespace mpa::capture {

class PcapngWriter {
 public:
  PcapngWriter() = default;
  PcapngWriter(const PcapngWriter&) = delete;
  PcapngWriter& operator=(const PcapngWriter&) = delete;
  ~PcapngWriter();

  // Creates `path` with its section and interface headers; false (with `error` naming the
  // file) when it cannot.
  bool open(const std::string& path, std::uint32_t link_type, std::uint32_t snaplen,
            std::string& error);
  // One packet; false (with `error`) once a write failed.
  bool write(std::uint64_t timestamp_ns, std::uint32_t original_length,
             std::span<const std::uint8_t> data, std::string& error);
  // Flushes what was written (the file stays a valid pcapng after every flush).
  bool flush(std::string& error);

 private:
  bool put(std::span<const std::uint8_t> bytes);
  std::FILE* file_ = nullptr;
  std::string path_;
  bool failed_ = false;
};

}  // namespace mpa::capture
