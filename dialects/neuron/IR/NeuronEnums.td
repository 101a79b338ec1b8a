//===- NeuronEnums.td - neuron enumerations ----------------*- tablegen -*-===//

#ifndef NEURON_ENUMS_TD
#define NEURON_ENUMS_TD

include "dialects/neuron/IR/NeuronBase.td"
include "mlir/IR/EnumAttr.td"

def Neuron_EngineKind : I32EnumAttr<"EngineKind",
    "an execution resource of a NeuronCore", [
      I32EnumAttrCase<"tensor", 0>, I32EnumAttrCase<"vector", 1>,
      I32EnumAttrCase<"scalar", 2>, I32EnumAttrCase<"gpsimd", 3>,
      I32EnumAttrCase<"dma", 4>, I32EnumAttrCase<"collective", 5>,
      I32EnumAttrCase<"host", 6>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::neuron";
}
def Neuron_EngineKindAttr : EnumAttr<Neuron_Dialect, Neuron_EngineKind, "engine"> {
  let assemblyFormat = "`<` $value `>`";
}

def Neuron_ConvLayout : I32EnumAttr<"ConvLayout",
    "operand layouts of a 2-D convolution (input_filter)", [
      I32EnumAttrCase<"nchw_fchw", 0>, I32EnumAttrCase<"nhwc_hwcf", 1>,
      I32EnumAttrCase<"nhwc_fhwc", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::neuron";
}
def Neuron_ConvLayoutAttr : EnumAttr<Neuron_Dialect, Neuron_ConvLayout, "conv_layout"> {
  let assemblyFormat = "$value";
}

def Neuron_ImageLayout : I32EnumAttr<"ImageLayout",
    "layout of a 4-D image tensor", [
      I32EnumAttrCase<"nchw", 0>, I32EnumAttrCase<"nhwc", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::neuron";
}
def Neuron_ImageLayoutAttr : EnumAttr<Neuron_Dialect, Neuron_ImageLayout, "layout"> {
  let assemblyFormat = "$value";
}

def Neuron_PoolKind : I32EnumAttr<"PoolKind", "pooling reduction", [
      I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"avg", 1>,
      I32EnumAttrCase<"sum", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::neuron";
}
def Neuron_PoolKindAttr : EnumAttr<Neuron_Dialect, Neuron_PoolKind, "pool_kind"> {
  let assemblyFormat = "$value";
}

def Neuron_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how gelu is evaluated", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"tanh", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::neuron";
}
def Neuron_GeluApproximationAttr : EnumAttr<Neuron_Dialect,
    Neuron_GeluApproximation, "gelu_approximation"> {
  let assemblyFormat = "$value";
}

def Neuron_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "elementwise comparison", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::neuron";
}
def Neuron_ComparePredicateAttr : EnumAttr<Neuron_Dialect,
    Neuron_ComparePredicate, "predicate"> {
  let assemblyFormat = "$value";
}

#endif // NEURON_ENUMS_TD
