//===- NisaAllocate.cpp - the nisa-allocate pass --------------------------===//
//
// Gives every SBUF and PSUM tile of a kernel a byte offset within the
// partitions (`nisa.address`), by a linear scan over the kernel's top-level
// ops. A straight-line tile is live from its allocation to its last use; a
// freed range is reused only after `buffers - 1` further ranges of its size
// are freed, so tiles streaming through are N-way buffered. Of the free
// ranges a tile the DMA fills takes the one last accessed longest ago (its
// load then waits for the fewest reads), any other the lowest. A tile
// allocated in a loop rotates through `buffers` slots (`nisa.slots`; fewer
// when the loops run fewer times or the nest would not fit, the largest
// rotation halved first), all of them live over its whole loop nest, so
// the transfers of later iterations fill the next slots while the engines
// read the current one. PSUM tiles take whole banks, so no accumulation
// straddles a bank. A kernel that does not fit is an error naming the
// tiles live at that point.
//
//===----------------------------------------------------------------------===//

#include "passes/KernelGraph.h"
#include "passes/Passes.h"
#include "passes/ReportFile.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

#include <nlohmann/json.hpp>

#include <deque>
#include <map>

namespace mlir::neuron {
#define GEN_PASS_DEF_NISAALLOCATE
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::nisa;
using json = nlohmann::ordered_json;

/// Bytes one partition of a tile holds.
static int64_t bytesPerPartition(MemRefType type) {
  int64_t partitions = std::max<int64_t>(type.getDimSize(0), 1);
  return type.getNumElements() / partitions *
         ((type.getElementTypeBitWidth() + 7) / 8);
}

namespace {

/// Allocation of byte ranges in [0, capacity): the lowest free range, or
/// the one whose bytes were last used longest ago. A freed range is
/// held back until `delay` more ranges of its size have been freed, so each
/// kind of streaming tile rotates through `delay + 1` buffers however many
/// tiles of other sizes stream beside it.
class RangeAllocator {
public:
  RangeAllocator(int64_t capacity, int64_t alignment, unsigned delay)
      : capacity(capacity), alignment(alignment), delay(delay) {
    free[0] = capacity;
  }

  /// An offset for `size` bytes, or nothing if no free range holds them:
  /// the lowest, or (`oldest`) the one whose bytes were last used
  /// longest ago, the lowest among those.
  std::optional<int64_t> allocate(int64_t size, bool oldest = false) {
    size = llvm::alignTo(size, alignment);
    std::optional<std::pair<int64_t, int64_t>> best; // {last use, offset}
    for (auto [offset, length] : free) {
      if (length < size)
        continue;
      if (!oldest) {
        best = {0, offset};
        break;
      }
      // Where a range's bytes change their last use, or it ends.
      SmallVector<int64_t> starts{offset, offset + length - size};
      for (auto it = lastUse.upper_bound(offset);
           it != lastUse.end() && it->first <= offset + length - size; ++it)
        starts.push_back(it->first);
      for (int64_t at : starts) {
        std::pair<int64_t, int64_t> candidate{lastUseIn(at, size), at};
        if (!best || candidate < *best)
          best = candidate;
      }
    }
    if (!best)
      return std::nullopt;
    take(best->second, size);
    return best->second;
  }

  /// Frees a range once `delay` more ranges of its size have been freed
  /// (it stays in use, for the peak, until then); its bytes were last
  /// used at `position`.
  void release(int64_t offset, int64_t size, int64_t position) {
    size = llvm::alignTo(size, alignment);
    setLastUse(offset, size, position);
    std::deque<int64_t> &held = pending[size];
    held.push_back(offset);
    while (held.size() > delay) {
      makeFree(held.front(), size);
      held.pop_front();
    }
  }

  /// Frees a range at once (an allocation taken back).
  void undo(int64_t offset, int64_t size) {
    makeFree(offset, llvm::alignTo(size, alignment));
  }

  /// Makes every held-back range free at once (when space runs out).
  void flush() {
    for (auto &[size, held] : pending)
      for (int64_t offset : held)
        makeFree(offset, size);
    pending.clear();
  }

  int64_t peakBytes() const { return peak; }
  int64_t capacityBytes() const { return capacity; }
  /// The largest free range.
  int64_t largestFree() const {
    int64_t best = 0;
    for (auto [offset, length] : free)
      best = std::max(best, length);
    return best;
  }

private:
  /// Takes [at, at + size) out of the free range holding it.
  void take(int64_t at, int64_t size) {
    auto it = std::prev(free.upper_bound(at));
    auto [offset, length] = *it;
    free.erase(it);
    if (at > offset)
      free[offset] = at - offset;
    if (offset + length > at + size)
      free[at + size] = offset + length - (at + size);
    used += size;
    peak = std::max(peak, used);
  }

  /// The latest last use of a byte in [at, at + size) (-1: never used).
  int64_t lastUseIn(int64_t at, int64_t size) const {
    int64_t latest = -1;
    auto it = lastUse.upper_bound(at);
    if (it != lastUse.begin())
      --it;
    for (; it != lastUse.end() && it->first < at + size; ++it)
      latest = std::max(latest, it->second);
    return latest;
  }

  void setLastUse(int64_t offset, int64_t size, int64_t position) {
    // The step after the range keeps its value; the steps inside go.
    int64_t after = -1;
    auto end = lastUse.upper_bound(offset + size);
    if (end != lastUse.begin())
      after = std::prev(end)->second;
    lastUse.erase(lastUse.lower_bound(offset), end);
    lastUse[offset] = position;
    if (offset + size < capacity && !lastUse.count(offset + size))
      lastUse[offset + size] = after;
  }

  void makeFree(int64_t offset, int64_t size) {
    used -= size;
    insertFree(offset, size);
  }

  void insertFree(int64_t offset, int64_t size) {
    auto next = free.lower_bound(offset);
    if (next != free.end() && offset + size == next->first) {
      size += next->second;
      next = free.erase(next);
    }
    if (next != free.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        prev->second += size;
        return;
      }
    }
    free[offset] = size;
  }

  int64_t capacity, alignment;
  unsigned delay;
  std::map<int64_t, int64_t> free;
  /// Held-back offsets by size, oldest first.
  std::map<int64_t, std::deque<int64_t>> pending;
  /// A step function over the bytes: from each key to the next, the
  /// position of their last use (-1: never used; bytes before the first
  /// key neither).
  std::map<int64_t, int64_t> lastUse;
  int64_t used = 0, peak = 0;
};

/// Calls `f` with every op that uses `buffer` (or a view of it) other
/// than a view, and the buffer or view it uses.
static void forEachAccess(Value buffer,
                          function_ref<void(Operation *, Value)> f) {
  for (Operation *user : buffer.getUsers()) {
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (view && view.getViewSource() == buffer)
      forEachAccess(user->getResult(0), f);
    else if (!view)
      f(user, buffer);
  }
}

/// Loops enclosing `op` up to its function, and their trips' product.
static std::pair<int64_t, int64_t> loopsAround(Operation *op) {
  int64_t depth = 0, instances = 1;
  for (Operation *p = op->getParentOp(); p && !isa<func::FuncOp>(p);
       p = p->getParentOp())
    if (auto loop = dyn_cast<affine::AffineForOp>(p)) {
      ++depth;
      instances *= loop.hasConstantBounds()
                       ? std::max<int64_t>(loop.getConstantUpperBound() -
                                               loop.getConstantLowerBound(),
                                           1)
                       : 1;
    }
  return {depth, instances};
}

/// Each physical core's SBUF and PSUM.
struct Memories {
  std::vector<RangeAllocator> sbuf, psum;
  /// The memory `alloc`'s tile lives in: its space, of its core.
  RangeAllocator &of(memref::AllocOp alloc) {
    size_t core = std::min<size_t>(mlir::neuron::coreOf(alloc), sbuf.size() - 1);
    return getMemorySpace(alloc.getType()) == MemorySpace::sbuf ? sbuf[core]
                                                                 : psum[core];
  }
};

struct NisaAllocate : mlir::neuron::impl::NisaAllocateBase<NisaAllocate> {
  using Base::Base;

  void runOnOperation() override {
    json kernels = json::array();
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>())
      if (auto limits = func->getAttrOfType<LimitsAttr>(NisaDialect::kLimits)) {
        json tiles = json::array();
        if (failed(allocate(func, limits, tiles)))
          return signalPassFailure();
        kernels.push_back({{"kernel", func.getName().str()},
                           {"peak_sbuf_bytes_per_partition",
                            func->getAttrOfType<IntegerAttr>(
                                    "nisa.peak_sbuf_bytes")
                                .getInt()},
                           {"peak_psum_bytes_per_partition",
                            func->getAttrOfType<IntegerAttr>(
                                    "nisa.peak_psum_bytes")
                                .getInt()},
                           {"tiles", tiles}});
      }
    if (timeline.empty())
      return;
    std::string text =
        json{{"schema", "neuron-memory-timeline/1"}, {"kernels", kernels}}.dump(
            2) +
        "\n";
    if (failed(mlir::neuron::writeReportFile(getOperation(), "nisa-allocate",
                                             "memory timeline", timeline,
                                             text)))
      return signalPassFailure();
  }

  /// One on-chip tile to place: its allocation, bytes per partition (one
  /// slot), and slots.
  struct Tile {
    memref::AllocOp alloc;
    int64_t size = 0, slots = 1;
    int64_t first = 0, last = 0;
    /// A DMA transfer fills it: it takes the range used longest ago, so
    /// it can load long before the engines reach it.
    bool loaded = false;
    /// The last op accessing it, in the kernel's program order.
    int64_t lastAccess = 0;
  };

  LogicalResult allocate(func::FuncOp func, LimitsAttr limits, json &tiles) {
    if (!func.getBody().hasOneBlock())
      return func.emitError() << "nisa-allocate: expected a kernel of one "
                                 "block";
    Block &block = func.getBody().front();
    // Positions of the top-level ops; a tile in a loop nest lives over the
    // whole nest (its slots rotate inside it), a top-level tile from its
    // allocation to its last use.
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(block))
      position[&op] = i;
    // Every op's place in program order (a loop body's once).
    DenseMap<Operation *, int64_t> order;
    func.walk<WalkOrder::PreOrder>(
        [&](Operation *op) { order[op] = int64_t(order.size()); });
    // Per top-level op: the tiles allocated at it, in order.
    llvm::MapVector<int64_t, SmallVector<Tile>> at;
    unsigned delay = std::max<int64_t>(buffers, 1) - 1;
    auto sizeOf = [&](memref::AllocOp alloc) {
      return llvm::alignTo(bytesPerPartition(alloc.getType()),
                           isSbuf(alloc) ? alignment
                                         : limits.getPsumBankBytes());
    };
    block.walk([&](memref::AllocOp alloc) {
      std::optional<MemorySpace> space = getMemorySpace(alloc.getType());
      if (!space || *space == MemorySpace::hbm)
        return;
      Tile t;
      t.alloc = alloc;
      t.size = sizeOf(alloc);
      forEachAccess(alloc, [&](Operation *op, Value buffer) {
        auto copy = dyn_cast<DmaCopyOp>(op);
        t.loaded |= copy && copy.getDst() == buffer;
        t.lastAccess = std::max(t.lastAccess, order.lookup(op));
      });
      Operation *top = block.findAncestorOpInBlock(*alloc);
      t.first = position[top];
      t.last = t.first;
      auto [depth, instances] = loopsAround(alloc);
      if (depth > 0)
        t.slots = std::max<int64_t>(1, std::min<int64_t>(buffers, instances));
      else
        for (Operation *user : alloc->getUsers())
          t.last = std::max(t.last,
                            position[block.findAncestorOpInBlock(*user)]);
      at[t.first].push_back(t);
    });

    // Each physical core's SBUF and PSUM (nisa.cores; a tile is its
    // instructions' core's).
    int64_t cores = 1;
    if (auto attr = func->getAttrOfType<IntegerAttr>(NisaDialect::kCores))
      cores = std::max<int64_t>(attr.getInt(), 1);
    Memories memories;
    for (int64_t c = 0; c < cores; ++c) {
      memories.sbuf.emplace_back(limits.getSbufBytes(), alignment, delay);
      memories.psum.emplace_back(limits.getPsumBytes(),
                                 limits.getPsumBankBytes(), delay);
    }
    // Tiles live at each point, by end position, to free them in order.
    std::multimap<int64_t, Tile> live;
    Builder b(&getContext());
    for (auto &[pos, group] : at) {
      while (!live.empty() && live.begin()->first < pos) {
        const Tile &t = live.begin()->second;
        memories.of(t.alloc).release(addressOf(t.alloc), t.size * t.slots,
                                     t.lastAccess);
        live.erase(live.begin());
      }
      if (failed(place(group, memories, live)))
        return failure();
      for (Tile &t : group) {
        t.alloc->setAttr(NisaDialect::kAddress,
                         b.getI64IntegerAttr(addressOf(t.alloc)));
        if (t.slots > 1)
          t.alloc->setAttr(NisaDialect::kSlots,
                           SlotsAttr::get(&getContext(), t.slots, t.size));
        else
          t.alloc->removeAttr(NisaDialect::kSlots);
        std::string type;
        llvm::raw_string_ostream(type) << t.alloc.getType();
        tiles.push_back({{"space", isSbuf(t.alloc) ? "sbuf" : "psum"},
                         {"type", type},
                         {"offset", addressOf(t.alloc)},
                         {"bytes_per_partition", t.size},
                         {"slots", t.slots},
                         {"first", t.first},
                         {"last", t.last}});
        live.emplace(t.last, t);
      }
    }
    int64_t peakSbuf = 0, peakPsum = 0;
    for (int64_t c = 0; c < cores; ++c) {
      peakSbuf = std::max(peakSbuf, memories.sbuf[c].peakBytes());
      peakPsum = std::max(peakPsum, memories.psum[c].peakBytes());
    }
    func->setAttr("nisa.peak_sbuf_bytes", b.getI64IntegerAttr(peakSbuf));
    func->setAttr("nisa.peak_psum_bytes", b.getI64IntegerAttr(peakPsum));
    return success();
  }

  static int64_t addressOf(memref::AllocOp alloc) {
    return cast<IntegerAttr>(alloc->getAttr(NisaDialect::kAddress)).getInt();
  }

  /// Places every tile of `group` (the tiles of one top-level op, all live
  /// at once): with their slots if they fit, else with fewer slots (the
  /// largest rotation halved first, but to no fewer than two), else giving
  /// up held-back ranges and halving down to one slot, and only then
  /// failing with the capacity error.
  LogicalResult place(SmallVector<Tile> &group, Memories &memories,
                      const std::multimap<int64_t, Tile> &live) {
    Tile *failedTile = nullptr;
    SmallVector<int64_t> wanted =
        llvm::map_to_vector(group, [](const Tile &t) { return t.slots; });
    for (bool flushed : {false, true}) {
      if (flushed) {
        // Every slot again: held-back ranges cost one wait, fewer slots
        // cost the overlap of every iteration.
        for (RangeAllocator &space : memories.sbuf)
          space.flush();
        for (RangeAllocator &space : memories.psum)
          space.flush();
        for (auto [t, slots] : llvm::zip(group, wanted))
          t.slots = slots;
      }
      for (;;) {
        // Try the whole group; undo it if a tile does not fit.
        SmallVector<std::pair<Tile *, int64_t>> placed;
        failedTile = nullptr;
        for (Tile &t : group) {
          RangeAllocator &space = memories.of(t.alloc);
          std::optional<int64_t> offset =
              space.allocate(t.size * t.slots, t.loaded);
          if (!offset) {
            failedTile = &t;
            break;
          }
          t.alloc->setAttr(NisaDialect::kAddress,
                           IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                            *offset));
          placed.push_back({&t, *offset});
        }
        if (!failedTile)
          return success();
        for (auto [t, offset] : placed)
          memories.of(t->alloc).undo(offset, t->size * t->slots);
        // Fewer slots for the largest rotation in the full space; down to
        // one slot (no overlap between iterations at all) only once the
        // held-back ranges are given up too.
        bool inSbuf = isSbuf(failedTile->alloc);
        Tile *widest = nullptr;
        for (Tile &t : group)
          if (isSbuf(t.alloc) == inSbuf && t.slots > 1 &&
              (!widest || t.size * t.slots > widest->size * widest->slots))
            widest = &t;
        if (!widest || (!flushed && widest->slots <= 2))
          break;
        widest->slots = (widest->slots + 1) / 2;
      }
    }
    // The tiles before it take their bytes again, so the error says what
    // is left beside them.
    for (Tile &t : group) {
      if (&t == failedTile)
        break;
      memories.of(t.alloc).allocate(t.size * t.slots);
    }
    Tile &t = *failedTile;
    return reportFull(t.alloc, t.size, memories.of(t.alloc), live,
                      group);
  }

  static bool isSbuf(memref::AllocOp alloc) {
    return getMemorySpace(alloc.getType()) == MemorySpace::sbuf;
  }

  /// The capacity error: the tile that did not fit, the tiles live beside
  /// it (and those of its own loop nest) with their sizes per partition,
  /// and a size that would fit.
  LogicalResult reportFull(memref::AllocOp alloc, int64_t size,
                           const RangeAllocator &space,
                           const std::multimap<int64_t, Tile> &live,
                           ArrayRef<Tile> group) {
    InFlightDiagnostic diag = alloc.emitError();
    StringRef name = isSbuf(alloc) ? "SBUF" : "PSUM";
    diag << "nisa-allocate: " << name << " is full: this " << alloc.getType()
         << " tile needs " << size << " bytes per partition of "
         << space.capacityBytes() << "; a tile of at most "
         << space.largestFree() << " bytes per partition would fit";
    auto note = [&](Tile other) {
      if (other.alloc == alloc || isSbuf(other.alloc) != isSbuf(alloc) ||
          mlir::neuron::coreOf(other.alloc) != mlir::neuron::coreOf(alloc))
        return;
      diag.attachNote(other.alloc.getLoc())
          << "live: " << other.alloc.getType() << ", "
          << bytesPerPartition(other.alloc.getType()) << " bytes per partition"
          << (other.slots > 1 ? " x " + std::to_string(other.slots) + " slots"
                              : std::string());
    };
    for (auto &[end, other] : live)
      note(other);
    for (const Tile &other : group)
      note(other);
    return failure();
  }
};

} // namespace
