//===- FuzzProgram.cpp - What the program fuzzers do with a program -------===//

#include "test/fuzz/FuzzProgram.h"

#include "runtime/format/Buckets.h"
#include "runtime/sim/Program.h"
#include "runtime/sim/Simulator.h"
#include "runtime/sim/Spmd.h"
#include "runtime/sim/Timing.h"
#include "runtime/target/CostModel.h"
#include "runtime/target/Target.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <optional>

namespace neuron::rt::fuzz {

/// Programs run only up to these sizes (summed over ranks), so that every
/// input takes milliseconds and little memory: larger ones are read and
/// validated, not run.
static constexpr int64_t kMaxDynamicInstructions = 20000;
static constexpr int64_t kMaxTensorBytes = int64_t(4) << 20;
static constexpr int64_t kMaxOnChipBytes = int64_t(16) << 20;
static constexpr int64_t kMaxRanks = 8;

/// The trn2 cost model; the built-in descriptions always load.
static const CostModel &trn2Model() {
  static const CostModel model = [] {
    absl::StatusOr<TargetRegistry> registry = TargetRegistry::loadBuiltin();
    absl::StatusOr<ResolvedTarget> target =
        registry.ok() ? registry->resolve("trn2")
                      : absl::StatusOr<ResolvedTarget>(registry.status());
    absl::StatusOr<CostModel> cost =
        target.ok() ? CostModel::forTarget(*target)
                    : absl::StatusOr<CostModel>(target.status());
    if (!cost.ok())
      std::abort();
    return *std::move(cost);
  }();
  return model;
}

/// Whether `program` runs within the limits above on all its ranks.
static bool smallEnough(const Program &program) {
  int64_t ranks = program.ranks();
  if (ranks > kMaxRanks)
    return false;
  int64_t instructions = 0, onChip = 0;
  for (const Kernel &kernel : program.kernels) {
    instructions += kernel.dynamicInstructions() * ranks;
    onChip += kernel.limits.partitions *
              (kernel.limits.sbufBytes + kernel.limits.psumBytes);
    if (instructions > kMaxDynamicInstructions || onChip > kMaxOnChipBytes)
      return false;
  }
  int64_t bytes = 0;
  for (const TensorDesc &t : program.tensors) {
    bytes += t.elements * elementBytes(t.dtype) * ranks;
    if (bytes > kMaxTensorBytes)
      return false;
  }
  return true;
}

/// One program's manifest: validated, timed and run on zero inputs.
static void exerciseProgram(const nlohmann::json &manifest) {
  absl::StatusOr<Program> program = parseProgram(manifest);
  if (!program.ok() || !smallEnough(*program))
    return;
  (void)simulateProgramTiming(*program, trn2Model());

  std::vector<Tensor> inputs;
  for (const IoBinding &io : program->inputs) {
    const TensorDesc &desc = program->tensors[io.tensor];
    Tensor t{std::string(dtypeName(desc.dtype)), wholeShape(*program, io), {}};
    int64_t elements = 1;
    for (int64_t d : t.shape)
      elements *= d;
    t.data.assign(elements * elementBytes(desc.dtype), 0);
    inputs.push_back(std::move(t));
  }
  DeviceOptions options;
  options.hbmBytes = kMaxTensorBytes;
  if (program->isSpmd())
    (void)runSpmd(*program, std::move(inputs), nullptr, options);
  else
    (void)Device(options).run(*program, std::move(inputs));
}

void exerciseManifest(const nlohmann::json &manifest) {
  // An executable of shape buckets: each bucket's program.
  absl::StatusOr<std::optional<Buckets>> buckets = readBuckets(manifest);
  if (buckets.ok() && *buckets) {
    for (size_t i = 0; i < (*buckets)->sizes.size(); ++i)
      exerciseProgram(bucketManifest(manifest, i));
    return;
  }
  exerciseProgram(manifest);
}

} // namespace neuron::rt::fuzz
