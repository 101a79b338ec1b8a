//===- MpiRun.h - One process of an MPI-launched SPMD run -------*- C++ -*-===//
//
// `mpirun -np P neuron-run prog.nxe ...` starts P processes, on one machine
// or several; each joins the run here and runs its block of the program's
// ranks (runtime/sim/Spmd.h), meeting the others through MPI_COMM_WORLD.
// This header needs no MPI: a build without it (no libopenmpi-dev when it
// was configured) has the same functions, and joining fails with a message
// saying so.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_MPI_MPIRUN_H
#define NEURON_RUNTIME_MPI_MPIRUN_H

#include "runtime/sim/Spmd.h"

#include "absl/status/statusor.h"

#include <memory>
#include <string>

namespace neuron::rt {

/// Whether an MPI launcher started this process: Open MPI's mpirun, or a
/// PMI or PMIx launcher such as Slurm's srun (read from the environment the
/// launcher sets).
bool launchedByMpi();

/// One process of an MPI run, its exchange running over MPI_COMM_WORLD.
class MpiRun : public RankExchange {
public:
  /// The run's processes on this process's machine.
  virtual int64_t localProcesses() const = 0;
  /// This machine's name, for messages.
  virtual const std::string &host() const = 0;
  /// Leaves the run (MPI_Finalize). Call it only where every process does,
  /// after the same exchanges: a process that ends without it makes the
  /// launcher stop the others, which is how an unagreed failure ends.
  virtual void finish() = 0;
};

/// Initialises MPI and joins the run (once per process). From then on a
/// SIGTERM, which mpirun sends the other processes when one dies, prints
/// an error naming this process and the reason before it exits with status
/// 1. Errors: Unavailable for a build without MPI or when MPI fails to
/// start.
absl::StatusOr<std::unique_ptr<MpiRun>> joinMpiRun(int &argc, char **&argv);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_MPI_MPIRUN_H
