//===- FuzzCacheEntry.cpp - Fuzzes the compile cache's entry reader -------===//
//
// Input: a compile cache entry (runtime/format/CompileCache.h), as
// neuron-compile reads one from --cache-dir, and again with both of its
// checksums made right, so mutations reach the key and size checks behind
// them; an entry that reads is written back and must read again to the
// same key and contents.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Checksum.h"
#include "runtime/format/CompileCache.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

/// Reads `bytes` as an entry; one that reads must round-trip.
static void check(const std::vector<uint8_t> &bytes) {
  auto entry = neuron::rt::parseCacheEntry(bytes.data(), bytes.size(), "x");
  if (!entry.ok())
    return;
  std::vector<uint8_t> written =
      neuron::rt::serializeCacheEntry(entry->first, entry->second);
  auto again =
      neuron::rt::parseCacheEntry(written.data(), written.size(), "again");
  if (!again.ok() || again->first.parts != entry->first.parts ||
      again->first.source != entry->first.source ||
      again->second.executable != entry->second.executable ||
      again->second.report != entry->second.report ||
      again->second.log != entry->second.log)
    std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  check(bytes);
  // The header's checksum fields (CompileCache.h): the payload's at 32,
  // the header's own at 36.
  if (bytes.size() >= 40) {
    uint32_t payload =
        neuron::rt::crc32c(bytes.data() + 40, bytes.size() - 40);
    std::memcpy(bytes.data() + 32, &payload, 4);
    uint32_t header = neuron::rt::crc32c(bytes.data(), 36);
    std::memcpy(bytes.data() + 36, &header, 4);
    check(bytes);
  }
  return 0;
}
