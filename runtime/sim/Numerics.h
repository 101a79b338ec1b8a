//===- Numerics.h - Reference numerics of the simulated device --*- C++ -*-===//
//
// The element types of the executable manifest and their exact conversions:
// f32 <-> bf16 / f16 / f8E4M3FN / f8E5M2 with round-to-nearest-even, integer
// wrap-around, and i1 as one byte holding 0 or 1. Every value the simulator
// writes goes through storeElement, so rounding lives in one place.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_NUMERICS_H
#define NEURON_RUNTIME_SIM_NUMERICS_H

#include "runtime/support/Bf16.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron::rt {

/// An element type of the manifest (`f32 bf16 f16 f8E4M3FN f8E5M2 i8 i16 i32 i64
/// i1`).
enum class DType {
  F32,
  BF16,
  F16,
  F8E4M3FN,
  F8E5M2,
  I8,
  I16,
  I32,
  I64,
  I1
};

/// The dtype spelled `name`, or nullopt.
std::optional<DType> parseDType(std::string_view name);
/// The manifest spelling of `type`.
std::string_view dtypeName(DType type);
/// The list of dtype spellings, for error messages.
std::string_view dtypeNames();
/// Bytes of one element (i1 takes one byte).
int64_t elementBytes(DType type);
/// True for the floating-point dtypes.
bool isFloat(DType type);

/// The value of the element of `type` at `p` (little-endian). i64 values
/// beyond 2^53 lose their low bits.
double loadElement(DType type, const uint8_t *p);
/// Stores `value` at `p` as `type`, rounded once from the double: floats
/// round to nearest even, fp8 saturates to its largest finite value (an
/// infinity too for f8E4M3FN, which has none; f8E5M2 keeps infinities), NaN
/// stays NaN; integers truncate toward zero and wrap (NaN and infinities give
/// 0); i1 stores 1 for any non-zero value (NaN included).
void storeElement(DType type, double value, uint8_t *p);

/// loadElement of `count` elements `step` bytes apart from `p`, into `out`
/// (as float only for the floating-point dtypes, where it is exact).
void loadElements(DType type, const uint8_t *p, int64_t count, int64_t step,
                  double *out);
void loadElements(DType type, const uint8_t *p, int64_t count, int64_t step,
                  float *out);
/// storeElement of `count` values from `in` to elements `step` bytes apart
/// from `p`.
void storeElements(DType type, const double *in, int64_t count, int64_t step,
                   uint8_t *p);

/// MLIR's arith.maximumf and minimumf: NaN propagates, -0 orders below +0.
/// Inline, so loops over tiles vectorise.
inline double maximumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return a + b;
  return a == b ? (std::signbit(a) ? b : a) : std::max(a, b);
}
inline double minimumF(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return a + b;
  return a == b ? (std::signbit(a) ? a : b) : std::min(a, b);
}

/// Bit-level conversions, exposed for tests and for the format's writers
/// (bf16ToF32 and f32ToBf16 come from runtime/support/Bf16.h).
float f16ToF32(uint16_t bits);
/// IEEE binary16: round to nearest even, subnormals, overflow to infinity.
uint16_t f32ToF16(float value);
float f8E4M3FNToF32(uint8_t bits);
/// Bias 7, no infinity, NaN 0x7F/0xFF, saturates to +-448.
uint8_t f32ToF8E4M3FN(float value);
float f8E5M2ToF32(uint8_t bits);
/// Bias 15, infinities kept, NaN 0x7E/0xFE, finite overflow saturates to
/// +-57344.
uint8_t f32ToF8E5M2(float value);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_NUMERICS_H
