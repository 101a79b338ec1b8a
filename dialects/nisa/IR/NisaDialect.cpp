//===- NisaDialect.cpp - nisa dialect registration ------------------------===//

#include "dialects/nisa/IR/NisaDialect.h"
#include "dialects/nisa/IR/NisaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
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

LogicalResult
LimitsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   int64_t partitions, int64_t sbufBytes, int64_t psumBytes,
                   int64_t psumBankBytes, int64_t stationaryFree,
                   int64_t movingFree) {
  for (auto [name, value] :
       {std::pair<StringRef, int64_t>{"partitions", partitions},
        {"sbuf_bytes", sbufBytes},
        {"psum_bytes", psumBytes},
        {"psum_bank_bytes", psumBankBytes},
        {"stationary_free", stationaryFree},
        {"moving_free", movingFree}})
    if (value <= 0)
      return emitError() << "expected a positive " << name << ", found "
                         << value;
  if (psumBankBytes > psumBytes)
    return emitError() << "expected psum_bank_bytes (" << psumBankBytes
                       << ") to fit in psum_bytes (" << psumBytes << ")";
  return success();
}
