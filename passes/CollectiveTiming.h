//===- CollectiveTiming.h - Times for the collective passes ----*- C++ -*-===//
//
// What the collective passes need to time a collective and the graph ops
// around it before tiling: a tensor's bytes, the collective model's query
// for a collective op (neuron-place-collectives, neuron-decompose-
// collectives), and a rough device time of a graph op from the engines'
// cost model.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_COLLECTIVETIMING_H
#define NEURON_PASSES_COLLECTIVETIMING_H

#include "runtime/target/CollectiveModel.h"

#include "mlir/IR/Types.h"

#include <cstdint>

namespace neuron::rt {
class CostModel;
struct ResolvedTarget;
} // namespace neuron::rt

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::neuron {

struct CollectiveInfo;

/// The bytes of a statically shaped tensor type; 0 for a dynamic one.
int64_t tensorBytes(Type type);

/// The collective model's query for collective `c` of `bytes` (the whole
/// tensor a core holds before, or for an all_gather after, the
/// collective) on target `t`: the group's cores and the chips they span
/// when the grid is laid out row-major on the target's logical cores.
::neuron::rt::CollectiveQuery
collectiveQuery(const CollectiveInfo &c, double bytes,
                const ::neuron::rt::ResolvedTarget &t);

/// A rough device time of a graph op: contractions at the tensor engine's
/// peak, everything else streaming its result through the vector engine; a
/// launch, the sum of its kernel's ops; a program's views, constants and
/// collectives nothing.
double estimateNs(Operation *op, const ::neuron::rt::CostModel &model);

} // namespace mlir::neuron

#endif // NEURON_PASSES_COLLECTIVETIMING_H
