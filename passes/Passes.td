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
    and attribute limits (a transpose only matmuls read, which they read
    through, takes any element type they take). Operations the import left
    in other dialects are
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
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Chip or instance to check against, optionally ',lnc=N' (default: the "
           "module's neuron.target, else trn2)">,
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

def NeuronSetTarget : Pass<"neuron-set-target", "::mlir::ModuleOp"> {
  let summary = "Write the target every later pass reads on the module";
  let description = [{
    Resolves `target` (a chip or an instance, optionally `,lnc=N`) against
    the target descriptions and writes it as the module's `neuron.target`,
    which coverage, collective placement, tiling, scheduling and the
    executable writer read. A module that already names another target is
    an error; one that names the same is left as it is.

    ```mlir
    // neuron-opt --neuron-set-target=target=trn2.48xlarge
    // After: module attributes {neuron.target = #neuron.target<chip =
    //            "trainium2", instance = "trn2.48xlarge", lnc = 2>}
    ```
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"trn2\"",
           "Chip or instance, optionally ',lnc=N'">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"\"\"",
           "Read target descriptions from this folder instead of the "
           "built-in ones">
  ];
}

def NeuronBindKernels : Pass<"neuron-bind-kernels", "::mlir::ModuleOp"> {
  let summary = "Replace graph ops bound to user-written nisa kernels by those kernels";
  let description = [{
    A user kernel is a function in the nisa dialect (NKI's role): one HBM
    buffer per input, then one per result, no results; its body allocates
    SBUF/PSUM tiles and issues engine instructions, in `affine.for` loops.
    Kernels come from the module itself and from every `.mlir` file of the
    `library` directory. An op is bound to a kernel

    - by the attribute `neuron.custom_kernel = @kernel` on the op, on a
      `func.call`, or on the called function (every call of it);
    - by the kernel's `nisa.implements = @function`: every call of that
      function (its body, if any, is the reference the oracle runs);
    - by the kernel's `nisa.implements = "dialect.op"`: every op of that
      name whose types match the kernel's signature. Several kernels may
      implement one op for different shapes; an op none fits is left to
      the compiler, with a remark saying why.

    A bound op becomes `neuron.custom_kernel @kernel(inputs)`; its inputs
    are the op's tensor operands (for a linalg op, its inputs and the
    outputs its body reads). An explicit binding (attribute or function)
    whose kernel does not fit the op's types (its buffers in HBM) is an
    error at the op, and so is an attribute on an op no kernel can replace
    (a constant, an op inside a linalg body). Calls are bound first; a
    private function whose calls all became kernels is removed. A kernel
    of the module stays public until bound (the inliner would drop a
    private one between two runs). The
    kernels used are copied into the module (private, `neuron.kernel`,
    `nisa.custom` naming their file, `nisa.num_inputs`);
    `convert-neuron-to-nisa` verifies them against the target's limits, and
    the kernel passes allocate, schedule and synchronise them like the
    compiler's own. The pass binds what it can where it runs: before the
    inliner for calls, after `convert-linalg-to-neuron` for neuron ops
    (`neuron-import` runs it at both points).

    ```mlir
    // Before, with a kernel @rms_norm {nisa.implements = "neuron.rms_norm"}:
    %y = neuron.rms_norm %x weight %w axis 1 epsilon 1.0e-05
        : (tensor<128x512xf32>, tensor<512xf32>) -> tensor<128x512xf32>
    // After:
    %y = neuron.custom_kernel @rms_norm(%x, %w) {op = "neuron.rms_norm"}
        : (tensor<128x512xf32>, tensor<512xf32>) -> tensor<128x512xf32>
    ```
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect",
                           "::mlir::nisa::NisaDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    Option<"library", "library", "std::string", /*default=*/"\"\"",
           "A directory whose .mlir files hold nisa kernels">
  ];
  let statistics = [
    Statistic<"numBound", "bound-ops", "Ops replaced by user kernels">
  ];
}

def NeuronOutlineKernels : Pass<"neuron-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "Split each graph into kernels, one per distinct layer, and a program that launches them";
  let description = [{
    Turns every function on tensors into a program (`neuron.program`) whose
    steps are `neuron.launch`es of kernels (private functions marked
    `neuron.kernel`), `neuron.host_call`s, collectives, constants, views
    (reshapes and contiguous slices) of program values or of an earlier
    kernel's result, and joins of collective results. Constants
    stay in the program, so layers that differ only in their weights are
    the same kernel; a splat constant a kernel reads only as an immediate
    scalar (`x + 1.0`, a ReLU6's 6.0: `neuron::immediateOf`) goes into the
    kernel instead, which then loads nothing for it.

    The device ops between host calls and collectives are cut into kernels
    where the graph
    repeats: the period is the shift under which the most op signatures
    (name, attributes, types) coincide; the cut inside the period is where
    the fewest values are live, so a transformer layer becomes one kernel
    taking the residual stream and its weights. The ops before and after a
    repeated stretch are cut the same way, recursively. Kernels with the
    same body are one kernel launched several times.

    A kernel result that is a `neuron.dynamic_update_slice` of one of its
    inputs (a KV cache written at a position) is written in place of that
    input when nothing else reads the input, in the kernel or in the
    program, and the program value passed for it owns its tensor (a
    program argument or an earlier step's result): the result gets
    `neuron.in_place` with the input's index, the launch `in_place`, and
    the executable gives both one tensor, so a step copies none of the
    cache.

    A `neuron.concat` of collective results that nothing else reads, each
    a contiguous window of the joined tensor (every dimension before the
    axis is 1), stays in the program: the executable makes each collective
    write its window of the joined tensor, so the join copies nothing
    (`neuron-decompose-collectives`' row chunks).

    ```mlir
    // Before: two identical layers (matmul + relu) on %x.
    // After:
    //   %0 = neuron.launch @forward_kernel0(%x, %w0) : (...) -> tensor<4x8xf32>
    //   %1 = neuron.launch @forward_kernel0(%0, %w1) : (...) -> tensor<4x8xf32>
    ```

    `summary` emits a remark per program: launches, distinct kernels and the
    repeated layer found.
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"minLayerOps", "min-layer-ops", "int64_t", /*default=*/"4",
           "Fewest ops a repeated layer may have">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit a remark per program describing its kernels">
  ];
}

def NeuronFuse : Pass<"neuron-fuse", "::mlir::ModuleOp"> {
  let summary = "Group producers with their elementwise consumers so intermediates stay on chip";
  let description = [{
    Wraps a producer and the elementwise ops that consume it into a
    `neuron.fusion` region, which the tiling computes tile by tile on chip:
    a matmul or a convolution (nchw_fchw, float, no bias or padding) with
    its epilogue (bias, batch norm, activation, scale, residual add), or a
    chain of elementwise ops. A consumer joins when its result has the
    group's shape and each of its other operands is available before the
    group starts: a tensor of the same shape, or the broadcast of one.
    After a matmul, or a tensor-engine convolution whose tiles it maps to
    one view, the tiling reads a broadcast with a zero-stride DMA instead
    of materialising it; otherwise a broadcast made inside the group's span
    moves before the group. An elementwise op inside the span that does not
    read the group but could join (batch norm's `rsqrt(var + eps)` written
    after its convolution) joins with the first member that reads it. A
    splat constant every member reads as an immediate scalar
    (`neuron::immediateOf`) is copied into the region rather than being an
    input. Values used after the group are its
    results; the others never reach HBM. Program functions
    (`neuron.program`) are left alone; their kernels are fused.

    ```mlir
    // Before:
    //   %m = neuron.matmul %x, %w : ... -> tensor<64x16xf32>
    //   %r = neuron.relu %m : tensor<64x16xf32>
    // After:
    //   %r = neuron.fusion (%x, %w) : ... {
    //     %m = neuron.matmul ...  %r = neuron.relu %m ...  neuron.yield %r
    //   }
    ```

    A group of elementwise ops (no producer) reads a broadcast in place
    where the tiling can read every broadcast it takes as a strided matrix
    per tile of the target's partitions (`neuron::matrixSplit`: a row's
    value along the columns, a vector down the rows; rows of 512 bytes or
    more); one op alone reading such a broadcast is a group too.

    `summary` emits a remark per function: groups formed and the bytes of
    HBM traffic the fused intermediates no longer take (one write and one
    read each).
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target (chip or instance) whose partitions tile the groups "
           "(default: the module's neuron.target, else trn2)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"\"\"",
           "Read target descriptions from this folder instead of the "
           "built-in ones">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit a remark per function describing the groups">
  ];
}

def NisaSplitCores : Pass<"nisa-split-cores", "::mlir::ModuleOp"> {
  let summary = "Split loop nests between the physical cores of a logical "
                "core, or run them whole on one";
  let description = [{
    At lnc=2 a logical core is two physical cores, each with its own
    engines, DMA queues, SBUF and PSUM, sharing HBM. A top-level loop nest
    of a kernel whose outermost iterations are independent is split between
    them: physical core c runs a copy of the nest, marked `nisa.core = c`,
    over its share of the outermost iterations, after the shares of the
    cores before it; the copies share a `nisa.split` group, whose accesses
    never order each other. The shares come from the cost model: nests are
    taken in program order, each starting once the nests it depends on
    have ended (as estimated), and each iteration goes to the core that
    would end it first. Independent means: no HBM element one iteration
    writes is read or written by another, and every on-chip tile the nest
    touches is made inside it, or is scratch (written before it is read in
    each block that touches it, by the nest itself where the nest reads it;
    core c gets its own copy), or is an input the nest only reads that
    earlier top-level ops only load (from HBM that nothing writes between
    them and the nest, with scratch of their own; core c loads its own
    copy with copies of them, after the nest), or is a PSUM tile its
    matmuls sum into over the outermost loop (a product's K loop, as a
    decode step's row against its weights runs): core c sums its part of
    K into a PSUM tile of its own, copies it to SBUF and stores it in HBM,
    and core 0 loads it and adds it to its own sum before the sum is read;
    such a nest is split only when the cost model predicts that faster.
    A nest not split so may run whole on another physical core, with the
    straight-line instructions right after it that share on-chip tiles
    with it (a matmul's sums over K copied out of PSUM, an epilogue, the
    store), where every tile they touch is made in the nest, used by
    nothing else (the core makes its own) or an input as above (the core
    loads its own copy), and the estimate ends the kernel 5% sooner with it
    there: its copy, marked `nisa.core = c`, takes its place. The kernel
    gets `nisa.cores`. Other nests and straight-line instructions stay on
    physical core 0; nisa-insert-sync orders the cores' work where it meets
    in HBM. Nothing changes at lnc=1. `summary` remarks how many nests were
    split and run whole elsewhere, and why each other one was not split
    and where it runs.

    ```mlir
    // Before: affine.for %i = 0 to 4 { ...tiles of column block %i... }
    // After:  affine.for %i = 0 to 2 { ... }
    //         affine.for %i = 0 to 2 { %j = affine.apply (d0 + 2)(%i) ... }
    //           {nisa.core = 1 : i64}
    ```
  }];
  let dependentDialects = ["::mlir::nisa::NisaDialect",
                           "::mlir::affine::AffineDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Chip or instance, optionally ',lnc=N' (default: the module's "
           "neuron.target, else trn2)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"\"\"",
           "Read target descriptions from this folder instead of the "
           "built-in ones">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Remark what was split or moved, and why the other nests were "
           "not split">
  ];
}

def NisaAllocate : Pass<"nisa-allocate", "::mlir::ModuleOp"> {
  let summary = "Place every SBUF and PSUM tile of each kernel by liveness";
  let description = [{
    Gives each `memref.alloc` in SBUF or PSUM a byte offset within the
    partitions, recorded as `nisa.address`, by a linear scan over the
    kernel's instructions (a tile lives from its allocation to its last
    use). A freed range is reused only after `buffers - 1` further ranges
    of its size are freed, so each kind of tile that streams through is
    N-way buffered, whatever streams beside it; when a tile does not fit,
    the held-back ranges are released first. A tile a DMA transfer fills
    takes the free range whose bytes were last accessed longest ago, so its
    load waits for the fewest reads; others take the lowest. PSUM tiles
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

def NisaSchedule : Pass<"nisa-schedule", "::mlir::ModuleOp"> {
  let summary = "Schedule each kernel onto the engines and DMA queues, pipelining its loops";
  let description = [{
    Times every instruction with the target's cost model (the one the
    runtime's simulator uses) and schedules each kernel:
    - transfers run on DMA queues, one per stream a region of the kernel
      runs side by side (the loads, or the stores, of one loop body or one
      run of straight-line instructions; loads busiest first on queue 0,
      or, after the regions that open a physical core's work only loading,
      on the queues after theirs, so its loads never wait behind theirs;
      stores busiest first on the last queue, so the next region's loads
      never wait behind them): a
      queue starts its transfers in program order, each on any free DMA
      engine, so a loop's transfers spread over the engines, while a
      prefetch running ahead or a store waiting for the engines never
      holds back another stream; a long straight-line transfer is cut into
      pieces the engines move side by side;
    - straight-line instructions move to the first run of them after all
      they depend on, and each run is list-scheduled (whenever a resource
      can start something, it starts the ready instruction with the longest
      path to the end) and put in issue order, each instruction getting
      `nisa.time_ns = [start, end]`;
    - each loop is software-pipelined by the units' decoupled streams
      (rotating buffers let transfers run ahead), the straight-line runs of
      its body put in the list scheduler's issue order (an engine runs its
      instructions in order, so tiles finished one after another would
      otherwise wait for each other's chains): `nisa.pipeline` records
      one iteration's latency, the steady-state interval (the busiest
      engine, the DMA engines, HBM bandwidth, or a recurrence through a
      dependence reaching back iterations) and the loop's time, latency +
      (trips - 1) x interval; a top-level nest whose transfers take the
      DMA engines longer than any engine its other instructions run on is
      marked `nisa.transfer_bound` (nisa-insert-sync holds none of its
      loads back);
    - an instruction reading an input that arrives while the kernel runs
      (`neuron.input_arrivals_ns` on the kernel: per input, nanoseconds
      after the kernel starts; neuron-place-collectives sets it on a kernel
      launched while a collective it reads is in flight) starts no earlier
      than its arrival, so the work that does not wait is issued first;
    - a region starts when what it reads from earlier ones is ready; a
      nest reading a block that a loop before it fills a slice per
      iteration starts on the slice it needs first, its later iterations
      after the whole block (the waits nisa-insert-sync writes);
    - the kernel, laid out region by region on per-engine clocks, gets
      `nisa.schedule`: predicted time, the bound max(T_tensor, T_vector,
      T_scalar, T_gpsimd, T_dma / DMA engines, critical path), serial time,
      busy time per resource class and the critical path (instruction
      indices in program order).

    ```mlir
    // After: affine.for %k = 0 to 16 {
    //   nisa.dma_copy %a, %t queue 0 : ...
    //   nisa.matmul %t, %m, %p accumulate restart(%k) : ...
    // } {nisa.pipeline = #nisa.pipeline<interval_ns = ..., latency_ns = ..., predicted_ns = ...>}
    // func.func @k(...) attributes {nisa.schedule = #nisa.schedule<predicted_ns = ..., bound_ns = ..., ...>}
    ```
  }];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target whose cost model times the instructions (default: the "
           "module's neuron.target, else trn2)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"\"\"",
           "Read target descriptions from this folder instead of the "
           "built-in ones">,
    Option<"dmaQueues", "dma-queues", "int64_t", /*default=*/"0",
           "DMA queues to give the kernel's streams at most (0: one per DMA "
           "engine of the core; the streams left over share the last)">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit a remark per kernel with its predicted time and bound">
  ];
}

def NisaInsertSync : Pass<"nisa-insert-sync", "::mlir::ModuleOp"> {
  let summary = "Add the semaphore waits and signals that order instructions across units";
  let description = [{
    Every unit (engine or DMA queue) runs its instructions in block order
    and owns one semaphore. For each dependence between instructions on
    different units the later one must wait until the earlier one's unit
    has signalled it; a wait is added only where the unit's own order and
    the waits already in place (transitively) do not imply it, and only
    instructions something waits for signal. Waits are
    `nisa.wait = {UNIT = COUNT}` (start once UNIT's semaphore has reached
    COUNT), signals `nisa.signal`; the kernel records each semaphore's final
    count in `nisa.semaphores`. A wait's count is affine in the iterations
    of the loops around the waiting instruction where it needs only some of
    a loop's instances: the slice of a block the loop before its own fills
    slice by slice, say, rather than the whole block.

    ```mlir
    // nisa.dma_copy %a, %t queue 0 {nisa.signal} : ...
    // nisa.matmul %t, %m, %p {nisa.wait = {dma0 = 1 : i64}} : ...
    ```

    With `hold-back-loads` (the default), the first instance of a load in
    a loop nest not marked `nisa.transfer_bound` (nisa-schedule: there,
    every DMA engine-second counts) also waits for the nest's loads on the
    other queues of its physical core that the unit of its first reader
    needs before that reader: those earlier in program order that wait for
    no engine themselves (directly, or through a transfer they wait for),
    each queue's latest. The DMA engines serve the queues in turn, so a
    stream prefetching what the engines read later (the next block, the
    later N tiles) would otherwise take as large a share of them at the
    nest's start as the loads the engines wait for first. Its later
    instances pass at once, and a nest's loads still start under the nests
    before it.
  }];
  let options = [
    Option<"holdBackLoads", "hold-back-loads", "bool", /*default=*/"true",
           "Hold the first instance of a load in a loop nest back for the "
           "nest's loads its first reader's unit needs before it">,
  ];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

def NisaVerifySync : Pass<"nisa-verify-sync", "::mlir::ModuleOp"> {
  let summary = "Prove a kernel's semaphores cannot deadlock and order every conflicting access";
  let description = [{
    Checks each kernel that carries semaphores (`nisa.semaphores`): every
    wait can be satisfied (its count is signalled, and no cycle of waits
    and unit orders exists), and every read-after-write, write-after-read
    and write-after-write between instructions on different units on
    overlapping regions is ordered by the units' orders and the waits. A
    violation is an error at the later instruction naming the hazard, both
    instructions and the region, with a note at the earlier one. Kernels
    without semaphores run serially and need no check.

    ```mlir
    // error: nisa-verify-sync: read-after-write race on SBUF bytes [0, 512)
    //        of each partition: this 'nisa.matmul' (tensor) reads what
    //        'nisa.dma_copy' (dma0) writes, and no wait orders them
    ```
  }];
  let dependentDialects = ["::mlir::nisa::NisaDialect"];
}

def NeuronPlaceCollectives : Pass<"neuron-place-collectives", "::mlir::ModuleOp"> {
  let summary = "Start each collective early, finish it late, and choose its algorithm";
  let description = [{
    Turns every synchronous collective (`neuron.all_reduce`, `all_gather`,
    `reduce_scatter`, `all_to_all`, `all_slice`) into
    `neuron.collective_start` right
    after its input is defined and `neuron.collective_done` right before
    its first use, so the arithmetic between them overlaps the transfer. A
    join of collective results kept in the program (row chunks writing one
    tensor) first moves to just before its own first use, so the chunks'
    dones sink as far as a whole collective's would.
    For each it picks the algorithm (ring, recursive halving/doubling, or
    hierarchical: within each chip, then across chips, pipelined in chunks)
    (an all_slice moves nothing between cores: its one algorithm is a
    local copy) with the alpha-beta model of the target's links
    (runtime/target/CollectiveModel.h): the grid is laid out row-major on
    the target's logical cores, chip by chip, which decides how many chips
    a group spans. A grid with more cores than the target holds is an
    error. Every decision is a remark (`summary`) and, with `report=FILE`,
    a JSON entry: where the start and done went and why, the algorithm,
    the chunks, every candidate's time, and how much independent work
    overlaps it.

    A launch that reads collective results finished right before it (no
    other launch or host call between their dones and it) gets `awaits`:
    the executable starts it while they are in flight, and its kernel's
    reads of them wait inside, so the kernel's other work (loading its
    weights) overlaps the transfer too (`await-in-kernels`, on by default).

    ```mlir
    // Before: %y = neuron.all_reduce %x grid [4] axes [0] reduction <sum> : ...
    // After:  %h = neuron.collective_start all_reduce %x grid [4] axes [0] reduction <sum>
    //             {algorithm = "halving-doubling", chunks = 1 : i64, predicted_ns = ...}
    //         ... independent work ...
    //         %y = neuron.collective_done %h : ...
    ```
  }];
  let dependentDialects = ["::mlir::neuron::NeuronDialect"];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target (chip or instance, with ,lnc=N) the grid is laid out on "
           "(default: the module's neuron.target, else trn2.48xlarge)">,
    Option<"targetDir", "target-dir", "std::string", /*default=*/"\"\"",
           "Read target descriptions from this folder instead of the "
           "built-in ones">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit a remark per collective explaining its placement">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "Write the placement decisions as JSON to this file">,
    Option<"awaitInKernels", "await-in-kernels", "bool", /*default=*/"true",
           "Let a launch right after a collective's done start while the "
           "collective is in flight, waiting inside for its result (off: "
           "no launch awaits one)">
  ];
}

def NeuronAnnotateTensorParallel : Pass<"neuron-annotate-tensor-parallel",
                                        "::mlir::ModuleOp"> {
  let summary = "Shard an MLP or transformer's projections over N cores (column- then row-parallel)";
  let description = [{
    Annotates a frontend graph (linalg on tensors) for tensor parallelism
    over a 1-D grid of `cores` logical cores, with upstream `shard` ops, so
    `neuron-shard` can partition it. Walking each function in order: a
    `linalg.matmul` whose activation is replicated and whose weight is a
    function argument or constant (read directly, or through a transpose:
    a `linalg.transpose` or a permuting `linalg.generic`, as frontends
    store weights [out, in]) gets its weight split by columns
    (column-parallel: each core computes a slice of the output features);
    the elementwise ops that follow keep the split, and weights they read
    along the split dimension (biases) are split alike while the split is
    still on the last dimension (not after heads moved it); the next
    `linalg.matmul` that reads the split activation gets its weight split by
    rows (row-parallel: each core a partial sum, which partitioning turns
    into one all-reduce). Function results are annotated replicated. A
    dimension that the core count does not divide stays replicated. What
    is computed from a split activation (head reshapes, transposes, the
    attention between them) stays split until a row-parallel matmul, so
    attention heads go to the cores whole. A matmul's zero-fill initial
    value shared with other ops is copied, since the copies are sharded
    differently. A function with an op upstream `shard` has no sharding
    rule for (such as `linalg.softmax`), or with a structured op indexing
    an operand by a sum of loops (a convolution window), is left alone;
    every decision is a remark (`summary`).

    ```mlir
    // Before: %h = linalg.matmul ins(%x, %w1 ...); %y = linalg.matmul ins(%h, %w2 ...)
    // After:
    //   shard.grid @tensor_parallel(shape = 4)
    //   %s1 = shard.sharding @tensor_parallel split_axes = [[], [0]] : !shard.sharding
    //   %w1s = shard.shard %w1 to %s1 : tensor<...>
    //   %s2 = shard.sharding @tensor_parallel split_axes = [[0]] : !shard.sharding
    //   %w2s = shard.shard %w2 to %s2 : tensor<...>
    ```
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
  let options = [
    Option<"cores", "cores", "int64_t", /*default=*/"2",
           "Logical cores in the 1-D tensor-parallel grid">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Emit a remark per function: projections split and kept whole">
  ];
}

#endif // NEURON_PASSES_TD
