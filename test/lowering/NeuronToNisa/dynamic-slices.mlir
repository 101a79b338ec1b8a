// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2" | FileCheck %s

// Tests a write at a position read at run time: the i32 offset loaded into
// SBUF, the destination copied to the result, then one transfer of the
// update into the window at the origin, its destination start moved along
// the positions (axis 1: 16 - 3 = 13 starts past the first).
// CHECK-LABEL: func.func @write_rows
// CHECK-SAME: (%[[DEST:.*]]: memref<2x16x4xbf16, #nisa.memory<hbm>>, %[[ROWS:.*]]: memref<2x3x4xbf16, #nisa.memory<hbm>>, %[[POS:.*]]: memref<i32, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<2x16x4xbf16, #nisa.memory<hbm>>)
// CHECK: %[[AT:.*]] = memref.alloc() {nisa.tiling = {{{.*}}op = "neuron.dynamic_update_slice", partition = "offset"{{.*}}}} : memref<1x1xi32, #nisa.memory<sbuf>>
// CHECK: %[[P:.*]] = memref.reinterpret_cast %[[POS]] to offset: [0], sizes: [1, 1], strides: [1, 1]
// CHECK: nisa.dma_copy %[[P]], %[[AT]]
// CHECK: nisa.dma_copy %[[DEST]], %[[OUT]]
// CHECK: %[[WINDOW:.*]] = memref.subview %[[OUT]][0, 0, 0] [2, 3, 4] [1, 1, 1]
// CHECK: nisa.dma_copy %[[ROWS]], %[[WINDOW]] queue {{[0-9]+}} offset %[[AT]] limit 13 dst_dim 1
func.func @write_rows(%cache: tensor<2x16x4xbf16>, %rows: tensor<2x3x4xbf16>, %pos: tensor<i32>) -> tensor<2x16x4xbf16> {
  %0 = neuron.dynamic_update_slice %rows into %cache[%pos] axis 1 : (tensor<2x3x4xbf16>, tensor<2x16x4xbf16>, tensor<i32>) -> tensor<2x16x4xbf16>
  return %0 : tensor<2x16x4xbf16>
}

// -----

func.func @write_at_i64(%cache: tensor<16x4xf32>, %row: tensor<1x4xf32>, %pos: tensor<i64>) -> tensor<16x4xf32> {
  // expected-error@+1 {{convert-neuron-to-nisa: expected an i32 offset, found 'i64' (fallback=decompose narrows i64 offsets)}}
  %0 = neuron.dynamic_update_slice %row into %cache[%pos] axis 0 : (tensor<1x4xf32>, tensor<16x4xf32>, tensor<i64>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// Tests a result written in place of its input (neuron.in_place, set by
// neuron-outline-kernels): the update goes straight into the input's
// buffer, which the rest of the kernel reads as the result; nothing copies
// the cache, and the output argument is left to the executable, which
// binds it to the input's tensor.
// CHECK-LABEL: func.func @write_in_place
// CHECK-SAME: (%[[CACHE:.*]]: memref<16x64xf32, #nisa.memory<hbm>>, %[[ROW:.*]]: memref<1x64xf32, #nisa.memory<hbm>>, %{{.*}}: memref<i32, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<16x64xf32, #nisa.memory<hbm>>, %{{.*}}: memref<16x64xf32, #nisa.memory<hbm>>)
// CHECK-NOT: nisa.dma_copy %[[CACHE]], %[[OUT]]
// CHECK: %[[WINDOW:.*]] = memref.subview %[[CACHE]][0, 0] [1, 64] [1, 1]
// CHECK: nisa.dma_copy %[[ROW]], %[[WINDOW]] queue {{[0-9]+}} offset %{{.*}} limit 15 dst_dim 0
// CHECK: memref.reinterpret_cast %[[CACHE]]
// CHECK: nisa.activation <exp>
// CHECK-NOT: %[[OUT]]
// CHECK: return
func.func @write_in_place(%cache: tensor<16x64xf32>, %row: tensor<1x64xf32>, %pos: tensor<i32>) -> (tensor<16x64xf32> {neuron.in_place = 0 : i64}, tensor<16x64xf32>) {
  %0 = neuron.dynamic_update_slice %row into %cache[%pos] axis 0 : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i32>) -> tensor<16x64xf32>
  %1 = neuron.exp %0 : tensor<16x64xf32>
  return %0, %1 : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Tests a read at a position read at run time: one transfer from the
// table's window at the origin into the result, its source start moved
// along the rows (64 - 2 = 62 starts past the first).
// CHECK-LABEL: func.func @read_rows
// CHECK-SAME: (%[[TABLE:.*]]: memref<64x16xf32, #nisa.memory<hbm>>, %{{.*}}: memref<i32, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<2x16xf32, #nisa.memory<hbm>>)
// CHECK: %[[AT:.*]] = memref.alloc() {nisa.tiling = {{{.*}}op = "neuron.dynamic_slice", partition = "offset"{{.*}}}} : memref<1x1xi32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %{{.*}}, %[[AT]]
// CHECK: %[[WINDOW:.*]] = memref.subview %[[TABLE]][0, 0] [2, 16] [1, 1]
// CHECK: nisa.dma_copy %[[WINDOW]], %[[OUT]] queue {{[0-9]+}} offset %[[AT]] limit 62 src_dim 0
func.func @read_rows(%table: tensor<64x16xf32>, %pos: tensor<i32>) -> tensor<2x16xf32> {
  %0 = neuron.dynamic_slice %table[%pos] axis 0 : (tensor<64x16xf32>, tensor<i32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// expected-error@+1 {{convert-neuron-to-nisa: result 0 is marked in place of input 1, which is not an input of its type}}
func.func @in_place_of_another_type(%cache: tensor<16x64xf32>, %row: tensor<1x64xf32>, %pos: tensor<i32>) -> (tensor<16x64xf32> {neuron.in_place = 1 : i64}) {
  %0 = neuron.dynamic_update_slice %row into %cache[%pos] axis 0 : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
