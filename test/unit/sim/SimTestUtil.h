//===- SimTestUtil.h - Helpers shared by the simulator tests ----*- C++ -*-===//
//
// Building host tensors from values and reading them back, and parsing the
// JSON literal manifests the tests are written in.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_TEST_UNIT_SIM_SIMTESTUTIL_H
#define NEURON_TEST_UNIT_SIM_SIMTESTUTIL_H

#include "runtime/sim/Program.h"
#include "runtime/sim/Simulator.h"

#include "gtest/gtest.h"

#include "absl/types/span.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace neuron::rt::test {

using json = nlohmann::json;

/// `text` parsed; an empty object when it is not valid JSON (the test then
/// fails on the missing fields).
inline json parseJson(const char *text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? json::object() : j;
}

/// A host tensor holding `values` rounded to `dtype`.
inline Tensor makeTensor(DType dtype, std::vector<int64_t> shape,
                         const std::vector<double> &values) {
  Tensor t{std::string(dtypeName(dtype)), std::move(shape), {}};
  int64_t bytes = elementBytes(dtype);
  t.data.resize(values.size() * bytes);
  for (size_t i = 0; i < values.size(); ++i)
    storeElement(dtype, values[i], t.data.data() + i * bytes);
  return t;
}

/// The program `manifest` describes; a test failure when it does not parse.
inline Program parse(const json &manifest) {
  absl::StatusOr<Program> program = parseProgram(manifest);
  EXPECT_TRUE(program.ok()) << program.status();
  return program.ok() ? *program : Program{};
}

/// Why `manifest` does not parse ("" when it does); a test failure when the
/// error is not InvalidArgument.
inline std::string errorOf(const json &manifest) {
  absl::StatusOr<Program> program = parseProgram(manifest);
  if (program.ok())
    return "";
  EXPECT_EQ(program.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(program.status().message());
}

/// The values of `t`.
inline std::vector<double> valuesOf(const Tensor &t) {
  DType dtype = *parseDType(t.dtype);
  int64_t bytes = elementBytes(dtype);
  std::vector<double> out;
  for (size_t i = 0; i + bytes <= t.data.size(); i += bytes)
    out.push_back(loadElement(dtype, t.data.data() + i));
  return out;
}

/// The limits of a trn2 kernel, as the compiler writes them.
inline json trn2Limits() {
  return {{"partitions", 128},      {"sbuf_bytes", 196608},
          {"psum_bytes", 16384},    {"psum_bank_bytes", 2048},
          {"stationary_free", 128}, {"moving_free", 512}};
}

/// Inputs of all ones for `program`, one per input as its tensor is.
inline std::vector<Tensor> onesInputs(const Program &program) {
  std::vector<Tensor> inputs;
  for (const IoBinding &io : program.inputs) {
    const TensorDesc &t = program.tensors[io.tensor];
    inputs.push_back(
        makeTensor(t.dtype, t.shape, std::vector<double>(t.elements, 1.0)));
  }
  return inputs;
}

/// How many mutated manifests a hostile-value sweep read, and how many of
/// them the reader accepted.
struct HostileSweep {
  int checked = 0, accepted = 0;
};

/// Replaces the value at every path of `base` under `at` (every leaf and
/// every object or array containing one), in turn, by each of `hostile`,
/// and hands each program the reader accepts to `use`. The reader must
/// return either way; `use` runs what it accepts.
inline HostileSweep
sweepHostileValues(const json &base, const json::json_pointer &at,
                   absl::Span<const json> hostile,
                   const std::function<void(const Program &)> &use) {
  std::vector<std::string> paths;
  json flat = base.at(at).flatten();
  for (auto it = flat.begin(); it != flat.end(); ++it)
    for (std::string path = it.key(); !path.empty();
         path = path.substr(0, path.rfind('/')))
      paths.push_back(path);
  HostileSweep sweep;
  for (const std::string &path : paths)
    for (const json &value : hostile) {
      json m = base;
      m[at / json::json_pointer(path)] = value;
      absl::StatusOr<Program> program = parseProgram(m);
      ++sweep.checked;
      if (!program.ok())
        continue;
      ++sweep.accepted;
      use(*program);
    }
  return sweep;
}

} // namespace neuron::rt::test

#endif // NEURON_TEST_UNIT_SIM_SIMTESTUTIL_H
