//===- Target.cpp - Units, target registry and spec resolution ------------===//
//
// Unit conversions, the derived counts of a resolved target, and the registry
// that holds the built-in (embedded) or on-disk descriptions.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/Target.h"
#include "runtime/target/TargetInternal.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace neuron::rt {

namespace {
struct UnitEntry {
  Quantity quantity;
  std::string_view unit;
  double scale;
};

/// A description embedded by EmbedTargets.cmake.
struct EmbeddedFile {
  const char *name;
  const char *text;
};
} // namespace

static constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

// The unit labels the sources print, grouped by quantity, in the order error
// messages list them.
static constexpr UnitEntry kUnits[] = {{Quantity::Count, "count", 1},
                                       {Quantity::Ratio, "x", 1},
                                       {Quantity::Capacity, "bytes", 1},
                                       {Quantity::Capacity, "KiB", kKiB},
                                       {Quantity::Capacity, "MiB", kMiB},
                                       {Quantity::Capacity, "GiB", kGiB},
                                       {Quantity::Bandwidth, "B/ns", 1e9},
                                       {Quantity::Bandwidth, "GB/s", 1e9},
                                       {Quantity::Bandwidth, "TB/s", 1e12},
                                       {Quantity::Bandwidth, "GiB/s", kGiB},
                                       {Quantity::Bandwidth, "Gbps", 1e9 / 8},
                                       {Quantity::Clock, "MHz", 1e6},
                                       {Quantity::Clock, "GHz", 1e9},
                                       {Quantity::Throughput, "TFLOPS", 1e12},
                                       {Quantity::Throughput, "TOPS", 1e12},
                                       {Quantity::Throughput, "PFLOPS", 1e15}};

static const EmbeddedFile kEmbeddedFiles[] = {
#include "BuiltinTargets.inc"
};

std::optional<double> unitScale(Quantity q, std::string_view unit) {
  for (const UnitEntry &e : kUnits)
    if (e.quantity == q && e.unit == unit)
      return e.scale;
  return std::nullopt;
}

std::string allowedUnits(Quantity q) {
  std::vector<std::string> units;
  for (const UnitEntry &e : kUnits)
    if (e.quantity == q)
      units.emplace_back(e.unit);
  return absl::StrJoin(units, ", ");
}

double canonicalValue(const Figure &f, Quantity q) {
  return f.value * unitScale(q, f.unit).value_or(0);
}

std::string formatNumber(double v) {
  double a = std::fabs(v);
  std::string s = a >= 10  ? absl::StrFormat("%.1f", v)
                  : a >= 1 ? absl::StrFormat("%.2f", v)
                           : absl::StrFormat("%.3f", v);
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.')
      s.pop_back();
  }
  return s;
}

static absl::StatusOr<double> convert(const Figure &f, Quantity q) {
  std::optional<double> scale = unitScale(q, f.unit);
  if (!scale)
    return absl::InvalidArgumentError(
        absl::StrFormat("cannot convert %s %s: expected one of %s",
                        formatNumber(f.value), f.unit, allowedUnits(q)));
  return f.value * *scale;
}

absl::StatusOr<double> toBytes(const Figure &f) {
  return convert(f, Quantity::Capacity);
}
absl::StatusOr<double> toBytesPerSecond(const Figure &f) {
  return convert(f, Quantity::Bandwidth);
}
absl::StatusOr<double> toHertz(const Figure &f) {
  return convert(f, Quantity::Clock);
}
absl::StatusOr<double> toOpsPerSecond(const Figure &f) {
  return convert(f, Quantity::Throughput);
}

//===----------------------------------------------------------------------===//
// ChipDesc and ResolvedTarget
//===----------------------------------------------------------------------===//

const PeakRate *ChipDesc::peak(std::string_view dtype) const {
  for (const PeakRate &p : peaks)
    if (p.dtype == dtype)
      return &p;
  return nullptr;
}

const LncMode *ChipDesc::findLnc(int lnc) const {
  for (const LncMode &m : lncModes)
    if (m.lnc == lnc)
      return &m;
  return nullptr;
}

const LncMode &ChipDesc::defaultLnc() const {
  for (const LncMode &m : lncModes)
    if (m.isDefault)
      return m;
  return lncModes.front();
}

std::string ResolvedTarget::spec() const {
  return absl::StrFormat("%s,lnc=%d", instance ? instance->name : chip->name,
                         lnc.lnc);
}

static int64_t bytesOf(const Figure &f) {
  return std::llround(canonicalValue(f, Quantity::Capacity));
}

int64_t ResolvedTarget::sbufPartitions() const {
  return std::llround(chip->sbufPartitions.value);
}
int64_t ResolvedTarget::sbufBytesPerPartition() const {
  return bytesOf(chip->sbufBytesPerPartition);
}
int64_t ResolvedTarget::dmaPeakBytesPerPartition() const {
  return bytesOf(chip->dmaPeakBytesPerPartition);
}
int64_t ResolvedTarget::dmaDescriptorOverheadBytes() const {
  return bytesOf(chip->dmaDescriptorOverhead);
}
int64_t ResolvedTarget::sbufBytesPerLogicalCore() const {
  return bytesOf(chip->sbufPerCore) * lnc.physicalCoresPerLogicalCore;
}
int64_t ResolvedTarget::psumPartitions() const {
  return std::llround(chip->psumPartitions.value);
}
int64_t ResolvedTarget::psumBytesPerPartition() const {
  return bytesOf(chip->psumBytesPerPartition);
}
int64_t ResolvedTarget::psumBanks() const {
  return std::llround(chip->psumBanks.value);
}
int64_t ResolvedTarget::psumBankBytes() const {
  return bytesOf(chip->psumBankBytes);
}
double ResolvedTarget::hbmBytesPerChip() const {
  return canonicalValue(chip->hbmCapacity, Quantity::Capacity);
}
double ResolvedTarget::hbmBytesPerSecondPerChip() const {
  return canonicalValue(chip->hbmBandwidth, Quantity::Bandwidth);
}
double ResolvedTarget::hostLinkBytesPerSecond() const {
  return canonicalValue(chip->hostLink, Quantity::Bandwidth);
}

double ResolvedTarget::dmaBytesPerSecondPerPhysicalCore() const {
  return chip->dmaEnginesPerCore.value *
         canonicalValue(chip->dmaEngineBandwidth, Quantity::Bandwidth);
}

std::optional<double>
ResolvedTarget::peakOpsPerPhysicalCore(std::string_view dtype) const {
  const PeakRate *rate = chip->peak(dtype);
  if (!rate)
    return std::nullopt;
  if (rate->perCore &&
      (chip->peakBasis == PeakBasis::PerCore || !rate->perChip))
    return canonicalValue(*rate->perCore, Quantity::Throughput);
  return canonicalValue(*rate->perChip, Quantity::Throughput) /
         physicalCoresPerChip();
}

//===----------------------------------------------------------------------===//
// TargetRegistry
//===----------------------------------------------------------------------===//

std::vector<BuiltinTargetFile> builtinTargetFiles() {
  std::vector<BuiltinTargetFile> files;
  for (const EmbeddedFile &f : kEmbeddedFiles)
    files.push_back({f.name, f.text});
  return files;
}

absl::StatusOr<TargetRegistry> TargetRegistry::loadBuiltin() {
  TargetRegistry registry;
  for (const BuiltinTargetFile &f : builtinTargetFiles())
    NEURON_RETURN_IF_ERROR(registry.addFromText(f.fileName, f.text));
  return registry;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>>
readJsonDirectory(const std::string &dir, std::string_view what) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> paths;
  // Not recursive: data/capabilities/ holds a different schema.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (it->path().extension() == ".json" && it->is_regular_file(ec))
      paths.push_back(it->path());
  if (ec)
    return absl::NotFoundError(absl::StrFormat(
        "cannot list %s directory '%s': %s", what, dir, ec.message()));
  if (paths.empty())
    return absl::NotFoundError(
        absl::StrFormat("no *.json %s files in '%s'", what, dir));
  std::sort(paths.begin(), paths.end());

  std::vector<std::pair<std::string, std::string>> files;
  for (const fs::path &path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (!in)
      return absl::NotFoundError(
          absl::StrFormat("cannot read '%s'", path.string()));
    files.emplace_back(path.string(), text.str());
  }
  return files;
}

absl::StatusOr<TargetRegistry>
TargetRegistry::loadDirectory(const std::string &dir) {
  NEURON_ASSIGN_OR_RETURN(files, readJsonDirectory(dir, "target description"));
  TargetRegistry registry;
  for (const auto &[fileName, text] : files)
    NEURON_RETURN_IF_ERROR(registry.addFromText(fileName, text));
  return registry;
}

const std::string *TargetRegistry::fileDefining(std::string_view name) const {
  if (const ChipDesc *c = findChip(name))
    return &c->file;
  if (const InstanceDesc *i = findInstance(name))
    return &i->file;
  return nullptr;
}

absl::Status TargetRegistry::addFromText(std::string_view fileName,
                                         std::string_view text) {
  absl::StatusOr<ParsedTargetFile> parsed = parseTargetFile(fileName, text);
  if (!parsed.ok())
    return parsed.status();

  // Chip names, aliases and instance names share one namespace: a spec is
  // looked up in all of them.
  std::vector<std::pair<std::string, std::string>> names; // name, JSON path
  const ChipDesc &chip = *parsed->chip;
  names.push_back({chip.name, "chip.name"});
  for (size_t i = 0; i < chip.aliases.size(); ++i)
    names.push_back({chip.aliases[i], absl::StrFormat("chip.aliases[%d]", i)});
  for (size_t i = 0; i < parsed->instances.size(); ++i)
    names.push_back(
        {parsed->instances[i]->name, absl::StrFormat("instances[%d].name", i)});
  for (size_t i = 0; i < names.size(); ++i) {
    const auto &[name, path] = names[i];
    std::string other;
    if (const std::string *file = fileDefining(name))
      other = *file;
    for (size_t j = 0; j < i && other.empty(); ++j)
      if (names[j].first == name)
        other = absl::StrFormat("%s at %s", fileName, names[j].second);
    if (!other.empty())
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: %s: duplicate name \"%s\" (already defined in %s)", fileName,
          path, name, other));
  }
  chips.push_back(std::move(parsed->chip));
  for (auto &inst : parsed->instances)
    instances.push_back(std::move(inst));
  return absl::OkStatus();
}

const ChipDesc *TargetRegistry::findChip(std::string_view name) const {
  for (const auto &c : chips)
    if (c->name == name || std::find(c->aliases.begin(), c->aliases.end(),
                                     name) != c->aliases.end())
      return c.get();
  return nullptr;
}

const InstanceDesc *TargetRegistry::findInstance(std::string_view name) const {
  for (const auto &i : instances)
    if (i->name == name)
      return i.get();
  return nullptr;
}

std::vector<std::string> TargetRegistry::chipNames() const {
  std::vector<std::string> names;
  for (const auto &c : chips)
    names.push_back(c->name);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> TargetRegistry::instanceNames() const {
  std::vector<std::string> names;
  for (const auto &i : instances)
    names.push_back(i->name);
  std::sort(names.begin(), names.end());
  return names;
}

std::string formatLncModes(const ChipDesc &chip) {
  std::vector<std::string> modes;
  for (const LncMode &m : chip.lncModes)
    modes.push_back(
        absl::StrFormat("lnc=%d%s", m.lnc, m.isDefault ? " (default)" : ""));
  return absl::StrJoin(modes, ", ");
}

static std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

absl::StatusOr<ResolvedTarget>
TargetRegistry::resolve(std::string_view spec) const {
  // Debian's Abseil has its own string_view type, so split by hand.
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t comma = spec.find(',', start);
    parts.push_back(trim(spec.substr(start, comma - start)));
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  std::string_view name = parts[0];
  if (name.empty())
    return absl::InvalidArgumentError(absl::StrFormat(
        "target spec '%s': expected NAME[,lnc=N], found no name", spec));
  std::optional<int> lnc;
  for (size_t i = 1; i < parts.size(); ++i) {
    size_t eq = parts[i].find('=');
    std::string_view key = trim(parts[i].substr(0, eq));
    std::string_view value =
        eq == std::string_view::npos ? "" : trim(parts[i].substr(eq + 1));
    if (key != "lnc")
      return absl::InvalidArgumentError(absl::StrFormat(
          "target spec '%s': unknown option '%s' (expected NAME[,lnc=N])", spec,
          key));
    if (lnc)
      return absl::InvalidArgumentError(
          absl::StrFormat("target spec '%s': lnc given twice", spec));
    int n = 0;
    auto [end, ec] =
        std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n <= 0)
      return absl::InvalidArgumentError(absl::StrFormat(
          "target spec '%s': lnc must be a positive integer, found '%s'", spec,
          value));
    lnc = n;
  }

  ResolvedTarget t;
  t.instance = findInstance(name);
  t.chip = t.instance ? t.instance->chip : findChip(name);
  if (!t.chip) {
    std::vector<std::string> known;
    for (const std::string &chipName : chipNames()) {
      const ChipDesc *c = findChip(chipName);
      known.push_back(c->aliases.empty()
                          ? chipName
                          : absl::StrFormat("%s (%s)", chipName,
                                            absl::StrJoin(c->aliases, ", ")));
    }
    return absl::NotFoundError(absl::StrFormat(
        "unknown target '%s'; known chips: %s; known instances: %s", name,
        absl::StrJoin(known, ", "), absl::StrJoin(instanceNames(), ", ")));
  }
  if (!lnc) {
    t.lnc = t.chip->defaultLnc();
    return t;
  }
  const LncMode *mode = t.chip->findLnc(*lnc);
  if (!mode)
    return absl::InvalidArgumentError(absl::StrFormat(
        "target '%s': generation %s (%s) does not offer lnc=%d; it offers %s",
        name, t.chip->generation, t.chip->name, *lnc, formatLncModes(*t.chip)));
  t.lnc = *mode;
  return t;
}

} // namespace neuron::rt
