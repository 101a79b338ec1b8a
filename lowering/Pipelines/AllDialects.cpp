//===- AllDialects.cpp - every dialect a frontend graph may use -----------===//
//
// Kept apart: InitAllDialects.h and InitAllExtensions.h are heavy, and
// only this file needs them.
//
//===----------------------------------------------------------------------===//

#include "lowering/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

void mlir::neuron::registerAllNeuronDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerNeuronDialects(registry);
}
