//===- ProgramTest.cpp - Validation of the manifest's program -------------===//
//
// Every class of manifest error, with its message (JSON path, expected,
// found), and a mutation sweep showing that no JSON value anywhere crashes
// the reader or the simulator.
//
//===----------------------------------------------------------------------===//

#include "SimTestUtil.h"

#include <gtest/gtest.h>

using namespace neuron::rt;
using namespace neuron::rt::test;

namespace {

/// A valid program: kernel "k" copies x [4, 8] f32 (odd columns) through
/// SBUF, multiplies by an SBUF tile, and writes y [4, 4] f32.
json baseManifest() {
  return parseJson(R"json({
    "schema": "neuron-executable/4",
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
        {"op": "matmul", "engine": "tensor", "accumulate": false,
         "stationary": {"space": "sbuf", "partition": 2, "offset": 64,
                        "shape": [4, 4], "dtype": "f32"},
         "moving": {"space": "sbuf", "partition": 2, "offset": 64,
                    "shape": [4, 4], "dtype": "f32"},
         "dst": {"space": "psum", "partition": 0, "offset": 0,
                 "shape": [4, 4], "dtype": "f32"}},
        {"op": "dma_copy", "engine": "dma", "queue": 1,
         "src": {"space": "psum", "partition": 0, "offset": 0,
                 "shape": [4, 4], "dtype": "f32"},
         "dst": {"space": "hbm", "param": 1, "offset": 0, "shape": [4, 4],
                 "strides": [4, 1], "dtype": "f32"}}]}],
    "program": [{"kernel": "k", "bindings": [0, 1]}]})json");
}

json &inst(json &m, int i) { return m["kernels"][0]["instructions"][i]; }

TEST(ProgramTest, BaseManifestIsValid) {
  absl::StatusOr<Program> program = parseProgram(baseManifest());
  ASSERT_TRUE(program.ok()) << program.status();
  ASSERT_EQ(program->kernels.size(), 1u);
  const Instruction &dma = program->kernels[0].instructions[0];
  EXPECT_EQ(dma.op, Opcode::DmaCopy);
  EXPECT_EQ(dma.src.maxElement, 1 + 3 * 8 + 3 * 2);
  EXPECT_EQ(dma.dst.partition, 2);
  EXPECT_EQ(program->steps[0].bindings, (std::vector<int64_t>{0, 1}));
}

TEST(ProgramTest, PartitionOutOfRange) {
  json m = baseManifest();
  inst(m, 0)["dst"]["partition"] = 128;
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[0].dst.partition: "
                        "expected a partition in [0, 127], found a number 128");
  m = baseManifest();
  inst(m, 0)["dst"]["partition"] = 126;
  EXPECT_EQ(errorOf(m),
            "manifest: kernels[0].instructions[0].dst.shape[0]: expected at "
            "most 2 partitions (partition 126 + count <= 128 partitions), "
            "found 4");
}

TEST(ProgramTest, OffsetPastSbuf) {
  json m = baseManifest();
  inst(m, 0)["dst"]["offset"] = 196600;
  EXPECT_EQ(errorOf(m),
            "manifest: kernels[0].instructions[0].dst.offset: expected an "
            "offset in [0, 196592] (offset + 16 bytes <= 196608 sbuf bytes "
            "per partition), found a number 196600");
  m = baseManifest();
  inst(m, 0)["dst"]["shape"] = {4, 49153};
  EXPECT_NE(errorOf(m).find("dst.shape: expected at most 196608 sbuf bytes "
                            "per partition, found [4, 49153] of f32 (196612 "
                            "bytes per partition)"),
            std::string::npos)
      << errorOf(m);
}

TEST(ProgramTest, OnChipStrides) {
  // The matmul's moving operand reads columns 0 and 2 of the [4, 4] tile.
  json m = baseManifest();
  inst(m, 1)["moving"]["shape"] = {4, 2};
  inst(m, 1)["moving"]["strides"] = {2};
  inst(m, 1)["dst"]["shape"] = {4, 2};
  inst(m, 2)["src"]["shape"] = {4, 2};
  inst(m, 2)["dst"]["shape"] = {4, 2};
  inst(m, 2)["dst"]["strides"] = {4, 1};
  absl::StatusOr<Program> program = parseProgram(m);
  ASSERT_TRUE(program.ok()) << program.status();
  const TileRef &moving = program->kernels[0].instructions[1].moving;
  EXPECT_EQ(moving.strides, (std::vector<int64_t>{2}));
  EXPECT_FALSE(moving.contiguous());
  EXPECT_EQ(moving.freeSpan(), 3);

  json bad = m;
  inst(bad, 1)["moving"]["strides"] = {2, 1};
  EXPECT_EQ(errorOf(bad), "manifest: kernels[0].instructions[1].moving."
                          "strides: expected 1 strides (one per free "
                          "dimension of shape), found 2");
  bad = m;
  inst(bad, 1)["moving"]["strides"] = {-1};
  EXPECT_EQ(errorOf(bad), "manifest: kernels[0].instructions[1].moving."
                          "strides[0]: expected an integer in [0, 196608], "
                          "found a number -1");
  bad = m;
  inst(bad, 1)["moving"]["strides"] = {65536}; // spans 4 * 65536 + 4 bytes
  EXPECT_EQ(errorOf(bad), "manifest: kernels[0].instructions[1].moving."
                          "strides: expected at most 196608 sbuf bytes per "
                          "partition, found [4, 2] of f32 (262148 bytes per "
                          "partition)");
  bad = m;
  // 2^38 steps of 2^26 elements: the span's product passes 2^63, which
  // the reader must not wrap (the largest SBUF a target may give, 2^26).
  bad["kernels"][0]["limits"]["partitions"] = 16;
  bad["kernels"][0]["limits"]["sbuf_bytes"] = int64_t(1) << 26;
  inst(bad, 1)["moving"]["shape"] = {1, (int64_t(1) << 38) + 1};
  inst(bad, 1)["moving"]["strides"] = {int64_t(1) << 26};
  EXPECT_NE(errorOf(bad).find("moving.strides: expected at most 67108864 "
                              "sbuf bytes per partition, found [1, "
                              "274877906945] of f32"),
            std::string::npos)
      << errorOf(bad);
  // A matmul fills whole rows of its PSUM result.
  bad = m;
  inst(bad, 1)["dst"]["strides"] = {1};
  EXPECT_TRUE(errorOf(bad).empty()) << errorOf(bad); // row-major: contiguous
  inst(bad, 1)["dst"]["strides"] = {2};
  EXPECT_EQ(errorOf(bad), "manifest: kernels[0].instructions[1].dst: "
                          "expected a psum tile without strides (the sums "
                          "fill whole rows), found strides [2]");
  bad = m;
  inst(bad, 1)["moving"]["strides"] = {49140}; // fits, but not at byte 64
  EXPECT_NE(errorOf(bad).find("moving.offset: expected an offset in [0, "
                              "44] (offset + 196564 bytes"),
            std::string::npos)
      << errorOf(bad);
}

TEST(ProgramTest, HbmAccessOutsideItsTensor) {
  json m = baseManifest();
  inst(m, 0)["src"]["offset"] = 2; // last element 2 + 24 + 6 = 32 >= 32
  EXPECT_EQ(errorOf(m),
            "manifest: program[0].bindings[0]: expected a f32 tensor of more "
            "than 32 elements (kernels[0].instructions[0].src touches "
            "elements 2..32), found tensor 0: f32[4, 8]");
  m = baseManifest();
  inst(m, 0)["src"]["strides"] = {8, -2};
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[0].src.strides[1]: "
                        "expected an integer in [0, 1099511627776], found a "
                        "number -2");
  m = baseManifest();
  inst(m, 0)["src"]["strides"] = {int64_t(1) << 40, int64_t(1) << 40};
  EXPECT_NE(errorOf(m).find("src.strides: expected an access pattern ending "
                            "below element 2^40"),
            std::string::npos)
      << errorOf(m);
  m = baseManifest();
  inst(m, 0)["src"]["dtype"] = "bf16"; // the tensor is f32
  EXPECT_NE(errorOf(m).find("program[0].bindings[0]: expected a bf16 tensor"),
            std::string::npos)
      << errorOf(m);
}

TEST(ProgramTest, BadDType) {
  json m = baseManifest();
  m["tensors"][1]["dtype"] = "f64";
  EXPECT_EQ(errorOf(m), "manifest: tensors[1].dtype: expected one of f32 bf16 "
                        "f16 f8E4M3FN f8E5M2 i8 i16 i32 i64 i1, found a string "
                        "\"f64\"");
  m = baseManifest();
  inst(m, 1)["moving"]["dtype"] = 3;
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].moving.dtype: "
                        "expected a non-empty string, found a number 3");
}

TEST(ProgramTest, MatmulShapes) {
  json m = baseManifest();
  inst(m, 1)["moving"]["shape"] = {3, 4};
  EXPECT_EQ(errorOf(m),
            "manifest: kernels[0].instructions[1].moving: expected [K, N] "
            "with K = 4 (as stationary) and N <= 512 (moving_free), found "
            "[3, 4]");
  m = baseManifest();
  inst(m, 1)["dst"]["shape"] = {4, 5};
  EXPECT_EQ(errorOf(m),
            "manifest: kernels[0].instructions[1].dst: expected "
            "[M, N] = [4, 4] (stationary^T x moving), found [4, 5]");
  // A moving window [K, rows, columns] has rows x columns columns.
  m = baseManifest();
  inst(m, 1)["moving"]["shape"] = {4, 2, 3};
  EXPECT_EQ(errorOf(m),
            "manifest: kernels[0].instructions[1].dst: expected "
            "[M, N] = [4, 6] (stationary^T x moving), found [4, 4]");
  inst(m, 1)["moving"]["shape"] = {4, 2, 2};
  EXPECT_TRUE(parseProgram(m).ok()) << errorOf(m);
  inst(m, 1)["moving"]["shape"] = {4, 2, 2, 1};
  EXPECT_EQ(errorOf(m),
            "manifest: kernels[0].instructions[1].moving: expected a "
            "shape [K, N] or [K, rows, columns], found [4, 2, 2, 1]");
  m = baseManifest();
  inst(m, 1)["dst"]["dtype"] = "bf16";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].dst: expected "
                        "an f32 psum tile, found bf16");
  m = baseManifest();
  inst(m, 1)["dst"]["space"] = "sbuf";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].dst.space: "
                        "expected one of psum, found a string \"sbuf\"");
  m = baseManifest();
  inst(m, 1)["dst"]["offset"] = 2040; // 16 bytes across the 2048 bank edge
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].dst: expected a "
                        "tile inside one 2048-byte psum bank, found bytes "
                        "2040..2055");
  m = baseManifest();
  inst(m, 1).erase("accumulate");
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].accumulate: "
                        "expected true or false, found nothing (the field is "
                        "missing)");
}

// The double-row mode: fp8 operands of two rows per partition, under
// limits that allow it.
TEST(ProgramTest, DoubleRowMatmul) {
  json m = baseManifest();
  for (const char *operand : {"stationary", "moving"}) {
    inst(m, 1)[operand]["shape"] = {4, 2, 4};
    inst(m, 1)[operand]["dtype"] = "f8E4M3FN";
  }
  inst(m, 1)["double_row"] = true;
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].double_row: "
                        "expected false (the kernel's limits have fp8_rows "
                        "= 1), found true");
  m["kernels"][0]["limits"]["fp8_rows"] = 2;
  absl::StatusOr<Program> program = parseProgram(m);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_TRUE(program->kernels[0].instructions[1].doubleRow);
  EXPECT_EQ(program->kernels[0].limits.fp8Rows, 2);
  inst(m, 1)["moving"]["shape"] = {4, 8};
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].moving: "
                        "expected a shape [K, 2, N] (double_row), found "
                        "[4, 8]");
  inst(m, 1)["moving"]["shape"] = {4, 2, 4};
  inst(m, 1)["stationary"]["shape"] = {4, 1, 4};
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].stationary: "
                        "expected a shape [K, 2, M] (double_row), found "
                        "[4, 1, 4]");
  inst(m, 1)["stationary"]["shape"] = {4, 2, 4};
  inst(m, 1)["stationary"]["dtype"] = "bf16";
  inst(m, 1)["moving"]["dtype"] = "bf16";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].stationary: "
                        "expected an fp8 operand (double_row), found bf16");
  m["kernels"][0]["limits"]["fp8_rows"] = 3;
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].limits.fp8_rows: expected 1 or "
                        "2 (the double-row mode), found a number 3");
}

TEST(ProgramTest, UnknownOpEngineAndField) {
  json m = baseManifest();
  inst(m, 1)["op"] = "conv2d";
  EXPECT_EQ(errorOf(m),
            "manifest: kernels[0].instructions[1].op: expected one of "
            "activation dma_copy gather iota matmul memset "
            "scalar_tensor_tensor select tensor_reduce tensor_scalar "
            "tensor_tensor transpose, found a string \"conv2d\"");
  m = baseManifest();
  inst(m, 1)["engine"] = "vector";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].engine: "
                        "expected \"tensor\" (the engine of matmul), found a "
                        "string \"vector\"");
  m = baseManifest();
  inst(m, 1)["acumulate"] = true;
  EXPECT_NE(errorOf(m).find("kernels[0].instructions[1].acumulate: unknown "
                            "field"),
            std::string::npos)
      << errorOf(m);
}

/// The base manifest with a gather of x's rows by [4, 1] i32 indices at
/// SBUF byte 0 into the tile the matmul reads (instruction 1).
json gatherManifest() {
  json m = baseManifest();
  inst(m, 1) = {{"op", "gather"},
                {"engine", "gpsimd"},
                {"table",
                 {{"space", "hbm"},
                  {"param", 0},
                  {"offset", 0},
                  {"shape", {4, 4}},
                  {"strides", {8, 1}},
                  {"dtype", "f32"}}},
                {"indices",
                 {{"space", "sbuf"},
                  {"partition", 0},
                  {"offset", 0},
                  {"shape", {4, 1}},
                  {"dtype", "i32"}}},
                {"dst",
                 {{"space", "sbuf"},
                  {"partition", 2},
                  {"offset", 64},
                  {"shape", {4, 4}},
                  {"dtype", "f32"}}}};
  inst(m, 2)["src"]["space"] = "sbuf";
  inst(m, 2)["src"]["partition"] = 2;
  inst(m, 2)["src"]["offset"] = 64;
  return m;
}

TEST(ProgramTest, GatherOperands) {
  json m = gatherManifest();
  absl::StatusOr<Program> program = parseProgram(m);
  ASSERT_TRUE(program.ok()) << program.status();
  const Instruction &gather = program->kernels[0].instructions[1];
  EXPECT_EQ(gather.op, Opcode::Gather);
  EXPECT_EQ(gather.engine, Engine::GpSimd);
  EXPECT_EQ(gather.table.maxElement, 3 * 8 + 3);
  inst(m, 1)["indices"]["dtype"] = "i64";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].indices: "
                        "expected a [P, 1] i32 tile, found [4, 1] of i64");
  m = gatherManifest();
  inst(m, 1)["table"]["space"] = "sbuf";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].table.space: "
                        "expected one of hbm, found a string \"sbuf\"");
  m = gatherManifest();
  inst(m, 1)["dst"]["shape"] = {4, 3};
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].dst: expected "
                        "[P, C] = [4, 4] (one table row per index), found "
                        "[4, 3]");
  m = gatherManifest();
  inst(m, 1)["dst"]["dtype"] = "bf16";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].dst: expected "
                        "a f32 tile (as table), found bf16");
  m = gatherManifest();
  inst(m, 1)["engine"] = "vector";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].engine: "
                        "expected \"gpsimd\" (the engine of gather), found a "
                        "string \"vector\"");
  // The table pattern must lie inside the tensor bound to it: rows 0..4 of
  // x [4, 8] reach element 35.
  m = gatherManifest();
  inst(m, 1)["table"]["shape"] = {5, 4};
  inst(m, 1)["dst"]["shape"] = {4, 4};
  EXPECT_NE(errorOf(m).find("kernels[0].instructions[1].table touches "
                            "elements 0..35"),
            std::string::npos)
      << errorOf(m);
}

TEST(ProgramTest, DmaCopyStartOffset) {
  // The store (instruction 2) writes row r of y, r read from SBUF: rows
  // 0..3 of the [1, 4] pattern (stride 4 elements).
  json m = baseManifest();
  inst(m, 2)["src"]["shape"] = {1, 4};
  inst(m, 2)["dst"]["shape"] = {1, 4};
  inst(m, 2)["offset"] = {{"space", "sbuf"},  {"partition", 0},
                          {"offset", 0},      {"shape", {1, 1}},
                          {"dtype", "i32"}};
  inst(m, 2)["offset_moves"] = "dst";
  inst(m, 2)["offset_stride"] = 4;
  inst(m, 2)["offset_limit"] = 3;
  absl::StatusOr<Program> program = parseProgram(m);
  ASSERT_TRUE(program.ok()) << program.status();
  const Instruction &store = program->kernels[0].instructions[2];
  ASSERT_TRUE(store.offset.has_value());
  EXPECT_EQ(&movedSide(store), &store.dst);
  EXPECT_EQ(reachOf(store).maxElement, 15);

  json bad = m;
  inst(bad, 2)["offset_limit"] = 4;
  EXPECT_NE(errorOf(bad).find("kernels[0].instructions[2].dst touches "
                              "elements 0..19"),
            std::string::npos)
      << errorOf(bad);
  bad = m;
  inst(bad, 2)["offset"]["dtype"] = "i64";
  EXPECT_EQ(errorOf(bad), "manifest: kernels[0].instructions[2].offset: "
                          "expected a one-element i32 tile, found 1 i64 "
                          "elements");
  bad = m;
  inst(bad, 2)["offset"]["space"] = "psum";
  EXPECT_EQ(errorOf(bad), "manifest: kernels[0].instructions[2].offset.space: "
                          "expected one of sbuf, found a string \"psum\"");
  bad = m;
  inst(bad, 2).erase("offset_stride");
  EXPECT_NE(errorOf(bad).find("instructions[2].offset_stride"),
            std::string::npos)
      << errorOf(bad);
  bad = m;
  inst(bad, 2)["offset_moves"] = "src";
  EXPECT_EQ(errorOf(bad), "manifest: kernels[0].instructions[2].offset_moves: "
                          "expected the side of an HBM tile, found a string "
                          "\"src\"");
  bad = m;
  inst(bad, 2)["offset_moves"] = "both";
  EXPECT_EQ(errorOf(bad), "manifest: kernels[0].instructions[2].offset_moves: "
                          "expected one of src dst, found a string \"both\"");
}

/// The base manifest with a select (instruction 1) of two SBUF tiles by an
/// i8 mask into the tile copied out.
json selectManifest() {
  json m = baseManifest();
  auto sbuf = [](int partition, int offset, const char *dtype) {
    return json{{"space", "sbuf"},
                {"partition", partition},
                {"offset", offset},
                {"shape", {4, 4}},
                {"dtype", dtype}};
  };
  inst(m, 1) = {{"op", "select"},
                {"engine", "vector"},
                {"predicate", sbuf(0, 0, "i8")},
                {"on_true", sbuf(2, 64, "f32")},
                {"on_false", sbuf(0, 16, "f32")},
                {"dst", sbuf(2, 128, "f32")}};
  inst(m, 2)["src"] = sbuf(2, 128, "f32");
  return m;
}

TEST(ProgramTest, SelectOperands) {
  json m = selectManifest();
  absl::StatusOr<Program> program = parseProgram(m);
  ASSERT_TRUE(program.ok()) << program.status();
  const Instruction &select = program->kernels[0].instructions[1];
  EXPECT_EQ(select.op, Opcode::Select);
  EXPECT_EQ(select.engine, Engine::Vector);
  EXPECT_EQ(select.onTrue.partition, 2);
  inst(m, 1)["on_false"]["dtype"] = "bf16";
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].on_false: "
                        "expected a f32 tile (as on_true), found bf16");
  m = selectManifest();
  inst(m, 1)["dst"]["shape"] = {2, 8};
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].dst: expected a "
                        "tile of 4 partitions x 4 elements (as predicate), "
                        "found 2 partitions x 8 elements");
  m = selectManifest();
  inst(m, 1)["on_true"] = inst(m, 0)["src"];
  EXPECT_EQ(errorOf(m), "manifest: kernels[0].instructions[1].on_true.space: "
                        "expected one of sbuf psum, found a string \"hbm\"");
  m = selectManifest();
  inst(m, 1).erase("on_false");
  EXPECT_NE(errorOf(m).find("kernels[0].instructions[1].on_false"),
            std::string::npos)
      << errorOf(m);
}

TEST(ProgramTest, Views) {
  json m = baseManifest();
  m["tensors"].push_back({{"id", 2}, {"dtype", "f32"}, {"shape", {2, 8}},
                          {"kind", "view"}, {"view", {{"tensor", 0},
                                                      {"offset", 16}}}});
  absl::StatusOr<Program> program = parseProgram(m);
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_EQ(program->tensors[2].viewOf, 0);
  EXPECT_EQ(program->tensors[2].viewOffset, 16);

  json bad = m;
  bad["tensors"][2]["view"]["offset"] = 17;
  EXPECT_EQ(errorOf(bad),
            "manifest: tensors[2].view.offset: expected an element offset in "
            "[0, 16] (tensor 0 holds 32 elements, the view 16), found a "
            "number 17");
  bad = m;
  bad["tensors"][2]["dtype"] = "bf16";
  EXPECT_EQ(errorOf(bad), "manifest: tensors[2].view.tensor: expected a bf16 "
                          "tensor that is not a view, found tensor 0: "
                          "f32[4, 8] (input)");
  bad = m;
  bad["tensors"].push_back({{"id", 3}, {"dtype", "f32"}, {"shape", {8}},
                            {"kind", "view"},
                            {"view", {{"tensor", 2}, {"offset", 0}}}});
  EXPECT_EQ(errorOf(bad), "manifest: tensors[3].view.tensor: expected a f32 "
                          "tensor that is not a view, found tensor 2: "
                          "f32[2, 8] (view)");
  bad = m;
  bad["tensors"][2]["view"]["tensor"] = 2;
  EXPECT_EQ(errorOf(bad), "manifest: tensors[2].view.tensor: expected an "
                          "earlier tensor id in [0, 1], found a number 2");
  bad = m;
  bad["tensors"][2].erase("view");
  EXPECT_EQ(errorOf(bad).rfind("manifest: tensors[2].view: expected", 0), 0u)
      << errorOf(bad);
}

TEST(ProgramTest, ProgramStepsAndIo) {
  json m = baseManifest();
  m["program"][0]["bindings"] = {0};
  EXPECT_EQ(errorOf(m), "manifest: program[0].bindings: expected 2 tensor ids "
                        "(kernel \"k\" has 2 parameters), found 1");
  m = baseManifest();
  m["program"][0]["kernel"] = "nope";
  EXPECT_EQ(errorOf(m), "manifest: program[0].kernel: expected the name of a "
                        "kernel in kernels, found a string \"nope\"");
  m = baseManifest();
  m["program"][0]["bindings"] = {0, 2};
  EXPECT_EQ(errorOf(m), "manifest: program[0].bindings[1]: expected an "
                        "integer in [0, 1], found a number 2");
  m = baseManifest();
  m["inputs"][0]["tensor"] = 1;
  EXPECT_EQ(errorOf(m), "manifest: inputs[0].tensor: expected a tensor of "
                        "kind \"input\", found tensor 1 of kind \"output\"");
  m = baseManifest();
  m["tensors"][0]["id"] = 1;
  EXPECT_EQ(errorOf(m), "manifest: tensors[0].id: expected 0 (the tensor's "
                        "index), found a number 1");
  m = baseManifest();
  m["tensors"][0]["kind"] = "constant";
  EXPECT_EQ(errorOf(m), "manifest: tensors[0].section: expected a non-empty "
                        "string, found nothing (the field is missing)");
  EXPECT_EQ(errorOf(json::array()),
            "manifest: (root): expected an object, found an array of 0 "
            "elements");
}

TEST(ProgramTest, WrongInputIsReported) {
  absl::StatusOr<Program> program = parseProgram(baseManifest());
  ASSERT_TRUE(program.ok()) << program.status();
  absl::StatusOr<std::vector<Tensor>> out = Device().run(
      *program, {makeTensor(DType::F32, {4, 7}, std::vector<double>(28))});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(out.status().message(),
            "inputs[0] (\"x\"): expected f32[4, 8] (128 bytes), found "
            "f32[4, 7] (112 bytes)");
  out = Device().run(
      *program, {makeTensor(DType::BF16, {4, 8}, std::vector<double>(32))});
  EXPECT_EQ(out.status().message(),
            "inputs[0] (\"x\"): expected f32[4, 8] (128 bytes), found "
            "bf16[4, 8] (64 bytes)");
  out = Device().run(*program, {});
  EXPECT_EQ(out.status().message(), "inputs: expected 1 tensors, found 0");
}

/// Replaces the value at every path of `manifest`, in turn, by each of a set
/// of hostile values; the reader must return (either way) and any program it
/// accepts must run.
TEST(ProgramTest, NoJsonValueCrashes) {
  const json hostile[] = {nullptr,
                          -1,
                          0,
                          1,
                          127,
                          4096,
                          int64_t(1) << 62,
                          uint64_t(1) << 63,
                          -1e300,
                          0.5,
                          "",
                          "psum",
                          "f8E4M3FN",
                          json::array(),
                          json::array({1, 2, 3}),
                          json::object()};
  HostileSweep sweep;
  for (json base : {baseManifest(), gatherManifest(), selectManifest()}) {
    // Small on-chip memories keep the runs of accepted mutations quick.
    base["kernels"][0]["limits"]["sbuf_bytes"] = 1024;
    HostileSweep one = sweepHostileValues(
        base, json::json_pointer(), hostile, [](const Program &program) {
          (void)Device().run(program, onesInputs(program));
        });
    sweep.checked += one.checked;
    sweep.accepted += one.accepted;
  }
  EXPECT_GT(sweep.checked, 1000);
  EXPECT_GT(sweep.accepted, 0); // some mutations (names, queue) stay valid
}

} // namespace
