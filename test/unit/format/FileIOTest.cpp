//===- FileIOTest.cpp - Whole-file writes replace files whole -------------===//
//
// writeBinaryFile/writeTextFile go through a temporary file renamed over the
// target: a write that fails part-way (here: past the process's file size
// limit, as a full disk would) leaves the earlier file as it was and no
// temporary file behind.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/FileIO.h"

#include "gtest/gtest.h"

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>

namespace neuron::rt {
namespace {

namespace fs = std::filesystem;

/// A fresh, empty folder for one test.
std::string freshDir(const std::string &name) {
  fs::path dir = fs::path(testing::TempDir()) / ("fileio-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

/// The names of the entries of `dir`.
std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  return names;
}

std::string contents(const std::string &path) {
  absl::StatusOr<std::vector<uint8_t>> bytes = readBinaryFile(path, "file");
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : "";
}

/// Lowers the process's file size limit to `bytes` (writes past it fail
/// with EFBIG instead of raising SIGXFSZ) until destroyed.
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved);
    previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
  }

private:
  rlimit saved;
  void (*previous)(int);
};

TEST(FileIO, WriteReplacesTheWholeFile) {
  std::string dir = freshDir("replace");
  std::string path = dir + "/out.txt";
  ASSERT_TRUE(writeTextFile(path, "a longer first version", "report").ok());
  ASSERT_TRUE(writeTextFile(path, "short", "report").ok());
  EXPECT_EQ(contents(path), "short");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"out.txt"});
}

TEST(FileIO, NewFileTakesTheUmaskedDefaultMode) {
  std::string path = freshDir("mode") + "/out.bin";
  mode_t mask = umask(022);
  ASSERT_TRUE(writeBinaryFile(path, {1, 2, 3}, "file").ok());
  umask(mask);
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(FileIO, FailedWriteLeavesTheEarlierFile) {
  std::string dir = freshDir("failed");
  std::string path = dir + "/result.npy";
  ASSERT_TRUE(writeTextFile(path, "the good result", ".npy file").ok());

  std::vector<uint8_t> large(1 << 20, 0x5a);
  absl::Status status;
  {
    FileSizeLimit limit(4096);
    status = writeBinaryFile(path, large, ".npy file");
  }
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("cannot write .npy file '" + path + "'"),
            std::string::npos)
      << status;
  EXPECT_EQ(contents(path), "the good result");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"result.npy"});
}

TEST(FileIO, NonRegularFileIsWrittenInPlace) {
  ASSERT_TRUE(writeTextFile("/dev/null", "discarded", "trace").ok());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(FileIO, MissingFolderIsNamed) {
  absl::Status status =
      writeTextFile("/nonexistent-dir/profile.json", "{}", "profile");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find("/nonexistent-dir/profile.json"),
            std::string::npos);
}

} // namespace
} // namespace neuron::rt
