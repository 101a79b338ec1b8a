//===- FileIO.h - Whole-file I/O --------------------------------*- C++ -*-===//
//
// Reading and writing whole files, with errors that name the file's kind,
// its path and the system's reason.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_FORMAT_FILEIO_H
#define NEURON_RUNTIME_FORMAT_FILEIO_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::rt {

/// The whole content of the regular file at `path`; memory is bounded by the
/// file's size. `what` ("executable") names the file kind in errors.
absl::StatusOr<std::vector<uint8_t>> readBinaryFile(const std::string &path,
                                                    std::string_view what);

/// The regular file at `path` mapped read-only and private: its pages are
/// read from the page cache as they are touched, so a large file costs no
/// copy and no more memory than what is read. A file truncated while mapped
/// ends the process at the first read past its new end (SIGBUS), as with
/// any mapping. Move-only; unmapped when destroyed.
class MappedFile {
public:
  /// Errors as readBinaryFile's.
  static absl::StatusOr<MappedFile> open(const std::string &path,
                                         std::string_view what);
  MappedFile(MappedFile &&other) noexcept;
  MappedFile &operator=(MappedFile &&other) noexcept;
  ~MappedFile();

  /// nullptr for an empty file.
  const uint8_t *data() const { return bytes; }
  size_t size() const { return length; }

private:
  MappedFile(const uint8_t *bytes, size_t length)
      : bytes(bytes), length(length) {}
  const uint8_t *bytes = nullptr;
  size_t length = 0;
};

/// Writes `bytes` to `path`, replacing it whole: through a temporary file
/// renamed over `path`, so a failed or interrupted write never leaves a
/// truncated file there (writeFile in FileIO.cpp).
absl::Status writeBinaryFile(const std::string &path,
                             const std::vector<uint8_t> &bytes,
                             std::string_view what);
absl::Status writeBinaryFile(const std::string &path, std::string_view bytes,
                             std::string_view what);

/// Writes `text` to `path`, replacing it whole as writeBinaryFile does.
absl::Status writeTextFile(const std::string &path, std::string_view text,
                           std::string_view what);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_FORMAT_FILEIO_H
