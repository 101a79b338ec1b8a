//===- Passes.h - neuron-mlir conversion passes ----------------*- C++ -*-===//

#ifndef NEURON_LOWERING_PASSES_H
#define NEURON_LOWERING_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::neuron {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

} // namespace mlir::neuron

#endif // NEURON_LOWERING_PASSES_H
