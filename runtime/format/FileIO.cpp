//===- FileIO.cpp - Whole-file I/O and error helpers ----------------------===//
//
// Reading and writing whole binary files with errors that name the path, and
// the error formatting shared by the executable and .npy code.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/FormatInternal.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

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

absl::StatusOr<std::vector<uint8_t>> readBinaryFile(const std::string &path,
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
  std::vector<uint8_t> bytes;
  if (size > bytes.max_size())
    return absl::ResourceExhaustedError(absl::StrFormat(
        "cannot read %s '%s': %d bytes is too large", what, path, size));
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file)
    return ioError(errno, absl::StrFormat("cannot read %s '%s': %s", what, path,
                                          std::strerror(errno)));
  bytes.resize(size);
  size_t got = size ? std::fread(bytes.data(), 1, size, file.get()) : 0;
  if (got != size)
    return absl::DataLossError(absl::StrFormat(
        "cannot read %s '%s': read %d of its %d bytes", what, path, got, size));
  return bytes;
}

/// Writes the `size` bytes at `data` to `path`, replacing it.
static absl::Status writeFile(const std::string &path, const void *data,
                              size_t size, std::string_view what) {
  FilePtr file(std::fopen(path.c_str(), "wb"));
  if (!file)
    return ioError(errno, absl::StrFormat("cannot write %s '%s': %s", what,
                                          path, std::strerror(errno)));
  size_t put = size ? std::fwrite(data, 1, size, file.get()) : 0;
  // fclose flushes; a full disk may only show there.
  if (put != size || std::fclose(file.release()) != 0)
    return ioError(errno, absl::StrFormat("cannot write %s '%s': %s", what,
                                          path, std::strerror(errno)));
  return absl::OkStatus();
}

absl::Status writeBinaryFile(const std::string &path,
                             const std::vector<uint8_t> &bytes,
                             std::string_view what) {
  return writeFile(path, bytes.data(), bytes.size(), what);
}

absl::Status writeTextFile(const std::string &path, std::string_view text,
                           std::string_view what) {
  return writeFile(path, text.data(), text.size(), what);
}

} // namespace neuron::rt
