//===- TargetModels.cpp - The target an executable was compiled for -------===//

#include "runtime/sim/TargetModels.h"

#include "runtime/target/CollectiveModel.h"
#include "runtime/support/StatusMacros.h"

#include <nlohmann/json.hpp>

#include <string>

namespace neuron::rt {

std::string targetSpecOf(const nlohmann::json &manifest) {
  const nlohmann::json *target =
      manifest.contains("target") ? &manifest["target"] : nullptr;
  if (!target || !target->is_object() || !target->contains("spec") ||
      !(*target)["spec"].is_string())
    return "";
  return (*target)["spec"].get<std::string>();
}

nlohmann::json targetRecordOf(const nlohmann::json &manifest) {
  return manifest.contains("target") ? manifest["target"] : nlohmann::json();
}

absl::StatusOr<TargetModels> targetModelsOf(const nlohmann::json &manifest,
                                            const Program &program) {
  std::string spec = targetSpecOf(manifest);
  if (spec.empty())
    return absl::InvalidArgumentError(
        "timing needs the manifest's target.spec (a target spec string), "
        "found none");
  NEURON_ASSIGN_OR_RETURN(registry, TargetRegistry::loadBuiltin());
  absl::StatusOr<ResolvedTarget> resolved = registry.resolve(spec);
  if (!resolved.ok())
    return absl::InvalidArgumentError("timing: target '" + spec + "': " +
                                      std::string(resolved.status().message()));
  NEURON_ASSIGN_OR_RETURN(cost, CostModel::forTarget(*resolved));
  TargetModels models{std::move(registry), *resolved, std::move(cost),
                      std::nullopt};
  bool collectives = false;
  for (const Step &step : program.steps)
    collectives |= step.isCollective();
  if (!collectives)
    return models;
  NEURON_ASSIGN_OR_RETURN(links, CollectiveModel::forTarget(*resolved));
  models.links = CollectiveLinks{std::move(links),
                                 resolved->logicalCoresPerChip()};
  return models;
}

} // namespace neuron::rt
