//===- Convolution.cpp - conv2d and pool2d --------------------------------===//
//
// conv2d (nchw_fchw, no bias, no padding: the import pads separately) as
// shifted matmuls: for each filter tap (kh, kw) and input-channel tile the
// stationary operand is w[f-tile, c-tile, kh, kw]^T and the moving one the
// image read at that tap's offset with the stride, [c-tile, pixels]; the
// taps and channel tiles accumulate in PSUM. Groups convolve their own
// channel ranges. pool2d (nchw or nhwc, no padding) puts channels on
// partitions and output pixels in the free dimension; each window tap is a
// strided DMA of the image combined on the vector engine into a tile that
// starts at the operation's identity (max: -inf, sums: 0); an average then
// scales by 1 / taps.
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include <limits>

using namespace mlir;
using namespace mlir::neuron;

namespace {

struct Conv2DToMatmuls : NisaPattern<Conv2DOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto in = op.getInput().getType(), w = op.getFilter().getType(),
         out = op.getType();
    ArrayRef<int64_t> pad = op.getPadding();
    if (op.getLayout() != ConvLayout::nchw_fchw || op.getBias() ||
        llvm::any_of(pad, [](int64_t p) { return p != 0; }) ||
        !isa<FloatType>(in.getElementType()))
      return op.emitError() << "convert-neuron-to-nisa: only nchw_fchw "
                               "float convolutions without bias or padding "
                               "are tiled yet";
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
  patterns.add<Conv2DToMatmuls, Pool2DToTaps>(converter, patterns.getContext(),
                                              lowering);
}
