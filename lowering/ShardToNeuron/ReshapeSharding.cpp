//===- ReshapeSharding.cpp - sharding rules for tensor reshapes -----------===//
//
// Upstream `shard` (MLIR 22) has no sharding rule for tensor.expand_shape
// and tensor.collapse_shape, so a transformer's head reshapes stop
// propagation. The rule here: the loops are the dimensions of the expanded
// side, and a dimension of the collapsed side is split exactly when the
// first dimension of its reassociation group (after unit dimensions) is (splitting [S, H*D] by
// columns over N cores is splitting [S, H, D] by heads, when N divides H).
// A split of any other dimension of a group would need data movement; it is
// reported as an error.
//
//===----------------------------------------------------------------------===//

#include "lowering/ShardToNeuron/ShardToNeuron.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace {

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
    partitionMap.map(op->getResult(0), partitioned->getResult(0));
    partitionMap.map(op, partitioned);
    return success();
  }
};

} // namespace

void mlir::neuron::registerReshapeShardingModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::ExpandShapeOp::attachInterface<
        ReshapeSharding<tensor::ExpandShapeOp>>(*ctx);
    tensor::CollapseShapeOp::attachInterface<
        ReshapeSharding<tensor::CollapseShapeOp>>(*ctx);
  });
}
