//===- NeuronAnnotateTensorParallel.cpp - tensor-parallel annotation ------===//
//
// Megatron-style sharding of a frontend graph's projections over a 1-D grid
// of logical cores, written as upstream `shard` annotations on the weights
// (which partitioning then slices, so each core holds only its part):
// column-parallel for a matmul on a replicated activation, row-parallel for
// the next one on the split activation. A KV cache written from the split
// activation is split too, and stays split on every core across steps.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONANNOTATETENSORPARALLEL
#include "passes/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;

namespace {

constexpr StringLiteral kGrid = "tensor_parallel";

/// A weight: a function argument or a constant, which can be stored split.
bool isWeight(Value v) {
  if (isa<BlockArgument>(v))
    return true;
  Operation *def = v.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>();
}

/// Whether `generic` only permutes its one input (a transpose written as a
/// generic, as torch-mlir emits `w.t()`).
bool isTranspose(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumResults() != 1)
    return false;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  return body.getOperations().size() == 1 &&
         yield.getOperand(0) == body.getArgument(0) &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isPermutation(); });
}

/// Where to annotate so that operand `use` reaches its user split along
/// its dimension `dim`: the operand itself when it is a weight, or the
/// weight a transpose reads, along the matching dimension.
std::optional<std::pair<OpOperand *, int64_t>> weightUse(OpOperand &use,
                                                         int64_t dim) {
  Value v = use.get();
  if (isWeight(v))
    return std::make_pair(&use, dim);
  // linalg.transpose (as tosa.transpose lowers): result dimension `dim` is
  // input dimension permutation[dim].
  if (auto named = v.getDefiningOp<linalg::TransposeOp>()) {
    OpOperand &input = named.getInputMutable();
    if (!v.hasOneUse() || !isWeight(input.get()))
      return std::nullopt;
    return std::make_pair(&input, named.getPermutation()[dim]);
  }
  auto transpose = v.getDefiningOp<linalg::GenericOp>();
  if (!transpose || !isTranspose(transpose) || !v.hasOneUse())
    return std::nullopt;
  OpOperand *input = transpose.getDpsInputOperand(0);
  if (!isWeight(input->get()))
    return std::nullopt;
  unsigned loop = transpose.getIndexingMapsArray()[1].getDimPosition(dim);
  AffineMap inputMap = transpose.getMatchingIndexingMap(input);
  for (unsigned i = 0; i < inputMap.getNumResults(); ++i)
    if (inputMap.getDimPosition(i) == loop)
      return std::make_pair(input, int64_t(i));
  return std::nullopt;
}

struct AnnotateTensorParallel
    : public mlir::neuron::impl::NeuronAnnotateTensorParallelBase<
          AnnotateTensorParallel> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (cores < 1) {
      module.emitError() << "neuron-annotate-tensor-parallel: expected at "
                            "least one core, found "
                         << int64_t(cores);
      return signalPassFailure();
    }
    if (!SymbolTable::lookupSymbolIn(module, kGrid)) {
      OpBuilder b(module.getBodyRegion());
      b.setInsertionPointToStart(module.getBody());
      shard::GridOp::create(b, module.getLoc(), kGrid,
                            ArrayRef<int64_t>{int64_t(cores)});
    }
    module.walk([&](func::FuncOp f) {
      if (!f.isExternal())
        annotate(f);
    });
  }

  /// Annotates operand `operand` as split along tensor dimension `dim` over
  /// the grid (replicated when `dim` is negative): how the value is stored,
  /// or, `forUsers`, how its user wants it.
  void annotateOperand(OpOperand &operand, int64_t dim, bool forUsers) {
    Operation *user = operand.getOwner();
    OpBuilder b(user);
    auto type = cast<RankedTensorType>(operand.get().getType());
    SmallVector<shard::GridAxesAttr> axes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      axes.push_back(shard::GridAxesAttr::get(
          b.getContext(), d == dim ? ArrayRef<int16_t>{0} : ArrayRef<int16_t>{}));
    auto sharding = shard::ShardingOp::create(
        b, user->getLoc(), FlatSymbolRefAttr::get(b.getContext(), kGrid),
        axes);
    operand.set(shard::ShardOp::create(b, user->getLoc(), operand.get(),
                                       sharding,
                                       forUsers ? b.getUnitAttr() : UnitAttr()));
  }

  /// Gives `matmul` its own copy of a zero-fill initial value it shares
  /// with other ops: the copies are sharded differently (a column-parallel
  /// product's by columns, a row-parallel one's as partial sums), and one
  /// shared value would need resharding between them.
  static void untieInit(linalg::MatmulOp matmul) {
    OpOperand &init = matmul.getDpsInitsMutable()[0];
    if (init.get().hasOneUse())
      return;
    auto fill = init.get().getDefiningOp<linalg::FillOp>();
    if (!fill)
      return;
    OpBuilder b(matmul);
    IRMapping mapping;
    if (auto empty = fill.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
      b.clone(*empty, mapping);
    init.set(b.clone(*fill, mapping)->getResult(0));
  }

  /// Whether splitting `v`'s last dimension over the cores keeps heads
  /// whole where a reshape downstream (through elementwise ops) splits it
  /// into [heads, head_dim]: grouped-query attention has fewer KV heads than
  /// cores can take, and a core cannot hold part of a head.
  bool keepsWholeHeads(Value v, int depth = 0) {
    for (Operation *user : v.getUsers()) {
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user)) {
        ReassociationIndices last = expand.getReassociationIndices().back();
        int64_t heads = expand.getResultType().getDimSize(last.front());
        if (last.size() > 1 &&
            (ShapedType::isDynamic(heads) || heads % cores != 0))
          return false;
        continue;
      }
      if (depth < 4 && isa<linalg::GenericOp>(user) &&
          user->getNumResults() == 1 &&
          !keepsWholeHeads(user->getResult(0), depth + 1))
        return false;
    }
    return true;
  }

  bool divides(Value v, int64_t dim) {
    auto type = cast<RankedTensorType>(v.getType());
    return !type.isDynamicDim(dim) && type.getDimSize(dim) % cores == 0;
  }

  /// For a KV cache write, an argument written at a run-time position by
  /// `insert` and read by nothing else: the dimension to split it along, so
  /// each core keeps and updates its part; nullopt otherwise. That is the
  /// first dimension but the batch, the position's and the last (head_dim)
  /// that the write takes whole, is not 1 and the cores divide (the heads
  /// of a [batch, heads, positions, head_dim] or [batch, positions, heads,
  /// head_dim] cache), or the columns of a [positions, heads * head_dim]
  /// one.
  std::optional<int64_t> cacheSplit(tensor::InsertSliceOp insert) {
    auto dest = dyn_cast<BlockArgument>(insert.getDest());
    if (!dest || !dest.hasOneUse() || insert.getOffsets().size() != 1)
      return std::nullopt;
    RankedTensorType type = insert.getDestType();
    int64_t last = type.getRank() - 1;
    // A dimension the write takes whole, not 1, that the cores divide.
    auto candidate = [&](int64_t d) {
      return insert.getStaticOffsets()[d] == 0 &&
             insert.getStaticSizes()[d] == type.getDimSize(d) &&
             type.getDimSize(d) != 1 && divides(dest, d);
    };
    // Not the batch of a [batch, ..., head_dim] cache: the activation is
    // split by heads.
    for (int64_t d = type.getRank() > 2 ? 1 : 0; d < last; ++d)
      if (candidate(d))
        return d;
    if (type.getRank() == 2 && candidate(last))
      return last;
    return std::nullopt;
  }

  /// A read of a one-element integer tensor (a decode step's position),
  /// which neuron-prepare-sharding turns into tensors the rules follow.
  static bool isPositionRead(Operation *op) {
    auto extract = dyn_cast<tensor::ExtractOp>(op);
    if (!extract)
      return false;
    RankedTensorType type = extract.getTensor().getType();
    return type.hasStaticShape() && type.getNumElements() == 1 &&
           isa<IntegerType>(type.getElementType());
  }

  /// An op of `f` upstream partitioning cannot handle, or nullptr: one that
  /// has tensors but no sharding rule, or a structured op indexing an
  /// operand by a sum of loops (a convolution window; constant-0
  /// broadcasts are fine, neuron-prepare-sharding collapses them).
  static Operation *unpartitionable(func::FuncOp f) {
    Operation *found = nullptr;
    f.walk([&](Operation *op) {
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        for (AffineMap map : linalgOp.getIndexingMapsArray())
          if (!llvm::all_of(map.getResults(),
                            llvm::IsaPred<AffineDimExpr, AffineConstantExpr>)) {
            found = op;
            return WalkResult::interrupt();
          }
      bool tensors =
          llvm::any_of(op->getOperandTypes(), llvm::IsaPred<TensorType>) ||
          llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>);
      if (!tensors || isa<func::ReturnOp, shard::ShardOp>(op) ||
          op->getParentOfType<linalg::LinalgOp>() ||
          isa<shard::ShardingInterface>(op) || isPositionRead(op))
        return WalkResult::advance();
      found = op;
      return WalkResult::interrupt();
    });
    return found;
  }

  void annotate(func::FuncOp f) {
    if (Operation *blocker = unpartitionable(f)) {
      if (summary)
        f.emitRemark() << "neuron-annotate-tensor-parallel: kept whole: '"
                       << blocker->getName() << "' "
                       << (isa<linalg::LinalgOp>(blocker)
                               ? "indexes an operand by a sum of loops (a "
                                 "window), which upstream shard cannot "
                                 "partition"
                               : "has no sharding rule in upstream shard, so "
                                 "the function cannot be partitioned");
      return;
    }
    // Values computed from a split activation, and among them those known
    // to be split along their last dimension (a column-parallel product and
    // what elementwise ops make of it; head reshapes and transposes move
    // the split elsewhere).
    DenseSet<Value> split, lastSplit;
    // KV caches written from the split activation, by the dimension each
    // is split along.
    DenseMap<Value, int64_t> caches;
    int64_t columnParallel = 0, rowParallel = 0, cacheCount = 0;
    SmallVector<std::string> kept;
    f.walk([&](Operation *op) {
      if (auto matmul = dyn_cast<linalg::MatmulOp>(op)) {
        Value lhs = matmul.getDpsInputs()[0], rhs = matmul.getDpsInputs()[1];
        if (matmul.hasUserDefinedMaps()) {
          kept.push_back("a matmul with transposed operands");
          return;
        }
        bool row = split.contains(lhs);
        int64_t dim = row ? 0 : 1;
        std::optional<std::pair<OpOperand *, int64_t>> weight =
            weightUse(matmul->getOpOperand(1), dim);
        if (!weight) {
          kept.push_back("a matmul whose right operand is not a weight");
          return;
        }
        if (!divides(rhs, dim)) {
          kept.push_back(row ? "a row-parallel weight whose rows the cores "
                               "do not divide"
                             : "a column-parallel weight whose columns the "
                               "cores do not divide");
          return;
        }
        // Fewer heads than cores (a grouped-query attention's K and V):
        // every core computes them all, and takes the heads its query
        // heads read.
        if (!row && !keepsWholeHeads(matmul.getResult(0))) {
          kept.push_back("a projection to fewer heads than cores (its heads "
                         "replicated on every core)");
          return;
        }
        annotateOperand(*weight->first, weight->second, /*forUsers=*/false);
        untieInit(matmul);
        if (row) {
          ++rowParallel;
        } else {
          split.insert(matmul.getResult(0));
          lastSplit.insert(matmul.getResult(0));
          ++columnParallel;
        }
        return;
      }
      // Whatever is computed from the split activation (elementwise ops,
      // head reshapes and transposes, the attention between them) stays
      // split until a row-parallel matmul contracts it.
      if (!llvm::any_of(op->getOperands(),
                        [&](Value v) { return split.contains(v); }))
        return;
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
        if (std::optional<int64_t> dim = cacheSplit(insert)) {
          annotateOperand(insert.getDestMutable(), *dim, /*forUsers=*/false);
          caches[insert.getResult()] = *dim;
          ++cacheCount;
        }
      for (Value result : op->getResults())
        split.insert(result);
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic || isTranspose(generic) || generic.getNumResults() != 1 ||
          generic.getNumParallelLoops() != generic.getNumLoops())
        return;
      // An elementwise op on a value split along its last dimension: its
      // result is split alike, and so are the weights it reads along that
      // loop, such as biases.
      auto identity = [&](OpOperand *operand) {
        return generic.getMatchingIndexingMap(operand).isIdentity();
      };
      if (!identity(generic.getDpsInitOperand(0)) ||
          llvm::none_of(generic.getDpsInputOperands(), [&](OpOperand *in) {
            return lastSplit.contains(in->get()) && identity(in);
          }))
        return;
      lastSplit.insert(generic.getResult(0));
      unsigned lastLoop = generic.getNumLoops() - 1;
      for (OpOperand *input : generic.getDpsInputOperands()) {
        Value v = input->get();
        if (split.contains(v) || !isWeight(v) ||
            !isa<RankedTensorType>(v.getType()))
          continue;
        AffineMap map = generic.getMatchingIndexingMap(input);
        for (unsigned r = 0; r < map.getNumResults(); ++r)
          if (map.getResult(r) == getAffineDimExpr(lastLoop, f.getContext()) &&
              divides(v, r))
            annotateOperand(*input, r, /*forUsers=*/false);
      }
    });
    // Results whole on every core, but the caches: each core keeps its
    // part.
    Operation *ret = f.getBody().back().getTerminator();
    for (OpOperand &result : ret->getOpOperands())
      if (isa<RankedTensorType>(result.get().getType()) &&
          (columnParallel || rowParallel))
        annotateOperand(result, caches.lookup_or(result.get(), -1),
                        /*forUsers=*/true);
    if (summary) {
      InFlightDiagnostic remark =
          f.emitRemark() << "neuron-annotate-tensor-parallel: "
                         << columnParallel << " column-parallel and "
                         << rowParallel << " row-parallel projections over "
                         << int64_t(cores) << " cores";
      if (cacheCount)
        remark << "; " << cacheCount << " caches split where they are written";
      if (!kept.empty()) {
        remark << "; kept whole: ";
        llvm::interleaveComma(kept, remark);
      }
    }
  }
};

} // namespace
