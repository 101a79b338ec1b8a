// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2" | FileCheck %s

// Tests an embedding lookup: 200 indices in tiles of 128 and 72 partitions,
// each loaded by DMA into SBUF as [P, 1] i32; the GpSimd engine gathers the
// 300-wide rows (one column window) and a DMA writes them to the result.
// CHECK-LABEL: func.func @embedding
// CHECK-SAME: (%[[T:.*]]: memref<1000x300xf32, #nisa.memory<hbm>>, %[[I:.*]]: memref<2x100xi32, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<2x100x300xf32, #nisa.memory<hbm>>)
// CHECK-DAG: %[[IV:.*]] = memref.reinterpret_cast %[[I]] to offset: [0], sizes: [200, 1], strides: [1, 1]
// CHECK-DAG: %[[OV:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [200, 300], strides: [300, 1]
// CHECK: %[[IDX0:.*]] = memref.alloc() {nisa.tiling = {buffers = "sbuf,psum", op = "neuron.gather", partition = "indices", tile = array<i64: 128, 300>}} : memref<128x1xi32, #nisa.memory<sbuf>>
// CHECK: %[[IS0:.*]] = memref.subview %[[IV]][0, 0] [128, 1] [1, 1]
// CHECK: nisa.dma_copy %[[IS0]], %[[IDX0]]
// CHECK: %[[ROWS0:.*]] = memref.alloc() : memref<128x300xf32, #nisa.memory<sbuf>>
// CHECK: nisa.gather %[[T]][%[[IDX0]]], %[[ROWS0]] : memref<1000x300xf32, #nisa.memory<hbm>>, memref<128x1xi32, #nisa.memory<sbuf>>, memref<128x300xf32, #nisa.memory<sbuf>>
// CHECK: %[[OS0:.*]] = memref.subview %[[OV]][0, 0] [128, 300] [1, 1]
// CHECK: nisa.dma_copy %[[ROWS0]], %[[OS0]]
// CHECK: %[[IDX1:.*]] = memref.alloc() : memref<72x1xi32, #nisa.memory<sbuf>>
// CHECK: memref.subview %[[IV]][128, 0] [72, 1] [1, 1]
// CHECK: nisa.gather %[[T]][%[[IDX1]]], %{{.*}} : {{.*}}, memref<72x1xi32, #nisa.memory<sbuf>>, memref<72x300xf32, #nisa.memory<sbuf>>
// CHECK: memref.subview %[[OV]][128, 0] [72, 300] [1, 1]
// CHECK: return
func.func @embedding(%t: tensor<1000x300xf32>, %i: tensor<2x100xi32>) -> tensor<2x100x300xf32> {
  %0 = neuron.gather %t[%i] axis 0 : (tensor<1000x300xf32>, tensor<2x100xi32>) -> tensor<2x100x300xf32>
  return %0 : tensor<2x100x300xf32>
}

// -----

// Tests rows wider than one tile (512 f32: 2 KiB per partition on trn2):
// one index tile, then a loop over the 15 full column windows of the table
// (views at columns 512 j), each gathered and written to its columns of the
// result, and the last 320 columns after it.
// CHECK-LABEL: func.func @wide_rows
// CHECK-SAME: (%[[T:.*]]: memref<16x8000xf32, #nisa.memory<hbm>>, %[[I:.*]]: memref<3xi32, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<3x8000xf32, #nisa.memory<hbm>>)
// CHECK: memref.alloc() {nisa.tiling = {{{.*}}tile = array<i64: 128, 512>}} : memref<3x1xi32, #nisa.memory<sbuf>>
// CHECK: affine.for %[[J:.*]] = 0 to 15 {
// CHECK:   %[[C:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK:   %[[W:.*]] = memref.subview %[[T]][0, %[[C]]] [16, 512] [1, 1]
// CHECK:   nisa.gather %[[W]][%{{.*}}], %{{.*}} : memref<16x512xf32, strided<[8000, 1], offset: ?>, #nisa.memory<hbm>>, memref<3x1xi32, #nisa.memory<sbuf>>, memref<3x512xf32, #nisa.memory<sbuf>>
// CHECK:   memref.subview %{{.*}}[0, %[[C]]] [3, 512] [1, 1]
// CHECK: }
// CHECK: %[[W15:.*]] = memref.subview %[[T]][0, 7680] [16, 320] [1, 1]
// CHECK: nisa.gather %[[W15]][%{{.*}}], %{{.*}} : memref<16x320xf32, strided<[8000, 1], offset: 7680>, #nisa.memory<hbm>>, memref<3x1xi32, #nisa.memory<sbuf>>, memref<3x320xf32, #nisa.memory<sbuf>>
// CHECK: memref.subview %{{.*}}[0, 7680] [3, 320] [1, 1]
// CHECK-NOT: nisa.gather
// CHECK: return
func.func @wide_rows(%t: tensor<16x8000xf32>, %i: tensor<3xi32>) -> tensor<3x8000xf32> {
  %0 = neuron.gather %t[%i] axis 0 : (tensor<16x8000xf32>, tensor<3xi32>) -> tensor<3x8000xf32>
  return %0 : tensor<3x8000xf32>
}

// -----

// Tests a table whose rows are matrices: each row is its 4x8 elements,
// contiguous in HBM, so the table is viewed as [10, 32].
// CHECK-LABEL: func.func @matrix_rows
// CHECK: %[[TV:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [10, 32], strides: [32, 1] : memref<10x4x8xbf16, #nisa.memory<hbm>>
// CHECK: nisa.gather %[[TV]][%{{.*}}], %{{.*}} : memref<10x32xbf16, #nisa.memory<hbm>>, memref<5x1xi32, #nisa.memory<sbuf>>, memref<5x32xbf16, #nisa.memory<sbuf>>
func.func @matrix_rows(%t: tensor<10x4x8xbf16>, %i: tensor<5xi32>) -> tensor<5x4x8xbf16> {
  %0 = neuron.gather %t[%i] axis 0 : (tensor<10x4x8xbf16>, tensor<5xi32>) -> tensor<5x4x8xbf16>
  return %0 : tensor<5x4x8xbf16>
}

// -----

// Tests that a gather on another axis than 0 is an error naming the axis.
func.func @axis_one(%t: tensor<8x100xf32>, %i: tensor<4xi32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{convert-neuron-to-nisa: only gathers on axis 0 are tiled yet, found axis 1}}
  %0 = neuron.gather %t[%i] axis 1 : (tensor<8x100xf32>, tensor<4xi32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Tests that i64 indices (left by fallback=error or host) are an error
// pointing at the decomposition that narrows them.
func.func @i64_indices(%t: tensor<100x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32> {
  // expected-error@+1 {{convert-neuron-to-nisa: expected i32 gather indices, found 'i64' (fallback=decompose narrows i64 indices)}}
  %0 = neuron.gather %t[%i] axis 0 : (tensor<100x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
