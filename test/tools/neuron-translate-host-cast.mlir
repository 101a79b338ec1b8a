// A cast from float to integer on the host saturates as neuron.cast
// defines it, at every width: values from 2^(bits-1) up give the maximum
// (for i64 too, where 2^63 - 1 is no float), values below -2^(bits-1) the
// minimum, NaN gives 0, the rest truncate toward zero.

// RUN: neuron-translate --nisa-to-executable %s -o %t.nxe
// RUN: rm -rf %t.run && mkdir -p %t.run
// RUN: %python %S/Inputs/npy.py write %t.run/x.npy f32 6 3e19 -3e19 nan 1e18 -2.5 300
// RUN: neuron-run %t.nxe --input=0=%t.run/x.npy --output-dir=%t.run
// RUN: %python %S/Inputs/npy.py print %t.run/result0.npy | FileCheck %s --check-prefix=I64
// I64:      i64 6
// I64-NEXT: 9223372036854775807
// I64-NEXT: -9223372036854775808
// I64-NEXT: 0
// I64-NEXT: 999999984306749440
// I64-NEXT: -2
// I64-NEXT: 300
// RUN: %python %S/Inputs/npy.py print %t.run/result1.npy | FileCheck %s --check-prefix=I8
// I8:      i8 6
// I8-NEXT: 127
// I8-NEXT: -128
// I8-NEXT: 0
// I8-NEXT: 127
// I8-NEXT: -2
// I8-NEXT: 127

func.func @main(%x: tensor<6xf32>) -> (tensor<6xi64>, tensor<6xi8>) attributes {neuron.program} {
  %r:2 = neuron.host_call(%x) reason "test" : (tensor<6xf32>) -> (tensor<6xi64>, tensor<6xi8>) {
  ^bb0(%a: tensor<6xf32>):
    %w = neuron.cast %a : tensor<6xf32> -> tensor<6xi64>
    %n = neuron.cast %a : tensor<6xf32> -> tensor<6xi8>
    neuron.yield %w, %n : tensor<6xi64>, tensor<6xi8>
  }
  return %r#0, %r#1 : tensor<6xi64>, tensor<6xi8>
}
