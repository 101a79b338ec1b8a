//===- Launcher.cpp - Whether an MPI launcher started this process --------===//

#include "runtime/mpi/MpiRun.h"

#include <cstdlib>

namespace neuron::rt {

bool launchedByMpi() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name))
      return true;
  return false;
}

} // namespace neuron::rt
