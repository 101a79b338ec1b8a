//===- Gemm.cpp - The tensor engine's arithmetic on the host --------------===//
//
// Both operands are packed into panels (kMr columns of a, kNr of b, each
// panel k rows deep and zero-padded), so the inner loop reads memory
// sequentially whatever SBUF's partition stride; a micro-kernel keeps a
// kMr x kNr tile of sums in registers over the whole of k (on AVX where
// the CPU has it; the portable kernel gives the same bits). This file is
// built with -ffp-contract=off: a fused multiply-add would skip the
// product's rounding.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Gemm.h"

#include "runtime/sim/Parallel.h"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace neuron::rt {

namespace {
constexpr int64_t kMr = 6;
constexpr int64_t kNr = 16;
} // namespace

/// Copies columns [first, first + Width) of the [k, cols] matrix `from`
/// into one k-deep fp32 panel of Width columns, zero past `cols`. A whole
/// fp32 row is one fixed-size copy, which the compiler inlines.
template <int64_t Width>
static void packPanel(GemmOperand from, int64_t k, int64_t cols, int64_t first,
                      float *panel) {
  int64_t valid = std::min(Width, cols - first);
  int64_t bytes = elementBytes(from.type);
  const uint8_t *row = from.data + first * bytes;
  if (from.type == DType::F32 && valid == Width) {
    for (int64_t r = 0; r < k; ++r, panel += Width, row += from.rowBytes)
      std::memcpy(panel, row, Width * sizeof(float));
    return;
  }
  for (int64_t r = 0; r < k; ++r, panel += Width, row += from.rowBytes) {
    if (from.type == DType::F32)
      std::memcpy(panel, row, valid * sizeof(float));
    else
      loadElements(from.type, row, valid, bytes, panel);
    std::fill(panel + valid, panel + Width, 0.0f);
  }
}

/// The kMr x kNr sums of one a panel and one b panel, into `out` (row-
/// major, kNr per row): the portable form.
static void microKernel(int64_t k, const float *a, const float *b, float *out) {
  float sums[kMr][kNr] = {};
  for (int64_t r = 0; r < k; ++r, a += kMr, b += kNr)
    for (int64_t i = 0; i < kMr; ++i)
      for (int64_t j = 0; j < kNr; ++j)
        sums[i][j] += a[i] * b[j];
  std::memcpy(out, sums, sizeof(sums));
}

#if defined(__x86_64__)
/// microKernel on AVX: the 12 sums of 8 lanes stay in registers.
__attribute__((target("avx"))) static void
microKernelAvx(int64_t k, const float *a, const float *b, float *out) {
  __m256 sums[kMr][2];
#pragma GCC unroll 8
  for (int64_t i = 0; i < kMr; ++i)
    sums[i][0] = sums[i][1] = _mm256_setzero_ps();
  for (int64_t r = 0; r < k; ++r, a += kMr, b += kNr) {
    __m256 low = _mm256_loadu_ps(b), high = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 8
    for (int64_t i = 0; i < kMr; ++i) {
      __m256 broadcast = _mm256_broadcast_ss(a + i);
      sums[i][0] = _mm256_add_ps(sums[i][0], _mm256_mul_ps(broadcast, low));
      sums[i][1] = _mm256_add_ps(sums[i][1], _mm256_mul_ps(broadcast, high));
    }
  }
#pragma GCC unroll 8
  for (int64_t i = 0; i < kMr; ++i) {
    _mm256_storeu_ps(out + i * kNr, sums[i][0]);
    _mm256_storeu_ps(out + i * kNr + 8, sums[i][1]);
  }
}
#endif

using MicroKernel = void (*)(int64_t, const float *, const float *, float *);

/// The fastest micro-kernel this CPU runs; all give the same bits.
static MicroKernel pickMicroKernel() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx"))
    return microKernelAvx;
#endif
  return microKernel;
}

void gemmTransposedA(int64_t m, int64_t n, int64_t k, GemmOperand a,
                     GemmOperand b, float *c, int64_t ldc, bool accumulate,
                     GemmScratch &scratch) {
  int64_t aPanels = (m + kMr - 1) / kMr, bPanels = (n + kNr - 1) / kNr;
  scratch.a.resize(aPanels * kMr * k);
  scratch.b.resize(bPanels * kNr * k);
  static const MicroKernel kernel = pickMicroKernel();
  // Panels [first, last) of a then b, packed.
  auto pack = [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      if (p < aPanels)
        packPanel<kMr>(a, k, m, p * kMr, scratch.a.data() + p * kMr * k);
      else
        packPanel<kNr>(b, k, n, (p - aPanels) * kNr,
                       scratch.b.data() + (p - aPanels) * kNr * k);
    }
  };
  // Column panels [first, last) of c; each b panel stays in L1 across the
  // a panels.
  auto panels = [&](int64_t first, int64_t last) {
    float tile[kMr * kNr];
    for (int64_t q = first; q < last; ++q) {
      int64_t j0 = q * kNr, cols = std::min(kNr, n - j0);
      for (int64_t p = 0; p < aPanels; ++p) {
        kernel(k, scratch.a.data() + p * kMr * k,
               scratch.b.data() + q * kNr * k, tile);
        int64_t i0 = p * kMr, rows = std::min(kMr, m - i0);
        for (int64_t i = 0; i < rows; ++i) {
          float *row = c + (i0 + i) * ldc + j0;
          const float *sums = tile + i * kNr;
          if (!accumulate) {
            std::memcpy(row, sums, cols * sizeof(float));
            continue;
          }
          for (int64_t j = 0; j < cols; ++j)
            row[j] += sums[j];
        }
      }
    }
  };
  // Threads pay off from about a million multiply-adds; every panel is
  // summed the same way on any thread.
  if (m * n * k < (int64_t(1) << 20)) {
    pack(0, aPanels + bPanels);
    panels(0, bPanels);
    return;
  }
  parallelFor(aPanels + bPanels, pack);
  parallelFor(bPanels, panels);
}

} // namespace neuron::rt
