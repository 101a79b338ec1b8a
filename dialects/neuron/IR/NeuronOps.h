//===- NeuronOps.h - neuron operations -------------------------*- C++ -*-===//

#ifndef NEURON_DIALECTS_NEURON_IR_NEURONOPS_H
#define NEURON_DIALECTS_NEURON_IR_NEURONOPS_H

#include "dialects/neuron/IR/NeuronDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/neuron/IR/NeuronOps.h.inc"

namespace mlir::neuron {
/// Why a kernel of type `kernel` in nisa form (a buffer of each input's
/// shape and element type, then of each result's, and no results) cannot
/// compute `inputs` -> `results`; nullopt when it can.
std::optional<std::string> nisaKernelMismatch(FunctionType kernel,
                                              TypeRange inputs,
                                              TypeRange results);

/// The element strides of a broadcast of a row-major `input` to `result`
/// (input dimension i at result dimension dims[i]) read in place: an input
/// dimension's stride where it keeps its size, 0 where it repeats; a
/// dimension of size 1, never stepped, takes the contiguous stride (as a
/// strided memref type writes it).
SmallVector<int64_t> broadcastStrides(RankedTensorType input,
                                      RankedTensorType result,
                                      ArrayRef<int64_t> dims);

/// The innermost dimensions of [from, to) of `shape` that, stepped by
/// element `strides`, read as one dimension: [first, to), of `size`
/// elements `stride` apart (each stride the next inner one's times that
/// one's size; a dimension of size 1 is never stepped, zero strides merge).
/// All of them where first == from.
struct MergedRun {
  int64_t first, stride, size;
};
MergedRun mergedRun(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                    int64_t from, int64_t to);

/// The split r of `shape` (of `elementBits` elements) into [rows,
/// columns], rows the product of its first r dimensions (0 < r < rank), at
/// which an elementwise fusion tiled `tileRows` rows at a time reads each
/// view of `views` (element strides: the broadcasts it reads in place) as
/// one strided matrix per tile: the columns merge, and the innermost run
/// of the rows that merge fills a tile (any rows outside it looped one at
/// a time; fewer rows than a tile would leave partitions idle that the
/// flattened view fills); and a row holds
/// at least 512 bytes (the NKI DMA guide's shortest efficient contiguous
/// run, so every operand moves in runs that long). The one with the most
/// rows, or nullopt.
std::optional<int64_t> matrixSplit(ArrayRef<int64_t> shape,
                                   ArrayRef<SmallVector<int64_t>> views,
                                   int64_t elementBits, int64_t tileRows);

/// Whether a window op's `padding` ([top, bottom, left, right]) pads at all.
bool isPadded(ArrayRef<int64_t> padding);
/// Whether the engines tile `conv`: nchw_fchw, float, no bias and no
/// padding (the import pads separately).
bool isEngineTiled(Conv2DOp conv);
/// Whether the engines tile `pool`: float and no padding.
bool isEngineTiled(Pool2DOp pool);
/// Whether `conv` has one input channel per group (depthwise).
bool isDepthwiseConv(Conv2DOp conv);

/// Whether a [N, C, H, W] view with `strides` reads `rows` whole rows of
/// `cols` elements as one run of rows * cols: one row, or rows `cols`
/// column strides apart.
bool rowsMerge(ArrayRef<int64_t> strides, int64_t rows, int64_t cols);

/// The float a splat neuron.constant holds, or nullopt.
std::optional<double> splatFloat(Value value);

/// The scalar an elementwise op reads at `use` as an immediate operand of
/// one vector-engine instruction, instead of a tensor: a float splat
/// neuron.constant that is the right operand of a binary arithmetic op or
/// a comparison, or the left one of a commutative op or a comparison (whose
/// predicate then swaps) whose right operand is not a splat constant too;
/// or one value operand of a select whose other one is not (the tiling
/// fills a tile with it on chip).
std::optional<double> immediateOf(OpOperand &use);

/// On a kernel launched while collectives it reads are in flight: per
/// input, nanoseconds after the launch it is predicted to arrive (0: at the
/// launch). neuron-place-collectives sets it; the lowering and
/// nisa-schedule read it.
inline constexpr llvm::StringLiteral kInputArrivalsAttr =
    "neuron.input_arrivals_ns";

/// Whether `value` is used, and every use of it by an op `reader` accepts
/// (every use, without one) reads it as an immediate: a splat constant a
/// kernel or a fusion holds a copy of, or needs no buffer for.
bool readAsImmediates(Value value,
                      function_ref<bool(Operation *)> reader = nullptr);
/// The operand of `op` that holds indices rather than data: a gather's
/// indices, a dynamic slice's or dynamic update's offset; null for others.
OpOperand *getIndexOperand(Operation *op);
} // namespace mlir::neuron

namespace mlir::neuron {

/// The attributes of a collective, whichever op carries them (one of the
/// four synchronous ones or collective_start).
struct CollectiveInfo {
  CollectiveKind kind;
  Value input;
  ArrayRef<int64_t> grid, axes;
  std::optional<CollectiveReduction> reduction;
  std::optional<int64_t> axis, split, concat;
};

/// `op`'s collective, or nullopt when it is not a collective.
std::optional<CollectiveInfo> getCollectiveInfo(Operation *op);

/// Whether `op` gives a collective's result: a collective_done, or a
/// synchronous collective.
bool isCollectiveResult(Operation *op);

/// Whether `concat` joins results of collectives (synchronous ones or
/// collective_done) that nothing else reads, each a contiguous window of
/// its static result (every dimension before its axis is 1): the
/// collectives can write straight into the joined tensor, so the join
/// itself moves no data (neuron-decompose-collectives' row chunks).
bool joinsCollectiveResults(ConcatOp concat);

/// The collective_done ops whose results `value` is, through reshapes and
/// a join of collective results; empty when it is anything else (or a join
/// with a synchronous collective among its pieces).
SmallVector<CollectiveDoneOp> collectiveDonesOf(Value value);

} // namespace mlir::neuron

#endif // NEURON_DIALECTS_NEURON_IR_NEURONOPS_H
