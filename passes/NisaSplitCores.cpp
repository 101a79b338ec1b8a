//===- NisaSplitCores.cpp - the nisa-split-cores pass ---------------------===//
//
// A logical core of several physical cores (lnc=2) runs a kernel on all of
// them, each with its own engines, DMA queues and SBUF, all sharing HBM. A
// top-level loop nest whose outermost iterations are independent is split
// between them: physical core c runs its c-th share of those iterations, a
// copy of the nest (with copies of the tiles made in it) marked
// `nisa.core = c`, the shares chosen so the cores end their work as early
// as the cost model predicts. Iterations are independent when no HBM
// element one iteration writes is read or written by another and every
// on-chip tile the nest touches is made inside it, is scratch no block
// passes a value through (core c gets its own), is an input that earlier
// top-level ops only load (core c loads its own with copies of them), or
// is a PSUM sum over the outermost loop (core c sums its part of K into
// its own, and core 0 adds it through HBM). Other nests and straight-line
// instructions stay on physical core 0; nisa-insert-sync orders the cores'
// work where it meets in HBM.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGraph.h"
#include "passes/Passes.h"
#include "passes/TargetLoading.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <numeric>

namespace mlir::neuron {
#define GEN_PASS_DEF_NISASPLITCORES
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

namespace {

/// Beyond these, two accesses are taken to meet (the nest is not split).
constexpr int64_t kMaxRuns = int64_t(1) << 16;
constexpr int64_t kMaxWork = int64_t(1) << 24;

/// Bytes [lo, hi) of partitions [partitionLo, partitionHi) of a tile.
struct TileRange {
  int64_t partitionLo, partitionHi, lo, hi;

  bool overlaps(const TileRange &o) const {
    return partitionLo < o.partitionHi && o.partitionLo < partitionHi &&
           lo < o.hi && o.lo < hi;
  }
  bool covers(const TileRange &o) const {
    return partitionLo <= o.partitionLo && o.partitionHi <= partitionHi &&
           lo <= o.lo && o.hi <= hi;
  }
};

/// Whether `alloc`, a tile made outside top-level ops `tops`, holds no
/// value from one block's run to another's, nor from outside `tops` into
/// them, so each core's copy of `tops` may have its own: every instruction
/// touching it reads only what instructions before it in its block (a loop
/// body, or the kernel's) wrote, those of `tops` only what `tops` wrote, at
/// fixed offsets covering the bytes and partitions read; and no nest of
/// `tops` reaches it through a view made outside. An accumulating matmul
/// reads what it writes.
static bool isScratch(const KernelGraph &g, ArrayRef<Operation *> tops,
                      Operation *alloc) {
  auto in = [&](Operation *op) {
    return llvm::any_of(tops, [&](Operation *t) { return t->isAncestor(op); });
  };
  // Views made outside a nest must not lead into it.
  SmallVector<Value> outside{alloc->getResult(0)};
  while (!outside.empty()) {
    Value v = outside.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (in(user))
        continue;
      for (Value r : user->getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *w) {
              return in(w) && !llvm::is_contained(tops, w);
            }))
          return false;
      llvm::append_range(outside, user->getResults());
    }
  }
  // Per block: the ranges written so far, keyed by block and by whether
  // `tops` wrote them.
  DenseMap<std::pair<Block *, int>, SmallVector<TileRange>> written;
  for (size_t i = 0; i < g.size(); ++i) {
    for (const TileAccess &a : g.accessesOf(i)) {
      if (!a.onChip || a.root.getDefiningOp() != alloc)
        continue;
      Operation *op = g.instruction(i);
      if (a.offset.moves())
        return false;
      bool inside = in(op);
      SmallVector<TileRange> &before = written[{op->getBlock(), int(inside)}];
      auto mm = dyn_cast<MatmulOp>(op);
      TileRange r{a.partitionLo, a.partitionHi, a.offset.constant,
                  a.offset.constant + a.extent};
      if (!a.write || (mm && mm.getAccumulate())) {
        // The writes before it covering its partitions must cover its
        // bytes.
        SmallVector<std::pair<int64_t, int64_t>> cover;
        for (const TileRange &w : before)
          if (w.partitionLo <= r.partitionLo && r.partitionHi <= w.partitionHi)
            cover.push_back({w.lo, w.hi});
        llvm::sort(cover);
        int64_t reached = r.lo;
        for (auto [lo, hi] : cover)
          if (lo <= reached)
            reached = std::max(reached, hi);
        if (reached < r.hi)
          return false;
      }
      if (a.write) {
        before.push_back(r);
        if (inside)
          written[{op->getBlock(), 0}].push_back(r);
      }
    }
  }
  return true;
}

/// A tile a nest only reads, made outside it, and how it is loaded.
struct Input {
  Operation *tile = nullptr;
  /// The top-level ops before the nest that write it, in program order.
  SmallVector<Operation *> loaders;
  /// The scratch tiles (isScratch) those use, each once.
  SmallVector<Operation *> scratch;
};

/// `alloc`, a tile made outside `nest`, as an input each core's copy of
/// `nest` may load its own copy of the same way: the top-level ops before
/// `nest` that write it, and those that compute on chip what they read (a
/// block loaded in rows, transposed through PSUM and copied out into it),
/// only load it: they write no HBM and no other tile made outside them but
/// scratch of theirs, and nothing from the first of them to `nest` writes
/// HBM they read; nothing otherwise. Those that only read it (another nest
/// using the same input) change nothing core c copies.
static std::optional<Input> loadedInput(const KernelGraph &g, Operation *nest,
                                        Operation *alloc) {
  // The top-level ops before `nest` and their instructions, in order.
  llvm::MapVector<Operation *, SmallVector<size_t>> before;
  for (size_t i = 0; i < g.size(); ++i) {
    Operation *top = g.topLevelOf(i);
    if (!top->isBeforeInBlock(nest))
      break;
    before[top].push_back(i);
  }
  // From `nest` back: the ops writing `alloc`, and those writing what one
  // of them after it reads of a tile made beside `nest` (partitions and
  // bytes over all its iterations), which a write at fixed offsets covers
  // for the ops before it.
  auto rangeOf = [&](size_t i, const TileAccess &a) {
    auto [lo, hi] = a.offset.range(g.tripsOf(i));
    return TileRange{a.partitionLo, a.partitionHi, lo, hi + a.extent};
  };
  auto beside = [&](const TileAccess &a) -> Operation * {
    Operation *root = a.root.getDefiningOp();
    return a.onChip && isa_and_present<memref::AllocOp>(root) &&
                   root->getBlock() == nest->getBlock()
               ? root
               : nullptr;
  };
  SmallVector<Operation *> chain;
  DenseMap<Operation *, SmallVector<TileRange>> needed;
  for (auto it = before.end(); it != before.begin();) {
    auto &[top, instructions] = *--it;
    bool joins = false;
    for (size_t i : instructions)
      for (const TileAccess &a : g.accessesOf(i)) {
        Operation *tile = beside(a);
        if (!tile || !a.write)
          continue;
        TileRange w = rangeOf(i, a);
        joins |= tile == alloc ||
                 llvm::any_of(needed.lookup(tile), [&](const TileRange &r) {
                   return w.overlaps(r);
                 });
      }
    if (!joins)
      continue;
    chain.insert(chain.begin(), top);
    for (size_t i : instructions)
      for (const TileAccess &a : g.accessesOf(i))
        if (Operation *tile = beside(a); tile && a.write && !a.offset.moves()) {
          TileRange w = rangeOf(i, a);
          llvm::erase_if(needed[tile],
                         [&](const TileRange &r) { return w.covers(r); });
        }
    // What it reads of a tile it writes it is taken to compute itself
    // (isScratch below checks that it does).
    llvm::SmallPtrSet<Operation *, 4> writes;
    for (size_t i : instructions)
      for (const TileAccess &a : g.accessesOf(i))
        if (Operation *tile = beside(a); tile && a.write)
          writes.insert(tile);
    for (size_t i : instructions)
      for (const TileAccess &a : g.accessesOf(i))
        if (Operation *tile = beside(a);
            tile && !a.write && !writes.contains(tile))
          needed[tile].push_back(rangeOf(i, a));
  }
  if (chain.empty())
    return std::nullopt;
  Input in{alloc, chain, {}};
  // The HBM buffers the chain reads.
  llvm::DenseSet<uint32_t> read;
  for (Operation *top : chain)
    for (size_t i : before[top])
      for (const TileAccess &a : g.accessesOf(i)) {
        Operation *root = a.root.getDefiningOp();
        if (!a.onChip) {
          if (a.write)
            return std::nullopt;
          read.insert(a.buffer);
          continue;
        }
        if (root == alloc || (root && top->isAncestor(root)) ||
            llvm::is_contained(in.scratch, root))
          continue;
        if (!isa_and_present<memref::AllocOp>(root) ||
            root->getBlock() != top->getBlock() || !isScratch(g, chain, root))
          return std::nullopt;
        in.scratch.push_back(root);
      }
  // Core c's copies of the chain run after `nest`: nothing from the first
  // of it to `nest` (itself included) may write what it reads.
  for (size_t i = 0; i < g.size(); ++i) {
    Operation *top = g.topLevelOf(i);
    if (top->isBeforeInBlock(chain.front()) || nest->isBeforeInBlock(top))
      continue;
    if (llvm::is_contained(chain, top))
      continue;
    for (const TileAccess &a : g.accessesOf(i))
      if (!a.onChip && a.write && read.contains(a.buffer))
        return std::nullopt;
  }
  return in;
}

/// The PSUM tiles, made outside top-level nest `loop`, that its matmuls
/// sum into over its outermost loop (they restart with it), or the reason
/// they cannot be summed in parts: each must be a tile of the nest's block
/// that nothing in the nest touches but those matmuls.
static FailureOr<SmallVector<Operation *>>
sumsOf(const KernelGraph &g, const LoopInfo &loop, std::string &why) {
  Value induction = cast<affine::AffineForOp>(loop.op).getInductionVar();
  SmallVector<Operation *> sums;
  for (size_t i = loop.first; i < loop.end; ++i) {
    auto mm = dyn_cast<MatmulOp>(g.instruction(i));
    if (!mm || !llvm::is_contained(mm.getRestart(), induction))
      continue;
    auto alloc = mm.getDst().getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != loop.op->getBlock()) {
      why = "a matmul restarts its sum with the outermost loop";
      return failure();
    }
    if (!llvm::is_contained(sums, alloc))
      sums.push_back(alloc);
  }
  for (size_t i = loop.first; i < loop.end; ++i) {
    auto mm = dyn_cast<MatmulOp>(g.instruction(i));
    bool summing = mm && llvm::is_contained(mm.getRestart(), induction);
    for (const TileAccess &a : g.accessesOf(i))
      if (!summing && a.onChip &&
          llvm::is_contained(sums, a.root.getDefiningOp())) {
        why = "it reads the tile it sums into";
        return failure();
      }
  }
  return sums;
}

/// Why nest `loop` (top-level, instructions [first, end) of `g`) cannot be
/// split across its outermost iterations, or "" when it can; `scratch`
/// receives the scratch tiles made outside it (isScratch), `inputs` the
/// tiles it only reads that earlier top-level ops load (loadedInput),
/// `sums` the PSUM tiles it sums into over its outermost loop (sumsOf),
/// each core summing its own part.
static std::string whyNotSplit(const KernelGraph &g, const LoopInfo &loop,
                               SmallVectorImpl<Operation *> &scratch,
                               SmallVectorImpl<Input> &inputs,
                               SmallVectorImpl<Operation *> &sums) {
  int64_t trips = loop.trips;
  std::string why;
  FailureOr<SmallVector<Operation *>> summed = sumsOf(g, loop, why);
  if (failed(summed))
    return why;
  sums.assign(summed->begin(), summed->end());
  // Per HBM buffer: its accesses, and whether any writes.
  struct Access {
    const TileAccess *access;
    size_t instruction;
  };
  llvm::MapVector<uint32_t, SmallVector<Access>> hbm;
  llvm::DenseSet<uint32_t> written;
  for (size_t i = loop.first; i < loop.end; ++i) {
    for (const TileAccess &a : g.accessesOf(i)) {
      if (a.onChip) {
        Operation *alloc = a.root.getDefiningOp();
        if (!isa_and_present<memref::AllocOp>(alloc))
          return "it uses an on-chip tile that is not an allocation";
        if (loop.op->isAncestor(alloc) || llvm::is_contained(scratch, alloc) ||
            llvm::is_contained(sums, alloc))
          continue;
        if (alloc->getBlock() != loop.op->getBlock())
          return "it uses an on-chip tile made outside it";
        if (isScratch(g, {loop.op}, alloc)) {
          scratch.push_back(alloc);
          continue;
        }
        if (!a.write && llvm::any_of(inputs, [&](const Input &in) {
              return in.tile == alloc;
            }))
          continue;
        if (!a.write) {
          if (std::optional<Input> in = loadedInput(g, loop.op, alloc)) {
            inputs.push_back(std::move(*in));
            continue;
          }
        }
        return "it uses an on-chip tile made outside it";
      }
      hbm[a.buffer].push_back({&a, i});
      if (a.write)
        written.insert(a.buffer);
    }
  }
  if (!sums.empty() && !written.empty())
    return "it writes HBM while it sums over its outermost loop";
  for (auto &[buffer, accesses] : hbm) {
    if (!written.contains(buffer))
      continue;
    // Each access's runs over its outermost loop's first iteration.
    SmallVector<std::optional<Intervals>> runs;
    for (const Access &x : accesses)
      runs.push_back(
          hbmRuns(*x.access, g.tripsOf(x.instruction), 1, kMaxRuns));
    for (size_t x = 0; x < accesses.size(); ++x)
      for (size_t y = x; y < accesses.size(); ++y) {
        const TileAccess &a = *accesses[x].access, &b = *accesses[y].access;
        if (!a.write && !b.write)
          continue;
        if (!runs[x] || !runs[y])
          return "its HBM accesses are too many to compare";
        int64_t ca = a.offset.coeff(0), cb = b.offset.coeff(0);
        int64_t size = int64_t(runs[x]->size() + runs[y]->size());
        // Iteration i of a against iteration j != i of b: a shift of
        // ca i - cb j. Alike (ca == cb), one per difference j - i.
        SmallVector<int64_t> shifts;
        if (ca == cb) {
          for (int64_t d = 1; d < trips; ++d)
            shifts.append({ca * d, -ca * d});
        } else if (trips * (trips - 1) * size <= kMaxWork) {
          for (int64_t i = 0; i < trips; ++i)
            for (int64_t j = 0; j < trips; ++j)
              if (i != j)
                shifts.push_back(ca * i - cb * j);
        }
        if (shifts.empty() || int64_t(shifts.size()) * size > kMaxWork)
          return "its HBM accesses are too many to compare";
        for (int64_t shift : shifts)
          if (runsMeet(*runs[x], *runs[y], shift))
            return "its iterations touch the same HBM elements";
      }
  }
  return "";
}

/// Per top-level op of a kernel, its instructions and the on-chip tiles
/// they touch and write; per tile, the top-level ops touching it.
struct TopTiles {
  DenseMap<Operation *, SmallVector<size_t>> instructions;
  DenseMap<Operation *, llvm::SmallPtrSet<Operation *, 4>> tiles, writes,
      touchers;

  explicit TopTiles(const KernelGraph &g) {
    for (size_t i = 0; i < g.size(); ++i) {
      Operation *top = g.topLevelOf(i);
      instructions[top].push_back(i);
      for (const TileAccess &a : g.accessesOf(i))
        if (a.onChip) {
          Operation *tile = a.root.getDefiningOp();
          tiles[top].insert(tile);
          touchers[tile].insert(top);
          if (a.write)
            writes[top].insert(tile);
        }
    }
  }
};

/// Whether nest `loop`, which its iterations do not split, may run whole
/// with `members` (the straight-line top-level ops after it that use its
/// tiles) on another physical core than 0: every on-chip tile they touch
/// is made in the nest, touched by nothing else (`own`: that core makes
/// its own), or one they only read that earlier top-level ops load
/// (loadedInput: that core loads its own copy).
static bool movesWhole(const KernelGraph &g, const TopTiles &topTiles,
                       const LoopInfo &loop, ArrayRef<Operation *> members,
                       SmallVectorImpl<Operation *> &own,
                       SmallVectorImpl<Input> &inputs) {
  auto inSegment = [&](Operation *top) {
    return top == loop.op || llvm::is_contained(members, top);
  };
  for (Operation *top : llvm::concat<Operation *const>(
           ArrayRef<Operation *>(loop.op), members))
    for (size_t i : topTiles.instructions.find(top)->second)
      for (const TileAccess &a : g.accessesOf(i)) {
        if (!a.onChip)
          continue;
        Operation *alloc = a.root.getDefiningOp();
        if (!isa_and_present<memref::AllocOp>(alloc))
          return false;
        if (loop.op->isAncestor(alloc) || llvm::is_contained(own, alloc))
          continue;
        if (llvm::all_of(topTiles.touchers.find(alloc)->second, inSegment) &&
            alloc->getBlock() == loop.op->getBlock()) {
          own.push_back(alloc);
          continue;
        }
        if (a.write)
          return false;
        if (llvm::any_of(inputs,
                         [&](const Input &in) { return in.tile == alloc; }))
          continue;
        std::optional<Input> in = loadedInput(g, loop.op, alloc);
        if (!in)
          return false;
        inputs.push_back(std::move(*in));
      }
  return true;
}

/// The time each engine class of one physical core spends on nest `loop`:
/// its instructions one after another, the transfers spread over the
/// core's DMA engines.
static std::array<double, rt::kEngineClasses>
engineNs(const KernelGraph &g, const LoopInfo &loop,
         const rt::CostModel &model) {
  std::array<double, rt::kEngineClasses> busy{};
  for (size_t i = loop.first; i < loop.end; ++i) {
    Operation *op = g.instruction(i);
    busy[int(engineClassOf(op))] +=
        model.nanoseconds(costQueryOf(op)) * double(g.instancesOf(i));
  }
  busy[int(rt::EngineClass::Dma)] /= model.dmaEngines();
  return busy;
}

/// The time of adding a partial sum of PSUM tile `sum` made on another
/// physical core to this one's: copied to SBUF there, sent through HBM,
/// and added here.
static double sendSumNs(MemRefType sum, const rt::CostModel &model) {
  auto in = [&](MemorySpace space) {
    return operandShapeOf(MemRefType::get(
        sum.getShape(), sum.getElementType(), MemRefLayoutAttrInterface(),
        MemorySpaceAttr::get(sum.getContext(), space)));
  };
  rt::OperandShape psum = in(MemorySpace::psum), sbuf = in(MemorySpace::sbuf),
                   hbm = in(MemorySpace::hbm);
  return model.nanoseconds(rt::costQueryFor("activation", sbuf, psum)) +
         model.nanoseconds(rt::costQueryFor("dma_copy", hbm, sbuf)) +
         model.nanoseconds(rt::costQueryFor("dma_copy", sbuf, hbm)) +
         model.nanoseconds(rt::costQueryFor("tensor_tensor", psum, psum));
}

/// Maps, in `map`, every value `op` uses from outside it that is a view
/// (through view ops made outside it) of a value `map` holds to a copy of
/// that view over the mapped value, cloned at `b`; values over nothing
/// `map` holds stay shared.
static void cloneOutsideViews(OpBuilder &b, Operation *op, IRMapping &map) {
  std::function<bool(Value)> remap = [&](Value v) {
    if (map.contains(v))
      return true;
    Operation *def = v.getDefiningOp();
    if (!def || op->isAncestor(def) ||
        !isa<memref::SubViewOp, memref::ReinterpretCastOp, memref::TransposeOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
            def))
      return false;
    bool over = false;
    for (Value operand : def->getOperands())
      over |= remap(operand);
    if (over)
      b.clone(*def, map);
    return over;
  };
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      remap(v);
  });
}

/// Each core's iterations of a nest of `trips` iterations of `each` ns,
/// none on core c starting before `ready[c]`: one at a time to the core
/// that would end it first (on a tie, the lowest), core 0 keeping at least
/// one (the nest's own). Advances `free`, when each core's work so far
/// ends, for the cores that get any.
static SmallVector<int64_t> shareOut(int64_t trips, double each,
                                     ArrayRef<double> ready,
                                     SmallVectorImpl<double> &free) {
  int cores = int(free.size());
  SmallVector<int64_t> count(cores, 0);
  SmallVector<double> ends;
  for (auto [f, r] : llvm::zip(free, ready))
    ends.push_back(std::max(f, r));
  for (int64_t t = 0; t < trips; ++t) {
    int c = int(llvm::min_element(ends) - ends.begin());
    ++count[c];
    ends[c] += each;
  }
  if (count[0] == 0) {
    int c = int(llvm::find_if(count, [](int64_t n) { return n > 0; }) -
                count.begin());
    --count[c];
    ends[c] -= each;
    ++count[0];
    ends[0] += each;
  }
  for (int c = 0; c < cores; ++c)
    if (count[c] > 0)
      free[c] = ends[c];
  return count;
}

/// The core a nest run whole is on: the one its `count` gives iterations.
static int64_t wholeOn(ArrayRef<int64_t> count) {
  return llvm::find_if(count, [](int64_t n) { return n > 0; }) -
         count.begin();
}

/// A tile like `like` in `space`, made at `b`.
static Value tileLike(OpBuilder &b, Value like, MemorySpace space) {
  auto type = cast<MemRefType>(like.getType());
  return memref::AllocOp::create(
      b, like.getLoc(),
      MemRefType::get(type.getShape(), type.getElementType(),
                      MemRefLayoutAttrInterface(),
                      MemorySpaceAttr::get(b.getContext(), space)));
}

/// Sends physical core `core`'s partial sum `sum` (a PSUM tile) to HBM:
/// copied to its SBUF, then stored. Returns the HBM tile.
static Value sendSum(OpBuilder &b, Value sum, int64_t core) {
  Location loc = sum.getLoc();
  auto mark = [&](Operation *op) {
    op->setAttr(NisaDialect::kCore, b.getI64IntegerAttr(core));
  };
  Value staged = tileLike(b, sum, MemorySpace::sbuf);
  mark(staged.getDefiningOp());
  mark(ActivationOp::create(
      b, loc, sum, staged, Value(),
      ActivationFunctionAttr::get(b.getContext(), ActivationFunction::identity),
      b.getF64FloatAttr(1.0)));
  Value sent = tileLike(b, sum, MemorySpace::hbm);
  mark(DmaCopyOp::create(b, loc, staged, sent, b.getI64IntegerAttr(0)));
  return sent;
}

/// Adds `partial`, a partial sum in HBM, to PSUM tile `sum` on physical
/// core 0.
static void addSum(OpBuilder &b, Value partial, Value sum) {
  Location loc = sum.getLoc();
  Value loaded = tileLike(b, sum, MemorySpace::sbuf);
  DmaCopyOp::create(b, loc, partial, loaded, b.getI64IntegerAttr(0));
  TensorTensorOp::create(b, loc, sum, loaded, sum,
                         AluOpAttr::get(b.getContext(), AluOp::add));
}

/// Whether a dependence's two instructions touch the same HBM elements,
/// compared run by run over all iterations of their loops (on-chip ones,
/// and patterns of too many runs, are taken to).
class HbmOverlap {
public:
  explicit HbmOverlap(const KernelGraph &g) : g(g) {}

  bool meets(const Dependence &d, size_t to) {
    ArrayRef<TileAccess> from = g.accessesOf(d.from),
                         at = g.accessesOf(to);
    bool compared = false;
    for (auto [x, a] : llvm::enumerate(from))
      for (auto [y, b] : llvm::enumerate(at)) {
        if (a.buffer != d.buffer || b.buffer != d.buffer)
          continue;
        if (a.onChip || b.onChip)
          return true;
        const std::optional<Intervals> &p = runsOf(d.from, x),
                                       &q = runsOf(to, y);
        if (!p || !q || runsMeet(*p, *q))
          return true;
        compared = true;
      }
    return !compared;
  }

private:
  /// The runs of access `x` of instruction `i` over all its loops.
  const std::optional<Intervals> &runsOf(size_t i, size_t x) {
    auto [it, fresh] = runs.try_emplace({i, x});
    if (fresh)
      it->second = hbmRuns(g.accessesOf(i)[x], g.tripsOf(i), 0, kMaxRuns);
    return it->second;
  }

  const KernelGraph &g;
  std::map<std::pair<size_t, size_t>, std::optional<Intervals>> runs;
};

/// A nest to split: the tiles its copies get their own of, and each core's
/// share of its iterations.
struct Nest {
  affine::AffineForOp op;
  SmallVector<Operation *> scratch;
  SmallVector<Input> inputs;
  SmallVector<Operation *> sums;
  /// Each core's iterations (shareOut), in order: core c runs the count[c]
  /// after those of the cores before it.
  SmallVector<int64_t> count;
  /// A nest that runs whole on one core (movesWhole), with `members`, the
  /// straight-line top-level ops after it using its tiles: all its
  /// iterations are one core's, its tiles made outside it (`scratch`) that
  /// core's own.
  bool whole = false;
  SmallVector<Operation *> members;
};

/// A top-level op of a kernel as planSplits times it: what it waits for
/// and, for a nest, whether and how it splits.
struct TopOp {
  Operation *op = nullptr;
  /// The top-level ops before it that it depends on through HBM (only
  /// where the two touch the same elements over all their loops' runs: the
  /// graph's bounding range of a large pattern may order transfers of
  /// disjoint windows, as a nest's stores and the next nest's), and through
  /// an on-chip tile: one of physical core 0's (each other core has its
  /// own copies of the tiles of its share of a nest), so only core 0's
  /// share of a split nest is waited for.
  SmallVector<Operation *> afterHbm, afterOnChip;
  /// Its time on one physical core (a nest's busiest engine class), and
  /// what a nest's share on a core takes beyond its iterations' part of it.
  double ns = 0, fill = 0;
  /// Whether a nest's busiest engine class is its DMA engines'.
  bool dmaBound = false;
  /// A nest: its trips; why it stays on core 0 ("" when it splits).
  const LoopInfo *loop = nullptr;
  std::string why;
  /// A split nest: its tiles and inputs, the time of sending its partial
  /// sums to core 0, and the ops loading its inputs.
  Nest nest;
  double sending = 0;
  SmallVector<Operation *> loaders;
};

/// The ops loading `inputs`, each once, in order.
static SmallVector<Operation *> loadersOf(ArrayRef<Input> inputs) {
  llvm::SetVector<Operation *> loaders;
  for (const Input &in : inputs)
    for (Operation *op : in.loaders)
      loaders.insert(op);
  return SmallVector<Operation *>(loaders.begin(), loaders.end());
}

/// Marks each nest of `tops` its iterations do not split that may run
/// whole on another physical core (movesWhole), with the straight-line ops
/// right after it that share on-chip tiles with it or with one another
/// (not those earlier ops wrote: its inputs), up to the first that does
/// not: a matmul's sums over K copied out of PSUM, an epilogue on them,
/// stored. (Its copies go where it was: one of those after an op between
/// would pass that op, which may write what the nest reads.) They are timed
/// as the straight-line ops they are, wherever the nest runs (their time
/// counted with the nest's made a 901x512x768 bf16 matmul's estimate give
/// core 1 more of an earlier nest, 11.3 -> 13.4 us).
static void wholeNests(const KernelGraph &g, std::vector<TopOp> &tops) {
  TopTiles topTiles(g);
  // The tiles the ops before tops[p] write.
  llvm::SmallPtrSet<Operation *, 16> written;
  for (size_t p = 0; p < tops.size(); ++p) {
    if (p > 0)
      for (Operation *tile : topTiles.writes.lookup(tops[p - 1].op))
        written.insert(tile);
    TopOp &top = tops[p];
    if (!top.loop || top.why.empty())
      continue;
    llvm::SmallPtrSet<Operation *, 8> shared;
    auto share = [&](Operation *op) {
      for (Operation *tile : topTiles.tiles.lookup(op))
        if (!written.contains(tile))
          shared.insert(tile);
    };
    share(top.op);
    size_t next = p + 1;
    while (next < tops.size() && !tops[next].loop)
      ++next;
    SmallVector<bool> joined(next - p - 1, false);
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t q = p + 1; q < next; ++q) {
        if (joined[q - p - 1] ||
            llvm::none_of(topTiles.tiles.lookup(tops[q].op),
                          [&](Operation *t) { return shared.contains(t); }))
          continue;
        joined[q - p - 1] = grew = true;
        share(tops[q].op);
      }
    }
    // Those right after it only: moved with it, they keep their order
    // with the ops between.
    SmallVector<Operation *> members, own;
    SmallVector<Input> inputs;
    for (size_t q = p + 1; q < next && joined[q - p - 1]; ++q)
      members.push_back(tops[q].op);
    if (!movesWhole(g, topTiles, *top.loop, members, own, inputs))
      continue;
    Nest &nest = top.nest;
    nest.whole = true;
    nest.members = std::move(members);
    nest.scratch = std::move(own);
    nest.inputs = std::move(inputs);
    nest.sums.clear();
    top.sending = 0;
    top.loaders = loadersOf(nest.inputs);
  }
}

/// The kernel's top-level ops, in program order, as planSplits times them.
static std::vector<TopOp> topOpsOf(const KernelGraph &g, int cores,
                                   const rt::CostModel &model) {
  std::vector<TopOp> tops;
  DenseMap<Operation *, const LoopInfo *> loops;
  for (const LoopInfo &loop : g.getLoops())
    if (loop.parent < 0)
      loops[loop.op] = &loop;
  HbmOverlap overlap(g);
  for (size_t i = 0; i < g.size();) {
    TopOp top;
    top.op = g.topLevelOf(i);
    auto found = loops.find(top.op);
    size_t first = i;
    i = found == loops.end() ? i + 1 : found->second->end;
    llvm::SetVector<Operation *> hbm, onChip;
    for (size_t j = first; j < i; ++j)
      for (const Dependence &d : g.predecessors(j)) {
        Operation *from = g.topLevelOf(d.from);
        if (from == top.op)
          continue;
        if (g.isOnChip(d.buffer))
          onChip.insert(from);
        else if (!hbm.contains(from) && overlap.meets(d, j))
          hbm.insert(from);
      }
    top.afterHbm.assign(hbm.begin(), hbm.end());
    top.afterOnChip.assign(onChip.begin(), onChip.end());
    if (found == loops.end()) {
      // A transfer is cut into pieces the DMA engines move side by side
      // (nisa-schedule does so as transferPieces says).
      rt::CostQuery query = costQueryOf(g.instruction(first));
      top.ns = model.nanoseconds(query);
      if (isa<DmaCopyOp>(g.instruction(first))) {
        double streaming =
            model.dmaStreamBytes(query) / model.dmaEngineBytesPerNs();
        top.ns = model.dmaFixedNs() +
                 streaming / double(model.transferPieces(streaming, true));
      }
      tops.push_back(std::move(top));
      continue;
    }
    const LoopInfo &loop = *found->second;
    top.loop = &loop;
    Nest &nest = top.nest;
    nest.op = cast<affine::AffineForOp>(loop.op);
    top.why = loop.trips < 2 ? "it runs once"
                             : whyNotSplit(g, loop, nest.scratch, nest.inputs,
                                           nest.sums);
    // Its time is its busiest engine class's; a core running a share of
    // it also fills and drains the pipeline of its engines, about the time
    // of one iteration on the others.
    std::array<double, rt::kEngineClasses> busy = engineNs(g, loop, model);
    top.ns = *llvm::max_element(busy);
    top.dmaBound = busy[int(rt::EngineClass::Dma)] == top.ns;
    top.fill = (std::accumulate(busy.begin(), busy.end(), 0.0) - top.ns) /
               double(loop.trips);
    for (Operation *sum : nest.sums)
      top.sending +=
          sendSumNs(cast<MemRefType>(sum->getResult(0).getType()), model);
    // Core 0 waits for the other cores' partial sums of each tile.
    int64_t share = llvm::divideCeil(loop.trips, cores);
    if (top.why.empty() && !nest.sums.empty() &&
        top.ns * double(share) / double(loop.trips) + top.sending >= top.ns)
      top.why = llvm::formatv("summing its parts on {0} physical cores is "
                              "predicted no faster",
                              cores);
    top.loaders = loadersOf(nest.inputs);
    tops.push_back(std::move(top));
  }
  wholeNests(g, tops);
  return tops;
}

/// Each split nest's shares of `tops` (by position) and when the kernel
/// is predicted to end with them: a nest in `forced` shares its
/// iterations so, the others as shareOut does where that ends them sooner
/// than core 0 alone, by more than `minGain` where another core must load
/// copies of its inputs it has not loaded for a nest before (the waits
/// between the cores the copies add), else all on core 0. `byOp` finds each
/// of `tops` by its op.
static double shareNests(ArrayRef<TopOp> tops,
                         const DenseMap<Operation *, const TopOp *> &byOp,
                         int cores, double minGain,
                         const DenseMap<size_t, SmallVector<int64_t>> &forced,
                         DenseMap<size_t, SmallVector<int64_t>> &counts) {
  // The estimated end of each top-level op (on all cores, and its share
  // on core 0), and of each core's work so far: a nest starts once what it
  // depends on has ended, and shares its iterations out so that its cores
  // end as early as they can.
  DenseMap<Operation *, double> end, endOnCore0;
  // The time of each nest kept on core 0, and the ops loading inputs each
  // core c > 0 has run its copy of (for a nest split before).
  DenseMap<Operation *, double> own;
  SmallVector<DenseSet<Operation *>> copied(cores);
  SmallVector<double> free(cores, 0.0);
  // When what `top` depends on has ended, but for those in `skipped`. On
  // a core other than 0 (`onCore0` false) a copy of a split nest waits for
  // no nest through an on-chip tile: it has its own copies of the tiles
  // (the loaders of its inputs are timed apart), but for straight-line
  // instructions, each core's copies timed alike.
  auto isNest = [&](Operation *op) {
    const TopOp *top = byOp.lookup(op);
    return top && top->loop;
  };
  auto readyOf = [&](const TopOp &top, ArrayRef<Operation *> skipped = {},
                     bool onCore0 = true) {
    double ready = 0;
    for (Operation *from : top.afterHbm)
      if (!llvm::is_contained(skipped, from))
        ready = std::max(ready, end.lookup(from));
    for (Operation *from : top.afterOnChip)
      if ((onCore0 || !isNest(from)) &&
          !llvm::is_contained(skipped, from))
        ready = std::max(ready, endOnCore0.lookup(from));
    return ready;
  };
  auto ended = [&](Operation *op, double all, double onCore0) {
    end[op] = all;
    endOnCore0[op] = onCore0;
  };
  counts.clear();
  for (auto [position, top] : llvm::enumerate(tops)) {
    double ready = readyOf(top);
    if (!top.loop) {
      ended(top.op, ready + top.ns, ready + top.ns);
      continue;
    }
    if (!top.why.empty() && !top.nest.whole) {
      free[0] = std::max(free[0], ready) + top.ns;
      ended(top.op, free[0], free[0]);
      own[top.op] = top.ns;
      continue;
    }
    // Core 0 starts once what the nest depends on has ended. The other
    // cores run their own copies of the ops loading its inputs (those they
    // have not run for a nest before), which core 0 runs before the nest:
    // on core c a loading nest once its own work, what it depends on
    // outside them and its copies of those of them it depends on have
    // ended, and the nest once they and what else it depends on have. (A
    // straight-line loader is timed apart from the cores' work, on each
    // alike.)
    SmallVector<double> readyAt(cores, readyOf(top, {}, false));
    readyAt[0] = ready;
    bool copies = false;
    if (!top.loaders.empty()) {
      SmallVector<Operation *> nested;
      for (Operation *op : top.loaders)
        if (isNest(op))
          nested.push_back(op);
      double others = readyOf(top, nested, false);
      for (int c = 1; c < cores; ++c) {
        DenseMap<Operation *, double> loadedAt;
        double loaded = free[c];
        for (Operation *op : top.loaders) {
          if (copied[c].contains(op))
            continue;
          copies = true;
          if (!isNest(op))
            continue;
          const TopOp &loader = *byOp.lookup(op);
          double start = std::max(free[c], readyOf(loader, top.loaders));
          for (Operation *from :
               llvm::concat<Operation *const>(loader.afterHbm,
                                              loader.afterOnChip))
            start = std::max(start, loadedAt.lookup(from));
          loadedAt[op] = start + own.lookup(op);
          loaded = std::max(loaded, loadedAt[op]);
        }
        readyAt[c] = std::max(others, loaded);
      }
    }
    int64_t trips = top.loop->trips;
    double each = top.ns / double(trips);
    SmallVector<int64_t> count;
    if (auto it = forced.find(position); it != forced.end()) {
      count = it->second;
      for (int c = 0; c < cores; ++c)
        if (count[c] > 0)
          free[c] = std::max(free[c], readyAt[c]) + double(count[c]) * each;
    } else {
      SmallVector<double> before(free);
      if (top.nest.whole) {
        // On core 0, but where planSplits finds another ends the kernel
        // sooner.
        count.assign(cores, 0);
        count[0] = trips;
        free[0] = std::max(free[0], readyAt[0]) + double(trips) * each;
      } else {
        count = shareOut(trips, each, readyAt, free);
      }
      double alone =
          std::max(before[0], readyAt[0]) + double(trips) * each;
      double shared = 0;
      for (int c = 0; c < cores; ++c)
        if (count[c] > 0)
          shared = std::max(shared, free[c]);
      if (count[0] < trips && copies && alone - shared <= minGain) {
        free = before;
        free[0] = alone;
        count.assign(cores, 0);
        count[0] = trips;
      }
    }
    for (int c = 0; c < cores; ++c)
      if (count[c] > 0)
        free[c] += top.fill;
    for (int c = 1; c < cores; ++c)
      if (count[c] > 0)
        copied[c].insert(top.loaders.begin(), top.loaders.end());
    // A nest run whole ends with its core's work; a split one with the
    // last of its shares.
    double all = top.nest.whole ? free[wholeOn(count)]
                                : *llvm::max_element(free) + top.sending;
    if (!top.nest.sums.empty())
      free[0] = all;
    ended(top.op, all, free[0]);
    counts[position] = std::move(count);
  }
  double last = *llvm::max_element(free);
  for (auto &[op, ns] : end)
    last = std::max(last, ns);
  return last;
}

/// The shares of a nest of `trips` iterations over `cores` physical cores
/// near `count`: one to `moves` iterations moved from one core to another.
static SmallVector<SmallVector<int64_t>>
sharesNear(ArrayRef<int64_t> count, int64_t moves) {
  SmallVector<SmallVector<int64_t>> near;
  int cores = int(count.size());
  for (int from = 0; from < cores; ++from)
    for (int to = 0; to < cores; ++to)
      for (int64_t k = 1; to != from && k <= moves; ++k) {
        // Core 0 keeps at least one (the nest's own).
        if (count[from] - k < (from == 0 ? 1 : 0))
          break;
        SmallVector<int64_t> moved(count);
        moved[from] -= k;
        moved[to] += k;
        near.push_back(std::move(moved));
      }
  return near;
}

/// Shares at most this many iterations from the first-to-end one are
/// tried, and one is taken where it shortens the kernel's estimate by this
/// share of it: about the estimate's accuracy (it leaves out how the
/// engines' queues and the kernel's start overlap).
constexpr int64_t kShareMoves = 8;
constexpr double kShareGain = 0.1;
/// A nest run whole moves to another core where that shortens the
/// kernel's estimate by this share of it. Its time on a core is that of
/// its instructions on one engine each, the estimate's best-known part;
/// against kShareGain, of 196 GEMM shapes on trn2 (the lnc=2 sweep's 26
/// and 170 drawn at random) 7 more were faster (bf16 3000x2000x1500 155.0
/// -> 145.1 us, f32 444x699x1846 49.7 -> 44.2) and one slower (fp8
/// 698x2419x1726 42.4 -> 43.0).
constexpr double kWholeGain = 0.05;

/// The top-level nests of `g`'s kernel to split over `cores` physical
/// cores or to run whole on another than core 0, in program order; with
/// `summary`, a remark on each nest not split saying why and where it
/// runs. Each nest's iterations go one at a time
/// to the core that would end it first (shareOut), unless another share
/// near that one lets the kernel end sooner as the later nests are shared
/// out after it (a nest that gives core 0 the odd iteration may leave
/// core 1 idle at the end where core 0 has work of its own to do after
/// it): the nests are taken in program order, each keeping the share the
/// kernel is predicted to end soonest with. Not a nest bound by its
/// transfers, whose time on a core the estimate knows least well (a share
/// of large stores queues on one core's engines: a 1843x101x2310 fp8
/// matmul's second nest all on core 0 measured 34.2 -> 54.8 us). A nest
/// run whole (movesWhole) moves from core 0 only so (by kWholeGain), bound
/// by its transfers or not: the estimate has core 1 end its shares of a split
/// nest tens of microseconds early on some kernels, and each nest moved to
/// the core predicted to end it first measured slower on 6 of 40 random
/// shapes (3837x381x866 f32 76.2 -> 84.6 us, 4000^3 bf16 1070.4 -> 1083.2).
static std::vector<Nest> planSplits(const KernelGraph &g, int cores,
                                    const rt::CostModel &model,
                                    bool summary) {
  std::vector<TopOp> tops = topOpsOf(g, cores, model);
  DenseMap<size_t, SmallVector<int64_t>> forced, counts;
  double minGain = model.dmaFixedNs();
  DenseMap<Operation *, const TopOp *> byOp;
  for (const TopOp &top : tops)
    byOp[top.op] = &top;
  double best = shareNests(tops, byOp, cores, minGain, forced, counts);
  for (size_t position = 0; position < tops.size(); ++position) {
    auto greedy = counts.find(position);
    if (greedy == counts.end() ||
        (tops[position].dmaBound && !tops[position].nest.whole))
      continue;
    SmallVector<int64_t> chosen = greedy->second;
    DenseMap<size_t, SmallVector<int64_t>> tried;
    // A nest run whole may run on each other core instead.
    SmallVector<SmallVector<int64_t>> near;
    if (tops[position].nest.whole) {
      for (int c = 0; c < cores; ++c)
        if (chosen[c] == 0) {
          near.emplace_back(cores, 0);
          near.back()[c] = tops[position].loop->trips;
        }
    } else {
      near = sharesNear(chosen, kShareMoves);
    }
    for (SmallVector<int64_t> &share : near) {
      forced[position] = share;
      double ns = shareNests(tops, byOp, cores, minGain, forced, tried);
      if (ns < best * (1 - (tops[position].nest.whole ? kWholeGain
                                                       : kShareGain))) {
        best = ns;
        chosen = std::move(share);
      }
    }
    forced[position] = chosen;
    shareNests(tops, byOp, cores, minGain, forced, counts);
  }
  std::vector<Nest> nests;
  for (auto [position, top] : llvm::enumerate(tops)) {
    auto it = counts.find(position);
    bool moved = it != counts.end() && top.nest.whole && it->second[0] == 0;
    if (summary && top.loop && !top.why.empty()) {
      InFlightDiagnostic remark = top.loop->op->emitRemark();
      if (moved)
        remark << "nisa-split-cores: on physical core "
               << wholeOn(it->second) << " whole, with the "
               << top.nest.members.size()
               << " instructions after it using its tiles (" << top.why
               << ")";
      else
        remark << "nisa-split-cores: on physical core 0: " << top.why;
    }
    if (it == counts.end() || (top.nest.whole && !moved))
      continue;
    Nest nest = top.nest;
    nest.count = it->second;
    nests.push_back(std::move(nest));
  }
  return nests;
}

/// A copy of tile `alloc` for physical core `core`, made at `b`.
static Value madeOn(OpBuilder &b, Operation *alloc, int64_t core) {
  Operation *made = b.clone(*alloc);
  made->setAttr(NisaDialect::kCore, b.getI64IntegerAttr(core));
  return made->getResult(0);
}

/// Maps, in `mine`, the tiles made outside `entry`'s nest to physical core
/// `core`'s own: its copy of each input, loaded as core 0's was (the
/// loaders with scratch of their own) unless it loaded it for a nest
/// before (`loaded`), and its own scratch tiles, made at `b`.
static void ownTiles(OpBuilder &b, const Nest &entry, int64_t core,
                     SmallVectorImpl<DenseMap<Operation *, Value>> &loaded,
                     IRMapping &mine) {
  for (const Input &in : entry.inputs) {
    Value &copy = loaded[core][in.tile];
    if (!copy) {
      IRMapping load;
      for (Operation *alloc : llvm::concat<Operation *const>(
               ArrayRef<Operation *>(in.tile), in.scratch))
        load.map(alloc->getResult(0), madeOn(b, alloc, core));
      for (Operation *loader : in.loaders) {
        cloneOutsideViews(b, loader, load);
        Operation *made = b.clone(*loader, load);
        made->setAttr(NisaDialect::kCore, b.getI64IntegerAttr(core));
      }
      copy = load.lookup(in.tile->getResult(0));
    }
    mine.map(in.tile->getResult(0), copy);
  }
  for (Operation *alloc : entry.scratch)
    mine.map(alloc->getResult(0), madeOn(b, alloc, core));
}

/// Moves `entry`, a nest run whole on one physical core c > 0, there with
/// its members: their copies marked for core c, with its own tiles
/// (ownTiles), where the last of them was. The originals, and the views
/// and tiles only they used, are erased.
static void moveWhole(const Nest &entry,
                      SmallVectorImpl<DenseMap<Operation *, Value>> &loaded) {
  int64_t core = wholeOn(entry.count);
  SmallVector<Operation *> ops{entry.op};
  llvm::append_range(ops, entry.members);
  OpBuilder b(ops.back()->getContext());
  b.setInsertionPointAfter(ops.back());
  IRMapping mine;
  ownTiles(b, entry, core, loaded, mine);
  for (Operation *op : ops) {
    cloneOutsideViews(b, op, mine);
    Operation *copy = b.clone(*op, mine);
    copy->setAttr(NisaDialect::kCore, b.getI64IntegerAttr(core));
  }
  // The originals, then the views and tiles made outside them that only
  // they used.
  llvm::SetVector<Operation *> unused;
  auto erase = [&](Operation *op) {
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && !op->isAncestor(def) &&
            isa<memref::AllocOp, memref::SubViewOp, memref::ReinterpretCastOp,
                memref::TransposeOp, memref::ExpandShapeOp,
                memref::CollapseShapeOp, memref::CastOp>(def))
          unused.insert(def);
    });
    unused.remove(op);
    op->erase();
  };
  for (Operation *op : llvm::reverse(ops))
    erase(op);
  for (Operation *alloc : entry.scratch)
    unused.insert(alloc);
  for (bool erased = true; erased;) {
    erased = false;
    for (Operation *op : unused.takeVector())
      if (op->use_empty()) {
        erase(op);
        erased = true;
      } else {
        unused.insert(op);
      }
  }
}

/// Gives each physical core c > 0 with iterations of `entry` a copy of its
/// nest over them (split group `group`), with its own scratch, sums and
/// inputs (loaded once per core: `loaded`), and has core 0 add their
/// partial sums to its own.
static void splitNest(const Nest &entry, int64_t group,
                      SmallVectorImpl<DenseMap<Operation *, Value>> &loaded) {
  int64_t cores = int64_t(entry.count.size());
  // Per tile summed: the other cores' partial sums in HBM.
  llvm::MapVector<Operation *, SmallVector<Value>> sent;
  affine::AffineForOp nest = entry.op;
  OpBuilder b(nest);
  nest->setAttr(NisaDialect::kSplit, b.getI64IntegerAttr(group));
  b.setInsertionPointAfter(nest);
  int64_t first = entry.count[0];
  for (int64_t c = 1; c < cores; first += entry.count[c++]) {
    if (entry.count[c] == 0)
      continue;
    IRMapping mine;
    ownTiles(b, entry, c, loaded, mine);
    for (Operation *sum : entry.sums)
      mine.map(sum->getResult(0), madeOn(b, sum, c));
    cloneOutsideViews(b, nest, mine);
    auto copy = cast<affine::AffineForOp>(b.clone(*nest, mine));
    copy.setConstantUpperBound(entry.count[c]);
    copy->setAttr(NisaDialect::kCore, b.getI64IntegerAttr(c));
    // Its iterations are the nest's from `first` on; its sums restart
    // on its own first.
    Value iv = copy.getInductionVar();
    OpBuilder inner = OpBuilder::atBlockBegin(copy.getBody());
    AffineExpr d0 = inner.getAffineDimExpr(0);
    auto shifted = affine::AffineApplyOp::create(
        inner, copy.getLoc(), AffineMap::get(1, 0, d0 + first), iv);
    iv.replaceAllUsesExcept(shifted, shifted);
    copy.walk([&](MatmulOp mm) {
      for (OpOperand &restart : mm.getRestartMutable())
        if (restart.get() == shifted.getResult())
          restart.set(iv);
    });
    b.setInsertionPointAfter(copy);
    // Its partial sums go to HBM for core 0.
    for (Operation *sum : entry.sums)
      sent[sum].push_back(sendSum(b, mine.lookup(sum->getResult(0)), c));
  }
  nest.setConstantUpperBound(entry.count[0]);
  // Core 0 adds the other cores' partial sums to its own.
  for (Operation *sum : entry.sums)
    for (Value partial : sent[sum])
      addSum(b, partial, sum->getResult(0));
}

struct NisaSplitCores
    : mlir::neuron::impl::NisaSplitCoresBase<NisaSplitCores> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<LoadedTarget> loaded =
        loadTarget(module, "nisa-split-cores", target, targetDir);
    if (failed(loaded))
      return signalPassFailure();
    int cores = std::max(1, loaded->target.lnc.physicalCoresPerLogicalCore);
    if (cores < 2)
      return;
    FailureOr<rt::CostModel> model =
        loadCostModel(module, "nisa-split-cores", loaded->target);
    if (failed(model))
      return signalPassFailure();
    for (auto kernel : module.getOps<func::FuncOp>())
      if (kernel->hasAttr(NisaDialect::kLimits) && !kernel.isExternal() &&
          failed(split(kernel, cores, *model)))
        return signalPassFailure();
  }

  LogicalResult split(func::FuncOp kernel, int cores,
                      const rt::CostModel &model) {
    FailureOr<KernelGraph> graph = KernelGraph::build(kernel);
    if (failed(graph))
      return failure();
    std::vector<Nest> nests = planSplits(*graph, cores, model, summary);
    // Per core: the copy of each input it loaded already.
    SmallVector<DenseMap<Operation *, Value>> loaded(cores);
    int64_t split = 0;
    for (const Nest &nest : nests) {
      if (nest.whole)
        moveWhole(nest, loaded);
      else
        splitNest(nest, split++, loaded);
    }
    if (!nests.empty())
      kernel->setAttr(NisaDialect::kCores,
                      Builder(kernel).getI64IntegerAttr(cores));
    if (summary) {
      int64_t total = llvm::count_if(
          graph->getLoops(), [](const LoopInfo &l) { return l.parent < 0; });
      InFlightDiagnostic remark =
          kernel.emitRemark()
          << "nisa-split-cores: " << split << " of " << total
          << " loop nests split over " << cores << " physical cores";
      if (int64_t moved = int64_t(nests.size()) - split)
        remark << ", " << moved << " run whole on another";
    }
    return success();
  }
};

} // namespace
