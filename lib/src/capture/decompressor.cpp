// Compressed captures decompressed into a FILE (see decompressor.h).
#include "capture/decompressor.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace mpa::capture {
namespace {

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

int decompressor_close(void* cookie) {
  delete static_cast<Decompressor*>(cookie);
  return 0;
}

// The decompressor of `raw` (its first `got` octets `magic`), its codec set up.
Decompressor* make_decompressor(FILE* raw, bool seekable, Compression kind,
                                const std::array<std::uint8_t, 4>& magic, std::size_t got) {
  auto* d = new Decompressor();
  d->input.in.raw = raw;
  d->input.in.pipe = !seekable;
  d->input.in.prefix = magic;
  d->input.in.prefix_size = got;
  d->kind = kind;
  if (kind != Compression::None && seekable) {
    struct stat status {};
    if (fstat(fileno(raw), &status) == 0) {
      d->input.map_file(static_cast<std::uint64_t>(status.st_size));
    }
  }
#if MPA_HAVE_ISAL
  if (kind == Compression::Gzip && seekable) d->start_isal();
#endif
  if (kind == Compression::Gzip && !seekable) {
    if (inflateInit2(&d->zlib.z, 15 + 32) != Z_OK) {
      d->failed = true;
      d->problem = "cannot decompress gzip";
    } else {
      d->zlib.ready = true;
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
  return d;
}

}  // namespace

std::size_t Inflow::read_some(std::uint8_t* out, std::size_t size) {
  std::size_t n = 0;
  while (n < size && prefix_at < prefix_size) out[n++] = prefix[prefix_at++];
  if (n == size) return n;
  if (!pipe) return n + std::fread(out + n, 1, size - n, raw);
  if (n > 0) return n;
  // An error or an interruption (Ctrl-C) ends the stream here, as its end would.
  const ssize_t got = ::read(fileno(raw), out, size);
  return got > 0 ? static_cast<std::size_t>(got) : 0;
}

void CompressedInput::map_file(std::uint64_t file_size) {
  auto file = std::make_shared<MappedFile>(fileno(in.raw), file_size);
  if (file->data() == nullptr) return;
  map = std::move(file);
  in.prefix_at = in.prefix_size;  // (the sniffed octets are in the mapping)
}

bool CompressedInput::refill() {
  if (at < size || ended) return at < size;
  at = 0;
  if (map != nullptr && !map_exhausted) {
    const std::uint64_t offset = in.delivered;
    if (offset < map->size()) {
      map->give_back(offset, MappedFile::kGiveBack);
      map->read_again_from(offset);  // (a seek back)
      data = map->data() + offset;
      size = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), map->size() - offset));
      in.delivered += size;
      return true;
    }
    map_exhausted = true;
    if (fseeko(in.raw, static_cast<off_t>(offset), SEEK_SET) != 0) {
      ended = true;
      size = 0;
      return false;
    }
  }
  data = buffer.data();
  size = in.read(buffer.data(), buffer.size());
  if (size == 0) ended = true;
  return size > 0;
}

bool CompressedInput::restart(std::uint64_t offset) {
  at = size = 0;
  ended = false;
  map_exhausted = false;
  return in.seek(offset);
}

Decompressor::~Decompressor() {
  if (zlib.ready) inflateEnd(&zlib.z);
  if (zstd) ZSTD_freeDCtx(zstd);
#if MPA_HAVE_LZ4
  if (lz4) LZ4F_freeDecompressionContext(lz4);
#endif
  if (input.in.raw) std::fclose(input.in.raw);
}

ssize_t Decompressor::fail(std::size_t produced, std::string why) {
  failed = true;
  problem = std::move(why);
  return produced ? static_cast<ssize_t>(produced) : -1;
}

#if MPA_HAVE_ISAL
void Decompressor::start_isal() {
  isal_inflate_init(&isal.state);
  isal.state.crc_flag = ISAL_GZIP;
  isal.active = true;
}

bool Decompressor::to_zlib() {
  isal.active = false;
  zlib.skip = isal.member_out;
  in_frame = false;
  return input.restart(isal.member_start);
}

void Decompressor::inflate_isal(char* out, std::size_t size, std::size_t& produced) {
  inflate_state& s = isal.state;
  s.next_in = const_cast<std::uint8_t*>(input.data + input.at);
  s.avail_in = static_cast<std::uint32_t>(input.size - input.at);
  s.next_out = reinterpret_cast<std::uint8_t*>(out);
  s.avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(size, 1u << 30));
  const std::uint32_t room = s.avail_out;
  const int r = isal_inflate(&s);
  input.at = input.size - s.avail_in;
  produced = room - s.avail_out;
  isal.member_out += produced;
  if (r != ISAL_DECOMP_OK) {
    if (!to_zlib()) fail(produced, "cannot read the gzip stream again");
    return;
  }
  in_frame = s.block_state != ISAL_BLOCK_FINISH;
  if (!in_frame) {
    // Another member may follow: from here.
    isal.member_start = input.in.delivered - (input.size - input.at);
    isal.member_out = 0;
    start_isal();
  }
}
#endif

void Decompressor::inflate_zlib(char* out, std::size_t size, std::size_t& produced) {
  z_stream& z = zlib.z;
  if (!zlib.ready) {
    if (inflateInit2(&z, 15 + 32) != Z_OK) {
      fail(0, "cannot decompress gzip");
      return;
    }
    zlib.ready = true;
  }
  z.next_in = const_cast<Bytef*>(input.data + input.at);
  z.avail_in = static_cast<uInt>(input.size - input.at);
  z.next_out = reinterpret_cast<Bytef*>(out);
  z.avail_out = static_cast<uInt>(size);
  const int r = inflate(&z, Z_NO_FLUSH);
  input.at = input.size - z.avail_in;
  produced = size - z.avail_out;
  if (zlib.skip > 0) {
    // Given already by igzip: not again.
    const std::size_t drop = static_cast<std::size_t>(std::min<std::uint64_t>(zlib.skip, produced));
    std::memmove(out, out + drop, produced - drop);
    produced -= drop;
    zlib.skip -= drop;
  }
  in_frame = r != Z_STREAM_END;
  if (r == Z_STREAM_END) {
    inflateReset(&z);  // another gzip member may follow
  } else if (r != Z_OK && r != Z_BUF_ERROR) {
    fail(produced, fmt::format("the gzip stream is damaged ({})", z.msg ? z.msg : "zlib error"));
  }
}

void Decompressor::decompress_lz4(char* out, std::size_t size, std::size_t& produced) {
#if MPA_HAVE_LZ4
  // One frame after another: the context starts over after a frame's end by itself.
  std::size_t out_size = size, in_size = input.size - input.at;
  const std::size_t r =
      LZ4F_decompress(lz4, out, &out_size, input.data + input.at, &in_size, nullptr);
  input.at += in_size;
  produced = out_size;
  if (LZ4F_isError(r)) {
    fail(produced, fmt::format("the LZ4 stream is damaged ({})", LZ4F_getErrorName(r)));
    return;
  }
  in_frame = r != 0;
#else
  (void)out;
  (void)size;
  (void)produced;
  fail(0, "an LZ4-compressed capture, and this mpa-check was built without liblz4");
#endif
}

void Decompressor::decompress_zstd(char* out, std::size_t size, std::size_t& produced) {
  ZSTD_inBuffer zin{input.data + input.at, input.size - input.at, 0};
  ZSTD_outBuffer zout{out, size, 0};
  const std::size_t r = ZSTD_decompressStream(zstd, &zout, &zin);
  input.at += zin.pos;
  produced = zout.pos;
  if (ZSTD_isError(r)) {
    fail(produced, fmt::format("the zstd stream is damaged ({})", ZSTD_getErrorName(r)));
    return;
  }
  in_frame = r != 0;
}

void Decompressor::step(char* out, std::size_t size, std::size_t& produced) {
#if MPA_HAVE_ISAL
  if (isal.active) return inflate_isal(out, size, produced);
#endif
  if (kind == Compression::Gzip) return inflate_zlib(out, size, produced);
  if (kind == Compression::Lz4) return decompress_lz4(out, size, produced);
  decompress_zstd(out, size, produced);
}

ssize_t Decompressor::read(char* out, std::size_t size) {
  if (failed) return -1;
  std::size_t produced = 0;
  while (produced == 0) {
    if (!input.refill()) {
#if MPA_HAVE_ISAL
      if (isal.active && in_frame) {
        if (!to_zlib()) return fail(0, "cannot read the gzip stream again");
        continue;
      }
#endif
      if (!in_frame) return 0;  // the end, between members or frames
      cut_short = true;
      return fail(0, fmt::format("the {} stream ends early", name()));
    }
    step(out, size, produced);
    if (failed) return produced ? static_cast<ssize_t>(produced) : -1;
  }
  return static_cast<ssize_t>(produced);
}

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

FILE* decompressing(FILE* raw, bool seekable, Compression& kind, std::array<std::uint8_t, 4>& head,
                    Decompressor*& decompressor) {
  decompressor = nullptr;
  // A pipe unbuffered, so that the sniffed octets are all stdio took from it.
  if (!seekable) std::setvbuf(raw, nullptr, _IONBF, 0);
  std::array<std::uint8_t, 4> magic{};
  const std::size_t got = std::fread(magic.data(), 1, magic.size(), raw);
  kind = sniff(magic, got);
  head = magic;
  if (kind == Compression::None && seekable && std::fseek(raw, 0, SEEK_SET) == 0) return raw;
  Decompressor* d = make_decompressor(raw, seekable, kind, magic, got);
  if (kind == Compression::None) {
    // A pipe: pass the octets through unchanged (the sniffed ones first).
    static const cookie_io_functions_t passthrough = {
        [](void* c, char* out, std::size_t size) -> ssize_t {
          return static_cast<ssize_t>(static_cast<Decompressor*>(c)->input.in.read(
              reinterpret_cast<std::uint8_t*>(out), size));
        },
        nullptr, nullptr, decompressor_close};
    return fopencookie(d, "rb", passthrough);
  }
  decompressor = d;
  while (d->head_size < d->head.size()) {
    const ssize_t n = d->read(reinterpret_cast<char*>(d->head.data() + d->head_size),
                              d->head.size() - d->head_size);
    if (n <= 0) break;
    d->head_size += static_cast<std::size_t>(n);
  }
  head = d->head;
  static const cookie_io_functions_t functions = {decompressor_read, nullptr, nullptr,
                                                  decompressor_close};
  return fopencookie(d, "rb", functions);
}

}  // namespace mpa::capture
