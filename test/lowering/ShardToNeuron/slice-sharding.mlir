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

// Tests a slice at an offset the caller gives as a scalar: sharding follows
// tensors, so neuron-validate-sharding refuses it before upstream
// propagation (which reports a rule's failure but carries on).
shard.grid @cores(shape = 2)
func.func @scalar_offset(%q: tensor<4x8x16xf32>, %i: index) -> tensor<4x8x4xf32> {
  %s = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<4x8x16xf32>
  // expected-error@+1 {{cannot shard a slice at an offset that is not read from a one-element integer tensor (as exporters pass a decode step's position): sharding follows tensors, not scalars}}
  %w = tensor.extract_slice %qs[0, 0, %i] [4, 8, 4] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x4xf32>
  %r = shard.shard %w to %s annotate_for_users : tensor<4x8x4xf32>
  return %r : tensor<4x8x4xf32>
}

// -----

// Tests a slice of a dynamic size: the rule needs static sizes.
shard.grid @cores(shape = 2)
func.func @dynamic_size(%q: tensor<4x8x16xf32>, %n: index) -> tensor<4x8x?xf32> {
  %s = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<4x8x16xf32>
  // expected-error@+1 {{cannot shard a slice with dynamic sizes or strides: the sharding rule for slices needs them static}}
  %w = tensor.extract_slice %qs[0, 0, 0] [4, 8, %n] [1, 1, 1] : tensor<4x8x16xf32> to tensor<4x8x?xf32>
  %r = shard.shard %w to %s annotate_for_users : tensor<4x8x?xf32>
  return %r : tensor<4x8x?xf32>
}

// -----

// Tests a KV cache split by heads (dimension 1) read and written at a
// position read at run time along another dimension: the slices become
// neuron.dynamic_slice and dynamic_update_slice taking the position
// tensor, each core's part keeps its split, and nothing is gathered.
// CHECK-LABEL: func.func @cache_at_position
// CHECK-SAME: (%[[CACHE:.*]]: tensor<1x4x16x8xf32> {neuron.sharding = [array<i64>, array<i64: 0>, array<i64>, array<i64>]}, %[[KV:.*]]: tensor<1x4x1x8xf32> {{.*}}, %[[POS:.*]]: tensor<i64>)
// CHECK-NOT: tensor.extract
// CHECK: %[[NEW:.*]] = neuron.dynamic_update_slice %[[KV]] into %[[CACHE]][%[[POS]]] axis 2 : (tensor<1x4x1x8xf32>, tensor<1x4x16x8xf32>, tensor<i64>) -> tensor<1x4x16x8xf32>
// CHECK: neuron.dynamic_slice %[[NEW]][%[[POS]]] axis 2 : (tensor<1x4x16x8xf32>, tensor<i64>) -> tensor<1x4x2x8xf32>
// CHECK-NOT: shard.all_gather
shard.grid @cores(shape = 2)
func.func @cache_at_position(%cache: tensor<1x8x16x8xf32>, %kv: tensor<1x8x1x8xf32>, %pos: tensor<i64>) -> (tensor<1x8x16x8xf32>, tensor<1x8x2x8xf32>) {
  %s = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %cs = shard.shard %cache to %s : tensor<1x8x16x8xf32>
  %ks = shard.shard %kv to %s : tensor<1x8x1x8xf32>
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %new = tensor.insert_slice %ks into %cs[0, 0, %i, 0] [1, 8, 1, 8] [1, 1, 1, 1] : tensor<1x8x1x8xf32> into tensor<1x8x16x8xf32>
  %w = tensor.extract_slice %new[0, 0, %i, 0] [1, 8, 2, 8] [1, 1, 1, 1] : tensor<1x8x16x8xf32> to tensor<1x8x2x8xf32>
  %r0 = shard.shard %new to %s annotate_for_users : tensor<1x8x16x8xf32>
  %r1 = shard.shard %w to %s annotate_for_users : tensor<1x8x2x8xf32>
  return %r0, %r1 : tensor<1x8x16x8xf32>, tensor<1x8x2x8xf32>
}
