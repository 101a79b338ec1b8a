//===- HostOutline.h - outlining unsupported ops to the host ---*- C++ -*-===//

#ifndef NEURON_PASSES_HOSTOUTLINE_H
#define NEURON_PASSES_HOSTOUTLINE_H

#include "dialects/neuron/IR/NeuronOps.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::neuron {

/// Groups the ops of `unsupported` (all in one block) into maximal
/// connected regions that can each become one `neuron.host_call` without a
/// cycle, outlines them, and returns the host calls created. Constants a
/// region uses are copied into it rather than passed in, and so is a pure
/// op of `unsupported` making a scalar from tensors (a position read with
/// tensor.extract), one copy per op using it. Ops whose region would cross
/// a non-tensor value stay where they are.
/// `reasonOf` says why a region goes to the host (its `reason` attribute).
SmallVector<HostCallOp> outlineToHost(
    const llvm::SetVector<Operation *> &unsupported,
    llvm::function_ref<std::string(ArrayRef<Operation *>)> reasonOf);

} // namespace mlir::neuron

#endif // NEURON_PASSES_HOSTOUTLINE_H
