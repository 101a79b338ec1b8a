// Tests a kernel with a loop through the whole back end: allocation gives
// its tiles rotating slots, scheduling and synchronisation make waits
// affine in the iteration, the executable keeps the loop rolled (3
// instructions, 12 run), and neuron-run executes it natively: y = 2 x + 1
// over four row tiles.

// RUN: rm -rf %t && mkdir -p %t/run
// RUN: neuron-opt %s --nisa-allocate=buffers=2 --nisa-schedule=target=trn2,lnc=1 --nisa-insert-sync --nisa-verify-sync -o %t/k.mlir
// RUN: FileCheck %s --check-prefix=IR < %t/k.mlir
// RUN: neuron-translate --nisa-to-executable %t/k.mlir -o %t/k.nxe
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/k.nxe
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 8x2 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
// RUN: neuron-run %t/k.nxe --check-order --input=0=%t/x.npy --output-dir=%t/run --profile=%t/p.json | FileCheck %s --check-prefix=TIMING
// RUN: %python %S/Inputs/npy.py print %t/run/result0.npy | FileCheck %s

// IR: affine.for
// IR: memref.alloc() {nisa.address = {{[0-9]+}} : i64, nisa.slots = #nisa.slots<count = 2, bytes = 64>}
// The load refills the slot of two iterations back once the activation
// and the add have read it (scalar, vector at i - 1).
// IR: nisa.dma_copy {{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "scalar", count = -1, per_iteration = [1]>, #nisa.wait<unit = "vector", count = -1, per_iteration = [1]>
// IR: nisa.activation <identity> {{.*}} scale 2.0{{.*}} {nisa.signal, nisa.wait = [#nisa.wait<unit = "dma0", count = 1, per_iteration = [1]>
// IR: } {nisa.pipeline = #nisa.pipeline<interval_ns = {{.*}}, latency_ns = {{.*}}, predicted_ns = {{.*}}>}

// MANIFEST-DAG: "loops":[{"trips":4}]
// MANIFEST-DAG: "iv":[4]
// MANIFEST-DAG: "slots":{"bytes":64,"count":2,"depth":1}

// TIMING: k {{ *}}4 16 {{[0-9.]+}} {{[0-9.]+}}

// CHECK: f32 8x2
// CHECK-NEXT: 1.0
// CHECK-NEXT: 3.0
// CHECK-NEXT: 5.0
// CHECK-NEXT: 7.0
// CHECK-NEXT: 9.0
// CHECK-NEXT: 11.0
// CHECK-NEXT: 13.0
// CHECK-NEXT: 15.0
// CHECK-NEXT: 17.0
// CHECK-NEXT: 19.0
// CHECK-NEXT: 21.0
// CHECK-NEXT: 23.0
// CHECK-NEXT: 25.0
// CHECK-NEXT: 27.0
// CHECK-NEXT: 29.0
// CHECK-NEXT: 31.0

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
#rows = affine_map<(d0) -> (d0 * 2)>
func.func @k(%x: memref<8x2xf32, #hbm>, %y: memref<8x2xf32, #hbm>) attributes {nisa.limits = #limits, nisa.num_inputs = 1 : i64} {
  affine.for %i = 0 to 4 {
    %t = memref.alloc() : memref<2x2xf32, #sbuf>
    %u = memref.alloc() : memref<2x2xf32, #sbuf>
    %r = affine.apply #rows(%i)
    %src = memref.subview %x[%r, 0] [2, 2] [1, 1] : memref<8x2xf32, #hbm> to memref<2x2xf32, strided<[2, 1], offset: ?>, #hbm>
    %dst = memref.subview %y[%r, 0] [2, 2] [1, 1] : memref<8x2xf32, #hbm> to memref<2x2xf32, strided<[2, 1], offset: ?>, #hbm>
    nisa.dma_copy %src, %t queue 0 : memref<2x2xf32, strided<[2, 1], offset: ?>, #hbm>, memref<2x2xf32, #sbuf>
    nisa.activation <identity> %t, %u scale 2.0 : memref<2x2xf32, #sbuf>, memref<2x2xf32, #sbuf>
    nisa.tensor_scalar <add> %u, %t scalar 1.0 : memref<2x2xf32, #sbuf>, memref<2x2xf32, #sbuf>
    nisa.dma_copy %t, %dst queue 0 : memref<2x2xf32, #sbuf>, memref<2x2xf32, strided<[2, 1], offset: ?>, #hbm>
  }
  return
}
