//===- Cache.h - neuron-compile's use of the compile cache ------*- C++ -*-===//
//
// The key of a compile (input bytes, options, the compiler binary and its
// version, the built-in target and capability files) and the driver's side
// of runtime/format/CompileCache: replaying a hit (executable, coverage
// report, the diagnostics the compile printed) and storing a compile.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_TOOLS_NEURON_COMPILE_CACHE_H
#define NEURON_TOOLS_NEURON_COMPILE_CACHE_H

#include "runtime/format/CompileCache.h"

#include <optional>
#include <string>
#include <string_view>

namespace neuron::driver {

/// What a compile depends on: `input`'s bytes (read from `source`), the
/// driver's `options`, as text, and the kernel library's files when one is
/// given.
rt::CacheKey compileKey(std::string_view input, const std::string &source,
                        const std::string &options,
                        const std::string &kernelLibrary);

/// The cache in `dir` bounded to `maxMiB` MiB, or nothing after a warning
/// saying why it cannot be used.
std::optional<rt::CompileCache> openCache(const std::string &dir,
                                          uint64_t maxMiB);

enum class Replay { Miss, Done, Failed };

/// Looks `key` up, saying on standard error whether it hit or why not. On a
/// hit writes the executable to `output` and the report to `report` and
/// prints the diagnostics the compile printed (Done, or Failed after an
/// error when a write fails).
Replay replayHit(const rt::CompileCache &cache, const rt::CacheKey &key,
                 const std::string &output, const std::string &report);

/// Stores the compile just written to `output` and `report`, which printed
/// `log`; a failure is a warning (the compile itself succeeded).
void storeCompile(const rt::CompileCache &cache, const rt::CacheKey &key,
                  const std::string &output, const std::string &report,
                  const std::string &log);

} // namespace neuron::driver

#endif // NEURON_TOOLS_NEURON_COMPILE_CACHE_H
