//===- TargetTest.cpp - Tests for the target descriptions -----------------===//
//
// Built-in descriptions, spec resolution, the --print-target report, unit
// conversions, and the error each kind of malformed file gets.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/Target.h"

#include "gtest/gtest.h"
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace neuron::rt;
using json = nlohmann::json;

namespace {

/// The built-in registry; keep it alive while using targets resolved by it.
TargetRegistry builtin() {
  absl::StatusOr<TargetRegistry> registry = TargetRegistry::loadBuiltin();
  EXPECT_TRUE(registry.ok()) << registry.status();
  return std::move(*registry);
}

std::string messageOf(const absl::Status &status) {
  return std::string(status.message());
}

/// The embedded text of `fileName`, parsed so a test can break one field.
json builtinJson(std::string_view fileName) {
  for (const BuiltinTargetFile &f : builtinTargetFiles())
    if (f.fileName == fileName)
      return json::parse(f.text.begin(), f.text.end(), nullptr, false);
  ADD_FAILURE() << "no builtin " << fileName;
  return json();
}

/// The error of adding `doc` as "bad.json" to an empty registry.
std::string errorFor(const json &doc) {
  TargetRegistry registry;
  absl::Status status = registry.addFromText("bad.json", doc.dump());
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  return messageOf(status);
}

TEST(TargetRegistry, LoadsBuiltin) {
  TargetRegistry registry = builtin();
  EXPECT_EQ(registry.chipNames(),
            (std::vector<std::string>{"inferentia2", "trainium", "trainium2",
                                      "trainium3"}));
  EXPECT_EQ(registry.instanceNames().size(), 11u);
}

TEST(TargetRegistry, LoadDirectoryMatchesBuiltin) {
  absl::StatusOr<TargetRegistry> registry =
      TargetRegistry::loadDirectory(NEURON_TARGET_DATA_DIR);
  ASSERT_TRUE(registry.ok()) << registry.status();
  EXPECT_EQ(registry->instanceNames(), builtin().instanceNames());
  EXPECT_FALSE(TargetRegistry::loadDirectory("/nonexistent/dir").ok());
}

TEST(TargetRegistry, Trn2InstanceLncModes) {
  TargetRegistry registry = builtin();
  absl::StatusOr<ResolvedTarget> t = registry.resolve("trn2.48xlarge");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->chip->name, "trainium2");
  EXPECT_EQ(t->chips(), 16);
  EXPECT_EQ(t->physicalCoresPerChip(), 8);
  EXPECT_EQ(t->lnc.lnc, 2);
  EXPECT_TRUE(t->lnc.isDefault);
  EXPECT_EQ(t->logicalCoresPerChip(), 4);
  EXPECT_EQ(t->logicalCoresPerInstance(), 64);
  EXPECT_EQ(t->physicalCoresPerInstance(), 128);
  EXPECT_EQ(toBytes(t->instance->deviceMemory).value(), 1536.0 * (1 << 30));
  EXPECT_EQ(t->spec(), "trn2.48xlarge,lnc=2");

  absl::StatusOr<ResolvedTarget> one = registry.resolve("trn2.48xlarge,lnc=1");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->logicalCoresPerChip(), 8);
  EXPECT_EQ(one->logicalCoresPerInstance(), 128);
}

TEST(TargetRegistry, DerivedSizes) {
  TargetRegistry registry = builtin();
  absl::StatusOr<ResolvedTarget> t = registry.resolve("trn2");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->instance, nullptr);
  EXPECT_EQ(t->chips(), 1);
  EXPECT_EQ(t->sbufPartitions(), 128);
  EXPECT_EQ(t->sbufBytesPerPartition(), 224 * 1024);
  EXPECT_EQ(t->sbufBytesPerLogicalCore(), 2 * 28 * 1024 * 1024);
  EXPECT_EQ(t->psumBytesPerPartition(), 16 * 1024);
  EXPECT_EQ(t->psumBanks(), 8);
  EXPECT_EQ(t->psumBankBytes(), 2048);
  EXPECT_EQ(t->dmaPeakBytesPerPartition(), 2 * 1024);
  EXPECT_EQ(t->dmaDescriptorOverheadBytes(), 224);
  ASSERT_TRUE(t->chip->dmaTransposeBandwidth.has_value());
  EXPECT_DOUBLE_EQ(t->chip->dmaTransposeBandwidth->value, 20.7);
  EXPECT_DOUBLE_EQ(t->peakOpsPerPhysicalCore("bf16").value(), 79e12);
  EXPECT_FALSE(t->peakOpsPerPhysicalCore("int8").has_value());
  EXPECT_DOUBLE_EQ(t->dmaBytesPerSecondPerPhysicalCore(), 16 * 23e9);
}

TEST(TargetRegistry, Inf2Instance) {
  TargetRegistry registry = builtin();
  absl::StatusOr<ResolvedTarget> t = registry.resolve("inf2.48xlarge");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->chips(), 12);
  EXPECT_EQ(t->instance->deviceMemory.value, 384);
  EXPECT_EQ(t->instance->deviceMemory.unit, "GiB");
  EXPECT_EQ(t->lnc.lnc, 1);
}

TEST(TargetRegistry, Trn1RejectsLnc2) {
  TargetRegistry registry = builtin();
  absl::StatusOr<ResolvedTarget> t = registry.resolve("trn1,lnc=2");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(messageOf(t.status()),
            "target 'trn1': generation trn1 (trainium) does not offer lnc=2; "
            "it offers lnc=1 (default)");
}

TEST(TargetRegistry, UnknownTargetListsKnownNames) {
  TargetRegistry registry = builtin();
  absl::StatusOr<ResolvedTarget> t = registry.resolve("trn4");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  std::string msg = messageOf(t.status());
  for (const char *name : {"'trn4'", "trainium2 (trn2)", "inferentia2 (inf2)",
                           "trainium3 (trn3)", "trn1.32xlarge", "inf2.xlarge",
                           "trn2u.48xlarge", "trn3-gen2-ultraserver"})
    EXPECT_NE(msg.find(name), std::string::npos) << name << " in " << msg;
}

TEST(TargetRegistry, MalformedSpecs) {
  TargetRegistry registry = builtin();
  EXPECT_NE(messageOf(registry.resolve("trn2,lnc=x").status())
                .find("lnc must be a positive integer, found 'x'"),
            std::string::npos);
  EXPECT_NE(messageOf(registry.resolve("trn2,lnc=0").status())
                .find("positive integer"),
            std::string::npos);
  EXPECT_NE(messageOf(registry.resolve("trn2,cores=2").status())
                .find("unknown option 'cores'"),
            std::string::npos);
  EXPECT_NE(messageOf(registry.resolve(",lnc=2").status()).find("no name"),
            std::string::npos);
  EXPECT_NE(messageOf(registry.resolve("trn2,lnc=1,lnc=2").status())
                .find("lnc given twice"),
            std::string::npos);
}

TEST(TargetReport, Trn2Instance) {
  TargetRegistry registry = builtin();
  absl::StatusOr<ResolvedTarget> t = registry.resolve("trn2.48xlarge,lnc=2");
  ASSERT_TRUE(t.ok()) << t.status();
  std::string report = formatTargetReport(*t);
  for (const char *text :
       {"per physical core", "per logical core (lnc=2: 2 physical cores)",
        "per chip (8 physical cores)", "per instance (16 chips)", "| 96 GiB [",
        "| 1536 GiB [", "| 2.9 TB/s [", "4 logical cores", "64 logical cores",
        "instance trn2.48xlarge: 16 chips", "192 vCPUs", "2048 GiB host memory",
        "lnc=2: ", "sources:"})
    EXPECT_NE(report.find(text), std::string::npos) << text << "\n" << report;
}

TEST(TargetReport, ChipOnlyAndSourceLabels) {
  TargetRegistry registry = builtin();
  absl::StatusOr<ResolvedTarget> t = registry.resolve("inferentia2");
  ASSERT_TRUE(t.ok()) << t.status();
  std::string report = formatTargetReport(*t);
  EXPECT_NE(report.find("per instance: (name an instance, e.g. inf2.xlarge)"),
            std::string::npos);
  EXPECT_EQ(report.find("per instance ("), std::string::npos);
  EXPECT_NE(report.find("0.88 TB/s (820 GiB/s)"), std::string::npos) << report;
}

TEST(Units, Conversions) {
  EXPECT_NEAR(toBytesPerSecond({820, "GiB/s", "", ""}).value() / 1e9,
              880.468295, 1e-6);
  EXPECT_EQ(toBytesPerSecond({2.9, "TB/s", "", ""}).value(), 2.9e12);
  EXPECT_EQ(toBytesPerSecond({23, "B/ns", "", ""}).value(), 23e9);
  EXPECT_EQ(toBytes({192, "KiB", "", ""}).value(), 192 * 1024);
  EXPECT_EQ(toBytes({96, "GiB", "", ""}).value(), 96.0 * (1 << 30));
  EXPECT_EQ(toHertz({1.4, "GHz", "", ""}).value(), 1.4e9);
  EXPECT_EQ(toOpsPerSecond({380, "TOPS", "", ""}).value(), 380e12);
  EXPECT_FALSE(toBytes({1, "TB/s", "", ""}).ok());
}

TEST(Validation, BadJsonNamesByteOffset) {
  TargetRegistry registry;
  std::string msg =
      messageOf(registry.addFromText("bad.json", "{\"schema\": nope}"));
  EXPECT_NE(msg.find("bad.json: invalid JSON at byte 13"), std::string::npos)
      << msg;
}

TEST(Validation, MissingField) {
  json doc = builtinJson("trn2.json");
  doc["chip"].erase("hbm_capacity");
  EXPECT_EQ(errorFor(doc),
            "bad.json: chip.hbm_capacity: expected an object {value, unit, "
            "source}, found nothing (the field is missing)");
}

/// Checks that trn2's chip.dma.`field` is required (its absence is the
/// missing-field error) and that a `wrongUnit` for it is an error naming
/// its unit.
void expectRequiredDmaFigure(const std::string &field,
                             const std::string &wrongUnit) {
  json doc = builtinJson("trn2.json");
  doc["chip"]["dma"].erase(field);
  EXPECT_EQ(errorFor(doc), "bad.json: chip.dma." + field +
                               ": expected an object {value, unit, source}, "
                               "found nothing (the field is missing)");
  doc = builtinJson("trn2.json");
  doc["chip"]["dma"][field]["unit"] = wrongUnit;
  EXPECT_NE(errorFor(doc).find("chip.dma." + field + ".unit"),
            std::string::npos)
      << errorFor(doc);
}

TEST(Validation, DmaPeakBytesAreACapacity) {
  expectRequiredDmaFigure("peak_bytes_per_partition", "GB/s");
}

// The descriptor overhead is required and a capacity; the DMA transpose
// bandwidth is optional (trn1 has none) and a bandwidth.
TEST(Validation, DmaDescriptorAndTransposeFigures) {
  expectRequiredDmaFigure("descriptor_overhead", "GB/s");
  json doc = builtinJson("trn2.json");
  doc["chip"]["dma"]["transpose_bandwidth"]["unit"] = "KiB";
  EXPECT_NE(errorFor(doc).find("chip.dma.transpose_bandwidth.unit"),
            std::string::npos)
      << errorFor(doc);
  doc = builtinJson("trn2.json");
  doc["chip"]["dma"].erase("transpose_bandwidth");
  TargetRegistry registry;
  EXPECT_TRUE(registry.addFromText("ok.json", doc.dump()).ok());
}

// The FP8 peak's rows per partition are optional (trn1 has no double-row
// mode), a count, and 1 or 2.
TEST(Validation, Fp8PeakRows) {
  json doc = builtinJson("trn2.json");
  doc["chip"]["engines"]["tensor"]["fp8_peak_rows"]["value"] = 3;
  EXPECT_EQ(errorFor(doc), "bad.json: chip.engines.tensor.fp8_peak_rows: "
                           "expected 1 or 2 (the double-row mode), found 3");
  doc = builtinJson("trn2.json");
  doc["chip"]["engines"]["tensor"]["fp8_peak_rows"]["unit"] = "GHz";
  EXPECT_NE(errorFor(doc).find("chip.engines.tensor.fp8_peak_rows.unit"),
            std::string::npos)
      << errorFor(doc);
  doc = builtinJson("trn2.json");
  doc["chip"]["engines"]["tensor"].erase("fp8_peak_rows");
  TargetRegistry registry;
  EXPECT_TRUE(registry.addFromText("ok.json", doc.dump()).ok());
}

// The FP32 transpose speedup is optional (NeuronCore-v2 has no transpose
// mode), a ratio ("x"), and at least 1.
TEST(Validation, Fp32TransposeSpeedup) {
  json doc = builtinJson("trn2.json");
  doc["chip"]["engines"]["tensor"]["fp32_transpose_speedup"]["value"] = 0.5;
  EXPECT_EQ(errorFor(doc),
            "bad.json: chip.engines.tensor.fp32_transpose_speedup: expected a "
            "ratio of at least 1, found 0.5");
  doc = builtinJson("trn2.json");
  doc["chip"]["engines"]["tensor"]["fp32_transpose_speedup"]["unit"] = "count";
  EXPECT_EQ(errorFor(doc),
            "bad.json: chip.engines.tensor.fp32_transpose_speedup.unit: "
            "expected a ratio unit (x), found a string \"count\"");
  doc = builtinJson("trn2.json");
  doc["chip"]["engines"]["tensor"].erase("fp32_transpose_speedup");
  TargetRegistry registry;
  EXPECT_TRUE(registry.addFromText("ok.json", doc.dump()).ok());
}

TEST(Validation, WrongType) {
  json doc = builtinJson("trn2.json");
  doc["chip"]["hbm_capacity"] = "96";
  EXPECT_EQ(errorFor(doc), "bad.json: chip.hbm_capacity: expected an object "
                           "{value, unit, source}, found a string \"96\"");
}

TEST(Validation, WrongUnit) {
  json doc = builtinJson("trn2.json");
  doc["chip"]["hbm_capacity"]["unit"] = "TB/s";
  EXPECT_EQ(errorFor(doc),
            "bad.json: chip.hbm_capacity.unit: expected a capacity unit "
            "(bytes, KiB, MiB, GiB), found a string \"TB/s\"");
}

TEST(Validation, NonPositiveInstanceChips) {
  json doc = builtinJson("inf2.json");
  doc["instances"][3]["chips"]["value"] = 0;
  EXPECT_EQ(errorFor(doc), "bad.json: instances[3].chips.value: expected a "
                           "positive number, found a number 0");
}

TEST(Validation, CountBeyondItsRange) {
  // A fuzzed description once gave 1.4e29 vCPUs, which the report cast to
  // an int.
  json doc = builtinJson("trn2.json");
  doc["instances"][0]["vcpus"]["value"] = 1.44e29;
  EXPECT_EQ(errorFor(doc), "bad.json: instances[0].vcpus.value: expected a "
                           "whole number up to 65536 (the unit is \"count\"), "
                           "found a number 1.44e+29");
}

TEST(Validation, InconsistentTotals) {
  json doc = builtinJson("trn2.json");
  doc["instances"][0]["device_memory"]["value"] = 96;
  EXPECT_EQ(errorFor(doc),
            "bad.json: instances[0].device_memory: expected "
            "chips x chip.hbm_capacity = 1536 GiB, found 96 GiB");
}

TEST(Validation, TwoDefaultLncModes) {
  json doc = builtinJson("trn2.json");
  doc["chip"]["lnc"]["modes"][0]["default"] = true;
  EXPECT_EQ(errorFor(doc), "bad.json: chip.lnc.modes: expected exactly one "
                           "mode with \"default\": true, found 2");
}

TEST(Validation, UnknownField) {
  json doc = builtinJson("trn1.json");
  doc["chip"]["hbm_capacty"] = 1;
  std::string msg = errorFor(doc);
  EXPECT_EQ(msg.rfind("bad.json: chip.hbm_capacty: unknown field", 0), 0u)
      << msg;
}

TEST(Validation, DuplicateName) {
  json doc = builtinJson("trn1.json");
  TargetRegistry registry;
  ASSERT_TRUE(registry.addFromText("a.json", doc.dump()).ok());
  EXPECT_EQ(messageOf(registry.addFromText("b.json", doc.dump())),
            "b.json: chip.name: duplicate name \"trainium\" (already defined "
            "in a.json)");
  // A failed add leaves the registry as it was.
  EXPECT_EQ(registry.chipNames().size(), 1u);

  json other = builtinJson("inf2.json");
  other["instances"][1]["name"] = "trn1.2xlarge";
  EXPECT_EQ(messageOf(registry.addFromText("c.json", other.dump())),
            "c.json: instances[1].name: duplicate name \"trn1.2xlarge\" "
            "(already defined in a.json)");
}

TEST(Validation, LoadDirectoryReportsFile) {
  std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) / "neuron-target-test";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  json doc = builtinJson("trn1.json");
  doc["chip"]["neuron_cores"]["value"] = 2.5;
  std::ofstream(dir / "broken.json") << doc.dump();
  absl::StatusOr<TargetRegistry> registry =
      TargetRegistry::loadDirectory(dir.string());
  ASSERT_FALSE(registry.ok());
  EXPECT_NE(messageOf(registry.status())
                .find("broken.json: chip.neuron_cores.value: expected a whole "
                      "number"),
            std::string::npos)
      << registry.status();
  std::filesystem::remove_all(dir, ec);
}

} // namespace
