//===- FuzzNpy.cpp - Fuzzes the .npy reader -------------------------------===//
//
// Input: a .npy file, read as neuron-run reads inputs (with and without
// f32-to-bf16 conversion); an array that reads is written back and must
// read again to the same array.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Npy.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  for (bool f32AsBf16 : {false, true}) {
    neuron::rt::NpyReadOptions options;
    options.f32AsBf16 = f32AsBf16;
    absl::StatusOr<neuron::rt::Tensor> array =
        neuron::rt::parseNpy(bytes, "fuzz.npy", options);
    if (!array.ok())
      continue;
    absl::StatusOr<std::vector<uint8_t>> written =
        neuron::rt::serializeNpy(*array);
    if (!written.ok())
      std::abort();
    absl::StatusOr<neuron::rt::Tensor> again = neuron::rt::parseNpy(*written);
    if (!again.ok() || again->dtype != array->dtype ||
        again->shape != array->shape || again->data != array->data)
      std::abort();
  }
  return 0;
}
