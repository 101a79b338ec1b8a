// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2,lnc=1" | FileCheck %s
// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn1" | FileCheck %s --check-prefix=TRN1

// Tests fp8 matmuls in trn2's double-row mode (two K tiles per matmul,
// stationary [128, 2, M] and moving [128, 2, N]); trn1 has no such mode.

// A block of lhs resident (its 8 K tiles of 3 M tiles): each streamed rhs
// transfer brings a pair of K tiles, rows tileK apart, which meets the pair
// of the block's K tiles in one matmul per M tile. K = 1000 is tiled as 8
// tiles of 125 rows, 4 pairs, rather than 3 pairs of 128 and two single
// tiles ([125, 2, 512] with strides [4000, 500000, 1]).
// CHECK-LABEL: func.func @lhs_resident
// CHECK-SAME: fp8_rows = 2
// CHECK: %[[BLOCK:.*]] = memref.alloc() : memref<125x8x300xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 7 {
// CHECK:   affine.for %[[K:.*]] = 0 to 4 {
// CHECK:     %[[PAIR:.*]] = memref.alloc() : memref<125x2x512xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:     %[[VIEW:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [125, 2, 512], strides: [4000, 500000, 1]
// CHECK:     nisa.dma_copy %[[VIEW]], %[[PAIR]]
// CHECK:     %[[HELD:.*]] = memref.subview %[[BLOCK]][0, %{{.*}}, 0] [125, 2, 128] [1, 1, 1]
// CHECK:     nisa.matmul %[[HELD]], %[[PAIR]], %{{.*}} double_row accumulate restart(%[[K]]) : memref<125x2x128xf8E4M3FN, strided<[2400, 300, 1], offset: ?>, #nisa.memory<sbuf>>, memref<125x2x512xf8E4M3FN, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<psum>>
// CHECK-COUNT-2: nisa.matmul {{.*}} double_row accumulate restart(%[[K]])
// CHECK:   }
// CHECK: }
// CHECK-NOT: nisa.matmul {{.*}} : memref<{{[0-9]+}}x{{[0-9]+}}xf8E4M3FN
// CHECK: return
// TRN1-LABEL: func.func @lhs_resident
// TRN1-NOT: fp8_rows
// TRN1-NOT: double_row
func.func @lhs_resident(%a: tensor<300x1000xf8E4M3FN>, %b: tensor<1000x4000xf8E4M3FN>) -> tensor<300x4000xf32> {
  %0 = neuron.matmul %a, %b : (tensor<300x1000xf8E4M3FN>, tensor<1000x4000xf8E4M3FN>) -> tensor<300x4000xf32>
  return %0 : tensor<300x4000xf32>
}

// -----

// rhs resident, lhs streamed in panels of 4 K tiles the tensor engine
// transposes: each two transposes fill the rows of one [128, 2, 128]
// stationary, which meets the pair of resident rhs K tiles; the first
// matmul starts the sum.
// CHECK-LABEL: func.func @streamed_panel
// CHECK: affine.for %{{.*}} = 0 to 8 {
// CHECK:   %[[S0:.*]] = memref.alloc() : memref<128x2x128xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   %[[R0:.*]] = memref.subview %[[S0]][0, 0, 0] [128, 1, 128]
// CHECK:   nisa.transpose
// CHECK:   nisa.tensor_scalar <bypass> %{{.*}}, %[[R0]]
// CHECK:   %[[R1:.*]] = memref.subview %[[S0]][0, 1, 0] [128, 1, 128]
// CHECK:   nisa.transpose
// CHECK:   nisa.tensor_scalar <bypass> %{{.*}}, %[[R1]]
// CHECK:   %[[S1:.*]] = memref.alloc() : memref<128x2x128xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   nisa.matmul %[[S0]], %{{.*}}, %[[ACC:.*]] double_row : memref<128x2x128xf8E4M3FN, #nisa.memory<sbuf>>, memref<128x2x256xf8E4M3FN, strided<[1024, 256, 1]>, #nisa.memory<sbuf>>
// CHECK:   nisa.matmul %[[S1]], %{{.*}}, %[[ACC]] double_row accumulate : memref<128x2x128xf8E4M3FN, #nisa.memory<sbuf>>, memref<128x2x256xf8E4M3FN, strided<[1024, 256, 1], offset: 512>, #nisa.memory<sbuf>>
// TRN1-LABEL: func.func @streamed_panel
// TRN1-COUNT-4: nisa.matmul {{.*}} : memref<128x128xf8E4M3FN
func.func @streamed_panel(%a: tensor<1024x512xf8E4M3FN>, %b: tensor<512x256xf8E4M3FN>) -> tensor<1024x256xf32> {
  %0 = neuron.matmul %a, %b : (tensor<1024x512xf8E4M3FN>, tensor<512x256xf8E4M3FN>) -> tensor<1024x256xf32>
  return %0 : tensor<1024x256xf32>
}

// -----

// Both operands streamed: K = 640 is two pairs in a loop and a last tile.
// CHECK-LABEL: func.func @streamed
// CHECK: affine.for %[[K:.*]] = 0 to 2 {
// CHECK:   %[[S:.*]] = memref.alloc() : memref<128x2x128xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   %[[M:.*]] = memref.alloc() : memref<128x2x96xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   nisa.matmul %[[S]], %[[M]], %{{.*}} double_row accumulate restart(%[[K]])
// CHECK: }
// CHECK: nisa.matmul %{{.*}}, %{{.*}}, %{{.*}} accumulate : memref<128x128xf8E4M3FN, #nisa.memory<sbuf>>, memref<128x96xf8E4M3FN, #nisa.memory<sbuf>>
func.func @streamed(%a: tensor<128x640xf8E4M3FN>, %b: tensor<640x96xf8E4M3FN>) -> tensor<128x96xf32> {
  %0 = neuron.matmul %a, %b : (tensor<128x640xf8E4M3FN>, tensor<640x96xf8E4M3FN>) -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}
