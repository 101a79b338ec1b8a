// RUN: neuron-opt %s -split-input-file \
// RUN:   --neuron-check-coverage="target=inf2 fallback=host" | FileCheck %s

// Tests that a connected unsupported chain becomes one host_call with one
// input and one output, and the supported ops stay on the device.
// CHECK-LABEL: func.func @chain
// CHECK: %[[E:.*]] = neuron.exp %[[X:.*]] : tensor<4x8xf32>
// CHECK: %[[H:.*]] = neuron.host_call(%[[E]]) reason "unsupported on inf2: neuron.erf" : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK: ^bb0(%[[A:.*]]: tensor<4x8xf32>):
// CHECK:   %[[E1:.*]] = neuron.erf %[[A]] : tensor<4x8xf32>
// CHECK:   %[[E2:.*]] = neuron.erf %[[E1]] : tensor<4x8xf32>
// CHECK:   neuron.yield %[[E2]] : tensor<4x8xf32>
// CHECK: }
// CHECK: neuron.relu %[[H]] : tensor<4x8xf32>
func.func @chain(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.exp %x : tensor<4x8xf32>
  %1 = neuron.erf %0 : tensor<4x8xf32>
  %2 = neuron.erf %1 : tensor<4x8xf32>
  %3 = neuron.relu %2 : tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// -----

// Tests that two unsupported ops joined directly and through a device op
// are not merged (the merged region would depend on itself): two host
// calls, with the device op between them.
// CHECK-LABEL: func.func @no_cycle
// CHECK: %[[H1:.*]] = neuron.host_call
// CHECK:   neuron.erf
// CHECK: %[[R:.*]] = neuron.relu %[[H1]]
// CHECK: neuron.host_call(%[[H1]], %[[R]]) reason "unsupported on inf2: neuron.pow"
// CHECK:   neuron.pow
func.func @no_cycle(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = neuron.erf %x : tensor<4xf32>
  %1 = neuron.relu %0 : tensor<4xf32>
  %2 = neuron.pow %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Tests that a constant used by the region is copied into it, and that ops
// the import left in other dialects go to the host too.
// CHECK-LABEL: func.func @not_raised
// CHECK: neuron.host_call(%{{.*}}) reason "unsupported on inf2: arith.addi" : (tensor<4xi64>) -> tensor<4xi64> {
// CHECK:   %[[C:.*]] = arith.constant dense<1> : tensor<4xi64>
// CHECK:   arith.addi %{{.*}}, %[[C]] : tensor<4xi64>
func.func @not_raised(%x: tensor<4xi64>) -> tensor<4xi64> {
  %c = arith.constant dense<1> : tensor<4xi64>
  %0 = arith.addi %x, %c : tensor<4xi64>
  return %0 : tensor<4xi64>
}
