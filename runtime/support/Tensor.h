//===- Tensor.h - A tensor held in host memory ------------------*- C++ -*-===//
//
// The array the runtime passes around: what neuron-run reads from and writes
// to .npy files and what the simulator takes as inputs and returns.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SUPPORT_TENSOR_H
#define NEURON_RUNTIME_SUPPORT_TENSOR_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::rt {

/// A host-side tensor in C (row-major) order with little-endian elements, i1
/// as one byte per element.
struct Tensor {
  /// A manifest dtype name: "f32", "bf16", "f16", "f8E4M3FN", "f8E5M2",
  /// "i8", "i32", "i64" or "i1".
  std::string dtype;
  /// Any rank; empty for a 0-d (scalar) tensor.
  std::vector<int64_t> shape;
  /// The product of `shape` times the element size of `dtype` bytes.
  std::vector<uint8_t> data;
};

/// A tensor whose bytes are held elsewhere (a Tensor, a mapped file),
/// valid while they are.
struct TensorRef {
  std::string_view dtype;
  std::vector<int64_t> shape;
  const uint8_t *data = nullptr;
  size_t size = 0;

  static TensorRef of(const Tensor &t) {
    return {t.dtype, t.shape, t.data.data(), t.data.size()};
  }
};

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SUPPORT_TENSOR_H
