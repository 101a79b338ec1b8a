//===- Parallel.cpp - Work split over the host's cores --------------------===//

#include "runtime/sim/Parallel.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace neuron::rt {

int simulatorThreads() {
  static const int threads = [] {
    if (const char *text = std::getenv("NEURON_SIM_THREADS")) {
      char *end = nullptr;
      long value = std::strtol(text, &end, 10);
      if (end != text && *end == '\0' && value >= 1 && value <= 256)
        return int(value);
    }
    unsigned hardware = std::thread::hardware_concurrency();
    return hardware ? int(hardware) : 1;
  }();
  return threads;
}

namespace {
/// Workers that wait for a generation of work to be posted, each take the
/// chunk of their index, and report back. Matmuls come every few tens of
/// microseconds, less than a sleeping thread takes to wake, so both sides
/// spin for a while (pausing) before a worker sleeps.
class Pool {
public:
  explicit Pool(int threads) {
    for (int i = 1; i < threads; ++i)
      workers.emplace_back([this, i] { work(i); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    posted.notify_all();
    for (std::thread &worker : workers)
      worker.join();
  }

  void run(int64_t count, const std::function<void(int64_t, int64_t)> &body) {
    std::lock_guard<std::mutex> turn(callers);
    int64_t parts = std::min<int64_t>(count, int64_t(workers.size()) + 1);
    current = &body;
    total = count;
    chunks = parts;
    // Every worker reports, those without a chunk too, so none still reads
    // this generation's fields when the next one rewrites them.
    pending.store(int64_t(workers.size()), std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex);
      generation.fetch_add(1, std::memory_order_release);
    }
    posted.notify_all();
    body(0, count / parts);
    for (int spins = 0; pending.load(std::memory_order_acquire) != 0; ++spins)
      relax(spins);
  }

private:
  /// A pause while spinning; after a while, a yield to other threads.
  static void relax(int spins) {
    if (spins < 4096) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
      return;
    }
    std::this_thread::yield();
  }

  void work(int64_t index) {
    int64_t seen = 0;
    for (;;) {
      int64_t now = generation.load(std::memory_order_acquire);
      for (int spins = 0; now == seen && spins < kSpins; ++spins) {
        relax(spins);
        now = generation.load(std::memory_order_acquire);
      }
      if (now == seen) {
        std::unique_lock<std::mutex> lock(mutex);
        posted.wait(lock, [&] {
          return stopping || generation.load(std::memory_order_acquire) != seen;
        });
        if (stopping)
          return;
        now = generation.load(std::memory_order_acquire);
      }
      seen = now;
      if (index < chunks)
        (*current)(total * index / chunks, total * (index + 1) / chunks);
      pending.fetch_sub(1, std::memory_order_release);
    }
  }

  /// About a millisecond of spinning before a worker sleeps.
  static constexpr int kSpins = 20000;
  std::mutex callers, mutex;
  std::condition_variable posted;
  std::vector<std::thread> workers;
  // Written by the caller before the generation it posts, read after.
  const std::function<void(int64_t, int64_t)> *current = nullptr;
  int64_t total = 0, chunks = 0;
  std::atomic<int64_t> generation{0}, pending{0};
  bool stopping = false;
};
} // namespace

void parallelFor(int64_t count,
                 const std::function<void(int64_t, int64_t)> &body) {
  if (count <= 0)
    return;
  static Pool pool(simulatorThreads());
  if (count == 1 || simulatorThreads() == 1) {
    body(0, count);
    return;
  }
  pool.run(count, body);
}

} // namespace neuron::rt
