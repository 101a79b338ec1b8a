// Tests compare and select on the device with infinities and NaNs:
// where(x < y, x, y) compiled for trn2 (plain and fused), run by neuron-run on
// hand-made inputs, copies the chosen elements unchanged; a NaN compares
// false, so y is chosen.

// RUN: rm -rf %t && mkdir -p %t/run %t/fused
// RUN: %python %S/Inputs/npy.py write %t/x.npy f32 2x3 inf 2 -inf nan 5 -0.0
// RUN: %python %S/Inputs/npy.py write %t/y.npy f32 2x3 1 inf 4 4 nan 0.0
// RUN: neuron-opt %s --convert-neuron-to-nisa=target=trn2 --nisa-allocate -o %t/k.mlir
// RUN: neuron-translate --nisa-to-executable %t/k.mlir -o %t/k.nxe
// RUN: neuron-run %t/k.nxe --check-order --input=0=%t/x.npy --input=1=%t/y.npy --output-dir=%t/run
// RUN: %python %S/Inputs/npy.py print %t/run/result0.npy | FileCheck %s
// RUN: neuron-opt %s --neuron-fuse --convert-neuron-to-nisa=target=trn2 --nisa-allocate -o %t/f.mlir
// RUN: neuron-translate --nisa-to-executable %t/f.mlir -o %t/f.nxe
// RUN: neuron-run %t/f.nxe --check-order --input=0=%t/x.npy --input=1=%t/y.npy --output-dir=%t/fused
// RUN: %python %S/Inputs/npy.py print %t/fused/result0.npy | FileCheck %s

// CHECK: f32 2x3
// CHECK-NEXT: 1.0
// CHECK-NEXT: 2.0
// CHECK-NEXT: -inf
// CHECK-NEXT: 4.0
// CHECK-NEXT: nan
// CHECK-NEXT: 0.0

func.func @where(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = neuron.compare lt %x, %y : tensor<2x3xf32> -> tensor<2x3xi1>
  %r = neuron.select %m, %x, %y : tensor<2x3xi1>, tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
