//===- FuzzExecutable.cpp - Fuzzes the .nxe reader ------------------------===//
//
// Input: an executable file. The container is validated (header, checksums,
// manifest encoding, section table); an executable that passes goes on to
// the program reader and, when small, the simulator (FuzzProgram.h).
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/FuzzProgram.h"

#include "runtime/format/Executable.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  absl::StatusOr<neuron::rt::Executable> exe = neuron::rt::Executable::parse(
      std::vector<uint8_t>(data, data + size));
  if (exe.ok())
    neuron::rt::fuzz::exerciseManifest(exe->manifest());
  return 0;
}
