// Reading captures record by record: pcap and pcapng files or standard input, plain or
// compressed (gzip, zstd), as Wireshark reads them: pcap through libpcap, pcapng block by
// block with per-interface link types, snaplens and time stamp resolutions (libpcap 1.10
// refuses interfaces that differ); live captures through libpcap. Part of mpa_capture, the
// only piece of the library that links libpcap.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mpa/packet.h"

namespace mpa {

struct CaptureRecord {
  std::uint64_t number = 0;  // 1-based record (frame) number
  std::uint64_t timestamp_ns = 0;
  std::uint32_t original_length = 0;
  std::uint32_t link_type = 0;         // LINKTYPE_* of the interface that captured it
  std::span<const std::uint8_t> data;  // captured bytes; valid until the next call to next()
  // The octets were read in place (a pcap file's chunks, a plain pcapng file's mapping):
  // after hold_mapped(), they stay valid past next() until release() passes them.
  bool mapped = false;
  // Where `data` can be read again (CaptureReader::read_again): data[0] lies at offset `at` of
  // the file `source` reads. Set for the records of a plain pcap or pcapng file read in place;
  // nullptr for any other.
  const OctetSource* source = nullptr;
  std::uint64_t at = 0;
};

// libpcap's statistics of a live capture (pcap_stats): packets the kernel received and
// dropped (its buffer full: the reader was too slow), and dropped by the interface.
struct LiveStats {
  std::uint64_t received = 0;
  std::uint64_t dropped = 0;
  std::uint64_t interface_dropped = 0;
};

enum class ReadStatus : std::uint8_t { Record, End, Error };

class CaptureReader : public OctetSource {
 public:
  // Opens `path` ("-" for standard input). On failure, returns nullptr and sets `error`
  // to a message naming the file.
  static std::unique_ptr<CaptureReader> open(const std::string& path, std::string& error);

  // A live capture on a network interface (libpcap: packets delivered within 200 ms, in a
  // 32 MiB ring; nanosecond time stamps where the interface offers them), with an optional
  // BPF filter. `duration_ms`:
  // the capture ends after that long (0: until stop()).
  struct LiveOptions {
    std::string interface;
    std::string filter;
    std::uint32_t snaplen = 262144;
    std::uint64_t duration_ms = 0;
  };
  static std::unique_ptr<CaptureReader> open_live(const LiveOptions& options, std::string& error);
  // Ends the capture: next() returns End from now on (a live capture, or standard input
  // interrupted). Async-signal-safe: meant for a SIGINT handler.
  void stop();
  bool live() const;
  ~CaptureReader() override;
  CaptureReader(const CaptureReader&) = delete;
  CaptureReader& operator=(const CaptureReader&) = delete;

  // Next record. On Error, error() names the file and the record number that could not be
  // read; records before it were returned normally.
  ReadStatus next(CaptureRecord& record);
  // Also writes every record next() returns to `path`, as pcapng (one interface: the first
  // one's link type and snaplen; nanosecond time stamps), so that frame N of that file is
  // record N here (mpa-check -i -w). The file is flushed at least once a second and at the
  // end. False (with `error` naming the file) when it cannot be created; a later write that
  // fails ends the reading with Error (the record that was read is still returned).
  bool keep(const std::string& path, std::string& error);
  // LINKTYPE_* and snaplen of the first interface (pcapng: of the first section). A record's
  // own interface may differ in a pcapng file: CaptureRecord::link_type says which it is.
  std::uint32_t link_type() const;
  std::uint32_t snaplen() const;
  // The link types of the interfaces declared before the first record (pcap and live: one).
  const std::vector<std::uint32_t>& link_types() const;
  // A pcap regular file is read in place from chunks of its octets (a compressed one: of its
  // decompressed octets), a plain pcapng file from its mapping; their records say so
  // (CaptureRecord::mapped). By default the octets of a record are given back (a chunk for
  // reuse, the mapping to the system) at the next call to next(). hold_mapped():
  // they stay until release(offset) passes them, offset being bytes_read() after the last
  // record no longer looked at (a reader on another thread hands records over in batches).
  void hold_mapped();
  void release(std::uint64_t offset);
  // The octets at offset `at` of the file (CaptureRecord::at) read again, with pread(2): safe
  // on another thread while this one reads on. False where the records are not read from a
  // plain file in place, or the file no longer holds them.
  bool read_again(std::uint64_t at, std::span<std::uint8_t> out) const override;
  // Whether the input is a regular file (plain or compressed), read as fast as it can be:
  // not live, not a pipe, whose records must reach the analysis as soon as they arrive.
  bool regular_file() const;
  // A live capture's statistics so far (pcap_stats); nullopt for files or when libpcap
  // cannot tell. Call it from the thread that reads.
  std::optional<LiveStats> live_stats() const;
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }
  // Bytes of the file consumed so far (for progress), and the file size (0 if unknown).
  std::uint64_t bytes_read() const;
  std::uint64_t file_size() const { return file_size_; }

 private:
  CaptureReader() = default;
  ReadStatus read_next(CaptureRecord& record);
  // The source that reads the records (one class per way of reading: capture/capture_source.h).
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string path_;
  std::string error_;
  std::uint64_t file_size_ = 0;
};

// The libpcap that reads captures ("libpcap version 1.10.3 (with TPACKET_V3)").
std::string libpcap_version();

}  // namespace mpa
