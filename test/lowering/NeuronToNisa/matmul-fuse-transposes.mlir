// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn1" | FileCheck %s
// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2" | FileCheck %s --check-prefix=LNC2

// Tests a held lhs block the tensor engine transposes: its transposes go
// with the first streamed rhs transfer's matmuls, a chunk behind them.
// 512x512x1024 f32 on trn1 holds all of lhs as one block of 4 M tiles
// (one panel of 4 K tiles, one PSUM bank of 512 f32 columns each); rhs
// streams in two transfers of 512 columns. The block fills a PSUM chunk of
// transposes, so it goes row tile by row tile: M tile 0's rows load and
// its four K tiles are transposed side by side in one chunk, copied out by
// the vector and scalar engines in turn; then the transfer's four rhs K
// tiles and M tile 1's rows load, M tile 1's transposes, and M tile 0's
// four matmuls (the chunk before); and so on, M tile 3's matmuls after its
// own transposes. The block's sums are copied out and stored; the second
// transfer, the kernel's last, is held for all of K and summed M tile by
// M tile (matmul-last-block.mlir).
// CHECK-LABEL: func.func @first_transfer
// CHECK: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[512, 1]>, #nisa.memory<hbm>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK-COUNT-4: nisa.transpose
// CHECK: nisa.tensor_scalar <bypass>
// CHECK: nisa.activation <identity>
// CHECK-NOT: nisa.matmul
// CHECK-COUNT-4: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[1024, 1]{{.*}}, #nisa.memory<hbm>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[512, 1], offset: 65536>, #nisa.memory<hbm>>
// CHECK-COUNT-4: nisa.transpose
// CHECK-NOT: nisa.matmul
// CHECK: nisa.matmul %{{.*}} : memref<128x128xf32, strided<[2048, 1]>, #nisa.memory<sbuf>>
// CHECK-COUNT-3: nisa.matmul {{.*}} accumulate : memref<128x128xf32, strided<[2048, 1], offset: {{512|1024|1536}}>
// CHECK-NOT: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[512, 1], offset: 131072>, #nisa.memory<hbm>>
// CHECK-COUNT-4: nisa.transpose
// CHECK-COUNT-4: nisa.matmul
// CHECK-NOT: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[512, 1], offset: 196608>, #nisa.memory<hbm>>
// CHECK-COUNT-4: nisa.transpose
// CHECK-NOT: nisa.transpose
// CHECK-COUNT-8: nisa.matmul
// CHECK-NOT: nisa.matmul
// CHECK: nisa.activation <identity> {{.*}} : memref<128x512xf32, #nisa.memory<psum>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK: nisa.tensor_scalar <bypass> {{.*}} : memref<128x512xf32, #nisa.memory<psum>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK: nisa.activation <identity> {{.*}} : memref<128x512xf32, #nisa.memory<psum>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK: nisa.tensor_scalar <bypass> {{.*}} : memref<128x512xf32, #nisa.memory<psum>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy {{.*}} #nisa.memory<sbuf>>, memref<128x512xf32, strided<[1024, 1], offset: 393216>, #nisa.memory<hbm>>
// CHECK-NEXT: memref.alloc() : memref<128x4x512xf32, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.transpose
// CHECK: nisa.matmul {{.*}} accumulate restart
// CHECK: return

// The same block at lnc=2 is the kernel's only one, apart from any loop:
// nisa-split-cores shares its transfers between the physical cores where
// its transposes all come first (unfused).
// LNC2-LABEL: func.func @first_transfer
// LNC2-COUNT-16: nisa.transpose
// LNC2-NOT: nisa.transpose
// LNC2: return
func.func @first_transfer(%a: tensor<512x512xf32>, %b: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %0 = neuron.matmul %a, %b : (tensor<512x512xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}

// -----

// Tests a held lhs block filling a PSUM chunk whose K spans two panels
// (512x1024x1024 f32 on trn1: one block of 4 M tiles, panels of 4 K
// tiles in a loop of 2): each panel goes row tile by row tile. M tile
// 0's rows load alone, their four K tiles' transposes side by side in
// one chunk; then the transfer's four K tiles of rhs and M tile 1's rows,
// its transposes, and M tile 0's four matmuls (the first panel's first
// starting the sum): each row tile's staged rows are free once its own
// transposes are.
// CHECK-LABEL: func.func @by_rows
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.dma_copy
// CHECK-COUNT-4: nisa.transpose
// CHECK-NOT: nisa.matmul
// CHECK-COUNT-5: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.matmul
// CHECK-COUNT-4: nisa.transpose
// CHECK-NOT: nisa.transpose
// CHECK: nisa.matmul {{.*}} accumulate restart
// CHECK-COUNT-3: nisa.matmul {{.*}} accumulate :
// CHECK-NEXT: memref.subview %{{.*}}[256, 0] [128, 512]
// CHECK: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.dma_copy
// CHECK-COUNT-4: nisa.transpose
// CHECK: return
func.func @by_rows(%a: tensor<512x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<512x1024xf32> {
  %0 = neuron.matmul %a, %b : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}

// -----

// Tests a held block smaller than a PSUM chunk over the same two panels
// (384x1024x1024 f32 on trn1: one block of 3 M tiles): its panels still
// go K tile by K tile, the three row tiles' rows loaded first, each K
// tile's three transposes one chunk, each streamed K tile feeding the
// three M tiles' matmuls at once.
// CHECK-LABEL: func.func @small_block
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK-COUNT-3: nisa.dma_copy {{.*}} : memref<128x512xf32, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.dma_copy
// CHECK-COUNT-3: nisa.transpose
// CHECK-NOT: nisa.transpose
// CHECK: nisa.dma_copy
// CHECK-COUNT-3: nisa.transpose
// CHECK-NOT: nisa.transpose
// CHECK: nisa.dma_copy
// CHECK-COUNT-3: nisa.matmul {{.*}} accumulate restart
// CHECK: return
func.func @small_block(%a: tensor<384x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<384x1024xf32> {
  %0 = neuron.matmul %a, %b : (tensor<384x1024xf32>, tensor<1024x1024xf32>) -> tensor<384x1024xf32>
  return %0 : tensor<384x1024xf32>
}

// -----

// Tests blocks in a loop at lnc=2 (1024x512x1024 f32 on trn2: two blocks
// of 4 M tiles, which nisa-split-cores shares between the physical
// cores): each block's transposes go with its first transfer's matmuls.
// LNC2-LABEL: func.func @blocks
// LNC2: affine.for %{{.*}} = 0 to 2 {
// LNC2-COUNT-4: nisa.transpose
// LNC2-NOT: nisa.matmul
// LNC2-COUNT-4: nisa.transpose
// LNC2-NOT: nisa.transpose
// LNC2-COUNT-4: nisa.matmul
// LNC2-NOT: nisa.matmul
// LNC2: nisa.transpose
// LNC2: return
func.func @blocks(%a: tensor<1024x512xf32>, %b: tensor<512x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = neuron.matmul %a, %b : (tensor<1024x512xf32>, tensor<512x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// Tests an epilogue the scalar engine applies while copying the sums out
// of PSUM (a ReLU): every copy stays an activation, none goes to the
// vector engine.
// CHECK-LABEL: func.func @relu
// CHECK-COUNT-8: nisa.activation <relu> {{.*}} : memref<128x512xf32, #nisa.memory<psum>>
// CHECK-NOT: nisa.tensor_scalar <bypass> {{.*}} : memref<128x512xf32, #nisa.memory<psum>>
// CHECK: return
func.func @relu(%x: tensor<512x512xf32>, %w: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %0 = neuron.fusion(%x, %w) : (tensor<512x512xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  ^bb0(%a: tensor<512x512xf32>, %b: tensor<512x1024xf32>):
    %m = neuron.matmul %a, %b : (tensor<512x512xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %y = neuron.relu %m : tensor<512x1024xf32>
    neuron.yield %y : tensor<512x1024xf32>
  }
  return %0 : tensor<512x1024xf32>
}
