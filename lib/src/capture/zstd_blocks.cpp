// A zstd file decompressed block by block where the caller says (see zstd_blocks.h).
#include "capture/zstd_blocks.h"

#define ZSTD_STATIC_LINKING_ONLY  // the buffer-less API (exported by libzstd 1.4 and later)
#include <zstd.h>

#include <utility>

namespace mpa::capture {

ZstdBlocks::ZstdBlocks(std::shared_ptr<MappedFile> file, std::size_t max_window)
    : file_(std::move(file)) {
  if (file_ == nullptr || file_->data() == nullptr) return;
  ZSTD_frameHeader header{};
  if (ZSTD_getFrameHeader(&header, file_->data(), file_->size()) != 0 ||
      header.frameType != ZSTD_frame || header.windowSize > max_window) {
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
}

std::size_t ZstdBlocks::decompress(std::uint8_t* out, std::size_t room) {
  if (ctx_ == nullptr || failed_ || ended_) return 0;
  const std::uint8_t* map = file_->data();
  const std::size_t size = file_->size();
  std::size_t written = 0;
  while (!failed_ && !ended_) {
    if (!in_frame_) {
      if (at_ == size) {  // the end, after a whole frame
        ended_ = true;
        break;
      }
      ZSTD_frameHeader header{};
      if (ZSTD_getFrameHeader(&header, map + at_, size - at_) != 0 ||
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
    if (need > size - at_) {  // cut short
      failed_ = true;
      break;
    }
    const std::size_t got =
        ZSTD_decompressContinue(ctx_, out + written, room - written, map + at_, need);
    if (ZSTD_isError(got)) {
      failed_ = true;
      break;
    }
    at_ += need;
    written += got;
  }
  file_->give_back(at_, MappedFile::kGiveBack);
  return written;
}

}  // namespace mpa::capture
