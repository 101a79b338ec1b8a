//===- CompileCache.h - A content-addressed cache of compiles ---*- C++ -*-===//
//
// neuron-compile's persistent cache (--cache-dir, NEURON_CACHE_DIR): one
// file per compile, named by its key's digest, holding the key, the
// executable, the coverage report and the diagnostics the compile printed.
//
// - Safe under concurrent compiles and on network file systems: an entry is
//   written to a temporary file beside it and renamed into place, so a
//   reader sees a whole entry or none.
// - Never trusted blindly: a header checksum and a payload checksum (CRC-32C)
//   and the whole key are checked on every read; a corrupt entry is
//   discarded with a warning and rebuilt.
// - Size-bounded: after each store the least recently used entries (by
//   modification time, which a hit refreshes) go until the total fits.
// - A miss says why: which parts of the key differ from the nearest entry.
//
// Entry layout (little-endian), format version 1:
//   0  "NXCACHE\0"          8  u32 version        12 u32 key bytes
//   16 u32 report bytes     20 u32 log bytes      24 u64 executable bytes
//   32 u32 payload CRC-32C  36 u32 CRC-32C of bytes 0-35
//   40 key (JSON) | report | log | executable
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_FORMAT_COMPILECACHE_H
#define NEURON_RUNTIME_FORMAT_COMPILECACHE_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace neuron::rt {

/// What a compile's result depends on, part by part ("input", "options",
/// "compiler", ...), with where its input came from (not part of the key,
/// but the tie-breaker when looking for the nearest entry).
struct CacheKey {
  std::vector<std::pair<std::string, std::string>> parts;
  std::string source;

  /// 16 hex digits of a hash of the parts: the entry's file name.
  std::string digest() const;
  /// The key as stored in an entry (canonical JSON).
  std::string serialize() const;
};

/// What a compile produced, as views of bytes held elsewhere.
struct CacheEntry {
  std::string_view executable, report, log;
};

/// An entry file's `size` bytes at `data`, checked: its key and contents
/// (views into `data`), or an error saying what is wrong (size, checksums,
/// key). `name` is used in errors.
absl::StatusOr<std::pair<CacheKey, CacheEntry>>
parseCacheEntry(const uint8_t *data, size_t size, const std::string &name);
/// The bytes of an entry file holding `key` and `entry`.
std::vector<uint8_t> serializeCacheEntry(const CacheKey &key,
                                         const CacheEntry &entry);

class CompileCache {
public:
  /// The cache in `dir` (created if missing) holding at most `maxBytes`.
  static absl::StatusOr<CompileCache> open(std::string dir, uint64_t maxBytes);

  struct Lookup {
    /// The entry on a hit, its views into `file` (whose buffer a move of
    /// the Lookup keeps).
    std::optional<CacheEntry> entry;
    std::vector<uint8_t> file;
    /// The entry's file on a hit.
    std::string path;
    /// Why there was no hit: the parts that differ from the nearest entry.
    std::string missReason;
    /// Entries found corrupt and discarded.
    std::vector<std::string> warnings;
  };
  /// Looks `key` up; a hit refreshes the entry's time for eviction.
  Lookup lookup(const CacheKey &key) const;

  /// Stores `entry` under `key`, then evicts least recently used entries
  /// (and temporary files left by interrupted stores) until the cache fits
  /// its bound; returns how many entries were evicted.
  absl::StatusOr<int> store(const CacheKey &key, const CacheEntry &entry) const;

  const std::string &directory() const { return dir; }

private:
  CompileCache(std::string dir, uint64_t maxBytes)
      : dir(std::move(dir)), maxBytes(maxBytes) {}
  std::string entryPath(const CacheKey &key) const;
  std::string explainMiss(const CacheKey &key) const;
  int evict(const std::string &keep) const;

  std::string dir;
  uint64_t maxBytes;
};

} // namespace neuron::rt

#endif // NEURON_RUNTIME_FORMAT_COMPILECACHE_H
