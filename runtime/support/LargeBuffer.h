//===- LargeBuffer.h - Byte buffers of simulated memories -------*- C++ -*-===//
//
// HBM tensors, SBUF, PSUM and the files behind them run to gigabytes, and
// first touching them a 4 KiB page at a time costs more than the work done
// on them. A buffer sized here asks Linux for transparent huge pages before
// its bytes are touched (where the kernel allows them on request), so the
// same bytes fault in 2 MiB at a time.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SUPPORT_LARGEBUFFER_H
#define NEURON_RUNTIME_SUPPORT_LARGEBUFFER_H

#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace neuron::rt {

/// Resizes `bytes` to `size` zero bytes, as `assign(size, 0)` does, asking
/// for huge pages first when it allocates 4 MiB or more. A failed request
/// changes nothing but speed.
inline void resizeLargeBuffer(std::vector<uint8_t> &bytes, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (size >= 2 * kHuge && size > bytes.capacity()) {
    std::vector<uint8_t>().swap(bytes);
    bytes.reserve(size);
    auto start = reinterpret_cast<uintptr_t>(bytes.data());
    uintptr_t first = (start + kHuge - 1) & ~(kHuge - 1);
    uintptr_t last = (start + size) & ~(kHuge - 1);
    if (last > first)
      madvise(reinterpret_cast<void *>(first), last - first, MADV_HUGEPAGE);
  }
#endif
  bytes.assign(size, 0);
}

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SUPPORT_LARGEBUFFER_H
