//===- Convolution.cpp - conv2d and pool2d --------------------------------===//
//
// conv2d (nchw_fchw, no bias, no padding: the import pads separately) as
// shifted matmuls: for each filter tap (kh, kw) and input-channel tile the
// stationary operand is w[f-tile, c-tile, kh, kw]^T and the moving one that
// tap's window [c-tile, rows, columns] of the input rows the output row
// tile reads, loaded once per channel tile and read with the strides; the
// taps and channel tiles accumulate in PSUM. The stationary operands of an
// output-channel tile are made once: its weights load in natural rows and
// each tap's is transposed on the tensor engine (or moved by a DMA
// transpose where cheaper), kept in SBUF for every row tile when they fit.
// Each output tile is channels by whole rows (a row wider than a PSUM bank,
// by even column tiles of it), evacuated from PSUM and, in a fusion,
// finished by its epilogue before it is stored. Where few input
// channels would leave most of the tensor engine's rows idle (an image
// network's first layer), the taps stack along the partitions instead,
// each tap's input rows loaded into partitions of their own, so one matmul
// contracts over many taps (stackedKernelRows). Groups convolve
// their own channel ranges; a depthwise conv2d runs on the vector engine
// instead (lowerDepthwise): a tile's input rows load once and each tap
// reads its window from SBUF with the strides. pool2d (nchw or nhwc, no
// padding) puts channels on partitions and output pixels in the free dimension;
// the input rows of a tile load once, and each window tap reads its elements
// from that tile with the pool's strides, combined on the vector engine into a
// tile that starts at the operation's identity (max: -inf, sums: 0); an average
// then scales by 1 / taps. Where a tile has fewer outputs than its window has
// taps (a global pool, a 5x5 depthwise convolution on a small image), the
// cost model usually prefers the other order: each output's window reduced by
// one tensor_reduce (after a multiply by the weights for a convolution).
//
//===----------------------------------------------------------------------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include "passes/KernelGraph.h"

#include <algorithm>
#include <array>
#include <limits>

using namespace mlir;
using namespace mlir::neuron;

/// The input rows (or columns) `n` outputs read through a window of `k`
/// taps `d` apart, `s` apart.
static int64_t inputExtent(int64_t n, int64_t s, int64_t k, int64_t d) {
  return (n - 1) * s + (k - 1) * d + 1;
}

/// The cost model's time for a matmul of `pixels` moving columns of
/// `element` (a tile of a convolution's output rows).
static double tileMatmulNs(const KernelLowering &k, Type element,
                           int64_t pixels) {
  auto moving = MemRefType::get({1, pixels}, element);
  return k.costNs("matmul", operandShapeOf(moving), operandShapeOf(moving));
}

/// The cost model's time for loading `parts` channels' `lines` lines of
/// `cols` columns of an image `wd` wide, lines `step` apart, in runs of
/// the columns (of all the lines where consecutive lines span the width),
/// over all the DMA engines.
static double imageLoadNs(const KernelLowering &k, Type element, int64_t wd,
                          int64_t parts, int64_t lines, int64_t cols,
                          int64_t step) {
  ::neuron::rt::OperandShape tile =
      operandShapeOf(MemRefType::get({parts, lines * cols}, element));
  ::neuron::rt::OperandShape hbm = tile;
  hbm.run = cols == wd && step == 1 ? lines * cols : cols;
  return k.costNs("dma_copy", tile, hbm) / k.config.cost.dmaEngines();
}

/// The busier of the tensor engine and the DMA engines per tile of `rt`
/// output rows (`ow` wide, of an image `wd` wide, over `cg` channels)
/// where the taps stack `rows` kernel rows a chunk (stackedKernelRows): a
/// matmul per chunk, and each tap's load of the rows the row stride steps
/// to, in runs of the columns the outputs span.
static double stackedTileNs(const KernelLowering &k, Type element,
                            int64_t cg, int64_t wd, int64_t kh, int64_t kw,
                            int64_t rows, int64_t rt, int64_t ow,
                            std::array<int64_t, 2> strides) {
  double matmuls =
      double(llvm::divideCeil(kh, rows)) * tileMatmulNs(k, element, rt * ow);
  double loads = double(kh * kw) *
                 imageLoadNs(k, element, wd, cg, rt,
                             inputExtent(ow, strides[1], 1, 1), strides[0]);
  return std::max(matmuls, loads);
}

/// Whether a convolution over a single input channel (depthwise, with a
/// channel multiplier: a grayscale image's first layer) runs on the tensor
/// engine with all its taps stacked along the partitions (lowerConv2D,
/// stackedKernelRows) rather than on the vector engine: where its taps fit
/// the partitions and the cost model times a matmul per tile of output
/// rows, after each tap's load of them, shorter than the vector engine's
/// instruction per tap over all the outputs.
static bool stacksSingleChannel(const KernelLowering &k, Conv2DOp op) {
  auto in = op.getInput().getType(), w = op.getFilter().getType(),
       out = op.getType();
  int64_t p = k.partitions(), taps = w.getDimSize(2) * w.getDimSize(3);
  const nisa::LimitsAttr &limits = k.config.limits;
  int64_t maxPixels =
      std::min(limits.getMovingFree(), limits.getPsumBankBytes() / 4);
  int64_t n = out.getDimSize(0), f = out.getDimSize(1),
          oh = out.getDimSize(2), ow = out.getDimSize(3);
  if (op.getGroups() != 1 || in.getDimSize(1) != 1 || taps > p ||
      ow > maxPixels)
    return false;
  Type element = in.getElementType();
  int64_t kh = w.getDimSize(2),
          rt = std::min(oh, std::max<int64_t>(1, maxPixels / ow)),
          tiles = n * llvm::divideCeil(oh, rt) *
                  llvm::divideCeil(f, limits.getStationaryFree());
  // All the taps in one chunk.
  double tensor =
      double(tiles) * stackedTileNs(k, element, 1, in.getDimSize(3), kh,
                                    w.getDimSize(3), kh, rt, ow,
                                    {op.getStrides()[0], op.getStrides()[1]});
  ::neuron::rt::OperandShape outputs = operandShapeOf(MemRefType::get(
      {p, int64_t(llvm::divideCeil(n * f * oh * ow, p))}, element));
  return tensor <
         double(taps) * k.costNs("scalar_tensor_tensor", outputs, outputs);
}

/// Whether `op` runs on the vector engine: depthwise with any channel
/// multiplier up to the partition count. Each output channel is a weighted
/// sum of its own channel's taps, which on the tensor engine would
/// contract over one partition, a matmul per tap (a single input
/// channel's, stacked, may contract over all the taps at once instead).
static bool isDepthwise(const KernelLowering &k, Conv2DOp op) {
  int64_t f = op.getFilter().getType().getDimSize(0);
  return isDepthwiseConv(op) && f / op.getGroups() <= k.partitions() &&
         !stacksSingleChannel(k, op);
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

/// Output rows and columns per tile of a window op (depthwise convolution,
/// pooling) on the vector engine: at most `pixels` sums, and input rows
/// of at most an eighth of a partition of SBUF (`element` sized): whole
/// output rows when they fit, columns halved until one row's input does.
static std::pair<int64_t, int64_t>
windowTile(const KernelLowering &k, Type element, int64_t oh, int64_t ow,
           int64_t pixels, std::array<int64_t, 2> strides,
           std::array<int64_t, 2> kernel, std::array<int64_t, 2> dilations) {
  int64_t budget = k.config.limits.getSbufBytes() / 8 / elementBytes(element);
  auto inputs = [&](int64_t rows, int64_t cols) {
    return inputExtent(rows, strides[0], kernel[0], dilations[0]) *
           inputExtent(cols, strides[1], kernel[1], dilations[1]);
  };
  int64_t cols = std::max<int64_t>(1, std::min(ow, pixels));
  while (cols > 1 && inputs(1, cols) > budget)
    cols = (cols + 1) / 2;
  int64_t rows = std::clamp<int64_t>(pixels / cols, 1, oh);
  while (rows > 1 && inputs(rows, cols) > budget)
    --rows;
  return {rows, cols};
}

/// Whether a window op (depthwise convolution, pooling) computes a tile of
/// `pixels` outputs on `partitions` partitions in less vector-engine time
/// output by output (each output's window of `taps` elements reduced by one
/// tensor_reduce, after a tensor_tensor multiply by the weights when
/// `weighted`) than tap by tap (one instruction over all the outputs per
/// tap): a few outputs of a large window, as a global pool or a 5x5
/// depthwise convolution late in a network, pay each instruction's fixed
/// cost once per output rather than once per tap.
static bool reducesEachOutput(const KernelLowering &k, int64_t partitions,
                              int64_t pixels, int64_t taps, bool weighted) {
  Type f32 = Float32Type::get(k.config.limits.getContext());
  auto shape = [&](int64_t free) {
    return operandShapeOf(MemRefType::get({partitions, free}, f32));
  };
  ::neuron::rt::OperandShape outputs = shape(pixels), window = shape(taps),
                             one = shape(1);
  double perTap = taps * k.costNs(weighted ? "scalar_tensor_tensor"
                                           : "tensor_tensor",
                                  outputs, outputs);
  double perOutput =
      pixels * (k.costNs("tensor_reduce", one, window) +
                (weighted ? k.costNs("tensor_tensor", window, window) : 0));
  return perOutput < perTap;
}

/// Calls `body` with the window of each output of a [partitions, rows,
/// cols] tile: its offsets in an input tile whose windows are `kernel` taps
/// `dilations` apart, `strides` apart, and the output's element of the
/// tile.
static void forEachWindow(
    OpBuilder &b, Location loc, Value input, Value output,
    std::array<int64_t, 2> kernel, std::array<int64_t, 2> strides,
    std::array<int64_t, 2> dilations,
    function_ref<void(OpBuilder &, Value window, Value element)> body) {
  auto outputType = cast<MemRefType>(output.getType());
  int64_t parts = outputType.getDimSize(0);
  KernelLowering::forEachTile(
      b, loc, {{outputType.getDimSize(1), 1}, {outputType.getDimSize(2), 1}},
      [&](OpBuilder &b, const TilePosition &at) {
        Value window = KernelLowering::view(
            b, loc, input,
            {b.getIndexAttr(0),
             KernelLowering::affineSum(b, loc, {{at.offsets[0], strides[0]}}),
             KernelLowering::affineSum(b, loc, {{at.offsets[1], strides[1]}})},
            {parts, kernel[0], kernel[1]}, {1, dilations[0], dilations[1]});
        Value element = KernelLowering::view(
            b, loc, output, {b.getIndexAttr(0), at.offsets[0], at.offsets[1]},
            {parts, 1, 1});
        body(b, window, element);
      });
}

/// Calls `body` with each tap of a `kernel` window (its position, in a loop
/// over the taps) and the window of the input tile `input` that tap reads
/// for a tile of outputs `shape` [partitions, rows, cols]: from the tap's
/// offset, taps `dilations` apart, outputs `strides` apart.
static void forEachTap(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> shape,
    std::array<int64_t, 2> kernel, std::array<int64_t, 2> strides,
    std::array<int64_t, 2> dilations,
    function_ref<void(OpBuilder &, const TilePosition &tap, Value window)>
        body) {
  KernelLowering::forEachTile(
      b, loc, {{kernel[0], 1}, {kernel[1], 1}},
      [&](OpBuilder &b, const TilePosition &tap) {
        Value window = KernelLowering::view(
            b, loc, input,
            {b.getIndexAttr(0),
             KernelLowering::affineSum(b, loc, {{tap.offsets[0], dilations[0]}}),
             KernelLowering::affineSum(b, loc,
                                       {{tap.offsets[1], dilations[1]}})},
            shape, {1, strides[0], strides[1]});
        body(b, tap, window);
      });
}

/// How a filter [F, C/groups, KH, KW] lies in memory: its filters' rows
/// contiguous with the channels outermost (FCHW, a contiguous buffer) or
/// innermost (TOSA's OHWI filter transposed), or otherwise (JAX's HWCF
/// filter transposed: each tap's [channels, filters] is rows of filters).
enum class FilterRows { channelsFirst, channelsLast, none };

static FilterRows filterRowsOf(Value filter) {
  auto type = cast<MemRefType>(filter.getType());
  SmallVector<int64_t> s;
  int64_t offset = 0;
  if (failed(stridesAndOffset(type, s, offset)) || offset != 0)
    return FilterRows::none;
  int64_t c = type.getDimSize(1), kh = type.getDimSize(2),
          kw = type.getDimSize(3);
  if (s == ArrayRef<int64_t>{c * kh * kw, kh * kw, kw, 1})
    return FilterRows::channelsFirst;
  if (s == ArrayRef<int64_t>{c * kh * kw, 1, kw * c, c})
    return FilterRows::channelsLast;
  return FilterRows::none;
}

/// Fills `dst` [ct, taps * ft] with the stationary operands of one
/// input-channel tile, tap t at columns [t * ft, (t + 1) * ft):
/// w[fRow.., c0.., i, j] transposed to [c, f]. Either one transfer per tap
/// through the filter's strides (element by element from an FCHW filter,
/// in runs of the filters from an HWCF one), or (`onTensor`, filter rows
/// given by `rows`) the tile's weights loaded in their rows (f on
/// partitions, in runs of every tap of its channels, or of its channels
/// at each tap) and each tap, a view of them, transposed on the tensor
/// engine and copied out of PSUM.
static void loadWeights(KernelLowering &k, OpBuilder &b, Location loc,
                        Value filter, OpFoldResult fRow, int64_t ft,
                        OpFoldResult c0, int64_t ct, int64_t kh, int64_t kw,
                        bool onTensor, FilterRows rows, Value dst) {
  int64_t taps = kh * kw;
  auto type = cast<MemRefType>(filter.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> s;
  int64_t offset = 0;
  (void)stridesAndOffset(type, s, offset);
  OpFoldResult first =
      KernelLowering::affineSum(b, loc, {{fRow, s[0]}, {c0, s[1]}}, offset);
  bool channelsLast = rows == FilterRows::channelsLast;
  Value natural;
  if (onTensor) {
    // [ft, ct, taps] or, channels last, [ft, taps, ct].
    natural = k.tile(b, loc, nisa::MemorySpace::sbuf, {ft, ct * taps}, element);
    k.dma(b, loc,
          channelsLast
              ? KernelLowering::stridedView(b, loc, filter, first,
                                            {ft, taps, ct}, {s[0], s[3], 1})
              : KernelLowering::stridedView(b, loc, filter, first,
                                            {ft, ct * taps}, {s[0], 1}),
          channelsLast ? KernelLowering::reinterpret(b, loc, natural,
                                                     {ft, taps, ct})
                       : natural);
  }
  KernelLowering::forEachTile(
      b, loc, {{kh, 1}, {kw, 1}}, [&](OpBuilder &b, const TilePosition &tap) {
        OpFoldResult t = KernelLowering::affineSum(
            b, loc, {{tap.offsets[0], kw}, {tap.offsets[1], 1}});
        Value out = KernelLowering::view(
            b, loc, dst,
            {b.getIndexAttr(0), KernelLowering::affineSum(b, loc, {{t, ft}})},
            {ct, ft});
        if (!onTensor) {
          k.dma(b, loc,
                KernelLowering::stridedView(
                    b, loc, filter,
                    KernelLowering::affineSum(b, loc,
                                              {{first, 1},
                                               {tap.offsets[0], s[2]},
                                               {tap.offsets[1], s[3]}}),
                    {ct, ft}, {s[1], s[0]}),
                out);
          return;
        }
        Value flipped =
            k.tile(b, loc, nisa::MemorySpace::psum, {ct, ft},
                   k.transposedType(element));
        Value weights =
            channelsLast
                ? KernelLowering::view(
                      b, loc, natural,
                      {b.getIndexAttr(0), KernelLowering::affineSum(
                                              b, loc, {{t, ct}})},
                      {ft, ct})
                : KernelLowering::view(b, loc, natural, {b.getIndexAttr(0), t},
                                       {ft, ct}, {1, taps});
        nisa::TransposeOp::create(b, loc, weights, flipped);
        k.vectorCopy(b, loc, flipped, out);
      });
}

/// Whether the weights of a [ct input, ft output] channel tile with
/// `taps` taps keep the engines busy for less time loaded in the filter's
/// rows (`rows`, none for a filter without them) and transposed on the
/// tensor engine (one load, per tap a transpose and a copy) than moved by
/// one transfer per tap through the transposed view (element-strided, or
/// a DMA transpose where the generation has it for a 1x1 filter or
/// channels-last rows).
static bool transposeOnTensorEngine(const KernelLowering &k, Type element,
                                    int64_t ft, int64_t ct, int64_t taps,
                                    FilterRows rows) {
  if (rows == FilterRows::none)
    return false;
  bool channelsLast = rows == FilterRows::channelsLast;
  auto shape = [&](int64_t partitions, int64_t free) {
    return operandShapeOf(MemRefType::get({partitions, free}, element));
  };
  ::neuron::rt::OperandShape tile = shape(ct, ft), view = tile;
  view.run = 1;
  view.transposed = taps == 1 || channelsLast;
  double direct = taps * k.costNs("dma_copy", tile, view);
  ::neuron::rt::OperandShape natural = shape(ft, ct * taps), hbmRows = natural;
  hbmRows.run = channelsLast ? ct : ct * taps;
  ::neuron::rt::OperandShape tap = shape(ft, ct);
  tap.strideBytes = taps > 1 && ct > 1 && !channelsLast
                        ? taps * elementBytes(element)
                        : 0;
  double onTensor = k.costNs("dma_copy", natural, hbmRows) +
                    taps * (k.costNs("transpose", tile, tap) +
                            k.costNs("tensor_scalar", tile, tile));
  return onTensor < direct;
}

/// Kernel rows per chunk where a convolution stacks its taps along the
/// partitions, or 0 where it takes one matmul per tap and channel tile.
/// Few input channels (an image network's first layer has 3) leave most
/// of the tensor engine's rows idle, a matmul per tap; stacked, partition
/// ((i - i0) * kw + j) * cg + c of a chunk of kernel rows [i0, i0 + R)
/// holds the input rows channel c's outputs read through tap (i, j) (the
/// rows the row stride steps to, each as the columns the outputs span),
/// loaded so by a transfer per tap, and one matmul contracts over all the
/// chunk's taps and channels, the moving operand reading every partition
/// with the column stride. Chosen where it keeps the busier of the tensor
/// engine and the DMA engines busy for less time per tile of `rt` output
/// rows: the taps' loads each bring the rows again.
static int64_t stackedKernelRows(const KernelLowering &k, Type element,
                                 int64_t cg, int64_t wd, int64_t kh,
                                 int64_t kw, int64_t rt, int64_t ow,
                                 std::array<int64_t, 2> strides,
                                 std::array<int64_t, 2> dilations) {
  int64_t p = k.partitions(), rows = std::min(kh, p / (kw * cg));
  if (kh * kw == 1 || rows == 0)
    return 0;
  int64_t cTiles = llvm::divideCeil(cg, p);
  double direct = std::max(
      double(kh * kw * cTiles) * tileMatmulNs(k, element, rt * ow),
      double(cTiles) *
          imageLoadNs(k, element, wd, std::min(cg, p),
                      inputExtent(rt, strides[0], kh, dilations[0]),
                      inputExtent(ow, strides[1], kw, dilations[1]), 1));
  double stacked =
      stackedTileNs(k, element, cg, wd, kh, kw, rows, rt, ow, strides);
  return stacked < direct ? rows : 0;
}

/// Fills `dst` [R * kw * cg, ft] with the stationary operand of stacked
/// taps (stackedKernelRows) for kernel rows [i0, i0 + R): its row ((i -
/// i0) * kw + j) * cg + c is w[fRow.., c0 + c, i, j]. A filter with rows
/// (FCHW, OHWI) loads the chunk's weights in them, filters on partitions,
/// ordered tap-major on the vector engine where its channels are
/// outermost, and the tensor engine transposes them in one go; another
/// (HWCF) moves each tap's [cg, ft] by a transfer through its strides.
static void loadStackedWeights(KernelLowering &k, OpBuilder &b, Location loc,
                               Value filter, OpFoldResult fRow, int64_t ft,
                               OpFoldResult c0, int64_t cg, OpFoldResult i0,
                               int64_t rc, int64_t kw, FilterRows rows,
                               Value dst) {
  auto type = cast<MemRefType>(filter.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> s;
  int64_t offset = 0;
  (void)stridesAndOffset(type, s, offset);
  OpFoldResult first = KernelLowering::affineSum(
      b, loc, {{fRow, s[0]}, {c0, s[1]}, {i0, s[2]}}, offset);
  int64_t taps = rc * kw, kc = taps * cg;
  if (rows == FilterRows::none) {
    for (int64_t t = 0; t < taps; ++t)
      k.dma(b, loc,
            KernelLowering::stridedView(
                b, loc, filter,
                KernelLowering::affineSum(b, loc, {{first, 1}},
                                          t / kw * s[2] + t % kw * s[3]),
                {cg, ft}, {s[1], s[0]}),
            KernelLowering::view(b, loc, dst,
                                 {b.getIndexAttr(t * cg), b.getIndexAttr(0)},
                                 {cg, ft}));
    return;
  }
  // [ft, taps, cg], tap-major.
  Value natural = k.tile(b, loc, nisa::MemorySpace::sbuf, {ft, kc}, element);
  Value ordered = KernelLowering::reinterpret(b, loc, natural, {ft, taps, cg});
  if (rows == FilterRows::channelsLast) {
    k.dma(b, loc,
          KernelLowering::stridedView(b, loc, filter, first, {ft, taps, cg},
                                      {s[0], s[3], 1}),
          ordered);
  } else {
    Value loaded = k.tile(b, loc, nisa::MemorySpace::sbuf, {ft, kc}, element);
    k.dma(b, loc,
          KernelLowering::stridedView(b, loc, filter, first, {ft, cg, taps},
                                      {s[0], s[1], 1}),
          KernelLowering::reinterpret(b, loc, loaded, {ft, cg, taps}));
    k.vectorCopy(b, loc,
                 KernelLowering::stridedView(b, loc, loaded, b.getIndexAttr(0),
                                             {ft, taps, cg}, {kc, 1, taps}),
                 ordered);
  }
  Value flipped = k.tile(b, loc, nisa::MemorySpace::psum, {kc, ft},
                         k.transposedType(element));
  nisa::TransposeOp::create(b, loc, natural, flipped);
  k.vectorCopy(b, loc, flipped, dst);
}

/// Output channels [fRow, fRow + ft) of image b0, output rows [r0, r0 +
/// rt) and columns [q0, q0 + qt) (whole rows where rt > 1), as [ft, rt *
/// qt] of `buffer` [N, F, OH, OW]: contiguous, or a broadcast view whose
/// rows merge (the OH stride is OW times the OW stride); as [ft, rt, qt]
/// when they do not (a pad's interior).
static Value imageRows(OpBuilder &b, Location loc, Value buffer,
                       OpFoldResult b0, OpFoldResult fRow, int64_t ft,
                       OpFoldResult r0, int64_t rt, OpFoldResult q0,
                       int64_t qt) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> s;
  int64_t offset = 0;
  (void)stridesAndOffset(type, s, offset);
  OpFoldResult at = KernelLowering::affineSum(
      b, loc, {{b0, s[0]}, {fRow, s[1]}, {r0, s[2]}, {q0, s[3]}}, offset);
  if (!rowsMerge(s, rt, qt))
    return KernelLowering::stridedView(b, loc, buffer, at, {ft, rt, qt},
                                       {s[1], s[2], s[3]});
  return KernelLowering::stridedView(b, loc, buffer, at, {ft, rt * qt},
                                     {s[1], s[3]});
}

bool mlir::neuron::isTensorEngineConv(const KernelLowering &k, Conv2DOp op) {
  return isEngineTiled(op) && !isDepthwise(k, op);
}

bool mlir::neuron::isVectorEngineConv(const KernelLowering &k, Conv2DOp op) {
  return isEngineTiled(op) && isDepthwise(k, op);
}

LogicalResult mlir::neuron::lowerConv2D(OpBuilder &b, KernelLowering &k,
                                        Conv2DOp op, Value image, Value filter,
                                        Value out, const Epilogue *epilogue,
                                        Operation *fusion) {
  Location loc = op.getLoc();
  // A filter that is a view (an HWCF filter transposed) loads through it.
  filter = KernelLowering::operandView(filter);
  auto in = op.getInput().getType(), w = op.getFilter().getType(),
       resultType = op.getType();
  int64_t n = in.getDimSize(0), c = in.getDimSize(1), h = in.getDimSize(2),
          wd = in.getDimSize(3);
  int64_t f = w.getDimSize(0), kh = w.getDimSize(2), kw = w.getDimSize(3),
          taps = kh * kw;
  int64_t oh = resultType.getDimSize(2), ow = resultType.getDimSize(3);
  int64_t groups = op.getGroups(), cg = c / groups, fg = f / groups;
  int64_t sh = op.getStrides()[0], sw = op.getStrides()[1];
  int64_t dh = op.getDilations()[0], dw = op.getDilations()[1];
  int64_t p = k.partitions();
  const nisa::LimitsAttr &limits = k.config.limits;
  int64_t tileF = std::min(fg, limits.getStationaryFree());
  int64_t maxPixels =
      std::min(limits.getMovingFree(), limits.getPsumBankBytes() / 4);
  Type element = in.getElementType();
  // Whole output rows per tile, as many as a PSUM bank holds and whose
  // input rows take at most an eighth of a partition; rows wider than a
  // bank, one at a time in even column tiles.
  int64_t colsPerTile =
      llvm::divideCeil(ow, llvm::divideCeil(ow, maxPixels));
  int64_t rowsPerTile = std::max<int64_t>(1, maxPixels / ow);
  int64_t windowBudget = limits.getSbufBytes() / 8 / elementBytes(element);
  while (rowsPerTile > 1 && inputExtent(rowsPerTile, sh, kh, dh) *
                                    inputExtent(ow, sw, kw, dw) >
                                windowBudget)
    --rowsPerTile;
  int64_t stackRows = stackedKernelRows(k, element, cg, wd, kh, kw,
                                        std::min(rowsPerTile, oh),
                                        colsPerTile, {sh, sw}, {dh, dw});
  int64_t chunks = stackRows ? llvm::divideCeil(kh, stackRows) : 0;
  // The weights of an output-channel tile, transposed once and kept in
  // SBUF for every image and row tile, when they take at most a quarter
  // of a partition; else each row tile transposes its own.
  int64_t cTiles = (cg + p - 1) / p;
  bool resident = (stackRows ? chunks : cTiles * taps) * tileF *
                      elementBytes(element) <=
                  limits.getSbufBytes() / 4;
  int64_t ct0 = std::min(cg, p);
  FilterRows rows = filterRowsOf(filter);
  bool onTensor = transposeOnTensorEngine(k, element, tileF, ct0, taps, rows);
  ScaledActivation evacuation = evacuationOf(op.getResult(), out, epilogue);
  // The epilogue reads its inputs by whole output rows: a broadcast read in
  // place must give them as one run.
  if (epilogue)
    for (Operation *e : epilogue->ops)
      for (Value v : e->getOperands())
        if (auto broadcast = v.getDefiningOp<BroadcastOp>();
            broadcast &&
            !rowsMerge(broadcastStrides(broadcast.getInput().getType(),
                                        broadcast.getType(),
                                        broadcast.getDimensions()),
                       std::min(rowsPerTile, oh), ow))
          return broadcast.emitError()
                 << "convert-neuron-to-nisa: a convolution's epilogue reads "
                    "this broadcast by whole output rows, which its strides "
                    "do not give (neuron-fuse leaves such a broadcast out)";
  Value firstAcc;
  KernelLowering::forEachTile(
      b, loc, {{groups, 1}, {fg, tileF}},
      [&](OpBuilder &b, const TilePosition &block) {
        OpFoldResult g = block.offsets[0], f0 = block.offsets[1];
        int64_t ft = block.sizes[1];
        OpFoldResult fRow =
            KernelLowering::affineSum(b, loc, {{g, fg}, {f0, 1}});
        OpFoldResult cFirst = KernelLowering::affineSum(b, loc, {{g, cg}});
        auto loadTile = [&](OpBuilder &b, OpFoldResult c0, int64_t ct,
                            Value dst) {
          loadWeights(k, b, loc, filter, fRow, ft, c0, ct, kh, kw, onTensor,
                      rows, dst);
        };
        // Channel tile `ch`'s columns [ct, taps * ft] of the resident
        // weights.
        auto residentAt = [&](OpBuilder &b, Value weights,
                              const TilePosition &ch) {
          OpFoldResult column = KernelLowering::affineSum(
              b, loc, {{KernelLowering::tileIndex(b, ch, 0, p), taps * ft}});
          return KernelLowering::view(b, loc, weights,
                                      {b.getIndexAttr(0), column},
                                      {ch.sizes[0], taps * ft});
        };
        // Stacked taps: chunk `chunk`'s stationary operand [its rows' taps
        // x cg, ft], at columns [chunk index * ft, ...) of the resident
        // weights.
        auto stackedAt = [&](OpBuilder &b, Value weights,
                             const TilePosition &chunk) {
          OpFoldResult column = KernelLowering::affineSum(
              b, loc,
              {{KernelLowering::tileIndex(b, chunk, 0, stackRows), ft}});
          return KernelLowering::view(b, loc, weights,
                                      {b.getIndexAttr(0), column},
                                      {chunk.sizes[0] * kw * cg, ft});
        };
        auto loadChunk = [&](OpBuilder &b, const TilePosition &chunk,
                             Value dst) {
          loadStackedWeights(k, b, loc, filter, fRow, ft, cFirst, cg,
                             chunk.offsets[0], chunk.sizes[0], kw, rows, dst);
        };
        // The sums of output rows [r0, r0 + rt), columns [q0, q0 + qt),
        // of image b0 over stacked taps, into `acc`: per chunk of kernel
        // rows, each tap's shifted input rows loaded into its channels'
        // partitions, then one matmul.
        auto accumulateStacked = [&](OpBuilder &b, Value weights,
                                     OpFoldResult b0, OpFoldResult r0,
                                     int64_t rt, OpFoldResult q0, int64_t qt,
                                     Value acc) {
          int64_t inCols = inputExtent(qt, sw, 1, 1);
          KernelLowering::forEachTile(
              b, loc, {{kh, stackRows}},
              [&](OpBuilder &b, const TilePosition &chunk) {
                int64_t kc = chunk.sizes[0] * kw * cg;
                Value stationary;
                if (resident) {
                  stationary = stackedAt(b, weights, chunk);
                } else {
                  stationary = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                      {kc, ft}, element);
                  loadChunk(b, chunk, stationary);
                }
                Value input = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                     {kc, rt, inCols}, element);
                // Tap t's partitions: a partition offset is a constant.
                for (int64_t t = 0; t < chunk.sizes[0] * kw; ++t)
                  k.dma(b, loc,
                        KernelLowering::stridedView(
                            b, loc, image,
                            KernelLowering::affineSum(
                                b, loc,
                                {{b0, c * h * wd},
                                 {cFirst, h * wd},
                                 {r0, sh * wd},
                                 {q0, sw},
                                 {chunk.offsets[0], dh * wd}},
                                t / kw * dh * wd + t % kw * dw),
                            {cg, rt, inCols}, {h * wd, sh * wd, 1}),
                        KernelLowering::view(b, loc, input,
                                             {b.getIndexAttr(t * cg),
                                              b.getIndexAttr(0),
                                              b.getIndexAttr(0)},
                                             {cg, rt, inCols}));
                Value moving = KernelLowering::view(
                    b, loc, input,
                    {b.getIndexAttr(0), b.getIndexAttr(0), b.getIndexAttr(0)},
                    {kc, rt, qt}, {1, 1, sw});
                KernelLowering::Accumulation how =
                    KernelLowering::accumulation(chunk, {0});
                nisa::MatmulOp::create(b, loc, stationary, moving, acc,
                                       how.accumulate, how.restart);
              });
        };
        // The sums of output rows [r0, r0 + rt), columns [q0, q0 + qt), of
        // image b0 into `acc`, a matmul per tap and input-channel tile.
        auto accumulateByTap = [&](OpBuilder &b, Value weights,
                                   OpFoldResult b0, OpFoldResult r0,
                                   int64_t rt, OpFoldResult q0, int64_t qt,
                                   Value acc) {
          int64_t pixels = rt * qt;
          KernelLowering::forEachTile(
              b, loc, {{cg, p}}, [&](OpBuilder &b, const TilePosition &ch) {
                OpFoldResult c0 = ch.offsets[0];
                int64_t ct = ch.sizes[0];
                Value tapWeights;
                if (resident) {
                  tapWeights = residentAt(b, weights, ch);
                } else {
                  tapWeights = k.tile(b, loc, nisa::MemorySpace::sbuf,
                                      {ct, taps * ft}, element);
                  loadTile(b, c0, ct, tapWeights);
                }
                // x[b0, cFirst + c0.., r0 * sh + r, q] for the input
                // rows r and columns q the tile's taps read, loaded
                // once (one run per partition where they span the
                // image's width); each tap reads its window of them
                // with the strides. A 1x1 convolution's window is the
                // tile itself.
                bool whole = taps == 1 && sh == 1 && sw == 1;
                int64_t inRows = inputExtent(rt, sh, kh, dh),
                        inCols = inputExtent(qt, sw, kw, dw);
                Value input = k.tile(
                    b, loc, nisa::MemorySpace::sbuf,
                    whole ? SmallVector<int64_t>{ct, pixels}
                          : SmallVector<int64_t>{ct, inRows, inCols},
                    element);
                k.dma(b, loc,
                      KernelLowering::stridedView(
                          b, loc, image,
                          KernelLowering::affineSum(b, loc,
                                                    {{b0, c * h * wd},
                                                     {cFirst, h * wd},
                                                     {c0, h * wd},
                                                     {r0, sh * wd},
                                                     {q0, sw}}),
                          {ct, inRows, inCols}, {h * wd, wd, 1}),
                      input);
                auto tapMatmul = [&](OpBuilder &b, const TilePosition &tap,
                                     Value moving) {
                  OpFoldResult i = tap.offsets[0], j = tap.offsets[1];
                  Value stationary = KernelLowering::view(
                      b, loc, tapWeights,
                      {b.getIndexAttr(0),
                       KernelLowering::affineSum(b, loc,
                                                 {{i, kw * ft}, {j, ft}})},
                      {ct, ft});
                  TilePosition reduction{
                      {c0, i, j},
                      {ct, 1, 1},
                      {ch.ivs[0], tap.ivs[0], tap.ivs[1]}};
                  KernelLowering::Accumulation how =
                      KernelLowering::accumulation(reduction, {0, 1, 2});
                  nisa::MatmulOp::create(b, loc, stationary, moving, acc,
                                         how.accumulate, how.restart);
                };
                if (whole) {
                  KernelLowering::forEachTile(
                      b, loc, {{1, 1}, {1, 1}},
                      [&](OpBuilder &b, const TilePosition &tap) {
                        tapMatmul(b, tap, input);
                      });
                  return;
                }
                forEachTap(b, loc, input, {ct, rt, qt}, {kh, kw},
                           {sh, sw}, {dh, dw}, tapMatmul);
              });
        };
        Value weights;
        if (resident && stackRows) {
          weights = k.tile(b, loc, nisa::MemorySpace::sbuf,
                           {stackRows * kw * cg, chunks * ft}, element);
          KernelLowering::forEachTile(
              b, loc, {{kh, stackRows}},
              [&](OpBuilder &b, const TilePosition &chunk) {
                loadChunk(b, chunk, stackedAt(b, weights, chunk));
              });
        } else if (resident) {
          weights = k.tile(b, loc, nisa::MemorySpace::sbuf,
                           {ct0, cTiles * taps * ft}, element);
          KernelLowering::forEachTile(
              b, loc, {{cg, p}}, [&](OpBuilder &b, const TilePosition &ch) {
                loadTile(b, ch.offsets[0], ch.sizes[0],
                         residentAt(b, weights, ch));
              });
        }
        KernelLowering::forEachTile(
            b, loc, {{n, 1}, {oh, rowsPerTile}, {ow, colsPerTile}},
            [&](OpBuilder &b, const TilePosition &at) {
              OpFoldResult b0 = at.offsets[0], r0 = at.offsets[1],
                           q0 = at.offsets[2];
              int64_t rt = at.sizes[1], qt = at.sizes[2], pixels = rt * qt;
              Value acc = k.tile(b, loc, nisa::MemorySpace::psum, {ft, pixels},
                                 b.getF32Type());
              firstAcc = firstAcc ? firstAcc : acc;
              if (stackRows)
                accumulateStacked(b, weights, b0, r0, rt, q0, qt, acc);
              else
                accumulateByTap(b, weights, b0, r0, rt, q0, qt, acc);
              // The scalar engine evacuates the sums (applying the
              // epilogue's leading scaled activation when nothing else
              // reads them); they are stored, and the epilogue computed on
              // them, as [ft, pixels]: output channels by whole output rows.
              auto window = [&](Value buffer) {
                return imageRows(b, loc, buffer, b0, fRow, ft, r0, rt, q0,
                                 qt);
              };
              Value evacuated =
                  k.tile(b, loc, nisa::MemorySpace::sbuf, {ft, pixels},
                         resultType.getElementType());
              DenseMap<Value, Value> tiles;
              emitScaledActivation(b, k, loc, evacuation, op.getResult(), acc,
                                   evacuated, tiles);
              if (out)
                k.dma(b, loc, evacuated, window(out));
              if (epilogue) {
                applyEpilogue(b, k, loc, *epilogue, tiles, {ft, pixels},
                              window);
              }
            });
      });
  k.markTiling(firstAcc, fusion ? fusion : op.getOperation(),
               std::string(stackRows ? "taps x input channels"
                                     : "input channels") +
                   (epilogue ? "+epilogue" : ""),
               {p, tileF, maxPixels});
  return success();
}

/// A depthwise conv2d on the vector engine: blocks of output rows and
/// output channels share the partitions (block-major; a channel alone
/// would leave most of them idle), pixels run along the free dimension.
/// Each block's input rows load once, one transfer per block (so the
/// blocks load side by side on several DMA engines), in runs of whole
/// image rows when the tile spans the width; each filter tap then reads its
/// window from that tile with the convolution's strides, is scaled by that
/// tap's weight of each partition and added into an fp32 accumulator, one
/// scalar_tensor_tensor per tap (multiply by per-partition scalars, add),
/// or, where the cost model times it shorter (reducesEachOutput), per
/// output its window times the weights and one tensor_reduce.
/// The weights of a tile are loaded once, one row per partition. Results
/// are stored one transfer per block, as the inputs load. In a fusion the
/// epilogue finishes each tile, its inputs loaded in the tile's (block,
/// channel) order.
LogicalResult mlir::neuron::lowerDepthwise(
    OpBuilder &rewriter, KernelLowering &k, Conv2DOp op, Value image,
    Value filter, Value result, const Epilogue *epilogue, Operation *fusion) {
  Location loc = op.getLoc();
  auto in = op.getInput().getType(), out = op.getType();
  int64_t n = in.getDimSize(0), h = in.getDimSize(2), wd = in.getDimSize(3);
  int64_t f = out.getDimSize(1), oh = out.getDimSize(2), ow = out.getDimSize(3);
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
  auto [maxRows, maxCols] =
      windowTile(k, element, oh, ow, maxPixels, {sh, sw}, {kh, kw}, {dh, dw});
  auto alu = [&](nisa::AluOp a) {
    return nisa::AluOpAttr::get(rewriter.getContext(), a);
  };
  Value firstAcc;

  // One tile: output channels [g0 * fg, (g0 + gt) * fg) of image b0,
  // columns [q0, q0 + cols), and `blocks` blocks of `rows` rows from
  // output row `r0`; partition (block, channel).
  auto computeTile = [&](OpBuilder &b, OpFoldResult b0, OpFoldResult g0,
                         int64_t gt, OpFoldResult q0, int64_t cols,
                         OpFoldResult r0, int64_t blocks, int64_t rows) {
    int64_t ft = gt * fg, parts = ft * blocks;
    int64_t inRows = (rows - 1) * sh + (kh - 1) * dh + 1,
            inCols = (cols - 1) * sw + (kw - 1) * dw + 1;
    bool eachOutput =
        reducesEachOutput(k, parts, rows * cols, taps, /*weighted=*/true);
    // Per partition its channel's taps, as the windows read them: a row of
    // taps for one instruction per tap, a [kh, kw] window for one per output.
    Value weights = k.tile(b, loc, nisa::MemorySpace::sbuf,
                           eachOutput ? SmallVector<int64_t>{parts, kh, kw}
                                      : SmallVector<int64_t>{parts, taps},
                           element);
    k.dma(b, loc,
          KernelLowering::stridedView(
              b, loc, filter,
              KernelLowering::affineSum(b, loc, {{g0, fg * taps}}),
              {blocks, ft, taps}, {0, taps, 1}),
          weights);
    // x[b0, g0 + g, (r0 + block * rows) * sh + r, q0 * sw + c] for the
    // input rows r and columns c the block's taps read, the same for
    // each of a group's fg outputs.
    Value input = k.tile(b, loc, nisa::MemorySpace::sbuf,
                         {parts, inRows, inCols}, element);
    for (int64_t block = 0; block < blocks; ++block)
      k.dma(b, loc,
            KernelLowering::stridedView(
                b, loc, image,
                KernelLowering::affineSum(b, loc,
                                          {{b0, groups * h * wd},
                                           {g0, h * wd},
                                           {r0, sh * wd},
                                           {q0, sw}},
                                          block * rows * sh * wd),
                {gt, fg, inRows, inCols}, {h * wd, 0, wd, 1}),
            KernelLowering::view(b, loc, input,
                                 {b.getIndexAttr(block * ft), b.getIndexAttr(0),
                                  b.getIndexAttr(0)},
                                 {ft, inRows, inCols}));
    Value acc =
        k.tile(b, loc, nisa::MemorySpace::sbuf, {parts, rows, cols}, f32);
    firstAcc = firstAcc ? firstAcc : acc;
    if (eachOutput) {
      // Each output: its window times the weights, summed into its element.
      Value product =
          k.tile(b, loc, nisa::MemorySpace::sbuf, {parts, kh, kw}, f32);
      forEachWindow(b, loc, input, acc, {kh, kw}, {sh, sw}, {dh, dw},
                    [&](OpBuilder &b, Value window, Value sum) {
                      nisa::TensorTensorOp::create(
                          b, loc, window, weights, product,
                          alu(nisa::AluOp::multiply));
                      nisa::TensorReduceOp::create(b, loc, product, sum,
                                                   alu(nisa::AluOp::add));
                    });
    } else {
      nisa::MemsetOp::create(b, loc, acc, b.getF64FloatAttr(0.0));
      forEachTap(b, loc, input, {parts, rows, cols}, {kh, kw}, {sh, sw},
                 {dh, dw},
                 [&](OpBuilder &b, const TilePosition &tap, Value window) {
                   Value weight = KernelLowering::view(
                       b, loc, weights,
                       {b.getIndexAttr(0),
                        KernelLowering::affineSum(
                            b, loc, {{tap.offsets[0], kw}, {tap.offsets[1], 1}})},
                       {parts, 1});
                   nisa::ScalarTensorTensorOp::create(
                       b, loc, window, weight, acc, acc,
                       alu(nisa::AluOp::multiply), alu(nisa::AluOp::add),
                       FloatAttr());
                 });
    }
    Value stored = acc;
    if (out.getElementType() != f32) {
      stored = k.tile(b, loc, nisa::MemorySpace::sbuf, {parts, rows, cols},
                      out.getElementType());
      k.activation(b, loc, acc, stored, nisa::ActivationFunction::identity);
    }
    // Block `block`'s part of a [N, F, OH, OW] buffer: [ft, rows, cols],
    // on the tile's partitions [block * ft, (block + 1) * ft). One transfer
    // per block each way, as the input rows load: the scheduler cuts each
    // into pieces for the DMA engines, which one transfer between [blocks,
    // ft, ...] and [blocks * ft, ...] it cannot.
    auto window = [&](Value buffer, int64_t block) {
      SmallVector<int64_t> st;
      int64_t offset = 0;
      (void)stridesAndOffset(cast<MemRefType>(buffer.getType()), st, offset);
      return KernelLowering::stridedView(
          b, loc, buffer,
          KernelLowering::affineSum(
              b, loc, {{b0, st[0]}, {g0, fg * st[1]}, {r0, st[2]}, {q0, st[3]}},
              offset + block * rows * st[2]),
          {ft, rows, cols}, {st[1], st[2], st[3]});
    };
    auto tileBlock = [&](Value tile, int64_t block) {
      return KernelLowering::view(b, loc, tile,
                                  {b.getIndexAttr(block * ft),
                                   b.getIndexAttr(0), b.getIndexAttr(0)},
                                  {ft, rows, cols});
    };
    auto store = [&](Value tile, Value buffer) {
      for (int64_t block = 0; block < blocks; ++block)
        k.dma(b, loc, tileBlock(tile, block), window(buffer, block));
    };
    if (result)
      store(stored, result);
    if (!epilogue)
      return;
    DenseMap<Value, Value> tiles{{op.getResult(), stored}};
    applyEpilogue(
        b, k, loc, *epilogue, tiles, {parts, rows, cols}, /*window=*/nullptr,
        [&](Value source) {
          Value tile = k.tile(
              b, loc, nisa::MemorySpace::sbuf, {parts, rows, cols},
              cast<MemRefType>(source.getType()).getElementType());
          for (int64_t block = 0; block < blocks; ++block)
            k.dma(b, loc, window(source, block), tileBlock(tile, block));
          return tile;
        },
        store);
  };

  KernelLowering::forEachTile(
      rewriter, loc,
      {{n, 1}, {groups, std::max<int64_t>(1, p / fg)}, {ow, maxCols}},
      [&](OpBuilder &b, const TilePosition &at) {
        OpFoldResult b0 = at.offsets[0], g0 = at.offsets[1], q0 = at.offsets[2];
        int64_t gt = at.sizes[1], cols = at.sizes[2];
        forEachRowChunk(
            b, loc, oh, std::max<int64_t>(1, p / (gt * fg)),
            std::clamp<int64_t>(maxPixels / cols, 1, maxRows),
            [&](OpBuilder &b, OpFoldResult r0, int64_t blocks, int64_t rows) {
              computeTile(b, b0, g0, gt, q0, cols, r0, blocks, rows);
            });
      });
  k.markTiling(firstAcc, fusion ? fusion : op.getOperation(),
               epilogue ? "channels x row groups+epilogue"
                        : "channels x row groups",
               {p, maxPixels});
  return success();
}

namespace {

/// A conv2d the engines tile: depthwise on the vector engine, the others
/// on the tensor engine.
struct ConvToTiles : NisaPattern<Conv2DOp> {
  using NisaPattern::NisaPattern;
  LogicalResult
  matchAndRewrite(Conv2DOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isEngineTiled(op))
      return op.emitError() << "convert-neuron-to-nisa: only nchw_fchw "
                               "float convolutions without bias or padding "
                               "are tiled yet";
    Value result = k.resultBuffer(rewriter, op.getResult());
    auto lower = isDepthwise(k, op) ? lowerDepthwise : lowerConv2D;
    if (failed(lower(rewriter, k, op, adaptor.getInput(), adaptor.getFilter(),
                     result, /*epilogue=*/nullptr, /*fusion=*/nullptr)))
      return failure();
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
    if (!isEngineTiled(op))
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
    Type element = in.getElementType();
    int64_t pixelBudget =
        std::max<int64_t>(1, k.config.elementwiseBytes / elementBytes(element));
    auto [rowsPerTile, colsPerTile] = windowTile(
        k, element, oh, ow, pixelBudget, {sh, sw}, {kh, kw}, {dh, dw});
    bool max = op.getKind() == PoolKind::max;
    auto alu = nisa::AluOpAttr::get(rewriter.getContext(),
                                    max ? nisa::AluOp::max : nisa::AluOp::add);
    double identity = max ? -std::numeric_limits<double>::infinity() : 0.0;
    Value image = adaptor.getInput();
    Value result = k.resultBuffer(rewriter, op.getResult());
    Value firstAcc;
    KernelLowering::forEachTile(
        rewriter, loc, {{n, 1}, {c, p}, {oh, rowsPerTile}, {ow, colsPerTile}},
        [&](OpBuilder &b, const TilePosition &at) {
          OpFoldResult b0 = at.offsets[0], c0 = at.offsets[1],
                       r0 = at.offsets[2], q0 = at.offsets[3];
          int64_t ct = at.sizes[1], rt = at.sizes[2], qt = at.sizes[3];
          int64_t inRows = inputExtent(rt, sh, kh, dh),
                  inCols = inputExtent(qt, sw, kw, dw);
          // The input rows the tile's windows cover, loaded once.
          Value input = k.tile(b, loc, nisa::MemorySpace::sbuf,
                               {ct, inRows, inCols}, element);
          k.dma(b, loc,
                KernelLowering::stridedView(
                    b, loc, image,
                    KernelLowering::affineSum(b, loc,
                                              {{b0, c * h * wd},
                                               {c0, cStride},
                                               {r0, sh * rowStride},
                                               {q0, sw * colStride}}),
                    {ct, inRows, inCols}, {cStride, rowStride, colStride}),
                input);
          Value acc =
              k.tile(b, loc, nisa::MemorySpace::sbuf, {ct, rt, qt}, element);
          firstAcc = firstAcc ? firstAcc : acc;
          if (reducesEachOutput(k, ct, rt * qt, kh * kw,
                                /*weighted=*/false)) {
            forEachWindow(b, loc, input, acc, {kh, kw}, {sh, sw}, {dh, dw},
                          [&](OpBuilder &b, Value window, Value pooled) {
                            nisa::TensorReduceOp::create(b, loc, window,
                                                         pooled, alu);
                          });
          } else {
            nisa::MemsetOp::create(b, loc, acc, b.getF64FloatAttr(identity));
            forEachTap(b, loc, input, {ct, rt, qt}, {kh, kw}, {sh, sw},
                       {dh, dw},
                       [&](OpBuilder &b, const TilePosition &, Value window) {
                         nisa::TensorTensorOp::create(b, loc, acc, window, acc,
                                                      alu);
                       });
          }
          Value pooled = acc;
          if (op.getKind() == PoolKind::avg) {
            pooled = k.tile(b, loc, nisa::MemorySpace::sbuf, {ct, rt, qt},
                            out.getElementType());
            nisa::TensorScalarOp::create(
                b, loc, acc, pooled,
                nisa::AluOpAttr::get(b.getContext(), nisa::AluOp::multiply),
                b.getF64FloatAttr(1.0 / static_cast<double>(kh * kw)));
          }
          k.dma(b, loc, pooled,
                KernelLowering::stridedView(
                    b, loc, result,
                    KernelLowering::affineSum(b, loc,
                                              {{b0, c * oh * ow},
                                               {c0, outC},
                                               {r0, outRow},
                                               {q0, outCol}}),
                    {ct, rt, qt}, {outC, outRow, outCol}));
        });
    k.markTiling(firstAcc, op, "channels", {p, rowsPerTile * colsPerTile});
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::neuron::populateConvolutionPatterns(RewritePatternSet &patterns,
                                               const TypeConverter &converter,
                                               KernelLowering &lowering) {
  patterns.add<ConvToTiles, Pool2DToTaps>(converter, patterns.getContext(),
                                          lowering);
}
