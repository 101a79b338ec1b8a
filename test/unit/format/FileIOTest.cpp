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
#include <unistd.h>

namespace neuron::rt {

namespace fs = std::filesystem;

/// A fresh, empty folder for one test, apart from other builds' runs.
static std::string freshDir(const std::string &name) {
  fs::path dir = fs::path(testing::TempDir()) /
                 ("fileio-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

/// The names of the entries of `dir`.
static std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  return names;
}

static std::string contents(const std::string &path) {
  absl::StatusOr<std::vector<uint8_t>> bytes = readBinaryFile(path, "file");
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : "";
}

namespace {
/// Lowers the process's file size limit to `bytes` (writes past it fail
/// with EFBIG instead of raising SIGXFSZ) until destroyed.
class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    EXPECT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
    previous = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved;
    lowered.rlim_cur = bytes;
    EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &lowered), 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
  }

private:
  rlimit saved;
  void (*previous)(int);
};
} // namespace

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

TEST(FileIO, LinkToANonRegularFileIsWrittenInPlace) {
  // Through a link in the test's folder, so that a regression replaces the
  // link, never /dev/null.
  std::string link = freshDir("device") + "/null";
  fs::create_symlink("/dev/null", link);
  ASSERT_TRUE(writeTextFile(link, "discarded", "trace").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(FileIO, LinkKeepsPointingAtTheReplacedFile) {
  std::string dir = freshDir("link");
  ASSERT_TRUE(writeTextFile(dir + "/real.json", "old", "profile").ok());
  fs::create_symlink("real.json", dir + "/profile.json");
  ASSERT_TRUE(writeTextFile(dir + "/profile.json", "new", "profile").ok());
  EXPECT_TRUE(fs::is_symlink(dir + "/profile.json"));
  EXPECT_EQ(contents(dir + "/real.json"), "new");
}

TEST(FileIO, ReplacedFileKeepsItsMode) {
  std::string path = freshDir("keep-mode") + "/report.json";
  ASSERT_TRUE(writeTextFile(path, "first", "report").ok());
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(writeTextFile(path, "second", "report").ok());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(contents(path), "second");
}

TEST(FileIO, MissingFolderIsNamed) {
  absl::Status status =
      writeTextFile("/nonexistent-dir/profile.json", "{}", "profile");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(status.message().find("/nonexistent-dir/profile.json"),
            std::string::npos);
}

} // namespace neuron::rt
