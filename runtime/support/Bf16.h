//===- Bf16.h - bfloat16 bit conversions -------------------------*- C++ -*-===//
//
// The one definition of f32 <-> bf16 rounding in the runtime: the simulator's
// numerics and the .npy reader (--bf16-as-f32) both use it.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SUPPORT_BF16_H
#define NEURON_RUNTIME_SUPPORT_BF16_H

#include <cstdint>
#include <cstring>

namespace neuron::rt {

/// The float whose top 16 bits are `bits`.
inline float bf16ToF32(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

/// The bf16 nearest the f32 whose bit pattern is `bits`: round to nearest
/// even; NaN keeps its sign and top payload bits (quieted); overflow becomes
/// infinity.
inline uint16_t f32BitsToBf16(uint32_t bits) {
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
    return uint16_t(bits >> 16 | 0x0040u);
  // Adding 0x7FFF plus the kept LSB rounds to nearest even; a carry into the
  // exponent is the correct result, up to infinity.
  return uint16_t((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

/// f32BitsToBf16 of `value`'s bit pattern.
inline uint16_t f32ToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return f32BitsToBf16(bits);
}

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SUPPORT_BF16_H
