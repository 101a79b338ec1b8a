//===- main.cpp - A tool built against an installed neuron-mlir -----------===//
//
//   neuron-downstream GRAPH.mlir
//
// Registers the neuron and nisa dialects and passes (with the upstream
// dialects of a linalg graph), parses GRAPH, raises it
// with convert-linalg-to-neuron through a pass manager and prints the
// result, then loads the runtime's built-in targets and prints their chips,
// and asks the runtime's C API to load bytes that are no executable.
//
//===----------------------------------------------------------------------===//

#include "lowering/Pipelines/Pipelines.h"
#include "runtime/capi/NeuronRuntime.h"
#include "runtime/target/Target.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: neuron-downstream GRAPH.mlir\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  registry.insert<mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect>();
  mlir::neuron::registerNeuronDialects(registry);
  mlir::neuron::registerNeuronPassesAndPipelines();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline(
          "func.func(convert-linalg-to-neuron)", pm)) ||
      mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  llvm::outs() << "\n";

  absl::StatusOr<neuron::rt::TargetRegistry> targets =
      neuron::rt::TargetRegistry::loadBuiltin();
  if (!targets.ok()) {
    llvm::errs() << std::string(targets.status().message()) << "\n";
    return 1;
  }
  llvm::outs() << "chips:";
  for (const std::string &chip : targets->chipNames())
    llvm::outs() << " " << chip;
  llvm::outs() << "\n";

  NeuronExecutable *executable = nullptr;
  NeuronStatus status = neuronExecutableLoadBytes("no", 2, &executable);
  llvm::outs() << "C API: status " << int(status) << ": " << neuronLastError()
               << "\n";
  return 0;
}
