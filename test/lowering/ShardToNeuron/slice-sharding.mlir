// RUN: neuron-opt %s -split-input-file -verify-diagnostics -neuron-shard | FileCheck %s
// RUN: neuron-opt %S/Inputs/slice-partition.mlir -verify-diagnostics --pass-pipeline='builtin.module(func.func(shard-partition))'

// Tests the sharding rule for slices: rotary embeddings cut each head into
// halves along its last dimension and put them back swapped. With the heads
// split over 2 cores, every slice takes all of the heads dimension, so each
// core slices its own heads and nothing moves between cores.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @rotate_halves
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x16xf32> {neuron.sharding = [array<i64: 0>, array<i64>, array<i64>]})
// CHECK-NOT: neuron.all_gather
// CHECK: %[[LO:.*]] = tensor.extract_slice %[[Q]][0, 0, 0] [2, 8, 8] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x8x8xf32>
// CHECK: %[[HI:.*]] = tensor.extract_slice %[[Q]][0, 0, 8] [2, 8, 8] [1, 1, 1] : tensor<2x8x16xf32> to tensor<2x8x8xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x8x16xf32>
// CHECK: %[[A:.*]] = tensor.insert_slice %[[HI]] into %[[E]][0, 0, 0] [2, 8, 8] [1, 1, 1] : tensor<2x8x8xf32> into tensor<2x8x16xf32>
// CHECK: %[[B:.*]] = tensor.insert_slice %[[LO]] into %[[A]][0, 0, 8] [2, 8, 8] [1, 1, 1] : tensor<2x8x8xf32> into tensor<2x8x16xf32>
// CHECK: return %[[B]]
func.func @rotate_halves(%q: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %s = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<4x8x16xf32>
  %lo = tensor.extract_slice %qs[0, 0, 0] [4, 8, 8] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x8xf32>
  %hi = tensor.extract_slice %qs[0, 0, 8] [4, 8, 8] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x8xf32>
  %e = tensor.empty() : tensor<4x8x16xf32>
  %a = tensor.insert_slice %hi into %e[0, 0, 0] [4, 8, 8] [1, 1, 1] : tensor<4x8x8xf32> into tensor<4x8x16xf32>
  %b = tensor.insert_slice %lo into %a[0, 0, 8] [4, 8, 8] [1, 1, 1] : tensor<4x8x8xf32> into tensor<4x8x16xf32>
  %r = shard.shard %b to %s annotate_for_users : tensor<4x8x16xf32>
  return %r : tensor<4x8x16xf32>
}

// -----

// Tests a split of the dimension the slice cuts: the rule drops that split
// from the slice, so the cores gather the whole tensor before slicing it.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @cut_split_dimension
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32> {neuron.sharding = [array<i64>, array<i64: 0>]})
// CHECK: %[[W:.*]] = neuron.all_gather %[[Q]] grid [2] axes [0] axis 1 : tensor<4x8xf32> -> tensor<4x16xf32>
// CHECK: tensor.extract_slice %[[W]][0, 4] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
func.func @cut_split_dimension(%q: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<4x16xf32>
  %lo = tensor.extract_slice %qs[0, 4] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  return %lo : tensor<4x8xf32>
}

// -----

// Tests a rank-reducing slice: its dropped unit dimension stays dropped in
// each core's slice.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @rank_reducing
// CHECK-SAME: (%[[Q:.*]]: tensor<2x1x16xf32>
// CHECK: tensor.extract_slice %[[Q]][0, 0, 8] [2, 1, 8] [1, 1, 1] : tensor<2x1x16xf32> to tensor<2x8xf32>
func.func @rank_reducing(%q: tensor<4x1x16xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<4x1x16xf32>
  %lo = tensor.extract_slice %qs[0, 0, 8] [4, 1, 8] [1, 1, 1] : tensor<4x1x16xf32> to tensor<4x8xf32>
  %r = shard.shard %lo to %s annotate_for_users : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests a slice at a dynamic offset (as a KV cache is read): the rule needs
// static offsets, sizes and strides; neuron-validate-sharding says so before
// upstream propagation (which reports a rule's failure but carries on).
shard.grid @cores(shape = 2)
func.func @dynamic_offset(%q: tensor<4x8x16xf32>, %i: index) -> tensor<4x8x4xf32> {
  %s = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<4x8x16xf32>
  // expected-error@+1 {{cannot shard a slice with dynamic offsets, sizes or strides: the sharding rule for slices needs them static}}
  %w = tensor.extract_slice %qs[0, 0, %i] [4, 8, 4] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x4xf32>
  %r = shard.shard %w to %s annotate_for_users : tensor<4x8x4xf32>
  return %r : tensor<4x8x4xf32>
}
