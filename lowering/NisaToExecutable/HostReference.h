//===- HostReference.h - A host_call region in the runtime's form -*- C++
//-*-===//
//
// The runtime has no MLIR, so it cannot read a host_call step's region text.
// writeHostReference serialises the region as the step's `reference`
// (docs/executable.md): numbered values, tensor constants, empty tensors,
// reshapes and generics (linalg ops, and the neuron ops that land on the host
// written as generics) whose bodies are arith/math scalar ops.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_LOWERING_NISATOEXECUTABLE_HOSTREFERENCE_H
#define NEURON_LOWERING_NISATOEXECUTABLE_HOSTREFERENCE_H

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace mlir::neuron {

/// Stores a constant too large to inline as a program tensor of kind
/// `constant`; returns its id (failure after an error).
using StoreConstantFn =
    function_ref<FailureOr<int64_t>(Operation *owner, ElementsAttr value)>;

/// The reference form of `op`'s region, named `name` in diagnostics. When an
/// op of the region has no reference kernel, warns at it ("host_call NAME:
/// 'OP' has no reference kernel; ...", at the host call when the op has no
/// location) and returns nullopt: the executable still compiles, without a
/// reference for this step. With `required`, that is an error and a
/// failure. Fails otherwise only when `storeConstant` does.
FailureOr<std::optional<nlohmann::ordered_json>>
writeHostReference(HostCallOp op, StringRef name,
                   StoreConstantFn storeConstant, bool required = false);

} // namespace mlir::neuron

#endif // NEURON_LOWERING_NISATOEXECUTABLE_HOSTREFERENCE_H
