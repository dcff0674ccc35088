// Replays fuzz inputs without libFuzzer (simdjson's fuzz/main.cpp): every file named on
// the command line, and every regular file below every directory named, is passed to the
// target's LLVMFuzzerTestOneInput once. Lets ordinary CI (g++ too) re-run the seed corpus
// and every past crasher. A missing path is not an error (git keeps no empty directories).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool replay_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "fuzz replay: cannot read %s\n", path.c_str());
    return false;
  }
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  // A fresh copy of exactly `size` octets, so that ASan catches reads past the end as a
  // fuzzer run would.
  std::vector<std::uint8_t> exact(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t replayed = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path root(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_regular_file(root, ec)) {
      ok &= replay_file(root);
      ++replayed;
      continue;
    }
    if (!std::filesystem::is_directory(root, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root, ec)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_regular_file() && !name.empty() && name[0] != '.' && name != "README.md") {
        files.push_back(entry.path());
      }
    }
    std::sort(files.begin(), files.end());  // a stable order, for reproducible failures
    for (const auto& file : files) {
      std::fprintf(stderr, "fuzz replay: %s\n", file.c_str());
      ok &= replay_file(file);
      ++replayed;
    }
  }
  std::printf("fuzz replay: %zu inputs replayed\n", replayed);
  return ok ? 0 : 1;
}
