//===- NeuronToNisa.cpp - tiling neuron graphs into nisa instructions -----===//
//
// `convert-neuron-to-nisa` turns each function on tensors into a kernel on
// HBM buffers: tensors become HBM memrefs (arguments, results as output
// arguments, scratch allocations, constants as globals), and every op
// becomes DMA transfers into [partition][free] tiles of SBUF/PSUM and the
// engine instructions that compute on them. Tile sizes come from the target
// description (partitions, PSUM bank, SBUF per partition), never from
// constants here. On-chip tiles are `memref.alloc`s in SBUF/PSUM; their
// addresses are `nisa-allocate`'s job.
//
// Tiled so far: matmul and batch_matmul (K on partitions, accumulation over
// K tiles in a PSUM bank, evacuation through the scalar engine), elementwise
// unary ops and casts (scalar engine), elementwise binary ops (vector
// engine), reshape (a view) and constant. Other ops are an error naming the
// op.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "dialects/nisa/IR/NisaOps.h"
#include "passes/Decompose.h"
#include "runtime/target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_CONVERTNEURONTONISA
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;
namespace rt = ::neuron::rt;

namespace {

/// 2 KiB per partition: a 256 KiB transfer over 128 partitions.
static constexpr int64_t kElementwiseTileBytes = 2048;

/// What the target allows a tile to be, from its description.
struct TileConfig {
  nisa::LimitsAttr limits;
  int64_t dmaQueues = 1;
  /// Bytes per partition one elementwise tile may take: an eighth of SBUF
  /// (room for the operands, the result and multi-buffering), and at most
  /// kElementwiseTileBytes, so a large tensor moves as many transfers that
  /// spread over the DMA queues and pipeline with the engines rather than
  /// one long transfer on one queue.
  int64_t elementwiseBytes = 0;
};

/// Builds one kernel: the instructions of each op, in order.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, const TileConfig &config, ModuleOp module)
      : b(b), config(config), module(module) {}

  /// The HBM buffer holding each tensor value.
  DenseMap<Value, Value> buffers;
  /// Where a value the function returns must be written.
  DenseMap<Value, Value> outputs;

  LogicalResult lower(Operation *op);

  /// Copies a whole HBM buffer into another (a returned argument).
  void copyWhole(Location loc, Value src, Value dst) { dma(loc, src, dst); }

private:
  /// Ops computed on each output tile after the producer, and the HBM
  /// buffers some of their values are stored to (a fusion's results).
  struct Epilogue {
    SmallVector<Operation *> ops;
    DenseMap<Value, Value> stores;
  };

  LogicalResult lowerMatmul(Operation *op, Value lhs, Value rhs, Value out,
                            bool batched, const Epilogue *epilogue = nullptr);
  LogicalResult lowerElementwise(Operation *op);
  LogicalResult lowerFusion(FusionOp fusion);
  LogicalResult lowerSoftmax(SoftmaxOp op);
  void computeTile(Location loc, Operation *op, ArrayRef<Value> operands,
                   Value result);
  void applyEpilogue(Location loc, const Epilogue &epilogue,
                     DenseMap<Value, Value> &tiles,
                     ArrayRef<int64_t> tileShape,
                     llvm::function_ref<Value(Value)> window);
  LogicalResult lowerReduction(Operation *op, ArrayRef<int64_t> axes,
                               nisa::AluOp alu);
  LogicalResult lowerConv2D(Conv2DOp op);
  LogicalResult lowerPad(PadOp op);
  LogicalResult lowerPool2D(Pool2DOp op);
  LogicalResult lowerGather(GatherOp op);
  Value stridedView(Location loc, Value buffer, int64_t offset,
                    ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides);
  Value broadcastView(Location loc, Value buffer, RankedTensorType input,
                      RankedTensorType result, ArrayRef<int64_t> dims);
  Value permutedView(Location loc, Value buffer, ArrayRef<int64_t> perm);
  Value constantBuffer(ConstantOp op);
  Value resultBuffer(Value result);

  Value tile(nisa::MemorySpace space, ArrayRef<int64_t> shape, Type element);
  void dma(Location loc, Value src, Value dst);
  void activation(Location loc, Value src, Value dst,
                  nisa::ActivationFunction function);
  Value view(Location loc, Value memref, ArrayRef<int64_t> offsets,
             ArrayRef<int64_t> sizes);
  Value reinterpret(Location loc, Value memref, ArrayRef<int64_t> shape);
  void markTiling(Operation *first, Operation *op, StringRef partition,
                  ArrayRef<int64_t> tileShape);

  int64_t partitions() const { return config.limits.getPartitions(); }

  OpBuilder &b;
  const TileConfig &config;
  ModuleOp module;
  int64_t nextQueue = 0;
  int64_t nextGlobal = 0;
};

} // namespace

static Attribute spaceAttr(MLIRContext *context, nisa::MemorySpace space) {
  return nisa::MemorySpaceAttr::get(context, space);
}

/// The HBM memref type of a tensor type.
static MemRefType hbmType(RankedTensorType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         MemRefLayoutAttrInterface(),
                         spaceAttr(type.getContext(), nisa::MemorySpace::hbm));
}

Value KernelBuilder::tile(nisa::MemorySpace space, ArrayRef<int64_t> shape,
                          Type element) {
  auto type = MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                              spaceAttr(b.getContext(), space));
  return memref::AllocOp::create(b, b.getUnknownLoc(), type);
}

void KernelBuilder::dma(Location loc, Value src, Value dst) {
  nisa::DmaCopyOp::create(b, loc, src, dst,
                          b.getI64IntegerAttr(nextQueue++ % config.dmaQueues));
}

void KernelBuilder::activation(Location loc, Value src, Value dst,
                               nisa::ActivationFunction function) {
  nisa::ActivationOp::create(
      b, loc, src, dst, /*bias=*/Value(),
      nisa::ActivationFunctionAttr::get(b.getContext(), function),
      b.getF64FloatAttr(1.0));
}

Value KernelBuilder::view(Location loc, Value memref, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> strides(offsets.size(), 1);
  return memref::SubViewOp::create(b, loc, memref, offsets, sizes, strides);
}

Value KernelBuilder::reinterpret(Location loc, Value memref,
                                 ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getShape() == shape)
    return memref;
  SmallVector<OpFoldResult> sizes, strides;
  int64_t stride = 1;
  SmallVector<int64_t> reversed;
  for (int64_t d : llvm::reverse(shape)) {
    reversed.push_back(stride);
    stride *= d;
  }
  for (auto [size, s] : llvm::zip(shape, llvm::reverse(reversed))) {
    sizes.push_back(b.getIndexAttr(size));
    strides.push_back(b.getIndexAttr(s));
  }
  auto result = MemRefType::get(shape, type.getElementType(),
                                MemRefLayoutAttrInterface(),
                                type.getMemorySpace());
  return memref::ReinterpretCastOp::create(b, loc, result, memref,
                                           b.getIndexAttr(0), sizes, strides);
}

void KernelBuilder::markTiling(Operation *first, Operation *op,
                               StringRef partition,
                               ArrayRef<int64_t> tileShape) {
  if (!first)
    return;
  first->setAttr("nisa.tiling",
                 b.getDictionaryAttr(
                     {b.getNamedAttr("op", b.getStringAttr(
                                               op->getName().getStringRef())),
                      b.getNamedAttr("partition", b.getStringAttr(partition)),
                      b.getNamedAttr("tile", b.getDenseI64ArrayAttr(tileShape)),
                      b.getNamedAttr("buffers", b.getStringAttr("sbuf,psum"))}));
}

Value KernelBuilder::resultBuffer(Value result) {
  if (Value out = outputs.lookup(result))
    return out;
  auto type = cast<RankedTensorType>(result.getType());
  return memref::AllocOp::create(b, result.getLoc(), hbmType(type));
}

Value KernelBuilder::constantBuffer(ConstantOp op) {
  auto type = hbmType(cast<RankedTensorType>(op.getType()));
  OpBuilder global(module.getBodyRegion());
  std::string name = "__neuron_constant_" + std::to_string(nextGlobal++);
  memref::GlobalOp::create(global, op.getLoc(), name,
                           global.getStringAttr("private"), type,
                           op.getValue(), /*constant=*/true,
                           /*alignment=*/IntegerAttr());
  return memref::GetGlobalOp::create(b, op.getLoc(), type, name);
}

/// The activation function of a unary neuron op (casts convert on store).
static std::optional<nisa::ActivationFunction> activationOf(Operation *op) {
  using F = nisa::ActivationFunction;
  return llvm::TypeSwitch<Operation *, std::optional<F>>(op)
      .Case([](ExpOp) { return F::exp; })
      .Case([](LogOp) { return F::log; })
      .Case([](TanhOp) { return F::tanh; })
      .Case([](SigmoidOp) { return F::sigmoid; })
      .Case([](ReluOp) { return F::relu; })
      .Case([](SiluOp) { return F::silu; })
      .Case([](RsqrtOp) { return F::rsqrt; })
      .Case([](SqrtOp) { return F::sqrt; })
      .Case([](NegOp) { return F::neg; })
      .Case([](AbsOp) { return F::abs; })
      .Case([](ReciprocalOp) { return F::reciprocal; })
      .Case([](ErfOp) { return F::erf; })
      .Case([](CastOp) { return F::identity; })
      .Case([](GeluOp g) {
        return g.getApproximate() == GeluApproximation::tanh ? F::gelu_tanh
                                                              : F::gelu;
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// The vector-engine comparison of a neuron.compare predicate (1 or 0; with
/// a NaN operand 0, except for ne).
static nisa::AluOp compareAluOf(ComparePredicate predicate) {
  switch (predicate) {
  case ComparePredicate::eq:
    return nisa::AluOp::is_equal;
  case ComparePredicate::ne:
    return nisa::AluOp::not_equal;
  case ComparePredicate::lt:
    return nisa::AluOp::is_lt;
  case ComparePredicate::le:
    return nisa::AluOp::is_le;
  case ComparePredicate::gt:
    return nisa::AluOp::is_gt;
  case ComparePredicate::ge:
    return nisa::AluOp::is_ge;
  }
  llvm_unreachable("unknown compare predicate");
}

/// The vector-engine operation of a binary neuron op.
static std::optional<nisa::AluOp> aluOf(Operation *op) {
  using A = nisa::AluOp;
  return llvm::TypeSwitch<Operation *, std::optional<A>>(op)
      .Case([](AddOp) { return A::add; })
      .Case([](SubOp) { return A::subtract; })
      .Case([](MulOp) { return A::multiply; })
      .Case([](DivOp) { return A::divide; })
      .Case([](MaxOp) { return A::max; })
      .Case([](MinOp) { return A::min; })
      .Case([](PowOp) { return A::pow; })
      .Default([](Operation *) { return std::nullopt; });
}

LogicalResult KernelBuilder::lower(Operation *op) {
  Location loc = op->getLoc();
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    buffers[constant] = constantBuffer(constant);
    return success();
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    // HBM buffers are contiguous: a reshape is a new view of the same bytes.
    buffers[reshape] = reinterpret(loc, buffers.lookup(reshape.getInput()),
                                   reshape.getType().getShape());
    return success();
  }
  // Data movement is DMA between HBM access patterns: a permuted view, a
  // view with zero strides, a strided window, disjoint windows.
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    Value out = resultBuffer(transpose);
    dma(loc,
        permutedView(loc, buffers.lookup(transpose.getInput()),
                     transpose.getPermutation()),
        out);
    buffers[transpose] = out;
    return success();
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
    Value out = resultBuffer(broadcast);
    dma(loc,
        broadcastView(loc, buffers.lookup(broadcast.getInput()),
                      broadcast.getInput().getType(), broadcast.getType(),
                      broadcast.getDimensions()),
        out);
    buffers[broadcast] = out;
    return success();
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    Value out = resultBuffer(slice);
    Value window = memref::SubViewOp::create(
        b, loc, buffers.lookup(slice.getInput()), slice.getOffsets(),
        slice.getType().getShape(), slice.getStrides());
    dma(loc, window, out);
    buffers[slice] = out;
    return success();
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    Value out = resultBuffer(concat);
    int64_t axis = concat.getAxis(), offset = 0;
    for (Value input : concat.getInputs()) {
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<int64_t> offsets(type.getRank(), 0);
      offsets[axis] = offset;
      dma(loc, buffers.lookup(input), view(loc, out, offsets, type.getShape()));
      offset += type.getDimSize(axis);
    }
    buffers[concat] = out;
    return success();
  }
  if (auto fusion = dyn_cast<FusionOp>(op))
    return lowerFusion(fusion);
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    return lowerSoftmax(softmax);
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return lowerConv2D(conv);
  if (auto pad = dyn_cast<PadOp>(op))
    return lowerPad(pad);
  if (auto pool = dyn_cast<Pool2DOp>(op))
    return lowerPool2D(pool);
  if (auto gather = dyn_cast<GatherOp>(op))
    return lowerGather(gather);
  if (auto r = dyn_cast<ReduceSumOp>(op))
    return lowerReduction(op, r.getAxes(), nisa::AluOp::add);
  if (auto r = dyn_cast<ReduceMaxOp>(op))
    return lowerReduction(op, r.getAxes(), nisa::AluOp::max);
  if (auto r = dyn_cast<ReduceMinOp>(op))
    return lowerReduction(op, r.getAxes(), nisa::AluOp::min);
  if (auto matmul = dyn_cast<MatmulOp>(op))
    return lowerMatmul(op, matmul.getLhs(), matmul.getRhs(),
                       matmul.getResult(), /*batched=*/false);
  if (auto matmul = dyn_cast<BatchMatmulOp>(op))
    return lowerMatmul(op, matmul.getLhs(), matmul.getRhs(),
                       matmul.getResult(), /*batched=*/true);
  if (isa<CompareOp, SelectOp>(op))
    return lowerElementwise(op);
  if (activationOf(op) || aluOf(op))
    return lowerElementwise(op);
  return op->emitError() << "convert-neuron-to-nisa: '" << op->getName()
                         << "' is not tiled yet";
}

Value KernelBuilder::permutedView(Location loc, Value buffer,
                                  ArrayRef<int64_t> perm) {
  SmallVector<unsigned> order(perm.begin(), perm.end());
  return memref::TransposeOp::create(
      b, loc, buffer,
      AffineMapAttr::get(AffineMap::getPermutationMap(order, b.getContext())));
}

/// A view of the contiguous `buffer` (of type `input`) as `result`, reading
/// input dimension i at result dimension dims[i] and repeating the rest
/// with zero strides.
Value KernelBuilder::broadcastView(Location loc, Value buffer,
                                   RankedTensorType input,
                                   RankedTensorType result,
                                   ArrayRef<int64_t> dims) {
  SmallVector<int64_t> inputStrides(input.getRank(), 1);
  for (int64_t i = input.getRank() - 2; i >= 0; --i)
    inputStrides[i] = inputStrides[i + 1] * input.getDimSize(i + 1);
  SmallVector<int64_t> strides(result.getRank(), 0);
  for (auto [i, d] : llvm::enumerate(dims))
    if (input.getDimSize(i) == result.getDimSize(d))
      strides[d] = inputStrides[i];
  SmallVector<OpFoldResult> sizeAttrs, strideAttrs;
  for (auto [size, stride] : llvm::zip(result.getShape(), strides)) {
    sizeAttrs.push_back(b.getIndexAttr(size));
    strideAttrs.push_back(b.getIndexAttr(stride));
  }
  auto type = MemRefType::get(
      result.getShape(), result.getElementType(),
      StridedLayoutAttr::get(b.getContext(), 0, strides),
      spaceAttr(b.getContext(), nisa::MemorySpace::hbm));
  return memref::ReinterpretCastOp::create(b, loc, type, buffer,
                                           b.getIndexAttr(0), sizeAttrs,
                                           strideAttrs);
}

/// Reductions put the kept dimensions on partitions and the reduced ones in
/// the free dimension: the input is permuted (by DMA into scratch) so the
/// reduced axes come last, viewed as [rows, cols], and each row tile is
/// reduced chunk by chunk on the vector engine, the chunks combined.
LogicalResult KernelBuilder::lowerReduction(Operation *op,
                                            ArrayRef<int64_t> axes,
                                            nisa::AluOp alu) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
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
  Value source = buffers.lookup(input);
  bool identity = llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
  if (!identity) {
    Value scratch = memref::AllocOp::create(
        b, loc, hbmType(inputType.clone(permutedShape)));
    dma(loc, permutedView(loc, source, perm), scratch);
    source = scratch;
  }
  Value in = reinterpret(loc, source, {rows, cols});
  Value out = resultBuffer(op->getResult(0));
  Value outView = reinterpret(loc, out, {rows, 1});
  Type element = resultType.getElementType();
  int64_t p = partitions();
  int64_t tileCols = std::max<int64_t>(
      1, std::min(cols, config.elementwiseBytes * 8 /
                            inputType.getElementTypeBitWidth()));
  Operation *first = nullptr;
  for (int64_t r0 = 0; r0 < rows; r0 += p) {
    int64_t rt = std::min(p, rows - r0);
    Value acc;
    for (int64_t c0 = 0; c0 < cols; c0 += tileCols) {
      int64_t ct = std::min(tileCols, cols - c0);
      Value t = tile(nisa::MemorySpace::sbuf, {rt, ct},
                     inputType.getElementType());
      if (!first)
        first = t.getDefiningOp();
      dma(loc, view(loc, in, {r0, c0}, {rt, ct}), t);
      Value part = tile(nisa::MemorySpace::sbuf, {rt, 1}, element);
      nisa::TensorReduceOp::create(b, loc, t, part,
                                   nisa::AluOpAttr::get(b.getContext(), alu));
      if (acc)
        nisa::TensorTensorOp::create(
            b, loc, acc, part, acc, nisa::AluOpAttr::get(b.getContext(), alu));
      else
        acc = part;
    }
    dma(loc, acc, view(loc, outView, {r0, 0}, {rt, 1}));
  }
  markTiling(first, op, "kept dims", {p, tileCols});
  buffers[op->getResult(0)] = out;
  return success();
}

/// An arbitrary static access pattern into the contiguous `buffer`.
Value KernelBuilder::stridedView(Location loc, Value buffer, int64_t offset,
                                 ArrayRef<int64_t> sizes,
                                 ArrayRef<int64_t> strides) {
  auto source = cast<MemRefType>(buffer.getType());
  SmallVector<OpFoldResult> sizeAttrs, strideAttrs;
  for (auto [size, stride] : llvm::zip(sizes, strides)) {
    sizeAttrs.push_back(b.getIndexAttr(size));
    strideAttrs.push_back(b.getIndexAttr(stride));
  }
  auto type = MemRefType::get(
      sizes, source.getElementType(),
      StridedLayoutAttr::get(b.getContext(), offset, strides),
      source.getMemorySpace());
  return memref::ReinterpretCastOp::create(
      b, loc, type, buffer, b.getIndexAttr(offset), sizeAttrs, strideAttrs);
}

/// conv2d (nchw_fchw, no bias, no padding: the import pads separately) as
/// shifted matmuls: for each filter tap (kh, kw) and input-channel tile, the
/// stationary operand is w[f-tile, c-tile, kh, kw]^T and the moving one the
/// image read at that tap's offset with the stride, [c-tile, pixels]; the
/// taps and channel tiles accumulate in PSUM. Groups convolve their own
/// channel ranges.
LogicalResult KernelBuilder::lowerConv2D(Conv2DOp op) {
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
  int64_t p = partitions();
  int64_t tileF = config.limits.getStationaryFree();
  int64_t maxPixels = std::min(config.limits.getMovingFree(),
                               config.limits.getPsumBankBytes() / 4);
  if (ow > maxPixels)
    return op.emitError() << "convert-neuron-to-nisa: output rows wider "
                             "than a PSUM bank are not tiled yet";
  int64_t rowsPerTile = std::max<int64_t>(1, maxPixels / ow);
  Value image = buffers.lookup(op.getInput()),
        filter = buffers.lookup(op.getFilter());
  Value result = resultBuffer(op.getResult());
  Type element = in.getElementType();
  Operation *first = nullptr;
  for (int64_t b0 = 0; b0 < n; ++b0)
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t f0 = 0; f0 < fg; f0 += tileF)
        for (int64_t r0 = 0; r0 < oh; r0 += rowsPerTile) {
          int64_t ft = std::min(tileF, fg - f0);
          int64_t rt = std::min(rowsPerTile, oh - r0);
          int64_t pixels = rt * ow;
          Value acc = tile(nisa::MemorySpace::psum, {ft, pixels},
                           b.getF32Type());
          if (!first)
            first = acc.getDefiningOp();
          bool started = false;
          for (int64_t c0 = 0; c0 < cg; c0 += p)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                int64_t ct = std::min(p, cg - c0);
                int64_t cAbs = g * cg + c0, fAbs = g * fg + f0;
                // w[fAbs.., cAbs.., i, j] read as [c, f].
                Value stationary =
                    tile(nisa::MemorySpace::sbuf, {ct, ft}, element);
                dma(loc,
                    stridedView(loc, filter,
                                ((fAbs * cg + c0) * kh + i) * kw + j,
                                {ct, ft}, {kh * kw, cg * kh * kw}),
                    stationary);
                // x[b0, cAbs.., (r0 + r) * sh + i * dh, q * sw + j * dw].
                Value moving =
                    tile(nisa::MemorySpace::sbuf, {ct, pixels}, element);
                dma(loc,
                    stridedView(loc, image,
                                ((b0 * c + cAbs) * h + r0 * sh + i * dh) * wd +
                                    j * dw,
                                {ct, rt, ow}, {h * wd, sh * wd, sw}),
                    moving);
                nisa::MatmulOp::create(b, loc, stationary, moving, acc,
                                       /*accumulate=*/started, ValueRange());
                started = true;
              }
          Value evacuated = tile(nisa::MemorySpace::sbuf, {ft, pixels},
                                 out.getElementType());
          activation(loc, acc, evacuated, nisa::ActivationFunction::identity);
          dma(loc, evacuated,
              stridedView(loc, result,
                          ((b0 * f + g * fg + f0) * oh + r0) * ow,
                          {ft, rt, ow}, {oh * ow, ow, 1}));
        }
  markTiling(first, op, "input channels", {p, tileF, maxPixels});
  buffers[op.getResult()] = result;
  return success();
}

/// pool2d (nchw or nhwc, no padding: the import pads separately): channels on
/// partitions, output pixels in the free dimension; each window tap is a
/// strided DMA of the image combined on the vector engine (max or add);
/// an average then scales by 1 / taps.
LogicalResult KernelBuilder::lowerPool2D(Pool2DOp op) {
  Location loc = op.getLoc();
  auto in = op.getInput().getType(), out = op.getType();
  if (llvm::any_of(op.getPadding(), [](int64_t p) { return p != 0; }) ||
      !isa<FloatType>(in.getElementType()))
    return op.emitError() << "convert-neuron-to-nisa: only float pooling "
                             "without padding is tiled yet";
  // Element strides of (channel, row, column) in NCHW or NHWC, and the
  // dimension positions.
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
  int64_t p = partitions();
  int64_t pixelBudget = std::max<int64_t>(
      1, config.elementwiseBytes * 8 / in.getElementTypeBitWidth());
  int64_t rowsPerTile = std::max<int64_t>(1, pixelBudget / std::max<int64_t>(ow, 1));
  nisa::AluOp alu =
      op.getKind() == PoolKind::max ? nisa::AluOp::max : nisa::AluOp::add;
  Value image = buffers.lookup(op.getInput());
  Value result = resultBuffer(op.getResult());
  Type element = in.getElementType();
  Operation *first = nullptr;
  for (int64_t b0 = 0; b0 < n; ++b0)
    for (int64_t c0 = 0; c0 < c; c0 += p)
      for (int64_t r0 = 0; r0 < oh; r0 += rowsPerTile) {
        int64_t ct = std::min(p, c - c0), rt = std::min(rowsPerTile, oh - r0);
        int64_t pixels = rt * ow;
        Value acc = tile(nisa::MemorySpace::sbuf, {ct, pixels}, element);
        if (!first)
          first = acc.getDefiningOp();
        bool started = false;
        for (int64_t i = 0; i < kh; ++i)
          for (int64_t j = 0; j < kw; ++j) {
            Value tap = started
                            ? tile(nisa::MemorySpace::sbuf, {ct, pixels}, element)
                            : acc;
            dma(loc,
                stridedView(loc, image,
                            b0 * c * h * wd + c0 * cStride +
                                (r0 * sh + i * dh) * rowStride +
                                j * dw * colStride,
                            {ct, rt, ow},
                            {cStride, sh * rowStride, sw * colStride}),
                tap);
            if (started)
              nisa::TensorTensorOp::create(
                  b, loc, acc, tap, acc,
                  nisa::AluOpAttr::get(b.getContext(), alu));
            started = true;
          }
        Value pooled = acc;
        if (op.getKind() == PoolKind::avg) {
          pooled = tile(nisa::MemorySpace::sbuf, {ct, pixels},
                        out.getElementType());
          nisa::TensorScalarOp::create(
              b, loc, acc, pooled,
              nisa::AluOpAttr::get(b.getContext(), nisa::AluOp::multiply),
              b.getF64FloatAttr(1.0 / static_cast<double>(kh * kw)));
        }
        dma(loc, pooled,
            stridedView(loc, result,
                        b0 * c * oh * ow + c0 * outC + r0 * outRow,
                        {ct, rt, ow}, {outC, outRow, outCol}));
      }
  markTiling(first, op, "channels", {p, rowsPerTile * ow});
  buffers[op.getResult()] = result;
  return success();
}

/// A constant pad: the whole result is filled (memset tiles copied out),
/// then the input is copied into its interior window.
LogicalResult KernelBuilder::lowerPad(PadOp op) {
  Location loc = op.getLoc();
  auto type = op.getType();
  Value out = resultBuffer(op.getResult());
  int64_t elements = type.getNumElements(), p = partitions();
  int64_t rows = elements % p == 0 ? p : 1, cols = elements / rows;
  // One filled tile, copied out as many times as it fits evenly.
  int64_t tileCols = std::max<int64_t>(
      1, std::min(cols, config.elementwiseBytes * 8 /
                            type.getElementTypeBitWidth()));
  while (cols % tileCols)
    --tileCols;
  Value fill = tile(nisa::MemorySpace::sbuf, {rows, tileCols},
                    type.getElementType());
  nisa::MemsetOp::create(b, loc, fill, op.getValueAttr());
  Value flat = reinterpret(loc, out, {rows, cols});
  for (int64_t c0 = 0; c0 < cols; c0 += tileCols)
    dma(loc, fill, view(loc, flat, {0, c0}, {rows, tileCols}));
  dma(loc, buffers.lookup(op.getInput()),
      view(loc, out, op.getLow(), op.getInput().getType().getShape()));
  markTiling(fill.getDefiningOp(), op, "flattened", {rows, tileCols});
  buffers[op.getResult()] = out;
  return success();
}

/// result[M, N] = lhs[M, K] x rhs[K, N], per batch: K goes on partitions;
/// each [M-tile, N-tile] accumulates over the K tiles in one PSUM bank and is
/// evacuated to SBUF by the scalar engine, converting to the result type.
LogicalResult KernelBuilder::lowerMatmul(Operation *op, Value lhs, Value rhs,
                                         Value result, bool batched,
                                         const Epilogue *epilogue) {
  Location loc = op->getLoc();
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  auto resultType = cast<RankedTensorType>(result.getType());
  Type element = lhsType.getElementType();
  if (!isa<FloatType>(element))
    return op->emitError() << "convert-neuron-to-nisa: integer matmuls are "
                              "not tiled yet (fallback=decompose widens i8)";
  int64_t r = lhsType.getRank();
  int64_t batches = batched ? lhsType.getDimSize(0) : 1;
  int64_t m = lhsType.getDimSize(r - 2), k = lhsType.getDimSize(r - 1),
          n = rhsType.getDimSize(r - 1);
  int64_t tileK = partitions();
  int64_t tileM = config.limits.getStationaryFree();
  int64_t tileN = std::min(config.limits.getMovingFree(),
                           config.limits.getPsumBankBytes() / 4);
  Value a = buffers.lookup(lhs), bm = buffers.lookup(rhs);
  // Fused, the product reaches HBM only if the fusion returns it.
  Value out = epilogue ? epilogue->stores.lookup(result) : resultBuffer(result);
  Operation *evacuatedBy = nullptr;
  if (epilogue && !out && result.hasOneUse() && !epilogue->ops.empty() &&
      *result.user_begin() == epilogue->ops.front() &&
      activationOf(epilogue->ops.front()) &&
      !isa<CastOp>(epilogue->ops.front()))
    evacuatedBy = epilogue->ops.front();
  Operation *first = nullptr;
  // A rank-2 view of batch `i` of a (possibly batched) buffer.
  auto matrix = [&](Value buffer, int64_t i, ArrayRef<int64_t> offsets,
                    ArrayRef<int64_t> sizes) -> Value {
    if (!batched)
      return view(loc, buffer, offsets, sizes);
    SmallVector<int64_t> off{i}, sz{1}, one(3, 1);
    llvm::append_range(off, offsets);
    llvm::append_range(sz, sizes);
    MemRefType type = memref::SubViewOp::inferRankReducedResultType(
        sizes, cast<MemRefType>(buffer.getType()), off, sz, one);
    return memref::SubViewOp::create(b, loc, type, buffer, off, sz, one);
  };
  AffineMapAttr swap = AffineMapAttr::get(
      AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, b.getContext()));
  int64_t elementBytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  int64_t kTiles = llvm::divideCeil(k, tileK);
  // The stationary tile lhs^T[K-tile, M-tile] and the moving tile
  // rhs[K-tile, N-tile], each loaded by one transfer.
  auto loadStationary = [&](int64_t bi, int64_t m0, int64_t mt, int64_t k0) {
    int64_t kt = std::min(tileK, k - k0);
    Value lhsT = memref::TransposeOp::create(
        b, loc, matrix(a, bi, {m0, k0}, {mt, kt}), swap);
    Value stationary = tile(nisa::MemorySpace::sbuf, {kt, mt}, element);
    dma(loc, lhsT, stationary);
    return stationary;
  };
  auto loadMoving = [&](int64_t bi, int64_t n0, int64_t nt, int64_t k0) {
    int64_t kt = std::min(tileK, k - k0);
    Value moving = tile(nisa::MemorySpace::sbuf, {kt, nt}, element);
    dma(loc, matrix(bm, bi, {k0, n0}, {kt, nt}), moving);
    return moving;
  };
  // One [M-tile, N-tile] of the result: accumulate over K in PSUM, then the
  // scalar engine evacuates it, applying the epilogue's leading activation
  // on the way when nothing else reads the raw product.
  auto outputTile = [&](int64_t bi, int64_t m0, int64_t n0,
                        function_ref<Value(int64_t)> stationaryAt,
                        function_ref<Value(int64_t)> movingAt) {
    int64_t mt = std::min(tileM, m - m0), nt = std::min(tileN, n - n0);
    Value acc = tile(nisa::MemorySpace::psum, {mt, nt}, b.getF32Type());
    if (!first)
      first = acc.getDefiningOp();
    for (int64_t k0 = 0; k0 < k; k0 += tileK) {
      Value stationary = stationaryAt(k0);
      nisa::MatmulOp::create(b, loc, stationary, movingAt(k0), acc,
                             /*accumulate=*/k0 > 0, ValueRange());
    }
    Value evacuated =
        tile(nisa::MemorySpace::sbuf, {mt, nt}, resultType.getElementType());
    activation(loc, acc, evacuated,
               evacuatedBy ? *activationOf(evacuatedBy)
                           : nisa::ActivationFunction::identity);
    if (out)
      dma(loc, evacuated, matrix(out, bi, {m0, n0}, {mt, nt}));
    if (epilogue) {
      DenseMap<Value, Value> tiles{
          {evacuatedBy ? evacuatedBy->getResult(0) : result, evacuated}};
      applyEpilogue(loc, *epilogue, tiles, {mt, nt}, [&](Value buffer) {
        return matrix(buffer, bi, {m0, n0}, {mt, nt});
      });
    }
  };
  // Keep one operand's tiles for a whole row (or column) of output tiles
  // when they fit in a quarter of SBUF, choosing the one that moves fewer
  // bytes from HBM: with rhs resident, rhs is read once and lhs once per
  // column of output tiles; with lhs resident, the other way round.
  int64_t mTiles = llvm::divideCeil(m, tileM), nTiles = llvm::divideCeil(n, tileN);
  int64_t budget = config.limits.getSbufBytes() / 4;
  bool rhsFits = kTiles * tileN * elementBytes <= budget && mTiles > 1;
  bool lhsFits = kTiles * tileM * elementBytes <= budget && nTiles > 1;
  int64_t rhsResidentTraffic = k * n + m * k * nTiles;
  int64_t lhsResidentTraffic = m * k + k * n * mTiles;
  bool rhsResident =
      rhsFits && (!lhsFits || rhsResidentTraffic <= lhsResidentTraffic);
  bool lhsResident = !rhsResident && lhsFits;
  SmallVector<Value> resident;
  for (int64_t bi = 0; bi < batches; ++bi) {
    if (rhsResident) {
      for (int64_t n0 = 0; n0 < n; n0 += tileN) {
        int64_t nt = std::min(tileN, n - n0);
        resident.clear();
        for (int64_t k0 = 0; k0 < k; k0 += tileK)
          resident.push_back(loadMoving(bi, n0, nt, k0));
        for (int64_t m0 = 0; m0 < m; m0 += tileM)
          outputTile(
              bi, m0, n0,
              [&](int64_t k0) {
                return loadStationary(bi, m0, std::min(tileM, m - m0), k0);
              },
              [&](int64_t k0) { return resident[k0 / tileK]; });
      }
    } else if (lhsResident) {
      for (int64_t m0 = 0; m0 < m; m0 += tileM) {
        int64_t mt = std::min(tileM, m - m0);
        resident.clear();
        for (int64_t k0 = 0; k0 < k; k0 += tileK)
          resident.push_back(loadStationary(bi, m0, mt, k0));
        for (int64_t n0 = 0; n0 < n; n0 += tileN)
          outputTile(
              bi, m0, n0, [&](int64_t k0) { return resident[k0 / tileK]; },
              [&](int64_t k0) {
                return loadMoving(bi, n0, std::min(tileN, n - n0), k0);
              });
      }
    } else {
      for (int64_t m0 = 0; m0 < m; m0 += tileM)
        for (int64_t n0 = 0; n0 < n; n0 += tileN)
          outputTile(
              bi, m0, n0,
              [&](int64_t k0) {
                return loadStationary(bi, m0, std::min(tileM, m - m0), k0);
              },
              [&](int64_t k0) {
                return loadMoving(bi, n0, std::min(tileN, n - n0), k0);
              });
    }
  }
  markTiling(first, op, epilogue ? "contraction+epilogue" : "contraction",
             {tileK, tileM, tileN});
  if (out)
    buffers[result] = out;
  return success();
}

/// Elementwise ops see every operand as the same 2-D view: [P, E/P] when
/// the E elements split evenly over the P partitions, else [rows, last dim];
/// rows are tiled by partitions and columns by the SBUF budget.
static std::pair<int64_t, int64_t> elementwiseView(RankedTensorType type,
                                                   int64_t p) {
  int64_t elements = type.getNumElements();
  if (elements % p == 0)
    return {p, elements / p};
  int64_t cols = type.getRank() ? type.getDimSize(type.getRank() - 1) : 1;
  return {cols ? elements / cols : 0, cols};
}

LogicalResult KernelBuilder::lowerElementwise(Operation *op) {
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t p = partitions();
  auto [rows, cols] = elementwiseView(type, p);
  int64_t widest = type.getElementTypeBitWidth();
  for (Value v : op->getOperands())
    widest = std::max<int64_t>(
        widest, cast<RankedTensorType>(v.getType()).getElementTypeBitWidth());
  int64_t tileCols = std::max<int64_t>(
      1, std::min(cols, config.elementwiseBytes * 8 / widest));
  SmallVector<Value> inputs;
  for (Value v : op->getOperands())
    inputs.push_back(reinterpret(loc, buffers.lookup(v), {rows, cols}));
  Value out = resultBuffer(op->getResult(0));
  Value outView = reinterpret(loc, out, {rows, cols});
  Operation *first = nullptr;
  for (int64_t r0 = 0; r0 < rows; r0 += p)
    for (int64_t c0 = 0; c0 < cols; c0 += tileCols) {
      int64_t rt = std::min(p, rows - r0), ct = std::min(tileCols, cols - c0);
      SmallVector<Value> tiles;
      for (Value in : inputs) {
        Type e = cast<MemRefType>(in.getType()).getElementType();
        Value t = tile(nisa::MemorySpace::sbuf, {rt, ct}, e);
        if (!first)
          first = t.getDefiningOp();
        dma(loc, view(loc, in, {r0, c0}, {rt, ct}), t);
        tiles.push_back(t);
      }
      Value result =
          tile(nisa::MemorySpace::sbuf, {rt, ct}, type.getElementType());
      computeTile(loc, op, tiles, result);
      dma(loc, result, view(loc, outView, {r0, c0}, {rt, ct}));
    }
  markTiling(first, op, rows == p ? "flattened" : "rows", {p, tileCols});
  buffers[op->getResult(0)] = out;
  return success();
}

/// Whether softmax `op` has the on-chip recipe: along the last axis, with a
/// row's input, exponentials and result fitting half of SBUF per partition
/// (the other half double-buffers the next row tile).
static bool hasSoftmaxRecipe(Operation *op, const TileConfig &config) {
  auto softmax = dyn_cast<SoftmaxOp>(op);
  if (!softmax)
    return false;
  auto type = cast<RankedTensorType>(softmax.getType());
  if (!type.hasStaticShape() || softmax.getAxis() != type.getRank() - 1)
    return false;
  int64_t row = type.getDimSize(type.getRank() - 1);
  int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
  return row * (2 * bytes + 4) <= config.limits.getSbufBytes() / 2;
}

/// Softmax along the free dimension, rows on partitions, one load and one
/// store per row tile: m = max(x); e = exp(x - m); s = sum(e); then
/// y = exp(x - m - ln s), the scalar engine's per-partition bias carrying
/// the row's shift both times.
LogicalResult KernelBuilder::lowerSoftmax(SoftmaxOp op) {
  Location loc = op.getLoc();
  auto type = cast<RankedTensorType>(op.getType());
  int64_t cols = type.getDimSize(type.getRank() - 1);
  int64_t rows = type.getNumElements() / std::max<int64_t>(cols, 1);
  Type element = type.getElementType(), f32 = b.getF32Type();
  Value in = reinterpret(loc, buffers.lookup(op.getInput()), {rows, cols});
  Value out = resultBuffer(op.getResult());
  Value outView = reinterpret(loc, out, {rows, cols});
  auto alu = [&](nisa::AluOp a) {
    return nisa::AluOpAttr::get(b.getContext(), a);
  };
  auto fn = [&](nisa::ActivationFunction f) {
    return nisa::ActivationFunctionAttr::get(b.getContext(), f);
  };
  int64_t p = partitions();
  Operation *first = nullptr;
  for (int64_t r0 = 0; r0 < rows; r0 += p) {
    int64_t rt = std::min(p, rows - r0);
    Value x = tile(nisa::MemorySpace::sbuf, {rt, cols}, element);
    first = first ? first : x.getDefiningOp();
    dma(loc, view(loc, in, {r0, 0}, {rt, cols}), x);
    Value max = tile(nisa::MemorySpace::sbuf, {rt, 1}, f32);
    nisa::TensorReduceOp::create(b, loc, x, max, alu(nisa::AluOp::max));
    Value shift = tile(nisa::MemorySpace::sbuf, {rt, 1}, f32);
    nisa::TensorScalarOp::create(b, loc, max, shift,
                                 alu(nisa::AluOp::multiply),
                                 b.getF64FloatAttr(-1.0));
    Value e = tile(nisa::MemorySpace::sbuf, {rt, cols}, f32);
    nisa::ActivationOp::create(b, loc, x, e, shift,
                               fn(nisa::ActivationFunction::exp),
                               b.getF64FloatAttr(1.0));
    Value sum = tile(nisa::MemorySpace::sbuf, {rt, 1}, f32);
    nisa::TensorReduceOp::create(b, loc, e, sum, alu(nisa::AluOp::add));
    Value logSum = tile(nisa::MemorySpace::sbuf, {rt, 1}, f32);
    activation(loc, sum, logSum, nisa::ActivationFunction::log);
    Value bias = tile(nisa::MemorySpace::sbuf, {rt, 1}, f32);
    nisa::TensorTensorOp::create(b, loc, shift, logSum, bias,
                                 alu(nisa::AluOp::subtract));
    Value y = tile(nisa::MemorySpace::sbuf, {rt, cols}, element);
    nisa::ActivationOp::create(b, loc, x, y, bias,
                               fn(nisa::ActivationFunction::exp),
                               b.getF64FloatAttr(1.0));
    dma(loc, y, view(loc, outView, {r0, 0}, {rt, cols}));
  }
  markTiling(first, op, "rows", {p, cols});
  buffers[op.getResult()] = out;
  return success();
}

void KernelBuilder::computeTile(Location loc, Operation *op,
                                ArrayRef<Value> operands, Value result) {
  // Comparisons write 1/0 masks; select copies the chosen elements.
  if (auto compare = dyn_cast<CompareOp>(op)) {
    nisa::TensorTensorOp::create(
        b, loc, operands[0], operands[1], result,
        nisa::AluOpAttr::get(b.getContext(),
                             compareAluOf(compare.getPredicate())));
    return;
  }
  if (isa<SelectOp>(op)) {
    nisa::SelectOp::create(b, loc, operands[0], operands[1], operands[2],
                           result);
    return;
  }
  if (std::optional<nisa::ActivationFunction> f = activationOf(op))
    activation(loc, operands[0], result, *f);
  else
    nisa::TensorTensorOp::create(
        b, loc, operands[0], operands[1], result,
        nisa::AluOpAttr::get(b.getContext(), *aluOf(op)));
}

/// Computes the epilogue's ops on one tile. `tiles` holds the tiles already
/// on chip; other operands are loaded from HBM through `window`, which maps
/// a buffer of the group's shape to this tile's part of it (a broadcast is
/// read through its zero-stride view, never materialised).
void KernelBuilder::applyEpilogue(Location loc, const Epilogue &epilogue,
                                  DenseMap<Value, Value> &tiles,
                                  ArrayRef<int64_t> tileShape,
                                  llvm::function_ref<Value(Value)> window) {
  auto elementOf = [](Value v) {
    return cast<ShapedType>(v.getType()).getElementType();
  };
  for (Operation *op : epilogue.ops) {
    Value done = tiles.lookup(op->getResult(0));
    if (done) { // computed while evacuating PSUM
      if (Value out = epilogue.stores.lookup(op->getResult(0)))
        dma(loc, done, window(out));
      continue;
    }
    SmallVector<Value> operands;
    for (Value v : op->getOperands()) {
      if (Value t = tiles.lookup(v)) {
        operands.push_back(t);
        continue;
      }
      Value source;
      if (auto broadcast = v.getDefiningOp<BroadcastOp>())
        source = broadcastView(loc, buffers.lookup(broadcast.getInput()),
                               broadcast.getInput().getType(),
                               broadcast.getType(), broadcast.getDimensions());
      else
        source = buffers.lookup(v);
      Value t = tile(nisa::MemorySpace::sbuf, tileShape, elementOf(v));
      dma(loc, window(source), t);
      tiles[v] = t;
      operands.push_back(t);
    }
    Value result =
        tile(nisa::MemorySpace::sbuf, tileShape, elementOf(op->getResult(0)));
    computeTile(loc, op, operands, result);
    tiles[op->getResult(0)] = result;
    if (Value out = epilogue.stores.lookup(op->getResult(0)))
      dma(loc, result, window(out));
  }
}

/// A matmul with its epilogue, or a chain of elementwise ops, one output
/// tile at a time: inputs are read once per tile, results written once,
/// and intermediates live only in SBUF.
LogicalResult KernelBuilder::lowerFusion(FusionOp fusion) {
  Location loc = fusion.getLoc();
  Block &body = fusion.getBody().front();
  for (auto [arg, input] : llvm::zip(body.getArguments(), fusion.getInputs()))
    buffers[arg] = buffers.lookup(input);
  Epilogue epilogue;
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [inner, outer] : llvm::zip(yield.getValues(), fusion.getResults())) {
    Value out = resultBuffer(outer);
    epilogue.stores.try_emplace(inner, out);
    buffers[outer] = epilogue.stores.lookup(inner);
  }
  Operation *producer = nullptr;
  for (Operation &op : body.without_terminator()) {
    if (isa<BroadcastOp>(op))
      continue; // read in place by the ops using it
    if (!producer && isa<MatmulOp, BatchMatmulOp>(op)) {
      producer = &op;
      continue;
    }
    if (!activationOf(&op) && !aluOf(&op) && !isa<CompareOp, SelectOp>(op))
      return op.emitError() << "convert-neuron-to-nisa: '" << op.getName()
                            << "' cannot be computed in a fusion";
    epilogue.ops.push_back(&op);
  }
  if (auto matmul = dyn_cast_if_present<MatmulOp>(producer))
    return lowerMatmul(matmul, matmul.getLhs(), matmul.getRhs(),
                       matmul.getResult(), /*batched=*/false, &epilogue);
  if (auto matmul = dyn_cast_if_present<BatchMatmulOp>(producer))
    return lowerMatmul(matmul, matmul.getLhs(), matmul.getRhs(),
                       matmul.getResult(), /*batched=*/true, &epilogue);

  // Elementwise only: the [rows, cols] view of lowerElementwise, with the
  // SBUF budget shared by every tile one step keeps live.
  if (epilogue.ops.empty())
    return fusion.emitError() << "convert-neuron-to-nisa: empty fusion";
  auto type = cast<RankedTensorType>(epilogue.ops.front()->getResult(0).getType());
  int64_t p = partitions();
  auto [rows, cols] = elementwiseView(type, p);
  int64_t widest = 8;
  for (Operation &op : body.without_terminator())
    for (Type t : llvm::concat<const Type>(op.getOperandTypes(),
                                           op.getResultTypes()))
      widest = std::max<int64_t>(
          widest, cast<ShapedType>(t).getElementTypeBitWidth());
  int64_t liveTiles = fusion.getNumOperands() + epilogue.ops.size();
  int64_t budget = std::min(config.elementwiseBytes,
                            config.limits.getSbufBytes() / (2 * liveTiles + 2));
  int64_t tileCols = std::max<int64_t>(1, std::min(cols, budget * 8 / widest));
  Block *block = b.getInsertionBlock();
  Operation *last = block->empty() ? nullptr : &block->back();
  for (int64_t r0 = 0; r0 < rows; r0 += p)
    for (int64_t c0 = 0; c0 < cols; c0 += tileCols) {
      int64_t rt = std::min(p, rows - r0), ct = std::min(tileCols, cols - c0);
      DenseMap<Value, Value> tiles;
      applyEpilogue(loc, epilogue, tiles, {rt, ct}, [&](Value buffer) {
        return view(loc, reinterpret(loc, buffer, {rows, cols}), {r0, c0},
                    {rt, ct});
      });
    }
  Operation *first = last ? last->getNextNode() : &block->front();
  markTiling(first, fusion, rows == p ? "flattened" : "rows", {p, tileCols});
  return success();
}

/// gather on axis 0: the table is viewed as [R, C] rows and the indices as
/// one column of N; each tile of up to `partitions` indices is loaded into
/// SBUF as [P, 1] i32, and the GpSimd engine gathers their rows, in column
/// windows of the elementwise budget, into tiles DMAed to the result.
LogicalResult KernelBuilder::lowerGather(GatherOp op) {
  Location loc = op.getLoc();
  RankedTensorType tableType = op.getInput().getType();
  RankedTensorType indexType = op.getIndices().getType();
  if (op.getAxis() != 0)
    return op.emitError() << "convert-neuron-to-nisa: only gathers on axis 0 "
                             "are tiled yet, found axis "
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
  int64_t p = partitions();
  Type element = tableType.getElementType();
  int64_t tileCols = std::max<int64_t>(
      1, std::min(cols, config.elementwiseBytes * 8 /
                            tableType.getElementTypeBitWidth()));
  Value table = reinterpret(loc, buffers.lookup(op.getInput()), {rows, cols});
  Value ids = reinterpret(loc, buffers.lookup(op.getIndices()), {n, 1});
  Value out = resultBuffer(op.getResult());
  Value outView = reinterpret(loc, out, {n, cols});
  Operation *first = nullptr;
  for (int64_t n0 = 0; n0 < n; n0 += p) {
    int64_t nt = std::min(p, n - n0);
    Value idx = tile(nisa::MemorySpace::sbuf, {nt, 1}, b.getI32Type());
    if (!first)
      first = idx.getDefiningOp();
    dma(loc, view(loc, ids, {n0, 0}, {nt, 1}), idx);
    for (int64_t c0 = 0; c0 < cols; c0 += tileCols) {
      int64_t ct = std::min(tileCols, cols - c0);
      Value gathered = tile(nisa::MemorySpace::sbuf, {nt, ct}, element);
      Value window = ct == cols ? table : view(loc, table, {0, c0}, {rows, ct});
      nisa::GatherOp::create(b, loc, window, idx, gathered);
      dma(loc, gathered, view(loc, outView, {n0, c0}, {nt, ct}));
    }
  }
  markTiling(first, op, "indices", {p, tileCols});
  buffers[op.getResult()] = out;
  return success();
}

namespace {
struct ConvertNeuronToNisa
    : mlir::neuron::impl::ConvertNeuronToNisaBase<ConvertNeuronToNisa> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<TileConfig> config = loadConfig(module);
    if (!config)
      return signalPassFailure();
    // Composite ops without an on-chip recipe yet become reductions and
    // elementwise ops first.
    RewritePatternSet expansions(&getContext());
    populateCompositeExpansionPatterns(
        expansions, [&](Operation *op) { return hasSoftmaxRecipe(op, *config); });
    if (failed(applyPatternsGreedily(module, std::move(expansions))))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    // A program (neuron-outline-kernels) stays on tensors; its kernels and
    // any other function become kernels.
    for (func::FuncOp func : funcs)
      if (!func.isDeclaration() && !func->hasAttr("neuron.program") &&
          failed(convert(func, *config)))
        return signalPassFailure();
  }

  /// The tile limits of the target option, from its description.
  std::optional<TileConfig> loadConfig(ModuleOp module) {
    absl::StatusOr<rt::TargetRegistry> registry =
        rt::TargetRegistry::loadBuiltin();
    if (!registry.ok()) {
      module.emitError() << "convert-neuron-to-nisa: "
                         << std::string(registry.status().message());
      return std::nullopt;
    }
    absl::StatusOr<rt::ResolvedTarget> t = registry->resolve(target);
    if (!t.ok()) {
      module.emitError() << "convert-neuron-to-nisa: "
                         << std::string(t.status().message());
      return std::nullopt;
    }
    TileConfig config;
    // The systolic array is partitions x partitions, so the stationary
    // operand has at most `partitions` columns; the moving one fills a PSUM
    // bank of fp32.
    int64_t partitions = t->sbufPartitions();
    config.limits = nisa::LimitsAttr::get(
        module.getContext(), partitions, t->sbufBytesPerPartition(),
        t->psumBytesPerPartition(), t->psumBankBytes(), partitions,
        t->psumBankBytes() / 4);
    config.dmaQueues = std::max(1, t->dmaQueuesPerLogicalCore());
    config.elementwiseBytes =
        std::min(t->sbufBytesPerPartition() / 8, kElementwiseTileBytes);
    return config;
  }

  /// Replaces `func` by its kernel; leaves it untouched on failure.
  LogicalResult convert(func::FuncOp func, const TileConfig &config) {
    auto staticTensor = [&](Type t) -> FailureOr<MemRefType> {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        return func.emitError() << "convert-neuron-to-nisa: expected "
                                   "static tensors in the signature, found "
                                << t;
      return hbmType(tensor);
    };
    SmallVector<Type> types;
    for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                           func.getResultTypes())) {
      FailureOr<MemRefType> type = staticTensor(t);
      if (failed(type))
        return failure();
      types.push_back(*type);
    }
    for (Operation &op : func.getBody().front().without_terminator())
      for (Type t : op.getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(t);
            !tensor || !tensor.hasStaticShape())
          return op.emitError() << "convert-neuron-to-nisa: expected static "
                                   "tensors, found "
                                << t;
    Block &body = func.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    unsigned numInputs = func.getNumArguments();

    OpBuilder b(func);
    auto kernel = func::FuncOp::create(b, func.getLoc(), func.getName(),
                                       b.getFunctionType(types, {}));
    kernel->setAttr("nisa.limits", config.limits);
    kernel->setAttr("nisa.num_inputs", b.getI64IntegerAttr(numInputs));
    Block *entry = kernel.addEntryBlock();
    b.setInsertionPointToStart(entry);
    KernelBuilder builder(b, config, getOperation());
    for (auto [arg, buffer] :
         llvm::zip(body.getArguments(), entry->getArguments()))
      builder.buffers[arg] = buffer;
    // An op whose result is returned writes straight into the output.
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      Operation *def = value.getDefiningOp();
      if (def && !isa<ConstantOp, ReshapeOp>(def) &&
          !builder.outputs.count(value))
        builder.outputs[value] = entry->getArgument(numInputs + i);
    }
    for (Operation &op : body.without_terminator())
      if (failed(builder.lower(&op))) {
        kernel.erase();
        return failure();
      }
    // Returned arguments, constants, views and repeats are copied out.
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      Value out = entry->getArgument(numInputs + i);
      Value buffer = builder.buffers.lookup(value);
      if (buffer != out)
        builder.copyWhole(ret.getLoc(), buffer, out);
    }
    func::ReturnOp::create(b, ret.getLoc());
    kernel.setVisibility(func.getVisibility());
    if (func->hasAttr("neuron.kernel"))
      kernel->setAttr("neuron.kernel", b.getUnitAttr());
    func.erase();
    return success();
  }
};
} // namespace
