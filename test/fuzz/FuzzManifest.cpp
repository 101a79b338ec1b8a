//===- FuzzManifest.cpp - Fuzzes the manifest reader ----------------------===//
//
// Input: a manifest as JSON text, past the container's checksums that stop
// most mutations of a whole executable: programs, kernels, loop records,
// affine waits, host-call references, collectives and SPMD sharding go to
// the program reader and, when small, the simulator (FuzzProgram.h).
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/FuzzProgram.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nlohmann::json manifest =
      nlohmann::json::parse(data, data + size, nullptr,
                            /*allow_exceptions=*/false);
  if (!manifest.is_discarded())
    neuron::rt::fuzz::exerciseManifest(manifest);
  return 0;
}
