// RUN: neuron-opt %s -split-input-file --nisa-insert-sync --nisa-verify-sync | FileCheck %s
// RUN: neuron-opt %s -split-input-file --nisa-insert-sync=hold-back-loads=false --nisa-verify-sync | FileCheck %s --check-prefix=OFF

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the waits of a load -> matmul -> evacuate -> store chain: each
// instruction waits for the one before it on another unit, only those
// signal, and the kernel records each semaphore's final count.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: nisa.semaphores = {dma0 = 1 : i64, dma1 = 1 : i64, scalar = 1 : i64, tensor = 1 : i64}
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal}
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal}
// CHECK: nisa.matmul {{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "dma1", count = 1>]}
// CHECK: nisa.activation {{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 1>]}
// CHECK: nisa.dma_copy {{.*}} queue 2 {nisa.wait = [#nisa.wait<unit = "scalar", count = 1>]}
func.func @chain(%a: memref<128x128xbf16, #hbm>, %b: memref<128x512xbf16, #hbm>, %out: memref<128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  %m = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
  %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
  %r = memref.alloc() {nisa.address = 1280 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %a, %s queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  nisa.dma_copy %b, %m queue 1 : memref<128x512xbf16, #hbm>, memref<128x512xbf16, #sbuf>
  nisa.matmul %s, %m, %p : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  nisa.activation <identity> %p, %r : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  nisa.dma_copy %r, %out queue 2 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that every wait is direct: the add reads the load's tile and the
// activation's, so it waits for both units; a second load into the same
// tile waits for its last reader on each unit and for the first load on
// the other queue (a write-after-write),
// and of two waits on one unit only the larger count stays.
// CHECK-LABEL: func.func @direct
// CHECK-SAME: nisa.semaphores = {dma0 = 1 : i64, scalar = 1 : i64, vector = 1 : i64}
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal}
// CHECK: nisa.activation <exp> {{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>]}
// CHECK: nisa.tensor_tensor <add> {{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "scalar", count = 1>]} :
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "scalar", count = 1>, #nisa.wait<unit = "vector", count = 1>]}
func.func @direct(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %e = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 512 : i64} : memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  nisa.activation <exp> %x, %e : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  nisa.tensor_tensor <add> %x, %e, %y : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 1 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests waits affine in the iteration: row tiles through two rotating
// slots each. Iteration i's activation waits for load i (dma0 at i + 1),
// its store for activation i (scalar at i + 1); load i refills the slot
// activation i - 2 read (scalar at i - 1), and activation i the slot
// store i - 2 read (dma1 at i - 1), so transfers run two tiles ahead and
// no further.
// CHECK-LABEL: func.func @rotating
// CHECK-SAME: nisa.semaphores = {dma0 = 4 : i64, dma1 = 4 : i64, scalar = 4 : i64}
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar", count = -1, per_iteration = [1]>]}
// CHECK: nisa.activation <exp> {{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1, per_iteration = [1]>, #nisa.wait<unit = "dma1", count = -1, per_iteration = [1]>]}
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar", count = 1, per_iteration = [1]>]}
func.func @rotating(%in: memref<512x64xf32, #hbm>, %out: memref<512x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 4 {
    %x = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 256>} : memref<128x64xf32, #sbuf>
    %y = memref.alloc() {nisa.address = 512 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 256>} : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.activation <exp> %x, %y : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %y, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#k = affine_map<(d0) -> (d0 * 128)>

// Tests a sum over K in a loop: the matmul waits for its load (dma0 at
// k + 1) in the same iteration; the evacuation after the loop waits for
// the last matmul (tensor at 4); a load reuses the slot of the load four
// iterations back, which never happens in four iterations, so it never
// waits; the second kernel step's store waits for the evacuation.
// CHECK-LABEL: func.func @sum_over_k
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal} :
// CHECK: nisa.matmul {{.*}} accumulate restart(%{{.*}}) {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1, per_iteration = [1]>]}
// CHECK: }
// CHECK: nisa.activation {{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 4>]}
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.wait = [#nisa.wait<unit = "scalar", count = 1>]}
func.func @sum_over_k(%a: memref<512x128xbf16, #hbm>, %b: memref<512x512xbf16, #hbm>, %out: memref<128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %m = memref.alloc() {nisa.address = 1024 : i64} : memref<128x512xbf16, #sbuf>
  %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
  affine.for %k = 0 to 4 {
    %s = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x128xbf16, #sbuf>
    %r = affine.apply #k(%k)
    %src = memref.subview %a[%r, 0] [128, 128] [1, 1] : memref<512x128xbf16, #hbm> to memref<128x128xbf16, strided<[128, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %s queue 0 : memref<128x128xbf16, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xbf16, #sbuf>
    nisa.matmul %s, %m, %p accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  }
  %e = memref.alloc() {nisa.address = 4096 : i64} : memref<128x512xf32, #sbuf>
  nisa.activation <identity> %p, %e : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  nisa.dma_copy %e, %out queue 1 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#tile = affine_map<(d0) -> (d0 * 128)>
#col = affine_map<(d0) -> (d0 * 512)>

// Tests a wait into a sibling loop: per column block n a prefetch loop
// fills one slice of a buffer per iteration, and the matmul loop after it
// reads slice k. Matmul (n, k) needs load (n, k) only (dma0 at
// 2 n + k + 1), not the whole prefetch loop (2 n + 2), so the first
// matmul starts after the first slice arrives.
// CHECK-LABEL: func.func @prefetch
// CHECK: nisa.matmul {{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma1", count = 1>, #nisa.wait<unit = "dma0", count = 1, per_iteration = [2, 1]>]}
func.func @prefetch(%a: memref<128x128xbf16, #hbm>, %b: memref<256x1024xbf16, #hbm>) attributes {nisa.limits = #limits} {
  %s = memref.alloc() {nisa.address = 8192 : i64} : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %a, %s queue 1 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  affine.for %n = 0 to 2 {
    %c = affine.apply #col(%n)
    %w = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x2x512xbf16, #sbuf>
    affine.for %k = 0 to 2 {
      %r = affine.apply #tile(%k)
      %src = memref.subview %b[%r, %c] [128, 512] [1, 1] : memref<256x1024xbf16, #hbm> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>
      %dst = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
      nisa.dma_copy %src, %dst queue 0 : memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
    }
    %p = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #psum>
    affine.for %k = 0 to 2 {
      %wk = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
      nisa.matmul %s, %wk, %p accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>, memref<128x512xf32, #psum>
    }
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#tile = affine_map<(d0) -> (d0 * 128)>

// Tests the same between top-level loops: a loop fills slice k of a
// resident block from two queues (rows 0-63 and 64-127), and the nest
// after it reads slice k for each of two streamed tiles. Matmul (m, k)
// needs both halves of load k only (dma0 and dma1 at k + 1), so the first
// matmul starts after the first slice arrives, not after the whole block.
// CHECK-LABEL: func.func @resident_block
// CHECK: nisa.matmul {{.*}} {nisa.wait = [#nisa.wait<unit = "dma2", count = 1>, #nisa.wait<unit = "dma0", count = 1, per_iteration = [0, 1]>, #nisa.wait<unit = "dma1", count = 1, per_iteration = [0, 1]>]}
func.func @resident_block(%a: memref<128x128xbf16, #hbm>, %b: memref<512x512xbf16, #hbm>) attributes {nisa.limits = #limits} {
  %s = memref.alloc() {nisa.address = 8192 : i64} : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %a, %s queue 2 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  %w = memref.alloc() {nisa.address = 0 : i64} : memref<128x4x512xbf16, #sbuf>
  affine.for %k = 0 to 4 {
    %r = affine.apply #tile(%k)
    %src = memref.subview %b[%r, 0] [128, 512] [1, 1] : memref<512x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    %dst = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x4x512xbf16, #sbuf> to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
    %s0 = memref.subview %src[0, 0] [64, 512] [1, 1] : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm> to memref<64x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    %d0 = memref.subview %dst[0, 0] [64, 512] [1, 1] : memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf> to memref<64x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
    %s1 = memref.subview %src[64, 0] [64, 512] [1, 1] : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm> to memref<64x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    %d1 = memref.subview %dst[64, 0] [64, 512] [1, 1] : memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf> to memref<64x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
    nisa.dma_copy %s0, %d0 queue 0 : memref<64x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<64x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
    nisa.dma_copy %s1, %d1 queue 1 : memref<64x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<64x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
  }
  affine.for %m = 0 to 2 {
    %p = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #psum>
    affine.for %k = 0 to 4 {
      %wk = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x4x512xbf16, #sbuf> to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
      nisa.matmul %s, %wk, %p accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>, memref<128x512xf32, #psum>
    }
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a block filled slice by slice (the vector engine copies slice k
// from a staging tile) and read slice by slice by the nest after it (the
// scalar engine), each read slice k needing copy k only (vector at k + 1)
// @slices; but where the reader also writes a tile at the staging tile's
// addresses (@slices_and_reuse), it waits for every load and copy (dma0
// and vector at 4): the last loads write, and the last copies read, that
// staging tile.
// CHECK-LABEL: func.func @slices(
// CHECK: nisa.activation {{.*}} {nisa.wait = [#nisa.wait<unit = "vector", count = 1, per_iteration = [0, 1]>]}
// CHECK-LABEL: func.func @slices_and_reuse(
// CHECK: nisa.activation {{.*}} {nisa.wait = [#nisa.wait<unit = "dma0", count = 4>, #nisa.wait<unit = "vector", count = 4>]}
func.func @slices(%b: memref<512x512xbf16, #hbm>) attributes {nisa.limits = #limits} {
  %w = memref.alloc() {nisa.address = 0 : i64} : memref<128x4x512xbf16, #sbuf>
  affine.for %k = 0 to 4 {
    %t = memref.alloc() {nisa.address = 16384 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 1024>} : memref<128x512xbf16, #sbuf>
    %r = affine.apply affine_map<(d0) -> (d0 * 128)>(%k)
    %src = memref.subview %b[%r, 0] [128, 512] [1, 1] : memref<512x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
    %dst = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x4x512xbf16, #sbuf> to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
    nisa.tensor_scalar <bypass> %t, %dst scalar 0.0 : memref<128x512xbf16, #sbuf>, memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
  }
  affine.for %m = 0 to 2 {
    affine.for %k = 0 to 4 {
      %u = memref.alloc() {nisa.address = 24576 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 1024>} : memref<128x512xbf16, #sbuf>
      %wk = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x4x512xbf16, #sbuf> to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
      nisa.activation <exp> %wk, %u : memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>, memref<128x512xbf16, #sbuf>
    }
  }
  return
}
func.func @slices_and_reuse(%b: memref<512x512xbf16, #hbm>) attributes {nisa.limits = #limits} {
  %w = memref.alloc() {nisa.address = 0 : i64} : memref<128x4x512xbf16, #sbuf>
  affine.for %k = 0 to 4 {
    %t = memref.alloc() {nisa.address = 16384 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 1024>} : memref<128x512xbf16, #sbuf>
    %r = affine.apply affine_map<(d0) -> (d0 * 128)>(%k)
    %src = memref.subview %b[%r, 0] [128, 512] [1, 1] : memref<512x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
    %dst = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x4x512xbf16, #sbuf> to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
    nisa.tensor_scalar <bypass> %t, %dst scalar 0.0 : memref<128x512xbf16, #sbuf>, memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
  }
  affine.for %m = 0 to 2 {
    affine.for %k = 0 to 4 {
      %u = memref.alloc() {nisa.address = 16384 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 1024>} : memref<128x512xbf16, #sbuf>
      %wk = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x4x512xbf16, #sbuf> to memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>
      nisa.activation <exp> %wk, %u : memref<128x512xbf16, strided<[2048, 1], offset: ?>, #sbuf>, memref<128x512xbf16, #sbuf>
    }
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a dependence between two transfers of one queue: a queue moves
// several transfers at once, so the reload of what the store wrote waits
// for the store (dma0 at 1) although both are on queue 0; the two loads
// of disjoint partitions of one tile do not wait for each other.
// CHECK-LABEL: func.func @same_queue
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal} : memref<64x64xf32, #nisa.memory<hbm>>
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal} : memref<64x64xf32, strided<[64, 1], offset: 4096>, #nisa.memory<hbm>>
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 2>]}
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.wait = [#nisa.wait<unit = "dma0", count = 3>]}
func.func @same_queue(%in: memref<128x64xf32, #hbm>, %tmp: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %top = memref.subview %x[0, 0] [64, 64] [1, 1] : memref<128x64xf32, #sbuf> to memref<64x64xf32, strided<[64, 1]>, #sbuf>
  %bottom = memref.subview %x[64, 0] [64, 64] [1, 1] : memref<128x64xf32, #sbuf> to memref<64x64xf32, strided<[64, 1], offset: 4096>, #sbuf>
  %in0 = memref.subview %in[0, 0] [64, 64] [1, 1] : memref<128x64xf32, #hbm> to memref<64x64xf32, #hbm>
  %in1 = memref.subview %in[64, 0] [64, 64] [1, 1] : memref<128x64xf32, #hbm> to memref<64x64xf32, strided<[64, 1], offset: 4096>, #hbm>
  nisa.dma_copy %in0, %top queue 0 : memref<64x64xf32, #hbm>, memref<64x64xf32, strided<[64, 1]>, #sbuf>
  nisa.dma_copy %in1, %bottom queue 0 : memref<64x64xf32, strided<[64, 1], offset: 4096>, #hbm>, memref<64x64xf32, strided<[64, 1], offset: 4096>, #sbuf>
  nisa.dma_copy %x, %tmp queue 0 : memref<128x64xf32, #sbuf>, memref<128x64xf32, #hbm>
  %y = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  nisa.dma_copy %tmp, %y queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#cols = affine_map<(d0) -> (d0 * 512)>
#shifted = affine_map<(d0) -> (d0 * 512 + 256)>

// Tests stores of a [128, 512] block's two halves of rows, the block
// stepping along the rows of a [128, 2048] result. Each iteration's rows
// lie within the bounding span of the next one's, but no two iterations
// write a common element: the halves never wait for each other. Where the
// second piece is the first's rows half a block on (@overlapping_pieces),
// it meets the first in its iteration and the next: each waits for the
// other.
// CHECK-LABEL: func.func @column_pieces
// CHECK: affine.for
// CHECK-NEXT: affine.apply
// CHECK-COUNT-4: memref.subview
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 0 : memref
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 1 : memref
func.func @column_pieces(%out: memref<128x2048xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  affine.for %i = 0 to 4 {
    %c = affine.apply #cols(%i)
    %top = memref.subview %t[0, 0] [64, 512] [1, 1] : memref<128x512xf32, #sbuf> to memref<64x512xf32, strided<[512, 1]>, #sbuf>
    %bottom = memref.subview %t[64, 0] [64, 512] [1, 1] : memref<128x512xf32, #sbuf> to memref<64x512xf32, strided<[512, 1], offset: 32768>, #sbuf>
    %d0 = memref.subview %out[0, %c] [64, 512] [1, 1] : memref<128x2048xf32, #hbm> to memref<64x512xf32, strided<[2048, 1], offset: ?>, #hbm>
    %d1 = memref.subview %out[64, %c] [64, 512] [1, 1] : memref<128x2048xf32, #hbm> to memref<64x512xf32, strided<[2048, 1], offset: ?>, #hbm>
    nisa.dma_copy %top, %d0 queue 0 : memref<64x512xf32, strided<[512, 1]>, #sbuf>, memref<64x512xf32, strided<[2048, 1], offset: ?>, #hbm>
    nisa.dma_copy %bottom, %d1 queue 1 : memref<64x512xf32, strided<[512, 1], offset: 32768>, #sbuf>, memref<64x512xf32, strided<[2048, 1], offset: ?>, #hbm>
  }
  return
}

// CHECK-LABEL: func.func @overlapping_pieces
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma1", count = 0, per_iteration = [1]>]}
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1, per_iteration = [1]>]}
func.func @overlapping_pieces(%out: memref<128x2048xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  affine.for %i = 0 to 3 {
    %c = affine.apply #cols(%i)
    %c2 = affine.apply #shifted(%i)
    %top = memref.subview %t[0, 0] [64, 512] [1, 1] : memref<128x512xf32, #sbuf> to memref<64x512xf32, strided<[512, 1]>, #sbuf>
    %bottom = memref.subview %t[64, 0] [64, 512] [1, 1] : memref<128x512xf32, #sbuf> to memref<64x512xf32, strided<[512, 1], offset: 32768>, #sbuf>
    %d0 = memref.subview %out[0, %c] [64, 512] [1, 1] : memref<128x2048xf32, #hbm> to memref<64x512xf32, strided<[2048, 1], offset: ?>, #hbm>
    %d1 = memref.subview %out[0, %c2] [64, 512] [1, 1] : memref<128x2048xf32, #hbm> to memref<64x512xf32, strided<[2048, 1], offset: ?>, #hbm>
    nisa.dma_copy %top, %d0 queue 0 : memref<64x512xf32, strided<[512, 1]>, #sbuf>, memref<64x512xf32, strided<[2048, 1], offset: ?>, #hbm>
    nisa.dma_copy %bottom, %d1 queue 1 : memref<64x512xf32, strided<[512, 1], offset: 32768>, #sbuf>, memref<64x512xf32, strided<[2048, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#block = affine_map<(d0) -> (d0 * 128)>

// Tests the same halves in a nest of 40 row blocks by 64 column blocks
// (79 x 127 differences of two iterations): the column loop's difference
// is solved for, not enumerated, and the halves never wait.
// CHECK-LABEL: func.func @nested_pieces
// CHECK: affine.for
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 0 : memref
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 1 : memref
func.func @nested_pieces(%out: memref<5120x8192xbf16, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  %top = memref.subview %t[0, 0] [64, 128] [1, 1] : memref<128x128xbf16, #sbuf> to memref<64x128xbf16, strided<[128, 1]>, #sbuf>
  %bottom = memref.subview %t[64, 0] [64, 128] [1, 1] : memref<128x128xbf16, #sbuf> to memref<64x128xbf16, strided<[128, 1], offset: 8192>, #sbuf>
  affine.for %i = 0 to 40 {
    %r = affine.apply #block(%i)
    %r2 = affine.apply affine_map<(d0) -> (d0 * 128 + 64)>(%i)
    affine.for %j = 0 to 64 {
      %c = affine.apply #block(%j)
      %d0 = memref.subview %out[%r, %c] [64, 128] [1, 1] : memref<5120x8192xbf16, #hbm> to memref<64x128xbf16, strided<[8192, 1], offset: ?>, #hbm>
      %d1 = memref.subview %out[%r2, %c] [64, 128] [1, 1] : memref<5120x8192xbf16, #hbm> to memref<64x128xbf16, strided<[8192, 1], offset: ?>, #hbm>
      nisa.dma_copy %top, %d0 queue 0 : memref<64x128xbf16, strided<[128, 1]>, #sbuf>, memref<64x128xbf16, strided<[8192, 1], offset: ?>, #hbm>
      nisa.dma_copy %bottom, %d1 queue 1 : memref<64x128xbf16, strided<[128, 1], offset: 8192>, #sbuf>, memref<64x128xbf16, strided<[8192, 1], offset: ?>, #hbm>
    }
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>
#second = affine_map<(d0) -> (d0 + 2)>

// Tests a nest split between two physical cores: each copy's units are its
// core's (core 1's named "@1"), the copies never wait for each other
// (their group's iterations are apart), and the load after them, on core
// 0, waits for both cores' stores.
// CHECK-LABEL: func.func @two_cores
// CHECK-SAME: nisa.semaphores = {dma1 = 2 : i64, "dma1@1" = 2 : i64, scalar = 2 : i64, "scalar@1" = 2 : i64}
// CHECK: affine.for
// CHECK: nisa.activation <exp> {{.*}} {nisa.signal} :
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar", count = 1, per_iteration = [1]>]}
// CHECK: } {nisa.split = 0 : i64}
// CHECK: affine.for
// CHECK: nisa.activation <exp> {{.*}} {nisa.signal} :
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar@1", count = 1, per_iteration = [1]>]}
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.wait = [#nisa.wait<unit = "dma1", count = 2>, #nisa.wait<unit = "dma1@1", count = 2>]}
func.func @two_cores(%out: memref<512x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.cores = 2 : i64} {
  affine.for %i = 0 to 2 {
    %x = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 256>} : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.activation <exp> %x, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  } {nisa.split = 0 : i64}
  affine.for %i = 0 to 2 {
    %j = affine.apply #second(%i)
    %x = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 256>} : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%j)
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.activation <exp> %x, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  } {nisa.core = 1 : i64, nisa.split = 0 : i64}
  %y = memref.alloc() {nisa.address = 1024 : i64} : memref<128x64xf32, #sbuf>
  %all = memref.subview %out[0, 0] [128, 64] [4, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[256, 1]>, #hbm>
  nisa.dma_copy %all, %y queue 0 : memref<128x64xf32, strided<[256, 1]>, #hbm>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#k = affine_map<(d0) -> (d0 * 128)>

// Tests holding a load back: the inner loop's rhs loads (queue 1) are
// first read by its matmul, and the tensor engine needs the nest's two
// loads on queue 0 before it (the first matmul's operands), so their first
// instance waits for those (a count the later ones have passed); the loads
// on queue 0 wait for nothing. Without hold-back-loads the rhs loads wait
// only for their slot's last reader.
// CHECK-LABEL: func.func @held_back
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal} :
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal} :
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 2>, #nisa.wait<unit = "tensor", count = 1, per_iteration = [3, 1], fewer_first = [1, 1, 1]>]}
// OFF-LABEL: func.func @held_back
// OFF: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 1, per_iteration = [3, 1], fewer_first = [1, 1, 1]>]}
func.func @held_back(%a: memref<128x128xbf16, #hbm>, %b: memref<512x512xbf16, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %o = 0 to 1 {
    %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
    %m = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
    %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
    %first = memref.subview %b[0, 0] [128, 512] [1, 1] : memref<512x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1]>, #hbm>
    nisa.dma_copy %a, %s queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
    nisa.dma_copy %first, %m queue 0 : memref<128x512xbf16, strided<[512, 1]>, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %s, %m, %p : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    affine.for %i = 0 to 2 {
      %t = memref.alloc() {nisa.address = 1280 : i64} : memref<128x512xbf16, #sbuf>
      %r = affine.apply #k(%i)
      %src = memref.subview %b[%r, 0] [128, 512] [1, 1] : memref<512x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
      nisa.dma_copy %src, %t queue 1 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
      nisa.matmul %s, %t, %p accumulate : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    }
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests what a load is not held back for: the tensor engine needs the
// reload on queue 2 and the load on queue 4 before the matmul, but the
// reload waits for the engine itself (the first transpose reads the tile
// it overwrites) and the other for a store of what the scalar engine
// computed (queue 3), so the load on queue 1 waits only for the first load
// (queue 0); on the other physical core, its own queue 0 only; and a load
// outside a loop nest, or in one its transfers bound, none.
// CHECK-LABEL: func.func @not_held_back
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal} :
// CHECK: nisa.dma_copy {{.*}} queue 2 {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1, per_iteration = [1]>, #nisa.wait<unit = "tensor", count = 1, per_iteration = [4]>]}
// CHECK: nisa.dma_copy {{.*}} queue 3 {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar", count = 1, per_iteration = [1]>]}
// CHECK: nisa.dma_copy {{.*}} queue 4 {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "dma3", count = 1, per_iteration = [1]>]}
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>]}
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.core = 1 : i64, nisa.signal} :
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.core = 1 : i64, nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0@1", count = 1>]}
// CHECK: }
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "tensor", count = 4>, #nisa.wait<unit = "dma2", count = 1>, #nisa.wait<unit = "scalar", count = 1>]}
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 4>, #nisa.wait<unit = "dma1", count = 1>]}
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal} :
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal} :
// CHECK: } {nisa.transfer_bound}
func.func @not_held_back(%a: memref<128x128xbf16, #hbm>, %b: memref<128x512xbf16, #hbm>, %h: memref<128x128xbf16, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %o = 0 to 1 {
    %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
    %m = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
    %c = memref.alloc() {nisa.address = 256 : i64, nisa.core = 1 : i64} : memref<128x512xbf16, #sbuf>
    %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
    %q = memref.alloc() {nisa.address = 0 : i64, nisa.core = 1 : i64} : memref<128x512xf32, #psum>
    %t = memref.alloc() {nisa.address = 1024 : i64} : memref<128x128xbf16, #psum>
    nisa.dma_copy %a, %s queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
    nisa.transpose %s, %t : memref<128x128xbf16, #sbuf>, memref<128x128xbf16, #psum>
    nisa.dma_copy %a, %s queue 2 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
    nisa.transpose %s, %t : memref<128x128xbf16, #sbuf>, memref<128x128xbf16, #psum>
    %z = memref.alloc() {nisa.address = 2304 : i64} : memref<128x128xbf16, #sbuf>
    %l = memref.alloc() {nisa.address = 2560 : i64} : memref<128x128xbf16, #sbuf>
    nisa.activation <identity> %s, %z : memref<128x128xbf16, #sbuf>, memref<128x128xbf16, #sbuf>
    nisa.dma_copy %z, %h queue 3 : memref<128x128xbf16, #sbuf>, memref<128x128xbf16, #hbm>
    nisa.dma_copy %h, %l queue 4 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
    nisa.transpose %l, %t : memref<128x128xbf16, #sbuf>, memref<128x128xbf16, #psum>
    nisa.dma_copy %b, %m queue 1 : memref<128x512xbf16, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %s, %m, %p : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    %d = memref.alloc() {nisa.address = 0 : i64, nisa.core = 1 : i64} : memref<128x128xbf16, #sbuf>
    %u = memref.alloc() {nisa.address = 1024 : i64, nisa.core = 1 : i64} : memref<128x128xbf16, #psum>
    nisa.dma_copy %a, %d queue 0 {nisa.core = 1 : i64} : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
    nisa.transpose %d, %u {nisa.core = 1 : i64} : memref<128x128xbf16, #sbuf>, memref<128x128xbf16, #psum>
    nisa.dma_copy %b, %c queue 1 {nisa.core = 1 : i64} : memref<128x512xbf16, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %d, %c, %q {nisa.core = 1 : i64} : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  }
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  %y = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
  %w = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
  %v = memref.alloc() {nisa.address = 1024 : i64} : memref<128x128xbf16, #psum>
  nisa.dma_copy %a, %x queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  nisa.transpose %x, %v : memref<128x128xbf16, #sbuf>, memref<128x128xbf16, #psum>
  nisa.dma_copy %b, %y queue 1 : memref<128x512xbf16, #hbm>, memref<128x512xbf16, #sbuf>
  nisa.matmul %x, %y, %w : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  affine.for %o = 0 to 1 {
    %x2 = memref.alloc() {nisa.address = 4096 : i64} : memref<128x128xbf16, #sbuf>
    %y2 = memref.alloc() {nisa.address = 4352 : i64} : memref<128x512xbf16, #sbuf>
    nisa.dma_copy %a, %x2 queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
    nisa.transpose %x2, %v : memref<128x128xbf16, #sbuf>, memref<128x128xbf16, #psum>
    nisa.dma_copy %b, %y2 queue 1 : memref<128x512xbf16, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %x2, %y2, %w : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  } {nisa.transfer_bound}
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#k = affine_map<(d0, d1) -> (d0 * 256 + d1 * 128)>

// Tests a wait reaching back over the outer loop's boundary: the rhs load
// of inner iteration i waits for the matmul that read its tile in
// iteration i - 1, which in the inner loop's first iteration is the outer
// loop's previous iteration's last, before its own matmul outside the inner
// loop: one tensor signal fewer there (the outer matmul of the iteration
// before is not waited for).
// CHECK-LABEL: func.func @fewer_first
// CHECK: affine.for
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 0, per_iteration = [3, 1], fewer_first = [1, 1, 1]>]}
func.func @fewer_first(%a: memref<128x128xbf16, #hbm>, %b: memref<768x512xbf16, #hbm>) attributes {nisa.limits = #limits} {
  %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %a, %s queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  affine.for %o = 0 to 3 {
    %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
    %q = memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #psum>
    %e = memref.alloc() {nisa.address = 1280 : i64} : memref<128x512xbf16, #sbuf>
    affine.for %i = 0 to 2 {
      %t = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
      %r = affine.apply #k(%o, %i)
      %src = memref.subview %b[%r, 0] [128, 512] [1, 1] : memref<768x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
      nisa.dma_copy %src, %t queue 1 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
      nisa.matmul %s, %t, %p accumulate : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    }
    nisa.matmul %s, %e, %q : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    nisa.activation <identity> %q, %e : memref<128x512xf32, #psum>, memref<128x512xbf16, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a write that hides earlier accesses only from the loop nests after
// its own: the second nest's memset overwrites all four slots the first
// nest's transfers used, but the activation after it in the same nest
// writes the last slot's bytes at its first iteration, before the memset
// reaches them, so it waits for the first nest's last store itself (it
// had no wait at all, and the store could read what it wrote).
// CHECK-LABEL: func.func @hidden_within_nest
// CHECK: nisa.memset {{.*}} {nisa.wait = [#nisa.wait<unit = "dma0", count = 4>, #nisa.wait<unit = "dma1", count = 4>]}
// CHECK: nisa.activation <exp> {{.*}} {nisa.wait = [#nisa.wait<unit = "dma0", count = 4>, #nisa.wait<unit = "dma1", count = 4>]}
func.func @hidden_within_nest(%in: memref<4x128x64xf32, #hbm>, %out: memref<4x128x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 4 {
    %t = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x64xf32, #sbuf>
    %src = memref.subview %in[%i, 0, 0] [1, 128, 64] [1, 1, 1] : memref<4x128x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%i, 0, 0] [1, 128, 64] [1, 1, 1] : memref<4x128x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %t, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  affine.for %j = 0 to 2 {
    %u = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x64xf32, #sbuf>
    %v = memref.alloc() {nisa.address = 768 : i64} : memref<128x64xf32, #sbuf>
    nisa.memset %u value 1.0 : memref<128x64xf32, #sbuf>
    nisa.activation <exp> %v, %v : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests two loop nests storing the two column halves of the same rows (a
// matmul's column blocks shared out between physical cores): the second's
// rows lie within the first's bounding range, but no element of theirs
// meets: the second nest's stores wait for none of the first's.
// CHECK-LABEL: func.func @column_nests
// CHECK: nisa.dma_copy {{.*}} queue 0 : memref
// CHECK: nisa.dma_copy {{.*}} queue 1 : memref
func.func @column_nests(%out: memref<512x1024xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  affine.for %i = 0 to 4 {
    %r = affine.apply #rows(%i)
    %d = memref.subview %out[%r, 0] [128, 512] [1, 1] : memref<512x1024xf32, #hbm> to memref<128x512xf32, strided<[1024, 1], offset: ?>, #hbm>
    nisa.dma_copy %t, %d queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[1024, 1], offset: ?>, #hbm>
  }
  affine.for %i = 0 to 4 {
    %r = affine.apply #rows(%i)
    %d = memref.subview %out[%r, 512] [128, 512] [1, 1] : memref<512x1024xf32, #hbm> to memref<128x512xf32, strided<[1024, 1], offset: ?>, #hbm>
    nisa.dma_copy %t, %d queue 1 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[1024, 1], offset: ?>, #hbm>
  }
  return
}

// Tests that a loop's stores, tracked by their bounding range, hide none
// of the earlier accesses within it: the load of the right half of the
// first rows follows the store writing them (dma0), not the nest storing
// the left halves (dma1), which follows nothing.
// CHECK-LABEL: func.func @bounding_hides_nothing
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal} : memref
// CHECK: nisa.dma_copy {{.*}} queue 1 : memref
// CHECK: nisa.dma_copy {{.*}} queue 2 {nisa.wait = [#nisa.wait<unit = "dma0", count = 1>]} : memref
func.func @bounding_hides_nothing(%out: memref<512x1024xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  %u = memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #sbuf>
  %right = memref.subview %out[0, 512] [128, 512] [1, 1] : memref<512x1024xf32, #hbm> to memref<128x512xf32, strided<[1024, 1], offset: 512>, #hbm>
  nisa.dma_copy %t, %right queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[1024, 1], offset: 512>, #hbm>
  affine.for %i = 0 to 4 {
    %r = affine.apply #rows(%i)
    %d = memref.subview %out[%r, 0] [128, 512] [1, 1] : memref<512x1024xf32, #hbm> to memref<128x512xf32, strided<[1024, 1], offset: ?>, #hbm>
    nisa.dma_copy %t, %d queue 1 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[1024, 1], offset: ?>, #hbm>
  }
  nisa.dma_copy %right, %u queue 2 : memref<128x512xf32, strided<[1024, 1], offset: 512>, #hbm>, memref<128x512xf32, #sbuf>
  return
}
