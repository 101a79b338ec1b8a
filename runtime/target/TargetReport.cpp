//===- TargetReport.cpp - The --print-target report -----------------------===//
//
// Renders a resolved target as a table whose columns name their denominator
// (per physical core | per logical core | per chip | per instance), so no
// figure is shown without saying what it counts.
//
//===----------------------------------------------------------------------===//

#include "runtime/target/Target.h"
#include "runtime/target/TargetInternal.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>

namespace neuron::rt {

namespace {
/// Numbers the distinct sources a report cites, in order of first use.
class SourceRefs {
public:
  std::string cite(const std::string &source) {
    auto it = std::find(sources.begin(), sources.end(), source);
    if (it == sources.end())
      it = sources.insert(sources.end(), source);
    return absl::StrFormat(" [%d]", it - sources.begin() + 1);
  }
  std::string cite(const Figure &f) { return cite(f.source); }

  std::vector<std::string> sources;
};
} // namespace

static constexpr double kMiB = 1024.0 * 1024, kGiB = kMiB * 1024;

static std::string gib(double bytes) {
  return formatNumber(bytes / kGiB) + " GiB";
}
static std::string mib(double bytes) {
  return formatNumber(bytes / kMiB) + " MiB";
}
static std::string tbps(double bytesPerSecond) {
  return formatNumber(bytesPerSecond / 1e12) + " TB/s";
}

/// `shown`, followed by the published value when its label differs.
static std::string withLabel(std::string shown, const Figure &f,
                             std::string_view label) {
  if (f.unit == label)
    return shown;
  return absl::StrFormat("%s (%s %s)", shown, formatNumber(f.value), f.unit);
}

static std::string plural(int64_t n, std::string_view noun) {
  return absl::StrFormat("%d %s%s", n, noun, n == 1 ? "" : "s");
}

/// Pads each column to its widest cell; a rule follows the header row.
static std::string
formatTable(const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], row[i].size());
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t i = 0; i < rows[r].size(); ++i)
      line += (i ? " | " : "") + rows[r][i] +
              std::string(widths[i] - rows[r][i].size(), ' ');
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
    if (r == 0) {
      std::vector<std::string> dashes;
      for (size_t w : widths)
        dashes.push_back(std::string(w, '-'));
      out += absl::StrJoin(dashes, "-+-") + "\n";
    }
  }
  return out;
}

std::string formatTargetReport(const ResolvedTarget &t) {
  const ChipDesc &c = *t.chip;
  const InstanceDesc *inst = t.instance;
  const Quantity cap = Quantity::Capacity, bw = Quantity::Bandwidth;
  const int64_t phys = t.physicalCoresPerChip();
  const int64_t group = t.lnc.physicalCoresPerLogicalCore;
  const int64_t logical = t.logicalCoresPerChip(), n = t.chips();
  SourceRefs refs;

  std::string out = absl::StrFormat(
      "target %s (%s): generation %s, %s; instance %s; lnc=%d%s\n", c.name,
      absl::StrJoin(c.aliases, ", "), c.generation, c.coreVersion,
      inst ? inst->name : "none (chip only)", t.lnc.lnc,
      t.lnc.isDefault ? " (default)" : "");

  std::vector<std::vector<std::string>> rows;
  // Every row is built with an instance cell; it is dropped for a bare chip.
  auto addRow = [&](std::vector<std::string> row) {
    if (!inst)
      row.pop_back();
    rows.push_back(std::move(row));
  };
  // A logical core's share of a per-core amount.
  auto perLogical = [&](std::string shown) {
    return group == 1 ? shown : absl::StrFormat("%s (%d x core)", shown, group);
  };
  addRow({"", "per physical core",
          absl::StrFormat("per logical core (lnc=%d: %s)", t.lnc.lnc,
                          plural(group, "physical core")),
          absl::StrFormat("per chip (%s)", plural(phys, "physical core")),
          absl::StrFormat("per instance (%s)", plural(n, "chip"))});
  addRow({"NeuronCores, physical", "1 core", plural(group, "core"),
          plural(phys, "core") + refs.cite(c.neuronCores),
          absl::StrFormat("%s (%d x %d)", plural(phys * n, "core"), n, phys)});
  addRow({"NeuronCores, logical", "-", "1 logical core",
          absl::StrFormat("%s (%d / %d)", plural(logical, "logical core"), phys,
                          group),
          plural(logical * n, "logical core")});

  double hbm = canonicalValue(c.hbmCapacity, cap);
  addRow({"HBM capacity",
          absl::StrFormat("%s (chip total / %d)", gib(hbm / phys), phys),
          absl::StrFormat("%s (chip total / %d)", gib(hbm / logical), logical),
          withLabel(gib(hbm), c.hbmCapacity, "GiB") + refs.cite(c.hbmCapacity),
          inst ? withLabel(gib(canonicalValue(inst->deviceMemory, cap)),
                           inst->deviceMemory, "GiB") +
                     refs.cite(inst->deviceMemory)
               : ""});
  double hbmBw = canonicalValue(c.hbmBandwidth, bw);
  addRow(
      {"HBM bandwidth",
       absl::StrFormat("%s (chip total / %d)", tbps(hbmBw / phys), phys),
       absl::StrFormat("%s (chip total / %d)", tbps(hbmBw / logical), logical),
       withLabel(tbps(hbmBw), c.hbmBandwidth, "TB/s") +
           refs.cite(c.hbmBandwidth),
       inst ? withLabel(tbps(canonicalValue(inst->deviceMemoryBandwidth, bw)),
                        inst->deviceMemoryBandwidth, "TB/s") +
                  refs.cite(inst->deviceMemoryBandwidth)
            : ""});

  double sbufCore = canonicalValue(c.sbufPerCore, cap);
  double sbufChip = canonicalValue(c.sbufPerChip, cap);
  addRow(
      {"SBUF",
       absl::StrFormat("%s (%s x %s %s)%s", mib(sbufCore),
                       formatNumber(c.sbufPartitions.value),
                       formatNumber(c.sbufBytesPerPartition.value),
                       c.sbufBytesPerPartition.unit, refs.cite(c.sbufPerCore)),
       perLogical(mib(sbufCore * group)),
       withLabel(mib(sbufChip), c.sbufPerChip, "MiB") +
           refs.cite(c.sbufPerChip),
       absl::StrFormat("%s (%d x chip)", mib(sbufChip * n), n)});
  double psumCore = canonicalValue(c.psumPerCore, cap);
  addRow({"PSUM",
          absl::StrFormat("%s (%s x %s %s; %s banks x %s %s)%s", mib(psumCore),
                          formatNumber(c.psumPartitions.value),
                          formatNumber(c.psumBytesPerPartition.value),
                          c.psumBytesPerPartition.unit,
                          formatNumber(c.psumBanks.value),
                          formatNumber(c.psumBankBytes.value),
                          c.psumBankBytes.unit, refs.cite(c.psumPerCore)),
          perLogical(mib(psumCore * group)),
          absl::StrFormat("%s (%d x core)", mib(psumCore * phys), phys),
          absl::StrFormat("%s (%d x chip)", mib(psumCore * phys * n), n)});

  // Published per-core peaks do not divide evenly from the chip's; '*' marks
  // the figure computations use and the note gives the other reading.
  std::vector<std::string> evenSplits;
  for (const char *dtype : {"bf16", "fp8", "fp32", "int8"}) {
    const PeakRate *rate = c.peak(dtype);
    if (!rate)
      continue;
    bool coreBased =
        rate->perCore && (c.peakBasis == PeakBasis::PerCore || !rate->perChip);
    const Figure &any = rate->perCore ? *rate->perCore : *rate->perChip;
    double core =
        coreBased ? rate->perCore->value : rate->perChip->value / phys;
    std::string coreCell =
        coreBased ? absl::StrFormat("%s %s*%s", formatNumber(core), any.unit,
                                    refs.cite(*rate->perCore))
                  : absl::StrFormat("%s %s (chip / %d)", formatNumber(core),
                                    any.unit, phys);
    std::string chipCell = "-", instCell = "-";
    if (rate->perChip) {
      chipCell = absl::StrFormat(
          "%s %s%s%s", formatNumber(rate->perChip->value), rate->perChip->unit,
          coreBased ? "" : "*", refs.cite(*rate->perChip));
      instCell = absl::StrFormat("%s %s (%d x chip)",
                                 formatNumber(rate->perChip->value * n),
                                 rate->perChip->unit, n);
      if (coreBased)
        evenSplits.push_back(absl::StrFormat(
            "%s %s %s", dtype, formatNumber(rate->perChip->value / phys),
            rate->perChip->unit));
    }
    std::string upper = dtype;
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    addRow({"peak " + upper, coreCell,
            perLogical(
                absl::StrFormat("%s %s", formatNumber(core * group), any.unit)),
            chipCell, instCell});
  }

  int64_t dmaCore = static_cast<int64_t>(c.dmaEnginesPerCore.value);
  addRow({"DMA engines",
          absl::StrFormat("%d engines x %s %s%s", dmaCore,
                          formatNumber(c.dmaEngineBandwidth.value),
                          c.dmaEngineBandwidth.unit,
                          refs.cite(c.dmaEngineBandwidth)),
          perLogical(plural(dmaCore * group, "engine")),
          absl::StrFormat("%s, %s%s", plural(dmaCore * phys, "engine"),
                          c.dmaChipBandwidth.unit == "TB/s"
                              ? tbps(canonicalValue(c.dmaChipBandwidth, bw))
                              : formatNumber(c.dmaChipBandwidth.value) + " " +
                                    c.dmaChipBandwidth.unit,
                          refs.cite(c.dmaChipBandwidth)),
          absl::StrFormat("%s (%d x chip)",
                          plural(dmaCore * phys * n, "engine"), n)});
  int64_t cc = static_cast<int64_t>(c.collectiveCores.value);
  addRow({"collective cores", "-", "-",
          absl::StrFormat("%d%s", cc, refs.cite(c.collectiveCores)),
          absl::StrFormat("%d (%d x chip)", cc * n, n)});
  addRow({"NeuronLink", "-", "-",
          absl::StrFormat(
              "%s, %s, %s %s%s", c.neuronLinkVersion,
              plural(static_cast<int64_t>(c.neuronLinkLinks.value), "link"),
              formatNumber(c.neuronLinkBandwidth.value),
              c.neuronLinkBandwidth.unit, refs.cite(c.neuronLinkBandwidth)),
          inst && inst->neuronLinkBandwidth
              ? absl::StrFormat("%s %s per chip%s",
                                formatNumber(inst->neuronLinkBandwidth->value),
                                inst->neuronLinkBandwidth->unit,
                                refs.cite(*inst->neuronLinkBandwidth))
              : "-"});
  out += formatTable(rows);

  out += absl::StrFormat(
      "HBM is shared, not partitioned: %s; per-core cells are the chip total "
      "divided.\n",
      c.hbmSharing.empty() ? "one pool for the chip's " + plural(phys, "core")
                           : c.hbmSharing);
  out += c.peakBasis == PeakBasis::PerCore
             ? "* the peak figure computations use: the quoted per-core "
               "figure where published, else chip / cores"
             : "* the peak figure computations use: chip / cores";
  if (!evenSplits.empty())
    out += absl::StrFormat("; chip / %d would give %s", phys,
                           absl::StrJoin(evenSplits, ", "));
  out += ".\n";
  out += absl::StrFormat(
      "engine clocks per core: tensor %s %s, vector %s %s, scalar %s %s, "
      "gpsimd %s %s%s\n",
      formatNumber(c.tensor.clock.value), c.tensor.clock.unit,
      formatNumber(c.vector.clock.value), c.vector.clock.unit,
      formatNumber(c.scalar.clock.value), c.scalar.clock.unit,
      formatNumber(c.gpsimd.clock.value), c.gpsimd.clock.unit,
      refs.cite(c.tensor.clock));
  if (c.tensor.fp8PeakRows && c.tensor.fp8PeakRows->value > 1)
    out += absl::StrFormat(
        "FP8 peak: the double-row mode's (%s K rows per partition per "
        "matmul)%s; one row streams at 1/%s of it\n",
        formatNumber(c.tensor.fp8PeakRows->value),
        refs.cite(*c.tensor.fp8PeakRows),
        formatNumber(c.tensor.fp8PeakRows->value));
  if (c.tensor.fp32TransposeSpeedup && c.tensor.fp32TransposeSpeedup->value > 1)
    out += absl::StrFormat(
        "FP32 transposes: the tensor engine's transpose mode, %sx an FP32 "
        "matmul's column rate%s\n",
        formatNumber(c.tensor.fp32TransposeSpeedup->value),
        refs.cite(*c.tensor.fp32TransposeSpeedup));

  if (!inst) {
    out += absl::StrFormat("per instance: (name an instance, e.g. %s)\n",
                           c.instanceNames.empty() ? "NAME.48xlarge"
                                                   : c.instanceNames.front());
  } else {
    out += absl::StrFormat(
        "instance %s: %s per instance%s, %s vCPUs, %s host memory%s",
        inst->name, plural(n, "chip"), refs.cite(inst->chips),
        formatNumber(inst->vcpus.value),
        withLabel(gib(canonicalValue(inst->hostMemory, cap)), inst->hostMemory,
                  "GiB"),
        refs.cite(inst->hostMemory));
    if (inst->efaBandwidth)
      out += absl::StrFormat(", EFA %s %s",
                             formatNumber(inst->efaBandwidth->value),
                             inst->efaBandwidth->unit);
    out += absl::StrFormat("\ninterconnect: %s\n", inst->interconnect);
    if (!inst->note.empty())
      out += "note: " + inst->note + "\n";
  }
  out += absl::StrFormat("lnc=%d: %s%s; %s offers %s\n", t.lnc.lnc,
                         t.lnc.definition, refs.cite(c.lncSource), c.generation,
                         formatLncModes(c));

  out += "sources:\n";
  for (size_t i = 0; i < refs.sources.size(); ++i)
    out += absl::StrFormat("  [%d] %s\n", i + 1, refs.sources[i]);
  return out;
}

} // namespace neuron::rt
