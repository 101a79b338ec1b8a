// RUN: neuron-opt %s -split-input-file -neuron-import | FileCheck %s
// RUN: neuron-opt %s -split-input-file -neuron-import=inline=false | FileCheck %s --check-prefix=NOINLINE
// RUN: neuron-opt %s -split-input-file -neuron-import=summary -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=SUMMARY

// Tests that a TOSA graph (TOSA 1.0 matmul with zero-point operands, add,
// clamp) is lowered through linalg and raised: no tosa or linalg op remains.
// CHECK-LABEL: func.func @tosa_matmul_add_clamp
// CHECK-SAME: (%[[A:.*]]: tensor<1x4x8xf32>, %[[B:.*]]: tensor<1x8x16xf32>, %[[C:.*]]: tensor<1x4x16xf32>)
// CHECK-NOT: tosa.
// CHECK-DAG: %[[SIX:.*]] = neuron.constant dense<6.000000e+00> : tensor<1x4x16xf32>
// CHECK-DAG: %[[M:.*]] = neuron.batch_matmul %[[A]], %[[B]] : (tensor<1x4x8xf32>, tensor<1x8x16xf32>) -> tensor<1x4x16xf32>
// CHECK: %[[S:.*]] = neuron.add %[[M]], %[[C]] : tensor<1x4x16xf32>
// CHECK: %[[L:.*]] = neuron.min %[[S]], %[[SIX]] : tensor<1x4x16xf32>
// CHECK: %[[R:.*]] = neuron.relu %[[L]] : tensor<1x4x16xf32>
// CHECK-NOT: tosa.
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
// SUMMARY: neuron-import.mlir:[[@LINE+1]]:1: remark: raised 3 of 3 compute ops to neuron{{$}}
func.func @tosa_matmul_add_clamp(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>, %c: tensor<1x4x16xf32>) -> tensor<1x4x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x16xf32>
  %s = tosa.add %m, %c : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  %r = tosa.clamp %s {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x4x16xf32>) -> tensor<1x4x16xf32>
  return %r : tensor<1x4x16xf32>
}

// -----

// Tests a TOSA convolution with bias and a reduce_sum: the conv becomes
// neuron.conv2d plus the broadcast bias, the reduction neuron.reduce_sum.
// CHECK-LABEL: func.func @tosa_conv_bias_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x3xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: tosa.
// CHECK-DAG: %[[BB:.*]] = neuron.broadcast %[[B]] dimensions [3] : tensor<4xf32> -> tensor<1x6x6x4xf32>
// CHECK-DAG: %[[CONV:.*]] = neuron.conv2d %{{.*}}, %{{.*}} layout nchw_fchw : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: %[[CT:.*]] = neuron.transpose %[[CONV]] permutation [0, 2, 3, 1]
// CHECK: %[[BIASED:.*]] = neuron.add %[[CT]], %[[BB]] : tensor<1x6x6x4xf32>
// CHECK: %[[SUM:.*]] = neuron.reduce_sum %[[BIASED]] axes [1] : tensor<1x6x6x4xf32> -> tensor<1x6x4xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[SUM]] : tensor<1x6x4xf32> -> tensor<1x1x6x4xf32>
// CHECK-NOT: tosa.
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
// SUMMARY: neuron-import.mlir:[[@LINE+1]]:1: remark: raised 2 of 2 compute ops to neuron{{$}}
func.func @tosa_conv_bias_reduce(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x1x6x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
      : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x6x6x4xf32>
  %s = tosa.reduce_sum %c {axis = 1 : i32} : (tensor<1x6x6x4xf32>) -> tensor<1x1x6x4xf32>
  return %s : tensor<1x1x6x4xf32>
}

// -----

// Tests that a helper called with func.call (JAX's relu) is inlined and
// raised in its caller; with inline=false the call stays and the helper is
// raised on its own.
// CHECK-LABEL: func.func @linalg_with_helper_call
// CHECK-SAME: (%[[A:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<16x8xf32>)
// CHECK: %[[M:.*]] = neuron.matmul %[[A]], %[[B]] : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.relu %[[M]] : tensor<4x8xf32>
// CHECK-NOT: call
// CHECK: return %[[R]]
// NOINLINE-LABEL: func.func private @relu
// NOINLINE: neuron.relu
// NOINLINE-LABEL: func.func @linalg_with_helper_call
// NOINLINE: %[[M:.*]] = neuron.matmul
// NOINLINE: call @relu(%[[M]])
func.func private @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = arith.constant dense<0.0> : tensor<4x8xf32>
  %r = arith.maximumf %x, %z : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
// SUMMARY: neuron-import.mlir:[[@LINE+1]]:1: remark: raised 2 of 2 compute ops to neuron{{$}}
func.func @linalg_with_helper_call(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %zero = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%zero : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = func.call @relu(%m) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that the summary counts and names what is left: two i64 generics
// and a matmul of mismatched types stay, the exp is raised.
// CHECK-LABEL: func.func @partly_raised
// CHECK-COUNT-2: linalg.generic
// CHECK: linalg.matmul
// CHECK: neuron.exp
// SUMMARY: neuron-import.mlir:[[@LINE+1]]:1: remark: raised 1 of 4 compute ops to neuron; left 3: linalg.generic x2 linalg.matmul x1{{$}}
func.func @partly_raised(%i: tensor<4x8xi64>, %a: tensor<4x8xbf16>, %b: tensor<8x8xf32>, %y: tensor<4x8xf32>)
    -> (tensor<4x8xi64>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %ei = tensor.empty() : tensor<4x8xi64>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%i : tensor<4x8xi64>) outs(%ei : tensor<4x8xi64>) {
  ^bb0(%v: i64, %o: i64):
    %s = arith.addi %v, %v : i64
    linalg.yield %s : i64
  } -> tensor<4x8xi64>
  %q = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<4x8xi64>) outs(%ei : tensor<4x8xi64>) {
  ^bb0(%v: i64, %o: i64):
    %s = arith.muli %v, %v : i64
    linalg.yield %s : i64
  } -> tensor<4x8xi64>
  %zero = arith.constant dense<0.0> : tensor<4x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x8xf32>) outs(%zero : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = math.exp %y : tensor<4x8xf32>
  return %q, %m, %t : tensor<4x8xi64>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that a function without compute ops (only data movement) gets no
// summary remark and is raised all the same.
// SUMMARY-NOT: remark
// CHECK-LABEL: func.func @data_movement_only
// CHECK: neuron.transpose
// CHECK-NOT: linalg.
func.func @data_movement_only(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  return %t : tensor<8x4xf32>
}
