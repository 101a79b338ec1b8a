// RUN: neuron-opt %s -split-input-file -verify-diagnostics \
// RUN:   --neuron-compile="output=%t.nxe entry=main"

// The function named as the entry, where it is not one on ranked tensors,
// is the error's location, and the error says why.

module {
  // expected-error @+1 {{neuron-compile: cannot compile @main: argument 0 is an unranked tensor (tensor<*xf32>): give the graph ranked tensor types (dynamic dimensions compile with --buckets)}}
  func.func @main(%x: tensor<*xf32>) -> tensor<*xf32> {
    return %x : tensor<*xf32>
  }
}

// -----

module {
  // expected-error @+1 {{neuron-compile: cannot compile @main: result 0 is an unranked tensor (tensor<*xf32>)}}
  func.func @main(%x: f32) -> tensor<*xf32> {
    %t = tensor.from_elements %x : tensor<1xf32>
    %u = tensor.cast %t : tensor<1xf32> to tensor<*xf32>
    return %u : tensor<*xf32>
  }
}

// -----

module {
  // expected-error @+1 {{neuron-compile: cannot compile @main: it takes and returns no tensors (the compiler takes a graph on tensors, before bufferization)}}
  func.func @main(%x: memref<4xf32>) {
    return
  }
}

// -----

module {
  // expected-error @+1 {{neuron-compile: cannot compile @main: it is a declaration, without a body}}
  func.func private @main(tensor<4xf32>) -> tensor<4xf32>
}

// -----

// A tensor with no elements cannot be an executable's input or output: an
// error at the argument (or the function, for a result) at compile time,
// not an executable the runtime refuses to load.

module {
  // expected-error @+1 {{neuron-compile: argument 1 ('tensor<0x5xf32>') has no elements; an executable's tensors hold at least one (drop the input from the graph)}}
  func.func @main(%a: tensor<4xf32>, %x: tensor<0x5xf32>) -> tensor<4xf32> {
    return %a : tensor<4xf32>
  }
}

// -----

module {
  // expected-error @+1 {{neuron-compile: result 1 ('tensor<3x0xf32>') has no elements; an executable's tensors hold at least one (drop the result from the graph)}}
  func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<3x0xf32>) {
    %e = tensor.empty() : tensor<3x0xf32>
    return %a, %e : tensor<4xf32>, tensor<3x0xf32>
  }
}
