//===- SimulatorTest.cpp - Functional execution of hand-written programs --===//
//
// Each test runs a small manifest (a JSON literal) on the simulated device and
// compares with a reference computed here in double.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

#include "runtime/format/Executable.h"

#include "absl/strings/str_format.h"
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

using namespace neuron::rt;
using namespace neuron::rt::test;

namespace {

/// Parses `manifest` (which must be valid) and runs it on `inputs`.
std::vector<Tensor> runManifest(const json &manifest,
                                std::vector<Tensor> inputs,
                                Device *device = nullptr) {
  absl::StatusOr<Program> program = parseProgram(manifest);
  EXPECT_TRUE(program.ok()) << program.status();
  if (!program.ok())
    return {};
  Device local;
  absl::StatusOr<std::vector<Tensor>> outputs =
      (device ? *device : local).run(*program, std::move(inputs));
  EXPECT_TRUE(outputs.ok()) << outputs.status();
  return outputs.ok() ? *outputs : std::vector<Tensor>();
}

/// Deterministic values in [-1, 1).
std::vector<double> pseudoRandom(size_t n, uint32_t seed) {
  std::vector<double> v(n);
  for (double &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = double(seed >> 8) / double(1u << 23) - 1.0;
  }
  return v;
}

TEST(SimulatorTest, ViewsNameTheirRootsBytes) {
  // The kernel of DmaRoundTripWithStridedPattern, launched twice on views
  // of one [8, 8] input (rows 4..7, then rows 0..3): each launch reads its
  // window, and an output may itself be a view of the input.
  json manifest = parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "f32", "shape": [8, 8], "kind": "input", "name": "x"},
      {"id": 1, "dtype": "f32", "shape": [4, 8], "kind": "view", "name": "hi",
       "view": {"tensor": 0, "offset": 32}},
      {"id": 2, "dtype": "f32", "shape": [4, 8], "kind": "view", "name": "lo",
       "view": {"tensor": 0, "offset": 0}},
      {"id": 3, "dtype": "f32", "shape": [4, 4], "kind": "output", "name": "a"},
      {"id": 4, "dtype": "f32", "shape": [4, 4], "kind": "output", "name": "b"}],
    "inputs": [{"tensor": 0, "name": "x"}],
    "outputs": [{"tensor": 3, "name": "a"}, {"tensor": 4, "name": "b"},
                {"tensor": 1, "name": "hi"}],
    "kernels": [{"name": "k", "parameters": 2,
      "limits": {"partitions": 128, "sbuf_bytes": 196608, "psum_bytes": 16384,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 0, "offset": 1, "shape": [4, 4],
                 "strides": [8, 2], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 2, "offset": 64,
                 "shape": [4, 4], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "sbuf", "partition": 2, "offset": 64,
                 "shape": [4, 4], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 1, "offset": 0, "shape": [4, 4],
                 "strides": [4, 1], "dtype": "f32"}}]}],
    "program": [{"kernel": "k", "bindings": [1, 3]},
                {"kernel": "k", "bindings": [2, 4]}]})json");
  std::vector<double> x(64);
  for (int i = 0; i < 64; ++i)
    x[i] = i;
  std::vector<Tensor> out =
      runManifest(manifest, {makeTensor(DType::F32, {8, 8}, x)});
  ASSERT_EQ(out.size(), 3u);
  std::vector<double> a = valuesOf(out[0]), b = valuesOf(out[1]);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(a[i * 4 + j], x[(4 + i) * 8 + 1 + 2 * j]);
      EXPECT_EQ(b[i * 4 + j], x[i * 8 + 1 + 2 * j]);
    }
  EXPECT_EQ(valuesOf(out[2]), std::vector<double>(x.begin() + 32, x.end()));
}

TEST(SimulatorTest, DmaRoundTripWithStridedPattern) {
  // y[i][j] = x[i][1 + 2j]: odd columns through SBUF partitions 2..5.
  json manifest = parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "f32", "shape": [4, 8], "kind": "input", "name": "x"},
      {"id": 1, "dtype": "f32", "shape": [4, 4], "kind": "output", "name": "y"}],
    "inputs": [{"tensor": 0, "name": "x"}],
    "outputs": [{"tensor": 1, "name": "y"}],
    "kernels": [{"name": "k", "parameters": 2,
      "limits": {"partitions": 128, "sbuf_bytes": 196608, "psum_bytes": 16384,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 0, "offset": 1, "shape": [4, 4],
                 "strides": [8, 2], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 2, "offset": 64,
                 "shape": [4, 4], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "sbuf", "partition": 2, "offset": 64,
                 "shape": [4, 4], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 1, "offset": 0, "shape": [4, 4],
                 "strides": [4, 1], "dtype": "f32"}}]}],
    "program": [{"kernel": "k", "bindings": [0, 1]}]})json");
  std::vector<double> x(32);
  for (int i = 0; i < 32; ++i)
    x[i] = i + 0.5;
  Device device;
  std::vector<Tensor> out =
      runManifest(manifest, {makeTensor(DType::F32, {4, 8}, x)}, &device);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype, "f32");
  EXPECT_EQ(out[0].shape, (std::vector<int64_t>{4, 4}));
  std::vector<double> y = valuesOf(out[0]);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(y[i * 4 + j], x[i * 8 + 1 + 2 * j]) << i << "," << j;
  // The tile really sat at partitions 2..5, byte 64.
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(loadElement(DType::F32,
                          device.sbuf().data() +
                              (2 + i) * Device::partitionPitch(196608) + 68),
              x[i * 8 + 3]);
}

TEST(SimulatorTest, PhysicalCoresHaveTheirOwnSbuf) {
  // Core 0 loads x to SBUF byte 0; core 1 then loads 2x to the same address
  // of its own SBUF; core 0's store still reads x, core 1's 2x.
  json manifest = parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "f32", "shape": [2, 4], "kind": "input", "name": "x"},
      {"id": 1, "dtype": "f32", "shape": [2, 4], "kind": "output", "name": "a"},
      {"id": 2, "dtype": "f32", "shape": [2, 4], "kind": "output", "name": "b"}],
    "inputs": [{"tensor": 0, "name": "x"}],
    "outputs": [{"tensor": 1, "name": "a"}, {"tensor": 2, "name": "b"}],
    "kernels": [{"name": "k", "parameters": 3, "cores": 2,
      "limits": {"partitions": 128, "sbuf_bytes": 196608, "psum_bytes": 16384,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 0, "offset": 0, "shape": [2, 4],
                 "strides": [4, 1], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [2, 4], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 0, "core": 1,
         "src": {"space": "hbm", "param": 0, "offset": 0, "shape": [2, 4],
                 "strides": [4, 1], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [2, 4], "dtype": "f32"}},
        {"op": "tensor_scalar", "engine": "vector", "core": 1, "alu": "multiply",
         "scalar": 2.0,
         "src": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [2, 4], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [2, 4], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [2, 4], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 1, "offset": 0, "shape": [2, 4],
                 "strides": [4, 1], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1, "core": 1,
         "src": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [2, 4], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 2, "offset": 0, "shape": [2, 4],
                 "strides": [4, 1], "dtype": "f32"}}]}],
    "program": [{"kernel": "k", "bindings": [0, 1, 2]}]})json");
  std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<Tensor> out =
      runManifest(manifest, {makeTensor(DType::F32, {2, 4}, x)});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> a = valuesOf(out[0]), b = valuesOf(out[1]);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(a[i], x[i]) << i;
    EXPECT_EQ(b[i], 2 * x[i]) << i;
  }
}

TEST(SimulatorTest, Bf16MatmulAccumulatesTwoKTiles) {
  // out[M=128, N=512] = s[256, 128]^T x v[256, 512], K split in two tiles of
  // 128 accumulated in PSUM.
  json manifest = parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "bf16", "shape": [256, 128], "kind": "input"},
      {"id": 1, "dtype": "bf16", "shape": [256, 512], "kind": "input"},
      {"id": 2, "dtype": "f32", "shape": [128, 512], "kind": "output"}],
    "inputs": [{"tensor": 0, "name": "s"}, {"tensor": 1, "name": "v"}],
    "outputs": [{"tensor": 2, "name": "out"}],
    "kernels": [{"name": "mm", "parameters": 3,
      "limits": {"partitions": 128, "sbuf_bytes": 196608, "psum_bytes": 16384,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 0, "offset": 0, "shape": [128, 128],
                 "strides": [128, 1], "dtype": "bf16"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [128, 128], "dtype": "bf16"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "hbm", "param": 0, "offset": 16384,
                 "shape": [128, 128], "strides": [128, 1], "dtype": "bf16"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 256,
                 "shape": [128, 128], "dtype": "bf16"}},
        {"op": "dma_copy", "engine": "dma", "queue": 2,
         "src": {"space": "hbm", "param": 1, "offset": 0, "shape": [128, 512],
                 "strides": [512, 1], "dtype": "bf16"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 512,
                 "shape": [128, 512], "dtype": "bf16"}},
        {"op": "dma_copy", "engine": "dma", "queue": 3,
         "src": {"space": "hbm", "param": 1, "offset": 65536,
                 "shape": [128, 512], "strides": [512, 1], "dtype": "bf16"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 1536,
                 "shape": [128, 512], "dtype": "bf16"}},
        {"op": "matmul", "engine": "tensor", "accumulate": false,
         "stationary": {"space": "sbuf", "partition": 0, "offset": 0,
                        "shape": [128, 128], "dtype": "bf16"},
         "moving": {"space": "sbuf", "partition": 0, "offset": 512,
                    "shape": [128, 512], "dtype": "bf16"},
         "dst": {"space": "psum", "partition": 0, "offset": 2048,
                 "shape": [128, 512], "dtype": "f32"}},
        {"op": "matmul", "engine": "tensor", "accumulate": true,
         "stationary": {"space": "sbuf", "partition": 0, "offset": 256,
                        "shape": [128, 128], "dtype": "bf16"},
         "moving": {"space": "sbuf", "partition": 0, "offset": 1536,
                    "shape": [128, 512], "dtype": "bf16"},
         "dst": {"space": "psum", "partition": 0, "offset": 2048,
                 "shape": [128, 512], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "psum", "partition": 0, "offset": 2048,
                 "shape": [128, 512], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 2, "offset": 0, "shape": [128, 512],
                 "strides": [512, 1], "dtype": "f32"}}]}],
    "program": [{"kernel": "mm", "bindings": [0, 1, 2]}]})json");
  Tensor s = makeTensor(DType::BF16, {256, 128}, pseudoRandom(256 * 128, 1));
  Tensor v = makeTensor(DType::BF16, {256, 512}, pseudoRandom(256 * 512, 2));
  std::vector<double> sv = valuesOf(s), vv = valuesOf(v);
  std::vector<Tensor> out = runManifest(manifest, {s, v});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> got = valuesOf(out[0]);
  ASSERT_EQ(got.size(), 128u * 512u);
  // bf16 x bf16 products are exact in f32; only the f32 sums round. Each sum
  // adds 256 terms (two f32 partial sums of 128), so its error is below
  // 256 * 2^-24 * sum|products| (standard recursive-summation bound); allow
  // 2e-5 * sum|products| (above 1.53e-5).
  for (int m = 0; m < 128; ++m) {
    for (int n = 0; n < 512; ++n) {
      double ref = 0, magnitude = 0;
      for (int k = 0; k < 256; ++k) {
        ref += sv[k * 128 + m] * vv[k * 512 + n];
        magnitude += std::fabs(sv[k * 128 + m] * vv[k * 512 + n]);
      }
      ASSERT_NEAR(got[m * 512 + n], ref, 2e-5 * magnitude) << m << "," << n;
    }
  }
}

/// A kernel that loads x [4, 8] f32 and bias [4, 1] f32, applies `function`
/// with scale 0.5 and the bias, and writes y [4, 8] bf16.
json activationManifest(const std::string &function) {
  json manifest = parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "f32", "shape": [4, 8], "kind": "input"},
      {"id": 1, "dtype": "f32", "shape": [4, 1], "kind": "input"},
      {"id": 2, "dtype": "bf16", "shape": [4, 8], "kind": "output"}],
    "inputs": [{"tensor": 0, "name": "x"}, {"tensor": 1, "name": "b"}],
    "outputs": [{"tensor": 2, "name": "y"}],
    "kernels": [{"name": "act", "parameters": 3,
      "limits": {"partitions": 128, "sbuf_bytes": 196608, "psum_bytes": 16384,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 0, "offset": 0, "shape": [4, 8],
                 "strides": [8, 1], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [4, 8], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "hbm", "param": 1, "offset": 0, "shape": [4, 1],
                 "strides": [1, 1], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 32,
                 "shape": [4, 1], "dtype": "f32"}},
        {"op": "activation", "engine": "scalar", "function": "FN",
         "scale": 0.5,
         "src": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [4, 8], "dtype": "f32"},
         "bias": {"space": "sbuf", "partition": 0, "offset": 32,
                  "shape": [4, 1], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 64,
                 "shape": [4, 8], "dtype": "bf16"}},
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "sbuf", "partition": 0, "offset": 64,
                 "shape": [4, 8], "dtype": "bf16"},
         "dst": {"space": "hbm", "param": 2, "offset": 0, "shape": [4, 8],
                 "strides": [8, 1], "dtype": "bf16"}}]}],
    "program": [{"kernel": "act", "bindings": [0, 1, 2]}]})json");
  manifest["kernels"][0]["instructions"][2]["function"] = function;
  return manifest;
}

TEST(SimulatorTest, MatmulIntoAMisalignedPsumTileMatchesAnAlignedOne) {
  // The reader lets an f32 PSUM tile start at any byte; one 2 bytes off a
  // float boundary sums through a copy and must give the same bytes as an
  // aligned one, accumulating twice over K = 3 + 3.
  auto manifest = [](int64_t offset) {
    std::string text = R"json({
      "tensors": [
        {"id": 0, "dtype": "f32", "shape": [6, 4], "kind": "input"},
        {"id": 1, "dtype": "f32", "shape": [6, 5], "kind": "input"},
        {"id": 2, "dtype": "f32", "shape": [4, 5], "kind": "output"}],
      "inputs": [{"tensor": 0, "name": "s"}, {"tensor": 1, "name": "v"}],
      "outputs": [{"tensor": 2, "name": "out"}],
      "kernels": [{"name": "mm", "parameters": 3,
        "limits": {"partitions": 128, "sbuf_bytes": 1024, "psum_bytes": 4096,
                   "psum_bank_bytes": 2048, "stationary_free": 128,
                   "moving_free": 512},
        "instructions": [
          {"op": "dma_copy", "engine": "dma", "queue": 0,
           "src": {"space": "hbm", "param": 0, "offset": 0, "shape": [6, 4],
                   "strides": [4, 1], "dtype": "f32"},
           "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                   "shape": [6, 4], "dtype": "f32"}},
          {"op": "dma_copy", "engine": "dma", "queue": 1,
           "src": {"space": "hbm", "param": 1, "offset": 0, "shape": [6, 5],
                   "strides": [5, 1], "dtype": "f32"},
           "dst": {"space": "sbuf", "partition": 0, "offset": 64,
                   "shape": [6, 5], "dtype": "f32"}},
          {"op": "matmul", "engine": "tensor", "accumulate": false,
           "stationary": {"space": "sbuf", "partition": 0, "offset": 0,
                          "shape": [3, 4], "dtype": "f32"},
           "moving": {"space": "sbuf", "partition": 0, "offset": 64,
                      "shape": [3, 5], "dtype": "f32"},
           "dst": {"space": "psum", "partition": 0, "offset": OFFSET,
                   "shape": [4, 5], "dtype": "f32"}},
          {"op": "matmul", "engine": "tensor", "accumulate": true,
           "stationary": {"space": "sbuf", "partition": 3, "offset": 0,
                          "shape": [3, 4], "dtype": "f32"},
           "moving": {"space": "sbuf", "partition": 3, "offset": 64,
                      "shape": [3, 5], "dtype": "f32"},
           "dst": {"space": "psum", "partition": 0, "offset": OFFSET,
                   "shape": [4, 5], "dtype": "f32"}},
          {"op": "dma_copy", "engine": "dma", "queue": 0,
           "src": {"space": "psum", "partition": 0, "offset": OFFSET,
                   "shape": [4, 5], "dtype": "f32"},
           "dst": {"space": "hbm", "param": 2, "offset": 0, "shape": [4, 5],
                   "strides": [5, 1], "dtype": "f32"}}]}],
      "program": [{"kernel": "mm", "bindings": [0, 1, 2]}]})json";
    for (size_t at; (at = text.find("OFFSET")) != std::string::npos;)
      text.replace(at, 6, std::to_string(offset));
    return parseJson(text.c_str());
  };
  Tensor s = makeTensor(DType::F32, {6, 4}, pseudoRandom(24, 3));
  Tensor v = makeTensor(DType::F32, {6, 5}, pseudoRandom(30, 4));
  std::vector<Tensor> aligned = runManifest(manifest(8), {s, v});
  std::vector<Tensor> misaligned = runManifest(manifest(10), {s, v});
  ASSERT_EQ(aligned.size(), 1u);
  ASSERT_EQ(misaligned.size(), 1u);
  EXPECT_EQ(aligned[0].data, misaligned[0].data);
  // And both are the sums the definition gives.
  std::vector<double> sv = valuesOf(s), vv = valuesOf(v),
                      got = valuesOf(aligned[0]);
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 5; ++n) {
      float first = 0.0f, second = 0.0f;
      for (int k = 0; k < 3; ++k) {
        first += float(sv[k * 4 + m]) * float(vv[k * 5 + n]);
        second += float(sv[(k + 3) * 4 + m]) * float(vv[(k + 3) * 5 + n]);
      }
      EXPECT_EQ(got[m * 5 + n], double(first + second)) << m << "," << n;
    }
}

TEST(SimulatorTest, ActivationWithScaleAndBias) {
  std::vector<std::pair<std::string, double (*)(double)>> functions = {
      {"gelu",
       [](double x) { return x * 0.5 * std::erfc(-x / std::sqrt(2.0)); }},
      {"gelu_tanh",
       [](double x) {
         double c = std::sqrt(2 / std::acos(-1.0));
         return 0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x)));
       }},
      {"silu", [](double x) { return x / (1 + std::exp(-x)); }},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }},
      {"relu", [](double x) { return std::max(x, 0.0); }},
      {"exp", [](double x) { return std::exp(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"square", [](double x) { return x * x; }},
      {"neg", [](double x) { return -x; }},
      {"abs", [](double x) { return std::fabs(x); }},
      {"identity", [](double x) { return x; }}};
  std::vector<double> x = pseudoRandom(32, 7), b = {0.25, -1.0, 0.0, 2.0};
  for (double &v : x)
    v *= 6;
  for (auto &[name, ref] : functions) {
    std::vector<Tensor> out = runManifest(
        activationManifest(name),
        {makeTensor(DType::F32, {4, 8}, x), makeTensor(DType::F32, {4, 1}, b)});
    ASSERT_EQ(out.size(), 1u) << name;
    std::vector<double> y = valuesOf(out[0]);
    for (int i = 0; i < 32; ++i) {
      // x is stored as f32 first; the result is rounded once to bf16 (8
      // significant bits), so it is within 2^-8 relative of the exact value.
      double expected = ref(double(float(x[i])) * 0.5 + b[i / 8]);
      EXPECT_NEAR(y[i], expected, std::fabs(expected) * std::ldexp(1.0, -8))
          << name << " element " << i;
    }
  }
}

// relu is max(x, 0) as arith.maximumf computes it (and the ALU's max): NaN
// stays NaN, as frontends' graphs (JAX's relu is arith.maximumf) expect.
TEST(SimulatorTest, ReluPropagatesNaNAsMaxDoes) {
  const double nan = std::nan("");
  std::vector<double> x(32, -3.0);
  x[0] = nan, x[1] = 4.0, x[2] = -0.0;
  std::vector<Tensor> out = runManifest(
      activationManifest("relu"),
      {makeTensor(DType::F32, {4, 8}, x),
       makeTensor(DType::F32, {4, 1}, {0, 0, 0, 0})});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> y = valuesOf(out[0]);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 2.0);
  EXPECT_EQ(y[2], 0.0);
  EXPECT_EQ(y[3], 0.0);
}

/// A kernel applying one vector-engine instruction `inst` (its operands at
/// SBUF byte 0 = a [4, 6] f32, 64 = b [4, 6] f32, 128 = the result) to a and
/// b and writing the result's [4, cols] `dtype` tile to output tensor 2.
json vectorManifest(const json &inst, int cols, const std::string &dtype) {
  json manifest = parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "f32", "shape": [4, 6], "kind": "input"},
      {"id": 1, "dtype": "f32", "shape": [4, 6], "kind": "input"},
      {"id": 2, "dtype": "f32", "shape": [4, 6], "kind": "output"}],
    "inputs": [{"tensor": 0, "name": "a"}, {"tensor": 1, "name": "b"}],
    "outputs": [{"tensor": 2, "name": "r"}],
    "kernels": [{"name": "vec", "parameters": 3,
      "limits": {"partitions": 128, "sbuf_bytes": 1024, "psum_bytes": 2048,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 0, "offset": 0, "shape": [4, 6],
                 "strides": [6, 1], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [4, 6], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 1, "offset": 0, "shape": [4, 6],
                 "strides": [6, 1], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 64,
                 "shape": [4, 6], "dtype": "f32"}},
        {},
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "sbuf", "partition": 0, "offset": 128,
                 "shape": [4, 0], "dtype": ""},
         "dst": {"space": "hbm", "param": 2, "offset": 0, "shape": [4, 0],
                 "strides": [6, 1], "dtype": ""}}]}],
    "program": [{"kernel": "vec", "bindings": [0, 1, 2]}]})json");
  json &insts = manifest["kernels"][0]["instructions"];
  insts[2] = inst;
  insts[2]["dst"]["dtype"] = dtype;
  insts[3]["src"]["shape"][1] = cols;
  insts[3]["dst"]["shape"][1] = cols;
  insts[3]["src"]["dtype"] = dtype;
  insts[3]["dst"]["dtype"] = dtype;
  manifest["tensors"][2]["dtype"] = dtype;
  return manifest;
}

/// An SBUF tile reference for vectorManifest.
json tile(int offset, int cols, const std::string &dtype = "f32") {
  return {{"space", "sbuf"},
          {"partition", 0},
          {"offset", offset},
          {"shape", {4, cols}},
          {"dtype", dtype}};
}

const std::vector<double> kA = {1, 2, 3, 4, 5, 6, -1, -2, -3, -4, -5, -6,
                                0, 7, 0, 7, 0, 7, 9,  8,  7,  6,  5,  4};
const std::vector<double> kB = {1, 1, 4, 4, 9, 9, -1, 0, -4, 0, -9, 0,
                                0, 0, 1, 1, 2, 2, 9,  9, 9,  0, 0,  0};

std::vector<double> runVector(const json &inst, int cols,
                              const std::string &dtype = "f32") {
  std::vector<Tensor> out = runManifest(
      vectorManifest(inst, cols, dtype),
      {makeTensor(DType::F32, {4, 6}, kA), makeTensor(DType::F32, {4, 6}, kB)});
  if (out.empty())
    return {};
  std::vector<double> v = valuesOf(out[0]);
  // Rows of the [4, cols] result lie at stride 6 in the output tensor.
  std::vector<double> rows;
  for (int p = 0; p < 4; ++p)
    for (int c = 0; c < cols; ++c)
      rows.push_back(v[p * 6 + c]);
  return rows;
}

TEST(SimulatorTest, TensorReduceMaxAddMin) {
  json inst = {{"op", "tensor_reduce"},
               {"engine", "vector"},
               {"alu", "max"},
               {"src", tile(0, 6)},
               {"dst", tile(128, 1)}};
  EXPECT_EQ(runVector(inst, 1), (std::vector<double>{6, -1, 7, 9}));
  inst["alu"] = "add";
  EXPECT_EQ(runVector(inst, 1), (std::vector<double>{21, -21, 21, 39}));
  inst["alu"] = "min";
  EXPECT_EQ(runVector(inst, 1), (std::vector<double>{1, -6, 0, 4}));
}

TEST(SimulatorTest, MaxMinPropagateNanAndOrderSignedZeros) {
  json inst = {{"op", "tensor_tensor"}, {"engine", "vector"},
               {"alu", "max"},          {"lhs", tile(0, 6)},
               {"rhs", tile(64, 6)},    {"dst", tile(128, 6)}};
  double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a(24, 1.0), b(24, 2.0);
  a[0] = nan;  // max(NaN, 2) is NaN, as arith.maximumf
  b[1] = nan;  // max(1, NaN) too
  a[2] = -0.0; // max(-0, +0) = +0, min(-0, +0) = -0
  b[2] = 0.0;
  auto run = [&](const char *alu) {
    inst["alu"] = alu;
    std::vector<Tensor> out = runManifest(
        vectorManifest(inst, 6, "f32"),
        {makeTensor(DType::F32, {4, 6}, a), makeTensor(DType::F32, {4, 6}, b)});
    return out.empty() ? std::vector<double>() : valuesOf(out[0]);
  };
  for (const char *alu : {"max", "min"}) {
    std::vector<double> r = run(alu);
    ASSERT_EQ(r.size(), 24u);
    EXPECT_TRUE(std::isnan(r[0])) << alu;
    EXPECT_TRUE(std::isnan(r[1])) << alu;
    EXPECT_EQ(r[2], 0.0);
    EXPECT_EQ(std::signbit(r[2]), std::string(alu) == "min") << alu;
    EXPECT_EQ(r[3], std::string(alu) == "max" ? 2.0 : 1.0);
  }
}

TEST(SimulatorTest, TensorTensorAluAndComparisons) {
  json inst = {{"op", "tensor_tensor"}, {"engine", "vector"},
               {"alu", "subtract"},     {"lhs", tile(0, 6)},
               {"rhs", tile(64, 6)},    {"dst", tile(128, 6)}};
  std::vector<double> got = runVector(inst, 6);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], kA[i] - kB[i]);
  inst["alu"] = "is_lt";
  got = runVector(inst, 6, "i8");
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], kA[i] < kB[i] ? 1 : 0) << i;
  inst["alu"] = "max";
  got = runVector(inst, 6);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], std::max(kA[i], kB[i]));
  inst["alu"] = "divide";
  inst["dst"]["dtype"] = "bf16";
  got = runVector(inst, 6, "bf16");
  EXPECT_EQ(got[0], 1.0);
  EXPECT_EQ(got[1], 2.0);
  EXPECT_EQ(got[2], bf16ToF32(f32ToBf16(0.75f)));
}

TEST(SimulatorTest, TensorScalarAndMemset) {
  json inst = {{"op", "tensor_scalar"}, {"engine", "vector"},
               {"alu", "multiply"},     {"scalar", 2.5},
               {"src", tile(0, 6)},     {"dst", tile(128, 6)}};
  std::vector<double> got = runVector(inst, 6);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], kA[i] * 2.5);
  inst["alu"] = "is_ge";
  inst["scalar"] = 4;
  got = runVector(inst, 6);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], kA[i] >= 4 ? 1 : 0);
  json memset = {{"op", "memset"},
                 {"engine", "gpsimd"},
                 {"value", 300},
                 {"dst", tile(128, 6, "i8")}};
  EXPECT_EQ(runVector(memset, 6, "i8"), std::vector<double>(24, 44)); // wraps
}

TEST(SimulatorTest, StridedOnChipOperands) {
  // src reads elements {0, 1, 3, 4} of each partition's row of a.
  json src = tile(0, 2);
  src["shape"] = {4, 2, 2};
  src["strides"] = {3, 1};
  json inst = {{"op", "tensor_scalar"}, {"engine", "vector"},
               {"alu", "multiply"},     {"scalar", 2.5},
               {"src", src},            {"dst", tile(128, 4)}};
  std::vector<double> got = runVector(inst, 4);
  ASSERT_EQ(got.size(), 16u);
  for (int p = 0; p < 4; ++p)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(got[p * 4 + i], kA[p * 6 + i / 2 * 3 + i % 2] * 2.5) << p;
  // A strided destination: element (i, j) of a 2x2 block lands at i + 2j.
  inst["src"] = tile(0, 4);
  inst["dst"]["shape"] = {4, 2, 2};
  inst["dst"]["strides"] = {1, 2};
  got = runVector(inst, 4);
  ASSERT_EQ(got.size(), 16u);
  for (int p = 0; p < 4; ++p)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        EXPECT_EQ(got[p * 4 + i + 2 * j], kA[p * 6 + i * 2 + j] * 2.5);
}

/// A program computing y [4, 4] = stationary^T x moving, both operands
/// read from one [4, 8] tile of the input x: the stationary from element 0
/// as [4, 4], the moving from element 1 (each with its shape and strides
/// to be set).
static json oneTileMatmul() {
  return parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "f32", "shape": [4, 8], "kind": "input", "name": "x"},
      {"id": 1, "dtype": "f32", "shape": [4, 4], "kind": "output", "name": "y"}],
    "inputs": [{"tensor": 0, "name": "x"}],
    "outputs": [{"tensor": 1, "name": "y"}],
    "kernels": [{"name": "k", "parameters": 2,
      "limits": {"partitions": 128, "sbuf_bytes": 196608, "psum_bytes": 16384,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 0, "offset": 0, "shape": [4, 8],
                 "strides": [8, 1], "dtype": "f32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [4, 8], "dtype": "f32"}},
        {"op": "matmul", "engine": "tensor", "accumulate": false,
         "stationary": {"space": "sbuf", "partition": 0, "offset": 0,
                        "shape": [4, 4], "dtype": "f32"},
         "moving": {"space": "sbuf", "partition": 0, "offset": 4,
                    "dtype": "f32"},
         "dst": {"space": "psum", "partition": 0, "offset": 0,
                 "shape": [4, 4], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "psum", "partition": 0, "offset": 0,
                 "shape": [4, 4], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 1, "offset": 0, "shape": [4, 4],
                 "strides": [4, 1], "dtype": "f32"}}]}],
    "program": [{"kernel": "k", "bindings": [0, 1]}]})json");
}

/// y = x[:, 0:4]^T x moving, both operands from one [4, 8] f32 tile x
/// (random values, returned in `x`): `moving` reads the tile from its
/// element 1 with the given shape and strides.
static std::vector<double> matmulOfOneTile(const json &shape,
                                           const json &strides,
                                           std::vector<double> &x) {
  json manifest = oneTileMatmul();
  json &moving = manifest["kernels"][0]["instructions"][1]["moving"];
  moving["shape"] = shape;
  moving["strides"] = strides;
  x = pseudoRandom(32, 7);
  std::vector<Tensor> out =
      runManifest(manifest, {makeTensor(DType::F32, {4, 8}, x)});
  EXPECT_EQ(out.size(), 1u);
  return out.empty() ? std::vector<double>{} : valuesOf(out[0]);
}

/// Checks y[m, n] = sum_k x[k, m] x[k, column(n)].
static void expectMatmulOfColumns(const std::vector<double> &y,
                                  const std::vector<double> &x,
                                  int64_t (*column)(int)) {
  ASSERT_EQ(y.size(), 16u);
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 4; ++n) {
      double want = 0;
      for (int k = 0; k < 4; ++k)
        want += float(x[k * 8 + m]) * float(x[k * 8 + column(n)]);
      EXPECT_NEAR(y[m * 4 + n], want, 1e-5) << m << "," << n;
    }
}

TEST(SimulatorTest, MatmulReadsAStridedMovingOperand) {
  // moving = x[:, 1::2].
  std::vector<double> x;
  std::vector<double> y = matmulOfOneTile({4, 4}, {2}, x);
  expectMatmulOfColumns(y, x, [](int n) { return int64_t(1 + 2 * n); });
}

TEST(SimulatorTest, MatmulReadsAMovingWindow) {
  // moving [4, 2, 2] with strides [3, 2] from element 1: columns 1, 3, 4
  // and 6, as a convolution's tap reads rows 3 apart of an input tile
  // with a stride of 2.
  std::vector<double> x;
  std::vector<double> y = matmulOfOneTile({4, 2, 2}, {3, 2}, x);
  expectMatmulOfColumns(y, x,
                        [](int n) { return int64_t(1 + 3 * (n / 2) + 2 * (n % 2)); });
}

/// A double-row fp8 matmul of one [4, 16] fp8 tile x (random values,
/// returned in `x`): its [4, 2, 4] stationary and moving operands read x
/// from the given byte offsets with the given free-dimension strides; y
/// [4, 4] is checked against sum over k and both rows r of
/// x[k, stationaryAt(r, m)] x x[k, movingAt(r, n)].
static void expectDoubleRowMatmul(
    int64_t stationaryOffset, const json &stationaryStrides,
    int64_t movingOffset, const json &movingStrides,
    const std::function<int(int, int)> &stationaryAt,
    const std::function<int(int, int)> &movingAt) {
  json manifest = oneTileMatmul();
  json &kernel = manifest["kernels"][0];
  kernel["limits"]["fp8_rows"] = 2;
  manifest["tensors"][0]["dtype"] = "f8E4M3FN";
  manifest["tensors"][0]["shape"] = {4, 16};
  json &load = kernel["instructions"][0];
  load["src"]["shape"] = load["dst"]["shape"] = {4, 16};
  load["src"]["strides"] = {16, 1};
  load["src"]["dtype"] = load["dst"]["dtype"] = "f8E4M3FN";
  json &matmul = kernel["instructions"][1];
  matmul["double_row"] = true;
  for (const char *operand : {"stationary", "moving"}) {
    matmul[operand]["shape"] = {4, 2, 4};
    matmul[operand]["dtype"] = "f8E4M3FN";
  }
  matmul["stationary"]["offset"] = stationaryOffset;
  matmul["stationary"]["strides"] = stationaryStrides;
  matmul["moving"]["offset"] = movingOffset;
  matmul["moving"]["strides"] = movingStrides;
  Tensor input = makeTensor(DType::F8E4M3FN, {4, 16}, pseudoRandom(64, 11));
  std::vector<double> x = valuesOf(input);
  std::vector<Tensor> out = runManifest(manifest, {input});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> y = valuesOf(out[0]);
  ASSERT_EQ(y.size(), 16u);
  for (int m = 0; m < 4; ++m)
    for (int n = 0; n < 4; ++n) {
      double want = 0;
      for (int k = 0; k < 4; ++k)
        for (int r = 0; r < 2; ++r)
          want += x[k * 16 + stationaryAt(r, m)] * x[k * 16 + movingAt(r, n)];
      EXPECT_NEAR(y[m * 4 + n], want, 1e-5) << m << "," << n;
    }
}

// The double-row fp8 matmul sums both rows of each partition: the
// stationary rows are elements 0-3 and 8-11 of each partition (8 apart),
// the moving ones 4-7 and 12-15.
TEST(SimulatorTest, DoubleRowMatmulSumsBothRows) {
  expectDoubleRowMatmul(
      0, {8, 1}, 4, {8, 1}, [](int r, int m) { return 8 * r + m; },
      [](int r, int n) { return 8 * r + 4 + n; });
}

// A double-row stationary as the DMA's transpose of FP8 pairs leaves it:
// partition k holds [M, 2] pairs (elements 0-7), the operand [K, 2, M]
// stepping 1 between its rows and 2 along M; the moving rows follow
// (elements 8-11 and 12-15).
TEST(SimulatorTest, DoubleRowMatmulReadsInterleavedPairs) {
  expectDoubleRowMatmul(
      0, {1, 2}, 8, {4, 1}, [](int r, int m) { return 2 * m + r; },
      [](int r, int n) { return 8 + 4 * r + n; });
}

TEST(SimulatorTest, TensorScalarPerPartition) {
  // scalars: the first column of b, one value per partition {1, -1, 0, 9}.
  json inst = {{"op", "tensor_scalar"}, {"engine", "vector"},
               {"alu", "multiply"},     {"scalars", tile(64, 1)},
               {"src", tile(0, 6)},     {"dst", tile(128, 6)}};
  std::vector<double> got = runVector(inst, 6);
  ASSERT_EQ(got.size(), 24u);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], kA[i] * kB[i / 6 * 6]) << i;
  inst["alu"] = "subtract";
  got = runVector(inst, 6);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], kA[i] - kB[i / 6 * 6]) << i;
  // Anything but one value per partition is refused when read.
  inst["scalars"] = tile(64, 2);
  absl::StatusOr<Program> program = parseProgram(vectorManifest(inst, 6, "f32"));
  ASSERT_FALSE(program.ok());
  EXPECT_NE(std::string(program.status().message())
                .find("instructions[2].scalars: expected a [4, 1] tile"),
            std::string::npos)
      << program.status();
}

TEST(SimulatorTest, ScalarTensorTensor) {
  // (a * b[:, 0]) + b: a multiply-accumulate with per-partition scalars.
  json inst = {{"op", "scalar_tensor_tensor"},
               {"engine", "vector"},
               {"alu", "multiply"},
               {"alu1", "add"},
               {"scalars", tile(64, 1)},
               {"src", tile(0, 6)},
               {"rhs", tile(64, 6)},
               {"dst", tile(128, 6)}};
  std::vector<double> got = runVector(inst, 6);
  ASSERT_EQ(got.size(), 24u);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], kA[i] * kB[i / 6 * 6] + kB[i]) << i;
  // An immediate, non-commutative operators: (a - 2) / b, the divisor
  // the tensor operand.
  inst.erase("scalars");
  inst["scalar"] = 2;
  inst["alu"] = "subtract";
  inst["alu1"] = "divide";
  got = runVector(inst, 6);
  for (size_t i = 0; i < got.size(); ++i)
    if (kB[i] != 0)
      EXPECT_EQ(got[i], float((kA[i] - 2) / kB[i])) << i;
  // The intermediate is fp32: 2^24 + 1 rounds to 2^24 before the add.
  json big = inst;
  big["alu"] = "add";
  big["scalar"] = 16777216.0;
  big["alu1"] = "subtract";
  got = runVector(big, 6);
  EXPECT_EQ(got[0], 16777216.0 - kB[0]); // kA[0] = 1 is lost
  // The tensor operand must have the source's layout.
  inst["rhs"] = tile(64, 5);
  absl::StatusOr<Program> program =
      parseProgram(vectorManifest(inst, 6, "f32"));
  ASSERT_FALSE(program.ok());
  EXPECT_NE(std::string(program.status().message()).find("instructions[2].rhs"),
            std::string::npos)
      << program.status();
  inst["rhs"] = tile(64, 6);
  inst["alu1"] = "fma";
  program = parseProgram(vectorManifest(inst, 6, "f32"));
  ASSERT_FALSE(program.ok());
  EXPECT_NE(std::string(program.status().message()).find("alu1"),
            std::string::npos)
      << program.status();
}

TEST(SimulatorTest, Iota) {
  json inst = {{"op", "iota"},
               {"engine", "gpsimd"},
               {"partition_step", 10},
               {"dst", tile(128, 6, "i32")}};
  std::vector<double> got = runVector(inst, 6, "i32");
  ASSERT_EQ(got.size(), 24u);
  for (int p = 0; p < 4; ++p)
    for (int f = 0; f < 6; ++f)
      EXPECT_EQ(got[p * 6 + f], p * 10 + f);
}

TEST(SimulatorTest, TransposeThroughPsum) {
  // a [4, 6] -> psum [6, 4] -> back to SBUF as [4, 6] is not a transpose
  // again, so check the psum tile directly.
  json inst = {{"op", "transpose"},
               {"engine", "tensor"},
               {"src", tile(0, 6)},
               {"dst",
                {{"space", "psum"},
                 {"partition", 0},
                 {"offset", 0},
                 {"shape", {6, 4}},
                 {"dtype", "f32"}}}};
  absl::StatusOr<Program> program =
      parseProgram(vectorManifest(inst, 6, "f32"));
  ASSERT_TRUE(program.ok()) << program.status();
  Device device;
  ASSERT_TRUE(device
                  .run(*program, {makeTensor(DType::F32, {4, 6}, kA),
                                  makeTensor(DType::F32, {4, 6}, kB)})
                  .ok());
  for (int f = 0; f < 6; ++f)
    for (int p = 0; p < 4; ++p)
      EXPECT_EQ(loadElement(DType::F32,
                            device.psum().data() +
                                f * Device::partitionPitch(2048) + p * 4),
                kA[p * 6 + f]);
}

/// A kernel gathering rows of table [6, 8] (tensor 0, f32) by ids [4]
/// (tensor 1, i32): the ids go to SBUF as [4, 1], then columns 2..6 of the
/// picked rows (a column window of the table) land in out [4, 5].
json gatherManifest() {
  return parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "f32", "shape": [6, 8], "kind": "input"},
      {"id": 1, "dtype": "i32", "shape": [4], "kind": "input"},
      {"id": 2, "dtype": "f32", "shape": [4, 5], "kind": "output"}],
    "inputs": [{"tensor": 0, "name": "table"}, {"tensor": 1, "name": "ids"}],
    "outputs": [{"tensor": 2, "name": "rows"}],
    "kernels": [{"name": "gather", "parameters": 3,
      "limits": {"partitions": 128, "sbuf_bytes": 1024, "psum_bytes": 2048,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 1, "offset": 0, "shape": [4, 1],
                 "strides": [1, 1], "dtype": "i32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [4, 1], "dtype": "i32"}},
        {"op": "gather", "engine": "gpsimd",
         "table": {"space": "hbm", "param": 0, "offset": 2, "shape": [6, 5],
                   "strides": [8, 1], "dtype": "f32"},
         "indices": {"space": "sbuf", "partition": 0, "offset": 0,
                     "shape": [4, 1], "dtype": "i32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 64,
                 "shape": [4, 5], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "sbuf", "partition": 0, "offset": 64,
                 "shape": [4, 5], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 2, "offset": 0, "shape": [4, 5],
                 "strides": [5, 1], "dtype": "f32"}}]}],
    "program": [{"kernel": "gather", "bindings": [0, 1, 2]}]})json");
}

TEST(SimulatorTest, GatherRowsOfAColumnWindow) {
  std::vector<double> table(48);
  for (int i = 0; i < 48; ++i)
    table[i] = 100 * (i / 8) + i % 8; // row r, column c holds 100r + c
  std::vector<double> ids = {5, 0, 5, 3};
  std::vector<Tensor> out =
      runManifest(gatherManifest(), {makeTensor(DType::F32, {6, 8}, table),
                                     makeTensor(DType::I32, {4}, ids)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> rows = valuesOf(out[0]);
  ASSERT_EQ(rows.size(), 20u);
  for (int p = 0; p < 4; ++p)
    for (int c = 0; c < 5; ++c)
      EXPECT_EQ(rows[p * 5 + c], 100 * ids[p] + 2 + c) << p << "," << c;
}

TEST(SimulatorTest, GatherIndexOutOfRangeIsAnError) {
  absl::StatusOr<Program> program = parseProgram(gatherManifest());
  ASSERT_TRUE(program.ok()) << program.status();
  for (double bad : {6.0, -1.0}) {
    Device device;
    absl::StatusOr<std::vector<Tensor>> out = device.run(
        *program, {makeTensor(DType::F32, {6, 8}, std::vector<double>(48, 1)),
                   makeTensor(DType::I32, {4}, {0, 1, bad, 2})});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_EQ(out.status().message(),
              absl::StrFormat("program[0]: kernel \"gather\" instruction 1: "
                              "gather: partition 2 holds index %d, outside "
                              "the table's rows [0, 6)",
                              int64_t(bad)));
    // Nothing was gathered: the destination tile is still zero.
    for (int p = 0; p < 4; ++p)
      EXPECT_EQ(loadElement(DType::F32,
                            device.sbuf().data() +
                                p * Device::partitionPitch(1024) + 64),
                0.0);
  }
}

/// A kernel writing row [2, 3] (tensor 1) into cache [2, 6, 3] (tensor
/// 0, updated in place as parameter 0) at position pos (tensor 2, i32),
/// read into SBUF: one dma_copy whose destination start moves along the
/// cache's positions (stride 3 elements, at most position 5).
json cacheWriteManifest() {
  return parseJson(R"json({
    "tensors": [
      {"id": 0, "dtype": "f32", "shape": [2, 6, 3], "kind": "input"},
      {"id": 1, "dtype": "f32", "shape": [2, 3], "kind": "input"},
      {"id": 2, "dtype": "i32", "shape": [], "kind": "input"}],
    "inputs": [{"tensor": 0, "name": "cache"}, {"tensor": 1, "name": "row"},
               {"tensor": 2, "name": "pos"}],
    "outputs": [{"tensor": 0, "name": "cache"}],
    "kernels": [{"name": "write", "parameters": 3,
      "limits": {"partitions": 128, "sbuf_bytes": 1024, "psum_bytes": 2048,
                 "psum_bank_bytes": 2048, "stationary_free": 128,
                 "moving_free": 512},
      "instructions": [
        {"op": "dma_copy", "engine": "dma", "queue": 0,
         "src": {"space": "hbm", "param": 2, "offset": 0, "shape": [1, 1],
                 "strides": [1, 1], "dtype": "i32"},
         "dst": {"space": "sbuf", "partition": 0, "offset": 0,
                 "shape": [1, 1], "dtype": "i32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "hbm", "param": 1, "offset": 0, "shape": [2, 1, 3],
                 "strides": [3, 3, 1], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 0, "offset": 0, "shape": [2, 1, 3],
                 "strides": [18, 3, 1], "dtype": "f32"},
         "offset": {"space": "sbuf", "partition": 0, "offset": 0,
                    "shape": [1, 1], "dtype": "i32"},
         "offset_moves": "dst", "offset_stride": 3, "offset_limit": 5}]}],
    "program": [{"kernel": "write", "bindings": [0, 1, 2]}]})json");
}

TEST(SimulatorTest, DmaCopyAtAStartReadAtRunTime) {
  std::vector<double> row = {1, 2, 3, 4, 5, 6};
  for (int pos : {0, 4, 5}) {
    std::vector<Tensor> out = runManifest(
        cacheWriteManifest(),
        {makeTensor(DType::F32, {2, 6, 3}, std::vector<double>(36, -1)),
         makeTensor(DType::F32, {2, 3}, row),
         makeTensor(DType::I32, {}, {double(pos)})});
    ASSERT_EQ(out.size(), 1u);
    std::vector<double> cache = valuesOf(out[0]);
    for (int b = 0; b < 2; ++b)
      for (int s = 0; s < 6; ++s)
        for (int c = 0; c < 3; ++c)
          EXPECT_EQ(cache[b * 18 + s * 3 + c], s == pos ? row[b * 3 + c] : -1)
              << pos << ": " << b << "," << s << "," << c;
  }
}

TEST(SimulatorTest, DmaCopyStartOutOfRangeIsAnError) {
  absl::StatusOr<Program> program = parseProgram(cacheWriteManifest());
  ASSERT_TRUE(program.ok()) << program.status();
  for (double bad : {6.0, -1.0}) {
    Device device;
    absl::StatusOr<std::vector<Tensor>> out = device.run(
        *program, {makeTensor(DType::F32, {2, 6, 3}, std::vector<double>(36)),
                   makeTensor(DType::F32, {2, 3}, std::vector<double>(6, 1)),
                   makeTensor(DType::I32, {}, {bad})});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
    EXPECT_EQ(out.status().message(),
              absl::StrFormat("program[0]: kernel \"write\" instruction 1: "
                              "dma_copy: its start offset is %d, outside [0, "
                              "5] (the destination's positions along the "
                              "dimension it moves)",
                              int64_t(bad)));
  }
}

TEST(SimulatorTest, SelectCopiesInfinitiesAndNans) {
  // The mask is a < b (is_lt) written as i1 at SBUF byte 256, then select
  // picks a where it holds and b elsewhere: a min that keeps the chosen
  // operand's bits, where a blend f + m * (t - f) would make NaNs.
  json manifest = vectorManifest({{"op", "tensor_tensor"},
                                  {"engine", "vector"},
                                  {"alu", "is_lt"},
                                  {"lhs", tile(0, 6)},
                                  {"rhs", tile(64, 6)},
                                  {"dst", tile(256, 6, "i1")}},
                                 6, "f32");
  json &insts = manifest["kernels"][0]["instructions"];
  insts[2]["dst"]["dtype"] = "i1";
  insts.insert(insts.begin() + 3, json{{"op", "select"},
                                       {"engine", "vector"},
                                       {"predicate", tile(256, 6, "i1")},
                                       {"on_true", tile(0, 6)},
                                       {"on_false", tile(64, 6)},
                                       {"dst", tile(128, 6)}});
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a = kA, b = kB;
  a[0] = inf;  // inf < 1 is false: b's 1
  b[1] = inf;  // 2 < inf: a's 2
  a[2] = -inf; // -inf < 4: a's -inf
  a[3] = nan;  // nan < 4 is false: b's 4
  b[4] = nan;  // 5 < nan is false: b's nan
  std::vector<Tensor> out =
      runManifest(manifest, {makeTensor(DType::F32, {4, 6}, a),
                             makeTensor(DType::F32, {4, 6}, b)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<double> got = valuesOf(out[0]);
  ASSERT_EQ(got.size(), 24u);
  EXPECT_EQ(got[0], 1);
  EXPECT_EQ(got[1], 2);
  EXPECT_EQ(got[2], -inf);
  EXPECT_EQ(got[3], 4);
  EXPECT_TRUE(std::isnan(got[4]));
  for (size_t i = 5; i < got.size(); ++i)
    EXPECT_EQ(got[i], a[i] < b[i] ? a[i] : b[i]) << i;
}

TEST(SimulatorTest, SelectByANonBooleanPredicate) {
  // Any non-zero predicate element picks on_true: here a itself (f32).
  json inst = {{"op", "select"},          {"engine", "vector"},
               {"predicate", tile(0, 6)}, {"on_true", tile(64, 6)},
               {"on_false", tile(0, 6)},  {"dst", tile(128, 6)}};
  std::vector<double> got = runVector(inst, 6);
  ASSERT_EQ(got.size(), 24u);
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], kA[i] != 0 ? kB[i] : kA[i]) << i;
}

TEST(SimulatorTest, ConstantsComeFromTheLoader) {
  json manifest = parseJson(R"json({
    "tensors": [{"id": 0, "dtype": "i32", "shape": [3], "kind": "constant",
                 "section": "c0"},
                {"id": 1, "dtype": "i32", "shape": [3], "kind": "output"}],
    "inputs": [], "outputs": [{"tensor": 1}],
    "kernels": [{"name": "copy", "parameters": 2,
      "limits": {"partitions": 1, "sbuf_bytes": 64, "psum_bytes": 64,
                 "psum_bank_bytes": 64, "stationary_free": 1,
                 "moving_free": 1},
      "instructions": [{"op": "dma_copy", "engine": "dma", "queue": 0,
        "src": {"space": "hbm", "param": 0, "offset": 0, "shape": [3],
                "strides": [1], "dtype": "i32"},
        "dst": {"space": "hbm", "param": 1, "offset": 0, "shape": [3],
                "strides": [1], "dtype": "i32"}}]}],
    "program": [{"kernel": "copy", "bindings": [0, 1]}]})json");
  absl::StatusOr<Program> program = parseProgram(manifest);
  ASSERT_TRUE(program.ok()) << program.status();
  Tensor c = makeTensor(DType::I32, {3}, {7, -8, 9});
  ConstantLoader loader =
      [&](const TensorDesc &t) -> absl::StatusOr<ConstantBytes> {
    EXPECT_EQ(t.section, "c0");
    return ConstantBytes{c.data.data(), c.data.size()};
  };
  Device device;
  absl::StatusOr<std::vector<Tensor>> out = device.run(*program, {}, loader);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(valuesOf((*out)[0]), (std::vector<double>{7, -8, 9}));
  // Read in place: the device holds no copy of its own.
  EXPECT_EQ(device.tensorBytes(*program, 0), c.data.data());
  EXPECT_TRUE(device.hbm(0).empty());
  // A loader returning the wrong size is an error naming the section.
  c.data.pop_back();
  out = Device().run(*program, {}, loader);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(out.status().message().find("section \"c0\""), std::string::npos);

  // An executable's constants, read in place from their sections.
  ExecutableWriter writer(manifest);
  writer.addSection({"c0", 64, makeTensor(DType::I32, {3}, {7, -8, 9}).data});
  absl::StatusOr<std::vector<uint8_t>> file = writer.serialize();
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<Executable> exe = Executable::parse(*file);
  ASSERT_TRUE(exe.ok()) << exe.status();
  Device fromFile;
  out = fromFile.run(*program, {}, sectionConstants(*exe, "model.nxe"));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(valuesOf((*out)[0]), (std::vector<double>{7, -8, 9}));
  EXPECT_EQ(fromFile.tensorBytes(*program, 0), exe->section("c0")->data);
  // A constant whose section is missing names both.
  ExecutableWriter bare(manifest);
  absl::StatusOr<Executable> noSection = Executable::parse(*bare.serialize());
  ASSERT_TRUE(noSection.ok()) << noSection.status();
  out = Device().run(*program, {}, sectionConstants(*noSection, "model.nxe"));
  EXPECT_EQ(out.status(), absl::InvalidArgumentError(
                              "model.nxe: no section 'c0' for constant ''"));
  out = Device().run(*program, {}, sectionConstants(*noSection));
  EXPECT_EQ(out.status(),
            absl::InvalidArgumentError("no section 'c0' for constant ''"));

  // A kernel that writes the constant (directly or through a view) is
  // rejected before anything runs: constants are read in place, from a
  // read-only mapping.
  json writes = manifest;
  writes["program"][0]["bindings"] = {1, 0};
  EXPECT_EQ(parseProgram(writes).status().message(),
            "manifest: program[0]: expected a step that writes no constant "
            "(constants are read-only), found a step that writes tensor 0, a "
            "constant");
  writes["tensors"].push_back(parseJson(
      R"json({"id": 2, "dtype": "i32", "shape": [3], "kind": "view",
              "view": {"tensor": 0, "offset": 0}})json"));
  writes["program"][0]["bindings"] = {1, 2};
  EXPECT_EQ(parseProgram(writes).status().message(),
            "manifest: program[0]: expected a step that writes no constant "
            "(constants are read-only), found a step that writes tensor 2, a "
            "view of constant tensor 0");
}

} // namespace
