// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn1 summary=1" | FileCheck %s --check-prefix=TRN1
// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2,lnc=1" | FileCheck %s --check-prefix=TRN2

// Streamed lhs row tiles in groups whose rows are interleaved: M tile q of
// a group from row r0 holds rows r0 + g * p + q, so each partition's g
// result rows are one run of the group's one store.
//
// Tests trn1 (lhs transposed on the tensor engine, one panel of all of K):
// groups of 2, as many as leave two K tiles' transposes side by side in a
// PSUM chunk (512 f32 columns); a partition's 2 lhs rows load in one run
// of 2 KiB, not two of 1 KiB, and its 2 result rows store in one of 1 KiB.
// The sums of a group share a PSUM tile, 2 to a bank.
// TRN1-LABEL: func.func @skinny
// TRN1: affine.for %{{.*}} = 0 to 8 {
// TRN1: %[[ACC:.*]] = memref.alloc() {{.*}} : memref<128x512xf32, #nisa.memory<psum>>
// TRN1: %[[ACC0:.*]] = memref.subview %[[ACC]][0, 0] [128, 256]
// TRN1: %[[ACC1:.*]] = memref.subview %[[ACC]][0, 256] [128, 256]
// TRN1: nisa.dma_copy {{.*}} : memref<128x1024xbf16, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>, memref<128x1024xbf16, #nisa.memory<sbuf>>
// TRN1: nisa.transpose %{{.*}} : memref<128x128xbf16, strided<[1024, 1]>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1]>, #nisa.memory<psum>>
// TRN1: nisa.transpose %{{.*}} : memref<128x128xbf16, strided<[1024, 1], offset: 512>, #nisa.memory<sbuf>>, memref<128x128xf32, strided<[512, 1], offset: 128>, #nisa.memory<psum>>
// TRN1: nisa.matmul %{{.*}}, %{{.*}}, %[[ACC0]] :
// TRN1: nisa.matmul %{{.*}}, %{{.*}}, %[[ACC1]] :
// TRN1: nisa.dma_copy {{.*}} : memref<128x512xbf16, #nisa.memory<sbuf>>, memref<128x512xbf16, strided<[512, 1], offset: ?>, #nisa.memory<hbm>>
// TRN1: }
// TRN1-NEXT: return
//
// trn2 transposes lhs by the DMA: no groups (they would lengthen only the
// stores' runs; see `interleave`), one row tile per iteration.
// TRN2-LABEL: func.func @skinny
// TRN2: affine.for %{{.*}} = 0 to 4 {
// TRN2: affine.for %{{.*}} = 0 to 16 {
// TRN2: nisa.dma_copy {{.*}} : memref<128x256xbf16, #nisa.memory<sbuf>>, memref<128x256xbf16, strided<[256, 1], offset: ?>, #nisa.memory<hbm>>
func.func @skinny(%a: tensor<2048x512xbf16>, %b: tensor<512x256xbf16>) -> tensor<2048x256xbf16> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 2048x512x256: rhs resident in blocks of 1 N tiles, reading 2.2 MiB from HBM (5.4 us at the core's HBM bandwidth), estimated 18.8 us; lhs transposed on the tensor engine; lhs row tiles in groups of 2, their rows interleaved; runner-up: both operands streamed, 6.0 MiB, 27.0 us}}
  %0 = neuron.matmul %a, %b : (tensor<2048x512xbf16>, tensor<512x256xbf16>) -> tensor<2048x256xbf16>
  return %0 : tensor<2048x256xbf16>
}

// -----

// Tests sums 130 columns wide, 3 to a PSUM bank (512 f32 columns) and
// never across one: on trn2 (FP8 of odd K transposed on the tensor engine,
// 1024 columns to a PSUM chunk) groups of 4, the fourth starting the
// second bank; on trn1 (512 columns to a chunk) groups of 2.
// TRN2-LABEL: func.func @slots
// TRN2: affine.for %{{.*}} = 0 to 4 {
// TRN2: memref.alloc() {{.*}} : memref<128x1024xf32, #nisa.memory<psum>>
// TRN2: nisa.dma_copy {{.*}} : memref<128x1020xf8E4M3FN, strided<[1020, 1], offset: ?>, #nisa.memory<hbm>>
// TRN2: nisa.matmul {{.*}}, memref<128x130xf32, strided<[1024, 1]>, #nisa.memory<psum>>
// TRN2: nisa.matmul {{.*}}, memref<128x130xf32, strided<[1024, 1], offset: 170>, #nisa.memory<psum>>
// TRN2: nisa.matmul {{.*}}, memref<128x130xf32, strided<[1024, 1], offset: 340>, #nisa.memory<psum>>
// TRN2: nisa.matmul {{.*}}, memref<128x130xf32, strided<[1024, 1], offset: 512>, #nisa.memory<psum>>
// TRN2: nisa.dma_copy {{.*}} : memref<128x520xf32, #nisa.memory<sbuf>>, memref<128x520xf32, strided<[520, 1], offset: ?>, #nisa.memory<hbm>>
// TRN1-LABEL: func.func @slots
// TRN1: affine.for %{{.*}} = 0 to 8 {
// TRN1: nisa.matmul {{.*}}, memref<128x130xf32, strided<[512, 1], offset: 170>, #nisa.memory<psum>>
// TRN1: nisa.dma_copy {{.*}} : memref<128x260xf32, #nisa.memory<sbuf>>, memref<128x260xf32, strided<[260, 1], offset: ?>, #nisa.memory<hbm>>
func.func @slots(%a: tensor<2048x255xf8E4M3FN>, %b: tensor<255x130xf8E4M3FN>) -> tensor<2048x130xf32> {
  // expected-remark@+1 {{lhs row tiles in groups of 2, their rows interleaved}}
  %0 = neuron.matmul %a, %b : (tensor<2048x255xf8E4M3FN>, tensor<255x130xf8E4M3FN>) -> tensor<2048x130xf32>
  return %0 : tensor<2048x130xf32>
}

// -----

// Tests rows past the last whole group (1000 rows: 3 groups of 2 tiles,
// then a tile and 104 rows, each loaded and stored on its own).
// TRN1-LABEL: func.func @rest
// TRN1: affine.for %{{.*}} = 0 to 3 {
// TRN1: nisa.dma_copy {{.*}} : memref<128x1024xbf16, strided<[1024, 1], offset: ?>, #nisa.memory<hbm>>
// TRN1: nisa.dma_copy {{.*}} : memref<128x512xbf16, #nisa.memory<sbuf>>, memref<128x512xbf16, strided<[512, 1], offset: ?>, #nisa.memory<hbm>>
// TRN1: }
// TRN1: nisa.dma_copy {{.*}} : memref<128x512xbf16, strided<[512, 1], offset: 393216>, #nisa.memory<hbm>>
// TRN1: nisa.dma_copy {{.*}} : memref<128x256xbf16, #nisa.memory<sbuf>>, memref<128x256xbf16, strided<[256, 1], offset: 196608>, #nisa.memory<hbm>>
// TRN1: nisa.dma_copy {{.*}} : memref<104x512xbf16, strided<[512, 1], offset: 458752>, #nisa.memory<hbm>>
// TRN1: nisa.dma_copy {{.*}} : memref<104x256xbf16, #nisa.memory<sbuf>>, memref<104x256xbf16, strided<[256, 1], offset: 229376>, #nisa.memory<hbm>>
func.func @rest(%a: tensor<1000x512xbf16>, %b: tensor<512x256xbf16>) -> tensor<1000x256xbf16> {
  // expected-remark@+1 {{lhs row tiles in groups of 2, their rows interleaved}}
  %0 = neuron.matmul %a, %b : (tensor<1000x512xbf16>, tensor<512x256xbf16>) -> tensor<1000x256xbf16>
  return %0 : tensor<1000x256xbf16>
}

// -----

// Tests no groups where a result row is wider than one N tile (its sums
// take a bank per tile): one row tile per iteration (the last apart).
// TRN1-LABEL: func.func @wide
// TRN1: affine.for %{{.*}} = 0 to 31 {
// TRN1: return
func.func @wide(%a: tensor<4096x256xbf16>, %b: tensor<256x600xbf16>) -> tensor<4096x600xbf16> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 4096x256x600: rhs resident in blocks of 2 N tiles, reading 2.3 MiB from HBM (5.5 us at the core's HBM bandwidth), estimated 33.9 us; lhs transposed on the tensor engine; runner-up}}
  %0 = neuron.matmul %a, %b : (tensor<4096x256xbf16>, tensor<256x600xbf16>) -> tensor<4096x600xbf16>
  return %0 : tensor<4096x600xbf16>
}

// -----

// Tests no groups where the row tiles would be fewer than two groups (3
// row tiles).
// TRN1-LABEL: func.func @few
// TRN1-NOT: memref<128x1024xbf16
// TRN1: return
func.func @few(%a: tensor<384x512xbf16>, %b: tensor<512x256xbf16>) -> tensor<384x256xbf16> {
  // expected-remark@+1 {{convert-neuron-to-nisa: 384x512x256: rhs resident in blocks of 1 N tiles, reading 0.6 MiB from HBM (1.5 us at the core's HBM bandwidth), estimated 3.5 us; lhs transposed on the tensor engine; runner-up}}
  %0 = neuron.matmul %a, %b : (tensor<384x512xbf16>, tensor<512x256xbf16>) -> tensor<384x256xbf16>
  return %0 : tensor<384x256xbf16>
}
