// RUN: neuron-opt %s -verify-diagnostics --neuron-annotate-tensor-parallel="cores=4 summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s

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
