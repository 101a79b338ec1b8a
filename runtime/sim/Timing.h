//===- Timing.h - Event-driven timing of a program --------------*- C++ -*-===//
//
// How long a validated Program takes on one NeuronCore, independent of the
// data: every instruction keeps its unit (engine or DMA queue) busy for the
// time the shared cost model (runtime/target/CostModel.h) gives it, units
// run their instructions in list order and synchronise through the
// semaphores of docs/executable.md ("Schedule and synchronisation"), and
// DMA transfers in flight share the core's HBM bandwidth. A kernel without a
// schedule runs its instructions one after another.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_TIMING_H
#define NEURON_RUNTIME_SIM_TIMING_H

#include "runtime/sim/Program.h"
#include "runtime/target/CostModel.h"

#include "absl/status/statusor.h"

#include <array>
#include <string>
#include <vector>

namespace neuron::rt {

/// The cost-model query of `inst`: its op with its destination and its
/// main source (docs of costQueryFor). The one place an Instruction meets
/// the cost model.
CostQuery costQueryOf(const Instruction &inst);

/// The time `inst` keeps its unit busy when it runs alone.
double durationNs(const Instruction &inst, const CostModel &model);

/// The observed timing of one kernel, from its start.
struct KernelTiming {
  /// Per instruction.
  std::vector<double> startNs, endNs;
  /// Per unit (kFirstDmaUnit + model.dmaQueues() units): time running an
  /// instruction.
  std::vector<double> unitBusyNs;
  /// Per engine class (EngineClass order); Dma summed over the queues.
  std::array<double, kEngineClasses> busyNs{};
  /// The makespan: the last instruction's end.
  double observedNs = 0;
};

/// Simulates `kernel`. Errors: InvalidArgument for a dma_copy on a queue
/// the model does not have; FailedPrecondition on a deadlock (instructions
/// remain but every unit waits), naming the kernel, each blocked unit's
/// next instruction and the semaphore it waits for.
absl::StatusOr<KernelTiming> simulateKernelTiming(const Kernel &kernel,
                                                  const CostModel &model);

/// One program step on the program's clock.
struct StepTiming {
  double startNs = 0, durationNs = 0;
};

struct ProgramTiming {
  /// Per kernel of the program (a kernel's time does not depend on its
  /// bindings, so every launch takes the same).
  std::vector<KernelTiming> kernels;
  /// Per step, laid end to end. A host_call step takes 0 ns: host time is
  /// not modelled.
  std::vector<StepTiming> steps;
  double totalNs = 0;
};

/// Simulates every kernel `program` launches and lays its steps end to end.
absl::StatusOr<ProgramTiming> simulateProgramTiming(const Program &program,
                                                    const CostModel &model);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_TIMING_H
