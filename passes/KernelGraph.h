//===- KernelGraph.h - Instructions and dependences of a kernel -*- C++ -*-===//
//
// What nisa-allocate, nisa-schedule, nisa-insert-sync, nisa-verify-sync and
// the executable writer share about a kernel: its instructions in program
// order through its loops (`affine.for` with constant bounds), the tiles
// each touches as affine functions of the induction variables, and every
// dependence between instructions with the iteration it reaches back to.
//
// A dependence says instruction `from` must complete before instruction
// `to` starts: either in the same iteration of the loops they share (the
// last instance of `from` within it), or `distance` iterations earlier,
// counted over the outer `carried` shared loops linearly (a rotating tile
// reused `slots` iterations later, or a loop-carried hazard). Between the
// kernel's top-level ops (straight-line instructions and whole loop nests)
// dependences come from the regions they touch over all their iterations:
// SBUF/PSUM byte ranges of every partition by `nisa.address` (all slots of
// a rotating tile), HBM element runs of an access pattern into a kernel
// argument or global (its bounding range when a pattern has more than a few
// hundred runs or moves with a loop); an instruction reading a block that
// a loop before its own fills a slice per iteration waits only for the
// slices it reads (Dependence::through). Within a loop nest they come from
// the tiles themselves: an allocation's instances, the slots they rotate
// through, and offsets that move with the loops, which make two
// iterations' tiles disjoint. Arguments no instruction writes are not
// tracked: reading them orders nothing.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_PASSES_KERNELGRAPH_H
#define NEURON_PASSES_KERNELGRAPH_H

#include "runtime/target/CostModel.h"

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MemRefType;
class Operation;
class Type;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace mlir::neuron {

namespace rt = ::neuron::rt;

enum class Hazard { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };

/// "read-after-write", ...
StringRef hazardName(Hazard hazard);

/// constant + sum(coeffs[l] * iv[l]) over the induction variables of an
/// instruction's loops, outermost first (coeffs may be shorter: the rest
/// are 0).
struct AffineIndex {
  int64_t constant = 0;
  SmallVector<int64_t, 4> coeffs;

  int64_t coeff(size_t level) const {
    return level < coeffs.size() ? coeffs[level] : 0;
  }
  bool moves() const {
    return llvm::any_of(coeffs, [](int64_t c) { return c != 0; });
  }
  /// The lowest and highest value over loops of `trips` (outermost first).
  std::pair<int64_t, int64_t> range(ArrayRef<int64_t> trips) const;
  /// Its value at induction variables `iv` (outermost first).
  int64_t at(ArrayRef<int64_t> iv) const {
    int64_t v = constant;
    for (size_t l = 0; l < iv.size(); ++l)
      v += coeff(l) * iv[l];
    return v;
  }

  friend bool operator==(const AffineIndex &a, const AffineIndex &b) {
    if (a.constant != b.constant)
      return false;
    for (size_t l = 0; l < std::max(a.coeffs.size(), b.coeffs.size()); ++l)
      if (a.coeff(l) != b.coeff(l))
        return false;
    return true;
  }
};

/// A loop of the kernel: an `affine.for` from 0 to `trips`, step 1.
struct LoopInfo {
  Operation *op = nullptr;
  int64_t trips = 1;
  /// The enclosing loop, or -1 at the kernel's top level.
  int32_t parent = -1;
  int32_t depth = 0;
  /// Its instructions, nested loops' included: [first, end).
  uint32_t first = 0, end = 0;
};

/// How an instruction touches one tile.
struct TileAccess {
  /// The tracked buffer (an index into KernelGraph's buffers).
  uint32_t buffer = 0;
  bool write = false;
  bool onChip = false;
  /// The allocation (on chip) or the argument or global (HBM) it views.
  Value root;
  /// Elements (HBM) or bytes within each partition (on chip) from the
  /// root's start, over the instruction's loops; slots not included.
  AffineIndex offset;
  /// On chip: the bytes spanned in each partition; partitions
  /// [partitionLo, partitionHi); the element strides of the free dimensions
  /// when they are not contiguous (else empty).
  int64_t extent = 0;
  SmallVector<int64_t, 2> freeStrides;
  int64_t partitionLo = 0, partitionHi = 0;
  /// HBM: contiguous element runs relative to `offset` (a bounding run
  /// for large patterns).
  SmallVector<std::pair<int64_t, int64_t>, 4> runs;
  /// On chip: the loops enclosing the allocation, its slots and their
  /// distance in bytes, and its `nisa.address` (-1 when unallocated).
  int32_t allocDepth = 0;
  int64_t slots = 1, slotBytes = 0;
  int64_t address = -1;
};

/// One ordering constraint: instruction `from` must complete before the
/// instruction that lists it starts.
struct Dependence {
  uint32_t from = 0;
  Hazard hazard = Hazard::ReadAfterWrite;
  /// The region both touch: index into the buffers, and the overlapping
  /// range (bytes per partition on chip, elements in HBM) where known.
  uint32_t buffer = 0;
  int64_t lo = 0, hi = 0;
  /// Loops the two instructions share.
  int32_t common = 0;
  /// 0: the last instance of `from` in the same iteration of the shared
  /// loops. Otherwise the instance `distance` iterations back, counting
  /// iterations of the outer `carried` shared loops linearly (`from` at
  /// its own inner loops' last iteration).
  int32_t carried = 0;
  int64_t distance = 0;
  /// With `carried` 0 and `from` in one loop of its own: the last
  /// iteration of that loop the dependence needs, over the loops of the
  /// instruction that lists it, when the tile `from` touches moves with
  /// that loop (a buffer filled a slice per iteration, then read a slice
  /// at a time). Unset: its last iteration.
  std::optional<AffineIndex> through;
};

class KernelGraph {
public:
  /// Builds the graph of `kernel`'s instructions (every op implementing the
  /// engine interface, in program order through its loops); fails with a
  /// diagnostic on a loop without constant bounds or an operand whose
  /// region cannot be determined.
  static FailureOr<KernelGraph> build(func::FuncOp kernel);

  size_t size() const { return instructions.size(); }
  Operation *instruction(size_t i) const { return instructions[i]; }
  ArrayRef<Operation *> getInstructions() const { return instructions; }
  /// The dependences of instruction `i`.
  ArrayRef<Dependence> predecessors(size_t i) const {
    return ArrayRef<Dependence>(deps).slice(predBegin[i],
                                            predBegin[i + 1] - predBegin[i]);
  }
  /// "SBUF bytes [0, 1024) of each partition", "HBM argument 2 elements
  /// [0, 4096)".
  std::string describeRegion(const Dependence &d) const;

  ArrayRef<LoopInfo> getLoops() const { return loops; }
  /// The loops enclosing instruction `i`, outermost first.
  ArrayRef<int32_t> nestOf(size_t i) const { return nests[i]; }
  /// How many of those loops instructions `i` and `j` share.
  int32_t sharedLoops(size_t i, size_t j) const;
  /// Their trip counts.
  SmallVector<int64_t, 4> tripsOf(size_t i) const;
  /// How many times instruction `i` runs.
  int64_t instancesOf(size_t i) const;
  /// The tiles instruction `i` reads and writes.
  ArrayRef<TileAccess> accessesOf(size_t i) const { return accesses[i]; }
  /// Whether tracked buffer `buffer` is on chip (SBUF or PSUM).
  bool isOnChip(uint32_t buffer) const { return onChip[buffer]; }
  /// The kernel's top-level op holding instruction `i` (itself, or the
  /// outermost loop around it).
  Operation *topLevelOf(size_t i) const;
  /// How instruction `i` touches `tile` (one of its operands), its buffer
  /// left unset; failure after a diagnostic.
  FailureOr<TileAccess> tileAccess(size_t i, Value tile, bool write) const;
  /// The index value `index` as an affine function of instruction `i`'s
  /// loops, or failure.
  FailureOr<AffineIndex> indexOf(size_t i, Value index) const;

private:
  LogicalResult collect(func::FuncOp kernel);
  LogicalResult addAccesses(size_t i);
  void addTopLevelDependences(std::vector<std::vector<Dependence>> &out);
  /// For a dependence between top-level ops whose earlier instruction
  /// `from` is alone in a loop filling an on-chip tile a slice per
  /// iteration: the last iteration of that loop instruction `to` needs,
  /// over `to`'s loops (Dependence::through), when every tile they share
  /// gives the same and they touch nothing else in common; nullopt
  /// otherwise (all of it).
  std::optional<AffineIndex> sliceThrough(uint32_t from, uint32_t to) const;
  void addNestDependences(uint32_t first, uint32_t end,
                          std::vector<std::vector<Dependence>> &out);
  uint32_t bufferFor(Value root, bool onChip, bool allocated, int space,
                     int64_t core);

  std::vector<Operation *> instructions;
  std::vector<SmallVector<int32_t, 4>> nests;
  std::vector<SmallVector<TileAccess, 3>> accesses;
  std::vector<LoopInfo> loops;
  std::vector<Dependence> deps;
  std::vector<uint32_t> predBegin;
  /// Names of the tracked buffers ("SBUF", "PSUM", "HBM argument 2", ...)
  /// and whether ranges are bytes per partition (on chip) or elements.
  std::vector<std::string> bufferNames;
  std::vector<bool> onChip;
  std::vector<Value> bufferRoots;
  /// The allocated SBUF and PSUM buffers of physical core c > 0, at
  /// c - 1 (0 until first touched: core 0's SBUF is buffer 0).
  std::vector<std::array<uint32_t, 2>> coreMemories;
};

/// Sorted, disjoint element runs [lo, hi).
using Intervals = SmallVector<std::pair<int64_t, int64_t>>;

/// Whether runs `a`, shifted by `shift` elements, meet runs `b`.
bool runsMeet(const Intervals &a, const Intervals &b, int64_t shift = 0);

/// The HBM element runs [lo, hi) access `a` (of an instruction whose loops
/// run `trips`, outermost first) touches over every iteration of its loops
/// from `from` on, those before at their first iteration: sorted and
/// merged; nothing when that would take more than `most` runs.
std::optional<Intervals>
hbmRuns(const TileAccess &a, ArrayRef<int64_t> trips, size_t from,
        int64_t most);

/// The buffer a chain of views (subview, transpose, reinterpret_cast,
/// expand/collapse_shape) of `value` starts from.
Value viewRoot(Value value);

/// `type`'s element strides and offset, read straight off an identity or
/// strided layout (MemRefType::getStridesAndOffset otherwise, which builds
/// affine expressions); failure for a layout that is not strided.
LogicalResult stridesAndOffset(MemRefType type,
                               SmallVectorImpl<int64_t> &strides,
                               int64_t &offset);

/// An element type as executables spell it ("f32", "bf16", "i8", ...), or
/// "" when executables cannot hold it.
StringRef dtypeNameOf(Type type);

/// The physical core of its logical core that runs `op` (an instruction,
/// or a loop nest): `nisa.core` on it or on the nearest loop around it
/// that has one, else 0.
int64_t coreOf(Operation *op);

/// Whether the `nisa.dma_copy` `transfer` stores what the engines computed
/// (its source is on chip), rather than loading.
bool isStore(Operation *transfer);

/// The unit an instruction runs on: "tensor", "vector", "scalar", "gpsimd"
/// or "dmaQ" for a dma_copy on queue Q, then "@C" on physical core C > 0.
std::string unitName(Operation *instruction);

/// The units a kernel's instructions run on, in program order.
struct UnitStreams {
  /// Unit index -> name ("tensor", "dma3", ...), in order of first use.
  std::vector<std::string> names;
  /// Per instruction: its unit and its position in that unit's stream.
  std::vector<uint32_t> unit, position;
  /// Per unit: its instructions in order.
  std::vector<std::vector<uint32_t>> streams;

  static UnitStreams of(const KernelGraph &g);
  /// The index of unit `name`, or -1.
  int find(StringRef name) const;
  /// Whether instruction `to` must wait for `from` of dependence: unless
  /// both run on one engine, which finishes each instruction before it
  /// starts the next (a DMA queue moves several transfers at once).
  bool mustWait(uint32_t from, uint32_t to) const {
    return unit[from] != unit[to] || isQueue(unit[to]);
  }
  /// Whether unit `u` is a DMA queue.
  bool isQueue(uint32_t u) const {
    return StringRef(names[u]).starts_with("dma");
  }
};

/// Its resource class and its cost query (runtime/target/CostModel.h), from
/// its operands' types.
rt::EngineClass engineClassOf(Operation *instruction);
rt::CostQuery costQueryOf(Operation *instruction);
/// How the cost model sees an operand of type `type`: its dtype, its
/// partitions and the contiguous runs of its access pattern (in HBM, or a
/// strided tile on chip, with its element step).
rt::OperandShape operandShapeOf(MemRefType type);

/// The element strides of the free dimensions (all but the first) of an
/// on-chip tile of `shape` x `strides`, or empty when they are contiguous.
SmallVector<int64_t> freeStridesOf(ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> strides);
/// The elements a partition of such a tile spans, first to last inclusive.
int64_t freeSpan(ArrayRef<int64_t> shape, ArrayRef<int64_t> freeStrides);

} // namespace mlir::neuron

#endif // NEURON_PASSES_KERNELGRAPH_H
