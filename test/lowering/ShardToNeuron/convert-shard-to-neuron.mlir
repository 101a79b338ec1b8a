// RUN: neuron-opt %s -split-input-file -convert-shard-to-neuron | FileCheck %s

// Tests that all_reduce takes the grid's shape, its axes and its reduction.
shard.grid @g(shape = 2x4)
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: %[[R:.*]] = neuron.all_reduce %[[X]] grid [2, 4] axes [1] reduction <max> : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK-NOT: shard.
// CHECK: return %[[R]]
func.func @all_reduce(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = shard.all_reduce %x on @g grid_axes = [1] reduction = max : tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Tests that the default reduction is sum and that an all_reduce accumulating
// in a wider type casts its input first.
shard.grid @g(shape = 4)
// CHECK-LABEL: func.func @all_reduce_widening
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xbf16>)
// CHECK: %[[C:.*]] = neuron.cast %[[X]] : tensor<8x16xbf16> -> tensor<8x16xf32>
// CHECK: neuron.all_reduce %[[C]] grid [4] axes [0] reduction <sum> : tensor<8x16xf32> -> tensor<8x16xf32>
func.func @all_reduce_widening(%x: tensor<8x16xbf16>) -> tensor<8x16xf32> {
  %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<8x16xbf16> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Tests all_gather along a tensor axis.
shard.grid @g(shape = 2x2)
// CHECK-LABEL: func.func @all_gather
// CHECK: neuron.all_gather %{{.*}} grid [2, 2] axes [1] axis 1 : tensor<2x2xf32> -> tensor<2x4xf32>
func.func @all_gather(%x: tensor<2x2xf32>) -> tensor<2x4xf32> {
  %0 = shard.all_gather %x on @g grid_axes = [1] gather_axis = 1 : tensor<2x2xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests reduce_scatter over two grid axes.
shard.grid @g(shape = 2x2)
// CHECK-LABEL: func.func @reduce_scatter
// CHECK: neuron.reduce_scatter %{{.*}} grid [2, 2] axes [0, 1] reduction <min> axis 0 : tensor<8x4xf32> -> tensor<2x4xf32>
func.func @reduce_scatter(%x: tensor<8x4xf32>) -> tensor<2x4xf32> {
  %0 = shard.reduce_scatter %x on @g grid_axes = [0, 1] reduction = min scatter_axis = 0 : tensor<8x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests all_to_all with its split and concat axes.
shard.grid @g(shape = 4)
// CHECK-LABEL: func.func @all_to_all
// CHECK: neuron.all_to_all %{{.*}} grid [4] axes [0] split 1 concat 0 : tensor<8x16xf32> -> tensor<32x4xf32>
func.func @all_to_all(%x: tensor<8x16xf32>) -> tensor<32x4xf32> {
  %0 = shard.all_to_all %x on @g grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<8x16xf32> -> tensor<32x4xf32>
  return %0 : tensor<32x4xf32>
}

// -----

// Tests that an all_reduce whose only use is an all_slice on the same grid
// and axes becomes one reduce_scatter along the slice axis.
shard.grid @g(shape = 4)
// CHECK-LABEL: func.func @fuse_all_reduce_slice
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK-NOT: neuron.all_reduce
// CHECK: %[[R:.*]] = neuron.reduce_scatter %[[X]] grid [4] axes [0] reduction <sum> axis 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NOT: shard.
// CHECK: return %[[R]]
func.func @fuse_all_reduce_slice(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
  %1 = shard.all_slice %0 on @g grid_axes = [0] slice_axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
  return %1 : tensor<8x4xf32>
}

// -----

// Tests that an all_reduce with a use besides the slice is not fused: the
// full reduction is needed, and the slice alone is an all_slice.
shard.grid @g(shape = 4)
// CHECK-LABEL: func.func @no_fusion_other_use
// CHECK: %[[R:.*]] = neuron.all_reduce
// CHECK: neuron.all_slice %[[R]] grid [4] axes [0] axis 1 : tensor<8x16xf32> -> tensor<8x4xf32>
// CHECK-NOT: neuron.reduce_scatter
func.func @no_fusion_other_use(%x: tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<8x16xf32>) {
  %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
  %1 = shard.all_slice %0 on @g grid_axes = [0] slice_axis = 1 : tensor<8x16xf32> -> tensor<8x4xf32>
  return %1, %0 : tensor<8x4xf32>, tensor<8x16xf32>
}

// -----

// Tests that a slice over other grid axes than the reduction is not fused.
shard.grid @g(shape = 2x2)
// CHECK-LABEL: func.func @no_fusion_other_axes
// CHECK: neuron.all_reduce %{{.*}} grid [2, 2] axes [0]
// CHECK: neuron.all_slice %{{.*}} grid [2, 2] axes [1] axis 1 : tensor<8x16xf32> -> tensor<8x8xf32>
func.func @no_fusion_other_axes(%x: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
  %1 = shard.all_slice %0 on @g grid_axes = [1] slice_axis = 1 : tensor<8x16xf32> -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
