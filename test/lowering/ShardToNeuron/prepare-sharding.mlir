// RUN: neuron-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(neuron-prepare-sharding))' | FileCheck %s
// RUN: neuron-opt %s -split-input-file -verify-diagnostics -neuron-shard | FileCheck %s --check-prefix=SHARD

// Tests a broadcast operand indexed by a constant 0 (as tosa-to-linalg
// writes a [1, 1, 8] weight times a [1, 4, 8] activation): the unit
// dimension is collapsed out and the map reads (d0, d2). Partitioned, each
// core multiplies its half of the features by its half of the weight.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<1x1x8xf32> into tensor<1x8xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}]{{.*}} ins(%[[C]], %{{.*}} : tensor<1x8xf32>, tensor<1x4x8xf32>)
// SHARD-LABEL: func.func @broadcast
// SHARD-SAME: (%{{.*}}: tensor<1x1x4xf32> {neuron.sharding = [array<i64>, array<i64>, array<i64: 0>]}, %{{.*}}: tensor<1x4x4xf32>
// SHARD-NOT: neuron.all_
// SHARD: return
#bcast = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @broadcast(%w: tensor<1x1x8xf32>, %x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %s = shard.sharding @cores split_axes = [[], [], [0]] : !shard.sharding
  %ws = shard.shard %w to %s : tensor<1x1x8xf32>
  %xs = shard.shard %x to %s : tensor<1x4x8xf32>
  %e = tensor.empty() : tensor<1x4x8xf32>
  %m = linalg.generic {indexing_maps = [#bcast, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ws, %xs : tensor<1x1x8xf32>, tensor<1x4x8xf32>) outs(%e : tensor<1x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<1x4x8xf32>
  %r = shard.shard %m to %s annotate_for_users : tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

// -----

// Tests a reduction that keeps its reduced dimension as a unit one indexed
// by a constant 0 in the init's map (as torch-mlir writes sum(keepdim)):
// the init is collapsed, the op rebuilt on it, and its result expanded
// back for its users. Partitioned, each core sums its own rows.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @keepdim
// CHECK: %[[I:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<4x8x1xf32> into tensor<4x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[I]] : tensor<4x8xf32>)
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[R]] {{\[\[}}0], [1, 2]] output_shape [4, 8, 1] : tensor<4x8xf32> into tensor<4x8x1xf32>
// SHARD-LABEL: func.func @keepdim
// SHARD-SAME: -> (tensor<2x8x1xf32>
// SHARD-NOT: neuron.all_
// SHARD: return
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#keep = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @keepdim(%x: tensor<4x8x16xf32>) -> tensor<4x8x1xf32> {
  %s = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<4x8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8x1xf32>) -> tensor<4x8x1xf32>
  %r = linalg.generic {indexing_maps = [#in, #keep], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xs : tensor<4x8x16xf32>) outs(%f : tensor<4x8x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.addf %a, %o : f32
    linalg.yield %t : f32
  } -> tensor<4x8x1xf32>
  %rs = shard.shard %r to %s annotate_for_users : tensor<4x8x1xf32>
  return %rs : tensor<4x8x1xf32>
}

// -----

// Tests the values partition expects annotated that propagation never
// annotates: an argument used twice, an argument not used, a table a
// gather reads from inside a generic's body, and that gather's result
// (its body reads linalg.index: split loops would see local indices).
// Each gets one replicated shard.shard. Partitioned, the table and the
// gathered rows are whole on every core and only the sum is split.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @unannotatable
// CHECK: %[[R:.*]] = shard.sharding @cores split_axes = {{\[\[\]\]}}
// CHECK-DAG: %[[T:.*]] = shard.shard %arg1 to %[[R]] : tensor<16x4xf32>
// CHECK-DAG: %[[X:.*]] = shard.shard %arg2 to %[[R]] : tensor<8x4xf32>
// CHECK-DAG: shard.shard %arg3 to %[[R]] : tensor<2xf32>
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: tensor.extract %[[T]]
// CHECK: %[[GR:.*]] = shard.shard %[[G]] to %[[R]] : tensor<8x4xf32>
// CHECK: linalg.add ins(%[[GR]], %[[X]]
// CHECK: linalg.add ins({{.*}}, %[[X]]
// SHARD-LABEL: func.func @unannotatable
// SHARD-SAME: %{{.*}}: tensor<16x4xf32> {neuron.sharding = [array<i64>, array<i64>]}
// SHARD-SAME: -> (tensor<8x2xf32>
// SHARD: linalg.generic
// SHARD: tensor.extract %{{.*}} : tensor<16x4xf32>
// SHARD: } -> tensor<8x4xf32>
#row = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @unannotatable(%pos: tensor<8xi64>, %table: tensor<16x4xf32>, %x: tensor<8x4xf32>, %unused: tensor<2xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %g = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%pos : tensor<8xi64>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%p: i64, %o: f32):
    %i = arith.index_cast %p : i64 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<16x4xf32>
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %y = linalg.add ins(%g, %x : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %z = linalg.add ins(%y, %x : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %s = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %r = shard.shard %z to %s annotate_for_users : tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// Tests a table computed in the function and read both inside a gather's
// body and by an op: its one annotation (replicated) is its only use,
// which both readers then read, as partition requires of a value whose
// users it cannot all see. A second gather of the same table is
// replicated too.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @computed_table
// CHECK: %[[T:.*]] = linalg.add
// CHECK-NEXT: %[[TR:.*]] = shard.shard %[[T]] to %{{.*}} : tensor<16x4xf32>
// CHECK: tensor.extract %[[TR]]
// CHECK: shard.shard %{{.*}} to %{{.*}} : tensor<8x4xf32>
// CHECK: tensor.extract %[[TR]]
// CHECK: shard.shard %{{.*}} to %{{.*}} : tensor<8x4xf32>
// CHECK: linalg.add ins(%[[TR]], %[[TR]]
// SHARD-LABEL: func.func @computed_table
// SHARD-NOT: neuron.all_gather
// SHARD: return
#row = affine_map<(d0, d1) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @computed_table(%pos: tensor<8xi64>, %table: tensor<16x4xf32>, %x: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<16x4xf32>) {
  %e16 = tensor.empty() : tensor<16x4xf32>
  %t = linalg.add ins(%table, %table : tensor<16x4xf32>, tensor<16x4xf32>) outs(%e16 : tensor<16x4xf32>) -> tensor<16x4xf32>
  %e = tensor.empty() : tensor<8x4xf32>
  %g1 = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%pos : tensor<8xi64>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%p: i64, %o: f32):
    %i = arith.index_cast %p : i64 to index
    %v = tensor.extract %t[%i, %i] : tensor<16x4xf32>
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %g2 = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]} ins(%pos : tensor<8xi64>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%p: i64, %o: f32):
    %i = arith.index_cast %p : i64 to index
    %v = tensor.extract %t[%i, %i] : tensor<16x4xf32>
    linalg.yield %v : f32
  } -> tensor<8x4xf32>
  %y = linalg.add ins(%g1, %g2 : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %z = linalg.add ins(%y, %x : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %tt = linalg.add ins(%t, %t : tensor<16x4xf32>, tensor<16x4xf32>) outs(%e16 : tensor<16x4xf32>) -> tensor<16x4xf32>
  %s = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %r = shard.shard %z to %s annotate_for_users : tensor<8x4xf32>
  return %r, %tt : tensor<8x4xf32>, tensor<16x4xf32>
}

// -----

// Tests constants: one that is not a splat becomes neuron.constant,
// replicated; a splat accumulator gives each matmul its own fill and is
// erased. Partitioned, the product is split by columns with no gather of
// the weight.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @constants
// CHECK: %[[N:.*]] = neuron.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK: shard.shard %[[N]] to %{{.*}} : tensor<4xf32>
// CHECK-NOT: arith.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: linalg.matmul {{.*}} outs(%[[F]] : tensor<4x8xf32>)
// SHARD-LABEL: func.func @constants
// SHARD-NOT: neuron.all_gather
// SHARD: neuron.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>
// SHARD-NOT: neuron.all_gather
// SHARD: linalg.matmul {{.*}} -> tensor<4x4xf32>
func.func @constants(%x: tensor<4x4xf32>, %w: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  %n = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %z = arith.constant dense<0.0> : tensor<4x8xf32>
  %s = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %ws = shard.shard %w to %s : tensor<4x8xf32>
  %p = linalg.matmul ins(%x, %ws : tensor<4x4xf32>, tensor<4x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = shard.shard %p to %s annotate_for_users : tensor<4x8xf32>
  return %n, %r : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Tests a weight stored as a resource (as exporters write, or elide,
// large constants): partition would copy it whole under a split type, so
// it becomes a replicated neuron.constant and each core slices its part.
shard.grid @cores(shape = 2)
// CHECK-LABEL: func.func @resource
// CHECK: %[[W:.*]] = neuron.constant dense_resource<weights> : tensor<4xf32>
// CHECK: shard.shard %[[W]]
// SHARD-LABEL: func.func @resource
// SHARD: %[[W:.*]] = neuron.constant dense_resource<weights> : tensor<4xf32>
// SHARD: neuron.all_slice %[[W]] grid [2] axes [0] axis 0 : tensor<4xf32> -> tensor<2xf32>
func.func @resource(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = arith.constant dense_resource<weights> : tensor<4xf32>
  %s = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %ws = shard.shard %w to %s : tensor<4xf32>
  %xs = shard.shard %x to %s : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.add ins(%ws, %xs : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = shard.shard %y to %s annotate_for_users : tensor<4xf32>
  return %r : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Tests a function sharded over two grids: replicating a value needs the
// one grid its users are on.
shard.grid @a(shape = 2)
shard.grid @b(shape = 4)
func.func @two_grids(%x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %sa = shard.sharding @a split_axes = [[0]] : !shard.sharding
  // expected-error@+1 {{neuron-prepare-sharding: the function is sharded over both @a and @b; one grid per function is supported}}
  %sb = shard.sharding @b split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %sa : tensor<8xf32>
  %ys = shard.shard %y to %sb : tensor<8xf32>
  return %xs, %ys : tensor<8xf32>, tensor<8xf32>
}

// -----

// Tests a causal mask against a position read at run time: the body's
// scalar read of the position (tensor.extract, which has no sharding rule)
// becomes an input of the generic read whole by every loop, and the read
// goes; the loop index it compares becomes an i32 iota input along its
// loop, so the op is not replicated.
// CHECK-LABEL: func.func @mask_at_position
// CHECK-SAME: (%{{.*}}: tensor<8x1x32xf32>, %[[POS:.*]]: tensor<i64>)
// CHECK: %[[REPL:.*]] = shard.sharding @cores split_axes = {{\[\[\]\]}}
// CHECK-NOT: tensor.extract
// CHECK: %[[IOTA:.*]] = neuron.constant dense<[0, 1, 2, {{.*}}, 31]> : tensor<32xi32>
// CHECK: %[[IOTAR:.*]] = shard.shard %[[IOTA]] to %[[REPL]]
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[WHOLE:.*]], #[[COL:.*]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %[[POS]], %[[IOTAR]] : tensor<8x1x32xf32>, tensor<i64>, tensor<32xi32>)
// CHECK: ^bb0(%{{.*}}: f32, %[[P:.*]]: i64, %[[J:.*]]: i32, %{{.*}}: f32):
// CHECK-NOT: linalg.index
// CHECK: %[[JI:.*]] = arith.index_cast %[[J]] : i32 to index
// CHECK: %[[JJ:.*]] = arith.index_cast %[[JI]] : index to i64
// CHECK: arith.cmpi sgt, %[[JJ]], %[[P]] : i64
// CHECK-NOT: = shard.shard %{{[0-9]+}} to %[[REPL]] : tensor<8x1x32xf32>
// CHECK: return
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
shard.grid @cores(shape = 2)
func.func @mask_at_position(%s: tensor<8x1x32xf32>, %pos: tensor<i64>) -> tensor<8x1x32xf32> {
  %sh = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %ss = shard.shard %s to %sh : tensor<8x1x32xf32>
  %p = tensor.extract %pos[] : tensor<i64>
  %e = tensor.empty() : tensor<8x1x32xf32>
  %m = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss : tensor<8x1x32xf32>) outs(%e : tensor<8x1x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 2 : index
    %jj = arith.index_cast %j : index to i64
    %future = arith.cmpi sgt, %jj, %p : i64
    %lowest = arith.constant -3.0e38 : f32
    %r = arith.select %future, %lowest, %a : f32
    linalg.yield %r : f32
  } -> tensor<8x1x32xf32>
  %r = shard.shard %m to %sh annotate_for_users : tensor<8x1x32xf32>
  return %r : tensor<8x1x32xf32>
}

// -----

// Tests a causal mask comparing two loop indices: both become iota inputs
// (one per loop) and the unsigned comparison the signed one.
// CHECK-LABEL: func.func @causal
// CHECK-DAG: %[[ROWS:.*]] = neuron.constant dense<[0, 1, 2, 3]> : tensor<4xi32>
// CHECK-DAG: %[[COLS:.*]] = neuron.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi32>
// CHECK: linalg.generic
// CHECK-SAME: tensor<2x4x6xf32>, tensor<6xi32>, tensor<4xi32>
// CHECK: arith.cmpi sgt
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
shard.grid @cores(shape = 2)
func.func @causal(%s: tensor<2x4x6xf32>) -> tensor<2x4x6xf32> {
  %sh = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %ss = shard.shard %s to %sh : tensor<2x4x6xf32>
  %e = tensor.empty() : tensor<2x4x6xf32>
  %m = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss : tensor<2x4x6xf32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 2 : index
    %i = linalg.index 1 : index
    %future = arith.cmpi ugt, %j, %i : index
    %lowest = arith.constant -3.0e38 : f32
    %r = arith.select %future, %lowest, %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x6xf32>
  %r = shard.shard %m to %sh annotate_for_users : tensor<2x4x6xf32>
  return %r : tensor<2x4x6xf32>
}
