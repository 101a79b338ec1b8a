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

#include <nlohmann/json.hpp>

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

} // namespace neuron::rt::test

#endif // NEURON_TEST_UNIT_SIM_SIMTESTUTIL_H
