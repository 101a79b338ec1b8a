//===- Passes.h - neuron-mlir conversion passes ----------------*- C++ -*-===//

#ifndef NEURON_LOWERING_PASSES_H
#define NEURON_LOWERING_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::nisa {
class NisaDialect;
} // namespace mlir::nisa
namespace mlir::memref {
class MemRefDialect;
} // namespace mlir::memref
namespace mlir::func {
class FuncDialect;
} // namespace mlir::func
namespace mlir::affine {
class AffineDialect;
} // namespace mlir::affine

namespace mlir::arith {
class ArithDialect;
} // namespace mlir::arith
namespace mlir::linalg {
class LinalgDialect;
} // namespace mlir::linalg
namespace mlir::math {
class MathDialect;
} // namespace mlir::math
namespace mlir::tensor {
class TensorDialect;
} // namespace mlir::tensor

namespace mlir::neuron {

/// Replaces every neuron op nested in `root` (host_call, fusion and yield
/// excepted) with upstream ops (ConvertNeuronToLinalg's description); an op
/// it cannot lower is a located error.
LogicalResult lowerNeuronOpsToLinalg(Operation *root);

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

} // namespace mlir::neuron

#endif // NEURON_LOWERING_PASSES_H
