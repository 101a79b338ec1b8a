// RUN: neuron-opt %s -split-input-file -verify-diagnostics \
// RUN:   --neuron-check-coverage="target=inf2 fallback=decompose" | FileCheck %s

// Tests exact gelu replaced by the tanh form inf2 has, with a warning
// naming the precision change.
// CHECK-LABEL: func.func @gelu
// CHECK: neuron.gelu %{{.*}} approximate {{ *}}tanh : tensor<4xf32>
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-warning@+1 {{exact gelu replaced by its tanh approximation (absolute difference below 1e-3)}}
  %0 = neuron.gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that an op with no decomposition stays an error after decompose,
// with the generations that support it and the host fallback as hints.
func.func @erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.erf' (tensor<4xf32>) -> tensor<4xf32> is not supported on inf2: the generation has no such op [op]; hint: supported on trn1, trn2, trn3; fallback=host runs it on the host}}
  %0 = neuron.erf %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
