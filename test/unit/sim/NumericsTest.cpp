//===- NumericsTest.cpp - Tests of the reference numerics -----------------===//
//
// Exhaustive round trips of every narrow-float bit pattern, round-to-nearest-
// even ties, fp8 saturation, NaN handling and integer wrap-around.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace neuron::rt;

namespace {

float fromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Stores `value` as `type` and returns the stored bits.
uint64_t stored(DType type, double value) {
  uint8_t buf[8] = {};
  storeElement(type, value, buf);
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i)
    bits |= uint64_t(buf[i]) << (8 * i);
  return bits;
}

double loaded(DType type, uint64_t bits) {
  uint8_t buf[8];
  for (int i = 0; i < 8; ++i)
    buf[i] = uint8_t(bits >> (8 * i));
  return loadElement(type, buf);
}

/// Every bit pattern of a 1- or 2-byte float dtype survives load then store
/// (NaN stays NaN) and the f32 path agrees with the double path.
void checkRoundTrip(DType type, int bits, float (*toF32)(uint16_t),
                    uint16_t (*fromF32)(float)) {
  for (uint32_t b = 0; b < (1u << bits); ++b) {
    float f = toF32(uint16_t(b));
    double d = loaded(type, b);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(d)) << b;
      EXPECT_TRUE(std::isnan(loaded(type, stored(type, d)))) << b;
      EXPECT_TRUE(std::isnan(toF32(fromF32(f)))) << b;
      continue;
    }
    ASSERT_EQ(double(f), d) << b;
    ASSERT_EQ(fromF32(f), b) << b;
    ASSERT_EQ(stored(type, d), b) << b;
  }
}

float bf16(uint16_t b) { return bf16ToF32(b); }
uint16_t toBf16(float f) { return f32ToBf16(f); }
float f16(uint16_t b) { return f16ToF32(b); }
uint16_t toF16(float f) { return f32ToF16(f); }
float e4m3(uint16_t b) { return f8E4M3FNToF32(uint8_t(b)); }
uint16_t toE4m3(float f) { return f32ToF8E4M3FN(f); }
float e5m2(uint16_t b) { return f8E5M2ToF32(uint8_t(b)); }
uint16_t toE5m2(float f) { return f32ToF8E5M2(f); }

TEST(NumericsTest, ExhaustiveRoundTrips) {
  checkRoundTrip(DType::BF16, 16, bf16, toBf16);
  checkRoundTrip(DType::F16, 16, f16, toF16);
  checkRoundTrip(DType::F8E4M3FN, 8, e4m3, toE4m3);
  checkRoundTrip(DType::F8E5M2, 8, e5m2, toE5m2);
}

TEST(NumericsTest, KnownValues) {
  EXPECT_EQ(f16ToF32(0x3C00), 1.0f);
  EXPECT_EQ(f16ToF32(0x7BFF), 65504.0f);
  EXPECT_EQ(f16ToF32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToF32(0x0400), std::ldexp(1.0f, -14));
  EXPECT_EQ(f16ToF32(0xFC00), -INFINITY);
  EXPECT_EQ(f8E4M3FNToF32(0x7E), 448.0f);
  EXPECT_EQ(f8E4M3FNToF32(0x38), 1.0f);
  EXPECT_EQ(f8E4M3FNToF32(0x01), std::ldexp(1.0f, -9));
  EXPECT_EQ(f8E4M3FNToF32(0x08), std::ldexp(1.0f, -6));
  EXPECT_EQ(f8E4M3FNToF32(0x78), 256.0f); // exponent 15 is finite in FN
  EXPECT_TRUE(std::isnan(f8E4M3FNToF32(0x7F)));
  EXPECT_TRUE(std::isnan(f8E4M3FNToF32(0xFF)));
  EXPECT_EQ(f8E5M2ToF32(0x7B), 57344.0f);
  EXPECT_EQ(f8E5M2ToF32(0x3C), 1.0f);
  EXPECT_EQ(f8E5M2ToF32(0x01), std::ldexp(1.0f, -16));
  EXPECT_EQ(f8E5M2ToF32(0x7C), INFINITY);
  EXPECT_TRUE(std::isnan(f8E5M2ToF32(0x7D)));
  EXPECT_EQ(bf16ToF32(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToF32(0x7F7F), fromBits(0x7F7F0000));
}

TEST(NumericsTest, RoundToNearestEvenTies) {
  // bf16 keeps 7 fraction bits: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7.
  EXPECT_EQ(f32ToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);     // down, even
  EXPECT_EQ(f32ToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82); // up, even
  EXPECT_EQ(f32ToBf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
            0x3F81); // above the tie
  EXPECT_EQ(f32ToBf16(fromBits(0x3F808000)), 0x3F80);
  EXPECT_EQ(f32ToBf16(fromBits(0x3F818000)), 0x3F82);
  EXPECT_EQ(f32ToBf16(fromBits(0x7F7FFFFF)), 0x7F80); // rounds up to inf
  // The double path agrees and does not round twice: this double rounds to
  // the f32 tie 1 + 2^-8 but lies above it.
  double justAbove = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(stored(DType::BF16, justAbove), 0x3F81u);
  EXPECT_EQ(stored(DType::BF16, 1.0 + std::ldexp(1.0, -8)), 0x3F80u);
  // f16: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
  EXPECT_EQ(f32ToF16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);
  EXPECT_EQ(f32ToF16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);
  EXPECT_EQ(f32ToF16(65519.0f), 0x7BFF);
  EXPECT_EQ(f32ToF16(65520.0f), 0x7C00); // the tie at the top goes to inf
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -25)), 0x0000);     // tie to even 0
  EXPECT_EQ(f32ToF16(3 * std::ldexp(1.0f, -25)), 0x0002); // tie to even 2
  EXPECT_EQ(f32ToF16(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(f32ToF16(-std::ldexp(1.0f, -30)), 0x8000);
  // fp8 E4M3FN: 3 fraction bits; subnormal quantum 2^-9.
  EXPECT_EQ(f32ToF8E4M3FN(1.0f + 1.0f / 16), 0x38);
  EXPECT_EQ(f32ToF8E4M3FN(1.0f + 3.0f / 16), 0x3A);
  EXPECT_EQ(f32ToF8E4M3FN(std::ldexp(1.0f, -10)), 0x00);
  EXPECT_EQ(f32ToF8E4M3FN(3 * std::ldexp(1.0f, -10)), 0x02);
  EXPECT_EQ(f32ToF8E4M3FN(std::ldexp(15.0f, -10)), 0x08); // to min normal
  // fp8 E5M2: 2 fraction bits.
  EXPECT_EQ(f32ToF8E5M2(1.0f + 1.0f / 8), 0x3C);
  EXPECT_EQ(f32ToF8E5M2(1.0f + 3.0f / 8), 0x3E);
}

TEST(NumericsTest, Fp8SaturatesOnOverflow) {
  EXPECT_EQ(f32ToF8E4M3FN(448.0f), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(464.0f), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(1e6f), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(-1e6f), 0xFE);
  EXPECT_EQ(f32ToF8E4M3FN(INFINITY), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(-INFINITY), 0xFE);
  EXPECT_EQ(stored(DType::F8E4M3FN, 1e300), 0x7Eu);
  EXPECT_EQ(f32ToF8E5M2(57344.0f), 0x7B);
  EXPECT_EQ(f32ToF8E5M2(61440.0f), 0x7B);
  EXPECT_EQ(f32ToF8E5M2(-1e9f), 0xFB);
  EXPECT_EQ(f32ToF8E5M2(INFINITY), 0x7C);
  EXPECT_EQ(f32ToF8E5M2(-INFINITY), 0xFC);
  // f16 and bf16 are IEEE-like: overflow is infinity.
  EXPECT_EQ(stored(DType::F16, 1e6), 0x7C00u);
  EXPECT_EQ(stored(DType::BF16, -1e300), 0xFF80u);
}

TEST(NumericsTest, NaNIsPreserved) {
  EXPECT_EQ(f32ToBf16(fromBits(0x7FC12345)), 0x7FC1); // payload kept
  EXPECT_EQ(f32ToBf16(fromBits(0xFFC00000)), 0xFFC0); // sign kept
  EXPECT_TRUE(std::isnan(bf16ToF32(f32ToBf16(fromBits(0x7F800001)))));
  EXPECT_EQ(f32ToF8E4M3FN(NAN), 0x7F);
  EXPECT_EQ(f32ToF8E4M3FN(-NAN), 0xFF);
  EXPECT_EQ(f32ToF8E5M2(NAN), 0x7E);
  EXPECT_TRUE(std::isnan(f16ToF32(f32ToF16(NAN))));
  EXPECT_TRUE(std::isnan(loaded(DType::F32, stored(DType::F32, NAN))));
  EXPECT_EQ(stored(DType::I32, NAN), 0u);
}

TEST(NumericsTest, Bf16PathsAgreeOnSampledFloats) {
  // The f32 bit trick and the double codec must agree on every f32; sample
  // all exponents with a stride that visits varied low bits.
  for (uint64_t b = 0; b < (1ull << 32); b += 65521) {
    float f = fromBits(uint32_t(b));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(f32ToBf16(f), stored(DType::BF16, f)) << std::hex << b;
  }
}

TEST(NumericsTest, Bf16RoundsDoublesOnceOnSampledDoubles) {
  // Independent oracle for results in bf16's normal range: x * 2^(7 - e)
  // rounded to the nearest even integer with nearbyint, then scaled back.
  // The samples walk every exponent with varied fraction bits, so they
  // include doubles just past a bf16 tie that rounding through f32 first
  // would round the wrong way.
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 2000000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int e = int(state >> 56) % 260 - 130;
    double x = std::ldexp(1.0 + double(state >> 12 & 0xFFFFFFFFFFull) /
                                    std::ldexp(1.0, 40),
                          e);
    if (state & 1)
      x = -x;
    int exponent;
    std::frexp(x, &exponent);
    --exponent;
    double expected = std::ldexp(std::nearbyint(std::ldexp(x, 7 - exponent)),
                                 exponent - 7);
    if (std::fabs(expected) < std::ldexp(1.0, -126) ||
        std::fabs(expected) > std::ldexp(255.0 / 128, 127))
      continue; // subnormal or overflowing results: checked elsewhere
    ASSERT_EQ(loaded(DType::BF16, stored(DType::BF16, x)), expected)
        << std::hexfloat << x;
  }
  // 1 + 2^-8 + 2^-40 is just above a tie: once rounded, it goes up; through
  // f32 (1 + 2^-8, a tie) it would go down to 1.
  double aboveTie = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40);
  EXPECT_EQ(stored(DType::BF16, aboveTie), 0x3F81u);
  // Just below the tie past the largest finite bf16, then on it (to even:
  // infinity).
  double largest = std::ldexp(255.0 / 128, 127);
  EXPECT_EQ(stored(DType::BF16, largest * (1 + 1e-9)), 0x7F7Fu);
  EXPECT_EQ(stored(DType::BF16, std::ldexp(511.0 / 256, 127)), 0x7F80u);
  EXPECT_EQ(stored(DType::BF16, -std::ldexp(1.0, -126)), 0x8080u);
}

TEST(NumericsTest, BulkConversionsMatchTheElementwiseOnes) {
  // loadElements and storeElements over strided runs give what the one-
  // element forms give, for every dtype.
  for (DType type : {DType::F32, DType::BF16, DType::F16, DType::F8E4M3FN,
                     DType::F8E5M2, DType::I8, DType::I16, DType::I32,
                     DType::I64, DType::I1}) {
    int64_t bytes = elementBytes(type), step = 3 * bytes;
    std::vector<double> values;
    for (int i = -40; i < 40; ++i)
      values.push_back(i * 1.37 + (i % 3 ? 0.5 : 0));
    std::vector<uint8_t> bulk(values.size() * step, 0xAB),
        single(values.size() * step, 0xAB);
    storeElements(type, values.data(), int64_t(values.size()), step,
                  bulk.data());
    for (size_t i = 0; i < values.size(); ++i)
      storeElement(type, values[i], single.data() + i * step);
    ASSERT_EQ(bulk, single) << dtypeName(type);
    std::vector<double> asDouble(values.size());
    loadElements(type, bulk.data(), int64_t(values.size()), step,
                 asDouble.data());
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(asDouble[i], loadElement(type, bulk.data() + i * step))
          << dtypeName(type) << " " << i;
    if (!isFloat(type))
      continue;
    std::vector<float> asFloat(values.size());
    loadElements(type, bulk.data(), int64_t(values.size()), step,
                 asFloat.data());
    for (size_t i = 0; i < values.size(); ++i)
      ASSERT_EQ(double(asFloat[i]), asDouble[i]) << dtypeName(type);
  }
}

TEST(NumericsTest, F16MatchesRescaledRoundingOnSampledFloats) {
  // Independent oracle for normal f16 results: rounding x * 2^(10 - e) to
  // the nearest even integer with nearbyint (FE_TONEAREST by default).
  for (uint64_t b = 0; b < (1ull << 31); b += 4099) {
    float f = fromBits(uint32_t(b));
    if (!(f >= std::ldexp(1.0f, -14)) || f >= 65504.0f)
      continue;
    int e = std::ilogb(f);
    float r = std::ldexp(std::nearbyint(std::ldexp(f, 10 - e)), e - 10);
    ASSERT_EQ(f16ToF32(f32ToF16(f)), r) << std::hex << b;
  }
}

TEST(NumericsTest, IntegersWrapAndTruncate) {
  EXPECT_EQ(int8_t(stored(DType::I8, 130)), -126);
  EXPECT_EQ(int8_t(stored(DType::I8, -129)), 127);
  EXPECT_EQ(int8_t(stored(DType::I8, 3.7)), 3);
  EXPECT_EQ(int8_t(stored(DType::I8, -3.7)), -3);
  EXPECT_EQ(int16_t(stored(DType::I16, 32768)), -32768);
  EXPECT_EQ(int16_t(stored(DType::I16, -32769)), 32767);
  EXPECT_EQ(int16_t(stored(DType::I16, -300.9)), -300);
  int16_t x = -12345;
  EXPECT_EQ(loadElement(DType::I16, reinterpret_cast<const uint8_t *>(&x)),
            -12345);
  EXPECT_EQ(int32_t(stored(DType::I32, 4294967296.0 + 5)), 5);
  EXPECT_EQ(int32_t(stored(DType::I32, -2147483649.0)), 2147483647);
  EXPECT_EQ(int64_t(stored(DType::I64, -1)), -1);
  EXPECT_EQ(stored(DType::I64, 9223372036854775808.0), 1ull << 63);
  EXPECT_EQ(stored(DType::I64, -9223372036854775808.0), 1ull << 63);
  EXPECT_EQ(stored(DType::I64, 18446744073709551616.0 + 4096), 4096u);
  EXPECT_EQ(stored(DType::I8, 1e20), 0u); // 1e20 = 2^20 x odd
  EXPECT_EQ(stored(DType::I32, INFINITY), 0u);
  EXPECT_EQ(stored(DType::I1, 2.5), 1u);
  EXPECT_EQ(stored(DType::I1, 0), 0u);
  EXPECT_EQ(loaded(DType::I1, 7), 1.0);
  EXPECT_EQ(loaded(DType::I8, 0xFF), -1.0);
  EXPECT_EQ(loaded(DType::I32, 0x80000000u), -2147483648.0);
}

TEST(NumericsTest, DTypeNamesAndSizes) {
  for (auto [name, bytes] : {std::pair<const char *, int64_t>{"f32", 4},
                             {"bf16", 2},
                             {"f16", 2},
                             {"f8E4M3FN", 1},
                             {"f8E5M2", 1},
                             {"i8", 1},
                             {"i32", 4},
                             {"i64", 8},
                             {"i1", 1}}) {
    std::optional<DType> type = parseDType(name);
    ASSERT_TRUE(type) << name;
    EXPECT_EQ(dtypeName(*type), name);
    EXPECT_EQ(elementBytes(*type), bytes) << name;
  }
  EXPECT_FALSE(parseDType("f64"));
  EXPECT_FALSE(parseDType(""));
}

} // namespace
