// RUN: neuron-opt %s -split-input-file -verify-diagnostics --nisa-schedule="target=trn2,lnc=1 summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s
// RUN: not neuron-opt %s -split-input-file --nisa-schedule="target=nope" 2>&1 | FileCheck %s --check-prefix=TARGET

// TARGET: error: nisa-schedule: {{.*}}'nope'

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the schedule of a matmul and its evacuation on one physical core of
// trn2 (lnc=1): the two loads
// start at once on two queues (32 KiB and 128 KiB at 23 B/ns plus 200 ns),
// the matmul (512 bf16 columns plus 32 cycles at 2.4 GHz) follows the
// longer, then the activation (512 + 64 cycles at 1.2 GHz) and the store.
// Nothing overlaps the chain, so predicted time, bound and critical path
// are all 5898.8 + 225.7 + 480 + 11597.6 ns; serial adds the short load.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: nisa.schedule = {bound_ns = 18202.0{{[0-9]*}} : f64, busy_ns = array<f64: 225.70{{[0-9]*}}, 0.000000e+00, {{4.8|479.9}}{{.*}}, 0.000000e+00, 19121.0{{[0-9]*}}>, critical_path = array<i64: 0, 2, 3, 4>, critical_path_ns = 18202.0{{[0-9]*}} : f64, dma_queues = 16 : i64, predicted_ns = 18202.0{{[0-9]*}} : f64, predicted_over_bound = 1.000000e+00 : f64, serial_ns = 19826.7{{[0-9]*}} : f64}
// CHECK: nisa.dma_copy %{{.*}}, %[[M:.*]] queue 0 {nisa.time_ns = array<f64: 0.000000e+00, 5898.78{{[0-9]*}}>}
// CHECK: nisa.dma_copy %{{.*}}, %[[S:.*]] queue 1 {nisa.time_ns = array<f64: 0.000000e+00, 1624.69{{[0-9]*}}>}
// CHECK: nisa.matmul %[[S]], %[[M]], %{{.*}} {nisa.time_ns = array<f64: 5898.78{{[0-9]*}}, 6124.48{{[0-9]*}}>}
// CHECK: nisa.activation <identity> {{.*}} {nisa.time_ns = array<f64: 6124.48{{[0-9]*}}, 6604.48{{[0-9]*}}>}
// CHECK: nisa.dma_copy {{.*}} queue 2 {nisa.time_ns = array<f64: 6604.48{{[0-9]*}}, 18202.0{{[0-9]*}}>}
// expected-remark@+1 {{nisa-schedule: 5 instructions, predicted 18202.1 ns, bound 18202.1 ns (tensor 225.7, vector 0.0, scalar 480.0, gpsimd 0.0, dma 1195.1 over 16 queues, critical path 18202.1), predicted/bound 1.000, serial 19826.7 ns}}
func.func @chain(%a: memref<128x128xbf16, #hbm>, %b: memref<128x512xbf16, #hbm>, %out: memref<128x512xf32, #hbm>) attributes {nisa.limits = #limits} {
  %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %a, %s queue 0 : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  %m = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
  nisa.dma_copy %b, %m queue 0 : memref<128x512xbf16, #hbm>, memref<128x512xbf16, #sbuf>
  %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
  nisa.matmul %s, %m, %p : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
  %r = memref.alloc() {nisa.address = 1280 : i64} : memref<128x512xf32, #sbuf>
  nisa.activation <identity> %p, %r : memref<128x512xf32, #psum>, memref<128x512xf32, #sbuf>
  nisa.dma_copy %r, %out queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
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
// CHECK-LABEL: func.func @independent
// CHECK: nisa.memset %[[F:.*]] value 1.0{{.*}} {nisa.time_ns = array<f64: 0.000000e+00,
// CHECK: nisa.dma_copy %{{.*}}, %[[X:.*]] queue 0 {nisa.time_ns = array<f64: 0.000000e+00,
// CHECK: nisa.dma_copy %[[F]], %{{.*}} queue 1 {nisa.time_ns = array<f64: 106.66
// CHECK: nisa.tensor_tensor <add> %[[X]], %[[X]], %[[Y:.*]] {nisa.time_ns
// CHECK: nisa.tensor_tensor <add> %[[Y]], %[[Y]]
// CHECK: nisa.dma_copy %{{.*}}, %{{.*}} queue 2 {nisa.time_ns = array<f64: 1891.36
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
