//===- Passes.td - neuron-mlir conversion passes -----------*- tablegen -*-===//

#ifndef NEURON_LOWERING_PASSES_TD
#define NEURON_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinalgToNeuron : Pass<"convert-linalg-to-neuron"> {
  let summary = "Raise linalg-on-tensors and its tensor/arith glue to neuron";
  let description = [{
    Recognises what frontends emit: named contractions, convolutions and
    pooling, and above all `linalg.generic`, by its indexing maps and body
    (elementwise chains of arith/math ops, broadcasts, transposes, sum/max/min
    reductions, contractions and convolutions written as generics, embedding
    lookups through `tensor.extract`), plus tensor reshapes, slices,
    concatenations, pads and constants. An op it cannot raise stays as it
    was, with its location, for `neuron-check-coverage` to report.

    Before:
    ```mlir
    %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %1 = math.exp %in : f32
      linalg.yield %1 : f32
    } -> tensor<4x8xf32>
    ```
    After:
    ```mlir
    %0 = neuron.exp %x : tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
  let options = [
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit a remark per function: how many compute ops (contractions, "
           "convolutions, elementwise, reductions, normalisations) were "
           "raised and which were left">
  ];
  let statistics = [
    Statistic<"numComputeOps", "compute-ops", "compute ops before raising">,
    Statistic<"numComputeOpsLeft", "compute-ops-left",
              "compute ops left as they were">
  ];
}

def NeuronLowerTosa : Pass<"neuron-lower-tosa", "::mlir::ModuleOp"> {
  let summary = "Lower TOSA to linalg/tensor/arith when the module has any";
  let description = [{
    Runs upstream's TOSA lowering (`tosa-to-linalg-pipeline`, `tosa-to-tensor`,
    `tosa-to-arith`, then `canonicalize` to drop the dead shape constants)
    only when the module contains TOSA operations, so linalg inputs are left
    exactly as they were. Part of `neuron-import`.

    ```mlir
    // Before: %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
    // After:  %0 = linalg.generic {...} ins(%x) ... { math.exp ... }
    ```
  }];
  let statistics = [
    Statistic<"numTosaOps", "tosa-ops", "TOSA ops found before lowering">
  ];
}

def NeuronSpecializeLength : Pass<"neuron-specialize-length",
                                  "::mlir::ModuleOp"> {
  let summary = "Give a graph's variable length one size, masking the padding";
  let description = [{
    Compiles one shape bucket of a graph whose inputs have dynamic
    dimensions (`?`, as exporters write a variable sequence length). Every
    dynamic dimension of the entry function's arguments is taken to be the
    same length (the sequence length); the pass gives it the size `length`:

    1. Where a linalg op reduces over a dynamic loop (a contraction over
       the positions, a softmax's max and sum), the positions past the
       input's true length would add padding to the result. Their operands
       are masked: positions at or past the true length are replaced by
       the reduction's identity (0 for sums of products, -inf for a max),
       against an i32 argument `length` appended to the function, which the
       runtime fills with the input's true length. A reduction whose body
       padding would change otherwise, a read of the length dimension that
       is not the loop index itself (a shift, a window), and a use of the
       length as a number (a mean's divisor) are located errors.
    2. The arguments get static types, and canonicalization carries the
       shapes through the body; the results get the static types returned.
       A value still dynamic after that is a located error.
    3. The function records what it did in `neuron.length`: the size, the
       dynamic dimensions of the arguments and of the results
       (`[[index, dim], ...]`), and the index of the `length` argument when
       one was added. `neuron-compile --buckets` runs it once per bucket.

    ```mlir
    // Before: func.func @f(%x: tensor<?x64xf32>) -> tensor<?x64xf32>
    // After (length=128): func.func @f(%x: tensor<128x64xf32>)
    //   -> tensor<128x64xf32> attributes {neuron.length = {size = 128, ...}}
    ```
  }];
  let options = [
    Option<"length", "length", "int64_t", /*default=*/"0",
           "The size given to the dynamic dimensions (at least 1)">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "The function to specialize (default: the one function with a "
           "dynamic argument)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvertNeuronToNisa : Pass<"convert-neuron-to-nisa", "::mlir::ModuleOp"> {
  let summary = "Tile neuron graphs into nisa instructions on SBUF/PSUM tiles";
  let description = [{
    Turns each function on tensors into a kernel on HBM buffers (results
    become output arguments) whose body is DMA transfers into
    [partition][free] tiles and engine instructions on them. Tile sizes come
    from the target description: partitions, the PSUM bank, SBUF per
    partition. The tiling chosen for each op is recorded on its first tile
    as `nisa.tiling` (partition dimension, tile shape, buffers).

    Tiled so far: matmul and batch_matmul (K on partitions, accumulation in
    PSUM, evacuation by the scalar engine; a block of one operand's tiles
    resident in SBUF while the other streams, side and block ranked by an
    estimate of their time: HBM traffic and the DMA engines' time by access
    pattern against tensor-engine work; FP8 pairs of K rows in one matmul
    where the target has the double-row mode, lhs as pairs side by side
    the DMA transposes as 2-byte elements where it has a DMA transpose and
    K is even; where all of a held rhs is one block, on one physical core,
    two lhs row tiles in the first iteration if it loads longer than a row
    tile's matmuls, and the last row tile's N tiles summed and stored one
    after another; a held lhs block the tensor engine transposes, its
    transposes interleaved with its first streamed transfer's matmuls, at
    lnc=2 for blocks of a loop), conv2d
    (shifted matmuls; depthwise on the vector engine, row blocks and
    channels on partitions), pool2d (vector engine), elementwise unary ops
    and casts (scalar engine), elementwise binary ops (vector engine),
    reductions (kept dimensions on partitions, vector engine), softmax
    along the last axis, transpose, broadcast, slice, concat, pad and
    gather (DMA access patterns), reshape and constant; the norms are first
    expanded into those. A user kernel (`nisa.custom`) is checked against
    the target's limits instead. Any other op is an error naming it.

    An operand tile that must be transposed on its way on chip (lhs^T, or
    rhs read through a transpose) goes through the tensor engine (a natural
    load, `nisa.transpose` into PSUM, copies out by the vector and scalar
    engines) or through
    the DMA (a transposed access pattern, which a generation with a DMA
    transpose moves at its transpose bandwidth and any other one element
    per descriptor), whichever the target's cost model times shorter; a
    `neuron.transpose` read only by matmuls becomes their operand's view.

    `summary` emits a remark per matmul: the plan chosen, the bytes it reads
    from HBM, its estimated time, the operands transposed on the tensor
    engine, whether the first iteration takes two row tiles, whether it
    was taken over shorter estimates bound by their
    transfers (within 10%, ranked by bytes read), and the runner-up. With
    `tuning-cache`, each matmul's best few plans are compiled alone,
    allocated and scheduled (nisa-allocate with `buffers`, nisa-schedule)
    and the fastest is kept; the choice is written
    to a tuning record in that folder, one JSON file per op signature and
    target, which later compiles read instead of searching (a remark says
    so). A record that does not parse, was written for another signature,
    target or compiler, or names a plan its rank no longer has is a warning
    and never trusted.

    ```mlir
    // Before:
    func.func @f(%a: tensor<128x256xf32>, %b: tensor<256x512xf32>) -> tensor<128x512xf32> {
      %0 = neuron.matmul %a, %b : (tensor<128x256xf32>, tensor<256x512xf32>) -> tensor<128x512xf32>
      return %0 : tensor<128x512xf32>
    }
    // After: func.func @f(%a: memref<128x256xf32, #nisa.memory<hbm>>, ...,
    //          %out: memref<128x512xf32, #nisa.memory<hbm>>) with two K tiles:
    //   nisa.dma_copy (lhs^T tile), nisa.dma_copy (rhs tile), nisa.matmul,
    //   nisa.dma_copy, nisa.dma_copy, nisa.matmul accumulate,
    //   nisa.activation <identity> (PSUM -> SBUF), nisa.dma_copy (-> %out)
    ```
  }];
  let dependentDialects = ["::mlir::nisa::NisaDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Chip or instance whose limits size the tiles (default: the "
           "module's neuron.target, else trn2)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"\"\"",
           "Read target descriptions from this folder instead of the "
           "built-in ones">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit a remark per matmul with its tiling plan and the runner-up">,
    Option<"tuningCache", "tuning-cache", "std::string", /*default=*/"\"\"",
           "Time each matmul's best few plans by compiling and scheduling "
           "the op alone, keep the fastest, and record the choice in this "
           "folder (one file per op signature and target), which later "
           "compiles read instead of searching">,
    Option<"buffers", "buffers", "int64_t", /*default=*/"16",
           "Buffers the tuning probes' nisa-allocate gives streaming tiles "
           "(as the compile that follows does)">
  ];
}

def NeuronValidateSharding : Pass<"neuron-validate-sharding",
                                  "::mlir::ModuleOp"> {
  let summary = "Reject shardings that upstream propagation/partition would "
                "crash on or mis-partition";
  let description = [{
    Checks every `shard.sharding` and every `shard.shard` before upstream's
    `sharding-propagation` and `shard-partition` run, and reports with the
    op's location: a sharding that names no `shard.grid`; a grid with a
    dynamic shape (the neuron collectives need the core count); a grid axis
    outside the grid or used twice in one sharding; split axes for more
    dimensions than the annotated tensor has; a statically sized dimension
    that the product of its grid axes' sizes does not divide; halo sizes or
    explicit shard offsets (the neuron collectives exchange no halos); a
    `shard.shard` whose sharding is not a `shard.sharding` op; a
    `tensor.extract_slice` or `insert_slice` with dynamic offsets, sizes or
    strides in a sharded function (its sharding rule needs them static,
    and upstream propagation carries on past a rule's failure). A valid
    module's function arguments and results annotated by `shard.shard` get
    `neuron.sharding = [[grid axes] per dimension]`, which partitioning
    would forget and the executable needs (to split whole inputs and
    reassemble whole outputs). Upstream
    segfaults on an out-of-range grid axis, reads past the end of the
    shape for excess split axes, and rounds shard sizes up silently for a
    dimension that does not divide.

    ```mlir
    shard.grid @g(shape = 4)
    // error: split axis 1 of dimension 1 is outside the 1-dimensional grid @g
    %s = shard.sharding @g split_axes = [[], [1]] : !shard.sharding
    %w = shard.shard %w0 to %s : tensor<16x32xf32>
    ```
  }];
  let statistics = [
    Statistic<"numShardings", "shardings", "shard.sharding ops checked">,
    Statistic<"numAnnotations", "annotations", "shard.shard ops checked">
  ];
}

def NeuronPrepareSharding
    : Pass<"neuron-prepare-sharding", "::mlir::func::FuncOp"> {
  let summary = "Rewrite what upstream sharding propagation and partition "
                "cannot follow into forms they can";
  let description = [{
    Runs on functions that hold `shard` annotations, before upstream
    `sharding-propagation` and `shard-partition`, and changes no result.

    - **Broadcast operands.** tosa-to-linalg writes a broadcast operand of
      extent 1 with a constant 0 in its indexing map
      (`(d0, d1, d2) -> (d0, 0, d2)`). Propagation maps loops to tensor
      dimensions only through dimension expressions and fails on it ("fail
      to get sharding option"). Such unit dimensions are collapsed out of the
      operand with `tensor.collapse_shape` and the constants dropped from
      its map (`(d0, d1, d2) -> (d0, d2)`); an init so collapsed (a
      reduction keeping its reduced dimension) changes the op's result,
      which is expanded back for its users.
    - **Values partition cannot annotate.** Partition expects every tensor
      argument to have exactly one use, a `shard.shard`, and crashes
      otherwise; and a tensor an op reads from inside its region (a gather
      written as `tensor.extract` in a `linalg.generic` body, as RoPE tables
      are) is never annotated by propagation. Each such argument or value
      gets one `shard.shard` that replicates it over the function's grid,
      and its uses read that instead: every core holds all of a table it
      gathers from. The results of an op whose body reads such a tensor
      or `linalg.index` are replicated too: a core's part of its loops
      would see local indices where the body means global ones.
    - **Constants.** Upstream partition refuses dense constants that are
      not splats without a diagnostic, and copies resource constants whole
      under a split type; they become `neuron.constant`, replicated: every
      core holds them whole and slices what it needs. A splat constant used as a
      structured op's init (tosa-to-linalg's zero accumulator) would pin
      the op replicated, since the constant's rule only copies a sharding
      its users already fixed; each such use gets its own `linalg.fill`.
      Likewise each user of a shared `tensor.empty` gets its own.
    - **Positions read at run time.** A decode step reads its position with
      `tensor.extract`, which has no sharding rule, and propagation stops
      at the scalar ops after it. Slices at the position become
      `neuron.dynamic_slice` and `neuron.dynamic_update_slice`, taking the
      one-element position tensor (a KV cache split by heads stays split:
      the position moves along another dimension); a `linalg.generic`
      whose body reads the position (a causal mask) takes the tensor as an
      input read whole by every loop; and the reads left unused go.
    - **Loop indices.** A body reading `linalg.index` (a causal mask)
      would see a core's local indices after partition. Each index it
      reads becomes an input, an i32 iota along that loop (a
      `neuron.constant`, replicated), which partition slices with the
      loop; an unsigned comparison of two indices becomes the signed one.
      The op is then split like any other instead of replicated.

    A function whose annotations name more than one grid is an error.

    ```mlir
    // before: a [1, 1, 8] weight broadcast over [1, 4, 8]
    %m = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, 0, d2), ...]}
        ins(%w, %x : tensor<1x1x8xf32>, tensor<1x4x8xf32>) ...
    // after
    %c = tensor.collapse_shape %w [[0], [1, 2]] : tensor<1x1x8xf32> into tensor<1x8xf32>
    %m = linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d2), ...]}
        ins(%c, %x : tensor<1x8xf32>, tensor<1x4x8xf32>) ...
    ```
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::shard::ShardDialect",
                           "::mlir::neuron::NeuronDialect"];
  let statistics = [
    Statistic<"numCollapsed", "collapsed-operands",
              "broadcast operands collapsed">,
    Statistic<"numReplicated", "replicated-values",
              "arguments, constants, captured values and op results "
              "annotated as replicated">,
    Statistic<"numConstants", "constants",
              "non-splat constants made neuron.constant">,
    Statistic<"numFills", "fills", "splat accumulators made linalg.fill">,
    Statistic<"numEmpties", "empties", "shared tensor.empty ops copied">,
    Statistic<"numPositions", "positions",
              "bodies made to take a run-time position as an input">,
    Statistic<"numIndices", "indices",
              "bodies made to take their loop indices as iota inputs">
  ];
}

def NeuronDecomposeCollectives : Pass<"neuron-decompose-collectives",
                                      "::mlir::ModuleOp"> {
  let summary = "Split row-parallel matmuls and their all-reduces into row chunks that overlap";
  let description = [{
    A `neuron.matmul` whose only use is a sum `neuron.all_reduce` (a
    row-parallel projection's partial sums) is split along the rows of its
    left operand into `K` chunks, each a matmul and its own all-reduce,
    joined by a `neuron.concat` along the rows. Once the chunks' matmuls are
    kernels of their own and the collectives are placed, each chunk's
    all-reduce runs while the next chunks' arithmetic does, so only the last
    chunk's is exposed (as XLA's collective matmul and async tensor
    parallelism do). The join costs nothing: the chunks' all-reduces write
    straight into row windows of the joined tensor (see
    `neuron-outline-kernels`).

    `K` is chosen with the target's models (`chunks=0`, the default). Each
    candidate's chunk matmul (and the whole one) is compiled alone into a
    kernel and scheduled, as `convert-neuron-to-nisa`'s tuning probes a
    matmul, for its predicted time; each chunk's all-reduce is timed with
    the collective model (`neuron-place-collectives`' algorithm choice);
    the all-reduces run one at a time on the core's collective engine, as
    the simulator runs them. A chunk's matmul is taken at its share of the
    whole one at least (timed alone, a smaller matmul may schedule better,
    but in the program the whole one shares its kernel with the work around
    it and the chunks lose that), so only the all-reduce time the chunks
    hide is a gain. Among `K` in 2, 4, 8, 16 giving chunks of at
    least 128 rows (a tensor-engine tile's moving columns), the fastest is
    taken when it is predicted at least 10% faster than the whole matmul
    followed by its whole all-reduce; otherwise the pair is kept whole. The
    margin covers what timing pieces alone misses: the overlap a whole
    matmul gets with the work merged around it in its kernel (measured on a
    LLaMA-2-7B prefill layer, smaller predicted gains ran slower). Small
    all-reduces are latency-bound (a fixed cost per step), so chunks of
    them cost nearly as much as the whole: for a few tokens the pair is
    kept whole. The model times the pair by itself: work elsewhere that
    already overlaps the whole all-reduce is not counted. `chunks=1` never
    splits; `chunks=N` splits every pair whose rows N divides, whatever the
    model says. Pairs of one signature (operand types, grid, axes) are
    timed once. Every decision is a remark (`summary`): what was split,
    every candidate's times and the all-reduce time the chunks hide.

    ```mlir
    // Before: %p = neuron.matmul %x, %w : (tensor<2048x512xbf16>, ...) -> tensor<2048x4096xbf16>
    //         %y = neuron.all_reduce %p grid [8] axes [0] reduction <sum> : ...
    // After (K = 4):
    //   %x0 = neuron.slice %x offsets [0, 0] strides [1, 1] : ... -> tensor<512x512xbf16>
    //   %p0 = neuron.matmul %x0, %w : ... -> tensor<512x4096xbf16>
    //   %y0 = neuron.all_reduce %p0 grid [8] axes [0] reduction <sum> : ...
    //   ... chunks 1 to 3 ...
    //   %y = neuron.concat %y0, %y1, %y2, %y3 axis 0 : (...) -> tensor<2048x4096xbf16>
    ```
  }];
  // The probes compile and schedule kernels inside the pass.
  let dependentDialects = ["::mlir::neuron::NeuronDialect",
                           "::mlir::nisa::NisaDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"chunks", "chunks", "int64_t", /*default=*/"0",
           "Row chunks per split: 0 chooses with the cost models, 1 never "
           "splits, N splits every pair whose rows N divides">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target (chip or instance, with ,lnc=N) the grid is laid out on "
           "(default: the module's neuron.target, else trn2.48xlarge)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"\"\"",
           "Read target descriptions from this folder instead of the "
           "built-in ones">,
    Option<"buffers", "buffers", "int64_t", /*default=*/"16",
           "Buffers each streaming tile of a timed chunk rotates through "
           "(as convert-neuron-to-nisa's)">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit a remark per matmul and all-reduce: split or kept whole, "
           "and why">
  ];
}

def ConvertShardToNeuron : Pass<"convert-shard-to-neuron"> {
  let summary = "Rewrite upstream shard collectives into neuron collectives";
  let description = [{
    Runs after upstream `shard-partition`. `shard.all_reduce`,
    `shard.all_gather`, `shard.reduce_scatter`, `shard.all_to_all` and
    `shard.all_slice` become the neuron ops of the same name, carrying the shape of the `shard.grid`
    they name. An all_reduce whose only use is a `shard.all_slice` on the
    same grid and axes (the per-core crop of the reduced tensor) fuses with
    it into one `neuron.reduce_scatter`. An all_reduce or reduce_scatter
    that accumulates in a wider type first casts its input with
    `neuron.cast`. Reductions other than sum, max and min, collectives with
    no neuron counterpart (broadcast, gather, scatter, reduce, send, recv,
    shift, update_halo) and grids with a dynamic shape are errors.

    Before:
    ```mlir
    shard.grid @g(shape = 4)
    %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
    %1 = shard.all_slice %0 on @g grid_axes = [0] slice_axis = 0 : tensor<8x16xf32> -> tensor<2x16xf32>
    ```
    After:
    ```mlir
    %1 = neuron.reduce_scatter %x grid [4] axes [0] reduction <sum> axis 0
        : tensor<8x16xf32> -> tensor<2x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
  let statistics = [
    Statistic<"numConverted", "collectives", "shard collectives converted">,
    Statistic<"numFused", "fused-reduce-scatters",
              "all_reduce + all_slice pairs fused into reduce_scatter">
  ];
}

def ConvertNeuronToLinalg : Pass<"convert-neuron-to-linalg"> {
  let summary = "Lower neuron ops to linalg/tensor/arith, for the host";
  let description = [{
    The first step of compiling a host region (`neuron.host_call`) for the
    CPU: each neuron op becomes what linalg would write for it, a
    `linalg.generic` whose body is arith/math on elements (elementwise ops,
    matmuls, reductions, normalisations, softmax, gather, convolution and
    pooling) or a tensor op (slice, concat, pad, reshape), with the dialect's
    semantics: i1 orders false below true, a cast to an integer saturates and
    maps NaN to 0, a gather index outside the input reads 0. Upstream MLIR's
    CPU pipeline then compiles the region.

    ```mlir
    // Before: %0 = neuron.exp %x : tensor<4x8xf32>
    // After:  %0 = linalg.generic {...} ins(%x : tensor<4x8xf32>) ... {
    //           %1 = math.exp %in : f32
    //           linalg.yield %1 : f32 } -> tensor<4x8xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::tensor::TensorDialect"];
}

def NeuronCompile : Pass<"neuron-compile", "::mlir::ModuleOp"> {
  let summary = "The whole compile of a frontend graph into an executable";
  let description = [{
    What `neuron-compile` runs, as one pass a pass manager can replay:

    1. The target (`target`, else the module's `neuron.target`, else trn2)
       is written on the module for every later pass.
    2. With `tensor-parallel=N` (or a graph already annotated with upstream
       `shard`), helpers are inlined, the graph to compile is chosen and the
       graph is annotated (`neuron-annotate-tensor-parallel`) and
       partitioned (`neuron-shard`). When nothing can be split, or
       partitioning fails, a warning says why and the graph is compiled for
       one core.
    3. `neuron-import` (binding user kernels from the module and from
       `kernel-library`), then the graph to compile is chosen: `entry`, or
       the one function on tensors. Other functions with a body but the
       kernels the graph uses, host-side
       instrumentation (calls of external functions on scalars, with what
       only consumes their results) and declarations nothing calls any more
       are removed, the instrumentation with a warning.
    4. `neuron-kernels` (coverage report to `report`, default
       `OUTPUT.coverage.json`; a temporary file, removed, when the
       executable goes to standard output).
    5. With `buckets` (sizes of the graph's variable length, the dynamic
       dimensions of its arguments), steps 2 to 4 run once per size on the
       graph given that size by `neuron-specialize-length`, and the
       executable holds one program per bucket, sharing identical kernels
       and constants; the runtime picks the smallest bucket holding an
       input, pads it with `bucket-pad` and gives results at the input's
       length. Without `buckets`, a dynamic argument is an error that
       suggests them.
    6. The executable is written to `output` (`-`: standard output) through
       a temporary file, so an earlier file at the path stays as it was if
       the write fails. It records the options and the pipeline, without the
       paths: the same graph and options give the same bytes wherever they
       are written.

    ```
    neuron-opt graph.mlir -o /dev/null \
      -p 'builtin.module(neuron-compile{target=trn2 output=graph.nxe})'
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Chip or instance, optionally ',lnc=N' (default: the module's "
           "neuron.target, else trn2)">,
    Option<"fallback", "fallback", "std::string", /*default=*/"\"decompose\"",
           "Unsupported ops: error, decompose or host">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "The function to compile (default: the one function on tensors)">,
    Option<"optLevel", "opt-level", "int64_t", /*default=*/"2",
           "0: no cleanup between stages; 1 and above: canonicalize before "
           "outlining, fuse before tiling">,
    Option<"buffers", "buffers", "int64_t", /*default=*/"16",
           "Buffers each streaming SBUF/PSUM tile rotates through">,
    Option<"tensorParallel", "tensor-parallel", "int64_t", /*default=*/"0",
           "Shard the graph's projections over this many logical cores "
           "(0: keep the graph as it is)">,
    Option<"collectiveChunks", "collective-chunks", "int64_t",
           /*default=*/"0",
           "Row chunks a row-parallel matmul and its all-reduce are split "
           "into so they overlap (neuron-decompose-collectives): 0 chooses "
           "with the cost models, 1 never splits">,
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "Write the executable to this file ('-': standard output)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the coverage report to this file (default: "
           "OUTPUT.coverage.json; a temporary file with output=-)">,
    Option<"kernelLibrary", "kernel-library", "std::string",
           /*default=*/"\"\"",
           "A directory of .mlir files holding user nisa kernels bound to "
           "the graph's ops (neuron-bind-kernels)">,
    Option<"tuningCache", "tuning-cache", "std::string", /*default=*/"\"\"",
           "Choose each matmul's plan by scheduling its best few alone, "
           "recording the choices in this folder for later compiles "
           "(convert-neuron-to-nisa's tuning-cache)">,
    ListOption<"buckets", "buckets", "int64_t",
               "Sizes of the graph's variable length (its dynamic "
               "dimensions): one program per size in one executable">,
    Option<"bucketPad", "bucket-pad", "double", /*default=*/"0.0",
           "The value the runtime pads an input's positions past its "
           "length with">
  ];
}

#endif // NEURON_LOWERING_PASSES_TD
