//===- NeuronOps.td - neuron graph operations --------------*- tablegen -*-===//
//
// Graph operations on ranked tensors. Shapes are checked by the verifiers
// wherever both sides are static; dynamic dimensions are accepted here and
// judged by the coverage check against the target's capability table.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_OPS_TD
#define NEURON_OPS_TD

include "dialects/neuron/IR/NeuronAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Contractions and convolution
//===----------------------------------------------------------------------===//

def Neuron_MatmulOp : Neuron_Op<"matmul", [Pure]> {
  let summary = "2-D matrix multiplication";
  let description = [{
    `result[m, n] = sum_k lhs[m, k] * rhs[k, n]`. The result element type is
    the operands' or a wider accumulator: f32 for floating-point operands,
    i32 for i8 operands.

    ```mlir
    %0 = neuron.matmul %a, %b : (tensor<128x64xbf16>, tensor<64x256xbf16>) -> tensor<128x256xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$lhs, Neuron_Tensor:$rhs);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_BatchMatmulOp : Neuron_Op<"batch_matmul", [Pure]> {
  let summary = "Batched matrix multiplication over a leading batch dimension";
  let description = [{
    `result[b, m, n] = sum_k lhs[b, m, k] * rhs[b, k, n]`, with the same
    accumulator rule as `neuron.matmul`.

    ```mlir
    %0 = neuron.batch_matmul %q, %k : (tensor<12x64x32xf32>, tensor<12x32x64xf32>) -> tensor<12x64x64xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$lhs, Neuron_Tensor:$rhs);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  // A rhs every batch shares (grouped-query attention's repeated keys and
  // values) makes one matmul of the batches' rows folded together, when
  // they fit one tensor-engine pass.
  let hasCanonicalizer = 1;
}

def Neuron_Conv2DOp : Neuron_Op<"conv2d", [Pure]> {
  let summary = "2-D convolution with stride, padding, dilation and groups";
  let description = [{
    A grouped 2-D convolution. `layout` names the input and filter layouts:
    `nchw_fchw` (input N,C,H,W; filter F,C/groups,KH,KW; result N,F,OH,OW),
    `nhwc_hwcf` (filter KH,KW,C/groups,F) or `nhwc_fhwc` (filter
    F,KH,KW,C/groups), both with an N,OH,OW,F result. `padding` is
    [top, bottom, left, right]. A depthwise convolution has `groups` equal to
    the channel count. The optional `bias` has shape [F].

    ```mlir
    %0 = neuron.conv2d %x, %w layout nchw_fchw strides [2, 2] padding [1, 1, 1, 1]
        : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x16x16xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$input, Neuron_Tensor:$filter,
                   Optional<Neuron_Tensor>:$bias,
                   Neuron_ConvLayoutAttr:$layout,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`bias` $bias^)? `layout` $layout
    (`strides` $strides^)? (`padding` $padding^)? (`dilations` $dilations^)?
    (`groups` $groups^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Neuron_Pool2DOp : Neuron_Op<"pool2d", [Pure]> {
  let summary = "2-D max, average or sum pooling";
  let description = [{
    Pools windows of `kernel` over the two spatial dimensions of an `nchw` or
    `nhwc` tensor. `padding` is [top, bottom, left, right]; padded elements
    never win a max and, for `avg`, count in the divisor only when
    `count_include_pad` is set.

    ```mlir
    %0 = neuron.pool2d max %x layout nchw kernel [3, 3] strides [2, 2] padding [1, 1, 1, 1]
        : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$input, Neuron_PoolKindAttr:$kind,
                   Neuron_ImageLayoutAttr:$layout, DenseI64ArrayAttr:$kernel,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                   UnitAttr:$count_include_pad);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $kind $input `layout` $layout `kernel` $kernel (`strides` $strides^)?
    (`padding` $padding^)? (`dilations` $dilations^)?
    (`count_include_pad` $count_include_pad^)? attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Neuron_BinaryOp<string mnemonic, string expr, list<Trait> traits = []>
    : Neuron_Op<mnemonic, !listconcat(traits,
        [Pure, Elementwise, SameOperandsAndResultType])> {
  let summary = "Elementwise `" # expr # "`";
  let description = [{
    Elementwise on operands of one type; broadcasting is explicit
    (`neuron.broadcast`).

    ```mlir
    %0 = neuron.}] # mnemonic # [{ %a, %b : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$lhs, Neuron_Tensor:$rhs);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Neuron_AddOp : Neuron_BinaryOp<"add", "lhs + rhs", [Commutative]> {
  let hasFolder = 1;
}
def Neuron_SubOp : Neuron_BinaryOp<"sub", "lhs - rhs"> { let hasFolder = 1; }
def Neuron_MulOp : Neuron_BinaryOp<"mul", "lhs * rhs", [Commutative]> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def Neuron_DivOp : Neuron_BinaryOp<"div", "lhs / rhs"> {
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}
def Neuron_MaxOp : Neuron_BinaryOp<"max", "max(lhs, rhs)", [Commutative]> {
  let hasCanonicalizer = 1;
}
def Neuron_MinOp : Neuron_BinaryOp<"min", "min(lhs, rhs)", [Commutative]>;
def Neuron_PowOp : Neuron_BinaryOp<"pow", "lhs ^ rhs">;

class Neuron_UnaryOp<string mnemonic, string expr, Type type = Neuron_FloatTensor,
                     list<Trait> traits = []>
    : Neuron_Op<mnemonic, !listconcat(traits,
        [Pure, Elementwise, SameOperandsAndResultType])> {
  let summary = "Elementwise `" # expr # "`";
  let description = [{
    ```mlir
    %0 = neuron.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Neuron_ExpOp : Neuron_UnaryOp<"exp", "e^x">;
def Neuron_LogOp : Neuron_UnaryOp<"log", "ln(x)">;
def Neuron_TanhOp : Neuron_UnaryOp<"tanh", "tanh(x)">;
def Neuron_SigmoidOp : Neuron_UnaryOp<"sigmoid", "1 / (1 + e^-x)">;
def Neuron_ReluOp : Neuron_UnaryOp<"relu", "max(x, 0)", Neuron_Tensor>;
def Neuron_SiluOp : Neuron_UnaryOp<"silu", "x * sigmoid(x)">;
def Neuron_RsqrtOp : Neuron_UnaryOp<"rsqrt", "1 / sqrt(x)">;
def Neuron_SqrtOp : Neuron_UnaryOp<"sqrt", "sqrt(x)">;
def Neuron_NegOp : Neuron_UnaryOp<"neg", "-x", Neuron_Tensor> {
  let hasFolder = 1;
}
def Neuron_AbsOp : Neuron_UnaryOp<"abs", "|x|", Neuron_Tensor>;
def Neuron_ReciprocalOp : Neuron_UnaryOp<"reciprocal", "1 / x">;
def Neuron_ErfOp : Neuron_UnaryOp<"erf", "erf(x)">;

def Neuron_GeluOp : Neuron_Op<"gelu", [Pure, Elementwise, SameOperandsAndResultType]> {
  let summary = "Elementwise GELU, exact (erf) or tanh-approximated";
  let description = [{
    `x * 0.5 * (1 + erf(x / sqrt(2)))`, or with `approximate tanh`
    `x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))`.

    ```mlir
    %0 = neuron.gelu %x approximate tanh : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input,
                   DefaultValuedAttr<Neuron_GeluApproximationAttr,
                     "::mlir::neuron::GeluApproximation::none">:$approximate);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`approximate` $approximate^)? attr-dict `:` type($result)
  }];
}

def Neuron_CompareOp : Neuron_Op<"compare", [Pure, Elementwise,
    SameTypeOperands, SameOperandsAndResultShape]> {
  let summary = "Elementwise comparison producing an i1 mask";
  let description = [{
    ```mlir
    %0 = neuron.compare gt %a, %b : tensor<4x8xf32> -> tensor<4x8xi1>
    ```
  }];
  let arguments = (ins Neuron_ComparePredicateAttr:$predicate,
                   Neuron_Tensor:$lhs, Neuron_Tensor:$rhs);
  let results = (outs Neuron_PredicateTensor:$result);
  let assemblyFormat = [{
    $predicate $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)
  }];
}

def Neuron_SelectOp : Neuron_Op<"select", [Pure, Elementwise,
    SameOperandsAndResultShape, AllTypesMatch<["on_true", "on_false", "result"]>]> {
  let summary = "Elementwise choice by an i1 mask";
  let description = [{
    ```mlir
    %0 = neuron.select %mask, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Neuron_PredicateTensor:$condition,
                   Neuron_Tensor:$on_true, Neuron_Tensor:$on_false);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` type($condition) `,` type($result)
  }];
  let hasFolder = 1;
}

def Neuron_CastOp : Neuron_Op<"cast", [Pure, Elementwise,
    SameOperandsAndResultShape]> {
  let summary = "Elementwise conversion between element types";
  let description = [{
    Float to float rounds to nearest even; float to integer truncates toward
    zero and saturates; integer to float is exact where representable.

    ```mlir
    %0 = neuron.cast %x : tensor<4x8xf32> -> tensor<4x8xbf16>
    ```
  }];
  let arguments = (ins Neuron_AnyTensor:$input);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

class Neuron_ReduceOp<string mnemonic, string what>
    : Neuron_Op<mnemonic, [Pure, SameOperandsAndResultElementType]> {
  let summary = "Reduce with " # what # " over the given axes";
  let description = [{
    Reduces `input` over `axes` (sorted, unique, in range). With
    `keep_dims` each reduced dimension stays with size 1; without it the
    reduced dimensions are dropped.

    ```mlir
    %0 = neuron.}] # mnemonic # [{ %x axes [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$input, DenseI64ArrayAttr:$axes,
                   UnitAttr:$keep_dims);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `axes` $axes (`keep_dims` $keep_dims^)? attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_ReduceSumOp : Neuron_ReduceOp<"reduce_sum", "addition">;
def Neuron_ReduceMaxOp : Neuron_ReduceOp<"reduce_max", "maximum">;
def Neuron_ReduceMinOp : Neuron_ReduceOp<"reduce_min", "minimum">;
def Neuron_ReduceMeanOp : Neuron_ReduceOp<"reduce_mean", "the arithmetic mean">;

def Neuron_SoftmaxOp : Neuron_Op<"softmax", [Pure, SameOperandsAndResultShape]> {
  let summary = "Softmax along one axis";
  let description = [{
    `exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`, computed at the
    input's precision and rounded once to the result's element type: the
    input's, or the float type named after `->` (a softmax in f32 whose
    probabilities a model casts to bf16 stores them in bf16).

    ```mlir
    %0 = neuron.softmax %x axis 1 : tensor<16x64xf32>
    %1 = neuron.softmax %x axis 1 : tensor<16x64xf32> -> tensor<16x64xbf16>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Neuron_FloatTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Neuron_LayerNormOp : Neuron_Op<"layer_norm", [Pure, AttrSizedOperandSegments]> {
  let summary = "Layer normalisation over the trailing dimensions from `axis`";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * weight + bias`, mean and (biased)
    variance taken over dimensions `axis` to the last. `weight` and `bias`
    are optional and shaped like those trailing dimensions.

    ```mlir
    %0 = neuron.layer_norm %x weight %g bias %b axis 2 epsilon 1.0e-05
        : (tensor<1x12x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<1x12x128xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input,
                   Optional<Neuron_FloatTensor>:$weight,
                   Optional<Neuron_FloatTensor>:$bias,
                   I64Attr:$axis, F64Attr:$epsilon);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `axis` $axis `epsilon` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Neuron_RmsNormOp : Neuron_Op<"rms_norm", [Pure]> {
  let summary = "RMS normalisation over the trailing dimensions from `axis`";
  let description = [{
    `x / sqrt(mean(x^2) + epsilon) * weight`, the mean taken over dimensions
    `axis` to the last; `weight` is optional.

    ```mlir
    %0 = neuron.rms_norm %x weight %g axis 1 epsilon 1.0e-06
        : (tensor<40x4096xf32>, tensor<4096xf32>) -> tensor<40x4096xf32>
    ```
  }];
  let arguments = (ins Neuron_FloatTensor:$input,
                   Optional<Neuron_FloatTensor>:$weight,
                   I64Attr:$axis, F64Attr:$epsilon);
  let results = (outs Neuron_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? `axis` $axis `epsilon` $epsilon
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Neuron_TransposeOp : Neuron_Op<"transpose", [Pure,
    SameOperandsAndResultElementType]> {
  let summary = "Permutes the dimensions of a tensor";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`.

    ```mlir
    %0 = neuron.transpose %x permutation [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Neuron_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = [{
    $input `permutation` $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let extraClassDeclaration = [{
    /// Whether the result is used, and only as an operand of matmuls and
    /// batch_matmuls or as the filter of convolutions on the tensor engine
    /// (isEngineTiled, one group), directly or through a fusion's block
    /// argument (so never returned): they read their operand through the
    /// permuted view, and the transpose moves nothing.
    bool isOperandView();
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Neuron_ReshapeOp : Neuron_Op<"reshape", [Pure,
    SameOperandsAndResultElementType]> {
  let summary = "Reinterprets a tensor with another shape of the same size";
  let description = [{
    Row-major order is kept.

    ```mlir
    %0 = neuron.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Neuron_AnyTensor:$input);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_BroadcastOp : Neuron_Op<"broadcast", [Pure,
    SameOperandsAndResultElementType]> {
  let summary = "Broadcasts a tensor to a larger shape";
  let description = [{
    Input dimension `i` becomes result dimension `dimensions[i]`
    (strictly increasing); it must have the result's size or size 1. Result
    dimensions not named are new.

    ```mlir
    %0 = neuron.broadcast %bias dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Neuron_AnyTensor:$input, DenseI64ArrayAttr:$dimensions);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = [{
    $input `dimensions` $dimensions attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Neuron_SliceOp : Neuron_Op<"slice", [Pure,
    SameOperandsAndResultElementType, SameOperandsAndResultRank]> {
  let summary = "Extracts a strided window of a tensor";
  let description = [{
    `result[i...] = input[offsets + i * strides ...]`; the window's sizes are
    the result's shape.

    ```mlir
    %0 = neuron.slice %x offsets [0, 4] strides [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Neuron_AnyTensor:$input, DenseI64ArrayAttr:$offsets,
                   DenseI64ArrayAttr:$strides);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = [{
    $input `offsets` $offsets `strides` $strides attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_ConcatOp : Neuron_Op<"concat", [Pure,
    SameOperandsAndResultElementType]> {
  let summary = "Joins tensors along one axis";
  let description = [{
    ```mlir
    %0 = neuron.concat %a, %b axis 1 : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
    ```
  }];
  let arguments = (ins Variadic<Neuron_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs `axis` $axis attr-dict `:` `(` type($inputs) `)` `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_PadOp : Neuron_Op<"pad", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Pads a tensor with a constant";
  let description = [{
    Adds `low[i]` elements before and `high[i]` after dimension `i`, all
    equal to `value` (converted to the element type).

    ```mlir
    %0 = neuron.pad %x low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0
        : tensor<1x3x32x32xf32> -> tensor<1x3x34x34xf32>
    ```
  }];
  let arguments = (ins Neuron_AnyTensor:$input, DenseI64ArrayAttr:$low,
                   DenseI64ArrayAttr:$high, F64Attr:$value);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = [{
    $input `low` $low `high` $high `value` $value attr-dict
    `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Neuron_GatherOp : Neuron_Op<"gather", [Pure]> {
  let summary = "Gathers slices of a tensor along one axis by index";
  let description = [{
    `result = input[:axis] ++ indices.shape ++ input[axis+1:]`, taking
    `input[..., indices[j...], ...]`; an embedding lookup is a gather on
    axis 0. Indices out of range are an error at run time.

    ```mlir
    %0 = neuron.gather %table[%ids] axis 0 : (tensor<30522x128xf32>, tensor<1x12xi64>) -> tensor<1x12x128xf32>
    ```
  }];
  let arguments = (ins Neuron_Tensor:$input, Neuron_IndexTensor:$indices,
                   I64Attr:$axis);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $input `[` $indices `]` `axis` $axis attr-dict
    `:` `(` type($input) `,` type($indices) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_DynamicSliceOp : Neuron_Op<"dynamic_slice", [Pure]> {
  let summary = "Reads a slice of a tensor at a position read at run time";
  let description = [{
    `result[..., i, ...] = input[..., offset + i, ...]` along `axis`; the
    result spans every other dimension of `input` whole. `offset` is a
    one-element integer tensor read on the device when the op runs (a
    decode step's position into a RoPE table); a value outside
    [0, input[axis] - result[axis]] stops the run with an error naming the
    instruction and the value. It lowers to one DMA whose source start
    moves at run time.

    ```mlir
    %0 = neuron.dynamic_slice %cos[%pos] axis 0
        : (tensor<2048x64xf32>, tensor<i32>) -> tensor<1x64xf32>
    ```
  }];
  let arguments = (ins Neuron_AnyTensor:$input, Neuron_IndexTensor:$offset,
                   I64Attr:$axis);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = [{
    $input `[` $offset `]` `axis` $axis attr-dict
    `:` `(` type($input) `,` type($offset) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_DynamicUpdateSliceOp : Neuron_Op<"dynamic_update_slice", [Pure,
    AllTypesMatch<["dest", "result"]>]> {
  let summary = "Writes a slice into a tensor at a position read at run time";
  let description = [{
    `result` is `dest` with `result[..., offset + i, ...] = update[..., i,
    ...]` along `axis`; `update` spans every other dimension of `dest`
    whole. `offset` is a one-element integer tensor read on the device when
    the op runs (a decode step's position); a value outside
    [0, dest[axis] - update[axis]] stops the run with an error naming the
    instruction and the value. Writing a decode step's key or value into its
    KV cache is one such op; it lowers to DMAs whose start moves at run
    time, and writes `dest`'s buffer in place where `dest` is not read
    after it.

    ```mlir
    %0 = neuron.dynamic_update_slice %row into %cache[%pos] axis 0
        : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i32>) -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins Neuron_AnyTensor:$update, Neuron_AnyTensor:$dest,
                   Neuron_IndexTensor:$offset, I64Attr:$axis);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = [{
    $update `into` $dest `[` $offset `]` `axis` $axis attr-dict
    `:` `(` type($update) `,` type($dest) `,` type($offset) `)` `->` type($result)
  }];
  let hasVerifier = 1;
}

def Neuron_ConstantOp : Neuron_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor";
  let description = [{
    ```mlir
    %0 = neuron.constant dense<0.0> : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Neuron_AnyTensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Host fallback
//===----------------------------------------------------------------------===//

def Neuron_HostCallOp : Neuron_Op<"host_call", [IsolatedFromAbove,
    SingleBlock, RecursiveMemoryEffects]> {
  let summary = "A region the runtime runs on the host";
  let description = [{
    Holds operations the target cannot run. The runtime copies `inputs` to
    the host, runs the region with reference kernels and copies the results
    back; `reason` says why the region is here.

    ```mlir
    %0 = neuron.host_call (%x) reason "erf: not supported on inf2" : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %e = math.erf %a : tensor<4xf32>
      neuron.yield %e : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs,
                   OptionalAttr<StrAttr>:$reason);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` (`reason` $reason^)? attr-dict
    `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def Neuron_FusionOp : Neuron_Op<"fusion", [IsolatedFromAbove, SingleBlock,
    RecursiveMemoryEffects]> {
  let summary = "Ops computed tile by tile without leaving the chip";
  let description = [{
    Made by `neuron-fuse`: a producer (a matmul, a convolution the engines
    tile, or an elementwise op) and the elementwise ops that consume it. The tiling computes every op of
    the region on the same on-chip tile before the next tile is loaded, so
    only `inputs` are read from HBM and only `results` are written back.

    ```mlir
    %0 = neuron.fusion (%x, %w, %b) : (tensor<64x32xf32>, tensor<32x16xf32>, tensor<16xf32>) -> tensor<64x16xf32> {
    ^bb0(%a: tensor<64x32xf32>, %c: tensor<32x16xf32>, %d: tensor<16xf32>):
      %m = neuron.matmul %a, %c : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
      %e = neuron.broadcast %d dimensions [1] : tensor<16xf32> -> tensor<64x16xf32>
      %s = neuron.add %m, %e : tensor<64x16xf32>
      %r = neuron.relu %s : tensor<64x16xf32>
      neuron.yield %r : tensor<64x16xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def Neuron_YieldOp : Neuron_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["HostCallOp", "FusionOp"]>]> {
  let summary = "Returns the results of a host_call or fusion region";
  let description = [{
    ```mlir
    neuron.yield %e : tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Neuron_LaunchOp : Neuron_Op<"launch", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs one kernel of the program";
  let description = [{
    A step of a program function (`neuron.program`): runs the kernel
    `@kernel` on `inputs` and returns its results. Repeated layers launch
    the same kernel with different inputs (their weights are inputs too).
    The kernel is a function on the same tensor types, or, after
    `convert-neuron-to-nisa`, its nisa form: one HBM buffer of the same shape
    and element type per input, then one per result.

    `in_place` gives, per result, the input whose buffer the kernel writes
    it into, or -1: that input is read by this launch alone and is gone
    after it (a KV cache updated at a position, with no copy of the rest).
    The executable records the result and the input as one tensor.

    `awaits` lists inputs (by index) that are collective results (a
    `neuron.collective_done`, through reshapes and a join of collective
    results) finished right before this launch: the executable starts the
    launch while those collectives are still in flight, and the kernel's
    reads of their results wait for them inside, so its other work (its
    weights' loads) overlaps the transfer (neuron-place-collectives sets it).

    ```mlir
    %y = neuron.launch @layer(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %r = neuron.collective_done %h : tensor<4x8xf32>
    %z = neuron.launch @next(%r, %w) {awaits = array<i64: 0>}
        : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %c = neuron.launch @write(%cache, %row, %pos) {in_place = array<i64: 0>}
        : (tensor<16x64xf32>, tensor<1x64xf32>, tensor<i32>) -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                   Variadic<AnyRankedTensor>:$inputs,
                   OptionalAttr<DenseI64ArrayAttr>:$in_place,
                   OptionalAttr<DenseI64ArrayAttr>:$awaits);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$results, "::llvm::StringRef":$kernel,
                   "::mlir::ValueRange":$inputs), [{
      build($_builder, $_state, results, kernel, inputs,
            ::mlir::DenseI64ArrayAttr(), ::mlir::DenseI64ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Neuron_CustomKernelOp : Neuron_Op<"custom_kernel", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Computes its results with a user-written nisa kernel";
  let description = [{
    An op of the graph that a user kernel computes on the device instead of
    the compiler's tiling (`neuron-bind-kernels` writes it). `@kernel` is a
    function in nisa form: one HBM buffer of the shape and element type of
    each input, then one of each result, and no results. `op` names what
    it replaces (an op name, or the called function's `@name`), for the
    coverage report and the remarks. The kernel is verified against the
    target's limits, allocated, scheduled and synchronised like the
    compiler's own; it is launched as a kernel of its own.

    ```mlir
    %y = neuron.custom_kernel @rms_norm(%x, %w) {op = "neuron.rms_norm"}
        : (tensor<128x512xf32>, tensor<512xf32>) -> tensor<128x512xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, StrAttr:$op,
                   Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
}

include "dialects/neuron/IR/NeuronCollectives.td"

#endif // NEURON_OPS_TD
