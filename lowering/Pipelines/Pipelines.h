//===- Pipelines.h - named pipelines and registration ----------*- C++ -*-===//
//
// The `neuron-import` pipeline and one entry point that registers the
// dialect, every pass and every pipeline, for neuron-opt, the mlir-opt
// plugin and other frontends.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_LOWERING_PIPELINES_PIPELINES_H
#define NEURON_LOWERING_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/LogicalResult.h"

namespace mlir {
class DialectRegistry;
class ModuleOp;
class OpPassManager;

namespace neuron {

/// Options of `neuron-import`.
struct ImportPipelineOptions
    : public PassPipelineOptions<ImportPipelineOptions> {
  Option<bool> inlineCalls{
      *this, "inline",
      llvm::cl::desc("Inline func.call first, so helper functions (relu, "
                     "gelu) are raised in their callers"),
      llvm::cl::init(true)};
  Option<bool> summary{
      *this, "summary",
      llvm::cl::desc("Emit a remark per function with the compute ops "
                     "raised to neuron and those left"),
      llvm::cl::init(false)};
  Option<std::string> kernelLibrary{
      *this, "kernel-library",
      llvm::cl::desc("A directory of .mlir files holding user nisa kernels "
                     "(neuron-bind-kernels)"),
      llvm::cl::init("")};
};

/// TOSA lowering when present, user kernels bound (before inlining, for
/// calls; after raising, for neuron ops), inlining, convert-linalg-to-neuron
/// on every function, then canonicalize and cse to drop the dead glue.
void buildImportPipeline(OpPassManager &pm,
                         const ImportPipelineOptions &options);

/// Options of `neuron-shard`.
struct ShardPipelineOptions : public PassPipelineOptions<ShardPipelineOptions> {
  Option<bool> convert{
      *this, "convert",
      llvm::cl::desc("Rewrite the partitioned program's shard collectives "
                     "into neuron collectives (off: stop after partitioning)"),
      llvm::cl::init(true)};
};

/// neuron-prepare-sharding and neuron-validate-sharding, then on every
/// function upstream sharding-propagation (forward, then backward) and
/// shard-partition, cse, canonicalize, and convert-shard-to-neuron.
void buildShardPipeline(OpPassManager &pm, const ShardPipelineOptions &options);

/// Options of `neuron-kernels`, the compile after import.
struct KernelPipelineOptions
    : public PassPipelineOptions<KernelPipelineOptions> {
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Chip or instance, optionally ',lnc=N', written on the "
                     "module for every pass (empty: the module's "
                     "neuron.target)"),
      llvm::cl::init("")};
  Option<std::string> fallback{
      *this, "fallback",
      llvm::cl::desc("Unsupported ops: error, decompose or host"),
      llvm::cl::init("decompose")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Write the JSON coverage report to this file"),
      llvm::cl::init("")};
  Option<int64_t> optLevel{
      *this, "opt-level",
      llvm::cl::desc("0: no cleanup between stages; 1 and above: "
                     "canonicalize before outlining, fuse before tiling"),
      llvm::cl::init(2)};
  Option<int64_t> buffers{
      *this, "buffers",
      llvm::cl::desc("Buffers each streaming SBUF/PSUM tile rotates through"),
      llvm::cl::init(16)};
  Option<std::string> tuningCache{
      *this, "tuning-cache",
      llvm::cl::desc("Choose each matmul's plan by scheduling its best few "
                     "alone; record the choices in this folder"),
      llvm::cl::init("")};
  Option<int64_t> collectiveChunks{
      *this, "collective-chunks",
      llvm::cl::desc("Row chunks a row-parallel matmul and its all-reduce "
                     "are split into so they overlap: 0 chooses with the "
                     "cost models, 1 never splits"),
      llvm::cl::init(0)};
};

/// From an imported graph to scheduled, synchronised kernels, as
/// neuron-compile runs it: neuron-set-target (when `target` is given),
/// neuron-check-coverage, canonicalize (opt-level >= 1),
/// neuron-decompose-collectives, neuron-outline-kernels,
/// neuron-place-collectives, neuron-fuse
/// (opt-level >= 1), convert-neuron-to-nisa, nisa-allocate, nisa-schedule,
/// nisa-insert-sync and nisa-verify-sync. neuron-translate
/// --nisa-to-executable then writes the executable.
void buildKernelPipeline(OpPassManager &pm,
                         const KernelPipelineOptions &options);

/// Adds the neuron and nisa dialects to `registry`.
void registerNeuronDialects(DialectRegistry &registry);

/// Adds every upstream dialect and extension (what frontend graphs use) and
/// neuron's to `registry`, as neuron-opt and neuron-compile have them.
void registerAllNeuronDialects(DialectRegistry &registry);

/// Runs the neuron-compile pass (lowering/Pipelines/Compile.cpp) on
/// `module` with `options`, the pass's option text ("target=trn2
/// output=x.nxe"); options that do not parse are an error on the module.
LogicalResult runNeuronCompile(ModuleOp module, llvm::StringRef options);

/// Registers every neuron pass and pipeline with the global registry.
void registerNeuronPassesAndPipelines();

} // namespace neuron
} // namespace mlir

#endif // NEURON_LOWERING_PIPELINES_PIPELINES_H
