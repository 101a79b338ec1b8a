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

#include <map>
#include <string>

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

/// Whether `inner`, an op in a linalg body, computes on data rather than on
/// indices or bounds checks.
static bool isDataComputation(Operation &inner) {
  if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()) ||
      isa<arith::ConstantOp, arith::IndexCastOp>(inner))
    return false;
  if (llvm::any_of(inner.getOperandTypes(),
                   [](Type t) { return t.isIndex(); }))
    return false;
  // A comparison feeding only cf.assert is a bounds check.
  return !llvm::all_of(inner.getUsers(), [](Operation *user) {
    return user->getName().getStringRef() == "cf.assert";
  }) || inner.use_empty();
}

/// Whether `op` is a compute op (contraction, convolution, elementwise,
/// reduction, normalisation) as opposed to data movement or glue.
static bool isComputeOp(Operation *op) {
  if (isa<NeuronDialect>(op->getDialect()))
    return false;
  if (isa<linalg::SoftmaxOp>(op))
    return true;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    Block *body = linalgOp.getBlock();
    return body && llvm::any_of(body->without_terminator(),
                                [](Operation &inner) {
                                  return isDataComputation(inner);
                                });
  }
  // arith/math applied to whole tensors.
  return isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) &&
         !isa<arith::ConstantOp>(op) && op->getNumResults() == 1 &&
         isa<RankedTensorType>(op->getResult(0).getType());
}

/// The compute ops under `root` that are not neuron ops, in total and by
/// op name.
static std::pair<uint64_t, std::map<std::string, uint64_t>>
countComputeOps(Operation *root) {
  uint64_t total = 0;
  std::map<std::string, uint64_t> kinds;
  root->walk([&](Operation *op) {
    // Ops nested in a linalg body are part of that op, not counted alone.
    if (op->getParentOfType<linalg::LinalgOp>() || !isComputeOp(op))
      return;
    ++total;
    ++kinds[op->getName().getStringRef().str()];
  });
  return {total, kinds};
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
    Operation *root = getOperation();
    uint64_t before = countComputeOps(root).first;
    GreedyRewriteConfig config;
    config.setMaxIterations(GreedyRewriteConfig::kNoLimit);
    if (failed(applyPatternsGreedily(root, patterns, config))) {
      root->emitError("convert-linalg-to-neuron did not converge");
      return signalPassFailure();
    }
    auto [left, kinds] = countComputeOps(root);
    numComputeOps += before;
    numComputeOpsLeft += left;
    if (!summary || before == 0)
      return;
    InFlightDiagnostic remark = emitRemark(root->getLoc())
                                << "raised " << before - left << " of "
                                << before << " compute ops to neuron";
    if (left == 0)
      return;
    remark << "; left " << left << ":";
    for (const auto &[name, count] : kinds)
      remark << " " << name << " x" << count;
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
