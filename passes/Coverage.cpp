//===- Coverage.cpp - judging ops against a capability table --------------===//

#include "passes/Coverage.h"

#include "dialects/neuron/IR/NeuronOps.h"
#include "runtime/target/Capabilities.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <array>

using namespace mlir;
using namespace mlir::neuron;
namespace rt = ::neuron::rt;

CoverageChecker::CoverageChecker(const rt::CapabilityRegistry &registry,
                                 const rt::CapabilityTable &table)
    : registry(registry), table(table) {}

StringRef CoverageChecker::generation() const { return table.generation; }

static bool hasTensors(Operation *op) {
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

bool CoverageChecker::isJudged(Operation *op) {
  // Inside a function, at any depth, but not inside an op that is judged as
  // a whole (a linalg body) or that already runs on the host.
  if (!op->getParentOfType<func::FuncOp>())
    return false;
  for (Operation *parent = op->getParentOp(); !isa<func::FuncOp>(parent);
       parent = parent->getParentOp())
    if (isa<HostCallOp, linalg::LinalgOp>(parent))
      return false;
  // Structure, not computation: terminators and branches, region control
  // flow (scf.for/if, judged by what they hold), constants, tensor.empty.
  if (op->hasTrait<OpTrait::IsTerminator>() || op->getNumSuccessors() ||
      isa<RegionBranchOpInterface, tensor::EmptyOp>(op) ||
      op->hasTrait<OpTrait::ConstantLike>())
    return false;
  return isa<NeuronDialect>(op->getDialect()) || hasTensors(op);
}

LogicalResult mlir::neuron::checkFallbackPolicy(Operation *op, StringRef pass,
                                              StringRef policy) {
  if (policy == "error" || policy == "decompose" || policy == "host")
    return success();
  return op->emitError() << pass << ": unknown fallback policy '" << policy
                         << "'; expected error, decompose or host";
}

std::string mlir::neuron::describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "'" << op->getName() << "' (";
  llvm::interleaveComma(op->getOperandTypes(), os);
  os << ") -> ";
  if (op->getNumResults() == 1)
    os << op->getResult(0).getType();
  else {
    os << "(";
    llvm::interleaveComma(op->getResultTypes(), os);
    os << ")";
  }
  return text;
}

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The keyword of one of neuron's enum attributes, for `one_of` rules.
static std::optional<std::string> enumKeyword(Attribute attr) {
  return llvm::TypeSwitch<Attribute, std::optional<std::string>>(attr)
      .Case([](ConvLayoutAttr a) { return stringifyConvLayout(a.getValue()).str(); })
      .Case([](ImageLayoutAttr a) { return stringifyImageLayout(a.getValue()).str(); })
      .Case([](PoolKindAttr a) { return stringifyPoolKind(a.getValue()).str(); })
      .Case([](GeluApproximationAttr a) {
        return stringifyGeluApproximation(a.getValue()).str();
      })
      .Case([](ComparePredicateAttr a) {
        return stringifyComparePredicate(a.getValue()).str();
      })
      .Default([](Attribute) { return std::nullopt; });
}

/// The integers an attribute holds, for `max` rules.
static SmallVector<int64_t> integersOf(Attribute attr) {
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return {i.getInt()};
  if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
    return SmallVector<int64_t>(array.asArrayRef());
  return {};
}

/// Whether operand `index` of `op` holds indices rather than data.
static bool isIndexOperand(Operation *op, unsigned index) {
  OpOperand *indices = getIndexOperand(op);
  return indices && indices->getOperandNumber() == index;
}

std::optional<CoverageIssue>
CoverageChecker::checkNeuronOp(Operation *op) const {
  StringRef name = op->getName().getStringRef();
  const rt::OpCapability *cap = table.find(name.str());
  auto issue = [&](StringRef rule, const Twine &why, StringRef extra = "") {
    return CoverageIssue{
        rule.str(),
        (describeOp(op) + " is not supported on " + generation() + ": " + why)
            .str(),
        hintFor(op, rule, extra)};
  };
  if (!cap)
    return issue("op", "the generation has no such op");

  SmallVector<std::pair<Type, bool>> tensors; // (type, is result)
  for (Type t : op->getOperandTypes())
    tensors.emplace_back(t, false);
  for (Type t : op->getResultTypes())
    tensors.emplace_back(t, true);
  for (auto [type, isResult] : tensors) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped)
      continue;
    if (!cap->dynamicDims && !shaped.hasStaticShape())
      return issue("dynamic-shape",
                   "dynamic dimensions in " + typeName(shaped),
                   "specialise the shapes (the target compiles static shapes "
                   "only)");
    if (shaped.getRank() > cap->maxRank)
      return issue("rank",
                   "rank " + Twine(shaped.getRank()) + " exceeds " +
                       Twine(cap->maxRank),
                   ("reshape to rank " + Twine(cap->maxRank) + " or less")
                       .str());
  }
  // A transpose only contractions read moves nothing (they load their
  // operand through it): it takes any element type they all take.
  auto transpose = dyn_cast<TransposeOp>(op);
  bool view = transpose && transpose.isOperandView();
  auto viewedByContractions = [&](const std::string &element) {
    return view && llvm::all_of(std::array<StringRef, 2>{"neuron.matmul",
                                                        "neuron.batch_matmul"},
                                [&](StringRef contraction) {
                                  const rt::OpCapability *c =
                                      table.find(contraction.str());
                                  return c && c->allowsDtype(element);
                                });
  };
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes())) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped)
      continue;
    std::string element = typeName(shaped.getElementType());
    bool index = isIndexOperand(op, i);
    bool ok = index ? cap->allowsIndexDtype(element) : cap->allowsDtype(element);
    ok = ok || (!index && viewedByContractions(element));
    if (!ok) {
      const auto &allowed = index ? cap->indexDtypes : cap->dtypes;
      return issue("dtype",
                   Twine(index ? "index" : "operand") + " element type " +
                       element + " is not one of " +
                       llvm::join(allowed, ", "),
                   allowed.empty() ? ""
                                   : "cast to " + allowed.front() +
                                         " where the values allow it");
    }
  }
  for (Type type : op->getResultTypes()) {
    auto shaped = dyn_cast<RankedTensorType>(type);
    if (!shaped)
      continue;
    std::string element = typeName(shaped.getElementType());
    if (!cap->allowsResultDtype(element) && !viewedByContractions(element)) {
      const auto &allowed =
          cap->resultDtypes.empty() ? cap->dtypes : cap->resultDtypes;
      return issue("dtype",
                   "result element type " + element + " is not one of " +
                       llvm::join(allowed, ", "));
    }
  }
  for (const rt::AttributeRule &rule : cap->attributes) {
    Attribute attr = op->getAttr(rule.name);
    if (!attr)
      continue;
    if (rule.max)
      for (int64_t v : integersOf(attr))
        if (v > *rule.max)
          return issue("attribute", rule.name + " " + Twine(v) +
                                        " exceeds the limit " +
                                        Twine(*rule.max));
    if (!rule.oneOf.empty())
      if (std::optional<std::string> keyword = enumKeyword(attr))
        if (!rule.allowsKeyword(*keyword))
          return issue("attribute", rule.name + " " + *keyword +
                                        " is not one of " +
                                        llvm::join(rule.oneOf, ", "));
  }
  // What the table allows but convert-neuron-to-nisa cannot tile yet
  // (lowering/NeuronToNisa: Matmul.cpp, Convolution.cpp): judged here so
  // that each fallback policy applies to it instead of the tiler failing.
  if (isa<MatmulOp, BatchMatmulOp, Conv2DOp, Pool2DOp>(op) &&
      !isa<FloatType>(getElementTypeOrSelf(op->getOperand(0).getType())))
    return issue("not-tiled",
                 "integer contractions and pooling are not tiled yet");
  if (auto pool = dyn_cast<Pool2DOp>(op); pool && !isEngineTiled(pool))
    return issue("not-tiled", "pooling with padding is not tiled yet (pad "
                              "the image with neuron.pad first)");
  if (auto conv = dyn_cast<Conv2DOp>(op); conv && !isEngineTiled(conv))
    return issue("not-tiled",
                 "only nchw_fchw convolutions without padding or bias are "
                 "tiled yet (pad the image with neuron.pad first, add the "
                 "bias after)");
  return std::nullopt;
}

std::optional<CoverageIssue> CoverageChecker::check(Operation *op) const {
  if (isa<HostCallOp>(op))
    return std::nullopt; // judged by what it holds: it runs on the host
  if (isa<CustomKernelOp>(op))
    return std::nullopt; // its kernel is verified against the target
  if (isa<NeuronDialect>(op->getDialect()))
    return checkNeuronOp(op);
  return CoverageIssue{
      "not-raised",
      (describeOp(op) + " is not supported on " + generation() +
       ": the import did not raise it to the neuron dialect")
          .str(),
      hintFor(op, "not-raised", "")};
}

std::string CoverageChecker::hintFor(Operation *op, StringRef rule,
                                     StringRef extra) const {
  SmallVector<std::string> hints;
  StringRef name = op->getName().getStringRef();
  if (isa<NeuronDialect>(op->getDialect())) {
    SmallVector<std::string> others;
    for (const std::string &g : registry.generationsWithOp(name.str()))
      if (g != table.generation)
        others.push_back(g);
    if (!others.empty() && !table.find(name.str()))
      hints.push_back("supported on " + llvm::join(others, ", "));
  }
  if (!extra.empty())
    hints.push_back(extra.str());
  if (hasDecomposition(op) &&
      isDecomposable(CoverageIssue{rule.str(), "", ""}))
    hints.push_back("fallback=decompose rewrites it into supported ops");
  hints.push_back("fallback=host runs it on the host");
  return llvm::join(hints, "; ");
}
