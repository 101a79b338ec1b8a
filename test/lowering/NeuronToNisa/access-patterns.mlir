// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2" | FileCheck %s --check-prefixes=CHECK,TRN2
// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn1" | FileCheck %s --check-prefixes=CHECK,TRN1

// How operands reach the chip when a transfer pays a descriptor per
// contiguous run (the DMA cost model): a transpose goes through the tensor
// engine (a natural load, nisa.transpose into PSUM, a vector-engine copy
// out), or, for 2-byte elements on a generation with a DMA transpose (trn2,
// not trn1), through the DMA, as the model chooses; per-row values are
// broadcast on chip.

// Tests a bf16 matmul: lhs^T tiles load by DMA transpose on trn2 and
// through the tensor engine on trn1 (each a slice of one load of both K
// tiles of its rows), whose transposes, matmuls with the identity (no
// transpose mode), write f32 to PSUM, a bank holding 512 columns; rhs
// loads as it is.
// CHECK-LABEL: func.func @matmul_bf16
// TRN2-NOT: nisa.transpose
// TRN2: memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<128x128xbf16, strided<[256, 1], offset: ?>, #nisa.memory<hbm>> to memref<128x128xbf16, strided<[1, 256], offset: ?>, #nisa.memory<hbm>>
// TRN2-NOT: nisa.transpose
// TRN1: nisa.dma_copy %{{.*}}, %[[N:.*]] queue {{.*}} : memref<128x256xbf16, strided<[256, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x256xbf16, #nisa.memory<sbuf>>
// TRN1: %[[T:.*]] = memref.subview %[[N]][0, 0] [128, 128]
// TRN1: nisa.transpose %[[T]], %{{.*}} : memref<128x128xbf16, strided<[256, 1]>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1]>, #nisa.memory<psum>>
// TRN1: nisa.tensor_scalar <bypass> {{.*}} : memref<128x128xf32, strided<[512, 1]>, #nisa.memory<psum>>, memref<128x128xbf16, #nisa.memory<sbuf>>
// CHECK: nisa.matmul
func.func @matmul_bf16(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  %0 = neuron.matmul %a, %b : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// Tests an f32 matmul: no generation transposes 4-byte elements by DMA,
// so lhs goes through the tensor engine on both (each tile a slice of a
// load of both K tiles of its rows).
// CHECK-LABEL: func.func @matmul_f32
// CHECK: nisa.dma_copy %{{.*}}, %[[ROWS:.*]] queue {{.*}} : memref<128x256xf32, strided<[256, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x256xf32, #nisa.memory<sbuf>>
// CHECK: %[[T:.*]] = memref.subview %[[ROWS]][0, 0] [128, 128]
// CHECK: nisa.transpose %[[T]], %{{.*}} : memref<128x128xf32, strided<[256, 1]>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1]>, #nisa.memory<psum>>
// CHECK: nisa.tensor_scalar <bypass>
// CHECK: nisa.matmul
func.func @matmul_f32(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = neuron.matmul %a, %b : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// Tests a transpose read only by a matmul (torch's x @ w^T): no copy, the
// matmul reads the transposed view. Its lhs^T is then contiguous (one
// transfer, no transpose); its rhs tiles are w's rows transposed.
// CHECK-LABEL: func.func @linear
// CHECK-NOT: memref<256x128xf32, #nisa.memory<hbm>>
// CHECK: memref.transpose %arg1 (d0, d1) -> (d1, d0) : memref<64x128xf32, #nisa.memory<hbm>> to memref<128x64xf32, strided<[1, 128]>, #nisa.memory<hbm>>
// CHECK: nisa.dma_copy %{{.*}} : memref<128x32xf32, strided<[32, 1]>, #nisa.memory<hbm>>, memref<128x32xf32, #nisa.memory<sbuf>>
// CHECK-NOT: nisa.dma_copy
// CHECK: nisa.dma_copy %{{.*}} : memref<64x128xf32, strided<[128, 1]>, #nisa.memory<hbm>>, memref<64x128xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: nisa.transpose %{{.*}} : memref<64x128xf32, #nisa.memory<sbuf>>, memref<128x64xf32, strided<[512, 1]>, #nisa.memory<psum>>
// CHECK: nisa.matmul
func.func @linear(%x: tensor<128x32xf32>, %w: tensor<64x128xf32>) -> tensor<32x64xf32> {
  %xt = neuron.transpose %x permutation [1, 0] : tensor<128x32xf32> -> tensor<32x128xf32>
  %wt = neuron.transpose %w permutation [1, 0] : tensor<64x128xf32> -> tensor<128x64xf32>
  %0 = neuron.matmul %xt, %wt : (tensor<32x128xf32>, tensor<128x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// Tests transposes the tensor engine does not take: integers, and a
// permutation that is not a rotation of trailing dimensions (here the
// last dimension stays, so the transfer's runs are its rows), are one
// transfer through the permuted view.
// CHECK-LABEL: func.func @direct
// CHECK-NOT: nisa.transpose
// CHECK: nisa.dma_copy %{{.*}}, %arg2 {{.*}} : memref<8x4xi32, strided<[1, 8]>, #nisa.memory<hbm>>, memref<8x4xi32, #nisa.memory<hbm>>
// CHECK: nisa.dma_copy %{{.*}}, %arg3 {{.*}} : memref<3x2x4xf32, strided<[4, 12, 1]>, #nisa.memory<hbm>>, memref<3x2x4xf32, #nisa.memory<hbm>>
func.func @direct(%i: tensor<4x8xi32>, %f: tensor<2x3x4xf32>) -> (tensor<8x4xi32>, tensor<3x2x4xf32>) {
  %0 = neuron.transpose %i permutation [1, 0] : tensor<4x8xi32> -> tensor<8x4xi32>
  %1 = neuron.transpose %f permutation [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  return %0, %1 : tensor<8x4xi32>, tensor<3x2x4xf32>
}

// -----

// Tests image layouts (a TFLite or JAX convolution's NHWC input to NCHW,
// its NCHW result back): a permutation keeping its leading dimensions and
// rotating the rest swaps two groups of dimensions, so it is a batch of
// matrix transposes ([2, 3136, 48] to [2, 48, 3136], and [2, 80, 784] to
// [2, 784, 80]) through SBUF tile by tile, as a swap of the last two
// dimensions is, not one transfer moving an element per descriptor.
// CHECK-LABEL: func.func @image_layouts
// CHECK: memref.reinterpret_cast %arg0 {{.*}} to memref<2x3136x48xf32,
// CHECK: memref.reinterpret_cast %arg2 {{.*}} to memref<2x48x3136xf32,
// CHECK: nisa.transpose %{{.*}} : memref<128x48xf32, {{.*}}#nisa.memory<sbuf>>, memref<48x128xf32, {{.*}}#nisa.memory<psum>>
// CHECK: nisa.dma_copy %{{.*}} : memref<48x128xf32, #nisa.memory<sbuf>>, memref<48x128xf32, strided<[3136, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK: memref.reinterpret_cast %arg1 {{.*}} to memref<2x80x784xf32,
// CHECK: memref.reinterpret_cast %arg3 {{.*}} to memref<2x784x80xf32,
// CHECK: nisa.transpose %{{.*}} : memref<80x128xf32, {{.*}}#nisa.memory<sbuf>>, memref<128x80xf32, {{.*}}#nisa.memory<psum>>
// CHECK: nisa.dma_copy %{{.*}} : memref<128x80xf32, #nisa.memory<sbuf>>, memref<128x80xf32, strided<[80, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK-NOT: strided<[{{.*}}, 1, {{.*}}, 48]>
func.func @image_layouts(%x: tensor<2x56x56x48xf32>, %y: tensor<2x80x28x28xf32>) -> (tensor<2x48x56x56xf32>, tensor<2x28x28x80xf32>) {
  %0 = neuron.transpose %x permutation [0, 3, 1, 2] : tensor<2x56x56x48xf32> -> tensor<2x48x56x56xf32>
  %1 = neuron.transpose %y permutation [0, 2, 3, 1] : tensor<2x80x28x28xf32> -> tensor<2x28x28x80xf32>
  return %0, %1 : tensor<2x48x56x56xf32>, tensor<2x28x28x80xf32>
}

// -----

// Tests a broadcast of per-row values (a norm's mean along the rows): a
// transfer from its zero-stride view would move one element per
// descriptor, so each row tile loads one column and fills its rows on chip
// (a tile of ones times each partition's value) before the store.
// CHECK-LABEL: func.func @per_row
// CHECK: nisa.dma_copy %{{.*}}, %[[C:.*]] queue {{.*}} : memref<128x1xf32, strided<[1, 0]{{.*}}>, #nisa.memory<hbm>>, memref<128x1xf32, #nisa.memory<sbuf>>
// CHECK: nisa.memset %[[T:.*]] value 1.0
// CHECK: nisa.tensor_scalar <multiply> %[[T]], %[[T]] scalars %[[C]]
// CHECK: nisa.dma_copy %[[T]], %{{.*}} : memref<128x300xf32, #nisa.memory<sbuf>>, memref<128x300xf32, strided<[300, 1]{{.*}}>, #nisa.memory<hbm>>
func.func @per_row(%m: tensor<256xf32>) -> tensor<256x300xf32> {
  %0 = neuron.broadcast %m dimensions [0] : tensor<256xf32> -> tensor<256x300xf32>
  return %0 : tensor<256x300xf32>
}

// -----

// Tests per-row values repeated along leading dimensions too (a mask's row
// indices over [heads, rows, columns], in i32): one filled tile per row
// tile, stored once per head.
// CHECK-LABEL: func.func @per_row_heads
// CHECK: nisa.dma_copy %{{.*}}, %[[C:.*]] queue {{.*}} : memref<128x1xi32, strided<[1, 0]{{.*}}>, #nisa.memory<hbm>>, memref<128x1xi32, #nisa.memory<sbuf>>
// CHECK: nisa.memset %[[T:.*]] value 1.0
// CHECK: nisa.tensor_scalar <multiply> %[[T]], %[[T]] scalars %[[C]]
// CHECK: affine.for %[[H:.*]] = 0 to 3
// CHECK: nisa.dma_copy %[[T]], %{{.*}} : memref<128x64xi32, #nisa.memory<sbuf>>, memref<128x64xi32, strided<[64, 1], offset: ?>, #nisa.memory<hbm>>
// CHECK-NOT: strided<[0, 1, 0]
func.func @per_row_heads(%rows: tensor<128xi32>) -> tensor<3x128x64xi32> {
  %0 = neuron.broadcast %rows dimensions [1] : tensor<128xi32> -> tensor<3x128x64xi32>
  return %0 : tensor<3x128x64xi32>
}

// -----

// Tests one value broadcast everywhere (a run-time length a mask compares
// with): one element per partition loaded, a tile filled on chip, stored
// over the result, instead of one transfer moving an element per
// descriptor.
// CHECK-LABEL: func.func @scalar_everywhere
// CHECK: nisa.dma_copy %{{.*}}, %[[C:.*]] queue {{.*}} : memref<128x1xi32, strided<[0, 0]>, #nisa.memory<hbm>>, memref<128x1xi32, #nisa.memory<sbuf>>
// CHECK: nisa.memset %[[T:.*]] value 1.0
// CHECK: nisa.tensor_scalar <multiply> %[[T]], %[[T]] scalars %[[C]]
// CHECK: nisa.dma_copy %[[T]], %{{.*}} : memref<128x256xi32, #nisa.memory<sbuf>>
// CHECK-NOT: strided<[0, 0, 0]
func.func @scalar_everywhere(%n: tensor<i32>) -> tensor<2x256x256xi32> {
  %0 = neuron.broadcast %n dimensions [] : tensor<i32> -> tensor<2x256x256xi32>
  return %0 : tensor<2x256x256xi32>
}

// -----

// Tests a resident block of 4 lhs tiles transposed on the tensor engine
// (f32: no DMA transpose): the 4 transposes fill one PSUM bank, and the
// vector and scalar engines copy its tiles out in turn, each on its own
// (the first tile's columns free for the next chunk's transposes soonest).
// CHECK-LABEL: func.func @split_copy
// CHECK-COUNT-4: nisa.transpose %{{.*}} : memref<128x128xf32, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1]{{.*}}>, #nisa.memory<psum>>
// CHECK: nisa.tensor_scalar <bypass> %{{.*}} : memref<128x128xf32, strided<[512, 1]>, #nisa.memory<psum>>, memref<128x128xf32, strided<[512, 1]>, #nisa.memory<sbuf>>
// CHECK: nisa.activation <identity> %{{.*}} : memref<128x128xf32, strided<[512, 1], offset: 128>, #nisa.memory<psum>>, memref<128x128xf32, strided<[512, 1], offset: 128>, #nisa.memory<sbuf>>
// CHECK: nisa.tensor_scalar <bypass> %{{.*}} : memref<128x128xf32, strided<[512, 1], offset: 256>, #nisa.memory<psum>>, memref<128x128xf32, strided<[512, 1], offset: 256>, #nisa.memory<sbuf>>
// CHECK: nisa.activation <identity> %{{.*}} : memref<128x128xf32, strided<[512, 1], offset: 384>, #nisa.memory<psum>>, memref<128x128xf32, strided<[512, 1], offset: 384>, #nisa.memory<sbuf>>
func.func @split_copy(%a: tensor<512x128xf32>, %b: tensor<128x4096xf32>) -> tensor<512x4096xf32> {
  %0 = neuron.matmul %a, %b : (tensor<512x128xf32>, tensor<128x4096xf32>) -> tensor<512x4096xf32>
  return %0 : tensor<512x4096xf32>
}

// -----

// Tests a panel of streamed lhs tiles transposed on trn1's tensor engine,
// one K tile to a PSUM chunk: the copies out of PSUM take the vector and
// scalar engines in turn from one chunk to the next, not the vector
// engine each time (the scalar engine evacuates 256 columns a row tile,
// two copies' time, half of the four copies).
// CHECK-LABEL: func.func @one_tile_chunks
// TRN1: nisa.transpose
// TRN1: nisa.tensor_scalar <bypass>
// TRN1: nisa.transpose
// TRN1: nisa.activation <identity>
// TRN1: nisa.transpose
// TRN1: nisa.tensor_scalar <bypass>
// TRN1: nisa.transpose
// TRN1: nisa.activation <identity>
// TRN1: nisa.matmul
func.func @one_tile_chunks(%a: tensor<1024x512xbf16>, %b: tensor<512x256xbf16>) -> tensor<1024x256xbf16> {
  %0 = neuron.matmul %a, %b : (tensor<1024x512xbf16>, tensor<512x256xbf16>) -> tensor<1024x256xbf16>
  return %0 : tensor<1024x256xbf16>
}

// -----

// Tests the same with a row tile's sums 1536 columns wide: the scalar
// engine, evacuating them, would be busier than the vector engine with all
// the copies, so they all stay on the vector engine.
// CHECK-LABEL: func.func @wide_rows
// TRN1: affine.for %{{.*}} = 0 to 5 {
// TRN1-NOT: nisa.activation
// TRN1: nisa.matmul
func.func @wide_rows(%a: tensor<1024x512xbf16>, %b: tensor<512x1536xbf16>) -> tensor<1024x1536xbf16> {
  %0 = neuron.matmul %a, %b : (tensor<1024x512xbf16>, tensor<512x1536xbf16>) -> tensor<1024x1536xbf16>
  return %0 : tensor<1024x1536xbf16>
}

// -----

// Tests an fp8 matmul of odd K: lhs is transposed on the tensor engine on
// both generations. trn2's transpose mode writes FP8 as 16-bit elements
// to PSUM (a bank holds 1024 columns); trn1's transposes write f32.
// CHECK-LABEL: func.func @fp8_odd_k
// TRN2: nisa.transpose %{{.*}} : memref<128x128xf8E4M3FN, strided<[383, 1]>, #nisa.memory<sbuf>>, memref<128x128xbf16, strided<[1024, 1]>, #nisa.memory<psum>>
// TRN2: nisa.tensor_scalar <bypass> {{.*}} : memref<128x128xbf16, strided<[1024, 1]>, #nisa.memory<psum>>, memref<128x128xf8E4M3FN, strided<[256, 1]>, #nisa.memory<sbuf>>
// TRN1: nisa.transpose %{{.*}} : memref<128x128xf8E4M3FN, strided<[383, 1]>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1]>, #nisa.memory<psum>>
// TRN1: nisa.tensor_scalar <bypass> {{.*}} : memref<128x128xf32, strided<[512, 1]>, #nisa.memory<psum>>
func.func @fp8_odd_k(%a: tensor<256x383xf8E4M3FN>, %b: tensor<383x512xf8E4M3FN>) -> tensor<256x512xf32> {
  %0 = neuron.matmul %a, %b : (tensor<256x383xf8E4M3FN>, tensor<383x512xf8E4M3FN>) -> tensor<256x512xf32>
  return %0 : tensor<256x512xf32>
}

// -----

// Tests a bf16 1x1 convolution's weights: one transfer per tile through
// the transposed view (a DMA transpose) on trn2; on trn1 natural rows and
// a tensor-engine transpose. Both keep them resident for the row tiles.
// CHECK-LABEL: func.func @conv_1x1_bf16
// TRN2-NOT: nisa.transpose
// TRN2: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [128, 128], strides: [1, 160]
// TRN2-NOT: nisa.transpose
// TRN1: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [128, 128], strides: [160, 1]
// TRN1: nisa.transpose
// CHECK: nisa.matmul
func.func @conv_1x1_bf16(%x: tensor<1x160x5x5xbf16>, %w: tensor<144x160x1x1xbf16>) -> tensor<1x144x5x5xbf16> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x160x5x5xbf16>, tensor<144x160x1x1xbf16>) -> tensor<1x144x5x5xbf16>
  return %0 : tensor<1x144x5x5xbf16>
}

// -----

// Tests a convolution whose transposed weights (12 channel tiles x 9 taps
// x 128 filters of f32, 54 KiB a partition) exceed a quarter of SBUF: each
// row tile loads and transposes its channel tile's weights in the
// channel loop instead of keeping them all.
// CHECK-LABEL: func.func @conv_wide
// CHECK: affine.for %{{.*}} = 0 to 12 {
// CHECK:   memref.alloc() : memref<128x1152xf32, #nisa.memory<sbuf>>
// CHECK:   nisa.transpose %{{.*}}, %{{.*}} : memref<128x128xf32, strided<[1152, 9], offset: ?>, #nisa.memory<sbuf>>
// CHECK:   nisa.matmul
func.func @conv_wide(%x: tensor<1x1536x3x3xf32>, %w: tensor<130x1536x3x3xf32>) -> tensor<1x130x1x1xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x1536x3x3xf32>, tensor<130x1536x3x3xf32>) -> tensor<1x130x1x1xf32>
  return %0 : tensor<1x130x1x1xf32>
}
