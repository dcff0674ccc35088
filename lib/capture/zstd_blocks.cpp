// A zstd file decompressed block by block where the caller says (see zstd_blocks.h).
#include "zstd_blocks.h"

#define ZSTD_STATIC_LINKING_ONLY  // the buffer-less API (exported by libzstd 1.4 and later)
#include <sys/mman.h>
#include <zstd.h>

#include <algorithm>
#include <limits>

namespace mpa::capture {
namespace {

// Input pages already decompressed are given back this many octets at a time.
constexpr std::size_t kGiveBack = 4u << 20;

}  // namespace

ZstdBlocks::ZstdBlocks(int fd, std::uint64_t size, std::size_t max_window) {
  if (size == 0 || size > std::numeric_limits<std::size_t>::max()) return;
  void* at = mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (at == MAP_FAILED) return;
  madvise(at, static_cast<std::size_t>(size), MADV_SEQUENTIAL);
  map_ = static_cast<const std::uint8_t*>(at);
  size_ = static_cast<std::size_t>(size);
  ZSTD_frameHeader header{};
  if (ZSTD_getFrameHeader(&header, map_, size_) != 0 || header.frameType != ZSTD_frame ||
      header.windowSize > max_window) {
    return;
  }
  // Every frame of the file may refer back as far as its first one does.
  max_window_ = static_cast<std::size_t>(header.windowSize);
  keep_ = ZSTD_decodingBufferSize_min(max_window_, ZSTD_CONTENTSIZE_UNKNOWN);
  if (ZSTD_isError(keep_)) return;
  ctx_ = ZSTD_createDCtx();
}

ZstdBlocks::~ZstdBlocks() {
  if (ctx_ != nullptr) ZSTD_freeDCtx(ctx_);
  if (map_ != nullptr) munmap(const_cast<std::uint8_t*>(map_), size_);
}

std::size_t ZstdBlocks::decompress(std::uint8_t* out, std::size_t room) {
  std::size_t written = 0;
  while (ctx_ != nullptr && !failed_ && !ended_) {
    if (!in_frame_) {
      if (at_ == size_) {  // the end, after a whole frame
        ended_ = true;
        break;
      }
      ZSTD_frameHeader header{};
      if (ZSTD_getFrameHeader(&header, map_ + at_, size_ - at_) != 0 ||
          (header.frameType == ZSTD_frame && header.windowSize > max_window_)) {
        failed_ = true;
        break;
      }
      block_ = header.frameType == ZSTD_frame ? header.blockSizeMax : 0;
      if (ZSTD_isError(ZSTD_decompressBegin(ctx_))) {
        failed_ = true;
        break;
      }
      in_frame_ = true;
    }
    const std::size_t need = ZSTD_nextSrcSizeToDecompress(ctx_);
    if (need == 0) {  // the frame ended
      in_frame_ = false;
      continue;
    }
    const ZSTD_nextInputType_e next = ZSTD_nextInputType(ctx_);
    if ((next == ZSTDnit_block || next == ZSTDnit_lastBlock) && room - written < block_) break;
    if (need > size_ - at_) {  // cut short
      failed_ = true;
      break;
    }
    const std::size_t got =
        ZSTD_decompressContinue(ctx_, out + written, room - written, map_ + at_, need);
    if (ZSTD_isError(got)) {
      failed_ = true;
      break;
    }
    at_ += need;
    written += got;
  }
  give_back_behind();
  return written;
}

void ZstdBlocks::give_back_behind() {
  const std::size_t behind = at_ & ~(kGiveBack - 1);
  if (behind <= released_ + kGiveBack) return;
  madvise(const_cast<std::uint8_t*>(map_) + released_, behind - released_, MADV_DONTNEED);
  released_ = behind;
}

}  // namespace mpa::capture
