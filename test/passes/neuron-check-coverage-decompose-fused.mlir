// RUN: neuron-opt %s -split-input-file -verify-diagnostics \
// RUN:   --neuron-check-coverage="target=trn1 fallback=decompose" | FileCheck %s

// Tests that rms_norm, missing on trn1, becomes reductions and elementwise
// ops: x * rsqrt(mean(x^2) + eps) * w.
// CHECK-LABEL: func.func @rms_norm
// CHECK: %[[SQ:.*]] = neuron.mul %[[X:.*]], %[[X]] : tensor<4x8xf32>
// CHECK: %[[SUM:.*]] = neuron.reduce_sum %[[SQ]] axes [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK: %[[MEAN:.*]] = neuron.mul %[[SUM]], %{{.*}} : tensor<4x1xf32>
// CHECK: %[[B:.*]] = neuron.broadcast %[[MEAN]] dimensions [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: %[[ADD:.*]] = neuron.add %[[B]], %{{.*}} : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.rsqrt %[[ADD]] : tensor<4x8xf32>
// CHECK: %[[N:.*]] = neuron.mul %[[X]], %[[R]] : tensor<4x8xf32>
// CHECK: %[[W:.*]] = neuron.broadcast %{{.*}} dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: neuron.mul %[[N]], %[[W]] : tensor<4x8xf32>
// CHECK-NOT: neuron.rms_norm
func.func @rms_norm(%x: tensor<4x8xf32>, %w: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.rms_norm %x weight %w axis 1 epsilon 1.0e-06 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
