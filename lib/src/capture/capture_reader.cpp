// Capture-file reading (files or standard input, plain, gzip or zstd), feeding the RFC 5044
// MPA checker one record at a time: pcap through libpcap, pcapng block by block
// (pcapng_stream.h: interfaces of different link types and snaplens, as Wireshark reads them,
// which libpcap 1.10 refuses). A plain regular file is mapped and its records are parsed in
// place (no copy into user space at all); a pcap record the mapping cannot give as libpcap
// would (an unusual header, a record cut short, the end of the mapping) is read by libpcap
// from its own offset on, so that what is read and every message stay libpcap's. A compressed
// pcap file is decompressed into chunks whose records are parsed where they lie, likewise;
// where a record cannot be given so, libpcap reads the file again from its start and takes
// over at that record.
#include "mpa/capture_reader.h"

#include <fmt/format.h>
#include <pcap/pcap.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#if MPA_HAVE_LZ4
#include <lz4frame.h>
#endif
#if MPA_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <vector>

#include "capture/mapped_file.h"
#include "capture/pcapng_out.h"
#include "capture/pcapng_stream.h"
#include "capture/zstd_blocks.h"
#include "mpa/packet_decoder.h"

namespace mpa {
namespace {

// pcap_datalink() returns DLT_* values, which differ from the LINKTYPE_* values written in
// files (and used by decode_frame) for a few link types whose DLT numbers were never agreed
// across operating systems. libpcap maps LINKTYPE_RAW (101) to DLT_RAW (12, or 14), and on
// OpenBSD LINKTYPE_LOOP (108) to DLT_LOOP (12); map them back.
std::uint32_t dlt_to_linktype(int dlt) {
  // DLT 14 is raw IP on OpenBSD (and in files written there); DLT_RAW elsewhere is 12.
  if (dlt == DLT_RAW || dlt == 14) return link_type::kRaw;
  if (dlt == DLT_LOOP) return link_type::kLoop;
  return static_cast<std::uint32_t>(dlt);
}

std::string display_name(const std::string& path) {
  return path == "-" ? std::string("<stdin>") : path;
}

// libpcap's open errors often start with the file name already; don't repeat it.
std::string open_error(const std::string& name, const char* pcap_message) {
  std::string_view message(pcap_message);
  if (message.size() > name.size() + 2 && message.substr(0, name.size()) == name &&
      message.substr(name.size(), 2) == ": ") {
    return std::string(message);
  }
  return fmt::format("{}: cannot read capture: {}", name, message);
}

// ---- compressed captures: .gz (gzip, possibly several members), .zst (zstd) and .lz4 (LZ4
// frames), which Wireshark opens too. A FILE of the decompressed octets (fopencookie) goes
// to libpcap or the pcapng reader.

enum class Compression : std::uint8_t { None, Gzip, Zstd, Lz4 };

Compression sniff(const std::array<std::uint8_t, 4>& magic, std::size_t got) {
  if (got >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) return Compression::Gzip;
  if (got >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) {
    return Compression::Zstd;
  }
  if (got >= 4 && magic[0] == 0x04 && magic[1] == 0x22 && magic[2] == 0x4d && magic[3] == 0x18) {
    return Compression::Lz4;
  }
  return Compression::None;
}

// Reads `raw` from its start again: the octets already taken to sniff, then the rest.
// A pipe (`pipe`, unbuffered) is read with read(2): what has arrived is returned at once, so
// that findings can be printed while the capture still arrives.
struct Inflow {
  FILE* raw = nullptr;
  bool pipe = false;
  std::array<std::uint8_t, 4> prefix{};
  std::size_t prefix_size = 0, prefix_at = 0;
  std::uint64_t delivered = 0;  // octets returned so far (a file: the offset reached)
  std::size_t read(std::uint8_t* out, std::size_t size) {
    const std::size_t n = read_some(out, size);
    delivered += n;
    return n;
  }
  // A regular file only: reading goes on from `offset`.
  bool seek(std::uint64_t offset) {
    prefix_at = prefix_size;
    delivered = offset;
    return fseeko(raw, static_cast<off_t>(offset), SEEK_SET) == 0;
  }

 private:
  std::size_t read_some(std::uint8_t* out, std::size_t size) {
    std::size_t n = 0;
    while (n < size && prefix_at < prefix_size) out[n++] = prefix[prefix_at++];
    if (n == size) return n;
    if (!pipe) return n + std::fread(out + n, 1, size - n, raw);
    if (n > 0) return n;
    // An error or an interruption (Ctrl-C) ends the stream here, as its end would.
    const ssize_t got = ::read(fileno(raw), out, size);
    return got > 0 ? static_cast<std::size_t>(got) : 0;
  }
};

struct Decompressor {
  Inflow in;
  Compression kind = Compression::None;
  // The first decompressed octets, read ahead to tell pcap from pcapng; returned first.
  std::array<std::uint8_t, 4> head{};
  std::size_t head_size = 0, head_at = 0;
  std::vector<std::uint8_t> input = std::vector<std::uint8_t>(1u << 18);
  std::size_t input_at = 0, input_size = 0;
  bool input_ended = false;
  bool in_frame = false;  // inside a gzip member, zstd or LZ4 frame
  bool failed = false;
  bool cut_short = false;
  std::string problem;  // why it failed
  z_stream z{};
  bool z_ready = false;
#if MPA_HAVE_ISAL
  // gzip from a regular file: ISA-L's igzip. Where it finds the stream damaged or cut short,
  // zlib reads the member again from its start (the octets igzip gave skipped), so that what
  // is read and what is said about it are zlib's.
  inflate_state isal{};
  bool use_isal = false;
  std::uint64_t member_start = 0;  // file offset of the member being inflated
  std::uint64_t member_out = 0;    // octets it gave so far
#endif
  std::uint64_t skip = 0;   // octets zlib gives again, not to be returned twice
  std::uint64_t given = 0;  // decompressed octets decompressor_read() returned
  ZSTD_DCtx* zstd = nullptr;
#if MPA_HAVE_LZ4
  LZ4F_dctx* lz4 = nullptr;
#endif

  ~Decompressor() {
    if (z_ready) inflateEnd(&z);
    if (zstd) ZSTD_freeDCtx(zstd);
#if MPA_HAVE_LZ4
    if (lz4) LZ4F_freeDecompressionContext(lz4);
#endif
    if (in.raw) std::fclose(in.raw);
  }
  // A compressed regular file is mapped and its octets handed to the decompressor where they
  // lie (no read(2) copy), given back behind as it goes; past the mapping (a file that grew)
  // the stream reads on. (A zstd ring decompresses from the same mapping.)
  std::shared_ptr<capture::MappedFile> map;
  bool map_exhausted = false;
  const std::uint8_t* in_data = nullptr;  // input.data(), or a window of the mapping

  void map_file(std::uint64_t size) {
    auto file = std::make_shared<capture::MappedFile>(fileno(in.raw), size);
    if (file->data() == nullptr) return;
    map = std::move(file);
    in.prefix_at = in.prefix_size;  // (the sniffed octets are in the mapping)
  }
  bool refill() {
    if (input_at < input_size || input_ended) return input_at < input_size;
    input_at = 0;
    if (map != nullptr && !map_exhausted) {
      const std::uint64_t at = in.delivered;
      if (at < map->size()) {
        map->give_back(at, capture::MappedFile::kGiveBack);
        map->read_again_from(at);  // (a seek back)
        in_data = map->data() + at;
        input_size =
            static_cast<std::size_t>(std::min<std::uint64_t>(input.size(), map->size() - at));
        in.delivered += input_size;
        return true;
      }
      map_exhausted = true;
      if (fseeko(in.raw, static_cast<off_t>(at), SEEK_SET) != 0) {
        input_ended = true;
        input_size = 0;
        return false;
      }
    }
    in_data = input.data();
    input_size = in.read(input.data(), input.size());
    if (input_size == 0) input_ended = true;
    return input_size > 0;
  }
  // A stream that ends inside a gzip member, zstd or LZ4 frame was cut short: an error, not
  // an end, so that the reader names the record it could not read.
  ssize_t fail(std::size_t produced, std::string why) {
    failed = true;
    problem = std::move(why);
    return produced ? static_cast<ssize_t>(produced) : -1;
  }
  const char* name() const {
    return kind == Compression::Gzip ? "gzip" : kind == Compression::Zstd ? "zstd" : "LZ4";
  }
#if MPA_HAVE_ISAL
  void start_isal() {
    isal_inflate_init(&isal);
    isal.crc_flag = ISAL_GZIP;
    use_isal = true;
  }
  // igzip found the member damaged or cut short: zlib reads it again from its start.
  bool to_zlib() {
    use_isal = false;
    skip = member_out;
    input_at = input_size = 0;
    input_ended = false;
    in_frame = false;
    map_exhausted = false;
    return in.seek(member_start);
  }
#endif
  ssize_t read(char* out, std::size_t size) {
    if (failed) return -1;
    std::size_t produced = 0;
    while (produced == 0) {
      if (!refill()) {
#if MPA_HAVE_ISAL
        if (use_isal && in_frame) {
          if (!to_zlib()) return fail(0, "cannot read the gzip stream again");
          continue;
        }
#endif
        if (!in_frame) return 0;  // the end, between members or frames
        cut_short = true;
        return fail(0, fmt::format("the {} stream ends early", name()));
      }
#if MPA_HAVE_ISAL
      if (use_isal) {
        isal.next_in = const_cast<std::uint8_t*>(in_data + input_at);
        isal.avail_in = static_cast<std::uint32_t>(input_size - input_at);
        isal.next_out = reinterpret_cast<std::uint8_t*>(out);
        isal.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(size, 1u << 30));
        const std::uint32_t room = isal.avail_out;
        const int r = isal_inflate(&isal);
        input_at = input_size - isal.avail_in;
        produced = room - isal.avail_out;
        member_out += produced;
        if (r != ISAL_DECOMP_OK) {
          if (!to_zlib()) return fail(produced, "cannot read the gzip stream again");
          continue;
        }
        in_frame = isal.block_state != ISAL_BLOCK_FINISH;
        if (!in_frame) {
          // Another member may follow: from here.
          member_start = in.delivered - (input_size - input_at);
          member_out = 0;
          start_isal();
        }
        continue;
      }
#endif
      if (kind == Compression::Gzip) {
        if (!z_ready) {
          if (inflateInit2(&z, 15 + 32) != Z_OK) return fail(0, "cannot decompress gzip");
          z_ready = true;
        }
        z.next_in = const_cast<Bytef*>(in_data + input_at);
        z.avail_in = static_cast<uInt>(input_size - input_at);
        z.next_out = reinterpret_cast<Bytef*>(out);
        z.avail_out = static_cast<uInt>(size);
        const int r = inflate(&z, Z_NO_FLUSH);
        input_at = input_size - z.avail_in;
        produced = size - z.avail_out;
        if (skip > 0) {
          // Given already by igzip: not again.
          const std::size_t drop =
              static_cast<std::size_t>(std::min<std::uint64_t>(skip, produced));
          std::memmove(out, out + drop, produced - drop);
          produced -= drop;
          skip -= drop;
        }
        in_frame = r != Z_STREAM_END;
        if (r == Z_STREAM_END) {
          inflateReset(&z);  // another gzip member may follow
        } else if (r != Z_OK && r != Z_BUF_ERROR) {
          return fail(produced,
                      fmt::format("the gzip stream is damaged ({})", z.msg ? z.msg : "zlib error"));
        }
      } else if (kind == Compression::Lz4) {
#if MPA_HAVE_LZ4
        // One frame after another: the context starts over after a frame's end by itself.
        std::size_t out_size = size, in_size = input_size - input_at;
        const std::size_t r =
            LZ4F_decompress(lz4, out, &out_size, in_data + input_at, &in_size, nullptr);
        input_at += in_size;
        produced = out_size;
        if (LZ4F_isError(r)) {
          return fail(produced,
                      fmt::format("the LZ4 stream is damaged ({})", LZ4F_getErrorName(r)));
        }
        in_frame = r != 0;
#else
        return fail(0, "an LZ4-compressed capture, and this mpa-check was built without liblz4");
#endif
      } else {
        ZSTD_inBuffer zin{in_data + input_at, input_size - input_at, 0};
        ZSTD_outBuffer zout{out, size, 0};
        const std::size_t r = ZSTD_decompressStream(zstd, &zout, &zin);
        input_at += zin.pos;
        produced = zout.pos;
        if (ZSTD_isError(r)) {
          return fail(produced,
                      fmt::format("the zstd stream is damaged ({})", ZSTD_getErrorName(r)));
        }
        in_frame = r != 0;
      }
    }
    return static_cast<ssize_t>(produced);
  }
};

ssize_t decompressor_read(void* cookie, char* out, std::size_t size) {
  auto* d = static_cast<Decompressor*>(cookie);
  if (d->head_at < d->head_size) {
    std::size_t n = 0;
    while (n < size && d->head_at < d->head_size)
      out[n++] = static_cast<char>(d->head[d->head_at++]);
    d->given += n;
    return static_cast<ssize_t>(n);
  }
  const ssize_t n = d->read(out, size);
  if (n > 0) d->given += static_cast<std::uint64_t>(n);
  return n;
}
int decompressor_close(void* cookie) {
  delete static_cast<Decompressor*>(cookie);
  return 0;
}

// `raw` itself when it is not compressed (a regular file is rewound, a pipe is wrapped so
// that the sniffed octets are read again), else a FILE of its decompressed octets. `head`
// gets the first (up to 4) octets the returned FILE will give, to tell pcap from pcapng.
// `decompressor` (owned by the returned FILE, gone when it is closed) says why a compressed
// stream failed.
FILE* decompressing(FILE* raw, bool seekable, Compression& kind, std::array<std::uint8_t, 4>& head,
                    const Decompressor*& decompressor) {
  decompressor = nullptr;
  // A pipe unbuffered, so that the sniffed octets are all stdio took from it.
  if (!seekable) std::setvbuf(raw, nullptr, _IONBF, 0);
  std::array<std::uint8_t, 4> magic{};
  const std::size_t got = std::fread(magic.data(), 1, magic.size(), raw);
  kind = sniff(magic, got);
  head = magic;
  if (kind == Compression::None && seekable && std::fseek(raw, 0, SEEK_SET) == 0) return raw;
  auto* d = new Decompressor();
  d->in.raw = raw;
  d->in.pipe = !seekable;
  d->in.prefix = magic;
  d->in.prefix_size = got;
  d->kind = kind;
  if (kind != Compression::None && seekable) {
    struct stat status {};
    if (fstat(fileno(raw), &status) == 0) d->map_file(static_cast<std::uint64_t>(status.st_size));
  }
#if MPA_HAVE_ISAL
  if (kind == Compression::Gzip && seekable) d->start_isal();
#endif
  if (kind == Compression::Gzip && !seekable) {
    if (inflateInit2(&d->z, 15 + 32) != Z_OK) {
      d->failed = true;
      d->problem = "cannot decompress gzip";
    } else {
      d->z_ready = true;
    }
  }
  if (kind == Compression::Zstd) d->zstd = ZSTD_createDCtx();
#if MPA_HAVE_LZ4
  if (kind == Compression::Lz4 &&
      LZ4F_isError(LZ4F_createDecompressionContext(&d->lz4, LZ4F_VERSION))) {
    d->failed = true;
    d->problem = "cannot decompress LZ4";
  }
#endif
  if (kind != Compression::None) {
    decompressor = d;
    head = {};
    while (d->head_size < d->head.size()) {
      const ssize_t n = d->read(reinterpret_cast<char*>(d->head.data() + d->head_size),
                                d->head.size() - d->head_size);
      if (n <= 0) break;
      d->head_size += static_cast<std::size_t>(n);
    }
    head = d->head;
  }
  if (kind == Compression::None) {
    // A pipe: pass the octets through unchanged (the sniffed ones first).
    static const cookie_io_functions_t passthrough = {
        [](void* c, char* out, std::size_t size) -> ssize_t {
          return static_cast<ssize_t>(
              static_cast<Decompressor*>(c)->in.read(reinterpret_cast<std::uint8_t*>(out), size));
        },
        nullptr, nullptr, decompressor_close};
    return fopencookie(d, "rb", passthrough);
  }
  static const cookie_io_functions_t functions = {decompressor_read, nullptr, nullptr,
                                                  decompressor_close};
  return fopencookie(d, "rb", functions);
}

}  // namespace

// stdio's default 4 KiB buffer costs a read(2) per 4 KiB; captures are read front to back.
constexpr std::size_t kReadBufferSize = 1u << 20;
// A compressed pcap file read in place: stdio gives libpcap only the file header (the chunks
// are read past it straight from the decompressor, or the ring decompresses again from the
// start), so a larger buffer would only be decompressed into, and for zstd twice.
constexpr std::size_t kHeaderBufferSize = 4u << 10;

struct CaptureReader::Impl {
  std::unique_ptr<char[]> buffer;  // the stream's buffer; outlives the stream (see ~Impl)
  pcap_t* pcap = nullptr;          // pcap files and live captures
  // pcapng: read here, from `stream`, whatever its interfaces' link types and snaplens.
  std::unique_ptr<capture::PcapngStream> pcapng;
  FILE* stream = nullptr;
  // The decompressing stream's state (owned by the FILE that pcap or stream holds), to say
  // why a compressed capture could not be read to its end.
  const Decompressor* decompressor = nullptr;
  // The interfaces declared before the first record (pcap, live: the one); the first one's
  // link type and snaplen.
  std::vector<std::uint32_t> link_types;
  std::uint32_t link_type = 0;
  std::uint32_t snaplen = 0;
  bool nanosecond_timestamps = false;
  bool failed = false;
  bool ended = false;
  std::uint64_t records = 0;
  // Fallback for bytes_read() when the stream cannot tell its position (a pipe): the
  // payload bytes seen so far, which understates the file by its per-record overhead.
  std::uint64_t bytes_seen = 0;
  bool live = false;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::atomic<bool> stop{false};
  // -w: every record read is written here too.
  std::unique_ptr<capture::PcapngWriter> writer;
  std::chrono::steady_clock::time_point last_flush;
  bool write_failed = false;
  // A plain pcapng regular file, mapped (nullptr: read through stdio).
  std::unique_ptr<capture::MappedFile> map;
  // pcap read in place (chunk_pcap below): the file's time stamps are in nanoseconds, its
  // snapshot length, and the next record header's offset.
  bool records_nano = false;
  std::uint32_t snapshot_length = 0;
  std::uint64_t record_at = 0;
  // `hold`: the mapping's pages are given back only when release() says so. (Pages are mapped
  // in by page faults, which map 64 KiB around each: here faster than MADV_POPULATE_READ
  // ahead.)
  bool hold = false;
  bool regular = false;
  // A plain regular file whose records read in place can be read again (read_again): its
  // descriptor, and the reader, which records name as their source.
  int again_fd = -1;
  const OctetSource* again = nullptr;
  // A pcap file read in place: its octets (a compressed file's decompressed octets) are read
  // into chunks and its records parsed where they lie (record_at is the offset in the file, or
  // in the decompressed stream). The back chunk is the one read; the others hold records that
  // may still be looked at, and are given back (kept for reuse) once released. A chunk's
  // records end where the next one starts (which begins with the record it could not hold).
  // A plain file too is read so, with pread(2), not mapped: read into a chunk that stays in
  // the cache, its records reach the analysis (on this or the analysing thread) before they
  // leave it, where a mapped file's octets come from memory twice, through page faults (the
  // bench's 1.1 GiB on two threads: 0.41 s of CPU against 0.52, 0.21-0.24 s against 0.27-0.29).
  struct Chunk {
    std::unique_ptr<std::uint8_t[]> octets;  // its own octets, or else:
    std::shared_ptr<std::uint8_t[]> ring;    // the zstd ring it lies in (below), kept for it
    const std::uint8_t* data = nullptr;      // octets.get() or a place in the ring
    std::uint64_t start = 0;                 // the stream offset of data[0]
    std::size_t size = 0;                    // octets read into it
  };
  // A record is at most 262144 + 16 octets. 512 KiB: a chunk the decompressor has just written
  // is still in this core's cache when its records are read (here or on the analysing
  // thread), and a chunk given back is written again while cached; with 4 MiB chunks each
  // octet went out to memory and came back (the zstd copy of the bench: 0.68 s against 0.76
  // on one thread, 0.77 s of CPU against 0.97 on two).
  static constexpr std::size_t kChunkSize = 512u << 10;
  bool chunk_pcap = false;
  std::deque<Chunk> chunks;
  std::vector<std::unique_ptr<std::uint8_t[]>> spare;
  // Octets read from the file (a plain one: its offset), or from libpcap's FILE (libpcap read
  // the file header).
  std::uint64_t from_file = 24;
  bool read_failed = false;  // pread(2) failed: libpcap reads on, and says why
  // libpcap reading the records read in place again (read_on_with_libpcap) to this one: an error
  // before it (where it found the stream damaged sooner) is about this record, the next unread.
  std::uint64_t reading_to = 0;
  // A zstd file whose window is at most kMaxRingWindow is decompressed block by block straight
  // into a ring, and its chunks are places in the ring: without the streaming decoder's copy
  // out of its own window (the bench's zstd copy: a quarter of the reading thread's time). A
  // chunk starts right after the last octets written, its first record (the last chunk's
  // unfinished one) already in place, or at the ring's start, that record copied there; or,
  // where chunks still held fill the ring, in a new ring (the old one stays while its chunks are
  // held, and while the decompressor may refer back into it).
  static constexpr std::size_t kMaxRingWindow = 16u << 20;
  static constexpr std::size_t kRingSlack = 4u << 20;  // beyond what zstd keeps: chunks held
  std::unique_ptr<capture::ZstdBlocks> zstd;
  std::shared_ptr<std::uint8_t[]> ring, previous_ring;
  std::size_t ring_size = 0;
  std::uint8_t* ring_write = nullptr;  // where the next block goes
  std::uint64_t written_in_ring = 0;   // since this ring was started

  ~Impl() {
    if (pcap != nullptr) pcap_close(pcap);
    if (stream != nullptr) std::fclose(stream);
  }
  void give_back(std::uint64_t offset) {
    while (chunks.size() > 1 && chunks[1].start <= offset) {
      if (chunks.front().octets) spare.push_back(std::move(chunks.front().octets));
      chunks.pop_front();
    }
    if (map != nullptr) map->give_back(offset);
  }
  // The record whose header is at `p`, with `available` octets there from it: true (and
  // `record` filled, record_at moved past it) where it is read in place as libpcap gives it:
  // within the snapshot length and libpcap's ceiling, time stamps that libpcap reads the
  // same whether it takes them as signed or not, and whole.
  bool record_in_place(const std::uint8_t* p, std::uint64_t available, CaptureRecord& record) {
    if (available < 16) return false;
    std::uint32_t h[4];  // seconds, fraction, captured length, length
    std::memcpy(h, p, sizeof h);
    if (h[2] > snapshot_length || h[2] > 262144u || h[0] >= 0x80000000u || h[1] >= 0x80000000u ||
        available - 16 < h[2]) {
      return false;
    }
    ++records;
    record.number = records;
    record.timestamp_ns = std::uint64_t{h[0]} * 1'000'000'000u +
                          (records_nano ? std::uint64_t{h[1]} : std::uint64_t{h[1]} * 1000u);
    record.original_length = h[3];
    record.link_type = link_type;
    record.data = std::span<const std::uint8_t>(p + 16, h[2]);
    record.mapped = true;
    record.source = again;
    record.at = record_at + 16;
    bytes_seen += h[2];
    record_at += 16 + h[2];
    return true;
  }
  // Up to `size` octets of the file into `out`; of a compressed one, its decompressed octets:
  // first those the FILE libpcap opened holds (read past the file header), then straight from
  // the decompressor (no copy through stdio). Fewer at the end of the stream, or where it
  // failed (read_failed, decompressor->failed).
  std::size_t read_octets(std::uint8_t* out, std::size_t size) {
    std::size_t got = 0;
    if (decompressor == nullptr) {
      const int fd = fileno(pcap_file(pcap));
      while (got < size) {
        const ssize_t n = pread(fd, out + got, size - got, static_cast<off_t>(from_file));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          read_failed = n < 0;
          break;
        }
        got += static_cast<std::size_t>(n);
        from_file += static_cast<std::uint64_t>(n);
      }
      return got;
    }
    // (The FILE that libpcap holds owns it; only this reader reads from it now.)
    auto* d = const_cast<Decompressor*>(decompressor);
    if (d->given > from_file) {
      got =
          std::fread(out, 1, std::min<std::uint64_t>(size, d->given - from_file), pcap_file(pcap));
      from_file += got;
    }
    while (got < size && d->given == from_file) {
      const ssize_t n = decompressor_read(d, reinterpret_cast<char*>(out + got), size - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
      from_file += static_cast<std::uint64_t>(n);
    }
    return got;
  }
  // The octets of the last chunk from record_at on: the record it could not hold whole, which
  // the next chunk starts with (none before the first chunk).
  std::span<const std::uint8_t> unfinished_record() const {
    if (chunks.empty()) return {};
    const Chunk& last = chunks.back();
    return {last.data + (record_at - last.start),
            static_cast<std::size_t>(last.start + last.size - record_at)};
  }
  // Starts a chunk at record_at: the octets of the last one from there on, then as many as the
  // stream gives. False when the stream gave none.
  bool next_chunk() {
    if (zstd) return next_ring_chunk();
    Chunk next;
    if (!spare.empty()) {
      next.octets = std::move(spare.back());
      spare.pop_back();
    } else {
      next.octets.reset(new std::uint8_t[kChunkSize]);
    }
    next.start = record_at;
    const std::span<const std::uint8_t> unfinished = unfinished_record();
    if (!unfinished.empty()) std::memcpy(next.octets.get(), unfinished.data(), unfinished.size());
    next.size = unfinished.size();
    next.data = next.octets.get();
    const std::size_t got = read_octets(next.octets.get() + next.size, kChunkSize - next.size);
    next.size += got;
    chunks.push_back(std::move(next));
    return got > 0;
  }
  // Whether a chunk still held lies in [at, at + size) of the ring.
  bool held_in(const std::uint8_t* at, std::size_t size) const {
    for (const Chunk& chunk : chunks) {
      if (chunk.ring == ring && chunk.data < at + size && at < chunk.data + chunk.size) return true;
    }
    return false;
  }
  // next_chunk() of a zstd file decompressed into the ring (see kMaxRingWindow).
  bool next_ring_chunk() {
    Chunk next;
    next.start = chunks.empty() ? 0 : record_at;  // (the first starts with the file header)
    const std::span<const std::uint8_t> unfinished = unfinished_record();
    next.size = unfinished.size();
    std::uint8_t* to = ring_write;
    if (ring != nullptr && to + kChunkSize <= ring.get() + ring_size && !held_in(to, kChunkSize)) {
      next.data = to - next.size;  // the unfinished record is right before: the last octets written
    } else {
      // (The ring holds zstd's window, the chunks that may be held and a chunk more.)
      if (ring == nullptr || held_in(ring.get(), next.size + kChunkSize)) {
        previous_ring = std::move(ring);
        ring_size = zstd->keep() + kRingSlack;
        ring.reset(new std::uint8_t[ring_size]);
        written_in_ring = 0;
      }
      if (next.size > 0) std::memmove(ring.get(), unfinished.data(), next.size);
      next.data = ring.get();
      to = ring.get() + next.size;
    }
    const std::size_t got = zstd->decompress(to, kChunkSize);
    ring_write = to + got;
    written_in_ring += got;
    if (written_in_ring >= zstd->keep()) previous_ring.reset();  // referred to no more
    next.size += got;
    next.ring = ring;
    chunks.push_back(std::move(next));
    return got > 0;
  }
  // Asks for the octets up to `offset` plus kAhead to be brought into the cache, a line at a
  // time, as reading goes on: the record headers that the reading thread looks at next are
  // there when it gets to them (instead of a cache miss per record), and the octets are near
  // when the analysing thread reads them.
  static constexpr std::uint64_t kAhead = 16u << 10;
  std::uint64_t prefetched = 0;
  void prefetch(std::uint64_t offset) {
    const std::uint64_t to = std::min<std::uint64_t>(map->size(), offset + kAhead);
    if (prefetched < offset) prefetched = offset & ~std::uint64_t{63};
    for (; prefetched < to; prefetched += 64) __builtin_prefetch(map->data() + prefetched);
  }
};

std::unique_ptr<CaptureReader> CaptureReader::open(const std::string& path, std::string& error) {
  return open(path, error, true);
}

std::unique_ptr<CaptureReader> CaptureReader::open(const std::string& path, std::string& error,
                                                   bool in_place) {
  const std::string name = display_name(path);
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* pcap = nullptr;
  std::uint64_t file_size = 0;
  struct stat status {};
  FILE* stream = nullptr;
  std::unique_ptr<char[]> buffer;
  if (path == "-") {
    // Read a duplicate of fd 0 so that pcap_close() leaves the process's stdin open.
    const int fd = dup(STDIN_FILENO);
    stream = fd >= 0 ? fdopen(fd, "rb") : nullptr;
    if (stream == nullptr) {
      error = fmt::format("{}: cannot read standard input: {}", name, std::strerror(errno));
      if (fd >= 0) ::close(fd);
      return nullptr;
    }
    if (fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
      file_size = static_cast<std::uint64_t>(status.st_size);
    }
  } else {
    stream = std::fopen(path.c_str(), "rb");
    if (stream == nullptr) {
      error = fmt::format("{}: cannot open: {}", name, std::strerror(errno));
      return nullptr;
    }
    if (fstat(fileno(stream), &status) == 0 && S_ISREG(status.st_mode)) {
      file_size = static_cast<std::uint64_t>(status.st_size);
    }
  }
  // Compressed captures (.gz, .zst, .lz4) are read through a decompressing stream.
  Compression compression = Compression::None;
  std::array<std::uint8_t, 4> head{};
  const Decompressor* decompressor = nullptr;
  FILE* readable = decompressing(stream, S_ISREG(status.st_mode), compression, head, decompressor);
  if (readable == nullptr) {
    error = fmt::format("{}: cannot read: {}", name, std::strerror(errno));
    std::fclose(stream);
    return nullptr;
  }
  stream = readable;
  if (compression != Compression::None) file_size = 0;  // progress in octets read, not percent
  if (decompressor != nullptr && decompressor->failed && decompressor->head_size < head.size()) {
    error = fmt::format("{}: cannot read capture: {}", name, decompressor->problem);
    std::fclose(stream);
    return nullptr;
  }
  const bool regular = S_ISREG(status.st_mode);
  // A pcap file in this machine's byte order (its magic, first) from a regular file, read in
  // place: a plain one with pread(2); a compressed one (not from standard input: libpcap reads
  // it again by its path where it takes over) past what stdio holds already straight from its
  // decompressor.
  std::uint32_t magic;
  std::memcpy(&magic, head.data(), 4);
  const bool chunked = regular && in_place && (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du) &&
                       (compression == Compression::None || path != "-");
  const std::size_t buffer_size =
      chunked && compression != Compression::None ? kHeaderBufferSize : kReadBufferSize;
  buffer.reset(new char[buffer_size]);
  std::setvbuf(stream, buffer.get(), _IOFBF, buffer_size);
  const bool pcapng = head == std::array<std::uint8_t, 4>{0x0A, 0x0D, 0x0D, 0x0A};
  // A plain pcapng regular file: mapped, its blocks read in place.
  auto impl = std::make_unique<Impl>();
  impl->regular = regular;
  if (compression == Compression::None && regular && in_place && pcapng) {
    auto file = std::make_unique<capture::MappedFile>(fileno(stream), file_size);
    if (file->data() != nullptr) impl->map = std::move(file);
  }
  if (pcapng) {
    // pcapng (its Section Header Block type reads the same in both byte orders).
    auto pcapng = std::make_unique<capture::PcapngStream>();
    std::string detail;
    if (impl->map != nullptr) pcapng->map(impl->map->data(), impl->map->size());
    if (!pcapng->open(stream, detail)) {
      std::fclose(stream);
      error = fmt::format("{}: cannot read capture: pcapng: {}", name, detail);
      return nullptr;
    }
    std::unique_ptr<CaptureReader> reader(new CaptureReader());
    reader->impl_ = std::move(impl);
    reader->impl_->buffer = std::move(buffer);
    for (const capture::PcapngInterface& interface : pcapng->interfaces()) {
      reader->impl_->link_types.push_back(interface.link_type);
    }
    if (!pcapng->interfaces().empty()) {
      reader->impl_->link_type = pcapng->interfaces().front().link_type;
      reader->impl_->snaplen = pcapng->interfaces().front().snaplen;
    }
    reader->impl_->pcapng = std::move(pcapng);
    reader->impl_->stream = stream;
    if (reader->impl_->map != nullptr) {
      reader->impl_->again_fd = fileno(stream);
      reader->impl_->again = reader.get();
    }
    reader->impl_->decompressor = decompressor;
    reader->path_ = path;
    reader->file_size_ = file_size;
    return reader;
  }
  // Nanosecond precision: libpcap scales every timestamp to it, whatever the file holds.
  pcap = pcap_fopen_offline_with_tstamp_precision(stream, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (pcap == nullptr) std::fclose(stream);
  if (pcap == nullptr) {
    error = open_error(name, errbuf);
    return nullptr;
  }

  std::unique_ptr<CaptureReader> reader(new CaptureReader());
  reader->impl_ = std::move(impl);
  reader->impl_->buffer = std::move(buffer);
  reader->impl_->pcap = pcap;
  if (Impl& m = *reader->impl_; chunked) {
    // Read in place from chunks, from after the file header libpcap read, where libpcap reads
    // the records as they are: version 2.4, micro- or nanosecond time stamps, a snapshot length
    // (other versions have record headers of their own: libpcap reads those files).
    const int snapshot = pcap_snapshot(pcap);
    const bool usual = pcap_major_version(pcap) == 2 && pcap_minor_version(pcap) == 4 &&
                       !pcap_is_swapped(pcap) && snapshot > 0;
    if (!usual && compression != Compression::None) {
      reader.reset();
      return open(path, error, false);
    }
    m.chunk_pcap = usual;
    m.records_nano = magic == 0xa1b23c4du;
    m.snapshot_length = static_cast<std::uint32_t>(snapshot);
    m.record_at = 24;
    if (usual && compression == Compression::None) {
      m.again_fd = fileno(stream);
      m.again = reader.get();
    }
    if (usual && compression == Compression::Zstd && decompressor != nullptr) {
      // Decompressed again from its start, into the ring: the first chunk starts with the file
      // header libpcap read.
      auto blocks = std::make_unique<capture::ZstdBlocks>(decompressor->map, Impl::kMaxRingWindow);
      if (blocks->usable()) m.zstd = std::move(blocks);
    }
  }
  reader->impl_->decompressor = decompressor;
  reader->impl_->link_type = dlt_to_linktype(pcap_datalink(pcap));
  reader->impl_->link_types = {reader->impl_->link_type};
  reader->impl_->nanosecond_timestamps =
      pcap_get_tstamp_precision(pcap) == PCAP_TSTAMP_PRECISION_NANO;
  reader->path_ = path;
  reader->file_size_ = file_size;
  return reader;
}

std::unique_ptr<CaptureReader> CaptureReader::open_live(const LiveOptions& options,
                                                        std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  const std::string& name = options.interface;
  pcap_t* pcap = pcap_create(name.c_str(), errbuf);
  if (pcap == nullptr) {
    error = fmt::format("{}: cannot capture: {}", name, errbuf);
    return nullptr;
  }
  // Settings before activation fail only on an activated handle; say so if one does.
  const int settings[] = {
      pcap_set_snaplen(pcap, static_cast<int>(options.snaplen)),
      pcap_set_promisc(pcap, 0),
      // Packets reach the reader in blocks the kernel hands over when full or after 200 ms,
      // and the reader wakes at least that often to notice stop() and the duration. Not
      // immediate mode: there libpcap 1.10 takes a TPACKET_V2 ring of fixed slots sized for a
      // 64 KiB offloaded segment (veth, most NICs), so the 32 MiB below would hold 512
      // packets, a few milliseconds of a busy link (tests/bench/live_rate.sh: drops from
      // 150-440 Mbit/s there, none at 2.5 Gbit/s here); TPACKET_V3 packs the packets as sent.
      pcap_set_timeout(pcap, 200),
      pcap_set_immediate_mode(pcap, 0),
      pcap_set_buffer_size(pcap, 32 << 20),
  };
  for (const int status : settings) {
    if (status != 0) {
      error = fmt::format("{}: cannot capture: {}", name, pcap_statustostr(status));
      pcap_close(pcap);
      return nullptr;
    }
  }
  // Nanosecond time stamps where the interface offers them (not an error otherwise).
  const bool nano = pcap_set_tstamp_precision(pcap, PCAP_TSTAMP_PRECISION_NANO) == 0;
  const int activated = pcap_activate(pcap);
  if (activated < 0) {
    error = fmt::format("{}: cannot capture: {}", name,
                        activated == PCAP_ERROR ? pcap_geterr(pcap) : pcap_statustostr(activated));
    pcap_close(pcap);
    return nullptr;
  }
  if (!options.filter.empty()) {
    bpf_program program{};
    if (pcap_compile(pcap, &program, options.filter.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0 ||
        pcap_setfilter(pcap, &program) != 0) {
      error = fmt::format("{}: capture filter \"{}\": {}", name, options.filter, pcap_geterr(pcap));
      pcap_freecode(&program);
      pcap_close(pcap);
      return nullptr;
    }
    pcap_freecode(&program);
  }
  // Non-blocking reads and poll(2) with a timeout: pcap_next_ex alone may wait for a packet
  // forever, and a quiet interface must not keep stop() or the duration
  // from ending the capture.
  if (pcap_setnonblock(pcap, 1, errbuf) != 0 || pcap_get_selectable_fd(pcap) < 0) {
    error = fmt::format("{}: cannot capture without blocking: {}", name, errbuf);
    pcap_close(pcap);
    return nullptr;
  }
  std::unique_ptr<CaptureReader> reader(new CaptureReader());
  reader->impl_ = std::make_unique<Impl>();
  reader->impl_->pcap = pcap;
  reader->impl_->live = true;
  reader->impl_->link_type = dlt_to_linktype(pcap_datalink(pcap));
  reader->impl_->link_types = {reader->impl_->link_type};
  reader->impl_->nanosecond_timestamps =
      nano && pcap_get_tstamp_precision(pcap) == PCAP_TSTAMP_PRECISION_NANO;
  if (options.duration_ms) {
    reader->impl_->deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options.duration_ms);
  }
  reader->path_ = name;
  return reader;
}

void CaptureReader::stop() {
  impl_->stop.store(true, std::memory_order_relaxed);
  if (impl_->live) pcap_breakloop(impl_->pcap);
}

bool CaptureReader::live() const { return impl_->live; }

CaptureReader::~CaptureReader() = default;

bool CaptureReader::read_again(std::uint64_t at, std::span<std::uint8_t> out) const {
  if (impl_->again_fd < 0) return false;
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n =
        pread(impl_->again_fd, out.data() + got, out.size() - got, static_cast<off_t>(at + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<std::size_t>(n);
  }
  return true;
}

bool CaptureReader::keep(const std::string& path, std::string& error) {
  auto writer = std::make_unique<capture::PcapngWriter>();
  if (!writer->open(path, link_type(), snaplen(), error)) return false;
  impl_->writer = std::move(writer);
  impl_->last_flush = std::chrono::steady_clock::now();
  return true;
}

ReadStatus CaptureReader::next(CaptureRecord& record) {
  Impl& impl = *impl_;
  const ReadStatus status = read_next(record);
  if (!impl.writer || impl.write_failed) return status;
  std::string problem;
  bool ok = true;
  if (status == ReadStatus::Record) {
    ok = impl.writer->write(record.timestamp_ns, record.original_length, record.data, problem);
    const auto now = std::chrono::steady_clock::now();
    if (ok && now - impl.last_flush >= std::chrono::seconds(1)) {
      ok = impl.writer->flush(problem);
      impl.last_flush = now;
    }
  } else {
    ok = impl.writer->flush(problem);
  }
  if (!ok) {
    // This record is still analysed; the reading ends at the next one, naming the file.
    impl.write_failed = true;
    impl.failed = true;
    error_ = problem;
  }
  return status;
}

ReadStatus CaptureReader::read_next(CaptureRecord& record) {
  Impl& impl = *impl_;
  // Once a read failed or the file ended, libpcap's state is not worth asking again.
  if (impl.failed) return ReadStatus::Error;
  if (impl.ended) return ReadStatus::End;
  record.source = nullptr;
  if (impl.pcapng) return next_pcapng(record);
  if (impl.chunk_pcap) {
    if (impl.stop.load(std::memory_order_relaxed)) {
      impl.ended = true;
      return ReadStatus::End;
    }
    if (!impl.hold) impl.give_back(impl.record_at);
    for (int attempt = 0;; ++attempt) {
      if (!impl.chunks.empty()) {
        const Impl::Chunk& chunk = impl.chunks.back();
        const std::uint64_t in = impl.record_at - chunk.start;
        if (impl.record_in_place(chunk.data + in, chunk.size - in, record)) {
          return ReadStatus::Record;
        }
      }
      // A chunk that starts with the record does not give it as libpcap would.
      if (attempt == 1) break;
      if (!impl.next_chunk()) {
        // Nothing more: the end where the stream ended well between two records.
        if (impl.chunks.back().size == 0 && !std::ferror(pcap_file(impl.pcap)) &&
            !impl.read_failed && !(impl.decompressor != nullptr && impl.decompressor->failed) &&
            !(impl.zstd && impl.zstd->failed())) {
          impl.ended = true;
          return ReadStatus::End;
        }
        break;
      }
    }
    if (impl.decompressor != nullptr) return read_on_with_libpcap(record);
    // A plain file: libpcap reads on from this record's offset.
    impl.chunk_pcap = false;
    if (fseeko(pcap_file(impl.pcap), static_cast<off_t>(impl.record_at), SEEK_SET) != 0) {
      impl.failed = true;
      error_ = fmt::format("{}: record {}: unreadable record ({})", display_name(path_),
                           impl.records + 1, std::strerror(errno));
      return ReadStatus::Error;
    }
  }
  record.mapped = false;

  pcap_pkthdr* header = nullptr;
  const std::uint8_t* data = nullptr;
  int result = 0;
  for (;;) {
    if (impl.stop.load(std::memory_order_relaxed) ||
        (impl.live && std::chrono::steady_clock::now() >= impl.deadline)) {
      impl.ended = true;
      return ReadStatus::End;
    }
    result = pcap_next_ex(impl.pcap, &header, &data);
    if (result != 0 || !impl.live) break;
    // 0: nothing has arrived on the live interface yet; wait a little for it.
    pollfd fd{pcap_get_selectable_fd(impl.pcap), POLLIN, 0};
    poll(&fd, 1, 200);
  }
  // Interrupted (Ctrl-C while reading a pipe): what was read counts, the rest is not there.
  if (result < 0 && impl.stop.load(std::memory_order_relaxed)) {
    impl.ended = true;
    return ReadStatus::End;
  }
  if (result == 1) {
    ++impl.records;
    record.number = impl.records;
    const auto seconds = header->ts.tv_sec < 0 ? 0 : static_cast<std::uint64_t>(header->ts.tv_sec);
    const auto fraction =
        header->ts.tv_usec < 0 ? 0 : static_cast<std::uint64_t>(header->ts.tv_usec);
    record.timestamp_ns =
        seconds * 1'000'000'000u + (impl.nanosecond_timestamps ? fraction : fraction * 1000u);
    record.original_length = header->len;
    record.link_type = impl.link_type;
    record.data = std::span<const std::uint8_t>(data, header->caplen);
    impl.bytes_seen += header->caplen;
    return ReadStatus::Record;
  }
  if (result == PCAP_ERROR_BREAK) {  // end of file
    impl.ended = true;
    return ReadStatus::End;
  }
  impl.failed = true;
  const std::uint64_t number = std::max(impl.records + 1, impl.reading_to);
  const std::string name = display_name(path_);
  if (result == PCAP_ERROR && impl.decompressor != nullptr && impl.decompressor->failed) {
    error_ = fmt::format("{}: record {}: {} ({})", name, number,
                         impl.decompressor->cut_short ? "truncated record" : "unreadable record",
                         impl.decompressor->problem);
  } else if (result == PCAP_ERROR) {
    const char* message = pcap_geterr(impl.pcap);
    const bool truncated = std::strstr(message, "truncated") != nullptr;
    error_ = fmt::format("{}: record {}: {} ({})", name, number,
                         truncated ? "truncated record" : "unreadable record", message);
  } else {
    // 0 (timeout) only happens on live captures; anything else is undocumented.
    error_ = fmt::format("{}: record {}: unexpected pcap_next_ex result {}", name, number, result);
  }
  return ReadStatus::Error;
}

// libpcap reads the compressed file again from its start and takes over at the record that
// could not be read in place: past the records read, it gives what it would have given (an
// unusual record, a record cut short, a damaged stream: its record and its message). The
// chunks stay until the records in them are released.
ReadStatus CaptureReader::read_on_with_libpcap(CaptureRecord& record) {
  Impl& impl = *impl_;
  impl.chunk_pcap = false;
  impl.zstd.reset();  // (its ring stays while chunks in it are held)
  std::string problem;
  std::unique_ptr<CaptureReader> again = open(path_, problem, false);
  const std::uint64_t read = impl.records;
  if (again == nullptr) {
    impl.failed = true;
    error_ = fmt::format("{}: record {}: unreadable record ({})", display_name(path_), read + 1,
                         problem);
    return ReadStatus::Error;
  }
  // This reader's libpcap and stream (closed with `again`) for the new ones.
  Impl& fresh = *again->impl_;
  std::swap(impl.pcap, fresh.pcap);
  std::swap(impl.buffer, fresh.buffer);
  std::swap(impl.decompressor, fresh.decompressor);
  const std::uint64_t seen = impl.bytes_seen;
  impl.records = 0;
  impl.reading_to = read + 1;
  CaptureRecord skipped;
  while (impl.records < read) {
    const ReadStatus status = read_next(skipped);
    if (status == ReadStatus::Error) return status;
    if (status == ReadStatus::End) {
      impl.ended = false;
      impl.failed = true;
      error_ = fmt::format("{}: record {}: unreadable record (the file changed while read)",
                           display_name(path_), read + 1);
      return ReadStatus::Error;
    }
  }
  impl.bytes_seen = seen;
  impl.reading_to = 0;
  return read_next(record);
}

ReadStatus CaptureReader::next_pcapng(CaptureRecord& record) {
  Impl& impl = *impl_;
  if (impl.stop.load(std::memory_order_relaxed)) {
    impl.ended = true;
    return ReadStatus::End;
  }
  capture::PcapngPacket packet;
  std::string detail;
  if (impl.map != nullptr) {
    if (!impl.hold) impl.give_back(impl.pcapng->consumed());
    impl.prefetch(impl.pcapng->consumed());
  }
  const capture::PcapngStream::Result result = impl.pcapng->next(packet, detail);
  if (result == capture::PcapngStream::Result::Packet) {
    ++impl.records;
    record.number = impl.records;
    record.timestamp_ns = packet.timestamp_ns;
    record.original_length = packet.original_length;
    record.link_type = packet.link_type;
    record.data = packet.data;
    record.mapped = packet.mapped;
    if (packet.mapped && impl.again != nullptr) {
      record.source = impl.again;
      record.at = static_cast<std::uint64_t>(packet.data.data() - impl.map->data());
    }
    impl.bytes_seen += packet.data.size();
    return ReadStatus::Record;
  }
  // The end, or interrupted (Ctrl-C while reading a pipe): what was read counts.
  if (result == capture::PcapngStream::Result::End || impl.stop.load(std::memory_order_relaxed)) {
    impl.ended = true;
    return ReadStatus::End;
  }
  impl.failed = true;
  bool truncated = result == capture::PcapngStream::Result::Truncated;
  if (impl.decompressor != nullptr && impl.decompressor->failed) {
    truncated = impl.decompressor->cut_short;
    detail = impl.decompressor->problem;
  } else {
    detail = "pcapng: " + detail;
  }
  error_ = fmt::format("{}: record {}: {} ({})", display_name(path_), impl.records + 1,
                       truncated ? "truncated record" : "unreadable record", detail);
  return ReadStatus::Error;
}

std::uint32_t CaptureReader::link_type() const { return impl_->link_type; }

const std::vector<std::uint32_t>& CaptureReader::link_types() const { return impl_->link_types; }

std::uint32_t CaptureReader::snaplen() const {
  if (impl_->pcapng) return impl_->snaplen;
  const int snaplen = pcap_snapshot(impl_->pcap);
  return snaplen < 0 ? 0 : static_cast<std::uint32_t>(snaplen);
}

void CaptureReader::hold_mapped() { impl_->hold = true; }

void CaptureReader::release(std::uint64_t offset) { impl_->give_back(offset); }

bool CaptureReader::regular_file() const { return impl_->regular && !impl_->live; }

std::optional<LiveStats> CaptureReader::live_stats() const {
  if (!impl_->live) return std::nullopt;
  pcap_stat stat{};
  if (pcap_stats(impl_->pcap, &stat) != 0) return std::nullopt;
  return LiveStats{stat.ps_recv, stat.ps_drop, stat.ps_ifdrop};
}

std::uint64_t CaptureReader::bytes_read() const {
  if (impl_->pcapng) return impl_->pcapng->consumed();
  if (impl_->chunk_pcap) return impl_->record_at;
  if (FILE* stream = pcap_file(impl_->pcap); stream != nullptr) {
    const long position = std::ftell(stream);
    if (position >= 0) return static_cast<std::uint64_t>(position);
  }
  return impl_->bytes_seen;
}

std::string libpcap_version() { return pcap_lib_version(); }

}  // namespace mpa
