//===- NeuronToLinalg.cpp - neuron ops as upstream ops, for the host ------===//
//
// A host region may hold neuron ops the target cannot run (an op or element
// type it lacks). Before upstream's CPU pipeline compiles the region, each
// becomes what linalg would write for it: a linalg.generic whose body is
// arith/math on elements, or a tensor op for data movement. The semantics
// are the dialect's (NeuronOps.td): i1 orders false below true, casts
// saturate, float to integer truncates toward zero, NaN converts to 0.
//
// Each op is rewritten in place, operands before users, so a pattern sees
// upstream values only.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <numeric>

namespace mlir::neuron {
#define GEN_PASS_DEF_CONVERTNEURONTOLINALG
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

/// `value` as an attribute of scalar type `t`: an integer truncates toward
/// zero, i1 is `value != 0`.
static TypedAttr scalarAttr(Type t, double value) {
  if (isa<FloatType>(t))
    return FloatAttr::get(t, value);
  if (t.isInteger(1))
    return IntegerAttr::get(t, value != 0);
  return IntegerAttr::get(t, int64_t(value));
}

static Value scalarConstant(OpBuilder &b, Location loc, Type t, double value) {
  return arith::ConstantOp::create(b, loc, scalarAttr(t, value));
}

/// The neutral element of a max (`max`) or min reduction over `t`, exact:
/// infinities, an integer type's extremes (i1 orders false below true).
static TypedAttr extremeAttr(Type t, bool max) {
  if (auto f = dyn_cast<FloatType>(t))
    return FloatAttr::get(t, APFloat::getInf(f.getFloatSemantics(), max));
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits == 1)
    return IntegerAttr::get(t, max ? 0 : 1);
  return IntegerAttr::get(t, max ? APInt::getSignedMinValue(bits)
                                 : APInt::getSignedMaxValue(bits));
}

namespace {
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// Builds upstream ops for one neuron op at its location.
class Lowering {
public:
  Lowering(RewriterBase &rewriter, Operation *op)
      : b(rewriter), loc(op->getLoc()), ctx(op->getContext()) {}

  /// A scalar constant of `type` (an integer or float type).
  Value scalar(Type type, double value) {
    return scalarConstant(b, loc, type, value);
  }
  Value constant(TypedAttr value) {
    return arith::ConstantOp::create(b, loc, value);
  }

  Value empty(RankedTensorType type) {
    return tensor::EmptyOp::create(b, loc, type.getShape(),
                                   type.getElementType());
  }

  Value filled(RankedTensorType type, Value value) {
    return linalg::FillOp::create(b, loc, value, empty(type)).getResult(0);
  }

  /// A generic over `loops` writing `init` (type `type`) at `maps.back()`.
  Value generic(RankedTensorType type, ValueRange inputs, Value init,
                ArrayRef<AffineMap> maps,
                ArrayRef<utils::IteratorType> iterators, BodyFn body) {
    return linalg::GenericOp::create(
               b, loc, TypeRange{type}, inputs, ValueRange{init}, maps,
               iterators,
               [&](OpBuilder &nested, Location l, ValueRange args) {
                 linalg::YieldOp::create(nested, l, body(nested, l, args));
               })
        .getResult(0);
  }

  /// An elementwise generic over `type`'s shape; scalar inputs broadcast.
  Value map(RankedTensorType type, ValueRange inputs, BodyFn body) {
    unsigned rank = type.getRank();
    AffineMap id = b.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps(inputs.size() + 1, id);
    return generic(
        type, inputs, empty(type), maps,
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        body);
  }

  /// The map from `rank` loops to `dims` of them (a constant 0 for -1).
  AffineMap project(unsigned rank, ArrayRef<int64_t> dims) {
    SmallVector<AffineExpr> exprs;
    for (int64_t d : dims)
      exprs.push_back(d < 0 ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(d, ctx));
    return AffineMap::get(rank, 0, exprs, ctx);
  }

  /// `x` reduced over `axes` with `combine` from `identity`; the reduced
  /// dimensions are dropped, or kept with size 1 (a reshape after: linalg
  /// verifies no constant in an output's map).
  Value
  reduce(Value x, ArrayRef<int64_t> axes, bool keepDims, Value identity,
         function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
    auto type = cast<RankedTensorType>(x.getType());
    unsigned rank = type.getRank();
    SmallVector<int64_t> outDims, outShape, keptShape;
    SmallVector<utils::IteratorType> iterators;
    for (unsigned d = 0; d < rank; ++d) {
      bool reduced = llvm::is_contained(axes, d);
      iterators.push_back(reduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
      if (!reduced) {
        outDims.push_back(d);
        outShape.push_back(type.getDimSize(d));
      }
      if (!reduced || keepDims)
        keptShape.push_back(reduced ? 1 : type.getDimSize(d));
    }
    auto outType = RankedTensorType::get(outShape, type.getElementType());
    Value r =
        generic(outType, x, filled(outType, identity),
                {b.getMultiDimIdentityMap(rank), project(rank, outDims)},
                iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
                  return combine(nb, l, args[1], args[0]);
                });
    return reshapeTo(r,
                     RankedTensorType::get(keptShape, type.getElementType()));
  }

  /// A tensor of `type` with `x`'s elements in row-major order.
  Value reshapeTo(Value x, RankedTensorType type);

  /// Elementwise over `x`'s shape, with `r` (a reduction of `x` over the
  /// dimensions from `axis` on, those dropped) broadcast along them.
  Value withReduced(Value x, Value r, int64_t axis, BodyFn body) {
    auto type = cast<RankedTensorType>(x.getType());
    unsigned rank = type.getRank();
    SmallVector<int64_t> kept = llvm::to_vector(llvm::seq<int64_t>(0, axis));
    AffineMap id = b.getMultiDimIdentityMap(rank);
    return generic(
        type, {x, r}, empty(type), {id, project(rank, kept), id},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        body);
  }

  RewriterBase &b;
  Location loc;
  MLIRContext *ctx;
};
} // namespace

enum class Combine { add, max, min };

/// `lhs` and `rhs` added, or their max or min: integers signed (i1
/// unsigned: false below true), floats as arith.maximumf and minimumf do
/// (NaN propagates).
static Value combine(OpBuilder &b, Location loc, Combine kind, Value lhs,
                     Value rhs) {
  Type t = lhs.getType();
  bool isInt = t.isIntOrIndex(), isBool = t.isInteger(1);
  switch (kind) {
  case Combine::add:
    return isInt ? Value(arith::AddIOp::create(b, loc, lhs, rhs))
                 : Value(arith::AddFOp::create(b, loc, lhs, rhs));
  case Combine::max:
    return isBool  ? Value(arith::MaxUIOp::create(b, loc, lhs, rhs))
           : isInt ? Value(arith::MaxSIOp::create(b, loc, lhs, rhs))
                   : Value(arith::MaximumFOp::create(b, loc, lhs, rhs));
  case Combine::min:
    return isBool  ? Value(arith::MinUIOp::create(b, loc, lhs, rhs))
           : isInt ? Value(arith::MinSIOp::create(b, loc, lhs, rhs))
                   : Value(arith::MinimumFOp::create(b, loc, lhs, rhs));
  }
  llvm_unreachable("unknown combination");
}

/// `x` of type `from` converted to `to` as neuron.cast defines it.
static Value castScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  bool intFrom = from.isIntOrIndex(), intTo = to.isIntOrIndex();
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    return intFrom
               ? Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                             x, zero))
               : Value(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                             x, zero));
  }
  if (intFrom && intTo) {
    if (to.getIntOrFloatBitWidth() < from.getIntOrFloatBitWidth())
      return arith::TruncIOp::create(b, loc, to, x);
    if (from.isInteger(1))
      return arith::ExtUIOp::create(b, loc, to, x);
    return arith::ExtSIOp::create(b, loc, to, x);
  }
  if (intFrom)
    return from.isInteger(1) ? Value(arith::UIToFPOp::create(b, loc, to, x))
                             : Value(arith::SIToFPOp::create(b, loc, to, x));
  if (intTo) {
    // Saturate: from 2^(bits-1) up, and below -2^(bits-1), the extremes
    // (both bounds are exact in f64, whatever the width); NaN gives 0.
    // fptosi is undefined on all of those, so it converts 0 there.
    Value wide = from.getIntOrFloatBitWidth() < 64
                     ? Value(arith::ExtFOp::create(b, loc, b.getF64Type(), x))
                     : x;
    double limit = std::ldexp(1.0, to.getIntOrFloatBitWidth() - 1);
    auto f64 = [&](double v) {
      return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
    };
    auto compare = [&](arith::CmpFPredicate p, Value bound) -> Value {
      return arith::CmpFOp::create(b, loc, p, wide, bound);
    };
    Value tooBig = compare(arith::CmpFPredicate::OGE, f64(limit));
    Value tooSmall = compare(arith::CmpFPredicate::OLT, f64(-limit));
    Value isNan = compare(arith::CmpFPredicate::UNO, wide);
    Value outside = arith::OrIOp::create(
        b, loc, isNan, arith::OrIOp::create(b, loc, tooBig, tooSmall));
    Value converted = arith::FPToSIOp::create(
        b, loc, to, arith::SelectOp::create(b, loc, outside, f64(0), wide));
    Value high = arith::SelectOp::create(
        b, loc, tooBig,
        arith::ConstantOp::create(b, loc, extremeAttr(to, false)), converted);
    return arith::SelectOp::create(
        b, loc, tooSmall,
        arith::ConstantOp::create(b, loc, extremeAttr(to, true)), high);
  }
  if (to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, x);
  return arith::TruncFOp::create(b, loc, to, x);
}

/// `acc + x * y` in `acc`'s type, `x` and `y` converted to it.
static Value multiplyAccumulate(OpBuilder &b, Location loc, Value acc, Value x,
                                Value y) {
  Type t = acc.getType();
  x = castScalar(b, loc, x, t);
  y = castScalar(b, loc, y, t);
  Value product = t.isIntOrIndex() ? Value(arith::MulIOp::create(b, loc, x, y))
                                   : Value(arith::MulFOp::create(b, loc, x, y));
  return combine(b, loc, Combine::add, acc, product);
}

/// 1 / (1 + e^-x).
static Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = scalarConstant(b, loc, x.getType(), 1);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

/// The element of an elementwise neuron op at `args` (its operands'
/// elements, then the result's).
static Value elementwise(Operation *op, OpBuilder &b, Location loc,
                         ValueRange args) {
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  Type operand = args[0].getType();
  bool isInt = element.isIntOrIndex();
  bool isBool = operand.isInteger(1);
  Value x = args[0];
  auto constant = [&](double v) { return scalarConstant(b, loc, element, v); };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) { return combine(b, loc, Combine::add, x, args[1]); })
      .Case([&](SubOp) -> Value {
        return isInt ? Value(arith::SubIOp::create(b, loc, x, args[1]))
                     : Value(arith::SubFOp::create(b, loc, x, args[1]));
      })
      .Case([&](MulOp) -> Value {
        return isInt ? Value(arith::MulIOp::create(b, loc, x, args[1]))
                     : Value(arith::MulFOp::create(b, loc, x, args[1]));
      })
      .Case([&](DivOp) -> Value {
        return isInt ? Value(arith::DivSIOp::create(b, loc, x, args[1]))
                     : Value(arith::DivFOp::create(b, loc, x, args[1]));
      })
      .Case([&](MaxOp) { return combine(b, loc, Combine::max, x, args[1]); })
      .Case([&](MinOp) { return combine(b, loc, Combine::min, x, args[1]); })
      .Case([&](PowOp) -> Value {
        if (isInt)
          return math::IPowIOp::create(b, loc, x, args[1]);
        return math::PowFOp::create(b, loc, x, args[1]);
      })
      .Case([&](NegOp) -> Value {
        return isInt ? Value(arith::SubIOp::create(b, loc, constant(0), x))
                     : Value(arith::NegFOp::create(b, loc, x));
      })
      .Case([&](AbsOp) -> Value {
        return isInt ? Value(math::AbsIOp::create(b, loc, x))
                     : Value(math::AbsFOp::create(b, loc, x));
      })
      .Case([&](ReluOp) -> Value {
        Value zero = constant(0);
        if (isInt)
          return arith::MaxSIOp::create(b, loc, x, zero);
        // NaN stays NaN, -0 becomes 0, as max(x, 0) on the device.
        Value positive =
            arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT, x, zero);
        return arith::SelectOp::create(b, loc, positive, x, zero);
      })
      .Case([&](ExpOp) { return math::ExpOp::create(b, loc, x); })
      .Case([&](LogOp) { return math::LogOp::create(b, loc, x); })
      .Case([&](TanhOp) { return math::TanhOp::create(b, loc, x); })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, x); })
      .Case([&](RsqrtOp) -> Value {
        return arith::DivFOp::create(b, loc, constant(1),
                                     math::SqrtOp::create(b, loc, x));
      })
      .Case([&](ErfOp) { return math::ErfOp::create(b, loc, x); })
      .Case([&](ReciprocalOp) {
        return arith::DivFOp::create(b, loc, constant(1), x);
      })
      .Case([&](SigmoidOp) { return sigmoid(b, loc, x); })
      .Case([&](SiluOp) {
        return arith::MulFOp::create(b, loc, x, sigmoid(b, loc, x));
      })
      .Case([&](GeluOp g) -> Value {
        Value half = constant(0.5), one = constant(1);
        Value inner;
        if (g.getApproximate() == GeluApproximation::tanh) {
          Value cube = arith::MulFOp::create(
              b, loc, x, arith::MulFOp::create(b, loc, x, x));
          Value poly = arith::AddFOp::create(
              b, loc, x,
              arith::MulFOp::create(b, loc, constant(0.044715), cube));
          inner = math::TanhOp::create(
              b, loc,
              arith::MulFOp::create(b, loc, constant(std::sqrt(2.0 / M_PI)),
                                    poly));
        } else {
          inner = math::ErfOp::create(
              b, loc, arith::MulFOp::create(b, loc, x, constant(M_SQRT1_2)));
        }
        return arith::MulFOp::create(b, loc,
                                     arith::MulFOp::create(b, loc, x, half),
                                     arith::AddFOp::create(b, loc, one, inner));
      })
      .Case([&](CompareOp c) -> Value {
        static constexpr arith::CmpIPredicate kInt[] = {
            arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
            arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
            arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
        static constexpr arith::CmpIPredicate kBool[] = {
            arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
            arith::CmpIPredicate::ult, arith::CmpIPredicate::ule,
            arith::CmpIPredicate::ugt, arith::CmpIPredicate::uge};
        static constexpr arith::CmpFPredicate kFloat[] = {
            arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
            arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
            arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
        int p = int(c.getPredicate());
        if (operand.isIntOrIndex())
          return arith::CmpIOp::create(b, loc, isBool ? kBool[p] : kInt[p], x,
                                       args[1]);
        return arith::CmpFOp::create(b, loc, kFloat[p], x, args[1]);
      })
      .Case([&](SelectOp) {
        return arith::SelectOp::create(b, loc, x, args[1], args[2]);
      })
      .Case([&](CastOp) { return castScalar(b, loc, x, element); })
      .Default([](Operation *) { return Value(); });
}

/// `[B,] M x K` times `[B,] K x N`, widened to the result's element type:
/// loops [B,] M, N, K.
static Value lowerMatmul(Lowering &l, Operation *op, unsigned batch) {
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = result.getElementType();
  unsigned count = batch + 3, m = batch, n = batch + 1, k = batch + 2;
  SmallVector<int64_t> lhs = llvm::to_vector(llvm::seq<int64_t>(0, batch));
  SmallVector<int64_t> rhs = lhs, out = lhs;
  lhs.append({m, k});
  rhs.append({k, n});
  out.append({m, n});
  SmallVector<utils::IteratorType> iterators(count,
                                             utils::IteratorType::parallel);
  iterators.back() = utils::IteratorType::reduction;
  return l.generic(
      result, op->getOperands(), l.filled(result, l.scalar(element, 0)),
      {l.project(count, lhs), l.project(count, rhs), l.project(count, out)},
      iterators, [](OpBuilder &b, Location loc, ValueRange args) {
        return multiplyAccumulate(b, loc, args[2], args[0], args[1]);
      });
}

static Value lowerReduce(Lowering &l, Operation *op, ArrayRef<int64_t> axes,
                         bool keepDims) {
  Value x = op->getOperand(0);
  Type element = getElementTypeOrSelf(x.getType());
  Combine kind = isa<ReduceMaxOp>(op)   ? Combine::max
                 : isa<ReduceMinOp>(op) ? Combine::min
                                        : Combine::add;
  TypedAttr identity = kind == Combine::add
                           ? scalarAttr(element, 0)
                           : extremeAttr(element, kind == Combine::max);
  Value r = l.reduce(x, axes, keepDims, l.constant(identity),
                     [&](OpBuilder &b, Location loc, Value acc, Value v) {
                       return combine(b, loc, kind, acc, v);
                     });
  if (!isa<ReduceMeanOp>(op))
    return r;
  auto shape = cast<RankedTensorType>(x.getType()).getShape();
  double n = 1;
  for (int64_t a : axes)
    n *= shape[a];
  Value count = l.scalar(element, n);
  return l.map(cast<RankedTensorType>(r.getType()), r,
               [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                 if (element.isIntOrIndex())
                   return arith::DivSIOp::create(b, loc, args[0], count);
                 return arith::DivFOp::create(b, loc, args[0], count);
               });
}

/// The sum over dimensions `axis`.. of `f(x)`, those dimensions dropped.
static Value sumFrom(Lowering &l, Value x, int64_t axis, BodyFn f) {
  auto type = cast<RankedTensorType>(x.getType());
  Value mapped = l.map(type, x, f);
  return l.reduce(mapped,
                  llvm::to_vector(llvm::seq<int64_t>(axis, type.getRank())),
                  false, l.scalar(type.getElementType(), 0),
                  [](OpBuilder &b, Location loc, Value acc, Value v) {
                    return combine(b, loc, Combine::add, acc, v);
                  });
}

/// `y * w` (w over the dimensions from `axis`) plus `bias` likewise; either
/// may be null.
static Value scaleAndShift(Lowering &l, Value y, Value w, Value bias,
                           int64_t axis) {
  auto type = cast<RankedTensorType>(y.getType());
  unsigned rank = type.getRank();
  SmallVector<int64_t> trailing =
      llvm::to_vector(llvm::seq<int64_t>(axis, rank));
  AffineMap id = l.b.getMultiDimIdentityMap(rank);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  if (w)
    y = l.generic(type, {y, w}, l.empty(type),
                  {id, l.project(rank, trailing), id}, parallel,
                  [](OpBuilder &b, Location loc, ValueRange a) -> Value {
                    return arith::MulFOp::create(b, loc, a[0], a[1]);
                  });
  if (bias)
    y = l.generic(type, {y, bias}, l.empty(type),
                  {id, l.project(rank, trailing), id}, parallel,
                  [](OpBuilder &b, Location loc, ValueRange a) -> Value {
                    return arith::AddFOp::create(b, loc, a[0], a[1]);
                  });
  return y;
}

/// `x - mean` and `1 / sqrt(mean((x - mean)^2) + eps)` (layer_norm), or `x`
/// and `1 / sqrt(mean(x^2) + eps)` (rms_norm), over the dimensions from
/// `axis`, then `centred * scale`.
static Value normalise(Lowering &l, Value x, int64_t axis, double epsilon,
                       bool centre) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  double n = 1;
  for (int64_t d = axis; d < type.getRank(); ++d)
    n *= type.getDimSize(d);
  Value count = l.scalar(element, n);
  auto identity = [](OpBuilder &, Location, ValueRange a) { return a[0]; };
  if (centre) {
    Value sum = sumFrom(l, x, axis, identity);
    x = l.withReduced(
        x, sum, axis, [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          return arith::SubFOp::create(
              b, loc, a[0], arith::DivFOp::create(b, loc, a[1], count));
        });
  }
  Value squares = sumFrom(
      l, x, axis, [](OpBuilder &b, Location loc, ValueRange a) -> Value {
        return arith::MulFOp::create(b, loc, a[0], a[0]);
      });
  Value eps = l.scalar(element, epsilon), one = l.scalar(element, 1);
  return l.withReduced(
      x, squares, axis, [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Value variance = arith::AddFOp::create(
            b, loc, arith::DivFOp::create(b, loc, a[1], count), eps);
        Value scale = arith::DivFOp::create(
            b, loc, one, math::SqrtOp::create(b, loc, variance));
        return arith::MulFOp::create(b, loc, a[0], scale);
      });
}

static Value lowerSoftmax(Lowering &l, SoftmaxOp op) {
  Value x = op.getInput();
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  int64_t axis = op.getAxis();
  unsigned rank = type.getRank();
  // Reductions over `axis` alone, broadcast back along it.
  SmallVector<int64_t> kept;
  for (unsigned d = 0; d < rank; ++d)
    if (d != axis)
      kept.push_back(d);
  AffineMap id = l.b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps = {id, l.project(rank, kept), id};
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  auto add = [](OpBuilder &b, Location loc, Value acc, Value v) -> Value {
    return arith::AddFOp::create(b, loc, acc, v);
  };
  Value max = l.reduce(x, {axis}, false, l.scalar(element, -INFINITY),
                       [](OpBuilder &b, Location loc, Value acc, Value v) {
                         return arith::MaximumFOp::create(b, loc, acc, v);
                       });
  Value e = l.generic(type, {x, max}, l.empty(type), maps, parallel,
                      [](OpBuilder &b, Location loc, ValueRange a) -> Value {
                        return math::ExpOp::create(
                            b, loc, arith::SubFOp::create(b, loc, a[0], a[1]));
                      });
  Value sum = l.reduce(e, {axis}, false, l.scalar(element, 0), add);
  // The quotient rounded once to the result's element type.
  auto result = cast<RankedTensorType>(op.getType());
  return l.generic(result, {e, sum}, l.empty(result), maps, parallel,
                   [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                     return castScalar(
                         b, loc, arith::DivFOp::create(b, loc, a[0], a[1]),
                         result.getElementType());
                   });
}

Value Lowering::reshapeTo(Value x, RankedTensorType type) {
  auto from = cast<RankedTensorType>(x.getType());
  if (from == type)
    return x;
  auto all = [](int64_t rank) {
    ReassociationIndices r = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    return SmallVector<ReassociationIndices>{r};
  };
  auto flatType =
      RankedTensorType::get({from.getNumElements()}, from.getElementType());
  Value flat = x;
  if (from.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, x,
                                         ArrayRef<ReassociationIndices>{});
  else if (from.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, x, all(from.getRank()));
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat,
                                           ArrayRef<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, type, flat, all(type.getRank()));
}

static Value pad(Lowering &l, Value x, ArrayRef<int64_t> low,
                 ArrayRef<int64_t> high, TypedAttr value) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (auto [d, lo, hi] : llvm::zip(type.getShape(), low, high))
    shape.push_back(d + lo + hi);
  Value v = arith::ConstantOp::create(l.b, l.loc, value);
  return tensor::PadOp::create(
      l.b, l.loc, RankedTensorType::get(shape, type.getElementType()), x,
      getAsIndexOpFoldResult(l.ctx, low), getAsIndexOpFoldResult(l.ctx, high),
      v);
}

/// The image `x` (NCHW when `nchw`, else NHWC) padded by `p` (top, bottom,
/// left, right) with `value`; `x` itself without padding.
static Value padSpatial(Lowering &l, Value x, bool nchw, ArrayRef<int64_t> p,
                        TypedAttr value) {
  if (llvm::all_of(p, [](int64_t v) { return v == 0; }))
    return x;
  SmallVector<int64_t> low(4, 0), high(4, 0);
  unsigned hDim = nchw ? 2 : 1, wDim = nchw ? 3 : 2;
  low[hDim] = p[0], high[hDim] = p[1], low[wDim] = p[2], high[wDim] = p[3];
  return pad(l, x, low, high, value);
}

/// Gathers along `axis`; an index outside the input reads as 0.
static Value lowerGather(Lowering &l, GatherOp op) {
  auto result = cast<RankedTensorType>(op.getType());
  auto input = cast<RankedTensorType>(op.getInput().getType());
  auto indices = cast<RankedTensorType>(op.getIndices().getType());
  int64_t axis = op.getAxis(), idxRank = indices.getRank();
  unsigned rank = result.getRank();
  SmallVector<int64_t> idxDims =
      llvm::to_vector(llvm::seq<int64_t>(axis, axis + idxRank));
  AffineMap id = l.b.getMultiDimIdentityMap(rank);
  Value table = op.getInput();
  int64_t extent = input.getDimSize(axis);
  return l.generic(
      result, op.getIndices(), l.empty(result), {l.project(rank, idxDims), id},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value i = args[0];
        if (!i.getType().isIndex())
          i = arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value size = arith::ConstantIndexOp::create(b, loc, extent);
        Value inside = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, zero),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, size));
        SmallVector<Value> at;
        for (int64_t d = 0; d < input.getRank(); ++d) {
          if (d == axis)
            at.push_back(arith::SelectOp::create(b, loc, inside, i, zero));
          else
            at.push_back(linalg::IndexOp::create(
                b, loc, d < axis ? d : d - 1 + idxRank));
        }
        Value v = tensor::ExtractOp::create(b, loc, table, at);
        Value none = arith::ConstantOp::create(
            b, loc, scalarAttr(result.getElementType(), 0));
        return arith::SelectOp::create(b, loc, inside, v, none);
      });
}

/// Loops (n, oh, ow, f, c, kh, kw) over a padded input. Per layout, the
/// positions of N, C, H, W in the input and of the filter's dimensions.
static Value lowerConv(Lowering &l, Conv2DOp op) {
  auto result = cast<RankedTensorType>(op.getType());
  auto filter = cast<RankedTensorType>(op.getFilter().getType());
  Type element = result.getElementType();
  bool nchw = op.getLayout() == ConvLayout::nchw_fchw;
  ArrayRef<int64_t> p = op.getPadding();
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  Value input = padSpatial(l, op.getInput(), nchw, p,
                           scalarAttr(inType.getElementType(), 0));
  int64_t groups = op.getGroups();
  int64_t f = nchw ? result.getDimSize(1) : result.getDimSize(3);
  int64_t cPerGroup = nchw ? filter.getDimSize(1)
                      : op.getLayout() == ConvLayout::nhwc_hwcf
                          ? filter.getDimSize(2)
                          : filter.getDimSize(3);
  MLIRContext *ctx = l.ctx;
  AffineExpr n = getAffineDimExpr(0, ctx), oh = getAffineDimExpr(1, ctx),
             ow = getAffineDimExpr(2, ctx), fe = getAffineDimExpr(3, ctx),
             c = getAffineDimExpr(4, ctx), kh = getAffineDimExpr(5, ctx),
             kw = getAffineDimExpr(6, ctx);
  ArrayRef<int64_t> s = op.getStrides(), d = op.getDilations();
  AffineExpr h = oh * s[0] + kh * d[0], w = ow * s[1] + kw * d[1];
  AffineExpr channel = fe.floorDiv(f / groups) * cPerGroup + c;
  SmallVector<AffineExpr> in = nchw ? SmallVector<AffineExpr>{n, channel, h, w}
                                    : SmallVector<AffineExpr>{n, h, w, channel};
  SmallVector<AffineExpr> fil;
  switch (op.getLayout()) {
  case ConvLayout::nchw_fchw:
    fil = {fe, c, kh, kw};
    break;
  case ConvLayout::nhwc_hwcf:
    fil = {kh, kw, c, fe};
    break;
  case ConvLayout::nhwc_fhwc:
    fil = {fe, kh, kw, c};
    break;
  }
  SmallVector<AffineExpr> out = nchw ? SmallVector<AffineExpr>{n, fe, oh, ow}
                                     : SmallVector<AffineExpr>{n, oh, ow, fe};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  auto map = [&](ArrayRef<AffineExpr> e) {
    return AffineMap::get(7, 0, e, ctx);
  };
  Value conv = l.generic(result, {input, op.getFilter()},
                         l.filled(result, l.scalar(element, 0)),
                         {map(in), map(fil), map(out)}, iterators,
                         [](OpBuilder &b, Location loc, ValueRange a) {
                           return multiplyAccumulate(b, loc, a[2], a[0], a[1]);
                         });
  if (!op.getBias())
    return conv;
  unsigned fDim = nchw ? 1 : 3;
  AffineMap id = l.b.getMultiDimIdentityMap(4);
  return l.generic(
      result, {conv, op.getBias()}, l.empty(result),
      {id, l.project(4, {fDim}), id},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        return combine(b, loc, Combine::add, a[0],
                       castScalar(b, loc, a[1], element));
      });
}

/// Loops (n, c, oh, ow, kh, kw) (nchw) or (n, oh, ow, c, kh, kw) (nhwc). A
/// padded element never wins a max; `avg` divides by the window's elements
/// inside the input unless `count_include_pad`.
static Value lowerPool(Lowering &l, Pool2DOp op) {
  auto result = cast<RankedTensorType>(op.getType());
  auto inType = cast<RankedTensorType>(op.getInput().getType());
  Type element = result.getElementType();
  bool nchw = op.getLayout() == ImageLayout::nchw;
  bool isMax = op.getKind() == PoolKind::max;
  ArrayRef<int64_t> p = op.getPadding(), s = op.getStrides(),
                    dil = op.getDilations(), k = op.getKernel();
  unsigned hDim = nchw ? 2 : 1, wDim = nchw ? 3 : 2;
  TypedAttr fill =
      isMax ? extremeAttr(element, /*max=*/true) : scalarAttr(element, 0);
  Value input = padSpatial(l, op.getInput(), nchw, p, fill);
  MLIRContext *ctx = l.ctx;
  auto dim = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  AffineExpr kh = dim(4), kw = dim(5);
  AffineExpr oh = dim(hDim), ow = dim(wDim);
  SmallVector<AffineExpr> in = {dim(0), dim(1), dim(2), dim(3)};
  in[hDim] = oh * s[0] + kh * dil[0];
  in[wDim] = ow * s[1] + kw * dil[1];
  SmallVector<AffineExpr> out = {dim(0), dim(1), dim(2), dim(3)};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  bool isInt = element.isIntOrIndex();
  // A window operand makes the loops over the kernel appear alone in a map
  // (linalg requires the maps to determine every loop), as linalg's pooling
  // ops do; its elements are never read.
  Value window = tensor::EmptyOp::create(l.b, l.loc, k, element);
  Value pooled = l.generic(
      result, {input, window}, l.filled(result, l.constant(fill)),
      {AffineMap::get(6, 0, in, ctx), AffineMap::get(6, 0, {kh, kw}, ctx),
       AffineMap::get(6, 0, out, ctx)},
      iterators, [&](OpBuilder &b, Location loc, ValueRange a) {
        return combine(b, loc, isMax ? Combine::max : Combine::add, a[2], a[0]);
      });
  if (op.getKind() != PoolKind::avg)
    return pooled;
  // The divisor of each output: the window's size, or the part of it inside
  // the input, from the output's position.
  int64_t height = inType.getDimSize(hDim), width = inType.getDimSize(wDim);
  bool includePad = op.getCountIncludePad();
  return l.map(
      result, pooled, [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        auto inside = [&](unsigned d, int64_t stride, int64_t dilation,
                          int64_t kernel, int64_t before,
                          int64_t extent) -> Value {
          if (includePad)
            return arith::ConstantIndexOp::create(b, loc, kernel);
          // Count taps t in [0, kernel) with 0 <= o*s + t*dil -
          // before < extent.
          Value o = linalg::IndexOp::create(b, loc, d);
          Value count = arith::ConstantIndexOp::create(b, loc, 0);
          for (int64_t t = 0; t < kernel; ++t) {
            Value pos = arith::AddIOp::create(
                b, loc,
                arith::MulIOp::create(
                    b, loc, o, arith::ConstantIndexOp::create(b, loc, stride)),
                arith::ConstantIndexOp::create(b, loc, t * dilation - before));
            Value ok = arith::AndIOp::create(
                b, loc,
                arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::sge, pos,
                    arith::ConstantIndexOp::create(b, loc, 0)),
                arith::CmpIOp::create(
                    b, loc, arith::CmpIPredicate::slt, pos,
                    arith::ConstantIndexOp::create(b, loc, extent)));
            count = arith::AddIOp::create(
                b, loc, count,
                arith::IndexCastOp::create(
                    b, loc, b.getIndexType(),
                    arith::ExtUIOp::create(b, loc, b.getI64Type(), ok)));
          }
          return count;
        };
        Value n = arith::MulIOp::create(
            b, loc, inside(hDim, s[0], dil[0], k[0], p[0], height),
            inside(wDim, s[1], dil[1], k[1], p[2], width));
        Value n64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), n);
        if (isInt)
          return arith::DivSIOp::create(b, loc, a[0],
                                        castScalar(b, loc, n64, element));
        return arith::DivFOp::create(
            b, loc, a[0], arith::SIToFPOp::create(b, loc, element, n64));
      });
}

/// The upstream form of neuron op `op`, or null for an op this does not
/// lower (a kernel-level op, say).
static Value lower(RewriterBase &rewriter, Operation *op) {
  Lowering l(rewriter, op);
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, NegOp, AbsOp, ReluOp,
          ExpOp, LogOp, TanhOp, SqrtOp, RsqrtOp, ErfOp, ReciprocalOp, SigmoidOp,
          SiluOp, GeluOp, CompareOp, SelectOp, CastOp>(op)) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    return l.map(type, op->getOperands(),
                 [&](OpBuilder &b, Location loc, ValueRange args) {
                   return elementwise(op, b, loc, args);
                 });
  }
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](ConstantOp c) -> Value {
        return arith::ConstantOp::create(rewriter, l.loc,
                                         cast<TypedAttr>(c.getValue()));
      })
      .Case([&](MatmulOp) { return lowerMatmul(l, op, 0); })
      .Case([&](BatchMatmulOp) { return lowerMatmul(l, op, 1); })
      .Case<ReduceSumOp, ReduceMaxOp, ReduceMinOp, ReduceMeanOp>([&](auto r) {
        return lowerReduce(l, op, r.getAxes(), r.getKeepDims());
      })
      .Case([&](SoftmaxOp s) { return lowerSoftmax(l, s); })
      .Case([&](LayerNormOp n) {
        Value y = normalise(l, n.getInput(), n.getAxis(),
                            n.getEpsilon().convertToDouble(), true);
        return scaleAndShift(l, y, n.getWeight(), n.getBias(), n.getAxis());
      })
      .Case([&](RmsNormOp n) {
        Value y = normalise(l, n.getInput(), n.getAxis(),
                            n.getEpsilon().convertToDouble(), false);
        return scaleAndShift(l, y, n.getWeight(), nullptr, n.getAxis());
      })
      .Case([&](TransposeOp t) -> Value {
        auto type = cast<RankedTensorType>(t.getType());
        return linalg::TransposeOp::create(rewriter, l.loc, t.getInput(),
                                           l.empty(type), t.getPermutation())
            .getResult()[0];
      })
      .Case([&](BroadcastOp bc) {
        auto type = cast<RankedTensorType>(bc.getType());
        auto input = cast<RankedTensorType>(bc.getInput().getType());
        unsigned rank = type.getRank();
        SmallVector<int64_t> dims;
        for (auto [i, d] : llvm::enumerate(bc.getDimensions()))
          dims.push_back(
              input.getDimSize(i) == 1 && type.getDimSize(d) != 1 ? -1 : d);
        return l.generic(
            type, bc.getInput(), l.empty(type),
            {l.project(rank, dims), rewriter.getMultiDimIdentityMap(rank)},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [](OpBuilder &, Location, ValueRange a) { return a[0]; });
      })
      .Case([&](ReshapeOp r) {
        return l.reshapeTo(r.getInput(), cast<RankedTensorType>(r.getType()));
      })
      .Case([&](SliceOp s) -> Value {
        auto type = cast<RankedTensorType>(s.getType());
        return tensor::ExtractSliceOp::create(
            rewriter, l.loc, type, s.getInput(), ValueRange{}, ValueRange{},
            ValueRange{}, rewriter.getDenseI64ArrayAttr(s.getOffsets()),
            rewriter.getDenseI64ArrayAttr(type.getShape()),
            rewriter.getDenseI64ArrayAttr(s.getStrides()));
      })
      .Case([&](ConcatOp c) -> Value {
        auto type = cast<RankedTensorType>(c.getType());
        Value result = l.empty(type);
        int64_t offset = 0;
        for (Value in : c.getInputs()) {
          auto inType = cast<RankedTensorType>(in.getType());
          SmallVector<int64_t> offsets(type.getRank(), 0),
              strides(type.getRank(), 1);
          offsets[c.getAxis()] = offset;
          offset += inType.getDimSize(c.getAxis());
          result = tensor::InsertSliceOp::create(
              rewriter, l.loc, in, result, ValueRange{}, ValueRange{},
              ValueRange{}, rewriter.getDenseI64ArrayAttr(offsets),
              rewriter.getDenseI64ArrayAttr(inType.getShape()),
              rewriter.getDenseI64ArrayAttr(strides));
        }
        return result;
      })
      .Case([&](PadOp p) {
        auto type = cast<RankedTensorType>(p.getType());
        return pad(
            l, p.getInput(), p.getLow(), p.getHigh(),
            scalarAttr(type.getElementType(), p.getValue().convertToDouble()));
      })
      .Case([&](GatherOp g) { return lowerGather(l, g); })
      .Case([&](Conv2DOp c) { return lowerConv(l, c); })
      .Case([&](Pool2DOp p) { return lowerPool(l, p); })
      .Default([](Operation *) { return Value(); });
}

LogicalResult mlir::neuron::lowerNeuronOpsToLinalg(Operation *root) {
  IRRewriter rewriter(root->getContext());
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (op != root && isa<NeuronDialect>(op->getDialect()) &&
        !isa<YieldOp, HostCallOp, FusionOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    Value replacement = lower(rewriter, op);
    if (!replacement)
      return op->emitError()
             << "'" << op->getName() << "' has no lowering for the host";
    rewriter.replaceOp(op, replacement);
  }
  return success();
}

namespace {
struct ConvertNeuronToLinalg
    : neuron::impl::ConvertNeuronToLinalgBase<ConvertNeuronToLinalg> {
  void runOnOperation() override {
    if (failed(lowerNeuronOpsToLinalg(getOperation())))
      signalPassFailure();
  }
};
} // namespace
