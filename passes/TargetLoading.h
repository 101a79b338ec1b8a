//===- TargetLoading.h - The target a pass's `target` option names -*- C++ -*-//

#ifndef NEURON_PASSES_TARGETLOADING_H
#define NEURON_PASSES_TARGETLOADING_H

#include "runtime/target/Target.h"

#include "absl/status/statusor.h"

#include <string>

namespace mlir::neuron {

/// A resolved target with the registry its pointers point into (the
/// registry keeps its descriptions on the heap, so both move together).
struct LoadedTarget {
  ::neuron::rt::TargetRegistry registry;
  ::neuron::rt::ResolvedTarget target;
};

/// Resolves `spec` against the built-in descriptions, or those of `dir`
/// when it is not empty.
absl::StatusOr<LoadedTarget> loadTarget(const std::string &spec,
                                        const std::string &dir);

} // namespace mlir::neuron

#endif // NEURON_PASSES_TARGETLOADING_H
