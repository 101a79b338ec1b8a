//===- NisaDialect.cpp - nisa dialect registration ------------------------===//

#include "dialects/nisa/IR/NisaDialect.h"
#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::nisa;

#include "dialects/nisa/IR/NisaDialect.cpp.inc"
#include "dialects/nisa/IR/NisaEnums.cpp.inc"
#include "dialects/nisa/IR/NisaInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/nisa/IR/NisaAttrs.cpp.inc"

void NisaDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/nisa/IR/NisaOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/nisa/IR/NisaAttrs.cpp.inc"
      >();
}

std::optional<MemorySpace> mlir::nisa::getMemorySpace(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return std::nullopt;
  auto space = dyn_cast_if_present<MemorySpaceAttr>(memref.getMemorySpace());
  if (!space)
    return std::nullopt;
  return space.getValue();
}

LimitsAttr mlir::nisa::getLimits(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto limits = parent->getAttrOfType<LimitsAttr>("nisa.limits"))
      return limits;
  return {};
}

LogicalResult SlotsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t count, int64_t bytes) {
  if (count < 1)
    return emitError() << "expected at least one slot, found " << count;
  if (bytes < 0)
    return emitError() << "expected a non-negative slot distance, found "
                       << bytes;
  return success();
}

Attribute WaitAttr::parse(AsmParser &parser, Type) {
  std::string unit;
  int64_t count = 0;
  SmallVector<int64_t> lists[2];
  const StringRef names[2] = {"per_iteration", "fewer_first"};
  if (parser.parseLess() || parser.parseKeyword("unit") ||
      parser.parseEqual() || parser.parseString(&unit) ||
      parser.parseComma() || parser.parseKeyword("count") ||
      parser.parseEqual() || parser.parseInteger(count))
    return {};
  // Each optional list at most once, in this order.
  for (int next = 0; succeeded(parser.parseOptionalComma());) {
    StringRef name;
    if (parser.parseKeyword(&name))
      return {};
    int which = next;
    while (which < 2 && name != names[which])
      ++which;
    if (which == 2) {
      parser.emitError(parser.getCurrentLocation())
          << "expected "
          << (next == 0 ? "'per_iteration' or 'fewer_first'" : "'fewer_first'")
          << ", found '" << name << "'";
      return {};
    }
    next = which + 1;
    if (parser.parseEqual() ||
        parser.parseCommaSeparatedList(
            AsmParser::Delimiter::Square, [&]() -> ParseResult {
              return parser.parseInteger(lists[which].emplace_back());
            }))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<WaitAttr>(parser.getContext(), unit, count,
                                     lists[0], lists[1]);
}

void WaitAttr::print(AsmPrinter &printer) const {
  printer << "<unit = \"" << getUnit() << "\", count = " << getCount();
  if (!getPerIteration().empty())
    printer << ", per_iteration = [" << getPerIteration() << "]";
  if (!getFewerFirst().empty())
    printer << ", fewer_first = [" << getFewerFirst() << "]";
  printer << ">";
}

LogicalResult WaitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               StringRef unit, int64_t count,
                               ArrayRef<int64_t> perIteration,
                               ArrayRef<int64_t> fewerFirst) {
  if (fewerFirst.empty())
    return success();
  if (fewerFirst.size() != 3 || fewerFirst[0] < 0 || fewerFirst[1] < 1 ||
      fewerFirst[2] < 1)
    return emitError() << "expected fewer_first to be [loop, iterations, "
                          "fewer]: a loop index of 0 or more, at least one "
                          "iteration and one signal";
  return success();
}

/// Where a discardable nisa attribute may sit and what it holds.
/// "tensor", "vector", "scalar", "gpsimd" or "dma" and a queue number,
/// then "@" and a physical core above 0 for another core's unit.
static bool isUnitName(StringRef name) {
  auto [local, core] = name.split('@');
  unsigned index;
  if (name.contains('@') &&
      (core.getAsInteger(10, index) || index == 0 || core.starts_with("0")))
    return false;
  name = local;
  if (name == "tensor" || name == "vector" || name == "scalar" ||
      name == "gpsimd")
    return true;
  unsigned queue;
  return name.consume_front("dma") && !name.empty() &&
         !name.getAsInteger(10, queue);
}

LogicalResult NisaDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitError() << "expected '" << name << "' to be " << what
                           << ", found " << value;
  };
  bool instruction = isa<EngineOpInterface>(op);
  bool alloc = isa<memref::AllocOp>(op);
  auto nonNegative = [&] {
    auto i = dyn_cast<IntegerAttr>(value);
    return i && i.getType().isInteger(64) && i.getInt() >= 0;
  };
  if (name == kAddress)
    return expect(alloc && nonNegative(),
                  "a non-negative i64 byte offset on a memref.alloc");
  if (name == kSlots)
    return expect(alloc && isa<SlotsAttr>(value),
                  "a #nisa.slots on a memref.alloc");
  if (name == kSignal)
    return expect(instruction && isa<UnitAttr>(value),
                  "a unit attribute on an instruction");
  if (name == kWait) {
    auto list = dyn_cast<ArrayAttr>(value);
    return expect(instruction && list &&
                      llvm::all_of(list, llvm::IsaPred<WaitAttr>),
                  "an array of #nisa.wait on an instruction");
  }
  if (name == kTimeNs) {
    auto times = dyn_cast<DenseF64ArrayAttr>(value);
    return expect(instruction && times && times.size() == 2 &&
                      times[0] >= 0 && times[1] >= times[0],
                  "[start, end] predicted times on an instruction");
  }
  if (name == kLimits)
    return expect(isa<LimitsAttr>(value), "a #nisa.limits");
  if (name == kCore)
    return expect((instruction || alloc || isa<affine::AffineForOp>(op)) &&
                      nonNegative(),
                  "a non-negative i64 physical core on an instruction, an "
                  "affine.for or a memref.alloc");
  if (name == kSplit)
    return expect(isa<affine::AffineForOp>(op) && nonNegative(),
                  "a non-negative i64 group on an affine.for");
  if (name == kCores) {
    auto cores = dyn_cast<IntegerAttr>(value);
    return expect(isa<func::FuncOp>(op) && cores &&
                      cores.getType().isInteger(64) && cores.getInt() >= 1,
                  "a positive i64 count of physical cores on a kernel");
  }
  if (name == kPipeline)
    return expect(isa<affine::AffineForOp>(op) && isa<PipelineAttr>(value),
                  "a #nisa.pipeline on an affine.for");
  if (name == kTransferBound)
    return expect(isa<affine::AffineForOp>(op) && isa<UnitAttr>(value),
                  "a unit attribute on an affine.for");
  if (name == "nisa.num_inputs" || name == "nisa.peak_sbuf_bytes" ||
      name == "nisa.peak_psum_bytes")
    return expect(nonNegative(), "a non-negative i64");
  if (name == kSchedule)
    return expect(isa<func::FuncOp>(op) && isa<ScheduleAttr>(value),
                  "a #nisa.schedule on a kernel");
  if (name == kSemaphores) {
    // Each unit's final count: {tensor = 3 : i64, dma0 = 12 : i64, ...}.
    auto counts = dyn_cast<DictionaryAttr>(value);
    return expect(isa<func::FuncOp>(op) && counts &&
                      llvm::all_of(counts,
                                   [](NamedAttribute count) {
                                     auto n =
                                         dyn_cast<IntegerAttr>(count.getValue());
                                     return isUnitName(count.getName()) && n &&
                                            n.getInt() > 0;
                                   }),
                  "a dictionary of positive counts by unit (tensor, vector, "
                  "scalar, gpsimd, dmaN, each @C on physical core C > 0) on "
                  "a kernel");
  }
  if (name == kTiling) {
    // Why a tile has its shape: {op = "neuron.matmul", partition =
    // "contraction", tile = array<i64: ...>, buffers = "sbuf,psum"}.
    auto tiling = dyn_cast<DictionaryAttr>(value);
    return expect(alloc && tiling && tiling.getAs<StringAttr>("op") &&
                      tiling.getAs<StringAttr>("partition") &&
                      tiling.getAs<DenseI64ArrayAttr>("tile"),
                  "a dictionary with op, partition and tile on a "
                  "memref.alloc");
  }
  if (name == kImplements) {
    // A user kernel's binding: an op name ("neuron.rms_norm") or a function
    // (@attention) whose calls it replaces.
    auto opName = dyn_cast<StringAttr>(value);
    return expect(isa<func::FuncOp>(op) &&
                      (isa<FlatSymbolRefAttr>(value) ||
                       (opName && opName.getValue().contains('.'))),
                  "an op name (\"dialect.op\") or a function (@name) on a "
                  "kernel");
  }
  if (name == kCustom) {
    auto origin = dyn_cast<StringAttr>(value);
    return expect(isa<func::FuncOp>(op) && origin && !origin.empty(),
                  "the file a user kernel came from, on a kernel");
  }
  return op->emitError() << "unknown nisa attribute '" << name << "'";
}

LogicalResult
ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     FloatAttr predicted, FloatAttr bound,
                     FloatAttr criticalPath, FloatAttr serial,
                     ArrayAttr busy, int64_t dmaEngines,
                     DenseI64ArrayAttr path) {
  for (auto [name, time] : {std::pair<StringRef, FloatAttr>{"predicted_ns",
                                                            predicted},
                            {"bound_ns", bound},
                            {"critical_path_ns", criticalPath},
                            {"serial_ns", serial}})
    if (!time || !(time.getValueAsDouble() >= 0))
      return emitError() << "expected " << name
                         << " to be a non-negative time";
  if (!busy || busy.size() != 5 || llvm::any_of(busy, [](Attribute t) {
        auto time = dyn_cast<FloatAttr>(t);
        return !time || !(time.getValueAsDouble() >= 0);
      }))
    return emitError() << "expected busy_ns to hold 5 non-negative times "
                          "(tensor, vector, scalar, gpsimd, dma)";
  if (dmaEngines < 1)
    return emitError() << "expected dma_engines to be at least 1, found "
                       << dmaEngines;
  if (!path || llvm::any_of(path.asArrayRef(), [](int64_t i) { return i < 0; }))
    return emitError() << "expected critical_path to hold instruction "
                          "indices";
  return success();
}

LogicalResult
LimitsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   int64_t partitions, int64_t sbufBytes, int64_t psumBytes,
                   int64_t psumBankBytes, int64_t stationaryFree,
                   int64_t movingFree, int64_t fp8Rows) {
  for (auto [name, value] :
       {std::pair<StringRef, int64_t>{"partitions", partitions},
        {"sbuf_bytes", sbufBytes},
        {"psum_bytes", psumBytes},
        {"psum_bank_bytes", psumBankBytes},
        {"stationary_free", stationaryFree},
        {"moving_free", movingFree},
        {"fp8_rows", fp8Rows}})
    if (value <= 0)
      return emitError() << "expected a positive " << name << ", found "
                         << value;
  if (psumBankBytes > psumBytes)
    return emitError() << "expected psum_bank_bytes (" << psumBankBytes
                       << ") to fit in psum_bytes (" << psumBytes << ")";
  return success();
}
