//===- CostModel.h - Instruction times of one NeuronCore -------*- C++ -*-===//
//
// The one cost model the scheduler (nisa-schedule) and the runtime's timing
// simulator share: how long an instruction keeps its engine or DMA queue
// busy on a resolved target. Clocks, peak rates and bandwidths come from the
// target description; the per-instruction overheads and the vector, scalar
// and gpsimd throughput (one element per partition per cycle) are modelling
// assumptions, listed by `assumptions()` so every report can print them.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_TARGET_COSTMODEL_H
#define NEURON_RUNTIME_TARGET_COSTMODEL_H

#include "runtime/target/Target.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace neuron::rt {

/// The resource class an instruction occupies.
enum class EngineClass { Tensor, Vector, Scalar, GpSimd, Dma };
inline constexpr int kEngineClasses = 5;

/// "tensor", "vector", "scalar", "gpsimd" or "dma".
std::string_view engineClassName(EngineClass engine);

/// What the time of one instruction depends on.
struct CostQuery {
  enum class Kind {
    Matmul,     // columns = the moving operand's free size N
    Transpose,  // columns = the source's partitions
    Elementwise, // vector: freeElements per partition
    Activation, // scalar: freeElements per partition
    Fill,       // gpsimd memset/iota: freeElements per partition
    Gather,     // gpsimd: partitions descriptors moving `bytes`
    Dma         // `bytes` in `descriptors` contiguous runs on one queue
  };
  Kind kind = Kind::Dma;
  /// Matmul and transpose: the operand dtype as executables spell it
  /// ("bf16", "f32", "f8E4M3FN", "i8", ...).
  std::string_view dtype = "f32";
  int64_t columns = 0;
  /// Matmul: the K rows each partition contracts (2 in the double-row FP8
  /// mode, whose columns count both rows' moving elements).
  int64_t rows = 1;
  int64_t partitions = 0;
  int64_t freeElements = 0;
  int64_t bytes = 0;
  int64_t descriptors = 1;
  /// Dma: a 2-D transpose of 2-byte elements (or of FP8 pairs side by
  /// side, as such) from HBM into a tile, which a generation with a DMA
  /// transpose moves at its transpose bandwidth instead of a descriptor
  /// per element.
  bool transposes = false;
  /// A compute engine's operand steps more than kWideStrideBytes between
  /// elements on chip, which halves the rate the engine streams it.
  bool wideStride = false;
};

/// The on-chip element step above which an engine reads or writes at half
/// its rate (NKI performance guide: "strides over 16 B halve bandwidth").
inline constexpr int64_t kWideStrideBytes = 16;

/// The engine class a query's instruction runs on.
EngineClass engineOf(CostQuery::Kind kind);

/// The shape of one instruction operand, as the cost model sees it.
struct OperandShape {
  /// As executables spell it: "bf16", "f32", ...
  std::string_view dtype = "f32";
  int64_t elementBytes = 4;
  /// The first dimension of an on-chip tile (1 for a scalar).
  int64_t partitions = 1;
  /// All elements.
  int64_t elements = 1;
  /// The elements of each contiguous run of its access pattern: a tile's
  /// partition at most (0: each partition's elements, a contiguous tile).
  int64_t run = 0;
  /// On chip: the step in bytes between consecutive elements of its
  /// innermost free dimension (0 for a contiguous tile).
  int64_t strideBytes = 0;
  /// In HBM: a transposing pattern, two dimensions (of size > 1), the
  /// inner one strided and the outer one contiguous.
  bool transposed = false;
  /// That pattern's unit is two 1-byte elements side by side (an FP8
  /// pair, which a DMA transpose moves as one 2-byte element).
  bool transposedPairs = false;
};

/// The elements of each contiguous run of the row-major access pattern
/// `sizes` x `strides` (element strides), from the innermost dimension
/// out: dimensions of size 1 are never stepped and do not break a run.
int64_t contiguousRun(const int64_t *sizes, const int64_t *strides,
                      size_t rank);
/// The step in elements of the innermost dimension of size > 1 of that
/// pattern (1 when there is none).
int64_t innermostStep(const int64_t *sizes, const int64_t *strides,
                      size_t rank);
/// Whether that pattern is a transpose: two dimensions of size > 1, the
/// inner one stepping by more than one element and the outer contiguous.
bool isTransposedPattern(const int64_t *sizes, const int64_t *strides,
                         size_t rank);
/// Whether that pattern is a transpose of pairs of elements: an innermost
/// dimension of 2 contiguous elements, and the dimensions outside it a
/// transpose (isTransposedPattern) in units of two elements.
bool isPairTransposedPattern(const int64_t *sizes, const int64_t *strides,
                             size_t rank);

/// How the cost model sees an operand of `shape` (rank dimensions) and
/// `dtype` (`elementBytes` each). In HBM `strides` gives every dimension's
/// element stride; on chip, those of the free dimensions (shape[1..]), or
/// null for a contiguous tile.
OperandShape operandShapeOf(std::string_view dtype, int64_t elementBytes,
                            const int64_t *shape, size_t rank,
                            const int64_t *strides, bool onChip);

/// The query of the instruction `op` (an executable's op name: "matmul",
/// "dma_copy", ...) from its destination and its main source: `moving` of a
/// matmul, `lhs` of a tensor_tensor, `on_true` of a select, `src` of the
/// others (`dst` again for memset and iota; unused for dma_copy and
/// gather). The scheduler and the simulator both derive costs through this.
/// A dma_copy moves one descriptor per contiguous run common to `dst` and
/// `source`.
CostQuery costQueryFor(std::string_view op, const OperandShape &dst,
                       const OperandShape &source);

class CostModel {
public:
  /// The model of one logical core of `target`: at lnc=2, two physical
  /// cores, each running its own instructions on its own engines and DMA
  /// engines (the times of one instruction are one physical core's), all
  /// sharing the logical core's HBM bandwidth; an error when a figure it
  /// needs (a clock, the fp32 peak, DMA or HBM bandwidth) is missing.
  static absl::StatusOr<CostModel> forTarget(const ResolvedTarget &target);

  /// Nanoseconds `q` keeps its engine (or a DMA engine, at its full
  /// bandwidth) busy. Always positive.
  double nanoseconds(const CostQuery &q) const;

  /// The bytes a transfer's streaming phase costs: its payload plus the
  /// target's descriptor overhead per contiguous run. Both the DMA engine
  /// and the core's HBM share are busy for this many bytes.
  double dmaStreamBytes(const CostQuery &q) const;
  /// The share of a DMA engine's bandwidth a transfer of contiguous runs of
  /// `runBytes` reaches: runBytes / (runBytes + descriptor overhead).
  double dmaEfficiency(double runBytes) const;

  /// DMA engines of one physical core, each moving `dmaEngineBytesPerNs()`;
  /// the core has as many DMA queues, each served by any of its engines.
  int dmaEngines() const { return engines; }
  double dmaEngineBytesPerNs() const { return engineBytesPerNs; }
  /// The fixed cost of one transfer (descriptor processing, latency).
  double dmaFixedNs() const { return dmaFixed; }
  /// The pieces a transfer streaming for `streamingNs` is cut into so the
  /// DMA engines move them side by side, from 1 to dmaEngines(). Each
  /// streams at least as long as its fixed cost, so at most half of a
  /// piece's time is overhead; where the engines' time is what bounds the
  /// kernel (`dmaBound`), four times as long, so a cut wastes little of it.
  int64_t transferPieces(double streamingNs, bool dmaBound) const;
  /// One logical core's share of its chip's HBM bandwidth: what all its engines
  /// together can move when every core of the chip streams.
  double hbmBytesPerNs() const { return hbmPerNs; }
  /// The host-device link of the chip, each way (host_call transfers); 0
  /// when the target gives none.
  double hostLinkBytesPerNs() const { return hostLinkPerNs; }
  /// Physical cores of the logical core, each with its own engines.
  int physicalCores() const { return cores; }
  /// The K rows per partition an FP8 matmul contracts at the FP8 peak (2
  /// where that peak is the double-row mode's, else 1).
  int64_t fp8PeakRows() const { return fp8Rows; }
  /// Whether the tensor engine has a transpose mode (NeuronCore-v3 on):
  /// a transpose writes its source's dtype to PSUM; without it a transpose
  /// is a matmul with the identity, writing a matmul's FP32 (INT32).
  bool transposeMode() const { return hasTransposeMode; }
  /// Peak tensor-engine operations per ns of one physical core for a
  /// matmul dtype.
  double tensorPeakOpsPerNs(std::string_view dtype) const;
  /// One line per modelling assumption, for reports.
  std::string assumptions() const;

private:
  double cyclesPerColumn(std::string_view dtype) const;

  double tensorClockGHz = 0, vectorClockGHz = 0, scalarClockGHz = 0,
         gpsimdClockGHz = 0;
  int64_t arrayRows = 128;
  /// Tensor-engine cycles per moving column, by dtype class.
  double cyclesPerColumnF32 = 4, cyclesPerColumn16 = 1, cyclesPerColumn8 = 1;
  /// The K rows per partition of an FP8 matmul at cyclesPerColumn8 (2
  /// where the FP8 peak is the double-row mode's).
  int64_t fp8Rows = 1;
  /// How many times faster than an FP32 matmul's an FP32 transpose streams
  /// its columns (NeuronCore-v3's transpose mode).
  double f32TransposeSpeedup = 1;
  /// Whether the tensor engine has a transpose mode (transposeMode()).
  bool hasTransposeMode = false;
  /// Physical cores per logical core.
  int cores = 1;
  int engines = 16;
  double engineBytesPerNs = 0, hbmPerNs = 0, dmaFixed = 0, hostLinkPerNs = 0;
  double descriptorOverhead = 0;
  /// 0 where the generation has no DMA transpose.
  double transposeBytesPerNs = 0;
};

} // namespace neuron::rt

#endif // NEURON_RUNTIME_TARGET_COSTMODEL_H
