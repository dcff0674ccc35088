// pcap files read in place from chunks of their octets (see capture_source.h): a plain file
// with pread(2), a compressed one from its decompressor, a zstd one decompressed into a ring.
// Where a record cannot be given as libpcap gives it, libpcap reads on (hand_over).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "capture/capture_source.h"
#include "capture/decompressor.h"
#include "capture/zstd_blocks.h"

namespace mpa::capture {
namespace {

// The records of a pcap file in this machine's byte order, version 2.4, with a snapshot
// length, parsed where they lie in chunks of its octets (read past the file header libpcap
// read). How a chunk is filled is the derived class's.
class PcapInPlace : public CaptureSource {
 public:
  PcapInPlace(const SourceContext& context, std::unique_ptr<PcapFile> file, bool nanosecond)
      : context_(context),
        file_(std::move(file)),
        records_nano_(nanosecond),
        snapshot_length_(static_cast<std::uint32_t>(pcap_snapshot(file_->pcap))) {
    position_.link_type = pcap_link_type(file_->pcap);
  }
  Next next(CaptureRecord& record, std::string& error) final;
  std::uint64_t bytes_read() const final { return record_at_; }
  std::uint32_t snaplen() const final { return snapshot_length_; }
  void hold() final { hold_ = true; }
  void release(std::uint64_t offset) final { position_.held.give_back(offset); }

 protected:
  // Starts a chunk at record_at_: the octets of the last one from there on, then as many as
  // the stream gives. False when the stream gave none.
  virtual bool next_chunk() = 0;
  // The stream failed: where it gives no more, that is no end.
  virtual bool stream_failed() const { return std::ferror(pcap_file(file_->pcap)) != 0; }
  // libpcap reads the compressed file again from its start and takes over at the record that
  // could not be read in place: past the records read, it gives what it would have given (an
  // unusual record, a record cut short, a damaged stream: its record and its message). The
  // chunks stay until the records in them are released.
  std::unique_ptr<CaptureSource> read_again_with_libpcap(std::string& error);

  static constexpr std::uint64_t kFileHeader = 24;
  // A record is at most 262144 + 16 octets. 512 KiB: a chunk the decompressor has just written
  // is still in this core's cache when its records are read (here or on the analysing
  // thread), and a chunk given back is written again while cached; with 4 MiB chunks each
  // octet went out to memory and came back (the zstd copy of the bench: 0.68 s against 0.76
  // on one thread, 0.77 s of CPU against 0.97 on two).
  static constexpr std::size_t kChunkSize = 512u << 10;

  const SourceContext& context_;
  std::unique_ptr<PcapFile> file_;
  // The records read, the chunks (position_.held: all of them until handed over).
  PcapPosition position_;
  std::uint64_t record_at_ = kFileHeader;  // the next record header's offset

 private:
  // The record whose header is at `p`, with `available` octets there from it: true (and
  // `record` filled, record_at_ moved past it) where it is read in place as libpcap gives it:
  // within the snapshot length and libpcap's ceiling, time stamps that libpcap reads the
  // same whether it takes them as signed or not, and whole.
  bool record_in_place(const std::uint8_t* p, std::uint64_t available, CaptureRecord& record);

  // The file's time stamps are in nanoseconds; its snapshot length.
  bool records_nano_ = false;
  std::uint32_t snapshot_length_ = 0;
  // The chunks are given back only when release() says so.
  bool hold_ = false;
};

bool PcapInPlace::record_in_place(const std::uint8_t* p, std::uint64_t available,
                                  CaptureRecord& record) {
  if (available < 16) return false;
  std::uint32_t h[4];  // seconds, fraction, captured length, length
  std::memcpy(h, p, sizeof h);
  if (h[2] > snapshot_length_ || h[2] > 262144u || h[0] >= 0x80000000u || h[1] >= 0x80000000u ||
      available - 16 < h[2]) {
    return false;
  }
  const std::uint64_t number = ++position_.records;
  record.number = number;
  record.timestamp_ns = std::uint64_t{h[0]} * 1'000'000'000u +
                        (records_nano_ ? std::uint64_t{h[1]} : std::uint64_t{h[1]} * 1000u);
  record.original_length = h[3];
  record.link_type = position_.link_type;
  record.data = std::span<const std::uint8_t>(p + 16, h[2]);
  record.mapped = true;
  record.source = context_.again;
  record.at = record_at_ + 16;
  position_.bytes_seen += h[2];
  record_at_ += 16 + h[2];
  return true;
}

Next PcapInPlace::next(CaptureRecord& record, std::string& error) {
  (void)error;
  if (context_.stop.load(std::memory_order_relaxed)) return Next::End;
  Chunks& chunks = position_.held;
  if (!hold_) chunks.give_back(record_at_);
  for (int attempt = 0;; ++attempt) {
    if (!chunks.list.empty()) {
      const Chunk& chunk = chunks.list.back();
      const std::uint64_t in = record_at_ - chunk.start;
      if (record_in_place(chunk.data + in, chunk.size - in, record)) return Next::Record;
    }
    // A chunk that starts with the record does not give it as libpcap would.
    if (attempt == 1) break;
    if (!next_chunk()) {
      // Nothing more: the end where the stream ended well between two records.
      if (chunks.list.back().size == 0 && !stream_failed()) return Next::End;
      break;
    }
  }
  return Next::HandOver;
}

std::unique_ptr<CaptureSource> PcapInPlace::read_again_with_libpcap(std::string& error) {
  return make_libpcap_source_reading_again(context_, position_, error);
}

// Copies into chunks of their own what read_octets() gives.
class CopiedChunks : public PcapInPlace {
 public:
  using PcapInPlace::PcapInPlace;

 protected:
  // Up to `size` octets of the file (of a compressed one, its decompressed octets) into
  // `out`; fewer at the end of the stream, or where it failed.
  virtual std::size_t read_octets(std::uint8_t* out, std::size_t size) = 0;
  bool next_chunk() final;
};

bool CopiedChunks::next_chunk() {
  Chunks& chunks = position_.held;
  Chunk next;
  if (!chunks.spare.empty()) {
    next.octets = std::move(chunks.spare.back());
    chunks.spare.pop_back();
  } else {
    next.octets.reset(new std::uint8_t[kChunkSize]);
  }
  next.start = record_at_;
  const std::span<const std::uint8_t> unfinished = chunks.unfinished_record(record_at_);
  if (!unfinished.empty()) std::memcpy(next.octets.get(), unfinished.data(), unfinished.size());
  next.size = unfinished.size();
  next.data = next.octets.get();
  const std::size_t got = read_octets(next.octets.get() + next.size, kChunkSize - next.size);
  next.size += got;
  chunks.list.push_back(std::move(next));
  return got > 0;
}

// A plain file, read with pread(2), not mapped: read into a chunk that stays in the cache,
// its records reach the analysis (on this or the analysing thread) before they leave it,
// where a mapped file's octets come from memory twice, through page faults (the bench's
// 1.1 GiB on two threads: 0.41 s of CPU against 0.52, 0.21-0.24 s against 0.27-0.29).
class PlainPcap final : public CopiedChunks {
 public:
  using CopiedChunks::CopiedChunks;
  // libpcap reads on from the record's offset in the same file.
  std::unique_ptr<CaptureSource> hand_over(std::string& error) override;

 private:
  std::size_t read_octets(std::uint8_t* out, std::size_t size) override;
  bool stream_failed() const override { return read_failed_ || PcapInPlace::stream_failed(); }

  std::uint64_t from_file_ = kFileHeader;  // the file offset read next
  bool read_failed_ = false;               // pread(2) failed: libpcap reads on, and says why
};

std::size_t PlainPcap::read_octets(std::uint8_t* out, std::size_t size) {
  std::size_t got = 0;
  const int fd = fileno(pcap_file(file_->pcap));
  while (got < size) {
    const ssize_t n = pread(fd, out + got, size - got, static_cast<off_t>(from_file_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      read_failed_ = n < 0;
      break;
    }
    got += static_cast<std::size_t>(n);
    from_file_ += static_cast<std::uint64_t>(n);
  }
  return got;
}

std::unique_ptr<CaptureSource> PlainPcap::hand_over(std::string& error) {
  if (fseeko(pcap_file(file_->pcap), static_cast<off_t>(record_at_), SEEK_SET) != 0) {
    error = fmt::format("{}: record {}: unreadable record ({})", context_.name,
                        position_.records + 1, std::strerror(errno));
    return nullptr;
  }
  return make_libpcap_source(context_, std::move(file_), std::move(position_));
}

// A compressed file: its decompressed octets, first those the FILE libpcap opened holds (read
// past the file header), then straight from the decompressor (no copy through stdio).
class DecompressedPcap final : public CopiedChunks {
 public:
  using CopiedChunks::CopiedChunks;
  std::unique_ptr<CaptureSource> hand_over(std::string& error) override {
    return read_again_with_libpcap(error);
  }

 private:
  std::size_t read_octets(std::uint8_t* out, std::size_t size) override;
  bool stream_failed() const override {
    return file_->decompressor->failed || PcapInPlace::stream_failed();
  }

  std::uint64_t from_file_ = kFileHeader;  // decompressed octets taken from the stream
};

std::size_t DecompressedPcap::read_octets(std::uint8_t* out, std::size_t size) {
  std::size_t got = 0;
  // (The FILE that libpcap holds owns it; only this reader reads from it now.)
  Decompressor* d = file_->decompressor;
  if (d->given > from_file_) {
    got = std::fread(out, 1, std::min<std::uint64_t>(size, d->given - from_file_),
                     pcap_file(file_->pcap));
    from_file_ += got;
  }
  while (got < size && d->given == from_file_) {
    const ssize_t n = decompressor_read(d, reinterpret_cast<char*>(out + got), size - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
    from_file_ += static_cast<std::uint64_t>(n);
  }
  return got;
}

// A zstd file whose window is at most kMaxRingWindow is decompressed block by block straight
// into a ring, and its chunks are places in the ring: without the streaming decoder's copy
// out of its own window (the bench's zstd copy: a quarter of the reading thread's time). A
// chunk starts right after the last octets written, its first record (the last chunk's
// unfinished one) already in place, or at the ring's start, that record copied there; or,
// where chunks still held fill the ring, in a new ring (the old one stays while its chunks are
// held, and while the decompressor may refer back into it). Decompressed again from its
// start: the first chunk starts with the file header libpcap read.
class ZstdRingPcap final : public PcapInPlace {
 public:
  static constexpr std::size_t kMaxRingWindow = 16u << 20;
  ZstdRingPcap(const SourceContext& context, std::unique_ptr<PcapFile> file, bool nanosecond,
               std::unique_ptr<ZstdBlocks> blocks)
      : PcapInPlace(context, std::move(file), nanosecond), zstd_(std::move(blocks)) {}
  std::unique_ptr<CaptureSource> hand_over(std::string& error) override {
    zstd_.reset();  // (its ring stays while chunks in it are held)
    return read_again_with_libpcap(error);
  }

 private:
  static constexpr std::size_t kRingSlack = 4u << 20;  // beyond what zstd keeps: chunks held
  bool next_chunk() override;
  bool stream_failed() const override {
    return file_->decompressor->failed || zstd_->failed() || PcapInPlace::stream_failed();
  }
  // Whether a chunk still held lies in [at, at + size) of the ring.
  bool held_in(const std::uint8_t* at, std::size_t size) const;

  std::unique_ptr<ZstdBlocks> zstd_;
  std::shared_ptr<std::uint8_t[]> ring_, previous_ring_;
  std::size_t ring_size_ = 0;
  std::uint8_t* ring_write_ = nullptr;  // where the next block goes
  std::uint64_t written_in_ring_ = 0;   // since this ring was started
};

bool ZstdRingPcap::held_in(const std::uint8_t* at, std::size_t size) const {
  for (const Chunk& chunk : position_.held.list) {
    if (chunk.ring == ring_ && chunk.data < at + size && at < chunk.data + chunk.size) return true;
  }
  return false;
}

bool ZstdRingPcap::next_chunk() {
  Chunks& chunks = position_.held;
  Chunk next;
  next.start = chunks.list.empty() ? 0 : record_at_;  // (the first starts with the file header)
  const std::span<const std::uint8_t> unfinished = chunks.unfinished_record(record_at_);
  next.size = unfinished.size();
  std::uint8_t* to = ring_write_;
  if (ring_ != nullptr && to + kChunkSize <= ring_.get() + ring_size_ && !held_in(to, kChunkSize)) {
    next.data = to - next.size;  // the unfinished record is right before: the last octets written
  } else {
    // (The ring holds zstd's window, the chunks that may be held and a chunk more.)
    if (ring_ == nullptr || held_in(ring_.get(), next.size + kChunkSize)) {
      previous_ring_ = std::move(ring_);
      ring_size_ = zstd_->keep() + kRingSlack;
      ring_.reset(new std::uint8_t[ring_size_]);
      written_in_ring_ = 0;
    }
    if (next.size > 0) std::memmove(ring_.get(), unfinished.data(), next.size);
    next.data = ring_.get();
    to = ring_.get() + next.size;
  }
  const std::size_t got = zstd_->decompress(to, kChunkSize);
  ring_write_ = to + got;
  written_in_ring_ += got;
  if (written_in_ring_ >= zstd_->keep()) previous_ring_.reset();  // referred to no more
  next.size += got;
  next.ring = ring_;
  chunks.list.push_back(std::move(next));
  return got > 0;
}

}  // namespace

std::unique_ptr<CaptureSource> make_plain_pcap_source(const SourceContext& context,
                                                      std::unique_ptr<PcapFile> file,
                                                      bool nanosecond) {
  return std::make_unique<PlainPcap>(context, std::move(file), nanosecond);
}

std::unique_ptr<CaptureSource> make_decompressed_pcap_source(const SourceContext& context,
                                                             std::unique_ptr<PcapFile> file,
                                                             bool nanosecond) {
  return std::make_unique<DecompressedPcap>(context, std::move(file), nanosecond);
}

std::unique_ptr<CaptureSource> make_zstd_ring_source(const SourceContext& context,
                                                     std::unique_ptr<PcapFile>& file,
                                                     bool nanosecond) {
  auto blocks =
      std::make_unique<ZstdBlocks>(file->decompressor->input.map, ZstdRingPcap::kMaxRingWindow);
  if (!blocks->usable()) return nullptr;
  return std::make_unique<ZstdRingPcap>(context, std::move(file), nanosecond, std::move(blocks));
}

}  // namespace mpa::capture
