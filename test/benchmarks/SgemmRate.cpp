//===- SgemmRate.cpp - OpenBLAS's sgemm rate on this machine --------------===//
//---------------===//
//
// The arithmetic limit the functional simulator is measured against
// (run_functional.py): the best of several `cblas_sgemm` calls on N x N
// row-major f32 matrices, with OpenBLAS's default threads.
//
//   neuron-sgemm-rate [N] [REPEATS]      (default 4096 3)
//
// Prints one line: `sgemm N threads T seconds S gflops G`.
//
//===----------------------------------------------------------------------===//

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  long n = argc > 1 ? std::atol(argv[1]) : 4096;
  int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  if (n <= 0 || n > 16384 || repeats <= 0) {
    std::fprintf(stderr, "usage: neuron-sgemm-rate [N in 1..16384] "
                         "[REPEATS > 0]\n");
    return 2;
  }
  size_t elements = size_t(n) * size_t(n);
  std::vector<float> a(elements), b(elements), c(elements);
  unsigned state = 12345;
  for (size_t i = 0; i < elements; ++i) {
    state = state * 1664525u + 1013904223u;
    a[i] = float(state >> 8) / float(1u << 24) - 0.5f;
    b[elements - 1 - i] = a[i];
  }
  double best = 1e30;
  for (int r = 0; r <= repeats; ++r) { // the first call warms up
    auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(n),
                blasint(n), blasint(n), 1.0f, a.data(), blasint(n), b.data(),
                blasint(n), 0.0f, c.data(), blasint(n));
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (r > 0)
      best = std::min(best, seconds);
  }
  std::printf("sgemm %ld threads %d seconds %.4f gflops %.1f\n", n,
              openblas_get_num_threads(), best,
              2.0 * double(n) * double(n) * double(n) / best / 1e9);
  return 0;
}
