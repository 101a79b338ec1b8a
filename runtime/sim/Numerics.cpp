//===- Numerics.cpp - Reference numerics of the simulated device ----------===//
//
// One codec handles every narrow float (bf16, f16, both fp8 formats): it
// rounds a double to nearest even once, so storing a value computed in double
// never rounds twice through f32.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace neuron::rt {

namespace {
/// A binary float format narrower than f32.
struct MiniFloat {
  int expBits;
  int mantBits;
  /// Has infinities (an all-ones exponent means infinity or NaN).
  bool hasInf;
  /// Finite overflow gives the largest finite value instead of infinity.
  bool saturate;

  int bias() const { return (1 << (expBits - 1)) - 1; }
  uint32_t expMask() const { return (1u << expBits) - 1; }
  uint32_t mantMask() const { return (1u << mantBits) - 1; }
  uint32_t signBit() const { return 1u << (expBits + mantBits); }
  /// The largest unbiased exponent of a finite value.
  int maxExp() const { return int(expMask()) - (hasInf ? 1 : 0) - bias(); }
  /// The largest significand (implicit bit included) at maxExp(); the FN
  /// formats spend the all-ones mantissa of the top exponent on NaN.
  uint32_t maxSignificand() const {
    return (2u << mantBits) - (hasInf ? 1 : 2);
  }
  uint32_t maxFinite() const {
    return uint32_t(maxExp() + bias()) << mantBits |
           (maxSignificand() & mantMask());
  }
  uint32_t infinity() const { return expMask() << mantBits; }
  uint32_t nan() const {
    return hasInf ? infinity() | 1u << (mantBits - 1)
                  : expMask() << mantBits | mantMask();
  }
};
} // namespace

static constexpr MiniFloat kBf16{8, 7, true, false};
static constexpr MiniFloat kF16{5, 10, true, false};
static constexpr MiniFloat kF8E4M3FN{4, 3, false, true};
static constexpr MiniFloat kF8E5M2{5, 2, true, true};

/// `n` (>= 0) rounded to the nearest integer, ties to even.
static double roundHalfEven(double n) {
  double floor = std::floor(n);
  double diff = n - floor;
  if (diff > 0.5 || (diff == 0.5 && std::fmod(floor, 2.0) != 0))
    floor += 1;
  return floor;
}

static uint32_t encode(const MiniFloat &f, double x) {
  uint32_t sign = std::signbit(x) ? f.signBit() : 0;
  if (std::isnan(x))
    return sign | f.nan();
  double a = std::fabs(x);
  if (std::isinf(a))
    return sign | (f.hasInf ? f.infinity() : f.maxFinite());
  if (a == 0)
    return sign;
  int e = 0;
  std::frexp(a, &e);
  e -= 1; // a = 1.xxx * 2^e
  int minExp = 1 - f.bias();
  if (e < minExp)
    e = minExp; // subnormal: fixed quantum 2^(minExp - mantBits)
  double significand = roundHalfEven(std::ldexp(a, f.mantBits - e));
  if (significand >= double(2u << f.mantBits)) {
    significand /= 2;
    e += 1;
  }
  if (e > f.maxExp() ||
      (e == f.maxExp() && significand > double(f.maxSignificand())))
    return sign | (f.saturate || !f.hasInf ? f.maxFinite() : f.infinity());
  auto s = static_cast<uint32_t>(significand);
  if (s <= f.mantMask())
    return sign | s; // subnormal or zero
  return sign | uint32_t(e + f.bias()) << f.mantBits | (s & f.mantMask());
}

static double decode(const MiniFloat &f, uint32_t bits) {
  bool negative = bits & f.signBit();
  uint32_t expField = (bits >> f.mantBits) & f.expMask();
  uint32_t mant = bits & f.mantMask();
  double value;
  if (f.hasInf && expField == f.expMask())
    value = mant ? std::nan("") : INFINITY;
  else if (!f.hasInf && expField == f.expMask() && mant == f.mantMask())
    value = std::nan("");
  else if (expField == 0)
    value = std::ldexp(double(mant), 1 - f.bias() - f.mantBits);
  else
    value = std::ldexp(double(mant | (1u << f.mantBits)),
                       int(expField) - f.bias() - f.mantBits);
  return negative ? -value : value;
}

static uint32_t floatBits(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return bits;
}

static float bitsFloat(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

float f16ToF32(uint16_t bits) { return float(decode(kF16, bits)); }
uint16_t f32ToF16(float value) { return uint16_t(encode(kF16, value)); }
float f8E4M3FNToF32(uint8_t bits) { return float(decode(kF8E4M3FN, bits)); }
uint8_t f32ToF8E4M3FN(float value) { return uint8_t(encode(kF8E4M3FN, value)); }
float f8E5M2ToF32(uint8_t bits) { return float(decode(kF8E5M2, bits)); }
uint8_t f32ToF8E5M2(float value) { return uint8_t(encode(kF8E5M2, value)); }

std::optional<DType> parseDType(std::string_view name) {
  constexpr DType all[] = {DType::F32,      DType::BF16,   DType::F16,
                           DType::F8E4M3FN, DType::F8E5M2, DType::I8,
                           DType::I16,      DType::I32,    DType::I64,
                           DType::I1};
  for (DType t : all)
    if (dtypeName(t) == name)
      return t;
  return std::nullopt;
}

std::string_view dtypeName(DType type) {
  constexpr std::string_view names[] = {
      "f32", "bf16", "f16", "f8E4M3FN", "f8E5M2",
      "i8",  "i16",  "i32", "i64",      "i1"};
  return names[static_cast<int>(type)];
}

std::string_view dtypeNames() {
  return "one of f32 bf16 f16 f8E4M3FN f8E5M2 i8 i16 i32 i64 i1";
}

int64_t elementBytes(DType type) {
  switch (type) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::BF16:
  case DType::F16:
  case DType::I16:
    return 2;
  case DType::I64:
    return 8;
  case DType::F8E4M3FN:
  case DType::F8E5M2:
  case DType::I8:
  case DType::I1:
    return 1;
  }
  return 1;
}

bool isFloat(DType type) {
  return type == DType::F32 || type == DType::BF16 || type == DType::F16 ||
         type == DType::F8E4M3FN || type == DType::F8E5M2;
}

static uint64_t loadBits(const uint8_t *p, int64_t bytes) {
  uint64_t v = 0;
  for (int64_t i = 0; i < bytes; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

static void storeBits(uint8_t *p, int64_t bytes, uint64_t v) {
  for (int64_t i = 0; i < bytes; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

/// `value` truncated toward zero, modulo 2^64 (two's complement).
static uint64_t wrapToUnsigned(double value) {
  if (!std::isfinite(value))
    return 0;
  constexpr double k2p63 = 9223372036854775808.0, k2p64 = 2 * k2p63;
  // Every step is exact: doubles beyond 2^53 are integers, and the shifts by
  // 2^64 land in [-2^63, 2^63) where the spacing still divides the result.
  double m = std::fmod(std::trunc(value), k2p64);
  if (m >= k2p63)
    m -= k2p64;
  else if (m < -k2p63)
    m += k2p64;
  return static_cast<uint64_t>(static_cast<int64_t>(m));
}

double loadElement(DType type, const uint8_t *p) {
  uint64_t bits = loadBits(p, elementBytes(type));
  switch (type) {
  case DType::F32:
    return bitsFloat(uint32_t(bits));
  case DType::BF16:
    return bf16ToF32(uint16_t(bits));
  case DType::F16:
    return decode(kF16, uint32_t(bits));
  case DType::F8E4M3FN:
    return decode(kF8E4M3FN, uint32_t(bits));
  case DType::F8E5M2:
    return decode(kF8E5M2, uint32_t(bits));
  case DType::I8:
    return int8_t(bits);
  case DType::I16:
    return int16_t(bits);
  case DType::I32:
    return int32_t(bits);
  case DType::I64:
    return double(int64_t(bits));
  case DType::I1:
    return bits ? 1 : 0;
  }
  return 0;
}

/// encode(kBf16, x) without its arithmetic where x is a normal bf16 after
/// rounding: round to nearest even at the double's 45th fraction bit, a
/// carry into the exponent included, and infinity past the largest finite.
static uint16_t doubleToBf16(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  uint16_t sign = uint16_t(bits >> 48) & 0x8000u;
  uint64_t magnitude = bits & ~(uint64_t(1) << 63);
  int exponent = int(magnitude >> 52) - 1023;
  if (exponent < -126 || exponent > 127) // zero, subnormal, inf, NaN, huge
    return std::isnan(x) ? f32ToBf16(static_cast<float>(x))
                         : uint16_t(encode(kBf16, x));
  constexpr int kDropped = 52 - 7;
  uint64_t kept = (magnitude + (uint64_t(1) << (kDropped - 1)) - 1 +
                   ((magnitude >> kDropped) & 1)) >>
                  kDropped;
  int rounded = int(kept >> 7) - 1023;
  if (rounded > 127)
    return sign | 0x7F80u;
  return sign | uint16_t((rounded + 127) << 7 | (kept & 0x7Fu));
}

void storeElement(DType type, double value, uint8_t *p) {
  uint64_t bits = 0;
  switch (type) {
  case DType::F32:
    bits = floatBits(static_cast<float>(value));
    break;
  case DType::BF16:
    // A NaN keeps its payload the way f32ToBf16 does.
    bits = doubleToBf16(value);
    break;
  case DType::F16:
    bits = encode(kF16, value);
    break;
  case DType::F8E4M3FN:
    bits = encode(kF8E4M3FN, value);
    break;
  case DType::F8E5M2:
    bits = encode(kF8E5M2, value);
    break;
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64:
    bits = wrapToUnsigned(value);
    break;
  case DType::I1:
    bits = value != 0 ? 1 : 0;
    break;
  }
  storeBits(p, elementBytes(type), bits);
}

template <typename T>
static void loadRun(DType type, const uint8_t *p, int64_t count, int64_t step,
                    T *out) {
  // The common dtypes convert inline; the rest through loadElement.
  switch (type) {
  case DType::F32:
    for (int64_t i = 0; i < count; ++i, p += step) {
      float value;
      std::memcpy(&value, p, sizeof(value));
      out[i] = value;
    }
    return;
  case DType::BF16:
    for (int64_t i = 0; i < count; ++i, p += step) {
      uint16_t value;
      std::memcpy(&value, p, sizeof(value));
      out[i] = bf16ToF32(value);
    }
    return;
  default:
    for (int64_t i = 0; i < count; ++i, p += step)
      out[i] = T(loadElement(type, p));
  }
}

void loadElements(DType type, const uint8_t *p, int64_t count, int64_t step,
                  double *out) {
  loadRun(type, p, count, step, out);
}

void loadElements(DType type, const uint8_t *p, int64_t count, int64_t step,
                  float *out) {
  loadRun(type, p, count, step, out);
}

void storeElements(DType type, const double *in, int64_t count, int64_t step,
                   uint8_t *p) {
  switch (type) {
  case DType::F32:
    for (int64_t i = 0; i < count; ++i, p += step) {
      float value = static_cast<float>(in[i]);
      std::memcpy(p, &value, sizeof(value));
    }
    return;
  case DType::BF16:
    for (int64_t i = 0; i < count; ++i, p += step) {
      uint16_t value = doubleToBf16(in[i]);
      std::memcpy(p, &value, sizeof(value));
    }
    return;
  default:
    for (int64_t i = 0; i < count; ++i, p += step)
      storeElement(type, in[i], p);
  }
}

} // namespace neuron::rt
