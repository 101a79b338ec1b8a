//===- Passes.h - neuron-mlir transformation passes ------------*- C++ -*-===//

#ifndef NEURON_PASSES_PASSES_H
#define NEURON_PASSES_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::neuron {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::neuron

#endif // NEURON_PASSES_PASSES_H
