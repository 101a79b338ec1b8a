//===- Reduction.cpp - Reductions and the on-chip softmax -----------------===//
//
// Reductions put the kept dimensions on partitions and the reduced ones in
// the free dimension: the input is permuted (by DMA into scratch) so the
// reduced axes come last, viewed as [rows, cols], and each row tile is
// reduced chunk by chunk on the vector engine into a per-partition value,
// the first chunk's result starting it. Softmax along the last axis keeps a
// row tile on chip from its load to its store.
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
    int64_t tileCols = std::max<int64_t>(
        1, std::min(cols, k.config.elementwiseBytes * 8 /
                              inputType.getElementTypeBitWidth()));
    auto aluAttr = nisa::AluOpAttr::get(rewriter.getContext(), alu);
    Value first;
    KernelLowering::forEachTile(
        rewriter, loc, {{rows, p}}, [&](OpBuilder &b, const TilePosition &row) {
          int64_t rt = row.sizes[0];
          // Reduces the chunk at `col` into `into`.
          auto reduceChunk = [&](OpBuilder &b, const TilePosition &col,
                                 Value into) {
            Value t = k.tile(b, loc, nisa::MemorySpace::sbuf,
                             {rt, col.sizes[0]}, inputType.getElementType());
            first = first ? first : t;
            k.dma(b, loc,
                  KernelLowering::view(b, loc, in,
                                       {row.offsets[0], col.offsets[0]},
                                       {rt, col.sizes[0]}),
                  t);
            nisa::TensorReduceOp::create(b, loc, t, into, aluAttr);
          };
          Value acc = k.tile(b, loc, nisa::MemorySpace::sbuf, {rt, 1}, element);
          int64_t firstCols = std::min(tileCols, cols);
          TilePosition head;
          head.offsets = {b.getIndexAttr(0)};
          head.sizes = {firstCols};
          reduceChunk(b, head, acc);
          KernelLowering::forEachTile(
              b, loc, {{cols - firstCols, tileCols, firstCols}},
              [&](OpBuilder &b, const TilePosition &col) {
                Value part =
                    k.tile(b, loc, nisa::MemorySpace::sbuf, {rt, 1}, element);
                reduceChunk(b, col, part);
                nisa::TensorTensorOp::create(b, loc, acc, part, acc, aluAttr);
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

  nisa::AluOp alu;
};

/// Softmax along the free dimension, rows on partitions, one load and one
/// store per row tile: m = max(x); e = exp(x - m); s = sum(e); then
/// y = exp(x - m - ln s), the scalar engine's per-partition bias carrying
/// the row's shift both times, and writing y in the result's type.
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
          Value logSum = tile(1, f32);
          k.activation(b, loc, sum, logSum, nisa::ActivationFunction::log);
          Value bias = tile(1, f32);
          nisa::TensorTensorOp::create(b, loc, shift, logSum, bias,
                                       alu(nisa::AluOp::subtract));
          Value y = tile(cols, result);
          nisa::ActivationOp::create(b, loc, x, y, bias,
                                     fn(nisa::ActivationFunction::exp),
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
