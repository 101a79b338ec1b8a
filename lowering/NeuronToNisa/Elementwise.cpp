//===- Elementwise.cpp - Elementwise ops and fusions ----------------------===//
//
// Unary ops and casts run on the scalar engine, binary ops, comparisons
// and select on the vector engine, every operand seen as the same
// [rows, columns] view (elementwiseView), tiled by partitions and by the
// SBUF budget per partition: one loop nest of load, compute, store. A
// fusion computes its chain tile by tile, intermediates staying in SBUF; a
// fusion led by a matmul or a convolution computes its chain on each
// output tile of the producer (Matmul.cpp, Convolution.cpp). A tensor one
// tile holds takes as many partitions as the cost model times shortest.
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace mlir::neuron;

namespace {

/// Any elementwise neuron op: a nest over [rows, columns] tiles.
struct ElementwiseToTiles : ConversionPattern {
  ElementwiseToTiles(const TypeConverter &converter, MLIRContext *context,
                     KernelLowering &k)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context),
        k(k) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<NeuronDialect>(op->getDialect()) ||
        !(isa<CompareOp, SelectOp>(op) || activationOf(op) || aluOf(op)))
      return rewriter.notifyMatchFailure(op, "not elementwise");
    Location loc = op->getLoc();
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t p = k.partitions();
    int64_t widest = type.getElementTypeBitWidth();
    for (Value v : op->getOperands())
      widest = std::max<int64_t>(
          widest,
          cast<RankedTensorType>(v.getType()).getElementTypeBitWidth());
    // Operands read as immediates are not loaded (a null input).
    SmallVector<Value> inputs;
    for (auto [use, v] : llvm::zip(op->getOpOperands(), operands))
      inputs.push_back(immediateOf(use) ? Value() : v);
    auto [rows, cols] = elementwiseView(
        k, type, widest, llvm::count_if(inputs, [](Value v) { return bool(v); }) + 1,
        1);
    int64_t tileCols = std::max<int64_t>(
        1, std::min(cols, k.config.elementwiseBytes * 8 / widest));
    for (Value &in : inputs)
      if (in)
        in = KernelLowering::reinterpret(rewriter, loc, in, {rows, cols});
    Value out = k.resultBuffer(rewriter, op->getResult(0));
    Value outView = KernelLowering::reinterpret(rewriter, loc, out, {rows, cols});
    Value first;
    KernelLowering::forEachTile(
        rewriter, loc, {{rows, p}, {cols, tileCols}},
        [&](OpBuilder &b, const TilePosition &at) {
          SmallVector<Value> tiles;
          for (Value in : inputs) {
            if (!in) {
              tiles.push_back(in);
              continue;
            }
            Type e = cast<MemRefType>(in.getType()).getElementType();
            Value t = k.tile(b, loc, nisa::MemorySpace::sbuf, at.sizes, e);
            first = first ? first : t;
            k.dma(b, loc, KernelLowering::view(b, loc, in, at.offsets, at.sizes),
                  t);
            tiles.push_back(t);
          }
          Value result = k.tile(b, loc, nisa::MemorySpace::sbuf, at.sizes,
                                type.getElementType());
          computeTile(b, k, loc, op, tiles, result);
          k.dma(b, loc, result,
                KernelLowering::view(b, loc, outView, at.offsets, at.sizes));
        });
    k.markTiling(first, op,
                 type.getNumElements() % p == 0 ? "flattened" : "rows",
                 {std::min(rows, p), tileCols});
    rewriter.replaceOp(op, out);
    return success();
  }

  KernelLowering &k;
};

/// A fusion: a chain of elementwise ops, or a matmul or a convolution and
/// the chain on its result. Inputs are read once per tile, results written once, and
/// intermediates live only in SBUF.
struct FusionToTiles : NisaPattern<FusionOp> {
  using NisaPattern::NisaPattern;

  LogicalResult
  matchAndRewrite(FusionOp fusion, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = fusion.getLoc();
    Block &body = fusion.getBody().front();
    Epilogue epilogue;
    for (auto [arg, input] :
         llvm::zip(body.getArguments(), adaptor.getInputs()))
      epilogue.inputs[arg] = input;
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Value> results;
    for (auto [inner, outer] :
         llvm::zip(yield.getValues(), fusion.getResults())) {
      auto [it, added] = epilogue.stores.try_emplace(inner, Value());
      if (added)
        it->second = k.resultBuffer(rewriter, outer);
      results.push_back(it->second);
    }
    Operation *producer = nullptr;
    for (Operation &op : body.without_terminator()) {
      if (isa<BroadcastOp, ConstantOp>(op))
        continue; // read in place or as immediates by the ops using them
      if (!producer && isa<MatmulOp, BatchMatmulOp, Conv2DOp>(op)) {
        producer = &op;
        continue;
      }
      if (!activationOf(&op) && !aluOf(&op) && !isa<CompareOp, SelectOp>(op))
        return op.emitError() << "convert-neuron-to-nisa: '" << op.getName()
                              << "' cannot be computed in a fusion";
      epilogue.ops.push_back(&op);
    }
    if (producer) {
      // Fused, the product reaches HBM only if the fusion returns it.
      Value lhs = epilogue.inputs.lookup(producer->getOperand(0)),
            rhs = epilogue.inputs.lookup(producer->getOperand(1)),
            out = epilogue.stores.lookup(producer->getResult(0));
      if (!lhs || !rhs)
        return producer->emitError()
               << "convert-neuron-to-nisa: expected the producer of a fusion "
                  "to read the fusion's inputs";
      auto conv = dyn_cast<Conv2DOp>(producer);
      LogicalResult lowered = failure();
      if (!conv)
        lowered = lowerMatmul(rewriter, k, producer, lhs, rhs, out, &epilogue,
                              fusion);
      else if (isTensorEngineConv(k, conv))
        lowered = lowerConv2D(rewriter, k, conv, lhs, rhs, out, &epilogue,
                              fusion);
      else if (isVectorEngineConv(k, conv))
        lowered = lowerDepthwise(rewriter, k, conv, lhs, rhs, out, &epilogue,
                                 fusion);
      else
        return conv.emitError() << "convert-neuron-to-nisa: only an nchw_fchw "
                                   "float convolution without bias or padding "
                                   "takes an epilogue";
      if (failed(lowered))
        return failure();
      rewriter.replaceOp(fusion, results);
      return success();
    }
    if (epilogue.ops.empty())
      return fusion.emitError() << "convert-neuron-to-nisa: empty fusion";

    // Elementwise only: the [rows, cols] view of ElementwiseToTiles, with
    // the SBUF budget shared by every tile one step keeps live.
    auto type =
        cast<RankedTensorType>(epilogue.ops.front()->getResult(0).getType());
    int64_t p = k.partitions();
    int64_t widest = 8;
    for (Operation &op : body.without_terminator())
      for (Type t : llvm::concat<const Type>(op.getOperandTypes(),
                                             op.getResultTypes()))
        widest = std::max<int64_t>(
            widest, cast<ShapedType>(t).getElementTypeBitWidth());
    // Broadcasts read in place: the split of the shape at which each reads
    // as a [rows, cols] matrix (neuron-fuse takes only such broadcasts in).
    SmallVector<SmallVector<int64_t>> broadcasts;
    for (BroadcastOp broadcast : body.getOps<BroadcastOp>())
      broadcasts.push_back(broadcastStrides(broadcast.getInput().getType(),
                                            broadcast.getType(),
                                            broadcast.getDimensions()));
    std::optional<int64_t> split;
    if (!broadcasts.empty()) {
      split = matrixSplit(type.getShape(), broadcasts,
                          type.getElementTypeBitWidth(), p);
      if (!split)
        return fusion.emitError()
               << "convert-neuron-to-nisa: the broadcasts this fusion reads "
                  "have no common [rows, columns] view, tile by tile, with "
                  "rows of 512 bytes or more (neuron-fuse materialises such a "
                  "broadcast instead)";
    }
    // Tiles of [rows, cols]: a broadcast's row dimensions merge from its
    // first `q` on (those before it are looped one index at a time, so each
    // tile's offset is linear in the loops); otherwise the flattened view.
    ArrayRef<int64_t> shape = type.getShape();
    int64_t rows, cols, q = 0;
    if (split) {
      for (ArrayRef<int64_t> view : broadcasts)
        q = std::max(q, mergedRun(shape, view, 0, *split).first);
      rows = computeProduct(shape.slice(q, *split - q));
      cols = computeProduct(shape.drop_front(*split));
    } else {
      std::tie(rows, cols) =
          elementwiseView(k, type, widest,
                          fusion.getNumOperands() + results.size(),
                          epilogue.ops.size());
    }
    int64_t liveTiles = fusion.getNumOperands() + epilogue.ops.size();
    int64_t budget =
        std::min(k.config.elementwiseBytes,
                 k.config.limits.getSbufBytes() / (2 * liveTiles + 2));
    int64_t tileCols =
        std::max<int64_t>(1, std::min(cols, budget * 8 / widest));
    SmallVector<TiledDim> dims;
    for (int64_t d = 0; d < q; ++d)
      dims.push_back({shape[d], 1});
    dims.push_back({rows, p});
    dims.push_back({cols, tileCols});
    // Tile `at` of an operand ([q looped dimensions..., rows, cols]): the
    // [rows, cols] tile of the flattened view, or with broadcasts, of the
    // buffer through its strides (a contiguous buffer's, or a broadcast's
    // read in place), its rows' and columns' merged.
    auto tileOf = [&](OpBuilder &b, Location loc, Value buffer,
                      const TilePosition &at) {
      ArrayRef<int64_t> sizes = ArrayRef(at.sizes).take_back(2);
      auto bufferType = cast<MemRefType>(buffer.getType());
      SmallVector<int64_t> strides;
      int64_t offset = 0;
      MergedRun inner, columns;
      if (split &&
          succeeded(bufferType.getStridesAndOffset(strides, offset))) {
        inner = mergedRun(shape, strides, q, *split);
        columns = mergedRun(shape, strides, *split, shape.size());
      }
      if (!split || strides.empty() || inner.first != q ||
          columns.first != *split) {
        // The buffer as contiguous: the looped dimensions' offsets count
        // whole blocks of rows.
        SmallVector<std::pair<OpFoldResult, int64_t>> row;
        for (int64_t d = 0; d < q; ++d)
          row.push_back(
              {at.offsets[d], computeProduct(shape.slice(d + 1, q - d - 1)) *
                                  rows});
        row.push_back({at.offsets[q], 1});
        return KernelLowering::view(
            b, loc,
            KernelLowering::reinterpret(
                b, loc, buffer,
                {computeProduct(shape.take_front(q)) * rows, cols}),
            {KernelLowering::affineSum(b, loc, row), at.offsets[q + 1]},
            sizes);
      }
      SmallVector<std::pair<OpFoldResult, int64_t>> terms;
      for (int64_t d = 0; d < q; ++d)
        terms.push_back({at.offsets[d], strides[d]});
      terms.push_back({at.offsets[q], inner.stride});
      terms.push_back({at.offsets[q + 1], columns.stride});
      return KernelLowering::stridedView(
          b, loc, buffer, KernelLowering::affineSum(b, loc, terms, offset),
          sizes, {inner.stride, columns.stride});
    };
    Block *block = rewriter.getInsertionBlock();
    Operation *before = rewriter.getInsertionPoint() == block->begin()
                            ? nullptr
                            : &*std::prev(rewriter.getInsertionPoint());
    KernelLowering::forEachTile(
        rewriter, loc, dims, [&](OpBuilder &b, const TilePosition &at) {
          DenseMap<Value, Value> tiles;
          applyEpilogue(b, k, loc, epilogue, tiles,
                        ArrayRef(at.sizes).take_back(2), [&](Value buffer) {
                          return tileOf(b, loc, buffer, at);
                        });
        });
    k.markTiling(firstTileAfter(block, before), fusion,
                 !split && type.getNumElements() % p == 0 ? "flattened"
                                                          : "rows",
                 {std::min(rows, p), tileCols});
    rewriter.replaceOp(fusion, results);
    return success();
  }
};

} // namespace

void mlir::neuron::populateElementwisePatterns(RewritePatternSet &patterns,
                                               const TypeConverter &converter,
                                               KernelLowering &lowering) {
  patterns.add<ElementwiseToTiles, FusionToTiles>(
      converter, patterns.getContext(), lowering);
}
