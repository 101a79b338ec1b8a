//===- NeuronBase.td - neuron dialect definition -----------*- tablegen -*-===//
//
// The `neuron` dialect: the graph level of neuron-mlir, on builtin tensors.
//
//===----------------------------------------------------------------------===//

#ifndef NEURON_BASE_TD
#define NEURON_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Neuron_Dialect : Dialect {
  let name = "neuron";
  let cppNamespace = "::mlir::neuron";
  let summary = "Graph-level operations for a Neuron-like accelerator";
  let description = [{
    The `neuron` dialect holds a model graph on ranked tensors after import
    from linalg-on-tensors or TOSA: contractions, convolutions, elementwise
    arithmetic and activations, reductions, normalisations, data movement and
    host fallback regions. Later passes check each op against a target
    generation's capability table, tile it into on-chip buffers and schedule
    it on the engines.

    ```mlir
    func.func @mlp(%x: tensor<4x64xf32>, %w: tensor<64x32xf32>) -> tensor<4x32xf32> {
      %0 = neuron.matmul %x, %w : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
      %1 = neuron.relu %0 : tensor<4x32xf32>
      return %1 : tensor<4x32xf32>
    }
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The module attribute naming the target every pass compiles for.
    static constexpr ::llvm::StringLiteral kTargetAttrName = "neuron.target";
    /// On a graph op, a call or a function: the user kernel (@name) that
    /// computes it on the device instead of the compiler's tiling.
    static constexpr ::llvm::StringLiteral kCustomKernelAttrName =
        "neuron.custom_kernel";
  }];
}

/// Element types the accelerator computes in. `i1` only appears as the
/// result of `neuron.compare` and the condition of `neuron.select`.
def Neuron_ComputeType : AnyTypeOf<[F32, BF16, F16, F8E4M3FN, F8E5M2, I8, I32],
    "neuron compute element type (f32, bf16, f16, f8E4M3FN, f8E5M2, i8, i32)">;
def Neuron_FloatType : AnyTypeOf<[F32, BF16, F16, F8E4M3FN, F8E5M2],
    "neuron floating-point element type (f32, bf16, f16, f8E4M3FN, f8E5M2)">;
def Neuron_IndexElementType : AnyTypeOf<[I32, I64],
    "index element type (i32 or i64)">;

def Neuron_Tensor : RankedTensorOf<[Neuron_ComputeType]>;
def Neuron_FloatTensor : RankedTensorOf<[Neuron_FloatType]>;
def Neuron_PredicateTensor : RankedTensorOf<[I1]>;
def Neuron_IndexTensor : RankedTensorOf<[Neuron_IndexElementType]>;
def Neuron_AnyTensor : RankedTensorOf<[Neuron_ComputeType, I1, I64]>;

class Neuron_Op<string mnemonic, list<Trait> traits = []>
    : Op<Neuron_Dialect, mnemonic, traits>;

#endif // NEURON_BASE_TD
