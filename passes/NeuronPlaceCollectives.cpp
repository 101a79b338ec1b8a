//===- NeuronPlaceCollectives.cpp - the neuron-place-collectives pass -----===//
//
// Splits each synchronous collective into start and done, hoisting the
// start to just after its input's definition and sinking the done to just
// before its first use (a join of collective results moving first to just
// before its own), and times it with the target's collective model.
// The work left between the two (none of it can use the result) is what
// overlaps the transfer; its time is estimated from the cost model. A
// launch right after a done that reads the result awaits it (`awaits`): it
// starts with the collective in flight and waits inside, and its kernel
// records when the result is predicted to arrive
// (`neuron.input_arrivals_ns`) for nisa-schedule.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/CollectiveTiming.h"
#include "passes/ReportFile.h"
#include "passes/TargetLoading.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "runtime/target/CollectiveModel.h"
#include "runtime/target/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <nlohmann/json.hpp>


namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONPLACECOLLECTIVES
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
namespace rt = ::neuron::rt;
using json = nlohmann::ordered_json;

namespace {

/// Moves each join of collective results (a view of their outputs in the
/// program: no work) to just before its first use, so the collectives'
/// dones, placed before the join, sink as far as a whole collective's
/// would.
void sinkJoins(Block &block) {
  SmallVector<ConcatOp> joins;
  for (auto join : block.getOps<ConcatOp>())
    if (joinsCollectiveResults(join))
      joins.push_back(join);
  for (ConcatOp join : joins) {
    Operation *firstUse = block.getTerminator();
    for (Operation *user : join->getUsers()) {
      Operation *ancestor = block.findAncestorOpInBlock(*user);
      if (ancestor && ancestor->isBeforeInBlock(firstUse))
        firstUse = ancestor;
    }
    join->moveBefore(firstUse);
  }
}

/// Whether no step but a collective's done comes between `from` and `to`
/// (later in the same block): no kernel, host call or collective start,
/// which could read what `from` finishes.
bool nothingRunsBetween(Operation *from, Operation *to) {
  for (Operation *o = from->getNextNode(); o != to; o = o->getNextNode())
    if (!o || isa<LaunchOp, HostCallOp, CustomKernelOp>(o) ||
        getCollectiveInfo(o))
      return false;
  return true;
}

/// Sets `awaits` on each launch of `block` for its inputs that are results
/// of collectives done right before it (and not written in place): the
/// launch starts while they are in flight.
void markAwaits(Block &block, bool summary) {
  for (LaunchOp launch : block.getOps<LaunchOp>()) {
    SmallVector<int64_t> awaited;
    SmallVector<std::string> kinds;
    ArrayRef<int64_t> inPlace =
        launch.getInPlace().value_or(ArrayRef<int64_t>());
    for (auto [i, input] : llvm::enumerate(launch.getInputs())) {
      SmallVector<CollectiveDoneOp> dones = collectiveDonesOf(input);
      if (dones.empty() || llvm::is_contained(inPlace, int64_t(i)) ||
          !llvm::all_of(dones, [&](CollectiveDoneOp done) {
            return done->getBlock() == &block &&
                   nothingRunsBetween(done, launch);
          }))
        continue;
      awaited.push_back(int64_t(i));
      auto start =
          dones.front().getHandle().getDefiningOp<CollectiveStartOp>();
      std::string chunks =
          dones.size() > 1 ? llvm::formatv(" in {0} chunks", dones.size())
                           : std::string();
      kinds.push_back(llvm::formatv("input {0} ({1}{2})", i,
                                    stringifyCollectiveKind(start.getKind()),
                                    chunks));
    }
    if (awaited.empty()) {
      launch.removeAwaitsAttr();
      continue;
    }
    launch.setAwaits(awaited);
    if (summary)
      launch.emitRemark()
          << "neuron-place-collectives: launch of @" << launch.getKernel()
          << " awaits " << llvm::join(kinds, ", ")
          << " inside: it starts while the collective is in flight, and "
             "only its reads of the result wait for it";
  }
}

struct NeuronPlaceCollectivesPass
    : public mlir::neuron::impl::NeuronPlaceCollectivesBase<
          NeuronPlaceCollectivesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    arrivals.clear();
    FailureOr<LoadedTarget> loaded = loadTarget(
        module, "neuron-place-collectives", target, targetDir, "trn2.48xlarge");
    if (failed(loaded))
      return signalPassFailure();
    const rt::ResolvedTarget *resolved = &loaded->target;
    absl::StatusOr<rt::CollectiveModel> links =
        rt::CollectiveModel::forTarget(*resolved);
    absl::StatusOr<rt::CostModel> engines = rt::CostModel::forTarget(*resolved);
    if (!links.ok() || !engines.ok()) {
      module.emitError() << "neuron-place-collectives: "
                         << std::string(!links.ok() ? links.status().message()
                                                    : engines.status().message());
      return signalPassFailure();
    }
    json entries = json::array();
    WalkResult result = module.walk([&](func::FuncOp f) {
      if (f.isExternal())
        return WalkResult::advance();
      for (Block &block : f.getBody())
        if (failed(placeBlock(block, *resolved, *links, *engines, entries)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    recordArrivals(module);
    arrivals.clear();
    if (!report.empty() && failed(writeReport(module, *resolved, *links,
                                              entries)))
      return signalPassFailure();
  }

  /// Gives each kernel that a launch awaiting collectives runs
  /// `neuron.input_arrivals_ns`: per input, when it is predicted to arrive
  /// after the kernel starts (the collective's time left once the launch
  /// begins), the earliest over the kernel's launches, so nisa-schedule
  /// orders the kernel's other work first. Other launched kernels get none.
  void recordArrivals(ModuleOp module) {
    llvm::MapVector<func::FuncOp, SmallVector<double>> byKernel;
    module.walk([&](LaunchOp launch) {
      auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
          launch, launch.getKernelAttr());
      if (!kernel)
        return;
      SmallVector<double> mine(launch.getInputs().size(), 0.0);
      for (int64_t input : launch.getAwaits().value_or(ArrayRef<int64_t>()))
        for (CollectiveDoneOp done :
             collectiveDonesOf(launch.getInputs()[input]))
          mine[input] = std::max(mine[input], arrivals.lookup(done));
      auto [it, added] = byKernel.try_emplace(kernel, mine);
      if (!added)
        for (auto [was, now] : llvm::zip(it->second, mine))
          was = std::min(was, now);
    });
    for (auto &[kernel, times] : byKernel) {
      if (llvm::none_of(times, [](double t) { return t > 0; })) {
        kernel->removeAttr(kInputArrivalsAttr);
        continue;
      }
      kernel->setAttr(kInputArrivalsAttr,
                      DenseF64ArrayAttr::get(kernel.getContext(), times));
    }
  }

  /// Per collective_done placed: the collective's predicted time beyond the
  /// work between its start and it.
  DenseMap<Operation *, double> arrivals;

  LogicalResult placeBlock(Block &block, const rt::ResolvedTarget &t,
                           const rt::CollectiveModel &links,
                           const rt::CostModel &engines, json &entries) {
    sinkJoins(block);
    SmallVector<Operation *> collectives;
    for (Operation &op : block)
      if (!isa<CollectiveStartOp>(op) && getCollectiveInfo(&op))
        collectives.push_back(&op);
    for (Operation *op : collectives)
      if (failed(place(op, *getCollectiveInfo(op), t, links, engines,
                       entries)))
        return failure();
    if (awaitInKernels)
      markAwaits(block, summary);
    else
      for (LaunchOp launch : block.getOps<LaunchOp>())
        launch.removeAwaitsAttr();
    return success();
  }

  LogicalResult place(Operation *op, const CollectiveInfo &c,
                      const rt::ResolvedTarget &t,
                      const rt::CollectiveModel &links,
                      const rt::CostModel &engines, json &entries) {
    int64_t cores = 1;
    for (int64_t size : c.grid)
      cores *= size;
    int64_t available = t.logicalCoresPerInstance();
    if (cores > available)
      return op->emitError()
             << "neuron-place-collectives: the grid [" << c.grid << "] has "
             << cores << " logical cores, but " << t.spec() << " holds "
             << available << " (" << t.logicalCoresPerChip()
             << " logical cores per chip at lnc=" << t.lnc.lnc << ", "
             << t.chips() << " chip" << (t.chips() == 1 ? "" : "s")
             << "); use a smaller grid or a larger instance";

    Block *block = op->getBlock();
    Value result = op->getResult(0);
    rt::CollectiveQuery q = collectiveQuery(
        c,
        double(tensorBytes(c.kind == CollectiveKind::all_gather
                               ? result.getType()
                               : c.input.getType())),
        t);
    rt::CollectiveChoice choice = links.choose(q);

    // Start right after the input exists; finish right before the first
    // op of this block that needs the result (or at the block's end).
    Operation *def = c.input.getDefiningOp();
    Operation *startAfter =
        def && def->getBlock() == block ? def : nullptr;
    Operation *firstUse = block->getTerminator();
    for (Operation *user : result.getUsers()) {
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (ancestor && ancestor->isBeforeInBlock(firstUse))
        firstUse = ancestor;
    }
    int64_t hoisted = 0, sunk = 0;
    for (Operation *o = op->getPrevNode(); o && o != startAfter;
         o = o->getPrevNode())
      ++hoisted;
    for (Operation *o = op->getNextNode(); o && o != firstUse;
         o = o->getNextNode())
      ++sunk;

    OpBuilder b(op);
    if (startAfter)
      b.setInsertionPointAfter(startAfter);
    else
      b.setInsertionPointToStart(block);
    auto resultType = cast<RankedTensorType>(result.getType());
    auto start = CollectiveStartOp::create(
        b, op->getLoc(), PendingType::get(op->getContext(), resultType),
        CollectiveKindAttr::get(op->getContext(), c.kind), c.input,
        b.getDenseI64ArrayAttr(c.grid), b.getDenseI64ArrayAttr(c.axes),
        c.reduction ? CollectiveReductionAttr::get(op->getContext(),
                                                    *c.reduction)
                    : CollectiveReductionAttr(),
        c.axis ? b.getI64IntegerAttr(*c.axis) : IntegerAttr(),
        c.split ? b.getI64IntegerAttr(*c.split) : IntegerAttr(),
        c.concat ? b.getI64IntegerAttr(*c.concat) : IntegerAttr());
    b.setInsertionPoint(firstUse);
    auto done = CollectiveDoneOp::create(b, op->getLoc(), resultType,
                                         start.getHandle());
    result.replaceAllUsesWith(done.getResult());
    op->erase();

    double overlap = 0;
    for (Operation *o = start->getNextNode(); o != done; o = o->getNextNode())
      overlap += estimateNs(o, engines);
    double covered = choice.ns > 0 ? std::min(1.0, overlap / choice.ns) : 1;
    arrivals[done.getOperation()] = std::max(0.0, choice.ns - overlap);
    start->setAttr("algorithm",
                   b.getStringAttr(rt::algorithmName(choice.algorithm)));
    start->setAttr("chunks", b.getI64IntegerAttr(choice.chunks));
    start->setAttr("predicted_ns", b.getF64FloatAttr(choice.ns));

    std::string where =
        startAfter ? "right after its input is defined"
                   : "at the start of the block (its input is an argument "
                     "or defined outside)";
    std::string why = llvm::formatv(
        "{0} of {1:f1} KiB over {2} cores on {3} chip{4}: {5}{6}, predicted "
        "{7:f2} us ({8}); started {9}, {10} ops earlier; done sunk {11} ops "
        "later, before {12}; {13:f2} us of independent work overlaps it "
        "({14:f0}%)",
        stringifyCollectiveKind(c.kind), q.bytes / 1024, q.cores, q.chips,
        q.chips == 1 ? "" : "s", rt::algorithmName(choice.algorithm),
        choice.chunks > 1 ? " in " + std::to_string(choice.chunks) + " chunks"
                          : std::string(),
        choice.ns * 1e-3, choice.candidates, where, hoisted, sunk,
        isa<func::ReturnOp>(firstUse)
            ? std::string("the return")
            : "its first use ('" + firstUse->getName().getStringRef().str() +
                  "')",
        overlap * 1e-3, covered * 100);
    if (summary)
      start.emitRemark() << "neuron-place-collectives: " << why;
    std::string loc;
    llvm::raw_string_ostream locStream(loc);
    start.getLoc().print(locStream);
    entries.push_back({{"location", loc},
                       {"kind", stringifyCollectiveKind(c.kind).str()},
                       {"bytes", q.bytes},
                       {"cores", q.cores},
                       {"chips", q.chips},
                       {"algorithm", std::string(rt::algorithmName(
                                         choice.algorithm))},
                       {"chunks", choice.chunks},
                       {"predicted_ns", choice.ns},
                       {"candidates", choice.candidates},
                       {"start", where},
                       {"start_hoisted_ops", hoisted},
                       {"done_sunk_ops", sunk},
                       {"overlap_ns", overlap},
                       {"overlap_fraction", covered},
                       {"explanation", why}});
    return success();
  }

  LogicalResult writeReport(ModuleOp module, const rt::ResolvedTarget &t,
                            const rt::CollectiveModel &links,
                            const json &entries) {
    json doc = {{"schema", "neuron-collective-placement/1"},
                {"target",
                 {{"spec", t.spec()},
                  {"lnc", t.lnc.lnc},
                  {"lnc_definition", t.lnc.definition},
                  {"logical_cores_per_chip", t.logicalCoresPerChip()},
                  {"chips", t.chips()}}},
                {"model", links.assumptions()},
                {"collectives", entries}};
    return writeReportFile(module, "neuron-place-collectives",
                           "placement report", report, doc.dump(2) + "\n");
  }
};

} // namespace
