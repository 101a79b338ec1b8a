//===- TargetLoading.cpp - The target a pass's `target` option names ------===//

#include "passes/TargetLoading.h"

namespace rt = ::neuron::rt;

absl::StatusOr<mlir::neuron::LoadedTarget>
mlir::neuron::loadTarget(const std::string &spec, const std::string &dir) {
  absl::StatusOr<rt::TargetRegistry> registry =
      dir.empty() ? rt::TargetRegistry::loadBuiltin()
                  : rt::TargetRegistry::loadDirectory(dir);
  if (!registry.ok())
    return registry.status();
  LoadedTarget loaded{*std::move(registry), {}};
  absl::StatusOr<rt::ResolvedTarget> target = loaded.registry.resolve(spec);
  if (!target.ok())
    return target.status();
  loaded.target = *target;
  return loaded;
}
