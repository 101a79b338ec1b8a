//===- CapabilitiesTest.cpp - Tests for the capability tables -------------===//
//
// The built-in tables and what they say per generation, their agreement with
// the target descriptions, the error each kind of malformed table gets, and
// the coverage Markdown.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/Capabilities.h"

#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace neuron::rt;
using json = nlohmann::json;

namespace {

using Names = std::vector<std::string>;

CapabilityRegistry builtin() {
  absl::StatusOr<CapabilityRegistry> registry =
      CapabilityRegistry::loadBuiltin();
  EXPECT_TRUE(registry.ok()) << registry.status();
  return std::move(*registry);
}

/// The entry of `op` on `generation`; fails the test when there is none.
const OpCapability &entry(const CapabilityRegistry &registry,
                          std::string_view generation, std::string_view op) {
  static const OpCapability none;
  const CapabilityTable *table = registry.forGeneration(generation);
  const OpCapability *cap = table ? table->find(op) : nullptr;
  EXPECT_NE(cap, nullptr) << op << " on " << generation;
  return cap ? *cap : none;
}

/// The embedded table `fileName`, parsed so a test can break one field.
json builtinJson(std::string_view fileName) {
  for (const BuiltinTargetFile &f : builtinCapabilityFiles())
    if (f.fileName == fileName)
      return json::parse(f.text.begin(), f.text.end(), nullptr, false);
  ADD_FAILURE() << "no builtin " << fileName;
  return json();
}

/// The error of adding `doc` as "bad.json" to an empty registry.
std::string errorFor(const json &doc) {
  CapabilityRegistry registry;
  absl::Status status = registry.addFromText("bad.json", doc.dump());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  return std::string(status.message());
}

TEST(Capabilities, LoadsBuiltin) {
  CapabilityRegistry registry = builtin();
  EXPECT_EQ(registry.generations(), (Names{"inf2", "trn1", "trn2", "trn3"}));
  EXPECT_EQ(registry.forGeneration("trn9"), nullptr);
  for (const std::string &g : registry.generations()) {
    const CapabilityTable &t = *registry.forGeneration(g);
    EXPECT_EQ(t.fileName, g + ".json");
    for (const OpCapability &cap : t.ops) {
      EXPECT_FALSE(cap.dynamicDims) << cap.op << " on " << g;
      EXPECT_FALSE(cap.source.empty()) << cap.op << " on " << g;
    }
  }
}

TEST(Capabilities, LoadDirectoryMatchesBuiltin) {
  absl::StatusOr<CapabilityRegistry> registry =
      CapabilityRegistry::loadDirectory(NEURON_CAPABILITY_DATA_DIR);
  ASSERT_TRUE(registry.ok()) << registry.status();
  EXPECT_EQ(registry->generations(), builtin().generations());
  // The target loader does not descend into data/capabilities/.
  absl::StatusOr<TargetRegistry> targets =
      TargetRegistry::loadDirectory(NEURON_TARGET_DATA_DIR);
  EXPECT_TRUE(targets.ok()) << targets.status();
}

TEST(Capabilities, Int8MatmulOnTrn1ButNotTrn2) {
  CapabilityRegistry registry = builtin();
  const OpCapability &trn1 = entry(registry, "trn1", "neuron.matmul");
  EXPECT_TRUE(trn1.allowsDtype("i8"));
  EXPECT_TRUE(trn1.allowsResultDtype("i32"));
  const OpCapability &trn2 = entry(registry, "trn2", "neuron.matmul");
  EXPECT_FALSE(trn2.allowsDtype("i8"));
  EXPECT_FALSE(trn2.allowsResultDtype("i32"));
  EXPECT_TRUE(trn2.allowsDtype("f8E4M3FN"));
  EXPECT_FALSE(trn2.allowsResultDtype("f8E4M3FN"));
  EXPECT_EQ(trn2.engine, "tensor");
  EXPECT_EQ(trn2.maxRank, 2);
}

TEST(Capabilities, AgreeWithPublishedPeakRates) {
  // A tensor-engine op takes i8 (fp8) exactly where the chip description
  // publishes an INT8 (FP8) rate.
  absl::StatusOr<TargetRegistry> targets = TargetRegistry::loadBuiltin();
  ASSERT_TRUE(targets.ok()) << targets.status();
  CapabilityRegistry registry = builtin();
  for (const std::string &chipName : targets->chipNames()) {
    const ChipDesc &chip = *targets->findChip(chipName);
    ASSERT_NE(registry.forGeneration(chip.generation), nullptr) << chipName;
    for (const char *op :
         {"neuron.matmul", "neuron.batch_matmul", "neuron.conv2d"}) {
      const OpCapability &cap = entry(registry, chip.generation, op);
      EXPECT_EQ(cap.allowsDtype("i8"), chip.peak("int8") != nullptr)
          << op << " on " << chipName;
      EXPECT_EQ(cap.allowsDtype("f8E5M2"), chip.peak("fp8") != nullptr)
          << op << " on " << chipName;
    }
  }
}

TEST(Capabilities, GatherTakesI32IndicesOnly) {
  CapabilityRegistry registry = builtin();
  for (const std::string &g : registry.generations()) {
    const OpCapability &gather = entry(registry, g, "neuron.gather");
    EXPECT_EQ(gather.indexDtypes, (Names{"i32"})) << g;
    EXPECT_TRUE(gather.allowsIndexDtype("i32"));
    EXPECT_FALSE(gather.allowsIndexDtype("i64"));
    EXPECT_FALSE(gather.allowsDtype("i64"));
    EXPECT_TRUE(entry(registry, g, "neuron.reshape").allowsDtype("i64"));
    EXPECT_FALSE(entry(registry, g, "neuron.add").allowsDtype("i64"));
    EXPECT_FALSE(entry(registry, g, "neuron.add").allowsDtype("f8E4M3FN"));
  }
}

TEST(Capabilities, GenerationsWithOp) {
  CapabilityRegistry registry = builtin();
  Names all = {"inf2", "trn1", "trn2", "trn3"};
  EXPECT_EQ(registry.generationsWithOp("neuron.rms_norm"),
            (Names{"trn2", "trn3"}));
  EXPECT_EQ(registry.generationsWithOp("neuron.reduce_mean"), Names{});
  EXPECT_EQ(registry.generationsWithOp("neuron.pow"), Names{});
  EXPECT_EQ(registry.generationsWithOp("neuron.erf"),
            (Names{"trn1", "trn2", "trn3"}));
  EXPECT_EQ(registry.generationsWithOp("neuron.softmax"), all);
  EXPECT_EQ(registry.generationsWithOp("neuron.layer_norm"), all);
  EXPECT_EQ(registry.generationsWithOp("neuron.host_call"), all);
}

TEST(Capabilities, AttributeRules) {
  CapabilityRegistry registry = builtin();
  const OpCapability &conv = entry(registry, "trn2", "neuron.conv2d");
  ASSERT_NE(conv.rule("dilations"), nullptr);
  EXPECT_EQ(conv.rule("dilations")->max, 8);
  EXPECT_TRUE(conv.rule("dilations")->allowsValue(8));
  EXPECT_FALSE(conv.rule("dilations")->allowsValue(9));
  EXPECT_TRUE(conv.rule("layout")->allowsKeyword("nhwc_hwcf"));
  EXPECT_EQ(conv.rule("strides"), nullptr);
  EXPECT_FALSE(entry(registry, "inf2", "neuron.gelu")
                   .rule("approximate")
                   ->allowsKeyword("none"));
  EXPECT_TRUE(entry(registry, "trn1", "neuron.gelu")
                  .rule("approximate")
                  ->allowsKeyword("none"));
  const OpCapability &compare = entry(registry, "inf2", "neuron.compare");
  EXPECT_TRUE(compare.allowsResultDtype("i1"));
  EXPECT_FALSE(compare.allowsResultDtype("f32"));
}

TEST(CapabilityValidation, BadJson) {
  CapabilityRegistry registry;
  std::string msg(registry.addFromText("bad.json", "{\"ops\": [}").message());
  EXPECT_EQ(msg.rfind("bad.json: invalid JSON at byte 10", 0), 0u) << msg;
}

TEST(CapabilityValidation, WrongSchema) {
  json doc = builtinJson("trn2.json");
  doc["schema"] = "neuron-target/1";
  EXPECT_EQ(errorFor(doc), "bad.json: schema: expected "
                           "\"neuron-capabilities/1\", found a string "
                           "\"neuron-target/1\"");
}

TEST(CapabilityValidation, UnknownKey) {
  json doc = builtinJson("trn2.json");
  doc["ops"]["neuron.add"]["engin"] = "vector";
  std::string msg = errorFor(doc);
  EXPECT_EQ(msg.rfind("bad.json: ops[\"neuron.add\"].engin: unknown field", 0),
            0u)
      << msg;
}

TEST(CapabilityValidation, BadEngine) {
  json doc = builtinJson("trn2.json");
  doc["ops"]["neuron.add"]["engine"] = "npu";
  EXPECT_EQ(errorFor(doc),
            "bad.json: ops[\"neuron.add\"].engine: expected an engine (tensor, "
            "vector, scalar, gpsimd, dma, collective, host), found a string "
            "\"npu\"");
}

TEST(CapabilityValidation, BadDtypeName) {
  json doc = builtinJson("trn1.json");
  doc["ops"]["neuron.matmul"]["result_dtypes"][1] = "fp32";
  EXPECT_EQ(errorFor(doc),
            "bad.json: ops[\"neuron.matmul\"].result_dtypes[1]: expected an "
            "element type (f32, bf16, f16, f8E4M3FN, f8E5M2, i8, i32, i64, "
            "i1), found a string \"fp32\"");
  doc = builtinJson("trn1.json");
  doc["ops"]["neuron.add"]["dtypes"] = json::array();
  EXPECT_EQ(errorFor(doc),
            "bad.json: ops[\"neuron.add\"].dtypes: expected a non-empty array "
            "of strings, found an array of 0 elements");
}

TEST(CapabilityValidation, OpNameWithoutDialect) {
  json doc = builtinJson("trn2.json");
  doc["ops"]["matmul"] = doc["ops"]["neuron.matmul"];
  EXPECT_EQ(errorFor(doc), "bad.json: ops.matmul: expected an op name "
                           "\"neuron.OP\", found a string \"matmul\"");
}

TEST(CapabilityValidation, DuplicateGeneration) {
  json doc = builtinJson("trn2.json");
  CapabilityRegistry registry;
  ASSERT_TRUE(registry.addFromText("a.json", doc.dump()).ok());
  EXPECT_EQ(std::string(registry.addFromText("b.json", doc.dump()).message()),
            "b.json: generation: duplicate generation \"trn2\" (already "
            "defined in a.json)");
  EXPECT_EQ(registry.generations(), (Names{"trn2"}));
}

TEST(CapabilityValidation, BadAttributeRules) {
  json doc = builtinJson("trn2.json");
  json &attrs = doc["ops"]["neuron.conv2d"]["attributes"];
  attrs["dilations"]["max"] = -1;
  EXPECT_EQ(errorFor(doc),
            "bad.json: ops[\"neuron.conv2d\"].attributes.dilations.max: "
            "expected a non-negative integer, found a number -1");
  attrs["dilations"]["max"] = 8;
  attrs["layout"]["one_of"] = json::array();
  EXPECT_EQ(errorFor(doc),
            "bad.json: ops[\"neuron.conv2d\"].attributes.layout.one_of: "
            "expected a non-empty array of strings, found an array of 0 "
            "elements");
  attrs["layout"] = json::object();
  EXPECT_EQ(errorFor(doc),
            "bad.json: ops[\"neuron.conv2d\"].attributes.layout: expected an "
            "object {max, one_of} with at least one of them, found neither");
}

TEST(CapabilityValidation, NegativeMaxRank) {
  json doc = builtinJson("inf2.json");
  doc["ops"]["neuron.add"]["max_rank"] = -2;
  EXPECT_EQ(errorFor(doc), "bad.json: ops[\"neuron.add\"].max_rank: expected "
                           "a non-negative integer, found a number -2");
}

TEST(CapabilityValidation, LoadDirectoryReportsFile) {
  std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / "neuron-capability-test";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  json doc = builtinJson("inf2.json");
  doc["ops"]["neuron.gather"]["index_dtypes"] = {"index"};
  std::ofstream(dir / "broken.json") << doc.dump();
  absl::StatusOr<CapabilityRegistry> registry =
      CapabilityRegistry::loadDirectory(dir.string());
  ASSERT_FALSE(registry.ok());
  std::string msg(registry.status().message());
  EXPECT_NE(msg.find("broken.json: ops[\"neuron.gather\"].index_dtypes[0]: "
                     "expected an element type"),
            std::string::npos)
      << msg;
  std::filesystem::remove_all(dir, ec);
}

TEST(CapabilityMarkdown, RowsAndUnsupportedOps) {
  CapabilityRegistry registry = builtin();
  Names allOps = {"neuron.matmul", "neuron.gelu", "neuron.erf",
                  "neuron.reduce_mean"};
  std::string md =
      formatCapabilityMarkdown(*registry.forGeneration("inf2"), allOps);
  EXPECT_EQ(md.rfind("# Operator coverage: inf2\n", 0), 0u) << md;
  EXPECT_NE(md.find("| op | engine | dtypes | result dtypes | index dtypes | "
                    "max rank | dynamic dims | attribute limits | note |"),
            std::string::npos);
  EXPECT_NE(md.find("| `neuron.matmul` | tensor | f32, bf16, f16, f8E4M3FN, "
                    "f8E5M2, i8 | f32, bf16, f16, i32 | - | 2 | no | - | "),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| approximate one of tanh |"), std::string::npos) << md;
  size_t unsupported = md.find("## Not supported on inf2");
  ASSERT_NE(unsupported, std::string::npos) << md;
  EXPECT_NE(md.find("- `neuron.reduce_mean`\n", unsupported),
            std::string::npos);
  EXPECT_NE(md.find("- `neuron.erf`\n", unsupported), std::string::npos);
  EXPECT_EQ(md.find("- `neuron.matmul`", unsupported), std::string::npos);
  // Ops of the table missing from the list still get a row, after the rest.
  EXPECT_NE(md.find("| `neuron.add` |"), std::string::npos);
}

} // namespace
