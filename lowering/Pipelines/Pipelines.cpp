//===- Pipelines.cpp - named pipelines and registration -------------------===//

#include "lowering/Pipelines/Pipelines.h"
#include "lowering/ShardToNeuron/ShardToNeuron.h"
#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "dialects/neuron/IR/NeuronDialect.h"
#include "dialects/nisa/IR/NisaDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::neuron;

void mlir::neuron::buildImportPipeline(OpPassManager &pm,
                                       const ImportPipelineOptions &options) {
  pm.addPass(createNeuronLowerTosa());
  NeuronBindKernelsOptions bind;
  bind.library = options.kernelLibrary;
  pm.addPass(createNeuronBindKernels(bind));
  if (options.inlineCalls)
    pm.addPass(createInlinerPass());
  ConvertLinalgToNeuronOptions convert;
  convert.summary = options.summary;
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToNeuron(convert));
  pm.addPass(createNeuronBindKernels(bind));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::neuron::buildShardPipeline(OpPassManager &pm,
                                      const ShardPipelineOptions &options) {
  // Upstream propagation cannot follow constant-0 broadcasts, and crashes
  // on some invalid shardings: rewrite the first, check the second.
  pm.addNestedPass<func::FuncOp>(createNeuronPrepareSharding());
  pm.addPass(createNeuronValidateSharding());
  OpPassManager &fn = pm.nest<func::FuncOp>();
  // Forward first: the shardings start at the weights and flow to the
  // products; backward first would fix a product replicated before a
  // transposed weight's split reaches it.
  shard::ShardingPropagationOptions propagation;
  propagation.traversal = shard::TraversalOrder::ForwardBackward;
  fn.addPass(shard::createShardingPropagation(propagation));
  fn.addPass(shard::createPartition());
  // cse first: partitioning leaves duplicate shardings and shape
  // computations that canonicalize alone does not merge.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  if (options.convert)
    pm.addPass(createConvertShardToNeuron());
}

void mlir::neuron::registerNeuronDialects(DialectRegistry &registry) {
  registry.insert<NeuronDialect, nisa::NisaDialect>();
  registerTensorShardingModels(registry);
}

void mlir::neuron::buildKernelPipeline(OpPassManager &pm,
                                       const KernelPipelineOptions &options) {
  if (!options.target.empty()) {
    NeuronSetTargetOptions target;
    target.target = options.target;
    pm.addPass(createNeuronSetTarget(target));
  }
  NeuronCheckCoverageOptions coverage;
  coverage.fallback = options.fallback;
  coverage.report = options.report;
  pm.addPass(createNeuronCheckCoverage(coverage));
  if (options.optLevel > 0)
    pm.addPass(createCanonicalizerPass());
  NeuronDecomposeCollectivesOptions decompose;
  decompose.chunks = options.collectiveChunks;
  decompose.summary = true;
  decompose.buffers = options.buffers;
  pm.addPass(createNeuronDecomposeCollectives(decompose));
  NeuronOutlineKernelsOptions outline;
  outline.summary = true;
  pm.addPass(createNeuronOutlineKernels(outline));
  pm.addPass(createNeuronPlaceCollectives());
  if (options.optLevel > 0)
    pm.addPass(createNeuronFuse());
  ConvertNeuronToNisaOptions convert;
  convert.tuningCache = options.tuningCache;
  convert.buffers = options.buffers;
  addTilingPasses(pm, convert);
  pm.addPass(createNisaInsertSync());
  pm.addPass(createNisaVerifySync());
}

void mlir::neuron::registerNeuronPassesAndPipelines() {
  registerNeuronLoweringPasses();
  registerNeuronTransformsPasses();
  PassPipelineRegistration<ImportPipelineOptions>(
      "neuron-import",
      "Import a frontend graph (TOSA or linalg-on-tensors) into the neuron "
      "dialect",
      buildImportPipeline);
  PassPipelineRegistration<ShardPipelineOptions>(
      "neuron-shard",
      "Partition a graph annotated with upstream shard for a grid of cores "
      "and express its communication as neuron collectives",
      buildShardPipeline);
  PassPipelineRegistration<KernelPipelineOptions>(
      "neuron-kernels",
      "Compile an imported graph into scheduled, synchronised nisa kernels "
      "(the pipeline neuron-compile runs after import)",
      buildKernelPipeline);
}
