//===- KernelGraph.cpp - Instructions and dependences of a kernel ---------===//

#include "passes/KernelGraph.h"

#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::neuron;
using namespace mlir::nisa;

/// Beyond this many contiguous runs an HBM pattern is tracked by its
/// bounding range (conservative: it may order transfers that do not touch).
static constexpr int64_t kMaxRuns = 512;
/// Beyond this many runs over all its loops' iterations, an HBM access a
/// loop moves is taken to meet every other (addTopLevelDependences).
static constexpr int64_t kMaxMovedRuns = int64_t(1) << 14;

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
  if (type.isInteger(16)) return "i16";
  if (type.isInteger(32)) return "i32";
  if (type.isInteger(64)) return "i64";
  return "";
}

int64_t mlir::neuron::coreOf(Operation *op) {
  for (; op && !isa<func::FuncOp>(op); op = op->getParentOp())
    if (auto core = op->getAttrOfType<IntegerAttr>(NisaDialect::kCore))
      return core.getInt();
  return 0;
}

bool mlir::neuron::isStore(Operation *transfer) {
  return getMemorySpace(cast<DmaCopyOp>(transfer).getSrc().getType()) !=
         MemorySpace::hbm;
}

std::string mlir::neuron::unitName(Operation *instruction) {
  std::string name =
      isa<DmaCopyOp>(instruction)
          ? "dma" + std::to_string(cast<DmaCopyOp>(instruction).getQueue())
          : stringifyEngineKind(
                cast<EngineOpInterface>(instruction).getEngine())
                .str();
  if (int64_t core = coreOf(instruction))
    name += "@" + std::to_string(core);
  return name;
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

SmallVector<int64_t> mlir::neuron::freeStridesOf(ArrayRef<int64_t> shape,
                                                 ArrayRef<int64_t> strides) {
  bool contiguous = true;
  for (int64_t d = int64_t(shape.size()) - 1, run = 1; d >= 1; --d) {
    contiguous &= shape[d] == 1 || strides[d] == run;
    run *= shape[d];
  }
  if (contiguous || shape.empty())
    return {};
  return SmallVector<int64_t>(strides.drop_front());
}

int64_t mlir::neuron::freeSpan(ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> freeStrides) {
  if (shape.empty())
    return 1;
  if (freeStrides.empty())
    return computeProduct(shape.drop_front());
  int64_t last = 0;
  for (auto [size, stride] : llvm::zip(shape.drop_front(), freeStrides))
    last += (size - 1) * stride;
  return last + 1;
}

rt::OperandShape mlir::neuron::operandShapeOf(MemRefType type) {
  StringRef dtype = dtypeNameOf(type.getElementType());
  int64_t bytes = std::max<int64_t>(
      1, (type.getElementType().getIntOrFloatBitWidth() + 7) / 8);
  ArrayRef<int64_t> shape = type.getShape();
  bool onChip = getMemorySpace(type) != MemorySpace::hbm;
  SmallVector<int64_t> strides, free;
  int64_t offset;
  // Without static strides a pattern counts as contiguous.
  if (failed(stridesAndOffset(type, strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return rt::operandShapeOf(dtype, bytes, shape.data(), shape.size(),
                              nullptr, /*onChip=*/true);
  if (onChip)
    free = freeStridesOf(shape, strides);
  return rt::operandShapeOf(
      dtype, bytes, shape.data(), shape.size(),
      onChip ? (free.empty() ? nullptr : free.data()) : strides.data(),
      onChip);
}

rt::CostQuery mlir::neuron::costQueryOf(Operation *instruction) {
  Value source = llvm::TypeSwitch<Operation *, Value>(instruction)
                     .Case([](MatmulOp o) { return o.getMoving(); })
                     .Case([](TensorTensorOp o) { return o.getLhs(); })
                     .Case([](SelectOp o) { return o.getOnTrue(); })
                     .Case([](ActivationOp o) { return o.getSrc(); })
                     .Case([](TransposeOp o) { return o.getSrc(); })
                     .Case([](TensorScalarOp o) { return o.getSrc(); })
                     .Case([](ScalarTensorTensorOp o) { return o.getSrc(); })
                     .Case([](TensorReduceOp o) { return o.getSrc(); })
                     .Case([](DmaCopyOp o) { return o.getSrc(); })
                     .Default([](Operation *op) {
                       return cast<EngineOpInterface>(op).getWrittenTile();
                     });
  auto engine = cast<EngineOpInterface>(instruction);
  // An engine streams at the rate of its widest-stepping operand.
  rt::OperandShape from = operandShapeOf(cast<MemRefType>(source.getType()));
  for (Value read : engine.getReadTiles())
    from.strideBytes = std::max(
        from.strideBytes,
        operandShapeOf(cast<MemRefType>(read.getType())).strideBytes);
  rt::CostQuery q = rt::costQueryFor(
      instruction->getName().stripDialect(),
      operandShapeOf(cast<MemRefType>(engine.getWrittenTile().getType())),
      from);
  if (auto matmul = dyn_cast<MatmulOp>(instruction);
      matmul && matmul.getDoubleRow())
    q.rows = 2;
  return q;
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

std::pair<int64_t, int64_t> AffineIndex::range(ArrayRef<int64_t> trips) const {
  int64_t lo = constant, hi = constant;
  for (size_t l = 0; l < coeffs.size() && l < trips.size(); ++l) {
    int64_t span = coeffs[l] * (trips[l] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return {lo, hi};
}

LogicalResult mlir::neuron::stridesAndOffset(MemRefType type,
                                             SmallVectorImpl<int64_t> &strides,
                                             int64_t &offset) {
  // A strided layout first: its isIdentity() builds an affine map.
  if (auto layout = dyn_cast<StridedLayoutAttr>(type.getLayout())) {
    strides.assign(layout.getStrides().begin(), layout.getStrides().end());
    offset = layout.getOffset();
    return success();
  }
  if (type.getLayout().isIdentity()) {
    strides.assign(type.getRank(), 1);
    for (int64_t d = type.getRank() - 1; d > 0; --d)
      strides[d - 1] = ShapedType::isDynamic(type.getDimSize(d)) ||
                               ShapedType::isDynamic(strides[d])
                           ? ShapedType::kDynamic
                           : strides[d] * type.getDimSize(d);
    offset = 0;
    return success();
  }
  return type.getStridesAndOffset(strides, offset);
}

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

//===----------------------------------------------------------------------===//
// Affine offsets
//===----------------------------------------------------------------------===//

namespace {
/// Reads index values and view offsets as affine functions of the
/// induction variables of one instruction's loops.
class OffsetReader {
public:
  OffsetReader(ArrayRef<int32_t> nest, ArrayRef<LoopInfo> loops) {
    for (auto [level, loop] : llvm::enumerate(nest))
      levels[loops[loop].op] = level;
  }

  /// `value` (an index) as an affine function, or failure.
  FailureOr<AffineIndex> index(Value value) const {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto it = levels.find(arg.getOwner()->getParentOp());
      if (it == levels.end() || !isa<affine::AffineForOp>(it->first))
        return failure();
      AffineIndex a;
      a.coeffs.assign(it->second + 1, 0);
      a.coeffs[it->second] = 1;
      return a;
    }
    if (auto c = value.getDefiningOp<arith::ConstantIndexOp>()) {
      AffineIndex a;
      a.constant = c.value();
      return a;
    }
    if (auto apply = value.getDefiningOp<affine::AffineApplyOp>()) {
      SmallVector<AffineIndex> operands;
      for (Value v : apply.getMapOperands()) {
        FailureOr<AffineIndex> a = index(v);
        if (failed(a))
          return failure();
        operands.push_back(*a);
      }
      AffineMap map = apply.getAffineMap();
      return expr(map.getResult(0), operands, map.getNumDims());
    }
    return failure();
  }

  /// The element offset of view `tile` from its root's start.
  FailureOr<AffineIndex> elementOffset(Value tile) const {
    auto type = cast<MemRefType>(tile.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(stridesAndOffset(type, strides, offset)))
      return failure();
    if (!ShapedType::isDynamic(offset)) {
      AffineIndex a;
      a.constant = offset;
      return a;
    }
    Operation *def = tile.getDefiningOp();
    if (auto sub = dyn_cast_if_present<memref::SubViewOp>(def)) {
      FailureOr<AffineIndex> base = elementOffset(sub.getSource());
      SmallVector<int64_t> sourceStrides;
      int64_t sourceOffset;
      if (failed(base) || failed(stridesAndOffset(sub.getSourceType(),
                                               sourceStrides, sourceOffset)))
        return failure();
      AffineIndex a = *base;
      for (auto [d, o] : llvm::enumerate(sub.getMixedOffsets())) {
        if (ShapedType::isDynamic(sourceStrides[d]))
          return failure();
        FailureOr<AffineIndex> at = ofr(o);
        if (failed(at))
          return failure();
        add(a, *at, sourceStrides[d]);
      }
      return a;
    }
    if (isa_and_present<memref::TransposeOp, memref::ExpandShapeOp,
                        memref::CollapseShapeOp>(def))
      return elementOffset(def->getOperand(0));
    // A reinterpret_cast's offset counts from its source's base.
    if (auto cast = dyn_cast_if_present<memref::ReinterpretCastOp>(def))
      return ofr(cast.getMixedOffsets()[0]);
    return failure();
  }

  /// The partition a view of an on-chip tile starts at (its first
  /// dimension's offsets), or failure when it moves with a loop.
  static FailureOr<int64_t> partitionOffset(Value tile) {
    int64_t p = 0;
    while (auto sub = tile.getDefiningOp<memref::SubViewOp>()) {
      std::optional<int64_t> o = getConstantIntValue(sub.getMixedOffsets()[0]);
      if (!o)
        return failure();
      p += *o;
      tile = sub.getSource();
    }
    return p;
  }

private:
  FailureOr<AffineIndex> ofr(OpFoldResult o) const {
    if (std::optional<int64_t> c = getConstantIntValue(o)) {
      AffineIndex a;
      a.constant = *c;
      return a;
    }
    return index(cast<Value>(o));
  }

  /// `to += from * scale`.
  static void add(AffineIndex &to, const AffineIndex &from, int64_t scale) {
    to.constant += from.constant * scale;
    if (to.coeffs.size() < from.coeffs.size())
      to.coeffs.resize(from.coeffs.size(), 0);
    for (size_t l = 0; l < from.coeffs.size(); ++l)
      to.coeffs[l] += from.coeffs[l] * scale;
  }

  /// A linear affine expression of `operands` (dims, then symbols).
  static FailureOr<AffineIndex> expr(AffineExpr e,
                                     ArrayRef<AffineIndex> operands,
                                     unsigned dims) {
    if (auto c = dyn_cast<AffineConstantExpr>(e)) {
      AffineIndex a;
      a.constant = c.getValue();
      return a;
    }
    if (auto d = dyn_cast<AffineDimExpr>(e))
      return operands[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(e))
      return operands[dims + s.getPosition()];
    auto bin = dyn_cast<AffineBinaryOpExpr>(e);
    if (!bin)
      return failure();
    FailureOr<AffineIndex> l = expr(bin.getLHS(), operands, dims),
                           r = expr(bin.getRHS(), operands, dims);
    if (failed(l) || failed(r))
      return failure();
    if (e.getKind() == AffineExprKind::Add) {
      add(*l, *r, 1);
      return *l;
    }
    if (e.getKind() == AffineExprKind::Mul) {
      if (!r->moves()) {
        AffineIndex out;
        add(out, *l, r->constant);
        return out;
      }
      if (!l->moves()) {
        AffineIndex out;
        add(out, *r, l->constant);
        return out;
      }
    }
    return failure(); // mod, floordiv, ceildiv: not a stride pattern
  }

  DenseMap<Operation *, size_t> levels;
};
} // namespace

/// The contiguous element runs [lo, hi) of a strided pattern from offset
/// 0, or its bounding range when there are more than kMaxRuns.
static SmallVector<std::pair<int64_t, int64_t>, 4>
elementRuns(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides) {
  // Merge dimensions that are contiguous with the next into one run.
  int64_t runLength = 1, d = shape.size();
  while (d > 0 && (shape[d - 1] == 1 || strides[d - 1] == runLength)) {
    runLength *= shape[d - 1];
    --d;
  }
  int64_t runs = 1, lowest = 0, highest = 0;
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
    if (shape[i] == 0)
      return {};
    int64_t span = (shape[i] - 1) * strides[i];
    (span < 0 ? lowest : highest) += span;
    if (i < d)
      runs *= shape[i];
  }
  SmallVector<std::pair<int64_t, int64_t>, 4> out;
  if (runs > kMaxRuns) {
    out.push_back({lowest, highest + 1});
    return out;
  }
  SmallVector<int64_t> index(d, 0);
  for (int64_t r = 0; r < runs; ++r) {
    int64_t start = 0;
    for (int64_t i = 0; i < d; ++i)
      start += index[i] * strides[i];
    out.push_back({start, start + runLength});
    for (int64_t i = d - 1; i >= 0; --i) {
      if (++index[i] < shape[i])
        break;
      index[i] = 0;
    }
  }
  llvm::sort(out);
  return out;
}

//===----------------------------------------------------------------------===//
// Instructions, loops and accesses
//===----------------------------------------------------------------------===//

SmallVector<int64_t, 4> KernelGraph::tripsOf(size_t i) const {
  SmallVector<int64_t, 4> trips;
  for (int32_t l : nests[i])
    trips.push_back(loops[l].trips);
  return trips;
}

int64_t KernelGraph::instancesOf(size_t i) const {
  int64_t n = 1;
  for (int32_t l : nests[i])
    n *= loops[l].trips;
  return n;
}

Operation *KernelGraph::topLevelOf(size_t i) const {
  return nests[i].empty() ? instructions[i] : loops[nests[i].front()].op;
}

LogicalResult KernelGraph::collect(func::FuncOp kernel) {
  SmallVector<int32_t, 4> nest;
  std::function<LogicalResult(Block &)> walk =
      [&](Block &block) -> LogicalResult {
    for (Operation &op : block) {
      if (isa<EngineOpInterface>(op)) {
        instructions.push_back(&op);
        nests.push_back(nest);
        continue;
      }
      auto loop = dyn_cast<affine::AffineForOp>(op);
      if (!loop) {
        if (op.getNumRegions() && !isa<func::FuncOp>(op))
          return op.emitError()
                 << "expected only affine.for loops in a kernel, found '"
                 << op.getName() << "'";
        continue;
      }
      if (!loop.hasConstantBounds() || loop.getConstantLowerBound() != 0 ||
          loop.getStepAsInt() != 1 || loop.getConstantUpperBound() < 1)
        return loop.emitError() << "expected a loop from 0 to a positive "
                                   "constant with step 1";
      LoopInfo info;
      info.op = loop;
      info.trips = loop.getConstantUpperBound();
      info.parent = nest.empty() ? -1 : nest.back();
      info.depth = nest.size();
      info.first = instructions.size();
      int32_t index = loops.size();
      loops.push_back(info);
      nest.push_back(index);
      if (failed(walk(*loop.getBody())))
        return failure();
      nest.pop_back();
      loops[index].end = instructions.size();
    }
    return success();
  };
  return walk(kernel.getBody().front());
}

uint32_t KernelGraph::bufferFor(Value root, bool chip, bool allocated,
                                int space, int64_t core) {
  // SBUF and PSUM are one address space each once allocated, per physical
  // core.
  if (chip && allocated) {
    int psum = space == int(MemorySpace::sbuf) ? 0 : 1;
    if (core == 0)
      return psum;
    if (coreMemories.size() < size_t(core))
      coreMemories.resize(core, {0, 0});
    uint32_t &b = coreMemories[core - 1][psum];
    if (b == 0) {
      b = bufferNames.size();
      bufferNames.push_back((psum ? "PSUM@" : "SBUF@") + std::to_string(core));
      onChip.push_back(true);
      bufferRoots.push_back(Value());
    }
    return b;
  }
  for (uint32_t b = 2; b < bufferRoots.size(); ++b)
    if (bufferRoots[b] == root)
      return b;
  std::string name;
  if (chip) {
    name = space == int(MemorySpace::sbuf) ? "SBUF tile" : "PSUM tile";
  } else {
    name = "HBM";
    if (auto arg = dyn_cast<BlockArgument>(root))
      name += " argument " + std::to_string(arg.getArgNumber());
    else if (auto global = root.getDefiningOp<memref::GetGlobalOp>())
      name += " global @" + global.getName().str();
    else
      name += " scratch";
  }
  bufferNames.push_back(name);
  onChip.push_back(chip);
  bufferRoots.push_back(root);
  return bufferRoots.size() - 1;
}

/// Loops enclosing `op` (affine.for ops up to the function).
static int32_t loopDepthOf(Operation *op) {
  int32_t depth = 0;
  for (Operation *p = op->getParentOp(); p && !isa<func::FuncOp>(p);
       p = p->getParentOp())
    depth += isa<affine::AffineForOp>(p);
  return depth;
}

FailureOr<AffineIndex> KernelGraph::indexOf(size_t i, Value index) const {
  return OffsetReader(nests[i], loops).index(index);
}

FailureOr<TileAccess> KernelGraph::tileAccess(size_t i, Value tile,
                                              bool write) const {
  Operation *op = instructions[i];
  OffsetReader reader(nests[i], loops);
  auto type = cast<MemRefType>(tile.getType());
  std::optional<MemorySpace> space = getMemorySpace(type);
  if (!space || !type.hasStaticShape())
    return op->emitError() << "expected a static tile in a nisa memory "
                              "space, found "
                           << type;
  TileAccess a;
  a.write = write;
  a.root = viewRoot(tile);
  a.onChip = *space != MemorySpace::hbm;
  FailureOr<AffineIndex> offset = reader.elementOffset(tile);
  if (failed(offset))
    return op->emitError() << "expected a view whose offset is an affine "
                              "function of the enclosing loops, found "
                           << type;
  SmallVector<int64_t> strides;
  int64_t ignored;
  if (failed(stridesAndOffset(type, strides, ignored)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return op->emitError() << "expected static strides, found " << type;
  int64_t bytes =
      std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8);
  if (!a.onChip) {
    a.offset = *offset;
    // A start moved at run time reaches anywhere its limit allows.
    SmallVector<int64_t> reach(type.getShape());
    if (auto dma = dyn_cast<DmaCopyOp>(op); dma && dma.getMovedSide() == tile)
      reach[*dma.getMovedDim()] += *dma.getLimit();
    a.runs = elementRuns(reach, strides);
    return a;
  }
  // On chip: [partition][free...], the free dimensions contiguous or
  // strided within each partition.
  auto rootType = cast<MemRefType>(a.root.getType());
  FailureOr<int64_t> p0 = OffsetReader::partitionOffset(tile);
  int64_t perPartition = rootType.getNumElements() /
                         std::max<int64_t>(rootType.getDimSize(0), 1);
  int64_t partitions = type.getRank() ? type.getDimSize(0) : 1;
  bool wholePartitions =
      type.getRank() == 0 || strides[0] == perPartition || partitions == 1;
  if (failed(p0) || !wholePartitions ||
      llvm::any_of(strides, [](int64_t s) { return s < 0; }))
    return op->emitError()
           << "expected an on-chip tile of whole partitions from a fixed "
              "first partition, its free dimensions stepping forward, found "
           << type;
  a.freeStrides = freeStridesOf(type.getShape(), strides);
  a.partitionLo = *p0;
  a.partitionHi = *p0 + partitions;
  a.offset = *offset;
  a.offset.constant -= *p0 * perPartition;
  a.offset.constant *= bytes;
  for (int64_t &c : a.offset.coeffs)
    c *= bytes;
  a.extent = freeSpan(type.getShape(), a.freeStrides) * bytes;
  if (auto alloc = a.root.getDefiningOp<memref::AllocOp>()) {
    a.allocDepth = loopDepthOf(alloc);
    if (auto address =
            alloc->getAttrOfType<IntegerAttr>(NisaDialect::kAddress))
      a.address = address.getInt();
    if (auto slots = alloc->getAttrOfType<SlotsAttr>(NisaDialect::kSlots)) {
      a.slots = slots.getCount();
      a.slotBytes = slots.getBytes();
    }
  }
  return a;
}

LogicalResult KernelGraph::addAccesses(size_t i) {
  auto engine = cast<EngineOpInterface>(instructions[i]);
  auto add = [&](Value tile, bool write) -> LogicalResult {
    FailureOr<TileAccess> a = tileAccess(i, tile, write);
    if (failed(a))
      return failure();
    std::optional<MemorySpace> space = getMemorySpace(tile.getType());
    a->buffer = bufferFor(a->root, a->onChip, a->address >= 0, int(*space),
                          coreOf(instructions[i]));
    accesses[i].push_back(std::move(*a));
    return success();
  };
  for (Value read : engine.getReadTiles())
    if (failed(add(read, false)))
      return failure();
  return add(engine.getWrittenTile(), true);
}

//===----------------------------------------------------------------------===//
// Dependences between top-level ops
//===----------------------------------------------------------------------===//

namespace {
/// Who touched a range: the top-level op (`item`), the instruction, and
/// the partitions [partitionLo, partitionHi) (all for HBM).
struct Toucher {
  uint32_t item, inst;
  int64_t partitionLo = 0, partitionHi = std::numeric_limits<int64_t>::max();
  /// The copies of one loop nest split between physical cores share a
  /// group (nisa.split): their accesses never meet; -1 for none.
  int64_t group = -1;
  /// Whether a write hides what it covers: unless only its bounding range
  /// is tracked, which it may not write all of.
  bool hides = true;

  /// Whether `o` is another top-level op than this one, and not a copy of
  /// the same split nest.
  bool apart(const Toucher &o) const {
    return item != o.item && (group < 0 || group != o.group);
  }

  bool meets(const Toucher &o) const {
    return partitionLo < o.partitionHi && o.partitionLo < partitionHi;
  }
  bool covers(const Toucher &o) const {
    return partitionLo <= o.partitionLo && o.partitionHi <= partitionHi;
  }
  /// Drops the partitions `w` overwrites from this one's where they are a
  /// prefix or suffix of them; whether none is left.
  bool trimmedBy(const Toucher &w) {
    if (w.covers(*this))
      return true;
    if (w.partitionLo <= partitionLo && partitionLo < w.partitionHi)
      partitionLo = w.partitionHi;
    else if (w.partitionLo < partitionHi && partitionHi <= w.partitionHi)
      partitionHi = w.partitionLo;
    return false;
  }
};

/// The accesses of one buffer since other top-level ops last overwrote
/// them, by disjoint ranges: a write hides the earlier accesses of the
/// partitions it covers from the top-level ops after its own (what follows
/// it is ordered after them through it). Not from its own: accesses of one
/// top-level op (a loop nest's instructions, over all their iterations)
/// never order each other here, so one of its instructions after the write
/// is not ordered after the write through this (a loop nest's later
/// instruction writing a rotating tile's slot at its first iteration that
/// an earlier instruction writes at a later one) and still follows the
/// earlier accesses itself. All of one top-level op's accesses stay
/// recorded.
class RangeTracker {
public:
  /// Records an access of [lo, hi) by `who`, appending the instructions it
  /// must follow to `out` (pairs of earlier instruction and dependence);
  /// one dependence per pair of instructions and hazard (`seen` by them:
  /// its index in `out`), its range widened over every meeting.
  void access(int64_t lo, int64_t hi, bool write, Toucher who,
              uint32_t buffer, std::vector<std::pair<uint32_t, Dependence>> &out,
              DenseMap<std::tuple<uint32_t, uint32_t, int>, size_t> &seen) {
    split(lo);
    split(hi);
    // Fill gaps so the range is covered by segments.
    int64_t at = lo;
    for (auto it = segments.lower_bound(lo);
         it != segments.end() && it->first < hi; ++it) {
      if (it->first > at)
        segments.emplace(at, Segment{it->first, {}, {}, {}});
      at = it->second.end;
    }
    if (at < hi)
      segments.emplace(at, Segment{hi, {}, {}, {}});

    auto dep = [&](Toucher from, Hazard h, int64_t sLo, int64_t sHi) {
      auto [it, added] =
          seen.try_emplace({who.inst, from.inst, int(h)}, out.size());
      if (!added) {
        Dependence &d = out[it->second].second;
        if (d.buffer == buffer) {
          d.lo = std::min(d.lo, sLo);
          d.hi = std::max(d.hi, sHi);
          return;
        }
        it->second = out.size();
      }
      Dependence d;
      d.from = from.inst;
      d.hazard = h;
      d.buffer = buffer;
      d.lo = sLo;
      d.hi = sHi;
      out.push_back({who.inst, d});
    };
    auto other = [&](const Toucher &t) {
      return t.apart(who) && t.meets(who);
    };
    for (auto it = segments.find(lo); it != segments.end() && it->first < hi;
         ++it) {
      Segment &s = it->second;
      int64_t sLo = it->first, sHi = s.end;
      // The writes of top-level ops before this one hide what they cover.
      llvm::erase_if(s.hiders, [&](const Toucher &h) {
        if (h.item == who.item)
          return false;
        auto hiddenBy = [&](Toucher &t) {
          return t.apart(h) && t.trimmedBy(h);
        };
        llvm::erase_if(s.readers, hiddenBy);
        llvm::erase_if(s.writers, hiddenBy);
        return true;
      });
      for (const Toucher &w : s.writers)
        if (other(w))
          dep(w, write ? Hazard::WriteAfterWrite : Hazard::ReadAfterWrite, sLo,
              sHi);
      if (write) {
        for (const Toucher &r : s.readers)
          if (other(r))
            dep(r, Hazard::WriteAfterRead, sLo, sHi);
        // (A copy of the same split nest does not follow the earlier
        // accesses: it hides none of them.)
        if (who.hides &&
            (s.hiders.empty() || s.hiders.back().inst != who.inst))
          s.hiders.push_back(who);
        if (s.writers.empty() || s.writers.back().inst != who.inst)
          s.writers.push_back(who);
      } else if (s.readers.empty() || s.readers.back().inst != who.inst) {
        s.readers.push_back(who);
      }
    }
    if (write) {
      // One segment for the whole write keeps the map small.
      auto first = segments.find(lo);
      auto last = segments.lower_bound(hi);
      for (auto it = std::next(first); it != last; ++it) {
        for (Toucher h : it->second.hiders)
          if (llvm::none_of(first->second.hiders,
                            [&](Toucher x) { return x.inst == h.inst; }))
            first->second.hiders.push_back(h);
        for (Toucher w : it->second.writers)
          if (llvm::none_of(first->second.writers,
                            [&](Toucher x) { return x.inst == w.inst; }))
            first->second.writers.push_back(w);
        for (Toucher r : it->second.readers)
          if (llvm::none_of(first->second.readers,
                            [&](Toucher x) { return x.inst == r.inst; }))
            first->second.readers.push_back(r);
      }
      segments.erase(std::next(first), last);
      first->second.end = hi;
    }
  }

private:
  struct Segment {
    int64_t end;
    SmallVector<Toucher, 1> writers;
    SmallVector<Toucher, 2> readers;
    /// Writes whose hiding waits for the next top-level op.
    SmallVector<Toucher, 1> hiders;
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

bool mlir::neuron::runsMeet(const Intervals &a, const Intervals &b,
                            int64_t shift) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t aLo = a[i].first + shift, aHi = a[i].second + shift;
    if (aHi <= b[j].first)
      ++i;
    else if (b[j].second <= aLo)
      ++j;
    else
      return true;
  }
  return false;
}

std::optional<Intervals>
mlir::neuron::hbmRuns(const TileAccess &a, ArrayRef<int64_t> trips,
                      size_t from, int64_t most) {
  using Runs = SmallVector<std::pair<int64_t, int64_t>>;
  auto merge = [](Runs &runs) {
    if (!llvm::is_sorted(runs))
      llvm::sort(runs);
    Runs merged;
    for (auto run : runs) {
      if (!merged.empty() && run.first <= merged.back().second)
        merged.back().second = std::max(merged.back().second, run.second);
      else
        merged.push_back(run);
    }
    runs = std::move(merged);
  };
  Runs runs;
  for (auto [lo, hi] : a.runs)
    runs.push_back({a.offset.constant + lo, a.offset.constant + hi});
  merge(runs);
  // The loops that move it, the smallest step first: runs that step into
  // each other merge before the next loop multiplies them.
  SmallVector<size_t, 4> levels;
  for (size_t l = from; l < trips.size(); ++l)
    if (a.offset.coeff(l) && trips[l] > 1)
      levels.push_back(l);
  llvm::sort(levels, [&](size_t x, size_t y) {
    return std::abs(a.offset.coeff(x)) < std::abs(a.offset.coeff(y));
  });
  for (size_t l : levels) {
    if (int64_t(runs.size()) * trips[l] > 4 * most)
      return std::nullopt;
    Runs next;
    for (int64_t k = 0; k < trips[l]; ++k)
      for (auto [lo, hi] : runs)
        next.push_back({lo + k * a.offset.coeff(l), hi + k * a.offset.coeff(l)});
    merge(next);
    if (int64_t(next.size()) > most)
      return std::nullopt;
    runs = std::move(next);
  }
  return runs;
}

/// The ranges `a` (of an instruction in loops of `trips`) touches over all
/// its iterations, in its buffer's units.
static SmallVector<std::pair<int64_t, int64_t>, 4>
footprint(const TileAccess &a, ArrayRef<int64_t> trips) {
  auto [lo, hi] = a.offset.range(trips);
  if (a.onChip) {
    int64_t base = std::max<int64_t>(a.address, 0);
    return {{base + lo, base + hi + (a.slots - 1) * a.slotBytes + a.extent}};
  }
  if (a.runs.empty())
    return {};
  if (lo == hi) {
    SmallVector<std::pair<int64_t, int64_t>, 4> out(a.runs);
    for (auto &[rLo, rHi] : out)
      rLo += lo, rHi += lo;
    return out;
  }
  return {{lo + a.runs.front().first, hi + a.runs.back().second}};
}

void KernelGraph::addTopLevelDependences(
    std::vector<std::vector<Dependence>> &out) {
  llvm::DenseSet<Value> writtenRoots;
  for (const auto &list : accesses)
    for (const TileAccess &a : list)
      if (a.write && !a.onChip)
        writtenRoots.insert(a.root);
  std::vector<RangeTracker> trackers(bufferNames.size());
  std::vector<std::pair<uint32_t, Dependence>> found;
  DenseMap<std::tuple<uint32_t, uint32_t, int>, size_t> seen;
  // The HBM accesses a loop moves are tracked by their bounding ranges
  // (their runs over every iteration would cost the tracker each); such a
  // write hides nothing, unless it writes all of its range, and a
  // dependence found through one holds only where the two accesses' runs
  // meet: a loop nest's stores would otherwise follow another's into other
  // columns of the same rows (a matmul's column blocks shared out between
  // physical cores). Whatever a write hides it writes, so what follows it
  // through such a dependence follows what it hid.
  std::map<const TileAccess *, std::optional<Intervals>> moved;
  auto runsOf = [&](uint32_t i, const TileAccess &a)
      -> const std::optional<Intervals> & {
    auto [it, fresh] = moved.try_emplace(&a);
    if (fresh)
      it->second = hbmRuns(a, tripsOf(i), 0, kMaxMovedRuns);
    return it->second;
  };
  uint32_t item = 0;
  for (uint32_t i = 0; i < instructions.size(); ++i) {
    if (i > 0 && (nests[i].empty() || topLevelOf(i) != topLevelOf(i - 1)))
      ++item;
    SmallVector<int64_t, 4> trips = tripsOf(i);
    // Reads first: an instruction reading and writing a region follows the
    // writers before it.
    for (bool write : {false, true})
      for (const TileAccess &a : accesses[i]) {
        if (a.write != write || (!a.onChip && !writtenRoots.contains(a.root)))
          continue;
        Toucher who{item, i};
        if (auto group = topLevelOf(i)->getAttrOfType<IntegerAttr>(
                NisaDialect::kSplit))
          who.group = group.getInt();
        if (a.onChip)
          who.partitionLo = a.partitionLo, who.partitionHi = a.partitionHi;
        auto ranges = footprint(a, trips);
        // An HBM write a loop moves (tracked by its bounding range).
        auto [first, last] = a.offset.range(trips);
        if (a.write && !a.onChip && !a.runs.empty() && first != last) {
          const std::optional<Intervals> &runs = runsOf(i, a);
          who.hides = runs && llvm::equal(*runs, ranges);
        }
        for (auto [lo, hi] : ranges)
          trackers[a.buffer].access(lo, hi, a.write, who, a.buffer, found,
                                    seen);
      }
  }
  // Whether instructions `i` and `j` touch a common element of HBM buffer
  // `buffer`, one of them writing it (or may: runs not known).
  auto meet = [&](uint32_t i, uint32_t j, uint32_t buffer) {
    for (const TileAccess &a : accesses[i])
      for (const TileAccess &b : accesses[j]) {
        if (a.buffer != buffer || b.buffer != buffer || !(a.write || b.write))
          continue;
        const std::optional<Intervals> &p = runsOf(i, a), &q = runsOf(j, b);
        if (!p || !q || runsMeet(*p, *q))
          return true;
      }
    return false;
  };
  for (auto &[to, d] : found) {
    if (!onChip[d.buffer] && !meet(d.from, to, d.buffer))
      continue;
    d.through = sliceThrough(d.from, to);
    out[to].push_back(d);
  }
}

//===----------------------------------------------------------------------===//
// Dependences within a loop nest
//===----------------------------------------------------------------------===//

/// The bytes (or elements) `a` touches at one iteration of the loops
/// before `from`, over all iterations of its loops from `from` on, with
/// the offset's part of the loops before `from` left out.
static std::pair<int64_t, int64_t> spanFrom(const TileAccess &a,
                                            ArrayRef<int64_t> trips,
                                            size_t from) {
  int64_t lo = a.offset.constant, hi = a.offset.constant;
  for (size_t l = from; l < trips.size(); ++l) {
    int64_t span = a.offset.coeff(l) * (trips[l] - 1);
    (span < 0 ? lo : hi) += span;
  }
  if (a.onChip)
    return {lo, hi + a.extent};
  if (a.runs.empty())
    return {lo, lo};
  return {lo + a.runs.front().first, hi + a.runs.back().second};
}

/// Whether `a` and `b` share partitions (always, in HBM).
static bool partitionsMeet(const TileAccess &a, const TileAccess &b) {
  return !a.onChip ||
         (a.partitionLo < b.partitionHi && b.partitionLo < a.partitionHi);
}

/// Whether `a` (in loops of `ta`) and `b` (of `tb`) may touch common bytes
/// in one iteration of the `common` loops they share.
static bool meetInOneIteration(const TileAccess &a, ArrayRef<int64_t> ta,
                               const TileAccess &b, ArrayRef<int64_t> tb,
                               size_t common) {
  if (!partitionsMeet(a, b))
    return false;
  for (size_t l = 0; l < common; ++l)
    if (a.offset.coeff(l) != b.offset.coeff(l))
      return true;
  bool fixedA = ta.size() == common || !a.offset.moves() ||
                llvm::all_of(llvm::seq(common, ta.size()),
                             [&](size_t l) { return !a.offset.coeff(l); });
  bool fixedB = tb.size() == common || !b.offset.moves() ||
                llvm::all_of(llvm::seq(common, tb.size()),
                             [&](size_t l) { return !b.offset.coeff(l); });
  if (!a.onChip && fixedA && fixedB) {
    // Exact runs: two halves of one tensor do not meet.
    for (auto [aLo, aHi] : a.runs)
      for (auto [bLo, bHi] : b.runs)
        if (a.offset.constant + aLo < b.offset.constant + bHi &&
            b.offset.constant + bLo < a.offset.constant + aHi)
          return true;
    return false;
  }
  auto [aLo, aHi] = spanFrom(a, ta, common);
  auto [bLo, bHi] = spanFrom(b, tb, common);
  return aLo < bHi && bLo < aHi;
}

/// For `a` of an instruction in one loop beyond the `common` shared ones,
/// its tile moving up by whole steps with that loop, and `b` of a later
/// one: the last iteration of that loop whose tile meets `b`'s, over
/// `b`'s loops, when it is affine and within the loop (b's offset moves
/// by whole steps too); nullopt otherwise.
static std::optional<AffineIndex> lastMeeting(const TileAccess &a,
                                              ArrayRef<int64_t> ta,
                                              const TileAccess &b,
                                              ArrayRef<int64_t> tb,
                                              size_t common) {
  if (!a.onChip || !b.onChip || ta.size() != common + 1 ||
      a.allocDepth > int32_t(common))
    return std::nullopt;
  int64_t step = a.offset.coeff(common);
  if (step <= 0)
    return std::nullopt;
  // a's tile at iteration j starts at a0 + step * j; b's ends before
  // b0 + extent. The last j with a's start below b's end.
  AffineIndex last;
  for (size_t l = 0; l < tb.size(); ++l) {
    int64_t moves = b.offset.coeff(l) - (l < common ? a.offset.coeff(l) : 0);
    if (moves % step)
      return std::nullopt;
    last.coeffs.push_back(moves / step);
  }
  last.constant = llvm::divideFloorSigned(
      b.offset.constant + b.extent - 1 - a.offset.constant, step);
  if (last.range(tb).second > ta[common] - 1)
    return std::nullopt;
  return last;
}

/// Whether the regions `a` (in loops of `ta`) and `b` (of `tb`) touch over
/// all their iterations may meet (true where a region is not known).
static bool footprintsMeet(const TileAccess &a, ArrayRef<int64_t> ta,
                           const TileAccess &b, ArrayRef<int64_t> tb) {
  if (!partitionsMeet(a, b))
    return false;
  auto fa = footprint(a, ta), fb = footprint(b, tb);
  if (fa.empty() || fb.empty())
    return true;
  for (auto [aLo, aHi] : fa)
    for (auto [bLo, bHi] : fb)
      if (aLo < bHi && bLo < aHi)
        return true;
  return false;
}

std::optional<AffineIndex> KernelGraph::sliceThrough(uint32_t from,
                                                      uint32_t to) const {
  if (nests[from].size() != 1)
    return std::nullopt;
  SmallVector<int64_t, 4> tf = tripsOf(from), tt = tripsOf(to);
  std::optional<AffineIndex> through;
  for (const TileAccess &af : accesses[from])
    for (const TileAccess &at : accesses[to]) {
      if ((!af.write && !at.write) || af.buffer != at.buffer)
        continue;
      // Anything else they may both touch (HBM, or another tile at the
      // same addresses) needs all of `from`'s loop.
      if (!af.onChip || af.root != at.root) {
        if (footprintsMeet(af, tf, at, tt))
          return std::nullopt;
        continue;
      }
      if (!partitionsMeet(af, at))
        continue;
      std::optional<AffineIndex> last = lastMeeting(af, tf, at, tt, 0);
      if (!last || (through && !(*through == *last)))
        return std::nullopt;
      through = std::move(last);
    }
  return through;
}

/// For HBM accesses `a` and `b` that move alike with the shared loops
/// [from, to) and not with loops inside them: whether no two different
/// iterations of those loops bring one of a's runs onto one of b's. The
/// runs meet at iterations i and i' when the loops' shift between them,
/// coeffs . (i - i'), is the difference of an element of b's runs and one
/// of a's.
/// Exact; false (they may meet) beyond bounds on the runs compared and
/// the shifts enumerated (those of all loops but the one moving least).
static bool runsApartAcrossIterations(const TileAccess &a,
                                      ArrayRef<int64_t> ta,
                                      const TileAccess &b,
                                      ArrayRef<int64_t> tb, size_t from,
                                      size_t to) {
  constexpr int64_t kMaxPairs = 1 << 16, kMaxShifts = 4096;
  if (a.onChip || b.onChip || a.runs.empty() || b.runs.empty() ||
      int64_t(a.runs.size() * b.runs.size()) > kMaxPairs)
    return false;
  for (size_t l = to; l < std::max(ta.size(), tb.size()); ++l)
    if (a.offset.coeff(l) || b.offset.coeff(l))
      return false;
  // The shifts at which some run of a meets some run of b, merged.
  int64_t base = b.offset.constant - a.offset.constant;
  std::vector<std::pair<int64_t, int64_t>> meets; // closed intervals
  for (auto [aLo, aHi] : a.runs)
    for (auto [bLo, bHi] : b.runs)
      meets.push_back({base + bLo - aHi + 1, base + bHi - aLo - 1});
  llvm::sort(meets);
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (auto [lo, hi] : meets) {
    if (!merged.empty() && lo <= merged.back().second + 1)
      merged.back().second = std::max(merged.back().second, hi);
    else
      merged.push_back({lo, hi});
  }
  // The loop moving least is solved for; the shifts of the others are
  // enumerated (each with whether it is no difference at all).
  int64_t fine = -1;
  for (size_t l = from; l < to; ++l)
    if (a.offset.coeff(l) &&
        (fine < 0 || std::abs(a.offset.coeff(l)) <
                         std::abs(a.offset.coeff(fine))))
      fine = int64_t(l);
  std::vector<std::pair<int64_t, bool>> shifts{{0, true}};
  for (size_t l = from; l < to; ++l) {
    int64_t reach = ta[l] - 1;
    if (int64_t(l) == fine || !reach)
      continue;
    if (int64_t(shifts.size()) * (2 * reach + 1) > kMaxShifts)
      return false;
    std::vector<std::pair<int64_t, bool>> next;
    for (auto [s, none] : shifts)
      for (int64_t k = -reach; k <= reach; ++k)
        next.push_back({s + k * a.offset.coeff(l), none && !k});
    shifts = std::move(next);
  }
  // Whether s + k * step meets for some k in [-reach, reach] (not 0 when
  // that is no difference at all).
  int64_t step = fine < 0 ? 0 : std::abs(a.offset.coeff(fine));
  int64_t reach = fine < 0 ? 0 : ta[fine] - 1;
  for (auto [s, none] : shifts) {
    int64_t lo = s - reach * step, hi = s + reach * step;
    for (auto it = llvm::lower_bound(merged, std::make_pair(lo, INT64_MIN),
                                     [](auto x, auto y) {
                                       return x.second < y.first;
                                     });
         it != merged.end() && it->first <= hi; ++it) {
      if (!step) {
        if (!none && it->first <= s && s <= it->second)
          return false;
        continue;
      }
      int64_t kLo =
          std::max(-reach, llvm::divideCeilSigned(it->first - s, step));
      int64_t kHi =
          std::min(reach, llvm::divideFloorSigned(it->second - s, step));
      if (kLo <= kHi && !(none && kLo == 0 && kHi == 0))
        return false;
    }
  }
  return true;
}

/// Whether `a` and `b` touch disjoint bytes at any two different
/// iterations of the shared loops [from, to) (the loops before `from` at
/// one iteration): both move alike with every one of those loops, each by
/// more than the span of the inner ones (mixed radix), so no two
/// iterations' tiles meet; or, in HBM, their exact runs never meet at two
/// different iterations.
static bool apartAcrossIterations(const TileAccess &a, ArrayRef<int64_t> ta,
                                  const TileAccess &b, ArrayRef<int64_t> tb,
                                  size_t from, size_t to) {
  if (!partitionsMeet(a, b))
    return true;
  for (size_t l = 0; l < to; ++l)
    if (a.offset.coeff(l) != b.offset.coeff(l))
      return false;
  auto [aLo, aHi] = spanFrom(a, ta, to);
  auto [bLo, bHi] = spanFrom(b, tb, to);
  int64_t span = std::max(aHi, bHi) - std::min(aLo, bLo);
  SmallVector<std::pair<int64_t, int64_t>> moves; // |coeff|, trips
  for (size_t l = from; l < to; ++l) {
    if (!a.offset.coeff(l)) // iterations differing here touch the same bytes
      return runsApartAcrossIterations(a, ta, b, tb, from, to);
    moves.push_back({std::abs(a.offset.coeff(l)), ta[l]});
  }
  llvm::sort(moves);
  for (auto [step, trips] : moves) {
    if (step < span)
      return runsApartAcrossIterations(a, ta, b, tb, from, to);
    span += step * (trips - 1);
  }
  return true;
}

int32_t KernelGraph::sharedLoops(size_t i, size_t j) const {
  int32_t common = 0;
  while (common < int32_t(std::min(nests[i].size(), nests[j].size())) &&
         nests[i][common] == nests[j][common])
    ++common;
  return common;
}

void KernelGraph::addNestDependences(uint32_t first, uint32_t end,
                                     std::vector<std::vector<Dependence>> &out) {
  for (uint32_t x = first; x < end; ++x) {
    SmallVector<int64_t, 4> tx = tripsOf(x);
    for (uint32_t y = x + 1; y < end; ++y) {
      SmallVector<int64_t, 4> ty = tripsOf(y);
      int32_t common = sharedLoops(x, y);
      for (const TileAccess &ax : accesses[x])
        for (const TileAccess &ay : accesses[y]) {
          if (!ax.write && !ay.write)
            continue;
          bool same = ax.onChip ? ax.root == ay.root
                                : ax.buffer == ay.buffer && !ay.onChip;
          if (!same)
            continue;
          auto add = [&](uint32_t from, uint32_t to, const TileAccess &af,
                         const TileAccess &at, int32_t carried,
                         int64_t distance,
                         std::optional<AffineIndex> through = std::nullopt) {
            Dependence d;
            d.from = from;
            d.hazard = !af.write  ? Hazard::WriteAfterRead
                       : at.write ? Hazard::WriteAfterWrite
                                  : Hazard::ReadAfterWrite;
            d.buffer = af.buffer;
            auto range = footprint(af, from == x ? tx : ty);
            if (!range.empty()) {
              d.lo = range.front().first;
              d.hi = range.back().second;
            }
            d.common = common;
            d.carried = carried;
            d.distance = distance;
            d.through = std::move(through);
            out[to].push_back(d);
          };
          // The same iteration: x comes first.
          if (meetInOneIteration(ax, tx, ay, ty, common))
            add(x, y, ax, ay, 0, 0, lastMeeting(ax, tx, ay, ty, common));
          // An allocation's instance reuses the slot of the instance
          // `slots` before it (where the two touch common partitions).
          int32_t rotating = ax.onChip ? std::min(ax.allocDepth, common) : 0;
          if (rotating > 0 && partitionsMeet(ax, ay)) {
            add(x, y, ax, ay, rotating, ax.slots);
            add(y, x, ay, ax, rotating, ax.slots);
          }
          // Within one instance (or for a buffer outside the loops), an
          // earlier iteration of the shared loops.
          if (common > rotating &&
              !apartAcrossIterations(ax, tx, ay, ty, rotating, common)) {
            add(x, y, ax, ay, common, 1);
            add(y, x, ay, ax, common, 1);
          }
        }
    }
  }
}

FailureOr<KernelGraph> KernelGraph::build(func::FuncOp kernel) {
  KernelGraph g;
  g.bufferNames = {"SBUF", "PSUM"};
  g.onChip = {true, true};
  g.bufferRoots = {Value(), Value()};
  if (failed(g.collect(kernel)))
    return failure();
  g.accesses.resize(g.instructions.size());
  for (size_t i = 0; i < g.instructions.size(); ++i)
    if (failed(g.addAccesses(i)))
      return failure();

  std::vector<std::vector<Dependence>> incoming(g.instructions.size());
  g.addTopLevelDependences(incoming);
  for (const LoopInfo &loop : g.loops)
    if (loop.parent < 0)
      g.addNestDependences(loop.first, loop.end, incoming);

  // Every dependence once, by its earlier instruction.
  g.predBegin.push_back(0);
  for (std::vector<Dependence> &list : incoming) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Dependence &a, const Dependence &b) {
                       return std::tie(a.from, a.carried, a.distance) <
                              std::tie(b.from, b.carried, b.distance);
                     });
    for (size_t k = 0; k < list.size(); ++k) {
      if (k == 0 || list[k].from != list[k - 1].from ||
          list[k].carried != list[k - 1].carried ||
          list[k].distance != list[k - 1].distance) {
        g.deps.push_back(list[k]);
        continue;
      }
      // The same instance named twice: through the later iteration, or
      // the last when they differ.
      std::optional<AffineIndex> &kept = g.deps.back().through;
      if (kept && (!list[k].through || !(*kept == *list[k].through)))
        kept.reset();
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
