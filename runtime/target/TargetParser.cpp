//===- TargetParser.cpp - Read and validate target description files ------===//
//
// Reads data/*.json without exceptions: every value's type is checked before
// it is read, and every error names the file, the JSON path of the field,
// what was expected and what was found.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/TargetInternal.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

namespace neuron::rt {

using json = nlohmann::json;

static constexpr std::string_view kSchema = "neuron-target/1";
static constexpr std::string_view kFigureShape =
    "an object {value, unit, source}";

static absl::Status fail(std::string_view file, std::string_view path,
                         std::string_view expected, std::string_view found) {
  return absl::InvalidArgumentError(absl::StrFormat(
      "%s: %s: expected %s, found %s", file, path, expected, found));
}

/// What a JSON value is, for the "found ..." half of an error.
static std::string describe(const json &v) {
  if (v.is_null())
    return "null";
  if (v.is_boolean())
    return v.get<bool>() ? "a boolean true" : "a boolean false";
  if (v.is_number())
    return "a number " + v.dump();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    return absl::StrFormat("a string \"%s\"",
                           s.size() > 40 ? s.substr(0, 40) + "..." : s);
  }
  if (v.is_array())
    return absl::StrFormat("an array of %d elements", v.size());
  return "an object";
}

static std::string_view quantityName(Quantity q) {
  constexpr std::string_view names[] = {"count", "capacity", "bandwidth",
                                        "clock", "throughput"};
  return names[static_cast<int>(q)];
}

namespace {
/// A required figure field and where it goes.
struct FigureField {
  const char *key;
  Quantity quantity;
  Figure *out;
};

/// Reads the fields of one JSON object, remembering file and path so every
/// error says where it is; finish() rejects fields nobody asked for, so a
/// misspelt optional field is an error rather than silently ignored.
class ObjectReader {
public:
  ObjectReader(std::string_view file, std::string path, const json &node)
      : file(file), path(std::move(path)), node(&node) {}

  std::string pathOf(std::string_view key) const {
    return path.empty() ? std::string(key)
                        : absl::StrFormat("%s.%s", path, key);
  }

  absl::Status error(std::string_view key, std::string_view expected,
                     std::string_view found) const {
    return fail(file, pathOf(key), expected, found);
  }

  /// The value at `key`; nullptr when it is absent and optional.
  absl::StatusOr<const json *>
  field(std::string_view key, std::string_view expected, bool required = true) {
    seen.insert(std::string(key));
    auto it = node->find(std::string(key));
    if (it != node->end())
      return &*it;
    if (!required)
      return static_cast<const json *>(nullptr);
    return error(key, expected, "nothing (the field is missing)");
  }

  absl::Status string(std::string_view key, std::string &out,
                      bool required = true) {
    NEURON_ASSIGN_OR_RETURN(v, field(key, "a non-empty string", required));
    if (!v)
      return absl::OkStatus();
    if (!v->is_string() || v->get<std::string>().empty())
      return error(key, "a non-empty string", describe(*v));
    out = v->get<std::string>();
    return absl::OkStatus();
  }

  absl::Status positiveInt(std::string_view key, int &out) {
    NEURON_ASSIGN_OR_RETURN(v, field(key, "a positive integer"));
    if (!v->is_number_integer() || v->get<int64_t>() <= 0 ||
        v->get<int64_t>() > (1 << 20))
      return error(key, "a positive integer", describe(*v));
    out = static_cast<int>(v->get<int64_t>());
    return absl::OkStatus();
  }

  absl::Status boolean(std::string_view key, bool &out) {
    NEURON_ASSIGN_OR_RETURN(v, field(key, "true or false"));
    if (!v->is_boolean())
      return error(key, "true or false", describe(*v));
    out = v->get<bool>();
    return absl::OkStatus();
  }

  absl::Status stringList(std::string_view key, std::vector<std::string> &out) {
    NEURON_ASSIGN_OR_RETURN(v, field(key, "an array of strings"));
    if (!v->is_array())
      return error(key, "an array of strings", describe(*v));
    for (size_t i = 0; i < v->size(); ++i) {
      const json &item = (*v)[i];
      if (!item.is_string() || item.get<std::string>().empty())
        return fail(file, absl::StrFormat("%s[%d]", pathOf(key), i),
                    "a non-empty string", describe(item));
      out.push_back(item.get<std::string>());
    }
    return absl::OkStatus();
  }

  absl::Status figures(std::initializer_list<FigureField> fields) {
    for (const FigureField &f : fields) {
      NEURON_ASSIGN_OR_RETURN(v, field(f.key, kFigureShape));
      NEURON_RETURN_IF_ERROR(readFigure(f.key, *v, f.quantity, *f.out));
    }
    return absl::OkStatus();
  }

  absl::Status optFigure(std::string_view key, Quantity q,
                         std::optional<Figure> &out) {
    NEURON_ASSIGN_OR_RETURN(v, field(key, kFigureShape, false));
    if (!v)
      return absl::OkStatus();
    out.emplace();
    return readFigure(key, *v, q, *out);
  }

  /// A reader for the object at `key`.
  absl::StatusOr<ObjectReader> object(std::string_view key,
                                      std::string_view shape = "an object") {
    NEURON_ASSIGN_OR_RETURN(v, field(key, shape));
    if (!v->is_object())
      return error(key, shape, describe(*v));
    return ObjectReader(file, pathOf(key), *v);
  }

  /// Readers for the elements of the non-empty array of objects at `key`.
  absl::StatusOr<std::vector<ObjectReader>>
  objectArray(std::string_view key, std::string_view elementShape) {
    std::string expected =
        absl::StrFormat("a non-empty array of %s", elementShape);
    NEURON_ASSIGN_OR_RETURN(v, field(key, expected));
    if (!v->is_array() || v->empty())
      return error(key, expected, describe(*v));
    std::vector<ObjectReader> readers;
    for (size_t i = 0; i < v->size(); ++i) {
      std::string itemPath = absl::StrFormat("%s[%d]", pathOf(key), i);
      if (!(*v)[i].is_object())
        return fail(file, itemPath, elementShape, describe((*v)[i]));
      readers.emplace_back(file, itemPath, (*v)[i]);
    }
    return readers;
  }

  /// All keys of the object; they count as expected.
  std::vector<std::string> keys() {
    std::vector<std::string> result;
    for (auto it = node->begin(); it != node->end(); ++it)
      result.push_back(*seen.insert(it.key()).first);
    return result;
  }

  absl::Status finish() const {
    for (auto it = node->begin(); it != node->end(); ++it)
      if (!seen.count(it.key()))
        return absl::InvalidArgumentError(
            absl::StrFormat("%s: %s: unknown field (known here: %s)", file,
                            pathOf(it.key()), absl::StrJoin(seen, ", ")));
    return absl::OkStatus();
  }

private:
  absl::Status readFigure(std::string_view key, const json &v, Quantity q,
                          Figure &out) {
    if (!v.is_object())
      return error(key, kFigureShape, describe(v));
    ObjectReader r(file, pathOf(key), v);
    NEURON_ASSIGN_OR_RETURN(value, r.field("value", "a positive number"));
    if (!value->is_number() || !(value->get<double>() > 0) ||
        !std::isfinite(value->get<double>()))
      return r.error("value", "a positive number", describe(*value));
    out.value = value->get<double>();
    if (q == Quantity::Count && out.value != std::floor(out.value))
      return r.error("value", "a whole number (the unit is \"count\")",
                     describe(*value));
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

  std::string file;
  std::string path;
  const json *node;
  std::set<std::string> seen;
};
} // namespace

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
        e.figures({{"clock", Quantity::Clock, &engine->clock}}));
    NEURON_RETURN_IF_ERROR(
        e.optFigure("peak_fp32", Quantity::Throughput, engine->peakFp32));
    NEURON_RETURN_IF_ERROR(e.finish());
  }
  return engines.finish();
}

static absl::Status parseDma(ObjectReader &chip, ChipDesc &c) {
  NEURON_ASSIGN_OR_RETURN(d, chip.object("dma"));
  NEURON_RETURN_IF_ERROR(d.figures(
      {{"engines_per_core", Quantity::Count, &c.dmaEnginesPerCore},
       {"engine_bandwidth", Quantity::Bandwidth, &c.dmaEngineBandwidth},
       {"chip_bandwidth", Quantity::Bandwidth, &c.dmaChipBandwidth}}));
  NEURON_RETURN_IF_ERROR(
      d.optFigure("engines_per_chip", Quantity::Count, c.dmaEnginesPerChip));
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
      s.figures({{"partitions", Quantity::Count, &c.sbufPartitions},
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
      p.figures({{"partitions", Quantity::Count, &c.psumPartitions},
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
        r.optFigure("per_chip", Quantity::Throughput, rate.perChip));
    NEURON_RETURN_IF_ERROR(
        r.optFigure("per_core", Quantity::Throughput, rate.perCore));
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
      r.figures({{"neuron_cores", Quantity::Count, &c.neuronCores},
                 {"hbm_capacity", cap, &c.hbmCapacity},
                 {"hbm_bandwidth", bw, &c.hbmBandwidth},
                 {"collective_cores", Quantity::Count, &c.collectiveCores}}));
  NEURON_RETURN_IF_ERROR(
      r.optFigure("hbm_stacks", Quantity::Count, c.hbmStacks));
  NEURON_RETURN_IF_ERROR(r.string("hbm_sharing", c.hbmSharing, false));
  NEURON_RETURN_IF_ERROR(parseEngines(r, c));
  NEURON_RETURN_IF_ERROR(parseDma(r, c));
  NEURON_RETURN_IF_ERROR(parseOnChipMemories(r, c));
  NEURON_RETURN_IF_ERROR(parsePeak(r, c));
  NEURON_ASSIGN_OR_RETURN(link, r.object("neuronlink"));
  NEURON_RETURN_IF_ERROR(link.string("version", c.neuronLinkVersion));
  NEURON_RETURN_IF_ERROR(
      link.figures({{"links", Quantity::Count, &c.neuronLinkLinks},
                    {"bandwidth_per_chip", bw, &c.neuronLinkBandwidth}}));
  NEURON_RETURN_IF_ERROR(link.finish());
  NEURON_RETURN_IF_ERROR(parseLnc(r, c));
  return r.finish();
}

static absl::Status parseInstance(ObjectReader &r, InstanceDesc &inst) {
  const ChipDesc &c = *inst.chip;
  const Quantity cap = Quantity::Capacity, bw = Quantity::Bandwidth;
  NEURON_RETURN_IF_ERROR(r.string("name", inst.name));
  NEURON_RETURN_IF_ERROR(r.figures(
      {{"chips", Quantity::Count, &inst.chips},
       {"vcpus", Quantity::Count, &inst.vcpus},
       {"host_memory", cap, &inst.hostMemory},
       {"device_memory", cap, &inst.deviceMemory},
       {"device_memory_bandwidth", bw, &inst.deviceMemoryBandwidth}}));
  NEURON_RETURN_IF_ERROR(r.string("interconnect", inst.interconnect));
  NEURON_RETURN_IF_ERROR(r.optFigure("efa_bandwidth", bw, inst.efaBandwidth));
  NEURON_RETURN_IF_ERROR(r.optFigure("neuronlink_bandwidth_per_chip", bw,
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

namespace {
/// Records where and why a JSON text fails to parse. nlohmann's DOM parser
/// without exceptions only says "discarded"; its SAX interface has the offset.
struct SyntaxErrorFinder : json::json_sax_t {
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    offset = position;
    message = ex.what();
    // Drop the "[json.exception.parse_error.101] " prefix.
    if (size_t end = message.find("] "); end != std::string::npos)
      message = message.substr(end + 2);
    return false;
  }
  size_t offset = 0;
  std::string message = "malformed JSON";
};
} // namespace

absl::StatusOr<ParsedTargetFile> parseTargetFile(std::string_view fileName,
                                                 std::string_view text) {
  json root = json::parse(text.begin(), text.end(), nullptr,
                          /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    SyntaxErrorFinder finder;
    json::sax_parse(text.begin(), text.end(), &finder);
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: invalid JSON at byte %d: %s", fileName,
                        finder.offset, finder.message));
  }
  if (!root.is_object())
    return fail(fileName, "(top level)", "an object {schema, chip, instances}",
                describe(root));
  ObjectReader top(fileName, "", root);
  std::string schema;
  NEURON_RETURN_IF_ERROR(top.string("schema", schema));
  if (schema != kSchema)
    return top.error("schema", absl::StrFormat("\"%s\"", kSchema),
                     absl::StrFormat("\"%s\"", schema));

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
