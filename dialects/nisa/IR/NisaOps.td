//===- NisaOps.td - nisa engine instructions ---------------*- tablegen -*-===//
//
// One op per engine instruction. Operands are tiles (memrefs in a nisa
// memory space); the last one is written. Shapes and spaces are checked by
// the verifiers, against the enclosing function's `nisa.limits` when set.
//
//===----------------------------------------------------------------------===//

#ifndef NISA_OPS_TD
#define NISA_OPS_TD

include "dialects/nisa/IR/NisaBase.td"
include "dialects/nisa/IR/NisaInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Nisa_Tile : MemRefRankOf<[AnyFloat, AnySignlessInteger], [1, 2, 3, 4, 5, 6, 7, 8]>;

class Nisa_EngineOp<string mnemonic, string engine, list<Trait> traits = []>
    : Nisa_Op<mnemonic, !listconcat(traits,
        [DeclareOpInterfaceMethods<Nisa_EngineOpInterface>,
         DeclareOpInterfaceMethods<MemoryEffectsOpInterface>])> {
  code engineKind = engine;
  let extraClassDefinition = [{
    ::mlir::neuron::EngineKind $cppClass::getEngine() {
      return ::mlir::neuron::EngineKind::}] # engine # [{;
    }
    void $cppClass::getEffects(
        ::llvm::SmallVectorImpl<::mlir::SideEffects::EffectInstance<
            ::mlir::MemoryEffects::Effect>> &effects) {
      ::mlir::nisa::addTileEffects(*this, effects);
    }
  }];
  let hasVerifier = 1;
}

def Nisa_MatmulOp : Nisa_EngineOp<"matmul", "tensor"> {
  let summary = "Tensor engine: dst[M, N] (+)= stationary[K, M]^T x moving[K, N]";
  let description = [{
    Multiplies on the systolic array, contracting over the partition
    dimension K of both SBUF operands, into a PSUM tile in fp32. With
    `accumulate` the product is added to `dst` (accumulation over K tiles);
    without it `dst` is overwritten. In a loop over K, `restart` names the
    induction variables the sum runs over: on the iteration where they are
    all 0 the matmul overwrites `dst`, starting the sum, and it accumulates
    on every other. The moving operand is [K, N] or [K, rows, columns] with
    any strides along its free dimensions (the array reads it through an
    access pattern, as a convolution's filter tap reads its window of an
    input tile with the strides), its N = rows x columns in row-major order.

    `double_row` is the FP8 double-row mode (NKI's `perf_mode=double_row`,
    where the target's `fp8_rows` limit is 2): each partition contracts two
    K rows, stationary [K, 2, M] and moving [K, 2, N], so one instruction
    sums 2 x K products per result element in the time a single-row FP8
    matmul takes for K. Row r of the stationary meets row r of the moving.

    ```mlir
    affine.for %k = 0 to 16 {
      nisa.matmul %s, %m, %acc accumulate restart(%k) : memref<128x128xbf16, #nisa.memory<sbuf>>,
          memref<128x512xbf16, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<psum>>
    }
    ```
  }];
  let arguments = (ins Nisa_Tile:$stationary, Nisa_Tile:$moving,
                   Nisa_Tile:$dst, UnitAttr:$accumulate,
                   Variadic<Index>:$restart, UnitAttr:$double_row);
  let assemblyFormat = [{
    $stationary `,` $moving `,` $dst (`double_row` $double_row^)?
    (`accumulate` $accumulate^)?
    (`restart` `(` $restart^ `)`)? attr-dict
    `:` type($stationary) `,` type($moving) `,` type($dst)
  }];
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::Value> getReadTiles() {
      return {getStationary(), getMoving()};
    }
    ::mlir::Value getWrittenTile() { return getDst(); }
  }];
}

def Nisa_TransposeOp : Nisa_EngineOp<"transpose", "tensor"> {
  let summary = "Tensor engine: dst[F, P] = src[P, F]^T";
  let description = [{
    A transpose through the systolic array (a matmul by the identity) from
    SBUF into PSUM.

    ```mlir
    nisa.transpose %a, %t : memref<128x64xf32, #nisa.memory<sbuf>>, memref<64x128xf32, #nisa.memory<psum>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$src, Nisa_Tile:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)";
}

def Nisa_ActivationOp : Nisa_EngineOp<"activation", "scalar",
                                      [AttrSizedOperandSegments]> {
  let summary = "Scalar engine: dst = function(src * scale + bias)";
  let description = [{
    Applies an activation function with a fused scale (an immediate, times
    an optional per-partition factor from a [P, 1] `scales` tile, as NKI's
    `activation` takes a vector scale) and an optional per-partition bias
    (a [P, 1] tile); reads SBUF or PSUM, writes SBUF. Evacuating a matmul's
    PSUM result with its epilogue is one activation; dividing each row of a
    tile by its own sum (a softmax's normalisation) is one with `scales`
    the sums' reciprocals.

    ```mlir
    nisa.activation gelu_tanh %acc, %out scale 1.0 bias %b : memref<128x512xf32, #nisa.memory<psum>>,
        memref<128x512xbf16, #nisa.memory<sbuf>>, memref<128x1xf32, #nisa.memory<sbuf>>
    nisa.activation identity %e, %y scales(%r : memref<128x1xf32, #nisa.memory<sbuf>>)
        : memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$src, Nisa_Tile:$dst,
                   Optional<Nisa_Tile>:$bias,
                   Optional<Nisa_Tile>:$scales,
                   Nisa_ActivationFunctionAttr:$function,
                   DefaultValuedAttr<F64Attr, "1.0">:$scale);
  let assemblyFormat = [{
    $function $src `,` $dst (`scale` $scale^)? (`bias` $bias^)?
    (`scales` `(` $scales^ `:` type($scales) `)`)? attr-dict
    `:` type($src) `,` type($dst) (`,` type($bias)^)?
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$src, "::mlir::Value":$dst,
                   "::mlir::Value":$bias,
                   "::mlir::nisa::ActivationFunctionAttr":$function,
                   "::mlir::FloatAttr":$scale), [{
      build($_builder, $_state, src, dst, bias, ::mlir::Value(), function,
            scale);
    }]>
  ];
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::Value> getReadTiles() {
      ::llvm::SmallVector<::mlir::Value> reads{getSrc()};
      if (getBias())
        reads.push_back(getBias());
      if (getScales())
        reads.push_back(getScales());
      return reads;
    }
    ::mlir::Value getWrittenTile() { return getDst(); }
  }];
}

def Nisa_TensorTensorOp : Nisa_EngineOp<"tensor_tensor", "vector"> {
  let summary = "Vector engine: dst = lhs op rhs, elementwise";
  let description = [{
    ```mlir
    nisa.tensor_tensor <add> %a, %b, %c : memref<128x512xf32, #nisa.memory<sbuf>>,
        memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$lhs, Nisa_Tile:$rhs, Nisa_Tile:$dst,
                   Nisa_AluOpAttr:$op);
  let assemblyFormat = [{
    $op $lhs `,` $rhs `,` $dst attr-dict `:` type($lhs) `,` type($rhs) `,` type($dst)
  }];
}

def Nisa_TensorScalarOp : Nisa_EngineOp<"tensor_scalar", "vector"> {
  let summary = "Vector engine: dst = src op scalar, elementwise";
  let description = [{
    The scalar is an immediate (`scalar`), or one value per partition read
    from a [P, 1] tile (`scalars`), as NKI's `tensor_scalar` takes a
    constant or a vector: partition `p` of `src` is combined with
    `scalars[p, 0]`. Scaling each row of a tile by its own factor (a norm's
    reciprocal, a softmax's denominator) is one instruction.

    ```mlir
    nisa.tensor_scalar <multiply> %a, %b scalar 0.125 : memref<128x512xf32, #nisa.memory<sbuf>>,
        memref<128x512xf32, #nisa.memory<sbuf>>
    nisa.tensor_scalar <divide> %a, %b scalars %sum : memref<128x512xf32, #nisa.memory<sbuf>>,
        memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x1xf32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$src, Optional<Nisa_Tile>:$scalars,
                   Nisa_Tile:$dst, Nisa_AluOpAttr:$op,
                   OptionalAttr<F64Attr>:$scalar);
  let assemblyFormat = [{
    $op $src `,` $dst (`scalar` $scalar^)? (`scalars` $scalars^)? attr-dict
    `:` type($src) `,` type($dst) (`,` type($scalars)^)?
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$src, "::mlir::Value":$dst,
                   "::mlir::nisa::AluOpAttr":$op, "::mlir::FloatAttr":$scalar), [{
      build($_builder, $_state, src, ::mlir::Value(), dst, op, scalar);
    }]>
  ];
}

def Nisa_ScalarTensorTensorOp
    : Nisa_EngineOp<"scalar_tensor_tensor", "vector"> {
  let summary = "Vector engine: dst = (src op scalar) op1 rhs, elementwise";
  let description = [{
    Two operators in one instruction, as NKI's `scalar_tensor_tensor`:
    `src` combined with a scalar (an immediate `scalar`, or one value per
    partition from a [P, 1] `scalars` tile, as `tensor_scalar` takes), then
    with the tile `rhs` of `src`'s shape. The intermediate is fp32. It
    costs what a `tensor_tensor` does (NKI ISA: the scalar step is free),
    so a multiply-accumulate, `acc = (x * w) + acc`, is one instruction
    where `tensor_scalar` and `tensor_tensor` take two.

    ```mlir
    nisa.scalar_tensor_tensor <multiply> <add> %x, %acc, %acc scalars %w
        : memref<128x512xf32, #nisa.memory<sbuf>>,
          memref<128x512xf32, #nisa.memory<sbuf>>,
          memref<128x512xf32, #nisa.memory<sbuf>>,
          memref<128x1xf32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$src, Optional<Nisa_Tile>:$scalars,
                   Nisa_Tile:$rhs, Nisa_Tile:$dst, Nisa_AluOpAttr:$op,
                   Nisa_AluOpAttr:$op1, OptionalAttr<F64Attr>:$scalar);
  let assemblyFormat = [{
    $op $op1 $src `,` $rhs `,` $dst (`scalar` $scalar^)?
    (`scalars` $scalars^)? attr-dict `:` type($src) `,` type($rhs) `,`
    type($dst) (`,` type($scalars)^)?
  }];
}

def Nisa_SelectOp : Nisa_EngineOp<"select", "vector"> {
  let summary = "Vector engine: dst = predicate != 0 ? on_true : on_false";
  let description = [{
    Chooses each element of `on_true` where `predicate` is non-zero (a mask
    from a comparison, of any element type) and of `on_false` elsewhere.
    The chosen element is copied as it is, so infinities and NaNs pass
    through, which no arithmetic blend (`f + p * (t - f)`) does.

    ```mlir
    nisa.select %mask, %a, %b, %c : memref<128x512xi1, #nisa.memory<sbuf>>,
        memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<sbuf>>,
        memref<128x512xf32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$predicate, Nisa_Tile:$on_true,
                   Nisa_Tile:$on_false, Nisa_Tile:$dst);
  let assemblyFormat = [{
    $predicate `,` $on_true `,` $on_false `,` $dst attr-dict `:`
    type($predicate) `,` type($on_true) `,` type($on_false) `,` type($dst)
  }];
}

def Nisa_TensorReduceOp : Nisa_EngineOp<"tensor_reduce", "vector"> {
  let summary = "Vector engine: reduce the free dimensions of each partition";
  let description = [{
    Reduces `src[P, F...]` over all its free dimensions into `dst[P, 1]`
    (or `dst[P, 1, ..., 1]`: one element per partition of a larger tile).

    ```mlir
    nisa.tensor_reduce max %a, %m : memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x1xf32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$src, Nisa_Tile:$dst, Nisa_AluOpAttr:$op);
  let assemblyFormat = [{
    $op $src `,` $dst attr-dict `:` type($src) `,` type($dst)
  }];
}

def Nisa_MemsetOp : Nisa_EngineOp<"memset", "gpsimd"> {
  let summary = "GpSimd engine: fill a tile with a constant";
  let description = [{
    ```mlir
    nisa.memset %t value 0.0 : memref<128x512xf32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$dst, F64Attr:$value);
  let assemblyFormat = "$dst `value` $value attr-dict `:` type($dst)";
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::Value> getReadTiles() { return {}; }
    ::mlir::Value getWrittenTile() { return getDst(); }
  }];
}

def Nisa_IotaOp : Nisa_EngineOp<"iota", "gpsimd"> {
  let summary = "GpSimd engine: dst[p, f] = p * partition_step + f";
  let description = [{
    Fills a tile with indices (the base of gathers and masks).

    ```mlir
    nisa.iota %t partition_step 512 : memref<128x512xi32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$dst, I64Attr:$partition_step);
  let assemblyFormat = [{
    $dst `partition_step` $partition_step attr-dict `:` type($dst)
  }];
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::Value> getReadTiles() { return {}; }
    ::mlir::Value getWrittenTile() { return getDst(); }
  }];
}

def Nisa_GatherOp : Nisa_EngineOp<"gather", "gpsimd"> {
  let summary = "GpSimd engine: dst[p, :] = table[indices[p, 0], :]";
  let description = [{
    Gathers rows of an HBM table by index: partition `p` of `dst` receives
    row `indices[p, 0]` of `table`. The GpSimd engine reads the [P, 1] i32
    index tile and issues one indirect DMA descriptor per partition. `table`
    is an [R, C] HBM access pattern; a column window of a wider table is a
    view of it (`memref.subview`), so long rows are gathered in column tiles
    that each fit a partition. An index outside [0, R) is an error at run
    time, never a read outside the table.

    ```mlir
    nisa.gather %table[%ids], %rows : memref<30522x128xf32, #nisa.memory<hbm>>,
        memref<12x1xi32, #nisa.memory<sbuf>>, memref<12x128xf32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$table, Nisa_Tile:$indices, Nisa_Tile:$dst);
  let assemblyFormat = [{
    $table `[` $indices `]` `,` $dst attr-dict
    `:` type($table) `,` type($indices) `,` type($dst)
  }];
}

def Nisa_DmaCopyOp : Nisa_EngineOp<"dma_copy", "dma"> {
  let summary = "DMA: copy a tile between memory spaces on one queue";
  let description = [{
    Copies `src` to `dst`, which hold the same number of elements of the
    same type, in row-major order; `queue` names the DMA queue. A queue
    starts its transfers in program order, each on any free DMA engine of
    the core (so the transfers of a loop move side by side), and completes
    them in program order; the queues take free engines in turn.

    With `offset`, the start of one HBM side moves at run time: of `dst`
    along its dimension `dst_dim`, or of `src` along `src_dim`, by `v`
    steps, where `v` is the i32 in the one-element SBUF tile `offset` when
    the transfer starts (a dynamic start address, as NKI's `dma_copy` takes
    with descriptor generation on the device). `v` must lie in
    [0, limit]; any other value stops the run with an error naming the
    instruction and the value, before a byte moves. A KV cache written at
    a decode step's position, or a table row read at it, is one such
    transfer.

    ```mlir
    nisa.dma_copy %h, %s queue 0 : memref<128x512xbf16, #nisa.memory<hbm>>, memref<128x512xbf16, #nisa.memory<sbuf>>
    nisa.dma_copy %row, %cache queue 1 offset %pos limit 15 dst_dim 0 : memref<1x64xf32, #nisa.memory<hbm>>,
        memref<1x64xf32, strided<[64, 1]>, #nisa.memory<hbm>>, memref<1x1xi32, #nisa.memory<sbuf>>
    ```
  }];
  let arguments = (ins Nisa_Tile:$src, Optional<Nisa_Tile>:$offset,
                   Nisa_Tile:$dst,
                   ConfinedAttr<I64Attr, [IntNonNegative]>:$queue,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$limit,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$src_dim,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$dst_dim);
  let assemblyFormat = [{
    $src `,` $dst `queue` $queue (`offset` $offset^ `limit` $limit)?
    (`src_dim` $src_dim^)? (`dst_dim` $dst_dim^)? attr-dict
    `:` type($src) `,` type($dst) (`,` type($offset)^)?
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$src, "::mlir::Value":$dst,
                   "::mlir::IntegerAttr":$queue), [{
      build($_builder, $_state, src, ::mlir::Value(), dst, queue,
            ::mlir::IntegerAttr(), ::mlir::IntegerAttr(),
            ::mlir::IntegerAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The side whose start `offset` moves (`src` with `src_dim`, `dst`
    /// with `dst_dim`) and the dimension; null without an offset.
    ::mlir::Value getMovedSide();
    std::optional<uint64_t> getMovedDim() {
      return getSrcDim() ? getSrcDim() : getDstDim();
    }
    ::mlir::LogicalResult verifyDynamicStart();
  }];
}

#endif // NISA_OPS_TD
