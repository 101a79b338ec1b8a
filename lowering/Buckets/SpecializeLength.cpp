//===- SpecializeLength.cpp - the neuron-specialize-length pass -----------===//
//
// One shape bucket of a graph with a variable length: reductions over the
// length are masked against the input's true length (a run-time argument),
// the arguments get the bucket's size and canonicalization carries the
// static shapes through the body.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "lowering/LinalgToNeuron/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <map>
#include <tuple>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONSPECIALIZELENGTH
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;

namespace {

/// The dimension a mask generic masks, checked and removed by finish().
constexpr StringLiteral kMaskedDim = "neuron.masked_dim";

bool isDynamic(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && !shaped.hasStaticShape();
}

/// `[[index, dim], ...]`: the dynamic dimensions of `types`.
ArrayAttr dynamicDims(Builder &b, TypeRange types) {
  SmallVector<Attribute> dims;
  for (auto [i, type] : llvm::enumerate(types))
    if (auto shaped = dyn_cast<ShapedType>(type); shaped && shaped.hasRank())
      for (auto [d, size] : llvm::enumerate(shaped.getShape()))
        if (ShapedType::isDynamic(size))
          dims.push_back(b.getI64ArrayAttr({int64_t(i), int64_t(d)}));
  return b.getArrayAttr(dims);
}

/// What padding is replaced by: the identity of the reduction it would
/// join, a combiner's (getCombiner) or a product's.
enum class Fill { zero, one, lowest, highest };

std::optional<Fill> fillOf(Operation *op) {
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return Fill::one;
  std::optional<neuron::Combiner> combiner = neuron::getCombiner(op);
  if (!combiner)
    return std::nullopt;
  switch (*combiner) {
  case neuron::Combiner::sum:
    return Fill::zero;
  case neuron::Combiner::max:
    return Fill::lowest;
  case neuron::Combiner::min:
    return Fill::highest;
  }
  llvm_unreachable("unknown combiner");
}

/// `fill` as a value of `type`.
TypedAttr identityOf(Fill fill, Type type) {
  Builder b(type.getContext());
  if (auto real = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = real.getFloatSemantics();
    // The infinities, or the extremes of a type without them (fp8 E4M3).
    bool inf = llvm::APFloat::semanticsHasInf(sem);
    switch (fill) {
    case Fill::zero:
      return b.getFloatAttr(type, 0.0);
    case Fill::one:
      return b.getFloatAttr(type, 1.0);
    case Fill::lowest:
      return b.getFloatAttr(type, inf ? llvm::APFloat::getInf(sem, true)
                                      : llvm::APFloat::getLargest(sem, true));
    case Fill::highest:
      return b.getFloatAttr(type, inf ? llvm::APFloat::getInf(sem)
                                      : llvm::APFloat::getLargest(sem));
    }
  }
  unsigned width = type.getIntOrFloatBitWidth();
  switch (fill) {
  case Fill::zero:
    return b.getIntegerAttr(type, 0);
  case Fill::one:
    return b.getIntegerAttr(type, 1);
  case Fill::lowest:
    return b.getIntegerAttr(type, llvm::APInt::getSignedMinValue(width));
  case Fill::highest:
    return b.getIntegerAttr(type, llvm::APInt::getSignedMaxValue(width));
  }
  llvm_unreachable("unknown fill");
}

/// `value` without the element casts frontends put around operands.
Value stripCasts(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    // Not the unsigned ones: the signed identity masked before them would
    // change value (i8 -128 is 128 unsigned).
    if (!isa<arith::ExtFOp, arith::TruncFOp, arith::ExtSIOp, arith::SIToFPOp>(
            def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// An operand to mask along one of its dimensions with a reduction's
/// identity.
struct Mask {
  OpOperand *operand;
  unsigned dim;
  Fill fill;
};

class Specializer {
public:
  Specializer(func::FuncOp func, int64_t length)
      : func(func), length(length) {}

  /// Masks, the length argument, static types; failure after an error.
  LogicalResult maskReductions();
  LogicalResult checkLengthUses();
  void specializeArguments();
  LogicalResult finish(ArrayAttr argumentDims, ArrayAttr resultDims);

  func::FuncOp func;
  int64_t length;

private:
  FailureOr<SmallVector<Mask>> masksOf(linalg::LinalgOp op);
  Value lengthScalar();
  Value masked(Value x, unsigned dim, Fill fill, Location loc);

  /// The i32 true length, read once at the function's entry.
  Value lengthValue;
  std::map<std::tuple<void *, unsigned, int>, Value> masks;
};

/// The masks that keep positions past the true length out of `op`'s
/// reductions over dynamic loops; failure after an error when padding
/// would change its result whatever is masked.
FailureOr<SmallVector<Mask>> Specializer::masksOf(linalg::LinalgOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // A dynamic loop's positions must be read as themselves: a shifted or
  // windowed read would take padding into a position inside the length.
  for (OpOperand &operand : op->getOpOperands())
    for (AffineExpr expr : op.getMatchingIndexingMap(&operand).getResults())
      for (auto [d, range] : llvm::enumerate(ranges))
        if (ShapedType::isDynamic(range) && expr.isFunctionOfDim(d) &&
            !isa<AffineDimExpr>(expr)) {
          std::string text;
          llvm::raw_string_ostream(text) << expr;
          return op.emitError("neuron-specialize-length: reads the variable "
                              "length (loop ")
                 << d << ") through " << text
                 << ", so the padding past an input's length would reach "
                    "positions inside it; buckets cannot pad this graph";
        }
  SmallVector<Mask> result;
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  for (auto [d, range] : llvm::enumerate(ranges)) {
    if (!ShapedType::isDynamic(range) ||
        iterators[d] != utils::IteratorType::reduction)
      continue;
    auto refuse = [&, d = d]() {
      return op.emitError("neuron-specialize-length: reduces over the "
                          "variable length (loop ")
             << d
             << ") with a body whose result the padding would change (only "
                "sums of inputs or of their products, maxima and minima of "
                "inputs can be masked); buckets cannot pad this graph";
    };
    for (OpOperand &init : op.getDpsInitsMutable()) {
      BlockArgument out = op.getMatchingBlockArgument(&init);
      Operation *def =
          yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs())
              .getDefiningOp();
      std::optional<Fill> fill =
          def && def->getBlock() == op.getBlock() ? fillOf(def)
                                                  : std::nullopt;
      if (!fill || def->getNumOperands() != 2)
        return refuse();
      Value x = def->getOperand(0) == out   ? def->getOperand(1)
                : def->getOperand(1) == out ? def->getOperand(0)
                                            : Value();
      if (!x)
        return refuse();
      // The terms: x itself, or for a sum the factors of a product.
      SmallVector<Value> terms{stripCasts(x)};
      if (auto mul = terms[0].getDefiningOp();
          *fill == Fill::zero && mul &&
          isa<arith::MulFOp, arith::MulIOp>(mul))
        terms = {stripCasts(mul->getOperand(0)),
                 stripCasts(mul->getOperand(1))};
      bool maskedOne = false;
      for (Value term : terms) {
        auto arg = dyn_cast<BlockArgument>(term);
        if (!arg || arg.getOwner() != op.getBlock())
          return refuse();
        OpOperand *operand = op.getMatchingOpOperand(arg);
        if (!op.isDpsInput(operand))
          return refuse();
        AffineMap map = op.getMatchingIndexingMap(operand);
        for (auto [r, expr] : llvm::enumerate(map.getResults()))
          if (expr == getAffineDimExpr(d, op.getContext())) {
            // One operand feeding two reductions needs one identity (a
            // max and a sum of it cannot share a mask).
            if (llvm::any_of(result, [&, r = r](const Mask &m) {
                  return m.operand == operand && m.dim == r &&
                         m.fill != *fill;
                }))
              return refuse();
            result.push_back({operand, unsigned(r), *fill});
            maskedOne = true;
          }
      }
      if (!maskedOne)
        return refuse();
    }
  }
  return result;
}

Value Specializer::lengthScalar() {
  if (lengthValue)
    return lengthValue;
  OpBuilder b = OpBuilder::atBlockBegin(&func.front());
  Type i32 = b.getI32Type();
  auto type = RankedTensorType::get({}, i32);
  if (failed(func.insertArgument(func.getNumArguments(), type, {},
                                 func.getLoc())))
    return {};
  lengthValue = tensor::ExtractOp::create(b, func.getLoc(),
                                          func.getArguments().back(),
                                          ValueRange{});
  return lengthValue;
}

/// `x` with the positions along `dim` at or past the true length replaced
/// by `fill`.
Value Specializer::masked(Value x, unsigned dim, Fill fill,
                          Location loc) {
  auto key = std::make_tuple(x.getAsOpaquePointer(), dim, int(fill));
  if (Value known = masks[key])
    return known;
  Value limit = lengthScalar();
  if (!limit)
    return {};
  OpBuilder b(func.getContext());
  b.setInsertionPointAfterValue(x);
  // The length is read at the function's entry: after it there.
  if (auto arg = dyn_cast<BlockArgument>(x);
      arg && arg.getOwner() == limit.getDefiningOp()->getBlock())
    b.setInsertionPointAfter(limit.getDefiningOp());
  auto type = cast<RankedTensorType>(x.getType());
  Value init = tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, x),
                                       type.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  TypedAttr value = identityOf(fill, type.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{x}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, parallel,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value position = linalg::IndexOp::create(nb, l, dim);
        Value position32 =
            arith::IndexCastOp::create(nb, l, nb.getI32Type(), position);
        Value inside = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::slt, position32, limit);
        Value padding = arith::ConstantOp::create(nb, l, value);
        linalg::YieldOp::create(
            nb, l, arith::SelectOp::create(nb, l, inside, args[0], padding)
                       .getResult());
      });
  // Checked once the shapes are static: the masked dimension must be the
  // length itself.
  generic->setAttr(kMaskedDim, b.getI64IntegerAttr(dim));
  return masks[key] = generic.getResult(0);
}

LogicalResult Specializer::maskReductions() {
  SmallVector<std::pair<Location, Mask>> plan;
  WalkResult walked = func.walk([&](linalg::LinalgOp op) {
    FailureOr<SmallVector<Mask>> masks = masksOf(op);
    if (failed(masks))
      return WalkResult::interrupt();
    for (const Mask &mask : *masks)
      plan.emplace_back(op.getLoc(), mask);
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  // A softmax along the length (not a structured op): its input masked
  // with -inf, so the padding's exponentials are 0.
  func.walk([&](linalg::SoftmaxOp op) {
    if (op.getInputOperandType().isDynamicDim(op.getDimension()))
      plan.emplace_back(op.getLoc(), Mask{&op.getInputMutable(),
                                          unsigned(op.getDimension()),
                                          Fill::lowest});
  });
  for (auto &[loc, mask] : plan) {
    Value x = masked(mask.operand->get(), mask.dim, mask.fill, loc);
    if (!x)
      return func.emitError("neuron-specialize-length: cannot add the "
                            "length argument");
    mask.operand->set(x);
  }
  return success();
}

/// Whether `slice` takes its dimension `value` sizes whole: from offset 0,
/// `value` read directly (not shifted by arithmetic).
template <typename SliceOp> bool takesWhole(SliceOp slice, Value value) {
  for (auto [offset, size] :
       llvm::zip(slice.getMixedOffsets(), slice.getMixedSizes()))
    if (size == OpFoldResult(value) && !isConstantIntValue(offset, 0))
      return false;
  return llvm::is_contained(slice.getSizes(), value) &&
         !llvm::is_contained(slice.getOffsets(), value) &&
         !llvm::is_contained(slice.getStrides(), value);
}

/// Whether `value` (the size of a dynamic dimension, or arithmetic on it
/// when not `direct`) only gives shapes: tensor.empty and expand_shape
/// sizes, size arithmetic, assertions, and (directly) the size of a slice
/// whole along it. Otherwise `use` is where it is used as a number.
bool onlyShapes(Value value, Operation *&use, bool direct = true) {
  for (Operation *user : value.getUsers()) {
    if (isa<tensor::EmptyOp, tensor::ExpandShapeOp, cf::AssertOp>(user))
      continue;
    // A splat's size, not its value.
    if (auto splat = dyn_cast<tensor::SplatOp>(user);
        splat && splat.getInput() != value)
      continue;
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
        slice && direct && takesWhole(slice, value))
      continue;
    if (auto slice = dyn_cast<tensor::InsertSliceOp>(user);
        slice && direct && takesWhole(slice, value))
      continue;
    bool number = isa<arith::SIToFPOp, arith::UIToFPOp>(user);
    if (!number &&
        user->getDialect() == value.getContext()->getLoadedDialect("arith") &&
        llvm::all_of(user->getResults(), [&](Value r) {
          return onlyShapes(r, use, /*direct=*/false);
        }))
      continue;
    if (!use)
      use = user;
    return false;
  }
  return true;
}

LogicalResult Specializer::checkLengthUses() {
  WalkResult walked = func.walk([&](tensor::DimOp dim) {
    std::optional<int64_t> index = dim.getConstantIndex();
    auto type = dyn_cast<RankedTensorType>(dim.getSource().getType());
    if (!type || (index && !type.isDynamicDim(*index)))
      return WalkResult::advance();
    Operation *use = nullptr;
    if (onlyShapes(dim.getResult(), use))
      return WalkResult::advance();
    InFlightDiagnostic error =
        dim.emitError("neuron-specialize-length: the variable length is used "
                      "as a number (a mean's divisor, a position), which a "
                      "bucket would give its own size instead of the "
                      "input's; buckets cannot pad this graph");
    if (use)
      error.attachNote(use->getLoc()) << "used here";
    return WalkResult::interrupt();
  });
  return failure(walked.wasInterrupted());
}

void Specializer::specializeArguments() {
  OpBuilder b = OpBuilder::atBlockBegin(&func.front());
  SmallVector<Type> inputs;
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (type && !type.hasStaticShape()) {
      SmallVector<int64_t> shape(type.getShape());
      for (int64_t &size : shape)
        if (ShapedType::isDynamic(size))
          size = length;
      arg.setType(type.clone(shape));
      auto cast = tensor::CastOp::create(b, arg.getLoc(), type, arg);
      arg.replaceAllUsesExcept(cast, cast);
    }
    inputs.push_back(arg.getType());
  }
  func.setType(b.getFunctionType(inputs, func.getResultTypes()));
}

/// Gives the function the static result types its body returns and
/// records the bucket; failure after an error naming a value still dynamic.
LogicalResult Specializer::finish(ArrayAttr argumentDims,
                                  ArrayAttr resultDims) {
  auto ret = cast<func::ReturnOp>(func.front().getTerminator());
  for (OpOperand &operand : ret->getOpOperands())
    if (auto cast = operand.get().getDefiningOp<tensor::CastOp>();
        cast && !isDynamic(cast.getSource().getType())) {
      operand.set(cast.getSource());
      if (cast->use_empty())
        cast->erase();
    }
  // Every dynamic dimension was taken to be the length; one that was
  // another size (a reshape's product, a concat's sum) cannot be masked or
  // cut back to the length.
  auto notLength = [&](Operation *where, Type type, int64_t dim) {
    return where->emitError("neuron-specialize-length: its dynamic dimension ")
           << dim << " is " << cast<ShapedType>(type).getDimSize(dim)
           << " with the length " << length
           << ", not the length itself (a reshape or a concat of it); "
              "buckets cannot pad this graph";
  };
  WalkResult masksOk = func.walk([&](linalg::GenericOp mask) {
    auto dim = mask->getAttrOfType<IntegerAttr>(kMaskedDim);
    if (!dim)
      return WalkResult::advance();
    mask->removeAttr(kMaskedDim);
    Type type = mask.getResult(0).getType();
    if (cast<ShapedType>(type).getDimSize(dim.getInt()) == length)
      return WalkResult::advance();
    notLength(mask, type, dim.getInt());
    return WalkResult::interrupt();
  });
  if (masksOk.wasInterrupted())
    return failure();
  for (Attribute pair : resultDims) {
    auto values = cast<ArrayAttr>(pair).getValue();
    int64_t index = cast<IntegerAttr>(values[0]).getInt();
    int64_t dim = cast<IntegerAttr>(values[1]).getInt();
    Type type = ret->getOperand(index).getType();
    if (!isDynamic(type) && cast<ShapedType>(type).getDimSize(dim) != length) {
      notLength(ret, type, dim);
      return failure();
    }
  }
  WalkResult walked = func.walk([&](Operation *op) {
    for (Value v : op->getResults())
      if (isDynamic(v.getType())) {
        op->emitError("neuron-specialize-length: still has a dynamic shape ")
            << v.getType() << " with the length " << length
            << "; buckets need every shape to follow from the length";
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  Builder b(func.getContext());
  func.setType(
      b.getFunctionType(func.getArgumentTypes(), ret->getOperandTypes()));
  SmallVector<NamedAttribute> record{
      b.getNamedAttr("size", b.getI64IntegerAttr(length)),
      b.getNamedAttr("inputs", argumentDims),
      b.getNamedAttr("results", resultDims)};
  if (lengthValue)
    record.push_back(b.getNamedAttr(
        "length_argument", b.getI64IntegerAttr(func.getNumArguments() - 1)));
  func->setAttr("neuron.length", b.getDictionaryAttr(record));
  return success();
}

/// A concat of operands cast to less static types takes the operands
/// themselves (upstream's canonicalization leaves these casts), its result
/// cast back.
struct ConcatOfCasts : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> operands;
    bool changed = false;
    for (Value operand : concat.getInputs()) {
      auto cast = operand.getDefiningOp<tensor::CastOp>();
      changed |= cast && tensor::canFoldIntoConsumerOp(cast);
      operands.push_back(cast && tensor::canFoldIntoConsumerOp(cast)
                             ? cast.getSource()
                             : operand);
    }
    if (!changed)
      return failure();
    auto folded = tensor::ConcatOp::create(rewriter, concat.getLoc(),
                                           concat.getDim(), operands);
    rewriter.replaceOpWithNewOp<tensor::CastOp>(concat, concat.getType(),
                                                folded);
    return success();
  }
};

/// Canonicalization with ConcatOfCasts, then CSE, on `func`.
LogicalResult propagateShapes(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  RewritePatternSet patterns(context);
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
  patterns.add<ConcatOfCasts>(context);
  if (failed(applyPatternsGreedily(func, std::move(patterns))))
    return func.emitError("neuron-specialize-length: the shapes did not "
                          "settle");
  IRRewriter rewriter(context);
  DominanceInfo dominance(func);
  eliminateCommonSubExpressions(rewriter, dominance, func);
  return success();
}

struct NeuronSpecializeLength
    : neuron::impl::NeuronSpecializeLengthBase<NeuronSpecializeLength> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (length < 1) {
      module.emitError("neuron-specialize-length: length must be at least 1, "
                       "found ")
          << int64_t(length);
      return signalPassFailure();
    }
    FailureOr<func::FuncOp> func = entryFunction(module);
    if (failed(func))
      return signalPassFailure();
    Builder b(&getContext());
    ArrayAttr argumentDims = dynamicDims(b, func->getArgumentTypes());
    ArrayAttr resultDims = dynamicDims(b, func->getResultTypes());
    Specializer specializer(*func, length);
    if (failed(specializer.checkLengthUses()) ||
        failed(specializer.maskReductions()))
      return signalPassFailure();
    specializer.specializeArguments();
    if (failed(propagateShapes(*func)) ||
        failed(specializer.finish(argumentDims, resultDims)))
      return signalPassFailure();
  }

  /// `entry`, or the one function with a body and a dynamic argument.
  FailureOr<func::FuncOp> entryFunction(ModuleOp module) {
    SmallVector<func::FuncOp> found, bodies;
    for (func::FuncOp f : module.getOps<func::FuncOp>()) {
      if (f.isDeclaration())
        continue;
      bodies.push_back(f);
      if (!entry.empty() ? f.getName() == entry
                         : llvm::any_of(f.getArgumentTypes(), isDynamic))
        found.push_back(f);
    }
    // A module of one function with none: say that it needs no buckets.
    if (found.empty() && entry.empty() && bodies.size() == 1)
      found = bodies;
    if (found.size() == 1 &&
        llvm::any_of(found.front().getArgumentTypes(), isDynamic))
      return found.front();
    if (found.size() == 1)
      return found.front().emitError("neuron-specialize-length: @")
             << found.front().getName()
             << " has no argument of dynamic shape: it needs no buckets";
    InFlightDiagnostic error = module.emitError(
        "neuron-specialize-length: expected one function ");
    if (entry.empty())
      error << "with an argument of dynamic shape (choose one with entry=)";
    else
      error << "named @" << entry;
    return error << ", found " << found.size();
  }
};

} // namespace
