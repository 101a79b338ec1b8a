//===- GemmTest.cpp - Tests of the simulator's matrix multiply ------------===//
//
// gemmTransposedA against the definition it documents (each product rounded
// to f32, summed from +0 in K order, then added to c), bit for bit, on
// shapes that fill no register tile evenly, strided operands, special
// values and both accumulate modes; parallelFor's split.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Gemm.h"
#include "runtime/sim/Parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace neuron::rt;

namespace {

uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

/// Values whose sums round differently in any other order.
float valueAt(uint32_t &state) {
  state = state * 1664525u + 1013904223u;
  float mantissa = float(state >> 8) / float(1u << 24) + 0.5f;
  int exponent = int(state & 7) * 3 - 10;
  return std::ldexp(state & 0x10 ? -mantissa : mantissa, exponent);
}

GemmOperand f32Operand(const std::vector<float> &m, int64_t stride) {
  return {reinterpret_cast<const uint8_t *>(m.data()), stride * 4, DType::F32};
}

struct Case {
  int64_t m, n, k;
};

void checkAgainstDefinition(const Case &c, bool accumulate,
                            GemmScratch &scratch) {
  // Strided as SBUF and PSUM lay them out: rows further apart than wide.
  int64_t lda = c.m + 7, ldb = c.n + 5, ldc = c.n + 3;
  uint32_t state = uint32_t(c.m * 131 + c.n * 17 + c.k);
  std::vector<float> a(c.k * lda), b(c.k * ldb), out(c.m * ldc);
  for (float &x : a)
    x = valueAt(state);
  for (float &x : b)
    x = valueAt(state);
  for (float &x : out)
    x = valueAt(state);
  if (c.k > 2 && c.m > 1 && c.n > 2) {
    a[1 * lda + 1] = std::numeric_limits<float>::infinity();
    b[2 * ldb + 2] = -0.0f;
    b[0] = std::numeric_limits<float>::quiet_NaN();
  }
  std::vector<float> expected = out;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      float sum = 0.0f;
      for (int64_t r = 0; r < c.k; ++r) {
        float product = a[r * lda + i] * b[r * ldb + j];
        sum += product;
      }
      float &e = expected[i * ldc + j];
      e = accumulate ? e + sum : sum;
    }
  gemmTransposedA(c.m, c.n, c.k, f32Operand(a, lda), f32Operand(b, ldb),
                  out.data(), ldc, accumulate, scratch);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      float e = expected[i * ldc + j], got = out[i * ldc + j];
      if (std::isnan(e)) {
        ASSERT_TRUE(std::isnan(got)) << i << "," << j;
        continue;
      }
      ASSERT_EQ(bitsOf(got), bitsOf(e))
          << "m=" << c.m << " n=" << c.n << " k=" << c.k << " at [" << i << "]["
          << j << "]" << (j >= c.n ? " (past n: must be untouched)" : "");
    }
}

TEST(GemmTest, MatchesKOrderSumsBitForBit) {
  GemmScratch scratch; // reused across shapes, as the simulator does
  for (Case c : {Case{1, 1, 1}, Case{6, 16, 1}, Case{7, 17, 3},
                 Case{5, 15, 128}, Case{128, 512, 128}, Case{128, 33, 64},
                 Case{13, 511, 128}, Case{128, 1, 2}})
    for (bool accumulate : {false, true})
      checkAgainstDefinition(c, accumulate, scratch);
}

TEST(GemmTest, MisalignedF32OperandsGiveTheSameBits) {
  // fp32 rows at odd byte offsets and pitches (a tile placed anywhere in
  // SBUF) give the same sums as aligned ones.
  int64_t m = 13, n = 35, k = 9, lda = m + 3, ldb = n + 1;
  uint32_t state = 7;
  std::vector<float> a(k * lda), b(k * ldb);
  for (float &x : a)
    x = valueAt(state);
  for (float &x : b)
    x = valueAt(state);
  GemmScratch scratch;
  std::vector<float> aligned(m * n), shifted(m * n);
  gemmTransposedA(m, n, k, f32Operand(a, lda), f32Operand(b, ldb),
                  aligned.data(), n, false, scratch);
  // The same rows one byte into a buffer, a pitch of 4 x ld + 2 bytes.
  auto misaligned = [&](const std::vector<float> &from, int64_t ld) {
    std::vector<uint8_t> bytes(1 + k * (ld * 4 + 2));
    for (int64_t r = 0; r < k; ++r)
      std::memcpy(bytes.data() + 1 + r * (ld * 4 + 2), from.data() + r * ld,
                  ld * 4);
    return bytes;
  };
  std::vector<uint8_t> aBytes = misaligned(a, lda), bBytes = misaligned(b, ldb);
  gemmTransposedA(m, n, k, {aBytes.data() + 1, lda * 4 + 2, DType::F32},
                  {bBytes.data() + 1, ldb * 4 + 2, DType::F32},
                  shifted.data(), n, false, scratch);
  for (int64_t i = 0; i < m * n; ++i)
    ASSERT_EQ(bitsOf(shifted[i]), bitsOf(aligned[i])) << i;
}

TEST(GemmTest, NarrowOperandsWidenExactly) {
  // bf16 and f16 operands (rows padded, as SBUF partitions are) give what
  // their exact f32 values give.
  int64_t m = 9, n = 21, k = 40, lda = 16, ldb = 32;
  for (DType type : {DType::BF16, DType::F16}) {
    uint32_t state = 7;
    std::vector<uint8_t> a(k * lda * 2), b(k * ldb * 2);
    std::vector<float> wideA(k * lda), wideB(k * ldb);
    for (size_t i = 0; i < wideA.size(); ++i) {
      storeElement(type, valueAt(state), a.data() + 2 * i);
      wideA[i] = float(loadElement(type, a.data() + 2 * i));
    }
    for (size_t i = 0; i < wideB.size(); ++i) {
      storeElement(type, valueAt(state), b.data() + 2 * i);
      wideB[i] = float(loadElement(type, b.data() + 2 * i));
    }
    std::vector<float> narrow(m * n), wide(m * n);
    GemmScratch scratch;
    gemmTransposedA(m, n, k, {a.data(), lda * 2, type},
                    {b.data(), ldb * 2, type}, narrow.data(), n,
                    /*accumulate=*/false, scratch);
    gemmTransposedA(m, n, k, f32Operand(wideA, lda), f32Operand(wideB, ldb),
                    wide.data(), n, /*accumulate=*/false, scratch);
    for (int64_t i = 0; i < m * n; ++i)
      ASSERT_EQ(bitsOf(narrow[i]), bitsOf(wide[i])) << dtypeName(type) << i;
  }
}

TEST(GemmTest, ZeroDepthWritesZerosOrKeepsC) {
  GemmScratch scratch;
  std::vector<float> a(1), b(1), out{3.0f, -2.0f};
  gemmTransposedA(1, 2, 0, f32Operand(a, 1), f32Operand(b, 2), out.data(), 2,
                  /*accumulate=*/true, scratch);
  EXPECT_EQ(out, (std::vector<float>{3.0f, -2.0f}));
  gemmTransposedA(1, 2, 0, f32Operand(a, 1), f32Operand(b, 2), out.data(), 2,
                  /*accumulate=*/false, scratch);
  EXPECT_EQ(out, (std::vector<float>{0.0f, 0.0f}));
}

TEST(ParallelTest, EveryIndexOnceInConsecutiveChunks) {
  for (int64_t count : {1, 2, 3, 7, 64, 1000}) {
    std::vector<std::atomic<int>> seen(count);
    std::atomic<int> chunks{0};
    parallelFor(count, [&](int64_t begin, int64_t end) {
      EXPECT_LT(begin, end);
      ++chunks;
      for (int64_t i = begin; i < end; ++i)
        ++seen[i];
    });
    for (int64_t i = 0; i < count; ++i)
      ASSERT_EQ(seen[i].load(), 1) << "count " << count << " index " << i;
    EXPECT_LE(chunks.load(), simulatorThreads());
  }
}

} // namespace
