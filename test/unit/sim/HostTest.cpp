//===- HostTest.cpp - host_call steps run by their reference --------------===//
//
// The reader's errors on bad references (ids, maps, ops, types), execution
// with exact 64-bit integers (TFLite's requantisation chain), reductions,
// broadcast and reversed maps, arith's corner cases as the runtime defines
// them, per-op float rounding, and a mutation sweep showing that no JSON
// value in a reference crashes the reader or the run.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

#include "runtime/sim/Profile.h"
#include "runtime/sim/Timing.h"
#include "runtime/target/Target.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace neuron::rt;
using namespace neuron::rt::test;

namespace {

/// A program of one host_call step "h" from the given tensors, inputs and
/// outputs (tensor ids) and reference.
json hostManifest(json tensors, std::vector<int64_t> inputs,
                  std::vector<int64_t> outputs, json reference) {
  json ins = json::array(), outs = json::array();
  for (int64_t id : inputs)
    ins.push_back({{"tensor", id}});
  for (int64_t id : outputs)
    outs.push_back({{"tensor", id}});
  json step = {{"host_call", "h"}, {"reason", "test"},
               {"inputs", inputs}, {"outputs", outputs},
               {"ops", ""},        {"reference", std::move(reference)}};
  json m = json::object();
  m["tensors"] = std::move(tensors);
  m["inputs"] = ins;
  m["outputs"] = outs;
  m["kernels"] = json::array();
  m["program"] = json::array();
  m["program"].push_back(std::move(step));
  return m;
}

/// TFLite's requantisation of an i32 accumulator to i8 (the hello-world
/// model's first dense layer): (x * 2039655736 + 2^37 + (x >= 0 ? 2^30 :
/// -2^30)) >> 38, truncated to i32, plus the zero point -128, clamped to
/// [-128, 127], truncated to i8. A second output keeps the i64 product plus
/// offset, which needs all 64 bits.
json requantManifest() {
  json reference = parseJson(R"json({
    "values": [
      {"dtype": "i32", "shape": [10]},
      {"dtype": "i8", "shape": [10]}, {"dtype": "i64", "shape": [10]},
      {"dtype": "i64"}, {"dtype": "i64"}, {"dtype": "i32"}, {"dtype": "i64"},
      {"dtype": "i64"}, {"dtype": "i64"}, {"dtype": "i32"}, {"dtype": "i32"},
      {"dtype": "i32"}, {"dtype": "i8"}, {"dtype": "i64"},
      {"dtype": "i64"}, {"dtype": "i64"}, {"dtype": "i64"}, {"dtype": "i1"},
      {"dtype": "i64"}, {"dtype": "i64"}, {"dtype": "i64"}, {"dtype": "i32"},
      {"dtype": "i32"}, {"dtype": "i32"}, {"dtype": "i32"}, {"dtype": "i8"},
      {"dtype": "i8", "shape": [10]}, {"dtype": "i64", "shape": [10]}],
    "ops": [
      {"op": "empty", "result": 1},
      {"op": "empty", "result": 2},
      {"op": "arith.constant", "result": 3, "value": 2039655736},
      {"op": "arith.constant", "result": 4, "value": 137438953472},
      {"op": "arith.constant", "result": 5, "value": 0},
      {"op": "arith.constant", "result": 6, "value": 1073741824},
      {"op": "arith.constant", "result": 7, "value": -1073741824},
      {"op": "arith.constant", "result": 8, "value": 38},
      {"op": "arith.constant", "result": 9, "value": -128},
      {"op": "arith.constant", "result": 10, "value": 127},
      {"op": "generic", "inputs": [0], "outputs": [1, 2], "results": [26, 27],
       "loops": [10], "iterators": ["parallel"],
       "maps": [[[1, 0]], [[1, 0]], [[1, 0]]],
       "body": {"arguments": [11, 12, 13], "ops": [
         {"op": "arith.extsi", "operands": [11], "result": 14},
         {"op": "arith.muli", "operands": [14, 3], "result": 15},
         {"op": "arith.addi", "operands": [15, 4], "result": 16},
         {"op": "arith.cmpi", "predicate": "sge", "operands": [11, 5],
          "result": 17},
         {"op": "arith.select", "operands": [17, 6, 7], "result": 18},
         {"op": "arith.addi", "operands": [18, 16], "result": 19},
         {"op": "arith.shrsi", "operands": [19, 8], "result": 20},
         {"op": "arith.trunci", "operands": [20], "result": 21},
         {"op": "arith.addi", "operands": [21, 9], "result": 22},
         {"op": "arith.maxsi", "operands": [22, 9], "result": 23},
         {"op": "arith.minsi", "operands": [23, 10], "result": 24},
         {"op": "arith.trunci", "operands": [24], "result": 25}],
         "yield": [25, 16]}}],
    "results": [26, 27]})json");
  json tensors = parseJson(R"json([
    {"id": 0, "dtype": "i32", "shape": [10], "kind": "input"},
    {"id": 1, "dtype": "i8", "shape": [10], "kind": "output"},
    {"id": 2, "dtype": "i64", "shape": [10], "kind": "output"}])json");
  return hostManifest(tensors, {0}, {1, 2}, reference);
}

/// The elements of an integer tensor, exactly.
std::vector<int64_t> integersOf(const Tensor &t) {
  DType dtype = *parseDType(t.dtype);
  int64_t bytes = elementBytes(dtype);
  std::vector<int64_t> out;
  for (size_t i = 0; i + bytes <= t.data.size(); i += bytes) {
    uint64_t v = 0;
    std::memcpy(&v, t.data.data() + i, bytes);
    int shift = 64 - 8 * int(bytes);
    out.push_back(dtype == DType::I1 ? int64_t(v)
                                     : int64_t(v << shift) >> shift);
  }
  return out;
}

/// Runs `manifest` on `inputs`; fails the test on any error.
std::vector<Tensor> runManifest(const json &manifest,
                                std::vector<Tensor> inputs) {
  absl::StatusOr<Program> program = parseProgram(manifest);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok())
    return {};
  absl::StatusOr<std::vector<Tensor>> out =
      Device().run(*program, std::move(inputs));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<Tensor>{};
}

json &refOf(json &m) { return m["program"][0]["reference"]; }
json &bodyOp(json &m, int i) { return refOf(m)["ops"][10]["body"]["ops"][i]; }

constexpr const char *kPath = "manifest: program[0].reference.";

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

// A host call's time on the program clock: its inputs and results over the
// target's host link (trn2: 32 GB/s), plus its host compute when a
// functional run measured it.
TEST(HostTest, HostCallTimeIsItsTransfersAndMeasuredCompute) {
  absl::StatusOr<Program> program = parseProgram(requantManifest());
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<TargetRegistry> registry = TargetRegistry::loadBuiltin();
  ASSERT_TRUE(registry.ok());
  absl::StatusOr<ResolvedTarget> target = registry->resolve("trn2");
  ASSERT_TRUE(target.ok());
  absl::StatusOr<CostModel> model = CostModel::forTarget(*target);
  ASSERT_TRUE(model.ok());
  // i32[10] in, i8[10] and i64[10] out: 130 bytes at 32 B/ns.
  const double transfer = 130 / 32.0;

  absl::StatusOr<ProgramTiming> unmeasured =
      simulateProgramTiming(*program, *model);
  ASSERT_TRUE(unmeasured.ok()) << unmeasured.status();
  ASSERT_EQ(unmeasured->hostCalls.size(), 1u);
  EXPECT_EQ(unmeasured->hostCalls[0].bytes, 130);
  EXPECT_DOUBLE_EQ(unmeasured->hostCalls[0].transferNs, transfer);
  EXPECT_FALSE(unmeasured->hostCalls[0].computeNs.has_value());
  EXPECT_DOUBLE_EQ(unmeasured->totalNs, transfer);

  TimingOptions options;
  options.hostComputeNs[0] = 1000;
  absl::StatusOr<ProgramTiming> measured =
      simulateProgramTiming(*program, *model, std::nullopt, options);
  ASSERT_TRUE(measured.ok()) << measured.status();
  EXPECT_DOUBLE_EQ(measured->steps[0].durationNs, transfer + 1000);
  EXPECT_DOUBLE_EQ(measured->totalNs, transfer + 1000);
  json profile = profileJson(*program, *measured, *model, json::object());
  EXPECT_EQ(profile["host_calls"][0]["compute_ns"], 1000.0);
  EXPECT_EQ(profile["host_calls"][0]["transfer_ns"], transfer);
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

TEST(HostTest, RequantisationIsExactIn64Bits) {
  std::vector<double> x = {0,  135,        10000,       17000, 34000,
                           -1, 2147483647, -2147483648, 4294,  -40000};
  std::vector<Tensor> out =
      runManifest(requantManifest(), {makeTensor(DType::I32, {10}, x)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].dtype, "i8");
  EXPECT_EQ(integersOf(out[0]),
            (std::vector<int64_t>{-128, -127, -54, -2, 124, -128, 127, -128,
                                  -96, -128}));
  // 4380127476008702664 is not a double; a double-based interpreter gives
  // ...464.
  EXPECT_EQ(integersOf(out[1]),
            (std::vector<int64_t>{137438953472, 412792477832, 20533996313472,
                                  34811586465472, 69485733977472, 135399297736,
                                  4380127476008702664, -4380127203170451456,
                                  8895720683856, -81448790486528}));
}

TEST(HostTest, ReductionAccumulatesIntoTheOutputsInitialValues) {
  // out[i] = init[i] + sum_j x[i, j], init a constant [100, 200].
  json reference = parseJson(R"json({
    "values": [{"dtype": "i32", "shape": [2, 3]},
               {"dtype": "i32", "shape": [2]},
               {"dtype": "i32"}, {"dtype": "i32"}, {"dtype": "i32"},
               {"dtype": "i32", "shape": [2]}],
    "ops": [
      {"op": "constant", "result": 1, "values": [100, 200]},
      {"op": "generic", "inputs": [0], "outputs": [1], "results": [5],
       "loops": [2, 3], "iterators": ["parallel", "reduction"],
       "maps": [[[1, 0, 0], [0, 1, 0]], [[1, 0, 0]]],
       "body": {"arguments": [2, 3], "ops": [
         {"op": "arith.addi", "operands": [2, 3], "result": 4}],
         "yield": [4]}}],
    "results": [5]})json");
  json tensors = parseJson(R"json([
    {"id": 0, "dtype": "i32", "shape": [2, 3], "kind": "input"},
    {"id": 1, "dtype": "i32", "shape": [2], "kind": "output"}])json");
  std::vector<Tensor> out =
      runManifest(hostManifest(tensors, {0}, {1}, reference),
                  {makeTensor(DType::I32, {2, 3}, {1, 2, 3, 40, 50, 60})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(integersOf(out[0]), (std::vector<int64_t>{106, 350}));
}

TEST(HostTest, BroadcastReversedAndIndexMaps) {
  // out[i, j] = x[i, 2 - j] + bias[j] + 10 * i: a reversed read (coefficient
  // -1 and a constant), a broadcast bias (no row for i) and linalg.index.
  json reference = parseJson(R"json({
    "values": [{"dtype": "f32", "shape": [2, 3]}, {"dtype": "f32", "shape": [3]},
               {"dtype": "f32", "shape": [2, 3]},
               {"dtype": "f32"}, {"dtype": "f32"}, {"dtype": "f32"},
               {"dtype": "f32"}, {"dtype": "i64"}, {"dtype": "i64"},
               {"dtype": "i64"}, {"dtype": "f32"}, {"dtype": "f32"},
               {"dtype": "f32", "shape": [2, 3]}],
    "ops": [
      {"op": "empty", "result": 2},
      {"op": "arith.constant", "result": 8, "value": 10},
      {"op": "generic", "inputs": [0, 1], "outputs": [2], "results": [12],
       "loops": [2, 3], "iterators": ["parallel", "parallel"],
       "maps": [[[1, 0, 0], [0, -1, 2]], [[0, 1, 0]], [[1, 0, 0], [0, 1, 0]]],
       "body": {"arguments": [3, 4, 5], "ops": [
         {"op": "arith.addf", "operands": [3, 4], "result": 6},
         {"op": "linalg.index", "dim": 0, "result": 7},
         {"op": "arith.muli", "operands": [7, 8], "result": 9},
         {"op": "arith.sitofp", "operands": [9], "result": 10},
         {"op": "arith.addf", "operands": [6, 10], "result": 11}],
         "yield": [11]}}],
    "results": [12]})json");
  json tensors = parseJson(R"json([
    {"id": 0, "dtype": "f32", "shape": [2, 3], "kind": "input"},
    {"id": 1, "dtype": "f32", "shape": [3], "kind": "input"},
    {"id": 2, "dtype": "f32", "shape": [2, 3], "kind": "output"}])json");
  std::vector<Tensor> out =
      runManifest(hostManifest(tensors, {0, 1}, {2}, reference),
                  {makeTensor(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                   makeTensor(DType::F32, {3}, {0.5, 0.25, 0.125})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(valuesOf(out[0]),
            (std::vector<double>{3.5, 2.25, 1.125, 16.5, 15.25, 14.125}));
}

/// A generic over two constant i64 [4] operands a and b with one output
/// per op in `names`, each yielding `name(a, b)`.
json binaryManifest(const std::vector<std::string> &names, DType dtype, json a,
                    json b) {
  std::string type(dtypeName(dtype));
  json values = json::array(), ops = json::array(), tensors = json::array();
  values.push_back({{"dtype", type}, {"shape", {4}}}); // 0: a
  values.push_back({{"dtype", type}, {"shape", {4}}}); // 1: b
  ops.push_back({{"op", "constant"}, {"result", 0}, {"values", a}});
  ops.push_back({{"op", "constant"}, {"result", 1}, {"values", b}});
  int64_t n = int64_t(names.size());
  // Outputs 2..n+1, arguments n+2.., body results, generic results.
  json outputs = json::array(), arguments = {n + 2, n + 3},
       body = json::array(), yields = json::array(), results = json::array(),
       maps = parseJson("[[[1, 0]], [[1, 0]]]");
  for (int64_t k = 0; k < n; ++k) {
    values.push_back({{"dtype", type}, {"shape", {4}}});
    ops.push_back({{"op", "empty"}, {"result", 2 + k}});
    outputs.push_back(2 + k);
    maps.push_back(parseJson("[[1, 0]]"));
  }
  for (int64_t k = 0; k < 2 + n; ++k)
    values.push_back({{"dtype", type}});
  for (int64_t k = 0; k < n; ++k) {
    arguments.push_back(n + 4 + k);
    values.push_back({{"dtype", type}});
    body.push_back({{"op", names[k]},
                    {"operands", {n + 2, n + 3}},
                    {"result", values.size() - 1}});
    yields.push_back(values.size() - 1);
  }
  for (int64_t k = 0; k < n; ++k) {
    values.push_back({{"dtype", type}, {"shape", {4}}});
    results.push_back(values.size() - 1);
    tensors.push_back(
        {{"id", k}, {"dtype", type}, {"shape", {4}}, {"kind", "output"}});
  }
  ops.push_back(
      {{"op", "generic"},
       {"inputs", {0, 1}},
       {"outputs", outputs},
       {"results", results},
       {"loops", {4}},
       {"iterators", {"parallel"}},
       {"maps", maps},
       {"body", {{"arguments", arguments}, {"ops", body}, {"yield", yields}}}});
  std::vector<int64_t> outIds;
  for (int64_t k = 0; k < n; ++k)
    outIds.push_back(k);
  return hostManifest(tensors, {}, outIds,
                      {{"values", values}, {"ops", ops}, {"results", results}});
}

TEST(HostTest, IntegerCornerCasesAreDefined) {
  json a = {7, INT64_MIN, -7, 5}, b = {0, -1, 2, 70};
  std::vector<Tensor> out =
      runManifest(binaryManifest({"arith.divsi", "arith.remsi", "arith.shrsi",
                                  "arith.shli", "arith.divui", "arith.maxui"},
                                 DType::I64, a, b),
                  {});
  ASSERT_EQ(out.size(), 6u);
  // Division by zero gives 0; -2^63 / -1 wraps to -2^63.
  EXPECT_EQ(integersOf(out[0]), (std::vector<int64_t>{0, INT64_MIN, -3, 0}));
  EXPECT_EQ(integersOf(out[1]), (std::vector<int64_t>{0, 0, -1, 5}));
  // Shifts by 64 or more (-1 is 2^64 - 1 unsigned) give the sign, or 0.
  EXPECT_EQ(integersOf(out[2]), (std::vector<int64_t>{7, -1, -2, 0}));
  EXPECT_EQ(integersOf(out[3]), (std::vector<int64_t>{7, 0, -28, 0}));
  // Unsigned: -7 is 2^64 - 7.
  EXPECT_EQ(integersOf(out[4]),
            (std::vector<int64_t>{0, 0, int64_t(uint64_t(-7) / 2), 0}));
  EXPECT_EQ(integersOf(out[5]), (std::vector<int64_t>{7, -1, -7, 70}));
}

TEST(HostTest, NarrowIntegersWrap) {
  // i8: 100 + 100 wraps to -56, -128 - 1 to 127, -128 * -1 to -128; i1
  // adds modulo 2.
  std::vector<Tensor> out = runManifest(
      binaryManifest({"arith.addi", "arith.muli", "arith.subi"}, DType::I8,
                     {100, -128, 127, 0}, {100, -1, -1, 1}),
      {});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(integersOf(out[0]), (std::vector<int64_t>{-56, 127, 126, 1}));
  EXPECT_EQ(integersOf(out[1]), (std::vector<int64_t>{16, -128, -127, 0}));
  EXPECT_EQ(integersOf(out[2]), (std::vector<int64_t>{0, -127, -128, -1}));
  out = runManifest(binaryManifest({"arith.addi", "arith.andi", "arith.maxsi"},
                                   DType::I1, {1, 1, 0, 0}, {1, 0, 1, 0}),
                    {});
  ASSERT_EQ(out.size(), 3u);
  // In memory i1 is 0 or 1; signed, true is -1, so maxsi(true, false) is
  // false.
  EXPECT_EQ(integersOf(out[0]), (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(integersOf(out[1]), (std::vector<int64_t>{1, 0, 0, 0}));
  EXPECT_EQ(integersOf(out[2]), (std::vector<int64_t>{1, 0, 0, 0}));
}

TEST(HostTest, FloatsRoundAfterEveryOp) {
  // In f32, 2^24 + 1 rounds to 2^24 before the subtraction (a double
  // interpreter would give 1); maximumf propagates NaN, maxnumf drops it.
  json m = binaryManifest(
      {"arith.addf", "arith.maximumf", "arith.maxnumf", "arith.divf"},
      DType::F32, {16777216.0, "nan", -0.0, 1.0}, {1.0, 2.0, 0.0, 0.0});
  // Feed the sum back: out0 = (a + b) - a.
  json &ref = refOf(m);
  json &generic = ref["ops"].back();
  int64_t sum = generic["body"]["yield"][0].get<int64_t>();
  ref["values"].push_back({{"dtype", "f32"}});
  int64_t diff = int64_t(ref["values"].size()) - 1;
  generic["body"]["ops"].push_back(
      {{"op", "arith.subf"},
       {"operands", {sum, generic["body"]["arguments"][0]}},
       {"result", diff}});
  generic["body"]["yield"][0] = diff;
  std::vector<Tensor> out = runManifest(m, {});
  ASSERT_EQ(out.size(), 4u);
  std::vector<double> d = valuesOf(out[0]);
  EXPECT_EQ(d[0], 0);
  std::vector<double> max = valuesOf(out[1]), num = valuesOf(out[2]);
  EXPECT_TRUE(std::isnan(max[1]));
  EXPECT_EQ(num[1], 2);
  EXPECT_FALSE(std::signbit(max[2])); // max(-0, +0) is +0
  EXPECT_EQ(valuesOf(out[3])[3], INFINITY);
}

TEST(HostTest, ConversionsFollowArith) {
  // i1 -> i32 by extui is 1, by extsi -1; sitofp of i1 true is -1.0;
  // fptosi truncates toward zero and wraps; trunci keeps the low bits.
  json reference = parseJson(R"json({
    "values": [{"dtype": "i1", "shape": [2]}, {"dtype": "f32", "shape": [2]},
               {"dtype": "i32", "shape": [2]}, {"dtype": "i32", "shape": [2]},
               {"dtype": "f32", "shape": [2]}, {"dtype": "i8", "shape": [2]},
               {"dtype": "i1"}, {"dtype": "f32"}, {"dtype": "i32"},
               {"dtype": "i32"}, {"dtype": "f32"}, {"dtype": "i8"},
               {"dtype": "i32"}, {"dtype": "i32"}, {"dtype": "f32"},
               {"dtype": "i32"}, {"dtype": "i8"},
               {"dtype": "i32", "shape": [2]}, {"dtype": "i32", "shape": [2]},
               {"dtype": "f32", "shape": [2]}, {"dtype": "i8", "shape": [2]}],
    "ops": [
      {"op": "constant", "result": 0, "values": [1, 0]},
      {"op": "constant", "result": 1, "values": [-2.75, 300.5]},
      {"op": "empty", "result": 2}, {"op": "empty", "result": 3},
      {"op": "empty", "result": 4}, {"op": "empty", "result": 5},
      {"op": "generic", "inputs": [0, 1], "outputs": [2, 3, 4, 5],
       "results": [17, 18, 19, 20], "loops": [2], "iterators": ["parallel"],
       "maps": [[[1, 0]], [[1, 0]], [[1, 0]], [[1, 0]], [[1, 0]], [[1, 0]]],
       "body": {"arguments": [6, 7, 8, 9, 10, 11], "ops": [
         {"op": "arith.extui", "operands": [6], "result": 12},
         {"op": "arith.extsi", "operands": [6], "result": 13},
         {"op": "arith.sitofp", "operands": [6], "result": 14},
         {"op": "arith.fptosi", "operands": [7], "result": 15},
         {"op": "arith.trunci", "operands": [15], "result": 16}],
         "yield": [12, 13, 14, 16]}}],
    "results": [17, 18, 19, 20]})json");
  json tensors = parseJson(R"json([
    {"id": 0, "dtype": "i32", "shape": [2], "kind": "output"},
    {"id": 1, "dtype": "i32", "shape": [2], "kind": "output"},
    {"id": 2, "dtype": "f32", "shape": [2], "kind": "output"},
    {"id": 3, "dtype": "i8", "shape": [2], "kind": "output"}])json");
  std::vector<Tensor> out =
      runManifest(hostManifest(tensors, {}, {0, 1, 2, 3}, reference), {});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(integersOf(out[0]), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(integersOf(out[1]), (std::vector<int64_t>{-1, 0}));
  EXPECT_EQ(valuesOf(out[2]), (std::vector<double>{-1, 0}));
  EXPECT_EQ(integersOf(out[3]), (std::vector<int64_t>{-2, 44})); // 300 - 256
}

TEST(HostTest, ReshapeAndConstantTensors) {
  // A constant from a program tensor (its section), reshaped, added to the
  // input; the region's result may also be its argument unchanged.
  json reference = parseJson(R"json({
    "values": [{"dtype": "i64", "shape": [2, 2]},
               {"dtype": "i64", "shape": [4]}, {"dtype": "i64", "shape": [2, 2]},
               {"dtype": "i64", "shape": [2, 2]},
               {"dtype": "i64"}, {"dtype": "i64"}, {"dtype": "i64"},
               {"dtype": "i64"}, {"dtype": "i64", "shape": [2, 2]}],
    "ops": [
      {"op": "constant", "result": 1, "tensor": 1},
      {"op": "reshape", "operands": [1], "result": 2},
      {"op": "empty", "result": 3},
      {"op": "generic", "inputs": [0, 2], "outputs": [3], "results": [8],
       "loops": [2, 2], "iterators": ["parallel", "parallel"],
       "maps": [[[1, 0, 0], [0, 1, 0]], [[1, 0, 0], [0, 1, 0]],
                [[1, 0, 0], [0, 1, 0]]],
       "body": {"arguments": [4, 5, 6], "ops": [
         {"op": "arith.addi", "operands": [4, 5], "result": 7}],
         "yield": [7]}}],
    "results": [8, 0]})json");
  json tensors = parseJson(R"json([
    {"id": 0, "dtype": "i64", "shape": [2, 2], "kind": "input"},
    {"id": 1, "dtype": "i64", "shape": [4], "kind": "constant",
     "section": "c"},
    {"id": 2, "dtype": "i64", "shape": [2, 2], "kind": "output"},
    {"id": 3, "dtype": "i64", "shape": [2, 2], "kind": "output"}])json");
  absl::StatusOr<Program> program =
      parseProgram(hostManifest(tensors, {0}, {2, 3}, reference));
  ASSERT_TRUE(program.ok()) << program.status();
  static const int64_t values[4] = {int64_t(1) << 60, 2, 3, -4};
  auto loader = [](const TensorDesc &) -> absl::StatusOr<ConstantBytes> {
    return ConstantBytes{reinterpret_cast<const uint8_t *>(values),
                         sizeof(values)};
  };
  absl::StatusOr<std::vector<Tensor>> out = Device().run(
      *program, {makeTensor(DType::I64, {2, 2}, {1, 10, 100, 1000})}, loader);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(integersOf((*out)[0]),
            (std::vector<int64_t>{(int64_t(1) << 60) + 1, 12, 103, 996}));
  EXPECT_EQ(integersOf((*out)[1]), (std::vector<int64_t>{1, 10, 100, 1000}));
}

TEST(HostTest, AStepWithoutReferenceIsReportedBeforeAnythingRuns) {
  json m = requantManifest();
  m["program"][0].erase("reference");
  absl::StatusOr<Program> program = parseProgram(m);
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::vector<Tensor>> out = Device().run(
      *program, {makeTensor(DType::I32, {10}, std::vector<double>(10))});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(out.status().message(),
            "program[0]: host_call \"h\" has no reference form (the compiler "
            "warned that an op of its region has no reference kernel), so it "
            "cannot run here");
}

TEST(HostTest, ValuesBeyondTheMemoryBudgetAreRefused) {
  absl::StatusOr<Program> program = parseProgram(requantManifest());
  ASSERT_TRUE(program.ok()) << program.status();
  // The tensors take 100 bytes; the host values 5 x 10 x 8.
  absl::StatusOr<std::vector<Tensor>> out =
      Device(DeviceOptions{200})
          .run(*program,
               {makeTensor(DType::I32, {10}, std::vector<double>(10))});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(out.status().message(),
            "program[0]: host_call \"h\": its values need 400 bytes of host "
            "memory, more than the 200 allowed");
}

//===----------------------------------------------------------------------===//
// Reader errors
//===----------------------------------------------------------------------===//

TEST(HostTest, ValueIdsAreChecked) {
  json m = requantManifest();
  bodyOp(m, 0)["result"] = 99;
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].body.ops[0].result: expected a value id "
                            "in [0, 27], found a number 99");
  m = requantManifest();
  bodyOp(m, 1)["operands"][1] = 25; // defined later in the body
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].body.ops[1].operands[1]: expected a value "
                            "defined before this op, found value 25, not "
                            "defined yet");
  m = requantManifest();
  bodyOp(m, 2)["result"] = 15; // defined by the op before
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].body.ops[2].result: expected a value not "
                            "defined before, found value 15, already defined");
  m = requantManifest();
  refOf(m)["results"][0] = 14; // a body value
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "results[0]: expected a value of the region (not "
                            "of a generic's body), found value 14, defined in "
                            "the body of a generic");
}

TEST(HostTest, TypesAreChecked) {
  json m = requantManifest();
  bodyOp(m, 1)["operands"][1] = 5; // i64 * i32
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].body.ops[1].operands[1]: expected scalar "
                            "i64 (as the result), found value 5: scalar i32");
  m = requantManifest();
  refOf(m)["values"][0]["dtype"] = "i64";
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "values[0]: expected tensor i32[10] (the step's "
                            "input 0, tensor 0), found value 0: tensor "
                            "i64[10]");
  m = requantManifest();
  refOf(m)["values"][21]["dtype"] = "i64"; // trunci i64 -> i64
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].body.ops[7].result: expected an integer "
                            "scalar narrower than i64, found value 21: scalar "
                            "i64");
  m = requantManifest();
  bodyOp(m, 1)["operands"] = {14};
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].body.ops[1].operands: expected 2 value "
                            "ids (arith.muli takes 2), found 1");
  m = requantManifest();
  refOf(m)["ops"][2]["value"] = 1.5;
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[2].value: expected an integer in the range "
                            "of i64, found a number 1.5");
}

TEST(HostTest, MapsAreChecked) {
  json m = requantManifest();
  refOf(m)["ops"][10]["maps"][0][0] = {1, 1}; // x[i + 1]
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].maps[0][0]: expected indices in [0, 9] "
                            "over the loops [10] (dimension 0 of value 0: "
                            "tensor i32[10]), found indices from 1 to 10");
  m = requantManifest();
  refOf(m)["ops"][10]["maps"][1][0] = {1, 0, 0};
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].maps[1][0]: expected 2 integers in "
                            "[-2^40, 2^40] (a coefficient per loop, then the "
                            "constant), found an array of 3 elements");
  m = requantManifest();
  refOf(m)["ops"][10]["maps"][2] = json::array();
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].maps[2]: expected one row per dimension "
                            "of value 2: tensor i64[10], found an array of 0 "
                            "elements");
  m = requantManifest();
  refOf(m)["ops"][10]["iterators"] = {"window"};
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].iterators[0]: expected one of parallel "
                            "reduction, found a string \"window\"");
}

TEST(HostTest, OpsAreChecked) {
  json m = requantManifest();
  bodyOp(m, 0)["op"] = "arith.frobnicate";
  std::string error = errorOf(m);
  EXPECT_EQ(error.rfind(std::string(kPath) +
                            "ops[10].body.ops[0].op: expected a scalar op of a "
                            "generic's body: one of arith.constant "
                            "linalg.index arith.addi",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find(", found a string \"arith.frobnicate\""),
            std::string::npos)
      << error;
  m = requantManifest();
  bodyOp(m, 0)["op"] = "generic";
  EXPECT_NE(errorOf(m).find("body.ops[0].op: expected a scalar op"),
            std::string::npos);
  m = requantManifest();
  refOf(m)["ops"][2] = {{"op", "linalg.index"}, {"dim", 0}, {"result", 3}};
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[2].op: expected an op allowed outside a "
                            "generic's body, found a string \"linalg.index\"");
  m = requantManifest();
  bodyOp(m, 3)["predicate"] = "lt";
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "ops[10].body.ops[3].predicate: expected one of "
                            "eq ne slt sle sgt sge ult ule ugt uge, found a "
                            "string \"lt\"");
  m = requantManifest();
  bodyOp(m, 3)["fastmath"] = true;
  EXPECT_EQ(errorOf(m).rfind(std::string(kPath) +
                                 "ops[10].body.ops[3].fastmath: unknown field",
                             0),
            0u);
  m = requantManifest();
  refOf(m)["results"] = {26};
  EXPECT_EQ(errorOf(m), std::string(kPath) +
                            "results: expected 2 value ids (one per output of "
                            "the step), found 1");
}

/// Replaces the value at every path of the references, in turn, by each of a
/// set of hostile values; the reader must return (either way) and any program
/// it accepts must run.
TEST(HostTest, NoJsonValueCrashes) {
  const json hostile[] = {nullptr,
                          -1,
                          0,
                          1,
                          2,
                          27,
                          4096,
                          int64_t(1) << 40,
                          int64_t(1) << 62,
                          uint64_t(1) << 63,
                          INT64_MIN,
                          -1e300,
                          0.5,
                          "",
                          "nan",
                          "i1",
                          "arith.divsi",
                          "generic",
                          json::array(),
                          json::array({1, 0}),
                          json::object()};
  HostileSweep sweep;
  json bases[] = {requantManifest(),
                  binaryManifest({"arith.divsi", "arith.shrui"}, DType::I8,
                                 {1, 2, 3, 4}, {0, -1, 9, 2})};
  for (const json &base : bases) {
    HostileSweep one = sweepHostileValues(
        base, json::json_pointer("/program/0/reference"), hostile,
        [](const Program &program) {
          (void)Device().run(program, onesInputs(program));
        });
    sweep.checked += one.checked;
    sweep.accepted += one.accepted;
  }
  EXPECT_GT(sweep.checked, 5000);
  EXPECT_GT(sweep.accepted, 100); // constants' values and some ids stay valid
}

} // namespace
