//===- StructuredOps.cpp - elementwise and reduction linalg ops -----------===//
//
// Raises any linalg structured op whose loops are all parallel, or parallel
// and reduction with a sum/max/min combiner, by evaluating its body on whole
// tensors: each operand is brought into the loop space (transpose, unit
// reshape, broadcast), each arith/math body op becomes the matching neuron
// op, reductions become neuron.reduce_*, and the result is put back into the
// output's layout. This covers linalg.generic as frontends write it as well
// as the named elementwise, map, reduce, transpose, broadcast and fill ops.
//
//===----------------------------------------------------------------------===//

#include "lowering/LinalgToNeuron/LinalgToNeuron.h"
#include "lowering/LinalgToNeuron/Utils.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// A structured op on tensors with a body block (what both patterns read).
static bool hasTensorBody(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op->getNumRegions() == 1 &&
         op.getBlock();
}

/// The value a combiner starts from.
static double identityOf(Combiner c) {
  switch (c) {
  case Combiner::sum:
    return 0.0;
  case Combiner::max:
    return -std::numeric_limits<double>::infinity();
  case Combiner::min:
    return std::numeric_limits<double>::infinity();
  }
  llvm_unreachable("unknown combiner");
}

/// Element types a body value may have: neuron's compute types, and i1 for
/// masks (compare results, select conditions), which ops on i1 reject.
static bool isCarried(Type type) {
  return isNeuronElementType(type) || type.isInteger(1);
}

/// For `select(cmp(a, b), x, y)` with {x, y} == {a, b}: the max or min it
/// computes (how frontends spell relu and clamps), else nothing.
static std::optional<Combiner> selectAsMinMax(arith::SelectOp select) {
  Operation *cmp = select.getCondition().getDefiningOp();
  if (!cmp || !isa<arith::CmpFOp, arith::CmpIOp>(cmp))
    return std::nullopt;
  std::optional<ComparePredicate> pred = getComparePredicate(cmp);
  if (!pred)
    return std::nullopt;
  Value a = cmp->getOperand(0), b = cmp->getOperand(1);
  bool same = select.getTrueValue() == a && select.getFalseValue() == b;
  bool swapped = select.getTrueValue() == b && select.getFalseValue() == a;
  if (!same && !swapped)
    return std::nullopt;
  bool greater = *pred == ComparePredicate::gt || *pred == ComparePredicate::ge;
  bool less = *pred == ComparePredicate::lt || *pred == ComparePredicate::le;
  if (!greater && !less)
    return std::nullopt;
  return (greater == same) ? Combiner::max : Combiner::min;
}

/// Evaluates a structured op's body on whole tensors. `check` answers
/// whether `emit` would succeed, without creating anything, so a rewrite
/// never fails half-way.
class BodyEvaluator {
public:
  BodyEvaluator(linalg::LinalgOp op, ArrayRef<int64_t> loopShape)
      : op(op), loopShape(loopShape) {}

  /// Makes block argument `arg` available; false if its operand cannot be
  /// brought into the loop space.
  bool canBind(BlockArgument arg) {
    OpOperand *operand = op.getMatchingOpOperand(arg);
    return canMapToLoopSpace(operand->get(),
                             op.getMatchingIndexingMap(operand));
  }

  /// Whether `value` can be evaluated with the block arguments in `allowed`.
  bool check(Value value, llvm::function_ref<bool(BlockArgument)> allowed) {
    if (constantOf(value))
      return isCarried(value.getType());
    if (auto arg = dyn_cast<BlockArgument>(value))
      return arg.getOwner() == op.getBlock() && allowed(arg) &&
             isCarried(arg.getType()) && canBind(arg);
    Operation *def = value.getDefiningOp();
    if (auto cmp = dyn_cast<arith::CmpIOp>(def); cmp && isIndexCompare(cmp))
      return true;
    if (singleElementOf(value))
      return isCarried(value.getType());
    if (!op->isProperAncestor(def))
      return false; // a scalar computed outside and not a constant
    if (auto select = dyn_cast<arith::SelectOp>(def))
      if (selectAsMinMax(select) && isNeuronElementType(select.getType()))
        return check(select.getTrueValue(), allowed) &&
               check(select.getFalseValue(), allowed);
    if (!isRaisableElementwise(def))
      return false;
    return llvm::all_of(def->getOperands(),
                        [&](Value v) { return check(v, allowed); });
  }

  /// Emits `value` as a tensor over the loop space; `check` must hold.
  Value emit(PatternRewriter &b, Value value) {
    if (Value known = tensors.lookup(value))
      return known;
    Location loc = op.getLoc();
    Value result;
    if (std::optional<TypedAttr> constant = constantOf(value)) {
      result = createSplat(b, loc, *constant, loopShape);
    } else if (auto arg = dyn_cast<BlockArgument>(value)) {
      OpOperand *operand = op.getMatchingOpOperand(arg);
      result = *toLoopSpace(b, loc, operand->get(),
                            op.getMatchingIndexingMap(operand), loopShape);
    } else if (Value single = singleElementOf(value)) {
      // Broadcast over the loops: a map of constant-0 results.
      auto type = cast<RankedTensorType>(single.getType());
      SmallVector<AffineExpr> zeros(type.getRank(),
                                    getAffineConstantExpr(0, b.getContext()));
      result = *toLoopSpace(
          b, loc, single,
          AffineMap::get(loopShape.size(), 0, zeros, b.getContext()),
          loopShape);
    } else {
      result = emitOp(b, value.getDefiningOp());
    }
    tensors[value] = result;
    return result;
  }

  /// The constant a body value always equals: a constant or splat defined
  /// outside, a constant in the body, an input that is a splat, or a cast of
  /// one of these (frontends write epsilons as f64 truncated in the body).
  std::optional<TypedAttr> constantOf(Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner() != op.getBlock())
        return std::nullopt;
      OpOperand *operand = op.getMatchingOpOperand(arg);
      if (!op.isDpsInput(operand))
        return std::nullopt;
      return getSplatScalar(operand->get());
    }
    Operation *def = value.getDefiningOp();
    if (!op->isProperAncestor(def) || isa<arith::ConstantOp>(def))
      return getSplatScalar(value);
    if (!isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp>(def))
      return std::nullopt;
    if (auto trunc = dyn_cast<arith::TruncFOp>(def);
        trunc && !isNearestEvenRounding(trunc))
      return std::nullopt;
    std::optional<TypedAttr> source = constantOf(def->getOperand(0));
    if (!source)
      return std::nullopt;
    return convertScalar(*source, value.getType());
  }

  /// The one-element tensor (rank 0, or all dimensions 1) a scalar the
  /// body reads was extracted from outside the op (JAX and torch-mlir pass
  /// a scalar operand as a tensor<f32>), or null.
  Value singleElementOf(Value value) const {
    auto extract = value.getDefiningOp<tensor::ExtractOp>();
    if (!extract || op->isProperAncestor(extract))
      return Value();
    auto type = dyn_cast<RankedTensorType>(extract.getTensor().getType());
    if (!type || !type.hasStaticShape() || type.getNumElements() != 1)
      return Value();
    return extract.getTensor();
  }

private:
  RankedTensorType tensorOf(Type element) const {
    return RankedTensorType::get(loopShape, element);
  }

  /// The loop a loop index (through integer casts) runs over, when it fits
  /// i32.
  std::optional<unsigned> loopOf(Value value) const {
    auto index = stripIntegerCasts(value).getDefiningOp<linalg::IndexOp>();
    if (!index || !op->isProperAncestor(index) ||
        loopShape[index.getDim()] > std::numeric_limits<int32_t>::max())
      return std::nullopt;
    return index.getDim();
  }

  /// The i32 input (through integer casts) an index is read from: the
  /// iota neuron-prepare-sharding makes of a loop index, so that a core's
  /// part of the loop reads its global indices.
  OpOperand *iotaOf(Value value) const {
    linalg::LinalgOp structured = op;
    auto arg = dyn_cast<BlockArgument>(stripIntegerCasts(value));
    if (!arg || arg.getOwner() != structured.getBlock() ||
        !arg.getType().isSignlessInteger(32))
      return nullptr;
    OpOperand *operand = structured.getMatchingOpOperand(arg);
    if (!structured.isDpsInput(operand) ||
        !canMapToLoopSpace(operand->get(),
                           structured.getMatchingIndexingMap(operand)))
      return nullptr;
    return operand;
  }

  /// An integer constant (through integer casts) that fits i32.
  static std::optional<int32_t> constantIndexOf(Value value) {
    APInt constant;
    if (!matchPattern(stripIntegerCasts(value), m_ConstantInt(&constant)) ||
        !constant.isSignedIntN(32))
      return std::nullopt;
    return int32_t(constant.getSExtValue());
  }

  /// `index <pred> position`, `position <pred> index` (masks built against
  /// a decode step's position), `index <pred> index` (a causal mask) or
  /// `index <pred> constant` (the first token's column): evaluated in
  /// i32, the indices as an iota along their loop (or the iota input they
  /// are read from), the position read on the device and broadcast, the
  /// constant a splat.
  bool isIndexCompare(arith::CmpIOp cmp) const {
    // A loop index, or a position read from a tensor defined outside the
    // op (the same on every iteration), or a constant.
    auto index = [&](Value v) { return loopOf(v) || iotaOf(v); };
    auto known = [&](Value v) {
      if (index(v) || constantIndexOf(v))
        return true;
      Value position = positionTensor(v);
      return position &&
             !op->getRegion(0).isAncestor(position.getParentRegion());
    };
    bool indexed = index(cmp.getLhs()) || index(cmp.getRhs());
    return indexPredicate(cmp) && indexed && known(cmp.getLhs()) &&
           known(cmp.getRhs());
  }

  /// The comparison's predicate; an unsigned one compares two loop indices
  /// (a prefill's causal mask, `j > i`) as the signed one does, since
  /// indices are never negative.
  std::optional<ComparePredicate> indexPredicate(arith::CmpIOp cmp) const {
    if (std::optional<ComparePredicate> signedOne = getComparePredicate(cmp))
      return signedOne;
    if (!loopOf(cmp.getLhs()) || !loopOf(cmp.getRhs()))
      return std::nullopt;
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::ult:
      return ComparePredicate::lt;
    case arith::CmpIPredicate::ule:
      return ComparePredicate::le;
    case arith::CmpIPredicate::ugt:
      return ComparePredicate::gt;
    case arith::CmpIPredicate::uge:
      return ComparePredicate::ge;
    default:
      return std::nullopt;
    }
  }

  Value emitIndexOperand(PatternRewriter &b, Value value, Location where) {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    unsigned loops = loopShape.size();
    if (std::optional<unsigned> loop = loopOf(value)) {
      int64_t n = loopShape[*loop];
      SmallVector<int32_t> iota(n);
      std::iota(iota.begin(), iota.end(), 0);
      auto type = RankedTensorType::get({n}, b.getI32Type());
      Value indices = ConstantOp::create(
          b, loc, type, DenseElementsAttr::get(type, ArrayRef(iota)));
      return *toLoopSpace(b, loc, indices,
                          AffineMap::get(loops, 0, getAffineDimExpr(*loop,
                                                                    context)),
                          loopShape);
    }
    if (OpOperand *iota = iotaOf(value))
      return *toLoopSpace(b, loc, iota->get(), op.getMatchingIndexingMap(iota),
                          loopShape);
    if (std::optional<int32_t> constant = constantIndexOf(value))
      return createSplat(b, loc, b.getI32Type(), double(*constant),
                         loopShape);
    Value position = reshapeIfNeeded(b, loc, positionTensor(value), {});
    if (!getElementTypeOrSelf(position.getType()).isInteger(32))
      emitWarning(where)
          << "the position read at run time is compared with loop indices in "
             "i32 (exact for values below 2^31)";
    position = castIfNeeded(b, loc, position, b.getI32Type());
    return *toLoopSpace(b, loc, position, AffineMap::get(loops, 0, context),
                        loopShape);
  }

  Value emitOp(PatternRewriter &b, Operation *def) {
    if (auto cmp = dyn_cast<arith::CmpIOp>(def); cmp && isIndexCompare(cmp))
      return CompareOp::create(b, locationOf(def),
                               tensorOf(b.getI1Type()), *indexPredicate(cmp),
                               emitIndexOperand(b, cmp.getLhs(), cmp.getLoc()),
                               emitIndexOperand(b, cmp.getRhs(), cmp.getLoc()));
    if (auto select = dyn_cast<arith::SelectOp>(def))
      if (std::optional<Combiner> c = selectAsMinMax(select)) {
        Value x = emit(b, select.getTrueValue());
        Value y = emit(b, select.getFalseValue());
        Type type = tensorOf(def->getResult(0).getType());
        if (*c == Combiner::max)
          return MaxOp::create(b, locationOf(def), type, x, y);
        return MinOp::create(b, locationOf(def), type, x, y);
      }
    SmallVector<Value> args;
    for (Value v : def->getOperands())
      args.push_back(emit(b, v));
    return createElementwise(b, locationOf(def), def, args, loopShape);
  }

  /// Where the op raised from body op `def` is reported: at `def`, or at the
  /// structured op when `def` has no location (the bodies of named ops
  /// such as linalg.min have none).
  Location locationOf(Operation *def) {
    return isa<UnknownLoc>(def->getLoc()) ? op.getLoc() : def->getLoc();
  }

  linalg::LinalgOp op;
  ArrayRef<int64_t> loopShape;
  DenseMap<Value, Value> tensors;
};

/// How one result of the op is computed: the body value that gives it and,
/// for a reduction, the combiner applied over the reduction loops.
struct ResultPlan {
  unsigned index;
  Value value;
  std::optional<Combiner> combiner;
  /// The combiner is maxnumf or minnumf: NaN-ignoring.
  bool ignoresNaN = false;
};

struct RaiseStructuredOp : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasTensorBody(op))
      return rewriter.notifyMatchFailure(op, "not a tensor op with a body");
    // Contractions evaluated elementwise would materialise M x N x K
    // products; only the contraction pattern may take them.
    if (linalg::isaContractionOpInterface(op))
      return rewriter.notifyMatchFailure(op, "left to the contraction pattern");
    SmallVector<int64_t> loopShape = op.getStaticLoopRanges();
    if (llvm::any_of(loopShape, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic loop range");

    SmallVector<unsigned> parallel, reduction;
    for (auto [i, kind] : llvm::enumerate(op.getIteratorTypesArray()))
      (kind == utils::IteratorType::reduction ? reduction : parallel).push_back(i);

    auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
    BodyEvaluator evaluator(op, loopShape);
    SmallVector<ResultPlan> plans;
    for (OpResult result : op->getResults()) {
      if (result.use_empty())
        continue;
      FailureOr<ResultPlan> plan =
          planResult(op, yield, result.getResultNumber(), !reduction.empty(),
                     evaluator);
      if (failed(plan))
        return rewriter.notifyMatchFailure(op, "body not expressible");
      plans.push_back(*plan);
    }
    if (plans.empty())
      return rewriter.notifyMatchFailure(op, "no result is used");

    SmallVector<Value> replacements(op.getDpsInits());
    for (const ResultPlan &plan : plans) {
      FailureOr<Value> value =
          emitResult(rewriter, op, plan, evaluator, loopShape, parallel,
                     reduction);
      if (failed(value))
        return failure();
      replacements[plan.index] = *value;
    }
    rewriter.replaceOp(op, replacements);
    return success();
  }

private:
  static SmallVector<unsigned> allLoops(linalg::LinalgOp op) {
    SmallVector<unsigned> loops(op.getNumLoops());
    std::iota(loops.begin(), loops.end(), 0u);
    return loops;
  }

  static SmallVector<unsigned> parallelLoops(linalg::LinalgOp op) {
    SmallVector<unsigned> loops;
    for (auto [i, kind] : llvm::enumerate(op.getIteratorTypesArray()))
      if (kind != utils::IteratorType::reduction)
        loops.push_back(i);
    return loops;
  }

  /// Whether every tensor input of a reduction reads all its parallel
  /// loops (unit loops aside). Otherwise the loop space is a broadcast
  /// product of the inputs (a contraction in disguise, such as
  /// quantized_matmul) and evaluating it elementwise would materialise it.
  static bool readsAllParallelLoops(linalg::LinalgOp op) {
    SmallVector<int64_t> extents = op.getStaticLoopRanges();
    SmallVector<unsigned> parallel = parallelLoops(op);
    return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *operand) {
      if (getSplatScalar(operand->get()))
        return true;
      AffineMap map = op.getMatchingIndexingMap(operand);
      return llvm::all_of(parallel, [&](unsigned d) {
        return extents[d] == 1 || map.isFunctionOfDim(d);
      });
    });
  }

  /// Finds what result `index` computes and checks that it can be emitted.
  static FailureOr<ResultPlan> planResult(linalg::LinalgOp op,
                                          linalg::YieldOp yield,
                                          unsigned index, bool reduces,
                                          BodyEvaluator &evaluator) {
    OpOperand *init = op.getDpsInitOperand(index);
    auto result = cast<RankedTensorType>(op->getResult(index).getType());
    if (!isCarried(result.getElementType()))
      return failure();
    Value yielded = yield.getOperand(index);
    auto isInput = [&](BlockArgument arg) {
      return op.isDpsInput(op.getMatchingOpOperand(arg));
    };
    AffineMap outMap = op.getMatchingIndexingMap(init);
    if (!reduces) {
      // Parallel loops only: an init read in the body acts as an input, and
      // the output map must be invertible for the result to be written.
      if (!canMapToLoopSpace(init->get(), outMap))
        return failure();
      if (!writesLoops(outMap, result.getShape(), allLoops(op)))
        return failure();
      if (!evaluator.check(yielded, [](BlockArgument) { return true; }))
        return failure();
      return ResultPlan{index, yielded, std::nullopt};
    }
    // A reduction: `yielded = combiner(partial, out)`, `partial` free of
    // every init.
    Operation *def = yielded.getDefiningOp();
    if (!def || def->getBlock() != op.getBlock() || def->getNumOperands() != 2)
      return failure();
    std::optional<Combiner> combiner = getCombiner(def);
    if (!combiner)
      return failure();
    BlockArgument out = op.getMatchingBlockArgument(init);
    Value partial;
    if (def->getOperand(1) == out)
      partial = def->getOperand(0);
    else if (def->getOperand(0) == out)
      partial = def->getOperand(1);
    else
      return failure();
    if (!evaluator.check(partial, isInput) || !readsAllParallelLoops(op) ||
        !isNeuronElementType(result.getElementType()))
      return failure();
    if (!writesLoops(outMap, result.getShape(), parallelLoops(op)))
      return failure();
    return ResultPlan{index, partial, combiner,
                      isa<arith::MaxNumFOp, arith::MinNumFOp>(def)};
  }

  static FailureOr<Value> emitResult(PatternRewriter &rewriter,
                                     linalg::LinalgOp op,
                                     const ResultPlan &plan,
                                     BodyEvaluator &evaluator,
                                     ArrayRef<int64_t> loopShape,
                                     ArrayRef<unsigned> parallel,
                                     ArrayRef<unsigned> reduction) {
    Location loc = op.getLoc();
    OpOperand *init = op.getDpsInitOperand(plan.index);
    AffineMap outMap = op.getMatchingIndexingMap(init);
    auto resultType =
        cast<RankedTensorType>(op->getResult(plan.index).getType());
    Value value = evaluator.emit(rewriter, plan.value);
    if (!plan.combiner)
      return fromLoopSpace(rewriter, loc, value, allLoops(op), outMap,
                           resultType);

    auto valueType = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> reducedShape;
    for (unsigned p : parallel)
      reducedShape.push_back(loopShape[p]);
    SmallVector<int64_t> axes(reduction.begin(), reduction.end());
    auto reducedType = valueType.clone(reducedShape);
    // A NaN-ignoring max or min reduces as if each NaN were its identity.
    if (plan.ignoresNaN)
      value = replaceNaN(rewriter, loc, value, identityOf(*plan.combiner));
    switch (*plan.combiner) {
    case Combiner::sum:
      value = ReduceSumOp::create(rewriter, loc, reducedType, value, axes);
      break;
    case Combiner::max:
      value = ReduceMaxOp::create(rewriter, loc, reducedType, value, axes);
      break;
    case Combiner::min:
      value = ReduceMinOp::create(rewriter, loc, reducedType, value, axes);
      break;
    }
    FailureOr<Value> shaped =
        fromLoopSpace(rewriter, loc, value, parallel, outMap, resultType);
    if (failed(shaped))
      return failure();
    // Fold in the initial value unless it is the combiner's identity.
    Value start = init->get();
    if (isIdentityInit(start, identityOf(*plan.combiner)))
      return *shaped;
    switch (*plan.combiner) {
    case Combiner::sum:
      return AddOp::create(rewriter, loc, resultType, *shaped, start)
          .getResult();
    case Combiner::max:
    case Combiner::min: {
      Value extreme =
          *plan.combiner == Combiner::max
              ? MaxOp::create(rewriter, loc, resultType, *shaped, start)
                    .getResult()
              : MinOp::create(rewriter, loc, resultType, *shaped, start)
                    .getResult();
      return plan.ignoresNaN
                 ? ignoreNaN(rewriter, loc, extreme, *shaped, start)
                 : extreme;
    }
    }
    llvm_unreachable("unknown combiner");
  }
};

/// A structured op that yields a constant (a splat input, a body constant,
/// an exact cast of one), however its maps broadcast or permute it, is a
/// splat itself: BERT's token_type_ids are a zero i64 splat copied by a
/// generic. It becomes an arith.constant, raised to neuron.constant where
/// neuron holds the element type, whatever type that is (i64 included).
struct FoldConstantStructuredOp : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasTensorBody(op))
      return rewriter.notifyMatchFailure(op, "not a tensor op with a body");
    // Every output element must be written: no empty loop (an empty
    // reduction leaves the init), each output map a permutation of loops.
    SmallVector<int64_t> loopShape = op.getStaticLoopRanges();
    if (llvm::any_of(loopShape, [](int64_t n) {
          return ShapedType::isDynamic(n) || n < 1;
        }))
      return rewriter.notifyMatchFailure(op, "dynamic or empty loop range");
    auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
    BodyEvaluator evaluator(op, loopShape);
    // The constant of each used result, all found before anything changes.
    SmallVector<DenseElementsAttr> constants;
    for (OpResult result : op->getResults()) {
      OpOperand *init = op.getDpsInitOperand(result.getResultNumber());
      if (result.use_empty()) {
        constants.emplace_back();
        continue;
      }
      auto type = dyn_cast<RankedTensorType>(result.getType());
      std::optional<TypedAttr> scalar =
          evaluator.constantOf(yield.getOperand(result.getResultNumber()));
      if (!type || !type.hasStaticShape() || !scalar ||
          scalar->getType() != type.getElementType() ||
          !canMapToLoopSpace(init->get(), op.getMatchingIndexingMap(init)))
        return rewriter.notifyMatchFailure(op, "result is not a constant");
      constants.push_back(
          DenseElementsAttr::get(type, ArrayRef<Attribute>{*scalar}));
    }
    if (llvm::all_of(constants, [](DenseElementsAttr c) { return !c; }))
      return rewriter.notifyMatchFailure(op, "no result is used");
    SmallVector<Value> replacements;
    for (auto [constant, init] : llvm::zip(constants, op.getDpsInits()))
      replacements.push_back(
          constant ? arith::ConstantOp::create(rewriter, op.getLoc(), constant)
                         .getResult()
                   : init);
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

/// linalg.softmax is neuron.softmax.
struct RaiseSoftmax : OpRewritePattern<linalg::SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::SoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
    if (!type || !op.hasPureTensorSemantics() || !type.hasStaticShape() ||
        !isa<FloatType>(type.getElementType()) ||
        !isNeuronElementType(type.getElementType()) ||
        op.getResult()[0].getType() != type)
      return rewriter.notifyMatchFailure(op, "unsupported softmax");
    rewriter.replaceOpWithNewOp<SoftmaxOp>(op, type, op.getInput(),
                                           op.getDimension());
    return success();
  }
};

} // namespace

void mlir::neuron::populateStructuredOpPatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseStructuredOp>(patterns.getContext(), /*benefit=*/1);
  patterns.add<FoldConstantStructuredOp>(patterns.getContext(),
                                         /*benefit=*/3);
  patterns.add<RaiseSoftmax>(patterns.getContext());
}
