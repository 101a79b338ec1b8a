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

// -----

// A scalar argument (an index the caller gives, left unused once the graph
// is imported) cannot be an input of the executable: an error at the
// argument, not a crash.

module {
  // expected-remark @+2 {{neuron-outline-kernels: 1 launches of 1 kernels}}
  // expected-error @+1 {{nisa-to-executable: cannot store 'index' in an executable (a tensor of static shape and supported element type)}}
  func.func @unused_index(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %y = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
