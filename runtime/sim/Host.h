//===- Host.h - Reference kernels for host_call steps -----------*- C++ -*-===//
//
// A host_call step's `reference` (docs/executable.md): the region the target
// cannot run, written by the compiler as a small value-numbered program that
// the runtime interprets without MLIR. Tensor values come from the step's
// inputs, constants, empty tensors, reshapes and linalg-style generics whose
// bodies are arith/math scalar ops; a generic's indexing maps are affine maps
// whose results are linear combinations of the loop indices plus a constant.
//
// parseHostReference checks every id, dtype, shape, operand count and type,
// and the range of every indexing map over its loops, so runHostReference
// needs no bounds checks.
//
// Numerics follow MLIR's arith semantics: integers are int64_t, wrapped to
// their width after every op (two's complement; i1 is one bit, 1 in memory);
// floats are doubles rounded to their dtype after every op, as the
// simulator rounds on store (runtime/sim/Numerics.h). What arith leaves
// undefined is defined here: division by zero gives 0, a shift by the width
// or more gives 0 (the sign for shrsi), fptosi truncates toward zero and
// wraps (NaN and infinities give 0), as the device's conversions do.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_HOST_H
#define NEURON_RUNTIME_SIM_HOST_H

#include "runtime/sim/Numerics.h"

#include "absl/status/statusor.h"
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace neuron::rt {

struct Step;
struct TensorDesc;

/// A value of a host region: a tensor or a scalar.
struct HostValue {
  DType dtype = DType::F32;
  bool isTensor = false;
  /// A tensor's extents (positive; empty for rank 0).
  std::vector<int64_t> shape;
  /// Product of `shape` (1 for a scalar).
  int64_t elements = 1;
};

/// One scalar: `i` for an integer dtype (sign-extended from its width), `f`
/// for a float dtype (a value of that dtype).
union HostScalar {
  int64_t i;
  double f;
};

/// Scalar ops, named as in MLIR (`arith.addi`, `math.exp`, `linalg.index`).
enum class ScalarOp {
  Constant,
  Index,
  // Integer, two operands of the result's dtype.
  AddI,
  SubI,
  MulI,
  DivSI,
  DivUI,
  RemSI,
  RemUI,
  ShLI,
  ShRSI,
  ShRUI,
  AndI,
  OrI,
  XOrI,
  MaxSI,
  MinSI,
  MaxUI,
  MinUI,
  // Integer, one operand of the result's dtype.
  AbsI,
  // Float, two operands of the result's dtype.
  AddF,
  SubF,
  MulF,
  DivF,
  RemF,
  MaximumF,
  MinimumF,
  MaxNumF,
  MinNumF,
  PowF,
  // Float, one operand of the result's dtype.
  NegF,
  Exp,
  Exp2,
  Log,
  Log2,
  Log1p,
  Tanh,
  Sqrt,
  Rsqrt,
  Erf,
  AbsF,
  Floor,
  Ceil,
  Round,
  RoundEven,
  Sin,
  Cos,
  // Float, three operands of the result's dtype.
  Fma,
  // Conversions.
  ExtSI,
  ExtUI,
  TruncI,
  IndexCast,
  IndexCastUI,
  SIToFP,
  UIToFP,
  FPToSI,
  FPToUI,
  ExtF,
  TruncF,
  // Comparisons (an i1 result) and choice.
  CmpI,
  CmpF,
  Select
};

/// `arith.cmpi` predicates, in MLIR's order.
enum class CmpIPredicate { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge };
/// `arith.cmpf` predicates, in MLIR's order.
enum class CmpFPredicate {
  False,
  Oeq,
  Ogt,
  Oge,
  Olt,
  Ole,
  One,
  Ord,
  Ueq,
  Ugt,
  Uge,
  Ult,
  Ule,
  Une,
  Uno,
  True
};

enum class HostOpKind { Constant, Empty, Reshape, Generic, Scalar };

/// One op of a host region or of a generic's body; only the fields of its
/// kind are meaningful.
struct HostOp {
  HostOpKind kind = HostOpKind::Scalar;
  ScalarOp scalar = ScalarOp::Constant;
  /// Reshape and scalar ops: the operands. Generic: the inputs, then the
  /// outputs (whose contents are the results' initial values).
  std::vector<int64_t> operands;
  int64_t inputs = 0;
  /// One value, or a generic's results (one per output).
  std::vector<int64_t> results;
  /// Constants: one value (a splat) or one per element; or, for a tensor,
  /// the program tensor holding them (-1 otherwise).
  std::vector<HostScalar> values;
  int64_t tensor = -1;
  /// linalg.index: the loop.
  int64_t dim = 0;
  CmpIPredicate cmpi = CmpIPredicate::Eq;
  CmpFPredicate cmpf = CmpFPredicate::False;
  /// Generic: loop extents; per operand one row per dimension, each the
  /// coefficients of the loops then the constant; true for reduction loops.
  std::vector<int64_t> loops;
  std::vector<std::vector<std::vector<int64_t>>> maps;
  std::vector<bool> reduction;
  /// Generic body: one scalar per operand, the ops, one yield per output.
  std::vector<int64_t> arguments;
  std::vector<HostOp> body;
  std::vector<int64_t> yields;
};

/// A host region: values 0..n-1 are its arguments (the step's inputs), the
/// ops define the rest in order, `results` are written to the outputs.
struct HostReference {
  std::vector<HostValue> values;
  std::vector<HostOp> ops;
  std::vector<int64_t> results;
};

/// Reads the `reference` object `node` found at JSON path `path` of a
/// host_call step with `inputs` and `outputs` (program tensor ids, already
/// checked against `tensors`). Errors are InvalidArgument and read
/// "manifest: PATH.FIELD: expected ..., found ...".
absl::StatusOr<HostReference>
parseHostReference(const nlohmann::json &node, const std::string &path,
                   const std::vector<TensorDesc> &tensors,
                   const std::vector<int64_t> &inputs,
                   const std::vector<int64_t> &outputs);

/// Bits of an integer dtype (i1 has 1); 0 for a float.
int integerBits(DType type);

/// Runs the reference of host_call `step`: reads its inputs and the
/// constants it names through `tensorBytes` (the first byte of a program
/// tensor), evaluates, and writes its outputs. Fails only with
/// ResourceExhausted when its values need more than `maxBytes` of host
/// memory (nothing is written then).
absl::Status
runHostReference(const Step &step,
                 const std::function<uint8_t *(int64_t)> &tensorBytes,
                 int64_t maxBytes);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_HOST_H
