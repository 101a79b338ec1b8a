//===- FuzzProgram.h - The program fuzzers' shared work ---------*- C++ -*-===//
//
// Shared by the executable and manifest fuzzers: a manifest the reader
// accepts is simulated, in time and functionally, when it is small enough
// to run in milliseconds. Every error is a returned status; a crash, a
// sanitizer report or a hang is a finding.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_TEST_FUZZ_FUZZPROGRAM_H
#define NEURON_TEST_FUZZ_FUZZPROGRAM_H

#include <nlohmann/json_fwd.hpp>

namespace neuron::rt::fuzz {

/// Reads `manifest` as the runtime does (parseProgram); when it is valid and
/// small (few dynamic instructions, little memory), simulates its timing on
/// trn2 and runs it on zero inputs.
void exerciseManifest(const nlohmann::json &manifest);

} // namespace neuron::rt::fuzz

#endif // NEURON_TEST_FUZZ_FUZZPROGRAM_H
