// Tests the decompositions of fused ops on a generation that lacks them,
// using a capability table without softmax, layer_norm, silu, sigmoid and
// gelu: support comes from the table, not from code.

// RUN: neuron-opt %s -split-input-file --neuron-check-coverage="target=trn2 fallback=decompose capability-dir=%S/Inputs/elementary" | FileCheck %s

// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = neuron.reduce_max %[[X:.*]] axes [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK: %[[BMAX:.*]] = neuron.broadcast %[[MAX]] dimensions [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: %[[SUB:.*]] = neuron.sub %[[X]], %[[BMAX]] : tensor<4x8xf32>
// CHECK: %[[EXP:.*]] = neuron.exp %[[SUB]] : tensor<4x8xf32>
// CHECK: %[[SUM:.*]] = neuron.reduce_sum %[[EXP]] axes [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
// CHECK: %[[BSUM:.*]] = neuron.broadcast %[[SUM]] dimensions [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
// CHECK: neuron.div %[[EXP]], %[[BSUM]] : tensor<4x8xf32>
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.softmax %x axis 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
// CHECK: neuron.reduce_sum %[[X:.*]] axes [1] keep_dims
// CHECK: %[[C:.*]] = neuron.sub %[[X]], %{{.*}} : tensor<4x8xf32>
// CHECK: %[[SQ:.*]] = neuron.mul %[[C]], %[[C]] : tensor<4x8xf32>
// CHECK: neuron.reduce_sum %[[SQ]] axes [1] keep_dims
// CHECK: %[[R:.*]] = neuron.rsqrt %{{.*}} : tensor<4x8xf32>
// CHECK: %[[N:.*]] = neuron.mul %[[C]], %[[R]] : tensor<4x8xf32>
// CHECK: %[[G:.*]] = neuron.mul %[[N]], %{{.*}} : tensor<4x8xf32>
// CHECK: neuron.add %[[G]], %{{.*}} : tensor<4x8xf32>
// CHECK-NOT: neuron.layer_norm
func.func @layer_norm(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.layer_norm %x weight %g bias %b axis 1 epsilon 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Silu becomes x * sigmoid(x), and sigmoid 1 / (1 + exp(-x)).
// CHECK-LABEL: func.func @silu
// CHECK: %[[N:.*]] = neuron.neg %[[X:.*]] : tensor<4xf32>
// CHECK: %[[E:.*]] = neuron.exp %[[N]] : tensor<4xf32>
// CHECK: %[[A:.*]] = neuron.add %[[E]], %{{.*}} : tensor<4xf32>
// CHECK: %[[S:.*]] = neuron.reciprocal %[[A]] : tensor<4xf32>
// CHECK: neuron.mul %[[X]], %[[S]] : tensor<4xf32>
// CHECK-NOT: neuron.silu
// CHECK-NOT: neuron.sigmoid
func.func @silu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = neuron.silu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Gelu, with no fused form at all, is spelled with erf (exact) or tanh.
// CHECK-LABEL: func.func @gelu
// CHECK: neuron.erf
// CHECK: neuron.tanh
// CHECK-NOT: neuron.gelu
func.func @gelu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = neuron.gelu %x : tensor<4xf32>
  %1 = neuron.gelu %x approximate tanh : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
