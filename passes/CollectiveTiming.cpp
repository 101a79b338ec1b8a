//===- CollectiveTiming.cpp - Graph-level times for collective passes -----===//
//
// A tensor's bytes, the collective model's query for a collective op, and
// a graph op's rough device time from the engines' cost model.
//
//===----------------------------------------------------------------------===//

#include "passes/CollectiveTiming.h"
#include "passes/KernelGraph.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "runtime/target/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::neuron;
namespace rt = ::neuron::rt;

int64_t mlir::neuron::tensorBytes(Type type) {
  auto t = cast<RankedTensorType>(type);
  if (!t.hasStaticShape())
    return 0;
  return t.getNumElements() *
         ((t.getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

static rt::CollectiveOp modelOp(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::all_reduce: return rt::CollectiveOp::AllReduce;
  case CollectiveKind::all_gather: return rt::CollectiveOp::AllGather;
  case CollectiveKind::reduce_scatter: return rt::CollectiveOp::ReduceScatter;
  case CollectiveKind::all_to_all: return rt::CollectiveOp::AllToAll;
  case CollectiveKind::all_slice: return rt::CollectiveOp::AllSlice;
  }
  return rt::CollectiveOp::AllReduce;
}

rt::CollectiveQuery mlir::neuron::collectiveQuery(const CollectiveInfo &c,
                                                  double bytes,
                                                  const rt::ResolvedTarget &t) {
  rt::CollectiveQuery q;
  q.op = modelOp(c.kind);
  q.bytes = bytes;
  int64_t group = 1;
  for (int64_t a : c.axes)
    group *= c.grid[a];
  q.cores = int(group);
  q.chips = rt::chipsSpanned({c.grid.begin(), c.grid.end()},
                             {c.axes.begin(), c.axes.end()},
                             t.logicalCoresPerChip());
  return q;
}

/// A graph op's time on one physical core: contractions at the tensor
/// engine's peak, other neuron ops streaming their result through the
/// vector engine.
static double physicalCoreNs(Operation *op, const rt::CostModel &model) {
  auto contraction = [&](Value lhs, Value result) {
    auto a = cast<RankedTensorType>(lhs.getType());
    auto c = cast<RankedTensorType>(result.getType());
    if (!a.hasStaticShape() || !c.hasStaticShape())
      return 0.0;
    double flops = 2.0 * c.getNumElements() * a.getShape().back();
    StringRef dtype = dtypeNameOf(a.getElementType());
    return flops / model.tensorPeakOpsPerNs(dtype.empty() ? "f32" : dtype);
  };
  if (auto m = dyn_cast<MatmulOp>(op))
    return contraction(m.getLhs(), m.getResult());
  if (auto m = dyn_cast<BatchMatmulOp>(op))
    return contraction(m.getLhs(), m.getResult());
  if (op->getDialect() != op->getContext()->getLoadedDialect<NeuronDialect>() ||
      op->getNumResults() != 1 || isa<ConstantOp, ReshapeOp>(op))
    return 0;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return 0;
  rt::CostQuery q;
  q.kind = rt::CostQuery::Kind::Elementwise;
  q.freeElements = (type.getNumElements() + 127) / 128;
  return model.nanoseconds(q);
}

/// The same over all the logical core's physical cores (nisa-split-cores
/// shares a nest's iterations between them).
static double graphOpNs(Operation *op, const rt::CostModel &model) {
  return physicalCoreNs(op, model) / model.physicalCores();
}

double mlir::neuron::estimateNs(Operation *op, const rt::CostModel &model) {
  if (auto launch = dyn_cast<LaunchOp>(op)) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        launch, launch.getKernelAttr());
    double total = 0;
    if (kernel && !kernel.isExternal())
      kernel.walk([&](Operation *inner) {
        if (inner != kernel.getOperation())
          total += graphOpNs(inner, model);
      });
    return total;
  }
  // A program's views, constants and collectives name bytes it holds or
  // move them between cores.
  auto parent = op->getParentOfType<func::FuncOp>();
  if (!isa<HostCallOp>(op) && parent && parent->hasAttr("neuron.program"))
    return 0;
  return graphOpNs(op, model);
}
