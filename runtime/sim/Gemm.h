//===- Gemm.h - The tensor engine's arithmetic on the host ------*- C++ -*-===//
//
// The functional simulator's matrix multiply: fp32 operands, each product
// rounded to fp32 and summed in fp32 in K order within the instruction, as
// the simulator has always defined PSUM's sums (the oracle, upstream MLIR's
// CPU pipeline, sums a whole contraction that way). The order is part of
// the result, so the kernel is the project's own: packed operands, register
// tiles vectorised across output columns (AVX where the CPU has it),
// without fused multiply-adds. Results are bit-identical on every CPU and
// thread count.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_GEMM_H
#define NEURON_RUNTIME_SIM_GEMM_H

#include "runtime/sim/Numerics.h"

#include <cstdint>
#include <vector>

namespace neuron::rt {

/// A row-major matrix of a floating-point dtype: element [r][c] at byte
/// `data + r * rowBytes + c * elementBytes(type)`.
struct GemmOperand {
  const uint8_t *data;
  int64_t rowBytes;
  DType type;
};

/// Packed operands, reused from one call to the next.
struct GemmScratch {
  std::vector<float> a, b;
};

/// `c[i][j] = (c[i][j] +) sum over r = 0..k-1 of a[r][i] * b[r][j]` for
/// i < m, j < n, with `a` [k, m] and `b` [k, n] as the stationary and
/// moving tiles lie in SBUF (any float dtype, widened exactly to fp32 as
/// they are packed) and `c` [m, n] (row stride `ldc` floats) as PSUM holds
/// them. Each sum starts at +0 and adds the rounded fp32 products in order
/// of r; with `accumulate` it is then added to c's value. `c` shares no
/// memory with `a` or `b`.
void gemmTransposedA(int64_t m, int64_t n, int64_t k, GemmOperand a,
                     GemmOperand b, float *c, int64_t ldc, bool accumulate,
                     GemmScratch &scratch);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_GEMM_H
