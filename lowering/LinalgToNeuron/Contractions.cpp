//===- Contractions.cpp - matmuls, convolutions and pooling ---------------===//
//
// Raises linalg contractions (named or generic, with any operand layout) to
// neuron.matmul/batch_matmul, convolutions (named or generic, regular or
// depthwise) to neuron.conv2d, and the named pooling ops to neuron.pool2d.
// Operands are transposed and reshaped into the canonical layouts; a
// non-zero accumulator init becomes an explicit add.
//
//===----------------------------------------------------------------------===//

#include "lowering/LinalgToNeuron/LinalgToNeuron.h"
#include "lowering/LinalgToNeuron/Utils.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::neuron;

/// Looks through the widening casts a mixed-precision body puts on its
/// operands (they are exact; a truncf would round, so it is not skipped).
static Value stripCasts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::ExtSIOp, arith::SIToFPOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether the body is `out + in0 * in1` (in either order, casts allowed).
static bool isMulAccBody(linalg::LinalgOp op) {
  Block *block = op.getBlock();
  if (!block || block->getNumArguments() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(block->getTerminator());
  if (yield.getNumOperands() != 1)
    return false;
  Operation *add = yield.getOperand(0).getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add))
    return false;
  Value out = block->getArgument(2);
  Value product = add->getOperand(0) == out   ? add->getOperand(1)
                  : add->getOperand(1) == out ? add->getOperand(0)
                                              : Value();
  Operation *mul = product ? product.getDefiningOp() : nullptr;
  if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul))
    return false;
  Value a = stripCasts(mul->getOperand(0)), b = stripCasts(mul->getOperand(1));
  Value in0 = block->getArgument(0), in1 = block->getArgument(1);
  return (a == in0 && b == in1) || (a == in1 && b == in0);
}

/// Whether neuron contracts `operand` elements into `result` elements.
static bool isAccumulatorOf(Type operand, Type result) {
  if (!isNeuronElementType(operand) || !isNeuronElementType(result))
    return false;
  return operand == result || (isa<FloatType>(operand) && result.isF32()) ||
         (operand.isInteger(8) && result.isInteger(32));
}

/// The input extent a neuron window op should see for `out` windows of
/// `kernel` taps over `in` elements: `in` itself when the op's own output
/// formula gives `out`, else the extent the windows read (linalg lets
/// trailing elements go unread; neuron's formula does not). Larger than
/// `in` when the windows would read past the input.
static int64_t windowSpan(int64_t in, int64_t out, int64_t kernel,
                          int64_t stride, int64_t dilation) {
  int64_t span = dilation * (kernel - 1) + 1;
  if (in >= span && (in - span) / stride + 1 == out)
    return in;
  return (out - 1) * stride + span;
}

/// Slices `image` so its dimensions `dims` have the sizes `sizes` (from
/// offset 0), unless they already do.
static Value trimSpatial(PatternRewriter &rewriter, Location loc, Value image,
                         ArrayRef<int64_t> dims, ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(image.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (auto [d, size] : llvm::zip(dims, sizes))
    shape[d] = size;
  if (shape == type.getShape())
    return image;
  SmallVector<int64_t> offsets(shape.size(), 0), strides(shape.size(), 1);
  return SliceOp::create(rewriter, loc, type.clone(shape), image, offsets,
                         strides);
}

/// Adds the accumulator's initial value unless it is zero.
static Value addInit(PatternRewriter &rewriter, Location loc, Value result,
                     Value init) {
  if (isIdentityInit(init, 0.0))
    return result;
  return AddOp::create(rewriter, loc, result.getType(), result, init);
}

/// Common preconditions of the contraction-like patterns.
static bool isStaticTensorOp(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInputs() == 2 &&
         op.getNumDpsInits() == 1 &&
         llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic);
}

namespace {

struct RaiseContraction : OpInterfaceRewritePattern<linalg::LinalgOp> {
  RaiseContraction(MLIRContext *context)
      : OpInterfaceRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isStaticTensorOp(op) || !linalg::isaContractionOpInterface(op) ||
        !isMulAccBody(op))
      return rewriter.notifyMatchFailure(op, "not a multiply-accumulate");
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->k.empty())
      return rewriter.notifyMatchFailure(op, "no contracted dimension");
    // Each role's dims, in loop order; several of one role (JAX's dense
    // layer over [batch, sequence, hidden] has two M dims, an einsum over
    // images and heads two batch dims) merge into one dimension of the
    // product. -1 marks a role the contraction lacks (a matvec has no N).
    auto dimsOf = [](ArrayRef<unsigned> role, bool optional) {
      SmallVector<int64_t> out(role.begin(), role.end());
      if (out.empty() && optional)
        out.push_back(-1);
      return out;
    };
    SmallVector<int64_t> batch = dimsOf(dims->batch, false),
                         ms = dimsOf(dims->m, true), ns = dimsOf(dims->n, true),
                         ks = dimsOf(dims->k, false);
    // M is operand 0's free dimension and N operand 1's. When the output
    // lists N before M, the product is operand 1 x operand 0: take them in
    // that order rather than transposing all three.
    OpOperand *lhs = op.getDpsInputOperand(0), *rhs = op.getDpsInputOperand(1);
    AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    auto position = [&](int64_t dim) -> std::optional<unsigned> {
      if (dim < 0)
        return std::nullopt;
      return outMap.getResultPosition(getAffineDimExpr(dim, op.getContext()));
    };
    std::optional<unsigned> mPos = position(ms.front()),
                            nPos = position(ns.front());
    if (mPos && nPos && *nPos < *mPos) {
      std::swap(lhs, rhs);
      std::swap(ms, ns);
    }

    auto lhsType = cast<RankedTensorType>(lhs->get().getType());
    auto rhsType = cast<RankedTensorType>(rhs->get().getType());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type element = lhsType.getElementType();
    if (element != rhsType.getElementType() ||
        !isAccumulatorOf(element, resultType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element types");

    Location loc = op.getLoc();
    auto lhsOrder = llvm::to_vector(llvm::concat<int64_t>(batch, ms, ks));
    auto rhsOrder = llvm::to_vector(llvm::concat<int64_t>(batch, ks, ns));
    auto outOrder = llvm::to_vector(llvm::concat<int64_t>(batch, ms, ns));
    SmallVector<unsigned> present;
    for (int64_t d : outOrder)
      if (d >= 0)
        present.push_back(d);
    OpOperand *init = op.getDpsInitOperand(0);
    if (!writesLoops(op.getMatchingIndexingMap(init), resultType.getShape(),
                     present))
      return rewriter.notifyMatchFailure(op, "unsupported output map");
    FailureOr<Value> l =
        toDimOrder(rewriter, loc, lhs->get(), op.getMatchingIndexingMap(lhs),
                   lhsOrder);
    if (failed(l))
      return rewriter.notifyMatchFailure(op, "unsupported lhs map");
    FailureOr<Value> r =
        toDimOrder(rewriter, loc, rhs->get(), op.getMatchingIndexingMap(rhs),
                   rhsOrder);
    if (failed(r))
      return failure(); // unreachable for a contraction once lhs succeeded

    // Each operand and the product with a role's dims merged: [B, M, K] x
    // [B, K, N] (no B without batch dims).
    SmallVector<int64_t> shape = op.getStaticLoopRanges();
    auto extent = [&](ArrayRef<int64_t> role) {
      int64_t size = 1;
      for (int64_t d : role)
        size *= d >= 0 ? shape[d] : 1;
      return size;
    };
    auto merged = [&](ArrayRef<int64_t> first, ArrayRef<int64_t> second) {
      SmallVector<int64_t> out;
      if (!batch.empty())
        out.push_back(extent(batch));
      out.append({extent(first), extent(second)});
      return out;
    };
    Value lhsMerged = reshapeIfNeeded(rewriter, loc, *l, merged(ms, ks));
    Value rhsMerged = reshapeIfNeeded(rewriter, loc, *r, merged(ks, ns));
    auto productType =
        RankedTensorType::get(merged(ms, ns), resultType.getElementType());
    Value product =
        batch.empty()
            ? MatmulOp::create(rewriter, loc, productType, lhsMerged, rhsMerged)
                  .getResult()
            : BatchMatmulOp::create(rewriter, loc, productType, lhsMerged,
                                    rhsMerged)
                  .getResult();
    SmallVector<int64_t> presentShape;
    for (unsigned d : present)
      presentShape.push_back(shape[d]);
    product = reshapeIfNeeded(rewriter, loc, product, presentShape);
    FailureOr<Value> result =
        fromLoopSpace(rewriter, loc, product, present,
                      op.getMatchingIndexingMap(init), resultType);
    rewriter.replaceOp(op, addInit(rewriter, loc, *result, init->get()));
    return success();
  }
};

/// One spatial dimension of a convolution: `image = out * stride + filter *
/// dilation`; `filter` is kNoFilter for a 1-wide window (`image = out * s`).
struct Window {
  static constexpr unsigned kNoFilter = ~0u;
  unsigned out, filter;
  int64_t stride = 1, dilation = 1;
};

/// Splits `d_i * c` or `d_i` into the dimension and the factor.
static std::optional<std::pair<unsigned, int64_t>> scaledDim(AffineExpr e) {
  if (auto dim = dyn_cast<AffineDimExpr>(e))
    return std::make_pair(dim.getPosition(), int64_t(1));
  auto mul = dyn_cast<AffineBinaryOpExpr>(e);
  if (!mul || mul.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(mul.getLHS());
  auto cst = dyn_cast<AffineConstantExpr>(mul.getRHS());
  if (!dim || !cst)
    return std::nullopt;
  return std::make_pair(dim.getPosition(), cst.getValue());
}

/// Parses `out * s + filter * d` given the convolution's dimension roles.
static std::optional<Window>
parseWindow(AffineExpr e, const linalg::ConvolutionDimensions &dims) {
  if (auto scaled = scaledDim(e)) {
    if (!llvm::is_contained(dims.outputImage, scaled->first))
      return std::nullopt;
    return Window{scaled->first, Window::kNoFilter, scaled->second, 1};
  }
  auto add = dyn_cast<AffineBinaryOpExpr>(e);
  if (!add || add.getKind() != AffineExprKind::Add)
    return std::nullopt;
  auto lhs = scaledDim(add.getLHS()), rhs = scaledDim(add.getRHS());
  if (!lhs || !rhs)
    return std::nullopt;
  if (llvm::is_contained(dims.filterLoop, lhs->first))
    std::swap(lhs, rhs);
  if (!llvm::is_contained(dims.outputImage, lhs->first) ||
      !llvm::is_contained(dims.filterLoop, rhs->first))
    return std::nullopt;
  return Window{lhs->first, rhs->first, lhs->second, rhs->second};
}

/// The permutation that sorts an operand's dimensions by role, given the
/// role of each dimension; fails on an unknown (-1) or repeated role.
static std::optional<SmallVector<int64_t>> sortByRole(ArrayRef<int> roles) {
  SmallVector<int64_t> order(roles.size());
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](int64_t a, int64_t b) { return roles[a] < roles[b]; });
  for (auto [i, o] : llvm::enumerate(order))
    if (roles[o] < 0 || (i > 0 && roles[order[i - 1]] == roles[o]))
      return std::nullopt;
  return order;
}

/// Loop roles of a convolution whose every image dimension is a loop, or a
/// loop times a stride: a 1x1 window with strides, as JAX writes strided 1x1
/// convolutions (`image[c, oh * 2, ow * 2]`). Upstream's inference only
/// counts `out * s + filter * d` sums as convolved and rejects these; the
/// roles here follow its rules with `d * s` (s > 1) as an output image loop.
static FailureOr<linalg::ConvolutionDimensions>
inferStridedPointwiseDims(linalg::LinalgOp op) {
  AffineMap imageMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap filterMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!filterMap.isProjectedPermutation() || !outMap.isProjectedPermutation())
    return failure();
  llvm::SmallDenseSet<unsigned> plain, strided;
  for (AffineExpr e : imageMap.getResults()) {
    auto scaled = scaledDim(e);
    if (!scaled || scaled->second < 1 || plain.contains(scaled->first) ||
        strided.contains(scaled->first))
      return failure();
    (scaled->second == 1 ? plain : strided).insert(scaled->first);
  }
  if (strided.empty())
    return failure();
  linalg::ConvolutionDimensions dims;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d) {
    bool inOut = outMap.isFunctionOfDim(d),
         inFilter = filterMap.isFunctionOfDim(d);
    bool parallel = iterators[d] == utils::IteratorType::parallel;
    bool isPlain = plain.contains(d), isStrided = strided.contains(d);
    if (isStrided && inOut && !inFilter && parallel)
      dims.outputImage.push_back(d);
    else if (isPlain && inOut && !inFilter && parallel)
      dims.batch.push_back(d);
    else if (isPlain && !inOut && inFilter && !parallel)
      dims.inputChannel.push_back(d);
    else if (isPlain && inOut && inFilter && parallel)
      dims.depth.push_back(d);
    else if (!isPlain && !isStrided && inOut && inFilter && parallel)
      dims.outputChannel.push_back(d);
    else
      return failure();
  }
  return dims;
}

/// The convolution roles of `op`'s loops, if it is a convolution.
static FailureOr<linalg::ConvolutionDimensions>
inferConvolutionRoles(linalg::LinalgOp op) {
  if (linalg::isaConvolutionOpInterface(op,
                                        /*allowEmptyConvolvedDims=*/true))
    return linalg::inferConvolutionDims(op);
  return inferStridedPointwiseDims(op);
}

struct RaiseConvolution : OpInterfaceRewritePattern<linalg::LinalgOp> {
  RaiseConvolution(MLIRContext *context)
      : OpInterfaceRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isStaticTensorOp(op) || !isMulAccBody(op))
      return rewriter.notifyMatchFailure(op, "not a convolution");
    FailureOr<linalg::ConvolutionDimensions> dims = inferConvolutionRoles(op);
    if (failed(dims) || dims->outputImage.size() != 2 ||
        dims->filterLoop.size() > 2 || dims->batch.size() > 1 ||
        dims->outputChannel.size() > 1 || dims->inputChannel.size() > 1 ||
        dims->depth.size() > 1)
      return rewriter.notifyMatchFailure(op, "not a 2-D convolution");
    // A missing input channel loop is a single input channel.
    bool depthwise = dims->depth.size() == 1;
    if (depthwise ? !dims->inputChannel.empty()
                  : dims->outputChannel.size() != 1)
      return rewriter.notifyMatchFailure(op, "unsupported channel structure");

    OpOperand *image = op.getDpsInputOperand(0);
    OpOperand *filter = op.getDpsInputOperand(1);
    OpOperand *init = op.getDpsInitOperand(0);
    auto is = [](ArrayRef<unsigned> set, unsigned d) {
      return llvm::is_contained(set, d);
    };
    constexpr unsigned kNone = ~0u;
    unsigned channel = depthwise                     ? dims->depth[0]
                       : dims->inputChannel.empty() ? kNone
                                                    : dims->inputChannel[0];

    // Image roles: batch 0, channel 1, spatial 2 and 3 in image order.
    SmallVector<Window> windows;
    SmallVector<int> imageRoles;
    for (AffineExpr e : op.getMatchingIndexingMap(image).getResults()) {
      if (auto w = parseWindow(e, *dims)) {
        imageRoles.push_back(2 + windows.size());
        windows.push_back(*w);
        continue;
      }
      auto d = dyn_cast<AffineDimExpr>(e);
      imageRoles.push_back(!d                             ? -1
                           : is(dims->batch, d.getPosition()) ? 0
                           : d.getPosition() == channel       ? 1
                                                              : -1);
    }
    if (windows.size() != 2)
      return rewriter.notifyMatchFailure(op, "expected two spatial windows");

    // Roles of a plain-dimension operand; spatial dims by window order.
    auto rolesOf = [&](OpOperand *operand, auto roleOfDim) {
      SmallVector<int> roles;
      for (AffineExpr e : op.getMatchingIndexingMap(operand).getResults()) {
        auto d = dyn_cast<AffineDimExpr>(e);
        roles.push_back(d ? roleOfDim(d.getPosition()) : -1);
      }
      return roles;
    };
    int multiplier = dims->outputChannel.empty()
                         ? -1
                         : static_cast<int>(dims->outputChannel.front());
    SmallVector<int> filterRoles = rolesOf(filter, [&](unsigned d) {
      if (d == windows[0].filter) return 2;
      if (d == windows[1].filter) return 3;
      if (depthwise)
        return d == channel ? 0 : int(d) == multiplier ? 1 : -1;
      return int(d) == multiplier ? 0 : d == channel ? 1 : -1;
    });
    SmallVector<int> outRoles = rolesOf(init, [&](unsigned d) {
      int base = depthwise && multiplier >= 0 ? 3 : 2;
      if (d == windows[0].out) return base;
      if (d == windows[1].out) return base + 1;
      if (is(dims->batch, d)) return 0;
      if (depthwise)
        return d == channel ? 1 : int(d) == multiplier ? 2 : -1;
      return int(d) == multiplier ? 1 : -1;
    });
    if (windows[0].filter == windows[1].filter &&
        windows[0].filter != Window::kNoFilter)
      return rewriter.notifyMatchFailure(op, "one filter loop, two windows");
    auto imageOrder = sortByRole(imageRoles);
    auto filterOrder = sortByRole(filterRoles);
    auto outOrder = sortByRole(outRoles);
    if (!imageOrder || !filterOrder || !outOrder)
      return rewriter.notifyMatchFailure(op, "unsupported operand layout");

    auto imageType = cast<RankedTensorType>(image->get().getType());
    auto filterType = cast<RankedTensorType>(filter->get().getType());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type element = imageType.getElementType();
    if (element != filterType.getElementType() ||
        !isAccumulatorOf(element, resultType.getElementType()))
      return rewriter.notifyMatchFailure(op, "unsupported element types");

    Location loc = op.getLoc();
    SmallVector<int64_t> loops = op.getStaticLoopRanges();
    int64_t n = dims->batch.empty() ? 1 : loops[dims->batch[0]];
    int64_t c = channel == kNone ? 1 : loops[channel];
    int64_t mult = multiplier >= 0 ? loops[multiplier] : 1;
    int64_t f = depthwise ? c * mult : mult;
    auto extent = [&](unsigned filterLoop) {
      return filterLoop == Window::kNoFilter ? int64_t(1) : loops[filterLoop];
    };
    int64_t kh = extent(windows[0].filter), kw = extent(windows[1].filter);
    int64_t oh = loops[windows[0].out], ow = loops[windows[1].out];
    // The image rows and columns the windows read: linalg lets the last ones
    // go unread, neuron.conv2d does not, so a longer image is trimmed.
    int64_t ih = imageType.getDimSize((*imageOrder)[imageOrder->size() - 2]);
    int64_t iw = imageType.getDimSize((*imageOrder)[imageOrder->size() - 1]);
    int64_t needH =
        windowSpan(ih, oh, kh, windows[0].stride, windows[0].dilation);
    int64_t needW =
        windowSpan(iw, ow, kw, windows[1].stride, windows[1].dilation);
    if (needH > ih || needW > iw)
      return rewriter.notifyMatchFailure(op, "windows read past the image");

    Value in = transposeIfNeeded(rewriter, loc, image->get(), *imageOrder);
    in = reshapeIfNeeded(rewriter, loc, in, {n, c, ih, iw});
    in = trimSpatial(rewriter, loc, in, {2, 3}, {needH, needW});
    Value w = transposeIfNeeded(rewriter, loc, filter->get(), *filterOrder);
    w = reshapeIfNeeded(rewriter, loc, w,
                        {f, depthwise ? 1 : c, kh, kw});
    auto convType = RankedTensorType::get({n, f, oh, ow},
                                          resultType.getElementType());
    Value conv = Conv2DOp::create(
        rewriter, loc, convType, in, w, /*bias=*/Value(),
        ConvLayoutAttr::get(rewriter.getContext(), ConvLayout::nchw_fchw),
        rewriter.getDenseI64ArrayAttr({windows[0].stride, windows[1].stride}),
        rewriter.getDenseI64ArrayAttr({0, 0, 0, 0}),
        rewriter.getDenseI64ArrayAttr(
            {windows[0].dilation, windows[1].dilation}),
        rewriter.getI64IntegerAttr(depthwise ? c : 1));

    // Back to the output's layout: split the channels, drop a missing batch,
    // then permute roles into positions.
    SmallVector<int64_t> sortedShape;
    for (int64_t pos : *outOrder)
      sortedShape.push_back(resultType.getDimSize(pos));
    conv = reshapeIfNeeded(rewriter, loc, conv, sortedShape);
    SmallVector<int64_t> toOutput(outOrder->size());
    for (auto [sortedIndex, pos] : llvm::enumerate(*outOrder))
      toOutput[pos] = sortedIndex;
    conv = transposeIfNeeded(rewriter, loc, conv, toOutput);
    rewriter.replaceOp(op, addInit(rewriter, loc, conv, init->get()));
    return success();
  }
};

/// linalg.quantized_matmul: `(A - azp) x (B - bzp)` accumulated in i32. With
/// zero zero-points it is the i8 x i8 -> i32 matmul; otherwise the operands
/// are widened to i32 and the zero points subtracted first.
struct RaiseQuantizedMatmul : OpRewritePattern<linalg::QuantizedMatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::QuantizedMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.getInputs().size() != 4)
      return failure();
    std::optional<TypedAttr> lhsZero = getSplatScalar(op.getInputs()[2]);
    std::optional<TypedAttr> rhsZero = getSplatScalar(op.getInputs()[3]);
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    auto lhsType = cast<RankedTensorType>(op.getInputs()[0].getType());
    auto rhsType = cast<RankedTensorType>(op.getInputs()[1].getType());
    if (!lhsZero || !rhsZero || !resultType.getElementType().isInteger(32) ||
        !lhsType.getElementType().isInteger(8) ||
        !rhsType.getElementType().isInteger(8) ||
        !lhsType.hasStaticShape() || !rhsType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "unsupported quantized matmul");
    Location loc = op.getLoc();
    Value lhs = op.getInputs()[0], rhs = op.getInputs()[1];
    if (!isSplatOf(op.getInputs()[2], 0.0) ||
        !isSplatOf(op.getInputs()[3], 0.0)) {
      Type i32 = rewriter.getI32Type();
      auto centre = [&](Value v, TypedAttr zero) -> Value {
        Value wide = castIfNeeded(rewriter, loc, v, i32);
        auto type = cast<RankedTensorType>(wide.getType());
        Value z = createSplat(
            rewriter, loc, i32,
            static_cast<double>(cast<IntegerAttr>(zero).getInt()),
            type.getShape());
        return SubOp::create(rewriter, loc, type, wide, z);
      };
      lhs = centre(lhs, *lhsZero);
      rhs = centre(rhs, *rhsZero);
    }
    Value product = MatmulOp::create(rewriter, loc, resultType, lhs, rhs);
    rewriter.replaceOp(op, addInit(rewriter, loc, product, op.getOutputs()[0]));
    return success();
  }
};

/// Image layouts as permutations.
static constexpr int64_t kToNchw[] = {0, 3, 1, 2};
static constexpr int64_t kToNhwc[] = {0, 2, 3, 1};

/// Raises a named pooling op of the given kind and layout.
template <typename PoolOp, PoolKind kind, ImageLayout layout>
struct RaisePooling : OpRewritePattern<PoolOp> {
  using OpRewritePattern<PoolOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(PoolOp op,
                                PatternRewriter &rewriter) const override {
    auto linalgOp = cast<linalg::LinalgOp>(op.getOperation());
    if (!isStaticTensorOp(linalgOp))
      return rewriter.notifyMatchFailure(op, "dynamic or buffer pooling");
    auto windowType =
        cast<ShapedType>(linalgOp.getDpsInputOperand(1)->get().getType());
    auto values = [](DenseIntElementsAttr attr) {
      return llvm::to_vector(attr.getValues<int64_t>());
    };
    Location loc = op.getLoc();
    Value input = linalgOp.getDpsInputOperand(0)->get();
    Value init = linalgOp.getDpsInitOperand(0)->get();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    if (!isNeuronElementType(inputType.getElementType()) ||
        inputType.getElementType() != resultType.getElementType())
      return rewriter.notifyMatchFailure(op, "unsupported element types");
    SmallVector<int64_t> strides = values(op.getStrides());
    SmallVector<int64_t> dilations = values(op.getDilations());
    // An NHWC pool runs as an NCHW one between layout transposes (its
    // channels on partitions, as a convolution's), which cancel with
    // their neighbours' (TransposeOp's canonicalization).
    RankedTensorType pooledType = resultType;
    if (layout == ImageLayout::nhwc) {
      input = transposeIfNeeded(rewriter, loc, input, kToNchw);
      inputType = cast<RankedTensorType>(input.getType());
      pooledType = resultType.clone(
          {resultType.getDimSize(0), resultType.getDimSize(3),
           resultType.getDimSize(1), resultType.getDimSize(2)});
    }
    // As for convolutions, trim the rows and columns no window reads.
    SmallVector<int64_t> need;
    for (int i = 0; i < 2; ++i) {
      need.push_back(windowSpan(inputType.getDimSize(2 + i),
                                pooledType.getDimSize(2 + i),
                                windowType.getDimSize(i), strides[i],
                                dilations[i]));
      if (need.back() > inputType.getDimSize(2 + i))
        return rewriter.notifyMatchFailure(op, "windows read past the image");
    }
    input = trimSpatial(rewriter, loc, input, {2, 3}, need);
    Value pooled = Pool2DOp::create(
        rewriter, loc, pooledType, input,
        PoolKindAttr::get(rewriter.getContext(), kind),
        ImageLayoutAttr::get(rewriter.getContext(), ImageLayout::nchw),
        rewriter.getDenseI64ArrayAttr(windowType.getShape()),
        rewriter.getDenseI64ArrayAttr(strides),
        rewriter.getDenseI64ArrayAttr({0, 0, 0, 0}),
        rewriter.getDenseI64ArrayAttr(dilations),
        /*count_include_pad=*/UnitAttr());
    if (layout == ImageLayout::nhwc)
      pooled = transposeIfNeeded(rewriter, loc, pooled, kToNhwc);
    if (kind == PoolKind::max &&
        !isIdentityInit(init, -std::numeric_limits<double>::infinity()))
      pooled = MaxOp::create(rewriter, loc, resultType, pooled, init);
    else if (kind == PoolKind::sum)
      pooled = addInit(rewriter, loc, pooled, init);
    rewriter.replaceOp(op, pooled);
    return success();
  }
};

} // namespace

void mlir::neuron::populateContractionPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<RaiseContraction, RaiseConvolution>(context);
  patterns.add<RaiseQuantizedMatmul>(context, /*benefit=*/2);
  patterns.add<
      RaisePooling<linalg::PoolingNchwMaxOp, PoolKind::max, ImageLayout::nchw>,
      RaisePooling<linalg::PoolingNchwSumOp, PoolKind::sum, ImageLayout::nchw>,
      RaisePooling<linalg::PoolingNhwcMaxOp, PoolKind::max, ImageLayout::nhwc>,
      RaisePooling<linalg::PoolingNhwcSumOp, PoolKind::sum, ImageLayout::nhwc>>(
      context, /*benefit=*/2);
}
