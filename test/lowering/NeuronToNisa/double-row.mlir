// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2,lnc=1" | FileCheck %s
// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn1" | FileCheck %s --check-prefix=TRN1

// Tests fp8 matmuls in trn2's double-row mode (two rows of K per partition
// in one matmul, stationary [K, 2, M] and moving [K, 2, N]); trn1 has no
// such mode. Where K is even, the DMA's transpose of 2-byte elements loads
// lhs as FP8 pairs: partition k holds lhs[m, 2k] and lhs[m, 2k + 1] side by
// side ([K, M, 2], the operand a [K, 2, M] view stepping 2 along M), and
// rhs's rows 2k and 2k + 1 fill partition k; the tensor engine transposes
// nothing. K = 1000 is 4 pairs of 125 partitions.

// A block of rhs resident (its 4 pairs of 4 N tiles), each loaded in one
// transfer of rows 2k and 2k + 1; lhs streams past in pairs the DMA
// transposes. Transfers bound the plan, so a streamed M tile's four sums
// are evacuated side by side and stored in one transfer.
// CHECK-LABEL: func.func @rhs_resident
// CHECK-SAME: fp8_rows = 2
// CHECK-NOT: nisa.transpose
// CHECK: %[[BLOCK:.*]] = memref.alloc() : memref<125x8x2048xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK: affine.for
// CHECK:   %[[SLOT:.*]] = memref.subview %[[BLOCK]][0, %{{.*}}, 0] [125, 2, 2048]
// CHECK:   %[[ROWS:.*]] = memref.reinterpret_cast %arg1 to offset: [%{{.*}}], sizes: [125, 2, 2048], strides: [8000, 4000, 1]
// CHECK:   nisa.dma_copy %[[ROWS]], %[[SLOT]]
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK:   affine.for %[[K:.*]] = 0 to 4 {
// CHECK:     %[[PAIRS:.*]] = memref.alloc() : memref<125x128x2xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:     %[[LHS:.*]] = memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [125, 128, 2], strides: [2, 1000, 1]
// CHECK:     nisa.dma_copy %[[LHS]], %[[PAIRS]]
// CHECK:     %[[STAT:.*]] = memref.reinterpret_cast %[[PAIRS]] to offset: [0], sizes: [125, 2, 128], strides: [256, 1, 2]
// CHECK:     nisa.matmul %[[STAT]], %{{.*}}, %{{.*}} double_row accumulate restart(%[[K]]) : memref<125x2x128xf8E4M3FN, strided<[256, 1, 2]>, #nisa.memory<sbuf>>, memref<125x2x512xf8E4M3FN
// CHECK-COUNT-3: nisa.matmul %[[STAT]], {{.*}} double_row accumulate restart(%[[K]])
// CHECK:   }
// CHECK:   %[[ROW:.*]] = memref.alloc() : memref<128x2048xf32, #nisa.memory<sbuf>>
// CHECK-COUNT-4: nisa.activation <identity>
// CHECK:   nisa.dma_copy %[[ROW]], %{{.*}} : memref<128x2048xf32, #nisa.memory<sbuf>>, memref<128x2048xf32, strided<[4000, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK: }
// CHECK-NOT: nisa.matmul {{.*}} : memref<{{[0-9]+}}x{{[0-9]+}}xf8E4M3FN
// CHECK: return
// TRN1-LABEL: func.func @rhs_resident
// TRN1-NOT: fp8_rows
// TRN1-NOT: double_row
// TRN1: nisa.transpose
func.func @rhs_resident(%a: tensor<300x1000xf8E4M3FN>, %b: tensor<1000x4000xf8E4M3FN>) -> tensor<300x4000xf32> {
  %0 = neuron.matmul %a, %b : (tensor<300x1000xf8E4M3FN>, tensor<1000x4000xf8E4M3FN>) -> tensor<300x4000xf32>
  return %0 : tensor<300x4000xf32>
}

// -----

// A block of lhs resident: each pair of K tiles holds the block's [130, 2]
// pairs, filled by the DMA's transpose and read as [103, 2, M-tile] views
// stepping 2 along M; K = 1030 is 5 pairs of 103 partitions.
// CHECK-LABEL: func.func @lhs_resident
// CHECK-NOT: nisa.transpose
// CHECK: %[[BLOCK:.*]] = memref.alloc() : memref<103x10x130xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 5 {
// CHECK:   %[[SLOT:.*]] = memref.reinterpret_cast %[[BLOCK]] to offset: [%{{.*}}], sizes: [103, 130, 2], strides: [1300, 2, 1]
// CHECK:   %[[LHS:.*]] = memref.reinterpret_cast %arg0 to offset: [%{{.*}}], sizes: [103, 130, 2], strides: [2, 1030, 1]
// CHECK:   nisa.dma_copy %[[LHS]], %[[SLOT]]
// CHECK: affine.for %[[K:.*]] = 0 to 5 {
// CHECK:   %[[MOVING:.*]] = memref.alloc() : memref<103x2x1024xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   %[[ROWS:.*]] = memref.reinterpret_cast %arg1 to offset: [%{{.*}}], sizes: [103, 2, 1024], strides: [2060, 1030, 1]
// CHECK:   nisa.dma_copy %[[ROWS]], %[[MOVING]]
// CHECK:   %[[HELD:.*]] = memref.reinterpret_cast %[[BLOCK]] to offset: [%{{.*}}], sizes: [103, 2, 128], strides: [1300, 1, 2]
// CHECK:   nisa.matmul %[[HELD]], %{{.*}}, %{{.*}} double_row accumulate restart(%[[K]])
func.func @lhs_resident(%a: tensor<130x1030xf8E4M3FN>, %b: tensor<1030x1030xf8E4M3FN>) -> tensor<130x1030xf32> {
  %0 = neuron.matmul %a, %b : (tensor<130x1030xf8E4M3FN>, tensor<1030x1030xf8E4M3FN>) -> tensor<130x1030xf32>
  return %0 : tensor<130x1030xf32>
}

// -----

// Both operands streamed: K = 640 is 3 pairs as even as K allows, two of
// 107 partitions in a loop and one of 106 (K elements 428 to 639).
// CHECK-LABEL: func.func @streamed
// CHECK: affine.for %[[K:.*]] = 0 to 2 {
// CHECK:   memref.alloc() : memref<107x128x2xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   nisa.matmul {{.*}} double_row accumulate restart(%[[K]]) : memref<107x2x128xf8E4M3FN, strided<[256, 1, 2]>, #nisa.memory<sbuf>>, memref<107x2x96xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK: }
// CHECK: memref.reinterpret_cast %arg0 to offset: [428], sizes: [106, 128, 2], strides: [2, 640, 1]
// CHECK: memref.reinterpret_cast %arg1 to offset: [41088], sizes: [106, 2, 96], strides: [192, 96, 1]
// CHECK: nisa.matmul {{.*}} double_row accumulate : memref<106x2x128xf8E4M3FN, strided<[256, 1, 2]>, #nisa.memory<sbuf>>, memref<106x2x96xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.matmul
// TRN1-LABEL: func.func @streamed
// TRN1-NOT: double_row
func.func @streamed(%a: tensor<128x640xf8E4M3FN>, %b: tensor<640x96xf8E4M3FN>) -> tensor<128x96xf32> {
  %0 = neuron.matmul %a, %b : (tensor<128x640xf8E4M3FN>, tensor<640x96xf8E4M3FN>) -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}

// -----

// An odd K has no FP8 pairs: rhs resident, lhs streamed in panels of 4 K
// tiles the tensor engine transposes, in groups of 4 row tiles whose rows
// are interleaved (one transfer of 4 rows per partition); the first two K
// tiles' transposes fill the rows of one [128, 2, 512] stationary (copied
// out of PSUM by the vector and scalar engines in turn), whose row tiles
// meet the pair of resident rhs K tiles (128 apart); the last two K tiles
// (128 and 127 rows) are single-row matmuls.
// CHECK-LABEL: func.func @streamed_panel
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK:   nisa.dma_copy {{.*}} : memref<128x2044xf8E4M3FN, strided<[2044, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x2044xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   %[[S0:.*]] = memref.alloc() : memref<128x2x512xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   memref.subview %[[S0]][0, 0, 0] [128, 1, 512]
// CHECK-COUNT-4: nisa.transpose
// CHECK:   nisa.tensor_scalar <bypass>
// CHECK:   nisa.activation <identity>
// CHECK:   memref.subview %[[S0]][0, 1, 0] [128, 1, 512]
// CHECK:   nisa.transpose
// CHECK-COUNT-4: nisa.matmul %{{.*}}, %{{.*}}, %{{.*}} double_row : memref<128x2x128xf8E4M3FN, strided<[1024, 512, 1]{{.*}}>, #nisa.memory<sbuf>>, memref<128x2x256xf8E4M3FN, strided<[1024, 256, 1]>, #nisa.memory<sbuf>>
// CHECK-COUNT-4: nisa.matmul {{.*}} accumulate : memref<128x128xf8E4M3FN
// CHECK-COUNT-4: nisa.matmul {{.*}} accumulate : memref<127x128xf8E4M3FN
// TRN1-LABEL: func.func @streamed_panel
// TRN1-COUNT-4: nisa.matmul {{.*}} : memref<{{12[78]}}x128xf8E4M3FN
func.func @streamed_panel(%a: tensor<1024x511xf8E4M3FN>, %b: tensor<511x256xf8E4M3FN>) -> tensor<1024x256xf32> {
  %0 = neuron.matmul %a, %b : (tensor<1024x511xf8E4M3FN>, tensor<511x256xf8E4M3FN>) -> tensor<1024x256xf32>
  return %0 : tensor<1024x256xf32>
}

// -----

// Both operands streamed, K = 639 (odd): two pairs of 128-row tiles in a
// loop, each stationary row transposed on the tensor engine and each
// moving pair one transfer of rows 128 apart, and a last tile of 127 rows.
// CHECK-LABEL: func.func @odd_k
// CHECK: affine.for %[[K:.*]] = 0 to 2 {
// CHECK:   %[[S:.*]] = memref.alloc() : memref<128x2x128xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   nisa.transpose
// CHECK:   nisa.transpose
// CHECK:   %[[M:.*]] = memref.alloc() : memref<128x2x96xf8E4M3FN, #nisa.memory<sbuf>>
// CHECK:   nisa.dma_copy %{{.*}}, %[[M]] {{.*}} : memref<128x2x96xf8E4M3FN, strided<[96, 12288, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK:   nisa.matmul %[[S]], %[[M]], %{{.*}} double_row accumulate restart(%[[K]])
// CHECK: }
// CHECK: nisa.matmul %{{.*}}, %{{.*}}, %{{.*}} accumulate : memref<127x128xf8E4M3FN, #nisa.memory<sbuf>>, memref<127x96xf8E4M3FN, #nisa.memory<sbuf>>
func.func @odd_k(%a: tensor<128x639xf8E4M3FN>, %b: tensor<639x96xf8E4M3FN>) -> tensor<128x96xf32> {
  %0 = neuron.matmul %a, %b : (tensor<128x639xf8E4M3FN>, tensor<639x96xf8E4M3FN>) -> tensor<128x96xf32>
  return %0 : tensor<128x96xf32>
}
