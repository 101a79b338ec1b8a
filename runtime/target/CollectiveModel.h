//===- CollectiveModel.h - Alpha-beta times of collectives ------*- C++ -*-===//
//
// How long a collective takes on a group of logical cores, and which
// algorithm and chunking minimise it: the alpha-beta model (a fixed latency
// per step plus bytes over bandwidth) with the target's figures. Cores of
// one chip exchange data through their DMA engines; chips through
// NeuronLink, whose per-chip bandwidth is shared by the chip's cores in
// the group; all_slice moves nothing between cores. The step latencies
// are modelling assumptions (no published figure), listed by
// `assumptions()`. No MLIR dependency: the compiler's placement pass and
// the runtime's multi-core simulation share it.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_RUNTIME_TARGET_COLLECTIVEMODEL_H
#define NEURON_RUNTIME_TARGET_COLLECTIVEMODEL_H

#include "runtime/target/Target.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neuron::rt {

enum class CollectiveOp {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  AllSlice
};
enum class CollectiveAlgorithm {
  Ring,
  HalvingDoubling,
  Mesh,
  Hierarchical,
  Local
};

/// "ring", "halving-doubling", "mesh", "hierarchical", "local".
std::string_view algorithmName(CollectiveAlgorithm a);

/// Whether `a` can carry out `op` on some group: local is all_slice's only
/// algorithm (each core keeps its part of its own replicated input, so no
/// data moves between cores) and no other kind's. The limits that depend on
/// the group are `CollectiveModel::ns`'s.
bool algorithmFits(CollectiveOp op, CollectiveAlgorithm a);

struct CollectiveQuery {
  CollectiveOp op = CollectiveOp::AllReduce;
  /// The whole tensor one core holds before (all_reduce, reduce_scatter,
  /// all_to_all, all_slice) or after (all_gather) the collective.
  double bytes = 0;
  /// Cores in the group, and how many chips they span (evenly).
  int cores = 1;
  int chips = 1;
};

struct CollectiveChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  /// Pieces the message is cut into, pipelined through the phases of a
  /// hierarchical algorithm (1 for the flat ones).
  int chunks = 1;
  double ns = 0;
  /// Every candidate's time, for reports: "ring 12.3 us, ...".
  std::string candidates;
};

/// The coordinates of `rank` in `grid` (row-major, the last axis fastest).
std::vector<int64_t> gridCoordinates(const std::vector<int64_t> &grid,
                                     int64_t rank);

/// The ranks of `rank`'s group: those whose coordinates differ from its own
/// only along `axes`, ordered row-major over the coordinates along `axes`
/// in the order listed.
std::vector<int64_t> groupOf(const std::vector<int64_t> &grid,
                             const std::vector<int64_t> &axes, int64_t rank);

/// The chips the group of rank 0 spans when a grid of logical cores is laid
/// out row-major over chips of `logicalCoresPerChip` cores.
int chipsSpanned(const std::vector<int64_t> &grid,
                 const std::vector<int64_t> &axes, int64_t logicalCoresPerChip);

class CollectiveModel {
public:
  static absl::StatusOr<CollectiveModel> forTarget(const ResolvedTarget &t);

  /// The time of `q` with `algorithm` in `chunks` pieces; infinite when the
  /// algorithm does not apply (see algorithmFits; halving-doubling needs a
  /// power-of-two group, mesh a group within one chip, hierarchical more
  /// than one chip and more than one core per chip). A group of one core
  /// takes 0. Local, over a group of g cores, is one intra-chip step
  /// copying the core's part, whatever the chips and links: intra-chip step
  /// latency + (bytes / g) / DMA bandwidth of a logical core
  /// (intraChipBytesPerNs).
  double ns(const CollectiveQuery &q, CollectiveAlgorithm algorithm,
            int chunks = 1) const;
  /// The fastest algorithm and chunking for `q`.
  CollectiveChoice choose(const CollectiveQuery &q) const;
  /// Bytes per ns between two cores of a chip, and of one core's share of
  /// its chip's NeuronLink when `sharers` cores of the chip communicate.
  double intraChipBytesPerNs() const { return intraBw; }
  double interChipBytesPerNs(int sharers) const;
  std::string assumptions() const;

private:
  /// One phase: `steps` exchanges of `bytes` each, within a chip or across.
  double phase(double steps, double bytes, bool acrossChips,
               int sharers) const;

  double intraBw = 0, linkBw = 0;
};

} // namespace neuron::rt

#endif // NEURON_RUNTIME_TARGET_COLLECTIVEMODEL_H
