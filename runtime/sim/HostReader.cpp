//===- HostReader.cpp - Read and validate a host_call's reference ---------===//
//
// Reads a host_call step's `reference` without exceptions. Every value id is
// checked for range, for being defined exactly once before it is used, and
// for scope (a generic's body sees region-level scalars and its own values
// only); every op's operand count and types follow its signature; every
// indexing map is evaluated at the corners of its loops so that all the
// elements it can touch lie inside its operand.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Host.h"

#include "runtime/sim/ManifestText.h"
#include "runtime/sim/Program.h"
#include "runtime/target/JsonReader.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>

namespace neuron::rt {

/// Values and ops of one region, and a generic's iterations.
static constexpr int64_t kMaxValues = int64_t(1) << 20;
static constexpr int64_t kMaxIterations = int64_t(1) << 40;
/// Bound of an indexing map's coefficients and constants; with kMaxRank
/// loops below kMaxExtent every map value fits in 128 bits.
static constexpr int64_t kMaxCoefficient = int64_t(1) << 40;

namespace {
/// How a scalar op's operands and result are typed.
enum class Signature {
  Constant,
  Index,
  IntBinary,
  IntUnary,
  FloatBinary,
  FloatUnary,
  FloatTernary,
  IntExt,
  IntTrunc,
  IntToInt,
  IntToFloat,
  FloatToInt,
  FloatToFloat,
  CmpI,
  CmpF,
  Select
};

struct ScalarOpInfo {
  const char *name;
  ScalarOp op;
  Signature signature;
};
} // namespace

static const ScalarOpInfo kScalarOps[] = {
    {"arith.constant", ScalarOp::Constant, Signature::Constant},
    {"linalg.index", ScalarOp::Index, Signature::Index},
    {"arith.addi", ScalarOp::AddI, Signature::IntBinary},
    {"arith.subi", ScalarOp::SubI, Signature::IntBinary},
    {"arith.muli", ScalarOp::MulI, Signature::IntBinary},
    {"arith.divsi", ScalarOp::DivSI, Signature::IntBinary},
    {"arith.divui", ScalarOp::DivUI, Signature::IntBinary},
    {"arith.remsi", ScalarOp::RemSI, Signature::IntBinary},
    {"arith.remui", ScalarOp::RemUI, Signature::IntBinary},
    {"arith.shli", ScalarOp::ShLI, Signature::IntBinary},
    {"arith.shrsi", ScalarOp::ShRSI, Signature::IntBinary},
    {"arith.shrui", ScalarOp::ShRUI, Signature::IntBinary},
    {"arith.andi", ScalarOp::AndI, Signature::IntBinary},
    {"arith.ori", ScalarOp::OrI, Signature::IntBinary},
    {"arith.xori", ScalarOp::XOrI, Signature::IntBinary},
    {"arith.maxsi", ScalarOp::MaxSI, Signature::IntBinary},
    {"arith.minsi", ScalarOp::MinSI, Signature::IntBinary},
    {"arith.maxui", ScalarOp::MaxUI, Signature::IntBinary},
    {"arith.minui", ScalarOp::MinUI, Signature::IntBinary},
    {"math.absi", ScalarOp::AbsI, Signature::IntUnary},
    {"arith.addf", ScalarOp::AddF, Signature::FloatBinary},
    {"arith.subf", ScalarOp::SubF, Signature::FloatBinary},
    {"arith.mulf", ScalarOp::MulF, Signature::FloatBinary},
    {"arith.divf", ScalarOp::DivF, Signature::FloatBinary},
    {"arith.remf", ScalarOp::RemF, Signature::FloatBinary},
    {"arith.maximumf", ScalarOp::MaximumF, Signature::FloatBinary},
    {"arith.minimumf", ScalarOp::MinimumF, Signature::FloatBinary},
    {"arith.maxnumf", ScalarOp::MaxNumF, Signature::FloatBinary},
    {"arith.minnumf", ScalarOp::MinNumF, Signature::FloatBinary},
    {"math.powf", ScalarOp::PowF, Signature::FloatBinary},
    {"arith.negf", ScalarOp::NegF, Signature::FloatUnary},
    {"math.exp", ScalarOp::Exp, Signature::FloatUnary},
    {"math.exp2", ScalarOp::Exp2, Signature::FloatUnary},
    {"math.log", ScalarOp::Log, Signature::FloatUnary},
    {"math.log2", ScalarOp::Log2, Signature::FloatUnary},
    {"math.log1p", ScalarOp::Log1p, Signature::FloatUnary},
    {"math.tanh", ScalarOp::Tanh, Signature::FloatUnary},
    {"math.sqrt", ScalarOp::Sqrt, Signature::FloatUnary},
    {"math.rsqrt", ScalarOp::Rsqrt, Signature::FloatUnary},
    {"math.erf", ScalarOp::Erf, Signature::FloatUnary},
    {"math.absf", ScalarOp::AbsF, Signature::FloatUnary},
    {"math.floor", ScalarOp::Floor, Signature::FloatUnary},
    {"math.ceil", ScalarOp::Ceil, Signature::FloatUnary},
    {"math.round", ScalarOp::Round, Signature::FloatUnary},
    {"math.roundeven", ScalarOp::RoundEven, Signature::FloatUnary},
    {"math.sin", ScalarOp::Sin, Signature::FloatUnary},
    {"math.cos", ScalarOp::Cos, Signature::FloatUnary},
    {"math.fma", ScalarOp::Fma, Signature::FloatTernary},
    {"arith.extsi", ScalarOp::ExtSI, Signature::IntExt},
    {"arith.extui", ScalarOp::ExtUI, Signature::IntExt},
    {"arith.trunci", ScalarOp::TruncI, Signature::IntTrunc},
    {"arith.index_cast", ScalarOp::IndexCast, Signature::IntToInt},
    {"arith.index_castui", ScalarOp::IndexCastUI, Signature::IntToInt},
    {"arith.sitofp", ScalarOp::SIToFP, Signature::IntToFloat},
    {"arith.uitofp", ScalarOp::UIToFP, Signature::IntToFloat},
    {"arith.fptosi", ScalarOp::FPToSI, Signature::FloatToInt},
    {"arith.fptoui", ScalarOp::FPToUI, Signature::FloatToInt},
    {"arith.extf", ScalarOp::ExtF, Signature::FloatToFloat},
    {"arith.truncf", ScalarOp::TruncF, Signature::FloatToFloat},
    {"arith.cmpi", ScalarOp::CmpI, Signature::CmpI},
    {"arith.cmpf", ScalarOp::CmpF, Signature::CmpF},
    {"arith.select", ScalarOp::Select, Signature::Select},
};

static const char *const kRegionOps[] = {"constant", "empty", "reshape",
                                         "generic"};
static const char *const kCmpINames[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                         "sge", "ult", "ule", "ugt", "uge"};
static const char *const kCmpFNames[] = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};

/// Reads `array` (at `key`): at most kMaxRank extents in [1, 2^40], into
/// `out`, with their product, which must stay at most `limit` (2^40 `counted`);
/// `expected` describes the whole array.
static absl::Status readExtents(ObjectReader &r, std::string_view key,
                                const json &array, std::string_view expected,
                                std::string_view counted, int64_t limit,
                                std::vector<int64_t> &out, int64_t &product) {
  if (!array.is_array() || int64_t(array.size()) > kMaxRank)
    return r.error(key, expected, describeJson(array));
  product = 1;
  for (size_t d = 0; d < array.size(); ++d) {
    const json &e = array[d];
    if (!e.is_number_integer() || e.get<int64_t>() < 1 ||
        e.get<int64_t>() > kMaxExtent)
      return r.itemError(key, d, "an extent in [1, 2^40]", describeJson(e));
    out.push_back(e.get<int64_t>());
    if (__builtin_mul_overflow(product, out.back(), &product) ||
        product > limit)
      return r.error(key, absl::StrFormat("at most 2^40 %s", counted),
                     formatShape(out));
  }
  return absl::OkStatus();
}

/// "scalar i32" or "tensor i32[1, 16]".
static std::string typeText(DType dtype, const std::vector<int64_t> *shape) {
  if (!shape)
    return absl::StrFormat("scalar %s", dtypeName(dtype));
  return absl::StrFormat("tensor %s%s", dtypeName(dtype), formatShape(*shape));
}

/// An element of a constant: an integer in the range of `dtype` (signed or
/// unsigned), or for a float dtype a number or "nan", "inf", "-inf".
static bool readElement(const json &item, DType dtype, HostScalar &out) {
  int width = integerBits(dtype);
  if (width == 0) {
    if (item.is_number()) {
      out.f = item.get<double>();
    } else if (item.is_string()) {
      std::string s = item.get<std::string>();
      if (s == "nan")
        out.f = std::numeric_limits<double>::quiet_NaN();
      else if (s == "inf" || s == "-inf")
        out.f = s == "inf" ? INFINITY : -INFINITY;
      else
        return false;
    } else {
      return false;
    }
    // Rounded as the simulator stores it.
    uint8_t bytes[8];
    storeElement(dtype, out.f, bytes);
    out.f = loadElement(dtype, bytes);
    return true;
  }
  if (!item.is_number_integer())
    return false;
  if (item.is_number_unsigned()) {
    uint64_t u = item.get<uint64_t>();
    if (width < 64 ? u >> width != 0 : u > uint64_t(INT64_MAX))
      return false;
    out.i = int64_t(u);
  } else {
    int64_t v = item.get<int64_t>();
    if (width < 64 &&
        (v < -(int64_t(1) << (width - 1)) || v >= (int64_t(1) << width)))
      return false;
    out.i = v;
  }
  // Sign-extended from the width: i1 true is -1, as MLIR reads it signed.
  if (width < 64) {
    uint64_t shift = 64 - width;
    out.i = int64_t(uint64_t(out.i) << shift) >> shift;
  }
  return true;
}

namespace {
/// Reads one reference, tracking where each value is defined.
class ReferenceReader {
public:
  explicit ReferenceReader(const std::vector<TensorDesc> &tensors)
      : tensors(tensors) {}

  absl::StatusOr<HostReference> read(ObjectReader &r,
                                     const std::vector<int64_t> &inputs,
                                     const std::vector<int64_t> &outputs);

private:
  absl::Status readValues(ObjectReader &r, const std::vector<int64_t> &inputs);
  absl::Status readOps(ObjectReader &r, std::string_view key, bool body,
                       std::vector<HostOp> &ops);
  absl::Status readConstant(ObjectReader &r, HostOp &op);
  absl::Status readReshape(ObjectReader &r, HostOp &op);
  absl::Status readGeneric(ObjectReader &r, HostOp &op);
  absl::Status readMaps(ObjectReader &r, HostOp &op);
  absl::Status readBody(ObjectReader &r, HostOp &op);
  absl::Status readScalarOp(ObjectReader &r, const ScalarOpInfo &info,
                            bool body, HostOp &op);
  absl::Status checkScalarTypes(ObjectReader &r, const ScalarOpInfo &info,
                                const HostOp &op);

  /// An array of value ids at `key`.
  absl::StatusOr<std::vector<int64_t>> ids(ObjectReader &r,
                                           std::string_view key);
  /// A value id at `key`.
  absl::StatusOr<int64_t> id(ObjectReader &r, std::string_view key);
  /// Checks that `ids[index]` at `key` is defined and visible here.
  absl::Status use(ObjectReader &r, std::string_view key, size_t index,
                   int64_t id);
  /// Defines `id` (at `key`, item `index` or -1) in the current scope.
  absl::Status define(ObjectReader &r, std::string_view key, int64_t index,
                      int64_t id);
  /// An error at `key` or at its item `index` (-1 for the field itself).
  absl::Status at(ObjectReader &r, std::string_view key, int64_t index,
                  std::string_view expected, std::string_view found) const;
  /// "value N: TYPE" for errors.
  std::string describe(int64_t id) const;
  const HostValue &value(int64_t id) const { return ref.values[id]; }

  const std::vector<TensorDesc> &tensors;
  HostReference ref;
  /// Where each value is defined: -1 nowhere yet, 0 the region, k > 0 the
  /// body of the k-th generic.
  std::vector<int64_t> scope;
  int64_t currentScope = 0, generics = 0;
  /// Loops of the generic whose body is being read.
  int64_t bodyLoops = 0;
};
} // namespace

absl::Status ReferenceReader::at(ObjectReader &r, std::string_view key,
                                 int64_t index, std::string_view expected,
                                 std::string_view found) const {
  return index < 0 ? r.error(key, expected, found)
                   : r.itemError(key, size_t(index), expected, found);
}

std::string ReferenceReader::describe(int64_t id) const {
  const HostValue &v = value(id);
  return absl::StrFormat("value %d: %s", id,
                         typeText(v.dtype, v.isTensor ? &v.shape : nullptr));
}

absl::StatusOr<std::vector<int64_t>>
ReferenceReader::ids(ObjectReader &r, std::string_view key) {
  int64_t count = int64_t(ref.values.size());
  std::string expected = "an array of value ids";
  NEURON_ASSIGN_OR_RETURN(v, r.field(key, expected));
  if (!v->is_array() || int64_t(v->size()) > kMaxValues)
    return r.error(key, expected, describeJson(*v));
  std::vector<int64_t> out;
  for (size_t i = 0; i < v->size(); ++i) {
    const json &item = (*v)[i];
    bool ok = item.is_number_unsigned()
                  ? item.get<uint64_t>() < uint64_t(count)
                  : item.is_number_integer() && item.get<int64_t>() >= 0 &&
                        item.get<int64_t>() < count;
    if (!ok)
      return r.itemError(key, i,
                         absl::StrFormat("a value id in [0, %d]", count - 1),
                         describeJson(item));
    out.push_back(item.get<int64_t>());
  }
  return out;
}

absl::StatusOr<int64_t> ReferenceReader::id(ObjectReader &r,
                                            std::string_view key) {
  int64_t out = 0;
  int64_t count = int64_t(ref.values.size());
  NEURON_RETURN_IF_ERROR(
      r.integer(key, absl::StrFormat("a value id in [0, %d]", count - 1), 0,
                count - 1, out));
  return out;
}

absl::Status ReferenceReader::use(ObjectReader &r, std::string_view key,
                                  size_t index, int64_t id) {
  if (scope[id] < 0)
    return r.itemError(key, index, "a value defined before this op",
                       absl::StrFormat("value %d, not defined yet", id));
  if (scope[id] != 0 && scope[id] != currentScope)
    return r.itemError(
        key, index,
        currentScope == 0 ? "a value of the region (not of a generic's body)"
                          : "a value of the region or of this generic's body",
        absl::StrFormat("value %d, defined in the body of %s generic", id,
                        currentScope == 0 ? "a" : "another"));

  return absl::OkStatus();
}

absl::Status ReferenceReader::define(ObjectReader &r, std::string_view key,
                                     int64_t index, int64_t id) {
  if (scope[id] >= 0)
    return at(r, key, index, "a value not defined before",
              absl::StrFormat("value %d, already defined", id));
  scope[id] = currentScope;
  return absl::OkStatus();
}

absl::Status ReferenceReader::readValues(ObjectReader &root,
                                         const std::vector<int64_t> &inputs) {
  std::string expected =
      absl::StrFormat("an array of at most %d value objects", kMaxValues);
  NEURON_ASSIGN_OR_RETURN(v, root.field("values", expected));
  if (!v->is_array() || int64_t(v->size()) > kMaxValues)
    return root.error("values", expected, describeJson(*v));
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_object())
      return root.itemError("values", i, "a {dtype, shape} object",
                            describeJson((*v)[i]));
    ObjectReader r(kFile, absl::StrFormat("%s[%d]", root.pathOf("values"), i),
                   (*v)[i]);
    HostValue value;
    std::string name;
    NEURON_RETURN_IF_ERROR(r.string("dtype", name));
    std::optional<DType> dtype = parseDType(name);
    if (!dtype)
      return r.error("dtype", dtypeNames(), foundString(name));
    value.dtype = *dtype;
    NEURON_ASSIGN_OR_RETURN(shape, r.field("shape", "", /*required=*/false));
    if (shape) {
      value.isTensor = true;
      NEURON_RETURN_IF_ERROR(readExtents(
          r, "shape", *shape,
          absl::StrFormat("an array of at most %d extents in [1, 2^40] "
                          "(absent for a scalar)",
                          kMaxRank),
          "elements", kMaxElements, value.shape, value.elements));
    }
    NEURON_RETURN_IF_ERROR(r.finish());
    ref.values.push_back(std::move(value));
  }
  scope.assign(ref.values.size(), -1);
  // Values 0..n-1 are the region's arguments, the step's inputs.
  if (ref.values.size() < inputs.size())
    return root.error(
        "values",
        absl::StrFormat("at least %d values (the step's inputs are values "
                        "0..%d)",
                        inputs.size(), int64_t(inputs.size()) - 1),
        absl::StrFormat("%d", ref.values.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorDesc &t = tensors[inputs[i]];
    const HostValue &arg = ref.values[i];
    if (!arg.isTensor || arg.dtype != t.dtype || arg.shape != t.shape)
      return root.itemError(
          "values", i,
          typeText(t.dtype, &t.shape) +
              absl::StrFormat(" (the step's input %d, tensor %d)", i,
                              inputs[i]),
          describe(int64_t(i)));
    scope[i] = 0;
  }
  return absl::OkStatus();
}

absl::Status ReferenceReader::readConstant(ObjectReader &r, HostOp &op) {
  NEURON_ASSIGN_OR_RETURN(result, id(r, "result"));
  const HostValue &v = value(result);
  if (!v.isTensor)
    return r.error("result", "a tensor (arith.constant makes scalars)",
                   describe(result));
  NEURON_RETURN_IF_ERROR(define(r, "result", -1, result));
  op.results = {result};
  NEURON_ASSIGN_OR_RETURN(tensor, r.field("tensor", "", /*required=*/false));
  NEURON_ASSIGN_OR_RETURN(values, r.field("values", "", /*required=*/false));
  if (bool(tensor) == bool(values))
    return r.error("values",
                   "either \"values\" or \"tensor\" (a constant program "
                   "tensor)",
                   tensor ? "both" : "neither");
  if (tensor) {
    int64_t count = int64_t(tensors.size());
    if (count == 0)
      return r.error("tensor", "a tensor id (there are no tensors)",
                     describeJson(*tensor));
    NEURON_RETURN_IF_ERROR(r.integer(
        "tensor", absl::StrFormat("a tensor id in [0, %d]", count - 1), 0,
        count - 1, op.tensor));
    const TensorDesc &t = tensors[op.tensor];
    if (t.kind != TensorKind::Constant || t.dtype != v.dtype ||
        t.shape != v.shape)
      return r.error("tensor",
                     "a constant " + typeText(v.dtype, &v.shape) +
                         " (as the result)",
                     absl::StrFormat("tensor %d: %s%s", op.tensor,
                                     dtypeName(t.dtype), formatShape(t.shape)));
    return r.finish();
  }
  std::string expected =
      absl::StrFormat("an array of 1 (a splat) or %d %s elements", v.elements,
                      dtypeName(v.dtype));
  if (!values->is_array() ||
      (values->size() != 1 && int64_t(values->size()) != v.elements))
    return r.error("values", expected, describeJson(*values));
  for (size_t i = 0; i < values->size(); ++i) {
    HostScalar s;
    if (!readElement((*values)[i], v.dtype, s))
      return r.itemError("values", i,
                         isFloat(v.dtype)
                             ? "a number, \"nan\", \"inf\" or \"-inf\""
                             : absl::StrFormat("an integer in the range of %s",
                                               dtypeName(v.dtype)),
                         describeJson((*values)[i]));
    op.values.push_back(s);
  }
  return r.finish();
}

absl::Status ReferenceReader::readReshape(ObjectReader &r, HostOp &op) {
  NEURON_ASSIGN_OR_RETURN(operands, ids(r, "operands"));
  if (operands.size() != 1)
    return r.error("operands", "1 value id",
                   absl::StrFormat("%d", operands.size()));
  NEURON_RETURN_IF_ERROR(use(r, "operands", 0, operands[0]));
  NEURON_ASSIGN_OR_RETURN(result, id(r, "result"));
  const HostValue &in = value(operands[0]), &out = value(result);
  if (!in.isTensor)
    return r.itemError("operands", 0, "a tensor", describe(operands[0]));
  if (!out.isTensor || out.dtype != in.dtype || out.elements != in.elements)
    return r.error("result",
                   absl::StrFormat("a %s tensor of %d elements (as the "
                                   "operand)",
                                   dtypeName(in.dtype), in.elements),
                   describe(result));
  NEURON_RETURN_IF_ERROR(define(r, "result", -1, result));
  op.operands = std::move(operands);
  op.results = {result};
  return r.finish();
}

absl::Status ReferenceReader::readMaps(ObjectReader &r, HostOp &op) {
  std::string expected = absl::StrFormat(
      "an array of %d maps (one per input and output)", op.operands.size());
  NEURON_ASSIGN_OR_RETURN(maps, r.field("maps", expected));
  if (!maps->is_array() || maps->size() != op.operands.size())
    return r.error("maps", expected, describeJson(*maps));
  size_t loops = op.loops.size();
  for (size_t j = 0; j < maps->size(); ++j) {
    const HostValue &operand = value(op.operands[j]);
    size_t rank = operand.isTensor ? operand.shape.size() : 0;
    const json &map = (*maps)[j];
    std::string path = absl::StrFormat("%s[%d]", r.pathOf("maps"), j);
    if (!map.is_array() || map.size() != rank)
      return jsonError(kFile, path,
                       "one row per dimension of " + describe(op.operands[j]),
                       describeJson(map));
    std::vector<std::vector<int64_t>> rows;
    for (size_t d = 0; d < rank; ++d) {
      const json &row = map[d];
      std::string rowPath = absl::StrFormat("%s[%d]", path, d);
      std::string rowText = absl::StrFormat(
          "%d integers in [-2^40, 2^40] (a coefficient per loop, then the "
          "constant)",
          loops + 1);
      if (!row.is_array() || row.size() != loops + 1)
        return jsonError(kFile, rowPath, rowText, describeJson(row));
      std::vector<int64_t> coefficients;
      for (const json &c : row) {
        if (!c.is_number_integer() ||
            (c.is_number_unsigned() && c.get<uint64_t>() > kMaxCoefficient) ||
            c.get<int64_t>() < -kMaxCoefficient ||
            c.get<int64_t>() > kMaxCoefficient)
          return jsonError(kFile, rowPath, rowText, describeJson(row));
        coefficients.push_back(c.get<int64_t>());
      }
      // The extremes over the loops' box are at its corners.
      __int128 lo = coefficients[loops], hi = lo;
      for (size_t l = 0; l < loops; ++l) {
        __int128 span = __int128(coefficients[l]) * (op.loops[l] - 1);
        (span < 0 ? lo : hi) += span;
      }
      if (lo < 0 || hi >= operand.shape[d])
        return jsonError(
            kFile, rowPath,
            absl::StrFormat("indices in [0, %d] over the loops %s (dimension "
                            "%d of %s)",
                            operand.shape[d] - 1, formatShape(op.loops), d,
                            describe(op.operands[j])),
            absl::StrFormat("indices from %d to %d", int64_t(lo), int64_t(hi)));
      rows.push_back(std::move(coefficients));
    }
    op.maps.push_back(std::move(rows));
  }
  return absl::OkStatus();
}

absl::Status ReferenceReader::readBody(ObjectReader &parent, HostOp &op) {
  NEURON_ASSIGN_OR_RETURN(r, parent.object("body", "{arguments, ops, yield}"));
  NEURON_ASSIGN_OR_RETURN(arguments, ids(r, "arguments"));
  if (arguments.size() != op.operands.size())
    return r.error("arguments",
                   absl::StrFormat("%d value ids (one per input and output)",
                                   op.operands.size()),
                   absl::StrFormat("%d", arguments.size()));
  for (size_t i = 0; i < arguments.size(); ++i) {
    const HostValue &operand = value(op.operands[i]);
    const HostValue &arg = value(arguments[i]);
    if (arg.isTensor || arg.dtype != operand.dtype)
      return r.itemError("arguments", i,
                         typeText(operand.dtype, nullptr) +
                             absl::StrFormat(" (an element of operand %d)", i),
                         describe(arguments[i]));
    NEURON_RETURN_IF_ERROR(define(r, "arguments", int64_t(i), arguments[i]));
  }
  NEURON_RETURN_IF_ERROR(readOps(r, "ops", /*body=*/true, op.body));
  NEURON_ASSIGN_OR_RETURN(yields, ids(r, "yield"));
  size_t outputs = op.operands.size() - op.inputs;
  if (yields.size() != outputs)
    return r.error("yield",
                   absl::StrFormat("%d value ids (one per output)", outputs),
                   absl::StrFormat("%d", yields.size()));
  for (size_t k = 0; k < yields.size(); ++k) {
    NEURON_RETURN_IF_ERROR(use(r, "yield", k, yields[k]));
    DType dtype = value(op.operands[op.inputs + k]).dtype;
    if (value(yields[k]).isTensor || value(yields[k]).dtype != dtype)
      return r.itemError("yield", k,
                         typeText(dtype, nullptr) +
                             absl::StrFormat(" (an element of output %d)", k),
                         describe(yields[k]));
  }
  op.arguments = std::move(arguments);
  op.yields = std::move(yields);
  return r.finish();
}

absl::Status ReferenceReader::readGeneric(ObjectReader &r, HostOp &op) {
  NEURON_ASSIGN_OR_RETURN(inputs, ids(r, "inputs"));
  NEURON_ASSIGN_OR_RETURN(outputs, ids(r, "outputs"));
  if (outputs.empty())
    return r.error("outputs", "at least one value id", "none");
  for (size_t i = 0; i < inputs.size(); ++i)
    NEURON_RETURN_IF_ERROR(use(r, "inputs", i, inputs[i]));
  for (size_t k = 0; k < outputs.size(); ++k) {
    NEURON_RETURN_IF_ERROR(use(r, "outputs", k, outputs[k]));
    if (!value(outputs[k]).isTensor)
      return r.itemError("outputs", k, "a tensor", describe(outputs[k]));
  }
  op.inputs = int64_t(inputs.size());
  op.operands = std::move(inputs);
  op.operands.insert(op.operands.end(), outputs.begin(), outputs.end());

  std::string loopsText = absl::StrFormat(
      "an array of at most %d loop extents in [1, 2^40]", kMaxRank);
  NEURON_ASSIGN_OR_RETURN(loops, r.field("loops", loopsText));
  int64_t iterations = 1;
  NEURON_RETURN_IF_ERROR(readExtents(r, "loops", *loops, loopsText,
                                     "iterations", kMaxIterations, op.loops,
                                     iterations));
  std::vector<std::string> iterators;
  NEURON_RETURN_IF_ERROR(r.stringList("iterators", iterators));
  if (iterators.size() != op.loops.size())
    return r.error(
        "iterators",
        absl::StrFormat("%d iterator types (one per loop)", op.loops.size()),
        absl::StrFormat("%d", iterators.size()));
  for (size_t l = 0; l < iterators.size(); ++l) {
    if (iterators[l] != "parallel" && iterators[l] != "reduction")
      return r.itemError("iterators", l, "one of parallel reduction",
                         foundString(iterators[l]));
    op.reduction.push_back(iterators[l] == "reduction");
  }
  NEURON_RETURN_IF_ERROR(readMaps(r, op));

  // The body's values live in a scope of their own.
  int64_t outer = currentScope;
  currentScope = ++generics;
  bodyLoops = int64_t(op.loops.size());
  absl::Status body = readBody(r, op);
  currentScope = outer;
  NEURON_RETURN_IF_ERROR(body);

  NEURON_ASSIGN_OR_RETURN(results, ids(r, "results"));
  if (results.size() != outputs.size())
    return r.error(
        "results",
        absl::StrFormat("%d value ids (one per output)", outputs.size()),
        absl::StrFormat("%d", results.size()));
  for (size_t k = 0; k < results.size(); ++k) {
    const HostValue &out = value(outputs[k]), &res = value(results[k]);
    if (!res.isTensor || res.dtype != out.dtype || res.shape != out.shape)
      return r.itemError("results", k,
                         typeText(out.dtype, &out.shape) + " (as the output)",
                         describe(results[k]));
    NEURON_RETURN_IF_ERROR(define(r, "results", int64_t(k), results[k]));
  }
  op.results = std::move(results);
  return r.finish();
}

absl::Status ReferenceReader::checkScalarTypes(ObjectReader &r,
                                               const ScalarOpInfo &info,
                                               const HostOp &op) {
  const HostValue &result = value(op.results[0]);
  auto operandError = [&](size_t k, const std::string &expected) {
    return r.itemError("operands", k, expected, describe(op.operands[k]));
  };
  auto resultError = [&](const std::string &expected) {
    return r.error("result", expected, describe(op.results[0]));
  };
  bool intResult = integerBits(result.dtype) > 0;
  switch (info.signature) {
  case Signature::Constant:
    return absl::OkStatus();
  case Signature::Index:
    if (result.dtype != DType::I64)
      return resultError("an i64 scalar (an index)");
    return absl::OkStatus();
  case Signature::IntBinary:
  case Signature::IntUnary:
  case Signature::FloatBinary:
  case Signature::FloatUnary:
  case Signature::FloatTernary: {
    bool wantInt = info.signature == Signature::IntBinary ||
                   info.signature == Signature::IntUnary;
    if (intResult != wantInt)
      return resultError(wantInt ? "an integer scalar" : "a float scalar");
    for (size_t k = 0; k < op.operands.size(); ++k)
      if (value(op.operands[k]).dtype != result.dtype)
        return operandError(k, typeText(result.dtype, nullptr) +
                                   " (as the result)");
    return absl::OkStatus();
  }
  case Signature::IntExt:
  case Signature::IntTrunc:
  case Signature::IntToInt:
  case Signature::IntToFloat: {
    int from = integerBits(value(op.operands[0]).dtype);
    if (from == 0)
      return operandError(0, "an integer scalar");
    bool wantInt = info.signature != Signature::IntToFloat;
    if (intResult != wantInt)
      return resultError(wantInt ? "an integer scalar" : "a float scalar");
    int to = integerBits(result.dtype);
    if (info.signature == Signature::IntExt && to <= from)
      return resultError(
          absl::StrFormat("an integer scalar wider than i%d", from));
    if (info.signature == Signature::IntTrunc && to >= from)
      return resultError(
          absl::StrFormat("an integer scalar narrower than i%d", from));
    return absl::OkStatus();
  }
  case Signature::FloatToInt:
  case Signature::FloatToFloat: {
    if (integerBits(value(op.operands[0]).dtype) != 0)
      return operandError(0, "a float scalar");
    bool wantInt = info.signature == Signature::FloatToInt;
    if (intResult != wantInt)
      return resultError(wantInt ? "an integer scalar" : "a float scalar");
    return absl::OkStatus();
  }
  case Signature::CmpI:
  case Signature::CmpF: {
    DType lhs = value(op.operands[0]).dtype;
    bool wantInt = info.signature == Signature::CmpI;
    if ((integerBits(lhs) > 0) != wantInt)
      return operandError(0, wantInt ? "an integer scalar" : "a float scalar");
    if (value(op.operands[1]).dtype != lhs)
      return operandError(1, typeText(lhs, nullptr) + " (as operand 0)");
    if (result.dtype != DType::I1)
      return resultError("an i1 scalar");
    return absl::OkStatus();
  }
  case Signature::Select:
    if (value(op.operands[0]).dtype != DType::I1)
      return operandError(0, "an i1 scalar");
    for (size_t k = 1; k < 3; ++k)
      if (value(op.operands[k]).dtype != result.dtype)
        return operandError(k, typeText(result.dtype, nullptr) +
                                   " (as the result)");
    return absl::OkStatus();
  }
  return absl::OkStatus();
}

/// Operands of each signature.
static size_t operandCount(Signature signature) {
  switch (signature) {
  case Signature::Constant:
  case Signature::Index:
    return 0;
  case Signature::IntBinary:
  case Signature::FloatBinary:
  case Signature::CmpI:
  case Signature::CmpF:
    return 2;
  case Signature::FloatTernary:
  case Signature::Select:
    return 3;
  default:
    return 1;
  }
}

absl::Status ReferenceReader::readScalarOp(ObjectReader &r,
                                           const ScalarOpInfo &info, bool body,
                                           HostOp &op) {
  op.kind = HostOpKind::Scalar;
  op.scalar = info.op;
  size_t count = operandCount(info.signature);
  if (count > 0) {
    NEURON_ASSIGN_OR_RETURN(operands, ids(r, "operands"));
    if (operands.size() != count)
      return r.error("operands",
                     absl::StrFormat("%d value ids (%s takes %d)", count,
                                     info.name, count),
                     absl::StrFormat("%d", operands.size()));
    for (size_t k = 0; k < count; ++k) {
      NEURON_RETURN_IF_ERROR(use(r, "operands", k, operands[k]));
      if (value(operands[k]).isTensor)
        return r.itemError("operands", k, "a scalar", describe(operands[k]));
    }
    op.operands = std::move(operands);
  }
  NEURON_ASSIGN_OR_RETURN(result, id(r, "result"));
  if (value(result).isTensor)
    return r.error("result", "a scalar", describe(result));
  NEURON_RETURN_IF_ERROR(define(r, "result", -1, result));
  op.results = {result};
  NEURON_RETURN_IF_ERROR(checkScalarTypes(r, info, op));

  DType dtype = value(result).dtype;
  switch (info.signature) {
  case Signature::Constant: {
    NEURON_ASSIGN_OR_RETURN(v, r.field("value", "a number"));
    HostScalar s;
    if (!readElement(*v, dtype, s))
      return r.error("value",
                     isFloat(dtype)
                         ? std::string("a number, \"nan\", \"inf\" or \"-inf\"")
                         : absl::StrFormat("an integer in the range of %s",
                                           dtypeName(dtype)),
                     describeJson(*v));
    op.values = {s};
    break;
  }
  case Signature::Index:
    if (!body)
      return r.error("op", "an op allowed outside a generic's body",
                     foundString(info.name));
    NEURON_RETURN_IF_ERROR(
        r.integer("dim", absl::StrFormat("a loop in [0, %d]", bodyLoops - 1), 0,
                  bodyLoops - 1, op.dim));
    break;
  case Signature::CmpI:
  case Signature::CmpF: {
    std::string name;
    NEURON_RETURN_IF_ERROR(r.string("predicate", name));
    bool isInt = info.signature == Signature::CmpI;
    const char *const *names = isInt ? kCmpINames : kCmpFNames;
    size_t n = isInt ? std::size(kCmpINames) : std::size(kCmpFNames);
    size_t found = std::find_if(names, names + n,
                                [&](const char *s) { return name == s; }) -
                   names;
    if (found == n)
      return r.error("predicate",
                     "one of " + absl::StrJoin(names, names + n, " "),
                     foundString(name));
    if (isInt)
      op.cmpi = CmpIPredicate(found);
    else
      op.cmpf = CmpFPredicate(found);
    break;
  }
  default:
    break;
  }
  return r.finish();
}

absl::Status ReferenceReader::readOps(ObjectReader &parent,
                                      std::string_view key, bool body,
                                      std::vector<HostOp> &ops) {
  std::string expected =
      absl::StrFormat("an array of at most %d op objects", kMaxValues);
  NEURON_ASSIGN_OR_RETURN(v, parent.field(key, expected));
  if (!v->is_array() || int64_t(v->size()) > kMaxValues)
    return parent.error(key, expected, describeJson(*v));
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_object())
      return parent.itemError(key, i, "an op object", describeJson((*v)[i]));
    ObjectReader r(kFile, absl::StrFormat("%s[%d]", parent.pathOf(key), i),
                   (*v)[i]);
    std::string name;
    NEURON_RETURN_IF_ERROR(r.string("op", name));
    HostOp op;
    const ScalarOpInfo *scalar = nullptr;
    for (const ScalarOpInfo &info : kScalarOps)
      if (name == info.name)
        scalar = &info;
    if (scalar) {
      NEURON_RETURN_IF_ERROR(readScalarOp(r, *scalar, body, op));
    } else {
      size_t kind = std::find_if(std::begin(kRegionOps), std::end(kRegionOps),
                                 [&](const char *s) { return name == s; }) -
                    std::begin(kRegionOps);
      if (kind == std::size(kRegionOps) || body) {
        std::vector<const char *> names;
        if (!body)
          names.assign(std::begin(kRegionOps), std::end(kRegionOps));
        for (const ScalarOpInfo &info : kScalarOps)
          names.push_back(info.name);
        return r.error("op",
                       absl::StrFormat("%s: one of %s",
                                       body ? "a scalar op of a generic's body"
                                            : "a host op",
                                       absl::StrJoin(names, " ")),
                       foundString(name));
      }
      op.kind = HostOpKind(kind);
      switch (op.kind) {
      case HostOpKind::Constant:
        NEURON_RETURN_IF_ERROR(readConstant(r, op));
        break;
      case HostOpKind::Empty: {
        NEURON_ASSIGN_OR_RETURN(result, id(r, "result"));
        if (!value(result).isTensor)
          return r.error("result", "a tensor", describe(result));
        NEURON_RETURN_IF_ERROR(define(r, "result", -1, result));
        op.results = {result};
        NEURON_RETURN_IF_ERROR(r.finish());
        break;
      }
      case HostOpKind::Reshape:
        NEURON_RETURN_IF_ERROR(readReshape(r, op));
        break;
      case HostOpKind::Generic:
        NEURON_RETURN_IF_ERROR(readGeneric(r, op));
        break;
      case HostOpKind::Scalar:
        break;
      }
    }
    ops.push_back(std::move(op));
  }
  return absl::OkStatus();
}

absl::StatusOr<HostReference>
ReferenceReader::read(ObjectReader &r, const std::vector<int64_t> &inputs,
                      const std::vector<int64_t> &outputs) {
  NEURON_RETURN_IF_ERROR(readValues(r, inputs));
  NEURON_RETURN_IF_ERROR(readOps(r, "ops", /*body=*/false, ref.ops));
  NEURON_ASSIGN_OR_RETURN(results, ids(r, "results"));
  if (results.size() != outputs.size())
    return r.error("results",
                   absl::StrFormat("%d value ids (one per output of the step)",
                                   outputs.size()),
                   absl::StrFormat("%d", results.size()));
  for (size_t k = 0; k < results.size(); ++k) {
    NEURON_RETURN_IF_ERROR(use(r, "results", k, results[k]));
    const TensorDesc &t = tensors[outputs[k]];
    const HostValue &v = value(results[k]);
    if (!v.isTensor || v.dtype != t.dtype || v.shape != t.shape)
      return r.itemError("results", k,
                         typeText(t.dtype, &t.shape) +
                             absl::StrFormat(" (the step's output %d, tensor "
                                             "%d)",
                                             k, outputs[k]),
                         describe(results[k]));
  }
  ref.results = std::move(results);
  NEURON_RETURN_IF_ERROR(r.finish());
  return std::move(ref);
}

absl::StatusOr<HostReference>
parseHostReference(const json &node, const std::string &path,
                   const std::vector<TensorDesc> &tensors,
                   const std::vector<int64_t> &inputs,
                   const std::vector<int64_t> &outputs) {
  if (!node.is_object())
    return jsonError(kFile, path, "a {values, ops, results} object",
                     describeJson(node));
  ObjectReader r(kFile, path, node);
  return ReferenceReader(tensors).read(r, inputs, outputs);
}

} // namespace neuron::rt
