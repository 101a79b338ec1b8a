// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2,lnc=1 summary=1" | FileCheck %s

// Tests the first and last lhs row tiles of a held rhs that is one block.
//
// The first iteration takes two lhs row tiles: all of
// rhs (512 KiB, 1.4 us at the core's 362.5 B/ns of HBM) loads longer than
// one lhs tile's matmuls take (2 K tiles x 2 N tiles of 512 bf16 columns
// plus 32 cycles at 2.4 GHz, 0.9 us), so the tensor engine would wait for
// each K tile of rhs; with two row tiles it has twice the work per K tile
// while rhs arrives. Rows 0-255 load as one [128, 256] tile (one DMA
// transpose per K tile) feeding four accumulators; the other three row
// tiles stream one by one, from row 256.
// CHECK-DAG: #[[FROM256:.*]] = affine_map<(d0) -> (d0 * 128 + 256)>
// CHECK-LABEL: func.func @lead
// CHECK: %[[RHS:.*]] = memref.alloc() : memref<128x2x1024xbf16, #nisa.memory<sbuf>>
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} : memref<128x1024xbf16, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK-COUNT-4: memref.alloc() {{.*}}: memref<128x512xf32, #nisa.memory<psum>>
// CHECK: affine.for %[[K:.*]] = 0 to 2 {
// CHECK: %[[LHS:.*]] = memref.alloc() : memref<128x256xbf16, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %{{.*}}, %[[LHS]] {{.*}} : memref<128x256xbf16, strided<[1, 256], offset: ?>, #nisa.memory<hbm>>
// CHECK-COUNT-4: nisa.matmul
// CHECK-NOT: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} : memref<128x1024xf32, #nisa.memory<sbuf>>, memref<128x1024xf32, strided<[1024, 1]>, #nisa.memory<hbm>>
// CHECK: nisa.dma_copy {{.*}} : memref<128x1024xf32, #nisa.memory<sbuf>>, memref<128x1024xf32, strided<[1024, 1], offset: 131072>, #nisa.memory<hbm>>
// CHECK: affine.for %[[M:.*]] = 0 to 3 {
// CHECK: affine.apply #[[FROM256]](%[[M]])
// CHECK: memref.alloc() : memref<128x128xbf16, #nisa.memory<sbuf>>
// CHECK-COUNT-2: nisa.matmul
// CHECK-NOT: nisa.matmul
// CHECK: return
func.func @lead(%a: tensor<640x256xbf16>, %b: tensor<256x1024xbf16>) -> tensor<640x1024xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 640x256x1024: rhs resident in blocks of 2 N tiles, reading 0.8 MiB from HBM (2.4 us at the core's HBM bandwidth), estimated 12.8 us; the first 2 lhs row tiles stream together while rhs loads; runner-up: lhs resident in blocks of 5 M tiles, 0.8 MiB, 13.0 us}}
  %0 = neuron.matmul %a, %b : (tensor<640x256xbf16>, tensor<256x1024xbf16>) -> tensor<640x1024xf32>
  return %0 : tensor<640x1024xf32>
}

// -----

// Tests f32: all of rhs (512 KiB, 1.4 us) loads faster than one lhs tile's
// matmuls take (2 K tiles of 512 f32 columns at 4 cycles each plus 32
// cycles, 1.7 us): the row tiles stream in their groups of 2 (rows
// interleaved, see access-patterns.mlir) from the first, no lead tiles
// apart from the loop.
// CHECK-LABEL: func.func @f32
// CHECK-NOT: memref<128x256xf32, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 4 {
// CHECK: return
func.func @f32(%a: tensor<1024x256xf32>, %b: tensor<256x512xf32>) -> tensor<1024x512xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 1024x256x512: rhs resident in blocks of 1 N tiles, reading 1.5 MiB from HBM (4.3 us at the core's HBM bandwidth), estimated 17.1 us; lhs transposed on the tensor engine; lhs row tiles in groups of 2, their rows interleaved; runner-up: both operands streamed, 5.0 MiB, 27.7 us}}
  %0 = neuron.matmul %a, %b : (tensor<1024x256xf32>, tensor<256x512xf32>) -> tensor<1024x512xf32>
  return %0 : tensor<1024x512xf32>
}

// -----

// Tests rhs held in two blocks (4 of its 8 N tiles each): the second
// block loads while the first computes, so no iteration takes two row
// tiles.
// CHECK-LABEL: func.func @blocks
// CHECK-NOT: memref<128x256xbf16, #nisa.memory<sbuf>>
// CHECK: return
func.func @blocks(%a: tensor<2048x2048xbf16>, %b: tensor<2048x4096xbf16>) -> tensor<2048x4096xbf16> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 2048x2048x4096: rhs resident in blocks of 4 N tiles, reading 32.0 MiB from HBM (92.6 us at the core's HBM bandwidth), estimated 462.2 us; runner-up: rhs resident in blocks of 3 N tiles, 40.0 MiB, 462.2 us}}
  %0 = neuron.matmul %a, %b : (tensor<2048x2048xbf16>, tensor<2048x4096xbf16>) -> tensor<2048x4096xbf16>
  return %0 : tensor<2048x4096xbf16>
}

// -----

// Tests a block of all 8 N tiles: two row tiles would need 16 accumulators,
// and PSUM has 8 banks.
// CHECK-LABEL: func.func @psum
// CHECK-NOT: memref<128x256xbf16, #nisa.memory<sbuf>>
// CHECK: return
func.func @psum(%a: tensor<4096x1024xbf16>, %b: tensor<1024x4096xbf16>) -> tensor<4096x4096xbf16> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 4096x1024x4096: rhs resident in blocks of 8 N tiles, reading 16.0 MiB from HBM (46.3 us at the core's HBM bandwidth), estimated 462.2 us; runner-up: rhs resident in blocks of 4 N tiles, 24.0 MiB, 462.2 us}}
  %0 = neuron.matmul %a, %b : (tensor<4096x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<4096x4096xbf16>
  return %0 : tensor<4096x4096xbf16>
}

// -----

// Tests the last lhs row tile where all of rhs is one block whose sums are
// stored tile by tile (the plan bound by its matmuls, not its transfers):
// after the first two row tiles and a loop over the next five, the last
// loads all its 8 K tiles first (one [128, 8, 128] array), then sums the
// first N tile over K, copies it out of PSUM and stores it, and only then
// sums the second, so the first's copy and store run under the second's
// matmuls rather than both after the kernel's last matmul.
// CHECK-LABEL: func.func @last_tile
// CHECK: memref.alloc() : memref<128x256xbf16, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 5 {
// CHECK: %[[HELD:.*]] = memref.alloc() : memref<128x8x128xbf16, #nisa.memory<sbuf>>
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8 {
// CHECK: nisa.dma_copy {{.*}} : memref<128x128xbf16, strided<[1, 1024], offset: ?>, #nisa.memory<hbm>>, memref<128x128xbf16, strided<[1024, 1], offset: ?>, #nisa.memory<sbuf>>
// CHECK: %[[ACC0:.*]] = memref.alloc() : memref<128x512xf32, #nisa.memory<psum>>
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8 {
// CHECK: memref.subview %[[HELD]]
// CHECK: nisa.matmul {{.*}}, %[[ACC0]]
// CHECK-NOT: nisa.matmul
// CHECK: nisa.activation <identity> %[[ACC0]]
// CHECK: nisa.dma_copy {{.*}} memref<128x512xbf16, strided<[1024, 1], offset: 917504>, #nisa.memory<hbm>>
// CHECK: %[[ACC1:.*]] = memref.alloc() : memref<128x512xf32, #nisa.memory<psum>>
// CHECK-NEXT: affine.for %{{.*}} = 0 to 8 {
// CHECK: nisa.matmul {{.*}}, %[[ACC1]]
// CHECK-NOT: nisa.matmul
// CHECK: nisa.activation <identity> %[[ACC1]]
// CHECK: nisa.dma_copy {{.*}} memref<128x512xbf16, strided<[1024, 1], offset: 918016>, #nisa.memory<hbm>>
// CHECK-NEXT: return
func.func @last_tile(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 1024x1024x1024: rhs resident in blocks of 2 N tiles}}
  %0 = neuron.matmul %a, %b : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  return %0 : tensor<1024x1024xbf16>
}
