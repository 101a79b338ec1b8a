// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2" | FileCheck %s

// Tests a matmul tiled from the target's limits, as loops: K = 256 in two
// partition tiles accumulated in PSUM (the matmul restarts its sum at the
// first K tile), N = 640 in a 512-wide and a 128-wide tile, each summed in
// its own bank and evacuated through the scalar engine into the result
// argument. With one M tile and two N tiles the lhs^T tiles stay in SBUF:
// a loop loads them once into a resident [K tile, K tiles, M] array, and
// both N tiles read tile k of it. A 512-wide N tile's rows are 1 KiB, less
// than a transfer needs for peak DMA bandwidth (2 KiB per partition), so
// rhs loads both N tiles in one transfer per K tile, and (transfers bound
// the plan) their sums, evacuated side by side into one tile, are stored
// in one transfer.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<64x256xbf16, #nisa.memory<hbm>>, %[[B:.*]]: memref<256x640xbf16, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<64x640xf32, #nisa.memory<hbm>>)
// CHECK-SAME: nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512, fp8_rows = 2>
// CHECK: %[[RES:.*]] = memref.alloc() : memref<128x2x64xbf16, #nisa.memory<sbuf>>
// CHECK: affine.for %[[K:.*]] = 0 to 2 {
// CHECK:   %[[SLOT:.*]] = memref.subview %[[RES]][0, %[[K]], 0] [128, 1, 64] [1, 1, 1]
// CHECK:   %[[AT:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<64x128xbf16, strided<[256, 1], offset: ?>, #nisa.memory<hbm>> to memref<128x64xbf16, strided<[1, 256], offset: ?>, #nisa.memory<hbm>>
// CHECK:   nisa.dma_copy %[[AT]], %[[SLOT]]
// CHECK: }
// CHECK: %[[ACC:.*]] = memref.alloc() {nisa.tiling = {buffers = "sbuf,psum", op = "neuron.matmul", partition = "contraction", tile = array<i64: 128, 128, 512>}} : memref<64x512xf32, #nisa.memory<psum>>
// CHECK: %[[ACC2:.*]] = memref.alloc() : memref<64x128xf32, #nisa.memory<psum>>
// CHECK: affine.for %[[K2:.*]] = 0 to 2 {
// CHECK:   nisa.dma_copy %{{.*}}, %[[M:.*]] queue {{[0-9]+}} : memref<128x640xbf16, strided<[640, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x640xbf16, #nisa.memory<sbuf>>
// CHECK:   %[[S:.*]] = memref.subview %[[RES]][0, %[[K2]], 0]
// CHECK:   %[[M0:.*]] = memref.subview %[[M]][0, 0] [128, 512]
// CHECK:   nisa.matmul %[[S]], %[[M0]], %[[ACC]] accumulate restart(%[[K2]]) :
// CHECK:   %[[M1:.*]] = memref.subview %[[M]][0, 512] [128, 128]
// CHECK:   nisa.matmul %[[S]], %[[M1]], %[[ACC2]] accumulate restart(%[[K2]]) :
// CHECK: }
// CHECK: %[[E:.*]] = memref.alloc() : memref<64x640xf32, #nisa.memory<sbuf>>
// CHECK: %[[E0:.*]] = memref.subview %[[E]][0, 0] [64, 512] [1, 1]
// CHECK: nisa.activation <identity> %[[ACC]], %[[E0]] : memref<64x512xf32, #nisa.memory<psum>>, memref<64x512xf32, strided<[640, 1]>, #nisa.memory<sbuf>>
// CHECK: %[[E1:.*]] = memref.subview %[[E]][0, 512] [64, 128] [1, 1]
// CHECK: nisa.activation <identity> %[[ACC2]], %[[E1]]
// CHECK: nisa.dma_copy %[[E]], %[[OUT]] queue {{[0-9]+}} : memref<64x640xf32, #nisa.memory<sbuf>>, memref<64x640xf32, #nisa.memory<hbm>>
// CHECK-NOT: nisa.dma_copy
// CHECK: return
func.func @matmul(%a: tensor<64x256xbf16>, %b: tensor<256x640xbf16>) -> tensor<64x640xf32> {
  %0 = neuron.matmul %a, %b : (tensor<64x256xbf16>, tensor<256x640xbf16>) -> tensor<64x640xf32>
  return %0 : tensor<64x640xf32>
}

// -----

// Tests that where the tensor engine bounds a plan (1024^3 bf16: 128
// matmuls of 512 columns), a streamed M tile's two N tiles are each
// evacuated and stored as soon as its sums are done, not side by side in
// one transfer.
// CHECK-LABEL: func.func @tensor_bound
// CHECK: nisa.activation <identity> %{{.*}}, %[[E0:.*]] : memref<128x512xf32, #nisa.memory<psum>>, memref<128x512xbf16, #nisa.memory<sbuf>>
// CHECK-NEXT: %[[O0:.*]] = memref.subview
// CHECK-NEXT: nisa.dma_copy %[[E0]], %[[O0]] {{.*}} : memref<128x512xbf16, #nisa.memory<sbuf>>
// CHECK: nisa.activation <identity> %{{.*}}, %[[E1:.*]] : memref<128x512xf32, #nisa.memory<psum>>, memref<128x512xbf16, #nisa.memory<sbuf>>
// CHECK-NEXT: %[[O1:.*]] = memref.subview
// CHECK-NEXT: nisa.dma_copy %[[E1]], %[[O1]] {{.*}} : memref<128x512xbf16, #nisa.memory<sbuf>>
func.func @tensor_bound(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  %0 = neuron.matmul %a, %b : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  return %0 : tensor<1024x1024xbf16>
}

// -----

// Tests a blocked matmul: M = 512 is 4 stationary tiles, held in SBUF as
// one block (all of K = 256 for its 512 columns, loaded once), while each
// of the 6 N tiles of rhs streams past it: every K tile of rhs feeds 4
// matmuls into 4 PSUM banks, so rhs is read from HBM once, not 4 times.
// CHECK-LABEL: func.func @blocked
// CHECK: %[[RES:.*]] = memref.alloc() : memref<128x2x512xbf16, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK:   nisa.dma_copy %{{.*}}, %{{.*}} : memref<128x512xbf16, strided<[1, 256], offset: ?>, #nisa.memory<hbm>>
// CHECK: affine.for %{{.*}} = 0 to 6 {
// CHECK-COUNT-4: memref.alloc(){{.*}} : memref<128x512xf32, #nisa.memory<psum>>
// CHECK:   affine.for %[[K:.*]] = 0 to 2 {
// CHECK:     nisa.dma_copy %{{.*}}, %[[M:.*]] queue {{[0-9]+}} : memref<128x512xbf16, strided<[3072, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK:     %[[S0:.*]] = memref.subview %[[RES]][0, %[[K]], 0] [128, 1, 128]
// CHECK:     nisa.matmul %[[S0]], %[[M]], %{{.*}} accumulate restart(%[[K]])
// CHECK:     memref.subview %[[RES]][0, %[[K]], 128] [128, 1, 128]
// CHECK:     memref.subview %[[RES]][0, %[[K]], 256] [128, 1, 128]
// CHECK:     %[[S3:.*]] = memref.subview %[[RES]][0, %[[K]], 384] [128, 1, 128]
// CHECK:     nisa.matmul %[[S3]], %[[M]], %{{.*}} accumulate restart(%[[K]])
// CHECK:   }
// CHECK-COUNT-4: nisa.activation <identity>
// CHECK: return
func.func @blocked(%a: tensor<512x256xbf16>, %b: tensor<256x3072xbf16>) -> tensor<512x3072xf32> {
  %0 = neuron.matmul %a, %b : (tensor<512x256xbf16>, tensor<256x3072xbf16>) -> tensor<512x3072xf32>
  return %0 : tensor<512x3072xf32>
}

// -----

// Tests the streamed rhs of a decode-shaped matmul (one row of lhs held):
// a bf16 N tile's rows are 1 KiB, half what a transfer needs for peak DMA
// bandwidth (trn2's 2 KiB per partition), so two N tiles load in one
// transfer of 2 KiB rows, each summing in its own PSUM bank; the last
// N tile of 2560 loads alone.
// CHECK-LABEL: func.func @spread
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK-COUNT-2: memref.alloc() {{.*}}: memref<1x512xf32, #nisa.memory<psum>>
// CHECK:   affine.for %[[K:.*]] = 0 to 2 {
// CHECK:     nisa.dma_copy %{{.*}}, %[[M:.*]] queue {{[0-9]+}} : memref<128x1024xbf16, strided<[2560, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK:     %[[M0:.*]] = memref.subview %[[M]][0, 0] [128, 512]
// CHECK:     nisa.matmul %{{.*}}, %[[M0]], %{{.*}} accumulate restart(%[[K]])
// CHECK:     %[[M1:.*]] = memref.subview %[[M]][0, 512] [128, 512]
// CHECK:     nisa.matmul %{{.*}}, %[[M1]], %{{.*}} accumulate restart(%[[K]])
// CHECK:   }
// CHECK-COUNT-2: nisa.activation <identity>
// CHECK: }
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue {{[0-9]+}} : memref<128x512xbf16, strided<[2560, 1], offset: ?>, #nisa.memory<hbm>>
func.func @spread(%a: tensor<1x256xbf16>, %b: tensor<256x2560xbf16>) -> tensor<1x2560xf32> {
  %0 = neuron.matmul %a, %b : (tensor<1x256xbf16>, tensor<256x2560xbf16>) -> tensor<1x2560xf32>
  return %0 : tensor<1x2560xf32>
}

// -----

// Tests a resident lhs block the tensor engine transposes (f32: no DMA
// transpose): each of its 2 M tiles loads 4 K tiles of its rows in one
// transfer (2 KiB rows, what a transfer needs for peak DMA bandwidth,
// rather than 512 B), in a loop of 2 such panels and a last of 2 K tiles;
// each K tile's slice of both row tiles is transposed into one PSUM bank
// and copied out to its slot of the block, before the rhs tiles stream.
// CHECK-LABEL: func.func @panel
// CHECK: %[[RES:.*]] = memref.alloc() : memref<128x10x256xf32, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK:   %[[ROWS0:.*]] = memref.alloc() : memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK:   nisa.dma_copy %{{.*}}, %[[ROWS0]] queue {{[0-9]+}} : memref<128x512xf32, strided<[1280, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK:   %[[ROWS1:.*]] = memref.alloc() : memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK:   nisa.dma_copy %{{.*}}, %[[ROWS1]] queue {{[0-9]+}} : memref<128x512xf32, strided<[1280, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK:   %[[T0:.*]] = memref.subview %[[ROWS0]][0, 0] [128, 128]
// CHECK:   nisa.transpose %[[T0]], %{{.*}} : memref<128x128xf32, strided<[512, 1]>, #nisa.memory<sbuf>>
// CHECK:   %[[T1:.*]] = memref.subview %[[ROWS1]][0, 0] [128, 128]
// CHECK:   nisa.transpose %[[T1]], %{{.*}} : memref<128x128xf32, strided<[512, 1]>, #nisa.memory<sbuf>>
// CHECK:   nisa.tensor_scalar <bypass>
// CHECK:   nisa.activation <identity>
// CHECK-COUNT-3: memref.subview %[[ROWS0]][0, {{128|256|384}}] [128, 128]
// CHECK: }
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue {{[0-9]+}} : memref<128x256xf32, strided<[1280, 1], offset: 1024>, #nisa.memory<hbm>>
// CHECK: affine.for %{{.*}} = 0 to 4 {
// CHECK:   affine.for %[[K:.*]] = 0 to 10 {
// CHECK:     nisa.dma_copy %{{.*}}, %[[M:.*]] queue {{[0-9]+}} : memref<128x512xf32, strided<[2048, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK:     nisa.matmul %{{.*}}, %[[M]], %{{.*}} accumulate restart(%[[K]])
func.func @panel(%a: tensor<256x1280xf32>, %b: tensor<1280x2048xf32>) -> tensor<256x2048xf32> {
  %0 = neuron.matmul %a, %b : (tensor<256x1280xf32>, tensor<1280x2048xf32>) -> tensor<256x2048xf32>
  return %0 : tensor<256x2048xf32>
}

// -----

// Tests streamed lhs tiles the tensor engine transposes (f32; rhs, one N
// tile, resident): each M tile loads 4 K tiles of its rows in one
// transfer, transposes them back to back into columns of their own of the
// PSUM bank (no transpose waits for the copy out of the one before), and
// then feeds the 4 matmuls, the first restarting the sum on the first
// panel, the others accumulating.
// CHECK-LABEL: func.func @streamed_panel
// CHECK: affine.for %{{.*}} = 0 to 8 {
// CHECK:   affine.for %[[P:.*]] = 0 to 2 {
// CHECK:     nisa.dma_copy %{{.*}}, %{{.*}} queue {{[0-9]+}} : memref<128x512xf32, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK:     nisa.transpose %{{.*}}, %{{.*}} : memref<128x128xf32, strided<[512, 1]>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1]>, #nisa.memory<psum>>
// CHECK:     nisa.transpose %{{.*}}, %{{.*}} : memref<128x128xf32, strided<[512, 1], offset: 128>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1], offset: 128>, #nisa.memory<psum>>
// CHECK:     nisa.transpose %{{.*}}, %{{.*}} : memref<128x128xf32, strided<[512, 1], offset: 256>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1], offset: 256>, #nisa.memory<psum>>
// CHECK:     nisa.transpose %{{.*}}, %{{.*}} : memref<128x128xf32, strided<[512, 1], offset: 384>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1], offset: 384>, #nisa.memory<psum>>
// CHECK:     nisa.matmul %{{.*}}, %{{.*}}, %[[ACC:.*]] accumulate restart(%[[P]])
// CHECK-COUNT-3: nisa.matmul %{{.*}}, %{{.*}}, %[[ACC]] accumulate :
// CHECK:   }
// CHECK:   nisa.activation <identity> %[[ACC]]
func.func @streamed_panel(%a: tensor<1024x1024xf32>, %b: tensor<1024x256xf32>) -> tensor<1024x256xf32> {
  %0 = neuron.matmul %a, %b : (tensor<1024x1024xf32>, tensor<1024x256xf32>) -> tensor<1024x256xf32>
  return %0 : tensor<1024x256xf32>
}

// -----

// Tests elementwise ops on a shape whose elements split over 128 partitions:
// each operand is viewed as [128, E/128] (one tile: no loop), the add runs
// on the vector engine and the relu on the scalar engine, the relu writing
// the result argument.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: memref<64x256xf32, #nisa.memory<hbm>>, %[[Y:.*]]: memref<64x256xf32, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<64x256xf32, #nisa.memory<hbm>>)
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [128, 128], strides: [128, 1]
// CHECK: nisa.tensor_tensor <add>
// CHECK: memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [128, 128], strides: [128, 1]
// CHECK: nisa.activation <relu>
func.func @elementwise(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = neuron.add %x, %y : tensor<64x256xf32>
  %1 = neuron.relu %0 : tensor<64x256xf32>
  return %1 : tensor<64x256xf32>
}

// -----

// Tests a small tensor (256 elements): on 128 partitions each transfer
// would move 128 descriptors of 8 bytes; the cost model keeps its 4 rows of
// 64 elements (each engine instruction one physical core's).
// CHECK-LABEL: func.func @elementwise_small
// CHECK-NOT: memref.reinterpret_cast
// CHECK: memref.alloc() {nisa.tiling = {{{.*}}partition = "flattened", tile = array<i64: 4, 64>}}
// CHECK: nisa.tensor_tensor <add>
func.func @elementwise_small(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = neuron.add %x, %y : tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// Tests a constant (a global in HBM) and a returned argument (copied out).
// CHECK: memref.global "private" constant @__neuron_constant_0 : memref<3xf32, #nisa.memory<hbm>> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]>
// CHECK-LABEL: func.func @constant
// CHECK: memref.get_global @__neuron_constant_0
// CHECK: nisa.tensor_tensor <multiply>
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue {{[0-9]+}} : memref<3xf32, #nisa.memory<hbm>>, memref<3xf32, #nisa.memory<hbm>>
func.func @constant(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c = neuron.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = neuron.mul %x, %c : tensor<3xf32>
  return %0, %x : tensor<3xf32>, tensor<3xf32>
}

// -----

// Tests splat constants read as immediates: one tensor_scalar each, with
// nothing loaded for them and no global; a comparison with the splat on
// the left swaps its predicate (3 < x is x > 3). A splat on the left of a
// subtraction is a tensor like any other (a global, loaded).
// CHECK:     memref.global "private" constant @__neuron_constant_0 : memref<4x8xf32, #nisa.memory<hbm>> = dense<1.000000e+00>
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @immediates
// CHECK:     %[[ONE:.*]] = memref.get_global @__neuron_constant_0
// CHECK:     %[[X:.*]] = memref.alloc() {{.*}}op = "neuron.mul"
// CHECK-NEXT: nisa.dma_copy %{{.*}}, %[[X]]
// CHECK-NEXT: %[[P:.*]] = memref.alloc()
// CHECK-NEXT: nisa.tensor_scalar <multiply> %[[X]], %[[P]] scalar 2.500000e+00
// CHECK:     nisa.tensor_scalar <is_gt> %{{.*}}, %{{.*}} scalar 3.000000e+00
// CHECK:     nisa.tensor_scalar <is_ge> %{{.*}}, %{{.*}} scalar 3.000000e+00
// CHECK:     nisa.dma_copy %[[ONE]]
// CHECK:     nisa.tensor_tensor <subtract>
func.func @immediates(%x: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf32>) {
  %a = neuron.constant dense<2.5> : tensor<4x8xf32>
  %b = neuron.constant dense<3.0> : tensor<4x8xf32>
  %one = neuron.constant dense<1.0> : tensor<4x8xf32>
  %0 = neuron.mul %a, %x : tensor<4x8xf32>
  %1 = neuron.compare lt %b, %x : tensor<4x8xf32> -> tensor<4x8xi1>
  %2 = neuron.compare ge %x, %b : tensor<4x8xf32> -> tensor<4x8xi1>
  %3 = neuron.sub %one, %x : tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xi1>, tensor<4x8xf32>
}

// -----

// Tests that an op the tiler does not handle is an error naming it (a host
// call belongs to the program, not inside a kernel).
func.func @untiled(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{convert-neuron-to-nisa: 'neuron.host_call' is not tiled yet}}
  %0 = neuron.host_call (%x) reason "sort" : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    neuron.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Tests data movement: an f32 transpose goes through the tensor engine (a
// natural load, a transpose into PSUM, a copy out, a store of rows), a
// broadcast reads a view with a zero stride.
// CHECK-LABEL: func.func @movement
// CHECK: nisa.dma_copy %arg0, %[[N:.*]] queue {{.*}} : memref<4x8xf32, #nisa.memory<hbm>>, memref<4x8xf32, #nisa.memory<sbuf>>
// CHECK: nisa.transpose %[[N]], %[[P:.*]] : memref<4x8xf32, #nisa.memory<sbuf>>, memref<8x4xf32, #nisa.memory<psum>>
// CHECK: nisa.tensor_scalar <bypass> %[[P]], %[[S:.*]] scalar
// CHECK: nisa.dma_copy %[[S]], %{{.*}} queue
// CHECK: %[[B:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [8, 4], strides: [0, 1] : memref<4xf32, #nisa.memory<hbm>> to memref<8x4xf32, strided<[0, 1]>, #nisa.memory<hbm>>
// CHECK: nisa.dma_copy %[[B]], %{{.*}} queue
func.func @movement(%x: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %t = neuron.transpose %x permutation [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %bb = neuron.broadcast %b dimensions [1] : tensor<4xf32> -> tensor<8x4xf32>
  %0 = neuron.add %t, %bb : tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Tests a reduction over a leading axis, the kept one inner: reduced in
// place, not permuted into scratch; the 8 kept elements across partitions
// load with all 4 reduced rows in one transfer, and the vector engine
// halves them in place (rows 2-3 into 0-1, then row 1 into row 0).
// CHECK-LABEL: func.func @reduce_leading
// CHECK-NOT: memref<8x4xf32, #nisa.memory<hbm>>
// CHECK: %[[T:.*]] = memref.alloc() {{.*}} : memref<8x4x1xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %{{.*}}, %[[T]] queue {{.*}} : memref<8x4x1xf32, strided<[1, 8, 1]>, #nisa.memory<hbm>>, memref<8x4x1xf32, #nisa.memory<sbuf>>
// CHECK: nisa.tensor_tensor <max> {{.*}} : memref<8x2x1xf32, strided<[4, 1, 1]>, #nisa.memory<sbuf>>, memref<8x2x1xf32, strided<[4, 1, 1], offset: 2>
// CHECK: nisa.tensor_tensor <max> {{.*}} : memref<8x1x1xf32, strided<[4, 1, 1]>, #nisa.memory<sbuf>>, memref<8x1x1xf32, strided<[4, 1, 1], offset: 1>
// CHECK: nisa.dma_copy
// CHECK-NOT: affine.for
func.func @reduce_leading(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  %0 = neuron.reduce_max %x axes [0] : tensor<4x8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests an NHWC image's pixels summed per channel (a global average
// pool's sum): per image, the 1280 channels as 64 partitions of 20 (runs
// of 80 bytes; the cost model weighs the runs against the partitions
// filled), the 49 pixels in two chunks of a transfer each (25, then 24),
// each chunk halved in place (5 instructions each) and the second's sum
// added to the first's.
// CHECK-LABEL: func.func @reduce_pixels
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: nisa.dma_copy %{{.*}} : memref<64x25x20xf32, strided<[20, 1280, 1], offset: ?>, #nisa.memory<hbm>>, memref<64x25x20xf32, #nisa.memory<sbuf>>
// CHECK-COUNT-5: nisa.tensor_tensor <add>
// CHECK: nisa.dma_copy %{{.*}} : memref<64x24x20xf32, strided<[20, 1280, 1], offset: ?>, #nisa.memory<hbm>>, memref<64x24x20xf32, #nisa.memory<sbuf>>
// CHECK-COUNT-6: nisa.tensor_tensor <add>
// CHECK-NOT: nisa.tensor_tensor
// CHECK: nisa.dma_copy %{{.*}} : memref<64x1x20xf32, strided<[500, 20, 1]>, #nisa.memory<sbuf>>, memref<64x1x20xf32, strided<[20, 20, 1], offset: ?>, #nisa.memory<hbm>>
func.func @reduce_pixels(%x: tensor<2x7x7x1280xf32>) -> tensor<2x1280xf32> {
  %0 = neuron.reduce_sum %x axes [1, 2] : tensor<2x7x7x1280xf32> -> tensor<2x1280xf32>
  return %0 : tensor<2x1280xf32>
}

// -----

// Tests a reduction of one long row (4099 columns) over the partitions:
// partition j holds columns [32 j, 32 j + 32) (one transfer of the row as
// [1, 128, 32]), reduced there; the 128 partials go through HBM scratch to
// one partition and are reduced again; the 3 columns past 4096 are reduced
// on that partition and added.
// CHECK-LABEL: func.func @long_row
// CHECK: %[[PARTIAL:.*]] = memref.alloc() : memref<128x1xf32, #nisa.memory<sbuf>>
// CHECK: %[[RUNS:.*]] = memref.alloc() {nisa.tiling = {{.*}}partition = "kept dims x runs of each row"{{.*}} : memref<128x32xf32, #nisa.memory<sbuf>>
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [1, 128, 32]
// CHECK: nisa.tensor_reduce <add> %[[RUNS]], %[[PARTIAL]]
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<128xf32, #nisa.memory<hbm>>
// CHECK: nisa.dma_copy %[[PARTIAL]]
// CHECK: %[[GATHERED:.*]] = memref.alloc() : memref<1x128xf32, #nisa.memory<sbuf>>
// CHECK: memref.reinterpret_cast %[[SCRATCH]] to offset: [0], sizes: [1, 128]
// CHECK: nisa.tensor_reduce <add> %[[GATHERED]], %[[SUM:[^ ]*]] :
// CHECK: memref.subview %arg0[0, 4096] [1, 3]
// CHECK: nisa.tensor_reduce <add>
// CHECK: nisa.tensor_tensor <add> %[[SUM]]
// CHECK: nisa.dma_copy %[[SUM]]
func.func @long_row(%x: tensor<1x4099xf32>) -> tensor<1xf32> {
  %0 = neuron.reduce_sum %x axes [1] : tensor<1x4099xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Tests softmax along the last axis: the on-chip recipe, one load and one
// store per row tile, e = exp(x - max) with the row's shift as the scalar
// engine's per-partition bias, then y = e * (1 / sum(e)) with each row's
// factor as its per-partition scale.
// CHECK-LABEL: func.func @softmax
// CHECK: nisa.dma_copy
// CHECK: nisa.tensor_reduce <max>
// CHECK: nisa.tensor_scalar <multiply> {{.*}} scalar -1.0
// CHECK: nisa.activation <exp> %{{.*}}, %[[E:.*]] bias
// CHECK: nisa.tensor_reduce <add> %[[E]], %[[SUM:[^ ]*]]
// CHECK: nisa.activation <reciprocal> %[[SUM]], %[[INVERSE:[^ ]*]] :
// CHECK: nisa.activation <identity> %[[E]], %{{.*}} scales(%[[INVERSE]] : memref<4x1xf32, #nisa.memory<sbuf>>)
// CHECK: nisa.dma_copy
// CHECK-NOT: nisa.dma_copy
// CHECK: return
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.softmax %x axis 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests tile loops with a partial last tile: [128, 4700] f32 in 512-column
// tiles is a loop of 9 full tiles, the offset affine in the loop's
// induction variable, then one tile of 92 columns at column 4608.
// CHECK-LABEL: func.func @partial_tile
// CHECK: affine.for %[[J:.*]] = 0 to 9 {
// CHECK:   %[[C:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK:   memref.subview %{{.*}}[0, %[[C]]] [128, 512] [1, 1]
// CHECK:   nisa.activation <exp> {{.*}} : memref<128x512xf32, #nisa.memory<sbuf>>, memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK: }
// CHECK: memref.subview %{{.*}}[0, 4608] [128, 92] [1, 1]
// CHECK: nisa.activation <exp> {{.*}} : memref<128x92xf32, #nisa.memory<sbuf>>, memref<128x92xf32, #nisa.memory<sbuf>>
func.func @partial_tile(%x: tensor<128x4700xf32>) -> tensor<128x4700xf32> {
  %0 = neuron.exp %x : tensor<128x4700xf32>
  return %0 : tensor<128x4700xf32>
}

// -----

// Tests a convolution as loops, a matmul per tap: a kernel row of taps
// over its 48 channels would take more than the 128 partitions, so they
// are not stacked. The weights of the output-channel tile load once in
// natural rows ([8 filters, 48 channels x 9 taps], contiguous) and each
// tap's [48, 8] stationary operand is transposed from a strided
// view of them (every 9th column) on the tensor engine into PSUM, then
// copied to its columns of the resident weights. Output row tiles follow
// (two tiles of 36 rows of 14 pixels in a loop, then 8 rows; each stored
// as one run of whole rows per channel), the taps
// and channel tiles inside accumulating in PSUM; the matmul restarts its
// sum where every tap index is 0. A row tile's 38 input rows load once, one
// run of whole rows per channel; each tap's moving operand is its
// [48, 36, 14] window of them, at an offset affine in the tap loops.
// CHECK-LABEL: func.func @conv
// CHECK: %[[W:.*]] = memref.alloc() : memref<48x72xf32, #nisa.memory<sbuf>>
// CHECK: %[[NAT:.*]] = memref.alloc() : memref<8x432xf32, #nisa.memory<sbuf>>
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [8, 432], strides: [432, 1]
// CHECK: affine.for %[[I:.*]] = 0 to 3 {
// CHECK:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK:     %[[OUT:.*]] = memref.subview %[[W]][0, %{{.*}}] [48, 8] [1, 1]
// CHECK:     %[[FLIP:.*]] = memref.alloc() : memref<48x8xf32, #nisa.memory<psum>>
// CHECK:     %[[TAP:.*]] = memref.subview %[[NAT]][0, %{{.*}}] [8, 48] [1, 9]
// CHECK:     nisa.transpose %[[TAP]], %[[FLIP]]
// CHECK:     nisa.tensor_scalar <bypass> %[[FLIP]], %[[OUT]]
// CHECK: affine.for %[[R:.*]] = 0 to 2 {
// CHECK:   memref.alloc() {nisa.tiling = {{.*}}op = "neuron.conv2d"{{.*}}} : memref<8x504xf32, #nisa.memory<psum>>
// CHECK:   %[[IN:.*]] = memref.alloc() : memref<48x38x16xf32, #nisa.memory<sbuf>>
// CHECK:   %[[ROWS:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [48, 38, 16], strides: [1312, 16, 1]
// CHECK:   nisa.dma_copy %[[ROWS]], %[[IN]]
// CHECK-NOT: nisa.dma_copy
// CHECK:   affine.for %[[I:.*]] = 0 to 3 {
// CHECK:     affine.for %[[J:.*]] = 0 to 3 {
// CHECK:       %[[MV:.*]] = memref.subview %[[IN]][0, %[[I]], %[[J]]] [48, 36, 14] [1, 1, 1] : memref<48x38x16xf32, #nisa.memory<sbuf>> to memref<48x36x14xf32, strided<[608, 16, 1], offset: ?>, #nisa.memory<sbuf>>
// CHECK:       %[[ST:.*]] = memref.subview %[[W]][0, %{{.*}}] [48, 8] [1, 1]
// CHECK:       nisa.matmul %[[ST]], %[[MV]], %{{.*}} accumulate restart(%[[I]], %[[J]])
// CHECK:   nisa.activation <identity>
// CHECK:   memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [8, 504], strides: [1120, 1]
// CHECK: memref.alloc() : memref<8x112xf32, #nisa.memory<psum>>
// CHECK-NOT: nisa.transpose
// CHECK: return
func.func @conv(%x: tensor<1x48x82x16xf32>, %w: tensor<8x48x3x3xf32>) -> tensor<1x8x80x14xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x48x82x16xf32>, tensor<8x48x3x3xf32>) -> tensor<1x8x80x14xf32>
  return %0 : tensor<1x8x80x14xf32>
}

// -----

// Tests a convolution whose filter a transpose gives (JAX's and
// StableHLO's HWCF filter as FCHW), a matmul per tap as in @conv: no transfer writes the transposed
// filter; each tap's [channels, filters] stationary operand is a row block
// of the HWCF filter itself, one transfer in runs of the 8 filters, with
// no transpose on the tensor engine.
// CHECK-LABEL: func.func @hwcf_filter
// CHECK-NOT: nisa.dma_copy {{.*}}#nisa.memory<hbm>>, memref<8x48x3x3xf32, #nisa.memory<hbm>>
// CHECK: %[[W:.*]] = memref.alloc() : memref<48x72xf32, #nisa.memory<sbuf>>
// CHECK: affine.for %[[I:.*]] = 0 to 3 {
// CHECK:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK:     %[[OUT:.*]] = memref.subview %[[W]][0, %{{.*}}] [48, 8] [1, 1]
// CHECK:     %[[TAP:.*]] = memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [48, 8], strides: [8, 1] : memref<8x48x3x3xf32, strided<[1, 8, 1152, 384]>
// CHECK:     nisa.dma_copy %[[TAP]], %[[OUT]]
// CHECK-NOT: nisa.transpose
// CHECK: return
func.func @hwcf_filter(%x: tensor<1x48x82x16xf32>, %w: tensor<3x3x48x8xf32>) -> tensor<1x8x80x14xf32> {
  %t = neuron.transpose %w permutation [3, 2, 0, 1] : tensor<3x3x48x8xf32> -> tensor<8x48x3x3xf32>
  %0 = neuron.conv2d %x, %t layout nchw_fchw : (tensor<1x48x82x16xf32>, tensor<8x48x3x3xf32>) -> tensor<1x8x80x14xf32>
  return %0 : tensor<1x8x80x14xf32>
}

// -----

// Tests a convolution whose filter a transpose gives from TOSA's OHWI
// layout, a matmul per tap as in @conv: its filters' rows are contiguous with the channels innermost, so
// the weights load once in those rows ([8 filters, 9 taps, 48 channels],
// contiguous), not element by element, and each tap's [8, 48] block of
// them, contiguous, is transposed on the tensor engine.
// CHECK-LABEL: func.func @ohwi_filter
// CHECK: %[[ROWS:.*]] = memref.reinterpret_cast %transpose to offset: [0], sizes: [8, 9, 48], strides: [432, 48, 1]
// CHECK: nisa.dma_copy %[[ROWS]], %{{.*}} : memref<8x9x48xf32, #nisa.memory<hbm>>, memref<8x9x48xf32, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 3 {
// CHECK:   affine.for %{{.*}} = 0 to 3 {
// CHECK:     nisa.transpose %{{.*}}, %{{.*}} : memref<8x48xf32, strided<[432, 1], offset: ?>, #nisa.memory<sbuf>>, memref<48x8xf32, #nisa.memory<psum>>
// CHECK-NOT: strided<[1, 432]>
// CHECK: return
func.func @ohwi_filter(%x: tensor<1x48x82x16xf32>, %w: tensor<8x3x3x48xf32>) -> tensor<1x8x80x14xf32> {
  %t = neuron.transpose %w permutation [0, 3, 1, 2] : tensor<8x3x3x48xf32> -> tensor<8x48x3x3xf32>
  %0 = neuron.conv2d %x, %t layout nchw_fchw : (tensor<1x48x82x16xf32>, tensor<8x48x3x3xf32>) -> tensor<1x8x80x14xf32>
  return %0 : tensor<1x8x80x14xf32>
}

// -----

// Tests a network's first layer, a convolution with a stride of 2 over 3
// channels, its taps stacked along the partitions: tap t = 3 i + j's
// partitions [3 t, 3 t + 3) hold the rows its outputs read, every other
// row from row i in runs of 31 columns from column j (a transfer per tap;
// not an element per descriptor), so one matmul contracts over all 27
// partitions, its moving operand every other column of them. The weights
// load in their rows ([8 filters, 3 channels, 9 taps]), are ordered
// tap-major on the vector engine and transposed once.
// CHECK-LABEL: func.func @strided_conv
// CHECK: %[[W:.*]] = memref.alloc() : memref<27x8xf32, #nisa.memory<sbuf>>
// CHECK: %[[NAT:.*]] = memref.alloc() : memref<8x27xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy {{.*}} : memref<8x3x9xf32, #nisa.memory<hbm>>, memref<8x3x9xf32, #nisa.memory<sbuf>>
// CHECK: nisa.tensor_scalar <bypass> {{.*}} : memref<8x9x3xf32, strided<[27, 1, 9]>, #nisa.memory<sbuf>>, memref<8x9x3xf32, #nisa.memory<sbuf>>
// CHECK: nisa.transpose %[[NAT]], %[[FLIP:.*]] : memref<8x27xf32, #nisa.memory<sbuf>>, memref<27x8xf32, #nisa.memory<psum>>
// CHECK: nisa.tensor_scalar <bypass> %[[FLIP]], %[[W]]
// CHECK: %[[IN:.*]] = memref.alloc() : memref<27x16x31xf32, #nisa.memory<sbuf>>
// CHECK: memref.subview %[[IN]][0, 0, 0] [3, 16, 31]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [3, 16, 31], strides: [1089, 66, 1]
// CHECK: memref.subview %[[IN]][3, 0, 0] [3, 16, 31]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [1], sizes: [3, 16, 31], strides: [1089, 66, 1]
// CHECK: memref.subview %[[IN]][9, 0, 0] [3, 16, 31]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [33], sizes: [3, 16, 31], strides: [1089, 66, 1]
// CHECK: memref.subview %[[IN]][24, 0, 0] [3, 16, 31]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [68], sizes: [3, 16, 31], strides: [1089, 66, 1]
// CHECK-NEXT: nisa.dma_copy
// CHECK-NEXT: %[[MV:.*]] = memref.subview %[[IN]][0, 0, 0] [27, 16, 16] [1, 1, 2]
// CHECK-NEXT: nisa.matmul %[[W]], %[[MV]], %{{.*}} : memref<27x8xf32, #nisa.memory<sbuf>>, {{.*}}, memref<8x256xf32, #nisa.memory<psum>>
// CHECK-NOT: nisa.matmul
// CHECK: return
func.func @strided_conv(%x: tensor<1x3x33x33xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw strides [2, 2] : (tensor<1x3x33x33xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}

// -----

// Tests stacked taps in chunks: a 7x7 filter over 3 channels stacks 6
// kernel rows (126 partitions) and then the last (21): two matmuls, the
// second accumulating, not 49. TOSA's OHWI filter loads each chunk's
// weights in its rows, already tap-major ([16, 42 taps, 3] and [16, 7, 3]
// from tap 42), each transposed once into its columns of the resident
// weights.
// CHECK-LABEL: func.func @stem_chunks
// CHECK: %[[W:.*]] = memref.alloc() : memref<126x32xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy {{.*}} : memref<16x42x3xf32, strided<[147, 3, 1]>, #nisa.memory<hbm>>, memref<16x42x3xf32, #nisa.memory<sbuf>>
// CHECK: nisa.transpose {{.*}} : memref<16x126xf32, #nisa.memory<sbuf>>, memref<126x16xf32, #nisa.memory<psum>>
// CHECK: nisa.dma_copy {{.*}} : memref<16x7x3xf32, strided<[147, 3, 1], offset: 126>, #nisa.memory<hbm>>, memref<16x7x3xf32, #nisa.memory<sbuf>>
// CHECK: nisa.transpose {{.*}} : memref<16x21xf32, #nisa.memory<sbuf>>, memref<21x16xf32, #nisa.memory<psum>>
// CHECK: memref.alloc() : memref<126x16x31xf32, #nisa.memory<sbuf>>
// CHECK-COUNT-42: nisa.dma_copy {{.*}} : memref<3x16x31xf32, strided<[1369, 74, 1]{{.*}}>, #nisa.memory<hbm>>, memref<3x16x31xf32
// CHECK-NOT: nisa.dma_copy
// CHECK: nisa.matmul {{.*}} : memref<126x16xf32, strided<[32, 1]>, #nisa.memory<sbuf>>, memref<126x16x16xf32, strided<[496, 31, 2]>, #nisa.memory<sbuf>>, memref<16x256xf32, #nisa.memory<psum>>
// CHECK: memref.alloc() : memref<21x16x31xf32, #nisa.memory<sbuf>>
// CHECK-COUNT-7: nisa.dma_copy {{.*}} : memref<3x16x31xf32, strided<[1369, 74, 1]{{.*}}>, #nisa.memory<hbm>>, memref<3x16x31xf32
// CHECK-NOT: nisa.dma_copy
// CHECK: nisa.matmul {{.*}} accumulate : memref<21x16xf32, strided<[32, 1], offset: 16>, #nisa.memory<sbuf>>, memref<21x16x16xf32, strided<[496, 31, 2]>, #nisa.memory<sbuf>>, memref<16x256xf32, #nisa.memory<psum>>
// CHECK-NOT: nisa.matmul
// CHECK: return
func.func @stem_chunks(%x: tensor<1x3x37x37xf32>, %w: tensor<16x7x7x3xf32>) -> tensor<1x16x16x16xf32> {
  %t = neuron.transpose %w permutation [0, 3, 1, 2] : tensor<16x7x7x3xf32> -> tensor<16x3x7x7xf32>
  %0 = neuron.conv2d %x, %t layout nchw_fchw strides [2, 2] : (tensor<1x3x37x37xf32>, tensor<16x3x7x7xf32>) -> tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}

// -----

// Tests stacked taps with JAX's HWCF filter: each tap's [3 channels, 8
// filters] moves into its partitions by a transfer in runs of the filters;
// nothing is transposed.
// CHECK-LABEL: func.func @stacked_hwcf
// CHECK: %[[W:.*]] = memref.alloc() : memref<27x8xf32, #nisa.memory<sbuf>>
// CHECK: memref.subview %[[W]][0, 0] [3, 8]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [3, 8], strides: [8, 1]
// CHECK: memref.subview %[[W]][3, 0] [3, 8]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [24], sizes: [3, 8], strides: [8, 1]
// CHECK: memref.subview %[[W]][24, 0] [3, 8]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [192], sizes: [3, 8], strides: [8, 1]
// CHECK-NOT: nisa.transpose
// CHECK: nisa.matmul %[[W]], %{{.*}}, %{{.*}} : memref<27x8xf32, #nisa.memory<sbuf>>, memref<27x18x18xf32, #nisa.memory<sbuf>>, memref<8x324xf32, #nisa.memory<psum>>
// CHECK-NOT: nisa.matmul
// CHECK: return
func.func @stacked_hwcf(%x: tensor<1x3x20x20xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x8x18x18xf32> {
  %t = neuron.transpose %w permutation [3, 2, 0, 1] : tensor<3x3x3x8xf32> -> tensor<8x3x3x3xf32>
  %0 = neuron.conv2d %x, %t layout nchw_fchw : (tensor<1x3x20x20xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x18x18xf32>
  return %0 : tensor<1x8x18x18xf32>
}

// -----

// Tests a convolution whose output row (600 sums) is wider than a PSUM bank
// holds (512 f32): one row at a time in two even column tiles of 300, each
// loading the 302 input columns its taps read (from column 300 * q) and
// storing its 300 sums at that column of the output row.
// CHECK: #[[COLUMN:.*]] = affine_map<(d0) -> (d0 * 300)>
// CHECK-LABEL: func.func @wide_rows
// CHECK: affine.for %[[Q:.*]] = 0 to 2 {
// CHECK: memref.alloc() : memref<48x3x302xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: %[[IN:.*]] = affine.apply #[[COLUMN]](%[[Q]])
// CHECK-NEXT: memref.reinterpret_cast %arg0 to offset: [%[[IN]]], sizes: [48, 3, 302], strides: [1806, 602, 1]
// CHECK: nisa.matmul {{.*}} : memref<48x16xf32, {{.*}}>, memref<48x1x300xf32, {{.*}}>, memref<16x300xf32, #nisa.memory<psum>>
// CHECK: %[[OUT:.*]] = affine.apply #[[COLUMN]](%[[Q]])
// CHECK: memref.reinterpret_cast %arg2 to offset: [%[[OUT]]], sizes: [16, 300], strides: [600, 1]
func.func @wide_rows(%x: tensor<1x48x3x602xf32>, %w: tensor<16x48x3x3xf32>) -> tensor<1x16x1x600xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x48x3x602xf32>, tensor<16x48x3x3xf32>) -> tensor<1x16x1x600xf32>
  return %0 : tensor<1x16x1x600xf32>
}

// -----

// Tests a convolution over a single input channel (a grayscale image's
// first layer; depthwise, with a channel multiplier of 8): all 25 taps
// stack along the partitions and one matmul per tile of output rows takes
// them, where the vector engine would take an instruction per tap; with
// one filter (@one_filter) the vector engine's instructions, spread over
// the partitions, cost less and it stays there.
// CHECK-LABEL: func.func @single_channel
// CHECK: memref.alloc() {nisa.tiling = {{.*}}partition = "taps x input channels"
// CHECK: nisa.matmul {{.*}} : memref<25x8xf32, #nisa.memory<sbuf>>, memref<25x16x16xf32, #nisa.memory<sbuf>>, memref<8x256xf32, #nisa.memory<psum>>
// CHECK-NOT: nisa.scalar_tensor_tensor
// CHECK-LABEL: func.func @one_filter
// CHECK-NOT: nisa.matmul
// CHECK: nisa.scalar_tensor_tensor
func.func @single_channel(%x: tensor<1x1x20x20xf32>, %w: tensor<8x1x5x5xf32>) -> tensor<1x8x16x16xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x1x20x20xf32>, tensor<8x1x5x5xf32>) -> tensor<1x8x16x16xf32>
  return %0 : tensor<1x8x16x16xf32>
}
func.func @one_filter(%x: tensor<1x1x64x66xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x62x64xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x1x64x66xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x62x64xf32>
  return %0 : tensor<1x1x62x64xf32>
}

// -----

// Tests a depthwise convolution on the vector engine: 32 channels leave
// room for 4 blocks of 2 output rows on the 128 partitions (block-major);
// the weights are loaded once as one row of 9 taps per partition; each
// block's 4 input rows load once, one transfer per block in runs of 4 whole
// rows; each tap reads its [2, 16] window from that tile at its offset, is
// scaled by the tap's weight column (per-partition scalars) and added into
// the fp32 accumulator, one scalar_tensor_tensor; the result is stored one
// transfer per block; no matmul.
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[W:.*]] = memref.alloc() : memref<128x9xf32, #nisa.memory<sbuf>>
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [4, 32, 9], strides: [0, 9, 1]
// CHECK: %[[IN:.*]] = memref.alloc() : memref<128x4x18xf32, #nisa.memory<sbuf>>
// CHECK-COUNT-4: sizes: [32, 1, 4, 18], strides: [180, 72, 18, 1]
// CHECK: %[[ACC:.*]] = memref.alloc() {nisa.tiling = {{.*}}partition = "channels x row groups"{{.*}}} : memref<128x2x16xf32, #nisa.memory<sbuf>>
// CHECK: nisa.memset %[[ACC]] value 0.0
// CHECK: affine.for %[[I:.*]] = 0 to 3 {
// CHECK:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK:     %[[WIN:.*]] = memref.subview %[[IN]][0, %[[I]], %[[J]]] [128, 2, 16] [1, 1, 1]
// CHECK:     %[[TAP:.*]] = memref.subview %[[W]][0, %{{.*}}] [128, 1] [1, 1]
// CHECK:     nisa.scalar_tensor_tensor <multiply> <add> %[[WIN]], %[[ACC]], %[[ACC]] scalars %[[TAP]]
// CHECK-COUNT-4: sizes: [32, 2, 16], strides: [128, 16, 1]
// CHECK-NOT: nisa.matmul
// CHECK: return
func.func @depthwise(%x: tensor<1x32x10x18xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x8x16xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw groups 32 : (tensor<1x32x10x18xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x8x16xf32>
  return %0 : tensor<1x32x8x16xf32>
}

// -----

// Tests a stride-2 depthwise convolution: 64 channels take 2 blocks of 2
// output rows, whose 5 input rows of 13 columns load once per block; each
// tap reads every other row and column of that tile from its offset
// (steps [1, 2, 2]). The fifth output row follows as a tile of its own.
// CHECK-LABEL: func.func @depthwise_stride2
// CHECK: %[[IN:.*]] = memref.alloc() : memref<128x5x13xf32, #nisa.memory<sbuf>>
// CHECK-COUNT-2: sizes: [64, 1, 5, 13], strides: [143, 65, 13, 1]
// CHECK: affine.for %[[I:.*]] = 0 to 3 {
// CHECK:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK:     memref.subview %[[IN]][0, %[[I]], %[[J]]] [128, 2, 6] [1, 2, 2] : memref<128x5x13xf32, #nisa.memory<sbuf>> to memref<128x2x6xf32, strided<[65, 26, 2], offset: ?>, #nisa.memory<sbuf>>
// CHECK: %[[LAST:.*]] = memref.alloc() : memref<64x3x13xf32, #nisa.memory<sbuf>>
// CHECK: memref.subview %[[LAST]][0, %{{.*}}, %{{.*}}] [64, 1, 6] [1, 2, 2]
// CHECK-NOT: nisa.matmul
// CHECK: return
func.func @depthwise_stride2(%x: tensor<1x64x11x13xf32>, %w: tensor<64x1x3x3xf32>) -> tensor<1x64x5x6xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw strides [2, 2] groups 64 : (tensor<1x64x11x13xf32>, tensor<64x1x3x3xf32>) -> tensor<1x64x5x6xf32>
  return %0 : tensor<1x64x5x6xf32>
}

// -----

// Tests a depthwise convolution with more taps (25) than outputs per tile
// (4, 2x2): each output is its 5x5 window times the tile's weights (one
// tensor_tensor into a product tile), then reduced into its element of the
// accumulator (one tensor_reduce); 8 instructions where one per tap would
// be 25. The accumulator needs no fill.
// CHECK-LABEL: func.func @depthwise_few_outputs
// CHECK: %[[W:.*]] = memref.alloc() : memref<128x5x5xf32, #nisa.memory<sbuf>>
// CHECK: %[[IN:.*]] = memref.alloc() : memref<128x6x6xf32, #nisa.memory<sbuf>>
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<128x2x2xf32, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.memset
// CHECK: %[[PROD:.*]] = memref.alloc() : memref<128x5x5xf32, #nisa.memory<sbuf>>
// CHECK: affine.for %[[R:.*]] = 0 to 2 {
// CHECK:   affine.for %[[C:.*]] = 0 to 2 {
// CHECK:     %[[WIN:.*]] = memref.subview %[[IN]][0, %[[R]], %[[C]]] [128, 5, 5] [1, 1, 1]
// CHECK:     %[[OUT:.*]] = memref.subview %[[ACC]][0, %[[R]], %[[C]]] [128, 1, 1] [1, 1, 1]
// CHECK:     nisa.tensor_tensor <multiply> %[[WIN]], %[[W]], %[[PROD]]
// CHECK:     nisa.tensor_reduce <add> %[[PROD]], %[[OUT]]
// CHECK-NOT: nisa.scalar_tensor_tensor
// CHECK: return
func.func @depthwise_few_outputs(%x: tensor<1x200x6x6xf32>, %w: tensor<200x1x5x5xf32>) -> tensor<1x200x2x2xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw groups 200 : (tensor<1x200x6x6xf32>, tensor<200x1x5x5xf32>) -> tensor<1x200x2x2xf32>
  return %0 : tensor<1x200x2x2xf32>
}

// -----

// Tests a 3x3 max pool with stride 2: the 16 channels' 9 input rows load
// in one transfer; the accumulator starts at -inf and each tap is a max
// with a strided window of the input tile, with no transfer of its own.
// CHECK-LABEL: func.func @maxpool
// CHECK: %[[IN:.*]] = memref.alloc() : memref<16x9x9xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %{{.*}}, %[[IN]]
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<16x4x4xf32, #nisa.memory<sbuf>>
// CHECK: nisa.memset %[[ACC]] value 0xFFF0000000000000
// CHECK: affine.for %[[I:.*]] = 0 to 3 {
// CHECK:   affine.for %[[J:.*]] = 0 to 3 {
// CHECK-NEXT: %[[WIN:.*]] = memref.subview %[[IN]][0, %[[I]], %[[J]]] [16, 4, 4] [1, 2, 2]
// CHECK-NEXT: nisa.tensor_tensor <max> %[[ACC]], %[[WIN]], %[[ACC]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: nisa.dma_copy %[[ACC]]
func.func @maxpool(%x: tensor<1x16x9x9xf32>) -> tensor<1x16x4x4xf32> {
  %0 = neuron.pool2d max %x layout nchw kernel [3, 3] strides [2, 2] : tensor<1x16x9x9xf32> -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// Tests a pool with more taps (16) than outputs per tile (4): each output
// is one tensor_reduce of its 4x4 window, read from the input tile with the
// stride, into its element of the tile; no accumulator to fill, no
// instruction per tap. The average scales the sums by 1/16.
// CHECK-LABEL: func.func @avgpool_few_outputs
// CHECK: %[[IN:.*]] = memref.alloc() : memref<24x8x8xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %{{.*}}, %[[IN]]
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<24x2x2xf32, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.memset
// CHECK: affine.for %[[R:.*]] = 0 to 2 {
// CHECK:   affine.for %[[C:.*]] = 0 to 2 {
// CHECK:     %[[WIN:.*]] = memref.subview %[[IN]][0, %{{.*}}, %{{.*}}] [24, 4, 4] [1, 1, 1]
// CHECK:     %[[OUT:.*]] = memref.subview %[[ACC]][0, %[[R]], %[[C]]] [24, 1, 1] [1, 1, 1]
// CHECK:     nisa.tensor_reduce <add> %[[WIN]], %[[OUT]]
// CHECK-NOT: nisa.tensor_tensor
// CHECK: nisa.tensor_scalar <multiply> %[[ACC]], %{{.*}} scalar 6.250000e-02
// CHECK: return
func.func @avgpool_few_outputs(%x: tensor<1x24x8x8xf32>) -> tensor<1x24x2x2xf32> {
  %0 = neuron.pool2d avg %x layout nchw kernel [4, 4] strides [4, 4] : tensor<1x24x8x8xf32> -> tensor<1x24x2x2xf32>
  return %0 : tensor<1x24x2x2xf32>
}

// -----

// Tests a global max pool (one output per channel, as a squeeze-excitation
// block reads it): one tensor_reduce per channel tile of the whole 7x7
// window, with no loop over taps.
// CHECK-LABEL: func.func @global_maxpool
// CHECK: %[[IN:.*]] = memref.alloc() : memref<128x7x7xf32, #nisa.memory<sbuf>>
// CHECK: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<128x1x1xf32, #nisa.memory<sbuf>>
// CHECK-NOT: affine.for
// CHECK: nisa.tensor_reduce <max> %{{.*}}, %{{.*}} : memref<128x7x7xf32{{.*}}, memref<128x1x1xf32
// CHECK: %[[TAIL:.*]] = memref.alloc() : memref<72x7x7xf32, #nisa.memory<sbuf>>
// CHECK: nisa.tensor_reduce <max> %{{.*}}, %{{.*}} : memref<72x7x7xf32{{.*}}, memref<72x1x1xf32
// CHECK-NOT: nisa.tensor_tensor
// CHECK: return
func.func @global_maxpool(%x: tensor<1x200x7x7xf32>) -> tensor<1x200x1x1xf32> {
  %0 = neuron.pool2d max %x layout nchw kernel [7, 7] : tensor<1x200x7x7xf32> -> tensor<1x200x1x1xf32>
  return %0 : tensor<1x200x1x1xf32>
}

// -----

// Tests a pad whose result (1 x 131 = 131 elements, a prime) is not a
// multiple of the partitions: the fill covers its first 128 elements as
// [128, 1] and the last 3 as one row of 3, then the input goes to its
// window; three transfers in all.
// CHECK-LABEL: func.func @pad_prime
// CHECK: %[[FILL:.*]] = memref.alloc() {nisa.tiling = {{.*}}op = "neuron.pad"{{.*}}tile = array<i64: 128, 3>}} : memref<128x3xf32, #nisa.memory<sbuf>>
// CHECK: nisa.memset %[[FILL]] value 1.5
// CHECK: %[[MAIN:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [128, 1], strides: [1, 1]
// CHECK: %[[COLUMN:.*]] = memref.subview %[[FILL]][0, 0] [128, 1]
// CHECK: nisa.dma_copy %[[COLUMN]], %[[MAIN]]
// CHECK: %[[REST:.*]] = memref.reinterpret_cast %{{.*}} to offset: [128], sizes: [1, 3], strides: [3, 1]
// CHECK: %[[ROW:.*]] = memref.subview %[[FILL]][0, 0] [1, 3]
// CHECK: nisa.dma_copy %[[ROW]], %[[REST]]
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue
// CHECK-NOT: nisa.dma_copy
// CHECK: return
func.func @pad_prime(%x: tensor<1x128xf32>) -> tensor<1x131xf32> {
  %0 = neuron.pad %x low [0, 1] high [0, 2] value 1.5 : tensor<1x128xf32> -> tensor<1x131xf32>
  return %0 : tensor<1x131xf32>
}

// -----

// Tests a pad whose only input is a convolution's result: the output is
// filled first, the convolution stores its [channels, whole rows] tiles
// into the output's interior through a [channels, rows, columns] view
// (the rows are 8 apart, not 6), and the pad copies nothing.
// CHECK-LABEL: func.func @conv_into_pad
// CHECK-SAME:  %[[OUT:[a-z0-9]+]]: memref<1x16x6x8xf32, #nisa.memory<hbm>>)
// CHECK:       nisa.memset %[[FILL:.*]] value 0.0
// CHECK:       %[[ALL:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [128, 6]
// CHECK:       nisa.dma_copy %[[FILL]], %[[ALL]]
// CHECK:       %[[INNER:.*]] = memref.subview %[[OUT]][0, 0, 1, 1] [1, 16, 4, 6]
// CHECK:       nisa.matmul
// CHECK:       %[[ROWS:.*]] = memref.reinterpret_cast %[[INNER]] to offset: [9], sizes: [16, 4, 6], strides: [48, 8, 1]
// CHECK:       nisa.dma_copy %{{.*}}, %[[ROWS]] {{.*}} : memref<16x24xf32, #nisa.memory<sbuf>>, memref<16x4x6xf32, strided<[48, 8, 1], offset: 9>, #nisa.memory<hbm>>
// CHECK-NOT:   nisa.dma_copy
// CHECK:       return
func.func @conv_into_pad(%x: tensor<1x8x4x6xf32>, %w: tensor<16x8x1x1xf32>) -> tensor<1x16x6x8xf32> {
  %c = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x8x4x6xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x4x6xf32>
  %p = neuron.pad %c low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<1x16x4x6xf32> -> tensor<1x16x6x8xf32>
  return %p : tensor<1x16x6x8xf32>
}

// -----

// Tests that a convolution's result read by a pad and by another op is
// stored in its own buffer and the pad copies it.
// CHECK-LABEL: func.func @conv_pad_and_relu
// CHECK:       nisa.matmul
// CHECK:       nisa.dma_copy {{.*}} : memref<16x24xf32, #nisa.memory<sbuf>>, memref<16x24xf32, #nisa.memory<hbm>>
// CHECK:       nisa.dma_copy {{.*}} : memref<1x16x4x6xf32, #nisa.memory<hbm>>, memref<1x16x4x6xf32, strided<[768, 48, 8, 1], offset: 9>, #nisa.memory<hbm>>
func.func @conv_pad_and_relu(%x: tensor<1x8x4x6xf32>, %w: tensor<16x8x1x1xf32>) -> (tensor<1x16x6x8xf32>, tensor<1x16x4x6xf32>) {
  %c = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x8x4x6xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x4x6xf32>
  %p = neuron.pad %c low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : tensor<1x16x4x6xf32> -> tensor<1x16x6x8xf32>
  %r = neuron.relu %c : tensor<1x16x4x6xf32>
  return %p, %r : tensor<1x16x6x8xf32>, tensor<1x16x4x6xf32>
}
