//===- Host.cpp - Run a host_call's reference -----------------------------===//
//
// Interprets a validated reference: every tensor value is a vector of
// HostScalar, every scalar a slot; a generic visits its loops in row-major
// order, binds each operand's element (an offset affine in the loop
// indices) to its body argument, evaluates the body and writes the yields
// back into its results, so a reduction accumulates into the elements its
// output map revisits. Every integer op result is wrapped to its width and
// every float op result rounded to its dtype, as MLIR's arith ops define.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Host.h"

#include "runtime/sim/Program.h"

#include "absl/strings/str_format.h"

#include <algorithm>
#include <cmath>

namespace neuron::rt {

int integerBits(DType type) {
  switch (type) {
  case DType::I1:
    return 1;
  case DType::I8:
    return 8;
  case DType::I16:
    return 16;
  case DType::I32:
    return 32;
  case DType::I64:
    return 64;
  default:
    return 0;
  }
}

/// `v` sign-extended from its low `width` bits.
static int64_t wrap(uint64_t v, int width) {
  if (width >= 64)
    return int64_t(v);
  unsigned shift = 64 - width;
  return int64_t(v << shift) >> shift;
}

/// The low `width` bits of `v`, as an unsigned number.
static uint64_t unsignedOf(int64_t v, int width) {
  return width >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << width) - 1);
}

/// `v` rounded to the float dtype `type`, as the simulator stores it.
static double roundTo(DType type, double v) {
  if (type == DType::F32)
    return double(float(v));
  uint8_t bytes[8];
  storeElement(type, v, bytes);
  return loadElement(type, bytes);
}

static int64_t integerBinary(ScalarOp op, int64_t a, int64_t b, int width) {
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  uint64_t ma = unsignedOf(a, width), mb = unsignedOf(b, width);
  uint64_t r = 0;
  switch (op) {
  case ScalarOp::AddI:
    r = ua + ub;
    break;
  case ScalarOp::SubI:
    r = ua - ub;
    break;
  case ScalarOp::MulI:
    r = ua * ub;
    break;
  // Division by zero (undefined in arith) gives 0; -2^63 / -1 wraps.
  case ScalarOp::DivSI:
    r = b == 0 ? 0 : b == -1 ? 0 - ua : uint64_t(a / b);
    break;
  case ScalarOp::DivUI:
    r = mb == 0 ? 0 : ma / mb;
    break;
  case ScalarOp::RemSI:
    r = b == 0 || b == -1 ? 0 : uint64_t(a % b);
    break;
  case ScalarOp::RemUI:
    r = mb == 0 ? 0 : ma % mb;
    break;
  // Shifts by the width or more (poison in arith) give 0, or the sign.
  case ScalarOp::ShLI:
    r = mb >= uint64_t(width) ? 0 : ua << mb;
    break;
  case ScalarOp::ShRSI:
    r = mb >= uint64_t(width) ? (a < 0 ? ~uint64_t(0) : 0) : uint64_t(a >> mb);
    break;
  case ScalarOp::ShRUI:
    r = mb >= uint64_t(width) ? 0 : ma >> mb;
    break;
  case ScalarOp::AndI:
    r = ua & ub;
    break;
  case ScalarOp::OrI:
    r = ua | ub;
    break;
  case ScalarOp::XOrI:
    r = ua ^ ub;
    break;
  case ScalarOp::MaxSI:
    r = uint64_t(std::max(a, b));
    break;
  case ScalarOp::MinSI:
    r = uint64_t(std::min(a, b));
    break;
  case ScalarOp::MaxUI:
    r = ma >= mb ? ua : ub;
    break;
  case ScalarOp::MinUI:
    r = ma <= mb ? ua : ub;
    break;
  default:
    break;
  }
  return wrap(r, width);
}

static double floatBinary(ScalarOp op, double a, double b) {
  switch (op) {
  case ScalarOp::AddF:
    return a + b;
  case ScalarOp::SubF:
    return a - b;
  case ScalarOp::MulF:
    return a * b;
  case ScalarOp::DivF:
    return a / b;
  case ScalarOp::RemF:
    return std::fmod(a, b);
  case ScalarOp::MaximumF:
    return maximumF(a, b);
  case ScalarOp::MinimumF:
    return minimumF(a, b);
  // maxnumf/minnumf return the other operand of a NaN.
  case ScalarOp::MaxNumF:
    return std::isnan(a) ? b : std::isnan(b) ? a : maximumF(a, b);
  case ScalarOp::MinNumF:
    return std::isnan(a) ? b : std::isnan(b) ? a : minimumF(a, b);
  case ScalarOp::PowF:
    return std::pow(a, b);
  default:
    return 0;
  }
}

static double floatUnary(ScalarOp op, double x) {
  switch (op) {
  case ScalarOp::NegF:
    return -x;
  case ScalarOp::Exp:
    return std::exp(x);
  case ScalarOp::Exp2:
    return std::exp2(x);
  case ScalarOp::Log:
    return std::log(x);
  case ScalarOp::Log2:
    return std::log2(x);
  case ScalarOp::Log1p:
    return std::log1p(x);
  case ScalarOp::Tanh:
    return std::tanh(x);
  case ScalarOp::Sqrt:
    return std::sqrt(x);
  case ScalarOp::Rsqrt:
    return 1 / std::sqrt(x);
  case ScalarOp::Erf:
    return std::erf(x);
  case ScalarOp::AbsF:
    return std::fabs(x);
  case ScalarOp::Floor:
    return std::floor(x);
  case ScalarOp::Ceil:
    return std::ceil(x);
  case ScalarOp::Round:
    return std::round(x);
  case ScalarOp::RoundEven:
    return std::nearbyint(x);
  case ScalarOp::Sin:
    return std::sin(x);
  case ScalarOp::Cos:
    return std::cos(x);
  default:
    return 0;
  }
}

/// A conversion of `x` (of `from`) to `to`.
static HostScalar convert(ScalarOp op, HostScalar x, DType from, DType to) {
  int fromBits = integerBits(from), toBits = integerBits(to);
  HostScalar r;
  switch (op) {
  case ScalarOp::ExtSI:
  case ScalarOp::TruncI:
  case ScalarOp::IndexCast:
    r.i = wrap(uint64_t(x.i), toBits);
    break;
  case ScalarOp::ExtUI:
    r.i = wrap(unsignedOf(x.i, fromBits), toBits);
    break;
  case ScalarOp::IndexCastUI:
    r.i = wrap(toBits > fromBits ? unsignedOf(x.i, fromBits) : uint64_t(x.i),
               toBits);
    break;
  // Rounded once from the integer for f32 (a double holds only 53 bits).
  case ScalarOp::SIToFP:
    r.f = to == DType::F32 ? double(float(x.i)) : roundTo(to, double(x.i));
    break;
  case ScalarOp::UIToFP: {
    uint64_t u = unsignedOf(x.i, fromBits);
    r.f = to == DType::F32 ? double(float(u)) : roundTo(to, double(u));
    break;
  }
  // Toward zero, wrapped; NaN and infinities give 0 (the device's rule).
  case ScalarOp::FPToSI:
  case ScalarOp::FPToUI: {
    uint8_t bytes[8];
    storeElement(DType::I64, x.f, bytes);
    uint64_t bits = 0;
    for (int i = 0; i < 8; ++i)
      bits |= uint64_t(bytes[i]) << (8 * i);
    r.i = wrap(bits, toBits);
    break;
  }
  default: // ExtF, TruncF
    r.f = roundTo(to, x.f);
    break;
  }
  return r;
}

static bool compareInt(CmpIPredicate p, int64_t a, int64_t b, int width) {
  uint64_t ua = unsignedOf(a, width), ub = unsignedOf(b, width);
  switch (p) {
  case CmpIPredicate::Eq:
    return a == b;
  case CmpIPredicate::Ne:
    return a != b;
  case CmpIPredicate::Slt:
    return a < b;
  case CmpIPredicate::Sle:
    return a <= b;
  case CmpIPredicate::Sgt:
    return a > b;
  case CmpIPredicate::Sge:
    return a >= b;
  case CmpIPredicate::Ult:
    return ua < ub;
  case CmpIPredicate::Ule:
    return ua <= ub;
  case CmpIPredicate::Ugt:
    return ua > ub;
  case CmpIPredicate::Uge:
    return ua >= ub;
  }
  return false;
}

static bool compareFloat(CmpFPredicate p, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (p) {
  case CmpFPredicate::False:
    return false;
  case CmpFPredicate::Oeq:
    return !unordered && a == b;
  case CmpFPredicate::Ogt:
    return !unordered && a > b;
  case CmpFPredicate::Oge:
    return !unordered && a >= b;
  case CmpFPredicate::Olt:
    return !unordered && a < b;
  case CmpFPredicate::Ole:
    return !unordered && a <= b;
  case CmpFPredicate::One:
    return !unordered && a != b;
  case CmpFPredicate::Ord:
    return !unordered;
  case CmpFPredicate::Ueq:
    return unordered || a == b;
  case CmpFPredicate::Ugt:
    return unordered || a > b;
  case CmpFPredicate::Uge:
    return unordered || a >= b;
  case CmpFPredicate::Ult:
    return unordered || a < b;
  case CmpFPredicate::Ule:
    return unordered || a <= b;
  case CmpFPredicate::Une:
    return unordered || a != b;
  case CmpFPredicate::Uno:
    return unordered;
  case CmpFPredicate::True:
    return true;
  }
  return false;
}

/// The elements of a program tensor, exactly (i64 included).
static std::vector<HostScalar> loadTensor(DType dtype, int64_t elements,
                                          const uint8_t *p) {
  std::vector<HostScalar> out(elements);
  int bits = integerBits(dtype);
  int64_t bytes = elementBytes(dtype);
  for (int64_t e = 0; e < elements; ++e, p += bytes) {
    if (bits == 0) {
      out[e].f = loadElement(dtype, p);
      continue;
    }
    uint64_t v = 0;
    for (int64_t i = 0; i < bytes; ++i)
      v |= uint64_t(p[i]) << (8 * i);
    // i1 is one byte in memory, 0 or 1 (any non-zero byte reads as 1).
    out[e].i = dtype == DType::I1 ? (v ? -1 : 0) : wrap(v, bits);
  }
  return out;
}

static void storeTensor(DType dtype, const std::vector<HostScalar> &values,
                        uint8_t *p) {
  int bits = integerBits(dtype);
  int64_t bytes = elementBytes(dtype);
  for (const HostScalar &v : values) {
    if (bits == 0) {
      storeElement(dtype, v.f, p);
    } else {
      uint64_t u = dtype == DType::I1 ? (v.i != 0) : uint64_t(v.i);
      for (int64_t i = 0; i < bytes; ++i)
        p[i] = uint8_t(u >> (8 * i));
    }
    p += bytes;
  }
}

namespace {
/// The values of one run of a reference.
class HostRunner {
public:
  HostRunner(const HostReference &ref,
             const std::function<uint8_t *(int64_t)> &tensorBytes)
      : ref(ref), tensorBytes(tensorBytes), scalars(ref.values.size()),
        tensors(ref.values.size()) {}

  void run(const Step &step);

private:
  void runOp(const HostOp &op);
  void runGeneric(const HostOp &op);
  HostScalar evaluate(const HostOp &op, const std::vector<int64_t> &point);
  DType dtypeOf(int64_t id) const { return ref.values[id].dtype; }

  const HostReference &ref;
  const std::function<uint8_t *(int64_t)> &tensorBytes;
  std::vector<HostScalar> scalars;
  std::vector<std::vector<HostScalar>> tensors;
};
} // namespace

HostScalar HostRunner::evaluate(const HostOp &op,
                                const std::vector<int64_t> &point) {
  auto in = [&](size_t k) { return scalars[op.operands[k]]; };
  DType type = dtypeOf(op.results[0]);
  HostScalar r;
  switch (op.scalar) {
  case ScalarOp::Constant:
    return op.values[0];
  case ScalarOp::Index:
    r.i = point[op.dim];
    return r;
  case ScalarOp::AbsI:
    r.i = wrap(in(0).i < 0 ? 0 - uint64_t(in(0).i) : uint64_t(in(0).i),
               integerBits(type));
    return r;
  case ScalarOp::Fma:
    r.f = roundTo(type, std::fma(in(0).f, in(1).f, in(2).f));
    return r;
  case ScalarOp::CmpI:
    r.i = compareInt(op.cmpi, in(0).i, in(1).i,
                     integerBits(dtypeOf(op.operands[0])))
              ? -1
              : 0;
    return r;
  case ScalarOp::CmpF:
    r.i = compareFloat(op.cmpf, in(0).f, in(1).f) ? -1 : 0;
    return r;
  case ScalarOp::Select:
    return in(0).i != 0 ? in(1) : in(2);
  default:
    break;
  }
  if (op.scalar >= ScalarOp::AddI && op.scalar <= ScalarOp::MinUI) {
    r.i = integerBinary(op.scalar, in(0).i, in(1).i, integerBits(type));
  } else if (op.scalar >= ScalarOp::AddF && op.scalar <= ScalarOp::PowF) {
    r.f = roundTo(type, floatBinary(op.scalar, in(0).f, in(1).f));
  } else if (op.scalar >= ScalarOp::NegF && op.scalar <= ScalarOp::Cos) {
    r.f = roundTo(type, floatUnary(op.scalar, in(0).f));
  } else {
    r = convert(op.scalar, in(0), dtypeOf(op.operands[0]), type);
  }
  return r;
}

void HostRunner::runGeneric(const HostOp &op) {
  size_t operands = op.operands.size(), loops = op.loops.size();
  size_t inputs = size_t(op.inputs);
  for (size_t k = 0; k < op.results.size(); ++k)
    tensors[op.results[k]] = tensors[op.operands[inputs + k]];
  // Each operand's element offset is base + sum(step[l] * point[l]). The
  // reader checked every map over the loops' box, so each term of a loop
  // that moves is below the operand's size and every sum stays in range.
  std::vector<int64_t> base(operands, 0), step(operands * loops, 0);
  for (size_t j = 0; j < operands; ++j) {
    const HostValue &v = ref.values[op.operands[j]];
    int64_t stride = 1;
    for (size_t d = v.shape.size(); d-- > 0;) {
      const std::vector<int64_t> &row = op.maps[j][d];
      base[j] += row[loops] * stride;
      for (size_t l = 0; l < loops; ++l)
        if (op.loops[l] > 1)
          step[j * loops + l] += row[l] * stride;
      stride *= v.shape[d];
    }
  }
  std::vector<int64_t> point(loops, 0), offset = base;
  int64_t iterations = 1;
  for (int64_t extent : op.loops)
    iterations *= extent;
  for (int64_t it = 0; it < iterations; ++it) {
    for (size_t j = 0; j < operands; ++j) {
      int64_t value = op.operands[j];
      if (j >= inputs)
        value = op.results[j - inputs];
      scalars[op.arguments[j]] = ref.values[value].isTensor
                                     ? tensors[value][offset[j]]
                                     : scalars[value];
    }
    for (const HostOp &bodyOp : op.body)
      scalars[bodyOp.results[0]] = evaluate(bodyOp, point);
    for (size_t k = 0; k < op.yields.size(); ++k)
      tensors[op.results[k]][offset[inputs + k]] = scalars[op.yields[k]];
    // The next point, in row-major order.
    for (size_t l = loops; l-- > 0;) {
      if (++point[l] < op.loops[l]) {
        for (size_t j = 0; j < operands; ++j)
          offset[j] += step[j * loops + l];
        break;
      }
      for (size_t j = 0; j < operands; ++j)
        offset[j] -= step[j * loops + l] * (op.loops[l] - 1);
      point[l] = 0;
    }
  }
}

void HostRunner::runOp(const HostOp &op) {
  switch (op.kind) {
  case HostOpKind::Constant: {
    const HostValue &v = ref.values[op.results[0]];
    if (op.tensor >= 0)
      tensors[op.results[0]] =
          loadTensor(v.dtype, v.elements, tensorBytes(op.tensor));
    else if (op.values.size() == 1)
      tensors[op.results[0]].assign(v.elements, op.values[0]);
    else
      tensors[op.results[0]] = op.values;
    break;
  }
  case HostOpKind::Empty: {
    HostScalar zero;
    zero.i = 0;
    if (isFloat(dtypeOf(op.results[0])))
      zero.f = 0;
    tensors[op.results[0]].assign(ref.values[op.results[0]].elements, zero);
    break;
  }
  case HostOpKind::Reshape:
    tensors[op.results[0]] = tensors[op.operands[0]];
    break;
  case HostOpKind::Generic:
    runGeneric(op);
    break;
  case HostOpKind::Scalar:
    scalars[op.results[0]] = evaluate(op, {});
    break;
  }
}

void HostRunner::run(const Step &step) {
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    const HostValue &v = ref.values[i];
    tensors[i] = loadTensor(v.dtype, v.elements, tensorBytes(step.inputs[i]));
  }
  for (const HostOp &op : ref.ops)
    runOp(op);
  for (size_t k = 0; k < step.outputs.size(); ++k) {
    int64_t id = ref.results[k];
    storeTensor(dtypeOf(id), tensors[id], tensorBytes(step.outputs[k]));
  }
}

absl::Status
runHostReference(const Step &step,
                 const std::function<uint8_t *(int64_t)> &tensorBytes,
                 int64_t maxBytes) {
  const HostReference &ref = *step.reference;
  // Each value is below 2^43 bytes and there are at most 2^20 of them.
  int64_t bytes = 0;
  for (const HostValue &v : ref.values)
    if (v.isTensor)
      bytes += v.elements * int64_t(sizeof(HostScalar));
  if (bytes > maxBytes)
    return absl::ResourceExhaustedError(absl::StrFormat(
        "its values need %d bytes of host memory, more than the %d allowed",
        bytes, maxBytes));
  HostRunner(ref, tensorBytes).run(step);
  return absl::OkStatus();
}

} // namespace neuron::rt
