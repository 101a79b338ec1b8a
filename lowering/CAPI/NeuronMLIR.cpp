//===- NeuronMLIR.cpp - The compiler's C API ------------------------------===//

#include "lowering/CAPI/NeuronMLIR.h"
#include "lowering/Pipelines/Pipelines.h"

#include "dialects/neuron/IR/NeuronDialect.h"
#include "dialects/nisa/IR/NisaDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"

#include <mutex>

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Neuron, neuron,
                                      mlir::neuron::NeuronDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Nisa, nisa, mlir::nisa::NisaDialect)

void neuronMlirRegisterAllDialects(MlirDialectRegistry registry) {
  neuron::registerAllNeuronDialects(*unwrap(registry));
}

void neuronMlirRegisterPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { neuron::registerNeuronPassesAndPipelines(); });
}

MlirLogicalResult neuronMlirCompile(MlirModule module, MlirStringRef options) {
  if (mlirModuleIsNull(module))
    return mlirLogicalResultFailure();
  return wrap(neuron::runNeuronCompile(unwrap(module), unwrap(options)));
}
