//===- NeuronOps.cpp - neuron operation verifiers -------------------------===//
//
// Shape and attribute checks that ODS constraints cannot express. Every
// message says what was expected and what was found. Dimensions are compared
// only where both sides are static.
//
//===----------------------------------------------------------------------===//

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::neuron;

/// Whether two dimension sizes may be equal at run time.
static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Prints a shape as `AxBxC`, `?` for dynamic dimensions.
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << '?';
        else
          os << d;
      },
      "x");
  if (shape.empty())
    os << "scalar";
  return s;
}

/// Checks the result shape against the expected one, dimension by dimension.
static LogicalResult verifyResultShape(Operation *op, ArrayRef<int64_t> expected,
                                       ShapedType result) {
  ArrayRef<int64_t> found = result.getShape();
  if (found.size() == expected.size() &&
      llvm::all_of(llvm::zip(found, expected), [](auto pair) {
        return compatible(std::get<0>(pair), std::get<1>(pair));
      }))
    return success();
  return op->emitOpError() << "expected result shape " << shapeStr(expected)
                           << ", found " << shapeStr(found);
}

/// The accumulator rule shared by the contractions: the result has the
/// operands' element type, or f32 for floats, or i32 for i8.
static LogicalResult verifyAccumulatorType(Operation *op, Type operand,
                                           Type result) {
  if (operand == result)
    return success();
  if (isa<FloatType>(operand) && result.isF32())
    return success();
  if (operand.isInteger(8) && result.isInteger(32))
    return success();
  return op->emitOpError() << "expected the result element type to be "
                           << operand << " or its accumulator type, found "
                           << result;
}

/// Verifies `[batch..., M, K] x [batch..., K, N] -> [batch..., M, N]`.
static LogicalResult verifyContraction(Operation *op, unsigned rank) {
  auto lhs = cast<RankedTensorType>(op->getOperand(0).getType());
  auto rhs = cast<RankedTensorType>(op->getOperand(1).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (lhs.getRank() != rank || rhs.getRank() != rank)
    return op->emitOpError() << "expected rank-" << rank
                             << " operands, found ranks " << lhs.getRank()
                             << " and " << rhs.getRank();
  if (lhs.getElementType() != rhs.getElementType())
    return op->emitOpError() << "expected operands of one element type, found "
                             << lhs.getElementType() << " and "
                             << rhs.getElementType();
  for (unsigned b = 0; b + 2 < rank; ++b)
    if (!compatible(lhs.getDimSize(b), rhs.getDimSize(b)))
      return op->emitOpError()
             << "expected equal batch dimensions, found " << lhs.getDimSize(b)
             << " and " << rhs.getDimSize(b);
  int64_t k1 = lhs.getDimSize(rank - 1), k2 = rhs.getDimSize(rank - 2);
  if (!compatible(k1, k2))
    return op->emitOpError() << "expected the contracted dimensions to match, "
                                "found lhs K = "
                             << k1 << " and rhs K = " << k2;
  SmallVector<int64_t> expected(lhs.getShape().drop_back());
  expected.push_back(rhs.getDimSize(rank - 1));
  if (failed(verifyResultShape(op, expected, result)))
    return failure();
  return verifyAccumulatorType(op, lhs.getElementType(),
                               result.getElementType());
}

LogicalResult MatmulOp::verify() { return verifyContraction(*this, 2); }
LogicalResult BatchMatmulOp::verify() { return verifyContraction(*this, 3); }

/// Checks an attribute array's length and that its entries are positive
/// (or non-negative when `allowZero`).
static LogicalResult verifyArray(Operation *op, StringRef name,
                                 ArrayRef<int64_t> values, size_t size,
                                 bool allowZero) {
  if (values.size() != size)
    return op->emitOpError() << "expected " << name << " to have " << size
                             << " entries, found " << values.size();
  for (int64_t v : values)
    if (v < 0 || (!allowZero && v == 0))
      return op->emitOpError()
             << "expected " << name << " entries to be "
             << (allowZero ? "non-negative" : "positive") << ", found " << v;
  return success();
}

/// Output size of a sliding window, or dynamic when the input is.
static int64_t windowOutput(int64_t in, int64_t kernel, int64_t stride,
                            int64_t padLow, int64_t padHigh, int64_t dilation) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return ShapedType::kDynamic;
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t padded = in + padLow + padHigh;
  return padded < span ? 0 : (padded - span) / stride + 1;
}

/// Common checks of the window attributes of conv2d and pool2d.
static LogicalResult verifyWindowAttrs(Operation *op, ArrayRef<int64_t> strides,
                                       ArrayRef<int64_t> padding,
                                       ArrayRef<int64_t> dilations) {
  if (failed(verifyArray(op, "strides", strides, 2, false)) ||
      failed(verifyArray(op, "padding", padding, 4, true)) ||
      failed(verifyArray(op, "dilations", dilations, 2, false)))
    return failure();
  return success();
}

LogicalResult Conv2DOp::verify() {
  auto input = getInput().getType();
  auto filter = getFilter().getType();
  if (input.getRank() != 4 || filter.getRank() != 4)
    return emitOpError() << "expected rank-4 input and filter, found ranks "
                         << input.getRank() << " and " << filter.getRank();
  if (failed(verifyWindowAttrs(*this, getStrides(), getPadding(),
                               getDilations())))
    return failure();
  int64_t groups = getGroups();
  if (groups < 1)
    return emitOpError() << "expected groups >= 1, found " << groups;
  if (input.getElementType() != filter.getElementType())
    return emitOpError() << "expected input and filter of one element type, "
                            "found "
                         << input.getElementType() << " and "
                         << filter.getElementType();

  // Positions of N, C, H, W in the input and F, C, KH, KW in the filter.
  bool nchw = getLayout() == ConvLayout::nchw_fchw;
  std::array<int64_t, 4> in = nchw ? std::array<int64_t, 4>{0, 1, 2, 3}
                                   : std::array<int64_t, 4>{0, 3, 1, 2};
  std::array<int64_t, 4> fl =
      nchw ? std::array<int64_t, 4>{0, 1, 2, 3}
           : (getLayout() == ConvLayout::nhwc_hwcf
                  ? std::array<int64_t, 4>{3, 2, 0, 1}
                  : std::array<int64_t, 4>{0, 3, 1, 2});
  int64_t n = input.getDimSize(in[0]), c = input.getDimSize(in[1]);
  int64_t f = filter.getDimSize(fl[0]), fc = filter.getDimSize(fl[1]);
  if (!ShapedType::isDynamic(c) && c % groups != 0)
    return emitOpError() << "expected the " << c
                         << " input channels to divide into " << groups
                         << " groups";
  if (!ShapedType::isDynamic(f) && f % groups != 0)
    return emitOpError() << "expected the " << f
                         << " output channels to divide into " << groups
                         << " groups";
  if (!ShapedType::isDynamic(c) && !compatible(fc, c / groups))
    return emitOpError() << "expected " << c / groups
                         << " filter input channels (channels / groups), found "
                         << fc;
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || !compatible(biasType.getDimSize(0), f))
      return emitOpError() << "expected bias of shape " << shapeStr({f})
                           << ", found " << shapeStr(biasType.getShape());
    // The bias is added to the accumulator, so it has the result's type.
    Type resultElement = getResult().getType().getElementType();
    if (biasType.getElementType() != resultElement)
      return emitOpError() << "expected bias of element type " << resultElement
                           << " (the result element type), found "
                           << biasType.getElementType();
  }
  ArrayRef<int64_t> s = getStrides(), p = getPadding(), d = getDilations();
  int64_t oh = windowOutput(input.getDimSize(in[2]), filter.getDimSize(fl[2]),
                            s[0], p[0], p[1], d[0]);
  int64_t ow = windowOutput(input.getDimSize(in[3]), filter.getDimSize(fl[3]),
                            s[1], p[2], p[3], d[1]);
  SmallVector<int64_t> expected =
      nchw ? SmallVector<int64_t>{n, f, oh, ow} : SmallVector<int64_t>{n, oh, ow, f};
  if (failed(verifyResultShape(*this, expected, getResult().getType())))
    return failure();
  return verifyAccumulatorType(*this, input.getElementType(),
                               getResult().getType().getElementType());
}

LogicalResult Pool2DOp::verify() {
  auto input = getInput().getType();
  if (input.getRank() != 4)
    return emitOpError() << "expected a rank-4 input, found rank "
                         << input.getRank();
  if (failed(verifyArray(*this, "kernel", getKernel(), 2, false)) ||
      failed(verifyWindowAttrs(*this, getStrides(), getPadding(),
                               getDilations())))
    return failure();
  if (getCountIncludePad() && getKind() != PoolKind::avg)
    return emitOpError()
           << "expected count_include_pad only on avg pooling, found it on "
           << stringifyPoolKind(getKind()) << " pooling";
  bool nchw = getLayout() == ImageLayout::nchw;
  int64_t hDim = nchw ? 2 : 1, wDim = hDim + 1;
  ArrayRef<int64_t> k = getKernel(), s = getStrides(), p = getPadding(),
                    d = getDilations();
  SmallVector<int64_t> expected(input.getShape());
  expected[hDim] =
      windowOutput(input.getDimSize(hDim), k[0], s[0], p[0], p[1], d[0]);
  expected[wDim] =
      windowOutput(input.getDimSize(wDim), k[1], s[1], p[2], p[3], d[1]);
  if (failed(verifyResultShape(*this, expected, getResult().getType())))
    return failure();
  return verifyAccumulatorType(*this, input.getElementType(),
                               getResult().getType().getElementType());
}

/// Checks that `axes` are sorted, unique and within `rank`.
static LogicalResult verifyAxes(Operation *op, ArrayRef<int64_t> axes,
                                int64_t rank) {
  if (axes.empty())
    return op->emitOpError() << "expected at least one axis";
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= rank)
      return op->emitOpError() << "expected axes in [0, " << rank
                               << "), found " << axis;
    if (i > 0 && axes[i - 1] >= axis)
      return op->emitOpError()
             << "expected axes sorted and unique, found " << axes[i - 1]
             << " before " << axis;
  }
  return success();
}

/// Shared verifier of the reduce_* ops.
static LogicalResult verifyReduce(Operation *op, ArrayRef<int64_t> axes,
                                  bool keepDims) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (failed(verifyAxes(op, axes, input.getRank())))
    return failure();
  SmallVector<int64_t> expected;
  for (auto [i, dim] : llvm::enumerate(input.getShape())) {
    bool reduced = llvm::is_contained(axes, static_cast<int64_t>(i));
    if (!reduced)
      expected.push_back(dim);
    else if (keepDims)
      expected.push_back(1);
  }
  return verifyResultShape(op, expected, result);
}

LogicalResult ReduceSumOp::verify() {
  return verifyReduce(*this, getAxes(), getKeepDims());
}
LogicalResult ReduceMaxOp::verify() {
  return verifyReduce(*this, getAxes(), getKeepDims());
}
LogicalResult ReduceMinOp::verify() {
  return verifyReduce(*this, getAxes(), getKeepDims());
}
LogicalResult ReduceMeanOp::verify() {
  if (!isa<FloatType>(getInput().getType().getElementType()))
    return emitOpError() << "expected a floating-point input, found "
                         << getInput().getType().getElementType();
  return verifyReduce(*this, getAxes(), getKeepDims());
}

/// Checks that `axis` names a dimension of a rank-`rank` tensor.
static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << "expected axis in [0, " << rank << "), found "
                             << axis;
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput().getType().getRank());
}

ParseResult SoftmaxOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand input;
  IntegerAttr axis;
  RankedTensorType inputType, resultType;
  if (parser.parseOperand(input) || parser.parseKeyword("axis") ||
      parser.parseAttribute(axis, parser.getBuilder().getI64Type()))
    return failure();
  result.getOrAddProperties<Properties>().axis = axis;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(inputType))
    return failure();
  resultType = inputType;
  if (succeeded(parser.parseOptionalArrow()) && parser.parseType(resultType))
    return failure();
  result.addTypes(resultType);
  return parser.resolveOperand(input, inputType, result.operands);
}

void SoftmaxOp::print(OpAsmPrinter &p) {
  p << ' ' << getInput() << " axis " << getAxis();
  p.printOptionalAttrDict((*this)->getAttrs(), {getAxisAttrName()});
  p << " : " << getInput().getType();
  if (getType() != getInput().getType())
    p << " -> " << getType();
}

/// Checks a norm's optional affine parameter against the normalised dims.
static LogicalResult verifyNormParam(Operation *op, StringRef name, Value param,
                                     RankedTensorType input, int64_t axis) {
  if (!param)
    return success();
  auto type = cast<RankedTensorType>(param.getType());
  ArrayRef<int64_t> expected = input.getShape().drop_front(axis);
  if (type.getElementType() != input.getElementType())
    return op->emitOpError() << "expected " << name << " of element type "
                             << input.getElementType() << ", found "
                             << type.getElementType();
  if (type.getRank() != static_cast<int64_t>(expected.size()) ||
      !llvm::all_of(llvm::zip(type.getShape(), expected), [](auto pair) {
        return compatible(std::get<0>(pair), std::get<1>(pair));
      }))
    return op->emitOpError() << "expected " << name << " of shape "
                             << shapeStr(expected)
                             << " (the normalised dimensions), found "
                             << shapeStr(type.getShape());
  return success();
}

/// Shared verifier of layer_norm and rms_norm.
static LogicalResult verifyNorm(Operation *op, int64_t axis, double epsilon,
                                Value weight, Value bias) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  if (op->getResult(0).getType() != input)
    return op->emitOpError() << "expected the result type to be " << input
                             << ", found " << op->getResult(0).getType();
  if (failed(verifyAxis(op, axis, input.getRank())))
    return failure();
  if (!std::isfinite(epsilon) || epsilon < 0)
    return op->emitOpError()
           << "expected a finite, non-negative epsilon, found " << epsilon;
  if (failed(verifyNormParam(op, "weight", weight, input, axis)))
    return failure();
  return verifyNormParam(op, "bias", bias, input, axis);
}

LogicalResult LayerNormOp::verify() {
  return verifyNorm(*this, getAxis(), getEpsilon().convertToDouble(),
                    getWeight(), getBias());
}
LogicalResult RmsNormOp::verify() {
  return verifyNorm(*this, getAxis(), getEpsilon().convertToDouble(),
                    getWeight(), Value());
}

/// Whether `value` is used, and only as an operand of matmuls and
/// batch_matmuls (directly or through a fusion's block argument).
static bool onlyContracted(Value value) {
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<MatmulOp, BatchMatmulOp>(user))
      continue;
    // A convolution on the tensor engine loads each tap's weights through
    // its filter's strides.
    if (auto conv = dyn_cast<Conv2DOp>(user);
        conv && use.getOperandNumber() == 1 && isEngineTiled(conv) &&
        conv.getGroups() == 1 && !isDepthwiseConv(conv))
      continue;
    auto fusion = dyn_cast<FusionOp>(user);
    if (!fusion || !onlyContracted(fusion.getBody().front().getArgument(
                       use.getOperandNumber())))
      return false;
  }
  return !value.use_empty();
}

bool TransposeOp::isOperandView() { return onlyContracted(getResult()); }

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> perm = getPermutation();
  auto input = getInput().getType();
  if (static_cast<int64_t>(perm.size()) != input.getRank())
    return emitOpError() << "expected a permutation of " << input.getRank()
                         << " dimensions, found " << perm.size() << " entries";
  llvm::SmallBitVector seen(perm.size());
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= input.getRank() || seen.test(p))
      return emitOpError() << "expected a permutation of [0, "
                           << input.getRank() << "), found entry " << p;
    seen.set(p);
    expected.push_back(input.getDimSize(p));
  }
  return verifyResultShape(*this, expected, getResult().getType());
}

LogicalResult ReshapeOp::verify() {
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (input.hasStaticShape() && result.hasStaticShape() &&
      input.getNumElements() != result.getNumElements())
    return emitOpError() << "expected the same number of elements, found "
                         << input.getNumElements() << " ("
                         << shapeStr(input.getShape()) << ") and "
                         << result.getNumElements() << " ("
                         << shapeStr(result.getShape()) << ")";
  if (input.hasStaticShape() == result.hasStaticShape())
    return success();
  // One side is static: the other's static dimensions must divide its size.
  RankedTensorType known = input.hasStaticShape() ? input : result;
  RankedTensorType partial = input.hasStaticShape() ? result : input;
  int64_t count = known.getNumElements(), product = 1;
  for (int64_t d : partial.getShape())
    if (!ShapedType::isDynamic(d))
      product *= d;
  if (product == 0 ? count == 0 : count % product == 0)
    return success();
  return emitOpError() << "expected the static dimensions of "
                       << shapeStr(partial.getShape()) << " (product "
                       << product << ") to divide the " << count
                       << " elements of " << shapeStr(known.getShape());
}

SmallVector<int64_t> mlir::neuron::broadcastStrides(RankedTensorType input,
                                                    RankedTensorType result,
                                                    ArrayRef<int64_t> dims) {
  SmallVector<int64_t> inputStrides(input.getRank(), 1);
  for (int64_t i = input.getRank() - 2; i >= 0; --i)
    inputStrides[i] = inputStrides[i + 1] * input.getDimSize(i + 1);
  SmallVector<int64_t> strides(result.getRank(), 0);
  for (auto [i, d] : llvm::enumerate(dims))
    if (input.getDimSize(i) == result.getDimSize(d))
      strides[d] = inputStrides[i];
  for (int64_t d = result.getRank() - 1, run = 1; d >= 0; --d) {
    if (result.getDimSize(d) == 1)
      strides[d] = run;
    run *= result.getDimSize(d);
  }
  return strides;
}

MergedRun mlir::neuron::mergedRun(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> strides, int64_t from,
                                  int64_t to) {
  MergedRun run{to, 1, 1};
  bool stepped = false;
  for (int64_t d = to - 1; d >= from; --d) {
    if (shape[d] != 1) {
      if (stepped && strides[d] != run.stride * run.size)
        break;
      if (!stepped)
        run.stride = strides[d];
      stepped = true;
      run.size *= shape[d];
    }
    run.first = d;
  }
  return run;
}

std::optional<int64_t>
mlir::neuron::matrixSplit(ArrayRef<int64_t> shape,
                          ArrayRef<SmallVector<int64_t>> views,
                          int64_t elementBits, int64_t tileRows) {
  constexpr int64_t kEfficientRunBytes = 512;
  int64_t minColumns =
      kEfficientRunBytes * 8 / std::max<int64_t>(8, elementBits);
  int64_t rank = shape.size(), columns = 1;
  for (int64_t r = rank - 1; r > 0; --r) {
    columns *= shape[r];
    if (columns < minColumns)
      continue;
    if (llvm::all_of(views, [&](ArrayRef<int64_t> strides) {
          return mergedRun(shape, strides, r, rank).first == r &&
                 mergedRun(shape, strides, 0, r).size >= tileRows;
        }))
      return r;
  }
  return std::nullopt;
}

bool mlir::neuron::isPadded(ArrayRef<int64_t> padding) {
  return llvm::any_of(padding, [](int64_t p) { return p != 0; });
}

bool mlir::neuron::isEngineTiled(Conv2DOp conv) {
  return conv.getLayout() == ConvLayout::nchw_fchw && !conv.getBias() &&
         !isPadded(conv.getPadding()) &&
         isa<FloatType>(conv.getInput().getType().getElementType());
}

bool mlir::neuron::isEngineTiled(Pool2DOp pool) {
  return !isPadded(pool.getPadding()) &&
         isa<FloatType>(pool.getInput().getType().getElementType());
}

bool mlir::neuron::isDepthwiseConv(Conv2DOp conv) {
  return conv.getGroups() == conv.getInput().getType().getDimSize(1);
}

bool mlir::neuron::rowsMerge(ArrayRef<int64_t> strides, int64_t rows,
                             int64_t cols) {
  return rows == 1 || strides[2] == cols * strides[3];
}

std::optional<double> mlir::neuron::splatFloat(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant || !isa<FloatType>(constant.getType().getElementType()))
    return std::nullopt;
  auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
  if (!splat)
    return std::nullopt;
  return splat.getSplatValue<APFloat>().convertToDouble();
}

std::optional<double> mlir::neuron::immediateOf(OpOperand &use) {
  Operation *op = use.getOwner();
  std::optional<double> value = splatFloat(use.get());
  // A select's value operand (a mask's fill): the other one a tensor.
  if (value && isa<SelectOp>(op) && use.getOperandNumber() > 0 &&
      !splatFloat(op->getOperand(3 - use.getOperandNumber())))
    return value;
  if (!value || op->getNumOperands() != 2)
    return std::nullopt;
  bool compare = isa<CompareOp>(op);
  if (!compare && !isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp>(op))
    return std::nullopt;
  if (use.getOperandNumber() == 1)
    return value;
  bool swaps = compare || op->hasTrait<OpTrait::IsCommutative>();
  if (swaps && !splatFloat(op->getOperand(1)))
    return value;
  return std::nullopt;
}

OpOperand *mlir::neuron::getIndexOperand(Operation *op) {
  return llvm::TypeSwitch<Operation *, OpOperand *>(op)
      .Case([](GatherOp o) { return &o.getIndicesMutable(); })
      .Case<DynamicSliceOp, DynamicUpdateSliceOp>(
          [](auto o) { return &o.getOffsetMutable(); })
      .Default([](Operation *) { return nullptr; });
}

bool mlir::neuron::readAsImmediates(Value value,
                                    function_ref<bool(Operation *)> reader) {
  bool read = false;
  for (OpOperand &use : value.getUses()) {
    if (reader && !reader(use.getOwner()))
      continue;
    if (!immediateOf(use))
      return false;
    read = true;
  }
  return read;
}

LogicalResult BroadcastOp::verify() {
  ArrayRef<int64_t> dims = getDimensions();
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (static_cast<int64_t>(dims.size()) != input.getRank())
    return emitOpError() << "expected one entry in dimensions per input "
                            "dimension ("
                         << input.getRank() << "), found " << dims.size();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= result.getRank() || (i > 0 && dims[i - 1] >= d))
      return emitOpError() << "expected strictly increasing dimensions in [0, "
                           << result.getRank() << "), found " << d;
    int64_t in = input.getDimSize(i), out = result.getDimSize(d);
    if (in != 1 && !compatible(in, out))
      return emitOpError() << "expected input dimension " << i << " of size "
                           << in << " to be 1 or equal result dimension " << d
                           << " of size " << out;
  }
  return success();
}

LogicalResult SliceOp::verify() {
  auto input = getInput().getType();
  auto result = getResult().getType();
  ArrayRef<int64_t> offsets = getOffsets(), strides = getStrides();
  if (failed(verifyArray(*this, "offsets", offsets, input.getRank(), true)) ||
      failed(verifyArray(*this, "strides", strides, input.getRank(), false)))
    return failure();
  for (int64_t i = 0; i < input.getRank(); ++i) {
    int64_t in = input.getDimSize(i), size = result.getDimSize(i);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(size) || size == 0)
      continue;
    int64_t last = offsets[i] + (size - 1) * strides[i];
    if (last >= in)
      return emitOpError() << "expected the window to fit dimension " << i
                           << " of size " << in << ", found its last index at "
                           << last;
  }
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expected at least one input";
  auto result = getResult().getType();
  if (failed(verifyAxis(*this, getAxis(), result.getRank())))
    return failure();
  int64_t axis = getAxis();
  SmallVector<int64_t> expected(result.getShape());
  expected[axis] = 0;
  for (auto [i, value] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != result.getRank())
      return emitOpError() << "expected input " << i << " of rank "
                           << result.getRank() << ", found " << type.getRank();
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != axis && !compatible(type.getDimSize(d), result.getDimSize(d)))
        return emitOpError() << "expected input " << i << " dimension " << d
                             << " to be " << result.getDimSize(d) << ", found "
                             << type.getDimSize(d);
    if (ShapedType::isDynamic(type.getDimSize(axis)) ||
        ShapedType::isDynamic(expected[axis]))
      expected[axis] = ShapedType::kDynamic;
    else
      expected[axis] += type.getDimSize(axis);
  }
  return verifyResultShape(*this, expected, result);
}

/// Checks that an integer tensor is padded with a value it holds exactly;
/// i1 holds 0 and 1.
static LogicalResult verifyIntegerPadValue(Operation *op, APFloat value,
                                           IntegerType type) {
  unsigned width = type.getWidth();
  bool isUnsigned = width == 1;
  llvm::APSInt converted(width, isUnsigned);
  bool exact = false;
  if (value.convertToInteger(converted, APFloat::rmTowardZero, &exact) ==
          APFloat::opOK &&
      exact)
    return success();
  auto bound = [&](const llvm::APSInt &v) {
    return isUnsigned ? static_cast<int64_t>(v.getZExtValue())
                      : v.getSExtValue();
  };
  return op->emitOpError()
         << "expected an integer pad value in ["
         << bound(llvm::APSInt::getMinValue(width, isUnsigned)) << ", "
         << bound(llvm::APSInt::getMaxValue(width, isUnsigned))
         << "] for element type " << type << ", found "
         << value.convertToDouble();
}

LogicalResult PadOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyArray(*this, "low", getLow(), input.getRank(), true)) ||
      failed(verifyArray(*this, "high", getHigh(), input.getRank(), true)))
    return failure();
  if (auto integer = dyn_cast<IntegerType>(input.getElementType()))
    if (failed(verifyIntegerPadValue(*this, getValue(), integer)))
      return failure();
  SmallVector<int64_t> expected;
  for (auto [i, dim] : llvm::enumerate(input.getShape()))
    expected.push_back(ShapedType::isDynamic(dim)
                           ? dim
                           : dim + getLow()[i] + getHigh()[i]);
  return verifyResultShape(*this, expected, getResult().getType());
}

LogicalResult GatherOp::verify() {
  auto input = getInput().getType();
  if (failed(verifyAxis(*this, getAxis(), input.getRank())))
    return failure();
  if (getResult().getType().getElementType() != input.getElementType())
    return emitOpError() << "expected the result element type to be "
                         << input.getElementType() << ", found "
                         << getResult().getType().getElementType();
  SmallVector<int64_t> expected(input.getShape().take_front(getAxis()));
  llvm::append_range(expected, getIndices().getType().getShape());
  llvm::append_range(expected, input.getShape().drop_front(getAxis() + 1));
  return verifyResultShape(*this, expected, getResult().getType());
}

/// A slice at a run-time position along `axis` of `whole`: `part` spans
/// every other dimension whole and fits along the axis, and `offset` holds
/// one value. `what` names `part` in the errors.
static LogicalResult verifyDynamicWindow(Operation *op, RankedTensorType whole,
                                         RankedTensorType part, Value offset,
                                         int64_t axis, StringRef what) {
  if (failed(verifyAxis(op, axis, whole.getRank())))
    return failure();
  auto offsetType = cast<RankedTensorType>(offset.getType());
  for (RankedTensorType type : {whole, part, offsetType})
    if (!type.hasStaticShape())
      return op->emitOpError() << "expected static shapes, found " << type;
  if (part.getElementType() != whole.getElementType())
    return op->emitOpError() << "expected the " << what
                             << " in the element type "
                             << whole.getElementType() << ", found "
                             << part.getElementType();
  SmallVector<int64_t> expected(whole.getShape());
  if (part.getRank() == whole.getRank())
    expected[axis] = part.getDimSize(axis);
  if (part.getShape() != ArrayRef<int64_t>(expected) ||
      expected[axis] > whole.getDimSize(axis))
    return op->emitOpError()
           << "expected " << (what == "result" ? "a result" : "an update")
           << " spanning every dimension but the axis whole and at most "
           << whole.getDimSize(axis) << " along it, found " << part;
  if (offsetType.getNumElements() != 1)
    return op->emitOpError() << "expected a one-element offset, found "
                             << offsetType;
  return success();
}

LogicalResult DynamicSliceOp::verify() {
  return verifyDynamicWindow(*this, getInput().getType(), getType(),
                             getOffset(), getAxis(), "result");
}

LogicalResult DynamicUpdateSliceOp::verify() {
  return verifyDynamicWindow(*this, getDest().getType(),
                             getUpdate().getType(), getOffset(), getAxis(),
                             "update");
}

/// A region taking `inputs` as its block arguments and yielding values of
/// `resultTypes` (host_call, fusion).
static LogicalResult verifyIsolatedRegion(Operation *op, Block &body,
                                          ValueRange inputs,
                                          TypeRange resultTypes) {
  if (body.getNumArguments() != inputs.size())
    return op->emitOpError() << "expected " << inputs.size()
                             << " region arguments (one per input), found "
                             << body.getNumArguments();
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(body.getArgumentTypes(), inputs)))
    if (std::get<0>(pair) != std::get<1>(pair).getType())
      return op->emitOpError() << "expected region argument " << i
                               << " of type " << std::get<1>(pair).getType()
                               << ", found " << std::get<0>(pair);
  // This runs before the block verifier checks for a terminator, so the
  // last operation may be anything.
  auto yield = dyn_cast<YieldOp>(body.back());
  if (!yield)
    return op->emitOpError()
           << "expected the region to end in neuron.yield, found '"
           << body.back().getName() << "'";
  if (yield.getValues().size() != resultTypes.size())
    return op->emitOpError() << "expected neuron.yield to return "
                             << resultTypes.size()
                             << " values (one per result), found "
                             << yield.getValues().size();
  for (auto [i, pair] : llvm::enumerate(
           llvm::zip(yield.getValues().getTypes(), resultTypes)))
    if (std::get<0>(pair) != std::get<1>(pair))
      return op->emitOpError() << "expected neuron.yield value " << i
                               << " of type " << std::get<1>(pair)
                               << " (the result type), found "
                               << std::get<0>(pair);
  return success();
}

LogicalResult HostCallOp::verify() {
  return verifyIsolatedRegion(*this, getBody().front(), getInputs(),
                              getResultTypes());
}

LogicalResult FusionOp::verify() {
  return verifyIsolatedRegion(*this, getBody().front(), getInputs(),
                              getResultTypes());
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

/// Whether `buffer` is a memref with the shape and element type of `tensor`.
static bool isBufferOf(Type buffer, Type tensor) {
  auto memref = dyn_cast<MemRefType>(buffer);
  auto ranked = cast<RankedTensorType>(tensor);
  return memref && memref.getShape() == ranked.getShape() &&
         memref.getElementType() == ranked.getElementType();
}

std::optional<std::string>
mlir::neuron::nisaKernelMismatch(FunctionType kernel, TypeRange inputs,
                                 TypeRange results) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (kernel.getNumResults() != 0) {
    os << "expected no results (a kernel writes its output buffers), found "
       << kernel.getNumResults();
    return why;
  }
  size_t expected = inputs.size() + results.size();
  if (kernel.getNumInputs() != expected) {
    os << "expected " << expected << " buffer arguments (" << inputs.size()
       << " inputs, then " << results.size() << " results), found "
       << kernel.getNumInputs();
    return why;
  }
  for (auto [i, pair] : llvm::enumerate(llvm::zip(
           kernel.getInputs(), llvm::concat<const Type>(inputs, results)))) {
    auto [buffer, tensor] = pair;
    auto memref = dyn_cast<MemRefType>(buffer);
    if (isBufferOf(buffer, tensor) && memref.getLayout().isIdentity())
      continue;
    bool input = i < inputs.size();
    os << "expected argument #" << i << " to be a buffer of " << tensor
       << " (" << (input ? "input " : "result ")
       << (input ? i : i - inputs.size()) << "), found " << buffer;
    return why;
  }
  return std::nullopt;
}

LogicalResult LaunchOp::verify() {
  if (std::optional<ArrayRef<int64_t>> awaits = getAwaits())
    for (int64_t input : *awaits) {
      if (input < 0 || input >= int64_t(getInputs().size()) ||
          llvm::count(*awaits, input) > 1)
        return emitOpError() << "expected 'awaits' to name distinct inputs "
                                "(0.."
                             << int64_t(getInputs().size()) - 1 << "), found "
                             << input;
      if (collectiveDonesOf(getInputs()[input]).empty())
        return emitOpError() << "expected awaited input " << input
                             << " to be a collective's result "
                                "(neuron.collective_done, through reshapes "
                                "and joins)";
    }
  std::optional<ArrayRef<int64_t>> inPlace = getInPlace();
  if (!inPlace)
    return success();
  if (inPlace->size() != getNumResults())
    return emitOpError() << "expected one 'in_place' entry per result ("
                         << getNumResults() << "), found " << inPlace->size();
  for (auto [r, input] : llvm::enumerate(*inPlace)) {
    if (input == -1)
      continue;
    if (input < 0 || input >= int64_t(getInputs().size()) ||
        getInputs()[input].getType() != getResult(r).getType())
      return emitOpError() << "expected result " << r
                           << " in place of an input of its type, found "
                           << input;
    if (llvm::count(*inPlace, input) > 1)
      return emitOpError() << "expected input " << input
                           << " to hold at most one result in place";
    // The input is gone after the launch: nothing else reads it, and its
    // tensor is its own (not a view of another value, nor a constant).
    Value in = getInputs()[input];
    Operation *def = in.getDefiningOp();
    bool owns = !def || isa<LaunchOp, HostCallOp, CustomKernelOp>(def) ||
                isCollectiveResult(def);
    if (llvm::any_of(in.getUsers(), [&](Operation *u) { return u != *this; }) ||
        !owns)
      return emitOpError() << "expected input " << input
                           << ", which holds result " << r
                           << " in place, to be read by this launch alone "
                              "and to own its tensor";
  }
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel = symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(
      *this, getKernelAttr());
  if (!kernel)
    return emitOpError() << "'" << getKernel()
                         << "' does not name a function";
  ArrayRef<Type> params = kernel.getArgumentTypes();
  ArrayRef<Type> results = kernel.getResultTypes();
  if (llvm::equal(params, getInputs().getTypes()) &&
      llvm::equal(results, getResultTypes())) {
    // The kernel writes in place what the launch says it does.
    for (unsigned r = 0; r < results.size(); ++r) {
      auto attr = kernel.getResultAttrOfType<IntegerAttr>(r, "neuron.in_place");
      int64_t kernelInput = attr ? attr.getInt() : -1;
      int64_t launchInput = getInPlace() ? (*getInPlace())[r] : -1;
      if (kernelInput != launchInput)
        return emitOpError() << "result " << r << " is in place of input "
                             << launchInput << " but kernel '" << getKernel()
                             << "' writes it in place of " << kernelInput;
    }
    return success();
  }
  // The kernel's nisa form: buffers for the inputs, then for the results.
  auto operands = llvm::to_vector(
      llvm::concat<const Type>(getInputs().getTypes(), getResultTypes()));
  if (results.empty() && params.size() == operands.size() &&
      llvm::all_of(llvm::zip(params, operands), [](auto pair) {
        return isBufferOf(std::get<0>(pair), std::get<1>(pair));
      }))
    return success();
  return emitOpError() << "types " << FunctionType::get(getContext(),
                                                         getInputs().getTypes(),
                                                         getResultTypes())
                       << " do not match kernel '" << getKernel() << "' of type "
                       << kernel.getFunctionType();
}

LogicalResult
CustomKernelOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel = symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(
      *this, getKernelAttr());
  if (!kernel)
    return emitOpError() << "'" << getKernel()
                         << "' does not name a function";
  std::optional<std::string> mismatch =
      nisaKernelMismatch(cast<FunctionType>(kernel.getFunctionType()),
                         getInputs().getTypes(), getResultTypes());
  if (!mismatch)
    return success();
  return emitOpError() << "kernel '" << getKernel() << "': " << *mismatch;
}

#define GET_OP_CLASSES
#include "dialects/neuron/IR/NeuronOps.cpp.inc"
