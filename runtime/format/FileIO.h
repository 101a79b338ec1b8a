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

/// Writes `bytes` to `path`, replacing it whole: through a temporary file
/// renamed over `path`, so a failed or interrupted write never leaves a
/// truncated file there (writeFile in FileIO.cpp).
absl::Status writeBinaryFile(const std::string &path,
                             const std::vector<uint8_t> &bytes,
                             std::string_view what);

/// Writes `text` to `path`, replacing it whole as writeBinaryFile does.
absl::Status writeTextFile(const std::string &path, std::string_view text,
                           std::string_view what);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_FORMAT_FILEIO_H
