//===- CostModel.cpp - Instruction times of one NeuronCore ----------------===//

#include "runtime/target/CostModel.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <vector>

namespace neuron::rt {

// Modelling assumptions (no published figure): the fixed cycles every
// instruction of an engine costs on top of its streaming (issue, pipeline
// fill and drain), the cycles a gather spends per partition's descriptor,
// and the fixed cost of one DMA transfer.
static constexpr double kTensorFixedCycles = 32;
static constexpr double kEngineFixedCycles = 64;
static constexpr double kGatherCyclesPerPartition = 16;
static constexpr double kDmaFixedNs = 200;

std::string_view engineClassName(EngineClass engine) {
  switch (engine) {
  case EngineClass::Tensor: return "tensor";
  case EngineClass::Vector: return "vector";
  case EngineClass::Scalar: return "scalar";
  case EngineClass::GpSimd: return "gpsimd";
  case EngineClass::Dma: return "dma";
  }
  return "dma";
}

EngineClass engineOf(CostQuery::Kind kind) {
  switch (kind) {
  case CostQuery::Kind::Matmul:
  case CostQuery::Kind::Transpose: return EngineClass::Tensor;
  case CostQuery::Kind::Elementwise: return EngineClass::Vector;
  case CostQuery::Kind::Activation: return EngineClass::Scalar;
  case CostQuery::Kind::Fill:
  case CostQuery::Kind::Gather: return EngineClass::GpSimd;
  case CostQuery::Kind::Dma: return EngineClass::Dma;
  }
  return EngineClass::Dma;
}

int64_t contiguousRun(const int64_t *sizes, const int64_t *strides,
                      size_t rank) {
  int64_t run = 1;
  for (size_t i = rank; i-- > 0;) {
    if (sizes[i] == 1)
      continue;
    if (strides[i] != run)
      break;
    run *= sizes[i];
  }
  return run;
}

int64_t innermostStep(const int64_t *sizes, const int64_t *strides,
                      size_t rank) {
  for (size_t i = rank; i-- > 0;)
    if (sizes[i] > 1)
      return strides[i];
  return 1;
}

bool isTransposedPattern(const int64_t *sizes, const int64_t *strides,
                         size_t rank) {
  std::vector<int64_t> steps;
  for (size_t i = 0; i < rank; ++i)
    if (sizes[i] > 1)
      steps.push_back(strides[i]);
  return steps.size() == 2 && steps[0] == 1 && steps[1] > 1;
}

bool isPairTransposedPattern(const int64_t *sizes, const int64_t *strides,
                             size_t rank) {
  if (rank < 2 || sizes[rank - 1] != 2 || strides[rank - 1] != 1)
    return false;
  std::vector<int64_t> units;
  for (size_t i = 0; i + 1 < rank; ++i) {
    if (sizes[i] > 1 && strides[i] % 2 != 0)
      return false;
    units.push_back(strides[i] / 2);
  }
  return isTransposedPattern(sizes, units.data(), rank - 1);
}

OperandShape operandShapeOf(std::string_view dtype, int64_t elementBytes,
                            const int64_t *shape, size_t rank,
                            const int64_t *strides, bool onChip) {
  OperandShape s;
  s.dtype = dtype;
  s.elementBytes = elementBytes;
  s.partitions = rank ? shape[0] : 1;
  s.elements = 1;
  for (size_t d = 0; d < rank; ++d)
    s.elements *= shape[d];
  if (!onChip) {
    s.run = contiguousRun(shape, strides, rank);
    s.transposed = isTransposedPattern(shape, strides, rank);
    if (!s.transposed && elementBytes == 1 &&
        isPairTransposedPattern(shape, strides, rank))
      s.transposed = s.transposedPairs = true;
  } else if (strides && rank > 1) {
    s.run = std::min(s.elements / std::max<int64_t>(s.partitions, 1),
                     contiguousRun(shape + 1, strides, rank - 1));
    s.strideBytes = innermostStep(shape + 1, strides, rank - 1) * elementBytes;
  }
  return s;
}

CostQuery costQueryFor(std::string_view op, const OperandShape &dst,
                       const OperandShape &source) {
  using Kind = CostQuery::Kind;
  CostQuery q;
  auto perPartition = [](const OperandShape &s) {
    return s.elements / std::max<int64_t>(s.partitions, 1);
  };
  q.partitions = dst.partitions;
  q.freeElements = perPartition(dst);
  q.bytes = dst.elements * dst.elementBytes;
  q.wideStride = std::max(dst.strideBytes, source.strideBytes) >
                 kWideStrideBytes;
  if (op == "dma_copy") {
    q.kind = Kind::Dma;
    auto runOf = [&](const OperandShape &s) {
      return s.run > 0 ? s.run : std::max<int64_t>(perPartition(s), 1);
    };
    int64_t run = std::min(runOf(dst), runOf(source));
    q.descriptors = std::max<int64_t>(1, (dst.elements + run - 1) / run);
    // The DMA transpose reads HBM into a tile on chip, moving 2-byte
    // elements, or pairs of 1-byte ones as such.
    q.transposes = source.transposed && dst.run == 0 &&
                   (dst.elementBytes == 2 ||
                    (dst.elementBytes == 1 && source.transposedPairs));
  } else if (op == "matmul") {
    q.kind = Kind::Matmul;
    q.dtype = source.dtype;
    q.columns = perPartition(source);
  } else if (op == "transpose") {
    q.kind = Kind::Transpose;
    q.dtype = source.dtype;
    q.columns = source.partitions;
  } else if (op == "activation") {
    q.kind = Kind::Activation;
    q.freeElements = std::max(q.freeElements, perPartition(source));
  } else if (op == "memset" || op == "iota") {
    q.kind = Kind::Fill;
  } else if (op == "gather") {
    q.kind = Kind::Gather;
  } else {
    // tensor_tensor, tensor_scalar, scalar_tensor_tensor (its scalar step
    // is free: NKI ISA), select, tensor_reduce.
    q.kind = Kind::Elementwise;
    q.freeElements = std::max(q.freeElements, perPartition(source));
  }
  return q;
}

/// The peak-rate name ("fp32", "bf16", ...) whose figure times a matmul of
/// `dtype`.
static std::string_view peakClass(std::string_view dtype) {
  if (dtype == "bf16") return "bf16";
  if (dtype == "f16") return "fp16";
  if (dtype.substr(0, 2) == "f8") return "fp8";
  if (dtype == "i8") return "int8";
  return "fp32";
}

absl::StatusOr<CostModel> CostModel::forTarget(const ResolvedTarget &target) {
  const ChipDesc &chip = *target.chip;
  CostModel m;
  auto clock = [&](const EngineDesc &e, std::string_view name,
                   double &ghz) -> absl::Status {
    absl::StatusOr<double> hz = toHertz(e.clock);
    if (!hz.ok() || *hz <= 0)
      return absl::InvalidArgumentError(absl::StrFormat(
          "cost model: %s: the %s engine has no clock", chip.file, name));
    ghz = *hz * 1e-9;
    return absl::OkStatus();
  };
  for (auto [desc, name, ghz] :
       {std::tuple{&chip.tensor, "tensor", &m.tensorClockGHz},
        std::tuple{&chip.vector, "vector", &m.vectorClockGHz},
        std::tuple{&chip.scalar, "scalar", &m.scalarClockGHz},
        std::tuple{&chip.gpsimd, "gpsimd", &m.gpsimdClockGHz}})
    if (absl::Status s = clock(*desc, name, *ghz); !s.ok())
      return s;

  // A matmul streams one moving column per `cycles` through the array of
  // `arrayRows` x `arrayRows` multiply-accumulates: the published peak is
  // 2 x rows^2 x clock / cycles.
  m.arrayRows = target.sbufPartitions();
  double opsPerCycleAtOneColumn = 2.0 * m.arrayRows * m.arrayRows;
  auto cycles = [&](std::string_view peakName) -> std::optional<double> {
    std::optional<double> peak = target.peakOpsPerPhysicalCore(peakName);
    if (!peak || *peak <= 0)
      return std::nullopt;
    return opsPerCycleAtOneColumn * m.tensorClockGHz * 1e9 / *peak;
  };
  std::optional<double> f32 = cycles("fp32");
  if (!f32)
    return absl::InvalidArgumentError(absl::StrFormat(
        "cost model: %s: no fp32 peak rate is published", chip.file));
  m.cyclesPerColumnF32 = *f32;
  m.cyclesPerColumn16 = cycles("bf16").value_or(*f32);
  m.cyclesPerColumn8 = cycles("fp8").value_or(m.cyclesPerColumn16);
  if (chip.tensor.fp8PeakRows)
    m.fp8Rows = std::max<int64_t>(1, int64_t(chip.tensor.fp8PeakRows->value));
  if (chip.tensor.fp32TransposeSpeedup) {
    m.hasTransposeMode = true;
    m.f32TransposeSpeedup =
        std::max(1.0, chip.tensor.fp32TransposeSpeedup->value);
  }

  // A logical core of several physical cores (lnc=2): each physical core
  // runs its own instructions on its own engines and DMA engines; they
  // share the logical core's HBM bandwidth.
  m.cores = std::max(1, target.lnc.physicalCoresPerLogicalCore);
  m.engines = target.dmaEnginesPerLogicalCore() / m.cores;
  absl::StatusOr<double> engineBw = toBytesPerSecond(chip.dmaEngineBandwidth);
  if (m.engines <= 0 || !engineBw.ok() || *engineBw <= 0)
    return absl::InvalidArgumentError(absl::StrFormat(
        "cost model: %s: no DMA engines or engine bandwidth", chip.file));
  m.engineBytesPerNs = *engineBw * 1e-9;
  double hbm = target.hbmBytesPerSecondPerChip();
  if (hbm <= 0)
    return absl::InvalidArgumentError(
        absl::StrFormat("cost model: %s: no HBM bandwidth", chip.file));
  m.hbmPerNs = hbm * 1e-9 / target.physicalCoresPerChip() * m.cores;
  m.dmaFixed = kDmaFixedNs;
  m.descriptorOverhead = double(target.dmaDescriptorOverheadBytes());
  if (chip.dmaTransposeBandwidth) {
    absl::StatusOr<double> t = toBytesPerSecond(*chip.dmaTransposeBandwidth);
    if (!t.ok() || *t <= 0)
      return absl::InvalidArgumentError(absl::StrFormat(
          "cost model: %s: a DMA transpose bandwidth that is not positive",
          chip.file));
    m.transposeBytesPerNs = *t * 1e-9;
  }
  m.hostLinkPerNs = std::max(0.0, target.hostLinkBytesPerSecond()) * 1e-9;
  return m;
}

double CostModel::nanoseconds(const CostQuery &q) const {
  double rate = q.wideStride ? 0.5 : 1.0;
  auto streaming = [&](double elements, double ghz) {
    return (kEngineFixedCycles + std::max(elements, 1.0) / rate) / ghz;
  };
  switch (q.kind) {
  case CostQuery::Kind::Matmul:
  case CostQuery::Kind::Transpose: {
    double columns = std::max<double>(q.columns, 1) / rate;
    double cycles = cyclesPerColumn(q.dtype);
    // The FP8 peak may be a mode contracting several rows per partition
    // (double-row): a pass of fewer streams its columns as much slower.
    if (peakClass(q.dtype) == "fp8")
      cycles *= double(fp8Rows) /
                double(std::clamp<int64_t>(q.rows, 1, fp8Rows));
    // A transpose mode may stream FP32 faster than a matmul with the
    // identity would.
    if (q.kind == CostQuery::Kind::Transpose && peakClass(q.dtype) == "fp32")
      cycles /= f32TransposeSpeedup;
    return (kTensorFixedCycles + columns * cycles) / tensorClockGHz;
  }
  case CostQuery::Kind::Elementwise:
    return streaming(q.freeElements, vectorClockGHz);
  case CostQuery::Kind::Activation:
    return streaming(q.freeElements, scalarClockGHz);
  case CostQuery::Kind::Fill:
    return streaming(q.freeElements, gpsimdClockGHz);
  case CostQuery::Kind::Gather:
    return (kEngineFixedCycles +
            kGatherCyclesPerPartition * std::max<double>(q.partitions, 1)) /
               gpsimdClockGHz +
           q.bytes / engineBytesPerNs;
  case CostQuery::Kind::Dma:
    return dmaFixed + dmaStreamBytes(q) / engineBytesPerNs;
  }
  return dmaFixed;
}

double CostModel::dmaStreamBytes(const CostQuery &q) const {
  double bytes = std::max<double>(q.bytes, 0);
  // A DMA transpose streams at its own rate: as many bytes at the copy
  // rate as take that long.
  if (q.transposes && transposeBytesPerNs > 0)
    return bytes * engineBytesPerNs / transposeBytesPerNs;
  return bytes + std::max<double>(q.descriptors, 1) * descriptorOverhead;
}

int64_t CostModel::transferPieces(double streamingNs, bool dmaBound) const {
  double piece = (dmaBound ? 4 : 1) * dmaFixed;
  return std::clamp<int64_t>(int64_t(streamingNs / piece), 1, engines);
}

double CostModel::dmaEfficiency(double runBytes) const {
  return runBytes / (runBytes + descriptorOverhead);
}

double CostModel::tensorPeakOpsPerNs(std::string_view dtype) const {
  return 2.0 * arrayRows * arrayRows * tensorClockGHz / cyclesPerColumn(dtype);
}

double CostModel::cyclesPerColumn(std::string_view dtype) const {
  std::string_view peak = peakClass(dtype);
  if (peak == "fp32")
    return cyclesPerColumnF32;
  if (peak == "fp8" || peak == "int8")
    return cyclesPerColumn8;
  return cyclesPerColumn16;
}

std::string CostModel::assumptions() const {
  return absl::StrFormat(
      "tensor engine: %g fixed cycles per instruction, %g cycles per moving "
      "column (fp32), %g (bf16/fp16), %g (fp8/int8%s), from the published "
      "peaks; a transpose as a matmul with the identity%s\n"
      "vector, scalar, gpsimd: %g fixed cycles per instruction, one element "
      "per partition per cycle\n"
      "every engine: half its rate on an on-chip operand whose elements are "
      "more than %d bytes apart (NKI performance guide)\n"
      "gather: %g gpsimd cycles per partition plus its bytes at one DMA "
      "engine's bandwidth\n"
      "DMA: %d engines per physical core of %.1f B/ns, %g ns fixed per "
      "transfer, each "
      "contiguous run (descriptor) costing its engine as much as %g more "
      "bytes, a transpose of 2-byte elements (an FP8 pair side by side "
      "being one) %s, serving as "
      "many queues (each queue's transfers start in order on any free "
      "engine); %.1f B/ns of HBM per logical core shared by its engines\n"
      "logical core: %d physical cores, each running the instructions the "
      "compiler gave it on its own engines, DMA engines and SBUF; the HBM "
      "share is the logical core's, shared by all its transfers\n"
      "host call: its inputs and results cross the host link at %.1f B/ns "
      "each way, plus its host compute as measured by a functional run "
      "(none measured: 0)\n",
      kTensorFixedCycles, cyclesPerColumnF32, cyclesPerColumn16,
      cyclesPerColumn8,
      fp8Rows > 1
          ? absl::StrFormat(", fp8 contracting %d rows per partition (the "
                            "double-row mode); %d times as many cycles with "
                            "one",
                            fp8Rows, fp8Rows)
          : std::string(),
      f32TransposeSpeedup > 1
          ? absl::StrFormat(", an fp32 one in the transpose mode at %g "
                            "times its rate",
                            f32TransposeSpeedup)
          : std::string(),
      kEngineFixedCycles, kWideStrideBytes,
      kGatherCyclesPerPartition, engines,
      engineBytesPerNs, dmaFixed, descriptorOverhead,
      transposeBytesPerNs > 0
          ? absl::StrFormat("moving %.1f B/ns", transposeBytesPerNs)
          : std::string("a descriptor per element (no DMA transpose)"),
      hbmPerNs, cores, hostLinkPerNs);
}

} // namespace neuron::rt
