// Tests that nisa-schedule times a kernel on the module's neuron.target
// (trn2 at lnc=1: one physical core's 16 DMA engines, where the option's
// default, trn2 at its default lnc=2, has 32), accepts an option naming the
// same target and rejects another.

// RUN: neuron-opt %s --nisa-schedule | FileCheck %s
// RUN: neuron-opt %s --nisa-schedule=target=trn2,lnc=1 | FileCheck %s
// RUN: not neuron-opt %s --nisa-schedule=target=trn2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not neuron-opt %s --nisa-schedule=target=trn9 -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CHECK: dma_engines = 16
// CONFLICT: error: nisa-schedule: target=trn2 is trainium2,lnc=2, but the module is compiled for trainium2,lnc=1 (neuron.target)
// UNKNOWN: error: nisa-schedule: unknown target 'trn9'

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
module attributes {neuron.target = #neuron.target<chip = "trainium2", lnc = 1>} {
  func.func @copy(%a: memref<128x64xf32, #hbm>, %b: memref<128x64xf32, #hbm>) attributes {nisa.limits = #limits} {
    %t = memref.alloc() {nisa.address = 0 : i64} : memref<128x64xf32, #sbuf>
    nisa.dma_copy %a, %t queue 0 : memref<128x64xf32, #hbm>, memref<128x64xf32, #sbuf>
    nisa.dma_copy %t, %b queue 0 : memref<128x64xf32, #sbuf>, memref<128x64xf32, #hbm>
    return
  }
}
