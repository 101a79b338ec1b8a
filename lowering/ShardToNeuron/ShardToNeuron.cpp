//===- ShardToNeuron.cpp - the convert-shard-to-neuron pass ---------------===//
//
// After upstream `shard-partition` every function is the per-core program and
// communication is explicit as shard collectives naming a `shard.grid`. The
// neuron collectives carry the grid's shape instead of the symbol, so each
// pattern resolves the grid and copies its shape. Unsupported collectives are
// diagnosed before the conversion runs, so the user sees why rather than a
// "failed to legalize".
//
//===----------------------------------------------------------------------===//

#include "lowering/ShardToNeuron/ShardToNeuron.h"
#include "lowering/Passes.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "convert-shard-to-neuron"

namespace mlir::neuron {
#define GEN_PASS_DEF_CONVERTSHARDTONEURON
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

/// The neuron reduction for `kind`, if the collectives have one.
static std::optional<CollectiveReduction>
toNeuronReduction(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return CollectiveReduction::sum;
  case shard::ReductionKind::Max:
    return CollectiveReduction::max;
  case shard::ReductionKind::Min:
    return CollectiveReduction::min;
  default:
    return std::nullopt;
  }
}

/// Whether the neuron collectives carry tensors of `type`'s element type.
static bool isNeuronComputeType(Type type) {
  return type.isF32() || type.isBF16() || type.isF16() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type) ||
         type.isSignlessInteger(8) || type.isSignlessInteger(32);
}

/// The static shape of the grid `op` names, or null if the grid is missing
/// or has a dynamic size.
static DenseI64ArrayAttr gridShapeOf(Operation *op, FlatSymbolRefAttr symbol,
                                     SymbolTableCollection &symbolTables) {
  shard::GridOp grid = shard::getGridOrNull(op, symbol, symbolTables);
  if (!grid || ShapedType::isDynamicShape(grid.getShape()))
    return {};
  return grid.getShapeAttr();
}

static DenseI64ArrayAttr toI64Array(Builder &b, ArrayRef<int16_t> axes) {
  return b.getDenseI64ArrayAttr(llvm::to_vector(
      llvm::map_range(axes, [](int16_t a) { return int64_t(a); })));
}

/// `input`, cast to `elementType` first when the collective accumulates in
/// another type than its input's (upstream converts before reducing).
static Value castTo(OpBuilder &b, Location loc, Value input, Type elementType) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getElementType() == elementType)
    return input;
  return CastOp::create(b, loc, type.clone(elementType), input);
}

static bool isReducingCollective(Operation *op) {
  return isa<shard::AllReduceOp, shard::ReduceScatterOp>(op);
}

/// Upstream collectives with no neuron counterpart.
static bool isUnsupportedCollective(Operation *op) {
  return isa<shard::BroadcastOp, shard::GatherOp, shard::ScatterOp,
             shard::ReduceOp, shard::SendOp, shard::RecvOp, shard::ShiftOp,
             shard::UpdateHaloOp>(op);
}

static bool isSupportedCollective(Operation *op) {
  return isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp,
             shard::AllToAllOp, shard::AllSliceOp>(op);
}

LogicalResult mlir::neuron::checkShardCollectiveConvertible(
    Operation *op, SymbolTableCollection &symbolTables) {
  if (isUnsupportedCollective(op))
    return op->emitOpError(
        "has no neuron counterpart; convert-shard-to-neuron supports "
        "shard.all_reduce, shard.all_gather, shard.reduce_scatter, "
        "shard.all_to_all and shard.all_slice");
  if (!isSupportedCollective(op))
    return success();

  auto gridSymbol = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  shard::GridOp grid = shard::getGridOrNull(op, gridSymbol, symbolTables);
  if (!grid)
    return op->emitOpError("names no shard.grid: ") << gridSymbol;
  if (ShapedType::isDynamicShape(grid.getShape()))
    return op->emitOpError("needs a grid of static shape; grid ")
           << gridSymbol << " has a dynamic size";

  if (isReducingCollective(op)) {
    auto reduction = op->getAttrOfType<shard::ReductionKindAttr>("reduction");
    shard::ReductionKind kind =
        reduction ? reduction.getValue() : shard::ReductionKind::Sum;
    if (!toNeuronReduction(kind))
      return op->emitOpError("reduction '")
             << shard::stringifyReductionKind(kind)
             << "' has no neuron counterpart; the neuron collectives reduce "
                "with sum, max or min";
  }
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return op->emitOpError("expected ranked tensors after partitioning, "
                             "found ")
             << type;
    if (!isNeuronComputeType(tensor.getElementType()))
      return op->emitOpError("element type ")
             << tensor.getElementType()
             << " is not one the neuron collectives carry (f32, bf16, f16, "
                "f8E4M3FN, f8E5M2, i8, i32)";
  }
  return success();
}

namespace {
/// Base of the patterns: holds the symbol tables the grids resolve through.
template <typename SourceOp>
struct ShardCollectivePattern : OpConversionPattern<SourceOp> {
  ShardCollectivePattern(MLIRContext *context,
                         SymbolTableCollection &symbolTables,
                         PatternBenefit benefit = 1)
      : OpConversionPattern<SourceOp>(context, benefit),
        symbolTables(symbolTables) {}

protected:
  /// The grid shape, or failure with a match-failure note.
  FailureOr<DenseI64ArrayAttr>
  gridShape(SourceOp op, ConversionPatternRewriter &rewriter) const {
    DenseI64ArrayAttr shape = gridShapeOf(op, op.getGridAttr(), symbolTables);
    if (!shape)
      return rewriter.notifyMatchFailure(op, "grid missing or dynamic");
    return shape;
  }

  /// What a reducing collective needs: its neuron reduction, the grid
  /// shape, and its input converted to `element` (the reduction
  /// accumulates in the result's element type).
  struct Reducing {
    CollectiveReductionAttr reduction;
    DenseI64ArrayAttr grid;
    Value input;
  };
  FailureOr<Reducing> reducing(SourceOp op, Value input,
                               shard::ReductionKind kind, Type element,
                               ConversionPatternRewriter &rewriter) const {
    std::optional<CollectiveReduction> reduction = toNeuronReduction(kind);
    if (!reduction)
      return rewriter.notifyMatchFailure(op, "unsupported reduction");
    FailureOr<DenseI64ArrayAttr> shape = gridShape(op, rewriter);
    if (failed(shape))
      return failure();
    return Reducing{
        CollectiveReductionAttr::get(rewriter.getContext(), *reduction),
        *shape, castTo(rewriter, op.getLoc(), input, element)};
  }

  SymbolTableCollection &symbolTables;
};

/// The shard.all_slice that is `op`'s only use, over the same grid and
/// axes, or null: the reduced tensor is immediately cropped to this core's
/// part, which is exactly a reduce_scatter along the slice axis.
static shard::AllSliceOp fusableSlice(shard::AllReduceOp op) {
  if (!op.getResult().hasOneUse())
    return nullptr;
  auto slice = dyn_cast<shard::AllSliceOp>(*op.getResult().user_begin());
  if (!slice || slice.getGridAttr() != op.getGridAttr() ||
      slice.getGridAxes() != op.getGridAxes())
    return nullptr;
  return slice;
}

/// shard.all_reduce fused with its fusable slice into one reduce_scatter.
struct FuseAllReduceSlice : ShardCollectivePattern<shard::AllReduceOp> {
  using ShardCollectivePattern::ShardCollectivePattern;

  LogicalResult
  matchAndRewrite(shard::AllReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    shard::AllSliceOp slice = fusableSlice(op);
    if (!slice)
      return rewriter.notifyMatchFailure(op, "not only sliced on its axes");
    auto resultType = cast<RankedTensorType>(slice.getResult().getType());
    FailureOr<Reducing> r =
        reducing(op, adaptor.getInput(), op.getReduction(),
                 resultType.getElementType(), rewriter);
    if (failed(r))
      return failure();
    auto fused = ReduceScatterOp::create(
        rewriter, rewriter.getFusedLoc({op.getLoc(), slice.getLoc()}),
        resultType, r->input, r->grid, toI64Array(rewriter, op.getGridAxes()),
        r->reduction,
        rewriter.getI64IntegerAttr(slice.getSliceAxis().getSExtValue()));
    rewriter.replaceOp(slice, fused.getResult());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ConvertAllReduce : ShardCollectivePattern<shard::AllReduceOp> {
  using ShardCollectivePattern::ShardCollectivePattern;

  LogicalResult
  matchAndRewrite(shard::AllReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    FailureOr<Reducing> r =
        reducing(op, adaptor.getInput(), op.getReduction(),
                 resultType.getElementType(), rewriter);
    if (failed(r))
      return failure();
    rewriter.replaceOpWithNewOp<AllReduceOp>(
        op, resultType, r->input, r->grid,
        toI64Array(rewriter, op.getGridAxes()), r->reduction);
    return success();
  }
};

/// A collective along one tensor axis that does not reduce: all_gather
/// (the axis grows) and all_slice (each core keeps its part of a tensor the
/// group shares; a shard.all_slice not fused into a reduce_scatter).
template <typename ShardOp, typename NeuronOp, APInt (ShardOp::*axisOf)()>
struct ConvertAxisCollective : ShardCollectivePattern<ShardOp> {
  using ShardCollectivePattern<ShardOp>::ShardCollectivePattern;
  using OpAdaptor = typename ShardOp::Adaptor;

  LogicalResult
  matchAndRewrite(ShardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<DenseI64ArrayAttr> shape = this->gridShape(op, rewriter);
    if (failed(shape))
      return failure();
    rewriter.replaceOpWithNewOp<NeuronOp>(
        op, op.getResult().getType(), adaptor.getInput(), *shape,
        toI64Array(rewriter, op.getGridAxes()),
        rewriter.getI64IntegerAttr((op.*axisOf)().getSExtValue()));
    return success();
  }
};
using ConvertAllGather =
    ConvertAxisCollective<shard::AllGatherOp, AllGatherOp,
                          &shard::AllGatherOp::getGatherAxis>;
using ConvertAllSlice = ConvertAxisCollective<shard::AllSliceOp, AllSliceOp,
                                              &shard::AllSliceOp::getSliceAxis>;

struct ConvertReduceScatter : ShardCollectivePattern<shard::ReduceScatterOp> {
  using ShardCollectivePattern::ShardCollectivePattern;

  LogicalResult
  matchAndRewrite(shard::ReduceScatterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    FailureOr<Reducing> r =
        reducing(op, adaptor.getInput(), op.getReduction(),
                 resultType.getElementType(), rewriter);
    if (failed(r))
      return failure();
    rewriter.replaceOpWithNewOp<ReduceScatterOp>(
        op, resultType, r->input, r->grid,
        toI64Array(rewriter, op.getGridAxes()), r->reduction,
        rewriter.getI64IntegerAttr(op.getScatterAxis().getSExtValue()));
    return success();
  }
};

struct ConvertAllToAll : ShardCollectivePattern<shard::AllToAllOp> {
  using ShardCollectivePattern::ShardCollectivePattern;

  LogicalResult
  matchAndRewrite(shard::AllToAllOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<DenseI64ArrayAttr> shape = gridShape(op, rewriter);
    if (failed(shape))
      return failure();
    rewriter.replaceOpWithNewOp<AllToAllOp>(
        op, op.getResult().getType(), adaptor.getInput(), *shape,
        toI64Array(rewriter, op.getGridAxes()),
        rewriter.getI64IntegerAttr(op.getSplitAxis().getSExtValue()),
        rewriter.getI64IntegerAttr(op.getConcatAxis().getSExtValue()));
    return success();
  }
};
} // namespace

void mlir::neuron::populateShardToNeuronPatterns(
    RewritePatternSet &patterns, SymbolTableCollection &symbolTables) {
  MLIRContext *context = patterns.getContext();
  // The fusion is tried before the plain all_reduce conversion.
  patterns.add<FuseAllReduceSlice>(context, symbolTables, /*benefit=*/2);
  patterns.add<ConvertAllReduce, ConvertAllGather, ConvertReduceScatter,
               ConvertAllToAll, ConvertAllSlice>(context, symbolTables);
}

void mlir::neuron::configureShardToNeuronTarget(ConversionTarget &target) {
  target.addLegalDialect<NeuronDialect>();
  target.addIllegalOp<shard::AllReduceOp, shard::AllGatherOp,
                      shard::ReduceScatterOp, shard::AllToAllOp,
                      shard::AllSliceOp, shard::BroadcastOp, shard::GatherOp, shard::ScatterOp,
                      shard::ReduceOp, shard::SendOp, shard::RecvOp,
                      shard::ShiftOp, shard::UpdateHaloOp>();
}

namespace {
struct ConvertShardToNeuronPass
    : neuron::impl::ConvertShardToNeuronBase<ConvertShardToNeuronPass> {
  using ConvertShardToNeuronBase::ConvertShardToNeuronBase;

  void runOnOperation() override {
    Operation *root = getOperation();
    SymbolTableCollection symbolTables;

    bool convertible = true;
    int64_t collectives = 0, fusable = 0;
    root->walk([&](Operation *op) {
      if (failed(checkShardCollectiveConvertible(op, symbolTables)))
        convertible = false;
      if (isSupportedCollective(op))
        ++collectives;
      if (auto reduce = dyn_cast<shard::AllReduceOp>(op))
        fusable += bool(fusableSlice(reduce));
    });
    if (!convertible)
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    populateShardToNeuronPatterns(patterns, symbolTables);
    ConversionTarget target(getContext());
    configureShardToNeuronTarget(target);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      return signalPassFailure();
    // A fused pair counts once.
    numConverted += collectives - fusable;
    numFused += fusable;
    LLVM_DEBUG(llvm::dbgs() << "converted " << collectives
                            << " collectives, fused " << fusable << "\n");
  }
};
} // namespace
