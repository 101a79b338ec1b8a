//===- CollectiveModel.cpp - Alpha-beta times of collectives --------------===//

#include "runtime/target/CollectiveModel.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace neuron::rt {

// Modelling assumptions: the latency of one step of a collective (a
// synchronisation and a transfer descriptor round trip) within a chip and
// across NeuronLink.
static constexpr double kIntraChipStepNs = 1000;
static constexpr double kInterChipStepNs = 3000;
static constexpr int kMaxChunks = 16;

std::string_view algorithmName(CollectiveAlgorithm a) {
  switch (a) {
  case CollectiveAlgorithm::Ring: return "ring";
  case CollectiveAlgorithm::HalvingDoubling: return "halving-doubling";
  case CollectiveAlgorithm::Mesh: return "mesh";
  case CollectiveAlgorithm::Hierarchical: return "hierarchical";
  case CollectiveAlgorithm::Local: return "local";
  }
  return "ring";
}

bool algorithmFits(CollectiveOp op, CollectiveAlgorithm a) {
  return (op == CollectiveOp::AllSlice) == (a == CollectiveAlgorithm::Local);
}

std::vector<int64_t> gridCoordinates(const std::vector<int64_t> &grid,
                                     int64_t rank) {
  std::vector<int64_t> coords(grid.size());
  for (size_t d = grid.size(); d-- > 0;) {
    coords[d] = rank % grid[d];
    rank /= grid[d];
  }
  return coords;
}

static int64_t rankAt(const std::vector<int64_t> &grid,
                      const std::vector<int64_t> &coords) {
  int64_t rank = 0;
  for (size_t d = 0; d < grid.size(); ++d)
    rank = rank * grid[d] + coords[d];
  return rank;
}

std::vector<int64_t> groupOf(const std::vector<int64_t> &grid,
                             const std::vector<int64_t> &axes, int64_t rank) {
  std::vector<int64_t> coords = gridCoordinates(grid, rank);
  int64_t size = 1;
  for (int64_t a : axes)
    size *= grid[a];
  std::vector<int64_t> members;
  for (int64_t i = 0; i < size; ++i) {
    int64_t rest = i;
    for (size_t k = axes.size(); k-- > 0;) {
      coords[axes[k]] = rest % grid[axes[k]];
      rest /= grid[axes[k]];
    }
    members.push_back(rankAt(grid, coords));
  }
  return members;
}

int chipsSpanned(const std::vector<int64_t> &grid,
                 const std::vector<int64_t> &axes,
                 int64_t logicalCoresPerChip) {
  std::set<int64_t> chips;
  for (int64_t rank : groupOf(grid, axes, 0))
    chips.insert(rank / std::max<int64_t>(logicalCoresPerChip, 1));
  return int(chips.size());
}

absl::StatusOr<CollectiveModel>
CollectiveModel::forTarget(const ResolvedTarget &t) {
  CollectiveModel m;
  // A logical core's DMA engines: those of its physical cores.
  m.intraBw = t.dmaBytesPerSecondPerPhysicalCore() *
              t.lnc.physicalCoresPerLogicalCore * 1e-9;
  const Figure &link = t.instance && t.instance->neuronLinkBandwidth
                           ? *t.instance->neuronLinkBandwidth
                           : t.chip->neuronLinkBandwidth;
  absl::StatusOr<double> bw = toBytesPerSecond(link);
  if (m.intraBw <= 0 || !bw.ok() || *bw <= 0)
    return absl::InvalidArgumentError(absl::StrFormat(
        "collective model: %s: no DMA or NeuronLink bandwidth", t.chip->file));
  m.linkBw = *bw * 1e-9;
  return m;
}

double CollectiveModel::interChipBytesPerNs(int sharers) const {
  return std::min(intraBw, linkBw / std::max(sharers, 1));
}

double CollectiveModel::phase(double steps, double bytes, bool acrossChips,
                              int sharers) const {
  double alpha = acrossChips ? kInterChipStepNs : kIntraChipStepNs;
  double beta = acrossChips ? interChipBytesPerNs(sharers) : intraBw;
  return steps * alpha + bytes / beta;
}

/// Steps and bytes moved per core of a flat algorithm over `g` cores:
/// a reduce-scatter or all-gather moves (g-1)/g of the message, an
/// all-reduce both, an all-to-all (g-1)/g once.
static double traffic(CollectiveOp op, double bytes, int g) {
  double part = bytes * (g - 1) / g;
  return op == CollectiveOp::AllReduce ? 2 * part : part;
}
static double halves(CollectiveOp op) {
  return op == CollectiveOp::AllReduce ? 2 : 1;
}

double CollectiveModel::ns(const CollectiveQuery &q, CollectiveAlgorithm a,
                           int chunks) const {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  if (!algorithmFits(q.op, a))
    return kNever;
  int g = std::max(q.cores, 1), chips = std::clamp(q.chips, 1, g);
  if (g == 1)
    return 0;
  bool across = chips > 1;
  int perChip = g / chips;
  switch (a) {
  case CollectiveAlgorithm::Ring:
    // The slowest hop sets the pace: a ring that leaves the chip uses the
    // link, shared by the chip's members.
    return phase(halves(q.op) * (g - 1), traffic(q.op, q.bytes, g), across,
                 perChip);
  case CollectiveAlgorithm::HalvingDoubling: {
    if ((g & (g - 1)) != 0 || q.op == CollectiveOp::AllToAll)
      return kNever;
    double steps = halves(q.op) * std::log2(double(g));
    return phase(steps, traffic(q.op, q.bytes, g), across, perChip);
  }
  case CollectiveAlgorithm::Mesh:
    // Every core exchanges with all the others at once (the Neuron
    // runtime's intra-node Mesh): one step per phase, the ring's bytes.
    // Only within a chip, where each core reaches every other directly.
    if (across)
      return kNever;
    return phase(halves(q.op), traffic(q.op, q.bytes, g), false, 1);
  case CollectiveAlgorithm::Hierarchical: {
    if (!across || perChip < 2 || q.op == CollectiveOp::AllToAll)
      return kNever;
    // Within each chip first (a mesh reduce-scatter for reductions), then
    // the same collective across chips on 1/perChip of the data, then
    // within the chip again (a mesh all-gather); chunks pipeline the
    // phases.
    double piece = q.bytes / chunks;
    double inner = phase(1, piece * (perChip - 1) / perChip, false, 1);
    double outer = phase(halves(q.op) * (chips - 1),
                         traffic(q.op, piece / perChip, chips), true,
                         perChip);
    double innerPhases = q.op == CollectiveOp::AllReduce ? 2 : 1;
    double stage = std::max(inner, outer);
    return innerPhases * inner + outer + (chunks - 1) * stage;
  }
  case CollectiveAlgorithm::Local:
    // Each core copies its part of its own input: one step within the
    // core, on no link.
    return phase(1, q.bytes / g, false, 1);
  }
  return kNever;
}

CollectiveChoice CollectiveModel::choose(const CollectiveQuery &q) const {
  CollectiveChoice best;
  best.ns = std::numeric_limits<double>::infinity();
  for (CollectiveAlgorithm a :
       {CollectiveAlgorithm::Ring, CollectiveAlgorithm::HalvingDoubling,
        CollectiveAlgorithm::Mesh, CollectiveAlgorithm::Hierarchical,
        CollectiveAlgorithm::Local}) {
    int maxChunks = a == CollectiveAlgorithm::Hierarchical ? kMaxChunks : 1;
    double algBest = std::numeric_limits<double>::infinity();
    int algChunks = 1;
    for (int k = 1; k <= maxChunks; k *= 2) {
      double t = ns(q, a, k);
      if (t < algBest) {
        algBest = t;
        algChunks = k;
      }
    }
    if (std::isinf(algBest))
      continue;
    if (!best.candidates.empty())
      best.candidates += ", ";
    best.candidates += absl::StrFormat("%s %.1f us", algorithmName(a),
                                       algBest * 1e-3);
    if (algChunks > 1)
      best.candidates += absl::StrFormat(" (%d chunks)", algChunks);
    if (algBest < best.ns) {
      best.ns = algBest;
      best.algorithm = a;
      best.chunks = algChunks;
    }
  }
  if (std::isinf(best.ns))
    best.ns = 0;
  return best;
}

std::string CollectiveModel::assumptions() const {
  return absl::StrFormat(
      "collectives: %g ns per step within a chip at %.1f B/ns (a logical "
      "core's DMA engines), %g ns per step across chips at %.1f B/ns of "
      "NeuronLink per chip shared by the chip's cores in the group; "
      "mesh (within a chip, and the chip phases of hierarchical): one step "
      "per phase, every core exchanging with all the others at once, no "
      "contention modelled; all_slice (local): one step within a chip "
      "copying each core's part, on no link",
      kIntraChipStepNs, intraBw, kInterChipStepNs, linkBw);
}

} // namespace neuron::rt
