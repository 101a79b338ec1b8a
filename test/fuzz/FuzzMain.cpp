//===- FuzzMain.cpp - Runs a fuzz target on files, without libFuzzer ------===//
//
// In builds without NEURON_FUZZERS (no Clang), each fuzz target is linked
// with this driver: it runs LLVMFuzzerTestOneInput once on every file named
// on the command line and on every file in every folder named there, as a
// libFuzzer binary does, so the kept regression inputs run in every build.
// Arguments starting with '-' are libFuzzer's options and are ignored.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

/// Runs the target on the bytes of `path`; false when it cannot be read.
static bool runFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "error: cannot read '%s'\n", path.c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return true;
}

int main(int argc, char **argv) {
  int ran = 0;
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] == '-')
      continue;
    fs::path arg(argv[i]);
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      for (const fs::directory_entry &e : fs::directory_iterator(arg, ec))
        if (e.is_regular_file()) {
          if (!runFile(e.path()))
            return 1;
          ++ran;
        }
    } else {
      if (!runFile(arg))
        return 1;
      ++ran;
    }
  }
  std::printf("ran %d inputs\n", ran);
  return 0;
}
