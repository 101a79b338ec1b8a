//===- NeuronFolds.cpp - neuron folders and canonicalizations -------------===//
//
// Identity folds (x + 0, x * 1, a transpose by the identity, a no-op
// reshape/broadcast/slice/pad/cast), reshape chains, constant reshapes and
// transpose composition.
//
//===----------------------------------------------------------------------===//

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::neuron;

/// Whether `attr` is a splat whose every element equals `value`.
static bool isSplatOf(Attribute attr, double value) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  Type type = splat.getElementType();
  if (isa<FloatType>(type))
    return splat.getSplatValue<APFloat>().convertToDouble() == value;
  if (isa<IntegerType>(type))
    return splat.getSplatValue<APInt>().getSExtValue() ==
           static_cast<int64_t>(value);
  return false;
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 0.0))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 0.0))
    return getRhs();
  return {};
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return isSplatOf(adaptor.getRhs(), 0.0) ? getLhs() : OpFoldResult();
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (isSplatOf(adaptor.getRhs(), 1.0))
    return getLhs();
  if (isSplatOf(adaptor.getLhs(), 1.0))
    return getRhs();
  return {};
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  return isSplatOf(adaptor.getRhs(), 1.0) ? getLhs() : OpFoldResult();
}

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  return {};
}

/// `value` converted to `type` as neuron.cast does: floats round to
/// nearest even, integers widen with their sign, int to float is exact where
/// representable. Float to integer is not folded (saturation is the
/// target's).
static Attribute castScalar(Attribute value, Type type) {
  if (auto f = dyn_cast<FloatAttr>(value)) {
    auto target = dyn_cast<FloatType>(type);
    if (!target)
      return {};
    APFloat v = f.getValue();
    bool losesInfo = false;
    v.convert(target.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &losesInfo);
    return FloatAttr::get(target, v);
  }
  auto i = dyn_cast<IntegerAttr>(value);
  if (!i || type.isInteger(1) || i.getType().isInteger(1))
    return {};
  if (auto target = dyn_cast<FloatType>(type)) {
    APFloat v(target.getFloatSemantics());
    v.convertFromAPInt(i.getValue(), /*IsSigned=*/true,
                       APFloat::rmNearestTiesToEven);
    return FloatAttr::get(target, v);
  }
  if (auto target = dyn_cast<IntegerType>(type))
    return IntegerAttr::get(target,
                            i.getValue().sextOrTrunc(target.getWidth()));
  return {};
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput());
  if (!splat || !getType().hasStaticShape())
    return {};
  Attribute scalar =
      castScalar(splat.getSplatValue<Attribute>(), getType().getElementType());
  return scalar ? SplatElementsAttr::get(getType(), scalar) : OpFoldResult();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  // An identity permutation may still refine a dynamic dimension; folding
  // then would change the value's type.
  if (getInput().getType() != getType())
    return {};
  for (auto [i, p] : llvm::enumerate(getPermutation()))
    if (p != static_cast<int64_t>(i))
      return {};
  return getInput();
}

namespace {
/// transpose(transpose(x, p), q) -> transpose(x, p o q).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> composed;
    for (int64_t p : op.getPermutation())
      composed.push_back(inner.getPermutation()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             composed);
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return dense.reshape(getType());
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return SplatElementsAttr::get(getType(),
                                    splat.getSplatValue<Attribute>());
  return {};
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    if (getType().hasStaticShape())
      return SplatElementsAttr::get(getType(),
                                    splat.getSplatValue<Attribute>());
  if (getInput().getType() != getType() || !getType().hasStaticShape())
    return {};
  bool unitStrides = llvm::all_of(getStrides(), [](int64_t s) { return s == 1; });
  bool zeroOffsets = llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; });
  return unitStrides && zeroOffsets ? getInput() : OpFoldResult();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  return {};
}

OpFoldResult PadOp::fold(FoldAdaptor) {
  auto isZero = [](int64_t v) { return v == 0; };
  if (llvm::all_of(getLow(), isZero) && llvm::all_of(getHigh(), isZero) &&
      getInput().getType() == getType())
    return getInput();
  return {};
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

/// Whether `value` is a constant splat of `number`.
static bool isConstantSplatOf(Value value, double number) {
  Attribute attr;
  return matchPattern(value, m_Constant(&attr)) && isSplatOf(attr, number);
}

namespace {
/// max(x, 0) -> relu(x): how frontends spell ReLU once raised.
struct MaxWithZeroIsRelu : OpRewritePattern<MaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MaxOp op,
                                PatternRewriter &rewriter) const override {
    Value x = isConstantSplatOf(op.getRhs(), 0.0)   ? op.getLhs()
              : isConstantSplatOf(op.getLhs(), 0.0) ? op.getRhs()
                                                    : Value();
    if (!x)
      return failure();
    rewriter.replaceOpWithNewOp<ReluOp>(op, op.getType(), x);
    return success();
  }
};

/// 1 / (1 + exp(-x)) -> sigmoid(x), and otherwise 1 / x -> reciprocal(x).
struct DivOfOne : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantSplatOf(op.getLhs(), 1.0) ||
        !isa<FloatType>(op.getType().getElementType()))
      return failure();
    if (auto add = op.getRhs().getDefiningOp<AddOp>()) {
      Value other = isConstantSplatOf(add.getLhs(), 1.0)   ? add.getRhs()
                    : isConstantSplatOf(add.getRhs(), 1.0) ? add.getLhs()
                                                           : Value();
      auto exp = other ? other.getDefiningOp<ExpOp>() : ExpOp();
      auto neg = exp ? exp.getInput().getDefiningOp<NegOp>() : NegOp();
      if (neg) {
        rewriter.replaceOpWithNewOp<SigmoidOp>(op, op.getType(),
                                               neg.getInput());
        return success();
      }
    }
    rewriter.replaceOpWithNewOp<ReciprocalOp>(op, op.getType(), op.getRhs());
    return success();
  }
};

/// x * sigmoid(x) -> silu(x).
struct MulBySigmoidIsSilu : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [x, s] : {std::pair(op.getLhs(), op.getRhs()),
                        std::pair(op.getRhs(), op.getLhs())}) {
      auto sigmoid = s.getDefiningOp<SigmoidOp>();
      if (sigmoid && sigmoid.getInput() == x) {
        rewriter.replaceOpWithNewOp<SiluOp>(op, op.getType(), x);
        return success();
      }
    }
    return failure();
  }
};
} // namespace

namespace {
/// A broadcast that only adds unit dimensions moves no data: it is a
/// reshape (which then folds with neighbouring reshapes).
struct UnitBroadcastIsReshape : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    auto input = op.getInput().getType();
    auto result = op.getType();
    if (!input.hasStaticShape() || !result.hasStaticShape() ||
        input.getNumElements() != result.getNumElements())
      return failure();
    for (auto [i, d] : llvm::enumerate(op.getDimensions()))
      if (input.getDimSize(i) != result.getDimSize(d))
        return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, result, op.getInput());
    return success();
  }
};
} // namespace

void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<UnitBroadcastIsReshape>(context);
}

void MaxOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<MaxWithZeroIsRelu>(context);
}

void DivOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<DivOfOne>(context);
}

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<MulBySigmoidIsSilu>(context);
}
