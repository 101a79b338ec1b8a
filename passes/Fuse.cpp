//===- Fuse.cpp - producers with their elementwise consumers --------------===//
//
// Groups grow forward in block order from a seed (a matmul, a convolution
// the engines tile, or an elementwise op). Every operand from outside a
// group is defined before the group's first op (a broadcast made inside
// its span moves there first, with what computes its input where that
// does not read the group), so the fusion op can stand where that op
// stood and every use of a group value comes after it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/TargetLoading.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONFUSE
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

static bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
         op->getNumRegions() == 0;
}

static bool isContraction(Operation *op) {
  return isa<MatmulOp, BatchMatmulOp>(op);
}

/// A convolution the engines tile, or null.
static Conv2DOp tiledConv(Operation *op) {
  auto conv = dyn_cast<Conv2DOp>(op);
  return conv && isEngineTiled(conv) ? conv : Conv2DOp();
}

/// An op whose result a group's elementwise ops finish tile by tile.
static bool isProducer(Operation *op) {
  return isContraction(op) || tiledConv(op);
}

/// Whether `broadcast`, read in place after `producer`, gives a tile of the
/// producer's output as one view: any for a matmul, unless it is the
/// matmul's own operand (the fusion reads that from HBM); after a
/// convolution on the tensor engine (tiles of channels by whole output
/// rows), one whose rows merge into one run; none after a depthwise one (it
/// reads each block of rows apart, which a zero-stride view would move an
/// element per descriptor).
static bool readsInPlace(BroadcastOp broadcast, Operation *producer) {
  if (llvm::is_contained(producer->getOperands(), broadcast.getResult()))
    return false;
  Conv2DOp conv = tiledConv(producer);
  if (!conv)
    return true;
  // A depthwise one's tiles put blocks of output rows beside the channels.
  if (isDepthwiseConv(conv))
    return false;
  RankedTensorType result = broadcast.getType();
  return rowsMerge(broadcastStrides(broadcast.getInput().getType(), result,
                                    broadcast.getDimensions()),
                   result.getDimSize(2), result.getDimSize(3));
}

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

namespace {
/// One group being formed: its ops in block order and the broadcasts it
/// reads through.
struct Group {
  Operation *first;
  ArrayRef<int64_t> shape;
  /// The rows one tile of an elementwise group takes: the partitions.
  int64_t tileRows;
  llvm::SetVector<Operation *> members;
  llvm::SetVector<Operation *> broadcasts;
  /// Broadcasts defined inside the group's span that it reads
  /// materialised, and the ops computing the inputs of those it reads
  /// (hoistable): they move before its first op.
  llvm::SetVector<Operation *> hoisted;
  /// Elementwise ops inside the group's span that do not read it but could
  /// join (a batch norm's rsqrt(var + eps) after its convolution), with
  /// the broadcasts they read: they join with the first member that reads
  /// them.
  struct Pending {
    SmallVector<Operation *> reads, hoists;
  };
  llvm::MapVector<Operation *, Pending> pending;

  Group(Operation *seed, int64_t tileRows)
      : first(seed), shape(shapeOf(seed->getResult(0))), tileRows(tileRows) {
    members.insert(seed);
    // An elementwise seed's own broadcast operands, read as a matrix.
    if (isProducer(seed))
      return;
    for (Value v : seed->getOperands())
      if (auto broadcast = v.getDefiningOp<BroadcastOp>();
          broadcast && shapeOf(v) == shape &&
          readsAsMatrix(broadcast, /*reads=*/{}))
        broadcasts.insert(broadcast);
  }

  bool isBefore(Value v) const {
    Operation *def = v.getDefiningOp();
    return !def || def->isBeforeInBlock(first);
  }

  /// Whether `v` is before the group once the ops computing it inside the
  /// group's span move before it: appends them to `chain` (operands
  /// first), or returns false where one reads the group or a pending op,
  /// has effects or regions, is a matmul or a convolution, or has the
  /// group's shape (an op the group could take in). A batch norm's
  /// rsqrt(var + eps) per channel, reshaped, then broadcast over the image.
  bool hoistable(Value v, SmallVectorImpl<Operation *> &chain) const {
    Operation *def = v.getDefiningOp();
    if (isBefore(v) || hoisted.contains(def) || llvm::is_contained(chain, def))
      return true;
    if (members.contains(def) || pending.contains(def) ||
        def->getNumRegions() || !isMemoryEffectFree(def) || isProducer(def) ||
        llvm::any_of(def->getResults(),
                     [&](Value r) { return shapeOf(r) == shape; }))
      return false;
    for (Value operand : def->getOperands())
      if (!hoistable(operand, chain))
        return false;
    chain.push_back(def);
    return true;
  }

  /// Whether an elementwise group reads `broadcast` in place beside the
  /// broadcasts it reads already (or will, with its pending ops, or with
  /// the op joining, `reads`): a split of the group's shape into [rows,
  /// columns] at which each reads as a matrix (a row's value along the
  /// columns, a vector down the rows) and rows are long enough to move
  /// efficiently (matrixSplit). Otherwise the broadcast is materialised
  /// and the group reads it flattened like its other operands.
  bool readsAsMatrix(BroadcastOp broadcast, ArrayRef<Operation *> reads) const {
    SmallVector<SmallVector<int64_t>> views;
    auto add = [&](Operation *op) {
      auto b = cast<BroadcastOp>(op);
      views.push_back(
          broadcastStrides(b.getInput().getType(), b.getType(),
                           b.getDimensions()));
    };
    for (Operation *op : llvm::concat<Operation *const>(broadcasts, reads))
      add(op);
    for (const auto &entry : pending)
      for (Operation *op : entry.second.reads)
        add(op);
    add(broadcast);
    auto type = cast<RankedTensorType>(first->getResult(0).getType());
    return matrixSplit(shape, views, type.getElementTypeBitWidth(), tileRows)
        .has_value();
  }

  /// Whether `op` may join; records the broadcasts it would read through
  /// or move before the group, and the pending ops it brings in.
  bool tryJoin(Operation *op) {
    if (!isElementwise(op) || shapeOf(op->getResult(0)) != shape)
      return false;
    SmallVector<Operation *> reads, hoists, claimed;
    bool usesGroup = false;
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (def && members.contains(def)) {
        usesGroup = true;
        continue;
      }
      if (def && pending.contains(def)) {
        claimed.push_back(def);
        continue;
      }
      if (shapeOf(v) != shape)
        return false;
      // A broadcast of an earlier value is read in place after a matmul or
      // a convolution whose tiles map it to one view, and in an
      // elementwise group that reads it as a matrix; otherwise one made
      // inside the group's span moves before it.
      auto broadcast = dyn_cast_if_present<BroadcastOp>(def);
      SmallVector<Operation *> chain;
      if (broadcast && hoistable(broadcast.getInput(), chain)) {
        hoists.append(chain);
        if (isProducer(members.front())
                ? readsInPlace(broadcast, members.front())
                : readsAsMatrix(broadcast, reads)) {
          reads.push_back(broadcast);
          continue;
        }
        if (!isBefore(v)) {
          hoists.push_back(broadcast);
          continue;
        }
      }
      if (!isBefore(v))
        return false;
    }
    if (!usesGroup) {
      pending.insert({op, Pending{reads, hoists}});
      return false;
    }
    // The pending ops it reads, and theirs, join first, in block order.
    for (size_t i = 0; i < claimed.size(); ++i)
      for (Value v : claimed[i]->getOperands())
        if (Operation *def = v.getDefiningOp();
            def && pending.contains(def) && !llvm::is_contained(claimed, def))
          claimed.push_back(def);
    llvm::sort(claimed, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *c : claimed) {
      Pending p = pending.lookup(c);
      pending.erase(c);
      members.insert(c);
      broadcasts.insert(p.reads.begin(), p.reads.end());
      hoisted.insert(p.hoists.begin(), p.hoists.end());
    }
    members.insert(op);
    broadcasts.insert(reads.begin(), reads.end());
    hoisted.insert(hoists.begin(), hoists.end());
    return true;
  }
};

struct Fuse : mlir::neuron::impl::NeuronFuseBase<Fuse> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<LoadedTarget> loaded =
        loadTarget(getOperation(), "neuron-fuse", target, targetDir);
    if (failed(loaded))
      return signalPassFailure();
    int64_t partitions = loaded->target.sbufPartitions();
    for (func::FuncOp f : getOperation().getOps<func::FuncOp>())
      if (!f.isDeclaration() && !f->hasAttr("neuron.program"))
        fuse(f, partitions);
  }

  void fuse(func::FuncOp f, int64_t partitions) {
    Block &body = f.getBody().front();
    int64_t groups = 0, savedBytes = 0;
    for (Operation *seed = &body.front(); seed;) {
      if (!isProducer(seed) && !isElementwise(seed)) {
        seed = seed->getNextNode();
        continue;
      }
      Group group(seed, partitions);
      for (Operation *op = seed->getNextNode(); op; op = op->getNextNode())
        group.tryJoin(op);
      // One op alone is worth a fusion where it reads a broadcast in place
      // (not materialised in HBM).
      if (group.members.size() < 2 && group.broadcasts.empty()) {
        seed = seed->getNextNode();
        continue;
      }
      seed = outline(group, savedBytes);
      ++groups;
    }
    if (summary)
      f.emitRemark() << "neuron-fuse: " << groups << " groups; "
                     << savedBytes << " bytes of HBM traffic stay on chip";
  }

  /// Replaces the group by a fusion op and returns where seeds go on: the
  /// first op it moved before the fusion (not grouped yet), else the op
  /// after the fusion.
  Operation *outline(const Group &group, int64_t &savedBytes) {
    // In block order, so each moves after what it reads.
    SmallVector<Operation *> hoisted(group.hoisted.begin(),
                                     group.hoisted.end());
    llvm::sort(hoisted, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *op : hoisted)
      op->moveBefore(group.first);
    llvm::SetVector<Value> inputs;
    // Splat constants read as immediates: copied into the region.
    llvm::SetVector<Operation *> immediates;
    SmallVector<Value> results;
    for (Operation *op : group.members) {
      for (OpOperand &use : op->getOpOperands()) {
        Value v = use.get();
        Operation *def = v.getDefiningOp();
        if (def && group.members.contains(def))
          continue;
        // A splat every member reads as an immediate: the region's own copy
        // (one also read as a tensor is an input, read so by every member).
        if (readAsImmediates(v, [&](Operation *reader) {
              return group.members.contains(reader);
            }))
          immediates.insert(def);
        else if (def && group.broadcasts.contains(def))
          inputs.insert(def->getOperand(0));
        else
          inputs.insert(v);
      }
      Value result = op->getResult(0);
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !group.members.contains(user);
          })) {
        results.push_back(result);
        continue;
      }
      auto type = cast<RankedTensorType>(result.getType());
      savedBytes +=
          2 * type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
    }

    OpBuilder b(group.first);
    Location loc = group.first->getLoc();
    auto fusion = FusionOp::create(
        b, loc,
        llvm::to_vector(llvm::map_range(results,
                                        [](Value v) { return v.getType(); })),
        inputs.getArrayRef());
    Block *entry = b.createBlock(&fusion.getBody());
    IRMapping mapping;
    for (Value input : inputs)
      mapping.map(input, entry->addArgument(input.getType(), input.getLoc()));
    for (Operation *op : llvm::concat<Operation *const>(
             immediates, group.broadcasts, group.members))
      b.clone(*op, mapping);
    YieldOp::create(b, loc,
                    llvm::to_vector(llvm::map_range(
                        results, [&](Value v) { return mapping.lookup(v); })));
    for (auto [from, to] : llvm::zip(results, fusion.getResults()))
      from.replaceAllUsesWith(to);
    for (Operation *op : llvm::reverse(group.members))
      op->erase();
    for (Operation *op : llvm::concat<Operation *const>(group.broadcasts,
                                                         immediates))
      if (op->use_empty())
        op->erase();
    return hoisted.empty() ? fusion->getNextNode() : hoisted.front();
  }
};
} // namespace
