// The ways of reading a capture's records, one class each behind CaptureSource, and the
// factory that picks one by what the input holds (capture_reader.h is their public face).
// Private to mpa_capture.
#pragma once

#include <pcap/pcap.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "capture/decompressor.h"
#include "mpa/capture_reader.h"

namespace mpa::capture {

// What every source of one reader shares: the file (its path, and the name messages give it),
// the flag CaptureReader::stop() sets, and the reader that records read in place name as
// their source (CaptureRecord::source): set where they can be read again (a plain regular
// file, OpenedCapture::again_fd), else nullptr.
struct SourceContext {
  std::string path;
  std::string name;
  std::atomic<bool> stop{false};
  const OctetSource* again = nullptr;
};

// What a source's next() found: a record, the end, an error (the message names the file and
// the record), or that it cannot give the next record as libpcap would: its hand_over() gives
// the source that reads on from there.
enum class Next : std::uint8_t { Record, End, Error, HandOver };

class CaptureSource {
 public:
  virtual ~CaptureSource() = default;
  virtual Next next(CaptureRecord& record, std::string& error) = 0;
  // After HandOver: the libpcap source that reads on from the record this one could not give
  // (nullptr with `error` set where there is none).
  virtual std::unique_ptr<CaptureSource> hand_over(std::string& error) {
    (void)error;
    return nullptr;
  }
  // Bytes of the file consumed so far (for progress, and release()).
  virtual std::uint64_t bytes_read() const = 0;
  virtual std::uint32_t snaplen() const = 0;
  // Octets read in place stay until release(offset) passes them (CaptureReader::hold_mapped).
  virtual void hold() {}
  virtual void release(std::uint64_t offset) { (void)offset; }
  virtual std::optional<LiveStats> live_stats() const { return std::nullopt; }
  // stop() of a live capture: libpcap's loop ends too. Async-signal-safe.
  virtual void interrupt() {}
};

// A capture file libpcap opened: its handle, the buffer of its stream (which outlives the
// stream) and, of a compressed file, the decompressing stream's state (owned by the FILE that
// libpcap holds), to say why it could not be read to its end.
struct PcapFile {
  std::unique_ptr<char[]> buffer;
  pcap_t* pcap = nullptr;
  Decompressor* decompressor = nullptr;

  PcapFile() = default;
  ~PcapFile() {
    if (pcap != nullptr) pcap_close(pcap);
  }
  PcapFile(const PcapFile&) = delete;
  PcapFile& operator=(const PcapFile&) = delete;
};

// A pcap file read in place: its octets (a compressed file's decompressed octets) are read
// into chunks and its records parsed where they lie (offsets are in the file, or in the
// decompressed stream). The back chunk is the one read; the others hold records that may
// still be looked at, and are given back (kept for reuse) once released. A chunk's records
// end where the next one starts (which begins with the record it could not hold).
struct Chunk {
  std::unique_ptr<std::uint8_t[]> octets;  // its own octets, or else:
  std::shared_ptr<std::uint8_t[]> ring;    // the zstd ring it lies in, kept for it
  const std::uint8_t* data = nullptr;      // octets.get() or a place in the ring
  std::uint64_t start = 0;                 // the stream offset of data[0]
  std::size_t size = 0;                    // octets read into it
};

class Chunks {
 public:
  std::deque<Chunk> list;
  std::vector<std::unique_ptr<std::uint8_t[]>> spare;

  // The chunks wholly before `offset` are given back (their octets kept for reuse).
  void give_back(std::uint64_t offset) {
    while (list.size() > 1 && list[1].start <= offset) {
      if (list.front().octets) spare.push_back(std::move(list.front().octets));
      list.pop_front();
    }
  }
  // The octets of the last chunk from `record_at` on: the record it could not hold whole,
  // which the next chunk starts with (none before the first chunk).
  std::span<const std::uint8_t> unfinished_record(std::uint64_t record_at) const {
    if (list.empty()) return {};
    const Chunk& last = list.back();
    return {last.data + (record_at - last.start),
            static_cast<std::size_t>(last.start + last.size - record_at)};
  }
};

// What libpcap's reading of a file starts from where a source read in place hands over: the
// records read so far, and the chunks that hold those still looked at.
struct PcapPosition {
  std::uint32_t link_type = 0;
  std::uint64_t records = 0;
  std::uint64_t bytes_seen = 0;
  Chunks held;
};

// The input as the factory opened it: a FILE of its octets (decompressed where it is
// compressed), with the buffer stdio reads it through (which outlives the FILE).
struct Input {
  FILE* stream = nullptr;
  std::unique_ptr<char[]> buffer;
  Compression compression = Compression::None;
  std::array<std::uint8_t, 4> head{};  // its first octets (of the decompressed ones)
  Decompressor* decompressor = nullptr;
  bool regular = false;
  std::uint64_t file_size = 0;  // a plain regular file's (0: unknown)
};

// What the factory found the input to be, beside the source that reads it.
struct OpenedCapture {
  std::unique_ptr<CaptureSource> source;
  // The interfaces declared before the first record (pcap, live: the one).
  std::vector<std::uint32_t> link_types;
  std::uint64_t file_size = 0;  // 0: unknown (a pipe, a compressed file)
  bool regular = false;
  // A plain regular file whose records read in place can be read again (read_again): its
  // descriptor.
  int again_fd = -1;
};

// Opens the file `context` names ("-" for standard input) and picks the source by what it
// holds, as PcapPlusPlus's IFileReaderDevice::getReader does: pcapng, or pcap read in place
// (plain, compressed, or a zstd file into a ring), or by libpcap. `in_place` false: no record
// is read in place (from chunks, or a mapped file). False with `error` naming the file.
bool open_capture(const SourceContext& context, bool in_place, OpenedCapture& opened,
                  std::string& error);

// The file `context` names, opened by libpcap (no record read in place).
bool open_pcap_file(const SourceContext& context, std::unique_ptr<PcapFile>& file,
                    std::string& error);

// Sources the factory makes (pcap_in_place.cpp, libpcap_source.cpp, pcapng_source.cpp).
// pcapng from `input` (its stream and buffer taken), its blocks read in place from a mapping
// where `in_place` and it is a plain regular file; the interfaces declared before the first
// record into `opened`. False with `error` naming the file.
bool open_pcapng_source(const SourceContext& context, bool in_place, Input& input,
                        OpenedCapture& opened, std::string& error);
std::unique_ptr<CaptureSource> make_libpcap_source(const SourceContext& context,
                                                   std::unique_ptr<PcapFile> file,
                                                   PcapPosition position);
// libpcap reads the compressed file again from its start, past the `position.records` read,
// and reads on from there (see PcapInPlace::read_again_with_libpcap). nullptr with `error`
// naming the record where it cannot; `position` is taken only where it can.
std::unique_ptr<CaptureSource> make_libpcap_source_reading_again(const SourceContext& context,
                                                                 PcapPosition& position,
                                                                 std::string& error);
// In place: a plain pcap file read with pread(2); a compressed one from its decompressor; a
// zstd one whose window is small enough decompressed into a ring (nullptr where it is not).
std::unique_ptr<CaptureSource> make_plain_pcap_source(const SourceContext& context,
                                                      std::unique_ptr<PcapFile> file,
                                                      bool nanosecond);
std::unique_ptr<CaptureSource> make_decompressed_pcap_source(const SourceContext& context,
                                                             std::unique_ptr<PcapFile> file,
                                                             bool nanosecond);
std::unique_ptr<CaptureSource> make_zstd_ring_source(const SourceContext& context,
                                                     std::unique_ptr<PcapFile>& file,
                                                     bool nanosecond);

// A live capture on a network interface (CaptureReader::open_live); its link type into
// `link_type`. nullptr with `error` naming the interface.
std::unique_ptr<CaptureSource> open_live_source(const SourceContext& context,
                                                const CaptureReader::LiveOptions& options,
                                                std::uint32_t& link_type, std::string& error);

// What libpcap says of a file or an interface, as the sources give it (libpcap_source.cpp):
// the link type (LINKTYPE_*, not DLT_*); the snapshot length; the record pcap_next_ex gave
// (`nanosecond`: libpcap gives its time stamps' fractions in nanoseconds); why pcap_next_ex
// returned `result` (neither a record nor the end) at record `number`.
std::uint32_t pcap_link_type(pcap_t* pcap);
std::uint32_t pcap_snaplen(pcap_t* pcap);
void pcap_record(const pcap_pkthdr& header, const std::uint8_t* data, std::uint32_t link_type,
                 bool nanosecond, std::uint64_t number, CaptureRecord& record);
std::string pcap_error(const std::string& name, std::uint64_t number, int result, pcap_t* pcap,
                       const Decompressor* decompressor);

}  // namespace mpa::capture
