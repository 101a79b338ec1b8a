//===- NeuronPlugin.cpp - neuron dialect and passes as mlir-opt plugins ---===//
//
// Lets a stock mlir-opt use neuron without our tools:
//   mlir-opt --load-dialect-plugin=libNeuronPlugin.so \
//            --load-pass-plugin=libNeuronPlugin.so \
//            -p 'builtin.module(func.func(convert-linalg-to-neuron))' in.mlir
//
//===----------------------------------------------------------------------===//

#include "lowering/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NeuronDialect", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            neuron::registerNeuronDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "NeuronPasses", LLVM_VERSION_STRING,
          []() { neuron::registerNeuronPassesAndPipelines(); }};
}
