//===- NisaSchedule.cpp - the nisa-schedule pass --------------------------===//
//
// Schedules each kernel onto the engines and DMA queues of one core, timed
// by the target's cost model:
//
// - Transfers run on DMA queues, one per stream a region runs side by
//   side (the loads, or the stores, of one loop body): a queue starts its
//   transfers in program order on whichever DMA engine is free, so a
//   loop's transfers spread over the engines by themselves, and streams
//   apart mean a prefetch running ahead, or a store waiting for the
//   engines, never holds back another stream. A long straight-line
//   transfer (a whole tensor at once) is cut into pieces the engines move
//   side by side.
// - Straight-line instructions move to the first run of them after all
//   they depend on, so work waiting for nothing starts at once; each run is
//   list-scheduled (the resource that can start something earliest starts
//   its ready instruction with the longest remaining path) and reordered
//   in issue order, each instruction getting `nisa.time_ns`.
// - Each loop nest is software-pipelined by the units' decoupled streams,
//   the straight-line runs of its bodies reordered in issue order too:
//   its prediction is one iteration's latency (fill and drain) plus the
//   steady-state interval (busiest unit, HBM, or a recurrence through a
//   dependence reaching back iterations) times the remaining trips,
//   recorded as `#nisa.pipeline` on every loop.
// - The kernel is laid out region by region on a timeline of each lane's
//   busy intervals: a region's instruction starts when its operands from
//   earlier regions are ready, inputs arriving while the kernel runs
//   (`neuron.input_arrivals_ns`) have arrived, and its lane is free: an
//   engine after its earlier work (it runs in program order), a transfer
//   when a DMA engine is idle, in the gaps earlier regions leave too. The
//   kernel gets `nisa.schedule`: the
//   prediction, the bound max(busy tensor, vector, scalar, gpsimd, dma /
//   DMA engines, critical path), the serial time and busy time per
//   resource class.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGraph.h"
#include "passes/Passes.h"
#include "passes/TargetLoading.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <queue>

namespace mlir::neuron {
#define GEN_PASS_DEF_NISASCHEDULE
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

namespace {

/// Lanes run one instruction at a time: the four engines, then the DMA
/// engines. Units are what a stream runs on: the engines (one lane each),
/// then the DMA queues (each on any DMA engine).
constexpr int kFirstQueueLane = int(rt::EngineClass::Dma);

/// The units and lanes of a logical core of `cores` physical cores, each
/// with its four engines and `queues` DMA queues sharing its `engines` DMA
/// engines: physical core c's unit u is c * perCore() + u, its lane l
/// c * lanesPerCore() + l.
struct Layout {
  int cores = 1, queues = 1, engines = 1;

  int perCore() const { return kFirstQueueLane + queues; }
  int lanesPerCore() const { return kFirstQueueLane + engines; }
  int lanes() const { return cores * lanesPerCore(); }
  bool isQueue(int unit) const { return unit % perCore() >= kFirstQueueLane; }
  int coreOfUnit(int unit) const { return unit / perCore(); }
  /// The unit `op` runs on.
  int unitOf(Operation *op) const {
    int local = int(engineClassOf(op));
    if (auto dma = dyn_cast<DmaCopyOp>(op))
      local = kFirstQueueLane + int(dma.getQueue());
    return int(coreOf(op)) * perCore() + local;
  }
  /// Each unit's lanes.
  std::vector<SmallVector<int>> unitLanes() const {
    std::vector<SmallVector<int>> out(cores * perCore());
    for (int c = 0; c < cores; ++c) {
      int base = c * lanesPerCore();
      for (int e = 0; e < kFirstQueueLane; ++e)
        out[c * perCore() + e] = {base + e};
      for (int q = 0; q < queues; ++q)
        out[c * perCore() + kFirstQueueLane + q] = llvm::to_vector(
            llvm::seq<int>(base + kFirstQueueLane, base + lanesPerCore()));
    }
    return out;
  }
};

/// How many instances of loop transfer `dma` may be in flight at once: the
/// slots its on-chip tile rotates through; none bound where each instance
/// has its own part of a tile made outside the loop (the view moves with
/// it), 1 where they all reuse one.
static std::optional<int64_t> slotsInFlight(DmaCopyOp dma) {
  auto loop = dma->getParentOfType<affine::AffineForOp>();
  if (!loop)
    return std::nullopt;
  Value tile = isStore(dma) ? dma.getSrc() : dma.getDst();
  if (getMemorySpace(cast<MemRefType>(tile.getType())) == MemorySpace::hbm)
    return std::nullopt; // HBM to HBM: no tile
  // The views from the tile to its root (each viewing operand 0), moving
  // when an offset comes from inside the loop.
  Value root = viewRoot(tile);
  bool moves = false;
  for (Value v = tile; v != root; v = v.getDefiningOp()->getOperand(0))
    for (Value operand : v.getDefiningOp()->getOperands().drop_front())
      moves |= loop->isAncestor(operand.getParentBlock()->getParentOp());
  auto alloc = root.getDefiningOp<memref::AllocOp>();
  if (!alloc || !loop->isAncestor(alloc))
    return moves ? std::nullopt : std::optional<int64_t>(1);
  auto slots = alloc->getAttrOfType<SlotsAttr>(NisaDialect::kSlots);
  return slots ? std::max<int64_t>(slots.getCount(), 1) : 1;
}

/// How many times `op` runs: the trips of the loops around it.
static int64_t instancesOf(Operation *op) {
  int64_t n = 1;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (auto loop = dyn_cast<affine::AffineForOp>(p))
      n *= loop.getConstantUpperBound();
  return n;
}

struct Schedule {
  std::vector<double> start, end;
  /// Instruction indices in issue order.
  std::vector<uint32_t> order;
  double makespan = 0;
  /// The lane each instruction runs on.
  std::vector<int> lane;
};

/// The lane of `lanes` free first.
static int firstFree(ArrayRef<int> lanes, ArrayRef<double> laneFree) {
  int lane = lanes.front();
  for (int l : lanes)
    if (laneFree[l] < laneFree[lane])
      lane = l;
  return lane;
}

/// List-schedules `n` instructions with predecessors `preds` (local
/// indices, each before its successor) on `units` (their lanes), none
/// starting before `ready` nor on a lane before `laneFree`. A unit free to
/// start several takes the one with the longest path to the end or, with
/// `inBlockOrder`, the first in the block.
Schedule listSchedule(ArrayRef<SmallVector<uint32_t, 4>> preds,
                      ArrayRef<double> duration, ArrayRef<int> unit,
                      ArrayRef<SmallVector<int>> units, ArrayRef<double> ready,
                      ArrayRef<double> laneFree, bool inBlockOrder = false) {
  size_t n = preds.size();
  Schedule s;
  s.start.assign(n, 0);
  s.end.assign(n, 0);
  s.lane.assign(n, 0);

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

  // Per unit: instructions whose operands are pending (by earliest start)
  // and those ready (by priority, then block order), and its lanes by when
  // they are free.
  std::vector<double> earliest(ready.begin(), ready.end());
  using Pending = std::pair<double, uint32_t>;
  auto byPriority = [&](uint32_t a, uint32_t b) {
    return tail[a] != tail[b] && !inBlockOrder ? tail[a] < tail[b] : a > b;
  };
  struct Unit {
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
    std::vector<uint32_t> ready; // a heap under byPriority
  };
  std::vector<Unit> work(units.size());
  for (size_t i = 0; i < n; ++i)
    if (!remaining[i])
      work[unit[i]].pending.push({earliest[i], uint32_t(i)});
  // When each lane is free, and a unit's lane free first (units may share
  // lanes).
  std::vector<double> free(laneFree.begin(), laneFree.end());
  auto freeLane = [&](size_t u) { return firstFree(units[u], free); };
  s.order.reserve(n);
  while (s.order.size() < n) {
    int best = -1;
    double bestTime = 0;
    for (size_t u = 0; u < work.size(); ++u) {
      Unit &k = work[u];
      if (k.ready.empty() && k.pending.empty())
        continue;
      double t = free[freeLane(u)];
      if (k.ready.empty())
        t = std::max(t, k.pending.top().first);
      if (best < 0 || t < bestTime) {
        best = u;
        bestTime = t;
      }
    }
    Unit &k = work[best];
    while (!k.pending.empty() && k.pending.top().first <= bestTime) {
      k.ready.push_back(k.pending.top().second);
      std::push_heap(k.ready.begin(), k.ready.end(), byPriority);
      k.pending.pop();
    }
    std::pop_heap(k.ready.begin(), k.ready.end(), byPriority);
    uint32_t i = k.ready.back();
    k.ready.pop_back();
    int lane = freeLane(best);
    s.start[i] = std::max(bestTime, earliest[i]);
    s.end[i] = s.start[i] + duration[i];
    free[lane] = s.end[i];
    s.lane[i] = lane;
    s.makespan = std::max(s.makespan, s.end[i]);
    s.order.push_back(i);
    for (uint32_t e = succBegin[i]; e < succBegin[i + 1]; ++e) {
      uint32_t j = succ[e];
      earliest[j] = std::max(earliest[j], s.end[i]);
      if (--remaining[j] == 0)
        work[unit[j]].pending.push({earliest[j], j});
    }
  }
  return s;
}

/// The dependences among `g`'s instructions [first, end), by local index
/// (each before its successor), for listSchedule: every one, or with
/// `sameIteration` (a loop body's) those within one iteration.
static std::vector<SmallVector<uint32_t, 4>>
localPredecessors(const KernelGraph &g, uint32_t first, uint32_t end,
                  bool sameIteration = false) {
  std::vector<SmallVector<uint32_t, 4>> preds(end - first);
  for (uint32_t i = first; i < end; ++i)
    for (const Dependence &d : g.predecessors(i))
      if (d.from >= first && d.from < i && !(sameIteration && d.carried))
        preds[i - first].push_back(d.from - first);
  return preds;
}

/// How long `iterations` back-to-back iterations of the loop body
/// [first, end) of `g` take issued in `order` (local indices): each unit
/// starts its instructions in that order, iteration after iteration, each
/// after its predecessors in its iteration (`preds`) and those the
/// innermost loop carries from earlier ones. The in-order engines overlap
/// the iterations so; one iteration's makespan alone does not tell the
/// orders apart.
static double pipelinedNs(const KernelGraph &g, uint32_t first, uint32_t end,
                          ArrayRef<uint32_t> order,
                          ArrayRef<SmallVector<uint32_t, 4>> preds,
                          ArrayRef<double> duration, ArrayRef<int> unit,
                          ArrayRef<SmallVector<int>> units, size_t lanes,
                          int64_t iterations) {
  uint32_t n = end - first;
  std::vector<double> laneFree(lanes, 0), unitStart(units.size(), 0);
  std::vector<std::vector<double>> ends(iterations, std::vector<double>(n));
  double makespan = 0;
  for (int64_t t = 0; t < iterations; ++t)
    for (uint32_t i : order) {
      double at = unitStart[unit[i]];
      for (uint32_t p : preds[i])
        at = std::max(at, ends[t][p]);
      for (const Dependence &d : g.predecessors(first + i))
        if (d.from >= first && d.from < end &&
            d.carried == int32_t(g.nestOf(first + i).size()) &&
            d.distance <= t)
          at = std::max(at, ends[t - d.distance][d.from - first]);
      int lane = firstFree(units[unit[i]], laneFree);
      at = std::max(at, laneFree[lane]);
      unitStart[unit[i]] = at;
      ends[t][i] = laneFree[lane] = at + duration[i];
      makespan = std::max(makespan, ends[t][i]);
    }
  return makespan;
}

/// Per instruction of a loop, from its first: when it starts in the first
/// iteration after the loop starts (`head`), and how long before the loop
/// ends it finishes in the last (`tail`). A dependence on an instruction in
/// the middle of a loop waits that much less than for the whole loop.
struct Offsets {
  std::vector<double> head, tail;
};

/// A loop's prediction: its time and its longest dependence chain.
struct LoopTiming {
  /// `latency` is one iteration's time: the last starts that long before
  /// the loop ends. `released` is when the first iteration ends with its
  /// instructions released at the times estimateLoop was given.
  double predicted = 0, criticalPath = 0, latency = 0, released = 0;
  /// Its instructions' offsets in its time and along its chain.
  Offsets timed, chained;
};

/// The kernel's timeline: when each lane is busy, as sorted disjoint
/// intervals, so later work may take the idle time earlier work leaves (a
/// run's DMA engines between its loads and the stores waiting for its
/// results).
class LaneTimeline {
public:
  explicit LaneTimeline(int lanes) : busy(lanes) {}

  /// When `lane`'s last work ends.
  double lastEnd(int lane) const {
    return busy[lane].empty() ? 0.0 : busy[lane].back().second;
  }

  /// When each lane's last work ends.
  std::vector<double> freeAfter() const {
    std::vector<double> free;
    for (int lane = 0; lane < int(busy.size()); ++lane)
      free.push_back(lastEnd(lane));
    return free;
  }

  /// The first moment from `from` on when one of `lanes` is idle.
  double firstIdle(ArrayRef<int> lanes, double from) const {
    double first = std::numeric_limits<double>::infinity();
    for (int lane : lanes) {
      double at = from;
      auto busyAt = firstEndingAfter(lane, from);
      if (busyAt != busy[lane].end() && busyAt->first <= from)
        at = busyAt->second;
      first = std::min(first, at);
    }
    return first;
  }

  /// Marks [from, to) of `lane` busy.
  void reserve(int lane, double from, double to) {
    if (to <= from)
      return;
    auto &intervals = busy[lane];
    // The intervals [first, last) that touch [from, to) merge with it.
    auto first = llvm::lower_bound(intervals, from,
                                   [](const Interval &i, double t) {
                                     return i.second < t;
                                   });
    auto last = first;
    while (last != intervals.end() && last->first <= to) {
      from = std::min(from, last->first);
      to = std::max(to, last->second);
      ++last;
    }
    first = intervals.erase(first, last);
    intervals.insert(first, {from, to});
  }

  /// Spreads `work` over the idle time of `lanes` from `start` on, as
  /// early as it allows (every lane busy up to one level), or with
  /// `inOrder` only after each lane's last work (an engine runs its
  /// instructions in program order; DMA engines take any queue's next
  /// transfer); returns when the last of it ends.
  double pour(ArrayRef<int> lanes, double work, double start, bool inOrder) {
    // The lanes' idle spans from `start` on: +1 lane at a span's start, -1
    // at its end (the last span never ends).
    SmallVector<std::pair<double, int>> edges;
    for (int lane : lanes) {
      const auto &intervals = busy[lane];
      double from = inOrder ? std::max(start, lastEnd(lane)) : start;
      for (const Interval &i :
           llvm::make_range(firstEndingAfter(lane, from), intervals.end())) {
        if (i.first > from) {
          edges.push_back({from, +1});
          edges.push_back({i.first, -1});
        }
        from = i.second;
      }
      edges.push_back({from, +1});
    }
    llvm::sort(edges);
    // Raise the level over the edges until the work fits below it.
    double level = edges.front().first;
    int open = 0;
    for (size_t k = 0; k < edges.size(); ++k) {
      open += edges[k].second;
      level = edges[k].first;
      double next = k + 1 < edges.size()
                        ? edges[k + 1].first
                        : std::numeric_limits<double>::infinity();
      if (open > 0 && work <= (next - level) * double(open)) {
        level += work / double(open);
        break;
      }
      work -= (next - level) * double(open);
    }
    for (int lane : lanes)
      reserve(lane, start, level);
    return level;
  }

private:
  using Interval = std::pair<double, double>;

  /// The first of `lane`'s busy intervals that ends after `t`.
  const Interval *firstEndingAfter(int lane, double t) const {
    return llvm::lower_bound(busy[lane], t,
                             [](const Interval &i, double at) {
                               return i.second <= at;
                             });
  }

  std::vector<SmallVector<Interval>> busy;
};

struct NisaSchedulePass
    : public mlir::neuron::impl::NisaScheduleBase<NisaSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<LoadedTarget> loaded =
        loadTarget(module, "nisa-schedule", target, targetDir);
    if (failed(loaded))
      return signalPassFailure();
    FailureOr<rt::CostModel> model =
        loadCostModel(module, "nisa-schedule", loaded->target);
    if (failed(model))
      return signalPassFailure();
    // As many queues as engines, or fewer when asked.
    int queues = model->dmaEngines();
    if (dmaQueues > 0)
      queues = std::min<int>(queues, dmaQueues);
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(NisaDialect::kLimits) || kernel.isExternal())
        continue;
      if (failed(scheduleKernel(kernel, *model, queues)))
        return signalPassFailure();
    }
  }

  /// The first dimension of `type` of size above 1 (its rows), or -1.
  static int64_t rowDim(MemRefType type) {
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.getDimSize(d) > 1)
        return d;
    return -1;
  }

  /// Replaces `dma` by up to `parts` transfers of consecutive rows (the
  /// first dimension of size above 1 of each side, which must agree: a
  /// batch of one image copies in runs of channels); returns how many.
  /// Where there are fewer rows than parts and both sides have one shape
  /// (two images through a permuted view), each row is cut along the next
  /// dimension of size above 1 too. A transfer whose start moves at run
  /// time stays whole.
  static int64_t splitTransfer(DmaCopyOp dma, int64_t parts) {
    auto src = cast<MemRefType>(dma.getSrc().getType());
    auto dst = cast<MemRefType>(dma.getDst().getType());
    int64_t srcDim = rowDim(src), dstDim = rowDim(dst);
    if (dma.getOffset() || srcDim < 0 || dstDim < 0 ||
        src.getDimSize(srcDim) != dst.getDimSize(dstDim))
      return 1;
    int64_t rows = src.getDimSize(srcDim);
    int64_t chunk = llvm::divideCeil(rows, std::min(parts, rows));
    int64_t next = -1;
    if (rows < parts && src.getShape() == dst.getShape())
      for (int64_t d = srcDim + 1; d < src.getRank() && next < 0; ++d)
        if (src.getDimSize(d) > 1)
          next = d;
    int64_t cols = next < 0 ? 1 : src.getDimSize(next);
    int64_t colChunk =
        llvm::divideCeil(cols, std::clamp<int64_t>(parts / rows, 1, cols));
    int64_t made = 0;
    OpBuilder b(dma);
    // Rows [p0, p0 + count) of `v`, and columns [q0, q0 + width) of them
    // where the rows are cut.
    auto piece = [&](Value v, int64_t p0, int64_t count, int64_t q0,
                     int64_t width) {
      auto type = cast<MemRefType>(v.getType());
      int64_t dim = rowDim(type);
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
          sizes, strides(type.getRank(), b.getIndexAttr(1));
      SmallVector<int64_t> shape(type.getShape());
      offsets[dim] = b.getIndexAttr(p0);
      shape[dim] = count;
      if (next >= 0) {
        offsets[next] = b.getIndexAttr(q0);
        shape[next] = width;
      }
      for (int64_t size : shape)
        sizes.push_back(b.getIndexAttr(size));
      // The view's type from the source's layout directly (inferring it
      // builds affine expressions for every piece).
      SmallVector<int64_t> layout;
      int64_t offset;
      if (succeeded(stridesAndOffset(type, layout, offset)) &&
          !ShapedType::isDynamic(layout[dim]) &&
          (next < 0 || !ShapedType::isDynamic(layout[next]))) {
        if (!ShapedType::isDynamic(offset))
          offset += p0 * layout[dim] + (next < 0 ? 0 : q0 * layout[next]);
        auto view = MemRefType::get(
            shape, type.getElementType(),
            StridedLayoutAttr::get(b.getContext(), offset, layout),
            type.getMemorySpace());
        return memref::SubViewOp::create(b, dma.getLoc(), view, v, offsets,
                                         sizes, strides);
      }
      return memref::SubViewOp::create(b, dma.getLoc(), v, offsets, sizes,
                                       strides);
    };
    for (int64_t p0 = 0; p0 < rows; p0 += chunk)
      for (int64_t q0 = 0; q0 < cols; q0 += colChunk) {
        int64_t count = std::min(chunk, rows - p0),
                width = std::min(colChunk, cols - q0);
        auto cut = DmaCopyOp::create(b, dma.getLoc(),
                                     piece(dma.getSrc(), p0, count, q0, width),
                                     piece(dma.getDst(), p0, count, q0, width),
                                     dma.getQueueAttr());
        if (Attribute core = dma->getAttr(NisaDialect::kCore))
          cut->setAttr(NisaDialect::kCore, core);
        ++made;
      }
    dma.erase();
    return made;
  }

  /// Gives each stream a region of the kernel runs side by side its own
  /// queue. A stream is the loads, or the stores, of one loop body or one
  /// run of straight-line instructions; a region is a top-level loop nest
  /// or run. Each region's load streams, busiest first, take queues 0, 1,
  /// ... (regions run one after another, so they share them; the last
  /// queue takes what is left), or, after the regions that open the
  /// kernel's work on their physical core only loading (a block the next
  /// region may start on before all of it is in), the queues after
  /// theirs: those loads must not hold back the next region's own. Its
  /// store streams take the last queue, the one before, ...: a region's
  /// loads never queue behind the stores that end the region before it,
  /// which wait for its last results. (A region loading mid-kernel shares
  /// the queues: its transfers would contend with the nests around it,
  /// which the timeline does not model.) Apart, a stream ahead of the engines (a prefetch) or
  /// behind them (a store waiting for results) never holds back another's
  /// transfers, while all share the DMA engines.
  static void assignQueues(func::FuncOp kernel, const rt::CostModel &model,
                           int queues) {
    struct Stream {
      double work = 0;
      SmallVector<DmaCopyOp> transfers;
    };
    struct Region {
      llvm::MapVector<std::pair<Block *, int>, Stream> streams;
      bool loadsOnly = true;
      /// The physical core of its first instruction.
      std::optional<int64_t> core;
    };
    SmallVector<Region> regions(1);
    for (Operation &top : kernel.getBody().front()) {
      bool nest = isa<affine::AffineForOp>(top);
      if (nest && !regions.back().streams.empty())
        regions.emplace_back();
      top.walk([&](EngineOpInterface op) {
        if (!regions.back().core)
          regions.back().core = coreOf(op);
        auto dma = dyn_cast<DmaCopyOp>(op.getOperation());
        if (!dma || isStore(dma)) {
          regions.back().loadsOnly = false;
          if (!dma)
            return;
        }
        Stream &s =
            regions.back().streams[{dma->getBlock(), int(isStore(dma))}];
        s.work += model.nanoseconds(costQueryOf(dma)) * instancesOf(dma);
        s.transfers.push_back(dma);
      });
      if (nest)
        regions.emplace_back();
    }
    // Per physical core (each runs its own streams, in program order): the
    // first queue of the next region's loads, and whether only loading
    // regions came before it.
    struct CoreStart {
      int64_t first = 0;
      bool atStart = true;
    };
    std::map<int64_t, CoreStart> starts;
    for (Region &region : regions) {
      if (!region.core)
        continue;
      auto &[first, atStart] = starts[*region.core];
      SmallVector<Stream *> ranked;
      for (auto &entry : region.streams)
        ranked.push_back(&entry.second);
      llvm::stable_sort(ranked, [](Stream *a, Stream *b) {
        return a->work > b->work;
      });
      int64_t loads = 0, stores = 0;
      for (Stream *stream : ranked) {
        bool storing = isStore(stream->transfers.front());
        int64_t rank = std::min<int64_t>(storing ? stores++ : loads++,
                                         queues - 1);
        int64_t queue =
            storing ? queues - 1 - rank : (first + rank) % queues;
        for (DmaCopyOp dma : stream->transfers)
          dma.setQueue(queue);
      }
      atStart = atStart && region.loadsOnly;
      first = atStart && !ranked.empty()
                  ? (first + std::min<int64_t>(ranked.size(), queues)) % queues
                  : 0;
    }
  }

  /// Moves every straight-line instruction to the first run of them (the
  /// gaps between the kernel's loop nests) after everything it depends on,
  /// so work that waits for nothing starts at once instead of behind loop
  /// nests it does not need; the runs are list-scheduled afterwards. A
  /// load stays behind the last nest before it that computes: ahead of
  /// it, a load for a later region would take the DMA engines (and its
  /// queue) from the nest's first loads, which its engines wait for, while
  /// behind it, on the nest's queues, it starts as the nest's last loads
  /// do (MobileNet-V2 observed 178.9 -> 161.6 us). It moves past a nest
  /// that only loads (a block the next nest reads) only where straight-line
  /// work is the first to follow it (a lhs tile's transposes, which may
  /// then start at once); one a later nest reads first stays behind, as
  /// ahead it would only delay the block's loads. And it moves past a nest
  /// that waits for an input arriving while the kernel runs (a collective's
  /// result) or for work that does: the engines would idle meanwhile.
  static LogicalResult hoistStraightLine(func::FuncOp kernel) {
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    const KernelGraph &g = *graph;
    // The nests that wait for an input arriving while the kernel runs (a
    // collective's result), or for work that does: loads may pass them.
    std::vector<double> arrival = arrivalsOf(kernel, g);
    std::vector<char> waits(g.size(), 0);
    DenseSet<Operation *> waitingNests;
    for (size_t i = 0; i < g.size(); ++i) {
      waits[i] = arrival[i] > 0 ||
                 llvm::any_of(g.predecessors(i), [&](const Dependence &d) {
                   return d.from < i && waits[d.from];
                 });
      if (waits[i] && !g.nestOf(i).empty())
        waitingNests.insert(g.topLevelOf(i));
    }
    // The top-level nests in order, and the gap (0: before the first nest)
    // each instruction lands in; per straight-line op, the gaps after the
    // last nest before it that computes, and after the last nest before it
    // (of those that wait for no arrival).
    SmallVector<Operation *> nests;
    DenseMap<Operation *, int64_t> nestIndex, afterComputing, afterNest;
    int64_t computed = 0, last = 0;
    for (Operation &op : kernel.getBody().front()) {
      if (!isa<affine::AffineForOp>(op)) {
        afterComputing[&op] = computed;
        afterNest[&op] = last;
        continue;
      }
      nestIndex[&op] = nests.size();
      nests.push_back(&op);
      if (waitingNests.contains(&op))
        continue;
      last = int64_t(nests.size());
      WalkResult computes = op.walk([](EngineOpInterface inner) {
        auto dma = dyn_cast<DmaCopyOp>(inner.getOperation());
        return !dma || isStore(dma) ? WalkResult::interrupt()
                                    : WalkResult::advance();
      });
      if (computes.wasInterrupted())
        computed = last;
    }
    // Whether the first instruction after each that depends on it is
    // straight-line.
    std::vector<char> firstAfterInRun(g.size(), 0), followed(g.size(), 0);
    for (size_t j = 0; j < g.size(); ++j)
      for (const Dependence &d : g.predecessors(j))
        if (d.from < j && !followed[d.from]) {
          followed[d.from] = 1;
          firstAfterInRun[d.from] = g.nestOf(j).empty();
        }
    std::vector<int64_t> gap(g.size(), 0);
    for (size_t i = 0; i < g.size(); ++i) {
      if (!g.nestOf(i).empty()) {
        gap[i] = nestIndex.lookup(g.topLevelOf(i)) + 1;
        continue;
      }
      auto dma = dyn_cast<DmaCopyOp>(g.instruction(i));
      if (dma && !isStore(dma))
        gap[i] = (firstAfterInRun[i] ? afterComputing : afterNest)
                     .lookup(g.instruction(i));
      for (const Dependence &d : g.predecessors(i))
        gap[i] = std::max(gap[i], gap[d.from]);
      Operation *before = gap[i] < int64_t(nests.size())
                              ? nests[gap[i]]
                              : kernel.getBody().front().getTerminator();
      // After those already moved into the run: their order stays.
      g.instruction(i)->moveBefore(before);
    }
    return success();
  }

  /// List-schedules the straight-line instructions [first, end) of `g`,
  /// none before `ready`, on lanes after their last work in `timeline`
  /// (updated): reorders them in issue order before `anchor`, gives each
  /// `nisa.time_ns`, and returns each one's end.
  std::vector<double> scheduleRun(const KernelGraph &g, uint32_t first,
                                  uint32_t end, ArrayRef<double> duration,
                                  ArrayRef<int> unit,
                                  ArrayRef<SmallVector<int>> units,
                                  ArrayRef<double> ready,
                                  LaneTimeline &timeline, Operation *anchor) {
    uint32_t n = end - first;
    Schedule s = listSchedule(localPredecessors(g, first, end),
                              duration.slice(first, n), unit.slice(first, n),
                              units, ready, timeline.freeAfter());
    Builder b(anchor->getContext());
    for (uint32_t local : s.order) {
      Operation *op = g.instruction(first + local);
      op->moveBefore(anchor);
      op->setAttr(NisaDialect::kTimeNs,
                  b.getDenseF64ArrayAttr({s.start[local], s.end[local]}));
      timeline.reserve(s.lane[local], s.start[local], s.end[local]);
    }
    return s.end;
  }

  /// Reorders each run of straight-line instructions inside a loop body
  /// in the order the list scheduler issues it, as top-level runs are.
  /// Each engine runs its instructions in program order, so a body that
  /// finishes several tiles one after another (a matmul's epilogue per
  /// column tile, alternating between the scalar and vector engines) would
  /// otherwise have each engine wait for the other's chain tile by tile
  /// instead of interleaving the tiles. Of two list schedules, the one
  /// whose first iterations finish first (pipelinedNs) is kept.
  static LogicalResult
  interleaveLoopBodies(func::FuncOp kernel, const rt::CostModel &model,
                       const Layout &layout,
                       ArrayRef<SmallVector<int>> units) {
    // Only a body with three instructions or more has an order to choose.
    bool reorderable = false;
    kernel.walk([&](affine::AffineForOp loop) {
      reorderable |= llvm::count_if(loop.getBody()->getOperations(),
                                    [](Operation &op) {
                                      return isa<EngineOpInterface>(op);
                                    }) > 2;
    });
    if (!reorderable)
      return success();
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    const KernelGraph &g = *graph;
    uint32_t n = g.size();
    for (uint32_t first = 0; first < n;) {
      uint32_t end = first + 1;
      Operation *op = g.instruction(first);
      while (end < n && g.nestOf(end) == g.nestOf(first) &&
             g.instruction(end)->getBlock() == op->getBlock())
        ++end;
      if (!g.nestOf(first).empty() && end - first > 2) {
        std::vector<double> duration, ready(end - first, 0);
        std::vector<int> unit;
        for (uint32_t i = first; i < end; ++i) {
          duration.push_back(
              model.nanoseconds(costQueryOf(g.instruction(i))));
          unit.push_back(layout.unitOf(g.instruction(i)));
        }
        std::vector<double> laneFree(layout.lanes(), 0);
        std::vector<SmallVector<uint32_t, 4>> preds =
            localPredecessors(g, first, end);
        // Two candidates: the longest path first (a single iteration's
        // best), or each engine's work in block order, which starts the
        // body's independent chains one after another. The one whose
        // iterations overlap best wins; a tie keeps the first.
        int64_t iterations =
            std::min<int64_t>(4, g.getLoops()[g.nestOf(first).back()].trips);
        std::vector<uint32_t> orders[2];
        double ns[2];
        for (int k = 0; k < 2; ++k) {
          orders[k] = listSchedule(preds, duration, unit, units, ready,
                                   laneFree, /*inBlockOrder=*/k == 1)
                          .order;
          ns[k] = pipelinedNs(g, first, end, orders[k], preds, duration,
                              unit, units, laneFree.size(), iterations);
        }
        Operation *anchor = g.instruction(end - 1)->getNextNode();
        for (uint32_t local : orders[ns[1] < ns[0]])
          g.instruction(first + local)->moveBefore(anchor);
      }
      first = end;
    }
    return success();
  }

  /// The software pipeline of loop `l` (and, first, of the loops in it):
  /// per iteration each unit's busy time and the bytes it moves; the
  /// latency of one iteration along its same-iteration dependences; the
  /// interval (the busiest unit over its lanes, HBM, or a recurrence
  /// through a dependence reaching back `distance` iterations, over the
  /// dependence's path inside one iteration). Records `nisa.pipeline` on
  /// the loop; `busy` and `hbmBytes` receive its per-iteration work. With
  /// `release` (per instruction of the loop, from its first), the first
  /// iteration's instructions start no earlier than those times
  /// (LoopTiming::released).
  LoopTiming estimateLoop(const KernelGraph &g, int32_t l,
                          ArrayRef<double> duration, ArrayRef<int> unit,
                          const Layout &layout,
                          ArrayRef<SmallVector<int>> units,
                          ArrayRef<double> bytes, const rt::CostModel &model,
                          std::vector<double> &busy, double &hbmBytes,
                          ArrayRef<double> release = {}) {
    const LoopInfo &loop = g.getLoops()[l];
    int32_t depth = loop.depth;
    // The body's items: its own instructions and its child loops, each as
    // a [first, end) range, in program order, with its time and the length
    // of its longest dependence chain.
    struct Item {
      uint32_t first, end;
      double time, chain;
      /// A child loop's instructions' offsets; empty for an instruction,
      /// which starts and ends with its item.
      Offsets timed, chained;
    };
    SmallVector<Item> items;
    std::vector<double> myBusy(units.size(), 0);
    double myBytes = 0;
    for (uint32_t i = loop.first; i < loop.end;) {
      ArrayRef<int32_t> nest = g.nestOf(i);
      if (int32_t(nest.size()) == depth + 1) {
        items.push_back({i, i + 1, duration[i], duration[i], {}, {}});
        myBusy[unit[i]] += duration[i];
        myBytes += bytes[i];
        ++i;
        continue;
      }
      int32_t child = nest[depth + 1];
      std::vector<double> childBusy;
      double childBytes = 0;
      LoopTiming t = estimateLoop(g, child, duration, unit, layout, units,
                                  bytes, model, childBusy, childBytes);
      int64_t trips = g.getLoops()[child].trips;
      for (size_t u = 0; u < units.size(); ++u)
        myBusy[u] += trips * childBusy[u];
      myBytes += trips * childBytes;
      items.push_back({g.getLoops()[child].first, g.getLoops()[child].end,
                       t.predicted, t.criticalPath, std::move(t.timed),
                       std::move(t.chained)});
      i = g.getLoops()[child].end;
    }
    auto itemOf = [&](uint32_t i) {
      for (size_t k = 0; k < items.size(); ++k)
        if (i >= items[k].first && i < items[k].end)
          return int64_t(k);
      return int64_t(-1);
    };
    // The items of this iteration item `k` depends on.
    auto itemPredecessors = [&](size_t k) {
      SmallVector<int64_t> out;
      for (uint32_t i = items[k].first; i < items[k].end; ++i)
        for (const Dependence &d : g.predecessors(i)) {
          int64_t from = itemOf(d.from);
          if (!d.carried && d.common > depth && from >= 0 &&
              from < int64_t(k))
            out.push_back(from);
        }
      return out;
    };
    // One iteration: each item after the items it depends on in it, in
    // time (start, finish), along dependence chains alone, and released
    // at `release`.
    SmallVector<double> start(items.size(), 0), finish(items.size(), 0),
        chainStart(items.size(), 0), chainEnd(items.size(), 0),
        releasedEnd(items.size(), 0);
    for (size_t k = 0; k < items.size(); ++k) {
      double releasedStart = 0;
      if (!release.empty())
        for (uint32_t i = items[k].first; i < items[k].end; ++i)
          releasedStart = std::max(releasedStart, release[i - loop.first]);
      for (int64_t from : itemPredecessors(k)) {
        start[k] = std::max(start[k], finish[from]);
        chainStart[k] = std::max(chainStart[k], chainEnd[from]);
        releasedStart = std::max(releasedStart, releasedEnd[from]);
      }
      finish[k] = start[k] + items[k].time;
      chainEnd[k] = chainStart[k] + items[k].chain;
      releasedEnd[k] = releasedStart + items[k].time;
    }
    double latency = 0, chain = 0, released = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      latency = std::max(latency, finish[k]);
      chain = std::max(chain, chainEnd[k]);
      released = std::max(released, releasedEnd[k]);
    }
    // A body of instructions alone also waits for its lanes: its pieces of
    // transfers may outnumber the DMA engines, and each engine runs one
    // instruction at a time. One iteration list-scheduled on free lanes.
    if (items.size() == loop.end - loop.first) {
      std::vector<SmallVector<uint32_t, 4>> preds =
          localPredecessors(g, loop.first, loop.end, /*sameIteration=*/true);
      std::vector<double> ready(items.size(), 0);
      std::vector<double> lanes(layout.lanes(), 0);
      ArrayRef<double> durations = duration.slice(loop.first, items.size());
      ArrayRef<int> bodyUnits = unit.slice(loop.first, items.size());
      latency = std::max(
          latency,
          listSchedule(preds, durations, bodyUnits, units, ready, lanes)
              .makespan);
      if (!release.empty())
        released = std::max(released, listSchedule(preds, durations,
                                                    bodyUnits, units, release,
                                                    lanes)
                                          .makespan);
    }
    // The busiest engine, each physical core's DMA engines (its queues
    // share them), HBM (the logical core's).
    double resource = myBytes / model.hbmBytesPerNs();
    std::vector<double> dmaBusy(layout.cores, 0);
    for (size_t u = 0; u < units.size(); ++u) {
      if (!layout.isQueue(int(u)))
        resource = std::max(resource, myBusy[u]);
      else
        dmaBusy[layout.coreOfUnit(int(u))] += myBusy[u];
    }
    for (double b : dmaBusy)
      resource = std::max(resource, b / layout.engines);
    latency = std::max(latency, resource);
    released = std::max(released, resource);
    // Each instruction's offsets: its item's, and within a child loop,
    // the child's own besides.
    auto offset = [](const std::vector<double> &within, uint32_t first,
                     uint32_t i) {
      return within.empty() ? 0.0 : within[i - first];
    };
    auto offsetsOf = [&](ArrayRef<double> starts, ArrayRef<double> ends,
                         double length, Offsets Item::*of) {
      Offsets out;
      for (const auto &[k, item] : llvm::enumerate(items))
        for (uint32_t i = item.first; i < item.end; ++i) {
          out.head.push_back(starts[k] +
                             offset((item.*of).head, item.first, i));
          out.tail.push_back(length - ends[k] +
                             offset((item.*of).tail, item.first, i));
        }
      return out;
    };
    Offsets timed = offsetsOf(start, finish, latency, &Item::timed);
    Offsets chained = offsetsOf(chainStart, chainEnd, chain, &Item::chained);
    // The time from item `k`'s start to instruction `i`'s first start, and
    // from instruction `j`'s last end to item `k`'s end.
    auto headIn = [&](size_t k, uint32_t i, Offsets Item::*of) {
      return offset((items[k].*of).head, items[k].first, i);
    };
    auto tailIn = [&](size_t k, uint32_t j, Offsets Item::*of) {
      return offset((items[k].*of).tail, items[k].first, j);
    };
    // Recurrences: a dependence of item `to` on item `from` `distance`
    // iterations back, closed by `to`'s path to `from` in one iteration:
    // from the instruction waiting, where a child loop's first iteration
    // starts it, to the one it waits for, where a child loop's last
    // iteration ends it (a loop's next tile may wait for the last matmul
    // reading its buffer, not for the stores after it).
    double recurrence = 0, chainRecurrence = 0;
    for (size_t k = 0; k < items.size(); ++k)
      for (uint32_t i = items[k].first; i < items[k].end; ++i)
        for (const Dependence &d : g.predecessors(i)) {
          int64_t from = itemOf(d.from);
          // (A dependence reaching back a whole run of this loop or more
          // is on an earlier iteration of an outer loop.)
          if (d.carried != depth + 1 || from < int64_t(k) || d.distance < 1 ||
              d.distance >= loop.trips)
            continue;
          double waited = finish[from] - tailIn(from, d.from, &Item::timed) -
                          start[k] - headIn(k, i, &Item::timed);
          double alongChain = chainEnd[from] -
                              tailIn(from, d.from, &Item::chained) -
                              chainStart[k] - headIn(k, i, &Item::chained);
          recurrence = std::max(recurrence, waited / double(d.distance));
          chainRecurrence =
              std::max(chainRecurrence, alongChain / double(d.distance));
        }
    double interval = std::max(resource, recurrence);
    LoopTiming t;
    t.predicted = latency + (loop.trips - 1) * interval;
    t.latency = latency;
    t.released = release.empty() ? latency : released;
    t.criticalPath = chain + (loop.trips - 1) * chainRecurrence;
    t.timed = std::move(timed);
    t.chained = std::move(chained);
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

  /// Per instruction of `g`: when the inputs it reads arrive after the
  /// kernel starts (`neuron.input_arrivals_ns`, which
  /// neuron-place-collectives gives a kernel launched while a collective it
  /// reads is in flight); 0 for the rest.
  static std::vector<double> arrivalsOf(func::FuncOp kernel,
                                        const KernelGraph &g) {
    std::vector<double> out(g.size(), 0);
    auto times =
        kernel->getAttrOfType<DenseF64ArrayAttr>(kInputArrivalsAttr);
    if (!times)
      return out;
    for (size_t i = 0; i < g.size(); ++i)
      for (const TileAccess &a : g.accessesOf(i)) {
        auto arg = dyn_cast<BlockArgument>(a.root);
        if (!a.write && !a.onChip && arg &&
            arg.getOwner()->getParentOp() == kernel &&
            arg.getArgNumber() < times.size())
          out[i] = std::max(out[i], times[arg.getArgNumber()]);
      }
    return out;
  }

  /// The longest dependence chain through `kernel`'s instructions, each
  /// counted once (a loop's body once, however often it runs), from the
  /// arrival of the inputs it reads: a time the kernel takes however its
  /// transfers are cut. A kernel of few small layers is bound by it rather
  /// than by the busiest engine.
  static FailureOr<double> chainOnce(func::FuncOp kernel,
                                     const rt::CostModel &model) {
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    const KernelGraph &g = *graph;
    std::vector<double> ends = arrivalsOf(kernel, g);
    double longest = 0;
    for (size_t i = 0; i < g.size(); ++i) {
      for (const Dependence &d : g.predecessors(i))
        if (d.from < i)
          ends[i] = std::max(ends[i], ends[d.from]);
      ends[i] += model.nanoseconds(costQueryOf(g.instruction(i)));
      longest = std::max(longest, ends[i]);
    }
    return longest;
  }

  LogicalResult scheduleKernel(func::FuncOp kernel, const rt::CostModel &model,
                               int queues) {
    int engines = model.dmaEngines();
    Layout layout{1, queues, engines};
    if (auto cores = kernel->getAttrOfType<IntegerAttr>(NisaDialect::kCores))
      layout.cores = int(cores.getInt());
    if (layout.cores > model.physicalCores())
      return kernel.emitError()
             << "nisa-schedule: the kernel runs on " << layout.cores
             << " physical cores; the target's logical core has "
             << model.physicalCores();
    WalkResult beyond = kernel.walk([&](EngineOpInterface op) {
      if (coreOf(op) < layout.cores)
        return WalkResult::advance();
      op->emitError() << "nisa-schedule: physical core " << coreOf(op)
                      << " of a kernel of " << layout.cores;
      return WalkResult::interrupt();
    });
    if (beyond.wasInterrupted())
      return failure();
    Block &body = kernel.getBody().front();
    Operation *terminator = body.getTerminator();
    // A transfer is cut into pieces the DMA engines move side by side (a
    // whole tensor copied at once, or a loop's transfer whose first
    // instance would hold up the pipeline's fill), as transferPieces says.
    // Each piece pays the fixed cost again. Pieces are long, and where the
    // transfers bound the kernel (busier than every engine, and longer than
    // its longest dependence chain) or their loop nest (busier than its
    // other instructions' engines), a transfer that runs N times gets the
    // p pieces whose fill saved, streaming x (1 - 1/p), exceeds the engine
    // time added, N (p - 1) fixed / engines, by the most (p^2 = streaming x
    // engines / (N fixed)); but at least as
    // many as the instances its tile's slots let overlap need to keep pace
    // with the nest's DMA work over all engines. Elsewhere they are
    // short (latency) where, by the same measure, the fill saved outweighs
    // the engine time added and the DMA engines stay less busy than what
    // bounds the kernel: a small layer's loads and stores, or a loop's that
    // runs a few times.
    SmallVector<DmaCopyOp> transfers;
    double limit = 0;
    // Per physical core.
    std::vector<double> dmaBusy(layout.cores, 0);
    std::vector<std::array<double, rt::kEngineClasses>> busy(layout.cores);
    // The same per top-level loop nest.
    DenseMap<Operation *, std::array<double, rt::kEngineClasses>> nestBusy;
    auto nestOf = [&](Operation *op) -> Operation * {
      Operation *nest = nullptr;
      for (Operation *p = op->getParentOp(); p && p != kernel;
           p = p->getParentOp())
        if (isa<affine::AffineForOp>(p))
          nest = p;
      return nest;
    };
    kernel.walk([&](EngineOpInterface op) {
      double ns = model.nanoseconds(costQueryOf(op)) * instancesOf(op);
      busy[coreOf(op)][int(engineClassOf(op))] += ns;
      if (Operation *nest = nestOf(op))
        nestBusy[nest][int(engineClassOf(op))] += ns;
      if (auto dma = dyn_cast<DmaCopyOp>(op.getOperation()))
        transfers.push_back(dma);
    });
    // Whether a loop nest's transfers keep the DMA engines busier than any
    // engine its other instructions run on: its pipeline runs at their pace.
    auto transferBound = [&](Operation *nest) {
      std::array<double, rt::kEngineClasses> b = nestBusy.lookup(nest);
      double engineWork = 0;
      for (int c = 0; c < int(rt::EngineClass::Dma); ++c)
        engineWork = std::max(engineWork, b[c]);
      return b[int(rt::EngineClass::Dma)] / engines >= engineWork;
    };
    // For nisa-insert-sync, which holds a nest's loads back only where
    // they do not bound it.
    for (Operation &op : body) {
      if (!isa<affine::AffineForOp>(op))
        continue;
      if (transferBound(&op))
        op.setAttr(NisaDialect::kTransferBound,
                   UnitAttr::get(op.getContext()));
      else
        op.removeAttr(NisaDialect::kTransferBound);
    }
    for (const auto &core : busy)
      for (int c = 0; c < int(rt::EngineClass::Dma); ++c)
        limit = std::max(limit, core[c]);
    FailureOr<double> chainNs = chainOnce(kernel, model);
    if (failed(chainNs))
      return failure();
    limit = std::max(limit, *chainNs);
    for (int c = 0; c < layout.cores; ++c)
      dmaBusy[c] = busy[c][int(rt::EngineClass::Dma)] / engines;
    for (DmaCopyOp dma : transfers) {
      double &coreDma = dmaBusy[coreOf(dma)];
      double streaming =
          model.dmaStreamBytes(costQueryOf(dma)) / model.dmaEngineBytesPerNs();
      double fixed = model.dmaFixedNs();
      double instances = double(instancesOf(dma));
      int64_t most = model.transferPieces(streaming, /*dmaBound=*/true);
      int64_t parts = most;
      Operation *nest = nestOf(dma);
      if (coreDma >= limit || (nest && transferBound(nest))) {
        parts = std::clamp<int64_t>(
            std::lround(std::sqrt(streaming * engines / (instances * fixed))),
            1, most);
        // But the instances in flight are only as many as the tile's
        // slots: while each is whole, the other engines idle. Enough
        // pieces that `slots` instances keep pace with the nest's DMA work
        // per instance over all engines.
        if (std::optional<int64_t> slots = slotsInFlight(dma);
            nest && slots) {
          double pace = nestBusy.lookup(nest)[int(rt::EngineClass::Dma)] /
                        instances / engines;
          double room = double(*slots) * pace - fixed;
          int64_t needed = room > 0
                               ? int64_t(std::ceil(streaming / room))
                               : most;
          parts = std::max(parts, std::min(needed, most));
        }
      }
      if (coreDma < limit) {
        // Short pieces where the fill they save outweighs the engine time
        // they add, and the engines stay less busy than what bounds the
        // kernel.
        int64_t shortParts =
            model.transferPieces(streaming, /*dmaBound=*/false);
        double saved = streaming / parts - streaming / shortParts;
        double added = double(shortParts - parts) * instances * fixed / engines;
        if (saved >= added && coreDma + added < limit)
          parts = shortParts;
      }
      if (parts >= 2)
        coreDma += double(splitTransfer(dma, parts) - 1) * instances * fixed /
                   engines;
    }
    // Declarations (tiles, views, index arithmetic) go first, so reordering
    // the instructions keeps every value defined before its uses.
    SmallVector<Operation *> declarations;
    for (Operation &op : body)
      if (!isa<EngineOpInterface, affine::AffineForOp>(op) && &op != terminator)
        declarations.push_back(&op);
    for (Operation *op : llvm::reverse(declarations))
      op->moveBefore(&body.front());
    if (failed(hoistStraightLine(kernel)))
      return failure();
    assignQueues(kernel, model, queues);
    std::vector<SmallVector<int>> units = layout.unitLanes();
    if (failed(interleaveLoopBodies(kernel, model, layout, units)))
      return failure();

    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    const KernelGraph &g = *graph;
    size_t n = g.size();
    std::vector<double> duration(n), bytes(n, 0);
    std::vector<int> unit(n);
    // Busy time per class of each physical core.
    std::vector<std::array<double, rt::kEngineClasses>> coreBusy(layout.cores);
    double serial = 0;
    for (size_t i = 0; i < n; ++i) {
      Operation *op = g.instruction(i);
      unit[i] = layout.unitOf(op);
      duration[i] = model.nanoseconds(costQueryOf(op));
      if (isa<DmaCopyOp>(op))
        bytes[i] = model.dmaStreamBytes(costQueryOf(op));
      double ns = duration[i] * g.instancesOf(i);
      coreBusy[layout.coreOfUnit(unit[i])][int(engineClassOf(op))] += ns;
      serial += ns;
    }

    // The kernel's timeline, region by region (runs of straight-line
    // instructions, loop nests): when each lane is busy, when each
    // instruction's last instance ends, and the longest dependence chain to
    // it. An instruction is ready when its operands from earlier regions
    // are (of a block an earlier loop fills a slice per iteration, the
    // slice it needs first: Dependence::through); a loop nest's first
    // iteration then runs from its instructions' releases, the rest at its
    // pipeline's interval, or longer when its lanes have not the room or
    // its later iterations wait for the rest of such a block. A queue
    // starts its transfers in order: a run's list schedule issues each
    // queue in order, and a loop's transfers start no earlier than their
    // queue's earlier ones (queueStarted, by unit).
    LaneTimeline timeline(layout.lanes());
    std::vector<double> ends(n, 0),
        firstEnds(n, 0), chainEnds(n, 0), queueStarted(units.size(), 0);
    double predicted = 0;
    std::vector<double> arrival = arrivalsOf(kernel, g);
    // When the instances of `d.from` that dependence `d` needs first have
    // ended: a loop's iterations end evenly between the end of its first
    // (firstEnds) and its end.
    auto neededEnd = [&](const Dependence &d) {
      int64_t trips = g.instancesOf(d.from);
      if (!d.through || trips < 2 || d.through->constant >= trips - 1)
        return ends[d.from];
      if (d.through->constant < 0)
        return 0.0;
      return firstEnds[d.from] + (ends[d.from] - firstEnds[d.from]) *
                                     double(d.through->constant) /
                                     double(trips - 1);
    };
    // When instruction `i` may start its first instance, and its last,
    // after what it depends on before region `regionFirst`, and the
    // longest chain to it.
    struct Ready {
      double first, all, chain;
    };
    auto readyOf = [&](uint32_t i, uint32_t regionFirst) {
      Ready r{arrival[i], arrival[i], 0};
      for (const Dependence &d : g.predecessors(i))
        if (d.from < regionFirst) {
          r.first = std::max(r.first, neededEnd(d));
          r.all = std::max(r.all, ends[d.from]);
          r.chain = std::max(r.chain, chainEnds[d.from]);
        }
      return r;
    };
    for (uint32_t i = 0; i < n;) {
      if (g.nestOf(i).empty()) {
        uint32_t end = i;
        while (end < n && g.nestOf(end).empty())
          ++end;
        std::vector<double> ready;
        for (uint32_t j = i; j < end; ++j) {
          Ready r = readyOf(j, i);
          ready.push_back(r.first);
          // Chains through the run, in program order.
          double longest = r.chain;
          for (const Dependence &d : g.predecessors(j))
            if (d.from >= i && d.from < j)
              longest = std::max(longest, chainEnds[d.from]);
          chainEnds[j] = longest + duration[j];
        }
        Operation *anchor = end < n ? g.topLevelOf(end) : terminator;
        std::vector<double> runEnds = scheduleRun(
            g, i, end, duration, unit, units, ready, timeline, anchor);
        for (uint32_t j = i; j < end; ++j) {
          ends[j] = runEnds[j - i];
          predicted = std::max(predicted, ends[j]);
          if (layout.isQueue(unit[j]))
            queueStarted[unit[j]] =
                std::max(queueStarted[unit[j]], ends[j] - duration[j]);
        }
        i = end;
        continue;
      }
      const LoopInfo &nest = g.getLoops()[g.nestOf(i).front()];
      // Each instruction is released when its operands from earlier
      // regions are ready and, on an engine, the engine's earlier work is
      // done (it runs its instructions in program order), or, a transfer,
      // its queue's earlier ones have started and a DMA engine is idle;
      // the nest starts with the first released.
      std::vector<double> release;
      double whole = 0, chainStart = 0;
      for (uint32_t k = nest.first; k < nest.end; ++k) {
        Ready r = readyOf(k, nest.first);
        double at = r.first;
        if (layout.isQueue(unit[k]))
          at = timeline.firstIdle(units[unit[k]],
                                  std::max(at, queueStarted[unit[k]]));
        else
          at = std::max(at, timeline.lastEnd(units[unit[k]].front()));
        release.push_back(at);
        whole = std::max(whole, r.all);
        chainStart = std::max(chainStart, r.chain);
      }
      double start = *llvm::min_element(release);
      // Its work is poured onto the lanes from the first release of an
      // instruction that waits for none of the nest's.
      double pourStart = std::numeric_limits<double>::infinity();
      for (uint32_t k = nest.first; k < nest.end; ++k)
        if (llvm::none_of(g.predecessors(k), [&](const Dependence &d) {
              return d.from >= nest.first && d.from < k;
            }))
          pourStart = std::min(pourStart, release[k - nest.first]);
      for (double &at : release)
        at -= start;
      std::vector<double> busy;
      double hbmBytes = 0;
      LoopTiming t =
          estimateLoop(g, g.nestOf(i).front(), duration, unit, layout, units,
                       bytes, model, busy, hbmBytes, release);
      // Each engine's work poured onto its lane after its earlier work, and
      // each physical core's DMA queues' together into its DMA engines'
      // idle time. Started on the first slices of a block, its first
      // iteration may take as long as the rest of the block to arrive, the
      // others not.
      double end = std::max(start + t.released + t.predicted - t.latency,
                            whole + t.predicted - t.latency);
      std::vector<double> dmaWork(layout.cores, 0);
      for (size_t u = 0; u < units.size(); ++u) {
        double work = busy[u] * nest.trips;
        if (layout.isQueue(int(u)))
          dmaWork[layout.coreOfUnit(int(u))] += work;
        else if (work > 0)
          end = std::max(end, timeline.pour(units[u], work, pourStart,
                                            /*inOrder=*/true));
      }
      for (int c = 0; c < layout.cores; ++c)
        if (dmaWork[c] > 0)
          end = std::max(end, timeline.pour(units[c * layout.perCore() +
                                                  kFirstQueueLane],
                                            dmaWork[c], pourStart,
                                            /*inOrder=*/false));
      // The last iteration's transfers start within its latency of the end.
      for (uint32_t k = nest.first; k < nest.end; ++k) {
        ends[k] = end;
        firstEnds[k] = std::min(end, start + t.released);
        chainEnds[k] = chainStart + t.criticalPath;
        if (layout.isQueue(unit[k]))
          queueStarted[unit[k]] =
              std::max(queueStarted[unit[k]], end - t.latency);
      }
      predicted = std::max(predicted, end);
      i = nest.end;
    }
    double criticalPath = 0;
    int64_t last = -1;
    for (uint32_t k = 0; k < n; ++k)
      if (chainEnds[k] > criticalPath)
        criticalPath = chainEnds[k], last = k;
    // The chain: back from its last instruction along the dependences that
    // end it.
    SmallVector<Operation *> chain;
    for (int64_t at = last; at >= 0;) {
      chain.insert(chain.begin(), g.instruction(at));
      int64_t next = -1;
      for (const Dependence &d : g.predecessors(at))
        if (d.from < at && (next < 0 || chainEnds[d.from] > chainEnds[next]))
          next = d.from;
      at = next;
    }

    // Instruction indices in the final program order.
    DenseMap<Operation *, int64_t> index;
    kernel.walk([&](EngineOpInterface op) {
      index.try_emplace(op, index.size());
    });
    // Busy time per class over all physical cores.
    std::array<double, rt::kEngineClasses> busyTotal{};
    for (const auto &core : coreBusy)
      for (int c = 0; c < rt::kEngineClasses; ++c)
        busyTotal[c] += core[c];
    // The bound: the busiest engine or DMA engines of any physical core.
    double dmaTime = 0, bound = criticalPath;
    for (const auto &core : coreBusy) {
      dmaTime = std::max(dmaTime, core[int(rt::EngineClass::Dma)] / engines);
      for (int c = 0; c < int(rt::EngineClass::Dma); ++c)
        bound = std::max(bound, core[c]);
    }
    bound = std::max(bound, dmaTime);
    SmallVector<int64_t> path;
    for (Operation *op : chain)
      path.push_back(index.lookup(op));
    Builder b(kernel.getContext());
    kernel->setAttr(NisaDialect::kSchedule,
                    ScheduleAttr::get(b.getContext(),
                                      b.getF64FloatAttr(predicted),
                                      b.getF64FloatAttr(bound),
                                      b.getF64FloatAttr(criticalPath),
                                      b.getF64FloatAttr(serial),
                                      b.getArrayAttr(llvm::map_to_vector(
                                          busyTotal,
                                          [&](double t) -> Attribute {
                                            return b.getF64FloatAttr(t);
                                          })),
                                      engines * layout.cores,
                                      b.getDenseI64ArrayAttr(path)));

    if (summary)
      kernel.emitRemark() << llvm::formatv(
          "nisa-schedule: {0} instructions, predicted {1:f1} ns, bound "
          "{2:f1} ns (tensor {3:f1}, vector {4:f1}, scalar {5:f1}, gpsimd "
          "{6:f1}, dma {7:f1} over {8} engines, critical path {9:f1}), "
          "predicted/bound {10:f3}, serial {11:f1} ns",
          n, predicted, bound, busyTotal[0], busyTotal[1], busyTotal[2],
          busyTotal[3], dmaTime, engines, criticalPath,
          bound > 0 ? predicted / bound : 1.0, serial);
    return success();
  }
};

} // namespace
