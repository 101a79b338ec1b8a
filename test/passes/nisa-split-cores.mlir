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

// Tests the nests left on core 0: one summing into a tile made outside
// it, one storing every iteration to the same rows, one reading the rows
// the iteration before stored, and one that runs once.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: nisa.core
// CHECK-NOT: nisa.split
// expected-remark@+1 {{nisa-split-cores: 0 of 4 loop nests split over 2 physical cores}}
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
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: its iterations touch the same HBM elements}}
  affine.for %i = 0 to 4 {
    %x = memref.alloc() : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[0, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1]>, #hbm>
    nisa.dma_copy %src, %x queue 0 : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %x, %dst queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1]>, #hbm>
  }
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: its iterations touch the same HBM elements}}
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

// Tests an input whose loader copies it out of PSUM that another op
// filled (a transpose before it): copying the loader alone would copy
// nothing, so the nest reading the input stays on core 0.
// CHECK-LABEL: func.func @loaded_through_psum
// CHECK-NOT: nisa.core
// expected-remark@+1 {{nisa-split-cores: 0 of 1 loop nests split over 2 physical cores}}
func.func @loaded_through_psum(%w: memref<128x128xf32, #hbm>, %out: memref<512x128xf32, #hbm>) attributes {nisa.limits = #limits} {
  %x = memref.alloc() : memref<128x128xf32, #sbuf>
  nisa.dma_copy %w, %x queue 0 : memref<128x128xf32, #hbm>, memref<128x128xf32, #sbuf>
  %p = memref.alloc() : memref<128x128xf32, #psum>
  nisa.transpose %x, %p : memref<128x128xf32, #sbuf>, memref<128x128xf32, #psum>
  %t = memref.alloc() : memref<128x128xf32, #sbuf>
  nisa.tensor_scalar <bypass> %p, %t scalar 0.0 : memref<128x128xf32, #psum>, memref<128x128xf32, #sbuf>
  // expected-remark@+1 {{nisa-split-cores: on physical core 0: it uses an on-chip tile made outside it}}
  affine.for %i = 0 to 4 {
    %y = memref.alloc() : memref<128x128xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %dst = memref.subview %out[%r, 0] [128, 128] [1, 1] : memref<512x128xf32, #hbm> to memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
    nisa.activation <exp> %t, %y : memref<128x128xf32, #sbuf>, memref<128x128xf32, #sbuf>
    nisa.dma_copy %y, %dst queue 1 : memref<128x128xf32, #sbuf>, memref<128x128xf32, strided<[128, 1], offset: ?>, #hbm>
  }
  return
}
