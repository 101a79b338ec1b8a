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

Schedule listSchedule(const KernelGraph &g, ArrayRef<double> duration,
                      ArrayRef<rt::EngineClass> cls, int queues) {
  size_t n = g.size();
  Schedule s;
  s.start.assign(n, 0);
  s.end.assign(n, 0);
  s.queue.assign(n, -1);

  // Successors (CSR) and the longest path from each instruction to the end.
  std::vector<uint32_t> succBegin(n + 1, 0), succ, remaining(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (const Dependence &d : g.predecessors(i)) {
      ++succBegin[d.from + 1];
      ++remaining[i];
    }
  for (size_t i = 0; i < n; ++i)
    succBegin[i + 1] += succBegin[i];
  succ.resize(succBegin[n]);
  {
    std::vector<uint32_t> fill(succBegin.begin(), succBegin.end() - 1);
    for (size_t i = 0; i < n; ++i)
      for (const Dependence &d : g.predecessors(i))
        succ[fill[d.from]++] = i;
  }
  std::vector<double> tail(duration.begin(), duration.end());
  for (size_t i = n; i-- > 0;)
    for (const Dependence &d : g.predecessors(i))
      tail[d.from] = std::max(tail[d.from], duration[d.from] + tail[i]);
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
      if (!kernel->hasAttr("nisa.limits") || kernel.isExternal())
        continue;
      if (failed(scheduleKernel(kernel, *model, queues)))
        return signalPassFailure();
    }
  }

  LogicalResult scheduleKernel(func::FuncOp kernel, const rt::CostModel &model,
                               int queues) {
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    size_t n = graph->size();
    std::vector<double> duration(n);
    std::vector<rt::EngineClass> cls(n);
    for (size_t i = 0; i < n; ++i) {
      Operation *op = graph->instruction(i);
      cls[i] = engineClassOf(op);
      duration[i] = model.nanoseconds(costQueryOf(op));
    }
    Schedule s = listSchedule(*graph, duration, cls, queues);

    // Issue order: first everything that is not an instruction (tile
    // declarations and views, in their order), then the instructions.
    Block &body = kernel.getBody().front();
    Operation *terminator = body.getTerminator();
    SmallVector<Operation *> declarations;
    for (Operation &op : body)
      if (!isa<EngineOpInterface>(op) && &op != terminator)
        declarations.push_back(&op);
    for (Operation *op : declarations)
      op->moveBefore(terminator);
    std::vector<uint32_t> issuedAt(n);
    Builder b(kernel.getContext());
    for (auto [position, i] : llvm::enumerate(s.order)) {
      Operation *op = graph->instruction(i);
      op->moveBefore(terminator);
      issuedAt[i] = position;
      if (auto dma = dyn_cast<DmaCopyOp>(op))
        dma.setQueue(s.queue[i]);
      op->setAttr("nisa.time_ns", b.getDenseF64ArrayAttr({s.start[i], s.end[i]}));
    }

    double dmaTime = s.busy[int(rt::EngineClass::Dma)] / queues;
    double bound = std::max(dmaTime, s.criticalPath);
    for (int c = 0; c < int(rt::EngineClass::Dma); ++c)
      bound = std::max(bound, s.busy[c]);
    SmallVector<int64_t> chain;
    for (uint32_t i : s.criticalChain)
      chain.push_back(issuedAt[i]);
    NamedAttrList attrs;
    attrs.append("predicted_ns", b.getF64FloatAttr(s.makespan));
    attrs.append("bound_ns", b.getF64FloatAttr(bound));
    attrs.append("predicted_over_bound",
                 b.getF64FloatAttr(bound > 0 ? s.makespan / bound : 1.0));
    attrs.append("critical_path_ns", b.getF64FloatAttr(s.criticalPath));
    attrs.append("serial_ns", b.getF64FloatAttr(s.serial));
    attrs.append("busy_ns", b.getDenseF64ArrayAttr(ArrayRef(s.busy)));
    attrs.append("dma_queues", b.getI64IntegerAttr(queues));
    attrs.append("critical_path", b.getDenseI64ArrayAttr(chain));
    kernel->setAttr("nisa.schedule", attrs.getDictionary(kernel.getContext()));

    if (summary)
      kernel.emitRemark() << llvm::formatv(
          "nisa-schedule: {0} instructions, predicted {1:f1} ns, bound "
          "{2:f1} ns (tensor {3:f1}, vector {4:f1}, scalar {5:f1}, gpsimd "
          "{6:f1}, dma {7:f1} over {8} queues, critical path {9:f1}), "
          "predicted/bound {10:f3}, serial {11:f1} ns",
          n, s.makespan, bound, s.busy[0], s.busy[1], s.busy[2], s.busy[3],
          dmaTime, queues, s.criticalPath,
          bound > 0 ? s.makespan / bound : 1.0, s.serial);
    return success();
  }
};

} // namespace
