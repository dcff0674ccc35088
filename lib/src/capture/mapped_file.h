// A regular file mapped for reading front to back, its pages given back behind the reader:
// what the reader has passed costs no memory, however large the file. One home for what the
// plain pcapng reader, the decompressor's input and the zstd ring each did by hand.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpa::capture {

class MappedFile {
 public:
  // `size` octets of the regular file `fd`, mapped read-only; data() is nullptr where they
  // cannot be (nothing to map, larger than the address space, mmap refused).
  MappedFile(int fd, std::uint64_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

  // Pages are given back this many octets at a time.
  static constexpr std::uint64_t kGiveBack = 4u << 20;
  // The reader is at `offset`: the pages before it (whole kGiveBack pieces, not yet given back)
  // are given back once more than `lag` octets of them have gathered. A page looked at again
  // is read from the file again.
  void give_back(std::uint64_t offset, std::uint64_t lag = 0);
  // The reader went back to `offset`: what it gives back is counted from there again.
  void read_again_from(std::uint64_t offset);

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::uint64_t released_ = 0;  // pages before this were given back
};

}  // namespace mpa::capture
