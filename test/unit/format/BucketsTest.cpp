//===- BucketsTest.cpp - Tests for executables of shape buckets -----------===//
//
// mergeBuckets on crafted one-bucket executables: identical kernels and
// sections stored once, different ones renamed and the references to them
// rewritten; readBuckets' validation; bucketManifest; choosing a bucket.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/Buckets.h"
#include "runtime/format/Executable.h"

#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

using namespace neuron::rt;
using json = nlohmann::json;

namespace {

/// A one-bucket executable of length `size`: an f32 [size, 4] input and
/// output, an i32 scalar length input, kernels `kernels` (each launched
/// once) and one constant tensor per section.
std::vector<uint8_t> bucket(int64_t size, const json &kernels,
                            const std::vector<Section> &sections) {
  json tensors = {
      {{"id", 0}, {"dtype", "f32"}, {"shape", {size, 4}}, {"kind", "input"}},
      {{"id", 1}, {"dtype", "i32"}, {"shape", json::array()}, {"kind", "input"}},
      {{"id", 2}, {"dtype", "f32"}, {"shape", {size, 4}}, {"kind", "output"}}};
  for (const Section &s : sections)
    tensors.push_back({{"id", tensors.size()},
                       {"dtype", "f32"},
                       {"shape", {int64_t(s.data.size() / 4)}},
                       {"kind", "constant"},
                       {"section", s.name}});
  json program = json::array();
  for (const json &k : kernels)
    program.push_back({{"kernel", k["name"]}, {"bindings", {0, 2}}});
  json manifest = {{"schema", "test"},
                   {"target", {{"spec", "trn2"}}},
                   {"tensors", tensors},
                   {"inputs", {{{"tensor", 0}, {"name", "input0"}},
                               {{"tensor", 1}, {"name", "input1"}}}},
                   {"outputs", {{{"tensor", 2}, {"name", "result0"}}}},
                   {"kernels", kernels},
                   {"program", program}};
  ExecutableWriter writer(manifest);
  for (const Section &s : sections)
    writer.addSection(s);
  return *writer.serialize();
}

Section section(std::string name, std::vector<uint8_t> bytes) {
  return {std::move(name), 64, std::move(bytes)};
}

const json kRecord = {{"inputs", {{{"index", 0}, {"dim", 0}}}},
                      {"outputs", {{{"index", 0}, {"dim", 0}}}},
                      {"pad", 0.5},
                      {"length_input", 1}};

TEST(BucketsTest, MergeStoresIdenticalKernelsAndSectionsOnce) {
  json shared = {{"name", "norm"}, {"instructions", {1, 2, 3}}};
  std::vector<uint8_t> small = bucket(
      16, {{{"name", "layer"}, {"instructions", {16}}}, shared},
      {section("weights", {1, 2, 3, 4}), section("iota", {0, 0, 0, 0})});
  std::vector<uint8_t> large = bucket(
      64, {{{"name", "layer"}, {"instructions", {64}}}, shared},
      {section("weights", {1, 2, 3, 4}), section("iota", {9, 9, 9, 9})});
  absl::StatusOr<std::vector<uint8_t>> merged =
      mergeBuckets({{16, small}, {64, large}}, kRecord);
  ASSERT_TRUE(merged.ok()) << merged.status();
  absl::StatusOr<Executable> exe = Executable::parse(*merged);
  ASSERT_TRUE(exe.ok()) << exe.status();
  const json &m = exe->manifest();

  // The largest bucket's program is the top-level one.
  EXPECT_EQ(m["tensors"][0]["shape"], json({64, 4}));
  // Its kernels, then the smaller bucket's that differ, renamed.
  ASSERT_EQ(m["kernels"].size(), 3u);
  EXPECT_EQ(m["kernels"][2]["name"], "layer.b16");
  EXPECT_EQ(m["kernels"][2]["instructions"], json({16}));
  // Identical sections once; the other renamed, and its tensor with it.
  ASSERT_EQ(exe->sections().size(), 3u);
  const json &program = m["buckets"]["programs"][0];
  EXPECT_EQ(program["size"], 16);
  EXPECT_EQ(program["program"][0]["kernel"], "layer.b16");
  EXPECT_EQ(program["program"][1]["kernel"], "norm");
  EXPECT_EQ(program["tensors"][3]["section"], "weights");
  std::string iota = program["tensors"][4]["section"];
  EXPECT_NE(iota, "iota");
  ASSERT_NE(exe->section(iota), nullptr);
  EXPECT_EQ(exe->section(iota)->data[0], 0);
  EXPECT_EQ(exe->section("iota")->data[0], 9);

  absl::StatusOr<std::optional<Buckets>> buckets = readBuckets(m);
  ASSERT_TRUE(buckets.ok()) << buckets.status();
  ASSERT_TRUE(buckets->has_value());
  const Buckets &b = **buckets;
  EXPECT_EQ(b.sizes, (std::vector<int64_t>{16, 64}));
  EXPECT_EQ(b.pad, 0.5);
  EXPECT_EQ(b.lengthInput, 1);
  ASSERT_EQ(b.inputs.size(), 1u);
  EXPECT_EQ(b.inputs[0].index, 0);
  EXPECT_EQ(b.inputs[0].dim, 0);

  // Each bucket's manifest: the program of its size, the shared rest.
  json first = bucketManifest(m, 0);
  EXPECT_EQ(first["tensors"][0]["shape"], json({16, 4}));
  EXPECT_EQ(first["kernels"], m["kernels"]);
  EXPECT_EQ(first["target"], m["target"]);
  EXPECT_FALSE(first.contains("size"));
  EXPECT_EQ(bucketManifest(m, 1), m);
}

TEST(BucketsTest, MergedSectionsAreTheOnesTheTensorsName) {
  // The largest bucket holds two constants of the same bytes: one section
  // is kept, and both tensors name it.
  std::vector<uint8_t> small = bucket(16, json::array(), {});
  std::vector<uint8_t> large = bucket(
      64, json::array(),
      {section("const0", {0, 0, 0, 0}), section("const1", {0, 0, 0, 0})});
  absl::StatusOr<Executable> exe =
      Executable::parse(*mergeBuckets({{16, small}, {64, large}}, kRecord));
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ(exe->sections().size(), 1u);
  for (const json &t : exe->manifest()["tensors"])
    if (t.contains("section"))
      EXPECT_NE(exe->section(t["section"].get<std::string>()), nullptr)
          << t.dump();
}

TEST(BucketsTest, MergeRefusesSizesThatDoNotIncrease) {
  std::vector<uint8_t> one = bucket(16, json::array(), {});
  EXPECT_FALSE(mergeBuckets({{16, one}, {16, one}}, kRecord).ok());
  EXPECT_FALSE(mergeBuckets({}, kRecord).ok());
}

TEST(BucketsTest, ChoosesTheSmallestBucketHoldingTheLength) {
  Buckets b;
  b.sizes = {128, 256, 2048};
  EXPECT_EQ(*b.choose(1), 0u);
  EXPECT_EQ(*b.choose(128), 0u);
  EXPECT_EQ(*b.choose(129), 1u);
  EXPECT_EQ(*b.choose(2048), 2u);
  absl::StatusOr<size_t> over = b.choose(2049);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(over.status().message().find(
                "length 2049 is beyond the largest bucket (buckets: 128, "
                "256, 2048)"),
            std::string::npos)
      << over.status();
  EXPECT_EQ(b.choose(0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BucketsTest, EveryMalformedRecordIsAnError) {
  std::vector<uint8_t> small = bucket(16, json::array(), {});
  std::vector<uint8_t> large = bucket(64, json::array(), {});
  json good = Executable::parse(*mergeBuckets({{16, small}, {64, large}},
                                              kRecord))
                  ->manifest();
  ASSERT_TRUE(readBuckets(good).ok());
  auto refused = [&](const std::function<void(json &)> &damage,
                     const std::string &expected) {
    json m = good;
    damage(m);
    absl::StatusOr<std::optional<Buckets>> read = readBuckets(m);
    EXPECT_FALSE(read.ok()) << expected;
    if (!read.ok())
      EXPECT_NE(std::string(read.status().message()).find(expected),
                std::string::npos)
          << read.status();
  };
  refused([](json &m) { m["buckets"] = 3; }, "buckets: expected an object");
  refused([](json &m) { m["buckets"]["sizes"] = {64, 16}; },
          "buckets.programs[0].size");
  refused([](json &m) { m["buckets"]["sizes"] = {16, 16}; },
          "buckets.sizes[1]: expected increasing sizes");
  refused([](json &m) { m["buckets"]["sizes"] = json::array(); },
          "buckets.sizes: expected a non-empty array");
  refused([](json &m) { m["buckets"]["programs"] = json::array(); },
          "buckets.programs: expected an array of 1 programs");
  refused([](json &m) { m["buckets"]["inputs"][0]["index"] = 5; },
          "buckets.inputs[0].index: expected an index below 2");
  refused([](json &m) { m["buckets"]["outputs"][0]["dim"] = 2; },
          "buckets.outputs[0].dim: expected a dimension of the tensor's 2");
  refused([](json &m) { m["buckets"]["inputs"][0] = "x"; },
          "buckets.inputs[0]: expected {\"index\": I, \"dim\": D}");
  refused([](json &m) { m["buckets"]["pad"] = "zero"; },
          "buckets.pad: expected a number");
  refused([](json &m) { m["buckets"]["length_input"] = 0; },
          "buckets.length_input: expected an i32 scalar input");
  refused([](json &m) { m["buckets"]["length_input"] = 7; },
          "buckets.length_input: expected an input index below 2");
  refused([](json &m) { m["tensors"] = 1; },
          "the inputs and outputs must name tensors");
  // Each bucket's own program, not only the top-level one.
  refused([](json &m) {
    m["buckets"]["programs"][0]["tensors"][0]["shape"] = {17, 4};
  }, "buckets.programs[0].inputs[0]: expected dimension 0 of size 16");
  refused([](json &m) {
    m["buckets"]["programs"][0]["inputs"].erase(1);
  }, "buckets.programs[0]: expected 2 inputs and 1 outputs");
  refused([](json &m) {
    m["buckets"]["programs"][0]["tensors"][1]["dtype"] = "f32";
  }, "buckets.programs[0].inputs: expected an i32 scalar length input");
  refused([](json &m) {
    m["buckets"]["programs"][0]["outputs"][0]["tensor"] = 99;
  }, "buckets.programs[0].outputs[0]");
  EXPECT_FALSE(*readBuckets(json::object()));
}

} // namespace
