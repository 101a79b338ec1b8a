//===- Target.h - Chip, instance and logical-core descriptions --*- C++ -*-===//
//
// The target model: what a chip generation and its instance types hold, read
// from the JSON descriptions in runtime/target/data (embedded at build time).
// Every figure keeps its published unit and source. No MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_TARGET_TARGET_H
#define NEURON_RUNTIME_TARGET_TARGET_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::rt {

/// What a figure measures; decides which unit labels it may carry.
enum class Quantity { Count, Ratio, Capacity, Bandwidth, Clock, Throughput };

/// The factor from `unit` to the canonical unit of `q` (1, bytes, bytes/s, Hz,
/// op/s), or nullopt when `unit` is not a unit of `q`. Capacities are binary
/// (KiB, MiB, GiB); TB/s, GB/s and B/ns are decimal, GiB/s binary, Gbps bits.
std::optional<double> unitScale(Quantity q, std::string_view unit);

/// The unit labels accepted for `q`, for error messages.
std::string allowedUnits(Quantity q);

/// One published figure, with its unit label exactly as the source prints it.
struct Figure {
  double value = 0;
  /// The label as published ("GiB/s" stays "GiB/s"; never silently converted).
  std::string unit;
  /// The [SDK] documentation path the figure comes from.
  std::string source;
  /// Where pages disagree: the other values and which one was picked.
  std::string note;
};

/// `f` in bytes; an error unless its unit is a capacity (bytes, KiB, MiB, GiB).
absl::StatusOr<double> toBytes(const Figure &f);
/// `f` in bytes per second; an error unless its unit is a bandwidth.
absl::StatusOr<double> toBytesPerSecond(const Figure &f);
/// `f` in Hz; an error unless its unit is a clock (MHz, GHz).
absl::StatusOr<double> toHertz(const Figure &f);
/// `f` in FLOP/s or OP/s; an error unless its unit is TFLOPS, TOPS or PFLOPS.
absl::StatusOr<double> toOpsPerSecond(const Figure &f);

/// One compute engine of a NeuronCore.
struct EngineDesc {
  Figure clock;
  /// Published FP32 rate of the engine alone (vector, scalar), if any.
  std::optional<Figure> peakFp32;
  /// Tensor engine: the K rows each partition contracts in an FP8 matmul
  /// at the published FP8 peak (2 where that peak is the double-row mode's,
  /// trn2); one row streams at the peak divided by it. Absent: 1.
  std::optional<Figure> fp8PeakRows;
  /// Tensor engine: present where it has a transpose mode (NeuronCore-v3
  /// on), whose transposes write their source's dtype to PSUM: how many
  /// times faster than an FP32 matmul's columns an FP32 transpose streams
  /// its columns there (2). Absent: a transpose is a matmul with the
  /// identity, at the matmul's rate, writing FP32 (INT32) to PSUM.
  std::optional<Figure> fp32TransposeSpeedup;
};

/// The published peak rate of one dtype. Per-core figures are quoted on their
/// own and do not divide evenly from the chip's (trn2 BF16: 79 vs 667 / 8).
struct PeakRate {
  /// "fp32", "bf16", "fp16", "fp8" or "int8".
  std::string dtype;
  std::optional<Figure> perChip;
  std::optional<Figure> perCore;
};

/// Which of the two peak figures computations (cost model, report) use.
enum class PeakBasis { PerCore, PerChip };

/// A logical-NeuronCore mode: how many physical cores one logical core groups.
struct LncMode {
  int lnc = 1;
  int physicalCoresPerLogicalCore = 1;
  bool isDefault = false;
  /// One line saying what a logical core is in this mode.
  std::string definition;
};

/// One chip generation (one data/*.json file).
struct ChipDesc {
  /// The file the description came from, for error messages.
  std::string file;
  std::string name;
  std::vector<std::string> aliases;
  std::string generation;
  std::string coreVersion;
  Figure neuronCores;
  Figure hbmCapacity;
  Figure hbmBandwidth;
  std::optional<Figure> hbmStacks;
  /// How HBM is shared between cores, where published.
  std::string hbmSharing;
  EngineDesc tensor, vector, scalar, gpsimd;
  Figure dmaEnginesPerCore;
  Figure dmaEngineBandwidth;
  /// Bytes per partition a transfer needs for peak bandwidth.
  Figure dmaPeakBytesPerPartition;
  /// What one descriptor (a contiguous run of a transfer) costs its engine,
  /// as the time of moving this many bytes.
  Figure dmaDescriptorOverhead;
  std::optional<Figure> dmaEnginesPerChip;
  Figure dmaChipBandwidth;
  /// What one engine moves transposing 2-byte elements (HBM to SBUF), on
  /// generations with a DMA transpose.
  std::optional<Figure> dmaTransposeBandwidth;
  Figure collectiveCores;
  /// Host-device link of one chip, per direction (a modelling assumption
  /// where no figure is published; the file's note says which).
  Figure hostLink;
  Figure sbufPartitions, sbufBytesPerPartition, sbufPerCore, sbufPerChip;
  Figure psumPartitions, psumBytesPerPartition, psumBanks, psumBankBytes,
      psumPerCore;
  PeakBasis peakBasis = PeakBasis::PerCore;
  std::vector<PeakRate> peaks;
  std::string neuronLinkVersion;
  Figure neuronLinkLinks;
  Figure neuronLinkBandwidth;
  std::string lncSource;
  std::vector<LncMode> lncModes;
  /// Instance types built from this chip, in file order.
  std::vector<std::string> instanceNames;

  /// Physical NeuronCores per chip.
  int physicalCores() const { return static_cast<int>(neuronCores.value); }
  /// The peak rate of `dtype`, or nullptr when none is published.
  const PeakRate *peak(std::string_view dtype) const;
  /// The mode with this lnc value, or nullptr when the generation lacks it.
  const LncMode *findLnc(int lnc) const;
  /// The mode marked default (validation guarantees exactly one).
  const LncMode &defaultLnc() const;
};

/// One instance type: several chips with a host and an interconnect.
struct InstanceDesc {
  std::string file;
  std::string name;
  const ChipDesc *chip = nullptr;
  Figure chips;
  Figure vcpus;
  Figure hostMemory;
  /// Device (HBM) memory of all chips together.
  Figure deviceMemory;
  Figure deviceMemoryBandwidth;
  std::string interconnect;
  std::optional<Figure> efaBandwidth;
  /// Overrides the chip's NeuronLink bandwidth (trn1n).
  std::optional<Figure> neuronLinkBandwidth;
  std::string note;

  /// Chips per instance.
  int chipCount() const { return static_cast<int>(chips.value); }
};

/// A chip (and maybe an instance) with a chosen logical-core mode; the counts
/// and sizes later passes need, so none of them redoes the arithmetic. Points
/// into the TargetRegistry that resolved it: valid while that registry lives.
struct ResolvedTarget {
  const ChipDesc *chip = nullptr;
  /// nullptr when only a chip was named.
  const InstanceDesc *instance = nullptr;
  LncMode lnc;

  /// "trn2.48xlarge,lnc=2" or "trainium2,lnc=2": enough to resolve it again.
  std::string spec() const;
  /// Chips in the instance; 1 when only a chip was named.
  int chips() const { return instance ? instance->chipCount() : 1; }
  int physicalCoresPerChip() const { return chip->physicalCores(); }
  int logicalCoresPerChip() const {
    return physicalCoresPerChip() / lnc.physicalCoresPerLogicalCore;
  }
  int physicalCoresPerInstance() const {
    return physicalCoresPerChip() * chips();
  }
  int logicalCoresPerInstance() const {
    return logicalCoresPerChip() * chips();
  }
  int64_t sbufPartitions() const;
  int64_t sbufBytesPerPartition() const;
  /// Bytes per partition a DMA transfer needs for peak bandwidth.
  int64_t dmaPeakBytesPerPartition() const;
  /// What one contiguous run of a transfer costs a DMA engine beyond its
  /// bytes, as a number of bytes.
  int64_t dmaDescriptorOverheadBytes() const;
  /// SBUF of one logical core: its physical cores' SBUFs together.
  int64_t sbufBytesPerLogicalCore() const;
  int64_t psumPartitions() const;
  int64_t psumBytesPerPartition() const;
  int64_t psumBanks() const;
  int64_t psumBankBytes() const;
  double hbmBytesPerChip() const;
  double hbmBytesPerSecondPerChip() const;
  /// Bytes per second of one chip's host link, per direction.
  double hostLinkBytesPerSecond() const;
  /// DMA engines of one logical core: all its physical cores'.
  int dmaEnginesPerLogicalCore() const {
    return static_cast<int>(chip->dmaEnginesPerCore.value) *
           lnc.physicalCoresPerLogicalCore;
  }
  /// Bytes per second of all DMA engines of one physical core.
  double dmaBytesPerSecondPerPhysicalCore() const;
  /// Peak op/s of one physical core for `dtype` on the chip's peak basis
  /// (the quoted per-core figure, or chip / cores); nullopt when unpublished.
  std::optional<double> peakOpsPerPhysicalCore(std::string_view dtype) const;
};

/// A description embedded in the library at build time.
struct BuiltinTargetFile {
  std::string_view fileName;
  std::string_view text;
};

/// The embedded data/*.json files, in file-name order.
std::vector<BuiltinTargetFile> builtinTargetFiles();

/// All known chips and instances; resolves target specs.
class TargetRegistry {
public:
  /// The descriptions embedded in the library (works from any directory).
  static absl::StatusOr<TargetRegistry> loadBuiltin();
  /// Every *.json file in `dir`.
  static absl::StatusOr<TargetRegistry> loadDirectory(const std::string &dir);

  /// Validates one description and adds it; on error nothing is added.
  absl::Status addFromText(std::string_view fileName, std::string_view text);

  /// Resolves "NAME[,lnc=N]" where NAME is a chip, an alias or an instance.
  absl::StatusOr<ResolvedTarget> resolve(std::string_view spec) const;

  /// A chip by name or alias, or nullptr.
  const ChipDesc *findChip(std::string_view name) const;
  /// An instance by name, or nullptr.
  const InstanceDesc *findInstance(std::string_view name) const;
  /// Chip names (aliases in parentheses not included), sorted.
  std::vector<std::string> chipNames() const;
  /// Instance names, sorted.
  std::vector<std::string> instanceNames() const;

private:
  /// Where `name` is already used, or nullptr.
  const std::string *fileDefining(std::string_view name) const;

  // Held by pointer so ResolvedTarget pointers survive moves of the registry.
  std::vector<std::unique_ptr<ChipDesc>> chips;
  std::vector<std::unique_ptr<InstanceDesc>> instances;
};

/// The text of `neuron-opt --print-target=NAME`: a table with columns per
/// physical core | per logical core | per chip | per instance, the instance
/// and LNC lines, and the numbered figure sources.
std::string formatTargetReport(const ResolvedTarget &t);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_TARGET_TARGET_H
