// RUN: neuron-opt %s -split-input-file -verify-diagnostics -neuron-shard | FileCheck %s

// Tests the sharding rule for reshapes: a projection split by columns
// over 2 cores and reshaped into 4 heads of 4 becomes each core's 2 heads,
// and merging heads split that way gives each core its columns.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @split_heads
// CHECK-SAME: (%[[Q:.*]]: tensor<8x8xf32> {neuron.sharding = [array<i64>, array<i64: 0>]})
// CHECK: %[[H:.*]] = tensor.expand_shape %[[Q]] {{\[\[}}0], [1, 2]] output_shape [8, 2, 4] : tensor<8x8xf32> into tensor<8x2x4xf32>
// CHECK: return %[[H]]
func.func @split_heads(%q: tensor<8x16xf32>) -> tensor<8x4x4xf32> {
  %s = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<8x16xf32>
  %h = tensor.expand_shape %qs [[0], [1, 2]] output_shape [8, 4, 4] : tensor<8x16xf32> into tensor<8x4x4xf32>
  %hs = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %r = shard.shard %h to %hs annotate_for_users : tensor<8x4x4xf32>
  return %r : tensor<8x4x4xf32>
}

// -----

shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @merge_heads
// CHECK-SAME: (%[[H:.*]]: tensor<8x2x4xf32> {neuron.sharding = [array<i64>, array<i64: 0>, array<i64>]})
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[H]] {{\[\[}}0], [1, 2]] : tensor<8x2x4xf32> into tensor<8x8xf32>
// CHECK: return %[[C]]
func.func @merge_heads(%h: tensor<8x4x4xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %hs = shard.shard %h to %s : tensor<8x4x4xf32>
  %c = tensor.collapse_shape %hs [[0], [1, 2]] : tensor<8x4x4xf32> into tensor<8x16xf32>
  %r = shard.shard %c to %s annotate_for_users : tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// -----

// Tests a split of a dimension that is not the first of its reshape group:
// the cores would each need every head's slice, which takes data movement
// the rule does not do.
shard.grid @cores(shape = 2)
func.func @inner(%q: tensor<8x16xf32>) -> tensor<8x4x4xf32> {
  %h = tensor.expand_shape %q [[0], [1, 2]] output_shape [8, 4, 4] : tensor<8x16xf32> into tensor<8x4x4xf32>
  %s = shard.sharding @cores split_axes = [[], [], [0]] : !shard.sharding
  // expected-error@-2 {{cannot partition: dimension 2 of the expanded shape is split but is not the first of its reshape group (after unit dimensions)}}
  %r = shard.shard %h to %s annotate_for_users : tensor<8x4x4xf32>
  return %r : tensor<8x4x4xf32>
}
