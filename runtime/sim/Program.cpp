//===- Program.cpp - Read and validate the manifest's program -------------===//
//
// Reads tensors, kernels, instructions and program steps without exceptions:
// every value's type is checked before it is read, every index and byte range
// is checked with overflow-safe arithmetic, and every error names the JSON
// path, what was expected and what was found.
//
//===----------------------------------------------------------------------===//

#include "runtime/sim/Program.h"

#include "runtime/sim/ManifestText.h"
#include "runtime/target/CostModel.h"
#include "runtime/target/JsonReader.h"

#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace neuron::rt {

/// Bounds that, with those of ManifestText.h, keep every product and sum
/// below 2^63.
static constexpr int64_t kMaxOnChipBytes = int64_t(1) << 26;
static constexpr int64_t kMaxPartitions = 1024;
/// The simulator allocates partitions x bytes for SBUF and for PSUM.
static constexpr int64_t kMaxOnChipTotal = int64_t(1) << 30;
/// The SPMD simulation holds one device per rank.
static constexpr int64_t kMaxRanks = 4096;

namespace {
/// Names of one enum, in enumerator order.
template <typename Enum> struct Keywords {
  std::vector<const char *> names;

  std::optional<Enum> lookup(std::string_view name) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == name)
        return static_cast<Enum>(i);
    return std::nullopt;
  }
  std::string expected() const { return "one of " + absl::StrJoin(names, " "); }
};
} // namespace

static const Keywords<Opcode> kOps{{
#define NISA_INSTRUCTION(Symbol, name, engine, operands) name,
#include "runtime/sim/NisaIsa.inc"
}};
static const Keywords<Engine> kEngines{
    {"tensor", "vector", "scalar", "gpsimd", "dma"}};
static const Keywords<ActivationFn> kFunctions{{
#define NISA_ACTIVATION_FUNCTION(Symbol, keyword) keyword,
#include "runtime/sim/NisaIsa.inc"
}};
static const Keywords<AluOp> kAluOps{{
#define NISA_ALU_OP(Symbol, keyword) keyword,
#include "runtime/sim/NisaIsa.inc"
}};
static const Keywords<TensorKind> kKinds{
    {"input", "output", "constant", "scratch", "view"}};
static const Keywords<MemorySpace> kSpaces{{
#define NISA_MEMORY_SPACE(Symbol, keyword) keyword,
#include "runtime/sim/NisaIsa.inc"
}};
static const Keywords<CollectiveOp> kCollectiveOps{
    {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "all_slice"}};
static const Keywords<Reduction> kReductions{{"sum", "max", "min"}};
static const Keywords<CollectiveAlgorithm> kAlgorithms{
    {"ring", "halving-doubling", "mesh", "hierarchical", "local"}};

Engine engineOf(Opcode op) {
  switch (op) {
#define NISA_INSTRUCTION(Symbol, name, engine, operands)                       \
  case Opcode::Symbol:                                                         \
    return Engine::engine;
#include "runtime/sim/NisaIsa.inc"
  }
  return Engine::Dma;
}

/// "src dst bias?" as tile operands.
static std::vector<TileOperand> parseTileOperands(std::string_view list) {
  std::vector<TileOperand> operands;
  while (!list.empty()) {
    size_t end = std::min(list.find(' '), list.size());
    std::string_view name = list.substr(0, end);
    list.remove_prefix(std::min(end + 1, list.size()));
    bool optional = !name.empty() && name.back() == '?';
    if (optional)
      name.remove_suffix(1);
    operands.push_back({name, optional});
  }
  return operands;
}

const std::vector<TileOperand> &tileOperandsOf(Opcode op) {
  static const std::vector<std::vector<TileOperand>> table = {
#define NISA_INSTRUCTION(Symbol, name, engine, operands)                       \
  parseTileOperands(operands),
#include "runtime/sim/NisaIsa.inc"
  };
  return table[static_cast<size_t>(op)];
}

TileRef *operandRef(Instruction &inst, std::string_view name) {
  if (name == "dst")
    return &inst.dst;
  if (name == "src")
    return &inst.src;
  if (name == "stationary")
    return &inst.stationary;
  if (name == "moving")
    return &inst.moving;
  if (name == "lhs")
    return &inst.lhs;
  if (name == "rhs")
    return &inst.rhs;
  if (name == "table")
    return &inst.table;
  if (name == "indices")
    return &inst.indices;
  if (name == "predicate")
    return &inst.predicate;
  if (name == "on_true")
    return &inst.onTrue;
  if (name == "on_false")
    return &inst.onFalse;
  if (name == "bias")
    return inst.bias ? &*inst.bias : nullptr;
  if (name == "scalars")
    return inst.scalars ? &*inst.scalars : nullptr;
  if (name == "scales")
    return inst.scales ? &*inst.scales : nullptr;
  if (name == "offset")
    return inst.offset ? &*inst.offset : nullptr;
  return nullptr;
}

TileRef reachOf(const Instruction &inst) {
  TileRef reach = movedSide(inst);
  reach.shape.insert(reach.shape.begin(), inst.offsetLimit + 1);
  reach.strides.insert(reach.strides.begin(), inst.offsetStride);
  // readDynamicStart checked that the reach stays below element 2^40.
  reach.maxElement += inst.offsetLimit * inst.offsetStride;
  if (__builtin_mul_overflow(reach.elements, inst.offsetLimit + 1,
                             &reach.elements))
    reach.elements = std::numeric_limits<int64_t>::max();
  return reach;
}

const TileRef *operandRef(const Instruction &inst, std::string_view name) {
  return operandRef(const_cast<Instruction &>(inst), name);
}

std::string_view opName(Opcode op) { return kOps.names[int(op)]; }

std::string_view collectiveOpName(CollectiveOp op) {
  return kCollectiveOps.names[int(op)];
}

std::string unitName(int64_t unit) {
  int64_t core = coreOfUnit(unit), local = localUnit(unit);
  std::string name =
      local >= kFirstDmaUnit
          ? absl::StrFormat("dma%d", local - kFirstDmaUnit)
          : std::string(kEngines.names[local]);
  return core ? absl::StrFormat("%s@%d", name, core) : name;
}

/// The decimal number `digits` (no sign, no leading zero), or nullopt.
static std::optional<int64_t> parseIndex(std::string_view digits) {
  if (digits.empty() || digits.size() > 4 ||
      (digits.size() > 1 && digits[0] == '0'))
    return std::nullopt;
  int64_t value = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

std::optional<int64_t> parseUnit(std::string_view name) {
  int64_t core = 0;
  if (size_t at = name.find('@'); at != std::string_view::npos) {
    std::optional<int64_t> c = parseIndex(name.substr(at + 1));
    if (!c || *c == 0 || *c >= kMaxPhysicalCores)
      return std::nullopt;
    core = *c;
    name = name.substr(0, at);
  }
  int64_t base = core * kUnitsPerCore;
  if (name.substr(0, 3) != "dma" || name == "dma") {
    std::optional<Engine> engine = kEngines.lookup(name);
    if (!engine || *engine == Engine::Dma)
      return std::nullopt;
    return base + static_cast<int64_t>(*engine);
  }
  std::optional<int64_t> queue = parseIndex(name.substr(3));
  if (!queue || *queue >= kMaxDmaQueues)
    return std::nullopt;
  return base + kFirstDmaUnit + *queue;
}

/// A string field that must be one of `keywords`.
template <typename Enum>
static absl::Status readKeyword(ObjectReader &r, std::string_view key,
                                const Keywords<Enum> &keywords, Enum &out) {
  std::string name;
  NEURON_RETURN_IF_ERROR(r.string(key, name));
  std::optional<Enum> value = keywords.lookup(name);
  if (!value)
    return r.error(key, keywords.expected(), foundString(name));
  out = *value;
  return absl::OkStatus();
}

static absl::Status readDType(ObjectReader &r, DType &out) {
  std::string name;
  NEURON_RETURN_IF_ERROR(r.string("dtype", name));
  std::optional<DType> type = parseDType(name);
  if (!type)
    return r.error("dtype", dtypeNames(), foundString(name));
  out = *type;
  return absl::OkStatus();
}

/// A number, or one JSON cannot hold: "nan", "inf" or "-inf".
static absl::Status readNumber(ObjectReader &r, std::string_view key,
                               double &out) {
  constexpr std::string_view expected =
      "a number (or \"nan\", \"inf\", \"-inf\")";
  NEURON_ASSIGN_OR_RETURN(v, r.field(key, expected));
  if (v->is_number()) {
    out = v->get<double>();
    return absl::OkStatus();
  }
  if (v->is_string()) {
    std::string s = v->get<std::string>();
    constexpr double inf = std::numeric_limits<double>::infinity();
    if (s == "nan" || s == "inf" || s == "-inf") {
      out = s == "nan" ? std::numeric_limits<double>::quiet_NaN()
                       : (s == "inf" ? inf : -inf);
      return absl::OkStatus();
    }
  }
  return r.error(key, expected, describeJson(*v));
}

/// An optional non-negative number (a time in ns); `out` is untouched when
/// absent.
static absl::Status readTime(ObjectReader &r, std::string_view key,
                             std::optional<double> &out) {
  NEURON_ASSIGN_OR_RETURN(v, r.field(key, "", /*required=*/false));
  if (!v)
    return absl::OkStatus();
  if (!v->is_number() || v->get<double>() < 0)
    return r.error(key, "a non-negative number", describeJson(*v));
  out = v->get<double>();
  return absl::OkStatus();
}

/// A required non-negative number.
static absl::Status readTime(ObjectReader &r, std::string_view key,
                             double &out) {
  std::optional<double> value;
  NEURON_ASSIGN_OR_RETURN(v, r.field(key, "a non-negative number"));
  (void)v;
  NEURON_RETURN_IF_ERROR(readTime(r, key, value));
  out = *value;
  return absl::OkStatus();
}

/// An array of integers in [min, max] with at most kMaxRank (or, when
/// `anyLength`, any number of) elements.
static absl::StatusOr<std::vector<int64_t>>
readIntArray(ObjectReader &r, std::string_view key, int64_t min, int64_t max,
             bool anyLength = false) {
  std::string expected =
      anyLength ? "an array of integers"
                : absl::StrFormat("an array of at most %d integers", kMaxRank);
  NEURON_ASSIGN_OR_RETURN(v, r.field(key, expected));
  if (!v->is_array() || (!anyLength && int64_t(v->size()) > kMaxRank))
    return r.error(key, expected, describeJson(*v));
  std::vector<int64_t> out;
  for (size_t i = 0; i < v->size(); ++i) {
    const json &item = (*v)[i];
    bool ok = item.is_number_unsigned()
                  ? item.get<uint64_t>() <= uint64_t(max) &&
                        int64_t(item.get<uint64_t>()) >= min
                  : item.is_number_integer() && item.get<int64_t>() >= min &&
                        item.get<int64_t>() <= max;
    if (!ok)
      return r.itemError(key, i,
                         absl::StrFormat("an integer in [%d, %d]", min, max),
                         describeJson(item));
    out.push_back(item.get<int64_t>());
  }
  return out;
}

/// Readers for the elements of the (possibly empty) array of objects at
/// `key`.
static absl::StatusOr<std::vector<ObjectReader>>
readObjects(ObjectReader &r, std::string_view key, std::string_view shape) {
  std::string expected = absl::StrFormat("an array of %s", shape);
  NEURON_ASSIGN_OR_RETURN(v, r.field(key, expected));
  if (!v->is_array())
    return r.error(key, expected, describeJson(*v));
  std::vector<ObjectReader> readers;
  for (size_t i = 0; i < v->size(); ++i) {
    if (!(*v)[i].is_object())
      return r.itemError(key, i, shape, describeJson((*v)[i]));
    readers.emplace_back(kFile, absl::StrFormat("%s[%d]", r.pathOf(key), i),
                         (*v)[i]);
  }
  return readers;
}

/// Product of `shape`, or nullopt above kMaxElements.
static std::optional<int64_t> product(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxElements)
      return std::nullopt;
  return n;
}

//===----------------------------------------------------------------------===//
// Tile references
//===----------------------------------------------------------------------===//

namespace {
/// What an instruction expects of one operand.
struct RefRule {
  /// Allowed spaces; compute engines see only SBUF and PSUM.
  bool hbm = false, sbuf = true, psum = true;
  /// Required rank, or 0 for any.
  int rank = 0;
};
} // namespace

static std::string spacesText(const RefRule &rule) {
  std::vector<const char *> names;
  if (rule.hbm)
    names.push_back("hbm");
  if (rule.sbuf)
    names.push_back("sbuf");
  if (rule.psum)
    names.push_back("psum");
  return "one of " + absl::StrJoin(names, " ");
}

namespace {
/// What an instruction's operands are read against: its kernel and the trip
/// counts of its loop nest, outermost first.
struct Scope {
  const Kernel &kernel;
  std::vector<int64_t> trips;
};
} // namespace

/// Loops nest at most this deep; a loop runs at most this many times.
static constexpr int64_t kMaxLoopDepth = 16;
static constexpr int64_t kMaxTrips = int64_t(1) << 32;
/// An induction variable moves an offset by at most this much per trip.
static constexpr int64_t kMaxIvStride = int64_t(1) << 40;

/// The lowest and highest values of sum(iv[l] * coeffs[l]) over every
/// iteration of loops of `trips`; nullopt on overflow.
static std::optional<std::pair<int64_t, int64_t>>
ivRange(const std::vector<int64_t> &coeffs, const std::vector<int64_t> &trips) {
  int64_t lo = 0, hi = 0;
  for (size_t l = 0; l < coeffs.size(); ++l) {
    int64_t span = 0;
    if (__builtin_mul_overflow(coeffs[l], trips[l] - 1, &span) ||
        __builtin_add_overflow(span < 0 ? lo : hi, span,
                               span < 0 ? &lo : &hi))
      return std::nullopt;
  }
  return std::pair(lo, hi);
}

/// The optional `iv` array at `key` of `r`: one integer per loop level of
/// the scope (outermost first), each in [-2^40, 2^40]; empty when absent.
static absl::StatusOr<std::vector<int64_t>>
readIvCoefficients(ObjectReader &r, const Scope &scope,
                   std::string_view what) {
  NEURON_ASSIGN_OR_RETURN(v, r.field("iv", "", /*required=*/false));
  if (!v)
    return std::vector<int64_t>();
  NEURON_ASSIGN_OR_RETURN(coeffs, readIntArray(r, "iv", -kMaxIvStride,
                                               kMaxIvStride,
                                               /*anyLength=*/true));
  if (coeffs.size() != scope.trips.size())
    return r.error("iv",
                   absl::StrFormat("%d %s (one per enclosing loop, outermost "
                                   "first)",
                                   scope.trips.size(), what),
                   absl::StrFormat("%d", coeffs.size()));
  return coeffs;
}

static absl::Status readHbmRef(ObjectReader &r, const Scope &scope,
                               TileRef &ref) {
  if (scope.kernel.parameters == 0)
    return r.error("param", "no HBM reference (the kernel has 0 parameters)",
                   "an HBM reference");
  NEURON_RETURN_IF_ERROR(r.integer(
      "param",
      absl::StrFormat("a parameter index in [0, %d]", scope.kernel.parameters - 1), 0,
      scope.kernel.parameters - 1, ref.param));
  NEURON_RETURN_IF_ERROR(r.integer("offset", "an element offset in [0, 2^40]",
                                   0, kMaxElements, ref.offset));
  NEURON_ASSIGN_OR_RETURN(strides, readIntArray(r, "strides", 0, kMaxExtent));
  if (strides.size() != ref.shape.size())
    return r.error("strides",
                   absl::StrFormat("%d strides (one per dimension of shape)",
                                   ref.shape.size()),
                   absl::StrFormat("%d", strides.size()));
  ref.strides = std::move(strides);
  int64_t last = ref.offset;
  for (size_t i = 0; i < ref.shape.size(); ++i) {
    int64_t span = 0;
    if (__builtin_mul_overflow(ref.shape[i] - 1, ref.strides[i], &span) ||
        __builtin_add_overflow(last, span, &last) || last > kMaxElements)
      return r.error("strides", "an access pattern ending below element 2^40",
                     formatShape(ref.strides));
  }
  NEURON_ASSIGN_OR_RETURN(
      iv, readIvCoefficients(r, scope, "element strides per iteration"));
  std::optional<std::pair<int64_t, int64_t>> range = ivRange(iv, scope.trips);
  int64_t first = ref.offset;
  if (!range || __builtin_add_overflow(first, range->first, &first) ||
      __builtin_add_overflow(last, range->second, &last) || first < 0 ||
      last > kMaxElements)
    return r.error("iv",
                   "strides keeping the pattern inside elements [0, 2^40] at "
                   "every iteration",
                   range ? absl::StrFormat("elements %d..%d", first, last)
                         : std::string("strides whose products overflow"));
  ref.ivStrides = std::move(iv);
  ref.minElement = first;
  ref.maxElement = last;
  return absl::OkStatus();
}

/// The optional `slots` of an on-chip reference: `{count, bytes, depth}`.
static absl::Status readSlots(ObjectReader &parent, const Scope &scope,
                              int64_t capacity, Slots &slots) {
  NEURON_ASSIGN_OR_RETURN(opt, parent.optObject("slots", "{count, bytes, depth}"));
  if (!opt)
    return absl::OkStatus();
  ObjectReader &r = *opt;
  NEURON_RETURN_IF_ERROR(r.integer("count", "a slot count in [1, 65536]", 1,
                                   65536, slots.count));
  NEURON_RETURN_IF_ERROR(r.integer(
      "bytes", absl::StrFormat("a byte distance in [0, %d]", capacity), 0,
      capacity, slots.bytes));
  int64_t depth = int64_t(scope.trips.size());
  NEURON_RETURN_IF_ERROR(r.integer(
      "depth",
      absl::StrFormat("a loop count in [0, %d] (the instruction's loops)",
                      depth),
      0, depth, slots.depth));
  return r.finish();
}

static absl::Status readOnChipRef(ObjectReader &r, const Scope &scope,
                                  TileRef &ref) {
  const Limits &limits = scope.kernel.limits;
  if (ref.shape.empty())
    return r.error("shape", "a non-empty shape [partitions, free...]", "[]");
  NEURON_RETURN_IF_ERROR(r.integer(
      "partition",
      absl::StrFormat("a partition in [0, %d]", limits.partitions - 1), 0,
      limits.partitions - 1, ref.partition));
  int64_t available = limits.partitions - ref.partition;
  if (ref.shape[0] > available)
    return r.itemError(
        "shape", 0,
        absl::StrFormat("at most %d partitions (partition %d + count <= %d "
                        "partitions)",
                        available, ref.partition, limits.partitions),
        absl::StrFormat("%d", ref.shape[0]));
  bool sbuf = ref.space == MemorySpace::Sbuf;
  int64_t capacity = sbuf ? limits.sbufBytes : limits.psumBytes;
  // Optional element strides of the free dimensions.
  NEURON_ASSIGN_OR_RETURN(strides,
                          r.field("strides", "", /*required=*/false));
  if (strides) {
    NEURON_ASSIGN_OR_RETURN(values,
                            readIntArray(r, "strides", 0, capacity));
    if (values.size() + 1 != ref.shape.size())
      return r.error("strides",
                     absl::StrFormat("%d strides (one per free dimension of "
                                     "shape)",
                                     ref.shape.size() - 1),
                     absl::StrFormat("%d", values.size()));
    // Row-major strides are the contiguous tile: kept as none.
    if (contiguousRun(ref.shape.data() + 1, values.data(), values.size()) <
        ref.freeElements())
      ref.strides = std::move(values);
  }
  // The bytes a partition spans, first element to last (freeSpan saturates
  // past 2^62, past the capacity too).
  int64_t bytes = 0;
  if (__builtin_mul_overflow(ref.freeSpan(), elementBytes(ref.dtype), &bytes))
    bytes = std::numeric_limits<int64_t>::max();
  if (bytes > capacity)
    return r.error(strides ? "strides" : "shape",
                   absl::StrFormat("at most %d %s bytes per partition",
                                   capacity, sbuf ? "sbuf" : "psum"),
                   absl::StrFormat("%s of %s (%d bytes per partition)",
                                   formatShape(ref.shape), dtypeName(ref.dtype),
                                   bytes));
  std::string expected = absl::StrFormat(
      "an offset in [0, %d] (offset + %d bytes <= %d %s bytes per partition)",
      capacity - bytes, bytes, capacity, sbuf ? "sbuf" : "psum");
  NEURON_ASSIGN_OR_RETURN(offset, r.field("offset", expected));
  if (!offset->is_number_integer() || offset->get<int64_t>() < 0 ||
      offset->get<int64_t>() > capacity - bytes)
    return r.error("offset", expected, describeJson(*offset));
  ref.offset = offset->get<int64_t>();
  NEURON_RETURN_IF_ERROR(readSlots(r, scope, capacity, ref.slots));
  NEURON_ASSIGN_OR_RETURN(
      iv, readIvCoefficients(r, scope, "byte strides per iteration"));
  // Every iteration's tile, in every slot, stays inside the partition.
  std::optional<std::pair<int64_t, int64_t>> range = ivRange(iv, scope.trips);
  int64_t lowest = ref.offset, highest = ref.offset;
  if (range && (__builtin_add_overflow(lowest, range->first, &lowest) ||
                __builtin_add_overflow(highest, range->second, &highest) ||
                __builtin_add_overflow(
                    highest, (ref.slots.count - 1) * ref.slots.bytes,
                    &highest)))
    range.reset();
  if (!range || lowest < 0 || highest > capacity - bytes)
    return r.error(
        range ? "slots" : "iv",
        absl::StrFormat("slots and strides keeping the tile inside [0, %d) "
                        "%s bytes per partition at every iteration",
                        capacity, sbuf ? "sbuf" : "psum"),
        range ? absl::StrFormat("bytes %d..%d", lowest, highest + bytes)
              : std::string("strides whose products overflow"));
  ref.ivStrides = std::move(iv);
  return absl::OkStatus();
}

static absl::StatusOr<TileRef> readRef(ObjectReader &parent,
                                       std::string_view key,
                                       const Scope &scope,
                                       const RefRule &rule) {
  NEURON_ASSIGN_OR_RETURN(r, parent.object(key, "a tile reference object"));
  TileRef ref;
  ref.path = parent.pathOf(key);
  NEURON_RETURN_IF_ERROR(readKeyword(r, "space", kSpaces, ref.space));
  bool allowed = ref.space == MemorySpace::Hbm    ? rule.hbm
                 : ref.space == MemorySpace::Sbuf ? rule.sbuf
                                                  : rule.psum;
  if (!allowed)
    return r.error("space", spacesText(rule),
                   foundString(kSpaces.names[int(ref.space)]));
  NEURON_RETURN_IF_ERROR(readDType(r, ref.dtype));
  NEURON_ASSIGN_OR_RETURN(shape, readIntArray(r, "shape", 1, kMaxExtent));
  if (rule.rank && int(shape.size()) != rule.rank)
    return r.error("shape", absl::StrFormat("a rank-%d shape", rule.rank),
                   formatShape(shape));
  std::optional<int64_t> elements = product(shape);
  if (!elements)
    return r.error("shape", "at most 2^40 elements", formatShape(shape));
  ref.shape = std::move(shape);
  ref.elements = *elements;
  if (ref.space == MemorySpace::Hbm)
    NEURON_RETURN_IF_ERROR(readHbmRef(r, scope, ref));
  else
    NEURON_RETURN_IF_ERROR(readOnChipRef(r, scope, ref));
  NEURON_RETURN_IF_ERROR(r.finish());
  return ref;
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

static std::string describeTile(const TileRef &t) {
  return absl::StrFormat("%d partitions x %d elements", t.partitionCount(),
                         t.freeElements());
}

/// `ref` (at `key`) covers as many partitions and free elements as `like`.
static absl::Status sameLayout(ObjectReader &r, std::string_view key,
                               const TileRef &ref, std::string_view likeName,
                               const TileRef &like) {
  if (ref.partitionCount() == like.partitionCount() &&
      ref.freeElements() == like.freeElements())
    return absl::OkStatus();
  return r.error(
      key,
      absl::StrFormat("a tile of %s (as %s)", describeTile(like), likeName),
      describeTile(ref));
}

static absl::Status readMatmul(ObjectReader &r, const Scope &scope,
                               Instruction &inst) {
  const Limits &limits = scope.kernel.limits;
  NEURON_ASSIGN_OR_RETURN(doubleRow,
                          r.field("double_row", "", /*required=*/false));
  if (doubleRow)
    NEURON_RETURN_IF_ERROR(r.boolean("double_row", inst.doubleRow));
  if (inst.doubleRow && limits.fp8Rows < 2)
    return r.error("double_row",
                   "false (the kernel's limits have fp8_rows = 1)", "true");
  // The double-row mode's operands are [K, 2, M] and [K, 2, N].
  size_t rank = inst.doubleRow ? 3 : 2;
  NEURON_ASSIGN_OR_RETURN(
      stationary,
      readRef(r, "stationary", scope, {false, true, false, int(rank)}));
  // The moving operand: [K, N], or a window [K, rows, columns] of N =
  // rows x columns read with its strides.
  NEURON_ASSIGN_OR_RETURN(moving,
                          readRef(r, "moving", scope, {false, true, false, 0}));
  if (inst.doubleRow && stationary.shape[1] != 2)
    return r.error("stationary", "a shape [K, 2, M] (double_row)",
                   formatShape(stationary.shape));
  if (inst.doubleRow ? moving.shape.size() != 3 || moving.shape[1] != 2
                     : moving.shape.size() != 2 && moving.shape.size() != 3)
    return r.error("moving",
                   inst.doubleRow ? "a shape [K, 2, N] (double_row)"
                                  : "a shape [K, N] or [K, rows, columns]",
                   formatShape(moving.shape));
  NEURON_ASSIGN_OR_RETURN(dst,
                          readRef(r, "dst", scope, {false, false, true, 2}));
  int64_t k = stationary.shape[0], m = stationary.shape[rank - 1];
  int64_t n = inst.doubleRow ? moving.shape[2] : moving.freeElements();
  for (const TileRef *t : {&stationary, &moving})
    if (inst.doubleRow ? t->dtype != DType::F8E4M3FN &&
                             t->dtype != DType::F8E5M2
                       : !isFloat(t->dtype))
      return r.error(t == &stationary ? "stationary" : "moving",
                     inst.doubleRow ? "an fp8 operand (double_row)"
                                    : "a floating-point operand",
                     dtypeName(t->dtype));
  if (m > limits.stationaryFree)
    return r.error("stationary",
                   absl::StrFormat("[K, M] with M <= %d (stationary_free)",
                                   limits.stationaryFree),
                   formatShape(stationary.shape));
  if (moving.shape[0] != k || n > limits.movingFree)
    return r.error(
        "moving",
        absl::StrFormat("[K, N] with K = %d (as stationary) and N <= %d "
                        "(moving_free)",
                        k, limits.movingFree),
        formatShape(moving.shape));
  if (dst.dtype != DType::F32)
    return r.error("dst", "an f32 psum tile", dtypeName(dst.dtype));
  if (!dst.contiguous())
    return r.error("dst",
                   "a psum tile without strides (the sums fill whole rows)",
                   absl::StrFormat("strides %s", formatShape(dst.strides)));
  if (dst.shape[0] != m || dst.shape[1] != n)
    return r.error(
        "dst",
        absl::StrFormat("[M, N] = [%d, %d] (stationary^T x moving)", m, n),
        formatShape(dst.shape));
  int64_t end = dst.offset + n * 4 - 1;
  if (dst.offset / limits.psumBankBytes != end / limits.psumBankBytes)
    return r.error("dst",
                   absl::StrFormat("a tile inside one %d-byte psum bank",
                                   limits.psumBankBytes),
                   absl::StrFormat("bytes %d..%d", dst.offset, end));
  // In a loop the tile moves by whole banks, so every iteration's stays in
  // one.
  bool wholeBanks = dst.slots.count == 1 ||
                    dst.slots.bytes % limits.psumBankBytes == 0;
  for (int64_t step : dst.ivStrides)
    wholeBanks = wholeBanks && step % limits.psumBankBytes == 0;
  if (!wholeBanks)
    return r.error("dst",
                   absl::StrFormat("slots and strides in whole %d-byte psum "
                                   "banks",
                                   limits.psumBankBytes),
                   absl::StrFormat("slots %d bytes apart, strides %s",
                                   dst.slots.bytes,
                                   formatShape(dst.ivStrides)));
  NEURON_RETURN_IF_ERROR(r.boolean("accumulate", inst.accumulate));
  NEURON_ASSIGN_OR_RETURN(restart, r.field("restart", "", /*required=*/false));
  if (restart) {
    int64_t depth = int64_t(scope.trips.size());
    NEURON_ASSIGN_OR_RETURN(
        levels, readIntArray(r, "restart", 0, std::max<int64_t>(depth - 1, 0),
                             /*anyLength=*/true));
    if (depth == 0 && !levels.empty())
      return r.itemError("restart", 0, "no level (the matmul is in no loop)",
                         absl::StrFormat("%d", levels[0]));
    if (!inst.accumulate && !levels.empty())
      return r.error("restart", "no levels (accumulate is false)",
                     formatShape(levels));
    inst.restart = std::move(levels);
  }
  inst.stationary = std::move(stationary);
  inst.moving = std::move(moving);
  inst.dst = std::move(dst);
  return absl::OkStatus();
}

static absl::Status readTranspose(ObjectReader &r, const Scope &scope,
                                  Instruction &inst) {
  NEURON_ASSIGN_OR_RETURN(src,
                          readRef(r, "src", scope, {false, true, false, 2}));
  NEURON_ASSIGN_OR_RETURN(dst,
                          readRef(r, "dst", scope, {false, false, true, 2}));
  if (dst.shape[0] != src.shape[1] || dst.shape[1] != src.shape[0])
    return r.error("dst",
                   absl::StrFormat("[F, P] = [%d, %d] (src transposed)",
                                   src.shape[1], src.shape[0]),
                   formatShape(dst.shape));
  inst.src = std::move(src);
  inst.dst = std::move(dst);
  return absl::OkStatus();
}

/// A [P, 1] tile whose P matches `like`'s partitions.
static absl::Status perPartitionColumn(ObjectReader &r, std::string_view key,
                                       const TileRef &ref,
                                       const TileRef &like) {
  if (ref.partitionCount() == like.partitionCount() && ref.freeElements() == 1)
    return absl::OkStatus();
  return r.error(key, absl::StrFormat("a [%d, 1] tile", like.partitionCount()),
                 formatShape(ref.shape));
}

/// The optional [P, 1] tile `key` of `like`'s partitions into `into`
/// (left empty when the field is absent).
static absl::Status readOptionalColumn(ObjectReader &r, std::string_view key,
                                       const Scope &scope, const TileRef &like,
                                       std::optional<TileRef> &into) {
  NEURON_ASSIGN_OR_RETURN(field, r.field(key, "", /*required=*/false));
  if (!field)
    return absl::OkStatus();
  NEURON_ASSIGN_OR_RETURN(ref, readRef(r, key, scope, {}));
  NEURON_RETURN_IF_ERROR(perPartitionColumn(r, key, ref, like));
  into = std::move(ref);
  return absl::OkStatus();
}

static absl::Status readActivation(ObjectReader &r, const Scope &scope,
                                   Instruction &inst) {
  NEURON_RETURN_IF_ERROR(readKeyword(r, "function", kFunctions, inst.function));
  NEURON_ASSIGN_OR_RETURN(src, readRef(r, "src", scope, {}));
  NEURON_ASSIGN_OR_RETURN(dst, readRef(r, "dst", scope, {}));
  NEURON_RETURN_IF_ERROR(sameLayout(r, "dst", dst, "src", src));
  NEURON_RETURN_IF_ERROR(readNumber(r, "scale", inst.scale));
  NEURON_RETURN_IF_ERROR(readOptionalColumn(r, "bias", scope, src, inst.bias));
  NEURON_RETURN_IF_ERROR(
      readOptionalColumn(r, "scales", scope, src, inst.scales));
  inst.src = std::move(src);
  inst.dst = std::move(dst);
  return absl::OkStatus();
}

static absl::Status readTensorTensor(ObjectReader &r, const Scope &scope,
                                     Instruction &inst) {
  NEURON_RETURN_IF_ERROR(readKeyword(r, "alu", kAluOps, inst.alu));
  NEURON_ASSIGN_OR_RETURN(lhs, readRef(r, "lhs", scope, {}));
  NEURON_ASSIGN_OR_RETURN(rhs, readRef(r, "rhs", scope, {}));
  NEURON_ASSIGN_OR_RETURN(dst, readRef(r, "dst", scope, {}));
  NEURON_RETURN_IF_ERROR(sameLayout(r, "rhs", rhs, "lhs", lhs));
  NEURON_RETURN_IF_ERROR(sameLayout(r, "dst", dst, "lhs", lhs));
  inst.lhs = std::move(lhs);
  inst.rhs = std::move(rhs);
  inst.dst = std::move(dst);
  return absl::OkStatus();
}

static absl::Status readTensorScalar(ObjectReader &r, const Scope &scope,
                                     Instruction &inst) {
  NEURON_RETURN_IF_ERROR(readKeyword(r, "alu", kAluOps, inst.alu));
  NEURON_ASSIGN_OR_RETURN(src, readRef(r, "src", scope, {}));
  NEURON_ASSIGN_OR_RETURN(dst, readRef(r, "dst", scope, {}));
  NEURON_RETURN_IF_ERROR(sameLayout(r, "dst", dst, "src", src));
  NEURON_RETURN_IF_ERROR(
      readOptionalColumn(r, "scalars", scope, src, inst.scalars));
  if (!inst.scalars)
    NEURON_RETURN_IF_ERROR(readNumber(r, "scalar", inst.scalar));
  inst.src = std::move(src);
  inst.dst = std::move(dst);
  return absl::OkStatus();
}

static absl::Status readScalarTensorTensor(ObjectReader &r,
                                           const Scope &scope,
                                           Instruction &inst) {
  NEURON_RETURN_IF_ERROR(readTensorScalar(r, scope, inst));
  NEURON_RETURN_IF_ERROR(readKeyword(r, "alu1", kAluOps, inst.alu1));
  NEURON_ASSIGN_OR_RETURN(rhs, readRef(r, "rhs", scope, {}));
  NEURON_RETURN_IF_ERROR(sameLayout(r, "rhs", rhs, "src", inst.src));
  inst.rhs = std::move(rhs);
  return absl::OkStatus();
}

static absl::Status readTensorReduce(ObjectReader &r, const Scope &scope,
                                     Instruction &inst) {
  NEURON_RETURN_IF_ERROR(readKeyword(r, "alu", kAluOps, inst.alu));
  if (inst.alu != AluOp::Add && inst.alu != AluOp::Max &&
      inst.alu != AluOp::Min)
    return r.error("alu", "one of add max min",
                   foundString(kAluOps.names[int(inst.alu)]));
  NEURON_ASSIGN_OR_RETURN(src, readRef(r, "src", scope, {}));
  NEURON_ASSIGN_OR_RETURN(dst, readRef(r, "dst", scope, {}));
  NEURON_RETURN_IF_ERROR(perPartitionColumn(r, "dst", dst, src));
  inst.src = std::move(src);
  inst.dst = std::move(dst);
  return absl::OkStatus();
}

/// gather: rows of an [R, C] HBM table into a [P, C] SBUF tile of its
/// dtype, one per [P, 1] i32 index. Indices are data: the simulator checks
/// each against R when it runs.
static absl::Status readGather(ObjectReader &r, const Scope &scope,
                               Instruction &inst) {
  NEURON_ASSIGN_OR_RETURN(table,
                          readRef(r, "table", scope, {true, false, false, 2}));
  NEURON_ASSIGN_OR_RETURN(
      indices, readRef(r, "indices", scope, {false, true, false, 2}));
  NEURON_ASSIGN_OR_RETURN(dst,
                          readRef(r, "dst", scope, {false, true, false, 2}));
  if (indices.dtype != DType::I32 || indices.shape[1] != 1)
    return r.error("indices", "a [P, 1] i32 tile",
                   absl::StrFormat("%s of %s", formatShape(indices.shape),
                                   dtypeName(indices.dtype)));
  if (dst.dtype != table.dtype)
    return r.error(
        "dst", absl::StrFormat("a %s tile (as table)", dtypeName(table.dtype)),
        dtypeName(dst.dtype));
  if (dst.shape[0] != indices.shape[0] || dst.shape[1] != table.shape[1])
    return r.error("dst",
                   absl::StrFormat("[P, C] = [%d, %d] (one table row per "
                                   "index)",
                                   indices.shape[0], table.shape[1]),
                   formatShape(dst.shape));
  inst.table = std::move(table);
  inst.indices = std::move(indices);
  inst.dst = std::move(dst);
  return absl::OkStatus();
}

/// select: a predicate of any dtype and three tiles of one layout and one
/// dtype (the chosen element is copied, not converted).
static absl::Status readSelect(ObjectReader &r, const Scope &scope,
                               Instruction &inst) {
  NEURON_ASSIGN_OR_RETURN(predicate, readRef(r, "predicate", scope, {}));
  NEURON_ASSIGN_OR_RETURN(onTrue, readRef(r, "on_true", scope, {}));
  NEURON_ASSIGN_OR_RETURN(onFalse, readRef(r, "on_false", scope, {}));
  NEURON_ASSIGN_OR_RETURN(dst, readRef(r, "dst", scope, {}));
  NEURON_RETURN_IF_ERROR(
      sameLayout(r, "on_true", onTrue, "predicate", predicate));
  NEURON_RETURN_IF_ERROR(
      sameLayout(r, "on_false", onFalse, "predicate", predicate));
  NEURON_RETURN_IF_ERROR(sameLayout(r, "dst", dst, "predicate", predicate));
  for (auto [key, ref] :
       {std::pair<std::string_view, const TileRef *>{"on_false", &onFalse},
        {"dst", &dst}})
    if (ref->dtype != onTrue.dtype)
      return r.error(
          key,
          absl::StrFormat("a %s tile (as on_true)", dtypeName(onTrue.dtype)),
          dtypeName(ref->dtype));
  inst.predicate = std::move(predicate);
  inst.onTrue = std::move(onTrue);
  inst.onFalse = std::move(onFalse);
  inst.dst = std::move(dst);
  return absl::OkStatus();
}

/// A wait's optional `fewer_first`: [loop level, iterations, fewer], the
/// count `fewer` lower in the loop's first `iterations` iterations.
static absl::Status readFewerFirst(ObjectReader &w, const Scope &scope,
                                   UnitWait &entry) {
  NEURON_ASSIGN_OR_RETURN(v, w.field("fewer_first", "", /*required=*/false));
  if (!v)
    return absl::OkStatus();
  int64_t depth = int64_t(scope.trips.size());
  NEURON_ASSIGN_OR_RETURN(f, readIntArray(w, "fewer_first", 0, kMaxElements,
                                          /*anyLength=*/true));
  auto found = [&] { return absl::StrFormat("[%s]", absl::StrJoin(f, ", ")); };
  if (depth == 0)
    return w.error("fewer_first", "none: the instruction is in no loop",
                   found());
  if (f.size() != 3 || f[0] >= depth || f[1] < 1 || f[1] > scope.trips[f[0]] ||
      f[2] < 1)
    return w.error("fewer_first",
                   absl::StrFormat("[loop, iterations, fewer]: a loop level "
                                   "in [0, %d], iterations within its trips "
                                   "and fewer at least 1",
                                   depth - 1),
                   found());
  entry.loop = f[0];
  entry.iterations = f[1];
  entry.fewer = f[2];
  return absl::OkStatus();
}

static constexpr std::string_view kUnitNames =
    "one of tensor vector scalar gpsimd dmaQ (Q in [0, 1023]), then "
    "@C on physical core C in [1, 7]";

/// `signal`, `wait`, `start_ns` and `end_ns`, all optional. A wait's count
/// may move with the induction variables (`iv`); it is checked against the
/// kernel's signalling instructions by readKernel.
static absl::Status readSync(ObjectReader &r, const Scope &scope,
                             Instruction &inst) {
  NEURON_ASSIGN_OR_RETURN(signal, r.field("signal", "", /*required=*/false));
  if (signal)
    NEURON_RETURN_IF_ERROR(r.boolean("signal", inst.signal));
  NEURON_ASSIGN_OR_RETURN(wait, r.field("wait", "", /*required=*/false));
  if (wait) {
    NEURON_ASSIGN_OR_RETURN(waits, readObjects(r, "wait", "{unit, count}"));
    for (ObjectReader &w : waits) {
      UnitWait entry;
      std::string name;
      NEURON_RETURN_IF_ERROR(w.string("unit", name));
      std::optional<int64_t> unit = parseUnit(name);
      if (!unit)
        return w.error("unit", kUnitNames, foundString(name));
      entry.unit = *unit;
      NEURON_RETURN_IF_ERROR(w.integer(
          "count", "a count in [-2^40, 2^40]", -kMaxElements, kMaxElements,
          entry.count));
      NEURON_ASSIGN_OR_RETURN(
          counts, readIvCoefficients(w, scope, "counts per iteration"));
      entry.ivCounts = std::move(counts);
      NEURON_RETURN_IF_ERROR(readFewerFirst(w, scope, entry));
      NEURON_RETURN_IF_ERROR(w.finish());
      inst.waits.push_back(entry);
    }
  }
  NEURON_RETURN_IF_ERROR(readTime(r, "start_ns", inst.startNs));
  NEURON_RETURN_IF_ERROR(readTime(r, "end_ns", inst.endNs));
  if (inst.startNs && inst.endNs && *inst.endNs < *inst.startNs)
    return r.error(
        "end_ns",
        absl::StrFormat("a time at or after start_ns (%g)", *inst.startNs),
        absl::StrFormat("%g", *inst.endNs));
  return absl::OkStatus();
}

/// A dma_copy's optional `offset` tile with its `offset_moves`,
/// `offset_stride` and `offset_limit`: the moved side must be in HBM and
/// stay below element 2^40 at every start the limit allows.
static absl::Status readDynamicStart(ObjectReader &r, const Scope &scope,
                                     Instruction &inst) {
  NEURON_ASSIGN_OR_RETURN(field, r.field("offset", "", /*required=*/false));
  if (!field)
    return absl::OkStatus();
  NEURON_ASSIGN_OR_RETURN(offset,
                          readRef(r, "offset", scope, {false, true, false, 0}));
  if (offset.dtype != DType::I32 || offset.elements != 1)
    return r.error("offset", "a one-element i32 tile",
                   absl::StrFormat("%d %s elements", offset.elements,
                                   dtypeName(offset.dtype)));
  inst.offset = std::move(offset);
  std::string moves;
  NEURON_RETURN_IF_ERROR(r.string("offset_moves", moves));
  if (moves != "src" && moves != "dst")
    return r.error("offset_moves", "one of src dst", foundString(moves));
  inst.offsetMovesSrc = moves == "src";
  if (movedSide(inst).space != MemorySpace::Hbm)
    return r.error("offset_moves", "the side of an HBM tile",
                   foundString(moves));
  NEURON_RETURN_IF_ERROR(r.integer("offset_stride",
                                   "an element stride in [0, 2^40]", 0,
                                   kMaxElements, inst.offsetStride));
  NEURON_RETURN_IF_ERROR(r.integer("offset_limit", "a start in [0, 2^40]", 0,
                                   kMaxElements, inst.offsetLimit));
  int64_t reach = 0;
  if (__builtin_mul_overflow(inst.offsetStride, inst.offsetLimit, &reach) ||
      __builtin_add_overflow(movedSide(inst).maxElement, reach, &reach) ||
      reach > kMaxElements)
    return r.error("offset_limit",
                   "starts keeping the pattern inside elements [0, 2^40]",
                   absl::StrFormat("%d", inst.offsetLimit));
  return absl::OkStatus();
}

static absl::Status readInstruction(ObjectReader &r, const Scope &scope,
                                    Instruction &inst) {
  NEURON_RETURN_IF_ERROR(readKeyword(r, "op", kOps, inst.op));
  NEURON_RETURN_IF_ERROR(readKeyword(r, "engine", kEngines, inst.engine));
  NEURON_ASSIGN_OR_RETURN(core, r.field("core", "", /*required=*/false));
  if (core)
    NEURON_RETURN_IF_ERROR(r.integer(
        "core",
        absl::StrFormat("a physical core in [0, %d] (the kernel's cores)",
                        scope.kernel.cores - 1),
        0, scope.kernel.cores - 1, inst.core));
  Engine expected = engineOf(inst.op);
  if (inst.engine != expected)
    return r.error("engine",
                   absl::StrFormat("\"%s\" (the engine of %s)",
                                   kEngines.names[int(expected)],
                                   kOps.names[int(inst.op)]),
                   foundString(kEngines.names[int(inst.engine)]));
  switch (inst.op) {
  case Opcode::DmaCopy: {
    NEURON_RETURN_IF_ERROR(
        r.integer("queue", "a queue index in [0, 1023]", 0, 1023, inst.queue));
    RefRule any{true, true, true, 0};
    NEURON_ASSIGN_OR_RETURN(src, readRef(r, "src", scope, any));
    NEURON_ASSIGN_OR_RETURN(dst, readRef(r, "dst", scope, any));
    if (dst.elements != src.elements)
      return r.error("dst",
                     absl::StrFormat("%d elements (as src)", src.elements),
                     absl::StrFormat("%d", dst.elements));
    inst.src = std::move(src);
    inst.dst = std::move(dst);
    NEURON_RETURN_IF_ERROR(readDynamicStart(r, scope, inst));
    break;
  }
  case Opcode::Matmul:
    NEURON_RETURN_IF_ERROR(readMatmul(r, scope, inst));
    break;
  case Opcode::Transpose:
    NEURON_RETURN_IF_ERROR(readTranspose(r, scope, inst));
    break;
  case Opcode::Activation:
    NEURON_RETURN_IF_ERROR(readActivation(r, scope, inst));
    break;
  case Opcode::TensorTensor:
    NEURON_RETURN_IF_ERROR(readTensorTensor(r, scope, inst));
    break;
  case Opcode::TensorScalar:
    NEURON_RETURN_IF_ERROR(readTensorScalar(r, scope, inst));
    break;
  case Opcode::ScalarTensorTensor:
    NEURON_RETURN_IF_ERROR(readScalarTensorTensor(r, scope, inst));
    break;
  case Opcode::TensorReduce:
    NEURON_RETURN_IF_ERROR(readTensorReduce(r, scope, inst));
    break;
  case Opcode::Memset: {
    NEURON_ASSIGN_OR_RETURN(dst, readRef(r, "dst", scope, {}));
    inst.dst = std::move(dst);
    NEURON_RETURN_IF_ERROR(readNumber(r, "value", inst.value));
    break;
  }
  case Opcode::Iota: {
    NEURON_ASSIGN_OR_RETURN(dst,
                            readRef(r, "dst", scope, {false, true, true, 2}));
    if (dst.dtype != DType::I32)
      return r.error("dst", "an i32 tile", dtypeName(dst.dtype));
    inst.dst = std::move(dst);
    NEURON_RETURN_IF_ERROR(r.integer("partition_step",
                                     "an integer in [-2^31, 2^31 - 1]",
                                     INT32_MIN, INT32_MAX, inst.partitionStep));
    break;
  }
  case Opcode::Gather:
    NEURON_RETURN_IF_ERROR(readGather(r, scope, inst));
    break;
  case Opcode::Select:
    NEURON_RETURN_IF_ERROR(readSelect(r, scope, inst));
    break;
  }
  NEURON_RETURN_IF_ERROR(readSync(r, scope, inst));
  return r.finish();
}

//===----------------------------------------------------------------------===//
// Kernels, tensors, program
//===----------------------------------------------------------------------===//

static absl::Status readLimits(ObjectReader &parent, Limits &limits) {
  NEURON_ASSIGN_OR_RETURN(r, parent.object("limits"));
  auto bytes = [&](std::string_view key, int64_t max, int64_t &out) {
    return r.integer(key, absl::StrFormat("a byte count in [1, %d]", max), 1,
                     max, out);
  };
  NEURON_RETURN_IF_ERROR(
      r.integer("partitions",
                absl::StrFormat("a partition count in [1, %d]", kMaxPartitions),
                1, kMaxPartitions, limits.partitions));
  NEURON_RETURN_IF_ERROR(
      bytes("sbuf_bytes", kMaxOnChipBytes, limits.sbufBytes));
  NEURON_RETURN_IF_ERROR(
      bytes("psum_bytes", kMaxOnChipBytes, limits.psumBytes));
  NEURON_RETURN_IF_ERROR(
      bytes("psum_bank_bytes", limits.psumBytes, limits.psumBankBytes));
  for (auto [key, bytes] :
       {std::pair<std::string_view, int64_t>{"sbuf_bytes", limits.sbufBytes},
        {"psum_bytes", limits.psumBytes}})
    if (limits.partitions * bytes > kMaxOnChipTotal)
      return r.error(key,
                     absl::StrFormat("partitions x bytes <= 2^30 (%d "
                                     "partitions)",
                                     limits.partitions),
                     absl::StrFormat("%d", bytes));
  NEURON_RETURN_IF_ERROR(r.integer("stationary_free",
                                   "a positive integer at most 2^20", 1,
                                   1 << 20, limits.stationaryFree));
  NEURON_RETURN_IF_ERROR(r.integer("moving_free",
                                   "a positive integer at most 2^20", 1,
                                   1 << 20, limits.movingFree));
  NEURON_ASSIGN_OR_RETURN(rows, r.field("fp8_rows", "", /*required=*/false));
  if (rows)
    NEURON_RETURN_IF_ERROR(r.integer(
        "fp8_rows", "1 or 2 (the double-row mode)", 1, 2, limits.fp8Rows));
  return r.finish();
}

namespace {
/// The signals of one unit in a kernel's program order.
struct SignalCounts {
  /// Per loop: the unit's signals in one iteration of its body.
  std::vector<int64_t> perIteration;
  /// Per instruction: the unit's signals before its first instance (every
  /// enclosing loop at its first iteration).
  std::vector<int64_t> before;
  int64_t total = 0;
};
} // namespace

/// Counts `unit`'s signals through `kernel`'s loops. Instance counts stay
/// below 2^50 (readKernel), so no sum overflows.
static SignalCounts countSignals(const Kernel &kernel, int64_t unit) {
  SignalCounts c;
  c.perIteration.assign(kernel.loops.size(), 0);
  std::vector<int64_t> partial{0}; // signals so far at each open level
  walkLoops(
      kernel, [&](int64_t) { partial.push_back(0); },
      [&](int64_t loop) {
        c.perIteration[loop] = partial.back();
        partial.pop_back();
        partial.back() += kernel.loops[loop].trips * c.perIteration[loop];
      },
      [&](size_t i) {
        int64_t sum = 0;
        for (int64_t p : partial)
          sum += p;
        c.before.push_back(sum);
        const Instruction &inst = kernel.instructions[i];
        if (inst.signal && unitOf(inst) == unit)
          ++partial.back();
      });
  c.total = partial.front();
  return c;
}

/// Every wait of `kernel` names a count its unit reaches before the waiting
/// instruction in program order, at every iteration: the instructions in
/// program order are then an execution, and none can wait forever (the
/// earliest blocked instruction would wait for one before it).
static absl::Status checkWaits(std::vector<ObjectReader> &insts,
                               const Kernel &kernel) {
  std::map<int64_t, SignalCounts> counts;
  for (size_t i = 0; i < kernel.instructions.size(); ++i) {
    const Instruction &inst = kernel.instructions[i];
    for (size_t j = 0; j < inst.waits.size(); ++j) {
      const UnitWait &w = inst.waits[j];
      auto it = counts.find(w.unit);
      if (it == counts.end())
        it = counts.emplace(w.unit, countSignals(kernel, w.unit)).first;
      const SignalCounts &c = it->second;
      // count(iv) - signals before this instance, at its largest.
      std::vector<int64_t> nest = kernel.nestOf(int64_t(i));
      std::vector<int64_t> worst(nest.size(), 0);
      int64_t excess = w.count - c.before[i], needed = w.count,
              reached = c.before[i];
      bool overflow = false;
      for (size_t l = 0; l < nest.size(); ++l) {
        int64_t coeff = w.ivCounts.empty() ? 0 : w.ivCounts[l];
        int64_t slope = coeff - c.perIteration[nest[l]];
        if (slope <= 0)
          continue;
        int64_t last = kernel.loops[nest[l]].trips - 1;
        worst[l] = last;
        int64_t grow = 0, add = 0, reach = 0;
        overflow |= __builtin_mul_overflow(slope, last, &grow) ||
                    __builtin_add_overflow(excess, grow, &excess) ||
                    __builtin_mul_overflow(coeff, last, &add) ||
                    __builtin_add_overflow(needed, add, &needed) ||
                    __builtin_mul_overflow(c.perIteration[nest[l]], last,
                                           &reach) ||
                    __builtin_add_overflow(reached, reach, &reached);
      }
      if (!overflow && excess <= 0)
        continue;
      std::string path =
          absl::StrFormat("%s[%d].count", insts[i].pathOf("wait"), j);
      std::string unit = unitName(w.unit);
      if (c.total == 0)
        return jsonError(kFile, path,
                         absl::StrFormat("a wait on a unit with signalling "
                                         "instructions (%s has none)",
                                         unit),
                         absl::StrFormat("%d", w.count));
      if (overflow)
        return jsonError(kFile, path, "counts that do not overflow",
                         "counts per iteration whose products overflow");
      return jsonError(
          kFile, path,
          absl::StrFormat("a count %s reaches before this instruction in "
                          "program order (%d at iteration %s; waiting for "
                          "more could deadlock)",
                          unit, reached, formatShape(worst)),
          absl::StrFormat("%d at iteration %s", needed, formatShape(worst)));
    }
  }
  return absl::OkStatus();
}

static absl::Status readSchedule(ObjectReader &parent, Kernel &kernel) {
  NEURON_ASSIGN_OR_RETURN(opt, parent.optObject("schedule"));
  if (!opt)
    return absl::OkStatus();
  ObjectReader &r = *opt;
  KernelSchedule s;
  NEURON_RETURN_IF_ERROR(readTime(r, "predicted_ns", s.predictedNs));
  NEURON_RETURN_IF_ERROR(readTime(r, "bound_ns", s.boundNs));
  NEURON_RETURN_IF_ERROR(
      readTime(r, "predicted_over_bound", s.predictedOverBound));
  NEURON_RETURN_IF_ERROR(readTime(r, "critical_path_ns", s.criticalPathNs));
  NEURON_RETURN_IF_ERROR(readTime(r, "serial_ns", s.serialNs));
  NEURON_ASSIGN_OR_RETURN(busy, r.object("busy_ns"));
  for (size_t e = 0; e < kEngines.names.size(); ++e)
    NEURON_RETURN_IF_ERROR(readTime(busy, kEngines.names[e], s.busyNs[e]));
  NEURON_RETURN_IF_ERROR(busy.finish());
  NEURON_RETURN_IF_ERROR(r.integer(
      "dma_engines",
      absl::StrFormat("a DMA engine count in [1, %d]", kMaxDmaQueues), 1,
      kMaxDmaQueues, s.dmaEngines));
  int64_t count = int64_t(kernel.instructions.size());
  NEURON_ASSIGN_OR_RETURN(path, readIntArray(r, "critical_path", 0,
                                             std::max<int64_t>(count - 1, 0),
                                             /*anyLength=*/true));
  if (count == 0 && !path.empty())
    return r.itemError("critical_path", 0,
                       "no index (the kernel has no instructions)",
                       absl::StrFormat("%d", path[0]));
  s.criticalPath = std::move(path);
  NEURON_RETURN_IF_ERROR(r.finish());
  kernel.schedule = std::move(s);
  return absl::OkStatus();
}

/// The optional `loops`: `{trips, parent}` each, enclosing loops first.
static absl::Status readLoops(ObjectReader &r, Kernel &kernel) {
  NEURON_ASSIGN_OR_RETURN(v, r.field("loops", "", /*required=*/false));
  if (!v)
    return absl::OkStatus();
  NEURON_ASSIGN_OR_RETURN(loops, readObjects(r, "loops", "{trips, parent}"));
  for (size_t i = 0; i < loops.size(); ++i) {
    ObjectReader &lr = loops[i];
    Loop loop;
    NEURON_RETURN_IF_ERROR(lr.integer("trips", "a trip count in [1, 2^32]", 1,
                                      kMaxTrips, loop.trips));
    NEURON_ASSIGN_OR_RETURN(parent, lr.field("parent", "", /*required=*/false));
    if (parent) {
      if (i == 0)
        return lr.error("parent", "no parent (an enclosing loop comes first)",
                        describeJson(*parent));
      NEURON_RETURN_IF_ERROR(lr.integer(
          "parent", absl::StrFormat("an earlier loop in [0, %d]", i - 1), 0,
          int64_t(i) - 1, loop.parent));
      loop.depth = kernel.loops[loop.parent].depth + 1;
      if (loop.depth >= kMaxLoopDepth)
        return lr.error("parent",
                        absl::StrFormat("at most %d nested loops",
                                        kMaxLoopDepth),
                        absl::StrFormat("loop %d at depth %d", loop.parent,
                                        loop.depth - 1));
    }
    NEURON_RETURN_IF_ERROR(lr.finish());
    kernel.loops.push_back(loop);
  }
  return absl::OkStatus();
}

/// Each loop's instructions are one contiguous run (its body, nested loops
/// included), and no loop is empty; fills Loop::first and Loop::end.
static absl::Status checkNesting(std::vector<ObjectReader> &insts,
                                 Kernel &kernel) {
  std::vector<bool> closed(kernel.loops.size(), false),
      opened(kernel.loops.size(), false);
  std::vector<int64_t> open;
  int64_t n = int64_t(kernel.instructions.size());
  for (int64_t i = 0; i <= n; ++i) {
    std::vector<int64_t> nest = i < n ? kernel.nestOf(i) : std::vector<int64_t>();
    size_t common = 0;
    while (common < open.size() && common < nest.size() &&
           open[common] == nest[common])
      ++common;
    for (; open.size() > common; open.pop_back()) {
      kernel.loops[open.back()].end = i;
      closed[open.back()] = true;
    }
    for (size_t l = common; l < nest.size(); ++l) {
      if (closed[nest[l]])
        return insts[i].error(
            "loop",
            absl::StrFormat("a loop whose body is contiguous (loop %d ended "
                            "at instruction %d)",
                            nest[l], kernel.loops[nest[l]].end),
            absl::StrFormat("loop %d again", nest[l]));
      opened[nest[l]] = true;
      kernel.loops[nest[l]].first = i;
      open.push_back(nest[l]);
    }
  }
  for (size_t l = 0; l < kernel.loops.size(); ++l)
    if (!opened[l])
      return jsonError(kFile, absl::StrFormat("kernel \"%s\" loops[%d]",
                                              kernel.name, l),
                       "a loop holding an instruction", "an empty loop");
  return absl::OkStatus();
}

/// Instances of all a kernel's instructions stay below this, so sums of
/// signals and counts never overflow.
static constexpr int64_t kMaxInstances = int64_t(1) << 50;

static absl::Status readKernel(ObjectReader &r, Kernel &kernel) {
  NEURON_RETURN_IF_ERROR(r.string("name", kernel.name));
  NEURON_RETURN_IF_ERROR(r.integer("parameters",
                                   "a parameter count in [0, 65536]", 0, 65536,
                                   kernel.parameters));
  NEURON_ASSIGN_OR_RETURN(cores, r.field("cores", "", /*required=*/false));
  if (cores)
    NEURON_RETURN_IF_ERROR(r.integer(
        "cores",
        absl::StrFormat("a physical core count in [1, %d]", kMaxPhysicalCores),
        1, kMaxPhysicalCores, kernel.cores));
  NEURON_RETURN_IF_ERROR(readLimits(r, kernel.limits));
  NEURON_RETURN_IF_ERROR(readLoops(r, kernel));
  NEURON_ASSIGN_OR_RETURN(
      insts, readObjects(r, "instructions", "instruction objects"));
  int64_t instances = 0;
  for (ObjectReader &ir : insts) {
    Instruction inst;
    Scope scope{kernel, {}};
    NEURON_ASSIGN_OR_RETURN(loop, ir.field("loop", "", /*required=*/false));
    if (loop) {
      if (kernel.loops.empty())
        return ir.error("loop", "no loop (the kernel has none)",
                        describeJson(*loop));
      NEURON_RETURN_IF_ERROR(ir.integer(
          "loop",
          absl::StrFormat("a loop index in [0, %d]", kernel.loops.size() - 1),
          0, int64_t(kernel.loops.size()) - 1, inst.loop));
      for (int64_t l = inst.loop; l >= 0; l = kernel.loops[l].parent)
        scope.trips.insert(scope.trips.begin(), kernel.loops[l].trips);
      inst.depth = int64_t(scope.trips.size());
    }
    int64_t count = 1;
    bool tooMany = false;
    for (int64_t t : scope.trips)
      tooMany |= __builtin_mul_overflow(count, t, &count) ||
                 count > kMaxInstances;
    if (tooMany || __builtin_add_overflow(instances, count, &instances) ||
        instances > kMaxInstances)
      return ir.error("loop", "loops running the kernel's instructions fewer "
                              "than 2^50 times in all",
                      "more instances");
    NEURON_RETURN_IF_ERROR(readInstruction(ir, scope, inst));
    kernel.instructions.push_back(std::move(inst));
  }
  NEURON_RETURN_IF_ERROR(checkNesting(insts, kernel));
  NEURON_RETURN_IF_ERROR(checkWaits(insts, kernel));
  NEURON_RETURN_IF_ERROR(readSchedule(r, kernel));
  return r.finish();
}

/// A view's `{tensor, offset}`: an earlier tensor that is not a view, of
/// the same dtype, holding the whole window.
static absl::Status readView(ObjectReader &r, int64_t index,
                             const std::vector<TensorDesc> &earlier,
                             TensorDesc &tensor) {
  NEURON_ASSIGN_OR_RETURN(view, r.object("view", "{tensor, offset}"));
  if (index == 0)
    return view.error("tensor", "an earlier tensor", "a view as tensor 0");
  NEURON_RETURN_IF_ERROR(view.integer(
      "tensor", absl::StrFormat("an earlier tensor id in [0, %d]", index - 1),
      0, index - 1, tensor.viewOf));
  const TensorDesc &root = earlier[tensor.viewOf];
  if (root.kind == TensorKind::View || root.dtype != tensor.dtype)
    return view.error(
        "tensor", absl::StrFormat("a %s tensor that is not a view",
                                  dtypeName(tensor.dtype)),
        absl::StrFormat("tensor %d: %s%s (%s)", tensor.viewOf,
                        dtypeName(root.dtype), formatShape(root.shape),
                        kKinds.names[int(root.kind)]));
  NEURON_RETURN_IF_ERROR(view.integer(
      "offset",
      absl::StrFormat("an element offset in [0, %d] (tensor %d holds %d "
                      "elements, the view %d)",
                      root.elements - tensor.elements, tensor.viewOf,
                      root.elements, tensor.elements),
      0, std::max<int64_t>(0, root.elements - tensor.elements),
      tensor.viewOffset));
  if (tensor.elements > root.elements)
    return view.error("tensor",
                      absl::StrFormat("a tensor of at least %d elements",
                                      tensor.elements),
                      absl::StrFormat("tensor %d of %d", tensor.viewOf,
                                      root.elements));
  return view.finish();
}

static absl::Status readTensor(ObjectReader &r, int64_t index,
                               const std::vector<TensorDesc> &earlier,
                               TensorDesc &tensor) {
  int64_t id = 0;
  NEURON_RETURN_IF_ERROR(
      r.integer("id", absl::StrFormat("%d (the tensor's index)", index), index,
                index, id));
  NEURON_RETURN_IF_ERROR(readDType(r, tensor.dtype));
  NEURON_ASSIGN_OR_RETURN(shape, readIntArray(r, "shape", 1, kMaxExtent));
  std::optional<int64_t> elements = product(shape);
  if (!elements)
    return r.error("shape", "at most 2^40 elements", formatShape(shape));
  tensor.shape = std::move(shape);
  tensor.elements = *elements;
  NEURON_RETURN_IF_ERROR(readKeyword(r, "kind", kKinds, tensor.kind));
  NEURON_RETURN_IF_ERROR(r.string("name", tensor.name, /*required=*/false));
  bool constant = tensor.kind == TensorKind::Constant;
  NEURON_RETURN_IF_ERROR(r.string("section", tensor.section, constant));
  if (!constant && !tensor.section.empty())
    return r.error("section", "no section (only constants have one)",
                   foundString(tensor.section));
  if (tensor.kind == TensorKind::View)
    NEURON_RETURN_IF_ERROR(readView(r, index, earlier, tensor));
  return r.finish();
}

/// `spmd`: `{grid}`, positive sizes of at most kMaxRanks ranks in all.
static absl::Status readSpmd(ObjectReader &root, Program &program) {
  NEURON_ASSIGN_OR_RETURN(opt, root.optObject("spmd", "an object {grid}"));
  if (!opt)
    return absl::OkStatus();
  ObjectReader &r = *opt;
  NEURON_ASSIGN_OR_RETURN(grid, readIntArray(r, "grid", 1, kMaxRanks));
  int64_t ranks = 1;
  for (int64_t size : grid)
    ranks = std::min(ranks * size, kMaxRanks + 1);
  if (grid.empty() || ranks > kMaxRanks)
    return r.error(
        "grid",
        absl::StrFormat("a non-empty grid of at most %d ranks", kMaxRanks),
        formatShape(grid));
  program.grid = std::move(grid);
  return r.finish();
}

/// An input's or output's `sharding`: per dimension of `tensor`, the grid
/// axes it is split over, no axis twice.
static absl::Status readSharding(ObjectReader &r, const Program &program,
                                 int64_t tensor, const json &v,
                                 std::vector<std::vector<int64_t>> &out) {
  if (!program.isSpmd())
    return r.error("sharding",
                   "no sharding (the program has no top-level spmd grid)",
                   describeJson(v));
  const TensorDesc &t = program.tensors[tensor];
  int64_t lastAxis = int64_t(program.grid.size()) - 1;
  std::string expected = absl::StrFormat(
      "an array of %d arrays of grid axes (one per dimension of tensor %d, "
      "%s%s)",
      t.shape.size(), tensor, dtypeName(t.dtype), formatShape(t.shape));
  if (!v.is_array() || v.size() != t.shape.size())
    return r.error("sharding", expected, describeJson(v));
  std::vector<bool> used(program.grid.size(), false);
  for (size_t d = 0; d < v.size(); ++d) {
    if (!v[d].is_array())
      return r.itemError("sharding", d, "an array of grid axes",
                         describeJson(v[d]));
    std::vector<int64_t> axes;
    for (size_t j = 0; j < v[d].size(); ++j) {
      const json &a = v[d][j];
      std::string path =
          absl::StrFormat("%s[%d][%d]", r.pathOf("sharding"), d, j);
      if (!a.is_number_integer() || a.get<int64_t>() < 0 ||
          a.get<int64_t>() > lastAxis)
        return jsonError(kFile, path,
                         absl::StrFormat("a grid axis in [0, %d]", lastAxis),
                         describeJson(a));
      if (used[a.get<int64_t>()])
        return jsonError(kFile, path,
                         "a grid axis that shards no other dimension",
                         absl::StrFormat("axis %d again", a.get<int64_t>()));
      used[a.get<int64_t>()] = true;
      axes.push_back(a.get<int64_t>());
    }
    out.push_back(std::move(axes));
  }
  return absl::OkStatus();
}

static absl::Status readIo(ObjectReader &root, std::string_view key,
                           const Program &program,
                           std::vector<IoBinding> &out) {
  NEURON_ASSIGN_OR_RETURN(entries, readObjects(root, key, "{tensor, name}"));
  int64_t count = int64_t(program.tensors.size());
  for (ObjectReader &r : entries) {
    IoBinding io;
    if (count == 0)
      return r.error("tensor", "a tensor id (there are no tensors)",
                     "an entry");
    NEURON_RETURN_IF_ERROR(r.integer(
        "tensor", absl::StrFormat("a tensor id in [0, %d]", count - 1), 0,
        count - 1, io.tensor));
    NEURON_RETURN_IF_ERROR(r.string("name", io.name, /*required=*/false));
    if (key == "inputs" && program.tensors[io.tensor].kind != TensorKind::Input)
      return r.error(
          "tensor", "a tensor of kind \"input\"",
          absl::StrFormat("tensor %d of kind \"%s\"", io.tensor,
                          kKinds.names[int(program.tensors[io.tensor].kind)]));
    NEURON_ASSIGN_OR_RETURN(sharding,
                            r.field("sharding", "", /*required=*/false));
    if (sharding)
      NEURON_RETURN_IF_ERROR(
          readSharding(r, program, io.tensor, *sharding, io.sharding));
    NEURON_RETURN_IF_ERROR(r.finish());
    out.push_back(std::move(io));
  }
  return absl::OkStatus();
}

/// HBM operand `operand` of `inst` as far as it reaches: itself, or, for
/// the side a start read at run time moves, its reach over every start
/// (made in `reach` the first time).
static const TileRef &extentOf(const Instruction &inst, const TileRef &operand,
                               std::optional<TileRef> &reach) {
  if (!inst.offset || &operand != &movedSide(inst))
    return operand;
  if (!reach)
    reach = reachOf(inst);
  return *reach;
}

/// Every HBM reference of `kernel` lies inside the tensor bound to its
/// parameter, with the same dtype.
static absl::Status checkBindings(ObjectReader &r, const Program &program,
                                  const Kernel &kernel,
                                  const std::vector<int64_t> &bindings) {
  for (const Instruction &inst : kernel.instructions) {
    std::optional<TileRef> reach;
    for (const TileRef *operand : {&inst.src, &inst.dst, &inst.table}) {
      if (operand->space != MemorySpace::Hbm)
        continue;
      const TileRef *ref = &extentOf(inst, *operand, reach);
      const TensorDesc &t = program.tensors[bindings[ref->param]];
      if (t.dtype == ref->dtype && ref->maxElement < t.elements)
        continue;
      return r.itemError(
          "bindings", ref->param,
          absl::StrFormat("a %s tensor of more than %d elements (%s touches "
                          "elements %d..%d)",
                          dtypeName(ref->dtype), ref->maxElement, ref->path,
                          ref->offset, ref->maxElement),
          absl::StrFormat("tensor %d: %s%s", bindings[ref->param],
                          dtypeName(t.dtype), formatShape(t.shape)));
    }
  }
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// "tensor 3: f32[4, 8]".
static std::string describeTensorId(const Program &program, int64_t id) {
  const TensorDesc &t = program.tensors[id];
  return absl::StrFormat("tensor %d: %s%s", id, dtypeName(t.dtype),
                         formatShape(t.shape));
}

/// The field `key` of a collective of `kind`: present exactly when `wanted`
/// (required ones are then read by the caller).
static absl::Status expectKindField(ObjectReader &r, std::string_view key,
                                    bool wanted, CollectiveOp kind) {
  NEURON_ASSIGN_OR_RETURN(v, r.field(key, "", /*required=*/false));
  if (!v || wanted)
    return absl::OkStatus();
  return r.error(
      key,
      absl::StrFormat("no %s (%s takes none)", key, collectiveOpName(kind)),
      describeJson(*v));
}

/// The result shape of `c` on `input` (the shape rule of the neuron ops:
/// all_gather multiplies `axis` by the group size, reduce_scatter and
/// all_slice divide it, all_to_all divides `split_axis` and multiplies
/// `concat_axis`).
static absl::StatusOr<std::vector<int64_t>>
collectiveShape(ObjectReader &r, const Program &program, const Collective &c) {
  std::vector<int64_t> shape = program.tensors[c.input].shape;
  int64_t g = c.groupSize;
  auto divide = [&](std::string_view key, int64_t a) -> absl::Status {
    if (shape[a] % g == 0) {
      shape[a] /= g;
      return absl::OkStatus();
    }
    return r.error(key,
                   absl::StrFormat("a dimension that splits evenly over the "
                                   "%d ranks of a group",
                                   g),
                   absl::StrFormat("dimension %d of %s", a,
                                   describeTensorId(program, c.input)));
  };
  switch (c.op) {
  case CollectiveOp::AllReduce:
    break;
  case CollectiveOp::AllGather:
    shape[c.axis] *= g;
    break;
  case CollectiveOp::ReduceScatter:
  case CollectiveOp::AllSlice:
    NEURON_RETURN_IF_ERROR(divide("axis", c.axis));
    break;
  case CollectiveOp::AllToAll:
    NEURON_RETURN_IF_ERROR(divide("split_axis", c.splitAxis));
    shape[c.concatAxis] *= g;
    break;
  }
  return shape;
}

/// The per-kind fields of a collective_start and the shape rule.
static absl::Status readCollectiveKindFields(ObjectReader &r,
                                             const Program &program,
                                             Collective &c) {
  bool reduces =
      c.op == CollectiveOp::AllReduce || c.op == CollectiveOp::ReduceScatter;
  bool hasAxis = c.op == CollectiveOp::AllGather ||
                 c.op == CollectiveOp::ReduceScatter ||
                 c.op == CollectiveOp::AllSlice;
  bool splits = c.op == CollectiveOp::AllToAll;
  NEURON_RETURN_IF_ERROR(expectKindField(r, "reduction", reduces, c.op));
  NEURON_RETURN_IF_ERROR(expectKindField(r, "axis", hasAxis, c.op));
  NEURON_RETURN_IF_ERROR(expectKindField(r, "split_axis", splits, c.op));
  NEURON_RETURN_IF_ERROR(expectKindField(r, "concat_axis", splits, c.op));
  if (reduces)
    NEURON_RETURN_IF_ERROR(
        readKeyword(r, "reduction", kReductions, c.reduction));
  int64_t rank = int64_t(program.tensors[c.input].shape.size());
  if (rank == 0 && c.op != CollectiveOp::AllReduce)
    return r.error("input",
                   absl::StrFormat("a tensor of rank 1 or more (%s splits or "
                                   "joins a dimension)",
                                   collectiveOpName(c.op)),
                   describeTensorId(program, c.input));
  std::string dim = absl::StrFormat("a dimension in [0, %d] of the input",
                                    std::max<int64_t>(rank - 1, 0));
  if (hasAxis)
    NEURON_RETURN_IF_ERROR(r.integer("axis", dim, 0, rank - 1, c.axis));
  if (splits) {
    NEURON_RETURN_IF_ERROR(
        r.integer("split_axis", dim, 0, rank - 1, c.splitAxis));
    NEURON_RETURN_IF_ERROR(
        r.integer("concat_axis", dim, 0, rank - 1, c.concatAxis));
  }
  NEURON_ASSIGN_OR_RETURN(shape, collectiveShape(r, program, c));
  const TensorDesc &in = program.tensors[c.input];
  const TensorDesc &out = program.tensors[c.output];
  if (out.dtype != in.dtype || out.shape != shape)
    return r.error(
        "output",
        absl::StrFormat("a %s%s tensor (%s of %s over a group of %d ranks)",
                        dtypeName(in.dtype), formatShape(shape),
                        collectiveOpName(c.op), formatShape(in.shape),
                        c.groupSize),
        describeTensorId(program, c.output));
  return absl::OkStatus();
}

static absl::Status readCollectiveStart(ObjectReader &r, const Program &program,
                                        Step &step) {
  step.kind = StepKind::CollectiveStart;
  Collective &c = step.collective;
  NEURON_RETURN_IF_ERROR(r.integer(
      "collective_start", "a collective id in [0, 2^31)", 0, INT32_MAX, c.id));
  if (!program.isSpmd())
    return r.error("collective_start",
                   "no collective (the program has no top-level spmd grid)",
                   absl::StrFormat("collective %d", c.id));
  NEURON_RETURN_IF_ERROR(readKeyword(r, "kind", kCollectiveOps, c.op));
  int64_t count = int64_t(program.tensors.size());
  if (count == 0)
    return r.error("input", "a tensor id (there are no tensors)",
                   "a collective");
  std::string ids = absl::StrFormat("a tensor id in [0, %d]", count - 1);
  NEURON_RETURN_IF_ERROR(r.integer("input", ids, 0, count - 1, c.input));
  NEURON_RETURN_IF_ERROR(r.integer("output", ids, 0, count - 1, c.output));
  if (c.output == c.input)
    return r.error("output", "a tensor other than the input",
                   absl::StrFormat("tensor %d", c.output));
  NEURON_ASSIGN_OR_RETURN(grid, readIntArray(r, "grid", 1, kMaxRanks));
  if (grid != program.grid)
    return r.error("grid",
                   absl::StrFormat("the program's grid %s (spmd.grid)",
                                   formatShape(program.grid)),
                   formatShape(grid));
  c.grid = std::move(grid);
  NEURON_ASSIGN_OR_RETURN(
      axes, readIntArray(r, "axes", 0, int64_t(c.grid.size()) - 1));
  std::vector<bool> seen(c.grid.size(), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    if (seen[axes[i]])
      return r.itemError("axes", i, "a grid axis not listed before",
                         absl::StrFormat("axis %d again", axes[i]));
    seen[axes[i]] = true;
    c.groupSize *= c.grid[axes[i]];
  }
  c.axes = std::move(axes);
  NEURON_RETURN_IF_ERROR(readCollectiveKindFields(r, program, c));
  NEURON_ASSIGN_OR_RETURN(algorithm,
                          r.field("algorithm", "", /*required=*/false));
  if (algorithm) {
    CollectiveAlgorithm a;
    NEURON_RETURN_IF_ERROR(readKeyword(r, "algorithm", kAlgorithms, a));
    if (!algorithmFits(c.op, a))
      return r.error(
          "algorithm",
          c.op == CollectiveOp::AllSlice
              ? "local (all_slice moves no data between cores)"
              : absl::StrFormat("one of ring halving-doubling mesh "
                                "hierarchical (%s moves data between "
                                "cores; local is all_slice's alone)",
                                collectiveOpName(c.op)),
          describeJson(*algorithm));
    c.algorithm = a;
  }
  NEURON_ASSIGN_OR_RETURN(chunks, r.field("chunks", "", /*required=*/false));
  if (chunks) {
    int64_t n = 0;
    NEURON_RETURN_IF_ERROR(
        r.integer("chunks", "a chunk count in [1, 1024]", 1, 1024, n));
    c.chunks = n;
  }
  NEURON_RETURN_IF_ERROR(readTime(r, "predicted_ns", c.predictedNs));
  return r.finish();
}

/// Pairs every collective_start with the one collective_done after it of
/// the same id.
static absl::Status pairCollectives(std::vector<ObjectReader> &readers,
                                    Program &program) {
  std::map<int64_t, int64_t> startOf, doneOf, inFlight;
  for (size_t i = 0; i < program.steps.size(); ++i) {
    const Step &step = program.steps[i];
    if (step.kind != StepKind::CollectiveStart)
      continue;
    auto [it, added] = startOf.emplace(step.collective.id, int64_t(i));
    if (!added)
      return readers[i].error(
          "collective_start",
          absl::StrFormat("an id no other collective_start uses (program[%d] "
                          "starts %d)",
                          it->second, step.collective.id),
          absl::StrFormat("%d", step.collective.id));
  }
  for (size_t i = 0; i < program.steps.size(); ++i) {
    Step &step = program.steps[i];
    int64_t id = step.collective.id;
    if (step.kind == StepKind::CollectiveStart) {
      inFlight[id] = int64_t(i);
      continue;
    }
    if (step.kind != StepKind::CollectiveDone)
      continue;
    auto open = inFlight.find(id);
    if (open == inFlight.end()) {
      auto start = startOf.find(id);
      std::string expected =
          start == startOf.end() ? std::string("the id of a collective_start")
          : start->second > int64_t(i)
              ? absl::StrFormat("a done after its start (program[%d] starts "
                                "%d)",
                                start->second, id)
              : absl::StrFormat("one done per start (program[%d] already "
                                "finished %d)",
                                doneOf[id], id);
      return readers[i].error("collective_done", expected,
                              absl::StrFormat("%d", id));
    }
    Step &start = program.steps[open->second];
    start.partner = int64_t(i);
    step.partner = open->second;
    step.collective = start.collective;
    doneOf[id] = int64_t(i);
    inFlight.erase(open);
  }
  if (!inFlight.empty()) {
    int64_t first = int64_t(program.steps.size());
    for (auto [id, at] : inFlight)
      first = std::min(first, at);
    return readers[first].error(
        "collective_start",
        absl::StrFormat("a collective_done %d later in the program",
                        program.steps[first].collective.id),
        "none");
  }
  // A launch awaits collectives in flight at it.
  for (size_t i = 0; i < program.steps.size(); ++i) {
    Step &step = program.steps[i];
    for (int64_t &id : step.awaits) {
      auto start = startOf.find(id);
      if (start == startOf.end() || start->second > int64_t(i) ||
          doneOf[id] < int64_t(i))
        return readers[i].error(
            "awaits",
            "ids of collectives in flight at this step (started before it, "
            "done after it)",
            start == startOf.end()
                ? absl::StrFormat("%d, no collective's id", id)
                : absl::StrFormat("%d, in flight from program[%d] to "
                                  "program[%d]",
                                  id, start->second, doneOf[id]));
      id = start->second;
    }
  }
  return absl::OkStatus();
}

/// The tensors `step` reads and writes (kernel parameters by the HBM
/// references of their instructions).
static void stepAccesses(const Program &program, const Step &step,
                         std::set<int64_t> &reads, std::set<int64_t> &writes) {
  switch (step.kind) {
  case StepKind::Kernel:
    for (const Instruction &inst : program.kernels[step.kernel].instructions) {
      if (inst.dst.space == MemorySpace::Hbm)
        writes.insert(step.bindings[inst.dst.param]);
      for (const TileRef *ref : {&inst.src, &inst.table})
        if (ref->space == MemorySpace::Hbm)
          reads.insert(step.bindings[ref->param]);
    }
    return;
  case StepKind::HostCall:
    reads.insert(step.inputs.begin(), step.inputs.end());
    writes.insert(step.outputs.begin(), step.outputs.end());
    return;
  case StepKind::CollectiveStart:
    reads.insert(step.collective.input);
    return;
  case StepKind::CollectiveDone:
    writes.insert(step.collective.output);
    return;
  }
}

/// The tensor whose bytes tensor `id` names (itself unless a view) and the
/// elements of it [begin, end) it covers.
static std::tuple<int64_t, int64_t, int64_t> rootRange(const Program &program,
                                                       int64_t id) {
  const TensorDesc &t = program.tensors[id];
  int64_t root = t.viewOf >= 0 ? t.viewOf : id;
  int64_t begin = t.viewOf >= 0 ? t.viewOffset : 0;
  return {root, begin, begin + t.elements};
}

bool tensorsOverlap(const Program &program, int64_t a, int64_t b) {
  auto [ra, ba, ea] = rootRange(program, a);
  auto [rb, bb, eb] = rootRange(program, b);
  return ra == rb && ba < eb && bb < ea;
}

bool readsTensor(const Program &program, const Step &step,
                 const Instruction &inst, int64_t tensor) {
  auto [root, begin, end] = rootRange(program, tensor);
  std::optional<TileRef> reach;
  for (const TileRef *operand : {&inst.src, &inst.table}) {
    if (operand->space != MemorySpace::Hbm)
      continue;
    // The elements the operand touches over every iteration and start.
    const TileRef &ref = extentOf(inst, *operand, reach);
    auto [bound, offset, unused] = rootRange(program, step.bindings[ref.param]);
    if (bound == root && offset + ref.minElement < end &&
        begin <= offset + ref.maxElement)
      return true;
  }
  return false;
}

static bool awaits(const Step &step, int64_t start) {
  return std::find(step.awaits.begin(), step.awaits.end(), start) !=
         step.awaits.end();
}

/// No step while a collective is in flight writes its input or touches its
/// output: the collective reads the one and writes the other meanwhile. A
/// launch that awaits it may read its output (waiting inside), and does.
static absl::Status checkInFlight(std::vector<ObjectReader> &readers,
                                  const Program &program) {
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step &start = program.steps[s];
    if (start.kind != StepKind::CollectiveStart)
      continue;
    const Collective &c = start.collective;
    for (int64_t k = int64_t(s) + 1; k < start.partner; ++k) {
      std::set<int64_t> reads, writes;
      stepAccesses(program, program.steps[k], reads, writes);
      std::optional<std::pair<int64_t, const char *>> clash;
      for (int64_t t : writes)
        if (tensorsOverlap(program, t, c.input) ||
            tensorsOverlap(program, t, c.output))
          clash = {t, "writes"};
      bool awaited = awaits(program.steps[k], int64_t(s)), read = false;
      for (int64_t t : reads)
        if (tensorsOverlap(program, t, c.output)) {
          read = true;
          if (!clash && !awaited)
            clash = {t, "reads"};
        }
      if (awaited && !read && !clash)
        return readers[k].error(
            "awaits", "collectives whose outputs the kernel reads",
            absl::StrFormat("collective %d, whose output (tensor %d) it does "
                            "not read",
                            c.id, c.output));
      if (!clash)
        continue;
      return jsonError(
          kFile, absl::StrFormat("program[%d]", k),
          absl::StrFormat("a step that leaves tensors %d and %d alone while "
                          "collective %d is in flight (program[%d] to "
                          "program[%d])",
                          c.input, c.output, c.id, s, start.partner),
          absl::StrFormat("a step that %s tensor %d", clash->second,
                          clash->first));
    }
  }
  return absl::OkStatus();
}

/// No step writes a constant or a view of one: the runtime reads constants
/// in place from the executable, which it maps read-only.
static absl::Status checkConstantsReadOnly(const Program &program) {
  for (size_t s = 0; s < program.steps.size(); ++s) {
    std::set<int64_t> reads, writes;
    stepAccesses(program, program.steps[s], reads, writes);
    for (int64_t t : writes) {
      const TensorDesc &desc = program.tensors[t];
      int64_t root = desc.viewOf >= 0 ? desc.viewOf : t;
      if (program.tensors[root].kind != TensorKind::Constant)
        continue;
      return jsonError(
          kFile, absl::StrFormat("program[%d]", s),
          "a step that writes no constant (constants are read-only)",
          absl::StrFormat("a step that writes tensor %d%s", t,
                          root == t ? ", a constant"
                                    : absl::StrFormat(", a view of constant "
                                                      "tensor %d",
                                                      root)));
    }
  }
  return absl::OkStatus();
}

static absl::Status readStep(ObjectReader &r, Program &program,
                             const std::map<std::string, int64_t> &kernels,
                             Step &step) {
  int64_t count = int64_t(program.tensors.size());
  auto ids = [&](std::string_view key) {
    return readIntArray(r, key, 0, count - 1, /*anyLength=*/true);
  };
  NEURON_ASSIGN_OR_RETURN(host, r.field("host_call", "", /*required=*/false));
  NEURON_ASSIGN_OR_RETURN(start,
                          r.field("collective_start", "", /*required=*/false));
  NEURON_ASSIGN_OR_RETURN(done,
                          r.field("collective_done", "", /*required=*/false));
  if (int(bool(host)) + int(bool(start)) + int(bool(done)) > 1)
    return r.error(host ? "host_call" : "collective_start",
                   "one of host_call, collective_start, collective_done",
                   "more than one");
  if (start)
    return readCollectiveStart(r, program, step);
  if (done) {
    step.kind = StepKind::CollectiveDone;
    NEURON_RETURN_IF_ERROR(r.integer("collective_done",
                                     "a collective id in [0, 2^31)", 0,
                                     INT32_MAX, step.collective.id));
    return r.finish();
  }
  if (host) {
    step.kind = StepKind::HostCall;
    NEURON_RETURN_IF_ERROR(r.string("host_call", step.hostCall));
    NEURON_RETURN_IF_ERROR(r.string("reason", step.reason, /*required=*/false));
    NEURON_ASSIGN_OR_RETURN(inputs, ids("inputs"));
    NEURON_ASSIGN_OR_RETURN(outputs, ids("outputs"));
    step.inputs = std::move(inputs);
    step.outputs = std::move(outputs);
    NEURON_ASSIGN_OR_RETURN(ops, r.field("ops", "a string"));
    if (!ops->is_string())
      return r.error("ops", "a string", describeJson(*ops));
    step.ops = ops->get<std::string>();
    NEURON_RETURN_IF_ERROR(r.string("symbol", step.symbol));
    if (step.symbol.size() > 256 ||
        !std::all_of(step.symbol.begin(), step.symbol.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        }))
      return r.error("symbol",
                     "an entry point name of at most 256 letters, digits "
                     "and underscores",
                     foundString(step.symbol));
    return r.finish();
  }
  std::string name;
  NEURON_RETURN_IF_ERROR(r.string("kernel", name));
  auto it = kernels.find(name);
  if (it == kernels.end())
    return r.error("kernel", "the name of a kernel in kernels",
                   foundString(name));
  step.kernel = it->second;
  const Kernel &kernel = program.kernels[step.kernel];
  NEURON_ASSIGN_OR_RETURN(bindings, ids("bindings"));
  if (int64_t(bindings.size()) != kernel.parameters)
    return r.error("bindings",
                   absl::StrFormat("%d tensor ids (kernel \"%s\" has %d "
                                   "parameters)",
                                   kernel.parameters, name, kernel.parameters),
                   absl::StrFormat("%d", bindings.size()));
  step.bindings = std::move(bindings);
  NEURON_RETURN_IF_ERROR(checkBindings(r, program, kernel, step.bindings));
  // Collective ids here; their start steps once the collectives are paired.
  NEURON_ASSIGN_OR_RETURN(awaits, r.field("awaits", "", /*required=*/false));
  if (awaits) {
    NEURON_ASSIGN_OR_RETURN(ids, readIntArray(r, "awaits", 0, INT32_MAX,
                                              /*anyLength=*/true));
    std::set<int64_t> distinct(ids.begin(), ids.end());
    if (distinct.size() != ids.size())
      return r.error("awaits", "distinct collective ids",
                     absl::StrFormat("[%s]", absl::StrJoin(ids, ", ")));
    step.awaits = std::move(ids);
  }
  return r.finish();
}

std::vector<int64_t> Kernel::nestOf(int64_t i) const {
  std::vector<int64_t> nest;
  for (int64_t l = instructions[i].loop; l >= 0; l = loops[l].parent)
    nest.push_back(l);
  std::reverse(nest.begin(), nest.end());
  return nest;
}

int64_t Kernel::instancesOf(int64_t i) const {
  int64_t n = 1;
  for (int64_t l = instructions[i].loop; l >= 0; l = loops[l].parent)
    n *= loops[l].trips;
  return n;
}

int64_t Kernel::dynamicInstructions() const {
  int64_t n = 0;
  for (size_t i = 0; i < instructions.size(); ++i)
    n += instancesOf(int64_t(i));
  return n;
}

int64_t offsetAt(const TileRef &ref, const int64_t *iv, const int64_t *trips) {
  int64_t offset = ref.offset;
  for (size_t l = 0; l < ref.ivStrides.size(); ++l)
    offset += iv[l] * ref.ivStrides[l];
  if (ref.slots.count > 1) {
    int64_t iteration = 0;
    for (int64_t l = 0; l < ref.slots.depth; ++l)
      iteration = iteration * trips[l] + iv[l];
    offset += (iteration % ref.slots.count) * ref.slots.bytes;
  }
  return offset;
}

/// `host_code`, which a program has exactly when it has host calls.
static absl::Status readHostCode(ObjectReader &root, Program &program) {
  bool calls = std::any_of(program.steps.begin(), program.steps.end(),
                           [](const Step &s) { return s.isHostCall(); });
  NEURON_ASSIGN_OR_RETURN(node, root.field("host_code", "", /*required=*/false));
  if (!node) {
    if (calls)
      return root.error("host_code",
                        "the host calls' code (a host_code object)", "none");
    return absl::OkStatus();
  }
  if (!calls)
    return root.error("host_code", "no host code (the program has no host "
                      "calls)", "a host_code entry");
  NEURON_ASSIGN_OR_RETURN(r, root.object("host_code", "a host code object"));
  HostCodeDesc desc;
  NEURON_RETURN_IF_ERROR(r.string("section", desc.section));
  NEURON_RETURN_IF_ERROR(r.string("triple", desc.triple));
  NEURON_RETURN_IF_ERROR(r.constant("format", "elf-shared-object"));
  NEURON_RETURN_IF_ERROR(r.finish());
  program.hostCode = std::move(desc);
  return absl::OkStatus();
}

absl::StatusOr<Program> parseProgram(const json &manifest) {
  if (!manifest.is_object())
    return jsonError(kFile, "(root)", "an object", describeJson(manifest));
  ObjectReader root(kFile, "", manifest);
  NEURON_ASSIGN_OR_RETURN(schema, root.field("schema", "", /*required=*/false));
  if (schema && *schema != kExecutableSchema)
    return root.error(
        "schema",
        absl::StrFormat("\"%s\" (this runtime's format: on-chip access "
                        "patterns; recompile an older executable with this "
                        "neuron-compile)",
                        kExecutableSchema),
        describeJson(*schema));
  Program program;
  NEURON_ASSIGN_OR_RETURN(tensors,
                          readObjects(root, "tensors", "tensor objects"));
  for (size_t i = 0; i < tensors.size(); ++i) {
    TensorDesc tensor;
    NEURON_RETURN_IF_ERROR(
        readTensor(tensors[i], int64_t(i), program.tensors, tensor));
    program.tensors.push_back(std::move(tensor));
  }
  NEURON_RETURN_IF_ERROR(readSpmd(root, program));
  NEURON_RETURN_IF_ERROR(readIo(root, "inputs", program, program.inputs));
  NEURON_RETURN_IF_ERROR(readIo(root, "outputs", program, program.outputs));

  NEURON_ASSIGN_OR_RETURN(kernels,
                          readObjects(root, "kernels", "kernel objects"));
  std::map<std::string, int64_t> kernelIndex;
  for (ObjectReader &r : kernels) {
    Kernel kernel;
    NEURON_RETURN_IF_ERROR(readKernel(r, kernel));
    if (!kernelIndex.emplace(kernel.name, program.kernels.size()).second)
      return r.error("name", "a kernel name not used before",
                     foundString(kernel.name));
    program.kernels.push_back(std::move(kernel));
  }

  NEURON_ASSIGN_OR_RETURN(steps, readObjects(root, "program", "step objects"));
  for (ObjectReader &r : steps) {
    Step step;
    NEURON_RETURN_IF_ERROR(readStep(r, program, kernelIndex, step));
    program.steps.push_back(std::move(step));
  }
  NEURON_RETURN_IF_ERROR(readHostCode(root, program));
  NEURON_RETURN_IF_ERROR(pairCollectives(steps, program));
  NEURON_RETURN_IF_ERROR(checkInFlight(steps, program));
  NEURON_RETURN_IF_ERROR(checkConstantsReadOnly(program));
  return program;
}

absl::Status refuseHostCode(const Program &program, std::string_view origin,
                            std::string_view option) {
  std::vector<std::string> calls;
  for (const Step &step : program.steps)
    if (step.isHostCall())
      calls.push_back(step.hostCall);
  if (calls.empty())
    return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrFormat(
      "%s%scarries host code: %d host call%s (%s) would run on this machine; "
      "refused (%s)",
      origin, origin.empty() ? "" : ": ", calls.size(),
      calls.size() == 1 ? "" : "s", absl::StrJoin(calls, ", "), option));
}

} // namespace neuron::rt
