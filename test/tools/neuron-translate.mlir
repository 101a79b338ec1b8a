// Tests the executable writer's errors: a kernel whose tiles have no
// addresses, and a module without a kernel.

// RUN: not neuron-translate --nisa-to-executable %s -split-input-file -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: nisa-to-executable: on-chip tile without an address (run nisa-allocate first)
#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
func.func @k(%a: memref<128x4xf32, #hbm>) attributes {nisa.num_inputs = 1 : i64, nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>} {
  %t = memref.alloc() : memref<128x4xf32, #sbuf>
  nisa.dma_copy %a, %t queue 0 : memref<128x4xf32, #hbm>, memref<128x4xf32, #sbuf>
  return
}

// -----

// CHECK: error: nisa-to-executable: expected one program or kernel, found 0
func.func @not_a_kernel() {
  return
}
