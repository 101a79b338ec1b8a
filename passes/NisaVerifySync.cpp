//===- NisaVerifySync.cpp - the nisa-verify-sync pass ---------------------===//
//
// Proves, for every iteration at once, that a synchronised kernel cannot
// deadlock and orders every conflicting access across units. Each unit
// runs its instructions in program order, so a wait is safe when its unit
// reaches the count before the waiting instance in program order: the
// instructions in program order are then an execution, and the earliest
// blocked instance would be waiting for one before it, so none blocks
// forever. Both sides are affine in the iteration, so their difference is
// checked at the corner of the loops' box where it is largest. Each
// cross-unit dependence of passes/KernelGraph.h is ordered when a wait on
// the earlier instruction's unit reaches, at every iteration, the count
// that proves the awaited instance complete (passes/Semaphores.h).
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGraph.h"
#include "passes/Passes.h"
#include "passes/Semaphores.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"

#include <map>

namespace mlir::neuron {
#define GEN_PASS_DEF_NISAVERIFYSYNC
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

/// "[3, 0]".
static std::string iterationText(ArrayRef<int64_t> iv) {
  return "[" + llvm::join(llvm::map_range(iv, [](int64_t v) {
                            return std::to_string(v);
                          }),
                          ", ") +
         "]";
}

namespace {

struct NisaVerifySyncPass
    : public mlir::neuron::impl::NisaVerifySyncBase<NisaVerifySyncPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(NisaDialect::kSemaphores) || kernel.isExternal())
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
    size_t n = g.size();
    auto describe = [&](size_t i) {
      return "'" + g.instruction(i)->getName().getStringRef().str() + "' (" +
             units.names[units.unit[i]] + ")";
    };
    std::vector<bool> signals(n);
    for (size_t i = 0; i < n; ++i)
      signals[i] = g.instruction(i)->hasAttr(NisaDialect::kSignal);
    std::map<uint32_t, SignalCounts> counts;
    auto countsOf = [&](uint32_t unit) -> const SignalCounts & {
      auto it = counts.find(unit);
      if (it == counts.end())
        it = counts.emplace(unit, SignalCounts(g, units.unit, signals, unit))
                 .first;
      return it->second;
    };

    // Every wait, as a unit and a count over the instruction's loops.
    std::vector<SmallVector<std::pair<uint32_t, Threshold>, 2>> waits(n);
    for (size_t j = 0; j < n; ++j) {
      Operation *op = g.instruction(j);
      auto list = op->getAttrOfType<ArrayAttr>(NisaDialect::kWait);
      if (!list)
        continue;
      SmallVector<int64_t, 4> trips = g.tripsOf(j);
      for (auto w : list.getAsRange<WaitAttr>()) {
        Threshold wait;
        wait.count.constant = w.getCount();
        wait.count.coeffs.assign(w.getPerIteration().begin(),
                                  w.getPerIteration().end());
        if (wait.count.coeffs.size() > trips.size())
          return op->emitError()
                 << "nisa-verify-sync: expected at most " << trips.size()
                 << " counts per iteration (one per enclosing loop), found "
                 << wait.count.coeffs.size();
        if (ArrayRef<int64_t> fewer = w.getFewerFirst(); !fewer.empty()) {
          if (size_t(fewer[0]) >= trips.size())
            return op->emitError()
                   << "nisa-verify-sync: expected fewer_first's loop below "
                   << trips.size() << " (the enclosing loops), found "
                   << fewer[0];
          wait.loop = fewer[0];
          wait.iterations = fewer[1];
          wait.fewer = fewer[2];
        }
        int unit = units.find(w.getUnit());
        // Reachable before this instance in program order, at every
        // iteration: the largest excess is at a corner of a part of the
        // box.
        AffineIndex reached = unit < 0 ? AffineIndex() : countsOf(unit).before(j);
        auto [excess, at] = minimumOver(reached, wait, trips);
        if (excess < 0)
          return op->emitError()
                 << "nisa-verify-sync: deadlock: this " << describe(j)
                 << (trips.empty() ? std::string()
                                   : " at iteration " + iterationText(at))
                 << " waits for " << w.getUnit() << " to reach "
                 << wait.at(at) << ", but " << w.getUnit()
                 << " signals only " << reached.at(at)
                 << " times before it in program order";
        if (unit >= 0)
          waits[j].push_back({uint32_t(unit), wait});
      }
    }

    for (size_t j = 0; j < n; ++j) {
      SmallVector<int64_t, 4> trips = g.tripsOf(j);
      for (const Dependence &d : g.predecessors(j)) {
        uint32_t unit = units.unit[d.from];
        if (!units.mustWait(d.from, j))
          continue;
        std::optional<Threshold> needed =
            thresholdOf(g, countsOf(unit), d, j);
        if (!needed)
          continue;
        // A wait on that unit reaching it wherever it is positive.
        std::optional<SmallVector<int64_t, 4>> where =
            shortfall(Threshold(), *needed, trips);
        for (auto &[waited, count] : waits[j])
          if (where && waited == unit)
            where = shortfall(count, *needed, trips);
        if (!where)
          continue;
        InFlightDiagnostic diag =
            g.instruction(j)->emitError()
            << "nisa-verify-sync: " << hazardName(d.hazard) << " race on "
            << g.describeRegion(d) << ": this " << describe(j)
            << (trips.empty() ? std::string()
                              : " at iteration " + iterationText(*where))
            << (d.hazard == Hazard::ReadAfterWrite ? " reads what "
                                                   : " writes what ")
            << describe(d.from)
            << (d.carried ? " " + std::to_string(d.distance) +
                                " iteration(s) earlier"
                          : std::string())
            << (d.hazard == Hazard::WriteAfterRead ? " reads" : " writes")
            << ", and no wait orders them (it needs " << units.names[unit]
            << " at " << needed->at(*where) << ")";
        diag.attachNote(g.instruction(d.from)->getLoc())
            << "the earlier access";
        return failure();
      }
    }
    return success();
  }
};

} // namespace
