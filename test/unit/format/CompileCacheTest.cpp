//===- CompileCacheTest.cpp - The compile cache ---------------------------===//
//
// Entries round-trip; every corruption of an entry (truncation, a flipped
// byte anywhere, a wrong version) is an error, never a crash or a wrong
// entry; a miss names the parts that changed since the nearest entry; a hit
// refreshes the entry; the size bound evicts the least recently used.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/CompileCache.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace neuron::rt {
namespace {

namespace fs = std::filesystem;

std::string freshDir(const std::string &name) {
  fs::path dir = fs::path(testing::TempDir()) /
                 ("cache-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(dir);
  return dir.string();
}

CacheKey key(const std::string &input, const std::string &options,
             const std::string &source = "graph.mlir") {
  return {{{"input", input}, {"options", options}, {"compiler", "c1"}},
          source};
}

/// An entry with an executable of `bytes` bytes (views of static data).
CacheEntry entry(size_t bytes) {
  static const std::string executable = [] {
    std::string e(1 << 16, '\0');
    for (size_t i = 0; i < e.size(); ++i)
      e[i] = char(i * 7);
    return e;
  }();
  return {std::string_view(executable).substr(0, bytes),
          R"({"totals":{}})", "graph.mlir:1:1: remark: hello\n"};
}

absl::StatusOr<std::pair<CacheKey, CacheEntry>>
parse(const std::vector<uint8_t> &bytes, const std::string &name) {
  return parseCacheEntry(bytes.data(), bytes.size(), name);
}

size_t countEntries(const std::string &dir) {
  size_t n = 0;
  for (const fs::directory_entry &e : fs::directory_iterator(dir))
    n += e.path().extension() == ".nxc";
  return n;
}

TEST(CompileCacheTest, EntryRoundTrips) {
  CacheKey k = key("abc", "target=trn2 O2");
  CacheEntry e = entry(1000);
  std::vector<uint8_t> bytes = serializeCacheEntry(k, e);
  auto parsed = parse(bytes, "x");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->first.parts, k.parts);
  EXPECT_EQ(parsed->first.source, "graph.mlir");
  EXPECT_EQ(parsed->second.executable, e.executable);
  EXPECT_EQ(parsed->second.report, e.report);
  EXPECT_EQ(parsed->second.log, e.log);
}

TEST(CompileCacheTest, EveryCorruptionIsAnError) {
  std::vector<uint8_t> good = serializeCacheEntry(key("abc", "O2"), entry(64));
  for (size_t size = 0; size < good.size(); ++size) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + size);
    EXPECT_FALSE(parse(cut, "x").ok()) << "truncated to " << size;
  }
  for (size_t at = 0; at < good.size(); ++at) {
    std::vector<uint8_t> flipped = good;
    flipped[at] ^= 0x10;
    EXPECT_FALSE(parse(flipped, "x").ok()) << "byte " << at;
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  auto error = parse(longer, "e.nxc");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().message(),
            "e.nxc: " + std::to_string(good.size() + 1) +
                " bytes, the header says " + std::to_string(good.size()) +
                " (truncated?)");
}

TEST(CompileCacheTest, HitMissAndWhy) {
  auto cache = CompileCache::open(freshDir("hit"), 1 << 20);
  ASSERT_TRUE(cache.ok()) << cache.status();
  CacheKey k = key("abc", "target=trn2 fallback=decompose O2 buffers=16");
  CompileCache::Lookup first = cache->lookup(k);
  EXPECT_FALSE(first.entry);
  EXPECT_EQ(first.missReason, "no entry in the cache yet");
  ASSERT_TRUE(cache->store(k, entry(100)).ok());
  CompileCache::Lookup hit = cache->lookup(k);
  ASSERT_TRUE(hit.entry);
  EXPECT_EQ(hit.entry->executable, entry(100).executable);
  EXPECT_EQ(hit.path, cache->directory() + "/" + k.digest() + ".nxc");

  // Options: the words that went and came. The input: both hashes.
  CompileCache::Lookup options =
      cache->lookup(key("abc", "target=trn2 fallback=host O2 buffers=8"));
  EXPECT_EQ(options.missReason,
            "changed since the nearest entry (graph.mlir): options "
            "(fallback=decompose buffers=16 -> fallback=host buffers=8)");
  CompileCache::Lookup input = cache->lookup(
      key("abd", "target=trn2 fallback=decompose O2 buffers=16"));
  EXPECT_EQ(input.missReason, "changed since the nearest entry (graph.mlir): "
                              "input ('abc' -> 'abd')");
}

TEST(CompileCacheTest, CorruptEntryIsDiscardedWithAWarning) {
  auto cache = CompileCache::open(freshDir("corrupt"), 1 << 20);
  ASSERT_TRUE(cache.ok());
  CacheKey k = key("abc", "O2");
  ASSERT_TRUE(cache->store(k, entry(100)).ok());
  std::string path = cache->directory() + "/" + k.digest() + ".nxc";
  uintmax_t whole = fs::file_size(path);
  fs::resize_file(path, 120);
  CompileCache::Lookup lookup = cache->lookup(k);
  EXPECT_FALSE(lookup.entry);
  ASSERT_EQ(lookup.warnings.size(), 1u);
  EXPECT_EQ(lookup.warnings[0],
            "discarding corrupt cache entry: " + path +
                ": 120 bytes, the header says " + std::to_string(whole) +
                " (truncated?)");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_EQ(lookup.missReason, "no entry in the cache yet");
}

TEST(CompileCacheTest, EvictsTheLeastRecentlyUsed) {
  // Room for two 1000-byte entries, not three.
  auto cache = CompileCache::open(freshDir("evict"), 2600);
  ASSERT_TRUE(cache.ok());
  CacheKey a = key("a", "O2"), b = key("b", "O2"), c = key("c", "O2");
  auto path = [&](const CacheKey &k) {
    return cache->directory() + "/" + k.digest() + ".nxc";
  };
  // Times set, not waited for: file systems keep them at coarse steps.
  auto age = [&](const CacheKey &k, int minutes) {
    fs::last_write_time(path(k), fs::file_time_type::clock::now() -
                                     std::chrono::minutes(minutes));
  };
  ASSERT_EQ(*cache->store(a, entry(1000)), 0);
  ASSERT_EQ(*cache->store(b, entry(1000)), 0);
  age(a, 20);
  age(b, 10);
  EXPECT_TRUE(cache->lookup(a).entry); // a hit: a is now the most recent
  EXPECT_GT(fs::last_write_time(path(a)), fs::last_write_time(path(b)));
  EXPECT_EQ(*cache->store(c, entry(1000)), 1);
  EXPECT_EQ(countEntries(cache->directory()), 2u);
  EXPECT_TRUE(cache->lookup(a).entry);
  EXPECT_FALSE(cache->lookup(b).entry);
  EXPECT_TRUE(cache->lookup(c).entry);
  // An entry larger than the whole bound is kept (alone).
  auto tiny = CompileCache::open(cache->directory(), 10);
  EXPECT_EQ(*tiny->store(key("d", "O2"), entry(1000)), 2);
  EXPECT_EQ(countEntries(cache->directory()), 1u);
}

TEST(CompileCacheTest, AFileWhereTheFolderShouldBeIsAnError) {
  std::string dir = freshDir("file");
  std::ofstream(dir) << "x";
  auto cache = CompileCache::open(dir, 1 << 20);
  ASSERT_FALSE(cache.ok());
  EXPECT_NE(cache.status().message().find("cannot use '" + dir +
                                          "' as a compile cache"),
            std::string::npos);
}

} // namespace
} // namespace neuron::rt
