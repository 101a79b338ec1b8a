// RUN: neuron-opt %s -split-input-file -verify-diagnostics --nisa-allocate | FileCheck %s
// RUN: neuron-opt %s -split-input-file -verify-diagnostics --nisa-allocate=buffers=1 | FileCheck %s --check-prefix=SINGLE

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests addresses by liveness: the first tile is dead after its use; with
// double buffering (the default) the next tile does not take its range at
// once, with buffers=1 it does. PSUM tiles start on bank boundaries. The
// kernel records its peaks per partition.
// CHECK-LABEL: func.func @stream
// CHECK-SAME: nisa.peak_psum_bytes = 4096 : i64, nisa.peak_sbuf_bytes = 2048 : i64
// CHECK: memref.alloc() {nisa.address = 0 : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
// CHECK: memref.alloc() {nisa.address = 1024 : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
// CHECK: memref.alloc() {nisa.address = 0 : i64} : memref<128x256xf32, #nisa.memory<psum>>
// CHECK: memref.alloc() {nisa.address = 2048 : i64} : memref<128x512xf32, #nisa.memory<psum>>
// SINGLE-LABEL: func.func @stream
// SINGLE: memref.alloc() {nisa.address = 0 : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
// SINGLE: memref.alloc() {nisa.address = 0 : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
func.func @stream() attributes {nisa.limits = #limits} {
  %a = memref.alloc() : memref<128x256xf32, #sbuf>
  nisa.memset %a value 1.0 : memref<128x256xf32, #sbuf>
  %b = memref.alloc() : memref<128x256xf32, #sbuf>
  nisa.memset %b value 2.0 : memref<128x256xf32, #sbuf>
  %p = memref.alloc() : memref<128x256xf32, #psum>
  nisa.memset %p value 0.0 : memref<128x256xf32, #psum>
  %q = memref.alloc() : memref<128x512xf32, #psum>
  nisa.memset %q value 0.0 : memref<128x512xf32, #psum>
  nisa.memset %p value 0.0 : memref<128x256xf32, #psum>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the capacity error: it names the tile, the capacity, a size that
// fits, and each tile live at that point with its size per partition.
func.func @full() attributes {nisa.limits = #limits} {
  // expected-note@+1 {{live: 'memref<128x512xf32, #nisa.memory<sbuf>>', 2048 bytes per partition}}
  %a = memref.alloc() : memref<128x512xf32, #sbuf>
  // expected-note@+1 {{live: 'memref<128x256xf32, #nisa.memory<sbuf>>', 1024 bytes per partition}}
  %b = memref.alloc() : memref<128x256xf32, #sbuf>
  // expected-error@+1 {{nisa-allocate: SBUF is full: this 'memref<128x512xf32, #nisa.memory<sbuf>>' tile needs 2048 bytes per partition of 4096; a tile of at most 1024 bytes per partition would fit}}
  %c = memref.alloc() : memref<128x512xf32, #sbuf>
  nisa.tensor_tensor <add> %a, %a, %c : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.memset %b value 0.0 : memref<128x256xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 8192, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests rotating tiles in a loop nest: each takes as many slots as its
// loops run times, up to `buffers`, all live over the whole nest; the PSUM
// tile's slots are whole banks apart. Tiles of the next top-level op may
// reuse the nest's bytes.
// CHECK-LABEL: func.func @rotating
// CHECK: affine.for
// CHECK: memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 512>} : memref<128x128xf32, #nisa.memory<sbuf>>
// CHECK: affine.for
// CHECK: memref.alloc() {nisa.address = 1024 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 256>} : memref<128x64xf32, #nisa.memory<sbuf>>
// CHECK: memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 2048>} : memref<128x16xf32, #nisa.memory<psum>>
// CHECK: memref.alloc() {nisa.address = {{[0-9]+}} : i64} : memref<128x16xf32, #nisa.memory<sbuf>>
// SINGLE-LABEL: func.func @rotating
// SINGLE: memref.alloc() {nisa.address = 0 : i64} : memref<128x128xf32, #nisa.memory<sbuf>>
// SINGLE: memref.alloc() {nisa.address = 512 : i64} : memref<128x64xf32, #nisa.memory<sbuf>>
func.func @rotating() attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 2 {
    %a = memref.alloc() : memref<128x128xf32, #sbuf>
    nisa.memset %a value 1.0 : memref<128x128xf32, #sbuf>
    affine.for %j = 0 to 3 {
      %b = memref.alloc() : memref<128x64xf32, #sbuf>
      nisa.memset %b value 1.0 : memref<128x64xf32, #sbuf>
      %p = memref.alloc() : memref<128x16xf32, #psum>
      nisa.memset %p value 0.0 : memref<128x16xf32, #psum>
    }
  }
  %c = memref.alloc() : memref<128x16xf32, #sbuf>
  nisa.memset %c value 0.0 : memref<128x16xf32, #sbuf>
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a nest that does not fit with all its slots: the widest rotation
// gives up slots first (4 x 512 -> 2 x 512), and the nest fits.
// CHECK-LABEL: func.func @fewer_slots
// CHECK: memref.alloc() {nisa.address = 0 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 1024>} : memref<128x256xf32, #nisa.memory<sbuf>>
// CHECK: memref.alloc() {nisa.address = 2048 : i64, nisa.slots = #nisa.slots<count = 2, bytes = 512>} : memref<128x128xf32, #nisa.memory<sbuf>>
func.func @fewer_slots() attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 8 {
    %a = memref.alloc() : memref<128x256xf32, #sbuf>
    nisa.memset %a value 1.0 : memref<128x256xf32, #sbuf>
    %b = memref.alloc() : memref<128x128xf32, #sbuf>
    nisa.memset %b value 1.0 : memref<128x128xf32, #sbuf>
  }
  return
}

// -----

#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests the capacity error inside a loop nest: even with one slot each its
// tiles do not fit; the error names the tiles of the nest.
func.func @nest_full() attributes {nisa.limits = #limits} {
  affine.for %i = 0 to 8 {
    // expected-note@+1 {{live: 'memref<128x768xf32, #nisa.memory<sbuf>>', 3072 bytes per partition}}
    %a = memref.alloc() : memref<128x768xf32, #sbuf>
    nisa.memset %a value 1.0 : memref<128x768xf32, #sbuf>
    // expected-error@+1 {{nisa-allocate: SBUF is full: this 'memref<128x512xf32, #nisa.memory<sbuf>>' tile needs 2048 bytes per partition of 4096; a tile of at most 1024 bytes per partition would fit}}
    %b = memref.alloc() : memref<128x512xf32, #sbuf>
    nisa.memset %b value 1.0 : memref<128x512xf32, #sbuf>
  }
  return
}

// -----

#psum = #nisa.memory<psum>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests a kernel of two physical cores: each has its own PSUM, so a tile
// filling core 0's and one filling core 1's, live at once, both start at
// byte 0.
// CHECK-LABEL: func.func @two_cores
// CHECK: memref.alloc() {nisa.address = 0 : i64} : memref<128x4096xf32, #nisa.memory<psum>>
// CHECK: memref.alloc() {nisa.address = 0 : i64, nisa.core = 1 : i64} : memref<128x4096xf32, #nisa.memory<psum>>
func.func @two_cores() attributes {nisa.limits = #limits, nisa.cores = 2 : i64} {
  %a = memref.alloc() : memref<128x4096xf32, #psum>
  %b = memref.alloc() {nisa.core = 1 : i64} : memref<128x4096xf32, #psum>
  nisa.memset %a value 0.0 : memref<128x4096xf32, #psum>
  nisa.memset %b value 0.0 {nisa.core = 1 : i64} : memref<128x4096xf32, #psum>
  nisa.memset %a value 1.0 : memref<128x4096xf32, #psum>
  nisa.memset %b value 1.0 {nisa.core = 1 : i64} : memref<128x4096xf32, #psum>
  return
}

// -----

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>

// Tests where a tile the DMA fills goes: into the free range whose bytes
// were last used longest ago (%b's, last read before %a's), so its load
// waits for the fewest reads before it; a tile an engine computes takes
// the lowest (%a's: on the in-order engines it follows those reads
// anyway). Double buffered, %a's range is held back at first, and %d
// takes it once SBUF is full.
// CHECK-LABEL: func.func @loads_oldest
// CHECK-COUNT-4: memref.alloc() {nisa.address = {{[0-9]+}} : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
// CHECK: memref.alloc() {nisa.address = 1024 : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
// CHECK-NEXT: nisa.dma_copy
// CHECK: memref.alloc() {nisa.address = 0 : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
// SINGLE-LABEL: func.func @loads_oldest
// SINGLE-COUNT-4: memref.alloc() {nisa.address = {{[0-9]+}} : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
// SINGLE: memref.alloc() {nisa.address = 1024 : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
// SINGLE-NEXT: nisa.dma_copy
// SINGLE: memref.alloc() {nisa.address = 0 : i64} : memref<128x256xf32, #nisa.memory<sbuf>>
func.func @loads_oldest(%in: memref<128x256xf32, #hbm>) attributes {nisa.limits = #limits} {
  %a = memref.alloc() : memref<128x256xf32, #sbuf>
  %b = memref.alloc() : memref<128x256xf32, #sbuf>
  %x = memref.alloc() : memref<128x256xf32, #sbuf>
  %y = memref.alloc() : memref<128x256xf32, #sbuf>
  nisa.memset %b value 1.0 : memref<128x256xf32, #sbuf>
  nisa.memset %a value 2.0 : memref<128x256xf32, #sbuf>
  nisa.memset %x value 3.0 : memref<128x256xf32, #sbuf>
  nisa.memset %y value 4.0 : memref<128x256xf32, #sbuf>
  %c = memref.alloc() : memref<128x256xf32, #sbuf>
  nisa.dma_copy %in, %c queue 0 : memref<128x256xf32, #hbm>, memref<128x256xf32, #sbuf>
  %d = memref.alloc() : memref<128x256xf32, #sbuf>
  nisa.memset %d value 5.0 : memref<128x256xf32, #sbuf>
  nisa.tensor_tensor <add> %c, %d, %x : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
  nisa.memset %y value 6.0 : memref<128x256xf32, #sbuf>
  return
}

// -----

// Tests the memory timeline: each tile's space, offset, size per partition
// and live range, and the kernel's peaks.
// RUN: rm -f %t.json
// RUN: not neuron-opt %s -split-input-file --nisa-allocate=timeline=%t.json -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=TIMELINE < %t.json
// RUN: not neuron-opt %s -split-input-file --nisa-allocate=timeline=%t/no/such/dir/t.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: error: nisa-allocate: cannot write memory timeline '{{.*}}no/such/dir/t.json': No such file or directory
// TIMELINE: "schema": "neuron-memory-timeline/1",
// TIMELINE: "kernel": "timeline",
// TIMELINE: "peak_sbuf_bytes_per_partition": 512,
// TIMELINE: "space": "sbuf",
// TIMELINE: "type": "memref<128x128xf32, #nisa.memory<sbuf>>",
// TIMELINE: "offset": 0,
// TIMELINE: "bytes_per_partition": 512,
// TIMELINE: "slots": 1,
// TIMELINE: "first": 0,
// TIMELINE: "last": 1
#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
// CHECK-LABEL: func.func @timeline
func.func @timeline() attributes {nisa.limits = #limits} {
  %a = memref.alloc() : memref<128x128xf32, #sbuf>
  nisa.memset %a value 1.0 : memref<128x128xf32, #sbuf>
  return
}
