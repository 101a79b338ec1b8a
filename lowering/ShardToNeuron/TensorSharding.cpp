//===- TensorSharding.cpp - sharding rules for tensor reshapes and slices -===//
//
// Upstream `shard` (MLIR 22) has no sharding rules for the tensor ops a
// transformer moves its heads with, so they would stop propagation.
//
// tensor.expand_shape and tensor.collapse_shape (head reshapes): the loops
// are the dimensions of the expanded side, and a dimension of the collapsed
// side is split exactly when the first dimension of its reassociation group
// (after unit dimensions) is (splitting [S, H*D] by columns over N cores is
// splitting [S, H, D] by heads, when N divides H).
// A split of any other dimension of a group would need data movement; it is
// reported as an error.
//
// tensor.extract_slice and tensor.insert_slice (RoPE's half-splits, a KV
// cache's write at a position): the loops are the dimensions of the whole
// side (the source of an extract, the destination of an insert), and a
// dimension may stay split only where the slice takes all of it (offset 0,
// full size, stride 1). A split of a dimension the slice cuts is dropped
// from the op's sharding, so propagation gathers it first; a cache split
// by heads and written at a run-time position keeps its split.
//
// tensor.concat (rotate_half): the joined dimension stays whole.
//
// neuron.dynamic_slice and neuron.dynamic_update_slice (what
// neuron-prepare-sharding makes of slices at a position read at run time):
// as slices, the dimension the position moves along staying whole.
//
//===----------------------------------------------------------------------===//

#include "lowering/ShardToNeuron/ShardToNeuron.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {

/// Records `partitioned` as the local form of the one-result `op`.
static LogicalResult mapPartitioned(IRMapping &partitionMap, Operation *op,
                                    Operation *partitioned) {
  partitionMap.map(op->getResult(0), partitioned->getResult(0));
  partitionMap.map(op, partitioned);
  return success();
}

template <typename ReshapeOp>
struct ReshapeSharding
    : public shard::ShardingInterface::ExternalModel<
          ReshapeSharding<ReshapeOp>, ReshapeOp> {
  static constexpr bool kExpand = std::is_same_v<ReshapeOp, tensor::ExpandShapeOp>;

  static RankedTensorType expandedType(ReshapeOp op) {
    return kExpand ? op.getResultType() : op.getSrcType();
  }

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(
        expandedType(cast<ReshapeOp>(op)).getRank(),
        utils::IteratorType::parallel);
  }

  /// The dimension of `group` (of the expanded shape) a split of the
  /// collapsed dimension lands on: its first one of size other than 1 (unit
  /// dimensions before it do not move the data).
  static int64_t leadOf(RankedTensorType expanded,
                        const ReassociationIndices &group) {
    for (int64_t d : group)
      if (expanded.getDimSize(d) != 1)
        return d;
    return group.front();
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto reshape = cast<ReshapeOp>(op);
    MLIRContext *ctx = op->getContext();
    RankedTensorType type = expandedType(reshape);
    int64_t loops = type.getRank();
    AffineMap expanded = AffineMap::getMultiDimIdentityMap(loops, ctx);
    SmallVector<AffineExpr> leading;
    for (const ReassociationIndices &group :
         reshape.getReassociationIndices())
      leading.push_back(getAffineDimExpr(leadOf(type, group), ctx));
    AffineMap collapsed = AffineMap::get(loops, 0, leading, ctx);
    if (kExpand)
      return {collapsed, expanded};
    return {expanded, collapsed};
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTables,
                          OpBuilder &builder) const {
    auto reshape = cast<ReshapeOp>(op);
    shard::Sharding expandedSharding =
        kExpand ? resultShardings[0] : operandShardings[0];
    SmallVector<ReassociationIndices> groups =
        reshape.getReassociationIndices();
    if (expandedSharding) {
      ArrayRef<shard::GridAxesAttr> split = expandedSharding.getSplitAxes();
      RankedTensorType type = expandedType(reshape);
      for (const ReassociationIndices &group : groups)
        for (int64_t d : group)
          if (d != leadOf(type, group) && d < int64_t(split.size()) &&
              !split[d].empty())
            return op->emitError()
                   << "cannot partition: dimension " << d
                   << " of the expanded shape is split but is not the first "
                      "of its reshape group (after unit dimensions)";
    }
    auto resultType = cast<RankedTensorType>(reshape.getResult().getType());
    RankedTensorType local = resultType;
    if (shard::Sharding s = resultShardings[0]) {
      shard::GridOp grid = shard::getGrid(op, s.getGridAttr(), symbolTables);
      local = cast<RankedTensorType>(
          shard::shardShapedType(resultType, grid, s));
    }
    Value source = partitionedOperands[0];
    Operation *partitioned =
        kExpand ? tensor::ExpandShapeOp::create(builder, op->getLoc(), local,
                                                source, groups)
                      .getOperation()
                : tensor::CollapseShapeOp::create(builder, op->getLoc(), local,
                                                  source, groups)
                      .getOperation();
    return mapPartitioned(partitionMap, op, partitioned);
  }
};

template <typename SliceOp>
struct SliceSharding
    : public shard::ShardingInterface::ExternalModel<SliceSharding<SliceOp>,
                                                     SliceOp> {
  static constexpr bool kExtract =
      std::is_same_v<SliceOp, tensor::ExtractSliceOp>;

  /// The unsliced side: an extract's source, an insert's destination.
  static RankedTensorType wholeType(SliceOp op) {
    return kExtract ? op.getSourceType() : op.getResultType();
  }

  /// Whether the slice takes all of dimension `d` of the whole side.
  static bool takesAll(SliceOp op, int64_t d) {
    return isConstantIntValue(op.getMixedOffsets()[d], 0) &&
           isConstantIntValue(op.getMixedStrides()[d], 1) &&
           getConstantIntValue(op.getMixedSizes()[d]) ==
               wholeType(op).getDimSize(d);
  }

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(
        wholeType(cast<SliceOp>(op)).getRank(), utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto slice = cast<SliceOp>(op);
    MLIRContext *ctx = op->getContext();
    int64_t loops = wholeType(slice).getRank();
    AffineMap whole = AffineMap::getMultiDimIdentityMap(loops, ctx);
    // A rank-reducing slice leaves out its dropped unit dimensions.
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<AffineExpr> kept;
    for (int64_t d = 0; d < loops; ++d)
      if (!dropped.test(d))
        kept.push_back(getAffineDimExpr(d, ctx));
    AffineMap part = AffineMap::get(loops, 0, kept, ctx);
    // Dynamic offsets, sizes and strides are scalars: they index nothing.
    SmallVector<AffineMap> scalars(
        op->getNumOperands() - (kExtract ? 1 : 2),
        AffineMap::get(loops, 0, {}, ctx));
    SmallVector<AffineMap> maps;
    if (kExtract)
      maps.push_back(whole);
    else
      maps.append({part, whole});
    llvm::append_range(maps, scalars);
    maps.push_back(kExtract ? part : whole);
    return maps;
  }

  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *op, ArrayRef<shard::Sharding> operandShardings,
                    ArrayRef<shard::Sharding> resultShardings) const {
    auto slice = cast<SliceOp>(op);
    FailureOr<shard::ShardingOption> option =
        shard::detail::defaultGetShardingOption(op, operandShardings,
                                                resultShardings);
    if (failed(option))
      return failure();
    for (auto [d, axes] : llvm::enumerate(option->shardingArray))
      if (!takesAll(slice, d))
        axes.clear();
    return option;
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTables,
                          OpBuilder &builder) const {
    auto slice = cast<SliceOp>(op);
    RankedTensorType whole = wholeType(slice);
    auto local = cast<RankedTensorType>(
        partitionedOperands[kExtract ? 0 : 1].getType());
    // A dimension whose local extent differs is split: the slice must take
    // all of it, and each core then takes all of its own part.
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    for (int64_t d = 0; d < whole.getRank(); ++d) {
      if (local.getDimSize(d) == whole.getDimSize(d))
        continue;
      if (!takesAll(slice, d) || ShapedType::isDynamic(local.getDimSize(d)))
        return op->emitError()
               << "cannot partition: dimension " << d
               << " is split across cores but the slice does not take all "
                  "of it";
      sizes[d] = builder.getIndexAttr(local.getDimSize(d));
    }
    // Dynamic offsets (a position read at run time) are the partitioned
    // program's values.
    SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
    for (OpFoldResult &offset : offsets)
      if (auto value = dyn_cast<Value>(offset))
        offset = partitionMap.lookupOrDefault(value);
    Operation *partitioned;
    if constexpr (kExtract) {
      // The local result keeps the original's dropped dimensions dropped.
      SmallVector<int64_t> shape(slice.getResultType().getShape());
      llvm::SmallBitVector dropped = slice.getDroppedDims();
      for (int64_t d = 0, r = 0; d < whole.getRank(); ++d) {
        if (dropped.test(d))
          continue;
        if (std::optional<int64_t> size = getConstantIntValue(sizes[d]))
          shape[r] = *size;
        ++r;
      }
      partitioned = tensor::ExtractSliceOp::create(
          builder, op->getLoc(), slice.getResultType().clone(shape),
          partitionedOperands[0], offsets, sizes, slice.getMixedStrides());
    } else {
      partitioned = tensor::InsertSliceOp::create(
          builder, op->getLoc(), partitionedOperands[0],
          partitionedOperands[1], offsets, sizes, slice.getMixedStrides());
    }
    return mapPartitioned(partitionMap, op, partitioned);
  }
};

/// Upstream's default sharding option for `op`, with loop `whole` (the
/// dimension a concat joins along, or a position moves along) not split.
static FailureOr<shard::ShardingOption>
optionKeepingWhole(Operation *op, ArrayRef<shard::Sharding> operandShardings,
                   ArrayRef<shard::Sharding> resultShardings, uint64_t whole) {
  FailureOr<shard::ShardingOption> option =
      shard::detail::defaultGetShardingOption(op, operandShardings,
                                              resultShardings);
  if (succeeded(option) && whole < option->shardingArray.size())
    option->shardingArray[whole].clear();
  return option;
}

/// tensor.concat (RoPE's rotate_half as torch-mlir may write it): every
/// operand and the result read the loops alike, and the dimension they are
/// joined along stays whole.
struct ConcatSharding
    : public shard::ShardingInterface::ExternalModel<ConcatSharding,
                                                     tensor::ConcatOp> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(
        cast<tensor::ConcatOp>(op).getResultType().getRank(),
        utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto concat = cast<tensor::ConcatOp>(op);
    return SmallVector<AffineMap>(
        op->getNumOperands() + 1,
        AffineMap::getMultiDimIdentityMap(concat.getResultType().getRank(),
                                          op->getContext()));
  }

  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *op, ArrayRef<shard::Sharding> operandShardings,
                    ArrayRef<shard::Sharding> resultShardings) const {
    return optionKeepingWhole(op, operandShardings, resultShardings,
                              cast<tensor::ConcatOp>(op).getDim());
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTables,
                          OpBuilder &builder) const {
    auto concat = cast<tensor::ConcatOp>(op);
    auto partitioned = tensor::ConcatOp::create(
        builder, op->getLoc(), concat.getDim(), partitionedOperands);
    return mapPartitioned(partitionMap, op, partitioned);
  }
};

/// neuron.dynamic_slice and dynamic_update_slice (a RoPE table read, a KV
/// cache written at a run-time position): the loops are the dimensions of
/// the whole side, the part and the whole read them alike, the position
/// tensor is read whole, and the dimension the position moves along stays
/// whole.
template <typename DynamicOp>
struct DynamicSliceSharding
    : public shard::ShardingInterface::ExternalModel<
          DynamicSliceSharding<DynamicOp>, DynamicOp> {
  static constexpr bool kUpdate =
      std::is_same_v<DynamicOp, neuron::DynamicUpdateSliceOp>;

  static RankedTensorType wholeType(DynamicOp op) {
    if constexpr (kUpdate)
      return op.getDest().getType();
    else
      return op.getInput().getType();
  }

  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return SmallVector<utils::IteratorType>(
        wholeType(cast<DynamicOp>(op)).getRank(),
        utils::IteratorType::parallel);
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    auto dynamic = cast<DynamicOp>(op);
    MLIRContext *ctx = op->getContext();
    int64_t loops = wholeType(dynamic).getRank();
    AffineMap all = AffineMap::getMultiDimIdentityMap(loops, ctx);
    AffineMap position = AffineMap::get(
        loops, 0,
        SmallVector<AffineExpr>(dynamic.getOffset().getType().getRank(),
                                getAffineConstantExpr(0, ctx)),
        ctx);
    // Operands in order (update, dest, offset or input, offset), then the
    // result.
    if constexpr (kUpdate)
      return {all, all, position, all};
    else
      return {all, position, all};
  }

  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *op, ArrayRef<shard::Sharding> operandShardings,
                    ArrayRef<shard::Sharding> resultShardings) const {
    return optionKeepingWhole(op, operandShardings, resultShardings,
                              cast<DynamicOp>(op).getAxis());
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<shard::Sharding> operandShardings,
                          ArrayRef<shard::Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTables,
                          OpBuilder &builder) const {
    auto dynamic = cast<DynamicOp>(op);
    Operation *partitioned;
    if constexpr (kUpdate) {
      partitioned = neuron::DynamicUpdateSliceOp::create(
          builder, op->getLoc(), partitionedOperands[1].getType(),
          partitionedOperands[0], partitionedOperands[1],
          partitionedOperands[2], dynamic.getAxis());
    } else {
      // The result is the local input's, but along the axis.
      auto local = cast<RankedTensorType>(partitionedOperands[0].getType());
      SmallVector<int64_t> shape(local.getShape());
      uint64_t axis = dynamic.getAxis();
      shape[axis] = dynamic.getType().getDimSize(axis);
      partitioned = neuron::DynamicSliceOp::create(
          builder, op->getLoc(), local.clone(shape), partitionedOperands[0],
          partitionedOperands[1], dynamic.getAxis());
    }
    return mapPartitioned(partitionMap, op, partitioned);
  }
};

} // namespace

void mlir::neuron::registerTensorShardingModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::ExpandShapeOp::attachInterface<
        ReshapeSharding<tensor::ExpandShapeOp>>(*ctx);
    tensor::CollapseShapeOp::attachInterface<
        ReshapeSharding<tensor::CollapseShapeOp>>(*ctx);
    tensor::ExtractSliceOp::attachInterface<
        SliceSharding<tensor::ExtractSliceOp>>(*ctx);
    tensor::InsertSliceOp::attachInterface<
        SliceSharding<tensor::InsertSliceOp>>(*ctx);
    tensor::ConcatOp::attachInterface<ConcatSharding>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, neuron::NeuronDialect *) {
    neuron::DynamicSliceOp::attachInterface<
        DynamicSliceSharding<neuron::DynamicSliceOp>>(*ctx);
    neuron::DynamicUpdateSliceOp::attachInterface<
        DynamicSliceSharding<neuron::DynamicUpdateSliceOp>>(*ctx);
  });
}
