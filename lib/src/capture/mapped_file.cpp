// A regular file mapped for reading front to back (see mapped_file.h).
#include "capture/mapped_file.h"

#include <sys/mman.h>

#include <algorithm>
#include <limits>

namespace mpa::capture {

MappedFile::MappedFile(int fd, std::uint64_t size) {
  if (size == 0 || size > std::numeric_limits<std::size_t>::max()) return;
  void* at = mmap(nullptr, static_cast<std::size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (at == MAP_FAILED) return;
  madvise(at, static_cast<std::size_t>(size), MADV_SEQUENTIAL);
  data_ = static_cast<const std::uint8_t*>(at);
  size_ = static_cast<std::size_t>(size);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) munmap(const_cast<std::uint8_t*>(data_), size_);
}

void MappedFile::give_back(std::uint64_t offset, std::uint64_t lag) {
  if (data_ == nullptr) return;
  const std::uint64_t behind = std::min<std::uint64_t>(offset, size_) & ~(kGiveBack - 1);
  if (behind <= released_ + lag) return;
  madvise(const_cast<std::uint8_t*>(data_) + released_, behind - released_, MADV_DONTNEED);
  released_ = behind;
}

void MappedFile::read_again_from(std::uint64_t offset) {
  if (offset < released_) released_ = offset & ~(kGiveBack - 1);
}

}  // namespace mpa::capture
