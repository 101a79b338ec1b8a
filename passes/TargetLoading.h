//===- TargetLoading.h - The target a pass compiles for -------*- C++ -*-===//
//
// Every pass that needs the target reads the module's `neuron.target`
// attribute; a pass's `target` option, empty by default, serves modules
// without one and must otherwise name the module's target.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_TARGETLOADING_H
#define NEURON_PASSES_TARGETLOADING_H

#include "runtime/target/CostModel.h"
#include "runtime/target/Target.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::neuron {

/// A resolved target with the registry its pointers point into (the
/// registry keeps its descriptions on the heap, so both move together).
struct LoadedTarget {
  ::neuron::rt::TargetRegistry registry;
  ::neuron::rt::ResolvedTarget target;
};

/// The target `pass` compiles `module` for, resolved against the built-in
/// descriptions, or those of `dir` when it is not empty: the module's
/// `neuron.target`; without one, `option`, or `fallback` when the option is
/// empty. A non-empty option that resolves to another target than the
/// module's is an error. Errors are emitted at the module.
FailureOr<LoadedTarget> loadTarget(ModuleOp module, StringRef pass,
                                   StringRef option, StringRef dir,
                                   StringRef fallback = "trn2");

/// The cost model of `target` for `pass`; failure after an error at
/// `module` naming the figure the target lacks.
FailureOr<::neuron::rt::CostModel>
loadCostModel(ModuleOp module, StringRef pass,
              const ::neuron::rt::ResolvedTarget &target);

/// `target` as coverage reports and executables record it: spec, chip,
/// generation, instance ("" without one), lnc and its definition.
nlohmann::ordered_json targetRecord(const ::neuron::rt::ResolvedTarget &target);

/// Writes `target` on `module` as its `neuron.target`.
void setModuleTarget(ModuleOp module,
                     const ::neuron::rt::ResolvedTarget &target);

} // namespace mlir::neuron

#endif // NEURON_PASSES_TARGETLOADING_H
