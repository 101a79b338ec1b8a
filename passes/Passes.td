//===- Passes.td - neuron-mlir transformation passes -------*- tablegen -*-===//

#ifndef NEURON_PASSES_TD
#define NEURON_PASSES_TD

include "mlir/Pass/PassBase.td"

def NeuronCheckCoverage : Pass<"neuron-check-coverage", "::mlir::ModuleOp"> {
  let summary = "Check every op against the target generation's capability table";
  let description = [{
    Judges every operation of the module against the capability table of the
    target's generation (runtime/target/data/capabilities): its presence, the
    element types of its operands and results, its rank, dynamic dimensions
    and attribute limits. Operations the import left in other dialects are
    unsupported with their own reason. What happens to unsupported ops
    depends on `fallback`:

    - `error`: one error per unsupported op, at its location, naming the op,
      its types, the rule it breaks and what would help; the pass fails.
    - `decompose`: rewrite what can be rewritten into supported ops (mean
      into sum and a scale, pow with a small integer exponent into
      multiplies, softmax and norms into reductions when the fused op is
      missing, exact gelu into its tanh form, dtypes the generation lacks
      into ones it has where that is exact or nearly so, with a warning),
      then report what still fails as `error` does.
    - `host`: decompose as above, then outline each maximal connected
      region of what remains into a `neuron.host_call`, reporting the bytes
      that cross between host and device and their estimated transfer time.

    `report=PATH` writes the JSON report (docs/coverage-report.md documents
    the schema); `summary` prints a short table to stderr.

    ```mlir
    // neuron-opt --neuron-check-coverage="target=trn2 fallback=decompose"
    // Before: %m = neuron.reduce_mean %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
    // After:  %s = neuron.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
    //         %m = neuron.mul %s, %c : tensor<4xf32>   // %c = splat 1/8
    ```
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"trn2\"",
           "Chip or instance to check against, optionally ',lnc=N'">,
    Option<"fallback", "fallback", "std::string", /*default=*/"\"error\"",
           "What to do with unsupported ops: error, decompose or host">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the JSON coverage report to this file">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Print a short human summary table to stderr">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"\"\"",
           "Read target descriptions from this folder instead of the "
           "built-in ones">,
    Option<"capabilityDir", "capability-dir", "std::string",
           /*default=*/"\"\"",
           "Read capability tables from this folder instead of the built-in "
           "ones">
  ];
}

def NisaAllocate : Pass<"nisa-allocate", "::mlir::ModuleOp"> {
  let summary = "Place every SBUF and PSUM tile of each kernel by liveness";
  let description = [{
    Gives each `memref.alloc` in SBUF or PSUM a byte offset within the
    partitions, recorded as `nisa.address`, by a linear scan over the
    kernel's instructions (a tile lives from its allocation to its last
    use). A freed range is reused only after `buffers - 1` further
    allocations, so tiles that stream through are N-way buffered. PSUM tiles
    take whole banks. The kernel gets `nisa.peak_sbuf_bytes` and
    `nisa.peak_psum_bytes` (per partition); `timeline=PATH` writes, per
    kernel, every tile's space, offset, bytes per partition and live range
    (instruction positions) as JSON. When a tile does not fit, the
    error names it, the capacity, a size that would fit, and every tile live
    at that point with its size per partition.

    ```mlir
    // Before: %t = memref.alloc() : memref<128x512xf32, #nisa.memory<sbuf>>
    // After:  %t = memref.alloc() {nisa.address = 4096 : i64} : memref<128x512xf32, #nisa.memory<sbuf>>
    ```
  }];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
  let options = [
    Option<"buffers", "buffers", "int64_t", /*default=*/"2",
           "How many buffers a streaming tile rotates through (1 reuses at "
           "once)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Alignment in bytes of SBUF tiles within a partition">,
    Option<"timeline", "timeline", "std::string", /*default=*/"\"\"",
           "Write each kernel's memory timeline (JSON) to this file">
  ];
}

#endif // NEURON_PASSES_TD
