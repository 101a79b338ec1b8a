// Tests the executable writer on a launch awaiting a collective inside:
// the collective's done moves after the launch, which records the
// collective once although two of its inputs view the result.

// RUN: neuron-translate --nisa-to-executable %s -o %t.nxe
// RUN: neuron-run %t.nxe --describe | FileCheck %s

// CHECK: 0: collective_start 0: all_reduce
// CHECK-NEXT: 1: kernel k (awaits collective 0 inside)
// CHECK-NEXT: 2: collective_done 0
#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
func.func private @k(%a: memref<4x8xf32, #hbm>, %b: memref<4x8xf32, #hbm>, %o: memref<4x8xf32, #hbm>) attributes {neuron.kernel, nisa.num_inputs = 2 : i64, nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 4096, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>} {
  %t = memref.alloc() {nisa.address = 0 : i64} : memref<4x8xf32, #sbuf>
  %u = memref.alloc() {nisa.address = 32 : i64} : memref<4x8xf32, #sbuf>
  nisa.dma_copy %a, %t queue 0 : memref<4x8xf32, #hbm>, memref<4x8xf32, #sbuf>
  nisa.dma_copy %b, %u queue 0 : memref<4x8xf32, #hbm>, memref<4x8xf32, #sbuf>
  nisa.tensor_tensor <add> %t, %u, %t : memref<4x8xf32, #sbuf>, memref<4x8xf32, #sbuf>, memref<4x8xf32, #sbuf>
  nisa.dma_copy %t, %o queue 1 : memref<4x8xf32, #sbuf>, memref<4x8xf32, #hbm>
  return
}
func.func @p(%x: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {neuron.program} {
  %h = neuron.collective_start all_reduce %x grid [2] axes [0] reduction <sum> : tensor<4x8xf32> -> !neuron.pending<tensor<4x8xf32>>
  %r = neuron.collective_done %h : !neuron.pending<tensor<4x8xf32>> -> tensor<4x8xf32>
  %v = neuron.reshape %r : tensor<4x8xf32> -> tensor<4x8xf32>
  %b = neuron.launch @k(%r, %v) {awaits = array<i64: 0, 1>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
