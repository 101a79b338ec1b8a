// RUN: neuron-opt %s -split-input-file -verify-diagnostics --neuron-annotate-tensor-parallel="cores=4 summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s
// RUN: neuron-opt %s -split-input-file --neuron-annotate-tensor-parallel=cores=4 -neuron-shard 2>/dev/null | FileCheck %s --check-prefix=SHARD

// Tests an MLP with a bias: the first weight is split by columns, the bias
// (read along the split) alike, the second weight by rows, and the result
// is annotated whole; partitioning then holds a quarter of each weight per
// core and ends with one all-reduce.
// CHECK: shard.grid @tensor_parallel(shape = 4)
// CHECK-LABEL: func.func @mlp
// CHECK: %[[S1:.*]] = shard.sharding @tensor_parallel split_axes = {{\[\[\], \[0\]\]}}
// CHECK: %[[W1:.*]] = shard.shard %arg1 to %[[S1]] : tensor<128x256xf32>
// CHECK: linalg.matmul ins(%arg0, %[[W1]]
// CHECK: %[[S2:.*]] = shard.sharding @tensor_parallel split_axes = {{\[\[0\]\]}}
// CHECK: %[[B1:.*]] = shard.shard %arg2 to %[[S2]] : tensor<256xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B1]]
// CHECK: %[[S3:.*]] = shard.sharding @tensor_parallel split_axes = {{\[\[0\], \[\]\]}}
// CHECK: %[[W2:.*]] = shard.shard %arg3 to %[[S3]] : tensor<256x128xf32>
// CHECK: %[[Y:.*]] = linalg.matmul ins(%{{.*}}, %[[W2]]
// CHECK: %[[S4:.*]] = shard.sharding @tensor_parallel split_axes = {{\[\[\], \[\]\]}}
// CHECK: %[[R:.*]] = shard.shard %[[Y]] to %[[S4]] annotate_for_users
// CHECK: return %[[R]]
// SHARD-LABEL: func.func @mlp
// SHARD-SAME: tensor<128x64xf32> {neuron.sharding = [array<i64>, array<i64: 0>]}
// SHARD-SAME: tensor<64xf32> {neuron.sharding = [array<i64: 0>]}
// SHARD-SAME: tensor<64x128xf32> {neuron.sharding = [array<i64: 0>, array<i64>]}
// SHARD: neuron.all_reduce %{{.*}} grid [4] axes [0] reduction <sum> : tensor<64x128xf32> -> tensor<64x128xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// expected-remark@+1 {{neuron-annotate-tensor-parallel: 1 column-parallel and 1 row-parallel projections over 4 cores}}
func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x256xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %a = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b1 : tensor<64x256xf32>, tensor<256xf32>) outs(%e1 : tensor<64x256xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x256xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// Tests a weight transposed by a generic (as torch-mlir writes x @ w.t()):
// the weight itself is split, along the dimension the transpose maps to
// the split one.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[S:.*]] = shard.sharding @tensor_parallel split_axes = {{\[\[0\], \[\]\]}}
// CHECK: %[[W:.*]] = shard.shard %arg1 to %[[S]] : tensor<256x128xf32>
// CHECK: linalg.generic {{.*}} ins(%[[W]] : tensor<256x128xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// expected-remark@+1 {{1 column-parallel and 0 row-parallel projections over 4 cores}}
func.func @transposed(%x: tensor<64x128xf32>, %w: tensor<256x128xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<128x256xf32>
  %wt = linalg.generic {indexing_maps = [#id, #tr], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<256x128xf32>) outs(%et : tensor<128x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x256xf32>
  %e = tensor.empty() : tensor<64x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h = linalg.matmul ins(%x, %wt : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %h : tensor<64x256xf32>
}

// -----

// Tests a weight whose columns the cores do not divide: it stays whole, and
// the remark says why.
// expected-remark@+1 {{0 column-parallel and 0 row-parallel projections over 4 cores; kept whole: a column-parallel weight whose columns the cores do not divide}}
func.func @indivisible(%x: tensor<8x16xf32>, %w: tensor<16x10xf32>) -> tensor<8x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x10xf32>) -> tensor<8x10xf32>
  %h = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x10xf32>) outs(%f : tensor<8x10xf32>) -> tensor<8x10xf32>
  return %h : tensor<8x10xf32>
}

// -----

// Tests weights stored [out, in] and transposed by linalg.transpose (as
// tosa.transpose lowers), with the zero accumulators as constants (as
// tosa-to-linalg writes them): the first weight is split along its rows
// (its output features), the second along its columns, and partitioning
// ends with one all-reduce and gathers no weight.
// CHECK-LABEL: func.func @named_transpose
// CHECK: %[[S1:.*]] = shard.sharding @tensor_parallel split_axes = {{\[\[0\], \[\]\]}}
// CHECK: %[[W1:.*]] = shard.shard %arg1 to %[[S1]] : tensor<256x128xf32>
// CHECK: linalg.transpose ins(%[[W1]]
// CHECK: %[[S2:.*]] = shard.sharding @tensor_parallel split_axes = {{\[\[\], \[0\]\]}}
// CHECK: %[[W2:.*]] = shard.shard %arg2 to %[[S2]] : tensor<128x256xf32>
// CHECK: linalg.transpose ins(%[[W2]]
// SHARD-LABEL: func.func @named_transpose
// SHARD-SAME: tensor<64x128xf32> {neuron.sharding = [array<i64: 0>, array<i64>]}
// SHARD-SAME: tensor<128x64xf32> {neuron.sharding = [array<i64>, array<i64: 0>]}
// SHARD-NOT: all_gather
// SHARD: neuron.all_reduce %{{.*}} grid [4] axes [0] reduction <sum> : tensor<64x128xf32> -> tensor<64x128xf32>
// SHARD-NEXT: return
// expected-remark@+1 {{neuron-annotate-tensor-parallel: 1 column-parallel and 1 row-parallel projections over 4 cores}}
func.func @named_transpose(%x: tensor<64x128xf32>, %w1: tensor<256x128xf32>, %w2: tensor<128x256xf32>) -> tensor<64x128xf32> {
  %e1 = tensor.empty() : tensor<128x256xf32>
  %t1 = linalg.transpose ins(%w1 : tensor<256x128xf32>) outs(%e1 : tensor<128x256xf32>) permutation = [1, 0]
  %z1 = arith.constant dense<0.0> : tensor<64x256xf32>
  %h = linalg.matmul ins(%x, %t1 : tensor<64x128xf32>, tensor<128x256xf32>) outs(%z1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %e2 = tensor.empty() : tensor<256x128xf32>
  %t2 = linalg.transpose ins(%w2 : tensor<128x256xf32>) outs(%e2 : tensor<256x128xf32>) permutation = [1, 0]
  %z2 = arith.constant dense<0.0> : tensor<64x128xf32>
  %y = linalg.matmul ins(%h, %t2 : tensor<64x256xf32>, tensor<256x128xf32>) outs(%z2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// Tests a constant read after the heads moved the split off the last
// dimension: scores [heads, q, k] are split by heads, so a constant read
// along the keys (the last loop) is not split like a bias would be.
// CHECK-LABEL: func.func @scale_after_heads
// CHECK: %[[S:.*]] = arith.constant dense<1.250000e-01> : tensor<4x8x8xf32>
// CHECK-NOT: shard.shard %[[S]]
// CHECK: linalg.generic
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// expected-remark@+1 {{neuron-annotate-tensor-parallel: 2 column-parallel and 0 row-parallel projections over 4 cores}}
func.func @scale_after_heads(%x: tensor<8x16xf32>, %wq: tensor<16x32xf32>, %wk: tensor<16x32xf32>) -> tensor<4x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f : tensor<8x32xf32>) -> tensor<8x32xf32>
  %qh = tensor.expand_shape %q [[0], [1, 2]] output_shape [8, 4, 8] : tensor<8x32xf32> into tensor<8x4x8xf32>
  %kh = tensor.expand_shape %k [[0], [1, 2]] output_shape [8, 4, 8] : tensor<8x32xf32> into tensor<8x4x8xf32>
  %eq = tensor.empty() : tensor<4x8x8xf32>
  %qt = linalg.transpose ins(%qh : tensor<8x4x8xf32>) outs(%eq : tensor<4x8x8xf32>) permutation = [1, 0, 2]
  %ek = tensor.empty() : tensor<4x8x8xf32>
  %kt = linalg.transpose ins(%kh : tensor<8x4x8xf32>) outs(%ek : tensor<4x8x8xf32>) permutation = [1, 2, 0]
  %zs = linalg.fill ins(%zero : f32) outs(%eq : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %s = linalg.batch_matmul ins(%qt, %kt : tensor<4x8x8xf32>, tensor<4x8x8xf32>) outs(%zs : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  %scale = arith.constant dense<0.125> : tensor<4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %scale : tensor<4x8x8xf32>, tensor<4x8x8xf32>) outs(%eq : tensor<4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8x8xf32>
  return %r : tensor<4x8x8xf32>
}

// -----

// Tests a projection to fewer heads than cores (a grouped-query
// attention's keys: 2 heads of 32 over 4 cores): splitting its 64 columns
// would cut the heads the reshape after it makes, so its weight stays whole
// on every core, and the query projection (4 heads) is split.
// CHECK-LABEL: func.func @fewer_heads
// CHECK: %[[SQ:.*]] = shard.sharding @tensor_parallel split_axes = {{\[\[\], \[0\]\]}}
// CHECK: %[[WQ:.*]] = shard.shard %arg1 to %[[SQ]] : tensor<64x128xf32>
// CHECK: linalg.matmul ins(%arg0, %[[WQ]]
// CHECK-NOT: shard.shard %arg2
// CHECK: linalg.matmul ins(%arg0, %arg2
// expected-remark@+1 {{1 column-parallel and 0 row-parallel projections over 4 cores; kept whole: a projection to fewer heads than cores (its heads replicated on every core)}}
func.func @fewer_heads(%x: tensor<8x64xf32>, %wq: tensor<64x128xf32>, %wk: tensor<64x64xf32>) -> (tensor<8x4x32xf32>, tensor<8x2x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %eq = tensor.empty() : tensor<8x128xf32>
  %fq = linalg.fill ins(%zero : f32) outs(%eq : tensor<8x128xf32>) -> tensor<8x128xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<8x64xf32>, tensor<64x128xf32>) outs(%fq : tensor<8x128xf32>) -> tensor<8x128xf32>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [8, 4, 32] : tensor<8x128xf32> into tensor<8x4x32xf32>
  %ek = tensor.empty() : tensor<8x64xf32>
  %fk = linalg.fill ins(%zero : f32) outs(%ek : tensor<8x64xf32>) -> tensor<8x64xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<8x64xf32>, tensor<64x64xf32>) outs(%fk : tensor<8x64xf32>) -> tensor<8x64xf32>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [8, 2, 32] : tensor<8x64xf32> into tensor<8x2x32xf32>
  return %q3, %k3 : tensor<8x4x32xf32>, tensor<8x2x32xf32>
}
