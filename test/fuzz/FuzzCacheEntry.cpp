//===- FuzzCacheEntry.cpp - Fuzzes the compile cache's entry reader -------===//
//
// Input: a compile cache entry (runtime/format/CompileCache.h), as
// neuron-compile reads one from --cache-dir; an entry that reads is written
// back and must read again to the same key and contents.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/CompileCache.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto entry = neuron::rt::parseCacheEntry(data, size, "fuzz.nxc");
  if (!entry.ok())
    return 0;
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
  return 0;
}
