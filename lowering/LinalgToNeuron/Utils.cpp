//===- Utils.cpp - shared helpers of the linalg-to-neuron import ----------===//

#include "lowering/LinalgToNeuron/Utils.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::neuron;

std::optional<TypedAttr> mlir::neuron::getSplatScalar(Value value) {
  Attribute attr;
  if (matchPattern(value, m_Constant(&attr))) {
    if (auto splat = dyn_cast<SplatElementsAttr>(attr))
      return cast<TypedAttr>(splat.getSplatValue<Attribute>());
    if (isa<FloatAttr, IntegerAttr>(attr))
      return cast<TypedAttr>(attr);
    return std::nullopt;
  }
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    return getSplatScalar(fill.getInputs().front());
  if (auto splat = value.getDefiningOp<tensor::SplatOp>())
    return getSplatScalar(splat.getInput());
  return std::nullopt;
}

std::optional<TypedAttr> mlir::neuron::convertScalar(TypedAttr scalar,
                                                     Type type) {
  auto target = dyn_cast<FloatType>(type);
  if (!target)
    return std::nullopt;
  APFloat value(0.0);
  if (auto f = dyn_cast<FloatAttr>(scalar)) {
    value = f.getValue();
  } else if (auto i = dyn_cast<IntegerAttr>(scalar)) {
    value = APFloat(target.getFloatSemantics());
    value.convertFromAPInt(i.getValue(), /*IsSigned=*/true,
                           APFloat::rmNearestTiesToEven);
  } else {
    return std::nullopt;
  }
  bool losesInfo = false;
  value.convert(target.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return FloatAttr::get(target, value);
}

bool mlir::neuron::isSplatOf(Value value, double number) {
  std::optional<TypedAttr> scalar = getSplatScalar(value);
  if (!scalar)
    return false;
  if (auto f = dyn_cast<FloatAttr>(*scalar)) {
    return f.getValue().convertToDouble() == number;
  }
  if (auto i = dyn_cast<IntegerAttr>(*scalar)) {
    if (std::isinf(number)) {
      unsigned width = i.getType().getIntOrFloatBitWidth();
      APInt limit = number < 0 ? APInt::getSignedMinValue(width)
                               : APInt::getSignedMaxValue(width);
      return i.getValue() == limit;
    }
    return i.getValue().getSExtValue() == static_cast<int64_t>(number);
  }
  return false;
}

bool mlir::neuron::isIdentityInit(Value init, double identity) {
  return init.getDefiningOp<tensor::EmptyOp>() ||
         isSplatOf(init, identity);
}

Value mlir::neuron::createSplat(OpBuilder &b, Location loc, TypedAttr scalar,
                                ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, scalar.getType());
  return ConstantOp::create(b, loc, type, SplatElementsAttr::get(type, scalar));
}

Value mlir::neuron::createSplat(OpBuilder &b, Location loc, Type elementType,
                                double number, ArrayRef<int64_t> shape) {
  TypedAttr scalar;
  if (auto f = dyn_cast<FloatType>(elementType))
    scalar = b.getFloatAttr(f, number);
  else
    scalar = b.getIntegerAttr(elementType, static_cast<int64_t>(number));
  return createSplat(b, loc, scalar, shape);
}

Value mlir::neuron::transposeIfNeeded(OpBuilder &b, Location loc, Value value,
                                      ArrayRef<int64_t> permutation) {
  bool identity = llvm::all_of(llvm::enumerate(permutation), [](auto p) {
    return p.value() == static_cast<int64_t>(p.index());
  });
  if (identity)
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t p : permutation)
    shape.push_back(type.getDimSize(p));
  return TransposeOp::create(b, loc, type.clone(shape), value, permutation);
}

Value mlir::neuron::reshapeIfNeeded(OpBuilder &b, Location loc, Value value,
                                    ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return ReshapeOp::create(b, loc, type.clone(shape), value);
}

Value mlir::neuron::castIfNeeded(OpBuilder &b, Location loc, Value value,
                                 Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return CastOp::create(b, loc, type.clone(elementType), value);
}

/// The loop dimension each map result reads, or -1 for a constant 0.
/// Fails on any other expression or a constant 0 on a non-unit dimension.
static FailureOr<SmallVector<int64_t>> mapDims(AffineMap map,
                                               ArrayRef<int64_t> shape) {
  SmallVector<int64_t> dims;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      dims.push_back(dim.getPosition());
      continue;
    }
    auto cst = dyn_cast<AffineConstantExpr>(expr);
    if (!cst || cst.getValue() != 0 || shape[i] != 1)
      return failure();
    dims.push_back(-1);
  }
  return dims;
}

bool mlir::neuron::canMapToLoopSpace(Value operand, AffineMap map) {
  auto type = dyn_cast<RankedTensorType>(operand.getType());
  if (!type)
    return getSplatScalar(operand).has_value();
  FailureOr<SmallVector<int64_t>> dims = mapDims(map, type.getShape());
  if (failed(dims))
    return false;
  SmallVector<int64_t> kept(llvm::make_filter_range(*dims, [](int64_t d) {
    return d >= 0;
  }));
  llvm::sort(kept);
  return std::adjacent_find(kept.begin(), kept.end()) == kept.end();
}

FailureOr<Value> mlir::neuron::toLoopSpace(OpBuilder &b, Location loc,
                                           Value operand, AffineMap map,
                                           ArrayRef<int64_t> loopShape) {
  auto type = dyn_cast<RankedTensorType>(operand.getType());
  if (!type) {
    // A scalar operand (linalg.fill, a scalar `ins`) must be a constant.
    auto scalar = getSplatScalar(operand);
    if (!scalar)
      return failure();
    return createSplat(b, loc, *scalar, loopShape);
  }
  if (!canMapToLoopSpace(operand, map))
    return failure();
  SmallVector<int64_t> dims = *mapDims(map, type.getShape());
  SmallVector<int64_t> kept(llvm::make_filter_range(dims, [](int64_t d) {
    return d >= 0;
  }));
  SmallVector<int64_t> sorted(kept);
  llvm::sort(sorted);
  FailureOr<Value> value = toDimOrder(b, loc, operand, map, sorted);
  if (failed(value) || sorted.size() == loopShape.size())
    return value;
  auto result = RankedTensorType::get(loopShape, type.getElementType());
  return BroadcastOp::create(b, loc, result, *value, sorted).getResult();
}

FailureOr<Value> mlir::neuron::toDimOrder(OpBuilder &b, Location loc,
                                          Value operand, AffineMap map,
                                          ArrayRef<int64_t> order) {
  auto type = cast<RankedTensorType>(operand.getType());
  FailureOr<SmallVector<int64_t>> dims = mapDims(map, type.getShape());
  if (failed(dims))
    return failure();
  // Position (after dropping constant-0 dimensions) of each loop read.
  SmallVector<int64_t> kept, keptShape;
  for (auto [i, d] : llvm::enumerate(*dims))
    if (d >= 0) {
      kept.push_back(d);
      keptShape.push_back(type.getDimSize(i));
    }
  SmallVector<int64_t> permutation, finalShape;
  for (int64_t o : order) {
    if (o < 0) {
      finalShape.push_back(1);
      continue;
    }
    auto it = llvm::find(kept, o);
    if (it == kept.end())
      return failure();
    permutation.push_back(std::distance(kept.begin(), it));
    finalShape.push_back(keptShape[permutation.back()]);
  }
  if (permutation.size() != kept.size())
    return failure(); // the operand reads loops `order` does not name
  Value value = reshapeIfNeeded(b, loc, operand, keptShape);
  value = transposeIfNeeded(b, loc, value, permutation);
  return reshapeIfNeeded(b, loc, value, finalShape);
}

bool mlir::neuron::writesLoops(AffineMap map, ArrayRef<int64_t> shape,
                               ArrayRef<unsigned> loops) {
  FailureOr<SmallVector<int64_t>> dims = mapDims(map, shape);
  if (failed(dims))
    return false;
  SmallVector<int64_t> written(llvm::make_filter_range(
      *dims, [](int64_t d) { return d >= 0; }));
  SmallVector<int64_t> expected(loops.begin(), loops.end());
  llvm::sort(written);
  llvm::sort(expected);
  return written == expected;
}

FailureOr<Value> mlir::neuron::fromLoopSpace(OpBuilder &b, Location loc,
                                             Value value,
                                             ArrayRef<unsigned> present,
                                             AffineMap map,
                                             RankedTensorType resultType) {
  FailureOr<SmallVector<int64_t>> dims = mapDims(map, resultType.getShape());
  if (failed(dims))
    return failure();
  // Position of each written loop within `value`, in the result's order.
  SmallVector<int64_t> permutation;
  for (int64_t d : *dims) {
    if (d < 0)
      continue;
    auto it = llvm::find(present, static_cast<unsigned>(d));
    if (it == present.end())
      return failure();
    permutation.push_back(std::distance(present.begin(), it));
  }
  SmallVector<int64_t> sorted(permutation);
  llvm::sort(sorted);
  if (permutation.size() != present.size() ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return failure(); // the result must hold every loop once
  value = transposeIfNeeded(b, loc, value, permutation);
  value = reshapeIfNeeded(b, loc, value, resultType.getShape());
  return castIfNeeded(b, loc, value, resultType.getElementType());
}

/// The one-element integer tensor a scalar was read from on the device:
/// `tensor.extract` of it, through integer and index casts (how exporters
/// read a decode step's position); null otherwise.
SmallVector<Operation *> mlir::neuron::integerCasts(Value value) {
  SmallVector<Operation *> casts;
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<arith::IndexCastOp, arith::ExtSIOp>(def))
      break;
    casts.push_back(def);
    value = def->getOperand(0);
  }
  return casts;
}

std::optional<Combiner> mlir::neuron::getCombiner(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return Combiner::sum;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op))
    return Combiner::max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op))
    return Combiner::min;
  return std::nullopt;
}

Value mlir::neuron::stripIntegerCasts(Value value) {
  SmallVector<Operation *> casts = integerCasts(value);
  return casts.empty() ? value : casts.back()->getOperand(0);
}

Value mlir::neuron::positionTensor(Value scalar) {
  scalar = stripIntegerCasts(scalar);
  Value tensor;
  if (auto extract = scalar.getDefiningOp<tensor::ExtractOp>())
    tensor = extract.getTensor();
  // An input of a structured op read by its body, every loop seeing it whole.
  if (auto arg = dyn_cast<BlockArgument>(scalar))
    if (auto op = dyn_cast<linalg::LinalgOp>(arg.getOwner()->getParentOp()))
      if (OpOperand *operand = op.getMatchingOpOperand(arg);
          op.isDpsInput(operand) &&
          llvm::all_of(op.getMatchingIndexingMap(operand).getResults(),
                       llvm::IsaPred<AffineConstantExpr>))
        tensor = operand->get();
  auto type = tensor ? dyn_cast<RankedTensorType>(tensor.getType())
                     : RankedTensorType();
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
      !(type.getElementType().isInteger(32) ||
        type.getElementType().isInteger(64)))
    return {};
  return tensor;
}
