// Unit tests for capture::MappedFile (lib/src/capture/mapped_file.h, private to mpa_capture): a
// file mapped for reading front to back gives the pages behind its reader back, as whole
// 4 MiB pieces, once more than the lag has gathered, and counts again from where a reader
// went back to. What is given back is read in the mapping's resident set (/proc/self/smaps).
#include "capture/mapped_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mpa::capture {
namespace {

constexpr std::uint64_t kMiB = 1u << 20;
constexpr std::uint64_t kSize = 24 * kMiB;

class MappedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ =
        (std::filesystem::temp_directory_path() / ("mpa_mapped_file_" + std::to_string(getpid())))
            .string();
    std::vector<char> octets(kSize);
    for (std::size_t i = 0; i < octets.size(); ++i) octets[i] = static_cast<char>(i * 7 + 1);
    std::ofstream(path_, std::ios::binary).write(octets.data(), std::streamsize(octets.size()));
    fd_ = open(path_.c_str(), O_RDONLY);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) close(fd_);
    std::filesystem::remove(path_);
  }

  // Reads every page of [from, to) of the mapping (so it is resident); their octets' sum.
  static std::uint64_t touch(const MappedFile& file, std::uint64_t from, std::uint64_t to) {
    const volatile std::uint8_t* octets = file.data();  // (read even where the sum is unused)
    std::uint64_t sum = 0;
    for (std::uint64_t at = from; at < to; at += 4096) sum += octets[at];
    return sum;
  }
  // The mapping's resident octets, in MiB (rounded down).
  static std::uint64_t resident_mib(const MappedFile& file) {
    std::ifstream smaps("/proc/self/smaps");
    const auto start = reinterpret_cast<std::uintptr_t>(file.data());
    std::string line;
    bool ours = false;
    while (std::getline(smaps, line)) {
      if (!line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
          line.find('-') != std::string::npos) {
        ours = std::stoull(line.substr(0, line.find('-')), nullptr, 16) == start;
      } else if (ours && line.rfind("Rss:", 0) == 0) {
        return std::stoull(line.substr(4)) / 1024;  // (kB)
      }
    }
    ADD_FAILURE() << "the mapping is not in /proc/self/smaps";
    return 0;
  }

  std::string path_;
  int fd_ = -1;
};

TEST_F(MappedFileTest, MapsTheWholeFile) {
  const MappedFile file(fd_, kSize);
  ASSERT_NE(file.data(), nullptr);
  EXPECT_EQ(file.size(), kSize);
  EXPECT_EQ(file.data()[kSize - 1], static_cast<std::uint8_t>((kSize - 1) * 7 + 1));
  EXPECT_EQ(MappedFile(fd_, 0).data(), nullptr);
  EXPECT_EQ(MappedFile(-1, kSize).data(), nullptr);
}

TEST_F(MappedFileTest, GivesBackWholePiecesBehindTheReader) {
  MappedFile file(fd_, kSize);
  const std::uint64_t sum = touch(file, 0, kSize);
  EXPECT_EQ(resident_mib(file), 24u);
  file.give_back(3 * kMiB);  // not a whole piece behind yet
  EXPECT_EQ(resident_mib(file), 24u);
  file.give_back(10 * kMiB);  // [0, 8 MiB)
  EXPECT_EQ(resident_mib(file), 16u);
  file.give_back(kSize + kMiB);  // past the end: up to the last whole piece
  EXPECT_EQ(resident_mib(file), 0u);
  EXPECT_EQ(touch(file, 0, kSize), sum);  // read from the file again
}

TEST_F(MappedFileTest, KeepsTheLagBehindTheReader) {
  MappedFile file(fd_, kSize);
  touch(file, 0, kSize);
  file.give_back(7 * kMiB, MappedFile::kGiveBack);  // one piece behind: not more than the lag
  EXPECT_EQ(resident_mib(file), 24u);
  file.give_back(9 * kMiB, MappedFile::kGiveBack);  // two pieces: given back
  EXPECT_EQ(resident_mib(file), 16u);
  file.give_back(15 * kMiB, MappedFile::kGiveBack);  // one more since: kept
  EXPECT_EQ(resident_mib(file), 16u);
  file.give_back(17 * kMiB, MappedFile::kGiveBack);
  EXPECT_EQ(resident_mib(file), 8u);
}

TEST_F(MappedFileTest, CountsAgainFromWhereTheReaderWentBack) {
  MappedFile file(fd_, kSize);
  touch(file, 0, kSize);
  file.give_back(20 * kMiB);
  EXPECT_EQ(resident_mib(file), 4u);
  file.read_again_from(5 * kMiB);  // from the piece it is in, [4, 8 MiB)
  touch(file, 4 * kMiB, kSize);
  EXPECT_EQ(resident_mib(file), 20u);
  file.give_back(12 * kMiB);
  EXPECT_EQ(resident_mib(file), 12u);
  file.read_again_from(kSize);  // not back: nothing changes
  file.give_back(16 * kMiB);
  EXPECT_EQ(resident_mib(file), 8u);
}

}  // namespace
}  // namespace mpa::capture
