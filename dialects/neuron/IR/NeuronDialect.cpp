//===- NeuronDialect.cpp - neuron dialect registration --------------------===//
//
// Registers the dialect's operations and attributes and verifies
// #neuron.target.
//
//===----------------------------------------------------------------------===//

#include "dialects/neuron/IR/NeuronDialect.h"
#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::neuron;

#include "dialects/neuron/IR/NeuronDialect.cpp.inc"
#include "dialects/neuron/IR/NeuronEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/neuron/IR/NeuronAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/neuron/IR/NeuronTypes.cpp.inc"

void NeuronDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/neuron/IR/NeuronOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/neuron/IR/NeuronAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/neuron/IR/NeuronTypes.cpp.inc"
      >();
}

Operation *NeuronDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

std::string TargetAttr::getSpec() const {
  StringAttr name = getInstance() ? getInstance() : getChip();
  return (name.getValue() + ",lnc=" + Twine(getLnc())).str();
}

LogicalResult NeuronDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kCustomKernelAttrName) {
    if (isa<FlatSymbolRefAttr>(attr.getValue()))
      return success();
    return op->emitError() << "expected 'neuron.custom_kernel' to name a "
                              "kernel (@name), found "
                           << attr.getValue();
  }
  if (attr.getName() != kTargetAttrName)
    return success();
  if (!isa<TargetAttr>(attr.getValue()))
    return op->emitError() << "expected '" << kTargetAttrName
                           << "' to be a #neuron.target, found "
                           << attr.getValue();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kTargetAttrName
                           << "' belongs on a builtin.module";
  return success();
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   StringAttr chip, StringAttr instance, int64_t lnc) {
  if (!chip || chip.getValue().empty())
    return emitError() << "expected a non-empty chip name";
  if (instance && instance.getValue().empty())
    return emitError() << "expected a non-empty instance name when given";
  if (lnc != 1 && lnc != 2)
    return emitError() << "expected lnc to be 1 or 2 (physical NeuronCores "
                          "per logical NeuronCore), found "
                       << lnc;
  return success();
}
