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
};

/// List-schedules `n` instructions with predecessors `preds` (local
/// indices, each before its successor).
Schedule listSchedule(ArrayRef<SmallVector<uint32_t, 4>> preds,
                      ArrayRef<double> duration, ArrayRef<rt::EngineClass> cls,
                      int queues) {
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
      classes[c].units.push({0.0, u});
  }
  for (size_t i = 0; i < n; ++i)
    if (!remaining[i])
      classes[int(cls[i])].pending.push({0.0, uint32_t(i)});

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

  /// List-schedules the straight-line instructions [first, end) of `g`
  /// from `at` ns: reorders them in issue order before `anchor`, gives
  /// each its queue and `nisa.time_ns`.
  RegionTiming scheduleSegment(const KernelGraph &g, uint32_t first,
                               uint32_t end, ArrayRef<double> duration,
                               ArrayRef<rt::EngineClass> cls, int queues,
                               double at, Operation *anchor) {
    uint32_t n = end - first;
    std::vector<SmallVector<uint32_t, 4>> preds(n);
    for (uint32_t i = first; i < end; ++i)
      for (const Dependence &d : g.predecessors(i))
        if (d.from >= first && d.from < i)
          preds[i - first].push_back(d.from - first);
    Schedule s = listSchedule(preds, duration.slice(first, n),
                              cls.slice(first, n), queues);
    Builder b(anchor->getContext());
    for (uint32_t local : s.order) {
      Operation *op = g.instruction(first + local);
      op->moveBefore(anchor);
      if (auto dma = dyn_cast<DmaCopyOp>(op))
        dma.setQueue(s.queue[local]);
      op->setAttr(NisaDialect::kTimeNs,
                  b.getDenseF64ArrayAttr(
                      {at + s.start[local], at + s.end[local]}));
    }
    RegionTiming t;
    t.predicted = s.makespan;
    t.criticalPath = s.criticalPath;
    for (uint32_t local : s.criticalChain)
      t.chain.push_back(first + local);
    return t;
  }

  /// Gives every dma_copy of the loop nest [first, end) a queue, heaviest
  /// first onto the least loaded queue (time over all its instances), so
  /// the copies of an unrolled body spread over the queues.
  static void assignQueues(const KernelGraph &g, uint32_t first, uint32_t end,
                           ArrayRef<double> duration, int queues) {
    SmallVector<std::pair<double, uint32_t>> dmas;
    for (uint32_t i = first; i < end; ++i)
      if (isa<DmaCopyOp>(g.instruction(i)))
        dmas.push_back({duration[i] * g.instancesOf(i), i});
    llvm::stable_sort(dmas, [](auto a, auto b) { return a.first > b.first; });
    std::vector<double> load(queues, 0);
    for (auto [weight, i] : dmas) {
      int q = std::min_element(load.begin(), load.end()) - load.begin();
      load[q] += weight;
      cast<DmaCopyOp>(g.instruction(i)).setQueue(q);
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

    // Top-level regions in order: runs of straight-line instructions and
    // loop nests.
    double at = 0, criticalPath = 0;
    SmallVector<Operation *> chain;
    for (uint32_t i = 0; i < n;) {
      if (g.nestOf(i).empty()) {
        uint32_t end = i;
        while (end < n && g.nestOf(end).empty())
          ++end;
        Operation *anchor = end < n ? g.topLevelOf(end) : terminator;
        RegionTiming t = scheduleSegment(g, i, end, duration, cls, queues, at,
                                         anchor);
        at += t.predicted;
        criticalPath += t.criticalPath;
        for (uint32_t c : t.chain)
          chain.push_back(g.instruction(c));
        i = end;
        continue;
      }
      const LoopInfo &nest = g.getLoops()[g.nestOf(i).front()];
      assignQueues(g, nest.first, nest.end, duration, queues);
      std::vector<int64_t> unitOf(n, 0);
      std::vector<double> bytes(n, 0);
      for (uint32_t k = nest.first; k < nest.end; ++k) {
        Operation *op = g.instruction(k);
        if (auto dma = dyn_cast<DmaCopyOp>(op)) {
          unitOf[k] = rt::kEngineClasses - 1 + dma.getQueue();
          bytes[k] = costQueryOf(op).bytes;
        } else {
          unitOf[k] = int(cls[k]);
        }
      }
      std::vector<double> busy(rt::kEngineClasses - 1 + queues, 0);
      double hbmBytes = 0;
      RegionTiming t = estimateLoop(g, g.nestOf(i).front(), duration, unitOf,
                                    bytes, model, busy, hbmBytes);
      at += t.predicted;
      criticalPath += t.criticalPath;
      for (uint32_t c : t.chain)
        chain.push_back(g.instruction(c));
      i = nest.end;
    }

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
