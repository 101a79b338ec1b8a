// RUN: neuron-opt %s -split-input-file -verify-diagnostics --nisa-verify-sync | FileCheck %s

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a correctly synchronised kernel: it passes unchanged.
// CHECK-LABEL: func.func @ordered
// CHECK: nisa.activation <exp> {{.*}} {nisa.wait = [#nisa.wait<unit = "dma0", count = 1>]}
func.func @ordered(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %e = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 {nisa.signal} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  nisa.activation <exp> %x, %e {nisa.wait = [#nisa.wait<unit = "dma0", count = 1>]} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
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
  // expected-error@+1 {{nisa-verify-sync: read-after-write race on SBUF bytes [0, 256) of each partition: this 'nisa.activation' (scalar) reads what 'nisa.dma_copy' (dma0) writes, and no wait orders them (it needs dma0 at 1)}}
  nisa.activation <exp> %x, %e : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a write-after-read race on a partly overlapping tile: the second
// load (waiting for the first, so the two writes are ordered) overwrites
// bytes the add still reads, without waiting for the add.
func.func @racy_overwrite(%in: memref<128x64xf32, #hbm>, %in2: memref<128x32xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %y = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  %z = memref.alloc() {nisa.address = 128 : i64} : memref<128x32xf32, #sbuf>
  nisa.dma_copy %in, %x queue 0 {nisa.signal} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  // expected-note@+1 {{the earlier access}}
  nisa.tensor_tensor <add> %x, %x, %y {nisa.wait = [#nisa.wait<unit = "dma0", count = 1>]} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  // expected-error@+1 {{nisa-verify-sync: write-after-read race on SBUF bytes [128, 256) of each partition: this 'nisa.dma_copy' (dma0) writes what 'nisa.tensor_tensor' (vector) reads, and no wait orders them (it needs vector at 1)}}
  nisa.dma_copy %in2, %z queue 0 {nisa.wait = [#nisa.wait<unit = "dma0", count = 1>]} : memref<128x32xf32, #hbm>, memref<128x32xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a write-after-write race between two transfers of one queue: a
// queue moves several transfers at once, so program order alone does not
// order them.
func.func @same_queue_overwrite(%in: memref<128x64xf32, #hbm>, %in2: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  // expected-note@+1 {{the earlier access}}
  nisa.dma_copy %in, %x queue 0 {nisa.signal} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  // expected-error@+1 {{nisa-verify-sync: write-after-write race on SBUF bytes [0, 256) of each partition: this 'nisa.dma_copy' (dma0) writes what 'nisa.dma_copy' (dma0) writes, and no wait orders them (it needs dma0 at 1)}}
  nisa.dma_copy %in2, %x queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
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
  // expected-error@+1 {{nisa-verify-sync: write-after-write race on HBM argument 0 elements [4096, 8192): this 'nisa.dma_copy' (dma1) writes what 'nisa.dma_copy' (dma0) writes, and no wait orders them (it needs dma0 at 1)}}
  nisa.dma_copy %x, %bottom queue 1 : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: 4096>, #hbm>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a deadlock: the load waits for the activation's signal and the
// activation for the load's, so neither starts. The load's wait names a
// count its unit reaches only after it in program order.
func.func @deadlock(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64, scalar = 1 : i64}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  %e = memref.alloc() {nisa.address = 256 : i64} : memref<128x64xf32, #sbuf>
  // expected-error@+1 {{nisa-verify-sync: deadlock: this 'nisa.dma_copy' (dma0) waits for scalar to reach 1, but scalar signals only 0 times before it in program order}}
  nisa.dma_copy %in, %x queue 0 {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar", count = 1>]} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  nisa.activation <exp> %x, %e {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>]} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
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
  // expected-error@+1 {{nisa-verify-sync: deadlock: this 'nisa.activation' (scalar) waits for dma0 to reach 2, but dma0 signals only 1 times before it in program order}}
  nisa.activation <exp> %x, %e {nisa.wait = [#nisa.wait<unit = "dma0", count = 2>]} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a malformed wait: the dialect checks what each nisa attribute
// holds.
func.func @bad_wait(%in: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {}} {
  %x = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
  // expected-error@+1 {{expected 'nisa.wait' to be an array of #nisa.wait on an instruction, found {dma0 = 1 : i64}}}
  nisa.dma_copy %in, %x queue 0 {nisa.wait = {dma0 = 1 : i64}} : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests a deadlock across iterations: the activation waits for two loads
// per iteration, but each iteration has one, so from iteration 1 on it
// waits for a load that comes after it.
func.func @deadlock_across_iterations(%in: memref<512x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 4 : i64}} {
  affine.for %i = 0 to 4 {
    %x = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x64xf32, #sbuf>
    %y = memref.alloc() {nisa.address = 1024 : i64, nisa.slots = #nisa.slots<count = 4, bytes = 256>} : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %x queue 0 {nisa.signal} : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    // expected-error@+1 {{nisa-verify-sync: deadlock: this 'nisa.activation' (scalar) at iteration [3] waits for dma0 to reach 7, but dma0 signals only 4 times before it in program order}}
    nisa.activation <exp> %x, %y {nisa.wait = [#nisa.wait<unit = "dma0", count = 1, per_iteration = [2]>]} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 128)>

// Tests a race when a rotating tile has too few slots: the waits were
// made for two slots per tile (a load waits for the activation two
// iterations back), but the loaded tile has one, so load i overwrites the
// slot activation i - 1 may still read.
func.func @too_few_slots(%in: memref<512x64xf32, #hbm>, %out: memref<512x64xf32, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 4 : i64, dma1 = 4 : i64, scalar = 4 : i64}} {
  affine.for %i = 0 to 4 {
    %x = memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 1, bytes = 256>} : memref<128x64xf32, #sbuf>
    %y = memref.alloc() {nisa.address = 512 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 256>} : memref<128x64xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %in[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    %dst = memref.subview %out[%r, 0] [128, 64] [1, 1] : memref<512x64xf32, #hbm> to memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
    // expected-error@+1 {{nisa-verify-sync: write-after-read race on SBUF bytes [0, 256) of each partition: this 'nisa.dma_copy' (dma0) at iteration [1] writes what 'nisa.activation' (scalar) 1 iteration(s) earlier reads, and no wait orders them (it needs scalar at 1)}}
    nisa.dma_copy %src, %x queue 0 {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar", count = -1, per_iteration = [1]>]} : memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>, memref<128x64xf32, #sbuf>
    // expected-note@+1 {{the earlier access}}
    nisa.activation <exp> %x, %y {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1, per_iteration = [1]>, #nisa.wait<unit = "dma1", count = -1, per_iteration = [1]>]} : memref<128x64xf32, #sbuf>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %y, %dst queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar", count = 1, per_iteration = [1]>]} : memref<128x64xf32, #sbuf>, memref<128x64xf32, strided<[64, 1], offset: ?>, #hbm>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#k = affine_map<(d0, d1) -> (d0 * 256 + d1 * 128)>

// Tests a wait lower in the inner loop's first iteration: by the one
// tensor signal the outer loop's body gives outside the inner loop (the
// matmul the previous iteration's last reader of the tile comes before),
// it is exact; one more and the load overwrites the tile that matmul reads.
// CHECK-LABEL: func.func @fewer_first
func.func @fewer_first(%a: memref<128x128xbf16, #hbm>, %b: memref<768x512xbf16, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64, dma1 = 6 : i64, scalar = 3 : i64, tensor = 9 : i64}} {
  %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %a, %s queue 0 {nisa.signal} : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  affine.for %o = 0 to 3 {
    %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
    %q = memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #psum>
    %e = memref.alloc() {nisa.address = 1280 : i64} : memref<128x512xbf16, #sbuf>
    affine.for %i = 0 to 2 {
      %t = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
      %r = affine.apply #k(%o, %i)
      %src = memref.subview %b[%r, 0] [128, 512] [1, 1] : memref<768x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
      nisa.dma_copy %src, %t queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 0, per_iteration = [3, 1], fewer_first = [1, 1, 1]>]} : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
      nisa.matmul %s, %t, %p accumulate {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "dma1", count = 1, per_iteration = [2, 1]>]} : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    }
    nisa.matmul %s, %e, %q {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "scalar", count = 0, per_iteration = [1]>]} : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    nisa.activation <identity> %q, %e {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 3, per_iteration = [3]>]} : memref<128x512xf32, #psum>, memref<128x512xbf16, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#k = affine_map<(d0, d1) -> (d0 * 256 + d1 * 128)>

func.func @fewer_first_too_many(%a: memref<128x128xbf16, #hbm>, %b: memref<768x512xbf16, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64, dma1 = 6 : i64, scalar = 3 : i64, tensor = 9 : i64}} {
  %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %a, %s queue 0 {nisa.signal} : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  affine.for %o = 0 to 3 {
    %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
    %q = memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #psum>
    %e = memref.alloc() {nisa.address = 1280 : i64} : memref<128x512xbf16, #sbuf>
    affine.for %i = 0 to 2 {
      %t = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
      %r = affine.apply #k(%o, %i)
      %src = memref.subview %b[%r, 0] [128, 512] [1, 1] : memref<768x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
      // expected-error@+1 {{nisa-verify-sync: write-after-read race on SBUF bytes [256, 1280) of each partition: this 'nisa.dma_copy' (dma1) at iteration [1, 0] writes what 'nisa.matmul' (tensor) 1 iteration(s) earlier reads, and no wait orders them (it needs tensor at 2)}}
      nisa.dma_copy %src, %t queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 0, per_iteration = [3, 1], fewer_first = [1, 1, 2]>]} : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
      // expected-note@+1 {{the earlier access}}
      nisa.matmul %s, %t, %p accumulate {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "dma1", count = 1, per_iteration = [2, 1]>]} : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    }
    nisa.matmul %s, %e, %q {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "scalar", count = 0, per_iteration = [1]>]} : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    nisa.activation <identity> %q, %e {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 3, per_iteration = [3]>]} : memref<128x512xf32, #psum>, memref<128x512xbf16, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#k = affine_map<(d0, d1) -> (d0 * 256 + d1 * 128)>

func.func @fewer_first_loop(%a: memref<128x128xbf16, #hbm>, %b: memref<768x512xbf16, #hbm>) attributes {nisa.limits = #limits, nisa.semaphores = {dma0 = 1 : i64, dma1 = 6 : i64, scalar = 3 : i64, tensor = 9 : i64}} {
  %s = memref.alloc() {nisa.address = 0 : i64} : memref<128x128xbf16, #sbuf>
  nisa.dma_copy %a, %s queue 0 {nisa.signal} : memref<128x128xbf16, #hbm>, memref<128x128xbf16, #sbuf>
  affine.for %o = 0 to 3 {
    %p = memref.alloc() {nisa.address = 0 : i64} : memref<128x512xf32, #psum>
    %q = memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #psum>
    %e = memref.alloc() {nisa.address = 1280 : i64} : memref<128x512xbf16, #sbuf>
    affine.for %i = 0 to 2 {
      %t = memref.alloc() {nisa.address = 256 : i64} : memref<128x512xbf16, #sbuf>
      %r = affine.apply #k(%o, %i)
      %src = memref.subview %b[%r, 0] [128, 512] [1, 1] : memref<768x512xbf16, #hbm> to memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>
      // expected-error@+1 {{nisa-verify-sync: expected fewer_first's loop below 2 (the enclosing loops), found 2}}
      nisa.dma_copy %src, %t queue 1 {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 0, per_iteration = [3, 1], fewer_first = [2, 1, 1]>]} : memref<128x512xbf16, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xbf16, #sbuf>
      nisa.matmul %s, %t, %p accumulate {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "dma1", count = 1, per_iteration = [2, 1]>]} : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    }
    nisa.matmul %s, %e, %q {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1>, #nisa.wait<unit = "scalar", count = 0, per_iteration = [1]>]} : memref<128x128xbf16, #sbuf>, memref<128x512xbf16, #sbuf>, memref<128x512xf32, #psum>
    nisa.activation <identity> %q, %e {nisa.signal, nisa.wait = [#nisa.wait<unit = "tensor", count = 3, per_iteration = [3]>]} : memref<128x512xf32, #psum>, memref<128x512xbf16, #sbuf>
  }
  return
}
