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

// -----

// A launch awaits a collective whose done is not right before it: another
// launch runs between them.
// CHECK: error: nisa-to-executable: this launch awaits collectives whose dones are not right before it (only other collectives' dones may come between)
#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
func.func private @k(%a: memref<4x8xf32, #hbm>, %o: memref<4x8xf32, #hbm>) attributes {neuron.kernel, nisa.num_inputs = 1 : i64, nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<4x8xf32, #sbuf>
  nisa.dma_copy %a, %t queue 0 : memref<4x8xf32, #hbm>, memref<4x8xf32, #sbuf>
  nisa.dma_copy %t, %o queue 1 : memref<4x8xf32, #sbuf>, memref<4x8xf32, #hbm>
  return
}
func.func @p(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {neuron.program} {
  %h = neuron.collective_start all_reduce %x grid [2] axes [0] reduction <sum> : tensor<4x8xf32> -> !neuron.pending<tensor<4x8xf32>>
  %r = neuron.collective_done %h : !neuron.pending<tensor<4x8xf32>> -> tensor<4x8xf32>
  %a = neuron.launch @k(%x) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = neuron.launch @k(%r) {awaits = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}
