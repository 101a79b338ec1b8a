//===- Passes.h - neuron-mlir conversion passes ----------------*- C++ -*-===//

#ifndef NEURON_LOWERING_PASSES_H
#define NEURON_LOWERING_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::neuron {

/// Replaces every neuron op nested in `root` (host_call, fusion and yield
/// excepted) with upstream ops (ConvertNeuronToLinalg's description); an op
/// it cannot lower is a located error.
LogicalResult lowerNeuronOpsToLinalg(Operation *root);

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

/// Adds a compile's tiling stages to `pm`: convert-neuron-to-nisa with
/// `convert`, then nisa-allocate with its `buffers` and nisa-schedule on its
/// target. neuron-kernels runs them so, and the matmul plan search compiles
/// its probes so.
void addTilingPasses(OpPassManager &pm,
                     const ConvertNeuronToNisaOptions &convert);

} // namespace mlir::neuron

#endif // NEURON_LOWERING_PASSES_H
