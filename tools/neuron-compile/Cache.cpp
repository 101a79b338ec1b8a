//===- Cache.cpp - neuron-compile's use of the compile cache --------------===//

#include "tools/neuron-compile/Cache.h"

#include "passes/KernelLibrary.h"
#include "runtime/format/FileIO.h"
#include "runtime/target/Capabilities.h"
#include "runtime/target/Target.h"

#include "NeuronVersion.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdint>
#include <vector>

#include <elf.h>
#include <link.h>

namespace neuron::driver {

namespace {
std::string hashOf(std::string_view bytes) {
  llvm::XXH128_hash_t hash =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef(llvm::StringRef(bytes)));
  return llvm::utohexstr(hash.high64, /*LowerCase=*/true, 16) +
         llvm::utohexstr(hash.low64, /*LowerCase=*/true, 16);
}

/// The GNU build ids of the shared objects loaded from LLVM's library
/// folder (libMLIR.so, libLLVM.so), read from their notes in memory: an
/// upgraded MLIR, which the compiler binary links dynamically, changes them.
std::string llvmBuildIds() {
  std::string ids;
  dl_iterate_phdr(
      [](struct dl_phdr_info *info, size_t, void *out) {
        llvm::StringRef name(info->dlpi_name ? info->dlpi_name : "");
        if (!name.contains("libMLIR") && !name.contains("libLLVM"))
          return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_NOTE)
            continue;
          const char *p =
              reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
          const char *end = p + ph.p_memsz;
          while (p + sizeof(ElfW(Nhdr)) <= end) {
            const auto *note = reinterpret_cast<const ElfW(Nhdr) *>(p);
            const char *desc =
                p + sizeof(ElfW(Nhdr)) + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && desc + note->n_descsz <= end)
              *static_cast<std::string *>(out) +=
                  " " + llvm::sys::path::filename(name).str() + ":" +
                  llvm::toHex(llvm::StringRef(desc, note->n_descsz),
                              /*LowerCase=*/true);
            p = desc + ((note->n_descsz + 3) & ~3u);
          }
        }
        return 0;
      },
      &ids);
  return ids;
}

/// The running compiler: its version line, a hash of its binary (a
/// "-dirty" tree rebuilt is the same version) and the build ids of the
/// MLIR and LLVM libraries it loaded.
std::string compilerIdentity() {
  std::string identity = NEURON_VERSION_LINE;
  if (auto self = llvm::MemoryBuffer::getFile("/proc/self/exe",
                                              /*IsText=*/false))
    identity += ", binary " + hashOf((*self)->getBuffer());
  std::string libraries = llvmBuildIds();
  if (!libraries.empty())
    identity += ", libraries" + libraries;
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

/// The kernel library as a compile depends on it: the folder's name (the
/// executable records it) and a hash of its .mlir files, names and
/// contents, so editing a kernel is a new compile. An unreadable folder
/// says so; the compile then fails and stores nothing.
std::string kernelLibraryHash(const std::string &dir) {
  std::vector<std::string> files;
  if (std::error_code ec = mlir::neuron::kernelLibraryFiles(dir, files))
    return "unreadable: " + ec.message();
  std::string all = mlir::neuron::kernelLibraryName(dir);
  all.push_back('\0');
  for (const std::string &file : files) {
    all.append(llvm::sys::path::filename(file)).push_back('\0');
    if (auto text = llvm::MemoryBuffer::getFile(file))
      all.append((*text)->getBuffer()).push_back('\0');
    else
      all.append("unreadable").push_back('\0');
  }
  return hashOf(all);
}
} // namespace

rt::CacheKey compileKey(std::string_view input, const std::string &source,
                        const std::string &options,
                        const std::string &kernelLibrary) {
  // The source's path is part of the key: the diagnostics replayed and
  // the coverage report name it.
  rt::CacheKey key{{{"input", hashOf(input)},
                    {"source", source},
                    {"options", options},
                    {"compiler", compilerIdentity()},
                    {"target files", targetFilesHash()}},
                   source};
  if (!kernelLibrary.empty())
    key.parts.emplace_back("kernel library", kernelLibraryHash(kernelLibrary));
  return key;
}

std::optional<rt::CompileCache> openCache(const std::string &dir,
                                          uint64_t maxMiB) {
  uint64_t maxBytes = maxMiB > (UINT64_MAX >> 20) ? UINT64_MAX : maxMiB << 20;
  absl::StatusOr<rt::CompileCache> cache = rt::CompileCache::open(dir, maxBytes);
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
  if (written.ok() && !lookup.entry->report.empty()) {
    written = rt::writeTextFile(report, lookup.entry->report,
                                "coverage report");
  } else if (written.ok()) {
    // The compile wrote none: neither does its replay leave an old one.
    llvm::sys::fs::remove(report);
  }
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
