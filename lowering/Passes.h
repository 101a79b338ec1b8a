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

namespace mlir::neuron {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

} // namespace mlir::neuron

#endif // NEURON_LOWERING_PASSES_H
