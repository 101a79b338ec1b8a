// RUN: neuron-opt %s -split-input-file -verify-diagnostics --nisa-schedule="target=trn2,lnc=1 summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s
// RUN: not neuron-opt %s -split-input-file --nisa-schedule="target=nope" 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: nisa-schedule: {{.*}}'nope'

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the schedule of a matmul and its evacuation on one physical core of
// trn2 (lnc=1): the two loads (one stream, queue 0) start at once on two
// DMA engines (32 KiB and 16 KiB at 23 B/ns plus 200 ns), the matmul (64
// bf16 columns plus 32 cycles at 2.4 GHz) follows the longer, then the
// activation (64 + 64 cycles at 1.2 GHz) and the store (the other stream,
// queue 1). Nothing overlaps the chain, so predicted time, bound and
// critical path are all 1624.7 + 39.9 + 106.7 + 1624.7 ns; serial adds the
// short load.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: nisa.schedule = #nisa.schedule<predicted_ns = 3395.93{{[0-9]*}} : f64, bound_ns = 3395.93{{[0-9]*}} : f64, critical_path_ns = 3395.93{{[0-9]*}} : f64, serial_ns = 4308.2{{[0-9]*}} : f64, busy_ns = [39.87{{[0-9]*}}, 0.000000e+00, 106.66{{[0-9]*}}, 0.000000e+00, 4161.7{{[0-9]*}}], dma_engines = 16, critical_path = [0, 2, 3, 4]>
// CHECK: nisa.dma_copy %{{.*}}, %[[S:.*]] queue 0 {nisa.time_ns = array<f64: 0.000000e+00, 1624.69{{[0-9]*}}>}
// CHECK: nisa.dma_copy %{{.*}}, %[[M:.*]] queue 0 {nisa.time_ns = array<f64: 0.000000e+00, 912.34{{[0-9]*}}>}
// CHECK: nisa.matmul %[[S]], %[[M]], %{{.*}} {nisa.time_ns = array<f64: 1624.69{{[0-9]*}}, 1664.57{{[0-9]*}}>}
// CHECK: nisa.activation <identity> {{.*}} {nisa.time_ns = array<f64: 1664.57{{[0-9]*}}, 1771.24{{[0-9]*}}>}
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.time_ns = array<f64: 1771.24{{[0-9]*}}, 3395.93{{[0-9]*}}>}
// expected-remark@+1 {{nisa-schedule: 5 instructions, predicted 3395.9 ns, bound 3395.9 ns (tensor 39.9, vector 0.0, scalar 106.7, gpsimd 0.0, dma 260.1 over 16 engines, critical path 3395.9), predicted/bound 1.000, serial 4308.3 ns}}
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
// The stores (two transfers) are the busier stream: queue 0, the load
// queue 1.
// CHECK-LABEL: func.func @independent
// CHECK: nisa.memset %[[F:.*]] value 1.0{{.*}} {nisa.time_ns = array<f64: 0.000000e+00,
// CHECK: nisa.dma_copy %{{.*}}, %[[X:.*]] queue 1 {nisa.time_ns = array<f64: 0.000000e+00,
// CHECK: nisa.dma_copy %[[F]], %{{.*}} queue 0 {nisa.time_ns = array<f64: 106.66
// CHECK: nisa.tensor_tensor <add> %[[X]], %[[X]], %[[Y:.*]] {nisa.time_ns
// CHECK: nisa.tensor_tensor <add> %[[Y]], %[[Y]]
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 0 {nisa.time_ns = array<f64: 1891.36
// expected-remark@+1 {{nisa-schedule: 6 instructions}}
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
// engines move side by side: 256 KiB takes 11.4 us on one engine, 13
// pieces of 10 rows (the last 8) each 1.09 us. The activation waits for
// them all; the store is cut alike, on the stores' queue.
// CHECK-LABEL: func.func @split
// CHECK-COUNT-12: nisa.dma_copy {{.*}} queue 0 {nisa.time_ns = array<f64: 0.000000e+00, 1090.43{{[0-9]*}}>} : memref<10x512xf32
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 0 {nisa.time_ns = array<f64: 0.000000e+00, 912.34{{[0-9]*}}>} : memref<8x512xf32
// CHECK-NEXT: nisa.activation <exp> {{.*}} {nisa.time_ns = array<f64: 1090.43{{[0-9]*}}, 1570.43{{[0-9]*}}>}
// CHECK-COUNT-12: nisa.dma_copy {{.*}} queue 1 {nisa.time_ns = array<f64: 1570.43{{[0-9]*}}, 2660.86{{[0-9]*}}>}
// CHECK-NEXT: nisa.dma_copy {{.*}} queue 1
// CHECK-NEXT: return
// expected-remark@+1 {{nisa-schedule: 27 instructions, predicted 2660.9 ns}}
func.func @split(%in: memref<128x512xf32, #hbm>, %out: memref<128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #sbuf>
  nisa.activation <exp> %x, %y : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.dma_copy %y, %out queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#tile = affine_map<(d0) -> (d0 * 128)>

// Tests the queues of a kernel's streams and the pipelines of its loops.
// The prefetch nest is a region of one stream (queue 0). In the matmul
// nest the stores (two of 256 KiB) outweigh the tile loads (four of 32
// KiB): stores on queue 0, loads on queue 1, so a store waiting for the
// engines never holds back the next row's loads. The long transfers are
// cut into pieces the DMA engines move side by side: the prefetch's
// 128 KiB loads into 7, the stores into 13. The prefetch loop's interval
// is its pieces' engine time over the 16 DMA engines (6 x 1045.9 +
// 823.3 ns), its latency one piece; the inner loop's interval is its
// matmul (512 bf16 columns plus 32 cycles at 2.4 GHz), its latency a load
// and a matmul.
// CHECK-LABEL: func.func @streams
// CHECK: affine.for
// CHECK-COUNT-7: nisa.dma_copy {{.*}} queue 0 :
// CHECK: } {nisa.pipeline = #nisa.pipeline<interval_ns = 443.67{{[0-9]*}} : f64, latency_ns = 1045.91{{[0-9]*}} : f64, predicted_ns = 1489.58{{[0-9]*}} : f64>}
// CHECK: affine.for
// CHECK: affine.for
// CHECK: nisa.dma_copy {{.*}} queue 1 :
// CHECK: nisa.matmul
// CHECK: } {nisa.pipeline = #nisa.pipeline<interval_ns = 225.70{{[0-9]*}} : f64, latency_ns = 1850.39{{[0-9]*}} : f64, predicted_ns = 2076.10{{[0-9]*}} : f64>}
// CHECK: nisa.activation
// CHECK-COUNT-13: nisa.dma_copy {{.*}} queue 0 :
// CHECK: } {nisa.pipeline = #nisa.pipeline<interval_ns = {{[0-9.e+]+}} : f64, latency_ns = {{[0-9.e+]+}} : f64, predicted_ns = {{[0-9.e+]+}} : f64>}
// expected-remark@+1 {{nisa-schedule: 23 instructions}}
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
