//===- Timing.h - Event-driven timing of a program --------------*- C++ -*-===//
//
// How long a validated Program takes on one NeuronCore, independent of the
// data: every instruction keeps its unit (engine or DMA queue) busy for the
// time the shared cost model (runtime/target/CostModel.h) gives it, units
// run their instructions in list order and synchronise through the
// semaphores of docs/executable.md ("Schedule and synchronisation"), and
// DMA transfers in flight share the core's HBM bandwidth. Loops run as the
// hardware runs them: each unit walks its own instructions through the
// kernel's loops, one instance at a time, never expanding them in memory. A
// kernel without a schedule runs its instructions one after another.
//
// An SPMD program runs on every rank of its grid, each with its own clock
// advancing by its steps' times. A collective starts at the latest of its
// group's clocks at the start step and of their collective engines (one per
// rank: a rank's collectives run one after another), takes the alpha-beta
// time of runtime/target/CollectiveModel.h, and its done moves each rank's
// clock to the collective's finish if that is later: the steps between
// start and done overlap it. A launch that awaits a collective is timed
// with its reads of the result held until the collective finishes.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_TIMING_H
#define NEURON_RUNTIME_SIM_TIMING_H

#include "runtime/sim/Program.h"
#include "runtime/target/CollectiveModel.h"
#include "runtime/target/CostModel.h"

#include "absl/status/statusor.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace neuron::rt {

/// The cost-model query of `inst`: its op with its destination and its
/// main source (docs of costQueryFor). The one place an Instruction meets
/// the cost model.
CostQuery costQueryOf(const Instruction &inst);

/// The time `inst` keeps its unit busy when it runs alone.
double durationNs(const Instruction &inst, const CostModel &model);

/// The engine class of unit `unit` (the DMA queues are one class).
EngineClass classOfUnit(int64_t unit);

/// Work runs on lanes: each physical core of the logical core has
/// lanesPerCore(model) of them, its four engines and then its DMA engines;
/// lane L is lane L % lanesPerCore of physical core L / lanesPerCore.
int64_t lanesPerCore(const CostModel &model);
/// The lane unit `unit` names (an engine's own; DMA queue Q's is the
/// core's DMA engine Q, where a predicted transfer is drawn), or -1 when
/// the model has no such lane.
int64_t laneOfUnit(int64_t unit, const CostModel &model);
/// The unit whose lane `lane` is (DMA engine E as DMA queue E).
int64_t unitOfLane(int64_t lane, const CostModel &model);
/// "tensor", "dma3" (DMA engine 3), "tensor@1", ...
std::string laneName(int64_t lane, const CostModel &model);
EngineClass classOfLane(int64_t lane, const CostModel &model);

/// One instance of an instruction as it ran: which of the instruction's
/// instances (in program order), and on which lane (its engine, or the DMA
/// engine that moved it).
struct TimedInstance {
  int64_t instruction = 0;
  double startNs = 0, endNs = 0;
  int64_t lane = 0;
  int64_t instance = 0;
};

/// What a timing run keeps besides the totals.
struct TimingOptions {
  /// Instances recorded one by one (for traces, timelines and the order
  /// check), the first ones to end; the rest are only counted.
  int64_t recordInstances = int64_t(1) << 20;
  /// Host compute of host_call steps by step index, as a functional run
  /// measured it (per rank); a step without one counts its transfers only.
  std::map<size_t, double> hostComputeNs;
  /// Per instruction of the kernel simulated (empty: none; another count
  /// is an error): the earliest time, from the kernel's start, any
  /// instance of it may start. simulateProgramTiming sets it per launch: a
  /// launch that awaits a collective inside gives its reads of the
  /// collective's result the time the collective finishes.
  std::vector<double> releaseNs;
};

/// One host_call step: its inputs and results over the host link, and its
/// host compute when measured.
struct HostCallTiming {
  int64_t step = 0;
  int64_t bytes = 0;
  double transferNs = 0;
  std::optional<double> computeNs;
  double ns() const { return transferNs + computeNs.value_or(0); }
};

/// The observed timing of one kernel, from its start.
struct KernelTiming {
  /// Per instruction: when its first instance started and its last ended
  /// (the instance's times outside loops).
  std::vector<double> startNs, endNs;
  /// Per instruction: how many instances ran and their summed time.
  std::vector<int64_t> instances;
  std::vector<double> instructionBusyNs;
  /// Instances in order of their end, up to TimingOptions::recordInstances;
  /// `unrecorded` counts the others.
  std::vector<TimedInstance> recorded;
  int64_t unrecorded = 0;
  /// Instructions run, every instance counted.
  int64_t dynamicInstructions = 0;
  /// Per lane (of every physical core the kernel runs on): time running an
  /// instruction.
  std::vector<double> unitBusyNs;
  /// Per engine class (EngineClass order); Dma summed over the queues.
  std::array<double, kEngineClasses> busyNs{};
  /// The makespan: the last instruction's end.
  double observedNs = 0;
};

/// Simulates `kernel`. Errors: InvalidArgument for a dma_copy on a queue
/// the model does not have or a kernel on more physical cores than the
/// model's logical core has; FailedPrecondition on a deadlock (instructions
/// remain but every unit waits), naming the kernel, each blocked unit's
/// next instruction and the semaphore it waits for.
absl::StatusOr<KernelTiming>
simulateKernelTiming(const Kernel &kernel, const CostModel &model,
                     const TimingOptions &options = {});

/// One program step on the program's clock.
struct StepTiming {
  double startNs = 0, durationNs = 0;
};

/// One collective, from its start step to its done step.
struct CollectiveTiming {
  int64_t startStep = 0, doneStep = 0;
  /// What was timed: bytes, group size and chips spanned; the algorithm and
  /// chunks the compiler chose (the model's choice when it recorded none or
  /// one that does not apply to this group).
  CollectiveQuery query;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  int chunks = 1;
  /// The model's time of the collective.
  double ns = 0;
  /// Per rank: when its group's collective starts and finishes, how long the
  /// rank waits for it at the done step, and how much of it overlaps the
  /// rank's steps between start and done.
  std::vector<double> startNs, finishNs, exposedNs, overlapNs;
};

struct ProgramTiming {
  /// Per kernel of the program (a kernel's time does not depend on its
  /// bindings, so every launch takes the same).
  std::vector<KernelTiming> kernels;
  /// Per step on rank 0's clock. A host_call step takes its HostCallTiming;
  /// a collective_done takes the time its rank waits.
  std::vector<StepTiming> steps;
  /// The same per rank (one rank without `spmd`).
  std::vector<std::vector<StepTiming>> rankSteps;
  /// The latest rank's end.
  double totalNs = 0;
  /// In program order of their starts.
  std::vector<CollectiveTiming> collectives;
  /// In program order.
  std::vector<HostCallTiming> hostCalls;
  /// totalNs had every collective's done come right after its start.
  double serialisedNs = 0;
  /// By step: a launch that waited inside, on rank 0, for a collective it
  /// awaits, as it ran there (its kernel's own timing is in `kernels`).
  std::map<int64_t, KernelTiming> awaitedLaunches;

  /// The timing of kernel step `step` as it ran on rank 0.
  const KernelTiming &launch(const Program &program, int64_t step) const {
    auto it = awaitedLaunches.find(step);
    return it != awaitedLaunches.end()
               ? it->second
               : kernels[program.steps[step].kernel];
  }
};

/// How collectives are timed: the link model, and the target's logical
/// cores per chip (ranks fill chips in row-major order).
struct CollectiveLinks {
  CollectiveModel model;
  int64_t logicalCoresPerChip = 1;
};

/// Simulates every kernel `program` launches and lays its steps out on
/// every rank's clock. Errors: those of simulateKernelTiming;
/// FailedPrecondition for a program with collectives and no `links`.
absl::StatusOr<ProgramTiming>
simulateProgramTiming(const Program &program, const CostModel &model,
                      const std::optional<CollectiveLinks> &links = {},
                      const TimingOptions &options = {});

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_TIMING_H
