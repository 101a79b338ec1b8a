//===- NisaSchedule.cpp - the nisa-schedule pass --------------------------===//
//
// List scheduling of each kernel's dependence graph (passes/KernelGraph.h)
// onto the engines and DMA queues of one core, timed by the target's cost
// model. Time advances monotonically: at each step the resource class that
// can start something earliest starts, of its ready instructions, the one
// with the longest remaining path (critical-path priority; block order
// breaks ties). Each class keeps a heap of instructions waiting for their
// operands (by earliest start) and a heap of those ready (by priority), so
// scheduling is O(n log n + dependences).
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGraph.h"
#include "passes/Passes.h"
#include "passes/TargetLoading.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <queue>

namespace mlir::neuron {
#define GEN_PASS_DEF_NISASCHEDULE
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

namespace {

struct Schedule {
  std::vector<double> start, end;
  std::vector<int64_t> queue;
  /// Instruction indices in issue order.
  std::vector<uint32_t> order;
  double makespan = 0, criticalPath = 0, serial = 0;
  double busy[rt::kEngineClasses] = {};
  std::vector<uint32_t> criticalChain;
  /// When each unit (engines, then DMA queues) is free after it.
  std::vector<double> unitFree;
};

/// The units of a core: the four engines, then the DMA queues.
static constexpr int kFirstQueueUnit = int(rt::EngineClass::Dma);

/// List-schedules `n` instructions with predecessors `preds` (local
/// indices, each before its successor), none starting before `ready` nor
/// on a unit before `unitFree` (engines, then queues).
Schedule listSchedule(ArrayRef<SmallVector<uint32_t, 4>> preds,
                      ArrayRef<double> duration, ArrayRef<rt::EngineClass> cls,
                      int queues, ArrayRef<double> ready,
                      ArrayRef<double> unitFree) {
  size_t n = preds.size();
  Schedule s;
  s.start.assign(n, 0);
  s.end.assign(n, 0);
  s.queue.assign(n, -1);

  // Successors (CSR) and the longest path from each instruction to the end.
  std::vector<uint32_t> succBegin(n + 1, 0), succ, remaining(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (uint32_t from : preds[i]) {
      ++succBegin[from + 1];
      ++remaining[i];
    }
  for (size_t i = 0; i < n; ++i)
    succBegin[i + 1] += succBegin[i];
  succ.resize(succBegin[n]);
  {
    std::vector<uint32_t> fill(succBegin.begin(), succBegin.end() - 1);
    for (size_t i = 0; i < n; ++i)
      for (uint32_t from : preds[i])
        succ[fill[from]++] = i;
  }
  std::vector<double> tail(duration.begin(), duration.end());
  for (size_t i = n; i-- > 0;)
    for (uint32_t from : preds[i])
      tail[from] = std::max(tail[from], duration[from] + tail[i]);
  for (size_t i = 0; i < n; ++i) {
    s.criticalPath = std::max(s.criticalPath, tail[i]);
    s.serial += duration[i];
    s.busy[int(cls[i])] += duration[i];
  }
  if (n) {
    uint32_t at = std::max_element(tail.begin(), tail.end()) - tail.begin();
    for (;;) {
      s.criticalChain.push_back(at);
      double rest = tail[at] - duration[at];
      int64_t next = -1;
      for (uint32_t k = succBegin[at]; k < succBegin[at + 1]; ++k)
        if (tail[succ[k]] >= rest * (1 - 1e-12) &&
            (next < 0 || tail[succ[k]] > tail[next]))
          next = succ[k];
      if (next < 0 || rest <= 0)
        break;
      at = next;
    }
  }

  // Per class: instructions whose operands are pending (by earliest start)
  // and those ready (by priority, then block order).
  std::vector<double> earliest(n, 0);
  using Pending = std::pair<double, uint32_t>;
  auto byPriority = [&](uint32_t a, uint32_t b) {
    return tail[a] != tail[b] ? tail[a] < tail[b] : a > b;
  };
  struct Class {
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
    std::vector<uint32_t> ready; // a heap under byPriority
    /// When each of its units (one engine, or the DMA queues) is free.
    std::priority_queue<std::pair<double, int>,
                        std::vector<std::pair<double, int>>, std::greater<>>
        units;
  };
  Class classes[rt::kEngineClasses];
  for (int c = 0; c < rt::kEngineClasses; ++c) {
    int units = c == int(rt::EngineClass::Dma) ? queues : 1;
    for (int u = 0; u < units; ++u)
      classes[c].units.push({unitFree[c == int(rt::EngineClass::Dma)
                                          ? kFirstQueueUnit + u
                                          : c],
                             u});
  }
  for (size_t i = 0; i < n; ++i) {
    earliest[i] = ready[i];
    if (!remaining[i])
      classes[int(cls[i])].pending.push({earliest[i], uint32_t(i)});
  }
  s.unitFree.assign(unitFree.begin(), unitFree.end());

  s.order.reserve(n);
  while (s.order.size() < n) {
    int best = -1;
    double bestTime = 0;
    for (int c = 0; c < rt::kEngineClasses; ++c) {
      Class &k = classes[c];
      if (k.ready.empty() && k.pending.empty())
        continue;
      double t = k.units.top().first;
      if (k.ready.empty())
        t = std::max(t, k.pending.top().first);
      if (best < 0 || t < bestTime) {
        best = c;
        bestTime = t;
      }
    }
    Class &k = classes[best];
    while (!k.pending.empty() && k.pending.top().first <= bestTime) {
      k.ready.push_back(k.pending.top().second);
      std::push_heap(k.ready.begin(), k.ready.end(), byPriority);
      k.pending.pop();
    }
    std::pop_heap(k.ready.begin(), k.ready.end(), byPriority);
    uint32_t i = k.ready.back();
    k.ready.pop_back();
    auto [free, unit] = k.units.top();
    k.units.pop();
    s.start[i] = std::max(bestTime, earliest[i]);
    s.end[i] = s.start[i] + duration[i];
    if (best == int(rt::EngineClass::Dma))
      s.queue[i] = unit;
    k.units.push({s.end[i], unit});
    s.unitFree[best == int(rt::EngineClass::Dma) ? kFirstQueueUnit + unit
                                                 : best] = s.end[i];
    s.makespan = std::max(s.makespan, s.end[i]);
    s.order.push_back(i);
    for (uint32_t e = succBegin[i]; e < succBegin[i + 1]; ++e) {
      uint32_t j = succ[e];
      earliest[j] = std::max(earliest[j], s.end[i]);
      if (--remaining[j] == 0)
        classes[int(cls[j])].pending.push({earliest[j], j});
    }
  }
  return s;
}

/// A top-level region's prediction: its time, its dependence chain's
/// length and the instructions along it.
struct RegionTiming {
  double predicted = 0, criticalPath = 0;
  SmallVector<uint32_t> chain;
};

struct NisaSchedulePass
    : public mlir::neuron::impl::NisaScheduleBase<NisaSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    absl::StatusOr<LoadedTarget> loaded = loadTarget(target, targetDir);
    absl::StatusOr<rt::CostModel> model =
        loaded.ok() ? rt::CostModel::forTarget(loaded->target)
                    : absl::StatusOr<rt::CostModel>(loaded.status());
    if (!model.ok()) {
      module.emitError() << "nisa-schedule: "
                        << std::string(model.status().message());
      return signalPassFailure();
    }
    int queues = dmaQueues > 0 ? int(dmaQueues) : model->dmaQueues();
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(NisaDialect::kLimits) || kernel.isExternal())
        continue;
      if (failed(scheduleKernel(kernel, *model, queues)))
        return signalPassFailure();
    }
  }

  /// List-schedules the straight-line instructions [first, end) of `g`,
  /// none before `ready`, on units free from `unitFree` (updated): reorders
  /// them in issue order before `anchor`, gives each its queue and
  /// `nisa.time_ns`, and returns each one's end.
  std::vector<double> scheduleSegment(const KernelGraph &g, uint32_t first,
                                      uint32_t end, ArrayRef<double> duration,
                                      ArrayRef<rt::EngineClass> cls, int queues,
                                      ArrayRef<double> ready,
                                      std::vector<double> &unitFree,
                                      Operation *anchor) {
    uint32_t n = end - first;
    std::vector<SmallVector<uint32_t, 4>> preds(n);
    for (uint32_t i = first; i < end; ++i)
      for (const Dependence &d : g.predecessors(i))
        if (d.from >= first && d.from < i)
          preds[i - first].push_back(d.from - first);
    Schedule s = listSchedule(preds, duration.slice(first, n),
                              cls.slice(first, n), queues, ready, unitFree);
    Builder b(anchor->getContext());
    for (uint32_t local : s.order) {
      Operation *op = g.instruction(first + local);
      op->moveBefore(anchor);
      if (auto dma = dyn_cast<DmaCopyOp>(op))
        dma.setQueue(s.queue[local]);
      op->setAttr(NisaDialect::kTimeNs,
                  b.getDenseF64ArrayAttr({s.start[local], s.end[local]}));
    }
    unitFree = s.unitFree;
    return s.end;
  }

  /// Gives every dma_copy of `nest` a queue: loads and stores on their own
  /// queues (splitQueues), heaviest first onto the queue with the least
  /// work (`unitFree` of the queues, then what it was given), so the
  /// copies of an unrolled body spread over the queues and away from busy
  /// ones.
  static void assignQueues(affine::AffineForOp nest,
                           const rt::CostModel &model, int queues,
                           ArrayRef<double> unitFree) {
    SmallVector<std::pair<double, DmaCopyOp>> weights =
        transferWeights(nest, model);
    std::vector<double> load(unitFree.begin() + kFirstQueueUnit,
                             unitFree.begin() + kFirstQueueUnit + queues);
    auto [loads, stores] = splitQueues(weights, queues);
    for (bool store : {false, true})
      spread(weights, store, store ? stores : loads, load,
             [](DmaCopyOp dma, int q) { dma.setQueue(q); });
  }

  /// Queue time of every transfer in `nest` over all its instances.
  static SmallVector<std::pair<double, DmaCopyOp>>
  transferWeights(affine::AffineForOp nest, const rt::CostModel &model) {
    SmallVector<std::pair<double, DmaCopyOp>> weights;
    nest.walk([&](DmaCopyOp dma) {
      int64_t instances = 1;
      for (Operation *p = dma->getParentOp(); p; p = p->getParentOp())
        if (auto loop = dyn_cast<affine::AffineForOp>(p))
          instances *= loop.getConstantUpperBound();
      weights.push_back(
          {model.nanoseconds(costQueryOf(dma)) * instances, dma});
    });
    return weights;
  }

  /// Replaces `dma` by `parts` transfers of consecutive rows (the first
  /// dimension of both sides, which must agree).
  static bool splitTransfer(DmaCopyOp dma, int64_t parts) {
    auto src = cast<MemRefType>(dma.getSrc().getType());
    auto dst = cast<MemRefType>(dma.getDst().getType());
    if (!src.getRank() || !dst.getRank() ||
        src.getDimSize(0) != dst.getDimSize(0) || src.getDimSize(0) < 2)
      return false;
    int64_t rows = src.getDimSize(0);
    int64_t chunk = llvm::divideCeil(rows, std::min(parts, rows));
    OpBuilder b(dma);
    auto rowsOf = [&](Value v, int64_t p0, int64_t count) {
      auto type = cast<MemRefType>(v.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
          sizes, strides(type.getRank(), b.getIndexAttr(1));
      offsets[0] = b.getIndexAttr(p0);
      for (int64_t d = 0; d < type.getRank(); ++d)
        sizes.push_back(b.getIndexAttr(d ? type.getDimSize(d) : count));
      return memref::SubViewOp::create(b, dma.getLoc(), v, offsets, sizes,
                                       strides);
    };
    for (int64_t p0 = 0; p0 < rows; p0 += chunk) {
      int64_t count = std::min(chunk, rows - p0);
      DmaCopyOp::create(b, dma.getLoc(), rowsOf(dma.getSrc(), p0, count),
                        rowsOf(dma.getDst(), p0, count), dma.getQueueAttr());
    }
    dma.erase();
    return true;
  }

  /// A transfer storing what the engines computed, rather than loading.
  static bool isStore(DmaCopyOp dma) {
    return getMemorySpace(dma.getSrc().getType()) != MemorySpace::hbm;
  }

  /// Queues [first, first + count).
  struct QueueSet {
    int first = 0, count = 0;
  };

  /// The queues of a nest's loads and of its stores: disjoint, in
  /// proportion to their work (each at least one), so a store waiting for
  /// the engines never holds back loads of later iterations queued behind
  /// it (a queue runs its transfers in program order).
  static std::pair<QueueSet, QueueSet>
  splitQueues(ArrayRef<std::pair<double, DmaCopyOp>> weights, int queues) {
    double loads = 0, stores = 0;
    for (auto [weight, dma] : weights)
      (isStore(dma) ? stores : loads) += weight;
    if (queues < 2 || loads == 0 || stores == 0)
      return {{0, queues}, {0, queues}};
    int s = std::clamp<int>(std::lround(queues * stores / (loads + stores)), 1,
                            queues - 1);
    return {{0, queues - s}, {queues - s, s}};
  }

  /// Longest-processing-time assignment of the loads (or stores) of
  /// `weights` to the queues of `set`, from `load` (per queue of the core);
  /// `assign` receives each transfer's queue. Returns the transfers each
  /// queue got.
  static std::vector<SmallVector<std::pair<double, DmaCopyOp>>>
  spread(SmallVector<std::pair<double, DmaCopyOp>> weights, bool stores,
         QueueSet set, std::vector<double> &load,
         function_ref<void(DmaCopyOp, int)> assign) {
    llvm::erase_if(weights, [&](auto w) { return isStore(w.second) != stores; });
    llvm::stable_sort(weights,
                      [](auto a, auto b) { return a.first > b.first; });
    std::vector<SmallVector<std::pair<double, DmaCopyOp>>> on(load.size());
    for (auto w : weights) {
      auto first = load.begin() + set.first;
      int q = std::min_element(first, first + set.count) - load.begin();
      load[q] += w.first;
      on[q].push_back(w);
      assign(w.second, q);
    }
    return on;
  }

  /// While the busiest queue of `nest`'s loads (or stores), as
  /// assignQueues would spread them, carries more than 2% over its share
  /// because transfers come in too few pieces, splits the lightest
  /// transfer on that queue over the queues of its kind (into at most as
  /// many pieces as its streaming outlasts the fixed cost of a transfer).
  static void balanceQueues(affine::AffineForOp nest,
                            const rt::CostModel &model, int queues) {
    for (int attempt = 0; attempt < 8 && queues > 1; ++attempt) {
      SmallVector<std::pair<double, DmaCopyOp>> weights =
          transferWeights(nest, model);
      auto [loads, stores] = splitQueues(weights, queues);
      bool split = false;
      for (bool store : {false, true}) {
        QueueSet set = store ? stores : loads;
        std::vector<double> load(queues, 0);
        auto on = spread(weights, store, set, load, [](DmaCopyOp, int) {});
        double total = 0, busiest = 0;
        int q = set.first;
        for (int k = set.first; k < set.first + set.count; ++k) {
          total += load[k];
          if (load[k] > busiest)
            busiest = load[k], q = k;
        }
        if (set.count < 2 || busiest <= 1.02 * total / set.count)
          continue;
        for (auto [weight, dma] : llvm::reverse(on[q])) {
          // Each piece pays the fixed cost again: only as many pieces as
          // keep each one's streaming at least as long as that.
          double streaming =
              costQueryOf(dma).bytes / model.dmaQueueBytesPerNs();
          int64_t parts = std::min<int64_t>(
              set.count, int64_t(streaming / model.dmaFixedNs()));
          if (parts >= 2 && (split = splitTransfer(dma, parts)))
            break;
        }
        if (split)
          break;
      }
      if (!split)
        return;
    }
  }

  /// The software pipeline of loop `l` (and, first, of the loops in it):
  /// per iteration each unit's busy time and the bytes it moves; the
  /// latency of one iteration along its same-iteration dependences; the
  /// interval (the busiest unit, HBM, or a recurrence through a dependence
  /// reaching back `distance` iterations, over the dependence's path inside
  /// one iteration). Records `nisa.pipeline` on the loop.
  RegionTiming estimateLoop(const KernelGraph &g, int32_t l,
                            ArrayRef<double> duration,
                            ArrayRef<int64_t> unitOf, ArrayRef<double> bytes,
                            const rt::CostModel &model,
                            std::vector<double> &busy, double &hbmBytes) {
    const LoopInfo &loop = g.getLoops()[l];
    int32_t depth = loop.depth;
    // The body's items: its own instructions and its child loops, each as
    // a [first, end) range, in program order.
    struct Item {
      uint32_t first, end;
      double time;
      SmallVector<uint32_t> chain;
    };
    SmallVector<Item> items;
    std::vector<double> myBusy(busy.size(), 0);
    double myBytes = 0;
    for (uint32_t i = loop.first; i < loop.end;) {
      ArrayRef<int32_t> nest = g.nestOf(i);
      if (int32_t(nest.size()) == depth + 1) {
        items.push_back({i, i + 1, duration[i], {i}});
        myBusy[unitOf[i]] += duration[i];
        myBytes += bytes[i];
        ++i;
        continue;
      }
      int32_t child = nest[depth + 1];
      std::vector<double> childBusy(busy.size(), 0);
      double childBytes = 0;
      RegionTiming t = estimateLoop(g, child, duration, unitOf, bytes, model,
                                    childBusy, childBytes);
      int64_t trips = g.getLoops()[child].trips;
      for (size_t u = 0; u < busy.size(); ++u)
        myBusy[u] += trips * childBusy[u];
      myBytes += trips * childBytes;
      items.push_back({g.getLoops()[child].first, g.getLoops()[child].end,
                       t.predicted, t.chain});
      i = g.getLoops()[child].end;
    }
    auto itemOf = [&](uint32_t i) {
      for (size_t k = 0; k < items.size(); ++k)
        if (i >= items[k].first && i < items[k].end)
          return int64_t(k);
      return int64_t(-1);
    };
    // One iteration: each item after the items it depends on in it.
    SmallVector<double> start(items.size(), 0), finish(items.size(), 0);
    SmallVector<int64_t> via(items.size(), -1);
    for (size_t k = 0; k < items.size(); ++k) {
      for (uint32_t i = items[k].first; i < items[k].end; ++i)
        for (const Dependence &d : g.predecessors(i)) {
          int64_t from = itemOf(d.from);
          if (d.carried || d.common <= depth || from < 0 ||
              from >= int64_t(k) || finish[from] <= start[k])
            continue;
          start[k] = finish[from];
          via[k] = from;
        }
      finish[k] = start[k] + items[k].time;
    }
    double latency = 0;
    int64_t last = -1;
    for (size_t k = 0; k < items.size(); ++k)
      if (finish[k] > latency)
        latency = finish[k], last = k;
    double resource = hbmBytes = 0;
    for (double b : myBusy)
      resource = std::max(resource, b);
    resource = std::max(resource, myBytes / model.hbmBytesPerNs());
    latency = std::max(latency, resource);
    // Recurrences: a dependence of item `to` on item `from` `distance`
    // iterations back, closed by `to`'s path to `from` in one iteration.
    double recurrence = 0;
    for (size_t k = 0; k < items.size(); ++k)
      for (uint32_t i = items[k].first; i < items[k].end; ++i)
        for (const Dependence &d : g.predecessors(i)) {
          int64_t from = itemOf(d.from);
          if (d.carried != depth + 1 || from < int64_t(k) || d.distance < 1)
            continue;
          recurrence = std::max(recurrence, (finish[from] - start[k]) /
                                                double(d.distance));
        }
    double interval = std::max(resource, recurrence);
    RegionTiming t;
    t.predicted = latency + (loop.trips - 1) * interval;
    t.criticalPath = latency + (loop.trips - 1) * recurrence;
    for (int64_t k = last; k >= 0; k = via[k])
      t.chain.insert(t.chain.begin(), items[k].chain.begin(),
                     items[k].chain.end());
    busy = std::move(myBusy);
    hbmBytes = myBytes;
    Builder b(loop.op->getContext());
    loop.op->setAttr(NisaDialect::kPipeline,
                     PipelineAttr::get(b.getContext(),
                                       b.getF64FloatAttr(interval),
                                       b.getF64FloatAttr(latency),
                                       b.getF64FloatAttr(t.predicted)));
    return t;
  }

  LogicalResult scheduleKernel(func::FuncOp kernel, const rt::CostModel &model,
                               int queues) {
    // Declarations (tiles, views, index arithmetic) go first, so reordering
    // the instructions keeps every value defined before its uses.
    Block &body = kernel.getBody().front();
    Operation *terminator = body.getTerminator();
    SmallVector<Operation *> declarations;
    for (Operation &op : body)
      if (!isa<EngineOpInterface, affine::AffineForOp>(op) && &op != terminator)
        declarations.push_back(&op);
    for (Operation *op : llvm::reverse(declarations))
      op->moveBefore(&body.front());

    // Loop nests whose transfers cannot share the queues evenly have their
    // lightest transfer on the busiest queue split over all of them.
    kernel.walk([&](affine::AffineForOp nest) {
      if (!nest->getParentOfType<affine::AffineForOp>())
        balanceQueues(nest, model, queues);
    });
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    const KernelGraph &g = *graph;
    size_t n = g.size();
    std::vector<double> duration(n);
    std::vector<rt::EngineClass> cls(n);
    double busyTotal[rt::kEngineClasses] = {};
    double serial = 0;
    for (size_t i = 0; i < n; ++i) {
      Operation *op = g.instruction(i);
      cls[i] = engineClassOf(op);
      duration[i] = model.nanoseconds(costQueryOf(op));
      busyTotal[int(cls[i])] += duration[i] * g.instancesOf(i);
      serial += duration[i] * g.instancesOf(i);
    }

    // The kernel's timeline, region by region (runs of straight-line
    // instructions, loop nests): when each unit is free, when each
    // instruction's last instance ends, and the longest dependence chain to
    // it. A region starts when its operands from earlier regions are ready;
    // a loop nest then takes its pipeline's time, or longer when a unit it
    // uses is still busy.
    std::vector<double> unitFree(kFirstQueueUnit + queues, 0), ends(n, 0),
        chainEnds(n, 0);
    double predicted = 0;
    auto readyOf = [&](uint32_t i, uint32_t regionFirst) {
      std::pair<double, double> r{0, 0};
      for (const Dependence &d : g.predecessors(i))
        if (d.from < regionFirst)
          r = {std::max(r.first, ends[d.from]),
               std::max(r.second, chainEnds[d.from])};
      return r;
    };
    for (uint32_t i = 0; i < n;) {
      if (g.nestOf(i).empty()) {
        uint32_t end = i;
        while (end < n && g.nestOf(end).empty())
          ++end;
        std::vector<double> ready;
        for (uint32_t j = i; j < end; ++j) {
          auto [at, chainAt] = readyOf(j, i);
          ready.push_back(at);
          // Chains through the straight-line run, in program order.
          double longest = chainAt;
          for (const Dependence &d : g.predecessors(j))
            if (d.from >= i && d.from < j)
              longest = std::max(longest, chainEnds[d.from]);
          chainEnds[j] = longest + duration[j];
        }
        Operation *anchor = end < n ? g.topLevelOf(end) : terminator;
        std::vector<double> segmentEnds = scheduleSegment(
            g, i, end, duration, cls, queues, ready, unitFree, anchor);
        for (uint32_t j = i; j < end; ++j) {
          ends[j] = segmentEnds[j - i];
          predicted = std::max(predicted, ends[j]);
        }
        i = end;
        continue;
      }
      const LoopInfo &nest = g.getLoops()[g.nestOf(i).front()];
      assignQueues(cast<affine::AffineForOp>(nest.op), model, queues,
                   unitFree);
      std::vector<int64_t> unitOf(n, 0);
      std::vector<double> bytes(n, 0);
      double start = 0, chainStart = 0;
      for (uint32_t k = nest.first; k < nest.end; ++k) {
        Operation *op = g.instruction(k);
        if (auto dma = dyn_cast<DmaCopyOp>(op)) {
          unitOf[k] = kFirstQueueUnit + dma.getQueue();
          bytes[k] = costQueryOf(op).bytes;
        } else {
          unitOf[k] = int(cls[k]);
        }
        auto [at, chainAt] = readyOf(k, nest.first);
        start = std::max(start, at);
        chainStart = std::max(chainStart, chainAt);
      }
      std::vector<double> busy(kFirstQueueUnit + queues, 0);
      double hbmBytes = 0;
      RegionTiming t = estimateLoop(g, g.nestOf(i).front(), duration, unitOf,
                                    bytes, model, busy, hbmBytes);
      double end = start + t.predicted;
      for (size_t u = 0; u < busy.size(); ++u) {
        if (busy[u] == 0)
          continue;
        double from = std::max(unitFree[u], start);
        unitFree[u] = from + busy[u] * nest.trips;
        end = std::max(end, unitFree[u]);
      }
      for (uint32_t k = nest.first; k < nest.end; ++k) {
        ends[k] = end;
        chainEnds[k] = chainStart + t.criticalPath;
      }
      predicted = std::max(predicted, end);
      i = nest.end;
    }
    double criticalPath = 0;
    uint32_t last = 0;
    for (uint32_t k = 0; k < n; ++k)
      if (chainEnds[k] > criticalPath)
        criticalPath = chainEnds[k], last = k;
    // The chain: back from its last instruction along the dependences that
    // end it.
    SmallVector<Operation *> chain;
    for (int64_t at = n ? int64_t(last) : -1; at >= 0;) {
      chain.insert(chain.begin(), g.instruction(at));
      int64_t next = -1;
      for (const Dependence &d : g.predecessors(at))
        if (d.from < at && (next < 0 || chainEnds[d.from] > chainEnds[next]))
          next = d.from;
      at = next;
    }
    double at = predicted;

    // Instruction indices in the final program order.
    DenseMap<Operation *, int64_t> index;
    kernel.walk([&](EngineOpInterface op) {
      index.try_emplace(op, index.size());
    });
    double dmaTime = busyTotal[int(rt::EngineClass::Dma)] / queues;
    double bound = std::max(dmaTime, criticalPath);
    for (int c = 0; c < int(rt::EngineClass::Dma); ++c)
      bound = std::max(bound, busyTotal[c]);
    SmallVector<int64_t> path;
    for (Operation *op : chain)
      path.push_back(index.lookup(op));
    Builder b(kernel.getContext());
    NamedAttrList attrs;
    attrs.append("predicted_ns", b.getF64FloatAttr(at));
    attrs.append("bound_ns", b.getF64FloatAttr(bound));
    attrs.append("predicted_over_bound",
                 b.getF64FloatAttr(bound > 0 ? at / bound : 1.0));
    attrs.append("critical_path_ns", b.getF64FloatAttr(criticalPath));
    attrs.append("serial_ns", b.getF64FloatAttr(serial));
    attrs.append("busy_ns", b.getDenseF64ArrayAttr(ArrayRef(busyTotal)));
    attrs.append("dma_queues", b.getI64IntegerAttr(queues));
    attrs.append("critical_path", b.getDenseI64ArrayAttr(path));
    kernel->setAttr("nisa.schedule", attrs.getDictionary(kernel.getContext()));

    if (summary)
      kernel.emitRemark() << llvm::formatv(
          "nisa-schedule: {0} instructions, predicted {1:f1} ns, bound "
          "{2:f1} ns (tensor {3:f1}, vector {4:f1}, scalar {5:f1}, gpsimd "
          "{6:f1}, dma {7:f1} over {8} queues, critical path {9:f1}), "
          "predicted/bound {10:f3}, serial {11:f1} ns",
          n, at, bound, busyTotal[0], busyTotal[1], busyTotal[2], busyTotal[3],
          dmaTime, queues, criticalPath, bound > 0 ? at / bound : 1.0, serial);
    return success();
  }
};

} // namespace
