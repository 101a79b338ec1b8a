//===- NeuronMLIR.cpp - The compiler's C API ------------------------------===//

#include "lowering/CAPI/NeuronMLIR.h"
#include "lowering/Pipelines/Pipelines.h"

#include "dialects/neuron/IR/NeuronDialect.h"
#include "dialects/nisa/IR/NisaDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Neuron, neuron,
                                      mlir::neuron::NeuronDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Nisa, nisa, mlir::nisa::NisaDialect)

void neuronMlirRegisterAllDialects(MlirDialectRegistry registry) {
  DialectRegistry &r = *unwrap(registry);
  registerAllDialects(r);
  registerAllExtensions(r);
  neuron::registerNeuronDialects(r);
}

void neuronMlirRegisterPasses(void) {
  static std::once_flag once;
  std::call_once(once, [] { neuron::registerNeuronPassesAndPipelines(); });
}

MlirLogicalResult neuronMlirCompile(MlirModule module, MlirStringRef options) {
  if (mlirModuleIsNull(module))
    return mlirLogicalResultFailure();
  neuronMlirRegisterPasses();
  ModuleOp op = unwrap(module);
  std::string text = "neuron-compile{" + unwrap(options).str() + "}";
  PassManager pm(op->getContext());
  std::string error;
  llvm::raw_string_ostream errors(error);
  if (failed(parsePassPipeline(text, pm, errors))) {
    // The parser's first line says what is wrong.
    emitError(op.getLoc()) << "neuronMlirCompile: bad options '"
                           << unwrap(options) << "': "
                           << StringRef(error).split('\n').first;
    return mlirLogicalResultFailure();
  }
  return wrap(pm.run(op));
}
