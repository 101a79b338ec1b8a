//===- Elementwise.cpp - arith/math ops as neuron elementwise ops ---------===//
//
// The one table of which arith and math operations have a neuron
// counterpart, shared by the linalg body evaluator (scalar ops applied over a
// loop space) and the pattern for arith/math ops applied to whole tensors.
//
//===----------------------------------------------------------------------===//

#include "lowering/LinalgToNeuron/LinalgToNeuron.h"
#include "lowering/LinalgToNeuron/Utils.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::neuron;

bool mlir::neuron::isNeuronElementType(Type type) {
  return type.isF32() || type.isBF16() || type.isF16() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type) || type.isInteger(8) ||
         type.isInteger(32);
}

std::optional<ComparePredicate>
mlir::neuron::getComparePredicate(Operation *op) {
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    switch (cmp.getPredicate()) {
    case P::OEQ: case P::UEQ: return ComparePredicate::eq;
    case P::ONE: case P::UNE: return ComparePredicate::ne;
    case P::OLT: case P::ULT: return ComparePredicate::lt;
    case P::OLE: case P::ULE: return ComparePredicate::le;
    case P::OGT: case P::UGT: return ComparePredicate::gt;
    case P::OGE: case P::UGE: return ComparePredicate::ge;
    default: return std::nullopt;
    }
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    using P = arith::CmpIPredicate;
    switch (cmp.getPredicate()) {
    case P::eq: return ComparePredicate::eq;
    case P::ne: return ComparePredicate::ne;
    case P::slt: return ComparePredicate::lt;
    case P::sle: return ComparePredicate::le;
    case P::sgt: return ComparePredicate::gt;
    case P::sge: return ComparePredicate::ge;
    default: return std::nullopt;
    }
  }
  return std::nullopt;
}

/// Whether every type in `types` has a neuron element type.
static bool allNeuron(TypeRange types) {
  return llvm::all_of(types, [](Type t) {
    return isNeuronElementType(getElementTypeOrSelf(t));
  });
}

bool mlir::neuron::isNearestEvenRounding(arith::TruncFOp op) {
  std::optional<arith::RoundingMode> mode = op.getRoundingmode();
  return !mode || *mode == arith::RoundingMode::to_nearest_even;
}

bool mlir::neuron::isRaisableElementwise(Operation *op) {
  if (isa<arith::CmpFOp, arith::CmpIOp>(op))
    return getComparePredicate(op) && allNeuron(op->getOperandTypes());
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return getElementTypeOrSelf(select.getCondition().getType()).isInteger(1) &&
           allNeuron({select.getTrueValue().getType(),
                      select.getFalseValue().getType(), select.getType()});
  if (auto pow = dyn_cast<math::FPowIOp>(op))
    return allNeuron({pow.getLhs().getType(), pow.getType()});
  if (!allNeuron(op->getOperandTypes()) || !allNeuron(op->getResultTypes()))
    return false;
  if (auto trunc = dyn_cast<arith::TruncFOp>(op))
    return isNearestEvenRounding(trunc);
  return isa<arith::AddFOp, arith::AddIOp, arith::SubFOp, arith::SubIOp,
             arith::MulFOp, arith::MulIOp, arith::DivFOp, arith::DivSIOp,
             arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp,
             arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp,
             arith::NegFOp, arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp,
             arith::FPToSIOp, arith::ExtSIOp, arith::TruncIOp, math::ExpOp,
             math::LogOp, math::TanhOp, math::SqrtOp, math::RsqrtOp,
             math::ErfOp, math::AbsFOp, math::AbsIOp, math::PowFOp,
             math::FloorOp, math::CeilOp, math::TruncOp, math::RoundOp,
             math::RoundEvenOp>(op);
}

/// `x` rounded to an integer value by `op` (math.floor, ceil, trunc, round
/// or roundeven), from its truncation toward zero through i32 (neuron.cast
/// truncates): below 2^23 in magnitude; at or above it (every such float is
/// an integer) and NaN, `x` itself.
static Value roundToInteger(OpBuilder &b, Location loc, Operation *op,
                            Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  auto mask = type.clone(b.getI1Type());
  auto splat = [&](double value) {
    return createSplat(b, loc, type.getElementType(), value, type.getShape());
  };
  auto compare = [&](ComparePredicate p, Value lhs, Value rhs) -> Value {
    return CompareOp::create(b, loc, mask, p, lhs, rhs);
  };
  auto select = [&](Value when, Value then, Value otherwise) -> Value {
    return SelectOp::create(b, loc, type, when, then, otherwise);
  };
  auto add = [&](Value lhs, Value rhs) -> Value {
    return AddOp::create(b, loc, type, lhs, rhs);
  };
  auto toward0 = [&](Value v) -> Value {
    Value whole = CastOp::create(b, loc, type.clone(b.getI32Type()), v);
    return CastOp::create(b, loc, type, whole);
  };
  Value t = toward0(x);
  Value rounded =
      llvm::TypeSwitch<Operation *, Value>(op)
          .Case<math::FloorOp>([&](auto) {
            return select(compare(ComparePredicate::gt, t, x),
                          add(t, splat(-1)), t);
          })
          .Case<math::CeilOp>([&](auto) {
            return select(compare(ComparePredicate::lt, t, x),
                          add(t, splat(1)), t);
          })
          .Case<math::TruncOp>([&](auto) { return t; })
          .Case<math::RoundOp, math::RoundEvenOp>([&](auto) -> Value {
            // |x - t| is exact; a half or more moves one away from zero
            // (round), a half only to an even neighbour (roundeven).
            Value fraction = AbsOp::create(
                b, loc, type, SubOp::create(b, loc, type, x, t));
            Value away = add(t, select(compare(ComparePredicate::lt, x,
                                               splat(0)),
                                       splat(-1), splat(1)));
            Value half = splat(0.5);
            if (isa<math::RoundOp>(op))
              return select(compare(ComparePredicate::ge, fraction, half),
                            away, t);
            Value halfT =
                toward0(MulOp::create(b, loc, type, t, half).getResult());
            Value odd = compare(ComparePredicate::ne, t, add(halfT, halfT));
            Value atHalf = select(compare(ComparePredicate::eq, fraction, half),
                                  select(odd, away, t), t);
            return select(compare(ComparePredicate::gt, fraction, half), away,
                          atHalf);
          });
  Value small = compare(ComparePredicate::lt, AbsOp::create(b, loc, type, x),
                        splat(8388608.0));
  return select(small, rounded, x);
}

/// An i1 mask of `value`'s NaNs (x != x only for NaN).
static Value isNaN(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return CompareOp::create(b, loc, type.clone(b.getI1Type()),
                           ComparePredicate::ne, value, value);
}

Value mlir::neuron::ignoreNaN(OpBuilder &b, Location loc, Value extreme,
                              Value lhs, Value rhs) {
  Type type = extreme.getType();
  Value rhsOr =
      SelectOp::create(b, loc, type, isNaN(b, loc, rhs), lhs, extreme);
  return SelectOp::create(b, loc, type, isNaN(b, loc, lhs), rhs, rhsOr);
}

Value mlir::neuron::replaceNaN(OpBuilder &b, Location loc, Value value,
                               double number) {
  auto type = cast<RankedTensorType>(value.getType());
  Value splat = createSplat(b, loc, type.getElementType(), number,
                            type.getShape());
  return SelectOp::create(b, loc, type, isNaN(b, loc, value), splat, value);
}

Value mlir::neuron::createElementwise(OpBuilder &b, Location loc,
                                      Operation *op, ValueRange args,
                                      ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(
      shape, getElementTypeOrSelf(op->getResult(0).getType()));
  auto unary = [&](auto tag) -> Value {
    using NeuronOp = decltype(tag);
    return NeuronOp::create(b, loc, type, args[0]);
  };
  auto binary = [&](auto tag) -> Value {
    using NeuronOp = decltype(tag);
    return NeuronOp::create(b, loc, type, args[0], args[1]);
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<arith::AddFOp, arith::AddIOp>([&](auto) { return binary(AddOp()); })
      .Case<arith::SubFOp, arith::SubIOp>([&](auto) { return binary(SubOp()); })
      .Case<arith::MulFOp, arith::MulIOp>([&](auto) { return binary(MulOp()); })
      .Case<arith::DivFOp, arith::DivSIOp>(
          [&](auto) { return binary(DivOp()); })
      .Case<arith::MaximumFOp, arith::MaxSIOp>(
          [&](auto) { return binary(MaxOp()); })
      .Case<arith::MinimumFOp, arith::MinSIOp>(
          [&](auto) { return binary(MinOp()); })
      .Case<arith::MaxNumFOp, arith::MinNumFOp>([&](auto) -> Value {
        Value extreme = isa<arith::MaxNumFOp>(op) ? binary(MaxOp())
                                                  : binary(MinOp());
        return ignoreNaN(b, loc, extreme, args[0], args[1]);
      })
      .Case<arith::NegFOp>([&](auto) { return unary(NegOp()); })
      .Case<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp,
            arith::ExtSIOp, arith::TruncIOp>(
          [&](auto) { return unary(CastOp()); })
      .Case<arith::CmpFOp, arith::CmpIOp>([&](auto) -> Value {
        return CompareOp::create(b, loc, type, *getComparePredicate(op),
                                 args[0], args[1]);
      })
      .Case<arith::SelectOp>([&](auto) -> Value {
        return SelectOp::create(b, loc, type, args[0], args[1], args[2]);
      })
      .Case<math::ExpOp>([&](auto) { return unary(ExpOp()); })
      .Case<math::LogOp>([&](auto) { return unary(LogOp()); })
      .Case<math::TanhOp>([&](auto) { return unary(TanhOp()); })
      .Case<math::SqrtOp>([&](auto) { return unary(SqrtOp()); })
      .Case<math::RsqrtOp>([&](auto) { return unary(RsqrtOp()); })
      .Case<math::ErfOp>([&](auto) { return unary(ErfOp()); })
      .Case<math::AbsFOp, math::AbsIOp>([&](auto) { return unary(AbsOp()); })
      .Case<math::PowFOp>([&](auto) { return binary(PowOp()); })
      .Case<math::FloorOp, math::CeilOp, math::TruncOp, math::RoundOp,
            math::RoundEvenOp>(
          [&](auto) { return roundToInteger(b, loc, op, args[0]); })
      .Case<math::FPowIOp>([&](auto) -> Value {
        Value exponent = castIfNeeded(b, loc, args[1], type.getElementType());
        return PowOp::create(b, loc, type, args[0], exponent);
      })
      .Default([](Operation *) -> Value {
        llvm_unreachable("createElementwise on an unchecked op");
      });
}

namespace {
/// An arith/math op applied to whole ranked tensors (JAX emits these
/// between linalg ops).
struct RaiseTensorElementwise : RewritePattern {
  RaiseTensorElementwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        op->getNumResults() != 1)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape() || !isRaisableElementwise(op) ||
        !llvm::all_of(op->getOperandTypes(), [&](Type t) {
          auto operand = dyn_cast<RankedTensorType>(t);
          return operand && operand.getShape() == type.getShape();
        }))
      return failure();
    rewriter.replaceOp(op, createElementwise(rewriter, op->getLoc(), op,
                                             op->getOperands(),
                                             type.getShape()));
    return success();
  }
};
} // namespace

void mlir::neuron::populateTensorElementwisePatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseTensorElementwise>(patterns.getContext());
}
