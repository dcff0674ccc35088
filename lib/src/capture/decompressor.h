// Compressed captures: .gz (gzip, possibly several members), .zst (zstd) and .lz4 (LZ4
// frames), which Wireshark opens too. A FILE of the decompressed octets (fopencookie) goes
// to libpcap or the pcapng reader. Private to mpa_capture.
#pragma once

#if MPA_HAVE_LZ4
#include <lz4frame.h>
#endif
#if MPA_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <sys/types.h>
#include <zlib.h>
#include <zstd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "capture/mapped_file.h"

namespace mpa::capture {

enum class Compression : std::uint8_t { None, Gzip, Zstd, Lz4 };

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
  std::size_t read_some(std::uint8_t* out, std::size_t size);
};

// The compressed octets as the decompressor takes them. A compressed regular file is mapped
// and its octets handed to the decompressor where they lie (no read(2) copy), given back
// behind as it goes; past the mapping (a file that grew) the stream reads on. (A zstd ring
// decompresses from the same mapping.)
struct CompressedInput {
  Inflow in;
  std::vector<std::uint8_t> buffer = std::vector<std::uint8_t>(1u << 18);
  const std::uint8_t* data = nullptr;  // buffer.data(), or a window of the mapping
  std::size_t at = 0, size = 0;        // octets of `data` taken, and there
  bool ended = false;
  std::shared_ptr<MappedFile> map;
  bool map_exhausted = false;

  void map_file(std::uint64_t file_size);
  // More input where all was taken; false at its end.
  bool refill();
  // Reading starts over at file offset `offset` (a regular file only).
  bool restart(std::uint64_t offset);
};

// zlib's inflater (gzip from a pipe, or where igzip gave up).
struct ZlibInflate {
  z_stream z{};
  bool ready = false;
  std::uint64_t skip = 0;  // octets zlib gives again, not to be returned twice
};

#if MPA_HAVE_ISAL
// gzip from a regular file: ISA-L's igzip. Where it finds the stream damaged or cut short,
// zlib reads the member again from its start (the octets igzip gave skipped), so that what
// is read and what is said about it are zlib's.
struct IsalInflate {
  inflate_state state{};
  bool active = false;
  std::uint64_t member_start = 0;  // file offset of the member being inflated
  std::uint64_t member_out = 0;    // octets it gave so far
};
#endif

class Decompressor {
 public:
  CompressedInput input;
  Compression kind = Compression::None;
  // The first decompressed octets, read ahead to tell pcap from pcapng; returned first.
  std::array<std::uint8_t, 4> head{};
  std::size_t head_size = 0, head_at = 0;
  bool in_frame = false;  // inside a gzip member, zstd or LZ4 frame
  bool failed = false;
  bool cut_short = false;
  std::string problem;      // why it failed
  std::uint64_t given = 0;  // decompressed octets decompressor_read() returned
  ZlibInflate zlib;
#if MPA_HAVE_ISAL
  IsalInflate isal;
#endif
  ZSTD_DCtx* zstd = nullptr;
#if MPA_HAVE_LZ4
  LZ4F_dctx* lz4 = nullptr;
#endif

  Decompressor() = default;
  ~Decompressor();
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  // Up to `size` decompressed octets (the head not included); 0 at the end, -1 where it failed.
  ssize_t read(char* out, std::size_t size);
  const char* name() const {
    return kind == Compression::Gzip ? "gzip" : kind == Compression::Zstd ? "zstd" : "LZ4";
  }
#if MPA_HAVE_ISAL
  void start_isal();
#endif

 private:
  // A stream that ends inside a gzip member, zstd or LZ4 frame was cut short: an error, not
  // an end, so that the reader names the record it could not read.
  ssize_t fail(std::size_t produced, std::string why);
  // What the input holds now, through the codec: into `produced` (failed set where the
  // stream cannot be read on).
  void step(char* out, std::size_t size, std::size_t& produced);
#if MPA_HAVE_ISAL
  void inflate_isal(char* out, std::size_t size, std::size_t& produced);
  // igzip found the member damaged or cut short: zlib reads it again from its start.
  bool to_zlib();
#endif
  void inflate_zlib(char* out, std::size_t size, std::size_t& produced);
  void decompress_lz4(char* out, std::size_t size, std::size_t& produced);
  void decompress_zstd(char* out, std::size_t size, std::size_t& produced);
};

// The head first, then read(); what the FILE of a compressed capture reads.
ssize_t decompressor_read(void* cookie, char* out, std::size_t size);

// `raw` itself when it is not compressed (a regular file is rewound, a pipe is wrapped so
// that the sniffed octets are read again), else a FILE of its decompressed octets. `head`
// gets the first (up to 4) octets the returned FILE will give, to tell pcap from pcapng.
// `decompressor` (owned by the returned FILE, gone when it is closed) says why a compressed
// stream failed.
FILE* decompressing(FILE* raw, bool seekable, Compression& kind, std::array<std::uint8_t, 4>& head,
                    Decompressor*& decompressor);

}  // namespace mpa::capture
