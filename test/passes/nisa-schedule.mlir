// RUN: neuron-opt %s -split-input-file -verify-diagnostics --nisa-schedule="target=trn2,lnc=1 summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s
// RUN: not neuron-opt %s -split-input-file --nisa-schedule="target=nope" 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: nisa-schedule: {{.*}}'nope'

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the schedule of a matmul and its evacuation on one physical core of
// trn2 (lnc=1). A transfer costs 200 ns plus its bytes and 224 bytes per
// contiguous run (a partition's row here) at 23 B/ns. Nothing overlaps the
// chain load, matmul, activation, store: its length (5.9 us with whole
// transfers) bounds the kernel, not the DMA engines' work (0.5 us each),
// so each transfer is cut into short pieces the DMA engines move side by
// side, each streaming at least its fixed cost: lhs (128 runs of 256 B,
// 2671 ns of streaming) into 13 pieces of 10 rows (the last 8), 408.7 ns
// each; rhs (128 runs of 128 B, 1959 ns) into 9 of 15 rows (the last 8),
// 429.6 ns. Their 22 pieces on 16 engines end at 817.4 ns: 16 start at 0,
// six more as the first lhs pieces end. The matmul (64 bf16 columns plus
// 32 cycles at 2.4 GHz) follows, then the activation (64 + 64 cycles at
// 1.2 GHz) and the store (queue 15: stores take the queues from the
// last), cut like lhs. The critical path is the longest piece of each
// step, 429.6 + 39.9 + 106.7 + 408.7 ns; the prediction is longer by the
// six pieces that wait for an engine. Serial is every piece one after
// another.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: nisa.schedule = #nisa.schedule<predicted_ns = 1372.63{{[0-9]*}} : f64, bound_ns = 984.8{{[0-9]*}} : f64, critical_path_ns = 984.8{{[0-9]*}} : f64, serial_ns = 14448.1{{[0-9]*}} : f64, busy_ns = [39.87{{[0-9]*}}, 0.000000e+00, 106.66{{[0-9]*}}, 0.000000e+00, 14301.5{{[0-9]*}}], dma_engines = 16
// CHECK-COUNT-8: nisa.dma_copy %{{.*}}, %{{.*}} queue 0 {nisa.time_ns = array<f64: 0.000000e+00, 429.56{{[0-9]*}}>} : memref<15x64xbf16
// CHECK-COUNT-8: nisa.dma_copy %{{.*}}, %{{.*}} queue 0 {nisa.time_ns = array<f64: 0.000000e+00, 408.69{{[0-9]*}}>} : memref<10x128xbf16
// CHECK-COUNT-4: nisa.dma_copy %{{.*}}, %{{.*}} queue 0 {nisa.time_ns = array<f64: 408.69{{[0-9]*}}, 817.39{{[0-9]*}}>} : memref<10x128xbf16
// CHECK-NEXT: nisa.dma_copy %{{.*}}, %{{.*}} queue 0 {nisa.time_ns = array<f64: 408.69{{[0-9]*}}, 775.65{{[0-9]*}}>} : memref<8x128xbf16
// CHECK-NEXT: nisa.dma_copy %{{.*}}, %{{.*}} queue 0 {nisa.time_ns = array<f64: 408.69{{[0-9]*}}, 731.13{{[0-9]*}}>} : memref<8x64xbf16
// CHECK: nisa.matmul {{.*}} {nisa.time_ns = array<f64: 817.39{{[0-9]*}}, 857.27{{[0-9]*}}>}
// CHECK: nisa.activation <identity> {{.*}} {nisa.time_ns = array<f64: 857.27{{[0-9]*}}, 963.93{{[0-9]*}}>}
// CHECK-COUNT-12: nisa.dma_copy {{.*}} queue 15 {nisa.time_ns = array<f64: 963.93{{[0-9]*}}, 1372.63{{[0-9]*}}>} : memref<10x64xf32
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 15 {nisa.time_ns = array<f64: 963.93{{[0-9]*}}, 1330.89{{[0-9]*}}>} : memref<8x64xf32
// expected-remark@+1 {{nisa-schedule: 37 instructions, predicted 1372.6 ns, bound 984.8 ns (tensor 39.9, vector 0.0, scalar 106.7, gpsimd 0.0, dma 893.8 over 16 engines, critical path 984.8), predicted/bound 1.394, serial 14448.1 ns}}
func.func @chain(%a: memref<128x128xbf16, #hbm>, %b: memref<128x64xbf16, #hbm>, %out: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %a, %s queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  %m = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xbf16, #sbuf>
  nisa.dma_copy %b, %m queue 0 : memref<128x64xbf16, #hbm>, memref<128x64xbf16, #sbuf>
  %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #psum>
  nisa.matmul %s, %m, %p : memref<128x128xbf16, #sbuf>, memref<128x64xbf16, #sbuf>, memref<128x64xf32, #psum>
  %r = memref.alloc() {nisa.address = 512 : i64} : memref<128x64xf32, #sbuf>
  nisa.activation <identity> %p, %r : memref<128x64xf32, #psum>, memref<128x64xf32, #sbuf>
  nisa.dma_copy %r, %out queue 0 : memref<128x64xf32, #sbuf>, memref<128x64xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that independent work overlaps: the fill and its store run beside
// the load and the vector chain, and the issue order follows the start
// times. The two stores write disjoint rows of one output, so neither
// waits for the other.
// The load takes queue 0, the stores (two transfers) the last, queue
// 15. The chain bounds the kernel, so each transfer is cut into 13
// short pieces of 10 rows (the last 8): the fill's store starts on the
// three engines the load leaves free.
// CHECK-LABEL: func.func @independent
// CHECK: nisa.memset %{{.*}} value 1.0{{.*}} {nisa.time_ns = array<f64: 0.000000e+00, 106.66
// CHECK-COUNT-13: nisa.dma_copy %{{.*}}, %{{.*}} queue 0 {nisa.time_ns = array<f64: 0.000000e+00,
// CHECK-COUNT-3: nisa.dma_copy %{{.*}}, %{{.*}} queue 15 {nisa.time_ns = array<f64: 106.66
// CHECK: nisa.tensor_tensor <add> %[[X:.*]], %[[X]], %[[Y:.*]] {nisa.time_ns = array<f64: 408.69
// CHECK: nisa.tensor_tensor <add> %[[Y]], %[[Y]]
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 15 {nisa.time_ns = array<f64: 675.36
// expected-remark@+1 {{nisa-schedule: 42 instructions, predicted 1226.1 ns}}
func.func @independent(%in: memref<128x64xf32, #hbm>, %out: memref<256x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  nisa.tensor_tensor <add> %x, %x, %y : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  %z = memref.alloc() {nisa.address = 512 : i64} : memref<128x64xf32, #sbuf>
  nisa.tensor_tensor <add> %y, %y, %z : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  %top = memref.subview %out[0, 0] [128, 64] [1, 1] : memref<256x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1]>, #hbm>
  nisa.dma_copy %z, %top queue 0 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1]>, #hbm>
  %f = memref.alloc() {nisa.address = 768 : i64} : memref<128x64xf32, #sbuf>
  nisa.memset %f value 1.0 : memref<128x64xf32, #sbuf>
  %bottom = memref.subview %out[128, 0] [128, 64] [1, 1] : memref<256x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: 8192>, #hbm>
  nisa.dma_copy %f, %bottom queue 0 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: 8192>, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that a long straight-line transfer is cut into pieces the DMA
// engines move side by side: 256 KiB in 128 runs of 2 KiB takes 12.6 us on
// one engine. The chain load, activation, store bounds the kernel, so it
// is cut into as many pieces as there are engines, 16 of 8 rows, each
// 0.99 us. The activation waits for them all; the store is cut alike, on
// the stores' queue.
// CHECK-LABEL: func.func @split
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 0 {nisa.time_ns = array<f64: 0.000000e+00, 990.26{{[0-9]*}}>} : memref<8x512xf32
// CHECK-NEXT: nisa.activation <exp> {{.*}} {nisa.time_ns = array<f64: 990.26{{[0-9]*}}, 1470.26{{[0-9]*}}>}
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 15 {nisa.time_ns = array<f64: 1470.26{{[0-9]*}}, 2460.52{{[0-9]*}}>}
// CHECK-NEXT: return
// expected-remark@+1 {{nisa-schedule: 33 instructions, predicted 2460.5 ns}}
func.func @split(%in: memref<128x512xf32, #hbm>, %out: memref<128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #sbuf>
  nisa.activation <exp> %x, %y : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.dma_copy %y, %out queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
  return
}

// -----

#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a transfer of two images through a permuted view (attention's
// heads moved ahead of the positions, runs of 64 bf16): it has two rows,
// fewer than the DMA engines, so each row is cut along the next dimension
// too, into 6 pieces of 2 heads: 12 pieces side by side, not 2.
// CHECK-LABEL: func.func @split_rows
// CHECK-COUNT-12: nisa.dma_copy {{.*}} : memref<1x2x384x64xbf16, strided<[294912, 64, 768, 1]{{.*}}>, #nisa.memory<hbm>>, memref<1x2x384x64xbf16, strided<[294912, 24576, 64, 1]{{.*}}>, #nisa.memory<hbm>>
// CHECK-NEXT: return
// expected-remark@+1 {{nisa-schedule: 12 instructions}}
func.func @split_rows(%in: memref<2x384x12x64xbf16, #hbm>, %out: memref<2x12x384x64xbf16, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.transpose %in (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x384x12x64xbf16, #hbm> to memref<2x12x384x64xbf16, strided<[294912, 64, 768, 1]>, #hbm>
  nisa.dma_copy %t, %out queue 0 : memref<2x12x384x64xbf16, strided<[294912, 64, 768, 1]>, #hbm>, memref<2x12x384x64xbf16, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#tile = affine_map<(d0) -> (d0 * 128)>

// Tests the queues of a kernel's streams and the pipelines of its loops.
// The prefetch nest opens the kernel only loading, one stream (queue 0):
// the matmul nest's tile loads take the queue after it (1), so they never
// wait behind the prefetch's, and its stores the last (15), so a store
// waiting for the engines never holds back the next row's loads. The
// dependence chain
// (a prefetch, a tile load, a matmul, the evacuation and a store, with
// whole transfers) is longer than the DMA engines' work, so the transfers
// are cut into short pieces the engines move side by side: the prefetch's
// 128 KiB loads (runs of 1 KiB) into 16 of 8 rows, the tile loads into 13
// of 10 rows (the last 8), the stores into 16. The prefetch loop's
// interval is its pieces' engine time over the 16 DMA engines (16 x 634.1
// ns / 16), its latency one piece; the inner loop's interval is its tile's
// pieces on the DMA engines, longer than its matmul (512 bf16 columns plus
// 32 cycles at 2.4 GHz, 225.7 ns), its latency a load piece and a matmul.
// The matmul nest's data is there when the prefetch's first slice is in
// (634.1 ns), but its loads wait for a DMA engine: the prefetch's pieces
// hold all 16 until 1268.2 ns. It then takes its pipeline's 4083.3 ns:
// 5351.5 ns in all.
// CHECK-LABEL: func.func @streams
// CHECK: affine.for
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 0 : memref<8x512xbf16
// CHECK: } {nisa.pipeline = #nisa.pipeline<interval_ns = 634.08{{[0-9]*}} : f64, latency_ns = 634.08{{[0-9]*}} : f64, predicted_ns = 1268.17{{[0-9]*}} : f64>, nisa.transfer_bound}
// CHECK: affine.for
// CHECK: affine.for
// CHECK-COUNT-12: nisa.dma_copy {{.*}} queue 1 : memref<10x128xbf16
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 1 : memref<8x128xbf16
// CHECK: nisa.matmul
// CHECK: } {nisa.pipeline = #nisa.pipeline<interval_ns = 329.45{{[0-9]*}} : f64, latency_ns = 634.39{{[0-9]*}} : f64, predicted_ns = 963.85{{[0-9]*}} : f64>}
// CHECK: nisa.activation
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 15 :
// CHECK: } {nisa.pipeline = #nisa.pipeline<interval_ns = {{[0-9.e+]+}} : f64, latency_ns = {{[0-9.e+]+}} : f64, predicted_ns = {{[0-9.e+]+}} : f64>, nisa.transfer_bound}
// expected-remark@+1 {{nisa-schedule: 47 instructions, predicted 5351.5 ns}}
func.func @streams(%a: memref<256x256xbf16, #hbm>, %b: memref<256x512xbf16, #hbm>, %out: memref<256x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %w = memref.alloc() {nisa.address = 0 : i64} : memref<128x2x512xbf16, #sbuf>
  affine.for %k = 0 to 2 {
    %row = affine.apply #tile(%k)
    %src = memref.subview %b[%row, 0] [128, 512] [1, 1] : memref<256x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    %dst = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
    nisa.dma_copy %src, %dst queue 0 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
  }
  affine.for %m = 0 to 2 {
    %mrow = affine.apply #tile(%m)
    %p = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #psum>
    affine.for %k = 0 to 2 {
      %krow = affine.apply #tile(%k)
      %t = memref.alloc() {nisa.address = 2048 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x128xbf16, #sbuf>
      %src = memref.subview %a[%krow, %mrow] [128, 128] [1, 1] : memref<256x256xbf16, #hbm> to memref<128x128xbf16, strided<[256, 1], offset: ?>, #hbm>
      nisa.dma_copy %src, %t queue 0 : memref<128x128xbf16, strided<[256, 1], offset: ?>, #hbm>, memref<128x128xbf16, #sbuf>
      %wk = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
      nisa.matmul %t, %wk, %p accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>, memref<128x512xf32, #psum>
    }
    %r = memref.alloc() {nisa.address = 3072 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    nisa.activation <identity> %p, %r : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
    %o = memref.subview %out[%mrow, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %r, %o queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#tile = affine_map<(d0) -> (d0 * 128)>

// Tests a region that only loads after one that computes (@streams behind
// an exp of its own input): the prefetch shares the queues with the nests
// around it, whose contention for the DMA engines the timeline does not
// model, so the matmul nest's tile loads take queue 0 again (its stores
// the last, 15).
// CHECK-LABEL: func.func @streams_mid_kernel
// CHECK: nisa.activation <exp>
// CHECK: affine.for
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 0 : memref<8x512xbf16
// CHECK: affine.for
// CHECK: affine.for
// CHECK-COUNT-12: nisa.dma_copy {{.*}} queue 0 : memref<10x128xbf16
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 0 : memref<8x128xbf16
// CHECK: nisa.matmul
// CHECK: nisa.activation <identity>
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 15 :
// expected-remark@+1 {{nisa-schedule: 74 instructions}}
func.func @streams_mid_kernel(%a: memref<256x256xbf16, #hbm>, %b: memref<256x512xbf16, #hbm>, %out: memref<256x512xf32, #hbm>, %in: memref<128x64xf32, #hbm>, %res: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 8192 : i64} : memref<128x64xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 8448 : i64} : memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  nisa.activation <exp> %x, %y : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  nisa.dma_copy %y, %res queue 0 : memref<128x64xf32, #sbuf>, memref<128x64xf32, #hbm>
  %w = memref.alloc() {nisa.address = 0 : i64} : memref<128x2x512xbf16, #sbuf>
  affine.for %k = 0 to 2 {
    %row = affine.apply #tile(%k)
    %src = memref.subview %b[%row, 0] [128, 512] [1, 1] : memref<256x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
    %dst = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
    nisa.dma_copy %src, %dst queue 0 : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
  }
  affine.for %m = 0 to 2 {
    %mrow = affine.apply #tile(%m)
    %p = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #psum>
    affine.for %k = 0 to 2 {
      %krow = affine.apply #tile(%k)
      %t = memref.alloc() {nisa.address = 2048 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x128xbf16, #sbuf>
      %src = memref.subview %a[%krow, %mrow] [128, 128] [1, 1] : memref<256x256xbf16, #hbm> to memref<128x128xbf16, strided<[256, 1], offset: ?>, #hbm>
      nisa.dma_copy %src, %t queue 0 : memref<128x128xbf16, strided<[256, 1], offset: ?>, #hbm>, memref<128x128xbf16, #sbuf>
      %wk = memref.subview %w[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xbf16, #sbuf> to memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>
      nisa.matmul %t, %wk, %p accumulate restart(%k) : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, strided<[1024, 1], offset: ?>, #sbuf>, memref<128x512xf32, #psum>
    }
    %r = memref.alloc() {nisa.address = 3072 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    nisa.activation <identity> %p, %r : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
    %o = memref.subview %out[%mrow, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %r, %o queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the rate of strided reads within partitions (a convolution's taps
// read from an input tile): elements 8 bytes apart stream at the vector
// engine's full rate, (64 + 64) cycles at 0.96 GHz; 32 bytes apart (over
// the 16 the NKI guide names) at half, (64 + 2 x 16) cycles, whichever
// operand steps so (a pool's max reads its window as the second).
// CHECK-LABEL: func.func @strided_taps
// CHECK: nisa.tensor_scalar <multiply> {{.*}} {nisa.time_ns = array<f64: 0.000000e+00, 99.99{{[0-9]*}}>} : memref<128x8x2xf32, strided<[256, 16, 8]>
// CHECK: nisa.tensor_scalar <multiply> {{.*}} {nisa.time_ns = array<f64: 99.99{{[0-9]*}}, 233.33{{[0-9]*}}>} : memref<128x8x8xf32, strided<[256, 32, 2], offset: 17>
// CHECK: nisa.tensor_tensor <max> {{.*}} {nisa.time_ns = array<f64: 233.33{{[0-9]*}}, 333.33{{[0-9]*}}>}
// expected-remark@+1 {{nisa-schedule: 3 instructions}}
func.func @strided_taps() attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x16x16xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 1024 : i64} : memref<128x8x8xf32, #sbuf>
  %z = memref.alloc() {nisa.address = 2048 : i64} : memref<128x8x2xf32, #sbuf>
  %tap = memref.subview %x[0, 1, 1] [128, 8, 8] [1, 2, 2] : memref<128x16x16xf32, #sbuf> to memref<128x8x8xf32, strided<[256, 32, 2], offset: 17>, #sbuf>
  nisa.tensor_scalar <multiply> %tap, %y scalar 2.0 : memref<128x8x8xf32, strided<[256, 32, 2], offset: 17>, #sbuf>, memref<128x8x8xf32, #sbuf>
  %wide = memref.subview %x[0, 0, 0] [128, 8, 2] [1, 1, 8] : memref<128x16x16xf32, #sbuf> to memref<128x8x2xf32, strided<[256, 16, 8]>, #sbuf>
  nisa.tensor_scalar <multiply> %wide, %z scalar 2.0 : memref<128x8x2xf32, strided<[256, 16, 8]>, #sbuf>, memref<128x8x2xf32, #sbuf>
  nisa.tensor_tensor <max> %z, %wide, %z : memref<128x8x2xf32, #sbuf>, memref<128x8x2xf32, strided<[256, 16, 8]>, #sbuf>, memref<128x8x2xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that a tile view must take whole partitions: every other one is
// not an access pattern an engine has.
func.func @every_other_partition() attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x8xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 64 : i64} : memref<64x8xf32, #sbuf>
  %half = memref.subview %x[0, 0] [64, 8] [2, 1] : memref<128x8xf32, #sbuf> to memref<64x8xf32, strided<[16, 1]>, #sbuf>
  // expected-error@+1 {{expected an on-chip tile of whole partitions from a fixed first partition, its free dimensions stepping forward}}
  nisa.tensor_scalar <multiply> %half, %y scalar 2.0 : memref<64x8xf32, strided<[16, 1]>, #sbuf>, memref<64x8xf32, #sbuf>
  return
}

// -----

#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that a copy of one image (batch 1, as a pad writes its input into
// the padded tensor) is cut along its channels, the first dimension of
// size above 1: 16 pieces of 6 channels, side by side on the 16 engines.
// CHECK-LABEL: func.func @pad_interior
// CHECK-COUNT-16: nisa.dma_copy {{.*}} : memref<1x6x16x16xf32
// CHECK-NOT: nisa.dma_copy
// expected-remark@+1 {{nisa-schedule: 16 instructions, predicted 1402.1 ns}}
func.func @pad_interior(%in: memref<1x96x16x16xf32, #hbm>, %out: memref<1x96x18x18xf32, #hbm>) attributes {nisa.limits = #limits} {
  %window = memref.subview %out[0, 0, 1, 1] [1, 96, 16, 16] [1, 1, 1, 1] : memref<1x96x18x18xf32, #hbm> to memref<1x96x16x16xf32, strided<[31104, 324, 18, 1], offset: 19>, #hbm>
  nisa.dma_copy %in, %window queue 0 : memref<1x96x16x16xf32, #hbm>, memref<1x96x16x16xf32, strided<[31104, 324, 18, 1], offset: 19>, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that a view stepping backwards within a partition is refused.
func.func @backwards() attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x8xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 64 : i64} : memref<128x8xf32, #sbuf>
  %r = memref.reinterpret_cast %x to offset: [7], sizes: [128, 8], strides: [8, -1] : memref<128x8xf32, #sbuf> to memref<128x8xf32, strided<[8, -1], offset: 7>, #sbuf>
  // expected-error@+1 {{expected an on-chip tile of whole partitions from a fixed first partition, its free dimensions stepping forward}}
  nisa.tensor_scalar <multiply> %r, %y scalar 2.0 : memref<128x8xf32, strided<[8, -1], offset: 7>, #sbuf>, memref<128x8xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that a loop body finishing two tiles one after the other, each a
// chain from the scalar engine to the vector engine and back, is reordered
// as the list scheduler issues it: the second tile's first activation goes
// before the first tile's last, so the scalar engine does not wait for the
// vector engine's step of each tile in turn; each chain keeps its order.
// CHECK-LABEL: func.func @interleaved_body
// CHECK:      affine.for
// CHECK-NEXT: nisa.activation <exp> %[[A:[a-z0-9_]+]], %[[A1:[a-z0-9_]+]]
// CHECK-NEXT: nisa.tensor_scalar <multiply> %[[A1]], %[[A2:[a-z0-9_]+]]
// CHECK-NEXT: nisa.activation <exp> %[[B:[a-z0-9_]+]], %[[B1:[a-z0-9_]+]]
// CHECK-NEXT: nisa.tensor_scalar <multiply> %[[B1]], %[[B2:[a-z0-9_]+]]
// CHECK-NEXT: nisa.activation <tanh> %[[A2]], %[[A]]
// CHECK-NEXT: nisa.activation <tanh> %[[B2]], %[[B]]
// expected-remark@+1 {{nisa-schedule: 6 instructions}}
func.func @interleaved_body() attributes {nisa.limits = #limits} {
  %a = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  %a1 = memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #sbuf>
  %a2 = memref.alloc() {nisa.address = 4096 : i64} : memref<128x512xf32, #sbuf>
  %b = memref.alloc() {nisa.address = 6144 : i64} : memref<128x512xf32, #sbuf>
  %b1 = memref.alloc() {nisa.address = 8192 : i64} : memref<128x512xf32, #sbuf>
  %b2 = memref.alloc() {nisa.address = 10240 : i64} : memref<128x512xf32, #sbuf>
  affine.for %i = 0 to 2 {
    nisa.activation <exp> %a, %a1 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    nisa.tensor_scalar <multiply> %a1, %a2 scalar 2.0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    nisa.activation <tanh> %a2, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    nisa.activation <exp> %b, %b1 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    nisa.tensor_scalar <multiply> %b1, %b2 scalar 2.0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    nisa.activation <tanh> %b2, %b : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the order of a loop body of three like chains, each two scalar
// steps, two vector steps and a scalar one. Longest path first, the
// scalar engine would start all three chains before finishing any (each
// chain's first step has the longest path), and each iteration's vector
// steps would bunch behind its scalar ones. Over four iterations on the
// in-order engines that takes 13.3 us; taking each engine's steps in block
// order, each chain's first two steps before the next chain's, 11.2 us: the
// chains are staggered, and the body keeps that order.
// CHECK-LABEL: func.func @staggered_body
// CHECK:      affine.for
// CHECK-NEXT: nisa.activation <exp> %[[A0:[a-z0-9_]+]], %[[A1:[a-z0-9_]+]]
// CHECK-NEXT: nisa.activation <tanh> %[[A1]], %[[A2:[a-z0-9_]+]]
// CHECK-NEXT: nisa.tensor_scalar <multiply> %[[A2]]
// CHECK-NEXT: nisa.activation <exp> %[[B0:[a-z0-9_]+]], %[[B1:[a-z0-9_]+]]
// CHECK-NEXT: nisa.activation <tanh> %[[B1]]
// expected-remark@+1 {{nisa-schedule: 15 instructions}}
func.func @staggered_body() attributes {nisa.limits = #limits} {
  %a0 = memref.alloc() {nisa.address = 0 : i64} : memref<128x256xf32, #sbuf>
  %a1 = memref.alloc() {nisa.address = 1024 : i64} : memref<128x256xf32, #sbuf>
  %a2 = memref.alloc() {nisa.address = 2048 : i64} : memref<128x256xf32, #sbuf>
  %a3 = memref.alloc() {nisa.address = 3072 : i64} : memref<128x256xf32, #sbuf>
  %a4 = memref.alloc() {nisa.address = 4096 : i64} : memref<128x256xf32, #sbuf>
  %a5 = memref.alloc() {nisa.address = 5120 : i64} : memref<128x256xf32, #sbuf>
  %b0 = memref.alloc() {nisa.address = 6144 : i64} : memref<128x256xf32, #sbuf>
  %b1 = memref.alloc() {nisa.address = 7168 : i64} : memref<128x256xf32, #sbuf>
  %b2 = memref.alloc() {nisa.address = 8192 : i64} : memref<128x256xf32, #sbuf>
  %b3 = memref.alloc() {nisa.address = 9216 : i64} : memref<128x256xf32, #sbuf>
  %b4 = memref.alloc() {nisa.address = 10240 : i64} : memref<128x256xf32, #sbuf>
  %b5 = memref.alloc() {nisa.address = 11264 : i64} : memref<128x256xf32, #sbuf>
  %c0 = memref.alloc() {nisa.address = 12288 : i64} : memref<128x256xf32, #sbuf>
  %c1 = memref.alloc() {nisa.address = 13312 : i64} : memref<128x256xf32, #sbuf>
  %c2 = memref.alloc() {nisa.address = 14336 : i64} : memref<128x256xf32, #sbuf>
  %c3 = memref.alloc() {nisa.address = 15360 : i64} : memref<128x256xf32, #sbuf>
  %c4 = memref.alloc() {nisa.address = 16384 : i64} : memref<128x256xf32, #sbuf>
  %c5 = memref.alloc() {nisa.address = 17408 : i64} : memref<128x256xf32, #sbuf>
  affine.for %i = 0 to 8 {
    nisa.activation <exp> %a0, %a1 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <tanh> %a1, %a2 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.tensor_scalar <multiply> %a2, %a3 scalar 2.0 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.tensor_scalar <add> %a3, %a4 scalar 1.0 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %a4, %a5 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %b0, %b1 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <tanh> %b1, %b2 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.tensor_scalar <multiply> %b2, %b3 scalar 2.0 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.tensor_scalar <add> %b3, %b4 scalar 1.0 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %b4, %b5 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %c0, %c1 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <tanh> %c1, %c2 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.tensor_scalar <multiply> %c2, %c3 scalar 2.0 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.tensor_scalar <add> %c3, %c4 scalar 1.0 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
    nisa.activation <exp> %c4, %c5 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#row = affine_map<(d0) -> (d0 * 16)>

// Tests the pieces of a loop's transfer where the scalar engine bounds the
// kernel: a 16 KiB load streams for about 870 ns, one fixed cost four
// times over. In a loop of 2 trips, cutting it into four pieces saves
// 650 ns of fill for 75 ns of engine time, so it is cut; in a loop of 64
// trips the engine time added (2.4 us) outweighs the fill saved, and the
// load stays whole.
// CHECK-LABEL: func.func @short_pieces
// CHECK:       affine.for %{{.*}} = 0 to 2
// CHECK-COUNT-4: nisa.dma_copy {{.*}} : memref<4x256xf32
// CHECK:       affine.for %{{.*}} = 0 to 64
// CHECK-NOT:   memref<4x256xf32
// CHECK:       nisa.dma_copy {{.*}} : memref<16x256xf32
// CHECK:       return
// expected-remark@+1 {{nisa-schedule: 7 instructions}}
func.func @short_pieces(%in: memref<1024x256xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<16x256xf32, #sbuf>
  %a = memref.alloc() {nisa.address = 1024 : i64} : memref<128x2048xf32, #sbuf>
  %b = memref.alloc() {nisa.address = 9216 : i64} : memref<128x2048xf32, #sbuf>
  affine.for %i = 0 to 2 {
    %r = affine.apply #row(%i)
    %src = memref.subview %in[%r, 0] [16, 256] [1, 1] : memref<1024x256xf32, #hbm> to memref<16x256xf32, strided<[256, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<16x256xf32, strided<[256, 1], offset: ?>, #hbm>, memref<16x256xf32, #sbuf>
    nisa.activation <exp> %a, %b : memref<128x2048xf32, #sbuf>, memref<128x2048xf32, #sbuf>
  }
  affine.for %i = 0 to 64 {
    %r = affine.apply #row(%i)
    %src = memref.subview %in[%r, 0] [16, 256] [1, 1] : memref<1024x256xf32, #hbm> to memref<16x256xf32, strided<[256, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<16x256xf32, strided<[256, 1], offset: ?>, #hbm>, memref<16x256xf32, #sbuf>
    nisa.activation <exp> %a, %b : memref<128x2048xf32, #sbuf>, memref<128x2048xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a kernel launched while its first input is still arriving
// (`neuron.input_arrivals_ns`, which neuron-place-collectives gives a
// kernel awaiting a collective): the load of %late is timed from its
// arrival, 5 us in, and the work on %early is issued first; without the
// attribute, %late's load would go first at 0.
// CHECK-LABEL: func.func @arriving
// CHECK: nisa.dma_copy %arg1, %{{.*}} queue 0 {nisa.time_ns = array<f64: 0.000000e+00,
// CHECK: nisa.dma_copy %arg0, %{{.*}} queue 0 {nisa.time_ns = array<f64: 5.000000e+03,
// expected-remark@+1 {{nisa-schedule: 6 instructions, predicted}}
func.func @arriving(%late: memref<1x64xf32, #hbm>, %early: memref<1x64xf32, #hbm>, %o0: memref<1x64xf32, #hbm>, %o1: memref<1x64xf32, #hbm>) attributes {nisa.limits = #limits, neuron.input_arrivals_ns = array<f64: 5000.0, 0.0>} {
  %a = memref.alloc() {nisa.address = 0 : i64} : memref<1x64xf32, #sbuf>
  nisa.dma_copy %late, %a queue 0 : memref<1x64xf32, #hbm>, memref<1x64xf32, #sbuf>
  %b = memref.alloc() {nisa.address = 256 : i64} : memref<1x64xf32, #sbuf>
  nisa.dma_copy %early, %b queue 0 : memref<1x64xf32, #hbm>, memref<1x64xf32, #sbuf>
  %ra = memref.alloc() {nisa.address = 512 : i64} : memref<1x64xf32, #sbuf>
  nisa.activation <exp> %a, %ra : memref<1x64xf32, #sbuf>, memref<1x64xf32, #sbuf>
  nisa.dma_copy %ra, %o0 queue 0 : memref<1x64xf32, #sbuf>, memref<1x64xf32, #hbm>
  %rb = memref.alloc() {nisa.address = 768 : i64} : memref<1x64xf32, #sbuf>
  nisa.activation <exp> %b, %rb : memref<1x64xf32, #sbuf>, memref<1x64xf32, #sbuf>
  nisa.dma_copy %rb, %o1 queue 0 : memref<1x64xf32, #sbuf>, memref<1x64xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that where the transfers bound the kernel, their pieces stay long:
// 40 loads of 24 KiB (128 runs of 192 B, 2315 ns of streaming each) keep
// the 16 DMA engines busy for 6.3 us, longer than the dependence chain
// (one load and its activation, 2.6 us), so each load is cut into two
// pieces of 64 rows, each streaming four times its fixed cost or more,
// not the eleven short ones a chain-bound kernel would take; the nest is
// marked transfer-bound (nisa-insert-sync then holds none of its loads
// back).
// CHECK-LABEL: func.func @throughput
// CHECK: affine.for
// CHECK-COUNT-2: nisa.dma_copy {{.*}} : memref<64x48xf32
// CHECK-NEXT: nisa.activation
// CHECK-NEXT: } {nisa.pipeline = {{.*}}, nisa.transfer_bound}
// expected-remark@+1 {{nisa-schedule: 3 instructions}}
func.func @throughput(%in: memref<40x128x48xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 40 {
    %t = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 192>} : memref<128x48xf32, #sbuf>
    %src = memref.subview %in[%i, 0, 0] [1, 128, 48] [1, 1, 1] : memref<40x128x48xf32, #hbm> to memref<128x48xf32, strided<[48, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x48xf32, strided<[48, 1], offset: ?>, #hbm>, memref<128x48xf32, #sbuf>
    nisa.activation <exp> %t, %t : memref<128x48xf32, #sbuf>, memref<128x48xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the number of pieces of a transfer that bounds its loop: 64 loads
// of 1 MiB (46.8 us of streaming each, 200 ns fixed per piece, 16
// engines). p pieces save a fill of 46.8 x (1 - 1/p) us and add 64 (p - 1)
// x 200 ns / 16 of engine time: 8 pieces save the most (35.4 us; p^2 =
// 46.8 us x 16 / (64 x 200 ns), 58.5), 16 (the most a transfer takes, and
// what taking the most that still save anything gave: the two break even
// at 58.5 pieces) 31.9 us; the 4 slots of the tile keep pace with 5.
// CHECK-LABEL: func.func @most_saved
// CHECK: affine.for
// CHECK-COUNT-8: nisa.dma_copy {{.*}} : memref<16x2048xf32
// CHECK-NEXT: nisa.activation
// expected-remark@+1 {{nisa-schedule: 9 instructions, predicted 198534.8 ns}}
func.func @most_saved(%in: memref<64x128x2048xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 64 {
    %t = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 8192>} : memref<128x2048xf32, #sbuf>
    %src = memref.subview %in[%i, 0, 0] [1, 128, 2048] [1, 1, 1] : memref<64x128x2048xf32, #hbm> to memref<128x2048xf32, strided<[2048, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x2048xf32, strided<[2048, 1], offset: ?>, #hbm>, memref<128x2048xf32, #sbuf>
    nisa.activation <exp> %t, %t : memref<128x2048xf32, #sbuf>, memref<128x2048xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#map = affine_map<(d0) -> (d0 * 128)>

// Tests one iteration of a loop whose transfers' pieces outnumber the DMA
// engines: the two loads' 32 pieces (16 each, 990.3 ns) take two rounds of
// the 16 engines before the add (512 + 64 cycles at 0.96 GHz), so an
// iteration's latency is 2 x 990.3 + 600 ns, not one piece and the add;
// the interval is the pieces' engine time over the engines.
// CHECK-LABEL: func.func @crowded_body
// CHECK: } {nisa.pipeline = #nisa.pipeline<interval_ns = 1980.52{{[0-9]*}} : f64, latency_ns = 2580.52{{[0-9]*}} : f64, predicted_ns = 4561.04{{[0-9]*}} : f64>, nisa.transfer_bound}
// expected-remark@+1 {{nisa-schedule: 33 instructions, predicted 4561.0 ns}}
func.func @crowded_body(%x: memref<256x512xf32, #hbm>, %y: memref<256x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %a = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %b = memref.alloc() {nisa.address = 4096 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %xs = memref.subview %x[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    %ys = memref.subview %y[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %xs, %a queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    nisa.dma_copy %ys, %b queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    nisa.tensor_tensor <add> %a, %b, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#map = affine_map<(d0) -> (d0 * 128)>

// Tests that a loop's transfers start after the earlier ones of their
// queue: a queue starts its transfers in order. The loop's loads share
// queue 0 with the row reloaded after the two activations (it overwrites
// what they read), which starts at 1950.3 ns, so the loop starts then,
// although its own data is there from the start: 1950.3 + its pipeline's
// 3961.0 ns, and its share of the engine the row still holds, 18.7 ns
// (without the order, 5030.0 ns in all).
// CHECK-LABEL: func.func @queue_order
// CHECK-SAME: nisa.schedule = #nisa.schedule<predicted_ns = 5929.97
// CHECK: nisa.activation
// CHECK: nisa.activation {{.*}} {nisa.time_ns = array<f64: 1470.26{{[0-9]*}}, 1950.26{{[0-9]*}}>}
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 0 {nisa.time_ns = array<f64: 1950.26{{[0-9]*}},
// CHECK: affine.for
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 0 :
// expected-remark@+1 {{nisa-schedule: 51 instructions, predicted 5930.0 ns}}
func.func @queue_order(%x: memref<128x512xf32, #hbm>, %in: memref<256x512xf32, #hbm>, %out: memref<256x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %a = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %x, %a queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  %row = memref.subview %x[0, 0] [1, 512] [1, 1] : memref<128x512xf32, #hbm> to memref<1x512xf32, strided<[512, 1]>, #hbm>
  %arow = memref.subview %a[0, 0] [1, 512] [1, 1] : memref<128x512xf32, #sbuf> to memref<1x512xf32, strided<[512, 1]>, #sbuf>
  nisa.dma_copy %row, %arow queue 0 : memref<1x512xf32, strided<[512, 1]>, #hbm>, memref<1x512xf32, strided<[512, 1]>, #sbuf>
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %t = memref.alloc() {nisa.address = 2048 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %src = memref.subview %in[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    %dst = memref.subview %out[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %t, %dst queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that a transfer run many times keeps few pieces even where the
// transfers do not bound the kernel (here 40 activations of 4096 elements
// keep the scalar engine busier), but enough for the instances its slots
// let overlap to keep pace. 128 loads of 256 KiB (12.6 us of streaming
// each) are worth at most 7 pieces for the fill they save against the 128
// fixed costs each adds over the 16 engines (12.6 us x 16 / (128 x
// 200 ns)). But the loads rotate through two slots, so two are in flight:
// each is cut until two keep pace with the loop's DMA work per load over
// the 16 engines, 12.6 / (2 x 0.8 - 0.2 us), 9 pieces; not the 15 long
// pieces alone would give.
// CHECK-LABEL: func.func @many_instances
// CHECK: affine.for
// CHECK-COUNT-8: nisa.dma_copy {{.*}} : memref<15x512xf32
// CHECK-NEXT: nisa.dma_copy {{.*}} : memref<8x512xf32
// expected-remark@+1 {{nisa-schedule: 51 instructions}}
func.func @many_instances(%in: memref<128x128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %a = memref.alloc() {nisa.address = 0 : i64} : memref<128x4096xf32, #sbuf>
  nisa.memset %a value 1.0 : memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  affine.for %k = 0 to 128 {
    %t = memref.alloc() {nisa.address = 16384 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %src = memref.subview %in[%k, 0, 0] [1, 128, 512] [1, 1, 1] : memref<128x128x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    nisa.activation <exp> %t, %t : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#cols = affine_map<(d0) -> (d0 * 64)>

// Tests the instances in flight of 512 stores of 32 KiB (2.7 us of
// streaming each), which bound their loop: one fixed cost more per store
// outweighs the fill a piece saves. Each store reading its own part of a
// tile made before the loop (@own_parts) may all be in flight: it stays
// whole. Each reading the one tile (@one_tile), which the instances
// reuse in turn, counts as one in flight at a time: it is cut into the
// most long pieces, 3.
// CHECK-LABEL: func.func @own_parts
// CHECK: affine.for
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.subview
// CHECK-NEXT: memref.subview
// CHECK-NEXT: nisa.dma_copy {{.*}} : memref<128x64xf32
// CHECK-NEXT: }
// expected-remark@+1 {{nisa-schedule: 1 instructions}}
func.func @own_parts(%out: memref<128x32768xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<128x32768xf32, #sbuf>
  affine.for %i = 0 to 512 {
    %c = affine.apply #cols(%i)
    %part = memref.subview %t[0, %c] [128, 64] [1, 1] : memref<128x32768xf32, #sbuf> to memref<128x64xf32, strided<[32768, 1], offset: ?>, #sbuf>
    %dst = memref.subview %out[0, %c] [128, 64] [1, 1] : memref<128x32768xf32, #hbm> to memref<128x64xf32, strided<[32768, 1], offset: ?>, #hbm>
    nisa.dma_copy %part, %dst queue 0 : memref<128x64xf32, strided<[32768, 1], offset: ?>, #sbuf>, memref<128x64xf32, strided<[32768, 1], offset: ?>, #hbm>
  }
  return
}

// CHECK-LABEL: func.func @one_tile
// CHECK: affine.for
// CHECK-COUNT-2: nisa.dma_copy {{.*}} : memref<43x64xf32
// CHECK-NEXT: nisa.dma_copy {{.*}} : memref<42x64xf32
// expected-remark@+1 {{nisa-schedule: 3 instructions}}
func.func @one_tile(%out: memref<128x32768xf32, #hbm>) attributes {nisa.limits = #limits} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  affine.for %i = 0 to 512 {
    %c = affine.apply #cols(%i)
    %dst = memref.subview %out[0, %c] [128, 64] [1, 1] : memref<128x32768xf32, #hbm> to memref<128x64xf32, strided<[32768, 1], offset: ?>, #hbm>
    nisa.dma_copy %t, %dst queue 0 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[32768, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests that a loop nest its engines bound keeps the long pieces however
// often its transfer runs: each of the 128 iterations computes four
// activations of 4096 elements (13.9 us of scalar engine) beside one load
// of 256 KiB (12.6 us of streaming, 0.8 us on each of the 16 engines), so
// an iteration's load is on its critical path, not the engines' pace, and
// is cut into 15 pieces of at least four fixed costs of streaming each;
// the nest is not marked transfer-bound.
// CHECK-LABEL: func.func @engine_bound_nest
// CHECK: affine.for
// CHECK-COUNT-14: nisa.dma_copy {{.*}} : memref<9x512xf32
// CHECK-NEXT: nisa.dma_copy {{.*}} : memref<2x512xf32
// CHECK-NOT: nisa.transfer_bound
// CHECK: return
// expected-remark@+1 {{nisa-schedule: 21 instructions}}
func.func @engine_bound_nest(%in: memref<128x128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %a = memref.alloc() {nisa.address = 0 : i64} : memref<128x4096xf32, #sbuf>
  nisa.memset %a value 1.0 : memref<128x4096xf32, #sbuf>
  affine.for %k = 0 to 128 {
    %t = memref.alloc() {nisa.address = 16384 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %src = memref.subview %in[%k, 0, 0] [1, 128, 512] [1, 1, 1] : memref<128x128x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    nisa.activation <exp> %t, %t : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
    nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
    nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
    nisa.activation <exp> %a, %a : memref<128x4096xf32, #sbuf>, memref<128x4096xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#map = affine_map<(d0) -> (d0 * 128)>

// Tests that a loop's instructions start when each is released, not all
// when the last is: its loads wait for nothing but a DMA engine, free once
// the run's load is in (990.3 ns), while its adds wait for the run's four
// exponentials (to 2910.3). Its first iteration ends with the first add,
// 2910.3 + 600 ns, the second one interval (its load's pieces, 990.3 ns)
// later, 4500.5; the store then takes 990.3: 5490.8 ns (6481.0 with the
// loop started when all it reads is there). The simulator runs it in
// 5101 ns: both loads are in by the first add.
// CHECK-LABEL: func.func @release
// CHECK-SAME: nisa.schedule = #nisa.schedule<predicted_ns = 5490.78
// expected-remark@+1 {{nisa-schedule: 53 instructions, predicted 5490.8 ns}}
func.func @release(%x: memref<128x512xf32, #hbm>, %y: memref<256x512xf32, #hbm>, %out: memref<128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %a = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %x, %a queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %t = memref.alloc() {nisa.address = 2048 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %src = memref.subview %y[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    nisa.tensor_tensor <add> %a, %t, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  }
  nisa.dma_copy %a, %out queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#map = affine_map<(d0) -> (d0 * 128)>

// Tests where loads that wait for nothing move: not ahead of a nest that
// computes (the loop of exponentials), where they would take the DMA
// engines (and queue 0) from its first loads, but ahead of a nest that
// only loads (the block the adds read). The weight's and the bias's loads
// (16 pieces each) so go between the two loops, not to the kernel's
// start.
// CHECK-LABEL: func.func @late_loads
// CHECK: affine.for
// CHECK: nisa.activation <exp>
// CHECK: } {nisa.pipeline
// CHECK-COUNT-32: nisa.dma_copy {{.*}} queue 0 {{.*}} : memref<8x512xf32, strided<[512, 1]{{.*}}>, #nisa.memory<hbm>>, memref<8x512xf32, strided<[512, 1]{{.*}}>, #nisa.memory<sbuf>>
// CHECK-NEXT: affine.for
// CHECK: } {nisa.pipeline
// CHECK-NEXT: nisa.tensor_tensor <add>
// expected-remark@+1 {{nisa-schedule: 99 instructions}}
func.func @late_loads(%x: memref<256x512xf32, #hbm>, %w: memref<128x512xf32, #hbm>, %y: memref<256x512xf32, #hbm>, %bias: memref<128x512xf32, #hbm>, %out: memref<256x512xf32, #hbm>, %o2: memref<128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %t = memref.alloc() {nisa.address = 4096 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %src = memref.subview %y[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    nisa.activation <exp> %t, %t : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    %dst = memref.subview %out[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %t, %dst queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  }
  %blk = memref.alloc() {nisa.address = 0 : i64} : memref<128x2x512xf32, #sbuf>
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %src = memref.subview %x[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    %dst = memref.subview %blk[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xf32, #sbuf> to memref<128x512xf32, strided<[1024, 1], offset: ?>, #sbuf>
    nisa.dma_copy %src, %dst queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, strided<[1024, 1], offset: ?>, #sbuf>
  }
  %wt = memref.alloc() {nisa.address = 12288 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %w, %wt queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  %b = memref.alloc() {nisa.address = 14336 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %bias, %b queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  %blk1 = memref.subview %blk[0, 1, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xf32, #sbuf> to memref<128x512xf32, strided<[1024, 1], offset: 512>, #sbuf>
  nisa.tensor_tensor <add> %blk1, %b, %b : memref<128x512xf32, strided<[1024, 1], offset: 512>, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.tensor_tensor <add> %b, %wt, %b : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.dma_copy %b, %o2 queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#map = affine_map<(d0) -> (d0 * 128)>

// Tests that loads move ahead of a nest that waits for an input arriving
// while the kernel runs (here y, 20 us in: a collective's result): the
// engines would idle until then, so the weight's load goes first.
// CHECK-LABEL: func.func @arriving_nest
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue 0 {{.*}} : memref<8x512xf32, strided<[512, 1]{{.*}}>, #nisa.memory<hbm>>, memref<8x512xf32, strided<[512, 1]{{.*}}>, #nisa.memory<sbuf>>
// CHECK-NEXT: nisa.activation <exp>
// CHECK: affine.for
// expected-remark@+1 {{nisa-schedule: 66 instructions}}
func.func @arriving_nest(%y: memref<256x512xf32, #hbm>, %w: memref<128x512xf32, #hbm>, %out: memref<256x512xf32, #hbm>, %o2: memref<128x512xf32, #hbm>) attributes {nisa.limits = #limits, neuron.input_arrivals_ns = array<f64: 20000.0, 0.0>} {
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %t = memref.alloc() {nisa.address = 4096 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %src = memref.subview %y[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    nisa.activation <exp> %t, %t : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    %dst = memref.subview %out[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %t, %dst queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  }
  %wt = memref.alloc() {nisa.address = 12288 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %w, %wt queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %wt, %wt : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.dma_copy %wt, %o2 queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#map = affine_map<(d0) -> (d0 * 128)>

// Tests that a load a loop nest reads first stays behind a nest that only
// loads (the block), where the one straight-line work reads first moves
// ahead of it (@late_loads): the loop runs after the block's loads anyway,
// and ahead of them the weight's load would only delay them.
// CHECK-LABEL: func.func @block_first
// CHECK: affine.for
// CHECK: } {nisa.pipeline
// CHECK-COUNT-16: nisa.dma_copy {{.*}} queue {{[0-9]+}} {{.*}} : memref<8x512xf32, strided<[512, 1]{{.*}}>, #nisa.memory<hbm>>, memref<8x512xf32, strided<[512, 1]{{.*}}>, #nisa.memory<sbuf>>
// CHECK-NEXT: affine.for
// CHECK: nisa.tensor_tensor <add>
// expected-remark@+1 {{nisa-schedule: 49 instructions}}
func.func @block_first(%x: memref<256x512xf32, #hbm>, %w: memref<128x512xf32, #hbm>, %out: memref<256x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %blk = memref.alloc() {nisa.address = 0 : i64} : memref<128x2x512xf32, #sbuf>
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %src = memref.subview %x[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    %dst = memref.subview %blk[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xf32, #sbuf> to memref<128x512xf32, strided<[1024, 1], offset: ?>, #sbuf>
    nisa.dma_copy %src, %dst queue 0 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, strided<[1024, 1], offset: ?>, #sbuf>
  }
  %wt = memref.alloc() {nisa.address = 8192 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %w, %wt queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %t = memref.alloc() {nisa.address = 10240 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
    %bk = memref.subview %blk[0, %k, 0] [128, 1, 512] [1, 1, 1] : memref<128x2x512xf32, #sbuf> to memref<128x512xf32, strided<[1024, 1], offset: ?>, #sbuf>
    nisa.tensor_tensor <add> %bk, %wt, %t : memref<128x512xf32, strided<[1024, 1], offset: ?>, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    %dst = memref.subview %out[%r, 0] [128, 512] [1, 1] : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %t, %dst queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#map = affine_map<(d0) -> (d0 * 128)>

// Tests a recurrence through the middle of an inner loop: each head's
// exponential (480 ns on the scalar engine) writes the buffer its inner
// loop's four matmuls read, so the next head's waits for the last of those
// matmuls, not for the evacuation and the store after it. The outer
// interval is the exponential, three inner intervals (977.8 ns each) and
// the last iteration's matmul (852.2 ns: 512 f32 columns at 3.93 cycles
// each plus 32, at 2.4 GHz): 4265.5 ns, longer than the tensor engine's
// 3408.8 ns a head. Counted to the inner loop's end it was 5954.5 ns, the
// outer iteration's whole latency. The critical path closes the same way:
// 13766.3 ns, not 17144.4.
// CHECK-LABEL: func.func @mid_loop_recurrence
// CHECK-SAME: critical_path_ns = 13766.3{{[0-9]*}} : f64
// CHECK: } {nisa.pipeline = #nisa.pipeline<interval_ns = 977.76{{[0-9]*}} : f64, latency_ns = 2541.23{{[0-9]*}} : f64, predicted_ns = 5474.52{{[0-9]*}} : f64>}
// CHECK-NEXT: } {nisa.pipeline = #nisa.pipeline<interval_ns = 4265.47{{[0-9]*}} : f64, latency_ns = 5954.52{{[0-9]*}} : f64, predicted_ns = 14485.47{{[0-9]*}} : f64>}
// expected-remark@+1 {{nisa-schedule: 20 instructions, predicted 14965.5 ns}}
func.func @mid_loop_recurrence(%out: memref<3x512x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %a = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  nisa.memset %a value 1.0 : memref<128x512xf32, #sbuf>
  %w = memref.alloc() {nisa.address = 2048 : i64} : memref<128x128xf32, #sbuf>
  nisa.memset %w value 1.0 : memref<128x128xf32, #sbuf>
  %kt = memref.alloc() {nisa.address = 4096 : i64} : memref<128x512xf32, #sbuf>
  affine.for %h = 0 to 3 {
    nisa.activation <exp> %a, %kt : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    affine.for %m = 0 to 4 {
      %row = affine.apply #map(%m)
      %p = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #psum>
      nisa.matmul %w, %kt, %p : memref<128x128xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #psum>
      %r = memref.alloc() {nisa.address = 6144 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x512xf32, #sbuf>
      nisa.tensor_scalar <bypass> %p, %r scalar 0.0 : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
      %o = memref.subview %out[%h, %row, 0] [1, 128, 512] [1, 1, 1] : memref<3x512x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
      nisa.dma_copy %r, %o queue 15 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    }
  }
  return
}
