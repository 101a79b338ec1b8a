//===- Reduction.cpp - Reductions and the on-chip softmax -----------------===//
//
// Reductions put the kept dimensions on partitions and the reduced ones in
// the free dimension: the input is permuted (by DMA into scratch) so the
// reduced axes come last, viewed as [rows, cols], and each row tile is
// reduced chunk by chunk on the vector engine into a per-partition value,
// the first chunk's result starting it; few long rows instead spread each
// row's columns in runs over the partitions, the runs' partials meeting on
// the row's partition through HBM. Axes reduced ahead of kept inner
// ones (an NHWC image's pixels, summed per channel) are reduced in place
// instead: [outer, reduced, inner], the inner elements across partitions
// and the free dimension, the reduced slices added elementwise. Softmax
// along the last axis keeps a row tile on chip from its load to its store.
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"
#include "passes/KernelGraph.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "llvm/ADT/Sequence.h"


using namespace mlir;
using namespace mlir::neuron;

namespace {

template <typename Op>
struct ReductionToTiles : NisaPattern<Op> {
  ReductionToTiles(const TypeConverter &converter, MLIRContext *context,
                   KernelLowering &k, nisa::AluOp alu)
      : NisaPattern<Op>(converter, context, k), alu(alu) {}

  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelLowering &k = this->k;
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> axes = op.getAxes();
    SmallVector<int64_t> perm, permutedShape;
    int64_t rows = 1, cols = 1;
    for (int64_t d = 0; d < inputType.getRank(); ++d)
      if (!llvm::is_contained(axes, d)) {
        perm.push_back(d);
        rows *= inputType.getDimSize(d);
      }
    for (int64_t d : axes) {
      perm.push_back(d);
      cols *= inputType.getDimSize(d);
    }
    for (int64_t d : perm)
      permutedShape.push_back(inputType.getDimSize(d));
    // Elements a partition's chunk holds.
    int64_t chunk =
        std::max<int64_t>(1, k.config.elementwiseBytes * 8 /
                                 inputType.getElementTypeBitWidth());
    int64_t tileCols = std::min(cols, chunk);
    if (succeeded(reduceAheadOfInner(rewriter, op, adaptor.getInput(), chunk)))
      return success();
    Value source = adaptor.getInput();
    if (!llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()))) {
      Value scratch = memref::AllocOp::create(
          rewriter, loc, hbmType(inputType.clone(permutedShape)));
      k.dma(rewriter, loc,
            KernelLowering::permutedView(rewriter, loc, source, perm), scratch);
      source = scratch;
    }
    Value in = KernelLowering::reinterpret(rewriter, loc, source, {rows, cols});
    Value out = k.resultBuffer(rewriter, op.getResult());
    Value outView = KernelLowering::reinterpret(rewriter, loc, out, {rows, 1});
    Type element = resultType.getElementType();
    int64_t p = k.partitions();
    auto aluAttr = nisa::AluOpAttr::get(rewriter.getContext(), alu);
    if (int64_t runs = runsPerRow(rows, cols, inputType.getElementType(),
                                  element, chunk)) {
      Value first = reduceInRuns(rewriter, loc, in, outView, rows, cols, runs,
                                 inputType.getElementType(), element, chunk);
      k.markTiling(first, op, "kept dims x runs of each row",
                   {p, std::min(cols / runs, chunk)});
      rewriter.replaceOp(op, out);
      return success();
    }
    Value first;
    KernelLowering::forEachTile(
        rewriter, loc, {{rows, p}}, [&](OpBuilder &b, const TilePosition &row) {
          int64_t rt = row.sizes[0];
          Value acc = k.tile(b, loc, nisa::MemorySpace::sbuf, {rt, 1}, element);
          reduceChunks(b, loc, acc, cols, tileCols,
                       [&](OpBuilder &b, OpFoldResult col, int64_t size) {
                         Value t = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                          {rt, size},
                                          inputType.getElementType());
                         first = first ? first : t;
                         k.dma(b, loc,
                               KernelLowering::view(b, loc, in,
                                                    {row.offsets[0], col},
                                                    {rt, size}),
                               t);
                         return t;
                       });
          k.dma(b, loc, acc,
                KernelLowering::view(b, loc, outView,
                                     {row.offsets[0], b.getIndexAttr(0)},
                                     {rt, 1}));
        });
    k.markTiling(first, op, "kept dims", {p, tileCols});
    rewriter.replaceOp(op, out);
    return success();
  }

  /// Reduces each partition's `n` elements into `into` [partitions, 1],
  /// chunk by chunk: the first chunk's result starts it, each later one's
  /// is combined into it. `load` brings columns [col, col + size) into a
  /// new [partitions, size] tile.
  void reduceChunks(
      OpBuilder &b, Location loc, Value into, int64_t n, int64_t chunk,
      function_ref<Value(OpBuilder &, OpFoldResult col, int64_t size)> load)
      const {
    auto type = cast<MemRefType>(into.getType());
    auto aluAttr = nisa::AluOpAttr::get(b.getContext(), alu);
    auto reduce = [&](OpBuilder &b, OpFoldResult col, int64_t size,
                      Value to) {
      nisa::TensorReduceOp::create(b, loc, load(b, col, size), to, aluAttr);
    };
    int64_t firstCols = std::min(chunk, n);
    reduce(b, b.getIndexAttr(0), firstCols, into);
    KernelLowering::forEachTile(
        b, loc, {{n - firstCols, chunk, firstCols}},
        [&](OpBuilder &b, const TilePosition &col) {
          Value part = this->k.tile(b, loc, nisa::MemorySpace::sbuf,
                                    type.getShape(), type.getElementType());
          reduce(b, col.offsets[0], col.sizes[0], part);
          nisa::TensorTensorOp::create(b, loc, into, part, into, aluAttr);
        });
  }

  /// The cost model's time for reducing `parts` partitions' `n` elements
  /// each, in chunks of `chunk` (the first starting the sums, each later
  /// one combined into them).
  double reduceNs(int64_t parts, int64_t n, Type inElement, Type element,
                  int64_t chunk) const {
    auto shape = [&](int64_t free, Type t) {
      return operandShapeOf(MemRefType::get({parts, free}, t));
    };
    double ns = 0;
    for (int64_t done = 0; done < n; done += chunk) {
      int64_t size = std::min(chunk, n - done);
      ns += this->k.costNs("tensor_reduce", shape(1, element),
                           shape(size, inElement));
      if (done > 0)
        ns += this->k.costNs("tensor_tensor", shape(1, element),
                             shape(1, element));
    }
    return ns;
  }

  /// Runs a row's columns are split into, side by side on partitions, where
  /// few long rows would leave most of the vector engine's partitions idle
  /// (a sum over all of a vector, a norm of one long row): as many as the
  /// partitions hold, where the cost model times their reductions, the
  /// partials' trip through HBM to one partition a row and their reduction
  /// there shorter than each row on its own partition. 0 otherwise.
  int64_t runsPerRow(int64_t rows, int64_t cols, Type inElement, Type element,
                     int64_t chunk) const {
    int64_t runs = this->k.partitions() / rows;
    if (runs < 2 || cols / runs < 2)
      return 0;
    int64_t q = cols / runs, tail = cols - runs * q;
    ::neuron::rt::OperandShape partials =
        operandShapeOf(MemRefType::get({rows * runs, 1}, element));
    double split = reduceNs(rows * runs, q, inElement, element, chunk) +
                   2 * this->k.costNs("dma_copy", partials, partials) +
                   reduceNs(rows, runs, element, element, chunk) +
                   (tail ? reduceNs(rows, tail, inElement, element, chunk)
                         : 0);
    return split < reduceNs(rows, cols, inElement, element, chunk) ? runs : 0;
  }

  /// Reduces `in` [rows, cols] (contiguous) into `outView` [rows, 1] with
  /// each row's first runs * q columns on `runs` partitions (partition
  /// r * runs + j holds row r's columns [j * q, (j + 1) * q)), reduced there
  /// chunk by chunk; the partials stored to HBM scratch and loaded back as
  /// [rows, runs], reduced again; a tail of fewer than `runs` columns
  /// reduced on the row's partition and combined. Returns the first tile.
  Value reduceInRuns(OpBuilder &b, Location loc, Value in, Value outView,
                     int64_t rows, int64_t cols, int64_t runs, Type inElement,
                     Type element, int64_t chunk) const {
    KernelLowering &k = this->k;
    auto aluAttr = nisa::AluOpAttr::get(b.getContext(), alu);
    int64_t q = cols / runs, tail = cols - runs * q, parts = rows * runs;
    Value first;
    // Columns [col, col + size) of every run, side by side on partitions.
    Value partial =
        k.tile(b, loc, nisa::MemorySpace::sbuf, {parts, 1}, element);
    reduceChunks(b, loc, partial, q, chunk,
                 [&](OpBuilder &b, OpFoldResult col, int64_t size) {
                   Value t = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                    {parts, size}, inElement);
                   first = first ? first : t;
                   k.dma(b, loc,
                         KernelLowering::stridedView(b, loc, in, col,
                                                     {rows, runs, size},
                                                     {cols, q, 1}),
                         t);
                   return t;
                 });
    // Each row's partials onto its own partition, through HBM.
    Value scratch = memref::AllocOp::create(
        b, loc, hbmType(RankedTensorType::get({parts}, element)));
    k.dma(b, loc, partial,
          KernelLowering::reinterpret(b, loc, scratch, {parts, 1}));
    Value gathered =
        k.tile(b, loc, nisa::MemorySpace::sbuf, {rows, runs}, element);
    k.dma(b, loc, KernelLowering::reinterpret(b, loc, scratch, {rows, runs}),
          gathered);
    Value result = k.tile(b, loc, nisa::MemorySpace::sbuf, {rows, 1}, element);
    nisa::TensorReduceOp::create(b, loc, gathered, result, aluAttr);
    if (tail) {
      Value rest =
          k.tile(b, loc, nisa::MemorySpace::sbuf, {rows, tail}, inElement);
      k.dma(b, loc,
            KernelLowering::view(b, loc, in,
                                 {b.getIndexAttr(0), b.getIndexAttr(runs * q)},
                                 {rows, tail}),
            rest);
      Value restSum =
          k.tile(b, loc, nisa::MemorySpace::sbuf, {rows, 1}, element);
      nisa::TensorReduceOp::create(b, loc, rest, restSum, aluAttr);
      nisa::TensorTensorOp::create(b, loc, result, restSum, result, aluAttr);
    }
    k.dma(b, loc, result, outView);
    return first;
  }

  /// Reduces `input` [outer, reduced, inner] (the reduced axes one group
  /// ahead of kept ones) into [outer, inner] where it stays: each tile of
  /// the inner elements, [partitions, F] of them (F dividing inner, the
  /// runs a partition reads, as the cost model weighs them), loads its
  /// reduced slices a chunk (`chunk` elements a partition) per transfer;
  /// the vector engine combines a chunk's slices in place, the last half
  /// into the first half until one is left (log2 instructions), and that
  /// into the first chunk's. Fails, creating nothing, for other
  /// reductions.
  LogicalResult reduceAheadOfInner(ConversionPatternRewriter &rewriter, Op op,
                                   Value input, int64_t chunk) const {
    KernelLowering &k = this->k;
    auto type = cast<RankedTensorType>(op.getInput().getType());
    SmallVector<int64_t> axes(op.getAxes());
    llvm::sort(axes);
    int64_t rank = type.getRank();
    if (axes.empty() || axes.back() + 1 >= rank ||
        axes.back() - axes.front() + 1 != int64_t(axes.size()) ||
        !cast<MemRefType>(input.getType()).getLayout().isIdentity())
      return failure();
    ArrayRef<int64_t> shape = type.getShape();
    int64_t outer = computeProduct(shape.take_front(axes.front())),
            reduced = computeProduct(shape.slice(axes.front(), axes.size())),
            inner = computeProduct(shape.drop_front(axes.back() + 1));
    if (reduced < 2)
      return failure();
    int64_t p = k.partitions();
    Type element = type.getElementType();
    // F: long runs keep the DMA engines' descriptors few, short ones fill
    // the partitions for the vector engine; the F (dividing inner, at most
    // half a chunk) whose busier side the cost model times shortest.
    auto slicesOf = [&](int64_t f) {
      return std::clamp<int64_t>(chunk / f, 1, reduced);
    };
    auto estimate = [&](int64_t f) {
      int64_t lanes = inner / f, pt = std::min(lanes, p),
              perChunk = slicesOf(f);
      auto shape = [&](int64_t free) {
        return operandShapeOf(MemRefType::get({pt, free}, element));
      };
      ::neuron::rt::OperandShape tile = shape(perChunk * f), hbm = tile;
      hbm.run = f;
      double vector = 0;
      for (int64_t r = perChunk; r > 1; r -= r / 2)
        vector += k.costNs("tensor_tensor", shape(r / 2 * f), shape(r / 2 * f));
      double chunks = double(llvm::divideCeil(reduced, perChunk));
      double dma =
          k.costNs("dma_copy", tile, hbm) / k.config.cost.dmaEngines();
      return double(llvm::divideCeil(lanes, p)) * chunks *
             std::max(dma, vector);
    };
    int64_t f = 1;
    double fastest = estimate(f);
    for (int64_t c = 2; c <= chunk / 2 && c <= inner; ++c) {
      if (inner % c)
        continue;
      double ns = estimate(c);
      if (ns < fastest) {
        f = c;
        fastest = ns;
      }
    }
    int64_t lanes = inner / f;
    int64_t perChunk = slicesOf(f);
    Location loc = op.getLoc();
    Value out = k.resultBuffer(rewriter, op.getResult());
    auto aluAttr = nisa::AluOpAttr::get(rewriter.getContext(), alu);
    Value first;
    KernelLowering::forEachTile(
        rewriter, loc, {{outer, 1}, {lanes, p}},
        [&](OpBuilder &b, const TilePosition &at) {
          int64_t pt = at.sizes[1];
          OpFoldResult lane =
              KernelLowering::affineSum(b, loc, {{at.offsets[1], f}});
          // Loads reduced slices [from, from + count) and combines them
          // into the tile's first; returns that slice.
          auto reduceChunk = [&](OpBuilder &b, OpFoldResult from,
                                 int64_t count) {
            Value t = k.tile(b, loc, nisa::MemorySpace::sbuf, {pt, count, f},
                             element);
            first = first ? first : t;
            k.dma(b, loc,
                  KernelLowering::stridedView(
                      b, loc, input,
                      KernelLowering::affineSum(
                          b, loc,
                          {{at.offsets[0], reduced * inner},
                           {from, inner},
                           {lane, 1}}),
                      {pt, count, f}, {f, inner, 1}),
                  t);
            auto slices = [&](int64_t start, int64_t n) {
              return KernelLowering::view(
                  b, loc, t,
                  {b.getIndexAttr(0), b.getIndexAttr(start), b.getIndexAttr(0)},
                  {pt, n, f});
            };
            for (int64_t r = count; r > 1; r -= r / 2)
              nisa::TensorTensorOp::create(b, loc, slices(0, r / 2),
                                           slices(r - r / 2, r / 2),
                                           slices(0, r / 2), aluAttr);
            return slices(0, 1);
          };
          Value acc = reduceChunk(b, b.getIndexAttr(0), perChunk);
          KernelLowering::forEachTile(
              b, loc, {{reduced - perChunk, perChunk, perChunk}},
              [&](OpBuilder &b, const TilePosition &r) {
                nisa::TensorTensorOp::create(
                    b, loc, acc, reduceChunk(b, r.offsets[0], r.sizes[0]), acc,
                    aluAttr);
              });
          k.dma(b, loc, acc,
                KernelLowering::stridedView(
                    b, loc, out,
                    KernelLowering::affineSum(
                        b, loc, {{at.offsets[0], inner}, {lane, 1}}),
                    {pt, 1, f}, {f, f, 1}));
        });
    k.markTiling(first, op, "kept inner", {p, perChunk, f});
    rewriter.replaceOp(op, out);
    return success();
  }

  nisa::AluOp alu;
};

/// Softmax along the free dimension, rows on partitions, one load and one
/// store per row tile: m = max(x); e = exp(x - m), the scalar engine's
/// per-partition bias carrying the row's shift; s = sum(e); then y = e *
/// (1 / s), the scalar engine's per-partition scale carrying each row's
/// factor, written in the result's type. (exp(x - m - ln s) with one f32
/// bias would lose ln s to the rounding of m where |m| is large: logits
/// near 1e6 are 0.0625 apart in f32.)
struct SoftmaxOnChip : NisaPattern<SoftmaxOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t cols = type.getDimSize(type.getRank() - 1);
    int64_t rows = type.getNumElements() / std::max<int64_t>(cols, 1);
    Type element = op.getInput().getType().getElementType(),
         result = type.getElementType(), f32 = rewriter.getF32Type();
    Value in = KernelLowering::reinterpret(rewriter, loc, adaptor.getInput(),
                                           {rows, cols});
    Value out = k.resultBuffer(rewriter, op.getResult());
    Value outView = KernelLowering::reinterpret(rewriter, loc, out, {rows, cols});
    auto alu = [&](nisa::AluOp a) {
      return nisa::AluOpAttr::get(rewriter.getContext(), a);
    };
    auto fn = [&](nisa::ActivationFunction f) {
      return nisa::ActivationFunctionAttr::get(rewriter.getContext(), f);
    };
    int64_t p = k.partitions();
    Value first;
    KernelLowering::forEachTile(
        rewriter, loc, {{rows, p}}, [&](OpBuilder &b, const TilePosition &at) {
          int64_t rt = at.sizes[0];
          SmallVector<OpFoldResult> offsets{at.offsets[0], b.getIndexAttr(0)};
          auto tile = [&](int64_t width, Type t) {
            return k.tile(b, loc, nisa::MemorySpace::sbuf, {rt, width}, t);
          };
          Value x = tile(cols, element);
          first = first ? first : x;
          k.dma(b, loc, KernelLowering::view(b, loc, in, offsets, {rt, cols}),
                x);
          Value max = tile(1, f32);
          nisa::TensorReduceOp::create(b, loc, x, max, alu(nisa::AluOp::max));
          Value shift = tile(1, f32);
          nisa::TensorScalarOp::create(b, loc, max, shift,
                                       alu(nisa::AluOp::multiply),
                                       b.getF64FloatAttr(-1.0));
          Value e = tile(cols, f32);
          nisa::ActivationOp::create(b, loc, x, e, shift,
                                     fn(nisa::ActivationFunction::exp),
                                     b.getF64FloatAttr(1.0));
          Value sum = tile(1, f32);
          nisa::TensorReduceOp::create(b, loc, e, sum, alu(nisa::AluOp::add));
          Value inverse = tile(1, f32);
          k.activation(b, loc, sum, inverse,
                       nisa::ActivationFunction::reciprocal);
          Value y = tile(cols, result);
          nisa::ActivationOp::create(b, loc, e, y, /*bias=*/Value(), inverse,
                                     fn(nisa::ActivationFunction::identity),
                                     b.getF64FloatAttr(1.0));
          k.dma(b, loc, y,
                KernelLowering::view(b, loc, outView, offsets, {rt, cols}));
        });
    k.markTiling(first, op, "rows", {p, cols});
    rewriter.replaceOp(op, out);
    return success();
  }
};

} // namespace

void mlir::neuron::populateReductionPatterns(RewritePatternSet &patterns,
                                             const TypeConverter &converter,
                                             KernelLowering &lowering) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ReductionToTiles<ReduceSumOp>>(converter, context, lowering,
                                              nisa::AluOp::add);
  patterns.add<ReductionToTiles<ReduceMaxOp>>(converter, context, lowering,
                                              nisa::AluOp::max);
  patterns.add<ReductionToTiles<ReduceMinOp>>(converter, context, lowering,
                                              nisa::AluOp::min);
  patterns.add<SoftmaxOnChip>(converter, context, lowering);
}
