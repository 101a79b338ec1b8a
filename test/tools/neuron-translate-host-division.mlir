// Integer division on the host is defined where arith leaves it undefined
// (and the CPU would trap): a zero divisor gives 0, the most negative value
// divided by -1 wraps to itself with remainder 0 (docs/executable.md,
// "Host code"); other quotients truncate toward zero, as arith defines.

// RUN: neuron-translate --nisa-to-executable %s -o %t.nxe
// RUN: rm -rf %t.run && mkdir -p %t.run
// RUN: %python %S/Inputs/npy.py write %t.run/x.npy i32 5 7 -7 -2147483648 5 0
// RUN: %python %S/Inputs/npy.py write %t.run/y.npy i32 5 0 2 -1 -3 0
// RUN: neuron-run %t.nxe --input=0=%t.run/x.npy --input=1=%t.run/y.npy --output-dir=%t.run
// RUN: %python %S/Inputs/npy.py print %t.run/result0.npy | FileCheck %s --check-prefix=DIV
// DIV:      i32 5
// DIV-NEXT: 0
// DIV-NEXT: -3
// DIV-NEXT: -2147483648
// DIV-NEXT: -1
// DIV-NEXT: 0
// RUN: %python %S/Inputs/npy.py print %t.run/result1.npy | FileCheck %s --check-prefix=REM
// REM:      i32 5
// REM-NEXT: 0
// REM-NEXT: -1
// REM-NEXT: 0
// REM-NEXT: 2
// REM-NEXT: 0
// RUN: %python %S/Inputs/npy.py print %t.run/result2.npy | FileCheck %s --check-prefix=UDIV
// UDIV:      i32 5
// UDIV-NEXT: 0
// UDIV-NEXT: 2147483644
// UDIV-NEXT: 0
// UDIV-NEXT: 0
// UDIV-NEXT: 0

#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<5xi32>, %y: tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>)
    attributes {neuron.program} {
  %r:3 = neuron.host_call(%x, %y) reason "test" : (tensor<5xi32>, tensor<5xi32>) -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
  ^bb0(%a: tensor<5xi32>, %b: tensor<5xi32>):
    %e = tensor.empty() : tensor<5xi32>
    %q, %m, %u = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
        ins(%a, %b : tensor<5xi32>, tensor<5xi32>) outs(%e, %e, %e : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>) {
    ^bb0(%u0: i32, %v0: i32, %o0: i32, %o1: i32, %o2: i32):
      %d = arith.divsi %u0, %v0 : i32
      %r = arith.remsi %u0, %v0 : i32
      %ud = arith.divui %u0, %v0 : i32
      linalg.yield %d, %r, %ud : i32, i32, i32
    } -> (tensor<5xi32>, tensor<5xi32>, tensor<5xi32>)
    neuron.yield %q, %m, %u : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
  }
  return %r#0, %r#1, %r#2 : tensor<5xi32>, tensor<5xi32>, tensor<5xi32>
}
