//===- NisaVerifySync.cpp - the nisa-verify-sync pass ---------------------===//
//
// The happens-before order of a synchronised kernel: each unit's
// instructions one after another, and each wait after the instruction that
// brings the semaphore to its count (the count-th signalling instruction
// of that unit). Processing that graph in topological order proves it
// acyclic (a cycle is a deadlock) and gives every instruction a vector
// clock, against which each cross-unit dependence of passes/KernelGraph.h
// is checked: the earlier instruction must be known complete.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGraph.h"
#include "passes/Passes.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include <algorithm>
#include <deque>

namespace mlir::neuron {
#define GEN_PASS_DEF_NISAVERIFYSYNC
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

namespace {

struct NisaVerifySyncPass
    : public mlir::neuron::impl::NisaVerifySyncBase<NisaVerifySyncPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr("nisa.semaphores") || kernel.isExternal())
        continue;
      if (failed(verify(kernel)))
        signalPassFailure();
    }
  }

  LogicalResult verify(func::FuncOp kernel) {
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    const KernelGraph &g = *graph;
    UnitStreams units = UnitStreams::of(g);
    size_t n = g.size(), u = units.names.size();
    auto describe = [&](uint32_t i) {
      return "'" + g.instruction(i)->getName().getStringRef().str() + "' (" +
             units.names[units.unit[i]] + ")";
    };

    std::vector<std::vector<uint32_t>> signallers(u);
    for (size_t v = 0; v < u; ++v)
      for (uint32_t i : units.streams[v])
        if (g.instruction(i)->hasAttr("nisa.signal"))
          signallers[v].push_back(i);

    // Happens-before predecessors: the previous instruction of the unit,
    // and the signaller each wait needs.
    std::vector<SmallVector<uint32_t, 2>> waitsFor(n);
    for (uint32_t j = 0; j < n; ++j) {
      Operation *op = g.instruction(j);
      Attribute attr = op->getAttr("nisa.wait");
      if (!attr)
        continue;
      auto waits = dyn_cast<DictionaryAttr>(attr);
      if (!waits)
        return op->emitError("nisa-verify-sync: expected 'nisa.wait' to be "
                             "a dictionary of unit = count, found ")
               << attr;
      for (NamedAttribute w : waits) {
        auto count = dyn_cast<IntegerAttr>(w.getValue());
        int v = units.find(w.getName().strref());
        int64_t available = v < 0 ? 0 : signallers[v].size();
        if (!count || count.getInt() < 1)
          return op->emitError("nisa-verify-sync: expected a positive count "
                               "for unit '")
                 << w.getName().strref() << "', found " << w.getValue();
        if (count.getInt() > available)
          return op->emitError("nisa-verify-sync: deadlock: this ")
                 << describe(j) << " waits for semaphore '"
                 << w.getName().strref() << "' to reach " << count.getInt()
                 << ", but only " << available
                 << " instructions signal it";
        waitsFor[j].push_back(signallers[v][count.getInt() - 1]);
      }
    }

    std::vector<uint32_t> indegree(n, 0);
    std::vector<SmallVector<uint32_t, 2>> after(n);
    for (uint32_t j = 0; j < n; ++j) {
      uint32_t p = units.position[j];
      if (p > 0) {
        after[units.streams[units.unit[j]][p - 1]].push_back(j);
        ++indegree[j];
      }
      for (uint32_t s : waitsFor[j]) {
        after[s].push_back(j);
        ++indegree[j];
      }
    }

    std::deque<uint32_t> ready;
    for (uint32_t j = 0; j < n; ++j)
      if (!indegree[j])
        ready.push_back(j);
    std::vector<int64_t> slot(n, -1);
    std::vector<uint32_t> clocks;
    std::vector<std::vector<uint32_t>> unitClock(u,
                                                 std::vector<uint32_t>(u, 0));
    size_t done = 0;
    while (!ready.empty()) {
      uint32_t j = ready.front();
      ready.pop_front();
      ++done;
      uint32_t mine = units.unit[j];
      std::vector<uint32_t> clock = unitClock[mine];
      for (uint32_t s : waitsFor[j])
        for (size_t k = 0; k < u; ++k)
          clock[k] = std::max(clock[k], clocks[slot[s] * u + k]);
      for (const Dependence &d : g.predecessors(j)) {
        uint32_t v = units.unit[d.from];
        if (v == mine || clock[v] > units.position[d.from])
          continue;
        InFlightDiagnostic diag = g.instruction(j)->emitError()
                                  << "nisa-verify-sync: " << hazardName(d.hazard)
                                  << " race on " << g.describeRegion(d)
                                  << ": this " << describe(j)
                                  << (d.hazard == Hazard::ReadAfterWrite
                                          ? " reads what "
                                          : " writes what ")
                                  << describe(d.from)
                                  << (d.hazard == Hazard::WriteAfterRead
                                          ? " reads"
                                          : " writes")
                                  << ", and no wait orders them";
        diag.attachNote(g.instruction(d.from)->getLoc())
            << "the earlier access";
        return failure();
      }
      clock[mine] = units.position[j] + 1;
      if (g.instruction(j)->hasAttr("nisa.signal")) {
        slot[j] = clocks.size() / u;
        clocks.insert(clocks.end(), clock.begin(), clock.end());
      }
      unitClock[mine] = std::move(clock);
      for (uint32_t k : after[j])
        if (--indegree[k] == 0)
          ready.push_back(k);
    }
    if (done == n)
      return success();
    return reportCycle(g, units, waitsFor, indegree, describe);
  }

  /// Walks back from a blocked instruction along blocked predecessors to a
  /// cycle and reports one of its waits.
  template <typename Describe>
  LogicalResult
  reportCycle(const KernelGraph &g, const UnitStreams &units,
              const std::vector<SmallVector<uint32_t, 2>> &waitsFor,
              const std::vector<uint32_t> &indegree, Describe describe) {
    size_t n = g.size();
    auto blocked = [&](uint32_t i) { return indegree[i] > 0; };
    auto blockedPred = [&](uint32_t j) -> uint32_t {
      for (uint32_t s : waitsFor[j])
        if (blocked(s))
          return s;
      uint32_t p = units.position[j];
      return units.streams[units.unit[j]][p - 1];
    };
    uint32_t at = 0;
    while (at < n && !blocked(at))
      ++at;
    std::vector<bool> seen(n, false);
    while (!seen[at]) {
      seen[at] = true;
      at = blockedPred(at);
    }
    // `at` is on the cycle; find a wait along it.
    uint32_t j = at;
    do {
      uint32_t s = blockedPred(j);
      if (llvm::is_contained(waitsFor[j], s)) {
        InFlightDiagnostic diag =
            g.instruction(j)->emitError()
            << "nisa-verify-sync: deadlock: this " << describe(j)
            << " waits for " << describe(s)
            << " to signal, which cannot complete before this one does";
        diag.attachNote(g.instruction(s)->getLoc())
            << "the awaited instruction";
        return failure();
      }
      j = s;
    } while (j != at);
    return g.instruction(at)->emitError(
        "nisa-verify-sync: deadlock among the waits of this instruction");
  }
};

} // namespace
