//===- NisaBase.td - nisa dialect definition ---------------*- tablegen -*-===//
//
// The `nisa` dialect: engine instructions on tiles in HBM, SBUF and PSUM.
//
//===----------------------------------------------------------------------===//

#ifndef NISA_BASE_TD
#define NISA_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Nisa_Dialect : Dialect {
  let name = "nisa";
  let cppNamespace = "::mlir::nisa";
  let summary = "Engine instructions of a NeuronCore on tiles";
  let description = [{
    Tiles are memrefs whose memory space is `#nisa.memory<hbm|sbuf|psum>`.
    In SBUF and PSUM the first dimension is the partition dimension (at most
    the target's partition count) and the rest are the free dimensions laid
    out contiguously in each partition: a tile is `[partition][free...]`.
    An operand may be a view of a tile that steps its free dimensions
    (element strides within each partition); a matmul's result may not.
    Each op is one instruction of one engine (tensor, vector, scalar,
    gpsimd) or a DMA transfer on one queue; the `NisaEngineOpInterface`
    names the engine. Operands are read, the last memref operand (`dst`) is
    written; no op returns a value.

    ```mlir
    func.func @k(%a: memref<128x128xbf16, #nisa.memory<sbuf>>,
                 %b: memref<128x512xbf16, #nisa.memory<sbuf>>,
                 %c: memref<128x512xf32, #nisa.memory<psum>>) {
      nisa.matmul %a, %b, %c : memref<128x128xbf16, #nisa.memory<sbuf>>,
          memref<128x512xbf16, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<psum>>
      return
    }
    ```

    Tile limits come from the target description: a function carrying the
    `nisa.limits` attribute (`#nisa.limits<...>`, written by the tiler from
    the target) has its instructions checked against those limits by the
    verifiers.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  // Kernels hold tiles (memref) and loops (affine.for, affine.apply).
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::memref::MemRefDialect"];
  let extraClassDeclaration = [{
    /// The discardable attributes passes exchange, by name: what each
    /// holds is checked by verifyOperationAttribute.
    static constexpr ::llvm::StringLiteral kAddress = "nisa.address";
    static constexpr ::llvm::StringLiteral kSlots = "nisa.slots";
    static constexpr ::llvm::StringLiteral kWait = "nisa.wait";
    static constexpr ::llvm::StringLiteral kSignal = "nisa.signal";
    static constexpr ::llvm::StringLiteral kTimeNs = "nisa.time_ns";
    static constexpr ::llvm::StringLiteral kLimits = "nisa.limits";
    static constexpr ::llvm::StringLiteral kPipeline = "nisa.pipeline";
    /// A top-level loop nest whose transfers take the DMA engines longer
    /// than any engine its other instructions run on (nisa-schedule).
    static constexpr ::llvm::StringLiteral kTransferBound =
        "nisa.transfer_bound";
    static constexpr ::llvm::StringLiteral kSchedule = "nisa.schedule";
    static constexpr ::llvm::StringLiteral kSemaphores = "nisa.semaphores";
    static constexpr ::llvm::StringLiteral kTiling = "nisa.tiling";
    static constexpr ::llvm::StringLiteral kImplements = "nisa.implements";
    static constexpr ::llvm::StringLiteral kCustom = "nisa.custom";
    /// The physical core of a logical core that runs an instruction, or
    /// every instruction of a loop nest; and a kernel's physical cores.
    static constexpr ::llvm::StringLiteral kCore = "nisa.core";
    static constexpr ::llvm::StringLiteral kCores = "nisa.cores";
    /// The copies of one loop nest split between physical cores share one
    /// `nisa.split` group: their iterations touch apart HBM elements.
    static constexpr ::llvm::StringLiteral kSplit = "nisa.split";
  }];
}

class Nisa_Op<string mnemonic, list<Trait> traits = []>
    : Op<Nisa_Dialect, mnemonic, traits>;

def Nisa_MemorySpace : I32EnumAttr<"MemorySpace", "where a tile lives", [
      I32EnumAttrCase<"hbm", 0>, I32EnumAttrCase<"sbuf", 1>,
      I32EnumAttrCase<"psum", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nisa";
}
def Nisa_MemorySpaceAttr : EnumAttr<Nisa_Dialect, Nisa_MemorySpace, "memory"> {
  let assemblyFormat = "`<` $value `>`";
}

def Nisa_ActivationFunction : I32EnumAttr<"ActivationFunction",
    "scalar-engine activation function", [
      I32EnumAttrCase<"identity", 0>, I32EnumAttrCase<"exp", 1>,
      I32EnumAttrCase<"log", 2>, I32EnumAttrCase<"tanh", 3>,
      I32EnumAttrCase<"sigmoid", 4>, I32EnumAttrCase<"relu", 5>,
      I32EnumAttrCase<"gelu", 6>, I32EnumAttrCase<"gelu_tanh", 7>,
      I32EnumAttrCase<"silu", 8>, I32EnumAttrCase<"sqrt", 9>,
      I32EnumAttrCase<"rsqrt", 10>, I32EnumAttrCase<"reciprocal", 11>,
      I32EnumAttrCase<"erf", 12>, I32EnumAttrCase<"square", 13>,
      I32EnumAttrCase<"abs", 14>, I32EnumAttrCase<"neg", 15>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nisa";
}
def Nisa_ActivationFunctionAttr : EnumAttr<Nisa_Dialect,
    Nisa_ActivationFunction, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def Nisa_AluOp : I32EnumAttr<"AluOp", "vector-engine arithmetic", [
      I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"subtract", 1>,
      I32EnumAttrCase<"multiply", 2>, I32EnumAttrCase<"divide", 3>,
      I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"min", 5>,
      I32EnumAttrCase<"pow", 6>, I32EnumAttrCase<"is_equal", 7>,
      I32EnumAttrCase<"not_equal", 8>, I32EnumAttrCase<"is_lt", 9>,
      I32EnumAttrCase<"is_le", 10>, I32EnumAttrCase<"is_gt", 11>,
      I32EnumAttrCase<"is_ge", 12>, I32EnumAttrCase<"bypass", 13>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::nisa";
}
def Nisa_AluOpAttr : EnumAttr<Nisa_Dialect, Nisa_AluOp, "alu"> {
  let assemblyFormat = "`<` $value `>`";
}

def Nisa_LimitsAttr : AttrDef<Nisa_Dialect, "Limits"> {
  let mnemonic = "limits";
  let summary = "The tile limits of the target a kernel is compiled for";
  let description = [{
    Written by the tiler from the target description, read by the
    verifiers: partitions of SBUF and PSUM, bytes per partition of each,
    the PSUM bank size, the tensor engine's operand limits (stationary
    free size, moving free size) and the K rows per partition an FP8 matmul
    may contract (`fp8_rows`, 2 where the generation has the double-row
    mode; omitted when 1).

    ```mlir
    func.func @k() attributes {nisa.limits = #nisa.limits<partitions = 128,
        sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048,
        stationary_free = 128, moving_free = 512>} { return }
    ```
  }];
  let parameters = (ins "int64_t":$partitions, "int64_t":$sbuf_bytes,
                        "int64_t":$psum_bytes, "int64_t":$psum_bank_bytes,
                        "int64_t":$stationary_free, "int64_t":$moving_free,
                        DefaultValuedParameter<"int64_t", "1">:$fp8_rows);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Nisa_SlotsAttr : AttrDef<Nisa_Dialect, "Slots"> {
  let mnemonic = "slots";
  let summary = "The rotating slots of an on-chip tile allocated in a loop";
  let description = [{
    Written by `nisa-allocate` on a `memref.alloc` inside `affine.for`
    loops, beside its `nisa.address`: every iteration of the loops
    enclosing the allocation takes the next of `count` slots, `bytes`
    apart in each partition, the first at `nisa.address`. An iteration
    reuses the slot of the iteration `count` before it, so `count - 1`
    tiles can be filled while the engines read the current one.

    ```mlir
    %t = memref.alloc() {nisa.address = 1024 : i64,
        nisa.slots = #nisa.slots<count = 4, bytes = 256>}
        : memref<128x128xbf16, #nisa.memory<sbuf>>
    ```
  }];
  let parameters = (ins "int64_t":$count, "int64_t":$bytes);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Nisa_WaitAttr : AttrDef<Nisa_Dialect, "Wait"> {
  let mnemonic = "wait";
  let summary = "A semaphore wait whose count is affine in the iteration";
  let description = [{
    One entry of an instruction's `nisa.wait` (written by
    `nisa-insert-sync`): the instruction starts once the semaphore of
    `unit` (an engine, or DMA queue `dmaQ`) has reached
    `count + sum(iv[l] * per_iteration[l])` over the induction variables of
    the loops enclosing it, outermost first; a count of 0 or less is met
    at once (a loop's first iterations). With `fewer_first = [l, n, f]`
    the count is `f` lower in the first `n` iterations of loop `l` (0 the
    outermost): where the awaited instance lies before a boundary of the
    loop around loop `l`, whose body signals `f` more outside it.

    ```mlir
    nisa.matmul %s, %m, %acc {nisa.wait = [#nisa.wait<unit = "dma3",
        count = 1, per_iteration = [2]>]} : ...
    nisa.transpose %a, %b {nisa.wait = [#nisa.wait<unit = "vector",
        count = 0, per_iteration = [60, 24], fewer_first = [1, 1, 12]>]} : ...
    ```
  }];
  let parameters = (ins StringRefParameter<"the unit waited for">:$unit,
                        "int64_t":$count,
                        OptionalArrayRefParameter<"int64_t">:$per_iteration,
                        OptionalArrayRefParameter<"int64_t">:$fewer_first);
  // `<unit = U, count = N[, per_iteration = [..]][, fewer_first = [..]]>`:
  // two optional lists after a comma each, which the declarative format
  // cannot tell apart.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Nisa_PipelineAttr : AttrDef<Nisa_Dialect, "Pipeline"> {
  let mnemonic = "pipeline";
  let summary = "A loop's predicted software pipeline";
  let description = [{
    Written by `nisa-schedule` on each `affine.for` of a kernel: the units
    run their instructions of the loop decoupled, synchronised by
    semaphores, so successive iterations overlap. `interval_ns` is the
    steady-state time between iterations (the busiest unit's time per
    iteration, HBM bandwidth, or a recurrence through a rotating tile),
    `latency_ns` the time of one iteration alone (the fill and drain), and
    `predicted_ns` the loop's time: latency + (trips - 1) x interval.

    ```mlir
    affine.for %k = 0 to 16 {
      ...
    } {nisa.pipeline = #nisa.pipeline<interval_ns = 225.7 : f64,
        latency_ns = 2000.0 : f64, predicted_ns = 5385.5 : f64>}
    ```
  }];
  let parameters = (ins "::mlir::FloatAttr":$interval_ns,
                        "::mlir::FloatAttr":$latency_ns,
                        "::mlir::FloatAttr":$predicted_ns);
  let assemblyFormat = "`<` struct(params) `>`";
}

def Nisa_ScheduleAttr : AttrDef<Nisa_Dialect, "Schedule"> {
  let mnemonic = "schedule";
  let summary = "A kernel's predicted time, its bound and where the time goes";
  let description = [{
    Written by `nisa-schedule` on each kernel (`nisa.schedule`) and carried
    into the executable's `schedule` record: `predicted_ns`, the kernel's
    predicted time; `bound_ns`, the lower bound max(T_tensor, T_vector,
    T_scalar, T_gpsimd, T_dma / dma_engines, critical path);
    `critical_path_ns` and `critical_path` (instruction indices in program
    order); `serial_ns`, the time running every instruction one after
    another; `busy_ns`, busy time of the tensor, vector, scalar and gpsimd
    engines and of the DMA engines together; `dma_engines`, the DMA engines
    the transfers share.

    ```mlir
    func.func @k(...) attributes {nisa.schedule = #nisa.schedule<
        predicted_ns = 3395.9 : f64, bound_ns = 3395.9 : f64,
        critical_path_ns = 3395.9 : f64, serial_ns = 4308.2 : f64,
        busy_ns = [39.9 : f64, 0.0 : f64, 106.7 : f64, 0.0 : f64, 4161.7 : f64],
        dma_engines = 16, critical_path = [0, 2, 3, 4]>}
    ```
  }];
  let parameters = (ins "::mlir::FloatAttr":$predicted_ns,
                        "::mlir::FloatAttr":$bound_ns,
                        "::mlir::FloatAttr":$critical_path_ns,
                        "::mlir::FloatAttr":$serial_ns,
                        "::mlir::ArrayAttr":$busy_ns,
                        "int64_t":$dma_engines,
                        "::mlir::DenseI64ArrayAttr":$critical_path);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // NISA_BASE_TD
