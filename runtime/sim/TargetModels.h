//===- TargetModels.h - The target an executable was compiled for -*- C++ -*-===//
//
// The target an executable's manifest records (`target.spec`), resolved
// against the built-in descriptions, with the cost model its timing runs on
// and, for a program with collectives, the link model: what neuron-run and
// the runtime's C API time a program with.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_TARGETMODELS_H
#define NEURON_RUNTIME_SIM_TARGETMODELS_H

#include "runtime/sim/Program.h"
#include "runtime/sim/Timing.h"
#include "runtime/target/CostModel.h"
#include "runtime/target/Target.h"

#include "absl/status/statusor.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

namespace neuron::rt {

struct TargetModels {
  /// Owns what `target` points into.
  TargetRegistry registry;
  ResolvedTarget target;
  CostModel cost;
  /// For a program with collectives.
  std::optional<CollectiveLinks> links;
};

/// The target spec `manifest` records (`target.spec`), or "" when it has
/// none or it is not a string.
std::string targetSpecOf(const nlohmann::json &manifest);

/// `manifest`'s target record as it is (null when absent): what a profile
/// copies.
nlohmann::json targetRecordOf(const nlohmann::json &manifest);

/// The models of `manifest`'s target, with the link model when `program`
/// has collective steps. Errors: InvalidArgument without a target.spec or
/// for a spec the built-in descriptions do not resolve; those of the
/// models.
absl::StatusOr<TargetModels> targetModelsOf(const nlohmann::json &manifest,
                                            const Program &program);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_TARGETMODELS_H
