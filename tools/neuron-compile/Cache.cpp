//===- Cache.cpp - neuron-compile's use of the compile cache --------------===//

#include "tools/neuron-compile/Cache.h"

#include "runtime/format/FileIO.h"
#include "runtime/target/Capabilities.h"
#include "runtime/target/Target.h"

#include "NeuronVersion.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

namespace neuron::driver {

namespace {
std::string hashOf(std::string_view bytes) {
  llvm::XXH128_hash_t hash =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef(llvm::StringRef(bytes)));
  return llvm::utohexstr(hash.high64, /*LowerCase=*/true, 16) +
         llvm::utohexstr(hash.low64, /*LowerCase=*/true, 16);
}

/// The running compiler: its version line and a hash of its binary, so a
/// rebuilt compiler (a "-dirty" tree rebuilt is the same version) misses.
std::string compilerIdentity() {
  std::string identity = NEURON_VERSION_LINE;
  if (auto self = llvm::MemoryBuffer::getFile("/proc/self/exe",
                                              /*IsText=*/false))
    identity += ", binary " + hashOf((*self)->getBuffer());
  return identity;
}

/// A hash of the target descriptions and capability tables built into the
/// compiler, which decide what a target can run and how fast.
std::string targetFilesHash() {
  std::string all;
  for (const rt::BuiltinTargetFile &f : rt::builtinTargetFiles())
    all.append(f.fileName).append(f.text);
  for (const rt::BuiltinTargetFile &f : rt::builtinCapabilityFiles())
    all.append(f.fileName).append(f.text);
  return hashOf(all);
}
} // namespace

rt::CacheKey compileKey(std::string_view input, const std::string &source,
                        const std::string &options) {
  return {{{"input", hashOf(input)},
           {"options", options},
           {"compiler", compilerIdentity()},
           {"target files", targetFilesHash()}},
          source};
}

std::optional<rt::CompileCache> openCache(const std::string &dir,
                                          uint64_t maxMiB) {
  absl::StatusOr<rt::CompileCache> cache =
      rt::CompileCache::open(dir, maxMiB << 20);
  if (cache.ok())
    return std::move(*cache);
  llvm::errs() << "neuron-compile: warning: " << std::string(cache.status().message())
               << "; compiling without the cache\n";
  return std::nullopt;
}

Replay replayHit(const rt::CompileCache &cache, const rt::CacheKey &key,
                 const std::string &output, const std::string &report) {
  rt::CompileCache::Lookup lookup = cache.lookup(key);
  for (const std::string &warning : lookup.warnings)
    llvm::errs() << "neuron-compile: warning: " << warning << "; rebuilding\n";
  if (!lookup.entry) {
    llvm::errs() << "neuron-compile: cache miss: " << lookup.missReason
                 << "\n";
    return Replay::Miss;
  }
  // What the compile printed, then where it came from.
  llvm::errs() << lookup.entry->log;
  llvm::errs() << "neuron-compile: cache hit: " << lookup.path << "\n";
  absl::Status written =
      rt::writeBinaryFile(output, lookup.entry->executable, "executable");
  if (written.ok() && !lookup.entry->report.empty())
    written = rt::writeTextFile(report, lookup.entry->report,
                                "coverage report");
  if (!written.ok()) {
    llvm::errs() << "neuron-compile: error: " << std::string(written.message()) << "\n";
    return Replay::Failed;
  }
  return Replay::Done;
}

void storeCompile(const rt::CompileCache &cache, const rt::CacheKey &key,
                  const std::string &output, const std::string &report,
                  const std::string &log) {
  absl::StatusOr<rt::MappedFile> executable =
      rt::MappedFile::open(output, "executable");
  absl::Status stored = executable.status();
  if (stored.ok()) {
    std::string reportText;
    if (auto text = llvm::MemoryBuffer::getFile(report, /*IsText=*/false))
      reportText = (*text)->getBuffer().str();
    rt::CacheEntry entry{
        {reinterpret_cast<const char *>(executable->data()),
         executable->size()},
        reportText,
        log};
    stored = cache.store(key, entry).status();
  }
  if (!stored.ok())
    llvm::errs() << "neuron-compile: warning: not cached: "
                 << std::string(stored.message()) << "\n";
}

} // namespace neuron::driver
