//===- CompileCache.cpp - A content-addressed cache of compiles -----------===//

#include "runtime/format/CompileCache.h"

#include "runtime/format/Checksum.h"
#include "runtime/format/FileIO.h"
#include "runtime/support/StatusMacros.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

namespace neuron::rt {
namespace fs = std::filesystem;

namespace {
constexpr char kMagic[8] = {'N', 'X', 'C', 'A', 'C', 'H', 'E', '\0'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 40;
constexpr const char *kSuffix = ".nxc";
/// A temporary file older than this was left by an interrupted store.
constexpr auto kStaleTemporary = std::chrono::hours(1);

template <typename T> T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T)); // the format is little-endian, as x86
  return value;
}
template <typename T> void store(uint8_t *p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

/// The header's fields.
struct Header {
  uint32_t keyBytes, reportBytes, logBytes;
  uint64_t executableBytes;
  uint32_t payloadCrc;

  uint64_t payloadBytes() const {
    return uint64_t(keyBytes) + reportBytes + logBytes + executableBytes;
  }
};

absl::StatusOr<Header> parseHeader(const uint8_t *data, size_t size,
                                   const std::string &name) {
  if (size < kHeaderBytes)
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %d bytes, shorter than the %d-byte header", name, size,
        kHeaderBytes));
  if (std::memcmp(data, kMagic, sizeof(kMagic)) != 0)
    return absl::InvalidArgumentError(name + ": not a cache entry (magic)");
  if (uint32_t version = load<uint32_t>(data + 8); version != kVersion)
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: format version %d, expected %d", name, version, kVersion));
  if (load<uint32_t>(data + 36) != crc32c(data, 36))
    return absl::InvalidArgumentError(name + ": header checksum mismatch");
  Header h{load<uint32_t>(data + 12), load<uint32_t>(data + 16),
           load<uint32_t>(data + 20), load<uint64_t>(data + 24),
           load<uint32_t>(data + 32)};
  // executableBytes is bounded first: the sum cannot overflow.
  if (h.executableBytes > (uint64_t(1) << 62))
    return absl::InvalidArgumentError(name + ": executable size out of range");
  return h;
}

absl::StatusOr<CacheKey> parseKey(std::string_view text,
                                  const std::string &name) {
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&] {
    return absl::InvalidArgumentError(name + ": malformed key");
  };
  if (!json.is_object() || !json.contains("parts") ||
      !json["parts"].is_array() || !json.contains("source") ||
      !json["source"].is_string())
    return bad();
  CacheKey key;
  key.source = json["source"].get<std::string>();
  for (const auto &part : json["parts"]) {
    if (!part.is_array() || part.size() != 2 || !part[0].is_string() ||
        !part[1].is_string())
      return bad();
    key.parts.emplace_back(part[0].get<std::string>(),
                           part[1].get<std::string>());
  }
  return key;
}

nlohmann::ordered_json partsJson(const CacheKey &key) {
  nlohmann::ordered_json parts = nlohmann::ordered_json::array();
  for (const auto &[name, value] : key.parts)
    parts.push_back({name, value});
  return parts;
}

/// The key stored in the entry file at `path`, read from its header and key
/// only (not its payload), or an error.
absl::StatusOr<CacheKey> readKey(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  uint8_t header[kHeaderBytes];
  if (!in.read(reinterpret_cast<char *>(header), kHeaderBytes))
    return absl::InvalidArgumentError(path.string() + ": short read");
  NEURON_ASSIGN_OR_RETURN(h, parseHeader(header, kHeaderBytes, path.string()));
  if (h.keyBytes > (1u << 20))
    return absl::InvalidArgumentError(path.string() + ": key too long");
  std::string text(h.keyBytes, '\0');
  if (!in.read(text.data(), h.keyBytes))
    return absl::InvalidArgumentError(path.string() + ": short read");
  return parseKey(text, path.string());
}

/// `value` cut to at most 60 characters, quoted.
std::string shown(const std::string &value) {
  return "'" + (value.size() > 60 ? value.substr(0, 57) + "..." : value) + "'";
}

/// How part `name` changed from `was` to `now`: for options (words), the
/// words that went and came; else both values.
std::string describeChange(const std::string &name, const std::string &was,
                           const std::string &now) {
  std::vector<std::string> before = absl::StrSplit(was, ' ', absl::SkipEmpty());
  std::vector<std::string> after = absl::StrSplit(now, ' ', absl::SkipEmpty());
  if (before.size() > 1 || after.size() > 1) {
    std::set<std::string> a(before.begin(), before.end()),
        b(after.begin(), after.end());
    std::vector<std::string> gone, came;
    for (const std::string &w : before)
      if (!b.count(w))
        gone.push_back(w);
    for (const std::string &w : after)
      if (!a.count(w))
        came.push_back(w);
    return absl::StrFormat("%s (%s -> %s)", name,
                           gone.empty() ? "-" : absl::StrJoin(gone, " "),
                           came.empty() ? "-" : absl::StrJoin(came, " "));
  }
  return absl::StrFormat("%s (%s -> %s)", name, shown(was), shown(now));
}

struct FileInfo {
  fs::path path;
  uint64_t bytes;
  fs::file_time_type time;
};

/// The entry files in `dir`, and the temporary files of interrupted stores
/// old enough to be abandoned.
void listFiles(const std::string &dir, std::vector<FileInfo> &entries,
               std::vector<fs::path> &stale) {
  std::error_code ec;
  auto now = fs::file_time_type::clock::now();
  // Stepped with error codes: the project is built without exceptions.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::directory_entry &e = *it;
    std::error_code fileEc;
    if (!e.is_regular_file(fileEc))
      continue;
    std::string name = e.path().filename().string();
    fs::file_time_type time = e.last_write_time(fileEc);
    uint64_t bytes = e.file_size(fileEc);
    if (fileEc)
      continue; // removed by another process meanwhile
    if (name.size() > 4 && name.compare(name.size() - 4, 4, kSuffix) == 0)
      entries.push_back({e.path(), bytes, time});
    else if (name.find(std::string(kSuffix) + ".tmp-") != std::string::npos &&
             now - time > kStaleTemporary)
      stale.push_back(e.path());
  }
}
} // namespace

std::string CacheKey::digest() const {
  // FNV-1a, 64 bits: names the file; the whole key is compared on reading.
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : partsJson(*this).dump()) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return absl::StrFormat("%016x", hash);
}

std::string CacheKey::serialize() const {
  nlohmann::ordered_json json;
  json["parts"] = partsJson(*this);
  json["source"] = source;
  return json.dump();
}

std::vector<uint8_t> serializeCacheEntry(const CacheKey &key,
                                         const CacheEntry &entry) {
  std::string keyText = key.serialize();
  std::vector<uint8_t> bytes(kHeaderBytes);
  auto append = [&](const void *data, size_t size) {
    const uint8_t *p = static_cast<const uint8_t *>(data);
    bytes.insert(bytes.end(), p, p + size);
  };
  append(keyText.data(), keyText.size());
  append(entry.report.data(), entry.report.size());
  append(entry.log.data(), entry.log.size());
  append(entry.executable.data(), entry.executable.size());
  std::memcpy(bytes.data(), kMagic, sizeof(kMagic));
  store<uint32_t>(bytes.data() + 8, kVersion);
  store<uint32_t>(bytes.data() + 12, uint32_t(keyText.size()));
  store<uint32_t>(bytes.data() + 16, uint32_t(entry.report.size()));
  store<uint32_t>(bytes.data() + 20, uint32_t(entry.log.size()));
  store<uint64_t>(bytes.data() + 24, entry.executable.size());
  store<uint32_t>(bytes.data() + 32, crc32c(bytes.data() + kHeaderBytes,
                                            bytes.size() - kHeaderBytes));
  store<uint32_t>(bytes.data() + 36, crc32c(bytes.data(), 36));
  return bytes;
}

absl::StatusOr<std::pair<CacheKey, CacheEntry>>
parseCacheEntry(const uint8_t *data, size_t size, const std::string &name) {
  NEURON_ASSIGN_OR_RETURN(h, parseHeader(data, size, name));
  if (h.payloadBytes() != size - kHeaderBytes)
    return absl::InvalidArgumentError(absl::StrFormat(
        "%s: %d bytes, the header says %d (truncated?)", name, size,
        kHeaderBytes + h.payloadBytes()));
  const uint8_t *p = data + kHeaderBytes;
  if (crc32c(p, h.payloadBytes()) != h.payloadCrc)
    return absl::InvalidArgumentError(name + ": payload checksum mismatch");
  auto take = [&](uint64_t n) {
    std::string_view view(reinterpret_cast<const char *>(p), n);
    p += n;
    return view;
  };
  NEURON_ASSIGN_OR_RETURN(key, parseKey(take(h.keyBytes), name));
  CacheEntry entry;
  entry.report = take(h.reportBytes);
  entry.log = take(h.logBytes);
  entry.executable = take(h.executableBytes);
  return std::make_pair(std::move(key), entry);
}

absl::StatusOr<CompileCache> CompileCache::open(std::string dir,
                                                uint64_t maxBytes) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    return absl::InvalidArgumentError(absl::StrFormat(
        "cannot use '%s' as a compile cache: %s", dir,
        ec ? ec.message() : std::string("not a folder")));
  return CompileCache(std::move(dir), maxBytes);
}

std::string CompileCache::entryPath(const CacheKey &key) const {
  return (fs::path(dir) / (key.digest() + kSuffix)).string();
}

CompileCache::Lookup CompileCache::lookup(const CacheKey &key) const {
  Lookup result;
  std::string path = entryPath(key);
  // Read, not mapped: another host of a network file system may evict the
  // entry while it is read, which would end the process at the next touch
  // of a mapped page.
  absl::StatusOr<std::vector<uint8_t>> file =
      readBinaryFile(path, "cache entry");
  absl::Status problem = file.status();
  if (file.ok()) {
    absl::StatusOr<std::pair<CacheKey, CacheEntry>> parsed =
        parseCacheEntry(file->data(), file->size(), path);
    if (parsed.ok() && parsed->first.parts == key.parts) {
      // A hit is a use: it moves the entry to the back of the eviction
      // queue.
      std::error_code ec;
      fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
      result.entry = parsed->second;
      result.file = std::move(*file);
      result.path = path;
      return result;
    }
    // Another key under the same digest is a miss, not a corruption.
    problem = parsed.status();
  }
  if (!problem.ok() && !absl::IsNotFound(problem)) {
    result.warnings.push_back(absl::StrFormat(
        "discarding corrupt cache entry: %s", problem.message()));
    std::error_code ec;
    fs::remove(path, ec);
  }
  result.missReason = explainMiss(key);
  return result;
}

std::string CompileCache::explainMiss(const CacheKey &key) const {
  std::vector<FileInfo> entries;
  std::vector<fs::path> stale;
  listFiles(dir, entries, stale);
  // The nearest entry: most parts equal, then the same source, then the
  // most recently used.
  std::optional<CacheKey> nearest;
  std::tuple<int, bool, fs::file_time_type> best{-1, false, {}};
  for (const FileInfo &file : entries) {
    absl::StatusOr<CacheKey> other = readKey(file.path);
    if (!other.ok())
      continue;
    int equal = 0;
    for (const auto &part : key.parts)
      equal += int(std::count(other->parts.begin(), other->parts.end(), part));
    std::tuple<int, bool, fs::file_time_type> score{
        equal, other->source == key.source, file.time};
    if (score > best) {
      best = score;
      nearest = std::move(*other);
    }
  }
  if (!nearest)
    return "no entry in the cache yet";
  std::vector<std::string> changes;
  for (const auto &[name, value] : key.parts) {
    auto was = std::find_if(
        nearest->parts.begin(), nearest->parts.end(),
        [&, &name = name](const auto &p) { return p.first == name; });
    if (was == nearest->parts.end())
      changes.push_back(name + " (new)");
    else if (was->second != value)
      changes.push_back(describeChange(name, was->second, value));
  }
  return absl::StrFormat("changed since the nearest entry (%s): %s",
                         nearest->source.empty() ? "no source"
                                                 : nearest->source,
                         changes.empty() ? "nothing (a hash collision)"
                                         : absl::StrJoin(changes, "; "));
}

absl::StatusOr<int> CompileCache::store(const CacheKey &key,
                                        const CacheEntry &entry) const {
  std::string path = entryPath(key);
  NEURON_RETURN_IF_ERROR(
      writeBinaryFile(path, serializeCacheEntry(key, entry), "cache entry"));
  return evict(path);
}

int CompileCache::evict(const std::string &keep) const {
  std::vector<FileInfo> entries;
  std::vector<fs::path> stale;
  listFiles(dir, entries, stale);
  std::error_code ec;
  for (const fs::path &p : stale)
    fs::remove(p, ec);
  uint64_t total = 0;
  for (const FileInfo &f : entries)
    total += f.bytes;
  std::sort(entries.begin(), entries.end(),
            [](const FileInfo &a, const FileInfo &b) { return a.time < b.time; });
  int evicted = 0;
  for (const FileInfo &f : entries) {
    if (total <= maxBytes)
      break;
    if (f.path == fs::path(keep))
      continue;
    // Another process may have removed it already: it is gone either way.
    fs::remove(f.path, ec);
    total -= f.bytes;
    ++evicted;
  }
  return evicted;
}

} // namespace neuron::rt
