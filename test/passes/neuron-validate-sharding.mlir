// RUN: neuron-opt %s -split-input-file -neuron-validate-sharding -verify-diagnostics
// RUN: not neuron-opt %s -split-input-file -neuron-validate-sharding \
// RUN:   --mlir-very-unsafe-disable-verifier-on-parsing -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=UNVERIFIED

// Tests that valid shardings (column split, row split, two grid axes on one
// dimension, a replicated scalar, a dynamic dimension) pass unchanged.
shard.grid @g(shape = 2x4)
func.func @valid(%a: tensor<16x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16x?xf32>, %s: tensor<f32>) {
  %s0 = shard.sharding @g split_axes = [[], [1]] : !shard.sharding
  %0 = shard.shard %a to %s0 : tensor<16x32xf32>
  %s1 = shard.sharding @g split_axes = [[0, 1]] : !shard.sharding
  %1 = shard.shard %b to %s1 : tensor<32x16xf32>
  %s2 = shard.sharding @g split_axes = [[0], [1]] : !shard.sharding
  %2 = shard.shard %c to %s2 : tensor<16x?xf32>
  %s3 = shard.sharding @g split_axes = [[]] : !shard.sharding
  %3 = shard.shard %s to %s3 : tensor<f32>
  return
}

// -----

// Tests a grid axis outside the grid. This is the one that crashes upstream:
// `mlir-opt -p 'builtin.module(func.func(sharding-propagation,shard-partition))'`
// segfaults in shard::shardShapedType on it (LLVM 22.1.8); the shard
// verifier accepts it.
shard.grid @g(shape = 4)
func.func @axis_out_of_range(%w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error@+1 {{grid axis 1 (splitting tensor dimension 1) is outside the 1-dimensional grid @g}}
  %s = shard.sharding @g split_axes = [[], [1]] : !shard.sharding
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests split axes for more dimensions than the tensor has (upstream reads
// past the end of the shape and reports garbage sizes).
shard.grid @g(shape = 4)
func.func @too_many_split_dims(%w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %s = shard.sharding @g split_axes = [[], [], [0]] : !shard.sharding
  // expected-error@+1 {{sharding splits tensor dimension 2 but the tensor 'tensor<16x32xf32>' has rank 2}}
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests a dimension the cores do not divide (upstream silently rounds the
// shard size up: 32 over 3 cores becomes 11, 11 and 10).
shard.grid @g(shape = 3)
func.func @not_divisible(%w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %s = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  // expected-error@+1 {{dimension 1 of 'tensor<16x32xf32>' (size 32) does not split evenly over the 3 cores of grid axes [0] of @g}}
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests divisibility by the product of a dimension's grid axes.
shard.grid @g(shape = 2x4)
func.func @not_divisible_product(%w: tensor<12x32xf32>) -> tensor<12x32xf32> {
  %s = shard.sharding @g split_axes = [[0, 1]] : !shard.sharding
  // expected-error@+1 {{dimension 0 of 'tensor<12x32xf32>' (size 12) does not split evenly over the 8 cores of grid axes [0, 1] of @g}}
  %0 = shard.shard %w to %s : tensor<12x32xf32>
  return %0 : tensor<12x32xf32>
}

// -----

// Tests a grid of dynamic shape.
shard.grid @g(shape = 2x?)
func.func @dynamic_grid(%w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error@+1 {{grid @g has a dynamic shape (2x?); sharding needs the number of cores on every grid axis}}
  %s = shard.sharding @g split_axes = [[], [0]] : !shard.sharding
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests halo sizes, which the neuron collectives cannot exchange.
shard.grid @g(shape = 4)
func.func @halo(%w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error@+1 {{halo sizes are not supported: the neuron collectives exchange no halos}}
  %s = shard.sharding @g split_axes = [[], [0]] halo_sizes = [1, 1] : !shard.sharding
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests a sharding that is not a shard.sharding op.
shard.grid @g(shape = 4)
func.func @opaque_sharding(%w: tensor<16x32xf32>, %s: !shard.sharding) -> tensor<16x32xf32> {
  // expected-error@+1 {{expected the sharding to be defined by a shard.sharding op}}
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// Tests an unknown grid. The shard verifier already rejects it when the IR is
// parsed; the second RUN line skips that verification, as IR built in memory
// by a frontend would, to show the pass reports it too.
func.func @unknown_grid(%w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error@+1 {{Undefined required grid symbol "nope"}}
  %s = shard.sharding @nope split_axes = [[], [0]] : !shard.sharding
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
// UNVERIFIED: error: sharding names @nope, which is not a shard.grid

// -----

// Tests a grid axis used twice in one sharding (also caught by the shard
// verifier on parsing; see above).
shard.grid @g(shape = 4x2)
func.func @axis_twice(%w: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-error@+1 {{grid axis duplicated}}
  %s = shard.sharding @g split_axes = [[0], [0]] : !shard.sharding
  %0 = shard.shard %w to %s : tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
// UNVERIFIED: error: grid axis 0 is used twice in one sharding (tensor dimensions 0 and 1)
