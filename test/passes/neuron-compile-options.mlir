// Tests the neuron-compile pass's option errors: each names the option and
// points at the module.

// RUN: not neuron-opt %s --neuron-compile 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: neuron-compile-options.mlir:16:1: error: neuron-compile: no output: give the executable's path (output=FILE, or '-' for standard output)

// RUN: not neuron-opt %s --neuron-compile="output=%t.nxe fallback=cpu" 2>&1 | FileCheck %s --check-prefix=FALLBACK
// FALLBACK: error: neuron-compile: unknown fallback policy 'cpu'; expected error, decompose or host

// RUN: not neuron-opt %s --neuron-compile="output=%t.nxe entry=nope" 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: neuron-compile: expected one function to compile named @nope, found 0; functions on tensors: @f

// RUN: not neuron-opt %s --neuron-compile="output=%t.nxe target=trn1" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: neuron-compile: target=trn1 is trainium,lnc=1, but the module is compiled for inferentia2,lnc=1 (neuron.target)

module attributes {neuron.target = #neuron.target<chip = "inferentia2">} {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}
