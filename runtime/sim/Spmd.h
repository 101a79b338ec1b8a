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
// The ranks may be spread over several processes (runtime/mpi: one per MPI
// process, on one or several machines): each process runs a contiguous block
// of ranks and loads only their shards, the processes meet through a
// RankExchange at the points where ranks need each other's bytes (after
// loading, at every collective_start, and for the outputs), and every such
// meeting also carries each process's status, so an error on one process
// stops every process there with the error, never a hang.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_SIM_SPMD_H
#define NEURON_RUNTIME_SIM_SPMD_H

#include "runtime/sim/Simulator.h"
#include "runtime/target/CollectiveModel.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace neuron::rt {

/// The shape the user sees of program input or output `io`: each dimension
/// of its tensor times the grid sizes of the axes sharding it.
std::vector<int64_t> wholeShape(const Program &program, const IoBinding &io);

/// The bytes of that whole tensor.
int64_t wholeBytes(const Program &program, const IoBinding &io);

/// Rank `rank`'s shard of the whole tensor `whole` of `io` (copied; only
/// the shard's bytes of `whole` are read).
Tensor shardOf(const Program &program, const IoBinding &io,
               const TensorRef &whole, int64_t rank);

/// The ranks process `process` of `processes` runs: [first, end), a
/// contiguous block, the first `ranks % processes` processes taking one
/// more. Empty when there are more processes than ranks.
struct RankBlock {
  int64_t first = 0, end = 0;
  int64_t size() const { return end - first; }
};
RankBlock ranksOfProcess(int64_t ranks, int64_t process, int64_t processes);

/// How the processes of a run meet. Every process calls exchange() at the
/// same points of the run, in the same order.
class RankExchange {
public:
  virtual ~RankExchange() = default;
  /// This process's index and the number of processes.
  virtual int64_t process() const = 0;
  virtual int64_t processes() const = 0;
  /// Every process gives one block of bytes (its ranks' bytes, say) and its
  /// status so far. When every status is ok, returns every process's block
  /// in process order: to every process with `toAll`, else to process 0
  /// only (the others get an empty vector). Otherwise returns, on every
  /// process, an error naming the first process that failed and its
  /// message (the failed process gets its own status back).
  virtual absl::StatusOr<std::vector<std::vector<uint8_t>>>
  exchange(std::vector<uint8_t> block, const absl::Status &status,
           bool toAll) = 0;
};

/// What exchange() returns on process `self` given every process's status
/// (in process order): ok when all are; its own status when it failed;
/// else the first failed process's code and message, the message prefixed
/// "process P stopped the run: ".
absl::Status exchangeFailure(const std::vector<absl::Status> &statuses,
                             int64_t self);

/// The exchange of a run in one process.
std::unique_ptr<RankExchange> singleProcessExchange();

struct SpmdOptions {
  DeviceOptions device;
  /// Where the other ranks run; nullptr: every rank in this process.
  RankExchange *exchange = nullptr;
  /// Gather the whole outputs on process 0.
  bool gatherOutputs = true;
  /// Also return each of this process's ranks' own outputs.
  bool rankOutputs = false;
};

/// What one process's part of a run returns.
struct SpmdResult {
  /// The whole outputs in order, with SpmdOptions::gatherOutputs on
  /// process 0 (empty on the others).
  std::vector<Tensor> outputs;
  /// The ranks this process ran, and with SpmdOptions::rankOutputs their
  /// outputs as each rank holds them (shards), from `ranks.first` on.
  RankBlock ranks;
  std::vector<std::vector<Tensor>> rankOutputs;
};

/// Runs this process's ranks of `program` (see RankExchange) on
/// `wholeInputs`, of which it reads only its ranks' shards (the inputs may
/// be mapped files: runtime/format/Npy.h, mapNpy). Errors: those of
/// runSpmd; FailedPrecondition on every process when there are more
/// processes than ranks.
absl::StatusOr<SpmdResult>
runSpmdProcess(const Program &program, const std::vector<TensorRef> &wholeInputs,
               const ConstantLoader &loadConstant, const SpmdOptions &options);

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
