// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2,lnc=1 summary=1" | FileCheck %s

// Tests the blocks of a held lhs whose last rhs tile is held for all of
// K, then summed M tile by M tile, each copied out of PSUM and stored
// before the next one's matmuls, so only the last M tile's copy and store
// follow the block's last matmul (not the block's 4 x 256 KiB): the
// kernel's last block, and every block with a transfer between its first
// and its last.
//
// One block of 4 M tiles (f32, 4 K tiles): the first rhs tile's matmuls
// go with the block's transposes; the second (columns 512 to 1024) loads
// into one [128, 4, 512] array, then each M tile sums over K into its own
// accumulator and is stored.
// CHECK-LABEL: func.func @one_block
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 393216>, #nisa.memory<hbm>>
// CHECK-NEXT: %[[HELD:.*]] = memref.alloc() : memref<128x4x512xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: affine.for %{{.*}} = 0 to 4 {
// CHECK: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x512xf32, strided<[2048, 1], offset: ?>, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 4 {
// CHECK: memref.subview %[[HELD]]
// CHECK: nisa.matmul {{.*}}, %[[ACC0:[^ ]*]] accumulate restart
// CHECK-NOT: nisa.matmul
// CHECK: nisa.activation <identity> %[[ACC0]]
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 512>, #nisa.memory<hbm>>
// CHECK: affine.for %{{.*}} = 0 to 4 {
// CHECK: nisa.matmul {{.*}}, %[[ACC1:[^ ]*]] accumulate restart
// CHECK-NOT: nisa.matmul
// CHECK: nisa.activation <identity> %[[ACC1]]
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 131584>, #nisa.memory<hbm>>
// CHECK-COUNT-2: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 393728>, #nisa.memory<hbm>>
// CHECK-NEXT: return
func.func @one_block(%a: tensor<512x512xf32>, %b: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 512x512x1024: lhs resident in blocks of 4 M tiles}}
  %0 = neuron.matmul %a, %b : (tensor<512x512xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}

// -----

// Two blocks of 6 M tiles in a loop, then the partial last block of 4
// apart from it: the loop's blocks keep their last rhs tile's matmuls K
// tile by K tile (no transfer runs between their first and their last,
// under whose matmuls a held tile would load); only the last block holds
// its last rhs tile and stores M tile by M tile, from row 1536.
// CHECK-LABEL: func.func @last_block
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK-NOT: nisa.matmul {{.*}} memref<128x512xf32, strided<[2048, 1], offset: ?>, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 1966080>, #nisa.memory<hbm>>
// CHECK-NEXT: %[[HELD:.*]] = memref.alloc() : memref<128x4x512xf32, #nisa.memory<sbuf>>
// CHECK: nisa.matmul {{.*}}, %[[ACC0:[^ ]*]] accumulate restart
// CHECK-NOT: nisa.matmul
// CHECK: nisa.activation <identity> %[[ACC0]]
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 1573376>, #nisa.memory<hbm>>
// CHECK-COUNT-3: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 1966592>, #nisa.memory<hbm>>
// CHECK-NEXT: return
func.func @last_block(%a: tensor<2048x512xf32>, %b: tensor<512x1024xf32>) -> tensor<2048x1024xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 2048x512x1024: lhs resident in blocks of 6 M tiles}}
  %0 = neuron.matmul %a, %b : (tensor<2048x512xf32>, tensor<512x1024xf32>) -> tensor<2048x1024xf32>
  return %0 : tensor<2048x1024xf32>
}

// -----

// Three blocks of 6 M tiles: the last runs apart from the loop over the
// first two (peeled, as a partial last block would), holding its last rhs
// tile; the loop's blocks do not.
// CHECK-LABEL: func.func @peeled
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK-NOT: nisa.matmul {{.*}} memref<128x512xf32, strided<[2048, 1], offset: ?>, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 2228224>, #nisa.memory<hbm>>
// CHECK-NEXT: %[[HELD:.*]] = memref.alloc() : memref<128x4x512xf32, #nisa.memory<sbuf>>
// CHECK: nisa.matmul {{.*}}, %[[ACC0:[^ ]*]] accumulate restart
// CHECK-NOT: nisa.matmul
// CHECK: nisa.activation <identity> %[[ACC0]]
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 1573376>, #nisa.memory<hbm>>
// CHECK-COUNT-5: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 2228736>, #nisa.memory<hbm>>
// CHECK-NEXT: return
func.func @peeled(%a: tensor<2304x512xf32>, %b: tensor<512x1024xf32>) -> tensor<2304x1024xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 2304x512x1024: lhs resident in blocks of 6 M tiles}}
  %0 = neuron.matmul %a, %b : (tensor<2304x512xf32>, tensor<512x1024xf32>) -> tensor<2304x1024xf32>
  return %0 : tensor<2304x1024xf32>
}

// -----

// A last rhs tile that would take more than an eighth of SBUF per
// partition (K of 4096 f32: 32 K tiles x 2 KiB) is not held: the single
// block's matmuls stay K tile by K tile.
// CHECK-LABEL: func.func @too_large
// CHECK-NOT: nisa.matmul {{.*}} memref<128x512xf32, strided<[16384, 1], offset: ?>, #nisa.memory<sbuf>>
// CHECK: return
func.func @too_large(%a: tensor<512x4096xf32>, %b: tensor<4096x1024xf32>) -> tensor<512x1024xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 512x4096x1024: lhs resident in blocks of 4 M tiles}}
  %0 = neuron.matmul %a, %b : (tensor<512x4096xf32>, tensor<4096x1024xf32>) -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}

// -----

// Three blocks of 6 M tiles, rhs in four transfers of 512 columns: the
// first with the block's transposes, two in a loop, the last held. Every
// block holds its last rhs tile, the loop's too, their sums stored M tile
// by M tile before the next block's transposes.
// CHECK-LABEL: func.func @every_block
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: %[[HELD:.*]] = memref.alloc() : memref<128x4x512xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: affine.for %{{.*}} = 0 to 4 {
// CHECK: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[2048, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x512xf32, strided<[2048, 1], offset: ?>, #nisa.memory<sbuf>>
// CHECK-COUNT-6: nisa.matmul {{.*}} accumulate restart
// CHECK-NOT: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[2048, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK-NEXT: }
// CHECK: memref.alloc() : memref<128x4x512xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[2048, 1], offset: 4457984>, #nisa.memory<hbm>>
// CHECK-NEXT: return
func.func @every_block(%a: tensor<2304x512xf32>, %b: tensor<512x2048xf32>) -> tensor<2304x2048xf32> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 2304x512x2048: lhs resident in blocks of 6 M tiles}}
  %0 = neuron.matmul %a, %b : (tensor<2304x512xf32>, tensor<512x2048xf32>) -> tensor<2304x2048xf32>
  return %0 : tensor<2304x2048xf32>
}
