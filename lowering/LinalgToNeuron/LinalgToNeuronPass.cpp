//===- LinalgToNeuronPass.cpp - the convert-linalg-to-neuron pass ---------===//
//
// Raising is a rewrite to a fixed point (raising one op can make its
// neighbour's init a recognisable constant), so the patterns run under the
// greedy driver. Ops no pattern takes stay as they are, location and all,
// for the coverage check to report; the pass counts both outcomes.
//
//===----------------------------------------------------------------------===//

#include "lowering/LinalgToNeuron/LinalgToNeuron.h"
#include "lowering/Passes.h"

#include "dialects/neuron/IR/NeuronOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::neuron {
#define GEN_PASS_DEF_CONVERTLINALGTONEURON
#include "lowering/Passes.h.inc"
} // namespace mlir::neuron

using namespace mlir;
using namespace mlir::neuron;

void mlir::neuron::populateLinalgToNeuronPatterns(RewritePatternSet &patterns) {
  populateContractionPatterns(patterns);
  populateStructuredOpPatterns(patterns);
  populateTensorOpPatterns(patterns);
  populateTensorElementwisePatterns(patterns);
}

namespace {
struct ConvertLinalgToNeuron
    : neuron::impl::ConvertLinalgToNeuronBase<ConvertLinalgToNeuron> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    populateLinalgToNeuronPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    GreedyRewriteConfig config;
    config.setMaxIterations(GreedyRewriteConfig::kNoLimit);
    if (failed(applyPatternsGreedily(getOperation(), patterns, config))) {
      getOperation()->emitError("convert-linalg-to-neuron did not converge");
      return signalPassFailure();
    }
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::LinalgOp>(op))
        ++numUnconverted;
      else if (isa<NeuronDialect>(op->getDialect()))
        ++numNeuronOps;
    });
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
