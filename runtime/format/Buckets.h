//===- Buckets.h - Executables holding one program per shape bucket -*- C++ -*-===//
//
// A graph with a variable length (a dynamic sequence dimension) compiles to
// one program per bucket size. The executable holds them all: its top-level
// program is the largest bucket's (so a reader that knows nothing of buckets
// runs inputs of that size), `buckets.programs` the smaller ones', and the
// kernels and constant sections the buckets share are stored once. The
// fields are in docs/executable.md.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_FORMAT_BUCKETS_H
#define NEURON_RUNTIME_FORMAT_BUCKETS_H

#include "absl/status/statusor.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neuron::rt {

/// A dimension of a program input or output that is the variable length.
struct BucketDim {
  int64_t index = 0; ///< the input's or output's position
  int64_t dim = 0;
};

/// What an executable's `buckets` says.
struct Buckets {
  /// Increasing; the last one is the top-level program's.
  std::vector<int64_t> sizes;
  std::vector<BucketDim> inputs, outputs;
  /// The value the padded positions of an input hold.
  double pad = 0;
  /// The input the runtime fills with the true length (an i32 scalar),
  /// when the program masks reductions over the padding.
  std::optional<int64_t> lengthInput;

  /// The index of the smallest size holding `length`; OutOfRange naming
  /// the sizes when none does, InvalidArgument for a length below 1.
  absl::StatusOr<size_t> choose(int64_t length) const;
  /// "128, 256, 512".
  std::string sizesText() const;
};

/// The executable built for one bucket size (the whole container's bytes).
struct BucketExecutable {
  int64_t size = 0;
  std::vector<uint8_t> bytes;
};

/// One executable holding every bucket's program (`buckets` increasing in
/// size; each validated as a container). `record` holds the `buckets`
/// fields other than `sizes` and `programs` (`inputs`, `outputs`, `pad`,
/// `length_input`). Identical kernels and constant sections are stored
/// once; a kernel or section of a smaller bucket whose name the larger
/// ones use for other contents is renamed.
absl::StatusOr<std::vector<uint8_t>>
mergeBuckets(const std::vector<BucketExecutable> &buckets,
             const nlohmann::json &record);

/// The manifest's `buckets`, validated against its inputs and outputs;
/// nullopt when it has none. Errors are InvalidArgument and read
/// "manifest: buckets.PATH: expected ..., found ...".
absl::StatusOr<std::optional<Buckets>>
readBuckets(const nlohmann::json &manifest);

/// The manifest of bucket `index` (of readBuckets' sizes): the top-level
/// one with that bucket's tensors, inputs, outputs, program, spmd and
/// host_code.
nlohmann::json bucketManifest(const nlohmann::json &manifest, size_t index);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_FORMAT_BUCKETS_H
