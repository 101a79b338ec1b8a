//===- NisaUnroll.cpp - the nisa-unroll pass ------------------------------===//
//
// A DMA queue runs its transfers one at a time, so a loop whose body holds
// one transfer would move its tiles through one queue however many the
// core has. Each innermost loop with transfers is unrolled by as many
// copies as it takes for its transfers to fill the queues (fewer when it
// runs fewer times; a factor dividing its trips when one is close, else a
// partial copy after it), so nisa-schedule can give every copy's transfers
// their own queues. The loops stay normalised (from 0, step 1) and each
// copy allocates its own tiles, which then rotate on their own.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/TargetLoading.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/Analysis/LoopAnalysis.h"
#include "mlir/Dialect/Affine/LoopUtils.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NISAUNROLL
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

/// The unroll factor for a loop of `trips` whose body holds `transfers`:
/// enough copies to give `queues` queues work, at most `maxBody` ops per
/// body of `ops`; a divisor of `trips` within half of it when there is one.
static int64_t unrollFactor(int64_t trips, int64_t transfers, int64_t ops,
                            int64_t queues, int64_t maxBody) {
  int64_t factor = std::min<int64_t>(
      {trips, llvm::divideCeil(queues, transfers),
       std::max<int64_t>(1, maxBody / std::max<int64_t>(ops, 1))});
  for (int64_t f = factor; f * 2 > factor; --f)
    if (trips % f == 0)
      return f;
  return factor;
}

namespace {

struct NisaUnroll : mlir::neuron::impl::NisaUnrollBase<NisaUnroll> {
  using Base::Base;

  void runOnOperation() override {
    int64_t available = queues;
    if (available <= 0) {
      absl::StatusOr<LoadedTarget> loaded = loadTarget(target, targetDir);
      if (!loaded.ok()) {
        getOperation().emitError()
            << "nisa-unroll: " << std::string(loaded.status().message());
        return signalPassFailure();
      }
      available = std::max(1, loaded->target.dmaQueuesPerLogicalCore());
    }
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(nisa::NisaDialect::kLimits) || kernel.isExternal())
        continue;
      SmallVector<affine::AffineForOp> innermost;
      kernel.walk([&](affine::AffineForOp loop) {
        if (loop.getBody()->getOps<affine::AffineForOp>().empty())
          innermost.push_back(loop);
      });
      for (affine::AffineForOp loop : innermost)
        if (failed(unroll(loop, available)))
          return signalPassFailure();
    }
  }

  LogicalResult unroll(affine::AffineForOp loop, int64_t available) {
    std::optional<uint64_t> trips = affine::getConstantTripCount(loop);
    int64_t transfers = 0, ops = 0;
    for (Operation &op : loop.getBody()->without_terminator()) {
      transfers += isa<nisa::DmaCopyOp>(op);
      ops += isa<nisa::EngineOpInterface>(op);
    }
    if (!trips || transfers == 0)
      return success();
    int64_t factor =
        unrollFactor(*trips, transfers, ops, available, maxBody);
    if (factor < 2)
      return success();
    ++unrolled;
    // The unrolled loop steps by `factor` and a partial copy may follow
    // from a non-zero start: both back to 0..trips step 1.
    Block *block = loop->getBlock();
    Operation *before = loop->getPrevNode(), *after = loop->getNextNode();
    if (failed(affine::loopUnrollByFactor(loop, factor)))
      return loop.emitError() << "nisa-unroll: cannot unroll by " << factor;
    SmallVector<affine::AffineForOp> produced;
    for (Operation *op = before ? before->getNextNode() : &block->front();
         op && op != after; op = op->getNextNode())
      if (auto l = dyn_cast<affine::AffineForOp>(op))
        produced.push_back(l);
    for (affine::AffineForOp l : produced)
      if (failed(affine::normalizeAffineFor(l, /*promoteSingleIter=*/true)))
        return l.emitError() << "nisa-unroll: cannot normalise the loop";
    return success();
  }
};

} // namespace
