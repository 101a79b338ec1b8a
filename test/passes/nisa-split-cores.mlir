// RUN: neuron-opt %s -split-input-file -verify-diagnostics --nisa-split-cores=summary=1 | FileCheck %s
// RUN: neuron-opt %s -split-input-file --nisa-split-cores=target=trn2,lnc=1 | FileCheck %s --check-prefix=LNC1

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#cols = affine_map<(d0) -> (d0 * 64)>

// Tests a nest over column blocks (each iteration loads, computes and
// stores its own columns, the stores' bounding spans overlapping): trn2's
// two physical cores take two blocks each, core 1 from block 2 on, its
// copy with its own tiles; both copies share a split group. At lnc=1
// nothing changes.
// CHECK-LABEL: func.func @columns
// CHECK-SAME: nisa.cores = 2 : i64
// CHECK: affine.for %[[I:.*]] = 0 to 2 {
// CHECK: memref.alloc()
// CHECK: affine.apply #{{.*}}(%[[I]])
// CHECK: } {nisa.split = 0 : i64}
// CHECK: affine.for %[[J:.*]] = 0 to 2 {
// CHECK-NEXT: %[[K:.*]] = affine.apply #[[SHIFT:.*]](%[[J]])
// CHECK: memref.alloc()
// CHECK: affine.apply #{{.*}}(%[[K]])
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// LNC1-LABEL: func.func @columns
// LNC1-NOT: nisa.core
// LNC1: affine.for %{{.*}} = 0 to 4 {
// LNC1-NOT: nisa.core
// expected-remark@+1 {{nisa-split-cores: 1 of 1 loop nests split over 2 physical cores}}
func.func @columns(%in: memref<128x256xf32, #hbm>, %out: memref<128x256xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %c = affine.apply #cols(%i)
    %src = memref.subview %in[0, %c] [128, 64] [1, 1] : memref<128x256xf32, #hbm> to memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[0, %c] [128, 64] [1, 1] : memref<128x256xf32, #hbm> to memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.activation <exp> %x, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests an odd trip count: core 0 takes the first two row tiles, core 1
// the third.
// CHECK-LABEL: func.func @odd
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK-NEXT: affine.apply #{{.*}}(%{{.*}})
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// expected-remark@+1 {{nisa-split-cores: 1 of 1 loop nests split over 2 physical cores}}
func.func @odd(%in: memref<384x64xf32, #hbm>, %out: memref<384x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<384x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<384x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests the nests their iterations do not split: one summing into a tile
// made outside it (which an instruction before it sets), one storing every
// iteration to the same rows, one reading the rows the iteration before
// stored, and one that runs once. The second and the third, touching no
// tile made outside them, run whole on core 1 (core 0 has the first; the
// third waits for what the second stores); moving the fourth (a load
// nothing reads) saves less than the estimate can tell.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: nisa.split
// CHECK: nisa.memset
// CHECK: affine.for
// CHECK: nisa.tensor_tensor
// CHECK-NEXT: }
// CHECK-NEXT: affine.for
// CHECK: } {nisa.core = 1 : i64}
// CHECK-NEXT: affine.for
// CHECK: } {nisa.core = 1 : i64}
// CHECK-NOT: nisa.core
// CHECK: return
// expected-remark@+1 {{nisa-split-cores: 0 of 4 loop nests split over 2 physical cores, 2 run whole on another}}
func.func @kept(%in: memref<512x64xf32, #hbm>, %out: memref<512x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %acc = memref.alloc() : memref<128x64xf32, #sbuf>
  nisa.memset %acc value 0.0 : memref<128x64xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.tensor_tensor <add> %acc, %x, %acc : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 1 whole, with the 0 instructions after it using its tiles (its iterations touch the same HBM elements)}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[0, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1]>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1]>, #hbm>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 1 whole, with the 0 instructions after it using its tiles (its iterations touch the same HBM elements)}}
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %next = affine.apply affine_map<(d0) -> (d0 * 128 + 128)>(%i)
    %src = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%next, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it runs once}}
  affine.for %i = 0 to 1 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %src = memref.subview %in[0, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1]>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[64, 1]>, #hbm>, memref<128x64xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests scratch made outside a nest: a PSUM tile every iteration writes
// (two transposes into its halves) before reading it is the nest's own, so
// core 1's copy gets a copy of it; one an iteration reads before writing
// (a value passed to the next iteration) keeps its nest on core 0.
// CHECK-LABEL: func.func @scratch
// CHECK: %[[T:.*]] = memref.alloc() : memref<128x256xf32, #nisa.memory<psum>>
// CHECK: affine.for
// CHECK: nisa.transpose %{{.*}}, %{{.*}}
// CHECK: } {nisa.split = 0 : i64}
// CHECK: %[[T1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x256xf32, #nisa.memory<psum>>
// CHECK: affine.for
// CHECK: memref.subview %[[T1]]
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: affine.for
// CHECK-NOT: nisa.core
// CHECK: return
// expected-remark@+1 {{nisa-split-cores: 1 of 2 loop nests split over 2 physical cores}}
func.func @scratch(%in: memref<512x256xf32, #hbm>, %out: memref<512x256xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() : memref<128x256xf32, #psum>
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x128xf32, #sbuf>
    %y = memref.alloc() : memref<128x256xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 128] [1, 1] : memref<512x256xf32, #hbm> to memref<128x128xf32, strided<[256, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 256] [1, 1] : memref<512x256xf32, #hbm> to memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
    %lo = memref.subview %t[0, 0] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1]>, #psum>
    %hi = memref.subview %t[0, 128] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    nisa.dma_copy %src, %x queue 0 : memref<128x128xf32, strided<[256, 1], offset: ?>, #hbm>, memref<128x128xf32, #sbuf>
    nisa.transpose %x, %lo : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1]>, #psum>
    nisa.transpose %x, %hi : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    nisa.activation <identity> %t, %y : memref<128x256xf32, #psum>, memref<128x256xf32, #sbuf>
    nisa.dma_copy %y, %dst queue 1 : memref<128x256xf32, #sbuf>, memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
  }
  %u = memref.alloc() : memref<128x256xf32, #psum>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x128xf32, #sbuf>
    %y = memref.alloc() : memref<128x256xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 128] [1, 1] : memref<512x256xf32, #hbm> to memref<128x128xf32, strided<[256, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 256] [1, 1] : memref<512x256xf32, #hbm> to memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
    %lo = memref.subview %u[0, 0] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1]>, #psum>
    nisa.dma_copy %src, %x queue 0 : memref<128x128xf32, strided<[256, 1], offset: ?>, #hbm>, memref<128x128xf32, #sbuf>
    nisa.activation <identity> %u, %y : memref<128x256xf32, #psum>, memref<128x256xf32, #sbuf>
    nisa.transpose %x, %lo : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1]>, #psum>
    nisa.dma_copy %y, %dst queue 1 : memref<128x256xf32, #sbuf>, memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests a resident tile the nest only reads, loaded by a nest before it
// (from HBM, a slice per iteration): core 1 loads its own copy the same
// way (a copy of the loading nest on core 1, before its copy of the nest).
// A tile whose loader also stores to HBM keeps its reader on core 0.
// CHECK-LABEL: func.func @resident
// CHECK: %[[W:.*]] = memref.alloc() : memref<128x2x64xf32, #nisa.memory<sbuf>>
// CHECK: affine.for
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 0
// CHECK: }
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK: %[[W1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x2x64xf32, #nisa.memory<sbuf>>
// CHECK: affine.for
// CHECK: memref.subview %[[W1]]
// CHECK: } {nisa.core = 1 : i64}
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: memref.subview %[[W1]]
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// expected-remark@+1 {{nisa-split-cores: 1 of 4 loop nests split over 2 physical cores}}
func.func @resident(%w: memref<256x64xf32, #hbm>, %in: memref<512x64xf32, #hbm>, %out: memref<512x64xf32, #hbm>, %copy: memref<256x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %res = memref.alloc() : memref<128x2x64xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %k = 0 to 2 {
    %r = affine.apply #rows(%k)
    %src = memref.subview %w[%r, 0] [128, 64] [1, 1] : memref<256x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %slot = memref.subview %res[0, %k, 0] [128, 1, 64] [1, 1, 1] : memref<128x2x64xf32, #sbuf> to memref<128x64xf32, strided<[128, 1], offset: ?>, #sbuf>
    nisa.dma_copy %src, %slot queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, strided<[128, 1], offset: ?>, #sbuf>
  }
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %half = memref.subview %res[0, 1, 0] [128, 1, 64] [1, 1, 1] : memref<128x2x64xf32, #sbuf> to memref<128x64xf32, strided<[128, 1], offset: 64>, #sbuf>
    nisa.dma_copy %src, %x queue 1 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.tensor_tensor <add> %x, %half, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[128, 1], offset: 64>, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  %res2 = memref.alloc() : memref<128x64xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it runs once}}
  affine.for %k = 0 to 1 {
    %src = memref.subview %w[0, 0] [128, 64] [1, 1] : memref<256x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1]>, #hbm>
    %back = memref.subview %copy[0, 0] [128, 64] [1, 1] : memref<256x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1]>, #hbm>
    nisa.dma_copy %src, %res2 queue 0 : memref<128x64xf32, strided<[64, 1]>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %res2, %back queue 3 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1]>, #hbm>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.tensor_tensor <add> %res2, %res2, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests an input computed on chip from what is loaded before it: rows
// loaded, transposed into PSUM and copied out. Core 1 runs its own copy
// of all three (its own rows, PSUM tile and input) before its share. A nest
// before them using the same PSUM tile, whose contents the transpose
// replaces, is not copied.
// CHECK-LABEL: func.func @loaded_through_psum
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK-NOT: nisa.activation <identity>
// CHECK: %[[T1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x128xf32, #nisa.memory<sbuf>>
// CHECK: %[[X1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x128xf32, #nisa.memory<sbuf>>
// CHECK: %[[P1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x128xf32, #nisa.memory<psum>>
// CHECK-NOT: nisa.activation <identity>
// CHECK: nisa.dma_copy %{{.*}}, %[[X1]] queue 0 {nisa.core = 1 : i64}
// CHECK-NEXT: nisa.transpose %[[X1]], %[[P1]] {nisa.core = 1 : i64}
// CHECK-NEXT: nisa.tensor_scalar <bypass> %[[P1]], %[[T1]] scalar 0.000000e+00 {nisa.core = 1 : i64}
// CHECK-NEXT: affine.for %{{.*}} = 0 to 2 {
// CHECK: nisa.activation <exp> %[[T1]]
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// expected-remark@+1 {{nisa-split-cores: 1 of 2 loop nests split over 2 physical cores}}
func.func @loaded_through_psum(%w: memref<128x128xf32, #hbm>, %out: memref<512x128xf32, #hbm>, %side: memref<128x128xf32, #hbm>) attributes {nisa.limits = #limits} {
  %p = memref.alloc() : memref<128x128xf32, #psum>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: its iterations touch the same HBM elements}}
  affine.for %i = 0 to 2 {
    %v = memref.alloc() : memref<128x128xf32, #sbuf>
    %u = memref.alloc() : memref<128x128xf32, #sbuf>
    nisa.dma_copy %w, %v queue 0 : memref<128x128xf32, #hbm>, memref<128x128xf32, #sbuf>
    nisa.transpose %v, %p : memref<128x128xf32, #sbuf>, memref<128x128xf32, #psum>
    nisa.activation <identity> %p, %u : memref<128x128xf32, #psum>, memref<128x128xf32, #sbuf>
    nisa.dma_copy %u, %side queue 1 : memref<128x128xf32, #sbuf>, memref<128x128xf32, #hbm>
  }
  %x = memref.alloc() : memref<128x128xf32, #sbuf>
  nisa.dma_copy %w, %x queue 0 : memref<128x128xf32, #hbm>, memref<128x128xf32, #sbuf>
  nisa.transpose %x, %p : memref<128x128xf32, #sbuf>, memref<128x128xf32, #psum>
  %t = memref.alloc() : memref<128x128xf32, #sbuf>
  nisa.tensor_scalar <bypass> %p, %t scalar 0.0 : memref<128x128xf32, #psum>, memref<128x128xf32, #sbuf>
  affine.for %i = 0 to 4 {
    %y = memref.alloc() : memref<128x128xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %dst = memref.subview %out[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    nisa.activation <exp> %t, %y : memref<128x128xf32, #sbuf>, memref<128x128xf32, #sbuf>
    nisa.dma_copy %y, %dst queue 1 : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests a nest summing over its outermost loop (a decode step's row
// against 32 K tiles of weights): each physical core sums half of K into
// its own PSUM tile (core 1's restarts on its own first iteration); core 1
// sends its partial sum through HBM and core 0 adds it to its own before
// the sum's first reader.
// CHECK-LABEL: func.func @split_sum
// CHECK: %[[ACC:.*]] = memref.alloc() : memref<1x512xf32, #nisa.memory<psum>>
// CHECK: affine.for %[[K:.*]] = 0 to 16 {
// CHECK: nisa.matmul %{{.*}}, %{{.*}}, %[[ACC]] accumulate restart(%[[K]])
// CHECK: } {nisa.split = 0 : i64}
// CHECK: %[[ACC1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<1x512xf32, #nisa.memory<psum>>
// CHECK: affine.for %[[J:.*]] = 0 to 16 {
// CHECK-NEXT: %[[S:.*]] = affine.apply #{{.*}}(%[[J]])
// CHECK: affine.apply #{{.*}}(%[[S]])
// CHECK: nisa.matmul %{{.*}}, %{{.*}}, %[[ACC1]] accumulate restart(%[[J]])
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: %[[P:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<1x512xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: nisa.activation <identity> %[[ACC1]], %[[P]] {nisa.core = 1 : i64}
// CHECK-NEXT: %[[H:.*]] = memref.alloc() : memref<1x512xf32, #nisa.memory<hbm>>
// CHECK-NEXT: nisa.dma_copy %[[P]], %[[H]] queue 0 {nisa.core = 1 : i64}
// CHECK-NEXT: %[[R:.*]] = memref.alloc() : memref<1x512xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: nisa.dma_copy %[[H]], %[[R]] queue 0 :
// CHECK-NEXT: nisa.tensor_tensor <add> %[[ACC]], %[[R]], %[[ACC]] :
// CHECK-NEXT: memref.alloc()
// CHECK-NEXT: nisa.activation <identity> %[[ACC]]
// expected-remark@+1 {{nisa-split-cores: 1 of 1 loop nests split over 2 physical cores}}
func.func @split_sum(%x: memref<4096x1xbf16, #hbm>, %w: memref<4096x512xbf16, #hbm>, %out: memref<1x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %acc = memref.alloc() : memref<1x512xf32, #psum>
  affine.for %k = 0 to 32 {
    %r = affine.apply #rows(%k)
    %xs = memref.subview %x[%r, 0] [128, 1] [1, 1] : memref<4096x1xbf16, #hbm> to memref<128x1xbf16, strided<[1, 1], offset: ?>, #hbm>
    %ws = memref.subview %w[%r, 0] [128, 512] [1, 1] : memref<4096x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x1xbf16, #sbuf>
    %wt = memref.alloc() : memref<128x512xbf16, #sbuf>
    nisa.dma_copy %xs, %xt queue 0 : memref<128x1xbf16, strided<[1, 1], offset: ?>, #hbm>, memref<128x1xbf16, #sbuf>
    nisa.dma_copy %ws, %wt queue 1 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %xt, %wt, %acc accumulate restart(%k) : memref<128x1xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<1x512xf32, #psum>
  }
  %o = memref.alloc() : memref<1x512xf32, #sbuf>
  nisa.activation <identity> %acc, %o : memref<1x512xf32, #psum>, memref<1x512xf32, #sbuf>
  nisa.dma_copy %o, %out queue 2 : memref<1x512xf32, #sbuf>, memref<1x512xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests sums kept on core 0: a short one, where sending the partial sum
// would cost more than half the nest; one whose nest also stores each
// iteration; one whose tile the nest reads besides the matmul.
// CHECK-LABEL: func.func @sums_kept
// CHECK-NOT: nisa.core
// CHECK-NOT: nisa.split
// expected-remark@+1 {{nisa-split-cores: 0 of 3 loop nests split over 2 physical cores}}
func.func @sums_kept(%x: memref<256x1xbf16, #hbm>, %w: memref<256x8xbf16, #hbm>, %out: memref<256x8xf32, #hbm>) attributes {nisa.limits = #limits} {
  %acc = memref.alloc() : memref<1x8xf32, #psum>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: summing its parts on 2 physical cores is predicted no faster}}
  affine.for %k = 0 to 2 {
    %r = affine.apply #rows(%k)
    %xs = memref.subview %x[%r, 0] [128, 1] [1, 1] : memref<256x1xbf16, #hbm> to memref<128x1xbf16, strided<[1, 1], offset: ?>, #hbm>
    %ws = memref.subview %w[%r, 0] [128, 8] [1, 1] : memref<256x8xbf16, #hbm> to memref<128x8xbf16, strided<[8, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x1xbf16, #sbuf>
    %wt = memref.alloc() : memref<128x8xbf16, #sbuf>
    nisa.dma_copy %xs, %xt queue 0 : memref<128x1xbf16, strided<[1, 1], offset: ?>, #hbm>, memref<128x1xbf16, #sbuf>
    nisa.dma_copy %ws, %wt queue 1 : memref<128x8xbf16, strided<[8, 1], offset: ?>, #hbm>, memref<128x8xbf16, #sbuf>
    nisa.matmul %xt, %wt, %acc accumulate restart(%k) : memref<128x1xbf16, #sbuf>, memref<128x8xbf16, #sbuf>, memref<1x8xf32, #psum>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it writes HBM while it sums over its outermost loop}}
  affine.for %k = 0 to 2 {
    %r = affine.apply #rows(%k)
    %ws = memref.subview %w[%r, 0] [128, 8] [1, 1] : memref<256x8xbf16, #hbm> to memref<128x8xbf16, strided<[8, 1], offset: ?>, #hbm>
    %os = memref.subview %out[%r, 0] [128, 8] [1, 1] : memref<256x8xf32, #hbm> to memref<128x8xf32, strided<[8, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x1xbf16, #sbuf>
    %wt = memref.alloc() : memref<128x8xbf16, #sbuf>
    %wf = memref.alloc() : memref<128x8xf32, #sbuf>
    nisa.memset %xt value 1.0 : memref<128x1xbf16, #sbuf>
    nisa.dma_copy %ws, %wt queue 1 : memref<128x8xbf16, strided<[8, 1], offset: ?>, #hbm>, memref<128x8xbf16, #sbuf>
    nisa.matmul %xt, %wt, %acc accumulate restart(%k) : memref<128x1xbf16, #sbuf>, memref<128x8xbf16, #sbuf>, memref<1x8xf32, #psum>
    nisa.activation <identity> %wt, %wf : memref<128x8xbf16, #sbuf>, memref<128x8xf32, #sbuf>
    nisa.dma_copy %wf, %os queue 2 : memref<128x8xf32, #sbuf>, memref<128x8xf32, strided<[8, 1], offset: ?>, #hbm>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it reads the tile it sums into}}
  affine.for %k = 0 to 2 {
    %r = affine.apply #rows(%k)
    %ws = memref.subview %w[%r, 0] [128, 8] [1, 1] : memref<256x8xbf16, #hbm> to memref<128x8xbf16, strided<[8, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x1xbf16, #sbuf>
    %wt = memref.alloc() : memref<128x8xbf16, #sbuf>
    %o = memref.alloc() : memref<1x8xf32, #sbuf>
    nisa.memset %xt value 1.0 : memref<128x1xbf16, #sbuf>
    nisa.dma_copy %ws, %wt queue 1 : memref<128x8xbf16, strided<[8, 1], offset: ?>, #hbm>, memref<128x8xbf16, #sbuf>
    nisa.matmul %xt, %wt, %acc accumulate restart(%k) : memref<128x1xbf16, #sbuf>, memref<128x8xbf16, #sbuf>, memref<1x8xf32, #psum>
    nisa.activation <identity> %acc, %o : memref<1x8xf32, #psum>, memref<1x8xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests how iterations are shared out: each goes to the core that would
// end it first (transfers bound these nests, whose times the estimate
// knows least well: no other share is tried). After a nest of 3 row tiles
// (2 on core 0, 1 on core 1), an independent nest of 6 smaller ones gives
// core 1 four, so both end about together; one reading what the first
// stored starts on both cores once it has ended, 3 and 3.
// CHECK-LABEL: func.func @shared_out
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 1 : i64}
// CHECK: affine.for %{{.*}} = 0 to 4 {
// CHECK-NEXT: affine.apply #[[FROM2:.*]](%{{.*}})
// CHECK: } {nisa.core = 1 : i64, nisa.split = 1 : i64}
// CHECK: affine.for %{{.*}} = 0 to 3 {
// CHECK: } {nisa.split = 2 : i64}
// CHECK: affine.for %{{.*}} = 0 to 3 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 2 : i64}
// expected-remark@+1 {{nisa-split-cores: 3 of 3 loop nests split over 2 physical cores}}
func.func @shared_out(%in: memref<384x64xf32, #hbm>, %mid: memref<384x64xf32, #hbm>, %other: memref<768x32xf32, #hbm>, %out: memref<768x32xf32, #hbm>, %last: memref<768x32xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<384x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %mid[%r, 0] [128, 64] [1, 1] : memref<384x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  affine.for %i = 0 to 6 {
    %x = memref.alloc() : memref<128x32xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %other[%r, 0] [128, 32] [1, 1] : memref<768x32xf32, #hbm> to memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 32] [1, 1] : memref<768x32xf32, #hbm> to memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>, memref<128x32xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x32xf32, #sbuf>, memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>
  }
  %flat = memref.reinterpret_cast %mid to offset: [0], sizes: [768, 32], strides: [32, 1] : memref<384x64xf32, #hbm> to memref<768x32xf32, #hbm>
  affine.for %i = 0 to 6 {
    %x = memref.alloc() : memref<128x32xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %flat[%r, 0] [128, 32] [1, 1] : memref<768x32xf32, #hbm> to memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>
    %dst = memref.subview %last[%r, 0] [128, 32] [1, 1] : memref<768x32xf32, #hbm> to memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>, memref<128x32xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x32xf32, #sbuf>, memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>
#cols = affine_map<(d0) -> (d0 * 64)>

// Tests two nests storing disjoint windows of one result whose spans
// overlap (column blocks of its first rows, then row tiles of its last
// columns, as a matmul's full blocks and its partial last block): the
// second does not wait for the first, whose 3 blocks leave core 1 free
// first, so core 1 takes 2 of the second's 3 row tiles.
// CHECK-LABEL: func.func @disjoint_windows
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK: } {nisa.split = 1 : i64}
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 1 : i64}
// expected-remark@+1 {{nisa-split-cores: 2 of 2 loop nests split over 2 physical cores}}
func.func @disjoint_windows(%in: memref<384x256xf32, #hbm>, %out: memref<384x256xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %c = affine.apply #cols(%i)
    %src = memref.subview %in[0, %c] [128, 64] [1, 1] : memref<384x256xf32, #hbm> to memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[0, %c] [128, 64] [1, 1] : memref<384x256xf32, #hbm> to memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
  }
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 192] [128, 64] [1, 1] : memref<384x256xf32, #hbm> to memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 192] [128, 64] [1, 1] : memref<384x256xf32, #hbm> to memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[256, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests an input loaded after a split nest (a matmul's partial last block
// loading its own resident tile): its loader stays on core 0 after that
// core's share, but core 1 loads its own copy when its own share of the
// first nest ends, not after core 0's load, and takes 2 of the second
// nest's 3 row tiles.
// CHECK-LABEL: func.func @loaded_late
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK: } {nisa.split = 1 : i64}
// CHECK: memref.alloc() {nisa.core = 1 : i64} : memref<128x2xf32, #nisa.memory<sbuf>>
// CHECK: } {nisa.core = 1 : i64}
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 1 : i64}
// expected-remark@+1 {{nisa-split-cores: 2 of 3 loop nests split over 2 physical cores}}
func.func @loaded_late(%w: memref<128x2xf32, #hbm>, %in: memref<384x1024xf32, #hbm>, %a: memref<384x1024xf32, #hbm>, %b: memref<384x1024xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x1024xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 1024] [1, 1] : memref<384x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %dst = memref.subview %a[%r, 0] [128, 1024] [1, 1] : memref<384x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 1 : memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<128x1024xf32, #sbuf>
    nisa.activation <exp> %x, %x : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
  }
  %wt = memref.alloc() : memref<128x2xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %j = 0 to 2 {
    %wj = memref.subview %w[0, %j] [128, 1] [1, 1] : memref<128x2xf32, #hbm> to memref<128x1xf32, strided<[2, 1], offset: ?>, #hbm>
    %tj = memref.subview %wt[0, %j] [128, 1] [1, 1] : memref<128x2xf32, #sbuf> to memref<128x1xf32, strided<[2, 1], offset: ?>, #sbuf>
    nisa.dma_copy %wj, %tj queue 0 : memref<128x1xf32, strided<[2, 1], offset: ?>, #hbm>, memref<128x1xf32, strided<[2, 1], offset: ?>, #sbuf>
  }
  %bias = memref.subview %wt[0, 0] [128, 1] [1, 1] : memref<128x2xf32, #sbuf> to memref<128x1xf32, strided<[2, 1]>, #sbuf>
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x1024xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 1024] [1, 1] : memref<384x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %dst = memref.subview %b[%r, 0] [128, 1024] [1, 1] : memref<384x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 1 : memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<128x1024xf32, #sbuf>
    nisa.activation <exp> %x, %x bias %bias : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, #sbuf>, memref<128x1xf32, strided<[2, 1]>, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>
#half = affine_map<(d0) -> (d0 * 2048)>

// Tests the same with an input whose load takes much longer than the
// nests' row tiles: core 1 pays for its own copy, so the second nest's 6
// row tiles are shared 3 and 3, not mostly to core 1.
// CHECK-LABEL: func.func @loaded_copy_costs
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 3 {
// CHECK: } {nisa.split = 1 : i64}
// CHECK: memref.alloc() {nisa.core = 1 : i64} : memref<128x4096xf32, #nisa.memory<sbuf>>
// CHECK: } {nisa.core = 1 : i64}
// CHECK: affine.for %{{.*}} = 0 to 3 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 1 : i64}
// expected-remark@+1 {{nisa-split-cores: 2 of 3 loop nests split over 2 physical cores}}
func.func @loaded_copy_costs(%w: memref<128x4096xf32, #hbm>, %in: memref<768x1024xf32, #hbm>, %a: memref<768x1024xf32, #hbm>, %b: memref<768x1024xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x1024xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 1024] [1, 1] : memref<768x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %dst = memref.subview %a[%r, 0] [128, 1024] [1, 1] : memref<768x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 1 : memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<128x1024xf32, #sbuf>
    nisa.activation <exp> %x, %x : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
  }
  %wt = memref.alloc() : memref<128x4096xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %j = 0 to 2 {
    %jc = affine.apply #half(%j)
    %wj = memref.subview %w[0, %jc] [128, 2048] [1, 1] : memref<128x4096xf32, #hbm> to memref<128x2048xf32, strided<[4096, 1], offset: ?>, #hbm>
    %tj = memref.subview %wt[0, %jc] [128, 2048] [1, 1] : memref<128x4096xf32, #sbuf> to memref<128x2048xf32, strided<[4096, 1], offset: ?>, #sbuf>
    nisa.dma_copy %wj, %tj queue 0 : memref<128x2048xf32, strided<[4096, 1], offset: ?>, #hbm>, memref<128x2048xf32, strided<[4096, 1], offset: ?>, #sbuf>
  }
  %bias = memref.subview %wt[0, 0] [128, 1] [1, 1] : memref<128x4096xf32, #sbuf> to memref<128x1xf32, strided<[4096, 1]>, #sbuf>
  affine.for %i = 0 to 6 {
    %x = memref.alloc() : memref<128x1024xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 1024] [1, 1] : memref<768x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %dst = memref.subview %b[%r, 0] [128, 1024] [1, 1] : memref<768x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 1 : memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<128x1024xf32, #sbuf>
    nisa.activation <exp> %x, %x bias %bias : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, #sbuf>, memref<128x1xf32, strided<[4096, 1]>, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>
#cols = affine_map<(d0) -> (d0 * 128)>
#half = affine_map<(d0) -> (d0 * 2048)>

// Tests a nest waiting for a long straight-line load and for a short
// loading nest: core 1 runs its copy of the loading nest while the long
// load is in flight, not after it, so both cores start together and
// share the 4 row tiles 2 and 2.
// CHECK-LABEL: func.func @loaded_beside
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK: memref.alloc() {nisa.core = 1 : i64} : memref<128x4096xf32, #nisa.memory<sbuf>>
// CHECK: } {nisa.core = 1 : i64}
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// expected-remark@+1 {{nisa-split-cores: 1 of 2 loop nests split over 2 physical cores}}
func.func @loaded_beside(%big: memref<128x8192xf32, #hbm>, %w: memref<128x4096xf32, #hbm>, %in: memref<512x1024xf32, #hbm>, %out: memref<512x1024xf32, #hbm>) attributes {nisa.limits = #limits} {
  %bt = memref.alloc() : memref<128x8192xf32, #sbuf>
  nisa.dma_copy %big, %bt queue 3 : memref<128x8192xf32, #hbm>, memref<128x8192xf32, #sbuf>
  %wt = memref.alloc() : memref<128x4096xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %j = 0 to 2 {
    %c = affine.apply #half(%j)
    %wj = memref.subview %w[0, %c] [128, 2048] [1, 1] : memref<128x4096xf32, #hbm> to memref<128x2048xf32, strided<[4096, 1], offset: ?>, #hbm>
    %tj = memref.subview %wt[0, %c] [128, 2048] [1, 1] : memref<128x4096xf32, #sbuf> to memref<128x2048xf32, strided<[4096, 1], offset: ?>, #sbuf>
    nisa.dma_copy %wj, %tj queue 0 : memref<128x2048xf32, strided<[4096, 1], offset: ?>, #hbm>, memref<128x2048xf32, strided<[4096, 1], offset: ?>, #sbuf>
  }
  %bias = memref.subview %wt[0, 0] [128, 1] [1, 1] : memref<128x4096xf32, #sbuf> to memref<128x1xf32, strided<[4096, 1]>, #sbuf>
  %add = memref.subview %bt[0, 0] [128, 1024] [1, 1] : memref<128x8192xf32, #sbuf> to memref<128x1024xf32, strided<[8192, 1]>, #sbuf>
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x1024xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 1024] [1, 1] : memref<512x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 1024] [1, 1] : memref<512x1024xf32, #hbm> to memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 1 : memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>, memref<128x1024xf32, #sbuf>
    nisa.tensor_tensor <add> %x, %add, %x : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, strided<[8192, 1]>, #sbuf>, memref<128x1024xf32, #sbuf>
    nisa.activation <exp> %x, %x bias %bias : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, #sbuf>, memref<128x1xf32, strided<[4096, 1]>, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x1024xf32, #sbuf>, memref<128x1024xf32, strided<[1024, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests an input two nests read (the same weights for two products): core
// 1 loads its copy once, and both its copies read it.
// CHECK-LABEL: func.func @two_readers
// CHECK: %[[W:.*]] = memref.alloc() : memref<128x64xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %{{.*}}, %[[W]]
// CHECK: } {nisa.split = 0 : i64}
// CHECK: %[[W1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x64xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: nisa.dma_copy %{{.*}}, %[[W1]] queue 0 {nisa.core = 1 : i64}
// CHECK: nisa.tensor_tensor <multiply> %{{.*}}, %[[W1]]
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: } {nisa.split = 1 : i64}
// CHECK-NOT: nisa.dma_copy %{{.*}}, %{{.*}} queue 0 {nisa.core = 1 : i64} : memref<128x64xf32, #nisa.memory<hbm>>
// CHECK: nisa.tensor_tensor <add> %{{.*}}, %[[W1]]
// CHECK: } {nisa.core = 1 : i64, nisa.split = 1 : i64}
// expected-remark@+1 {{nisa-split-cores: 2 of 2 loop nests split over 2 physical cores}}
func.func @two_readers(%w: memref<128x64xf32, #hbm>, %in: memref<512x64xf32, #hbm>, %a: memref<512x64xf32, #hbm>, %b: memref<512x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %wt = memref.alloc() : memref<128x64xf32, #sbuf>
  nisa.dma_copy %w, %wt queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %a[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 1 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.tensor_tensor <multiply> %x, %wt, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %b[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 1 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.tensor_tensor <add> %x, %wt, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 2 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests inputs whose HBM is written after they were loaded: core 1 would
// load its copy after the write (its loader's copy goes after core 0's
// nest), so a nest reading the weights %w held before an op overwrites
// them stays on core 0, as does one whose own stores overwrite what its
// input was loaded from.
// CHECK-LABEL: func.func @reloaded_after_write
// CHECK-NOT: nisa.core
// expected-remark@+1 {{nisa-split-cores: 0 of 2 loop nests split over 2 physical cores}}
func.func @reloaded_after_write(%w: memref<128x64xf32, #hbm>, %in: memref<512x64xf32, #hbm>, %out: memref<512x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %wt = memref.alloc() : memref<128x64xf32, #sbuf>
  nisa.dma_copy %w, %wt queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  %other = memref.alloc() : memref<128x64xf32, #sbuf>
  nisa.memset %other value 2.0 : memref<128x64xf32, #sbuf>
  nisa.dma_copy %other, %w queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, #hbm>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 2 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.tensor_tensor <add> %x, %wt, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 3 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  %ot = memref.alloc() : memref<128x64xf32, #sbuf>
  %head = memref.subview %out[0, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1]>, #hbm>
  nisa.dma_copy %head, %ot queue 0 : memref<128x64xf32, strided<[64, 1]>, #hbm>, memref<128x64xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.tensor_tensor <multiply> %ot, %ot, %x : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 3 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests a share that looks ahead: a nest of 3 row tiles through a PSUM
// scratch tile (busiest on the scalar engine), then a nest kept on core 0
// that uses the same tile. It waits for core 0's share of the first only
// (core 1 has its own copy of the tile), so core 0 taking one row tile and
// core 1 two ends the kernel sooner than the other way round, which leaves
// core 1 idle while core 0 runs the second nest.
// CHECK-LABEL: func.func @kept_after
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK-NEXT: affine.apply #{{.*}}(%{{.*}})
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 4 {
// CHECK-NOT: nisa.core
// CHECK: return
// expected-remark@+1 {{nisa-split-cores: 1 of 2 loop nests split over 2 physical cores}}
func.func @kept_after(%in: memref<384x128xf32, #hbm>, %out: memref<384x32xf32, #hbm>, %other: memref<512x128xf32, #hbm>, %last: memref<128x32xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() : memref<128x256xf32, #psum>
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x128xf32, #sbuf>
    %y = memref.alloc() : memref<128x256xf32, #sbuf>
    %z = memref.alloc() : memref<128x256xf32, #sbuf>
    %w = memref.alloc() : memref<128x256xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 128] [1, 1] : memref<384x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 32] [1, 1] : memref<384x32xf32, #hbm> to memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>
    %lo = memref.subview %t[0, 0] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1]>, #psum>
    %hi = memref.subview %t[0, 128] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    %part = memref.subview %w[0, 0] [128, 32] [1, 1] : memref<128x256xf32, #sbuf> to memref<128x32xf32, strided<[256, 1]>, #sbuf>
    nisa.dma_copy %src, %x queue 0 : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #sbuf>
    nisa.transpose %x, %lo : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1]>, #psum>
    nisa.transpose %x, %hi : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    nisa.activation <identity> %t, %y : memref<128x256xf32, #psum>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %y, %z : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %z, %w : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.dma_copy %part, %dst queue 1 : memref<128x32xf32, strided<[256, 1]>, #sbuf>, memref<128x32xf32, strided<[32, 1], offset: ?>, #hbm>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: its iterations touch the same HBM elements}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x128xf32, #sbuf>
    %y = memref.alloc() : memref<128x256xf32, #sbuf>
    %z = memref.alloc() : memref<128x256xf32, #sbuf>
    %w = memref.alloc() : memref<128x256xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %other[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %lo = memref.subview %t[0, 0] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1]>, #psum>
    %hi = memref.subview %t[0, 128] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    %part = memref.subview %w[0, 0] [128, 32] [1, 1] : memref<128x256xf32, #sbuf> to memref<128x32xf32, strided<[256, 1]>, #sbuf>
    nisa.dma_copy %src, %x queue 0 : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #sbuf>
    nisa.transpose %x, %lo : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1]>, #psum>
    nisa.transpose %x, %hi : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    nisa.activation <identity> %t, %y : memref<128x256xf32, #psum>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %y, %z : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %z, %w : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.dma_copy %part, %last queue 1 : memref<128x32xf32, strided<[256, 1]>, #sbuf>, memref<128x32xf32, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests the same two nests bound by their transfers (each row tile loads
// and stores far more than it computes): their estimate is the least
// reliable, so the first nest keeps the share that ends it first, two row
// tiles on core 0 and one on core 1.
// CHECK-LABEL: func.func @kept_after_transfers
// CHECK: affine.for %{{.*}} = 0 to 2 {
// CHECK: } {nisa.split = 0 : i64}
// CHECK: affine.for %{{.*}} = 0 to 1 {
// CHECK: } {nisa.core = 1 : i64, nisa.split = 0 : i64}
// expected-remark@+1 {{nisa-split-cores: 1 of 2 loop nests split over 2 physical cores}}
func.func @kept_after_transfers(%in: memref<384x128xf32, #hbm>, %out: memref<384x256xf32, #hbm>, %other: memref<512x128xf32, #hbm>, %last: memref<128x256xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() : memref<128x256xf32, #psum>
  affine.for %i = 0 to 3 {
    %x = memref.alloc() : memref<128x128xf32, #sbuf>
    %y = memref.alloc() : memref<128x256xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 128] [1, 1] : memref<384x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 256] [1, 1] : memref<384x256xf32, #hbm> to memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
    %lo = memref.subview %t[0, 0] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1]>, #psum>
    %hi = memref.subview %t[0, 128] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    nisa.dma_copy %src, %x queue 0 : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #sbuf>
    nisa.transpose %x, %lo : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1]>, #psum>
    nisa.transpose %x, %hi : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    nisa.activation <identity> %t, %y : memref<128x256xf32, #psum>, memref<128x256xf32, #sbuf>
    nisa.dma_copy %y, %dst queue 1 : memref<128x256xf32, #sbuf>, memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: its iterations touch the same HBM elements}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x128xf32, #sbuf>
    %y = memref.alloc() : memref<128x256xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %other[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    %lo = memref.subview %t[0, 0] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1]>, #psum>
    %hi = memref.subview %t[0, 128] [128, 128] [1, 1] : memref<128x256xf32, #psum> to memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    nisa.dma_copy %src, %x queue 0 : memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>, memref<128x128xf32, #sbuf>
    nisa.transpose %x, %lo : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1]>, #psum>
    nisa.transpose %x, %hi : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[256, 1], offset: 128>, #psum>
    nisa.activation <identity> %t, %y : memref<128x256xf32, #psum>, memref<128x256xf32, #sbuf>
    nisa.dma_copy %y, %last queue 1 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#cols = affine_map<(d0) -> (d0 * 8)>

// Tests a nest too small to pay for core 1's copies of its input: a row of
// 32 elements filled from one loaded element and stored in four pieces
// (as a kernel's first nest writing a length mask) stays on core 0.
// CHECK-LABEL: func.func @tiny_after_loads
// CHECK-NOT: nisa.core = 1
// CHECK: return
// expected-remark@+1 {{nisa-split-cores: 1 of 1 loop nests split over 2 physical cores}}
func.func @tiny_after_loads(%n: memref<1x1xf32, #hbm>, %out: memref<1x32xf32, #hbm>) attributes {nisa.limits = #limits} {
  %s = memref.alloc() : memref<1x1xf32, #sbuf>
  nisa.dma_copy %n, %s queue 0 : memref<1x1xf32, #hbm>, memref<1x1xf32, #sbuf>
  %row = memref.alloc() : memref<1x8xf32, #sbuf>
  nisa.memset %row value 1.0 : memref<1x8xf32, #sbuf>
  nisa.tensor_scalar <multiply> %row, %row scalars %s : memref<1x8xf32, #sbuf>, memref<1x8xf32, #sbuf>, memref<1x1xf32, #sbuf>
  affine.for %i = 0 to 4 {
    %c = affine.apply #cols(%i)
    %dst = memref.subview %out[0, %c] [1, 8] [1, 1] : memref<1x32xf32, #hbm> to memref<1x8xf32, strided<[32, 1], offset: ?>, #hbm>
    nisa.dma_copy %row, %dst queue 1 : memref<1x8xf32, #sbuf>, memref<1x8xf32, strided<[32, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests nests their iterations do not split run whole on another core: a
// matmul's two column tiles (as of a 128x512x1024 one), each summing over
// K into a PSUM tile made outside its nest, then copied out and stored.
// The first nest, with its copy and its store, runs on core 1 with tiles
// of its own and its own load of the stationary tile, where the store
// was; the second stays on core 0. The moved nest's tiles made outside
// it are gone from core 0.
// CHECK-LABEL: func.func @whole
// CHECK-SAME: nisa.cores = 2 : i64
// CHECK: %[[ST:.*]] = memref.alloc() : memref<128x128xbf16, #nisa.memory<sbuf>>
// CHECK-NEXT: nisa.dma_copy %{{.*}}, %[[ST]] queue 0 :
// CHECK-NEXT: %[[ACC:.*]] = memref.alloc() : memref<128x512xf32, #nisa.memory<psum>>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK-NOT: memref.alloc() : memref<128x512xf32
// CHECK: %[[ST1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x128xbf16, #nisa.memory<sbuf>>
// CHECK-NEXT: nisa.dma_copy %{{.*}}, %[[ST1]] queue 0 {nisa.core = 1 : i64}
// CHECK-NEXT: %[[ACC1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x512xf32, #nisa.memory<psum>>
// CHECK-NEXT: %[[OUT1:.*]] = memref.alloc() {nisa.core = 1 : i64} : memref<128x512xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: affine.for
// CHECK: nisa.matmul %[[ST1]], %{{.*}}, %[[ACC1]] accumulate
// CHECK: } {nisa.core = 1 : i64}
// CHECK-NEXT: nisa.activation <identity> %[[ACC1]], %[[OUT1]] {nisa.core = 1 : i64}
// CHECK: nisa.dma_copy %[[OUT1]], %{{.*}} queue 2 {nisa.core = 1 : i64}
// CHECK-NEXT: affine.for
// CHECK: nisa.matmul %[[ST]], %{{.*}}, %[[ACC]] accumulate
// CHECK: }
// CHECK-NEXT: nisa.activation <identity> %[[ACC]], %[[OUT]] :
// CHECK: nisa.dma_copy %[[OUT]], %{{.*}} queue 2 :
// CHECK-NEXT: return
// expected-remark@+1 {{nisa-split-cores: 0 of 2 loop nests split over 2 physical cores, 1 run whole on another}}
func.func @whole(%w: memref<128x128xbf16, #hbm>, %x: memref<512x1024xbf16, #hbm>, %out: memref<128x1024xf32, #hbm>) attributes {nisa.limits = #limits} {
  %st = memref.alloc() : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %w, %st queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  %acc0 = memref.alloc() : memref<128x512xf32, #psum>
  %o0 = memref.alloc() : memref<128x512xf32, #sbuf>
  %acc1 = memref.alloc() : memref<128x512xf32, #psum>
  %o1 = memref.alloc() : memref<128x512xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 1 whole, with the 2 instructions after it using its tiles (summing its parts on 2 physical cores is predicted no faster)}}
  affine.for %k = 0 to 4 {
    %r = affine.apply #rows(%k)
    %xs = memref.subview %x[%r, 0] [128, 512] [1, 1] : memref<512x1024xbf16, #hbm> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x512xbf16, #sbuf>
    nisa.dma_copy %xs, %xt queue 1 : memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %st, %xt, %acc0 accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  }
  nisa.activation <identity> %acc0, %o0 : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  %d0 = memref.subview %out[0, 0] [128, 512] [1, 1] : memref<128x1024xf32, #hbm> to memref<128x512xf32, strided<[1024, 1]>, #hbm>
  nisa.dma_copy %o0, %d0 queue 2 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[1024, 1]>, #hbm>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: summing its parts on 2 physical cores is predicted no faster}}
  affine.for %k = 0 to 4 {
    %r = affine.apply #rows(%k)
    %xs = memref.subview %x[%r, 512] [128, 512] [1, 1] : memref<512x1024xbf16, #hbm> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x512xbf16, #sbuf>
    nisa.dma_copy %xs, %xt queue 1 : memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %st, %xt, %acc1 accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  }
  nisa.activation <identity> %acc1, %o1 : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  %d1 = memref.subview %out[0, 512] [128, 512] [1, 1] : memref<128x1024xf32, #hbm> to memref<128x512xf32, strided<[1024, 1], offset: 512>, #hbm>
  nisa.dma_copy %o1, %d1 queue 2 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[1024, 1], offset: 512>, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests a nest whose copy out of PSUM comes after an instruction it does
// not share a tile with, which overwrites rows the nest reads: run whole
// elsewhere with its copy and store, the nest would pass that store. It
// stays on core 0, its copy after the store; the second nest, its copy and
// store right after it, runs whole on core 1.
// CHECK-LABEL: func.func @whole_apart
// CHECK: nisa.matmul
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 3 :
// CHECK: nisa.activation <identity> %{{.*}}, %{{.*}} :
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 2 :
// CHECK: } {nisa.core = 1 : i64}
// expected-remark@+1 {{nisa-split-cores: 0 of 2 loop nests split over 2 physical cores, 1 run whole on another}}
func.func @whole_apart(%w: memref<128x128xbf16, #hbm>, %x: memref<512x1024xbf16, #hbm>, %out: memref<128x1024xf32, #hbm>) attributes {nisa.limits = #limits} {
  %st = memref.alloc() : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %w, %st queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  %acc0 = memref.alloc() : memref<128x512xf32, #psum>
  %o0 = memref.alloc() : memref<128x512xf32, #sbuf>
  %acc1 = memref.alloc() : memref<128x512xf32, #psum>
  %o1 = memref.alloc() : memref<128x512xf32, #sbuf>
  %z = memref.alloc() : memref<128x512xbf16, #sbuf>
  nisa.memset %z value 0.0 : memref<128x512xbf16, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: summing its parts on 2 physical cores is predicted no faster}}
  affine.for %k = 0 to 4 {
    %r = affine.apply #rows(%k)
    %xs = memref.subview %x[%r, 0] [128, 512] [1, 1] : memref<512x1024xbf16, #hbm> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x512xbf16, #sbuf>
    nisa.dma_copy %xs, %xt queue 1 : memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %st, %xt, %acc0 accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  }
  %over = memref.subview %x[0, 0] [128, 512] [1, 1] : memref<512x1024xbf16, #hbm> to memref<128x512xbf16, strided<[1024, 1]>, #hbm>
  nisa.dma_copy %z, %over queue 3 : memref<128x512xbf16, #sbuf>, memref<128x512xbf16, strided<[1024, 1]>, #hbm>
  nisa.activation <identity> %acc0, %o0 : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  %d0 = memref.subview %out[0, 0] [128, 512] [1, 1] : memref<128x1024xf32, #hbm> to memref<128x512xf32, strided<[1024, 1]>, #hbm>
  nisa.dma_copy %o0, %d0 queue 2 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[1024, 1]>, #hbm>
  // expected-remark@+1 {{nisa-split-cores: on physical core 1 whole, with the 2 instructions after it using its tiles (summing its parts on 2 physical cores is predicted no faster)}}
  affine.for %k = 0 to 4 {
    %r = affine.apply #rows(%k)
    %xs = memref.subview %x[%r, 512] [128, 512] [1, 1] : memref<512x1024xbf16, #hbm> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x512xbf16, #sbuf>
    nisa.dma_copy %xs, %xt queue 1 : memref<128x512xbf16, strided<[1024, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
    nisa.matmul %st, %xt, %acc1 accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  }
  nisa.activation <identity> %acc1, %o1 : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  %d1 = memref.subview %out[0, 512] [128, 512] [1, 1] : memref<128x1024xf32, #hbm> to memref<128x512xf32, strided<[1024, 1], offset: 512>, #hbm>
  nisa.dma_copy %o1, %d1 queue 2 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[1024, 1], offset: 512>, #hbm>
  return
}
