//===- NoMpiRun.cpp - joinMpiRun in a build without MPI -------------------===//

#include "runtime/mpi/MpiRun.h"

namespace neuron::rt {

absl::StatusOr<std::unique_ptr<MpiRun>> joinMpiRun(int &, char **&) {
  return absl::UnavailableError(
      "an MPI launcher started this process, but this build has no MPI "
      "(install libopenmpi-dev, as setup.sh does, and configure the build "
      "again)");
}

} // namespace neuron::rt
