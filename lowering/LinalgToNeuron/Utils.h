//===- Utils.h - shared helpers of the linalg-to-neuron import -*- C++ -*-===//
//
// Moving a linalg operand between its own shape and the shape of the loop
// nest that reads it (transposes, unit-dimension reshapes and broadcasts),
// and recognising constant splats however the frontend spelled them.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_LOWERING_LINALGTONEURON_UTILS_H
#define NEURON_LOWERING_LINALGTONEURON_UTILS_H

#include "dialects/neuron/IR/NeuronDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlir::neuron {

/// The scalar every element of `value` equals, when `value` is a constant
/// splat (arith/neuron constant, linalg.fill of a constant, tensor.splat) or
/// a constant scalar.
std::optional<TypedAttr> getSplatScalar(Value value);

/// `scalar` (a float or integer attribute) converted to the float type
/// `type` with round-to-nearest-even, as arith.truncf/extf/sitofp would.
std::optional<TypedAttr> convertScalar(TypedAttr scalar, Type type);

/// Whether `value` is a splat of `number`; for integers, -inf and +inf
/// stand for the type's signed minimum and maximum (the identities of max
/// and min).
bool isSplatOf(Value value, double number);

/// How a reduction combines a new element with the running value.
enum class Combiner { sum, max, min };

/// The combiner `op` is when a reduction body ends in it (an arith add,
/// max or min), else nothing.
std::optional<Combiner> getCombiner(Operation *op);

/// Whether an accumulator starting from `init` may skip it: `init` is
/// exactly the combiner's `identity` (a -FLT_MAX init is not: it differs
/// from -inf on rows of -inf), or `tensor.empty` (undefined, so any start
/// value, the identity included, is a correct refinement).
bool isIdentityInit(Value init, double identity);

/// A `neuron.constant` splat of `scalar` with the given shape.
Value createSplat(OpBuilder &b, Location loc, TypedAttr scalar,
                  ArrayRef<int64_t> shape);

/// A `neuron.constant` splat of `number` converted to `elementType`.
Value createSplat(OpBuilder &b, Location loc, Type elementType, double number,
                  ArrayRef<int64_t> shape);

/// Whether `toLoopSpace` can express `operand` read through `map`: checked
/// before a rewrite starts so that a pattern never fails half-way.
bool canMapToLoopSpace(Value operand, AffineMap map);

/// Expresses `operand`, read through `map` by a loop nest over `loopShape`,
/// as a tensor over all loops in loop order: constant-0 results on unit
/// dimensions are reshaped away, the remaining dimensions transposed into
/// loop order and missing loops broadcast. Fails on other affine forms.
FailureOr<Value> toLoopSpace(OpBuilder &b, Location loc, Value operand,
                             AffineMap map, ArrayRef<int64_t> loopShape);

/// Expresses `operand`, read through `map`, with its dimensions in the loop
/// order `order`, where -1 inserts a unit dimension. The operand must read
/// exactly the loops named (constant-0 unit dimensions are dropped). Checks
/// everything before creating anything, so failure leaves the IR untouched.
FailureOr<Value> toDimOrder(OpBuilder &b, Location loc, Value operand,
                            AffineMap map, ArrayRef<int64_t> order);

/// Whether `map` writes each loop of `loops` exactly once and nothing else
/// but constant-0 unit dimensions of `shape`: `fromLoopSpace` succeeds then.
bool writesLoops(AffineMap map, ArrayRef<int64_t> shape,
                 ArrayRef<unsigned> loops);

/// The inverse for results: `value` is a tensor over the loops `present`
/// (increasing); returns it shaped as the operand that `map` writes, of type
/// `resultType`. Fails unless `map` names exactly the loops in `present`
/// (plus constant-0 results on unit dimensions).
FailureOr<Value> fromLoopSpace(OpBuilder &b, Location loc, Value value,
                               ArrayRef<unsigned> present, AffineMap map,
                               RankedTensorType resultType);

/// Inserts a `neuron.transpose` unless `permutation` is the identity.
Value transposeIfNeeded(OpBuilder &b, Location loc, Value value,
                        ArrayRef<int64_t> permutation);

/// Inserts a `neuron.reshape` to `shape` unless `value` already has it.
Value reshapeIfNeeded(OpBuilder &b, Location loc, Value value,
                      ArrayRef<int64_t> shape);

/// Inserts a `neuron.cast` to `elementType` unless `value` already has it.
Value castIfNeeded(OpBuilder &b, Location loc, Value value, Type elementType);

/// The sign-preserving integer and index casts (arith.index_cast,
/// arith.extsi) that make `value` from the value before them, outermost
/// first; empty when there are none.
SmallVector<Operation *> integerCasts(Value value);

/// `value` before the casts integerCasts finds.
Value stripIntegerCasts(Value value);

/// The one-element i32 or i64 tensor `scalar` was read from, through
/// sign-preserving integer and index casts: by `tensor.extract` (how
/// exporters read a decode step's position), or as the block argument of a
/// structured op's input that every loop reads whole; null otherwise.
Value positionTensor(Value scalar);

/// Whether the neuron dialect computes in `type` (i1 masks excluded).
bool isNeuronElementType(Type type);

/// The neuron predicate of an arith.cmpf/cmpi, ordered and unordered float
/// predicates alike (NaN handling is the target's); none for unsigned ones.
std::optional<neuron::ComparePredicate> getComparePredicate(Operation *op);

/// Whether a truncf rounds to nearest even, as neuron.cast does.
bool isNearestEvenRounding(arith::TruncFOp op);

/// Whether `op` (on scalars or tensors) has a neuron elementwise counterpart
/// and its types are ones neuron computes in.
bool isRaisableElementwise(Operation *op);

/// `extreme` (neuron.max or min of `lhs` and `rhs`, which propagate NaN) as
/// arith.maxnumf and minnumf compute it: where one operand is NaN, the other.
Value ignoreNaN(OpBuilder &b, Location loc, Value extreme, Value lhs,
                Value rhs);

/// `value` with every NaN replaced by `number` (a reduction's identity, so
/// that a NaN-ignoring reduction can be a NaN-propagating one).
Value replaceNaN(OpBuilder &b, Location loc, Value value, double number);

/// Creates the neuron counterpart of `op` at `loc` on tensors of `shape`,
/// with `args` the operands already as tensors. `isRaisableElementwise(op)`
/// must hold.
Value createElementwise(OpBuilder &b, Location loc, Operation *op,
                        ValueRange args, ArrayRef<int64_t> shape);

} // namespace mlir::neuron

#endif // NEURON_LOWERING_LINALGTONEURON_UTILS_H
