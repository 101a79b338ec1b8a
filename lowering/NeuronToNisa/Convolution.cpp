//===- Convolution.cpp - conv2d and pool2d --------------------------------===//
//
// conv2d (nchw_fchw, no bias, no padding: the import pads separately) as
// shifted matmuls: for each filter tap (kh, kw) and input-channel tile the
// stationary operand is w[f-tile, c-tile, kh, kw]^T and the moving one the
// image read at that tap's offset with the stride, [c-tile, pixels]; the
// taps and channel tiles accumulate in PSUM. Groups convolve their own
// channel ranges; a depthwise conv2d runs on the vector engine instead
// (DepthwiseOnVector). pool2d (nchw or nhwc, no padding) puts channels on
// partitions and output pixels in the free dimension; each window tap is a
// strided DMA of the image combined on the vector engine into a tile that
// starts at the operation's identity (max: -inf, sums: 0); an average then
// scales by 1 / taps. (Row blocks beside few channels, as depthwise has,
// do not pay here: a tap is one vector operation and its transfer
// dominates, and fewer, larger tiles pipeline worse.)
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::neuron;

/// Whether `op` has a form the tiler takes: nchw_fchw, float, no bias, no
/// padding (the import pads separately).
static bool isTiled(Conv2DOp op) {
  return op.getLayout() == ConvLayout::nchw_fchw && !op.getBias() &&
         llvm::all_of(op.getPadding(), [](int64_t p) { return p == 0; }) &&
         isa<FloatType>(op.getInput().getType().getElementType());
}

/// Whether `op` is depthwise (one input channel per group, any channel
/// multiplier up to the partition count): each output channel is a
/// weighted sum of its own channel's taps, which the vector engine
/// computes; on the tensor engine it would contract over one partition.
static bool isDepthwise(Conv2DOp op, int64_t partitions) {
  int64_t c = op.getInput().getType().getDimSize(1);
  int64_t f = op.getFilter().getType().getDimSize(0);
  int64_t groups = op.getGroups();
  return c == groups && f / groups <= partitions;
}

/// Calls `body(b, r0, blocks, rows)` over output rows [0, count): chunks of
/// `blocks` blocks of `rows` rows each, at most `maxBlocks` and `maxRows`,
/// the whole chunks in a loop, the rows left in smaller chunks after it.
/// The blocks of a chunk take partitions side by side (a channel tile of
/// few channels leaves room for them), its rows the free dimension.
static void forEachRowChunk(
    OpBuilder &b, Location loc, int64_t count, int64_t maxBlocks,
    int64_t maxRows,
    function_ref<void(OpBuilder &, OpFoldResult, int64_t, int64_t)> body) {
  for (int64_t first = 0; count > 0;) {
    int64_t rows = std::clamp<int64_t>(count / maxBlocks, 1, maxRows);
    int64_t blocks = std::min(maxBlocks, count / rows);
    int64_t chunk = blocks * rows, whole = count / chunk * chunk;
    KernelLowering::forEachTile(
        b, loc, {{whole, chunk}}, [&](OpBuilder &b, const TilePosition &row) {
          body(b,
               KernelLowering::affineSum(b, loc, {{row.offsets[0], 1}}, first),
               blocks, rows);
        });
    first += whole;
    count -= whole;
  }
}

namespace {

struct Conv2DToMatmuls : NisaPattern<Conv2DOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto in = op.getInput().getType(), w = op.getFilter().getType(),
         out = op.getType();
    if (!isTiled(op))
      return op.emitError() << "convert-neuron-to-nisa: only nchw_fchw "
                               "float convolutions without bias or padding "
                               "are tiled yet";
    if (isDepthwise(op, k.partitions()))
      return rewriter.notifyMatchFailure(op, "depthwise: on the vector engine");
    int64_t n = in.getDimSize(0), c = in.getDimSize(1), h = in.getDimSize(2),
            wd = in.getDimSize(3);
    int64_t f = w.getDimSize(0), kh = w.getDimSize(2), kw = w.getDimSize(3);
    int64_t oh = out.getDimSize(2), ow = out.getDimSize(3);
    int64_t groups = op.getGroups(), cg = c / groups, fg = f / groups;
    int64_t sh = op.getStrides()[0], sw = op.getStrides()[1];
    int64_t dh = op.getDilations()[0], dw = op.getDilations()[1];
    int64_t p = k.partitions();
    const nisa::LimitsAttr &limits = k.config.limits;
    int64_t tileF = limits.getStationaryFree();
    int64_t maxPixels =
        std::min(limits.getMovingFree(), limits.getPsumBankBytes() / 4);
    if (ow > maxPixels)
      return op.emitError() << "convert-neuron-to-nisa: output rows wider "
                               "than a PSUM bank are not tiled yet";
    int64_t rowsPerTile = std::max<int64_t>(1, maxPixels / ow);
    Value image = adaptor.getInput(), filter = adaptor.getFilter();
    Value result = k.resultBuffer(rewriter, op.getResult());
    Type element = in.getElementType();
    Value firstAcc;
    KernelLowering::forEachTile(
        rewriter, loc, {{n, 1}, {groups, 1}, {fg, tileF}, {oh, rowsPerTile}},
        [&](OpBuilder &b, const TilePosition &at) {
          OpFoldResult b0 = at.offsets[0], g = at.offsets[1],
                       f0 = at.offsets[2], r0 = at.offsets[3];
          int64_t ft = at.sizes[2], rt = at.sizes[3], pixels = rt * ow;
          Value acc = k.tile(b, loc, nisa::MemorySpace::psum, {ft, pixels},
                             b.getF32Type());
          firstAcc = firstAcc ? firstAcc : acc;
          KernelLowering::forEachTile(
              b, loc, {{cg, p}, {kh, 1}, {kw, 1}},
              [&](OpBuilder &b, const TilePosition &tap) {
                OpFoldResult c0 = tap.offsets[0], i = tap.offsets[1],
                             j = tap.offsets[2];
                int64_t ct = tap.sizes[0];
                // w[g * fg + f0.., g * cg + c0.., i, j] read as [c, f].
                Value stationary =
                    k.tile(b, loc, nisa::MemorySpace::sbuf, {ct, ft}, element);
                k.dma(b, loc,
                      KernelLowering::stridedView(
                          b, loc, filter,
                          KernelLowering::affineSum(
                              b, loc,
                              {{g, fg * cg * kh * kw},
                               {f0, cg * kh * kw},
                               {c0, kh * kw},
                               {i, kw},
                               {j, 1}}),
                          {ct, ft}, {kh * kw, cg * kh * kw}),
                      stationary);
                // x[b0, g * cg + c0.., (r0 + r) * sh + i * dh, q * sw + j * dw].
                Value moving = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                      {ct, pixels}, element);
                k.dma(b, loc,
                      KernelLowering::stridedView(
                          b, loc, image,
                          KernelLowering::affineSum(
                              b, loc,
                              {{b0, c * h * wd},
                               {g, cg * h * wd},
                               {c0, h * wd},
                               {r0, sh * wd},
                               {i, dh * wd},
                               {j, dw}}),
                          {ct, rt, ow}, {h * wd, sh * wd, sw}),
                      moving);
                KernelLowering::Accumulation how =
                    KernelLowering::accumulation(tap, {0, 1, 2});
                nisa::MatmulOp::create(b, loc, stationary, moving, acc,
                                       how.accumulate, how.restart);
              });
          Value evacuated = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                   {ft, pixels}, out.getElementType());
          k.activation(b, loc, acc, evacuated,
                       nisa::ActivationFunction::identity);
          k.dma(b, loc, evacuated,
                KernelLowering::stridedView(
                    b, loc, result,
                    KernelLowering::affineSum(
                        b, loc,
                        {{b0, f * oh * ow}, {g, fg * oh * ow},
                         {f0, oh * ow}, {r0, ow}}),
                    {ft, rt, ow}, {oh * ow, ow, 1}));
        });
    k.markTiling(firstAcc, op, "input channels", {p, tileF, maxPixels});
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A depthwise conv2d on the vector engine: blocks of output rows and
/// output channels share the partitions (block-major; a channel alone
/// would leave most of them idle), pixels run along the free dimension.
/// Each filter tap is a strided DMA of the image, one transfer per block
/// (so the blocks load side by side on several DMA engines), scaled by
/// that tap's weight of each partition (tensor_scalar with per-partition
/// scalars) and added into an fp32 accumulator; the weights of a tile are
/// loaded once, one row per partition.
struct DepthwiseOnVector : NisaPattern<Conv2DOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isTiled(op) || !isDepthwise(op, k.partitions()))
      return rewriter.notifyMatchFailure(op, "not a tiled depthwise conv2d");
    Location loc = op.getLoc();
    auto in = op.getInput().getType(), out = op.getType();
    int64_t n = in.getDimSize(0), h = in.getDimSize(2), wd = in.getDimSize(3);
    int64_t f = out.getDimSize(1), oh = out.getDimSize(2),
            ow = out.getDimSize(3);
    int64_t groups = op.getGroups(), fg = f / groups;
    auto filterType = op.getFilter().getType();
    int64_t kh = filterType.getDimSize(2), kw = filterType.getDimSize(3),
            taps = kh * kw;
    int64_t sh = op.getStrides()[0], sw = op.getStrides()[1];
    int64_t dh = op.getDilations()[0], dw = op.getDilations()[1];
    int64_t p = k.partitions();
    // Pixels per partition: as many fp32 sums as the elementwise tile
    // budget holds, whole rows when they fit, else columns of one row.
    int64_t maxPixels = std::max<int64_t>(1, k.config.elementwiseBytes / 4);
    Type element = in.getElementType(), f32 = rewriter.getF32Type();
    auto alu = [&](nisa::AluOp a) {
      return nisa::AluOpAttr::get(rewriter.getContext(), a);
    };
    Value image = adaptor.getInput(), filter = adaptor.getFilter();
    Value result = k.resultBuffer(rewriter, op.getResult());
    Value firstAcc;

    // One tile: output channels [g0 * fg, (g0 + gt) * fg) of image b0,
    // columns [q0, q0 + cols), and `blocks` blocks of `rows` rows from
    // output row `r0`; partition (block, channel).
    auto computeTile = [&](OpBuilder &b, OpFoldResult b0, OpFoldResult g0,
                           int64_t gt, OpFoldResult q0, int64_t cols,
                           OpFoldResult r0, int64_t blocks, int64_t rows) {
      int64_t ft = gt * fg, parts = ft * blocks, pixels = rows * cols;
      Value weights = k.tile(b, loc, nisa::MemorySpace::sbuf, {parts, taps},
                             element);
      k.dma(b, loc,
            KernelLowering::stridedView(
                b, loc, filter, KernelLowering::affineSum(b, loc, {{g0, fg * taps}}),
                {blocks, ft, taps}, {0, taps, 1}),
            weights);
      Value acc = k.tile(b, loc, nisa::MemorySpace::sbuf, {parts, pixels}, f32);
      firstAcc = firstAcc ? firstAcc : acc;
      nisa::MemsetOp::create(b, loc, acc, b.getF64FloatAttr(0.0));
      KernelLowering::forEachTile(
          b, loc, {{kh, 1}, {kw, 1}}, [&](OpBuilder &b, const TilePosition &tap) {
            OpFoldResult i = tap.offsets[0], j = tap.offsets[1];
            // x[b0, g0 + g, (r0 + block * rows + r) * sh + i * dh,
            //   (q0 + q) * sw + j * dw], the same for each of a group's fg
            //   outputs.
            Value window = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                  {parts, pixels}, element);
            for (int64_t block = 0; block < blocks; ++block)
              k.dma(b, loc,
                    KernelLowering::stridedView(
                        b, loc, image,
                        KernelLowering::affineSum(b, loc,
                                                  {{b0, groups * h * wd},
                                                   {g0, h * wd},
                                                   {r0, sh * wd},
                                                   {q0, sw},
                                                   {i, dh * wd},
                                                   {j, dw}},
                                                  block * rows * sh * wd),
                        {gt, fg, rows, cols}, {h * wd, 0, sh * wd, sw}),
                    KernelLowering::view(
                        b, loc, window,
                        {b.getIndexAttr(block * ft), b.getIndexAttr(0)},
                        {ft, pixels}));
            Value weight = KernelLowering::view(
                b, loc, weights,
                {b.getIndexAttr(0),
                 KernelLowering::affineSum(b, loc, {{i, kw}, {j, 1}})},
                {parts, 1});
            Value product =
                k.tile(b, loc, nisa::MemorySpace::sbuf, {parts, pixels}, f32);
            nisa::TensorScalarOp::create(b, loc, window, weight, product,
                                         alu(nisa::AluOp::multiply),
                                         FloatAttr());
            nisa::TensorTensorOp::create(b, loc, acc, product, acc,
                                         alu(nisa::AluOp::add));
          });
      Value stored = acc;
      if (out.getElementType() != f32) {
        stored = k.tile(b, loc, nisa::MemorySpace::sbuf, {parts, pixels},
                        out.getElementType());
        k.activation(b, loc, acc, stored, nisa::ActivationFunction::identity);
      }
      k.dma(b, loc, stored,
            KernelLowering::stridedView(
                b, loc, result,
                KernelLowering::affineSum(b, loc,
                                          {{b0, f * oh * ow},
                                           {g0, fg * oh * ow},
                                           {r0, ow},
                                           {q0, 1}}),
                {blocks, ft, rows, cols}, {rows * ow, oh * ow, ow, 1}));
    };

    KernelLowering::forEachTile(
        rewriter, loc,
        {{n, 1}, {groups, std::max<int64_t>(1, p / fg)}, {ow, maxPixels}},
        [&](OpBuilder &b, const TilePosition &at) {
          OpFoldResult b0 = at.offsets[0], g0 = at.offsets[1],
                       q0 = at.offsets[2];
          int64_t gt = at.sizes[1], cols = at.sizes[2];
          forEachRowChunk(b, loc, oh, std::max<int64_t>(1, p / (gt * fg)),
                          std::max<int64_t>(1, maxPixels / cols),
                          [&](OpBuilder &b, OpFoldResult r0, int64_t blocks,
                              int64_t rows) {
                            computeTile(b, b0, g0, gt, q0, cols, r0, blocks,
                                        rows);
                          });
        });
    k.markTiling(firstAcc, op, "channels x row groups", {p, maxPixels});
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct Pool2DToTaps : NisaPattern<Pool2DOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(Pool2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto in = op.getInput().getType(), out = op.getType();
    if (llvm::any_of(op.getPadding(), [](int64_t p) { return p != 0; }) ||
        !isa<FloatType>(in.getElementType()))
      return op.emitError() << "convert-neuron-to-nisa: only float pooling "
                               "without padding is tiled yet";
    // Element strides of (channel, row, column) in NCHW or NHWC.
    bool nchw = op.getLayout() == ImageLayout::nchw;
    int64_t cDim = nchw ? 1 : 3, hDim = nchw ? 2 : 1, wDim = hDim + 1;
    int64_t n = in.getDimSize(0), c = in.getDimSize(cDim),
            h = in.getDimSize(hDim), wd = in.getDimSize(wDim);
    int64_t oh = out.getDimSize(hDim), ow = out.getDimSize(wDim);
    int64_t cStride = nchw ? h * wd : 1, rowStride = nchw ? wd : wd * c,
            colStride = nchw ? 1 : c;
    int64_t outC = nchw ? oh * ow : 1, outRow = nchw ? ow : ow * c,
            outCol = nchw ? 1 : c;
    int64_t kh = op.getKernel()[0], kw = op.getKernel()[1];
    int64_t sh = op.getStrides()[0], sw = op.getStrides()[1];
    int64_t dh = op.getDilations()[0], dw = op.getDilations()[1];
    int64_t p = k.partitions();
    int64_t pixelBudget = std::max<int64_t>(
        1, k.config.elementwiseBytes * 8 / in.getElementTypeBitWidth());
    int64_t rowsPerTile =
        std::max<int64_t>(1, pixelBudget / std::max<int64_t>(ow, 1));
    bool max = op.getKind() == PoolKind::max;
    auto alu = nisa::AluOpAttr::get(
        rewriter.getContext(), max ? nisa::AluOp::max : nisa::AluOp::add);
    double identity = max ? -std::numeric_limits<double>::infinity() : 0.0;
    Value image = adaptor.getInput();
    Value result = k.resultBuffer(rewriter, op.getResult());
    Type element = in.getElementType();
    Value firstAcc;
    KernelLowering::forEachTile(
        rewriter, loc, {{n, 1}, {c, p}, {oh, rowsPerTile}},
        [&](OpBuilder &b, const TilePosition &at) {
          OpFoldResult b0 = at.offsets[0], c0 = at.offsets[1],
                       r0 = at.offsets[2];
          int64_t ct = at.sizes[1], rt = at.sizes[2], pixels = rt * ow;
          Value acc =
              k.tile(b, loc, nisa::MemorySpace::sbuf, {ct, pixels}, element);
          firstAcc = firstAcc ? firstAcc : acc;
          nisa::MemsetOp::create(b, loc, acc, b.getF64FloatAttr(identity));
          KernelLowering::forEachTile(
              b, loc, {{kh, 1}, {kw, 1}},
              [&](OpBuilder &b, const TilePosition &tap) {
                Value t = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                 {ct, pixels}, element);
                k.dma(b, loc,
                      KernelLowering::stridedView(
                          b, loc, image,
                          KernelLowering::affineSum(
                              b, loc,
                              {{b0, c * h * wd},
                               {c0, cStride},
                               {r0, sh * rowStride},
                               {tap.offsets[0], dh * rowStride},
                               {tap.offsets[1], dw * colStride}}),
                          {ct, rt, ow},
                          {cStride, sh * rowStride, sw * colStride}),
                      t);
                nisa::TensorTensorOp::create(b, loc, acc, t, acc, alu);
              });
          Value pooled = acc;
          if (op.getKind() == PoolKind::avg) {
            pooled = k.tile(b, loc, nisa::MemorySpace::sbuf, {ct, pixels},
                            out.getElementType());
            nisa::TensorScalarOp::create(
                b, loc, acc, pooled,
                nisa::AluOpAttr::get(b.getContext(), nisa::AluOp::multiply),
                b.getF64FloatAttr(1.0 / static_cast<double>(kh * kw)));
          }
          k.dma(b, loc, pooled,
                KernelLowering::stridedView(
                    b, loc, result,
                    KernelLowering::affineSum(
                        b, loc,
                        {{b0, c * oh * ow}, {c0, outC}, {r0, outRow}}),
                    {ct, rt, ow}, {outC, outRow, outCol}));
        });
    k.markTiling(firstAcc, op, "channels", {p, rowsPerTile * ow});
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::neuron::populateConvolutionPatterns(RewritePatternSet &patterns,
                                               const TypeConverter &converter,
                                               KernelLowering &lowering) {
  patterns.add<Conv2DToMatmuls, DepthwiseOnVector, Pool2DToTaps>(
      converter, patterns.getContext(), lowering);
}
