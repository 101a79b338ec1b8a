//===- HostReference.cpp - A host_call region in the runtime's form -------===//
//
// Walks the region once, numbering values as they are defined (the block's
// arguments first). linalg ops keep their loops, maps, iterators and bodies;
// the neuron ops that land on the host become the generic linalg would
// write for them; scalar ops keep their MLIR names. The first op outside
// this set stops the walk with a warning, and the step keeps only its MLIR
// text. Everything written is checked the way the runtime will check it
// (types, ranks, map ranges), so the runtime never rejects what this writes.
//
//===----------------------------------------------------------------------===//

#include "lowering/NisaToExecutable/HostReference.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::neuron;
using json = nlohmann::ordered_json;

/// Constants with more elements (unless splat) become program tensors.
static constexpr int64_t kMaxInlineElements = 1024;
/// The runtime's bounds (runtime/sim/HostReader.cpp).
static constexpr int64_t kMaxRank = 16;
static constexpr int64_t kMaxCoefficient = int64_t(1) << 40;

/// The scalar ops the runtime evaluates besides arith.constant and
/// linalg.index, by their MLIR names.
static const llvm::StringSet<> kScalarOps = {
    "arith.addi",     "arith.subi",       "arith.muli",
    "arith.divsi",    "arith.divui",      "arith.remsi",
    "arith.remui",    "arith.shli",       "arith.shrsi",
    "arith.shrui",    "arith.andi",       "arith.ori",
    "arith.xori",     "arith.maxsi",      "arith.minsi",
    "arith.maxui",    "arith.minui",      "math.absi",
    "arith.addf",     "arith.subf",       "arith.mulf",
    "arith.divf",     "arith.remf",       "arith.maximumf",
    "arith.minimumf", "arith.maxnumf",    "arith.minnumf",
    "math.powf",      "arith.negf",       "math.exp",
    "math.exp2",      "math.log",         "math.log2",
    "math.log1p",     "math.tanh",        "math.sqrt",
    "math.rsqrt",     "math.erf",         "math.absf",
    "math.floor",     "math.ceil",        "math.round",
    "math.roundeven", "math.sin",         "math.cos",
    "math.fma",       "arith.extsi",      "arith.extui",
    "arith.trunci",   "arith.index_cast", "arith.index_castui",
    "arith.sitofp",   "arith.uitofp",     "arith.fptosi",
    "arith.fptoui",   "arith.extf",       "arith.truncf",
    "arith.cmpi",     "arith.cmpf",       "arith.select"};

/// The manifest dtype of an element or scalar type (index as i64), or "".
static std::string dtypeOf(Type type) {
  if (type.isIndex() || type.isInteger(64))
    return "i64";
  if (type.isF32())
    return "f32";
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  if (isa<Float8E4M3FNType>(type))
    return "f8E4M3FN";
  if (isa<Float8E5M2Type>(type))
    return "f8E5M2";
  if (type.isInteger(1))
    return "i1";
  if (type.isInteger(8))
    return "i8";
  if (type.isInteger(16))
    return "i16";
  if (type.isInteger(32))
    return "i32";
  return "";
}

static bool isIntegerLike(Type type) {
  return isa<IntegerType, IndexType>(type);
}

/// An integer as the manifest writes it (i1 as 0 or 1).
static json intNumber(const APInt &v) {
  return v.getBitWidth() == 1 ? json(v.getZExtValue()) : json(v.getSExtValue());
}

/// A float as the manifest writes it: a number, "nan", "inf" or "-inf".
static json floatNumber(APFloat v) {
  if (v.isNaN())
    return "nan";
  if (v.isInfinity())
    return v.isNegative() ? "-inf" : "inf";
  bool lost = false;
  v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return v.convertToDouble();
}

static json numberOf(Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return intNumber(i.getValue());
  return floatNumber(cast<FloatAttr>(attr).getValue());
}

/// Adds `scale` x `expr` to `row` (the coefficients of the dims, then the
/// constant); false when `expr` is not a linear combination of dims plus a
/// constant or a coefficient leaves the runtime's range.
static bool linearize(AffineExpr expr, int64_t scale,
                      SmallVectorImpl<int64_t> &row) {
  auto add = [&](int64_t &slot, int64_t value) {
    int64_t term;
    return !__builtin_mul_overflow(value, scale, &term) &&
           !__builtin_add_overflow(slot, term, &slot) &&
           std::abs(slot) <= kMaxCoefficient;
  };
  if (auto dim = dyn_cast<AffineDimExpr>(expr))
    return add(row[dim.getPosition()], 1);
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return add(row.back(), constant.getValue());
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return false;
  if (binary.getKind() == AffineExprKind::Add)
    return linearize(binary.getLHS(), scale, row) &&
           linearize(binary.getRHS(), scale, row);
  if (binary.getKind() != AffineExprKind::Mul)
    return false;
  // A product is linear when one side is a constant (canonically the RHS).
  auto constant = dyn_cast<AffineConstantExpr>(binary.getRHS());
  int64_t factor;
  return constant &&
         !__builtin_mul_overflow(scale, constant.getValue(), &factor) &&
         linearize(binary.getLHS(), factor, row);
}

/// True when `row` stays in [0, extent) over the loops, as the runtime
/// checks (the extremes are at the corners of the loops' box).
static bool inRange(ArrayRef<int64_t> row, ArrayRef<int64_t> loops,
                    int64_t extent) {
  __int128 lo = row.back(), hi = lo;
  for (size_t l = 0; l < loops.size(); ++l) {
    __int128 span = __int128(row[l]) * (loops[l] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return lo >= 0 && hi < extent;
}

/// A map row over `loops` loops: `coefficient` x loop `dim` (if any) plus
/// `constant`.
static json mapRow(size_t loops, std::optional<size_t> dim,
                   int64_t coefficient = 1, int64_t constant = 0) {
  SmallVector<int64_t> row(loops + 1, 0);
  if (dim)
    row[*dim] = coefficient;
  row.back() = constant;
  return json(row);
}

/// The map reading dimension d of an operand at loop `dims[d]`.
static json projection(size_t loops, ArrayRef<size_t> dims) {
  json map = json::array();
  for (size_t d : dims)
    map.push_back(mapRow(loops, d));
  return map;
}

static SmallVector<size_t> iota(size_t n, size_t from = 0) {
  SmallVector<size_t> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(from + i);
  return out;
}

namespace {
/// The body of a generic the writer makes: its arguments (inputs, then the
/// output) and its ops; returns the value to yield, or nullopt when the
/// runtime has no kernel for the element types.
using BodyFn =
    function_ref<std::optional<int64_t>(json &ops, ArrayRef<int64_t> args)>;

/// Serialises one host region.
class ReferenceWriter {
public:
  ReferenceWriter(HostCallOp host, StringRef name, bool required)
      : host(host), name(name), required(required) {}

  /// False after a diagnostic at the first op without a reference kernel:
  /// an error when the reference is required, else a warning.
  bool write();
  json reference() const {
    return {{"values", values}, {"ops", ops}, {"results", results}};
  }

  /// Constants left for program tensors: their index in the region's ops,
  /// their op and value.
  SmallVector<std::tuple<size_t, Operation *, ElementsAttr>> stored;

private:
  bool unsupported(Operation *op, const Twine &why = "");
  /// A new value of `type`, or nullopt when the runtime has no such type.
  std::optional<int64_t> newValue(Type type);
  /// Numbers `v` as a new value; false for a type the runtime lacks.
  bool define(Value v);
  int64_t idOf(Value v) const { return ids.lookup(v); }
  /// Appends scalar op `opName` to `list`; returns its result's id.
  int64_t scalarOp(json &list, StringRef opName, ArrayRef<int64_t> operands,
                   Type type, json attributes = json::object());
  /// A region-level arith.constant of `type`.
  int64_t scalarConstant(Type type, json value);

  bool writeOp(Operation *op);
  bool writeConstant(Operation *op, ElementsAttr value);
  bool writeReshape(Operation *op);
  bool writeScalar(Operation *op, json &list);
  bool writeTensorElementwise(Operation *op);
  bool writeLinalg(linalg::LinalgOp op);
  bool writeNeuron(Operation *op);

  /// Writes a generic computing `op`'s result over `loops` from `inputs`
  /// and an output initialised to `init` (or empty), with one map per
  /// input, then the output's.
  bool writeGeneric(Operation *op, ArrayRef<Value> inputs,
                    std::optional<json> init, ArrayRef<int64_t> loops,
                    json maps, ArrayRef<bool> reduction, BodyFn body);
  bool writeElementwise(Operation *op);
  bool writeMatmul(Operation *op, size_t batch);
  bool writeReduce(Operation *op, ArrayRef<int64_t> axes, bool keepDims);
  std::optional<int64_t> elementwiseBody(Operation *op, json &list,
                                         ArrayRef<int64_t> args);
  std::optional<int64_t> castBody(json &list, int64_t x, Type from, Type to);

  HostCallOp host;
  StringRef name;
  bool required;
  json values = json::array(), ops = json::array(), results = json::array();
  DenseMap<Value, int64_t> ids;
};
} // namespace

bool ReferenceWriter::unsupported(Operation *op, const Twine &why) {
  // Ops the import made (constants of a lowered TOSA op) may have no
  // location: the host call has its region's.
  Location loc = isa<UnknownLoc>(op->getLoc()) ? host.getLoc() : op->getLoc();
  InFlightDiagnostic diag = required ? emitError(loc) : emitWarning(loc);
  diag << "host_call " << name << ": '" << op->getName()
       << "' has no reference kernel"
       << (required ? ", so neuron-run could not run this step; no "
                      "executable is written"
                    : "; the executable compiles but neuron-run cannot run "
                      "this step");
  if (!why.isTriviallyEmpty())
    diag.attachNote() << why;
  return false;
}

std::optional<int64_t> ReferenceWriter::newValue(Type type) {
  json value;
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    std::string dtype = dtypeOf(tensor.getElementType());
    if (dtype.empty() || !tensor.hasStaticShape() ||
        tensor.getRank() > kMaxRank ||
        llvm::any_of(tensor.getShape(), [](int64_t d) { return d < 1; }))
      return std::nullopt;
    value = {{"dtype", dtype}, {"shape", tensor.getShape()}};
  } else {
    std::string dtype = dtypeOf(type);
    if (dtype.empty())
      return std::nullopt;
    value = {{"dtype", dtype}};
  }
  values.push_back(std::move(value));
  return int64_t(values.size()) - 1;
}

bool ReferenceWriter::define(Value v) {
  std::optional<int64_t> id = newValue(v.getType());
  if (id)
    ids[v] = *id;
  return id.has_value();
}

int64_t ReferenceWriter::scalarOp(json &list, StringRef opName,
                                  ArrayRef<int64_t> operands, Type type,
                                  json attributes) {
  int64_t result = *newValue(type);
  json entry = {{"op", opName.str()}};
  if (!operands.empty())
    entry["operands"] = operands;
  entry["result"] = result;
  entry.update(attributes);
  list.push_back(std::move(entry));
  return result;
}

int64_t ReferenceWriter::scalarConstant(Type type, json value) {
  return scalarOp(ops, "arith.constant", {}, type, {{"value", value}});
}

bool ReferenceWriter::writeConstant(Operation *op, ElementsAttr value) {
  if (!define(op->getResult(0)))
    return unsupported(op, "its type is not a static tensor of a manifest "
                           "dtype");
  json entry = {{"op", "constant"}, {"result", idOf(op->getResult(0))}};
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (dense &&
      (dense.isSplat() || dense.getNumElements() <= kMaxInlineElements)) {
    json list = json::array();
    bool isInt = isIntegerLike(dense.getElementType());
    if (dense.isSplat())
      list.push_back(isInt ? intNumber(dense.getSplatValue<APInt>())
                           : floatNumber(dense.getSplatValue<APFloat>()));
    else if (isInt)
      for (const APInt &v : dense.getValues<APInt>())
        list.push_back(intNumber(v));
    else
      for (const APFloat &v : dense.getValues<APFloat>())
        list.push_back(floatNumber(v));
    entry["values"] = std::move(list);
  } else {
    stored.emplace_back(ops.size(), op, value);
  }
  ops.push_back(std::move(entry));
  return true;
}

bool ReferenceWriter::writeReshape(Operation *op) {
  if (!define(op->getResult(0)))
    return unsupported(op, "its type is not a static tensor of a manifest "
                           "dtype");
  ops.push_back({{"op", "reshape"},
                 {"operands", {idOf(op->getOperand(0))}},
                 {"result", idOf(op->getResult(0))}});
  return true;
}

bool ReferenceWriter::writeScalar(Operation *op, json &list) {
  StringRef opName = op->getName().getStringRef();
  if (!isa<arith::ConstantOp, linalg::IndexOp>(op) &&
      !kScalarOps.contains(opName))
    return unsupported(op);
  auto truncf = dyn_cast<arith::TruncFOp>(op);
  if (truncf && truncf.getRoundingmode() &&
      *truncf.getRoundingmode() != arith::RoundingMode::to_nearest_even)
    return unsupported(op, "only round-to-nearest-even truncf has one");
  if (op->getNumResults() != 1 || isa<ShapedType>(op->getResult(0).getType()) ||
      llvm::any_of(op->getOperandTypes(),
                   [](Type t) { return isa<ShapedType>(t); }))
    return unsupported(op, "only on scalars and on tensors of one shape");
  SmallVector<int64_t> operands;
  for (Value v : op->getOperands())
    operands.push_back(idOf(v));
  if (!define(op->getResult(0)))
    return unsupported(op, "its type is not a manifest dtype (f32 bf16 f16 "
                           "f8E4M3FN f8E5M2 i1 i8 i16 i32 i64 index)");
  json entry = {{"op", opName.str()}};
  if (!operands.empty())
    entry["operands"] = operands;
  entry["result"] = idOf(op->getResult(0));
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    entry["value"] = numberOf(c.getValue());
  else if (auto index = dyn_cast<linalg::IndexOp>(op))
    entry["dim"] = index.getDim();
  else if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    entry["predicate"] = arith::stringifyCmpIPredicate(cmp.getPredicate());
  else if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    entry["predicate"] = arith::stringifyCmpFPredicate(cmp.getPredicate());
  list.push_back(std::move(entry));
  return true;
}

/// An arith or math op on tensors of one shape (a scalar select condition
/// too): a generic whose body is the op on their elements.
bool ReferenceWriter::writeTensorElementwise(Operation *op) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (op->getNumRegions() != 0 ||
      !llvm::all_of(op->getOperandTypes(), [&](Type t) {
        auto operand = dyn_cast<RankedTensorType>(t);
        return operand ? operand.getShape() == type.getShape()
                       : !isa<ShapedType>(t);
      }))
    return unsupported(op, "only on scalars and on tensors of one shape");
  size_t rank = type.getRank();
  json inputs = json::array(), maps = json::array(), arguments = json::array();
  for (Value v : op->getOperands()) {
    inputs.push_back(idOf(v));
    bool tensor = isa<RankedTensorType>(v.getType());
    maps.push_back(tensor ? projection(rank, iota(rank)) : json::array());
    std::optional<int64_t> arg = newValue(getElementTypeOrSelf(v.getType()));
    if (!arg)
      return unsupported(op, "its elements are not of a manifest dtype");
    arguments.push_back(*arg);
  }
  maps.push_back(projection(rank, iota(rank)));
  std::optional<int64_t> output = newValue(type);
  std::optional<int64_t> outArg = newValue(type.getElementType());
  if (!output || !outArg)
    return unsupported(op, "its result is not a static tensor of a manifest "
                           "dtype");
  ops.push_back({{"op", "empty"}, {"result", *output}});
  // The body is the op itself, on the elements.
  json entry = {{"op", op->getName().getStringRef().str()},
                {"operands", arguments},
                {"result", *newValue(type.getElementType())}};
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    entry["predicate"] = arith::stringifyCmpIPredicate(cmp.getPredicate());
  else if (auto cmp = dyn_cast<arith::CmpFOp>(op))
    entry["predicate"] = arith::stringifyCmpFPredicate(cmp.getPredicate());
  int64_t element = entry["result"].get<int64_t>();
  arguments.push_back(*outArg);
  if (!define(op->getResult(0)))
    return unsupported(op);
  ops.push_back({{"op", "generic"},
                 {"inputs", inputs},
                 {"outputs", {*output}},
                 {"results", {idOf(op->getResult(0))}},
                 {"loops", type.getShape()},
                 {"iterators", SmallVector<std::string>(rank, "parallel")},
                 {"maps", maps},
                 {"body",
                  {{"arguments", arguments},
                   {"ops", json::array({std::move(entry)})},
                   {"yield", {element}}}}});
  return true;
}

bool ReferenceWriter::writeLinalg(linalg::LinalgOp op) {
  Block *block = op.getBlock();
  if (!op.hasPureTensorSemantics() || !block ||
      block->getNumArguments() != op->getNumOperands())
    return unsupported(op, "only linalg ops on tensors whose body takes one "
                           "argument per operand have one");
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  if (int64_t(loops.size()) > kMaxRank ||
      llvm::any_of(loops, [](int64_t l) { return l < 1; }))
    return unsupported(op, "its loops are not static and non-empty");

  json maps = json::array();
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    ArrayRef<int64_t> shape = type ? type.getShape() : ArrayRef<int64_t>();
    if (map.getNumSymbols() != 0 || map.getNumResults() != shape.size())
      return unsupported(op, "its indexing maps have symbols");
    json rows = json::array();
    for (auto [expr, extent] : llvm::zip(map.getResults(), shape)) {
      SmallVector<int64_t> row(loops.size() + 1, 0);
      if (!linearize(expr, 1, row))
        return unsupported(op, "an indexing map result is not a linear "
                               "combination of loops plus a constant");
      if (!inRange(row, loops, extent))
        return unsupported(op, "an indexing map leaves its operand");
      rows.push_back(row);
    }
    maps.push_back(std::move(rows));
  }
  json iterators = json::array();
  for (utils::IteratorType t : op.getIteratorTypesArray())
    iterators.push_back(t == utils::IteratorType::reduction ? "reduction"
                                                            : "parallel");

  json arguments = json::array(), body = json::array(), yields = json::array();
  for (BlockArgument arg : block->getArguments()) {
    if (!define(arg))
      return unsupported(op, "its elements are not of a manifest dtype");
    arguments.push_back(idOf(arg));
  }
  for (Operation &bodyOp : block->without_terminator())
    if (!writeScalar(&bodyOp, body))
      return false;
  for (Value v : block->getTerminator()->getOperands())
    yields.push_back(idOf(v));
  json outputs = json::array(), generic = json::array(), inputs = json::array();
  for (Value v : op.getDpsInputs())
    inputs.push_back(idOf(v));
  for (Value v : op.getDpsInits())
    outputs.push_back(idOf(v));
  for (Value v : op->getResults()) {
    if (!define(v))
      return unsupported(op, "its results are not static tensors");
    generic.push_back(idOf(v));
  }
  ops.push_back(
      {{"op", "generic"},
       {"inputs", inputs},
       {"outputs", outputs},
       {"results", generic},
       {"loops", loops},
       {"iterators", iterators},
       {"maps", maps},
       {"body", {{"arguments", arguments}, {"ops", body}, {"yield", yields}}}});
  return true;
}

bool ReferenceWriter::writeGeneric(Operation *op, ArrayRef<Value> inputs,
                                   std::optional<json> init,
                                   ArrayRef<int64_t> loops, json maps,
                                   ArrayRef<bool> reduction, BodyFn body) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  std::optional<int64_t> output = newValue(resultType);
  if (!output)
    return unsupported(op, "its result is not a static tensor of a manifest "
                           "dtype");
  json initOp = {{"op", init ? "constant" : "empty"}, {"result", *output}};
  if (init)
    initOp["values"] = json::array({*init});
  ops.push_back(std::move(initOp));

  json arguments = json::array(), inputIds = json::array();
  SmallVector<int64_t> args;
  for (Value v : inputs) {
    std::optional<int64_t> arg =
        newValue(cast<ShapedType>(v.getType()).getElementType());
    if (!arg)
      return unsupported(op, "its operands' elements are not of a manifest "
                             "dtype");
    args.push_back(*arg);
    inputIds.push_back(idOf(v));
  }
  args.push_back(*newValue(resultType.getElementType()));
  json bodyOps = json::array();
  std::optional<int64_t> yield = body(bodyOps, args);
  if (!yield)
    return unsupported(op, "not for these element types");
  if (!define(op->getResult(0)))
    return unsupported(op);
  json iterators = json::array();
  for (bool r : reduction)
    iterators.push_back(r ? "reduction" : "parallel");
  ops.push_back(
      {{"op", "generic"},
       {"inputs", inputIds},
       {"outputs", {*output}},
       {"results", {idOf(op->getResult(0))}},
       {"loops", loops},
       {"iterators", iterators},
       {"maps", maps},
       {"body", {{"arguments", args}, {"ops", bodyOps}, {"yield", {*yield}}}}});
  return true;
}

/// `from` converted to `to` as neuron.cast defines it (and the device does):
/// integers sign-extend or wrap, i1 reads as 0 or 1, any non-zero value
/// becomes i1 true, floats round to nearest even, float to integer
/// truncates toward zero.
std::optional<int64_t> ReferenceWriter::castBody(json &list, int64_t x,
                                                 Type from, Type to) {
  if (from == to)
    return x;
  bool intFrom = isIntegerLike(from), intTo = isIntegerLike(to);
  if (to.isInteger(1)) {
    int64_t zero = scalarConstant(from, intFrom ? json(0) : json(0.0));
    return scalarOp(list, intFrom ? "arith.cmpi" : "arith.cmpf", {x, zero}, to,
                    {{"predicate", intFrom ? "ne" : "une"}});
  }
  if (intFrom && intTo) {
    bool wider = to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth();
    return scalarOp(list,
                    !wider              ? "arith.trunci"
                    : from.isInteger(1) ? "arith.extui"
                                        : "arith.extsi",
                    {x}, to);
  }
  if (intFrom)
    return scalarOp(list, from.isInteger(1) ? "arith.uitofp" : "arith.sitofp",
                    {x}, to);
  if (intTo)
    return scalarOp(list, "arith.fptosi", {x}, to);
  bool wider = to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth();
  return scalarOp(list, wider ? "arith.extf" : "arith.truncf", {x}, to);
}

std::optional<int64_t>
ReferenceWriter::elementwiseBody(Operation *op, json &list,
                                 ArrayRef<int64_t> args) {
  Type element = getElementTypeOrSelf(op->getResult(0).getType());
  Type operand = getElementTypeOrSelf(op->getOperand(0).getType());
  bool isInt = isIntegerLike(element);
  // i1 orders false below true, as the device reads it (0 and 1).
  bool isBool = operand.isInteger(1);
  auto apply = [&](StringRef opName, ArrayRef<int64_t> operands,
                   json attributes = json::object()) {
    return scalarOp(list, opName, operands, element, attributes);
  };
  auto constant = [&](double value) {
    return scalarConstant(element, isInt ? json(int64_t(value)) : json(value));
  };
  auto sigmoid = [&](int64_t x) {
    int64_t one = constant(1);
    int64_t e = apply("math.exp", {apply("arith.negf", {x})});
    return apply("arith.divf", {one, apply("arith.addf", {one, e})});
  };
  int64_t x = args[0];
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case([&](AddOp) {
        return apply(isInt ? "arith.addi" : "arith.addf", {x, args[1]});
      })
      .Case([&](SubOp) {
        return apply(isInt ? "arith.subi" : "arith.subf", {x, args[1]});
      })
      .Case([&](MulOp) {
        return apply(isInt ? "arith.muli" : "arith.mulf", {x, args[1]});
      })
      .Case([&](DivOp) {
        return apply(isInt ? "arith.divsi" : "arith.divf", {x, args[1]});
      })
      .Case([&](MaxOp) {
        return apply(isBool  ? "arith.maxui"
                     : isInt ? "arith.maxsi"
                             : "arith.maximumf",
                     {x, args[1]});
      })
      .Case([&](MinOp) {
        return apply(isBool  ? "arith.minui"
                     : isInt ? "arith.minsi"
                             : "arith.minimumf",
                     {x, args[1]});
      })
      .Case([&](PowOp) -> std::optional<int64_t> {
        if (isInt)
          return std::nullopt;
        return apply("math.powf", {x, args[1]});
      })
      .Case([&](NegOp) {
        return isInt ? apply("arith.subi", {constant(0), x})
                     : apply("arith.negf", {x});
      })
      .Case(
          [&](AbsOp) { return apply(isInt ? "math.absi" : "math.absf", {x}); })
      .Case([&](ReluOp) {
        if (isInt)
          return apply("arith.maxsi", {x, constant(0)});
        int64_t zero = constant(0);
        int64_t positive = scalarOp(list, "arith.cmpf", {x, zero},
                                    IntegerType::get(op->getContext(), 1),
                                    {{"predicate", "ogt"}});
        return apply("arith.select", {positive, x, zero});
      })
      .Case([&](ExpOp) { return apply("math.exp", {x}); })
      .Case([&](LogOp) { return apply("math.log", {x}); })
      .Case([&](TanhOp) { return apply("math.tanh", {x}); })
      .Case([&](SqrtOp) { return apply("math.sqrt", {x}); })
      .Case([&](RsqrtOp) { return apply("math.rsqrt", {x}); })
      .Case([&](ErfOp) { return apply("math.erf", {x}); })
      .Case([&](ReciprocalOp) {
        return apply("arith.divf", {constant(1), x});
      })
      .Case([&](SigmoidOp) { return sigmoid(x); })
      .Case([&](SiluOp) {
        return apply("arith.mulf", {x, sigmoid(x)});
      })
      .Case([&](CompareOp c) {
        static constexpr const char *kInt[] = {"eq",  "ne",  "slt",
                                               "sle", "sgt", "sge"};
        static constexpr const char *kBool[] = {"eq",  "ne",  "ult",
                                                "ule", "ugt", "uge"};
        static constexpr const char *kFloat[] = {"oeq", "une", "olt",
                                                 "ole", "ogt", "oge"};
        int p = int(c.getPredicate());
        bool intOperand = isIntegerLike(operand);
        return scalarOp(list, intOperand ? "arith.cmpi" : "arith.cmpf",
                        {x, args[1]}, element,
                        {{"predicate", isBool       ? kBool[p]
                                       : intOperand ? kInt[p]
                                                    : kFloat[p]}});
      })
      .Case([&](SelectOp) {
        return apply("arith.select", {x, args[1], args[2]});
      })
      .Case([&](CastOp) { return castBody(list, x, operand, element); })
      .Default([](Operation *) { return std::nullopt; });
}

bool ReferenceWriter::writeElementwise(Operation *op) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  size_t rank = type.getRank();
  json maps = json::array();
  for (size_t i = 0; i <= op->getNumOperands(); ++i)
    maps.push_back(projection(rank, iota(rank)));
  SmallVector<bool> parallel(rank, false);
  return writeGeneric(op, llvm::to_vector(op->getOperands()), std::nullopt,
                      type.getShape(), maps, parallel,
                      [&](json &list, ArrayRef<int64_t> args) {
                        return elementwiseBody(op, list, args);
                      });
}

/// `[B..,] M x K` times `[B..,] K x N`: loops [B.., M, N, K].
bool ReferenceWriter::writeMatmul(Operation *op, size_t batch) {
  auto lhs = cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> loops(result.getShape());
  loops.push_back(lhs.getShape().back());
  size_t m = batch, n = batch + 1, k = batch + 2, count = batch + 3;
  SmallVector<size_t> lhsDims = iota(batch), rhsDims = iota(batch),
                      outDims = iota(batch);
  lhsDims.append({m, k});
  rhsDims.append({k, n});
  outDims.append({m, n});
  json maps = {projection(count, lhsDims), projection(count, rhsDims),
               projection(count, outDims)};
  SmallVector<bool> reduction(count, false);
  reduction.back() = true;
  Type element = result.getElementType();
  bool isInt = isIntegerLike(element);
  auto widen = [&](json &list, int64_t x, Type from) -> std::optional<int64_t> {
    if (from == element)
      return x;
    if (isIntegerLike(from) != isInt ||
        from.getIntOrFloatBitWidth() >= element.getIntOrFloatBitWidth())
      return std::nullopt;
    return scalarOp(list, isInt ? "arith.extsi" : "arith.extf", {x}, element);
  };
  return writeGeneric(
      op, {op->getOperand(0), op->getOperand(1)}, isInt ? json(0) : json(0.0),
      loops, maps, reduction,
      [&](json &list, ArrayRef<int64_t> args) -> std::optional<int64_t> {
        std::optional<int64_t> a = widen(list, args[0], lhs.getElementType());
        std::optional<int64_t> b = widen(
            list, args[1], getElementTypeOrSelf(op->getOperand(1).getType()));
        if (!a || !b)
          return std::nullopt;
        int64_t product = scalarOp(list, isInt ? "arith.muli" : "arith.mulf",
                                   {*a, *b}, element);
        return scalarOp(list, isInt ? "arith.addi" : "arith.addf",
                        {args[2], product}, element);
      });
}

bool ReferenceWriter::writeReduce(Operation *op, ArrayRef<int64_t> axes,
                                  bool keepDims) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  Type element = input.getElementType();
  size_t rank = input.getRank();
  bool isInt = isIntegerLike(element), isBool = element.isInteger(1);
  SmallVector<bool> reduction(rank, false);
  for (int64_t axis : axes)
    reduction[axis] = true;
  json out = json::array();
  for (size_t d = 0; d < rank; ++d) {
    if (!reduction[d])
      out.push_back(mapRow(rank, d));
    else if (keepDims)
      out.push_back(mapRow(rank, std::nullopt));
  }
  json maps = {projection(rank, iota(rank)), out};
  // The identity of each reduction; integers' extremes for max and min.
  int64_t bits = isInt ? element.getIntOrFloatBitWidth() : 0;
  int64_t intMin = isBool ? 0 : bits ? -(int64_t(1) << (bits - 1)) : 0;
  int64_t intMax = isBool ? 1
                   : bits ? int64_t((uint64_t(1) << (bits - 1)) - 1)
                          : 0;
  StringRef combine;
  json init;
  if (isa<ReduceSumOp>(op)) {
    combine = isInt ? "arith.addi" : "arith.addf";
    init = isInt ? json(0) : json(0.0);
  } else if (isa<ReduceMaxOp>(op)) {
    combine = isBool ? "arith.maxui" : isInt ? "arith.maxsi" : "arith.maximumf";
    init = isInt ? json(intMin) : json("-inf");
  } else {
    combine = isBool ? "arith.minui" : isInt ? "arith.minsi" : "arith.minimumf";
    init = isInt ? json(intMax) : json("inf");
  }
  return writeGeneric(
      op, {op->getOperand(0)}, init, SmallVector<int64_t>(input.getShape()),
      maps, reduction,
      [&](json &list, ArrayRef<int64_t> args) -> std::optional<int64_t> {
        return scalarOp(list, combine, {args[1], args[0]}, element);
      });
}

bool ReferenceWriter::writeNeuron(Operation *op) {
  return llvm::TypeSwitch<Operation *, bool>(op)
      .Case([&](ConstantOp c) { return writeConstant(op, c.getValue()); })
      .Case([&](ReshapeOp) { return writeReshape(op); })
      .Case([&](MatmulOp) { return writeMatmul(op, 0); })
      .Case([&](BatchMatmulOp) { return writeMatmul(op, 1); })
      .Case<ReduceSumOp, ReduceMaxOp, ReduceMinOp>(
          [&](auto r) { return writeReduce(op, r.getAxes(), r.getKeepDims()); })
      .Case([&](TransposeOp t) {
        // result[i..] = input[j..] where j = permutation[i].
        auto type = cast<RankedTensorType>(op->getResult(0).getType());
        size_t rank = type.getRank();
        SmallVector<size_t> loopOf(rank);
        for (auto [i, p] : llvm::enumerate(t.getPermutation()))
          loopOf[p] = i;
        json maps = {projection(rank, loopOf), projection(rank, iota(rank))};
        return writeGeneric(op, {t.getInput()}, std::nullopt, type.getShape(),
                            maps, SmallVector<bool>(rank, false),
                            [](json &, ArrayRef<int64_t> args) {
                              return std::optional<int64_t>(args[0]);
                            });
      })
      .Case([&](BroadcastOp b) {
        auto type = cast<RankedTensorType>(op->getResult(0).getType());
        auto input = cast<RankedTensorType>(b.getInput().getType());
        size_t rank = type.getRank();
        json in = json::array();
        for (auto [i, d] : llvm::enumerate(b.getDimensions()))
          in.push_back(input.getDimSize(i) == 1 && type.getDimSize(d) != 1
                           ? mapRow(rank, std::nullopt)
                           : mapRow(rank, size_t(d)));
        json maps = {in, projection(rank, iota(rank))};
        return writeGeneric(op, {b.getInput()}, std::nullopt, type.getShape(),
                            maps, SmallVector<bool>(rank, false),
                            [](json &, ArrayRef<int64_t> args) {
                              return std::optional<int64_t>(args[0]);
                            });
      })
      .Case([&](SliceOp s) {
        auto type = cast<RankedTensorType>(op->getResult(0).getType());
        auto input = cast<RankedTensorType>(s.getInput().getType());
        size_t rank = type.getRank();
        json in = json::array();
        for (size_t d = 0; d < rank; ++d) {
          SmallVector<int64_t> row(rank + 1, 0);
          row[d] = s.getStrides()[d];
          row.back() = s.getOffsets()[d];
          if (!inRange(row, type.getShape(), input.getDimSize(d)))
            return unsupported(op, "its window leaves its input");
          in.push_back(row);
        }
        json maps = {in, projection(rank, iota(rank))};
        return writeGeneric(op, {s.getInput()}, std::nullopt, type.getShape(),
                            maps, SmallVector<bool>(rank, false),
                            [](json &, ArrayRef<int64_t> args) {
                              return std::optional<int64_t>(args[0]);
                            });
      })
      .Case<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, NegOp, AbsOp,
            ReluOp, ExpOp, LogOp, TanhOp, SqrtOp, RsqrtOp, ErfOp, ReciprocalOp,
            SigmoidOp, SiluOp, CompareOp, SelectOp, CastOp>(
          [&](Operation *) { return writeElementwise(op); })
      .Default([&](Operation *) { return unsupported(op); });
}

bool ReferenceWriter::writeOp(Operation *op) {
  if (isa<NeuronDialect>(op->getDialect()))
    return writeNeuron(op);
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    if (auto value = dyn_cast<ElementsAttr>(c.getValue()))
      return writeConstant(op, value);
  if (isa<tensor::EmptyOp>(op)) {
    if (!define(op->getResult(0)))
      return unsupported(op, "its type is not a static tensor of a manifest "
                             "dtype");
    ops.push_back({{"op", "empty"}, {"result", idOf(op->getResult(0))}});
    return true;
  }
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
    return writeReshape(op);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return writeLinalg(linalgOp);
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) {
    if (op->getNumResults() == 1 &&
        isa<RankedTensorType>(op->getResult(0).getType()) &&
        (isa<arith::CmpIOp, arith::CmpFOp>(op) ||
         kScalarOps.contains(op->getName().getStringRef())))
      return writeTensorElementwise(op);
    return writeScalar(op, ops);
  }
  return unsupported(op);
}

bool ReferenceWriter::write() {
  Block &block = host.getBody().front();
  for (BlockArgument arg : block.getArguments())
    if (!define(arg))
      return unsupported(host, "an argument is not a static tensor of a "
                               "manifest dtype");
  for (Operation &op : block) {
    if (auto yield = dyn_cast<YieldOp>(op)) {
      for (Value v : yield.getOperands())
        results.push_back(idOf(v));
      continue;
    }
    if (!writeOp(&op))
      return false;
  }
  return true;
}

FailureOr<std::optional<json>>
mlir::neuron::writeHostReference(HostCallOp op, StringRef name,
                                 StoreConstantFn storeConstant,
                                 bool required) {
  ReferenceWriter writer(op, name, required);
  if (!writer.write())
    return required ? FailureOr<std::optional<json>>(failure())
                    : std::optional<json>();
  json reference = writer.reference();
  for (auto [index, owner, value] : writer.stored) {
    FailureOr<int64_t> tensor = storeConstant(owner, value);
    if (failed(tensor))
      return failure();
    reference["ops"][index]["tensor"] = *tensor;
  }
  return std::optional<json>(std::move(reference));
}
