//===- DataMovement.cpp - Constants, views, copies, pad and gather --------===//
//
// Data movement is DMA between HBM access patterns: a reshape is a new view
// of the same bytes (no instruction), a constant a global; transpose,
// broadcast, slice and concat copy through permuted, zero-stride and
// strided views; pad fills the result from one filled tile, tile by tile,
// then copies the input into its interior; gather reads rows by index on
// the GpSimd engine, index tile by index tile.
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace mlir::neuron;

namespace {

struct ConstantToGlobal : NisaPattern<ConstantOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Read only as immediates, it needs no buffer.
    if (readAsImmediates(op.getResult())) {
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOp(op, k.constantBuffer(rewriter, op));
    return success();
  }
};

struct ReshapeToView : NisaPattern<ReshapeOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // HBM buffers are contiguous: a reshape is a new view of the same bytes.
    rewriter.replaceOp(op, KernelLowering::reinterpret(
                               rewriter, op.getLoc(), adaptor.getInput(),
                               op.getType().getShape()));
    return success();
  }
};

/// Where `perm` keeps its first `batch` dimensions and rotates the rest,
/// the result's dimensions from `batch` on being the input's from `split`
/// on, then those from `batch` to `split` ([N, H, W, C] to [N, C, H, W]
/// is [0, 3, 1, 2]: batch 1, split 3), it swaps two groups of adjacent
/// dimensions: a batch of matrix transposes. Returns {batch, split}.
static std::optional<std::pair<int64_t, int64_t>>
groupSwap(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size(), batch = 0;
  while (batch < rank && perm[batch] == batch)
    ++batch;
  if (batch + 2 > rank)
    return std::nullopt;
  int64_t split = perm[batch], rotated = rank - batch;
  for (int64_t i = batch; i < rank; ++i)
    if (perm[i] != batch + (i - batch + split - batch) % rotated)
      return std::nullopt;
  return std::make_pair(batch, split);
}

/// A transpose read only by contractions is their operand's view (each
/// tile's load transposes it); one swapping two groups of trailing
/// dimensions of a floating-point tensor (groupSwap: the last two, or an
/// image's channels and pixels) goes through SBUF tile by tile
/// (loadTransposed, then a store of rows); any other is one transfer
/// between the permuted view and the result.
struct TransposeToDma : NisaPattern<TransposeOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    if (op.isOperandView()) {
      rewriter.replaceOp(op, KernelLowering::permutedView(
                                 rewriter, loc, input, op.getPermutation()));
      return success();
    }
    Value out = k.resultBuffer(rewriter, op.getResult());
    RankedTensorType type = op.getInput().getType();
    int64_t rank = type.getRank();
    ArrayRef<int64_t> perm = op.getPermutation();
    std::optional<std::pair<int64_t, int64_t>> swap = groupSwap(perm);
    if (!swap || !isa<FloatType>(type.getElementType()) ||
        !cast<MemRefType>(input.getType()).getLayout().isIdentity()) {
      k.dma(rewriter, loc,
            KernelLowering::permutedView(rewriter, loc, input, perm), out);
      rewriter.replaceOp(op, out);
      return success();
    }
    auto [batch, split] = *swap;
    ArrayRef<int64_t> shape = type.getShape();
    int64_t batches = computeProduct(shape.take_front(batch)),
            rows = computeProduct(shape.slice(batch, split - batch)),
            cols = computeProduct(shape.drop_front(split));
    SmallVector<int64_t> in{rows, cols}, res{cols, rows};
    if (batch > 0) {
      in.insert(in.begin(), batches);
      res.insert(res.begin(), batches);
    }
    Value from = KernelLowering::reinterpret(rewriter, loc, input, in);
    Value to = KernelLowering::reinterpret(rewriter, loc, out, res);
    int64_t p = k.partitions();
    KernelLowering::forEachTile(
        rewriter, loc, {{batches, 1}, {rows, p}, {cols, p}},
        [&](OpBuilder &b, const TilePosition &at) {
          OpFoldResult bi = at.offsets[0], r0 = at.offsets[1],
                       c0 = at.offsets[2];
          int64_t rt = at.sizes[1], ct = at.sizes[2];
          Value flipped = k.tile(b, loc, nisa::MemorySpace::sbuf, {ct, rt},
                                 type.getElementType());
          k.loadTransposed(
              b, loc, KernelLowering::matrixView(b, loc, from, bi, {r0, c0},
                                                 {rt, ct}),
              flipped);
          k.dma(b, loc, flipped,
                KernelLowering::matrixView(b, loc, to, bi, {c0, r0}, {ct, rt}));
        });
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// A broadcast is one transfer from the input's view with zero strides;
/// one that repeats each input value along the result's trailing
/// dimensions (per-row values, such as a norm's mean, or a mask's row
/// indices), or one value everywhere (a run-time position), would move one
/// element per descriptor that way, so it fills row tiles on chip instead
/// (KernelLowering::load) and stores them, once per index of the leading
/// dimensions it also repeats along (heads).
struct BroadcastToDma : NisaPattern<BroadcastOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value out = k.resultBuffer(rewriter, op.getResult());
    RankedTensorType input = op.getInput().getType(), result = op.getType();
    ArrayRef<int64_t> dims = op.getDimensions();
    int64_t rank = input.getRank();
    int64_t first = dims.empty() ? 0 : dims.front();
    bool identity = cast<MemRefType>(adaptor.getInput().getType())
                        .getLayout()
                        .isIdentity();
    bool perRow = rank > 0 && first + rank < result.getRank() &&
                  input.getShape() == result.getShape().slice(first, rank) &&
                  llvm::equal(dims, llvm::seq<int64_t>(first, first + rank)) &&
                  identity;
    // One value everywhere (a run-time position or length a mask compares
    // with): rows of the result's last dimension, each the value repeated.
    bool scalar = input.getNumElements() == 1 && result.getRank() > 0 &&
                  result.getNumElements() > 1 && identity;
    if (perRow || scalar) {
      int64_t rows = perRow ? input.getNumElements()
                            : result.getNumElements() /
                                  result.getShape().back();
      int64_t outer = 1;
      for (int64_t d = 0; perRow && d < first; ++d)
        outer *= result.getDimSize(d);
      int64_t cols =
          result.getNumElements() / std::max<int64_t>(rows * outer, 1);
      Value repeated = KernelLowering::stridedView(
          rewriter, loc, adaptor.getInput(), rewriter.getIndexAttr(0),
          {rows, cols}, {perRow ? 1 : 0, 0});
      Value to = KernelLowering::reinterpret(rewriter, loc, out,
                                             {outer, rows, cols});
      int64_t tileCols = std::max<int64_t>(
          1, std::min(cols, k.config.elementwiseBytes * 8 /
                                result.getElementTypeBitWidth()));
      // One filled tile per row tile, stored over all its columns, for
      // every index of the leading dimensions.
      KernelLowering::forEachTile(
          rewriter, loc, {{rows, k.partitions()}},
          [&](OpBuilder &b, const TilePosition &row) {
            int64_t rt = row.sizes[0];
            Value filled = k.load(
                b, loc,
                KernelLowering::view(b, loc, repeated,
                                     {row.offsets[0], b.getIndexAttr(0)},
                                     {rt, tileCols}));
            KernelLowering::forEachTile(
                b, loc, {{outer, 1}, {cols, tileCols}},
                [&](OpBuilder &b, const TilePosition &at) {
                  int64_t ct = at.sizes[1];
                  Value part =
                      ct == tileCols
                          ? filled
                          : KernelLowering::view(
                                b, loc, filled,
                                {b.getIndexAttr(0), b.getIndexAttr(0)},
                                {rt, ct});
                  k.dma(b, loc, part,
                        KernelLowering::matrixView(
                            b, loc, to, at.offsets[0],
                            {row.offsets[0], at.offsets[1]}, {rt, ct}));
                });
          });
      rewriter.replaceOp(op, out);
      return success();
    }
    k.dma(rewriter, loc,
          KernelLowering::broadcastView(rewriter, loc, adaptor.getInput(),
                                        op.getInput().getType(), op.getType(),
                                        op.getDimensions()),
          out);
    rewriter.replaceOp(op, out);
    return success();
  }
};

struct SliceToDma : NisaPattern<SliceOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value out = k.resultBuffer(rewriter, op.getResult());
    Value window = memref::SubViewOp::create(
        rewriter, loc, adaptor.getInput(), op.getOffsets(),
        op.getType().getShape(), op.getStrides());
    k.dma(rewriter, loc, window, out);
    rewriter.replaceOp(op, out);
    return success();
  }
};

struct ConcatToDma : NisaPattern<ConcatOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value out = k.resultBuffer(rewriter, op.getResult());
    int64_t axis = op.getAxis(), offset = 0;
    for (auto [input, buffer] :
         llvm::zip(op.getInputs(), adaptor.getInputs())) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      offsets[axis] = rewriter.getIndexAttr(offset);
      k.dma(rewriter, loc, buffer,
            KernelLowering::view(rewriter, loc, out, offsets,
                                 type.getShape()));
      offset += type.getDimSize(axis);
    }
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// A constant pad: the result filled (KernelLowering::fill), then the input
/// copied into its interior window; nothing when the input's producer
/// wrote it there (KernelLowering::resultBuffer).
struct PadToDma : NisaPattern<PadOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (Value buffer = k.paddedInPlace(op)) {
      rewriter.replaceOp(op, buffer);
      return success();
    }
    Location loc = op.getLoc();
    auto type = op.getType();
    Value out = k.resultBuffer(rewriter, op.getResult());
    Value fill = k.fill(rewriter, loc, out, type, op.getValueAttr());
    k.dma(rewriter, loc, adaptor.getInput(),
          KernelLowering::padInterior(rewriter, loc, op, out));
    auto tile = cast<MemRefType>(fill.getType()).getShape();
    k.markTiling(fill, op, "flattened", {tile[0], tile[1]});
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// gather on axis 0: the table viewed as [R, C] rows and the indices as one
/// column of N; each tile of up to `partitions` indices is loaded into SBUF
/// as [P, 1] i32, and the GpSimd engine gathers their rows, in column
/// windows of the elementwise budget, into tiles stored to the result.
struct GatherRows : NisaPattern<GatherOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType tableType = op.getInput().getType();
    RankedTensorType indexType = op.getIndices().getType();
    if (op.getAxis() != 0)
      return op.emitError() << "convert-neuron-to-nisa: only gathers on axis "
                               "0 are tiled yet, found axis "
                            << op.getAxis();
    if (!indexType.getElementType().isInteger(32))
      return op.emitError() << "convert-neuron-to-nisa: expected i32 gather "
                               "indices, found "
                            << indexType.getElementType()
                            << " (fallback=decompose narrows i64 indices)";
    int64_t rows = tableType.getDimSize(0), n = indexType.getNumElements();
    int64_t cols = rows ? tableType.getNumElements() / rows : 0;
    if (rows == 0 || cols == 0 || n == 0)
      return op.emitError() << "convert-neuron-to-nisa: expected a non-empty "
                               "table and indices";
    int64_t p = k.partitions();
    Type element = tableType.getElementType();
    int64_t tileCols = std::max<int64_t>(
        1, std::min(cols, k.config.elementwiseBytes * 8 /
                              tableType.getElementTypeBitWidth()));
    Value table = KernelLowering::reinterpret(rewriter, loc, adaptor.getInput(),
                                              {rows, cols});
    Value ids = KernelLowering::reinterpret(rewriter, loc,
                                            adaptor.getIndices(), {n, 1});
    Value out = k.resultBuffer(rewriter, op.getResult());
    Value outView = KernelLowering::reinterpret(rewriter, loc, out, {n, cols});
    Value first;
    KernelLowering::forEachTile(
        rewriter, loc, {{n, p}}, [&](OpBuilder &b, const TilePosition &row) {
          int64_t nt = row.sizes[0];
          Value idx = k.tile(b, loc, nisa::MemorySpace::sbuf, {nt, 1},
                             b.getI32Type());
          first = first ? first : idx;
          k.dma(b, loc,
                KernelLowering::view(b, loc, ids,
                                     {row.offsets[0], b.getIndexAttr(0)},
                                     {nt, 1}),
                idx);
          KernelLowering::forEachTile(
              b, loc, {{cols, tileCols}},
              [&](OpBuilder &b, const TilePosition &col) {
                int64_t ct = col.sizes[0];
                Value gathered =
                    k.tile(b, loc, nisa::MemorySpace::sbuf, {nt, ct}, element);
                Value window =
                    ct == cols ? table
                               : KernelLowering::view(
                                     b, loc, table,
                                     {b.getIndexAttr(0), col.offsets[0]},
                                     {rows, ct});
                nisa::GatherOp::create(b, loc, window, idx, gathered);
                k.dma(b, loc, gathered,
                      KernelLowering::view(b, loc, outView,
                                           {row.offsets[0], col.offsets[0]},
                                           {nt, ct}));
              });
        });
    k.markTiling(first, op, "indices", {p, tileCols});
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// The one-element i32 offset of a dynamic slice or update, loaded into
/// SBUF; an error naming `op` for another type.
static FailureOr<Value> loadOffset(KernelLowering &k, OpBuilder &b,
                                   Operation *op, Value offset,
                                   Value offsetBuffer) {
  Type element = cast<RankedTensorType>(offset.getType()).getElementType();
  if (!element.isInteger(32))
    return op->emitError() << "convert-neuron-to-nisa: expected an i32 "
                              "offset, found "
                           << element
                           << " (fallback=decompose narrows i64 offsets)";
  Location loc = op->getLoc();
  Value tile =
      k.tile(b, loc, nisa::MemorySpace::sbuf, {1, 1}, b.getI32Type());
  k.dma(b, loc, KernelLowering::reinterpret(b, loc, offsetBuffer, {1, 1}),
        tile);
  k.markTiling(tile, op, "offset", {1, 1});
  return tile;
}

/// The window of `buffer` (of `whole`'s shape) at its origin with the
/// shape of `part`: where a transfer whose start moves along the axis
/// begins.
static Value originWindow(OpBuilder &b, Location loc, Value buffer,
                          RankedTensorType whole, RankedTensorType part) {
  SmallVector<OpFoldResult> origin(whole.getRank(), b.getIndexAttr(0));
  return KernelLowering::view(b, loc, buffer, origin, part.getShape());
}

/// One transfer from `src` to `dst` whose start on the `whole` side (the
/// source when `movesSource`) moves along `axis` by the value of the SBUF
/// tile `offset`, as far as the `part` window fits: whole[axis] -
/// part[axis] positions past the first.
static void dmaAtOffset(OpBuilder &b, Location loc, Value src, Value offset,
                        Value dst, RankedTensorType whole,
                        RankedTensorType part, int64_t axis,
                        bool movesSource) {
  IntegerAttr dim = b.getI64IntegerAttr(axis);
  nisa::DmaCopyOp::create(
      b, loc, src, offset, dst, b.getI64IntegerAttr(0),
      b.getI64IntegerAttr(whole.getDimSize(axis) - part.getDimSize(axis)),
      movesSource ? dim : IntegerAttr(), movesSource ? IntegerAttr() : dim);
}

/// dynamic_slice: one transfer from the input's window at the origin into
/// the result, its source start moved along `axis` at run time, at most
/// input[axis] - result[axis] positions.
struct DynamicSliceToDma : NisaPattern<DynamicSliceOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(DynamicSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType input = op.getInput().getType(), result = op.getType();
    FailureOr<Value> offset =
        loadOffset(k, rewriter, op, op.getOffset(), adaptor.getOffset());
    if (failed(offset))
      return failure();
    Value out = k.resultBuffer(rewriter, op.getResult());
    dmaAtOffset(rewriter, loc,
                originWindow(rewriter, loc, adaptor.getInput(), input, result),
                *offset, out, input, result, op.getAxis(),
                /*movesSource=*/true);
    rewriter.replaceOp(op, out);
    return success();
  }
};

/// dynamic_update_slice: `dest` copied to the result's buffer (unless the
/// result is written in place of it), then one transfer of the update into
/// the window at the origin, its destination start moved along `axis` at
/// run time, at most dest[axis] - update[axis] positions.
struct DynamicUpdateSliceToDma : NisaPattern<DynamicUpdateSliceOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(DynamicUpdateSliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType dest = op.getDest().getType(),
                     update = op.getUpdate().getType();
    FailureOr<Value> offset =
        loadOffset(k, rewriter, op, op.getOffset(), adaptor.getOffset());
    if (failed(offset))
      return failure();
    Value out = k.resultBuffer(rewriter, op.getResult());
    if (out != adaptor.getDest())
      k.dma(rewriter, loc, adaptor.getDest(), out);
    dmaAtOffset(rewriter, loc, adaptor.getUpdate(), *offset,
                originWindow(rewriter, loc, out, dest, update), dest, update,
                op.getAxis(), /*movesSource=*/false);
    rewriter.replaceOp(op, out);
    return success();
  }
};

} // namespace

void mlir::neuron::populateDataMovementPatterns(RewritePatternSet &patterns,
                                                const TypeConverter &converter,
                                                KernelLowering &lowering) {
  patterns.add<ConstantToGlobal, ReshapeToView, TransposeToDma, BroadcastToDma,
               SliceToDma, ConcatToDma, PadToDma, GatherRows,
               DynamicSliceToDma, DynamicUpdateSliceToDma>(
      converter, patterns.getContext(), lowering);
}
