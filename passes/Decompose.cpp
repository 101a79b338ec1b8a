//===- Decompose.cpp - rewrites of unsupported ops ------------------------===//
//
// Each rewrite keeps the op's meaning: mean = sum * (1/N); x^n for a small
// integer n = repeated multiplication; softmax and the norms spelled with
// reductions and elementwise ops; sigmoid and silu with exp; exact gelu as
// its tanh form (a precision change, warned); i64 gather indices and the
// offsets of dynamic slices and updates narrowed to i32, and i8 matmuls run
// in bf16 with f32 accumulation (exact within stated bounds, warned).
//
//===----------------------------------------------------------------------===//

#include "passes/Decompose.h"
#include "passes/Coverage.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::neuron;

/// The rewrites build constants shaped like their operands, so they need
/// static shapes.
static bool hasStaticTypes(Operation *op) {
  auto isStatic = [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped || shaped.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

/// The exponent of `pow` when it is a constant the rewrite handles: an
/// integer in [-4, 4] or +-0.5.
static std::optional<double> smallExponent(PowOp pow) {
  SplatElementsAttr exponent;
  if (!matchPattern(pow.getRhs(), m_Constant(&exponent)) ||
      !isa<FloatType>(exponent.getElementType()))
    return std::nullopt;
  double e = exponent.getSplatValue<APFloat>().convertToDouble();
  if (std::fabs(e) == 0.5 || (e == std::floor(e) && std::fabs(e) <= 4))
    return e;
  return std::nullopt;
}

/// The largest K for which an i8 matmul in bf16 with f32 accumulation is
/// exact: products are below 2^14, sums of 1024 of them below 2^24.
static constexpr int64_t kExactInt8K = 1024;

/// Whether an i8 x i8 -> i32 contraction can run exactly in bf16.
template <typename MatmulTy>
static bool isExactInt8Matmul(MatmulTy op) {
  auto lhs = op.getLhs().getType();
  return lhs.getElementType().isInteger(8) &&
         op.getType().getElementType().isInteger(32) &&
         lhs.getDimSize(lhs.getRank() - 1) <= kExactInt8K;
}

/// What the narrowing warning calls the indices of `op`.
static StringRef indexName(GatherOp) { return "gather indices"; }
static StringRef indexName(DynamicSliceOp) {
  return "the dynamic slice's offset";
}
static StringRef indexName(DynamicUpdateSliceOp) {
  return "the dynamic update's offset";
}

bool mlir::neuron::hasDecomposition(Operation *op) {
  if (!hasStaticTypes(op))
    return false;
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case<ReduceMeanOp, SoftmaxOp, LayerNormOp, RmsNormOp, GeluOp, SiluOp,
            SigmoidOp>([](auto) { return true; })
      .Case([](PowOp pow) { return smallExponent(pow).has_value(); })
      .Case<GatherOp, DynamicSliceOp, DynamicUpdateSliceOp>([](auto op) {
        return cast<RankedTensorType>(getIndexOperand(op)->get().getType())
            .getElementType()
            .isInteger(64);
      })
      .Case<MatmulOp, BatchMatmulOp>(
          [](auto matmul) { return isExactInt8Matmul(matmul); })
      .Default([](Operation *) { return false; });
}

/// A splat constant of `value` shaped like `like` (or with `shape`).
static Value splat(PatternRewriter &b, Location loc, RankedTensorType like,
                   double value) {
  Type element = like.getElementType();
  TypedAttr scalar =
      isa<FloatType>(element)
          ? TypedAttr(b.getFloatAttr(element, value))
          : TypedAttr(b.getIntegerAttr(element, static_cast<int64_t>(value)));
  return ConstantOp::create(b, loc, like, SplatElementsAttr::get(like, scalar));
}

/// The number of elements `axes` of `type` span.
static int64_t spanOf(RankedTensorType type, ArrayRef<int64_t> axes) {
  int64_t n = 1;
  for (int64_t a : axes)
    n *= type.getDimSize(a);
  return n;
}

/// Reduces `x` over `axes` keeping the dimensions (so the result
/// broadcasts back), with `ReduceOp`.
template <typename ReduceOp>
static Value reduceKeep(PatternRewriter &b, Location loc, Value x,
                        ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t a : axes)
    shape[a] = 1;
  auto op = ReduceOp::create(b, loc, type.clone(shape), x, axes);
  op.setKeepDims(true);
  return op;
}

/// Broadcasts a keep-dims reduction back to `like`'s shape.
static Value expand(PatternRewriter &b, Location loc, Value reduced,
                    RankedTensorType like) {
  if (reduced.getType() == like)
    return reduced;
  SmallVector<int64_t> dims(like.getRank());
  std::iota(dims.begin(), dims.end(), 0);
  return BroadcastOp::create(b, loc, like, reduced, dims);
}

/// The axes [axis, rank).
static SmallVector<int64_t> trailingAxes(int64_t axis, int64_t rank) {
  SmallVector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a)
    axes.push_back(a);
  return axes;
}

/// mean(x) over the axes, keeping dims.
static Value meanKeep(PatternRewriter &b, Location loc, Value x,
                      ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  Value sum = reduceKeep<ReduceSumOp>(b, loc, x, axes);
  auto sumType = cast<RankedTensorType>(sum.getType());
  return MulOp::create(b, loc, sumType, sum,
                       splat(b, loc, sumType, 1.0 / spanOf(type, axes)));
}

/// Broadcasts a norm's affine parameter (shaped like the trailing dims) to
/// the input's shape.
static Value expandParam(PatternRewriter &b, Location loc, Value param,
                         RankedTensorType like) {
  auto type = cast<RankedTensorType>(param.getType());
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < type.getRank(); ++i)
    dims.push_back(like.getRank() - type.getRank() + i);
  if (type == like)
    return param;
  return BroadcastOp::create(b, loc, like, param, dims);
}

/// `x * rsqrt(mean(x^2) + eps) * weight + bias` over `axes` (the weight and
/// bias optional): RMS norm of `x`, or layer norm when `x` is centred.
static Value normalise(PatternRewriter &b, Location loc, Value x,
                       ArrayRef<int64_t> axes, double epsilon, Value weight,
                       Value bias) {
  auto type = cast<RankedTensorType>(x.getType());
  Value square = MulOp::create(b, loc, type, x, x);
  Value meanSquare = expand(b, loc, meanKeep(b, loc, square, axes), type);
  Value scale = RsqrtOp::create(
      b, loc, type,
      AddOp::create(b, loc, type, meanSquare, splat(b, loc, type, epsilon)));
  Value result = MulOp::create(b, loc, type, x, scale);
  if (weight)
    result = MulOp::create(b, loc, type, result,
                           expandParam(b, loc, weight, type));
  if (bias)
    result = AddOp::create(b, loc, type, result,
                           expandParam(b, loc, bias, type));
  return result;
}

bool mlir::neuron::isDecomposable(const CoverageIssue &issue) {
  return issue.rule == "op" || issue.rule == "dtype" ||
         issue.rule == "attribute" || issue.rule == "not-tiled";
}

namespace {

/// Base of the rewrites: fires only on an op the checker rejects, records
/// the decomposition, and leaves the rest to `decompose`.
template <typename OpTy>
struct CoverageRewrite : OpRewritePattern<OpTy> {
  CoverageRewrite(MLIRContext *context, const CoverageChecker &checker,
                  DecomposeLog &log)
      : OpRewritePattern<OpTy>(context), checker(checker), log(log) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    std::optional<CoverageIssue> issue = checker.check(op);
    if (!issue || !isDecomposable(*issue) || !hasStaticTypes(op))
      return failure();
    std::string name = op->getName().getStringRef().str();
    if (failed(decompose(op, rewriter)))
      return failure();
    ++log.decomposed[name];
    return success();
  }

  /// Replaces `op`; must not change the IR when it fails.
  virtual LogicalResult decompose(OpTy op, PatternRewriter &rewriter) const = 0;

  void warn(Operation *op, const Twine &message) const {
    op->emitWarning() << message;
    log.warnings.emplace_back(op->getLoc(), message.str());
  }

  const CoverageChecker &checker;
  DecomposeLog &log;
};

struct DecomposeMean : CoverageRewrite<ReduceMeanOp> {
  using CoverageRewrite::CoverageRewrite;
  LogicalResult decompose(ReduceMeanOp op,
                          PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Value sum = ReduceSumOp::create(rewriter, loc, type, op.getInput(),
                                    op.getAxes(), op.getKeepDims());
    double n = spanOf(op.getInput().getType(), op.getAxes());
    rewriter.replaceOpWithNewOp<MulOp>(op, type, sum,
                                       splat(rewriter, loc, type, 1.0 / n));
    return success();
  }
};

/// x^e for a constant e in {-4..4} or +-0.5.
struct DecomposePow : CoverageRewrite<PowOp> {
  using CoverageRewrite::CoverageRewrite;
  LogicalResult decompose(PowOp op, PatternRewriter &rewriter) const override {
    std::optional<double> exponent = smallExponent(op);
    if (!exponent)
      return failure();
    double e = *exponent;
    Location loc = op.getLoc();
    auto type = op.getType();
    Value x = op.getLhs();
    if (e == 0.5) {
      rewriter.replaceOpWithNewOp<SqrtOp>(op, type, x);
      return success();
    }
    if (e == -0.5) {
      rewriter.replaceOpWithNewOp<RsqrtOp>(op, type, x);
      return success();
    }
    if (e == 0) {
      rewriter.replaceOp(op, splat(rewriter, loc, type, 1.0));
      return success();
    }
    Value result = x;
    for (int i = 1; i < std::fabs(e); ++i)
      result = MulOp::create(rewriter, loc, type, result, x);
    if (e < 0)
      result = ReciprocalOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Rewrites of the composite ops into reductions and elementwise ops,
/// shared by `fallback=decompose` and the unconditional expansion.
static LogicalResult expandSoftmax(SoftmaxOp op, PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto type = op.getInput().getType();
  int64_t axis = op.getAxis();
  Value max = expand(
      rewriter, loc,
      reduceKeep<ReduceMaxOp>(rewriter, loc, op.getInput(), {axis}), type);
  Value shifted = SubOp::create(rewriter, loc, type, op.getInput(), max);
  Value e = ExpOp::create(rewriter, loc, type, shifted);
  Value sum = expand(rewriter, loc,
                     reduceKeep<ReduceSumOp>(rewriter, loc, e, {axis}), type);
  Value quotient = DivOp::create(rewriter, loc, type, e, sum);
  if (op.getType() == type)
    rewriter.replaceOp(op, quotient);
  else
    rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), quotient);
  return success();
}

static LogicalResult expandLayerNorm(LayerNormOp op,
                                     PatternRewriter &rewriter) {
  Location loc = op.getLoc();
  auto type = op.getType();
  SmallVector<int64_t> axes = trailingAxes(op.getAxis(), type.getRank());
  Value mean =
      expand(rewriter, loc, meanKeep(rewriter, loc, op.getInput(), axes), type);
  Value centred = SubOp::create(rewriter, loc, type, op.getInput(), mean);
  rewriter.replaceOp(op, normalise(rewriter, loc, centred, axes,
                                   op.getEpsilon().convertToDouble(),
                                   op.getWeight(), op.getBias()));
  return success();
}

static LogicalResult expandRmsNorm(RmsNormOp op, PatternRewriter &rewriter) {
  SmallVector<int64_t> axes =
      trailingAxes(op.getAxis(), op.getType().getRank());
  rewriter.replaceOp(op, normalise(rewriter, op.getLoc(), op.getInput(), axes,
                                   op.getEpsilon().convertToDouble(),
                                   op.getWeight(), Value()));
  return success();
}

struct DecomposeSoftmax : CoverageRewrite<SoftmaxOp> {
  using CoverageRewrite::CoverageRewrite;
  LogicalResult decompose(SoftmaxOp op,
                          PatternRewriter &rewriter) const override {
    return expandSoftmax(op, rewriter);
  }
};

struct DecomposeLayerNorm : CoverageRewrite<LayerNormOp> {
  using CoverageRewrite::CoverageRewrite;
  LogicalResult decompose(LayerNormOp op,
                          PatternRewriter &rewriter) const override {
    return expandLayerNorm(op, rewriter);
  }
};

struct DecomposeRmsNorm : CoverageRewrite<RmsNormOp> {
  using CoverageRewrite::CoverageRewrite;
  LogicalResult decompose(RmsNormOp op,
                          PatternRewriter &rewriter) const override {
    return expandRmsNorm(op, rewriter);
  }
};

/// An expansion of `OpTy` by `expandFn`, unless `hasRecipe` takes it.
template <typename OpTy, LogicalResult (*expandFn)(OpTy, PatternRewriter &)>
struct ExpandComposite : OpRewritePattern<OpTy> {
  ExpandComposite(MLIRContext *context,
                  std::function<bool(Operation *)> hasRecipe)
      : OpRewritePattern<OpTy>(context), hasRecipe(std::move(hasRecipe)) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticTypes(op) || (hasRecipe && hasRecipe(op)))
      return failure();
    return expandFn(op, rewriter);
  }
  std::function<bool(Operation *)> hasRecipe;
};

struct DecomposeSigmoid : CoverageRewrite<SigmoidOp> {
  using CoverageRewrite::CoverageRewrite;
  LogicalResult decompose(SigmoidOp op,
                          PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Value e = ExpOp::create(rewriter, loc, type,
                            NegOp::create(rewriter, loc, type, op.getInput()));
    Value denom = AddOp::create(rewriter, loc, type, e,
                                splat(rewriter, loc, type, 1.0));
    rewriter.replaceOpWithNewOp<ReciprocalOp>(op, type, denom);
    return success();
  }
};

struct DecomposeSilu : CoverageRewrite<SiluOp> {
  using CoverageRewrite::CoverageRewrite;
  LogicalResult decompose(SiluOp op, PatternRewriter &rewriter) const override {
    auto type = op.getType();
    Value s = SigmoidOp::create(rewriter, op.getLoc(), type, op.getInput());
    rewriter.replaceOpWithNewOp<MulOp>(op, type, op.getInput(), s);
    return success();
  }
};

/// Exact gelu becomes the tanh form when the generation has it; otherwise
/// either form is spelled with elementwise ops.
struct DecomposeGelu : CoverageRewrite<GeluOp> {
  using CoverageRewrite::CoverageRewrite;
  LogicalResult decompose(GeluOp op, PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    bool exact = op.getApproximate() == GeluApproximation::none;
    if (exact) {
      auto tanhForm = GeluOp::create(rewriter, loc, type, op.getInput(),
                                     GeluApproximation::tanh);
      if (!checker.check(tanhForm)) {
        warn(op, "exact gelu replaced by its tanh approximation (absolute "
                 "difference below 1e-3)");
        rewriter.replaceOp(op, tanhForm);
        return success();
      }
      rewriter.eraseOp(tanhForm);
    }
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), or with erf.
    Value x = op.getInput();
    Value inner;
    if (exact) {
      inner = ErfOp::create(rewriter, loc, type,
                            MulOp::create(rewriter, loc, type, x,
                                          splat(rewriter, loc, type,
                                                1.0 / std::sqrt(2.0))));
    } else {
      Value cube = MulOp::create(rewriter, loc, type,
                                 MulOp::create(rewriter, loc, type, x, x), x);
      Value poly = AddOp::create(
          rewriter, loc, type, x,
          MulOp::create(rewriter, loc, type, cube,
                        splat(rewriter, loc, type, 0.044715)));
      inner = TanhOp::create(
          rewriter, loc, type,
          MulOp::create(rewriter, loc, type, poly,
                        splat(rewriter, loc, type, std::sqrt(2.0 / M_PI))));
    }
    Value onePlus = AddOp::create(rewriter, loc, type, inner,
                                  splat(rewriter, loc, type, 1.0));
    Value half = MulOp::create(rewriter, loc, type, x,
                               splat(rewriter, loc, type, 0.5));
    rewriter.replaceOpWithNewOp<MulOp>(op, type, half, onePlus);
    return success();
  }
};

/// i64 indices (a gather's, a dynamic slice's or update's offset) narrowed
/// to i32 by
/// a neuron.cast before the op.
template <typename OpTy> struct NarrowIndices : CoverageRewrite<OpTy> {
  using CoverageRewrite<OpTy>::CoverageRewrite;
  LogicalResult decompose(OpTy op, PatternRewriter &rewriter) const override {
    OpOperand &index = *getIndexOperand(op);
    auto type = cast<RankedTensorType>(index.get().getType());
    if (!type.getElementType().isInteger(64))
      return failure();
    Value narrow = CastOp::create(rewriter, op.getLoc(),
                                  type.clone(rewriter.getI32Type()),
                                  index.get());
    this->warn(op, indexName(op) +
                       " narrowed from i64 to i32 (exact for values below "
                       "2^31)");
    rewriter.modifyOpInPlace(op, [&] { index.set(narrow); });
    return success();
  }
};

/// An i8 x i8 -> i32 contraction run in bf16 with f32 accumulation: i8
/// values are exact in bf16, products below 2^14 and sums of K of them
/// below 2^24 are exact in f32, so the result is exact for K <= 1024; a
/// longer K is left unsupported rather than computed inexactly.
template <typename MatmulTy>
struct WidenInt8Matmul : CoverageRewrite<MatmulTy> {
  using CoverageRewrite<MatmulTy>::CoverageRewrite;
  LogicalResult decompose(MatmulTy op,
                          PatternRewriter &rewriter) const override {
    if (!isExactInt8Matmul(op))
      return failure();
    auto lhs = op.getLhs().getType();
    int64_t k = lhs.getDimSize(lhs.getRank() - 1);
    Location loc = op.getLoc();
    Type bf16 = rewriter.getBF16Type(), f32 = rewriter.getF32Type();
    Value l = CastOp::create(rewriter, loc, lhs.clone(bf16), op.getLhs());
    Value r = CastOp::create(rewriter, loc, op.getRhs().getType().clone(bf16),
                             op.getRhs());
    Value product =
        MatmulTy::create(rewriter, loc, op.getType().clone(f32), l, r);
    this->warn(op, "i8 matmul computed in bf16 with f32 accumulation (exact "
                   "for K <= 1024; K = " +
                       Twine(k) + ")");
    rewriter.replaceOpWithNewOp<CastOp>(op, op.getType(), product);
    return success();
  }
};

} // namespace

void mlir::neuron::populateCompositeExpansionPatterns(
    RewritePatternSet &patterns, std::function<bool(Operation *)> hasRecipe) {
  patterns.add<ExpandComposite<SoftmaxOp, expandSoftmax>,
               ExpandComposite<LayerNormOp, expandLayerNorm>,
               ExpandComposite<RmsNormOp, expandRmsNorm>>(
      patterns.getContext(), hasRecipe);
}

void mlir::neuron::populateCoverageDecompositions(
    RewritePatternSet &patterns, const CoverageChecker &checker,
    DecomposeLog &log) {
  patterns.add<DecomposeMean, DecomposePow, DecomposeSoftmax,
               DecomposeLayerNorm, DecomposeRmsNorm, DecomposeSigmoid,
               DecomposeSilu, DecomposeGelu, NarrowIndices<GatherOp>,
               NarrowIndices<DynamicSliceOp>,
               NarrowIndices<DynamicUpdateSliceOp>,
               WidenInt8Matmul<MatmulOp>, WidenInt8Matmul<BatchMatmulOp>>(
      patterns.getContext(), checker, log);
}
