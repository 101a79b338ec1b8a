// RUN: neuron-opt %s -split-input-file --nisa-insert-sync --nisa-verify-sync | FileCheck %s

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
// CHECK: nisa.matmul {{.*}} {nisa.signal, nisa.wait = {dma0 = 1 : i64, dma1 = 1 : i64}}
// CHECK: nisa.activation {{.*}} {nisa.signal, nisa.wait = {tensor = 1 : i64}}
// CHECK: nisa.dma_copy {{.*}} queue 2 {nisa.wait = {scalar = 1 : i64}}
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

// Tests that waits implied by transitivity are left out: the second add
// reads the load's tile too, but it already waits for the scalar engine,
// which waited for the load. A second load into the same tile (a
// write-after-read on it) waits only for the last reader on each unit.
// CHECK-LABEL: func.func @transitive
// CHECK-SAME: nisa.semaphores = {dma0 = 1 : i64, scalar = 1 : i64, vector = 1 : i64}
// CHECK: nisa.dma_copy {{.*}} queue 0 {nisa.signal}
// CHECK: nisa.activation <exp> {{.*}} {nisa.signal, nisa.wait = {dma0 = 1 : i64}}
// CHECK: nisa.tensor_tensor <add> {{.*}} {nisa.signal, nisa.wait = {scalar = 1 : i64}} :
// CHECK: nisa.dma_copy {{.*}} queue 1 {nisa.wait = {vector = 1 : i64}}
func.func @transitive(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %e = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 512 : i64} : memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  nisa.activation <exp> %x, %e : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  nisa.tensor_tensor <add> %x, %e, %y : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 1 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  return
}
