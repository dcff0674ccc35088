// A zstd file decompressed block by block straight into memory the caller chooses (zstd's
// buffer-less API), instead of through the streaming decoder's own window and a copy out of
// it: for the bench's zstd copy that copy was a quarter of the reading thread's time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "capture/mapped_file.h"

struct ZSTD_DCtx_s;

namespace mpa::capture {

class ZstdBlocks {
 public:
  // The compressed file, mapped (shared with whoever else reads it; its pages are given back
  // behind as blocks are decompressed). usable() is false where it is not mapped, does not start
  // with a zstd frame, or its first frame's window is larger than `max_window` octets.
  ZstdBlocks(std::shared_ptr<MappedFile> file, std::size_t max_window);
  ~ZstdBlocks();
  ZstdBlocks(const ZstdBlocks&) = delete;
  ZstdBlocks& operator=(const ZstdBlocks&) = delete;

  bool usable() const { return ctx_ != nullptr && !failed_; }
  // Octets before the place written next that a block may still refer to
  // (ZSTD_decodingBufferSize_min of the first frame's window, the largest a later frame may
  // have): the caller keeps them unchanged where they were written.
  std::size_t keep() const { return keep_; }
  // The most octets one block gives.
  static constexpr std::size_t kMaxBlock = 128u << 10;

  // Decompresses whole blocks into [out, out + room) while the next one surely fits; returns
  // the octets written. A block written elsewhere than right after the last one refers back
  // into the octets written before that jump (zstd's "round buffer"), which must stay in place.
  // Writes nothing (and gives nothing back) once the stream ended (ended()) or failed
  // (failed()).
  std::size_t decompress(std::uint8_t* out, std::size_t room);
  // The file ended after a whole frame.
  bool ended() const { return ended_; }
  // Damaged, cut short, or a later frame's window too large: the caller reads the file again
  // the usual way, which says what is wrong.
  bool failed() const { return failed_; }

 private:
  ZSTD_DCtx_s* ctx_ = nullptr;
  std::shared_ptr<MappedFile> file_;
  std::size_t at_ = 0;          // the next input octet
  std::size_t max_window_ = 0;  // the first frame's window
  std::size_t keep_ = 0;
  std::size_t block_ = kMaxBlock;  // the frame's largest block
  bool in_frame_ = false;
  bool ended_ = false;
  bool failed_ = false;
};

}  // namespace mpa::capture
