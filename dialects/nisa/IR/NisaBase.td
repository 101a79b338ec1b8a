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
    the PSUM bank size, and the tensor engine's operand limits (stationary
    free size, moving free size).

    ```mlir
    func.func @k() attributes {nisa.limits = #nisa.limits<partitions = 128,
        sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048,
        stationary_free = 128, moving_free = 512>} { return }
    ```
  }];
  let parameters = (ins "int64_t":$partitions, "int64_t":$sbuf_bytes,
                        "int64_t":$psum_bytes, "int64_t":$psum_bank_bytes,
                        "int64_t":$stationary_free, "int64_t":$moving_free);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // NISA_BASE_TD
