//===- Spmd.h - Functional simulation of an SPMD program --------*- C++ -*-===//
//
// Runs a Program with a top-level `spmd` grid on one simulated Device per
// rank (docs/executable.md, "Program"): every rank runs the same steps in
// lockstep, kernel and host_call steps on its own tensors; a
// collective_start snapshots each rank's input, its collective_done writes
// each rank's output from its group's snapshots. Whole inputs are split by
// their `sharding` (replicated without one) and whole outputs reassembled
// (rank 0's without one), so a run compares directly with a one-core run of
// the unsharded graph.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_SPMD_H
#define NEURON_RUNTIME_SIM_SPMD_H

#include "runtime/sim/Simulator.h"
#include "runtime/target/CollectiveModel.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <vector>

namespace neuron::rt {

/// The shape the user sees of program input or output `io`: each dimension
/// of its tensor times the grid sizes of the axes sharding it.
std::vector<int64_t> wholeShape(const Program &program, const IoBinding &io);

/// Rank `rank`'s shard of the whole tensor `whole` of `io`.
Tensor shardOf(const Program &program, const IoBinding &io, const Tensor &whole,
               int64_t rank);

/// Runs `program` on every rank of its grid (a program without `spmd` runs
/// on one) and returns its whole outputs in order. `wholeInputs`: one per
/// program input, of its wholeShape. Errors: InvalidArgument for an input
/// that does not match (naming it, expected and found); the errors of
/// Device::load and Device::runStep, prefixed "rank R: ".
absl::StatusOr<std::vector<Tensor>>
runSpmd(const Program &program, std::vector<Tensor> wholeInputs,
        const ConstantLoader &loadConstant = nullptr,
        DeviceOptions options = {});

} // namespace neuron::rt

#endif // NEURON_RUNTIME_SIM_SPMD_H
