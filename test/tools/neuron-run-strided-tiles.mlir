// Tests on-chip access patterns through the whole back end: an engine
// reads every third column of an SBUF tile and a DMA stores two columns
// five apart; the executable gives those operands their element strides
// and neuron-run executes them natively: y = 2 x[:, 0::3], z = x[:, 1::5].

// RUN: rm -rf %t && mkdir -p %t/run
// RUN: neuron-opt %s --nisa-allocate --nisa-schedule=target=trn2,lnc=1 --nisa-insert-sync --nisa-verify-sync -o %t/k.mlir
// RUN: neuron-translate --nisa-to-executable %t/k.mlir -o %t/k.nxe
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/k.nxe
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 4x12 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47
// RUN: neuron-run %t/k.nxe --check-order --input=0=%t/x.npy --output-dir=%t/run
// RUN: %python %S/Inputs/npy.py print %t/run/result0.npy | FileCheck %s --check-prefix=Y
// RUN: %python %S/Inputs/npy.py print %t/run/result1.npy | FileCheck %s --check-prefix=Z

// MANIFEST-DAG: "shape":[4,4],"space":"sbuf","strides":[3]
// MANIFEST-DAG: "shape":[4,2],"space":"sbuf","strides":[5]

// Y: f32 4x4
// Y-NEXT: 0.0
// Y-NEXT: 6.0
// Y-NEXT: 12.0
// Y-NEXT: 18.0
// Y-NEXT: 24.0
// Y-NEXT: 30.0
// Y-NEXT: 36.0
// Y-NEXT: 42.0
// Y-NEXT: 48.0

// Z: f32 4x2
// Z-NEXT: 1.0
// Z-NEXT: 6.0
// Z-NEXT: 13.0
// Z-NEXT: 18.0
// Z-NEXT: 25.0
// Z-NEXT: 30.0
// Z-NEXT: 37.0
// Z-NEXT: 42.0

#sbuf = #nisa.memory<sbuf>
#hbm = #nisa.memory<hbm>
#limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608, psum_bytes = 16384, psum_bank_bytes = 2048, stationary_free = 128, moving_free = 512>
func.func @k(%x: memref<4x12xf32, #hbm>, %y: memref<4x4xf32, #hbm>, %z: memref<4x2xf32, #hbm>) attributes {nisa.limits = #limits, nisa.num_inputs = 1 : i64} {
  %t = memref.alloc() : memref<4x12xf32, #sbuf>
  nisa.dma_copy %x, %t queue 0 : memref<4x12xf32, #hbm>, memref<4x12xf32, #sbuf>
  %every3 = memref.subview %t[0, 0] [4, 4] [1, 3] : memref<4x12xf32, #sbuf> to memref<4x4xf32, strided<[12, 3]>, #sbuf>
  %u = memref.alloc() : memref<4x4xf32, #sbuf>
  nisa.tensor_scalar <multiply> %every3, %u scalar 2.0 : memref<4x4xf32, strided<[12, 3]>, #sbuf>, memref<4x4xf32, #sbuf>
  nisa.dma_copy %u, %y queue 1 : memref<4x4xf32, #sbuf>, memref<4x4xf32, #hbm>
  %two = memref.subview %t[0, 1] [4, 2] [1, 5] : memref<4x12xf32, #sbuf> to memref<4x2xf32, strided<[12, 5], offset: 1>, #sbuf>
  nisa.dma_copy %two, %z queue 2 : memref<4x2xf32, strided<[12, 5], offset: 1>, #sbuf>, memref<4x2xf32, #hbm>
  return
}
