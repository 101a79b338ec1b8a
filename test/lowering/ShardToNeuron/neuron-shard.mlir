// RUN: neuron-opt %s -split-input-file -neuron-shard | FileCheck %s
// RUN: neuron-opt %s -split-input-file -neuron-shard=convert=false | FileCheck %s --check-prefix=PARTITIONED

// Tests a tensor-parallel MLP on a 1-D grid of 2 cores: the first weight is
// split by columns, the second by rows, so each core computes a partial sum of
// the output and one all_reduce makes it whole.
// The arguments and the result keep their shardings as `neuron.sharding`.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32> {neuron.sharding = [array<i64>, array<i64>]}, %[[W1:.*]]: tensor<16x16xf32> {neuron.sharding = [array<i64>, array<i64: 0>]}, %[[W2:.*]]: tensor<16x16xf32> {neuron.sharding = [array<i64: 0>, array<i64>]}) -> (tensor<8x16xf32> {neuron.sharding = [array<i64>, array<i64>]})
// CHECK: %[[H:.*]] = linalg.matmul ins(%[[X]], %[[W1]] : tensor<8x16xf32>, tensor<16x16xf32>)
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[H]], %[[W2]] : tensor<8x16xf32>, tensor<16x16xf32>)
// CHECK: %[[Y:.*]] = neuron.all_reduce %[[P]] grid [2] axes [0] reduction <sum> : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NOT: shard.
// CHECK: return %[[Y]]
// PARTITIONED-LABEL: func.func @mlp
// PARTITIONED: shard.all_reduce %{{.*}} on @cores grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %col = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %w1s = shard.shard %w1 to %col : tensor<16x32xf32>
  %row = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %w2s = shard.shard %w2 to %row : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1s : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%h, %w2s : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %rep = shard.sharding @cores split_axes = [[]] : !shard.sharding
  %ys = shard.shard %y to %rep annotate_for_users : tensor<8x16xf32>
  return %ys : tensor<8x16xf32>
}


// -----

// Tests the same MLP with its output split by rows over the cores (as the
// next layer's sequence-parallel input): upstream partitions the partial sum
// into all_reduce + all_slice, which the pipeline fuses into a reduce_scatter.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @mlp_rows_out
// CHECK-SAME: -> (tensor<4x16xf32> {neuron.sharding = [array<i64: 0>, array<i64>]})
// CHECK: linalg.matmul
// CHECK: %[[P:.*]] = linalg.matmul
// CHECK-NOT: neuron.all_reduce
// CHECK: %[[Y:.*]] = neuron.reduce_scatter %[[P]] grid [2] axes [0] reduction <sum> axis 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK: return %[[Y]]
// PARTITIONED-LABEL: func.func @mlp_rows_out
// PARTITIONED: %[[R:.*]] = shard.all_reduce %{{.*}} on @cores grid_axes = [0]
// PARTITIONED: shard.all_slice %[[R]] on @cores grid_axes = [0] slice_axis = 0
func.func @mlp_rows_out(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %col = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %w1s = shard.shard %w1 to %col : tensor<16x32xf32>
  %row = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %w2s = shard.shard %w2 to %row : tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h0 = linalg.matmul ins(%x, %w1s : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %h = shard.shard %h0 to %col : tensor<8x32xf32>
  %y = linalg.matmul ins(%h, %w2s : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %rep = shard.sharding @cores split_axes = [[]] : !shard.sharding
  %yr = shard.shard %y to %rep : tensor<8x16xf32>
  %rows = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %ys = shard.shard %yr to %rows annotate_for_users : tensor<8x16xf32>
  return %ys : tensor<8x16xf32>
}
