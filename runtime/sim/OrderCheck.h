//===- OrderCheck.h - Did a timed run keep program order? -------*- C++ -*-===//
//
// An independent check of a kernel's synchronisation. The functional
// simulator runs a kernel's instances in program order, so its numbers are
// the device's only if every instance starts after each earlier one (in
// program order) that touches the same bytes, one of the two writing, has
// ended. This replays a timed run in program order over shadow memory
// (per partition for SBUF and PSUM, per element for each HBM parameter
// some instruction writes: when each byte was last written and last read
// since) and reports the first instance that starts too early, whatever
// the compiler's analysis believed.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_ORDERCHECK_H
#define NEURON_RUNTIME_SIM_ORDERCHECK_H

#include "runtime/sim/Program.h"
#include "runtime/sim/Timing.h"

#include "absl/status/status.h"

namespace neuron::rt {

/// Checks `timing`, a run of `kernel` that recorded every instance.
/// FailedPrecondition names the two instances (instruction, iteration,
/// times), the hazard and the bytes; InvalidArgument when instances went
/// unrecorded.
absl::Status checkProgramOrder(const Kernel &kernel,
                               const KernelTiming &timing);

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_ORDERCHECK_H
