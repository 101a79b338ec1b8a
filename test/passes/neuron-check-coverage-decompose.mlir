// RUN: neuron-opt %s -split-input-file -verify-diagnostics \
// RUN:   --neuron-check-coverage="target=trn2 fallback=decompose" | FileCheck %s

// Tests mean -> sum and a scale.
// CHECK-LABEL: func.func @mean
// CHECK-DAG: %[[C:.*]] = neuron.constant dense<1.250000e-01> : tensor<4xf32>
// CHECK-DAG: %[[S:.*]] = neuron.reduce_sum %{{.*}} axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: neuron.mul %[[S]], %[[C]] : tensor<4xf32>
// CHECK-NOT: neuron.reduce_mean
func.func @mean(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = neuron.reduce_mean %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests pow with small integer exponents -> multiplies, and 0.5 -> sqrt.
// CHECK-LABEL: func.func @pow
// CHECK: %[[SQ:.*]] = neuron.mul %[[X:.*]], %[[X]] : tensor<4xf32>
// CHECK: %[[CU:.*]] = neuron.mul %[[SQ]], %[[X]] : tensor<4xf32>
// CHECK: neuron.sqrt %[[X]] : tensor<4xf32>
// CHECK-NOT: neuron.pow
func.func @pow(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %three = neuron.constant dense<3.0> : tensor<4xf32>
  %half = neuron.constant dense<0.5> : tensor<4xf32>
  %0 = neuron.pow %x, %three : tensor<4xf32>
  %1 = neuron.pow %x, %half : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that pow with a non-integer exponent stays unsupported.
func.func @pow_fraction(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = neuron.constant dense<1.7> : tensor<4xf32>
  // expected-error@+1 {{'neuron.pow' (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> is not supported on trn2: the generation has no such op [op]}}
  %0 = neuron.pow %x, %e : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests i64 gather indices narrowed to i32, with a warning.
// CHECK-LABEL: func.func @gather
// CHECK: %[[I:.*]] = neuron.cast %{{.*}} : tensor<4xi64> -> tensor<4xi32>
// CHECK: neuron.gather %{{.*}}[%[[I]]] axis 0 : (tensor<100x8xf32>, tensor<4xi32>) -> tensor<4x8xf32>
func.func @gather(%t: tensor<100x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32> {
  // expected-warning@+1 {{gather indices narrowed from i64 to i32 (exact for values below 2^31)}}
  %0 = neuron.gather %t[%i] axis 0 : (tensor<100x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests an i64 dynamic slice offset narrowed to i32, with a warning.
// CHECK-LABEL: func.func @dynamic_slice_offset
// CHECK: %[[P:.*]] = neuron.cast %{{.*}} : tensor<i64> -> tensor<i32>
// CHECK: neuron.dynamic_slice %{{.*}}[%[[P]]] axis 0 : (tensor<16x8xf32>, tensor<i32>) -> tensor<1x8xf32>
func.func @dynamic_slice_offset(%t: tensor<16x8xf32>, %p: tensor<i64>) -> tensor<1x8xf32> {
  // expected-warning@+1 {{the dynamic slice's offset narrowed from i64 to i32 (exact for values below 2^31)}}
  %0 = neuron.dynamic_slice %t[%p] axis 0 : (tensor<16x8xf32>, tensor<i64>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// Tests an i64 dynamic update offset narrowed to i32, with a warning.
// CHECK-LABEL: func.func @dynamic_update_offset
// CHECK: %[[P:.*]] = neuron.cast %{{.*}} : tensor<i64> -> tensor<i32>
// CHECK: neuron.dynamic_update_slice %{{.*}} into %{{.*}}[%[[P]]] axis 0 : (tensor<1x8xf32>, tensor<16x8xf32>, tensor<i32>) -> tensor<16x8xf32>
func.func @dynamic_update_offset(%row: tensor<1x8xf32>, %c: tensor<16x8xf32>, %p: tensor<i64>) -> tensor<16x8xf32> {
  // expected-warning@+1 {{the dynamic update's offset narrowed from i64 to i32 (exact for values below 2^31)}}
  %0 = neuron.dynamic_update_slice %row into %c[%p] axis 0 : (tensor<1x8xf32>, tensor<16x8xf32>, tensor<i64>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Tests an i8 matmul run in bf16 with f32 accumulation on trn2, with a
// warning stating when it is exact.
// CHECK-LABEL: func.func @int8_matmul
// CHECK: %[[A:.*]] = neuron.cast %{{.*}} : tensor<4x8xi8> -> tensor<4x8xbf16>
// CHECK: %[[B:.*]] = neuron.cast %{{.*}} : tensor<8x16xi8> -> tensor<8x16xbf16>
// CHECK: %[[P:.*]] = neuron.matmul %[[A]], %[[B]] : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xf32>
// CHECK: neuron.cast %[[P]] : tensor<4x16xf32> -> tensor<4x16xi32>
func.func @int8_matmul(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>) -> tensor<4x16xi32> {
  // expected-warning@+1 {{i8 matmul computed in bf16 with f32 accumulation (exact for K <= 1024; K = 8)}}
  %0 = neuron.matmul %a, %b : (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// Tests that a dynamic-shape rejection is not "decomposed": the rewrite
// cannot make the shape static, so the op stays an error and the hint does
// not offer decompose.
func.func @dynamic_mean(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.reduce_mean' (tensor<4x?xf32>) -> tensor<4xf32> is not supported on trn2: the generation has no such op [op]; hint: fallback=host runs it on the host}}
  %0 = neuron.reduce_mean %x axes [1] : tensor<4x?xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
