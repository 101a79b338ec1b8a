// Tests the host code nisa-to-executable writes for a host call
// (docs/executable.md, "Host code"): the region, a linalg.generic with a
// broadcast, a reversed read 3 - d1, a reduction, 64-bit products that wrap
// and a constant initial value, and a neuron.matmul of constants, compiled
// by upstream MLIR's CPU pipeline into a shared library in the `host_code`
// section, with the step's entry point; neuron-run loads it and the results
// are exact.

// RUN: neuron-translate --nisa-to-executable %s -o %t.nxe
// RUN: %python %S/Inputs/manifest.py %t.nxe --extract %t.so | FileCheck %s
// CHECK:      host_code {"format": "elf-shared-object", "section": "host_code", "triple": "{{(x86_64|aarch64)-.*linux.*}}"}
// CHECK-NEXT: section host_code: {{[0-9]+}} bytes, starting b'\x7fELF'
// CHECK-NEXT: step 0: host_call host0 inputs [0, 1] outputs [2, 3] symbol neuron_host0

// The library exports the entry point and needs nothing but the C library.
// RUN: %llvm_bin/llvm-readelf --file-header --dynamic %t.so | FileCheck %s --check-prefix=ELF
// ELF: Type: DYN (Shared object file)
// ELF-NOT: NEEDED{{.*}}neuron
// RUN: %llvm_bin/llvm-nm --dynamic --defined-only %t.so | FileCheck %s --check-prefix=SYMBOLS
// SYMBOLS: T neuron_host0

// s[i] = 100 + sum_j max(0, x[i, j] * 2039655736 * w[3 - j] + j), in i64
// (the products of the second row wrap); m = [[3, 3], [7.5, 7.5]].
// RUN: rm -rf %t.run && mkdir -p %t.run
// RUN: %python %S/Inputs/npy.py write %t.run/x.npy i32 2x4 -1 2 -3 4 2147483647 -2147483648 0 7
// RUN: %python %S/Inputs/npy.py write %t.run/w.npy i8 4 1 -1 127 -128
// RUN: neuron-run %t.nxe --input=0=%t.run/x.npy --input=1=%t.run/w.npy --output-dir=%t.run
// RUN: %python %S/Inputs/npy.py print %t.run/result0.npy | FileCheck %s --check-prefix=SUMS
// SUMS:      i64 2
// SUMS-NEXT: 793426081410
// SUMS-NEXT: 14277590257
// RUN: %python %S/Inputs/npy.py print %t.run/result1.npy | FileCheck %s --check-prefix=MATMUL
// MATMUL:      f32 2x2
// MATMUL-NEXT: 3.0
// MATMUL-NEXT: 3.0
// MATMUL-NEXT: 7.5
// MATMUL-NEXT: 7.5

#id = affine_map<(d0, d1) -> (d0, d1)>
#rev = affine_map<(d0, d1) -> (3 - d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<2x4xi32>, %w: tensor<4xi8>) -> (tensor<2xi64>, tensor<2x2xf32>)
    attributes {neuron.program} {
  %r:2 = neuron.host_call(%x, %w) reason "test" : (tensor<2x4xi32>, tensor<4xi8>) -> (tensor<2xi64>, tensor<2x2xf32>) {
  ^bb0(%a: tensor<2x4xi32>, %b: tensor<4xi8>):
    %mul = arith.constant 2039655736 : i64
    %init = neuron.constant dense<100> : tensor<2xi64>
    %zero = arith.constant 0 : i64
    %s = linalg.generic {indexing_maps = [#id, #rev, #red], iterator_types = ["parallel", "reduction"]}
        ins(%a, %b : tensor<2x4xi32>, tensor<4xi8>) outs(%init : tensor<2xi64>) {
    ^bb0(%u: i32, %v: i8, %acc: i64):
      %j = linalg.index 1 : index
      %uu = arith.extsi %u : i32 to i64
      %vv = arith.extsi %v : i8 to i64
      %p = arith.muli %uu, %mul : i64
      %q = arith.muli %p, %vv : i64
      %jj = arith.index_cast %j : index to i64
      %t = arith.addi %q, %jj : i64
      %nonneg = arith.cmpi sge, %t, %zero : i64
      %c = arith.select %nonneg, %t, %zero : i64
      %sum = arith.addi %acc, %c : i64
      linalg.yield %sum : i64
    } -> tensor<2xi64>
    %l = neuron.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %rr = neuron.constant dense<0.5> : tensor<3x2xf32>
    %m = neuron.matmul %l, %rr : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    neuron.yield %s, %m : tensor<2xi64>, tensor<2x2xf32>
  }
  return %r#0, %r#1 : tensor<2xi64>, tensor<2x2xf32>
}
