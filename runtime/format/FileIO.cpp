//===- FileIO.cpp - Whole-file I/O and error helpers ----------------------===//
//
// Reading and writing whole binary files with errors that name the path, and
// the error formatting shared by the executable and .npy code.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/FormatInternal.h"
#include "runtime/support/LargeBuffer.h"
#include "runtime/support/StatusMacros.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace neuron::rt {

absl::Status formatError(std::string_view file, std::string_view what,
                         std::string_view expected, std::string_view found) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: %s: expected %s, found %s", file, what, expected, found));
}

std::string quoteBytes(const uint8_t *p, size_t n) {
  return "\"" +
         absl::CHexEscape(
             absl::string_view(reinterpret_cast<const char *>(p), n)) +
         "\"";
}

namespace {
/// Closes the file when it goes out of scope.
struct FileCloser {
  void operator()(std::FILE *f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;
} // namespace

/// An error for a failed open/read/write, coded after `errno`.
static absl::Status ioError(int err, const std::string &message) {
  if (err == ENOENT || err == ENOTDIR)
    return absl::NotFoundError(message);
  if (err == EACCES || err == EPERM || err == EROFS)
    return absl::PermissionDeniedError(message);
  return absl::UnknownError(message);
}

/// The size of the regular file at `path`, or an error naming it.
static absl::StatusOr<uint64_t> regularFileSize(const std::string &path,
                                                std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec)
    return absl::NotFoundError(
        absl::StrFormat("cannot read %s '%s': %s", what, path, ec.message()));
  // A pipe or device has no size to bound the read by.
  if (!fs::is_regular_file(status))
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot read %s '%s': not a regular file", what, path));
  uintmax_t size = fs::file_size(path, ec);
  if (ec)
    return absl::NotFoundError(
        absl::StrFormat("cannot read %s '%s': %s", what, path, ec.message()));
  return uint64_t(size);
}

absl::StatusOr<std::vector<uint8_t>> readBinaryFile(const std::string &path,
                                                    std::string_view what) {
  NEURON_ASSIGN_OR_RETURN(size, regularFileSize(path, what));
  std::vector<uint8_t> bytes;
  if (size > bytes.max_size())
    return absl::ResourceExhaustedError(absl::StrFormat(
        "cannot read %s '%s': %d bytes is too large", what, path, size));
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return ioError(errno, absl::StrFormat("cannot read %s '%s': %s", what, path,
                                          std::strerror(errno)));
  resizeLargeBuffer(bytes, size);
  size_t got = size ? std::fread(bytes.data(), 1, size, file.get()) : 0;
  if (got != size)
    return absl::DataLossError(absl::StrFormat(
        "cannot read %s '%s': read %d of its %d bytes", what, path, got, size));
  return bytes;
}

absl::StatusOr<MappedFile> MappedFile::open(const std::string &path,
                                            std::string_view what) {
  NEURON_ASSIGN_OR_RETURN(size, regularFileSize(path, what));
  if (size > std::numeric_limits<size_t>::max())
    return absl::ResourceExhaustedError(absl::StrFormat(
        "cannot read %s '%s': %d bytes is too large", what, path, size));
  if (size == 0)
    return MappedFile(nullptr, 0);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ioError(errno, absl::StrFormat("cannot read %s '%s': %s", what, path,
                                          std::strerror(errno)));
  void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  int err = errno;
  ::close(fd);
  if (p == MAP_FAILED)
    return ioError(err, absl::StrFormat("cannot map %s '%s': %s", what, path,
                                        std::strerror(err)));
  return MappedFile(static_cast<const uint8_t *>(p), size);
}

MappedFile::MappedFile(MappedFile &&other) noexcept
    : bytes(std::exchange(other.bytes, nullptr)),
      length(std::exchange(other.length, 0)) {}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept {
  if (this != &other) {
    this->~MappedFile();
    bytes = std::exchange(other.bytes, nullptr);
    length = std::exchange(other.length, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (bytes)
    ::munmap(const_cast<uint8_t *>(bytes), length);
}

/// Writes the `size` bytes at `data` to `path`, replacing it as a whole: the
/// bytes go to a new file beside it, which is renamed over `path` only once
/// every byte is written and the file closed. A failed or interrupted write
/// (full disk, file size limit, killed process) leaves `path` as it was; a
/// failed write removes its temporary file. A symbolic link is followed (the
/// file it names is replaced, the link stays); a file that is not a regular
/// one (/dev/null, /dev/stdout on a terminal, a pipe) is written in place. A
/// replaced file keeps its permission bits; one the caller may not write is
/// refused. Not synced to disk: a power loss may still lose the new bytes.
static absl::Status writeFile(const std::string &path, const void *data,
                              size_t size, std::string_view what) {
  namespace fs = std::filesystem;
  auto failure = [&](int err) {
    return ioError(err, absl::StrFormat("cannot write %s '%s': %s", what, path,
                                        std::strerror(err)));
  };
  std::error_code ec;
  std::string target = path;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    fs::path resolved = fs::weakly_canonical(path, ec);
    if (ec)
      return failure(ec.value());
    target = resolved.string();
  }
  struct stat existing;
  bool exists = ::stat(target.c_str(), &existing) == 0;
  bool inPlace = exists && !S_ISREG(existing.st_mode);
  // A file the caller may not write stays as it is.
  if (exists && ::access(target.c_str(), W_OK) != 0)
    return failure(errno);

  std::string temporary = target;
  int fd = -1;
  if (inPlace) {
    fd = ::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  } else {
    // A name beside the file (so the rename stays on its file system) that
    // no other writer holds; mode 0666 less the umask, as fopen would give,
    // or the replaced file's.
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
      temporary = absl::StrFormat("%s.tmp-%d-%u", target, ::getpid(),
                                  counter.fetch_add(1));
      fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                  0666);
      if (fd >= 0 || errno != EEXIST)
        break;
    }
    if (fd >= 0 && exists && ::fchmod(fd, existing.st_mode & 07777) != 0) {
      int err = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      return failure(err);
    }
  }
  if (fd < 0)
    return failure(errno);

  const char *p = static_cast<const char *>(data);
  int err = 0;
  for (size_t left = size; left > 0 && !err;) {
    ssize_t put = ::write(fd, p, left);
    if (put < 0 && errno == EINTR)
      continue;
    if (put <= 0) {
      err = put < 0 ? errno : EIO;
      break;
    }
    p += put;
    left -= static_cast<size_t>(put);
  }
  if (::close(fd) != 0 && !err)
    err = errno;
  if (!err && !inPlace && ::rename(temporary.c_str(), target.c_str()) != 0)
    err = errno;
  if (err) {
    if (!inPlace)
      ::unlink(temporary.c_str());
    return failure(err);
  }
  return absl::OkStatus();
}

absl::Status writeBinaryFile(const std::string &path,
                             const std::vector<uint8_t> &bytes,
                             std::string_view what) {
  return writeFile(path, bytes.data(), bytes.size(), what);
}

absl::Status writeBinaryFile(const std::string &path, std::string_view bytes,
                             std::string_view what) {
  return writeFile(path, bytes.data(), bytes.size(), what);
}

absl::Status writeTextFile(const std::string &path, std::string_view text,
                           std::string_view what) {
  return writeFile(path, text.data(), text.size(), what);
}

} // namespace neuron::rt
