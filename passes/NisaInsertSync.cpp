//===- NisaInsertSync.cpp - the nisa-insert-sync pass ---------------------===//
//
// Semaphores for the cross-unit dependences of each kernel. Walking the
// instructions in block order, each keeps a vector clock: for every unit,
// how many of its instructions are known to have completed when it starts
// (its own unit's earlier instructions, and transitively whatever the
// instructions it waits for knew). A dependence on instruction i of unit v
// needs a wait only when the clock does not already cover i; the wait then
// also brings in i's clock. Dependences are taken latest-finishing first,
// since waiting for a later instruction tends to imply the others.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGraph.h"
#include "passes/Passes.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <algorithm>

namespace mlir::neuron {
#define GEN_PASS_DEF_NISAINSERTSYNC
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

namespace {

struct NisaInsertSyncPass
    : public mlir::neuron::impl::NisaInsertSyncBase<NisaInsertSyncPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr("nisa.limits") || kernel.isExternal())
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
    size_t n = g.size(), u = units.names.size();

    // Only instructions another unit depends on need their clock kept.
    std::vector<bool> needed(n, false);
    for (size_t j = 0; j < n; ++j)
      for (const Dependence &d : g.predecessors(j))
        if (units.unit[d.from] != units.unit[j])
          needed[d.from] = true;
    std::vector<int64_t> slot(n, -1);
    std::vector<uint32_t> clocks; // u entries per needed instruction
    std::vector<std::vector<uint32_t>> unitClock(u,
                                                 std::vector<uint32_t>(u, 0));
    // Per instruction: the (unit, position + 1) it waits for.
    std::vector<SmallVector<std::pair<uint32_t, uint32_t>, 2>> waits(n);
    std::vector<bool> signals(n, false);

    // Predicted end times (block positions when unscheduled).
    std::vector<double> end(n);
    for (uint32_t i = 0; i < n; ++i) {
      auto t = g.instruction(i)->getAttrOfType<DenseF64ArrayAttr>(
          "nisa.time_ns");
      end[i] = t && t.size() == 2 ? t[1] : double(i);
    }
    SmallVector<uint32_t> sources;
    for (uint32_t j = 0; j < n; ++j) {
      uint32_t mine = units.unit[j];
      std::vector<uint32_t> clock = unitClock[mine];
      sources.clear();
      for (const Dependence &d : g.predecessors(j))
        if (units.unit[d.from] != mine)
          sources.push_back(d.from);
      llvm::sort(sources, [&](uint32_t a, uint32_t b) {
        return end[a] > end[b];
      });
      for (uint32_t i : sources) {
        uint32_t v = units.unit[i], need = units.position[i] + 1;
        if (clock[v] >= need)
          continue;
        waits[j].push_back({v, need});
        signals[i] = true;
        const uint32_t *known = &clocks[slot[i] * u];
        for (size_t k = 0; k < u; ++k)
          clock[k] = std::max(clock[k], known[k]);
      }
      clock[mine] = units.position[j] + 1;
      if (needed[j]) {
        slot[j] = clocks.size() / u;
        clocks.insert(clocks.end(), clock.begin(), clock.end());
      }
      unitClock[mine] = std::move(clock);
    }

    // Positions to semaphore counts: the k-th signalling instruction of a
    // unit brings its semaphore to k.
    std::vector<uint32_t> count(n, 0);
    SmallVector<int64_t> totals(u, 0);
    for (size_t v = 0; v < u; ++v)
      for (uint32_t i : units.streams[v])
        if (signals[i])
          count[i] = ++totals[v];
    Builder b(kernel.getContext());
    for (uint32_t j = 0; j < n; ++j) {
      Operation *op = g.instruction(j);
      op->removeAttr("nisa.wait");
      op->removeAttr("nisa.signal");
      if (signals[j])
        op->setAttr("nisa.signal", b.getUnitAttr());
      if (waits[j].empty())
        continue;
      NamedAttrList entries;
      for (auto [v, need] : waits[j]) {
        uint32_t signaller = units.streams[v][need - 1];
        entries.append(units.names[v], b.getI64IntegerAttr(count[signaller]));
      }
      op->setAttr("nisa.wait", entries.getDictionary(kernel.getContext()));
    }
    NamedAttrList semaphores;
    for (size_t v = 0; v < u; ++v)
      if (totals[v])
        semaphores.append(units.names[v], b.getI64IntegerAttr(totals[v]));
    kernel->setAttr("nisa.semaphores",
                    semaphores.getDictionary(kernel.getContext()));
    return success();
  }
};

} // namespace
