// RUN: neuron-opt %s -split-input-file -verify-diagnostics --neuron-annotate-tensor-parallel="cores=4 summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s

// Tests a function upstream propagation cannot partition: linalg.softmax
// has no sharding rule in upstream `shard` (MLIR 22), so nothing is
// annotated and the remark says why (torch-mlir writes softmax as generics,
// which partition).
// CHECK-LABEL: func.func @softmax_op
// CHECK-NOT: shard.shard
// expected-remark@+1 {{neuron-annotate-tensor-parallel: kept whole: 'linalg.softmax' has no sharding rule in upstream shard, so the function cannot be partitioned}}
func.func @softmax_op(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %q = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = linalg.softmax dimension(1) ins(%q : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %s : tensor<8x16xf32>
}

// -----

// Tests a convolution: its input is indexed by sums of loops (the window),
// which upstream partitioning rejects, so the function is kept whole.
// CHECK-LABEL: func.func @conv
// CHECK-NOT: shard.
// expected-remark@+1 {{neuron-annotate-tensor-parallel: kept whole: 'linalg.conv_2d_nchw_fchw' indexes an operand by a sum of loops (a window), which upstream shard cannot partition}}
func.func @conv(%x: tensor<1x1x8x8xf32>, %k: tensor<4x1x3x3xf32>, %w: tensor<144x16xf32>) -> tensor<1x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %k : tensor<1x1x8x8xf32>, tensor<4x1x3x3xf32>) outs(%f : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %flat = tensor.collapse_shape %c [[0], [1, 2, 3]] : tensor<1x4x6x6xf32> into tensor<1x144xf32>
  %e2 = tensor.empty() : tensor<1x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16xf32>) -> tensor<1x16xf32>
  %y = linalg.matmul ins(%flat, %w : tensor<1x144xf32>, tensor<144x16xf32>) outs(%f2 : tensor<1x16xf32>) -> tensor<1x16xf32>
  return %y : tensor<1x16xf32>
}
