//===- PrepareSharding.cpp - the neuron-prepare-sharding pass -------------===//
//
// Rewrites what upstream sharding propagation and partition cannot follow:
// broadcast operands indexed by a constant 0, tensors that partition
// expects annotated but propagation never annotates (arguments not used by
// exactly one shard.shard, values read from inside a region), and a decode
// step's position read as a scalar (tensor.extract has no sharding rule):
// slices at it become neuron.dynamic_slice and dynamic_update_slice, and a
// body reading it takes the position tensor as an input.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "lowering/LinalgToNeuron/LinalgToNeuron.h"
#include "lowering/LinalgToNeuron/Utils.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <functional>
#include <limits>
#include <numeric>

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONPREPARESHARDING
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;

namespace {

/// Whether result `r` of `map` is the constant 0 over a unit dimension.
bool isBroadcastUnit(AffineMap map, RankedTensorType type, unsigned r) {
  auto c = dyn_cast<AffineConstantExpr>(map.getResult(r));
  return c && c.getValue() == 0 && type.getDimSize(r) == 1;
}

/// How to collapse the constant-0 unit dimensions of an operand indexed by
/// `map`: the reassociation groups (each kept dimension takes the dropped
/// ones before it; dropped ones after the last kept join the last group)
/// and the map without the constants. None when there is nothing to drop,
/// or nothing would be left.
struct Collapse {
  SmallVector<ReassociationIndices> groups;
  AffineMap map;
};
std::optional<Collapse> collapseOf(AffineMap map, RankedTensorType type) {
  Collapse c;
  SmallVector<AffineExpr> kept;
  ReassociationIndices pending;
  for (unsigned r = 0; r < map.getNumResults(); ++r) {
    pending.push_back(r);
    if (isBroadcastUnit(map, type, r))
      continue;
    kept.push_back(map.getResult(r));
    c.groups.push_back(std::move(pending));
    pending.clear();
  }
  if (c.groups.empty() || kept.size() == map.getNumResults())
    return std::nullopt;
  llvm::append_range(c.groups.back(), pending);
  c.map = AffineMap::get(map.getNumDims(), 0, kept, map.getContext());
  return c;
}

/// Collapses `op`'s constant-0 unit dimensions out of its operands. An init
/// changes the op's result type, so the op is rebuilt and its collapsed
/// results expanded back for their users. Returns how many operands
/// changed.
int64_t collapseBroadcastUnits(linalg::GenericOp op, RewriterBase &rewriter) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> operands(op->getOperands());
  SmallVector<std::optional<Collapse>> initCollapse(op.getNumDpsInits());
  int64_t collapsed = 0;
  rewriter.setInsertionPoint(op);
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!type)
      continue;
    std::optional<Collapse> c =
        collapseOf(op.getMatchingIndexingMap(&operand), type);
    if (!c)
      continue;
    unsigned n = operand.getOperandNumber();
    operands[n] = tensor::CollapseShapeOp::create(rewriter, op.getLoc(),
                                                  operand.get(), c->groups);
    maps[n] = c->map;
    if (op.isDpsInit(&operand))
      initCollapse[n - op.getNumDpsInputs()] = std::move(c);
    ++collapsed;
  }
  if (!collapsed)
    return 0;
  ValueRange inits = ValueRange(operands).drop_front(op.getNumDpsInputs());
  auto rebuilt = linalg::GenericOp::create(
      rewriter, op.getLoc(), inits.getTypes(),
      ValueRange(operands).take_front(op.getNumDpsInputs()), inits, maps,
      op.getIteratorTypesArray());
  rebuilt->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), rebuilt.getRegion(),
                              rebuilt.getRegion().end());
  SmallVector<Value> results(rebuilt.getResults());
  for (auto [i, c] : llvm::enumerate(initCollapse))
    if (c)
      results[i] = tensor::ExpandShapeOp::create(
          rewriter, op.getLoc(), op->getResult(i).getType(), results[i],
          c->groups);
  rewriter.replaceOp(op, results);
  return collapsed;
}

/// The scalars `op`'s body reads from outside that are a position read at
/// run time (positionTensor), with the one-element tensor each is read
/// from.
SmallVector<std::pair<Value, Value>> capturedPositions(linalg::GenericOp op) {
  llvm::SetVector<Value> read;
  getUsedValuesDefinedAbove(op.getRegion(), read);
  SmallVector<std::pair<Value, Value>> positions;
  for (Value v : read)
    if (!isa<TensorType>(v.getType()))
      if (Value tensor = neuron::positionTensor(v))
        positions.emplace_back(v, tensor);
  return positions;
}

/// `op` rebuilt with `extra` inputs after its own, each read through its
/// map in `maps`, its region moved over and a block argument (of the
/// input's element type) added for each; the arguments are returned. `op`
/// is left for the caller to replace.
std::pair<linalg::GenericOp, SmallVector<Value>>
withInputs(linalg::GenericOp op, ValueRange extra, ArrayRef<AffineMap> maps,
           RewriterBase &rewriter) {
  SmallVector<Value> inputs(op.getDpsInputs());
  SmallVector<AffineMap> allMaps(op.getIndexingMapsArray());
  unsigned first = inputs.size();
  inputs.append(extra.begin(), extra.end());
  allMaps.insert(allMaps.begin() + first, maps.begin(), maps.end());
  rewriter.setInsertionPoint(op);
  auto rebuilt = linalg::GenericOp::create(
      rewriter, op.getLoc(), op->getResultTypes(), inputs, op.getDpsInits(),
      allMaps, op.getIteratorTypesArray());
  rebuilt->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  rewriter.inlineRegionBefore(op.getRegion(), rebuilt.getRegion(),
                              rebuilt.getRegion().end());
  Block &body = rebuilt.getRegion().front();
  SmallVector<Value> args;
  for (auto [i, v] : llvm::enumerate(extra))
    args.push_back(body.insertArgument(first + i, getElementTypeOrSelf(v),
                                       op.getLoc()));
  return {rebuilt, args};
}

/// Makes each position `op`'s body reads from outside an input of `op`:
/// the one-element tensor, read whole by every loop, with the casts that
/// made the scalar repeated on its block argument. Returns whether `op`
/// changed.
bool positionsAsInputs(linalg::GenericOp op, RewriterBase &rewriter) {
  SmallVector<std::pair<Value, Value>> positions = capturedPositions(op);
  if (positions.empty())
    return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<Value> tensors;
  SmallVector<AffineMap> maps;
  for (auto [scalar, tensor] : positions) {
    auto type = cast<RankedTensorType>(tensor.getType());
    tensors.push_back(tensor);
    SmallVector<AffineExpr> zeros(type.getRank(),
                                  getAffineConstantExpr(0, ctx));
    maps.push_back(AffineMap::get(op.getNumLoops(), 0, zeros, ctx));
  }
  auto built = withInputs(op, tensors, maps, rewriter);
  linalg::GenericOp rebuilt = built.first;
  SmallVector<Value> &args = built.second;
  rewriter.setInsertionPointToStart(&rebuilt.getRegion().front());
  for (auto [position, arg] : llvm::zip(positions, args)) {
    Value scalar = position.first;
    // The casts from the element to the scalar, repeated on the argument.
    IRMapping mapping;
    Value local = arg;
    for (Operation *cast : llvm::reverse(neuron::integerCasts(scalar))) {
      mapping.map(cast->getOperand(0), local);
      local = rewriter.clone(*cast, mapping)->getResult(0);
    }
    rewriter.replaceUsesWithIf(scalar, local, [&](OpOperand &use) {
      return rebuilt->isProperAncestor(use.getOwner());
    });
  }
  rewriter.replaceOp(op, rebuilt->getResults());
  return true;
}

/// Makes each loop index `op`'s body reads (`linalg.index`, a mask's row
/// and column) an input: an i32 iota along that loop, which partition
/// slices with the loop, so a core's part sees the global indices. An
/// unsigned comparison of two indices becomes the signed one (indices are
/// never negative). Only indices the body compares (masks) are made
/// inputs. Returns whether `op` changed; other uses of an index (a gather's
/// column), a loop of dynamic size or beyond i32 leave it as it is (its
/// results are then replicated).
bool indicesAsInputs(linalg::GenericOp op, RewriterBase &rewriter) {
  SmallVector<linalg::IndexOp> reads;
  op.getRegion().walk([&](linalg::IndexOp index) { reads.push_back(index); });
  if (reads.empty())
    return false;
  // Every use, through integer casts, a comparison.
  std::function<bool(Value)> compared = [&](Value v) {
    return llvm::all_of(v.getUsers(), [&](Operation *user) {
      if (isa<arith::CmpIOp>(user))
        return true;
      return isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                 arith::ExtUIOp, arith::TruncIOp>(user) &&
             compared(user->getResult(0));
    });
  };
  if (!llvm::all_of(reads, [&](linalg::IndexOp index) {
        return compared(index.getResult());
      }))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  llvm::SetVector<unsigned> dims;
  for (linalg::IndexOp index : reads) {
    int64_t n = ranges[index.getDim()];
    if (ShapedType::isDynamic(n) || n > std::numeric_limits<int32_t>::max())
      return false;
    dims.insert(index.getDim());
  }
  MLIRContext *ctx = op.getContext();
  Type i32 = rewriter.getI32Type();
  SmallVector<Value> iotas;
  SmallVector<AffineMap> maps;
  rewriter.setInsertionPoint(op);
  for (unsigned d : dims) {
    SmallVector<int32_t> iota(ranges[d]);
    std::iota(iota.begin(), iota.end(), 0);
    auto type = RankedTensorType::get({ranges[d]}, i32);
    iotas.push_back(neuron::ConstantOp::create(
        rewriter, op.getLoc(), type,
        DenseElementsAttr::get(type, ArrayRef(iota))));
    maps.push_back(
        AffineMap::get(op.getNumLoops(), 0, getAffineDimExpr(d, ctx)));
  }
  auto built = withInputs(op, iotas, maps, rewriter);
  linalg::GenericOp rebuilt = built.first;
  SmallVector<Value> &args = built.second;
  auto isIndexValue = [](Value v) {
    return bool(neuron::stripIntegerCasts(v).getDefiningOp<linalg::IndexOp>());
  };
  rebuilt.getRegion().walk([&](arith::CmpIOp cmp) {
    if (!isIndexValue(cmp.getLhs()) || !isIndexValue(cmp.getRhs()))
      return;
    std::optional<arith::CmpIPredicate> asSigned;
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::ult:
      asSigned = arith::CmpIPredicate::slt;
      break;
    case arith::CmpIPredicate::ule:
      asSigned = arith::CmpIPredicate::sle;
      break;
    case arith::CmpIPredicate::ugt:
      asSigned = arith::CmpIPredicate::sgt;
      break;
    case arith::CmpIPredicate::uge:
      asSigned = arith::CmpIPredicate::sge;
      break;
    default:
      break;
    }
    if (asSigned)
      rewriter.modifyOpInPlace(cmp, [&] { cmp.setPredicate(*asSigned); });
  });
  for (linalg::IndexOp index : reads) {
    rewriter.setInsertionPoint(index);
    size_t at = llvm::find(dims, index.getDim()) - dims.begin();
    rewriter.replaceOpWithNewOp<arith::IndexCastOp>(
        index, rewriter.getIndexType(), args[at]);
  }
  rewriter.replaceOp(op, rebuilt->getResults());
  return true;
}

/// A tensor partition needs annotated: rank 1 or more.
bool needsAnnotation(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() > 0;
}

/// Whether neuron.constant takes a value of `type`: a ranked tensor of a
/// neuron compute element type, i1 or i64 (others, such as index or f64
/// shape constants, stay arith.constant).
bool holdsNeuronConstant(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return false;
  Type e = tensor.getElementType();
  if (auto i = dyn_cast<IntegerType>(e))
    return llvm::is_contained({1u, 8u, 32u, 64u}, i.getWidth()) &&
           i.isSignless();
  return isa<Float32Type, BFloat16Type, Float16Type, Float8E4M3FNType,
             Float8E5M2Type>(e);
}

/// Whether `v`'s one use is its annotation, as partition requires of
/// arguments and of values it cannot see the users of.
bool annotated(Value v) {
  return v.hasOneUse() && isa<shard::ShardOp>(*v.user_begin());
}

struct NeuronPrepareShardingPass
    : neuron::impl::NeuronPrepareShardingBase<NeuronPrepareShardingPass> {
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    FailureOr<FlatSymbolRefAttr> grid = gridOf(f);
    if (failed(grid))
      return signalPassFailure();
    if (!*grid)
      return;
    // Accumulators are untied first: a collapsed init reads its constant
    // through a reshape. Rewritten op by op: a greedy driver would also
    // fold and merge constants, tying them together again.
    IRRewriter rewriter(&getContext());
    rewriteConstants(f, rewriter);
    untieEmpties(f, rewriter);
    preparePositions(f, rewriter);
    for (auto op : llvm::to_vector(f.getOps<linalg::GenericOp>()))
      numCollapsed += collapseBroadcastUnits(op, rewriter);
    replicateUnannotatable(f, *grid);
  }

  /// Leaves no scalar read of a position for propagation to meet: slices
  /// at it become neuron ops taking the position tensor, bodies reading it
  /// take the tensor as an input, and the reads left unused go.
  void preparePositions(func::FuncOp f, RewriterBase &rewriter) {
    RewritePatternSet patterns(&getContext());
    neuron::populateDynamicSlicePatterns(patterns);
    walkAndApplyPatterns(f, std::move(patterns));
    for (auto op : llvm::to_vector(f.getOps<linalg::GenericOp>()))
      numPositions += positionsAsInputs(op, rewriter);
    for (auto op : llvm::to_vector(f.getOps<linalg::GenericOp>()))
      numIndices += indicesAsInputs(op, rewriter);
    // Users come after their operands: in reverse, a read's casts go first.
    Block &entry = f.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(entry)))
      if (op.use_empty() &&
          isa<tensor::ExtractOp, arith::IndexCastOp, arith::ExtSIOp>(op))
        rewriter.eraseOp(&op);
  }

  /// Gives every user of a shared tensor.empty its own: the users may be
  /// sharded differently, and one shared value would be resharded between
  /// them (a gather of garbage).
  void untieEmpties(func::FuncOp f, RewriterBase &rewriter) {
    f.walk([&](tensor::EmptyOp empty) {
      for (OpOperand &use :
           llvm::make_early_inc_range(llvm::drop_begin(empty->getUses()))) {
        rewriter.setInsertionPoint(use.getOwner());
        use.set(rewriter.clone(*empty)->getResult(0));
        ++numEmpties;
      }
    });
  }

  void rewriteConstants(func::FuncOp f, RewriterBase &rewriter) {
    f.walk([&](arith::ConstantOp c) {
      // Dense or resource-backed (weights an exporter elided or stored
      // apart): partition copies only dense splats correctly.
      auto value = dyn_cast<ElementsAttr>(c.getValue());
      if (!value || c->getParentOp() != f)
        return;
      if (!value.isSplat()) {
        if (!holdsNeuronConstant(value.getType()))
          return;
        // Annotated replicated below: every core holds it whole.
        rewriter.setInsertionPoint(c);
        rewriter.replaceOpWithNewOp<neuron::ConstantOp>(c, value);
        ++numConstants;
        return;
      }
      // A splat accumulator (tosa-to-linalg's zero init of a matmul): the
      // constant's sharding rule only copies a sharding its users already
      // fixed, so it would pin the product replicated. Each structured
      // user gets its own fill, which takes the sharding of the product.
      for (OpOperand &use : llvm::make_early_inc_range(c->getUses())) {
        auto user = dyn_cast<linalg::LinalgOp>(use.getOwner());
        if (!user || !user.isDpsInit(&use))
          continue;
        rewriter.setInsertionPoint(user);
        Value empty = tensor::EmptyOp::create(
            rewriter, c.getLoc(), value.getShapedType().getShape(),
            value.getElementType());
        Value scalar = arith::ConstantOp::create(
            rewriter, c.getLoc(), value.getSplatValue<TypedAttr>());
        use.set(linalg::FillOp::create(rewriter, c.getLoc(), scalar, empty)
                    .getResult(0));
        ++numFills;
      }
      // Partition refuses (silently) a constant no user gives a sharding.
      if (c->use_empty())
        rewriter.eraseOp(c);
    });
  }

  /// The grid `f`'s shardings name; null when it has none.
  static FailureOr<FlatSymbolRefAttr> gridOf(func::FuncOp f) {
    FlatSymbolRefAttr grid;
    WalkResult walk = f.walk([&](shard::ShardingOp sharding) {
      if (grid && sharding.getGridAttr() != grid) {
        sharding.emitError() << "neuron-prepare-sharding: the function is "
                                "sharded over both "
                             << grid << " and " << sharding.getGridAttr()
                             << "; one grid per function is supported";
        return WalkResult::interrupt();
      }
      grid = sharding.getGridAttr();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    return grid;
  }

  void replicateUnannotatable(func::FuncOp f, FlatSymbolRefAttr grid) {
    Block &entry = f.getBody().front();
    OpBuilder builder(&getContext());
    shard::ShardingOp replicated;
    // Annotates `v` as replicated and makes `uses` read the annotation.
    auto replicate = [&](Value v, ArrayRef<OpOperand *> uses) {
      if (!replicated) {
        builder.setInsertionPointToStart(&entry);
        replicated = shard::ShardingOp::create(
            builder, f.getLoc(), grid,
            ArrayRef<shard::GridAxesAttr>{
                shard::GridAxesAttr::get(&getContext(), {})});
      }
      if (isa<BlockArgument>(v))
        builder.setInsertionPointAfter(replicated);
      else
        builder.setInsertionPointAfter(v.getDefiningOp());
      auto annotated = shard::ShardOp::create(builder, v.getLoc(), v,
                                              replicated, /*annotate_for_users=*/false);
      for (OpOperand *use : uses)
        use->set(annotated);
      ++numReplicated;
    };
    auto allUses = [](Value v) {
      return llvm::to_vector(llvm::make_pointer_range(v.getUses()));
    };
    for (BlockArgument arg : entry.getArguments())
      if (needsAnnotation(arg) && !annotated(arg))
        replicate(arg, allUses(arg));
    // neuron.constant has no sharding rule: propagation leaves it alone.
    for (auto constant :
         llvm::make_early_inc_range(entry.getOps<neuron::ConstantOp>()))
      replicate(constant, allUses(constant));
    // Tensors read from inside an op's regions, defined outside the op;
    // and the results of ops whose bodies index the iteration space or
    // read such tensors: a core's part of their loops would see its local
    // indices, not the global ones the body means.
    llvm::SetVector<Value> captured;
    for (Operation &op : entry.without_terminator()) {
      if (!op.getNumRegions())
        continue;
      llvm::SetVector<Value> read;
      getUsedValuesDefinedAbove(op.getRegions(), read);
      captured.insert(read.begin(), read.end());
      bool indexes = false;
      op.walk([&](linalg::IndexOp) { indexes = true; });
      if (!indexes && llvm::none_of(read, needsAnnotation))
        continue;
      for (Value result : op.getResults())
        if (needsAnnotation(result))
          replicate(result, allUses(result));
    }
    for (Value v : captured)
      if (needsAnnotation(v) && !annotated(v) &&
          !v.getDefiningOp<shard::ShardOp>())
        replicate(v, allUses(v));
  }
};

} // namespace
