//===- NeuronCollectives.td - collectives across cores -----*- tablegen -*-===//
//
// Collectives over a grid of logical NeuronCores, as `convert-shard-to-neuron`
// produces them from upstream `shard`: the grid's shape and the axes whose
// cores form each group are attributes, so the ops need no symbol. Each has
// a synchronous form and an asynchronous one (`neuron.collective_start` /
// `neuron.collective_done`), which `neuron-place-collectives` uses to
// overlap communication with independent arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_COLLECTIVES_TD
#define NEURON_COLLECTIVES_TD

include "dialects/neuron/IR/NeuronAttrs.td"
include "dialects/neuron/IR/NeuronTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Neuron_CollectiveReduction : I32EnumAttr<"CollectiveReduction",
    "how a collective combines the cores' values", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
      I32EnumAttrCase<"min", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::neuron";
}
def Neuron_CollectiveReductionAttr : EnumAttr<Neuron_Dialect,
    Neuron_CollectiveReduction, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

def Neuron_CollectiveKind : I32EnumAttr<"CollectiveKind",
    "a collective operation", [
      I32EnumAttrCase<"all_reduce", 0>, I32EnumAttrCase<"all_gather", 1>,
      I32EnumAttrCase<"reduce_scatter", 2>, I32EnumAttrCase<"all_to_all", 3>,
      I32EnumAttrCase<"all_slice", 4>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::neuron";
}
def Neuron_CollectiveKindAttr : EnumAttr<Neuron_Dialect, Neuron_CollectiveKind,
    "collective"> {
  let assemblyFormat = "$value";
}

class Neuron_CollectiveOp<string mnemonic, dag extra, string format>
    : Neuron_Op<mnemonic, [Pure]> {
  let arguments = !con((ins Neuron_Tensor:$input,
                            DenseI64ArrayAttr:$grid,
                            DenseI64ArrayAttr:$grid_axes), extra);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = "$input `grid` $grid `axes` $grid_axes " # format #
                       " attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Neuron_AllReduceOp : Neuron_CollectiveOp<"all_reduce",
    (ins Neuron_CollectiveReductionAttr:$reduction), "`reduction` $reduction"> {
  let summary = "Every core of a group receives the reduction of the group's tensors";
  let description = [{
    The groups are the cores that differ only in the grid coordinates
    `axes`; each core's result is the elementwise reduction of its group's
    inputs. Same shape in and out.

    ```mlir
    %y = neuron.all_reduce %x grid [2, 4] axes [1] reduction <sum>
        : tensor<128x512xf32> -> tensor<128x512xf32>
    ```
  }];
}

def Neuron_AllGatherOp : Neuron_CollectiveOp<"all_gather",
    (ins I64Attr:$axis), "`axis` $axis"> {
  let summary = "Every core of a group receives the group's tensors concatenated";
  let description = [{
    Concatenates the group's inputs along `axis`, in the order of the
    cores' linear index within the group.

    ```mlir
    %y = neuron.all_gather %x grid [4] axes [0] axis 1
        : tensor<128x128xf32> -> tensor<128x512xf32>
    ```
  }];
}

def Neuron_ReduceScatterOp : Neuron_CollectiveOp<"reduce_scatter",
    (ins Neuron_CollectiveReductionAttr:$reduction, I64Attr:$axis),
    "`reduction` $reduction `axis` $axis"> {
  let summary = "The group's reduction, split along an axis, one part per core";
  let description = [{
    Reduces the group's inputs elementwise and gives core `i` of the group
    the `i`-th of equal parts along `axis`.

    ```mlir
    %y = neuron.reduce_scatter %x grid [4] axes [0] reduction <sum> axis 0
        : tensor<512x512xf32> -> tensor<128x512xf32>
    ```
  }];
}

def Neuron_AllToAllOp : Neuron_CollectiveOp<"all_to_all",
    (ins I64Attr:$split_axis, I64Attr:$concat_axis),
    "`split` $split_axis `concat` $concat_axis"> {
  let summary = "Each core sends the i-th part of its tensor to core i of its group";
  let description = [{
    Splits each input into equal parts along `split_axis`, sends part `i`
    to core `i` of the group, and concatenates what arrives along
    `concat_axis`.

    ```mlir
    %y = neuron.all_to_all %x grid [4] axes [0] split 0 concat 1
        : tensor<512x64xf32> -> tensor<128x256xf32>
    ```
  }];
}

def Neuron_AllSliceOp : Neuron_CollectiveOp<"all_slice",
    (ins I64Attr:$axis), "`axis` $axis"> {
  let summary = "Each core of a group keeps its part of a tensor the group shares";
  let description = [{
    The input is the same on every core of a group; core `i` of the group
    keeps the `i`-th of equal parts along `axis`. No data crosses a link:
    each core copies a slice of its own tensor (upstream `shard.all_slice`,
    where a replicated value meets a split user).

    ```mlir
    %y = neuron.all_slice %x grid [4] axes [0] axis 1
        : tensor<128x512xf32> -> tensor<128x128xf32>
    ```
  }];
}

def Neuron_CollectiveStartOp : Neuron_Op<"collective_start", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Starts a collective; the work before its done overlaps with it";
  let description = [{
    The asynchronous form of `all_reduce`, `all_gather`, `reduce_scatter`,
    `all_to_all` and `all_slice` (`kind`), with the same attributes: the collective
    engine starts moving data as soon as the input is ready, and
    `neuron.collective_done` yields the result. The handle has exactly one
    use, its done. `neuron-place-collectives` adds `algorithm`, `chunks`
    and `predicted_ns` when it places one.

    ```mlir
    %h = neuron.collective_start all_reduce %x grid [4] axes [0] reduction <sum>
        : tensor<128x512xf32> -> !neuron.pending<tensor<128x512xf32>>
    %m = neuron.matmul %a, %b : (tensor<128x64xf32>, tensor<64x64xf32>) -> tensor<128x64xf32>
    %y = neuron.collective_done %h : !neuron.pending<tensor<128x512xf32>> -> tensor<128x512xf32>
    ```
  }];
  let arguments = (ins Neuron_CollectiveKindAttr:$kind, Neuron_Tensor:$input,
                   DenseI64ArrayAttr:$grid, DenseI64ArrayAttr:$grid_axes,
                   OptionalAttr<Neuron_CollectiveReductionAttr>:$reduction,
                   OptionalAttr<I64Attr>:$axis,
                   OptionalAttr<I64Attr>:$split_axis,
                   OptionalAttr<I64Attr>:$concat_axis);
  let results = (outs Neuron_PendingType:$handle);
  let assemblyFormat = [{
    $kind $input `grid` $grid `axes` $grid_axes
    (`reduction` $reduction^)? (`axis` $axis^)?
    (`split` $split_axis^)? (`concat` $concat_axis^)?
    attr-dict `:` type($input) `->` qualified(type($handle))
  }];
  let hasVerifier = 1;
}

def Neuron_CollectiveDoneOp : Neuron_Op<"collective_done", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Waits for a collective and yields its result";
  let description = [{
    ```mlir
    %y = neuron.collective_done %h : !neuron.pending<tensor<128x512xf32>> -> tensor<128x512xf32>
    ```
  }];
  let arguments = (ins Neuron_PendingType:$handle);
  let results = (outs Neuron_Tensor:$result);
  let assemblyFormat = [{
    $handle attr-dict `:` qualified(type($handle)) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // NEURON_COLLECTIVES_TD
