//===- OracleIO.cpp - .npy inputs and results for the oracle harness ------===//
//
// A shared library that mlir-runner loads (--shared-libs) for the harness
// test/e2e/oracle.py generates, so inputs and results of any size and
// element type travel as .npy files instead of literals and printed text.
// For each element type T in f32 bf16 f16 i64 i32 i16 i8 i1 it exports
//
//   _mlir_ciface_neuron_oracle_load_T(int64_t i, UnrankedMemRefType *m)
//       fills m with $NEURON_ORACLE_DIR/input<i>.npy
//   _mlir_ciface_neuron_oracle_store_T(int64_t i, UnrankedMemRefType *m)
//       writes m to $NEURON_ORACLE_DIR/oracle<i>.npy
//
// which a harness reaches by declaring, for example,
//
//   func.func private @neuron_oracle_load_f32(i64, memref<*xf32>)
//       attributes {llvm.emit_c_interface}
//
// The .npy reading and writing is the runtime's (runtime/format/Npy.h). A
// file whose dtype or shape differs from the memref's, or any I/O error,
// prints "neuron-oracle-io: error: ..." and exits with status 1: a harness
// that read the wrong data must not produce numbers.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Npy.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using neuron::rt::Tensor;

/// Prints `message` and ends the process: the harness has no way to recover.
[[noreturn]] static void fail(const std::string &message) {
  std::fprintf(stderr, "neuron-oracle-io: error: %s\n", message.c_str());
  std::fflush(stderr);
  std::exit(1);
}

/// $NEURON_ORACLE_DIR/<stem><index>.npy.
static std::string filePath(const char *stem, int64_t index) {
  const char *dir = std::getenv("NEURON_ORACLE_DIR");
  if (!dir || !*dir)
    fail("NEURON_ORACLE_DIR is not set; it names the folder holding "
         "input<I>.npy and receiving oracle<I>.npy");
  return std::string(dir) + "/" + stem + std::to_string(index) + ".npy";
}

static std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {
/// A ranked view of an unranked memref descriptor: the layout MLIR's LLVM
/// lowering gives every rank (allocated and aligned pointers, offset, then
/// `rank` sizes and `rank` strides), with element size `elementBytes`.
struct MemRefView {
  uint8_t *data;
  std::vector<int64_t> sizes, strides;
  size_t elementBytes;

  MemRefView(const UnrankedMemRefType<char> *memref, size_t elementBytes)
      : elementBytes(elementBytes) {
    // Rank 1's descriptor has the common prefix of every rank's.
    const auto *desc =
        static_cast<const StridedMemRefType<char, 1> *>(memref->descriptor);
    const int64_t *dims = desc->sizes;
    sizes.assign(dims, dims + memref->rank);
    strides.assign(dims + memref->rank, dims + 2 * memref->rank);
    data = reinterpret_cast<uint8_t *>(desc->data) +
           desc->offset * static_cast<int64_t>(elementBytes);
  }

  int64_t count() const {
    int64_t n = 1;
    for (int64_t d : sizes)
      n *= d;
    return n;
  }

  /// The byte offset of row-major element `linear`.
  int64_t byteOffset(int64_t linear) const {
    int64_t offset = 0;
    for (size_t d = sizes.size(); d-- > 0;) {
      offset += (linear % sizes[d]) * strides[d];
      linear /= sizes[d];
    }
    return offset * static_cast<int64_t>(elementBytes);
  }

  /// True when the elements are stored densely in row-major order.
  bool contiguous() const {
    int64_t expected = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
      if (sizes[d] != 1 && strides[d] != expected)
        return false;
      expected *= sizes[d];
    }
    return true;
  }
};
} // namespace

/// Copies the dense row-major bytes `from` into the memref `to`.
static void copyIn(const uint8_t *from, const MemRefView &to) {
  int64_t n = to.count();
  if (to.contiguous()) {
    std::memcpy(to.data, from, n * to.elementBytes);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(to.data + to.byteOffset(i), from + i * to.elementBytes,
                to.elementBytes);
}

/// The memref `from` as dense row-major bytes.
static std::vector<uint8_t> copyOut(const MemRefView &from) {
  int64_t n = from.count();
  std::vector<uint8_t> bytes(n * from.elementBytes);
  if (from.contiguous()) {
    if (n)
      std::memcpy(bytes.data(), from.data, bytes.size());
    return bytes;
  }
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(bytes.data() + i * from.elementBytes,
                from.data + from.byteOffset(i), from.elementBytes);
  return bytes;
}

/// Reads input `index` into `memref`, whose elements are `dtype`.
static void load(int64_t index, const UnrankedMemRefType<char> *memref,
                 const char *dtype) {
  std::string path = filePath("input", index);
  absl::StatusOr<Tensor> array = neuron::rt::readNpy(path);
  if (!array.ok())
    fail(std::string(array.status().message()));
  MemRefView view(memref, neuron::rt::npyElementSize(dtype));
  if (array->dtype != dtype || array->shape != view.sizes)
    fail(path + ": the harness expects " + dtype + shapeString(view.sizes) +
         ", the file holds " + array->dtype + shapeString(array->shape));
  copyIn(array->data.data(), view);
}

/// Writes `memref`, whose elements are `dtype`, as result `index`.
static void store(int64_t index, const UnrankedMemRefType<char> *memref,
                  const char *dtype) {
  MemRefView view(memref, neuron::rt::npyElementSize(dtype));
  Tensor array{dtype, view.sizes, copyOut(view)};
  if (absl::Status s = neuron::rt::writeNpy(filePath("oracle", index), array);
      !s.ok())
    fail(std::string(s.message()));
}

// The element type only sets the element size, so every entry point shares
// the byte-level code above through a char view of the descriptor.
#define NEURON_ORACLE_IO(NAME)                                                 \
  extern "C" MLIR_CRUNNERUTILS_EXPORT void                                     \
      _mlir_ciface_neuron_oracle_load_##NAME(int64_t index,                    \
                                             UnrankedMemRefType<char> *m) {    \
    load(index, m, #NAME);                                                     \
  }                                                                            \
  extern "C" MLIR_CRUNNERUTILS_EXPORT void                                     \
      _mlir_ciface_neuron_oracle_store_##NAME(int64_t index,                   \
                                              UnrankedMemRefType<char> *m) {   \
    store(index, m, #NAME);                                                    \
  }

NEURON_ORACLE_IO(f32)
NEURON_ORACLE_IO(bf16)
NEURON_ORACLE_IO(f16)
NEURON_ORACLE_IO(i64)
NEURON_ORACLE_IO(i32)
NEURON_ORACLE_IO(i16)
NEURON_ORACLE_IO(i8)
NEURON_ORACLE_IO(i1)

#undef NEURON_ORACLE_IO
