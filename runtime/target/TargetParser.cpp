//===- TargetParser.cpp - Read and validate target description files ------===//
//
// Reads data/*.json without exceptions: every value's type is checked before
// it is read, and every error names the file, the JSON path of the field,
// what was expected and what was found.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/JsonReader.h"

#include "absl/strings/str_format.h"

#include <cmath>
#include <set>

namespace neuron::rt {

static constexpr std::string_view kSchema = "neuron-target/1";
static constexpr std::string_view kFigureShape =
    "an object {value, unit, source}";

static std::string_view quantityName(Quantity q) {
  constexpr std::string_view names[] = {"count",     "ratio", "capacity",
                                        "bandwidth", "clock", "throughput"};
  return names[static_cast<int>(q)];
}

static absl::Status readFigure(ObjectReader &parent, std::string_view key,
                               const json &v, Quantity q, Figure &out) {
  if (!v.is_object())
    return parent.error(key, kFigureShape, describeJson(v));
  ObjectReader r = parent.child(key, v);
  NEURON_ASSIGN_OR_RETURN(value, r.field("value", "a positive number"));
  if (!value->is_number() || !(value->get<double>() > 0) ||
      !std::isfinite(value->get<double>()))
    return r.error("value", "a positive number", describeJson(*value));
  out.value = value->get<double>();
  // Counts (cores, engines, chips, vCPUs) are whole and at most 65536, so
  // their products stay far inside the integers that hold them.
  if (q == Quantity::Count &&
      (out.value != std::floor(out.value) || out.value > 65536))
    return r.error("value",
                   "a whole number up to 65536 (the unit is \"count\")",
                   describeJson(*value));
  NEURON_RETURN_IF_ERROR(r.string("unit", out.unit));
  if (!unitScale(q, out.unit))
    return r.error(
        "unit",
        absl::StrFormat("a %s unit (%s)", quantityName(q), allowedUnits(q)),
        absl::StrFormat("a string \"%s\"", out.unit));
  NEURON_RETURN_IF_ERROR(r.string("source", out.source));
  NEURON_RETURN_IF_ERROR(r.string("note", out.note, /*required=*/false));
  return r.finish();
}

namespace {
/// A required figure field and where it goes.
struct FigureField {
  const char *key;
  Quantity quantity;
  Figure *out;
};
} // namespace

/// Reads the required figures `fields` of `r`.
static absl::Status figures(ObjectReader &r,
                            std::initializer_list<FigureField> fields) {
  for (const FigureField &f : fields) {
    NEURON_ASSIGN_OR_RETURN(v, r.field(f.key, kFigureShape));
    NEURON_RETURN_IF_ERROR(readFigure(r, f.key, *v, f.quantity, *f.out));
  }
  return absl::OkStatus();
}

/// Reads the figure at `key` of `r` when it is present.
static absl::Status optFigure(ObjectReader &r, std::string_view key, Quantity q,
                              std::optional<Figure> &out) {
  NEURON_ASSIGN_OR_RETURN(v, r.field(key, kFigureShape, false));
  if (!v)
    return absl::OkStatus();
  out.emplace();
  return readFigure(r, key, *v, q, *out);
}

/// Checks that a published total agrees with the product of its parts, within
/// 1% since published figures are rounded (46.4 TB/s = 16 x 2.9 TB/s).
static absl::Status checkTotal(const ObjectReader &r, std::string_view key,
                               const Figure &total, Quantity q, double expected,
                               std::string_view formula) {
  if (std::fabs(canonicalValue(total, q) - expected) <= 0.01 * expected)
    return absl::OkStatus();
  double scale = unitScale(q, total.unit).value_or(1);
  return r.error(
      key,
      absl::StrFormat("%s = %s %s", formula, formatNumber(expected / scale),
                      total.unit),
      absl::StrFormat("%s %s", formatNumber(total.value), total.unit));
}

static absl::Status parseEngines(ObjectReader &chip, ChipDesc &c) {
  NEURON_ASSIGN_OR_RETURN(engines, chip.object("engines"));
  std::pair<const char *, EngineDesc *> all[] = {{"tensor", &c.tensor},
                                                 {"vector", &c.vector},
                                                 {"scalar", &c.scalar},
                                                 {"gpsimd", &c.gpsimd}};
  for (auto &[key, engine] : all) {
    NEURON_ASSIGN_OR_RETURN(e, engines.object(key, "an object {clock}"));
    NEURON_RETURN_IF_ERROR(
        figures(e, {{"clock", Quantity::Clock, &engine->clock}}));
    NEURON_RETURN_IF_ERROR(
        optFigure(e, "peak_fp32", Quantity::Throughput, engine->peakFp32));
    if (engine == &c.tensor) {
      NEURON_RETURN_IF_ERROR(optFigure(e, "fp8_peak_rows", Quantity::Count,
                                       engine->fp8PeakRows));
      if (engine->fp8PeakRows && engine->fp8PeakRows->value != 1 &&
          engine->fp8PeakRows->value != 2)
        return e.error("fp8_peak_rows", "1 or 2 (the double-row mode)",
                       formatNumber(engine->fp8PeakRows->value));
      NEURON_RETURN_IF_ERROR(optFigure(e, "fp32_transpose_speedup",
                                       Quantity::Ratio,
                                       engine->fp32TransposeSpeedup));
      if (engine->fp32TransposeSpeedup &&
          !(engine->fp32TransposeSpeedup->value >= 1))
        return e.error("fp32_transpose_speedup", "a ratio of at least 1",
                       formatNumber(engine->fp32TransposeSpeedup->value));
    }
    NEURON_RETURN_IF_ERROR(e.finish());
  }
  return engines.finish();
}

static absl::Status parseDma(ObjectReader &chip, ChipDesc &c) {
  NEURON_ASSIGN_OR_RETURN(d, chip.object("dma"));
  NEURON_RETURN_IF_ERROR(figures(
      d, {{"engines_per_core", Quantity::Count, &c.dmaEnginesPerCore},
          {"engine_bandwidth", Quantity::Bandwidth, &c.dmaEngineBandwidth},
          {"peak_bytes_per_partition", Quantity::Capacity,
           &c.dmaPeakBytesPerPartition},
          {"descriptor_overhead", Quantity::Capacity,
           &c.dmaDescriptorOverhead},
          {"chip_bandwidth", Quantity::Bandwidth, &c.dmaChipBandwidth}}));
  NEURON_RETURN_IF_ERROR(
      optFigure(d, "engines_per_chip", Quantity::Count, c.dmaEnginesPerChip));
  NEURON_RETURN_IF_ERROR(optFigure(d, "transpose_bandwidth",
                                   Quantity::Bandwidth,
                                   c.dmaTransposeBandwidth));
  if (c.dmaEnginesPerChip)
    NEURON_RETURN_IF_ERROR(
        checkTotal(d, "engines_per_chip", *c.dmaEnginesPerChip, Quantity::Count,
                   c.dmaEnginesPerCore.value * c.physicalCores(),
                   "engines_per_core x chip.neuron_cores"));
  return d.finish();
}

static absl::Status parseOnChipMemories(ObjectReader &chip, ChipDesc &c) {
  const Quantity cap = Quantity::Capacity;
  NEURON_ASSIGN_OR_RETURN(s, chip.object("sbuf"));
  NEURON_RETURN_IF_ERROR(
      figures(s, {{"partitions", Quantity::Count, &c.sbufPartitions},
                  {"bytes_per_partition", cap, &c.sbufBytesPerPartition},
                  {"per_core", cap, &c.sbufPerCore},
                  {"per_chip", cap, &c.sbufPerChip}}));
  NEURON_RETURN_IF_ERROR(checkTotal(
      s, "per_core", c.sbufPerCore, cap,
      c.sbufPartitions.value * canonicalValue(c.sbufBytesPerPartition, cap),
      "partitions x bytes_per_partition"));
  NEURON_RETURN_IF_ERROR(
      checkTotal(s, "per_chip", c.sbufPerChip, cap,
                 canonicalValue(c.sbufPerCore, cap) * c.physicalCores(),
                 "per_core x chip.neuron_cores"));
  NEURON_RETURN_IF_ERROR(s.finish());

  NEURON_ASSIGN_OR_RETURN(p, chip.object("psum"));
  NEURON_RETURN_IF_ERROR(
      figures(p, {{"partitions", Quantity::Count, &c.psumPartitions},
                  {"bytes_per_partition", cap, &c.psumBytesPerPartition},
                  {"banks", Quantity::Count, &c.psumBanks},
                  {"bank_bytes", cap, &c.psumBankBytes},
                  {"per_core", cap, &c.psumPerCore}}));
  NEURON_RETURN_IF_ERROR(
      checkTotal(p, "bytes_per_partition", c.psumBytesPerPartition, cap,
                 c.psumBanks.value * canonicalValue(c.psumBankBytes, cap),
                 "banks x bank_bytes"));
  NEURON_RETURN_IF_ERROR(checkTotal(
      p, "per_core", c.psumPerCore, cap,
      c.psumPartitions.value * canonicalValue(c.psumBytesPerPartition, cap),
      "partitions x bytes_per_partition"));
  return p.finish();
}

static absl::Status parsePeak(ObjectReader &chip, ChipDesc &c) {
  NEURON_ASSIGN_OR_RETURN(p, chip.object("peak", "an object {basis, rates}"));
  std::string basis;
  NEURON_RETURN_IF_ERROR(p.string("basis", basis));
  if (basis != "per_core" && basis != "per_chip")
    return p.error("basis", "\"per_core\" or \"per_chip\"",
                   absl::StrFormat("\"%s\"", basis));
  c.peakBasis = basis == "per_core" ? PeakBasis::PerCore : PeakBasis::PerChip;
  NEURON_ASSIGN_OR_RETURN(rates, p.object("rates"));
  static const std::set<std::string> kDtypes = {"fp32", "bf16", "fp16", "fp8",
                                                "int8"};
  for (const std::string &dtype : rates.keys()) {
    if (!kDtypes.count(dtype))
      return rates.error(dtype, "a dtype key (fp32, bf16, fp16, fp8, int8)",
                         absl::StrFormat("\"%s\"", dtype));
    NEURON_ASSIGN_OR_RETURN(
        r, rates.object(dtype, "an object {per_chip, per_core}"));
    PeakRate rate{dtype, std::nullopt, std::nullopt};
    NEURON_RETURN_IF_ERROR(
        optFigure(r, "per_chip", Quantity::Throughput, rate.perChip));
    NEURON_RETURN_IF_ERROR(
        optFigure(r, "per_core", Quantity::Throughput, rate.perCore));
    if (!rate.perChip && !rate.perCore)
      return rates.error(dtype, "a per_chip or per_core figure", "neither");
    NEURON_RETURN_IF_ERROR(r.finish());
    c.peaks.push_back(std::move(rate));
  }
  NEURON_RETURN_IF_ERROR(rates.finish());
  return p.finish();
}

static absl::Status parseLnc(ObjectReader &chip, ChipDesc &c) {
  NEURON_ASSIGN_OR_RETURN(l, chip.object("lnc", "an object {source, modes}"));
  NEURON_RETURN_IF_ERROR(l.string("source", c.lncSource));
  NEURON_ASSIGN_OR_RETURN(
      modes, l.objectArray("modes", "an object {lnc, "
                                    "physical_cores_per_logical_core, "
                                    "default, definition}"));
  int defaults = 0;
  for (ObjectReader &r : modes) {
    LncMode mode;
    NEURON_RETURN_IF_ERROR(r.positiveInt("lnc", mode.lnc));
    NEURON_RETURN_IF_ERROR(r.positiveInt("physical_cores_per_logical_core",
                                         mode.physicalCoresPerLogicalCore));
    NEURON_RETURN_IF_ERROR(r.boolean("default", mode.isDefault));
    NEURON_RETURN_IF_ERROR(r.string("definition", mode.definition));
    NEURON_RETURN_IF_ERROR(r.finish());
    if (c.physicalCores() % mode.physicalCoresPerLogicalCore != 0)
      return r.error("physical_cores_per_logical_core",
                     absl::StrFormat("a divisor of chip.neuron_cores (%d)",
                                     c.physicalCores()),
                     absl::StrFormat("%d", mode.physicalCoresPerLogicalCore));
    if (c.findLnc(mode.lnc))
      return r.error("lnc", "a value no earlier mode uses",
                     absl::StrFormat("a second lnc=%d", mode.lnc));
    defaults += mode.isDefault;
    c.lncModes.push_back(std::move(mode));
  }
  if (defaults != 1)
    return l.error("modes", "exactly one mode with \"default\": true",
                   absl::StrFormat("%d", defaults));
  return l.finish();
}

static absl::Status parseChip(ObjectReader &r, ChipDesc &c) {
  const Quantity cap = Quantity::Capacity, bw = Quantity::Bandwidth;
  NEURON_RETURN_IF_ERROR(r.string("name", c.name));
  NEURON_RETURN_IF_ERROR(r.stringList("aliases", c.aliases));
  NEURON_RETURN_IF_ERROR(r.string("generation", c.generation));
  NEURON_RETURN_IF_ERROR(r.string("core_version", c.coreVersion));
  NEURON_RETURN_IF_ERROR(
      figures(r, {{"neuron_cores", Quantity::Count, &c.neuronCores},
                  {"hbm_capacity", cap, &c.hbmCapacity},
                  {"hbm_bandwidth", bw, &c.hbmBandwidth},
                  {"collective_cores", Quantity::Count, &c.collectiveCores},
                  {"host_link", bw, &c.hostLink}}));
  NEURON_RETURN_IF_ERROR(
      optFigure(r, "hbm_stacks", Quantity::Count, c.hbmStacks));
  NEURON_RETURN_IF_ERROR(r.string("hbm_sharing", c.hbmSharing, false));
  NEURON_RETURN_IF_ERROR(parseEngines(r, c));
  NEURON_RETURN_IF_ERROR(parseDma(r, c));
  NEURON_RETURN_IF_ERROR(parseOnChipMemories(r, c));
  NEURON_RETURN_IF_ERROR(parsePeak(r, c));
  NEURON_ASSIGN_OR_RETURN(link, r.object("neuronlink"));
  NEURON_RETURN_IF_ERROR(link.string("version", c.neuronLinkVersion));
  NEURON_RETURN_IF_ERROR(
      figures(link, {{"links", Quantity::Count, &c.neuronLinkLinks},
                     {"bandwidth_per_chip", bw, &c.neuronLinkBandwidth}}));
  NEURON_RETURN_IF_ERROR(link.finish());
  NEURON_RETURN_IF_ERROR(parseLnc(r, c));
  return r.finish();
}

static absl::Status parseInstance(ObjectReader &r, InstanceDesc &inst) {
  const ChipDesc &c = *inst.chip;
  const Quantity cap = Quantity::Capacity, bw = Quantity::Bandwidth;
  NEURON_RETURN_IF_ERROR(r.string("name", inst.name));
  NEURON_RETURN_IF_ERROR(figures(
      r, {{"chips", Quantity::Count, &inst.chips},
          {"vcpus", Quantity::Count, &inst.vcpus},
          {"host_memory", cap, &inst.hostMemory},
          {"device_memory", cap, &inst.deviceMemory},
          {"device_memory_bandwidth", bw, &inst.deviceMemoryBandwidth}}));
  NEURON_RETURN_IF_ERROR(r.string("interconnect", inst.interconnect));
  NEURON_RETURN_IF_ERROR(optFigure(r, "efa_bandwidth", bw, inst.efaBandwidth));
  NEURON_RETURN_IF_ERROR(optFigure(r, "neuronlink_bandwidth_per_chip", bw,
                                   inst.neuronLinkBandwidth));
  NEURON_RETURN_IF_ERROR(r.string("note", inst.note, false));
  // Instance totals must be the chip figure times the chip count, so a chip
  // value never silently stands in for an instance total or the reverse.
  NEURON_RETURN_IF_ERROR(
      checkTotal(r, "device_memory", inst.deviceMemory, cap,
                 inst.chips.value * canonicalValue(c.hbmCapacity, cap),
                 "chips x chip.hbm_capacity"));
  NEURON_RETURN_IF_ERROR(
      checkTotal(r, "device_memory_bandwidth", inst.deviceMemoryBandwidth, bw,
                 inst.chips.value * canonicalValue(c.hbmBandwidth, bw),
                 "chips x chip.hbm_bandwidth"));
  return r.finish();
}

absl::StatusOr<ParsedTargetFile> parseTargetFile(std::string_view fileName,
                                                 std::string_view text) {
  NEURON_ASSIGN_OR_RETURN(root, parseJsonText(fileName, text));
  if (!root.is_object())
    return jsonError(fileName, "(top level)",
                     "an object {schema, chip, instances}", describeJson(root));
  ObjectReader top(fileName, "", root);
  NEURON_RETURN_IF_ERROR(top.constant("schema", kSchema));

  ParsedTargetFile out;
  out.chip = std::make_unique<ChipDesc>();
  out.chip->file = std::string(fileName);
  NEURON_ASSIGN_OR_RETURN(chip, top.object("chip"));
  NEURON_RETURN_IF_ERROR(parseChip(chip, *out.chip));
  NEURON_ASSIGN_OR_RETURN(
      instances, top.objectArray("instances", "an object {name, chips, ...}"));
  for (ObjectReader &r : instances) {
    auto inst = std::make_unique<InstanceDesc>();
    inst->file = std::string(fileName);
    inst->chip = out.chip.get();
    NEURON_RETURN_IF_ERROR(parseInstance(r, *inst));
    out.chip->instanceNames.push_back(inst->name);
    out.instances.push_back(std::move(inst));
  }
  NEURON_RETURN_IF_ERROR(top.finish());
  return out;
}

} // namespace neuron::rt
