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
static bool dominates(const AffineIndex &a, const AffineIndex &b,
                      ArrayRef<int64_t> trips) {
  return minimumOver(difference(a, b), trips).first >= 0;
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

    Builder b(kernel.getContext());
    for (size_t j = 0; j < n; ++j) {
      SmallVector<int64_t, 4> trips = g.tripsOf(j);
      // Per unit waited for, the thresholds no other one dominates.
      std::map<uint32_t, SmallVector<AffineIndex, 1>> waits;
      for (const Dependence &d : g.predecessors(j)) {
        uint32_t unit = units.unit[d.from];
        if (!units.mustWait(d.from, j))
          continue;
        std::optional<AffineIndex> t = thresholdOf(g, countsOf(unit), d, j);
        if (!t || minimumOver(difference(AffineIndex(), *t), trips).first >= 0)
          continue; // met at once at every iteration
        SmallVector<AffineIndex, 1> &kept = waits[unit];
        if (llvm::any_of(kept, [&](const AffineIndex &k) {
              return dominates(k, *t, trips);
            }))
          continue;
        llvm::erase_if(kept, [&](const AffineIndex &k) {
          return dominates(*t, k, trips);
        });
        kept.push_back(*t);
      }
      Operation *op = g.instruction(j);
      op->removeAttr(NisaDialect::kWait);
      op->removeAttr(NisaDialect::kSignal);
      if (signals[j])
        op->setAttr(NisaDialect::kSignal, b.getUnitAttr());
      SmallVector<Attribute> entries;
      for (auto &[unit, thresholds] : waits)
        for (const AffineIndex &t : thresholds) {
          SmallVector<int64_t> perIteration(t.coeffs.begin(), t.coeffs.end());
          while (!perIteration.empty() && perIteration.back() == 0)
            perIteration.pop_back();
          entries.push_back(WaitAttr::get(b.getContext(), units.names[unit],
                                          t.constant, perIteration));
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
