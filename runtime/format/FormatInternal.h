//===- FormatInternal.h - Internals of NeuronRuntimeFormat ------*- C++ -*-===//
//
// Not part of the public API: little-endian byte access and
// whole-file I/O shared by the executable and .npy readers and writers.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_FORMAT_FORMATINTERNAL_H
#define NEURON_RUNTIME_FORMAT_FORMATINTERNAL_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/format/FileIO.h"
#include "runtime/support/StatusMacros.h"

namespace neuron::rt {

/// The little-endian unsigned integer of `sizeof(T)` bytes at `p`.
template <typename T> T loadLE(const uint8_t *p) {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i)
    v |= static_cast<T>(p[i]) << (8 * i);
  return v;
}

/// Stores `v` little-endian at `p`.
template <typename T> void storeLE(uint8_t *p, T v) {
  for (size_t i = 0; i < sizeof(T); ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}

/// "FILE: WHAT: expected EXPECTED, found FOUND" as an InvalidArgument error.
absl::Status formatError(std::string_view file, std::string_view what,
                         std::string_view expected, std::string_view found);

/// `n` bytes at `p` as a quoted C string with non-printable bytes escaped.
std::string quoteBytes(const uint8_t *p, size_t n);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_FORMAT_FORMATINTERNAL_H
