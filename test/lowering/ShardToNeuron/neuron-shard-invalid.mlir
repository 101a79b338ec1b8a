// RUN: neuron-opt %s -neuron-shard -verify-diagnostics

// Tests that the pipeline validates first: the grid axis that would crash
// shard-partition is reported instead.
shard.grid @cores(shape = 2)
func.func @invalid(%w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error@+1 {{grid axis 1 (splitting tensor dimension 1) is outside the 1-dimensional grid @cores}}
  %s = shard.sharding @cores split_axes = [[], [1]] : !shard.sharding
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
