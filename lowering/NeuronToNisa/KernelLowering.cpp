//===- KernelLowering.cpp - What the neuron-to-nisa patterns share --------===//

#include "lowering/NeuronToNisa/KernelLowering.h"

#include "passes/KernelGraph.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::neuron;

static Attribute spaceAttr(MLIRContext *context, nisa::MemorySpace space) {
  return nisa::MemorySpaceAttr::get(context, space);
}

int64_t mlir::neuron::elementBytes(Type element) {
  return (element.getIntOrFloatBitWidth() + 7) / 8;
}

MemRefType mlir::neuron::hbmType(RankedTensorType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         MemRefLayoutAttrInterface(),
                         spaceAttr(type.getContext(), nisa::MemorySpace::hbm));
}

/// The pad that is `result`'s only reader, when `result` comes from a
/// convolution the engines tile, alone or leading a fusion: their tiles
/// are stored through views that follow the buffer's strides, so they can
/// write into the pad's interior. Else null.
static PadOp padInPlace(Value result) {
  if (!result.hasOneUse())
    return {};
  auto pad = dyn_cast<PadOp>(*result.user_begin());
  Operation *def = result.getDefiningOp();
  auto conv = dyn_cast_if_present<Conv2DOp>(def);
  if (auto fusion = dyn_cast_if_present<FusionOp>(def))
    for (Operation &op : fusion.getBody().front())
      if (!isa<BroadcastOp, ConstantOp>(op)) {
        conv = dyn_cast<Conv2DOp>(op);
        break;
      }
  return pad && conv && isEngineTiled(conv) ? pad : PadOp();
}

Value KernelLowering::resultBuffer(OpBuilder &b, Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  auto it = outputs.find(result);
  if (it != outputs.end()) {
    auto kernel =
        b.getInsertionBlock()->getParentOp()->getParentOfType<func::FuncOp>();
    if (!kernel)
      kernel = dyn_cast<func::FuncOp>(b.getInsertionBlock()->getParentOp());
    if (Value input = inPlaceInput(kernel.getArguments(), it->second))
      return input;
    return kernel.getArgument(numInputs + it->second);
  }
  if (PadOp pad = padInPlace(result)) {
    Location loc = pad.getLoc();
    Value buffer = resultBuffer(b, pad.getResult());
    fill(b, loc, buffer, pad.getType(), pad.getValueAttr());
    padded[pad] = buffer;
    return padInterior(b, loc, pad, buffer);
  }
  return memref::AllocOp::create(b, result.getLoc(), hbmType(type));
}

Value KernelLowering::inPlaceInput(ValueRange arguments,
                                   unsigned output) const {
  auto it = inPlace.find(output);
  return it == inPlace.end() ? Value() : arguments[it->second];
}

Value KernelLowering::padInterior(OpBuilder &b, Location loc, PadOp pad,
                                  Value buffer) {
  SmallVector<OpFoldResult> low;
  for (int64_t l : pad.getLow())
    low.push_back(b.getIndexAttr(l));
  return view(b, loc, buffer, low, pad.getInput().getType().getShape());
}

Value KernelLowering::fill(OpBuilder &b, Location loc, Value out,
                           RankedTensorType type, FloatAttr value) {
  int64_t elements = type.getNumElements(), p = partitions();
  int64_t cols = elements / p, rest = elements % p;
  int64_t rows = cols ? p : 1;
  int64_t tileCols = std::max<int64_t>(
      1, std::min(std::max(cols, rest), config.elementwiseBytes * 8 /
                                            type.getElementTypeBitWidth()));
  Value filled = tile(b, loc, nisa::MemorySpace::sbuf, {rows, tileCols},
                      type.getElementType());
  nisa::MemsetOp::create(b, loc, filled, value);
  // Fills the [n, count] view `dst` (n <= rows) from the filled tile.
  auto fillView = [&](Value dst, int64_t n, int64_t count) {
    forEachTile(b, loc, {{count, tileCols}},
                [&](OpBuilder &b, const TilePosition &at) {
                  Value src = filled;
                  if (n != rows || at.sizes[0] != tileCols)
                    src = view(b, loc, filled,
                               {b.getIndexAttr(0), b.getIndexAttr(0)},
                               {n, at.sizes[0]});
                  dma(b, loc, src,
                      view(b, loc, dst, {b.getIndexAttr(0), at.offsets[0]},
                           {n, at.sizes[0]}));
                });
  };
  if (cols)
    fillView(stridedView(b, loc, out, b.getIndexAttr(0), {p, cols}, {cols, 1}),
             p, cols);
  if (rest)
    fillView(stridedView(b, loc, out, b.getIndexAttr(p * cols), {1, rest},
                         {rest, 1}),
             1, rest);
  return filled;
}

Value KernelLowering::constantBuffer(OpBuilder &b, ConstantOp op) {
  auto type = hbmType(cast<RankedTensorType>(op.getType()));
  std::string name = "__neuron_constant_" + std::to_string(nextGlobal++);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    memref::GlobalOp::create(b, op.getLoc(), name, b.getStringAttr("private"),
                             type, op.getValue(), /*constant=*/true,
                             /*alignment=*/IntegerAttr());
  }
  return memref::GetGlobalOp::create(b, op.getLoc(), type, name);
}

Value KernelLowering::tile(OpBuilder &b, Location loc, nisa::MemorySpace space,
                           ArrayRef<int64_t> shape, Type element) {
  auto type = MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                              spaceAttr(b.getContext(), space));
  return memref::AllocOp::create(b, loc, type);
}

void KernelLowering::dma(OpBuilder &b, Location loc, Value src, Value dst) {
  nisa::DmaCopyOp::create(b, loc, src, dst,
                          b.getI64IntegerAttr(nextQueue++ % config.dmaQueues));
}

Value KernelLowering::load(OpBuilder &b, Location loc, Value src,
                           bool asColumn) {
  auto type = cast<MemRefType>(src.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  // Integers of up to 32 bits too (a mask's indices): the engines compute
  // in double, exact for them.
  if (type.getRank() != 2 || type.getDimSize(1) < 2 ||
      type.getElementType().isInteger(64) ||
      failed(stridesAndOffset(type, strides, offset)) || strides[1] != 0) {
    Value t = tile(b, loc, nisa::MemorySpace::sbuf, type.getShape(),
                   type.getElementType());
    dma(b, loc, src, t);
    return t;
  }
  int64_t rows = type.getDimSize(0);
  Value column = tile(b, loc, nisa::MemorySpace::sbuf, {rows, 1},
                      type.getElementType());
  dma(b, loc, view(b, loc, src, {b.getIndexAttr(0), b.getIndexAttr(0)},
                   {rows, 1}),
      column);
  return asColumn ? column : fillColumn(b, loc, column, type.getDimSize(1));
}

Value KernelLowering::fillColumn(OpBuilder &b, Location loc, Value column,
                                 int64_t cols) {
  auto type = cast<MemRefType>(column.getType());
  Value t = tile(b, loc, nisa::MemorySpace::sbuf, {type.getDimSize(0), cols},
                 type.getElementType());
  nisa::MemsetOp::create(b, loc, t, b.getF64FloatAttr(1.0));
  nisa::TensorScalarOp::create(
      b, loc, t, column, t,
      nisa::AluOpAttr::get(b.getContext(), nisa::AluOp::multiply),
      FloatAttr());
  return t;
}

rt::OperandShape mlir::neuron::onChipShape(rt::OperandShape natural,
                                           int64_t partitions) {
  natural.partitions = partitions;
  natural.run = 0;
  natural.transposed = natural.transposedPairs = false;
  return natural;
}

bool KernelLowering::transposesOnTensorEngine(MemRefType type) const {
  int64_t r = type.getDimSize(0), c = type.getDimSize(1);
  rt::OperandShape natural = operandShapeOf(type);
  // The transposed view's runs: the same pattern, its dimensions swapped.
  rt::OperandShape transposed = natural;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (succeeded(stridesAndOffset(type, strides, offset)) &&
      llvm::none_of(strides, ShapedType::isDynamic)) {
    int64_t sizes[] = {c, r}, swapped[] = {strides[1], strides[0]};
    transposed.run = rt::contiguousRun(sizes, swapped, 2);
    transposed.transposed = rt::isTransposedPattern(sizes, swapped, 2);
  } else {
    transposed.run = 1;
  }
  double direct = costNs("dma_copy", onChipShape(natural, c), transposed);
  return tensorEngineTransposeNs(type) < direct;
}

double KernelLowering::tensorEngineTransposeNs(MemRefType type) const {
  int64_t r = type.getDimSize(0), c = type.getDimSize(1);
  rt::OperandShape natural = operandShapeOf(type);
  // As loadTransposed emits it: per `partitions` rows a load, a
  // transpose and a copy out of PSUM.
  double onTensor = 0;
  for (int64_t r0 = 0; r0 < r; r0 += partitions()) {
    int64_t rows = std::min(partitions(), r - r0);
    rt::OperandShape part = natural, staged = onChipShape(natural, rows),
                     slice = onChipShape(natural, c);
    part.elements = staged.elements = slice.elements = rows * c;
    onTensor += costNs("dma_copy", staged, part) +
                costNs("transpose", slice, staged) +
                costNs("tensor_scalar", slice, slice);
  }
  return onTensor;
}

Type KernelLowering::transposedType(Type element) const {
  MLIRContext *context = element.getContext();
  if (!config.cost.transposeMode())
    return Float32Type::get(context);
  if (elementBytes(element) != 1)
    return element;
  return isa<FloatType>(element) ? Type(BFloat16Type::get(context))
                                 : Type(IntegerType::get(context, 16));
}

int64_t KernelLowering::transposeChunk(Type element) const {
  return std::max(partitions(), config.limits.getPsumBankBytes() /
                                    elementBytes(transposedType(element)));
}

bool KernelLowering::loadTransposed(OpBuilder &b, Location loc, Value src,
                                    Value dst, Value scratch,
                                    std::optional<bool> onTensorEngine) {
  auto type = cast<MemRefType>(src.getType());
  int64_t r = type.getDimSize(0), c = type.getDimSize(1);
  Type element = type.getElementType();
  if (!onTensorEngine.value_or(transposesOnTensorEngine(type))) {
    dma(b, loc, permutedView(b, loc, src, {1, 0}), dst);
    return false;
  }
  transposeThroughPsum(
      b, loc,
      [&](int64_t r0, int64_t rows) {
        Value staged =
            tile(b, loc, nisa::MemorySpace::sbuf, {rows, c}, element);
        dma(b, loc,
            view(b, loc, src, {b.getIndexAttr(r0), b.getIndexAttr(0)},
                 {rows, c}),
            staged);
        return staged;
      },
      r, c, element, dst, scratch);
  return true;
}

int64_t KernelLowering::transposePanelTiles(Type element) const {
  return std::max<int64_t>(
      1, llvm::divideCeil(config.dmaPeakBytes,
                          partitions() * elementBytes(element)));
}

void KernelLowering::loadTransposedPanel(
    OpBuilder &b, Location loc, Value src, int64_t tileColumns,
    function_ref<Value(OpBuilder &, int64_t, int64_t)> dstOf, Value scratch,
    ChunkCallback afterChunk, bool alternate, int64_t interleave) {
  auto type = cast<MemRefType>(src.getType());
  int64_t r = type.getDimSize(0) * interleave,
          w = type.getDimSize(1) / interleave;
  Type element = type.getElementType();
  int64_t p = partitions();
  auto at = [&](int64_t row, int64_t col) {
    return SmallVector<OpFoldResult>{b.getIndexAttr(row), b.getIndexAttr(col)};
  };
  // Per `p` rows, the [rows, w] tile holding them (interleaved: row q of
  // each partition, a view of the one tile holding all).
  SmallVector<Value> staged;
  if (interleave > 1) {
    Value all = tile(b, loc, nisa::MemorySpace::sbuf, type.getShape(), element);
    dma(b, loc, src, all);
    for (int64_t q = 0; q < interleave; ++q)
      staged.push_back(view(b, loc, all, at(0, q * w), {p, w}));
  } else {
    for (int64_t r0 = 0; r0 < r; r0 += p) {
      int64_t rows = std::min(p, r - r0);
      staged.push_back(
          tile(b, loc, nisa::MemorySpace::sbuf, {rows, w}, element));
      dma(b, loc, view(b, loc, src, at(r0, 0), {rows, w}), staged.back());
    }
  }
  // Tiles whose transposes fit side by side in `scratch` take columns of
  // their own, so the tensor engine transposes them back to back, never
  // waiting for the copy out of the one before.
  int64_t scratchColumns =
      scratch ? cast<MemRefType>(scratch.getType()).getDimSize(1) : 0;
  int64_t side = scratch ? std::max<int64_t>(1, scratchColumns / r) : 1;
  int64_t copies = 0;
  for (int64_t j = 0; j * tileColumns < w; ++j) {
    int64_t width = std::min(tileColumns, w - j * tileColumns);
    Value into = side > 1 ? view(b, loc, scratch, at(0, (j % side) * r),
                                 {width, r})
                          : scratch;
    transposeThroughPsum(
        b, loc,
        [&](int64_t r0, int64_t rows) {
          return view(b, loc, staged[r0 / p], at(0, j * tileColumns),
                      {rows, width});
        },
        r, width, element, dstOf(b, j, width), into,
        [&](int64_t c0, int64_t chunk) {
          if (afterChunk)
            afterChunk(b, c0, chunk, j, 1);
        },
        alternate ? &copies : nullptr);
  }
}

void KernelLowering::loadTransposedPanelByRows(
    OpBuilder &b, Location loc, Value src, int64_t tileColumns,
    function_ref<Value(OpBuilder &, int64_t, int64_t)> dstOf, Value scratch,
    ChunkCallback afterChunk) {
  auto type = cast<MemRefType>(src.getType());
  int64_t r = type.getDimSize(0), w = type.getDimSize(1);
  int64_t p = partitions();
  auto at = [&](int64_t row, int64_t col) {
    return SmallVector<OpFoldResult>{b.getIndexAttr(row), b.getIndexAttr(col)};
  };
  int64_t tiles = llvm::divideCeil(w, tileColumns);
  int64_t side = std::max<int64_t>(
      1, cast<MemRefType>(scratch.getType()).getDimSize(1) / p);
  int64_t copies = 0;
  for (int64_t r0 = 0; r0 < r; r0 += p) {
    int64_t rows = std::min(p, r - r0);
    Value staged = load(b, loc, view(b, loc, src, at(r0, 0), {rows, w}));
    for (int64_t j0 = 0; j0 < tiles; j0 += side) {
      int64_t count = std::min(side, tiles - j0);
      SmallVector<std::pair<Value, Value>> flipped;
      for (int64_t j = j0; j < j0 + count; ++j) {
        int64_t width = std::min(tileColumns, w - j * tileColumns);
        Value into = view(b, loc, scratch, at(0, (j - j0) * p), {width, rows});
        nisa::TransposeOp::create(
            b, loc, view(b, loc, staged, at(0, j * tileColumns), {rows, width}),
            into);
        Value dst = dstOf(b, j, width);
        if (rows != r)
          dst = view(b, loc, dst, at(0, r0), {width, rows});
        flipped.push_back({into, dst});
      }
      for (auto [from, to] : flipped)
        copyInTurn(b, loc, from, to, copies++);
      if (afterChunk)
        afterChunk(b, r0, rows, j0, count);
    }
  }
}

void KernelLowering::transposeThroughPsum(
    OpBuilder &b, Location loc, function_ref<Value(int64_t, int64_t)> rowsAt,
    int64_t r, int64_t c, Type element, Value dst, Value scratch,
    function_ref<void(int64_t, int64_t)> afterChunk, int64_t *copies) {
  int64_t p = partitions();
  // The transposes fill up to a PSUM bank's columns, copied out at once.
  int64_t chunk = transposeChunk(element);
  if (scratch)
    chunk = std::min(chunk, cast<MemRefType>(scratch.getType()).getDimSize(1));
  auto at = [&](int64_t row, int64_t col) {
    return SmallVector<OpFoldResult>{b.getIndexAttr(row), b.getIndexAttr(col)};
  };
  for (int64_t c0 = 0; c0 < r; c0 += chunk) {
    int64_t width = std::min(chunk, r - c0);
    Value flipped =
        scratch ? view(b, loc, scratch, at(0, 0), {c, width})
                : tile(b, loc, nisa::MemorySpace::psum, {c, width},
                       transposedType(element));
    for (int64_t r0 = c0; r0 < c0 + width; r0 += p) {
      int64_t rows = std::min(p, c0 + width - r0);
      nisa::TransposeOp::create(
          b, loc, rowsAt(r0, rows),
          rows == width ? flipped
                        : view(b, loc, flipped, at(0, r0 - c0), {c, rows}));
    }
    // Each tile's columns are copied out of PSUM on their own, by the
    // vector and scalar engines in turn: a chunk's first columns are free
    // again soonest, which the next chunk's transposes into the same
    // scratch write first.
    Value out = width == r ? dst : view(b, loc, dst, at(0, c0), {c, width});
    auto cols = [&](Value v, int64_t from, int64_t n) {
      return from == 0 && n == width ? v : view(b, loc, v, at(0, from), {c, n});
    };
    for (int64_t from = 0; from < width; from += p) {
      int64_t n = std::min(p, width - from);
      copyInTurn(b, loc, cols(flipped, from, n), cols(out, from, n),
                 copies ? (*copies)++ : from / p);
    }
    if (afterChunk)
      afterChunk(c0, width);
  }
}

void KernelLowering::activation(OpBuilder &b, Location loc, Value src,
                                Value dst, nisa::ActivationFunction function,
                                Value bias, double scale) {
  nisa::ActivationOp::create(
      b, loc, src, dst, bias,
      nisa::ActivationFunctionAttr::get(b.getContext(), function),
      b.getF64FloatAttr(scale));
}

void KernelLowering::copyInTurn(OpBuilder &b, Location loc, Value src,
                                Value dst, int64_t turn) {
  if (turn % 2 == 0)
    vectorCopy(b, loc, src, dst);
  else
    activation(b, loc, src, dst, nisa::ActivationFunction::identity);
}

void KernelLowering::vectorCopy(OpBuilder &b, Location loc, Value src,
                                Value dst) {
  nisa::TensorScalarOp::create(
      b, loc, src, dst,
      nisa::AluOpAttr::get(b.getContext(), nisa::AluOp::bypass),
      b.getF64FloatAttr(0.0));
}

bool KernelLowering::isReceived(Value buffer) const {
  Value root = viewRoot(buffer);
  while (auto cast = root.getDefiningOp<UnrealizedConversionCastOp>()) {
    if (cast->getNumOperands() != 1)
      break;
    root = viewRoot(cast->getOperand(0));
  }
  if (root.getDefiningOp<memref::GetGlobalOp>())
    return true;
  auto arg = dyn_cast<BlockArgument>(root);
  auto kernel =
      arg ? dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!kernel || !arg.getOwner()->isEntryBlock() ||
      arg.getArgNumber() >= numInputs ||
      llvm::any_of(inPlace, [&](const auto &entry) {
        return entry.second == arg.getArgNumber();
      }))
    return false;
  auto arrivals = kernel->getAttrOfType<DenseF64ArrayAttr>(kInputArrivalsAttr);
  return !arrivals || arg.getArgNumber() >= arrivals.size() ||
         arrivals[arg.getArgNumber()] <= 0;
}

Value KernelLowering::constantColumn(OpBuilder &b, Location loc, double value,
                                     int64_t partitions) {
  Value column = tile(b, loc, nisa::MemorySpace::sbuf, {partitions, 1},
                      b.getF32Type());
  nisa::MemsetOp::create(b, loc, column, b.getF64FloatAttr(value));
  return column;
}

void KernelLowering::markTiling(Value firstTile, Operation *op,
                                StringRef partition,
                                ArrayRef<int64_t> tileShape) {
  Operation *first = firstTile ? firstTile.getDefiningOp() : nullptr;
  if (!first)
    return;
  Builder b(op->getContext());
  first->setAttr(
      nisa::NisaDialect::kTiling,
      b.getDictionaryAttr(
          {b.getNamedAttr("op", b.getStringAttr(op->getName().getStringRef())),
           b.getNamedAttr("partition", b.getStringAttr(partition)),
           b.getNamedAttr("tile", b.getDenseI64ArrayAttr(tileShape)),
           b.getNamedAttr("buffers", b.getStringAttr("sbuf,psum"))}));
}

Value KernelLowering::view(OpBuilder &b, Location loc, Value memref,
                           ArrayRef<OpFoldResult> offsets,
                           ArrayRef<int64_t> sizes, ArrayRef<int64_t> steps) {
  auto type = cast<MemRefType>(memref.getType());
  bool unitSteps = llvm::all_of(steps, [](int64_t s) { return s == 1; });
  if (type.getShape() == sizes && unitSteps &&
      llvm::all_of(offsets, [](OpFoldResult o) { return isZeroInteger(o); }))
    return memref;
  SmallVector<OpFoldResult> sizeAttrs, strides;
  for (auto [d, s] : llvm::enumerate(sizes)) {
    sizeAttrs.push_back(b.getIndexAttr(s));
    strides.push_back(b.getIndexAttr(steps.empty() ? 1 : steps[d]));
  }
  return memref::SubViewOp::create(b, loc, memref, offsets, sizeAttrs,
                                   strides);
}

Value KernelLowering::reinterpret(OpBuilder &b, Location loc, Value memref,
                                  ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getShape() == shape)
    return memref;
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return stridedView(b, loc, memref, b.getIndexAttr(0), shape, strides);
}

Value KernelLowering::stridedView(OpBuilder &b, Location loc, Value buffer,
                                  OpFoldResult offset, ArrayRef<int64_t> sizes,
                                  ArrayRef<int64_t> strides) {
  auto source = cast<MemRefType>(buffer.getType());
  std::optional<int64_t> fixed = getConstantIntValue(offset);
  bool identity = fixed && *fixed == 0;
  // A dimension of size 1 takes the contiguous stride: it is never
  // stepped, and the type and the cast must agree on it.
  SmallVector<int64_t> normalized(strides);
  for (int64_t i = int64_t(sizes.size()) - 1, run = 1; i >= 0; --i) {
    if (sizes[i] == 1)
      normalized[i] = run;
    identity &= normalized[i] == run;
    run *= sizes[i];
  }
  strides = normalized;
  MemRefLayoutAttrInterface layout =
      identity ? MemRefLayoutAttrInterface()
               : StridedLayoutAttr::get(
                     b.getContext(), fixed ? *fixed : ShapedType::kDynamic,
                     strides);
  auto type = MemRefType::get(sizes, source.getElementType(), layout,
                              source.getMemorySpace());
  SmallVector<OpFoldResult> sizeAttrs, strideAttrs;
  for (auto [size, stride] : llvm::zip(sizes, strides)) {
    sizeAttrs.push_back(b.getIndexAttr(size));
    strideAttrs.push_back(b.getIndexAttr(stride));
  }
  return memref::ReinterpretCastOp::create(b, loc, type, buffer, offset,
                                           sizeAttrs, strideAttrs);
}

Value KernelLowering::matrixView(OpBuilder &b, Location loc, Value buffer,
                                 OpFoldResult batch,
                                 ArrayRef<OpFoldResult> offsets,
                                 ArrayRef<int64_t> sizes) {
  if (cast<MemRefType>(buffer.getType()).getRank() == 2)
    return view(b, loc, buffer, offsets, sizes);
  SmallVector<OpFoldResult> off{batch}, sz{b.getIndexAttr(1)},
      one(3, b.getIndexAttr(1));
  llvm::append_range(off, offsets);
  for (int64_t s : sizes)
    sz.push_back(b.getIndexAttr(s));
  MemRefType type = memref::SubViewOp::inferRankReducedResultType(
      sizes, cast<MemRefType>(buffer.getType()), off, sz, one);
  return memref::SubViewOp::create(b, loc, type, buffer, off, sz, one);
}

Value KernelLowering::permutedView(OpBuilder &b, Location loc, Value buffer,
                                   ArrayRef<int64_t> perm) {
  SmallVector<unsigned> order(perm.begin(), perm.end());
  return memref::TransposeOp::create(
      b, loc, buffer,
      AffineMapAttr::get(AffineMap::getPermutationMap(order, b.getContext())));
}

Value KernelLowering::operandView(Value buffer) {
  if (auto cast = buffer.getDefiningOp<UnrealizedConversionCastOp>();
      cast && cast->getNumOperands() == 1 &&
      cast->getOperand(0).getDefiningOp<memref::TransposeOp>())
    return cast->getOperand(0);
  return buffer;
}

Value KernelLowering::broadcastView(OpBuilder &b, Location loc, Value buffer,
                                    RankedTensorType input,
                                    RankedTensorType result,
                                    ArrayRef<int64_t> dims) {
  return stridedView(b, loc, buffer, b.getIndexAttr(0), result.getShape(),
                     broadcastStrides(input, result, dims));
}

OpFoldResult KernelLowering::affineSum(
    OpBuilder &b, Location loc,
    ArrayRef<std::pair<OpFoldResult, int64_t>> terms, int64_t constant) {
  AffineExpr expr = getAffineConstantExpr(constant, b.getContext());
  SmallVector<OpFoldResult> operands;
  for (auto [value, scale] : terms) {
    if (std::optional<int64_t> c = getConstantIntValue(value)) {
      expr = expr + *c * scale;
      continue;
    }
    expr = expr + getAffineDimExpr(operands.size(), b.getContext()) * scale;
    operands.push_back(value);
  }
  if (operands.empty())
    return b.getIndexAttr(cast<AffineConstantExpr>(expr).getValue());
  AffineMap map = AffineMap::get(operands.size(), 0, expr);
  return affine::makeComposedFoldedAffineApply(b, loc, map, operands);
}

void KernelLowering::forEachTile(
    OpBuilder &b, Location loc, ArrayRef<TiledDim> dims,
    function_ref<void(OpBuilder &, const TilePosition &)> body) {
  TilePosition at;
  at.offsets.assign(dims.size(), b.getIndexAttr(0));
  at.sizes.assign(dims.size(), 1);
  at.ivs.assign(dims.size(), Value());
  std::function<void(size_t)> emit = [&](size_t d) {
    if (d == dims.size()) {
      body(b, at);
      return;
    }
    const TiledDim &dim = dims[d];
    int64_t full = dim.extent / dim.tile, rest = dim.extent % dim.tile;
    if (full > 1) {
      OpBuilder::InsertionGuard guard(b);
      auto loop = affine::AffineForOp::create(b, loc, 0, full, 1);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value iv = loop.getInductionVar();
      at.offsets[d] = affineSum(b, loc, {{iv, dim.tile}}, dim.start);
      at.sizes[d] = dim.tile;
      at.ivs[d] = iv;
      emit(d + 1);
    } else if (full == 1) {
      at.offsets[d] = b.getIndexAttr(dim.start);
      at.sizes[d] = dim.tile;
      at.ivs[d] = Value();
      emit(d + 1);
    }
    if (rest > 0) {
      at.offsets[d] = b.getIndexAttr(dim.start + full * dim.tile);
      at.sizes[d] = rest;
      at.ivs[d] = Value();
      emit(d + 1);
    }
  };
  emit(0);
}

OpFoldResult KernelLowering::tileIndex(OpBuilder &b, const TilePosition &at,
                                       unsigned d, int64_t tile) {
  if (at.ivs[d])
    return at.ivs[d];
  return b.getIndexAttr(*getConstantIntValue(at.offsets[d]) / tile);
}

KernelLowering::Accumulation
KernelLowering::accumulation(const TilePosition &at,
                             ArrayRef<unsigned> reduction) {
  Accumulation a;
  for (unsigned d : reduction) {
    if (at.ivs[d]) {
      a.restart.push_back(at.ivs[d]);
      continue;
    }
    if (!isZeroInteger(at.offsets[d]))
      return {true, {}}; // a later tile of this dimension
  }
  a.accumulate = !a.restart.empty();
  return a;
}

std::optional<nisa::ActivationFunction> mlir::neuron::activationOf(
    Operation *op) {
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

std::optional<nisa::AluOp> mlir::neuron::aluOf(Operation *op) {
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

/// The comparison that holds of (rhs, lhs) when `predicate` holds of
/// (lhs, rhs).
static ComparePredicate swapped(ComparePredicate predicate) {
  switch (predicate) {
  case ComparePredicate::lt:
    return ComparePredicate::gt;
  case ComparePredicate::le:
    return ComparePredicate::ge;
  case ComparePredicate::gt:
    return ComparePredicate::lt;
  case ComparePredicate::ge:
    return ComparePredicate::le;
  default:
    return predicate;
  }
}

/// Whether `t` is a [P, 1] column of per-row values (KernelLowering::load
/// with asColumn) standing for an operand of the [P, F] `result`, F > 1.
static bool isColumnOf(Value t, Value result) {
  auto type = t ? dyn_cast<MemRefType>(t.getType()) : MemRefType();
  auto out = cast<MemRefType>(result.getType());
  return type && type.getRank() == 2 && out.getRank() == 2 &&
         type.getDimSize(1) == 1 && out.getDimSize(1) > 1;
}

void mlir::neuron::computeTile(OpBuilder &b, KernelLowering &k, Location loc,
                               Operation *op, ArrayRef<Value> given,
                               Value result) {
  // A column of per-row values is one tensor_scalar's per-partition
  // scalars where it is a binary op's right operand (or the left of a
  // commutative op or a comparison, which swaps) and the other a tile;
  // otherwise it is filled along the rows first.
  SmallVector<Value> operands(given);
  std::optional<nisa::AluOp> alu = aluOf(op);
  auto compare = dyn_cast<CompareOp>(op);
  bool binary = (alu || compare) && operands.size() == 2 &&
                llvm::all_of(operands, [](Value v) { return bool(v); });
  for (auto [i, t] : llvm::enumerate(operands)) {
    if (!isColumnOf(t, result))
      continue;
    bool left = i == 0;
    bool commutes =
        compare || (alu && llvm::is_contained({nisa::AluOp::add,
                                               nisa::AluOp::multiply,
                                               nisa::AluOp::max,
                                               nisa::AluOp::min},
                                              *alu));
    if (binary && !isColumnOf(operands[left ? 1 : 0], result) &&
        (!left || commutes)) {
      nisa::AluOp scalarAlu =
          compare ? compareAluOf(left ? swapped(compare.getPredicate())
                                      : compare.getPredicate())
                  : *alu;
      nisa::TensorScalarOp::create(
          b, loc, operands[left ? 1 : 0], t, result,
          nisa::AluOpAttr::get(b.getContext(), scalarAlu), FloatAttr());
      return;
    }
    operands[i] = k.fillColumn(
        b, loc, t, cast<MemRefType>(result.getType()).getDimSize(1));
  }
  // Comparisons write 1/0 masks; select copies the chosen elements, an
  // immediate one from a tile filled with it.
  if (isa<SelectOp>(op)) {
    SmallVector<Value> tiles(operands);
    for (OpOperand &use : op->getOpOperands().drop_front())
      if (!tiles[use.getOperandNumber()]) {
        auto type = cast<MemRefType>(result.getType());
        Value filled = k.tile(b, loc, nisa::MemorySpace::sbuf, type.getShape(),
                              type.getElementType());
        nisa::MemsetOp::create(b, loc, filled,
                               b.getF64FloatAttr(*immediateOf(use)));
        tiles[use.getOperandNumber()] = filled;
      }
    nisa::SelectOp::create(b, loc, tiles[0], tiles[1], tiles[2], result);
    return;
  }
  // An operand read as an immediate has no tile: one tensor_scalar.
  for (OpOperand &use : op->getOpOperands()) {
    std::optional<double> scalar = immediateOf(use);
    if (!scalar || operands[use.getOperandNumber()])
      continue;
    bool left = use.getOperandNumber() == 0;
    nisa::AluOp alu;
    if (auto compare = dyn_cast<CompareOp>(op))
      alu = compareAluOf(left ? swapped(compare.getPredicate())
                              : compare.getPredicate());
    else
      alu = *aluOf(op);
    nisa::TensorScalarOp::create(b, loc, operands[left ? 1 : 0], result,
                                 nisa::AluOpAttr::get(b.getContext(), alu),
                                 b.getF64FloatAttr(*scalar));
    return;
  }
  if (auto compare = dyn_cast<CompareOp>(op)) {
    nisa::TensorTensorOp::create(
        b, loc, operands[0], operands[1], result,
        nisa::AluOpAttr::get(b.getContext(),
                             compareAluOf(compare.getPredicate())));
    return;
  }
  if (std::optional<nisa::ActivationFunction> f = activationOf(op))
    k.activation(b, loc, operands[0], result, *f);
  else
    nisa::TensorTensorOp::create(
        b, loc, operands[0], operands[1], result,
        nisa::AluOpAttr::get(b.getContext(), *aluOf(op)));
}

std::pair<int64_t, int64_t> mlir::neuron::elementwiseView(RankedTensorType type,
                                                          int64_t p) {
  int64_t elements = type.getNumElements();
  if (elements % p == 0)
    return {p, elements / p};
  int64_t cols = type.getRank() ? type.getDimSize(type.getRank() - 1) : 1;
  return {cols ? elements / cols : 0, cols};
}

std::pair<int64_t, int64_t>
mlir::neuron::elementwiseView(const KernelLowering &k, RankedTensorType type,
                              int64_t widestBits, int64_t transfers,
                              int64_t ops) {
  int64_t p = k.partitions();
  auto [rows, cols] = elementwiseView(type, p);
  int64_t bytes = std::max<int64_t>(1, (widestBits + 7) / 8);
  // Only a tensor one tile holds: a nest of several pipelines its
  // transfers (which the scheduler also cuts into pieces) behind the first.
  if (rows != p || cols == 0 || cols * bytes > k.config.elementwiseBytes)
    return {rows, cols};
  int64_t elements = rows * cols;
  Type element = IntegerType::get(type.getContext(), bytes * 8);
  const rt::CostModel &cost = k.config.cost;
  // One nest on `q` partitions: its tiles' transfers spread over the DMA
  // engines and its ops on one engine, after the first tile's chain.
  auto estimate = [&](int64_t q) {
    int64_t free = elements / q;
    int64_t tile = std::clamp<int64_t>(k.config.elementwiseBytes / bytes, 1,
                                       free);
    int64_t tiles = (free + tile - 1) / tile;
    rt::OperandShape onChip = operandShapeOf(MemRefType::get({q, tile}, element));
    rt::OperandShape inHbm = onChip;
    inHbm.run = tiles == 1 ? q * tile : tile;
    // As nisa-schedule cuts it over the DMA engines where the transfers
    // bound the kernel (long pieces; elsewhere it may cut shorter).
    double fixed = cost.dmaFixedNs(),
           streaming = k.costNs("dma_copy", onChip, inHbm) - fixed;
    double dma =
        fixed +
        streaming /
            std::min(q, cost.transferPieces(streaming, /*dmaBound=*/true));
    double op = k.costNs("tensor_tensor", onChip, onChip);
    double chain = transfers * dma + ops * op;
    return chain + (tiles - 1) * std::max(transfers * dma / cost.dmaEngines(),
                                          ops * op);
  };
  int64_t best = p;
  double bestNs = estimate(p);
  for (int64_t q = p / 2; q >= 1; q /= 2)
    if (elements % q == 0)
      if (double ns = estimate(q); ns < bestNs) {
        best = q;
        bestNs = ns;
      }
  return {best, elements / best};
}

void mlir::neuron::applyEpilogue(OpBuilder &b, KernelLowering &k, Location loc,
                                 const Epilogue &epilogue,
                                 DenseMap<Value, Value> &tiles,
                                 ArrayRef<int64_t> tileShape,
                                 function_ref<Value(Value)> window,
                                 function_ref<Value(Value)> load,
                                 function_ref<void(Value, Value)> store) {
  auto elementOf = [](Value v) {
    return cast<ShapedType>(v.getType()).getElementType();
  };
  auto put = [&](Value tile, Value out) {
    if (store)
      store(tile, out);
    else
      k.dma(b, loc, tile, window(out));
  };
  // The HBM buffer of an operand not on chip: a fusion's input, or a
  // constant its body holds that is not read as an immediate (neuron-fuse
  // makes those inputs; written by hand, one becomes a global).
  auto bufferOf = [&](Value value) {
    if (Value input = epilogue.inputs.lookup(value))
      return input;
    auto constant = value.getDefiningOp<ConstantOp>();
    return constant ? k.constantBuffer(b, constant) : Value();
  };
  // A run of a multiply and an add of immediates and an activation (two
  // of them at least) from a tile on chip: one scalar-engine instruction,
  // none on the vector engine.
  auto scaledRun = [&](size_t i, Operation *op) {
    for (Value v : op->getOperands()) {
      Value input = tiles.lookup(v);
      // (A column of per-row values is not a tile of the run's shape.)
      if (!input || cast<MemRefType>(input.getType()).getShape() != tileShape)
        continue;
      ScaledActivation run = scaledActivationAt(epilogue, i, v);
      if (run.ops.size() < 2)
        return false;
      // The run's ops are then skipped below, the last one stored there.
      Value result = k.tile(b, loc, nisa::MemorySpace::sbuf, tileShape,
                            elementOf(run.result()));
      emitScaledActivation(b, k, loc, run, v, input, result, tiles);
      return true;
    }
    return false;
  };
  for (auto [i, op] : llvm::enumerate(epilogue.ops)) {
    if (Value done = tiles.lookup(op->getResult(0))) {
      // computed while evacuating PSUM, or by a scaled activation
      if (Value out = epilogue.stores.lookup(op->getResult(0)))
        put(done, out);
      continue;
    }
    if (scaledRun(i, op))
      continue;
    SmallVector<Value> operands;
    for (OpOperand &use : op->getOpOperands()) {
      Value v = use.get();
      if (Value t = tiles.lookup(v)) {
        operands.push_back(t);
        continue;
      }
      if (immediateOf(use)) {
        operands.push_back(Value());
        continue;
      }
      Value source;
      if (auto broadcast = v.getDefiningOp<BroadcastOp>())
        source = KernelLowering::broadcastView(
            b, loc, bufferOf(broadcast.getInput()),
            broadcast.getInput().getType(), broadcast.getType(),
            broadcast.getDimensions());
      else
        source = bufferOf(v);
      Value t = load ? load(source)
                     : k.load(b, loc, window(source), /*asColumn=*/true);
      tiles[v] = t;
      operands.push_back(t);
    }
    Value result = k.tile(b, loc, nisa::MemorySpace::sbuf, tileShape,
                          elementOf(op->getResult(0)));
    computeTile(b, k, loc, op, operands, result);
    tiles[op->getResult(0)] = result;
    if (Value out = epilogue.stores.lookup(op->getResult(0)))
      put(result, out);
  }
}

ScaledActivation mlir::neuron::scaledActivationAt(const Epilogue &epilogue,
                                                  size_t first, Value input) {
  ScaledActivation run;
  Value at = input;
  // The run's next op, when it reads `at` (which, past the first op, has
  // no other reader and is not stored).
  auto next = [&]() -> Operation * {
    size_t i = first + run.ops.size();
    if (i >= epilogue.ops.size() ||
        (!run.ops.empty() && (!at.hasOneUse() || epilogue.stores.count(at))))
      return nullptr;
    Operation *op = epilogue.ops[i];
    return llvm::is_contained(op->getOperands(), at) ? op : nullptr;
  };
  // The immediate the binary `op` combines `at` with.
  auto immediate = [&](Operation *op) -> std::optional<double> {
    OpOperand &other = op->getOpOperand(op->getOperand(0) == at ? 1 : 0);
    if (other.get() == at)
      return std::nullopt;
    return immediateOf(other);
  };
  auto take = [&](Operation *op) {
    run.ops.push_back(op);
    at = op->getResult(0);
  };
  if (auto mul = dyn_cast_or_null<MulOp>(next()))
    if (std::optional<double> c = immediate(mul)) {
      run.scale = *c;
      take(mul);
    }
  Operation *op = next();
  bool subtracts = isa_and_nonnull<SubOp>(op) && op->getOperand(0) == at;
  if (isa_and_nonnull<AddOp>(op) || subtracts)
    if (std::optional<double> d = immediate(op)) {
      run.bias = subtracts ? -*d : *d;
      take(op);
    }
  op = next();
  if (op && op->getNumOperands() == 1 && !isa<CastOp>(op))
    if (std::optional<nisa::ActivationFunction> f = activationOf(op)) {
      run.function = *f;
      take(op);
    }
  return run;
}

ScaledActivation mlir::neuron::evacuationOf(Value result, Value out,
                                            const Epilogue *epilogue) {
  if (!epilogue || out || !result.hasOneUse() || epilogue->ops.empty() ||
      *result.user_begin() != epilogue->ops.front())
    return {};
  return scaledActivationAt(*epilogue, 0, result);
}

void mlir::neuron::emitScaledActivation(OpBuilder &b, KernelLowering &k,
                                        Location loc,
                                        const ScaledActivation &run,
                                        Value value, Value src, Value dst,
                                        DenseMap<Value, Value> &tiles) {
  Value bias;
  if (run.bias)
    bias = k.constantColumn(b, loc, *run.bias,
                            cast<MemRefType>(src.getType()).getDimSize(0));
  k.activation(b, loc, src, dst, run.function, bias, run.scale);
  if (run.ops.empty())
    tiles[value] = dst;
  for (Operation *op : run.ops)
    tiles[op->getResult(0)] = dst;
}

Value mlir::neuron::firstTileAfter(Block *block, Operation *before) {
  Value first;
  for (Operation *op = before ? before->getNextNode() : &block->front();
       op && !first; op = op->getNextNode())
    op->walk<WalkOrder::PreOrder>([&](memref::AllocOp alloc) {
      if (nisa::getMemorySpace(alloc.getType()) != nisa::MemorySpace::hbm) {
        first = alloc;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
  return first;
}
