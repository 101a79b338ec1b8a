//===- Npy.h - NumPy .npy array files ---------------------------*- C++ -*-===//
//
// Reading and writing the arrays a run takes and produces, in NumPy's .npy
// format (versions 1.0, 2.0 and 3.0; C order; little-endian), for the element
// types of the executable manifest (docs/executable.md):
//
//   dtype      .npy descr read                 descr written
//   f32        '<f4'                           '<f4'
//   bf16       'bfloat16', '<V2' or '|V2'      'bfloat16'
//   f16        '<f2'                           '<f2'
//   f8E4M3FN   'float8_e4m3fn'                 'float8_e4m3fn'
//   f8E5M2     'float8_e5m2' or '<f1'          'float8_e5m2'
//   i8         '|i1' or '<i1'                  '|i1'
//   i32        '<i4'                           '<i4'
//   i64        '<i8'                           '<i8'
//   i1         '|b1' (numpy bool, one byte)    '|b1'
//
// np.save of an ml_dtypes array writes a void descr, since numpy has no
// character code for the type: '<V2' for bfloat16 (so any 2-byte void reads
// as bfloat16), '<V1' for every float8 (ambiguous, so rejected). The writer
// uses the ml_dtypes names, which np.load understands once ml_dtypes is
// imported; for the numpy dtypes its bytes are exactly np.save's.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_FORMAT_NPY_H
#define NEURON_RUNTIME_FORMAT_NPY_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/format/FileIO.h"
#include "runtime/support/Tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::rt {

/// How to read a file.
struct NpyReadOptions {
  /// Read a float32 file as bf16, rounding each element to nearest even, for
  /// programs whose inputs are bf16 (neuron-run --bf16-as-f32). Other
  /// dtypes are read unchanged.
  bool f32AsBf16 = false;
};

/// Bytes per element of `dtype`; 0 when it is none of the above.
size_t npyElementSize(std::string_view dtype);

/// Parses the bytes of a whole .npy file; errors are InvalidArgument and
/// read "NAME: what: expected ..., found ...".
absl::StatusOr<Tensor> parseNpy(const std::vector<uint8_t> &bytes,
                                  std::string_view name = "<memory>",
                                  const NpyReadOptions &options = {});
/// Reads and parses the file at `path`.
absl::StatusOr<Tensor> readNpy(const std::string &path,
                                 const NpyReadOptions &options = {});

/// A .npy file mapped rather than read (runtime/format/FileIO.h,
/// MappedFile): its header parsed and checked as readNpy does, its data
/// read from the file only where it is touched, so a run that needs part
/// of a large array (an SPMD process's shards) reads only that part.
struct MappedNpy {
  std::string dtype;
  std::vector<int64_t> shape;
  /// The data: `size` bytes, valid while `file` lives.
  const uint8_t *data = nullptr;
  size_t size = 0;
  std::shared_ptr<const MappedFile> file;

  TensorRef ref() const { return {dtype, shape, data, size}; }
};
/// Maps and checks the file at `path`; errors as readNpy's.
absl::StatusOr<MappedNpy> mapNpy(const std::string &path);

/// The bytes of a .npy file holding `array`: version 1.0 (2.0 when the header
/// needs more than 65535 bytes), header padded so the data starts at a
/// multiple of 64. InvalidArgument when the dtype is unknown, a dimension is
/// negative or the data size does not match the shape.
absl::StatusOr<std::vector<uint8_t>> serializeNpy(const Tensor &array);
/// serializeNpy() into the file at `path`.
absl::Status writeNpy(const std::string &path, const Tensor &array);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_FORMAT_NPY_H
