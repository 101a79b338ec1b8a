//===- KernelGraph.cpp - Instruction dependences of a nisa kernel ---------===//

#include "passes/KernelGraph.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <map>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

/// Beyond this many contiguous runs an HBM pattern is tracked by its
/// bounding range (conservative: it may order transfers that do not touch).
static constexpr int64_t kMaxRuns = 512;

StringRef mlir::neuron::hazardName(Hazard hazard) {
  switch (hazard) {
  case Hazard::ReadAfterWrite: return "read-after-write";
  case Hazard::WriteAfterRead: return "write-after-read";
  case Hazard::WriteAfterWrite: return "write-after-write";
  }
  return "";
}

StringRef mlir::neuron::dtypeNameOf(Type type) {
  if (type.isF32()) return "f32";
  if (type.isBF16()) return "bf16";
  if (type.isF16()) return "f16";
  if (isa<Float8E4M3FNType>(type)) return "f8E4M3FN";
  if (isa<Float8E5M2Type>(type)) return "f8E5M2";
  if (type.isInteger(1)) return "i1";
  if (type.isInteger(8)) return "i8";
  if (type.isInteger(32)) return "i32";
  if (type.isInteger(64)) return "i64";
  return "";
}

std::string mlir::neuron::unitName(Operation *instruction) {
  if (auto dma = dyn_cast<DmaCopyOp>(instruction))
    return "dma" + std::to_string(dma.getQueue());
  return stringifyEngineKind(
             cast<EngineOpInterface>(instruction).getEngine())
      .str();
}

rt::EngineClass mlir::neuron::engineClassOf(Operation *instruction) {
  switch (cast<EngineOpInterface>(instruction).getEngine()) {
  case EngineKind::tensor: return rt::EngineClass::Tensor;
  case EngineKind::vector: return rt::EngineClass::Vector;
  case EngineKind::scalar: return rt::EngineClass::Scalar;
  case EngineKind::gpsimd: return rt::EngineClass::GpSimd;
  default: return rt::EngineClass::Dma;
  }
}

static rt::OperandShape operandShape(Value tile) {
  auto type = cast<MemRefType>(tile.getType());
  rt::OperandShape s;
  s.dtype = dtypeNameOf(type.getElementType());
  s.elementBytes = std::max<int64_t>(
      1, (type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
  s.partitions = type.getRank() ? type.getDimSize(0) : 1;
  s.elements = type.getNumElements();
  return s;
}

rt::CostQuery mlir::neuron::costQueryOf(Operation *instruction) {
  Value source = llvm::TypeSwitch<Operation *, Value>(instruction)
                     .Case([](MatmulOp o) { return o.getMoving(); })
                     .Case([](TensorTensorOp o) { return o.getLhs(); })
                     .Case([](SelectOp o) { return o.getOnTrue(); })
                     .Case([](ActivationOp o) { return o.getSrc(); })
                     .Case([](TransposeOp o) { return o.getSrc(); })
                     .Case([](TensorScalarOp o) { return o.getSrc(); })
                     .Case([](TensorReduceOp o) { return o.getSrc(); })
                     .Default([](Operation *op) {
                       return cast<EngineOpInterface>(op).getWrittenTile();
                     });
  Value dst = cast<EngineOpInterface>(instruction).getWrittenTile();
  return rt::costQueryFor(instruction->getName().stripDialect(),
                          operandShape(dst), operandShape(source));
}

UnitStreams UnitStreams::of(const KernelGraph &g) {
  UnitStreams u;
  llvm::StringMap<uint32_t> index;
  for (Operation *op : g.getInstructions()) {
    std::string name = unitName(op);
    auto [it, inserted] = index.try_emplace(name, u.names.size());
    if (inserted) {
      u.names.push_back(name);
      u.streams.emplace_back();
    }
    u.unit.push_back(it->second);
    u.position.push_back(u.streams[it->second].size());
    u.streams[it->second].push_back(u.unit.size() - 1);
  }
  return u;
}

int UnitStreams::find(StringRef name) const {
  auto it = llvm::find(names, name);
  return it == names.end() ? -1 : int(it - names.begin());
}

namespace {

/// The accesses of one buffer since it was last overwritten, by disjoint
/// ranges.
class RangeTracker {
public:
  /// Records an access of [lo, hi) by instruction `who`, appending the
  /// instructions it must follow to `out`.
  void access(int64_t lo, int64_t hi, bool write, uint32_t who,
              uint32_t buffer, std::vector<Dependence> &out) {
    split(lo);
    split(hi);
    // Fill gaps so the range is covered by segments.
    int64_t at = lo;
    for (auto it = segments.lower_bound(lo);
         it != segments.end() && it->first < hi; ++it) {
      if (it->first > at)
        segments.emplace(at, Segment{it->first, -1, {}});
      at = it->second.end;
    }
    if (at < hi)
      segments.emplace(at, Segment{hi, -1, {}});

    auto it = segments.find(lo);
    while (it != segments.end() && it->first < hi) {
      Segment &s = it->second;
      int64_t sLo = it->first, sHi = s.end;
      if (s.writer >= 0)
        out.push_back({uint32_t(s.writer),
                       write ? Hazard::WriteAfterWrite : Hazard::ReadAfterWrite,
                       buffer, sLo, sHi});
      if (write) {
        for (uint32_t r : s.readers)
          if (r != who)
            out.push_back({r, Hazard::WriteAfterRead, buffer, sLo, sHi});
        s.readers.clear();
        s.writer = who;
      } else if (s.readers.empty() || s.readers.back() != who) {
        s.readers.push_back(who);
      }
      ++it;
    }
    if (write) {
      // One segment for the whole write keeps the map small.
      auto first = segments.find(lo);
      auto last = segments.lower_bound(hi);
      segments.erase(std::next(first), last);
      first->second.end = hi;
    }
  }

private:
  struct Segment {
    int64_t end;
    int64_t writer;
    std::vector<uint32_t> readers;
  };
  void split(int64_t at) {
    auto it = segments.upper_bound(at);
    if (it == segments.begin())
      return;
    --it;
    if (it->first < at && at < it->second.end) {
      Segment tail = it->second;
      it->second.end = at;
      segments.emplace(at, std::move(tail));
    }
  }
  std::map<int64_t, Segment> segments;
};

} // namespace

Value mlir::neuron::viewRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::TransposeOp,
             memref::ReinterpretCastOp, memref::ExpandShapeOp,
             memref::CollapseShapeOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// The contiguous element runs [lo, hi) of a strided pattern, or its
/// bounding range when there are more than kMaxRuns.
static FailureOr<SmallVector<std::pair<int64_t, int64_t>>>
elementRuns(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic) || !type.hasStaticShape())
    return failure();
  ArrayRef<int64_t> shape = type.getShape();
  // Merge dimensions that are contiguous with the next into one run.
  int64_t runLength = 1, d = shape.size();
  while (d > 0 && (shape[d - 1] == 1 || strides[d - 1] == runLength)) {
    runLength *= shape[d - 1];
    --d;
  }
  int64_t runs = 1, maxElement = offset;
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
    if (shape[i] == 0)
      return SmallVector<std::pair<int64_t, int64_t>>{};
    maxElement += (shape[i] - 1) * strides[i];
    if (i < d)
      runs *= shape[i];
  }
  SmallVector<std::pair<int64_t, int64_t>> out;
  if (runs > kMaxRuns) {
    out.push_back({offset, maxElement + 1});
    return out;
  }
  SmallVector<int64_t> index(d, 0);
  for (int64_t r = 0; r < runs; ++r) {
    int64_t start = offset;
    for (int64_t i = 0; i < d; ++i)
      start += index[i] * strides[i];
    out.push_back({start, start + runLength});
    for (int64_t i = d - 1; i >= 0; --i) {
      if (++index[i] < shape[i])
        break;
      index[i] = 0;
    }
  }
  return out;
}

FailureOr<KernelGraph> KernelGraph::build(func::FuncOp kernel) {
  KernelGraph g;
  for (Operation &op : kernel.getBody().front())
    if (isa<EngineOpInterface>(op))
      g.instructions.push_back(&op);

  // Buffers: SBUF and PSUM as one address space each once allocated, an
  // unallocated tile as its own buffer, an HBM root per argument or global.
  llvm::DenseMap<Value, uint32_t> bufferOf;
  auto newBuffer = [&](std::string name, bool chip) {
    g.bufferNames.push_back(std::move(name));
    g.onChip.push_back(chip);
    return uint32_t(g.bufferNames.size() - 1);
  };
  uint32_t sbuf = newBuffer("SBUF", true), psum = newBuffer("PSUM", true);

  llvm::DenseSet<Value> writtenRoots;
  for (Operation *op : g.instructions)
    writtenRoots.insert(viewRoot(cast<EngineOpInterface>(op).getWrittenTile()));

  struct Access {
    uint32_t buffer;
    SmallVector<std::pair<int64_t, int64_t>> ranges;
  };
  // The region `tile` names, or nullopt when it needs no tracking.
  auto regionOf = [&](Operation *user,
                      Value tile) -> FailureOr<std::optional<Access>> {
    auto type = cast<MemRefType>(tile.getType());
    std::optional<MemorySpace> space = getMemorySpace(type);
    if (space && *space != MemorySpace::hbm) {
      int64_t bits = type.getElementType().getIntOrFloatBitWidth();
      int64_t perPartition =
          (type.getNumElements() / std::max<int64_t>(type.getDimSize(0), 1) *
               bits + 7) / 8;
      auto alloc = tile.getDefiningOp<memref::AllocOp>();
      auto address = alloc ? alloc->getAttrOfType<IntegerAttr>("nisa.address")
                           : IntegerAttr();
      if (address)
        return std::optional<Access>(Access{
            *space == MemorySpace::sbuf ? sbuf : psum,
            {{address.getInt(), address.getInt() + perPartition}}});
      auto [it, inserted] = bufferOf.try_emplace(tile, 0);
      if (inserted)
        it->second = newBuffer(
            std::string(*space == MemorySpace::sbuf ? "SBUF" : "PSUM") +
                " tile",
            true);
      return std::optional<Access>(Access{it->second, {{0, perPartition}}});
    }
    Value root = viewRoot(tile);
    if (!writtenRoots.contains(root))
      return std::optional<Access>();
    FailureOr<SmallVector<std::pair<int64_t, int64_t>>> runs =
        elementRuns(type);
    if (failed(runs))
      return user->emitError()
             << "expected a static strided access pattern, found " << type;
    auto [it, inserted] = bufferOf.try_emplace(root, 0);
    if (inserted) {
      std::string name = "HBM";
      if (auto arg = dyn_cast<BlockArgument>(root))
        name += " argument " + std::to_string(arg.getArgNumber());
      else if (auto global = root.getDefiningOp<memref::GetGlobalOp>())
        name += " global @" + global.getName().str();
      it->second = newBuffer(name, false);
    }
    return std::optional<Access>(Access{it->second, std::move(*runs)});
  };

  std::vector<RangeTracker> trackers;
  g.predBegin.push_back(0);
  std::vector<Dependence> mine;
  for (uint32_t i = 0; i < g.instructions.size(); ++i) {
    Operation *op = g.instructions[i];
    auto engine = cast<EngineOpInterface>(op);
    mine.clear();
    auto record = [&](Value tile, bool write) -> LogicalResult {
      FailureOr<std::optional<Access>> access = regionOf(op, tile);
      if (failed(access))
        return failure();
      if (!*access)
        return success();
      if (trackers.size() < g.bufferNames.size())
        trackers.resize(g.bufferNames.size());
      for (auto [lo, hi] : (*access)->ranges)
        trackers[(*access)->buffer].access(lo, hi, write, i,
                                           (*access)->buffer, mine);
      return success();
    };
    for (Value read : engine.getReadTiles())
      if (failed(record(read, false)))
        return failure();
    if (failed(record(engine.getWrittenTile(), true)))
      return failure();
    // One entry per earlier instruction: the first hazard found.
    std::stable_sort(mine.begin(), mine.end(),
                     [](const Dependence &a, const Dependence &b) {
                       return a.from < b.from;
                     });
    uint32_t last = UINT32_MAX;
    for (const Dependence &d : mine) {
      if (d.from == last || d.from == i)
        continue;
      last = d.from;
      g.deps.push_back(d);
    }
    g.predBegin.push_back(g.deps.size());
  }
  return g;
}

std::string KernelGraph::describeRegion(const Dependence &d) const {
  std::string range =
      "[" + std::to_string(d.lo) + ", " + std::to_string(d.hi) + ")";
  if (onChip[d.buffer])
    return bufferNames[d.buffer] + " bytes " + range + " of each partition";
  return bufferNames[d.buffer] + " elements " + range;
}
