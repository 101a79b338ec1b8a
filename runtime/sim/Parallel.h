//===- Parallel.h - Work split over the host's cores ------------*- C++ -*-===//
//
// One process-wide pool of worker threads for the functional simulator's
// large, independent pieces of work (a matmul's column panels). The caller's
// thread takes a share, so a one-core host runs everything inline. Work is
// split by index, never by timing, so results do not depend on the thread
// count.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_PARALLEL_H
#define NEURON_RUNTIME_SIM_PARALLEL_H

#include <cstdint>
#include <functional>

namespace neuron::rt {

/// Threads the pool works with, the caller's included: the host's hardware
/// threads, or NEURON_SIM_THREADS when set to a number from 1 to 256.
int simulatorThreads();

/// Calls `body(begin, end)` on consecutive chunks covering [0, count), one
/// chunk per thread, and returns when all have returned. `body` must not
/// call parallelFor; calls from several threads at once take turns.
void parallelFor(int64_t count,
                 const std::function<void(int64_t, int64_t)> &body);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_PARALLEL_H
