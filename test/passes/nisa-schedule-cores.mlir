// RUN: neuron-opt %s -verify-diagnostics --nisa-schedule="target=trn2 summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s

// Tests the queues of a logical core of two physical cores (lnc=2), each
// running its own streams in program order: each core's work opens with a
// nest only loading (the block its matmul nest reads, queue 0), so on both
// cores the matmul nest's tile loads take the queue after it (1) and its
// stores the last (15). Core 1's nests come after core 0's in the kernel:
// its tile loads must not queue behind its own block's loads either.
#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#tile = affine_map<(d0) -> (d0 * 128)>

// CHECK-LABEL: func.func @two_cores
// CHECK: affine.for
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 0 : memref<8x512xbf16
// CHECK: } {nisa.core = 0
// CHECK: affine.for
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 1 : memref<{{[0-9]+}}x128xbf16
// CHECK: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} queue 15 :
// CHECK: } {nisa.core = 0
// CHECK: affine.for
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 0 : memref<8x512xbf16
// CHECK: } {nisa.core = 1
// CHECK: affine.for
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 1 : memref<{{[0-9]+}}x128xbf16
// CHECK: nisa.matmul
// CHECK: nisa.dma_copy {{.*}} queue 15 :
// CHECK: } {nisa.core = 1
// expected-remark@+1 {{nisa-schedule:}}
func.func @two_cores(%a: memref<256x256xbf16, #hbm>, %b: memref<256x512xbf16, #hbm>, %out0: memref<256x512xf32, #hbm>, %out1: memref<256x512xf32, #hbm>) attributes {nisa.limits = #limits, nisa.cores = 2 : i64} {
  %w0 = memref.alloc() {nisa.address = 0 : i64, nisa.core = 0 : i64} : memref<128x2x512xbf16, #sbuf>
  %w1 = memref.alloc() {nisa.address = 0 : i64, nisa.core = 1 : i64} : memref<128x2x512xbf16, #sbuf>
  affine.for %k = 0 to 2 {
    %row = affine.apply #tile(%k)
    %src = memref.subview %b[%row, 0] [128, 512] [1, 1] : memref<256x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    %dst = memref.subview %w0[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
    nisa.dma_copy %src, %dst queue 0 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
  } {nisa.core = 0 : i64}
  affine.for %m = 0 to 2 {
    %mrow = affine.apply #tile(%m)
    %p = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #psum>
    affine.for %k = 0 to 2 {
      %krow = affine.apply #tile(%k)
      %t = memref.alloc() {nisa.address = 2048 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x128xbf16, #sbuf>
      %src = memref.subview %a[%krow, %mrow] [128, 128] [1, 1] : memref<256x256xbf16, #hbm> to memref<128x128xbf16, strided<[256, 1], offset: ?>, #hbm>
      nisa.dma_copy %src, %t queue 0 : memref<128x128xbf16, strided<[256, 1], offset: ?>, #hbm>, memref<128x128xbf16, #sbuf>
      %wk = memref.subview %w0[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
      nisa.matmul %t, %wk, %p accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>, memref<128x512xf32, #psum>
    }
    %r = memref.alloc() {nisa.address = 3072 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    nisa.activation <identity> %p, %r : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
    %o = memref.subview %out0[%mrow, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %r, %o queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  } {nisa.core = 0 : i64}
  affine.for %k = 0 to 2 {
    %row = affine.apply #tile(%k)
    %src = memref.subview %b[%row, 0] [128, 512] [1, 1] : memref<256x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    %dst = memref.subview %w1[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
    nisa.dma_copy %src, %dst queue 0 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
  } {nisa.core = 1 : i64}
  affine.for %m = 0 to 2 {
    %mrow = affine.apply #tile(%m)
    %p = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #psum>
    affine.for %k = 0 to 2 {
      %krow = affine.apply #tile(%k)
      %t = memref.alloc() {nisa.address = 2048 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x128xbf16, #sbuf>
      %src = memref.subview %a[%krow, %mrow] [128, 128] [1, 1] : memref<256x256xbf16, #hbm> to memref<128x128xbf16, strided<[256, 1], offset: ?>, #hbm>
      nisa.dma_copy %src, %t queue 0 : memref<128x128xbf16, strided<[256, 1], offset: ?>, #hbm>, memref<128x128xbf16, #sbuf>
      %wk = memref.subview %w1[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
      nisa.matmul %t, %wk, %p accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>, memref<128x512xf32, #psum>
    }
    %r = memref.alloc() {nisa.address = 3072 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    nisa.activation <identity> %p, %r : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
    %o = memref.subview %out1[%mrow, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %r, %o queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  } {nisa.core = 1 : i64}
  return
}
