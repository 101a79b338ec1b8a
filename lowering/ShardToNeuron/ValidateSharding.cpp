//===- ValidateSharding.cpp - the neuron-validate-sharding pass -----------===//
//
// Upstream `sharding-propagation` and `shard-partition` trust their input:
// a grid axis outside the grid segfaults partitioning, split axes past the
// tensor's rank read past the end of its shape, and a dimension that the
// cores do not divide is silently rounded up. Some of this is caught by the
// shard verifier, the rest is not; this pass checks all of it, with
// locations, before those passes run.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "lowering/LinalgToNeuron/Utils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallSet.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONVALIDATESHARDING
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

/// `shape` as `2x?x4`.
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      shape, os,
      [&](int64_t s) {
        if (ShapedType::isDynamic(s))
          os << "?";
        else
          os << s;
      },
      "x");
  return text;
}

/// Checks what a sharding says on its own: its grid exists and is static,
/// its axes are in the grid and each appears once, it asks for no halos or
/// explicit offsets.
static LogicalResult verifySharding(shard::ShardingOp sharding,
                                    SymbolTableCollection &symbolTables) {
  FlatSymbolRefAttr symbol = sharding.getGridAttr();
  shard::GridOp grid = shard::getGridOrNull(sharding, symbol, symbolTables);
  if (!grid)
    return sharding.emitError("sharding names ")
           << symbol << ", which is not a shard.grid";
  ArrayRef<int64_t> gridShape = grid.getShape();
  if (ShapedType::isDynamicShape(gridShape))
    return sharding.emitError("grid ")
           << symbol << " has a dynamic shape (" << formatShape(gridShape)
           << "); sharding needs the number of cores on every grid axis";

  llvm::SmallDenseMap<int64_t, int64_t> dimOfAxis;
  for (auto [dim, axes] : llvm::enumerate(sharding.getSplitAxes())) {
    for (int16_t axis : axes.asArrayRef()) {
      if (axis < 0 || axis >= grid.getRank())
        return sharding.emitError("grid axis ")
               << axis << " (splitting tensor dimension " << dim
               << ") is outside the " << grid.getRank() << "-dimensional grid "
               << symbol;
      auto [it, inserted] = dimOfAxis.try_emplace(axis, dim);
      if (!inserted)
        return sharding.emitError("grid axis ")
               << axis << " is used twice in one sharding (tensor dimensions "
               << it->second << " and " << dim << ")";
    }
  }
  if (!sharding.getStaticHaloSizes().empty() ||
      !sharding.getDynamicHaloSizes().empty())
    return sharding.emitError("halo sizes are not supported: the neuron "
                              "collectives exchange no halos");
  if (!sharding.getStaticShardedDimsOffsets().empty() ||
      !sharding.getDynamicShardedDimsOffsets().empty())
    return sharding.emitError("explicit sharded_dims_offsets are not "
                              "supported: every core gets an equal part");
  return success();
}

/// Checks a sharding against the tensor it annotates: no more split
/// dimensions than the tensor has, and each statically sized split dimension
/// divisible by the number of cores it is split over.
static LogicalResult verifyAnnotation(shard::ShardOp op,
                                      shard::ShardingOp sharding,
                                      SymbolTableCollection &symbolTables) {
  auto type = cast<RankedTensorType>(op.getSrc().getType());
  shard::GridAxesArrayAttr splitAxes = sharding.getSplitAxes();
  // Trailing empty sub-arrays split nothing; `[[]]` is how a scalar is
  // replicated.
  size_t splitDims = splitAxes.size();
  while (splitDims > 0 && splitAxes.getAxes()[splitDims - 1].empty())
    --splitDims;
  if (int64_t(splitDims) > type.getRank())
    return op.emitError("sharding splits tensor dimension ")
           << splitDims - 1 << " but the tensor " << type << " has rank "
           << type.getRank();

  shard::GridOp grid =
      shard::getGridOrNull(sharding, sharding.getGridAttr(), symbolTables);
  for (auto [dim, axes] : llvm::enumerate(splitAxes)) {
    if (axes.empty() || type.isDynamicDim(dim))
      continue;
    int64_t cores = 1;
    for (int16_t axis : axes.asArrayRef())
      cores *= grid.getShape()[axis];
    if (type.getDimSize(dim) % cores != 0)
      return op.emitError("dimension ")
             << dim << " of " << type << " (size " << type.getDimSize(dim)
             << ") does not split evenly over the " << cores
             << " cores of grid axes [" << axes.asArrayRef() << "] of "
             << sharding.getGridAttr();
  }
  return success();
}

/// `neuron.sharding` of a value annotated by `sharding`: for each tensor
/// dimension, the grid axes it is split over.
static ArrayAttr splitAxesAttr(shard::ShardingOp sharding, int64_t rank) {
  Builder b(sharding.getContext());
  SmallVector<Attribute> dims;
  for (shard::GridAxesAttr axes : sharding.getSplitAxes().getAxes()) {
    SmallVector<int64_t> list(axes.asArrayRef().begin(),
                              axes.asArrayRef().end());
    dims.push_back(b.getDenseI64ArrayAttr(list));
  }
  while (int64_t(dims.size()) < rank)
    dims.push_back(b.getDenseI64ArrayAttr({}));
  return b.getArrayAttr(dims);
}

/// Records on function arguments and results the sharding they are
/// annotated with (`neuron.sharding`), which partitioning forgets: the
/// executable needs it to split whole inputs into each core's shard and
/// reassemble whole outputs.
static void recordIoShardings(ModuleOp module) {
  module.walk([](func::FuncOp f) {
    if (f.isExternal())
      return;
    auto annotation = [](Operation *op) -> std::optional<ArrayAttr> {
      auto ann = dyn_cast_if_present<shard::ShardOp>(op);
      auto sharding =
          ann ? ann.getSharding().getDefiningOp<shard::ShardingOp>() : nullptr;
      if (!sharding)
        return std::nullopt;
      auto type = cast<RankedTensorType>(ann.getResult().getType());
      return splitAxesAttr(sharding, type.getRank());
    };
    for (BlockArgument arg : f.getArguments())
      for (Operation *user : arg.getUsers())
        if (std::optional<ArrayAttr> axes = annotation(user))
          f.setArgAttr(arg.getArgNumber(), "neuron.sharding", *axes);
    Operation *ret = f.getBody().back().getTerminator();
    for (auto [i, v] : llvm::enumerate(ret->getOperands()))
      if (std::optional<ArrayAttr> axes = annotation(v.getDefiningOp()))
        f.setResultAttr(i, "neuron.sharding", *axes);
  });
}

/// Whether `f` holds shard annotations.
static bool isSharded(func::FuncOp f) {
  return f && f.walk([](shard::ShardOp) { return WalkResult::interrupt(); })
                  .wasInterrupted();
}

namespace {
struct NeuronValidateShardingPass
    : neuron::impl::NeuronValidateShardingBase<NeuronValidateShardingPass> {
  using NeuronValidateShardingBase::NeuronValidateShardingBase;

  void runOnOperation() override {
    SymbolTableCollection symbolTables;
    bool valid = true;
    llvm::SmallPtrSet<Operation *, 16> invalidShardings;
    getOperation().walk([&](shard::ShardingOp sharding) {
      ++numShardings;
      if (failed(verifySharding(sharding, symbolTables))) {
        valid = false;
        invalidShardings.insert(sharding);
      }
    });
    getOperation().walk([&](shard::ShardOp op) {
      ++numAnnotations;
      auto sharding = op.getSharding().getDefiningOp<shard::ShardingOp>();
      if (!sharding) {
        valid = false;
        op.emitError("expected the sharding to be defined by a "
                     "shard.sharding op, so it can be checked and "
                     "propagated");
        return;
      }
      // The sharding's own error has been reported already.
      if (invalidShardings.contains(sharding))
        return;
      if (failed(verifyAnnotation(op, sharding, symbolTables)))
        valid = false;
    });
    // Upstream propagation reports a rule's failure but carries on, and
    // partition then crashes: what the rules refuse is refused here.
    getOperation().walk([&](Operation *op) {
      if (!isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op) ||
          !isSharded(op->getParentOfType<func::FuncOp>()))
        return;
      auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
      if (!slice.getSizes().empty() || !slice.getStrides().empty()) {
        valid = false;
        op->emitError("cannot shard a slice with dynamic sizes or strides: "
                      "the sharding rule for slices needs them static");
        return;
      }
      // A dynamic offset keeps its dimension whole; neuron-prepare-sharding
      // makes the slice take the position as a tensor.
      if (llvm::all_of(slice.getOffsets(), [](Value offset) {
            return bool(neuron::positionTensor(offset));
          }))
        return;
      valid = false;
      op->emitError("cannot shard a slice at an offset that is not read from "
                    "a one-element integer tensor (as exporters pass a decode "
                    "step's position): sharding follows tensors, not "
                    "scalars");
    });
    if (!valid)
      return signalPassFailure();
    recordIoShardings(getOperation());
  }
};
} // namespace
