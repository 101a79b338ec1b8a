//===- NisaInsertSync.cpp - the nisa-insert-sync pass ---------------------===//
//
// Semaphores for the dependences of each kernel (passes/KernelGraph.h)
// that program order does not keep: between units, and between transfers
// of one DMA queue (which moves several at once). Every instruction such a
// dependence names signals; the dependent one waits until the semaphore of
// the named instruction's unit reaches the count that proves the awaited
// instance complete, a count affine in the waiting instruction's
// induction variables (passes/Semaphores.h). Of several waits on one unit
// only those no other dominates at every iteration stay.
//
// With hold-back-loads, a load's first instance in a loop nest also waits
// for the nest's loads the engine reading it first needs before it
// (passes/Passes.td), so that prefetches do not share the DMA engines with
// those at the nest's start.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGraph.h"
#include "passes/Passes.h"
#include "passes/Semaphores.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <map>

namespace mlir::neuron {
#define GEN_PASS_DEF_NISAINSERTSYNC
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

/// Whether `a >= b` at every iteration of loops of `trips`.
static bool dominates(const Threshold &a, const Threshold &b,
                      ArrayRef<int64_t> trips) {
  return minimumOver(a, b, trips).first >= 0;
}

/// Whether `op` copies HBM into a tile on chip.
static bool isLoad(Operation *op) {
  return isa<DmaCopyOp>(op) && !isStore(op);
}

/// Which instances of a kernel's transfers wait for an engine: directly
/// (each transfer's waits on engines), or through a transfer they wait for
/// that does (a load of what a store wrote).
class EngineWaits {
public:
  /// `waitFor` gives the count an engine dependence waits for (nullopt
  /// where met at once); the queues' counts are taken from `signals`.
  EngineWaits(const KernelGraph &g, const UnitStreams &units,
              const std::vector<bool> &signals,
              function_ref<std::optional<Threshold>(const Dependence &,
                                                    size_t)>
                  waitFor)
      : g(g), throughQueue(g.size(), false) {
    std::map<uint32_t, SignalCounts> queueCounts;
    DenseMap<uint32_t, SmallVector<uint32_t, 2>> queueWaits;
    for (size_t i = 0; i < g.size(); ++i) {
      if (!isa<DmaCopyOp>(g.instruction(i)))
        continue;
      for (const Dependence &d : g.predecessors(i)) {
        uint32_t unit = units.unit[d.from];
        if (!units.mustWait(d.from, i))
          continue;
        if (!units.isQueue(unit)) {
          if (std::optional<Threshold> t = waitFor(d, i))
            direct[i].push_back(t->count);
          continue;
        }
        const SignalCounts &counts =
            queueCounts.try_emplace(unit, g, units.unit, signals, unit)
                .first->second;
        std::optional<Threshold> t = thresholdOf(g, counts, d, i);
        if (t && minimumOver(Threshold(), *t, g.tripsOf(i)).first < 0)
          queueWaits[i].push_back(d.from);
      }
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (auto &[i, froms] : queueWaits)
        if (!throughQueue[i] && llvm::any_of(froms, [&](uint32_t from) {
              return direct.count(from) || throughQueue[from];
            }))
          throughQueue[i] = changed = true;
    }
  }

  /// Whether any instance of transfer `i` at iteration 0 of its first
  /// `common` loops waits for an engine.
  bool at(uint32_t i, int32_t common) const {
    if (throughQueue[i])
      return true;
    SmallVector<int64_t, 4> trips = g.tripsOf(i);
    return llvm::any_of(direct.lookup(i), [&](const AffineIndex &t) {
      // Its largest count over those instances (at least, where the count
      // is lower in some first iterations).
      int64_t most = t.constant;
      for (size_t l = common; l < trips.size(); ++l)
        most += std::max<int64_t>(0, t.coeff(l) * (trips[l] - 1));
      return most > 0;
    });
  }

private:
  const KernelGraph &g;
  DenseMap<uint32_t, SmallVector<AffineIndex, 1>> direct;
  std::vector<bool> throughQueue;
};

/// Per load in a loop nest not marked transfer-bound, the loads its first
/// instance is held back for, at most one per other queue of its physical
/// core: of the loads of its nest before it in program order that the unit
/// of its first reader needs before that reader, the queue's latest if the
/// instances the load would wait for wait for no engine, else the latest
/// none of whose instances do.
static std::vector<SmallVector<uint32_t, 2>>
heldBackFor(const KernelGraph &g, const UnitStreams &units,
            const EngineWaits &engineWaits) {
  size_t n = g.size();
  std::vector<uint32_t> firstReader(n, uint32_t(n));
  for (size_t to = 0; to < n; ++to)
    for (const Dependence &d : g.predecessors(to))
      if (d.hazard == Hazard::ReadAfterWrite)
        firstReader[d.from] = std::min(firstReader[d.from], uint32_t(to));
  // The loads in such nests each instruction reads first.
  std::vector<SmallVector<uint32_t, 1>> readFirst(n);
  for (size_t j = 0; j < n; ++j)
    if (firstReader[j] < n && isLoad(g.instruction(j)) &&
        !g.nestOf(j).empty() &&
        !g.topLevelOf(j)->hasAttr(NisaDialect::kTransferBound))
      readFirst[firstReader[j]].push_back(j);
  std::vector<SmallVector<uint32_t, 2>> out(n);
  for (ArrayRef<uint32_t> stream : units.streams) {
    // Per queue, the latest load the unit has needed so far, and the
    // latest of those none of whose instances waits for an engine.
    std::map<uint32_t, std::pair<uint32_t, std::optional<uint32_t>>> needed;
    for (uint32_t x : stream) {
      for (uint32_t j : readFirst[x])
        for (auto &[queue, loads] : needed) {
          auto [latest, free] = loads;
          uint32_t i =
              latest < j && !engineWaits.at(latest, g.sharedLoops(latest, j))
                  ? latest
                  : free.value_or(j);
          if (i < j && queue != units.unit[j] &&
              g.topLevelOf(i) == g.topLevelOf(j) &&
              coreOf(g.instruction(i)) == coreOf(g.instruction(j)))
            out[j].push_back(i);
        }
      for (const Dependence &d : g.predecessors(x)) {
        uint32_t i = d.from;
        if (!isLoad(g.instruction(i)))
          continue;
        auto &[latest, free] =
            needed.try_emplace(units.unit[i], i, std::nullopt).first->second;
        latest = std::max(latest, i);
        if (!engineWaits.at(i, 0))
          free = std::max(free.value_or(i), i);
      }
    }
  }
  return out;
}

namespace {

struct NisaInsertSyncPass
    : public mlir::neuron::impl::NisaInsertSyncBase<NisaInsertSyncPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(NisaDialect::kLimits) || kernel.isExternal())
        continue;
      if (failed(insertSync(kernel)))
        return signalPassFailure();
    }
  }

  LogicalResult insertSync(func::FuncOp kernel) {
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    const KernelGraph &g = *graph;
    UnitStreams units = UnitStreams::of(g);
    size_t n = g.size();

    // Every instruction another unit depends on signals.
    std::vector<bool> signals(n, false);
    for (size_t j = 0; j < n; ++j)
      for (const Dependence &d : g.predecessors(j))
        if (units.mustWait(d.from, j))
          signals[d.from] = true;
    std::map<uint32_t, SignalCounts> counts;
    auto countsOf = [&](uint32_t unit) -> const SignalCounts & {
      auto it = counts.find(unit);
      if (it == counts.end())
        it = counts.emplace(unit, SignalCounts(g, units.unit, signals, unit))
                 .first;
      return it->second;
    };
    // The count dependence `d` of instruction `j` waits for, or nullopt
    // where it is met at once at every iteration.
    auto waitFor = [&](const Dependence &d,
                       size_t j) -> std::optional<Threshold> {
      std::optional<Threshold> t =
          thresholdOf(g, countsOf(units.unit[d.from]), d, j);
      if (!t || minimumOver(Threshold(), *t, g.tripsOf(j)).first >= 0)
        return std::nullopt;
      return t;
    };

    // Loads held back, and what for. The engines' counts do not change
    // with the loads signalling for it; the queues' are counted after.
    std::vector<SmallVector<uint32_t, 2>> heldBack(n);
    if (holdBackLoads) {
      heldBack = heldBackFor(g, units, EngineWaits(g, units, signals, waitFor));
      for (ArrayRef<uint32_t> loads : heldBack)
        for (uint32_t i : loads)
          signals[i] = true;
    }

    Builder b(kernel.getContext());
    for (size_t j = 0; j < n; ++j) {
      SmallVector<int64_t, 4> trips = g.tripsOf(j);
      // Per unit waited for, the thresholds no other one dominates.
      std::map<uint32_t, SmallVector<Threshold, 1>> waits;
      auto keep = [&](uint32_t unit, const Threshold &t) {
        SmallVector<Threshold, 1> &kept = waits[unit];
        if (llvm::any_of(kept, [&](const Threshold &k) {
              return dominates(k, t, trips);
            }))
          return;
        llvm::erase_if(kept, [&](const Threshold &k) {
          return dominates(t, k, trips);
        });
        kept.push_back(t);
      };
      for (const Dependence &d : g.predecessors(j))
        if (units.mustWait(d.from, j))
          if (std::optional<Threshold> t = waitFor(d, j))
            keep(units.unit[d.from], *t);
      // A held-back load's first instance waits for each load's instances
      // in the first iteration of the loops they share: a count the later
      // instances have passed.
      for (uint32_t i : heldBack[j]) {
        Dependence d;
        d.from = i;
        d.common = g.sharedLoops(i, j);
        if (std::optional<Threshold> t = waitFor(d, j)) {
          AffineIndex once;
          once.constant = t->count.constant;
          keep(units.unit[i], once);
        }
      }
      Operation *op = g.instruction(j);
      op->removeAttr(NisaDialect::kWait);
      op->removeAttr(NisaDialect::kSignal);
      if (signals[j])
        op->setAttr(NisaDialect::kSignal, b.getUnitAttr());
      SmallVector<Attribute> entries;
      for (auto &[unit, thresholds] : waits)
        for (const Threshold &t : thresholds) {
          SmallVector<int64_t> perIteration(t.count.coeffs.begin(),
                                            t.count.coeffs.end());
          while (!perIteration.empty() && perIteration.back() == 0)
            perIteration.pop_back();
          SmallVector<int64_t> fewerFirst;
          if (t.fewer)
            fewerFirst = {t.loop, t.iterations, t.fewer};
          entries.push_back(WaitAttr::get(b.getContext(), units.names[unit],
                                          t.count.constant, perIteration,
                                          fewerFirst));
        }
      if (!entries.empty())
        op->setAttr(NisaDialect::kWait, b.getArrayAttr(entries));
    }
    NamedAttrList semaphores;
    for (size_t v = 0; v < units.names.size(); ++v)
      if (int64_t total = countsOf(v).total())
        semaphores.append(units.names[v], b.getI64IntegerAttr(total));
    kernel->setAttr(NisaDialect::kSemaphores,
                    semaphores.getDictionary(kernel.getContext()));
    return success();
  }
};

} // namespace
