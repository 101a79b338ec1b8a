// RUN: neuron-opt %s -split-input-file -verify-diagnostics --nisa-verify-sync | FileCheck %s

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a correctly synchronised kernel: it passes unchanged.
// CHECK-LABEL: func.func @ordered
// CHECK: nisa.activation <exp> {{.*}} {nisa.wait = {dma0 = 1 : i64}}
func.func @ordered(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %e = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 {nisa.signal} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  nisa.activation <exp> %x, %e {nisa.wait = {dma0 = 1 : i64}} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a read-after-write race: the activation reads the tile the load
// writes, and nothing makes it wait.
func.func @racy_read(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %e = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  // expected-note@+1 {{the earlier access}}
  nisa.dma_copy %in, %x queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  // expected-error@+1 {{nisa-verify-sync: read-after-write race on SBUF bytes [0, 256) of each partition: this 'nisa.activation' (scalar) reads what 'nisa.dma_copy' (dma0) writes, and no wait orders them}}
  nisa.activation <exp> %x, %e : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a write-after-read race on a partly overlapping tile: the second
// load (on the same queue as the first, so the two writes are ordered)
// overwrites bytes the add still reads, without waiting for the add.
func.func @racy_overwrite(%in: memref<128x64xf32, #hbm>, %in2: memref<128x32xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  %z = memref.alloc() {nisa.address = 128 : i64} : memref<128x32xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 {nisa.signal} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  // expected-note@+1 {{the earlier access}}
  nisa.tensor_tensor <add> %x, %x, %y {nisa.wait = {dma0 = 1 : i64}} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  // expected-error@+1 {{nisa-verify-sync: write-after-read race on SBUF bytes [128, 256) of each partition: this 'nisa.dma_copy' (dma0) writes what 'nisa.tensor_tensor' (vector) reads, and no wait orders them}}
  nisa.dma_copy %in2, %z queue 0 : memref<128x32xf32, #hbm>, memref<128x32xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a write-after-write race between two queues storing to
// overlapping rows of one output.
func.func @racy_stores(%out: memref<192x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %top = memref.subview %out[0, 0] [128, 64] [1, 1] : memref<192x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1]>, #hbm>
  %bottom = memref.subview %out[64, 0] [128, 64] [1, 1] : memref<192x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: 4096>, #hbm>
  // expected-note@+1 {{the earlier access}}
  nisa.dma_copy %x, %top queue 0 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1]>, #hbm>
  // expected-error@+1 {{nisa-verify-sync: write-after-write race on HBM argument 0 elements [4096, 8192): this 'nisa.dma_copy' (dma1) writes what 'nisa.dma_copy' (dma0) writes, and no wait orders them}}
  nisa.dma_copy %x, %bottom queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: 4096>, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a deadlock: the load waits for the activation's signal and the
// activation for the load's, so neither starts.
func.func @deadlock(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64, scalar = 1 : i64}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %e = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  // expected-error@+1 {{nisa-verify-sync: deadlock: this 'nisa.dma_copy' (dma0) waits for 'nisa.activation' (scalar) to signal, which cannot complete before this one does}}
  nisa.dma_copy %in, %x queue 0 {nisa.signal, nisa.wait = {scalar = 1 : i64}} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  // expected-note@+1 {{the awaited instruction}}
  nisa.activation <exp> %x, %e {nisa.signal, nisa.wait = {dma0 = 1 : i64}} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a wait for a count no instruction reaches.
func.func @unreachable_count(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %e = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 {nisa.signal} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  // expected-error@+1 {{nisa-verify-sync: deadlock: this 'nisa.activation' (scalar) waits for semaphore 'dma0' to reach 2, but only 1 instructions signal it}}
  nisa.activation <exp> %x, %e {nisa.wait = {dma0 = 2 : i64}} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a malformed wait.
func.func @bad_wait(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  // expected-error@+1 {{nisa-verify-sync: expected 'nisa.wait' to be a dictionary of unit = count, found [1]}}
  nisa.dma_copy %in, %x queue 0 {nisa.wait = [1]} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  return
}
