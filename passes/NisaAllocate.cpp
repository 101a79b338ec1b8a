//===- NisaAllocate.cpp - the nisa-allocate pass --------------------------===//
//
// Gives every SBUF and PSUM tile of a kernel a byte offset within the
// partitions (`nisa.address`), by a linear scan over the kernel's
// instructions: a tile is live from its allocation to its last use; a freed
// range is reused only after `buffers - 1` further ranges of its size are
// freed, so tiles streaming through are N-way buffered (each kind on its
// own, whatever streams beside it) and a transfer can fill the next
// buffer while the engines read the current one. PSUM tiles are placed in
// whole banks, so no accumulation straddles a bank. A kernel that does not
// fit is an error naming the tiles live at that point.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

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

/// First-fit allocation of byte ranges in [0, capacity). A freed range is
/// held back until `delay` more ranges of its size have been freed, so each
/// kind of streaming tile rotates through `delay + 1` buffers however many
/// tiles of other sizes stream beside it.
class RangeAllocator {
public:
  RangeAllocator(int64_t capacity, int64_t alignment, unsigned delay)
      : capacity(capacity), alignment(alignment), delay(delay) {
    free[0] = capacity;
  }

  /// An offset for `size` bytes, or nothing if no free range holds them.
  std::optional<int64_t> allocate(int64_t size) {
    size = llvm::alignTo(size, alignment);
    for (auto it = free.begin(); it != free.end(); ++it) {
      auto [offset, length] = *it;
      if (length < size)
        continue;
      free.erase(it);
      if (length > size)
        free[offset + size] = length - size;
      used += size;
      peak = std::max(peak, used);
      return offset;
    }
    return std::nullopt;
  }

  /// Frees a range once `delay` more ranges of its size have been freed
  /// (it stays in use, for the peak, until then).
  void release(int64_t offset, int64_t size) {
    size = llvm::alignTo(size, alignment);
    std::deque<int64_t> &held = pending[size];
    held.push_back(offset);
    while (held.size() > delay) {
      makeFree(held.front(), size);
      held.pop_front();
    }
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
  int64_t used = 0, peak = 0;
};

struct NisaAllocate : mlir::neuron::impl::NisaAllocateBase<NisaAllocate> {
  using Base::Base;

  void runOnOperation() override {
    json kernels = json::array();
    for (func::FuncOp func : getOperation().getOps<func::FuncOp>())
      if (auto limits = func->getAttrOfType<LimitsAttr>("nisa.limits")) {
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
    std::error_code ec;
    llvm::raw_fd_ostream os(timeline, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      getOperation().emitError() << "nisa-allocate: cannot write the timeline "
                                    "to '"
                                 << timeline << "': " << ec.message();
      return signalPassFailure();
    }
    os << json{{"schema", "neuron-memory-timeline/1"}, {"kernels", kernels}}
              .dump(2)
       << "\n";
  }

  LogicalResult allocate(func::FuncOp func, LimitsAttr limits, json &tiles) {
    if (!func.getBody().hasOneBlock())
      return func.emitError() << "nisa-allocate: expected a kernel of one "
                                 "block";
    Block &block = func.getBody().front();
    // Position of each op, and of each tile's last use.
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(block))
      position[&op] = i;
    llvm::MapVector<Operation *, int64_t> lastUse;
    for (Operation &op : block)
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        std::optional<MemorySpace> space = getMemorySpace(alloc.getType());
        if (!space || *space == MemorySpace::hbm)
          continue;
        int64_t last = position[alloc];
        for (Operation *user : alloc->getUsers())
          last = std::max(last, position[block.findAncestorOpInBlock(*user)]);
        lastUse[alloc] = last;
      }

    unsigned delay = std::max<int64_t>(buffers, 1) - 1;
    RangeAllocator sbuf(limits.getSbufBytes(), alignment, delay);
    RangeAllocator psum(limits.getPsumBytes(), limits.getPsumBankBytes(),
                        delay);
    // Tiles live at each point, by end position, to free them in order.
    std::multimap<int64_t, Operation *> live;
    for (auto [i, op] : llvm::enumerate(block)) {
      while (!live.empty() && live.begin()->first < static_cast<int64_t>(i)) {
        auto alloc = cast<memref::AllocOp>(live.begin()->second);
        int64_t offset =
            cast<IntegerAttr>(alloc->getAttr("nisa.address")).getInt();
        (isSbuf(alloc) ? sbuf : psum)
            .release(offset, bytesPerPartition(alloc.getType()));
        live.erase(live.begin());
      }
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc || !lastUse.count(alloc))
        continue;
      RangeAllocator &space = isSbuf(alloc) ? sbuf : psum;
      int64_t size = bytesPerPartition(alloc.getType());
      std::optional<int64_t> offset = space.allocate(size);
      if (!offset) {
        space.flush(); // give up multi-buffering before giving up
        offset = space.allocate(size);
      }
      if (!offset)
        return reportFull(alloc, size, space, live);
      alloc->setAttr("nisa.address",
                     IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                      *offset));
      live.emplace(lastUse[alloc], alloc);
      std::string type;
      llvm::raw_string_ostream(type) << alloc.getType();
      tiles.push_back({{"space", isSbuf(alloc) ? "sbuf" : "psum"},
                       {"type", type},
                       {"offset", *offset},
                       {"bytes_per_partition", size},
                       {"first", static_cast<int64_t>(i)},
                       {"last", lastUse[alloc]}});
    }
    Builder b(&getContext());
    func->setAttr("nisa.peak_sbuf_bytes", b.getI64IntegerAttr(sbuf.peakBytes()));
    func->setAttr("nisa.peak_psum_bytes", b.getI64IntegerAttr(psum.peakBytes()));
    return success();
  }

  static bool isSbuf(memref::AllocOp alloc) {
    return getMemorySpace(alloc.getType()) == MemorySpace::sbuf;
  }

  /// The capacity error: the tile that did not fit, the tiles live beside
  /// it with their sizes per partition, and a size that would fit.
  LogicalResult reportFull(memref::AllocOp alloc, int64_t size,
                           const RangeAllocator &space,
                           const std::multimap<int64_t, Operation *> &live) {
    InFlightDiagnostic diag = alloc.emitError();
    StringRef name = isSbuf(alloc) ? "SBUF" : "PSUM";
    diag << "nisa-allocate: " << name << " is full: this " << alloc.getType()
         << " tile needs " << size << " bytes per partition of "
         << space.capacityBytes() << "; a tile of at most "
         << space.largestFree() << " bytes per partition would fit";
    for (auto [end, op] : live) {
      auto other = cast<memref::AllocOp>(op);
      if (isSbuf(other) != isSbuf(alloc))
        continue;
      diag.attachNote(other.getLoc())
          << "live: " << other.getType() << ", "
          << bytesPerPartition(other.getType()) << " bytes per partition";
    }
    return failure();
  }
};

} // namespace
