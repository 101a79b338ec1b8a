// Tests gather on the device: an embedding lookup compiled for trn2, run by
// neuron-run on hand-made inputs, gives the table rows the indices name; an
// index outside the table stops the run with an error naming the
// instruction, the partition and the index.

// RUN: rm -rf %t && mkdir -p %t/run
// RUN: neuron-opt %s --convert-neuron-to-nisa=target=trn2 --nisa-allocate -o %t/k.mlir
// RUN: neuron-translate --nisa-to-executable %t/k.mlir -o %t/k.nxe
// RUN: %python %S/Inputs/npy.py write %t/table.npy f32 5x3 0 1 2 10 11 12 20 21 22 30 31 32 40 41 42
// RUN: %python %S/Inputs/npy.py write %t/ids.npy i32 2x2 4 0 2 4
// RUN: neuron-run %t/k.nxe --check-order --input=0=%t/table.npy --input=1=%t/ids.npy --output-dir=%t/run
// RUN: %python %S/Inputs/npy.py print %t/run/result0.npy | FileCheck %s

// CHECK: f32 2x2x3
// CHECK-NEXT: 40.0
// CHECK-NEXT: 41.0
// CHECK-NEXT: 42.0
// CHECK-NEXT: 0.0
// CHECK-NEXT: 1.0
// CHECK-NEXT: 2.0
// CHECK-NEXT: 20.0
// CHECK-NEXT: 21.0
// CHECK-NEXT: 22.0
// CHECK-NEXT: 40.0
// CHECK-NEXT: 41.0
// CHECK-NEXT: 42.0

// RUN: %python %S/Inputs/npy.py write %t/bad.npy i32 2x2 4 0 5 1
// RUN: not neuron-run %t/k.nxe --input=0=%t/table.npy --input=1=%t/bad.npy --output-dir=%t/run 2>&1 \
// RUN:   | FileCheck %s --check-prefix=RANGE
// RANGE: neuron-run: error: program[0]: kernel "embed" instruction {{[0-9]+}}: gather: partition 2 holds index 5, outside the table's rows [0, 5)

func.func @embed(%table: tensor<5x3xf32>, %ids: tensor<2x2xi32>) -> tensor<2x2x3xf32> {
  %0 = neuron.gather %table[%ids] axis 0 : (tensor<5x3xf32>, tensor<2x2xi32>) -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}
