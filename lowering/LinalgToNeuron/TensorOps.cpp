//===- TensorOps.cpp - tensor dialect glue and constants ------------------===//
//
// Raises the tensor ops frontends use between compute ops: reshapes
// (expand/collapse_shape), static slices, concatenation (tensor.concat and
// the insert_slice chains that spell it), constant padding, constants,
// embedding lookups written as linalg.generic around tensor.extract, and
// reads and writes at a position read at run time (extract_slice as
// neuron.dynamic_slice; insert_slice, or a generic selecting by index, as
// neuron.dynamic_update_slice).
//
//===----------------------------------------------------------------------===//

#include "lowering/LinalgToNeuron/LinalgToNeuron.h"
#include "lowering/LinalgToNeuron/Utils.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>

using namespace mlir;
using namespace mlir::neuron;

/// Whether neuron can hold tensors of `type` (static, neuron element type or
/// an index/mask type that data movement carries).
static bool isMovable(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return false;
  Type e = tensor.getElementType();
  return isNeuronElementType(e) || e.isInteger(1) || e.isInteger(64);
}

namespace {

struct RaiseConstant : OpRewritePattern<arith::ConstantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ConstantOp op,
                                PatternRewriter &rewriter) const override {
    auto value = dyn_cast<ElementsAttr>(op.getValue());
    if (!value || !isMovable(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<ConstantOp>(op, op.getType(), value);
    return success();
  }
};

/// expand_shape and collapse_shape only regroup dimensions: a reshape.
template <typename ReassociativeOp>
struct RaiseReshape : OpRewritePattern<ReassociativeOp> {
  using OpRewritePattern<ReassociativeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ReassociativeOp op,
                                PatternRewriter &rewriter) const override {
    if (!isMovable(op.getSrc().getType()) || !isMovable(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getSrc());
    return success();
  }
};

struct RaiseExtractSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    if (!isMovable(op.getSourceType()) || !isMovable(op.getType()) ||
        !op.getOffsets().empty() || !op.getSizes().empty() ||
        !op.getStrides().empty() ||
        llvm::any_of(op.getStaticStrides(), [](int64_t s) { return s < 1; }))
      return failure(); // dynamic, zero or negative offsets/sizes/strides
    // A rank-reducing slice is a slice followed by a reshape.
    auto sliceType = op.getSourceType().clone(op.getStaticSizes());
    Value slice = SliceOp::create(rewriter, op.getLoc(), sliceType,
                                  op.getSource(), op.getStaticOffsets(),
                                  op.getStaticStrides());
    rewriter.replaceOp(op, reshapeIfNeeded(rewriter, op.getLoc(), slice,
                                           op.getType().getShape()));
    return success();
  }
};

struct RaiseConcat : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    if (!isMovable(op.getType()) ||
        !llvm::all_of(op.getInputs().getTypes(), isMovable))
      return failure();
    rewriter.replaceOpWithNewOp<ConcatOp>(op, op.getType(), op.getInputs(),
                                          op.getDim());
    return success();
  }
};

/// A chain of insert_slice ops that fills a fresh tensor with pieces lying
/// side by side along one dimension is a concatenation (RoPE's rotate_half
/// writes `cat(-x2, x1)` this way).
struct RaiseInsertSliceChain : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getDestType();
    if (!isMovable(type))
      return failure();
    // Walk the chain back to the fresh destination.
    SmallVector<tensor::InsertSliceOp> chain;
    Value dest = op;
    while (auto insert = dest.getDefiningOp<tensor::InsertSliceOp>()) {
      if (insert != op && !insert->hasOneUse())
        return failure();
      chain.push_back(insert);
      dest = insert.getDest();
    }
    if (!dest.getDefiningOp<tensor::EmptyOp>() || chain.size() < 2)
      return failure();
    // Every piece spans the whole tensor except along one axis.
    std::optional<int64_t> axis;
    SmallVector<std::pair<int64_t, Value>> pieces;
    for (tensor::InsertSliceOp insert : chain) {
      if (!insert.getOffsets().empty() || !insert.getSizes().empty() ||
          !insert.getStrides().empty() ||
          insert.getSourceType().getRank() != type.getRank() ||
          !llvm::all_of(insert.getStaticStrides(),
                        [](int64_t s) { return s == 1; }))
        return failure();
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (insert.getStaticSizes()[d] == type.getDimSize(d))
          continue;
        if (axis && *axis != d)
          return failure();
        axis = d;
      }
      pieces.emplace_back(axis ? insert.getStaticOffsets()[*axis] : 0,
                          insert.getSource());
    }
    if (!axis)
      return failure();
    llvm::sort(pieces, [](auto &a, auto &b) { return a.first < b.first; });
    int64_t next = 0;
    SmallVector<Value> inputs;
    for (auto &[offset, source] : pieces) {
      if (offset != next)
        return failure(); // a gap or an overlap
      next += cast<RankedTensorType>(source.getType()).getDimSize(*axis);
      inputs.push_back(source);
    }
    if (next != type.getDimSize(*axis))
      return failure();
    rewriter.replaceOpWithNewOp<ConcatOp>(op, type, inputs, *axis);
    return success();
  }
};

/// Any other static insert_slice with unit strides (torch's slice_scatter,
/// a window written into a filled or given tensor): the destination's
/// pieces around the slice, dimension by dimension, concatenated with it.
/// Pieces of a fresh destination are left to RaiseInsertSliceChain: their
/// contents are undefined.
struct RaiseStaticInsertSlice : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType type = op.getDestType();
    if (!isMovable(type) || !isMovable(op.getSourceType()) ||
        !op.getOffsets().empty() || !op.getSizes().empty() ||
        !op.getStrides().empty() ||
        !llvm::all_of(op.getStaticStrides(), [](int64_t s) { return s == 1; }))
      return failure();
    Value root = op.getDest();
    while (auto insert = root.getDefiningOp<tensor::InsertSliceOp>())
      root = insert.getDest();
    if (root.getDefiningOp<tensor::EmptyOp>())
      return failure();
    Location loc = op.getLoc();
    ArrayRef<int64_t> offsets = op.getStaticOffsets(),
                      sizes = op.getStaticSizes();
    int64_t rank = type.getRank();
    // `region`: the destination within the slice's extent along the
    // dimensions before `d`, whole along the rest.
    std::function<Value(Value, int64_t)> fill = [&](Value region,
                                                    int64_t d) -> Value {
      if (d == rank)
        return reshapeIfNeeded(rewriter, loc, op.getSource(), sizes);
      auto regionType = cast<RankedTensorType>(region.getType());
      int64_t extent = regionType.getDimSize(d);
      auto along = [&](int64_t from, int64_t size) -> Value {
        SmallVector<int64_t> at(rank, 0), shape(regionType.getShape());
        at[d] = from;
        shape[d] = size;
        if (size == extent)
          return region;
        return SliceOp::create(rewriter, loc, regionType.clone(shape), region,
                               at, SmallVector<int64_t>(rank, 1));
      };
      Value inside = fill(along(offsets[d], sizes[d]), d + 1);
      SmallVector<Value> pieces;
      if (offsets[d] > 0)
        pieces.push_back(along(0, offsets[d]));
      pieces.push_back(inside);
      if (int64_t end = offsets[d] + sizes[d]; end < extent)
        pieces.push_back(along(end, extent - end));
      if (pieces.size() == 1)
        return inside;
      return ConcatOp::create(rewriter, loc, regionType, pieces, d);
    };
    rewriter.replaceOp(op, fill(op.getDest(), 0));
    return success();
  }
};

struct RaisePad : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp op,
                                PatternRewriter &rewriter) const override {
    // Static sizes or constant values (tosa.pad lowers to the latter).
    std::optional<SmallVector<int64_t>> low =
        getConstantIntValues(op.getMixedLowPad());
    std::optional<SmallVector<int64_t>> high =
        getConstantIntValues(op.getMixedHighPad());
    auto negative = [](int64_t v) { return v < 0; };
    if (!isMovable(op.getSourceType()) || !isMovable(op.getResultType()) ||
        !low || !high || llvm::any_of(*low, negative) ||
        llvm::any_of(*high, negative))
      return failure();
    // tensor.pad does not check a static result against constant values.
    for (auto [in, lo, hi, out] :
         llvm::zip_equal(op.getSourceType().getShape(), *low, *high,
                         op.getResultType().getShape()))
      if (in + lo + hi != out)
        return failure();
    Value padding = op.getConstantPaddingValue();
    std::optional<TypedAttr> scalar =
        padding ? getSplatScalar(padding) : std::nullopt;
    if (!scalar)
      return failure();
    // neuron.pad holds its value as f64: integers must convert exactly.
    double value = 0;
    if (auto f = dyn_cast<FloatAttr>(*scalar)) {
      value = f.getValueAsDouble();
    } else {
      APInt v = cast<IntegerAttr>(*scalar).getValue();
      if (v.getBitWidth() == 1)
        value = v.isOne();
      else if (v.getSignificantBits() <= 53)
        value = static_cast<double>(v.getSExtValue());
      else
        return failure();
    }
    rewriter.replaceOpWithNewOp<PadOp>(
        op, op.getResultType(), op.getSource(),
        rewriter.getDenseI64ArrayAttr(*low),
        rewriter.getDenseI64ArrayAttr(*high),
        rewriter.getF64FloatAttr(value));
    return success();
  }
};

/// An embedding lookup: an all-parallel generic whose body yields
/// `tensor.extract %table[...]` where one index is `index_cast` of the
/// (integer) input, the others `linalg.index` loops or constants. Bounds
/// checks (cmpi + cf.assert) in the body are dropped: neuron.gather checks
/// its indices at run time.
struct RaiseGather : OpRewritePattern<linalg::GenericOp> {
  RaiseGather(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0)
      return failure();
    auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
    auto extract = yield.getOperand(0).getDefiningOp<tensor::ExtractOp>();
    // The table must come from outside the op (a value or an argument).
    if (!extract ||
        op->getRegion(0).isAncestor(extract.getTensor().getParentRegion()) ||
        !isMovable(extract.getTensor().getType()))
      return failure();
    for (Operation &inner : op.getBody()->without_terminator())
      if (!isa<arith::IndexCastOp, linalg::IndexOp, arith::CmpIOp,
               arith::ConstantOp, cf::AssertOp, tensor::ExtractOp>(inner))
        return failure();

    OpOperand *indices = op.getDpsInputOperand(0);
    BlockArgument indexArg = op.getMatchingBlockArgument(indices);
    auto indicesType = dyn_cast<RankedTensorType>(indices->get().getType());
    if (!indicesType || !indicesType.hasStaticShape() ||
        !(indicesType.getElementType().isInteger(32) ||
          indicesType.getElementType().isInteger(64)))
      return failure();

    // Classify each table index: the gathered one, a loop, or a constant.
    std::optional<int64_t> axis;
    SmallVector<int64_t> tableLoops; // the loop of each kept table dim
    SmallVector<int64_t> offsets, sizes;
    SmallVector<bool> constantDim;
    auto tableType = cast<RankedTensorType>(extract.getTensor().getType());
    for (auto [d, index] : llvm::enumerate(extract.getIndices())) {
      offsets.push_back(0);
      sizes.push_back(tableType.getDimSize(d));
      constantDim.push_back(false);
      APInt constant;
      if (auto cast = index.getDefiningOp<arith::IndexCastOp>();
          cast && cast.getIn() == indexArg && !axis) {
        axis = tableLoops.size();
        tableLoops.push_back(-1);
      } else if (auto loop = index.getDefiningOp<linalg::IndexOp>()) {
        tableLoops.push_back(loop.getDim());
      } else if (matchPattern(index, m_ConstantInt(&constant))) {
        offsets.back() = constant.getSExtValue();
        sizes.back() = 1;
        constantDim.back() = true;
      } else {
        return failure();
      }
    }
    if (!axis)
      return failure();
    // The loops the gather's result runs over, in its dimension order.
    AffineMap indicesMap = op.getMatchingIndexingMap(indices);
    SmallVector<unsigned> present;
    for (int64_t loop : ArrayRef<int64_t>(tableLoops).take_front(*axis))
      present.push_back(loop);
    for (AffineExpr e : indicesMap.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim)
        return failure();
      present.push_back(dim.getPosition());
    }
    for (int64_t loop : ArrayRef<int64_t>(tableLoops).drop_front(*axis + 1))
      present.push_back(loop);
    OpOperand *init = op.getDpsInitOperand(0);
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    if (!writesLoops(op.getMatchingIndexingMap(init), resultType.getShape(),
                     present) ||
        resultType.getElementType() != tableType.getElementType())
      return failure();
    SmallVector<int64_t> loops = op.getStaticLoopRanges();
    SmallVector<int64_t> kept;
    for (auto [i, size] : llvm::enumerate(sizes))
      if (!constantDim[i])
        kept.push_back(size);
    for (auto [i, loop] : llvm::enumerate(tableLoops))
      if (loop >= 0 && loops[loop] != kept[i])
        return failure(); // the loop does not run over the whole table dim

    // Slice away the constant-indexed table dimensions, then gather.
    Location loc = op.getLoc();
    Value table = extract.getTensor();
    if (llvm::any_of(offsets, [](int64_t o) { return o != 0; }) ||
        sizes != tableType.getShape()) {
      SmallVector<int64_t> strides(offsets.size(), 1);
      table = SliceOp::create(rewriter, loc, tableType.clone(sizes), table,
                              offsets, strides);
    }
    table = reshapeIfNeeded(rewriter, loc, table, kept);
    SmallVector<int64_t> gatheredShape(ArrayRef<int64_t>(kept).take_front(*axis));
    llvm::append_range(gatheredShape, indicesType.getShape());
    llvm::append_range(gatheredShape, ArrayRef<int64_t>(kept).drop_front(*axis + 1));
    Value gathered = GatherOp::create(
        rewriter, loc, resultType.clone(gatheredShape), table, indices->get(),
        *axis);
    FailureOr<Value> result = fromLoopSpace(rewriter, loc, gathered, present,
                                            op.getMatchingIndexingMap(init),
                                            resultType);
    rewriter.replaceOp(op, *result);
    return success();
  }
};

/// How `full` collapses into `reduced`, which drops some of its unit
/// dimensions (a rank-reducing slice): empty when they are the same type.
static FailureOr<SmallVector<ReassociationIndices>>
unitReshape(RankedTensorType full, RankedTensorType reduced) {
  if (full == reduced)
    return SmallVector<ReassociationIndices>();
  std::optional<SmallVector<ReassociationIndices>> groups =
      getReassociationIndicesForCollapse(full.getShape(), reduced.getShape());
  if (!groups)
    return failure();
  return *groups;
}

/// For a slice of `whole` whose one dynamic offset is read at run time
/// (positionTensor), every other offset 0 and size whole, and every stride
/// 1: that dimension and the position tensor; nullopt otherwise.
static std::optional<std::pair<int64_t, Value>>
dynamicWindow(OffsetSizeAndStrideOpInterface slice, RankedTensorType whole) {
  if (slice.getOffsets().size() != 1 || !slice.getSizes().empty() ||
      !slice.getStrides().empty() ||
      llvm::any_of(slice.getStaticStrides(), [](int64_t s) { return s != 1; }))
    return std::nullopt;
  Value position = positionTensor(slice.getOffsets().front());
  if (!position)
    return std::nullopt;
  int64_t axis = -1;
  for (auto [d, offset] : llvm::enumerate(slice.getStaticOffsets())) {
    if (ShapedType::isDynamic(offset))
      axis = d;
    else if (offset != 0 || slice.getStaticSizes()[d] != whole.getDimSize(d))
      return std::nullopt; // not whole along a static dimension
  }
  return std::make_pair(axis, position);
}

/// `tensor.extract_slice` at a position read at run time along one
/// dimension, whole along the others: a RoPE table read at the step's
/// position.
struct RaiseDynamicExtractSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType source = op.getSourceType();
    if (!isMovable(source) || !isMovable(op.getType()))
      return failure();
    std::optional<std::pair<int64_t, Value>> window =
        dynamicWindow(op, source);
    if (!window)
      return failure();
    Location loc = op.getLoc();
    // A rank-reducing slice drops unit dimensions: a tensor reshape, which
    // sharding follows (neuron-prepare-sharding applies this pattern).
    auto sliceType = source.clone(op.getStaticSizes());
    FailureOr<SmallVector<ReassociationIndices>> groups =
        unitReshape(sliceType, op.getType());
    if (failed(groups))
      return failure();
    Value slice = DynamicSliceOp::create(rewriter, loc, sliceType,
                                         op.getSource(), window->second,
                                         window->first);
    if (!groups->empty())
      slice = tensor::CollapseShapeOp::create(rewriter, loc, op.getType(),
                                              slice, *groups);
    rewriter.replaceOp(op, slice);
    return success();
  }
};

/// `tensor.insert_slice` at a position read at run time along one
/// dimension, the slice whole along the others: a KV cache write.
struct RaiseDynamicInsertSlice : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::InsertSliceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType dest = op.getDestType();
    if (!isMovable(dest) || !isMovable(op.getSourceType()))
      return failure();
    std::optional<std::pair<int64_t, Value>> window = dynamicWindow(op, dest);
    if (!window)
      return failure();
    RankedTensorType updateType = dest.clone(op.getStaticSizes());
    FailureOr<SmallVector<ReassociationIndices>> groups =
        unitReshape(updateType, op.getSourceType());
    if (failed(groups))
      return failure();
    Value update = op.getSource();
    if (!groups->empty())
      update = tensor::ExpandShapeOp::create(rewriter, op.getLoc(), updateType,
                                             update, *groups);
    rewriter.replaceOpWithNewOp<DynamicUpdateSliceOp>(
        op, dest, update, op.getDest(), window->second, window->first);
    return success();
  }
};

/// The same write spelt as a linalg.generic over the whole tensor:
/// `out[i...] = index(a) == p ? new[...] : old[i...]`, `new` broadcast
/// along dimension `a` and `p` read at run time.
struct RaiseSelectAtPosition : OpRewritePattern<linalg::GenericOp> {
  RaiseSelectAtPosition(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
        !isMovable(op.getResult(0).getType()))
      return failure();
    auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
    auto select = yield.getOperand(0).getDefiningOp<arith::SelectOp>();
    auto cmp = select ? select.getCondition().getDefiningOp<arith::CmpIOp>()
                      : arith::CmpIOp();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq)
      return failure();
    // One side of the comparison is a loop index, the other the position.
    std::optional<unsigned> axis;
    Value position;
    for (auto [index, scalar] : {std::pair(cmp.getLhs(), cmp.getRhs()),
                                 std::pair(cmp.getRhs(), cmp.getLhs())}) {
      if (auto loop =
              stripIntegerCasts(index).getDefiningOp<linalg::IndexOp>()) {
        axis = loop.getDim();
        position = positionTensor(scalar);
        break;
      }
    }
    if (!axis || !position ||
        op->getRegion(0).isAncestor(position.getParentRegion()))
      return failure();
    auto newArg = dyn_cast<BlockArgument>(select.getTrueValue());
    auto oldArg = dyn_cast<BlockArgument>(select.getFalseValue());
    if (!newArg || !oldArg || newArg.getOwner() != op.getBody() ||
        oldArg.getOwner() != op.getBody())
      return failure();
    OpOperand *newer = op.getMatchingOpOperand(newArg);
    OpOperand *older = op.getMatchingOpOperand(oldArg);
    auto resultType = cast<RankedTensorType>(op.getResult(0).getType());
    unsigned rank = resultType.getRank();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank,
                                                           op.getContext());
    if (!op.isDpsInput(newer) || !op.isDpsInput(older) ||
        op.getMatchingIndexingMap(older) != identity ||
        op.getMatchingIndexingMap(op.getDpsInitOperand(0)) != identity ||
        older->get().getType() != resultType)
      return failure();
    // `new` reads every loop but the axis in order, and the axis at 0 or
    // not at all.
    SmallVector<int64_t> rowShape(resultType.getShape());
    rowShape[*axis] = 1;
    AffineMap newMap = op.getMatchingIndexingMap(newer);
    SmallVector<unsigned> loops;
    for (AffineExpr e : newMap.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(e))
        loops.push_back(dim.getPosition());
      else if (auto c = dyn_cast<AffineConstantExpr>(e);
               !c || c.getValue() != 0)
        return failure();
    }
    SmallVector<unsigned> others;
    for (unsigned d = 0; d < rank; ++d)
      if (d != *axis)
        others.push_back(d);
    auto newType = dyn_cast<RankedTensorType>(newer->get().getType());
    if (loops != others || !newType || !newType.hasStaticShape() ||
        newType.getNumElements() != resultType.getNumElements() /
                                        resultType.getDimSize(*axis) ||
        newType.getElementType() != resultType.getElementType())
      return failure();
    Location loc = op.getLoc();
    // The generic writes nothing for a position outside the tensor; the
    // transfer stops the run there instead.
    op.emitWarning() << "a write selected by a position read at run time "
                        "becomes a transfer at that position: a position "
                        "outside [0, "
                     << resultType.getDimSize(*axis) - 1
                     << "] stops the run where this op would write nothing";
    Value update = reshapeIfNeeded(rewriter, loc, newer->get(), rowShape);
    rewriter.replaceOpWithNewOp<DynamicUpdateSliceOp>(
        op, resultType, update, older->get(), position, *axis);
    return success();
  }
};

} // namespace

void mlir::neuron::populateTensorOpPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseConstant, RaiseReshape<tensor::ExpandShapeOp>,
               RaiseReshape<tensor::CollapseShapeOp>, RaiseExtractSlice,
               RaiseConcat, RaiseInsertSliceChain, RaiseStaticInsertSlice,
               RaisePad, RaiseGather, RaiseSelectAtPosition>(
      patterns.getContext());
  populateDynamicSlicePatterns(patterns);
}

void mlir::neuron::populateDynamicSlicePatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseDynamicExtractSlice, RaiseDynamicInsertSlice>(
      patterns.getContext());
}
