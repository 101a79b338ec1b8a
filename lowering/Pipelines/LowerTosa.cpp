//===- LowerTosa.cpp - the neuron-lower-tosa pass -------------------------===//
//
// Runs upstream's TOSA lowering as a dynamic pipeline, only when the module
// holds TOSA ops: a linalg input stays byte for byte as it was.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_NEURONLOWERTOSA
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;

namespace {
struct NeuronLowerTosa
    : neuron::impl::NeuronLowerTosaBase<NeuronLowerTosa> {
  NeuronLowerTosa() {
    TosaToLinalgOptions options;
    tosa::addTosaToLinalgPasses(pipeline, options);
    pipeline.addPass(createTosaToTensorPass());
    pipeline.addPass(createTosaToArithPass());
    pipeline.addPass(createCanonicalizerPass());
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    pipeline.getDependentDialects(registry);
  }

  void runOnOperation() override {
    // Counted locally: statistics may be compiled out, so never decide on one.
    uint64_t found = 0;
    getOperation()->walk([&](Operation *op) {
      if (isa<tosa::TosaDialect>(op->getDialect()))
        ++found;
    });
    numTosaOps += found;
    if (found == 0)
      return;
    if (failed(runPipeline(pipeline, getOperation())))
      signalPassFailure();
  }

  OpPassManager pipeline{ModuleOp::getOperationName()};
};
} // namespace
