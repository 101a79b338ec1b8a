// RUN: neuron-opt %s -split-input-file -verify-diagnostics \
// RUN:   --neuron-compile="output=%t.nxe"

// The graph to compile must be one function on tensors.

// expected-error @below {{neuron-compile: expected one function to compile (choose one with entry=, --entry in the driver), found 2; functions on tensors: @f @g}}
module {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
  func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}

// -----

// expected-error @below {{neuron-compile: expected one function to compile (choose one with entry=, --entry in the driver), found 0; functions on tensors:}}
module {
  func.func @scalar(%a: f32) -> f32 {
    return %a : f32
  }
}

// -----

// An empty module has nothing to compile.

// expected-error @below {{neuron-compile: expected one function to compile (choose one with entry=, --entry in the driver), found 0; functions on tensors:}}
module {
}
