// Tests that nisa-schedule's timeline lets a loop's transfers take the
// DMA engines' idle time an earlier run leaves, as the DMA engines do (a
// free engine takes any queue's next transfer), and that the simulator
// agrees. The run loads x (16 pieces on the 16 engines, 0 - 990.3 ns),
// exponentiates it four times on the scalar engine (to 2910.3) and stores
// it (to 3900.5): the engines idle for 1920 ns in between. The loop, which
// needs none of it, loads its two tiles and adds them up in that gap (its
// pipeline's 1601.5 ns from 990.3); the sum's store then follows the run's
// on the stores' queue: 3900.5 + 634.1 = 4534.6 ns. (Laid out after the
// run's store, the loop would end at 5168.7 and the kernel at 5802.8.)

// RUN: rm -rf %t && mkdir -p %t
// RUN: neuron-opt %s --nisa-allocate --nisa-schedule="target=trn2,lnc=1 summary=true" --nisa-insert-sync --nisa-verify-sync -o %t/k.mlir 2>&1 | FileCheck %s
// RUN: neuron-translate --nisa-to-executable %t/k.mlir -o %t/k.nxe
// RUN: neuron-run %t/k.nxe --timing-only --profile=%t/p.json > /dev/null
// RUN: %python -c "import json, sys; k = json.load(open(sys.argv[1]))['kernels'][0]; \
// RUN:   print('agree', abs(k['predicted_ns'] - k['observed_ns']) <= 0.01 * k['observed_ns'])" \
// RUN:   %t/p.json | FileCheck %s --check-prefix=AGREE

// CHECK: remark: nisa-schedule: {{[0-9]+}} instructions, predicted 4534.6 ns
// AGREE: agree True

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 229376, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#map = affine_map<(d0) -> (d0 * 128)>
func.func @backfill(%x: memref<128x512xf32, #hbm>, %y: memref<256x256xf32, #hbm>, %out: memref<128x512xf32, #hbm>, %sum: memref<128x256xf32, #hbm>) attributes {nisa.num_inputs = 2 : i64, nisa.limits = #limits} {
  %a = memref.alloc() : memref<128x512xf32, #sbuf>
  nisa.dma_copy %x, %a queue 0 : memref<128x512xf32, #hbm>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.activation <exp> %a, %a : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
  nisa.dma_copy %a, %out queue 0 : memref<128x512xf32, #sbuf>, memref<128x512xf32, #hbm>
  %s = memref.alloc() : memref<128x256xf32, #sbuf>
  nisa.memset %s value 0.0 : memref<128x256xf32, #sbuf>
  affine.for %k = 0 to 2 {
    %r = affine.apply #map(%k)
    %t = memref.alloc() : memref<128x256xf32, #sbuf>
    %src = memref.subview %y[%r, 0] [128, 256] [1, 1] : memref<256x256xf32, #hbm> to memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<128x256xf32, strided<[256, 1], offset: ?>, #hbm>, memref<128x256xf32, #sbuf>
    nisa.tensor_tensor <add> %s, %t, %s : memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>, memref<128x256xf32, #sbuf>
  }
  nisa.dma_copy %s, %sum queue 0 : memref<128x256xf32, #sbuf>, memref<128x256xf32, #hbm>
  return
}
