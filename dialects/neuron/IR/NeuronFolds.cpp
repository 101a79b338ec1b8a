//===- NeuronFolds.cpp - neuron folders and canonicalizations -------------===//
//
// Identity folds (x + (-0.0), x - 0.0, integer x + 0, x * 1, a transpose by the identity, a no-op
// reshape/broadcast/slice/pad/cast/pool, a select by a constant mask), a
// sum pool over its window's size as an average pool, reshape
// chains, constant reshapes and transpose composition; float elementwise
// ops on splat constants evaluated (the dialect's canonicalization).
//
//===----------------------------------------------------------------------===//

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <type_traits>

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

/// Whether `attr` is a splat zero: an integer 0, or a float zero of the
/// given sign. x + (-0.0) and x - (+0.0) are x for every x; x + 0.0 is not
/// (-0.0 + 0.0 is +0.0).
static bool isSplatZero(Attribute attr, bool negative) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(attr);
  if (!splat)
    return false;
  if (isa<FloatType>(splat.getElementType())) {
    APFloat value = splat.getSplatValue<APFloat>();
    return value.isZero() && value.isNegative() == negative;
  }
  return isa<IntegerType>(splat.getElementType()) &&
         splat.getSplatValue<APInt>().isZero();
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (isSplatZero(adaptor.getRhs(), /*negative=*/true))
    return getLhs();
  if (isSplatZero(adaptor.getLhs(), /*negative=*/true))
    return getRhs();
  return {};
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  return isSplatZero(adaptor.getRhs(), /*negative=*/false) ? getLhs()
                                                            : OpFoldResult();
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

/// A select by a constant mask, or between one value, is that value (the
/// causal masks of LLaMA exports select by an all-false splat).
OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getOnTrue() == getOnFalse())
    return getOnTrue();
  auto mask = dyn_cast_if_present<SplatElementsAttr>(adaptor.getCondition());
  if (!mask)
    return {};
  return mask.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
}

/// A 1x1 window that keeps the shape (no padding) pools each element
/// alone: the input, whatever the kind.
OpFoldResult Pool2DOp::fold(FoldAdaptor) {
  if (getInput().getType() != getType() ||
      !llvm::equal(getKernel(), ArrayRef<int64_t>{1, 1}) ||
      isPadded(getPadding()))
    return {};
  return getInput();
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

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  // A splat is the same splat in any layout.
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput());
      splat && getType().hasStaticShape())
    return SplatElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
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

/// The inverse of transposing by `perm`: a transpose of `v` by `p` where
/// p o perm is the identity, else null.
static TransposeOp inverseTranspose(Value v, ArrayRef<int64_t> perm) {
  auto t = v.getDefiningOp<TransposeOp>();
  if (!t)
    return {};
  for (auto [i, p] : llvm::enumerate(perm))
    if (t.getPermutation()[p] != int64_t(i))
      return {};
  return t;
}

/// The dimensions a broadcast's input takes in its result transposed by
/// `perm`, where they stay increasing (the transposed result is the same
/// broadcast: a bias along the channels in either layout).
static std::optional<SmallVector<int64_t>>
transposedBroadcast(BroadcastOp broadcast, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> position(perm.size()), dims;
  for (auto [i, p] : llvm::enumerate(perm))
    position[p] = int64_t(i);
  for (int64_t d : broadcast.getDimensions()) {
    if (!dims.empty() && position[d] <= dims.back())
      return std::nullopt;
    dims.push_back(position[d]);
  }
  return dims;
}

/// Whether transposing `v` by `perm` moves nothing: a splat, or a
/// broadcast that stays one (transposedBroadcast).
static bool freelyTransposed(Value v, ArrayRef<int64_t> perm) {
  SplatElementsAttr splat;
  if (matchPattern(v, m_Constant(&splat)))
    return true;
  auto broadcast = v.getDefiningOp<BroadcastOp>();
  return broadcast && transposedBroadcast(broadcast, perm);
}

/// Whether `v` is elementwise ops or pads, each of no other use, over
/// freely transposed values and inverse transposes of `perm` (at least
/// one): transposing it by `perm` then costs no transpose at all.
static bool roundTrip(Value v, ArrayRef<int64_t> perm, int depth = 0) {
  if (inverseTranspose(v, perm))
    return true;
  Operation *op = v.getDefiningOp();
  if (!op || depth > 16 || !op->hasOneUse() || op->getNumResults() != 1 ||
      !(isa<PadOp>(op) || (op->hasTrait<OpTrait::Elementwise>() &&
                           op->hasTrait<OpTrait::SameOperandsAndResultType>())))
    return false;
  bool cancels = false;
  for (Value operand : op->getOperands()) {
    if (roundTrip(operand, perm, depth + 1))
      cancels = true;
    else if (!freelyTransposed(operand, perm))
      return false;
  }
  return cancels;
}

/// transpose(op(... transpose(x, p) ...), q) -> op(... x ...) where p o q
/// is the identity and `op`, elementwise or a pad (whose sizes follow the
/// permutation) of no other use, reads only such inverse transposes,
/// splats, broadcasts and ops like it (roundTrip): a layout round trip (a
/// TOSA graph's NHWC bias, activation or pad between NCHW convolutions)
/// goes. The transpose sinks one op at a time, onto each operand, until it
/// meets the inverse transposes and cancels; a splat folds, a broadcast
/// takes the transposed dimensions.
struct CancelLayoutRoundTrip : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    ArrayRef<int64_t> perm = op.getPermutation();
    Operation *producer = op.getInput().getDefiningOp();
    if (!producer || inverseTranspose(op.getInput(), perm) ||
        !roundTrip(op.getInput(), perm))
      return failure();
    SmallVector<Value> operands;
    for (Value v : producer->getOperands()) {
      if (TransposeOp inverse = inverseTranspose(v, perm)) {
        operands.push_back(inverse.getInput());
        continue;
      }
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape;
      for (int64_t p : perm)
        shape.push_back(type.getDimSize(p));
      auto broadcast = v.getDefiningOp<BroadcastOp>();
      std::optional<SmallVector<int64_t>> dims;
      if (broadcast && (dims = transposedBroadcast(broadcast, perm)))
        operands.push_back(BroadcastOp::create(rewriter, broadcast.getLoc(),
                                               type.clone(shape),
                                               broadcast.getInput(), *dims));
      else
        operands.push_back(rewriter.createOrFold<TransposeOp>(
            op.getLoc(), type.clone(shape), v, perm));
    }
    if (auto pad = dyn_cast<PadOp>(producer)) {
      SmallVector<int64_t> low, high;
      for (int64_t p : perm) {
        low.push_back(pad.getLow()[p]);
        high.push_back(pad.getHigh()[p]);
      }
      rewriter.replaceOpWithNewOp<PadOp>(op, op.getType(), operands.front(),
                                         low, high, pad.getValue());
      return success();
    }
    OperationState state(producer->getLoc(), producer->getName(), operands,
                         TypeRange{op.getType()}, producer->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes, CancelLayoutRoundTrip>(context);
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

/// The value of a constant float splat, if `value` is one.
static std::optional<double> splatValue(Value value) {
  SplatElementsAttr splat;
  if (!matchPattern(value, m_Constant(&splat)) ||
      !isa<FloatType>(splat.getElementType()))
    return std::nullopt;
  return splat.getSplatValue<APFloat>().convertToDouble();
}

/// Whether `value` is a float splat within a relative 1e-6 of `number`
/// (frontends write constants such as sqrt(2) rounded to f32).
static bool isNearSplat(Value value, double number) {
  std::optional<double> v = splatValue(value);
  return v && std::fabs(*v - number) <= 1e-6 * std::fabs(number);
}

/// The operand of commutative `op` that is not `known`, or null.
static Value otherOperand(Operation *op, Value known) {
  if (op->getOperand(0) == known)
    return op->getOperand(1);
  if (op->getOperand(1) == known)
    return op->getOperand(0);
  return {};
}

/// For `max(v, c)` with `c` a splat of the lowest float or -inf, `v`.
static Value lowestClampOperand(MaxOp op) {
  for (auto [v, c] : {std::pair(op.getLhs(), op.getRhs()),
                      std::pair(op.getRhs(), op.getLhs())}) {
    SplatElementsAttr splat;
    if (!matchPattern(c, m_Constant(&splat)) ||
        !isa<FloatType>(splat.getElementType()))
      continue;
    APFloat f = splat.getSplatValue<APFloat>();
    if (f.isNegative() && (f.isInfinity() || f.isLargest()))
      return v;
  }
  return {};
}

/// The dimensions of `shape` other than 1, in order.
static SmallVector<int64_t> nonUnitSizes(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> sizes;
  for (int64_t d : shape)
    if (d != 1)
      sizes.push_back(d);
  return sizes;
}

/// If `value` is a `ReduceOp` over one axis of a tensor of type `like`,
/// broadcast back to `like` (possibly through a reshape that only moves unit
/// dimensions, as imports write keep-dims), that reduction: each element of
/// `value` then holds the reduction of its own row along the axis.
/// With `reciprocal`, the chain must also pass through one neuron.reciprocal
/// (how TOSA writes softmax's division).
template <typename ReduceOp>
static ReduceOp broadcastReduction(Value value, RankedTensorType like,
                                   bool reciprocal = false) {
  auto broadcast = value.getDefiningOp<BroadcastOp>();
  if (!broadcast || broadcast.getType() != like || !like.hasStaticShape())
    return {};
  Value reduced = broadcast.getInput();
  bool sawReciprocal = false;
  while (Operation *def = reduced.getDefiningOp()) {
    if (isa<ReshapeOp>(def) || (isa<ReciprocalOp>(def) && !sawReciprocal)) {
      sawReciprocal |= isa<ReciprocalOp>(def);
      reduced = def->getOperand(0);
      continue;
    }
    // A max reduction clamped below by -FLT_MAX (the init TOSA writes) is
    // the max itself for every row holding a finite value.
    if constexpr (std::is_same_v<ReduceOp, ReduceMaxOp>)
      if (auto clamp = dyn_cast<MaxOp>(def)) {
        if (Value other = lowestClampOperand(clamp)) {
          reduced = other;
          continue;
        }
      }
    break;
  }
  if (sawReciprocal != reciprocal)
    return {};
  auto reduce = reduced.getDefiningOp<ReduceOp>();
  if (!reduce || reduce.getAxes().size() != 1 ||
      reduce.getInput().getType() != like)
    return {};
  auto inputType = broadcast.getInput().getType();
  if (nonUnitSizes(reduce.getType().getShape()) !=
      nonUnitSizes(inputType.getShape()))
    return {}; // the reshape moved more than unit dimensions
  int64_t axis = reduce.getAxes().front();
  SmallVector<int64_t> landed, expected;
  for (auto [j, d] : llvm::enumerate(broadcast.getDimensions()))
    if (inputType.getDimSize(j) != 1)
      landed.push_back(d);
  for (int64_t d = 0; d < like.getRank(); ++d)
    if (d != axis && like.getDimSize(d) != 1)
      expected.push_back(d);
  return landed == expected ? reduce : ReduceOp();
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

/// A float sum pool divided by its window's size -> an average pool
/// (torch's adaptive_avg_pool2d imports as the two), one counting the
/// padding where the image is padded; when nothing else reads the sum.
struct AveragePool : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    auto sum = op.getLhs().getDefiningOp<Pool2DOp>();
    if (!sum || sum.getKind() != PoolKind::sum || !sum->hasOneUse() ||
        !isa<FloatType>(op.getType().getElementType()))
      return failure();
    ArrayRef<int64_t> kernel = sum.getKernel();
    if (!isConstantSplatOf(op.getRhs(), double(kernel[0] * kernel[1])))
      return failure();
    rewriter.replaceOpWithNewOp<Pool2DOp>(
        op, op.getType(), sum.getInput(), PoolKind::avg, sum.getLayout(),
        kernel, sum.getStrides(), sum.getPadding(), sum.getDilations(),
        /*count_include_pad=*/isPadded(sum.getPadding()));
    return success();
  }
};

/// exp(x - max(x)) / sum(exp(x - max(x))) along one axis -> softmax(x).
struct SoftmaxFromParts : OpRewritePattern<DivOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DivOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getType();
    auto exp = op.getLhs().getDefiningOp<ExpOp>();
    auto sum = broadcastReduction<ReduceSumOp>(op.getRhs(), type);
    if (!exp || !sum || sum.getInput() != exp.getResult() ||
        !isa<FloatType>(type.getElementType()))
      return failure();
    auto sub = exp.getInput().getDefiningOp<SubOp>();
    if (!sub)
      return failure();
    auto max = broadcastReduction<ReduceMaxOp>(sub.getRhs(), type);
    if (!max || max.getInput() != sub.getLhs() ||
        max.getAxes() != sum.getAxes())
      return failure();
    rewriter.replaceOpWithNewOp<SoftmaxOp>(op, type, sub.getLhs(),
                                           sum.getAxes().front());
    return success();
  }
};

/// exp(x - max(x)) * (1 / sum(exp(x - max(x)))) -> softmax(x), the TOSA
/// spelling.
struct SoftmaxFromReciprocal : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto type = op.getType();
    if (!isa<FloatType>(type.getElementType()))
      return failure();
    for (auto [e, r] : {std::pair(op.getLhs(), op.getRhs()),
                        std::pair(op.getRhs(), op.getLhs())}) {
      auto exp = e.getDefiningOp<ExpOp>();
      auto sum = broadcastReduction<ReduceSumOp>(r, type, /*reciprocal=*/true);
      if (!exp || !sum || sum.getInput() != exp.getResult())
        continue;
      auto sub = exp.getInput().getDefiningOp<SubOp>();
      auto max = sub ? broadcastReduction<ReduceMaxOp>(sub.getRhs(), type)
                     : ReduceMaxOp();
      if (!max || max.getInput() != sub.getLhs() ||
          max.getAxes() != sum.getAxes())
        continue;
      rewriter.replaceOpWithNewOp<SoftmaxOp>(op, type, sub.getLhs(),
                                             sum.getAxes().front());
      return success();
    }
    return failure();
  }
};

/// x * (0.5 * (1 + erf(x / sqrt(2)))) in its commuted spellings -> gelu(x),
/// as torch-mlir writes the exact GELU.
struct GeluFromErf : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    for (Value x : {op.getLhs(), op.getRhs()}) {
      auto half = otherOperand(op, x).getDefiningOp<MulOp>();
      if (!half)
        continue;
      Value onePlus;
      if (isNearSplat(half.getRhs(), 0.5))
        onePlus = half.getLhs();
      else if (isNearSplat(half.getLhs(), 0.5))
        onePlus = half.getRhs();
      auto add = onePlus ? onePlus.getDefiningOp<AddOp>() : AddOp();
      if (!add)
        continue;
      Value erfValue = isNearSplat(add.getRhs(), 1.0)   ? add.getLhs()
                       : isNearSplat(add.getLhs(), 1.0) ? add.getRhs()
                                                        : Value();
      auto erf = erfValue ? erfValue.getDefiningOp<ErfOp>() : ErfOp();
      if (!erf || !isScaledBySqrtHalf(erf.getInput(), x))
        continue;
      rewriter.replaceOpWithNewOp<GeluOp>(op, op.getType(), x,
                                          GeluApproximation::none);
      return success();
    }
    return failure();
  }

  /// Whether `v` is x / sqrt(2) or x * (1 / sqrt(2)).
  static bool isScaledBySqrtHalf(Value v, Value x) {
    if (auto div = v.getDefiningOp<DivOp>())
      return div.getLhs() == x && isNearSplat(div.getRhs(), std::sqrt(2.0));
    if (auto mul = v.getDefiningOp<MulOp>()) {
      Value other = otherOperand(mul, x);
      return other && isNearSplat(other, 1.0 / std::sqrt(2.0));
    }
    return false;
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

namespace {
/// Matrices repeated over a value's batch dimensions (all but its last
/// two), as grouped-query attention repeats each KV head for its query
/// heads: batch b holds matrix b / repeats of `source` ([groups, rows,
/// cols] once reshaped), transposed when `transposed`.
struct RepeatedMatrices {
  Value source;
  int64_t groups = 1, repeats = 1, rows = 0, cols = 0;
  bool transposed = false;
};

/// The matrices `v` ([..., K, N]) repeats, or nullopt when its batches may
/// all differ. `v` repeats when it is a broadcast adding batch dimensions
/// inside the ones its input has (of size above 1), seen through reshapes
/// keeping the last two dimensions (which keep the batch order) and
/// transposes keeping the batch dimensions in place.
std::optional<RepeatedMatrices> findRepeated(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 3)
    return std::nullopt;
  int64_t rank = type.getRank();
  ArrayRef<int64_t> shape = type.getShape();
  if (auto broadcast = v.getDefiningOp<BroadcastOp>()) {
    auto input = broadcast.getInput().getType();
    ArrayRef<int64_t> dims = broadcast.getDimensions();
    if (!llvm::is_contained(dims, rank - 2) ||
        !llvm::is_contained(dims, rank - 1))
      return std::nullopt;
    // The input's batch dimensions (of size above 1) all outside the added
    // ones: batch b is then group b / repeats.
    int64_t groups = 1, innermostGroup = -1;
    for (auto [i, d] : llvm::enumerate(dims))
      if (d < rank - 2 && input.getDimSize(i) != 1) {
        groups *= input.getDimSize(i);
        innermostGroup = d;
      }
    for (int64_t d = 0; d < innermostGroup; ++d)
      if (!llvm::is_contained(dims, d) && shape[d] != 1)
        return std::nullopt;
    int64_t batch = type.getNumElements() / (shape[rank - 2] * shape[rank - 1]);
    return RepeatedMatrices{broadcast.getInput(), groups, batch / groups,
                            shape[rank - 2], shape[rank - 1]};
  }
  if (auto reshape = v.getDefiningOp<ReshapeOp>()) {
    auto input = reshape.getInput().getType();
    if (input.getRank() < 3 ||
        input.getShape().take_back(2) != shape.take_back(2))
      return std::nullopt;
    return findRepeated(reshape.getInput());
  }
  if (auto transpose = v.getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> perm = transpose.getPermutation();
    for (int64_t d = 0; d < rank - 2; ++d)
      if (perm[d] != d)
        return std::nullopt;
    std::optional<RepeatedMatrices> inner =
        findRepeated(transpose.getInput());
    if (inner && perm[rank - 2] == rank - 1)
      inner->transposed = !inner->transposed;
    return inner;
  }
  return std::nullopt;
}

/// batch_matmul(lhs [G*R, M, K], rhs [G*R, K, N]) whose rhs repeats each
/// of G matrices S_g R times -> the R batches of a group as rows of one
/// product: reshape(batch_matmul(reshape(lhs, [G, R*M, K]), S)) (a matmul
/// when G is 1), when the R*M rows fit one tensor-engine pass
/// (kFoldedRows: a 2 KiB PSUM bank of fp32 sums, the bank size of every
/// generation in runtime/target/data; the dialect's canonicalization does
/// not know the target). The rows share one pass over
/// S_g, read where it lives instead of repeated R times, as a decode
/// step's grouped query heads do. Longer batches (a prefill's) already
/// fill the engine; folded, the one matmul's transfers crowded fewer DMA
/// queues (LLaMA-70B prefill attention at 2048 tokens on 8 cores: 9.0 ->
/// 11.0 ms), so they stay batched.
struct RepeatedRhsFoldsIntoRows : OpRewritePattern<BatchMatmulOp> {
  static constexpr int64_t kFoldedRows = 512;
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getLhs().getType(), result = op.getType();
    if (!lhs.hasStaticShape() || !result.hasStaticShape())
      return failure();
    std::optional<RepeatedMatrices> repeated = findRepeated(op.getRhs());
    if (!repeated || repeated->repeats < 2 ||
        repeated->repeats * lhs.getDimSize(1) > kFoldedRows)
      return failure();
    Location loc = op.getLoc();
    int64_t g = repeated->groups, rows = repeated->repeats * lhs.getDimSize(1);
    auto rhs = cast<RankedTensorType>(op.getRhs().getType());
    auto shaped = [&](RankedTensorType like, ArrayRef<int64_t> dims) {
      SmallVector<int64_t> shape(dims);
      if (g == 1)
        shape.erase(shape.begin());
      return like.clone(shape);
    };
    Value matrices = ReshapeOp::create(
        rewriter, loc, shaped(rhs, {g, repeated->rows, repeated->cols}),
        repeated->source);
    if (repeated->transposed) {
      SmallVector<int64_t> perm =
          g == 1 ? SmallVector<int64_t>{1, 0} : SmallVector<int64_t>{0, 2, 1};
      matrices = TransposeOp::create(
          rewriter, loc, shaped(rhs, {g, repeated->cols, repeated->rows}),
          matrices, rewriter.getDenseI64ArrayAttr(perm));
    }
    Value folded = ReshapeOp::create(
        rewriter, loc, shaped(lhs, {g, rows, lhs.getDimSize(2)}), op.getLhs());
    Type productType = shaped(result, {g, rows, result.getDimSize(2)});
    Value product =
        g == 1 ? Value(MatmulOp::create(rewriter, loc, productType, folded,
                                        matrices))
               : Value(BatchMatmulOp::create(rewriter, loc, productType,
                                             folded, matrices));
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, result, product);
    return success();
  }
};
} // namespace

void BatchMatmulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                MLIRContext *context) {
  results.add<RepeatedRhsFoldsIntoRows>(context);
}

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
  results.add<DivOfOne, SoftmaxFromParts, AveragePool>(context);
}

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<MulBySigmoidIsSilu, GeluFromErf, SoftmaxFromReciprocal>(
      context);
}

/// `op` on scalars, as the engines compute it (in double, rounded to the
/// element type after each op); nullopt for an op this does not evaluate.
static std::optional<double> evaluate(Operation *op, ArrayRef<double> x) {
  using R = std::optional<double>;
  auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([&](AddOp) { return x[0] + x[1]; })
      .Case([&](SubOp) { return x[0] - x[1]; })
      .Case([&](MulOp) { return x[0] * x[1]; })
      .Case([&](DivOp) { return x[0] / x[1]; })
      .Case([&](PowOp) { return std::pow(x[0], x[1]); })
      .Case([&](ExpOp) { return std::exp(x[0]); })
      .Case([&](LogOp) { return std::log(x[0]); })
      .Case([&](TanhOp) { return std::tanh(x[0]); })
      .Case([&](SigmoidOp) { return sigmoid(x[0]); })
      .Case([&](SiluOp) { return x[0] * sigmoid(x[0]); })
      .Case([&](RsqrtOp) { return 1 / std::sqrt(x[0]); })
      .Case([&](SqrtOp) { return std::sqrt(x[0]); })
      .Case([&](ReciprocalOp) { return 1 / x[0]; })
      .Case([&](ErfOp) { return std::erf(x[0]); })
      .Case([&](AbsOp) { return std::fabs(x[0]); })
      .Default([](Operation *) { return R(); });
}

/// A neuron elementwise op of operands and one result.
static bool isElementwiseOp(Operation *op) {
  return isa_and_present<NeuronDialect>(op->getDialect()) &&
         op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
         op->getNumRegions() == 0 && op->getNumOperands() > 0;
}

namespace {
/// A float elementwise op whose operands are all splat constants is a
/// splat constant: batch norm's rsqrt(var + eps) where an export writes
/// the statistics as splats. Max, min and relu are left alone (their NaN
/// rules are the engines').
struct FoldSplatElementwise : RewritePattern {
  explicit FoldSplatElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseOp(op))
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return failure();
    SmallVector<double> scalars;
    for (Value operand : op->getOperands()) {
      std::optional<double> value = splatFloat(operand);
      if (!value)
        return failure();
      scalars.push_back(*value);
    }
    std::optional<double> result = evaluate(op, scalars);
    if (!result)
      return failure();
    APFloat rounded(*result);
    bool lost;
    rounded.convert(cast<FloatType>(type.getElementType()).getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &lost);
    // A finite value the type cannot hold is left to the engines, which
    // saturate (fp8) where rounding here would give an infinity or NaN.
    if (std::isfinite(*result) && !rounded.isFinite())
      return failure();
    rewriter.replaceOpWithNewOp<ConstantOp>(
        op, type, DenseElementsAttr::get(type, rounded));
    return success();
  }
};
} // namespace

namespace {
/// An elementwise op of two or more operands, all broadcasts along some
/// common new dimensions (the innermost aside), computes once over the
/// others and is broadcast after: a causal mask compares broadcast
/// positions over [rows, cols] once, not once per head. A consumer that
/// reads the broadcast in place then never materialises it. A unary op (a
/// cast of a broadcast weight) stays: it fuses into its readers, which
/// read the broadcast of the argument in place, where a broadcast of a
/// computed value would split their group.
struct ElementwiseBeforeBroadcast : RewritePattern {
  explicit ElementwiseBeforeBroadcast(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwiseOp(op) || op->getNumOperands() < 2)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape())
      return failure();
    // The result dimensions every operand's broadcast adds.
    llvm::SmallBitVector common(type.getRank(), true);
    SmallVector<BroadcastOp> broadcasts;
    for (Value operand : op->getOperands()) {
      auto broadcast = operand.getDefiningOp<BroadcastOp>();
      if (!broadcast)
        return failure();
      llvm::SmallBitVector added(type.getRank(), true);
      for (int64_t d : broadcast.getDimensions())
        added.reset(d);
      common &= added;
      broadcasts.push_back(broadcast);
    }
    // Not along the innermost dimension: the broadcast after would repeat
    // single elements, where a consumer reads whole rows of the others.
    common.reset(type.getRank() - 1);
    SmallVector<int64_t> kept, keptShape;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (!common.test(d)) {
        kept.push_back(d);
        keptShape.push_back(type.getDimSize(d));
      }
    if (ShapedType::getNumElements(keptShape) == type.getNumElements())
      return failure();
    // Each operand broadcast to the kept dimensions alone (its input when
    // that is all it adds).
    Location loc = op->getLoc();
    SmallVector<Value> operands;
    for (BroadcastOp broadcast : broadcasts) {
      SmallVector<int64_t> dims;
      for (int64_t d : broadcast.getDimensions())
        dims.push_back(llvm::find(kept, d) - kept.begin());
      auto reduced = RankedTensorType::get(
          keptShape, broadcast.getType().getElementType());
      operands.push_back(rewriter.createOrFold<BroadcastOp>(
          loc, reduced, broadcast.getInput(), dims));
    }
    Operation *once = rewriter.clone(*op);
    once->setOperands(operands);
    once->getResult(0).setType(
        RankedTensorType::get(keptShape, type.getElementType()));
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, type, once->getResult(0),
                                             kept);
    return success();
  }
};
} // namespace

namespace {
/// A softmax whose only reader casts it to a narrower float type writes
/// that type itself: its probabilities are rounded once either way, and
/// the wide ones are never stored. One that rounds already stays (folded,
/// its result would round once where it rounds twice).
struct SoftmaxRoundsOnce : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto softmax = op.getInput().getDefiningOp<SoftmaxOp>();
    auto to = dyn_cast<FloatType>(op.getType().getElementType());
    if (!softmax || !softmax->hasOneUse() || !to ||
        softmax.getType() != softmax.getInput().getType() ||
        to.getWidth() > softmax.getType().getElementTypeBitWidth())
      return failure();
    rewriter.replaceOpWithNewOp<SoftmaxOp>(op, op.getType(),
                                           softmax.getInput(),
                                           softmax.getAxis());
    rewriter.eraseOp(softmax);
    return success();
  }
};
} // namespace

void NeuronDialect::getCanonicalizationPatterns(
    RewritePatternSet &results) const {
  results.add<FoldSplatElementwise, ElementwiseBeforeBroadcast,
              SoftmaxRoundsOnce>(getContext());
}
