// RUN: neuron-opt %s -verify-diagnostics --neuron-annotate-tensor-parallel="cores=4 summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s

// Tests a function upstream propagation cannot partition: it has a
// reshape (upstream `shard` has no sharding rule for tensor.expand_shape),
// so nothing is annotated and the remark says why.
// CHECK-LABEL: func.func @heads
// CHECK-NOT: shard.shard
// expected-remark@+1 {{neuron-annotate-tensor-parallel: kept whole: 'tensor.expand_shape' has no sharding rule in upstream shard, so the function cannot be partitioned}}
func.func @heads(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %q = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %h = tensor.expand_shape %q [[0], [1, 2]] output_shape [8, 4, 4] : tensor<8x16xf32> into tensor<8x4x4xf32>
  return %h : tensor<8x4x4xf32>
}
