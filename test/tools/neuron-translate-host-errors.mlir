// A host call whose region upstream MLIR's CPU pipeline cannot compile is a
// located error at the op, then at the host call; no executable is
// written. Everything else upstream lowers runs: a gather, which the
// runtime's former interpreter could not run, does (below), and complex
// arithmetic.

// RUN: neuron-translate --nisa-to-executable %s -split-input-file -verify-diagnostics -o /dev/null

// RUN: neuron-translate --nisa-to-executable %S/Inputs/host_gather.mlir -o %t.nxe
// RUN: rm -rf %t.run && mkdir -p %t.run
// RUN: %python %S/Inputs/npy.py write %t.run/t.npy f32 16x4 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
// RUN: %python %S/Inputs/npy.py write %t.run/i.npy i32 3 3 15 0
// RUN: neuron-run %t.nxe --input=0=%t.run/t.npy --input=1=%t.run/i.npy --output-dir=%t.run
// RUN: %python %S/Inputs/npy.py print %t.run/result0.npy | FileCheck %s
// CHECK:      f32 3x4
// CHECK-NEXT: 12.0
// CHECK-NEXT: 13.0
// CHECK-NEXT: 14.0
// CHECK-NEXT: 15.0
// CHECK-NEXT: 60.0
// CHECK-NEXT: 61.0
// CHECK-NEXT: 62.0
// CHECK-NEXT: 63.0
// CHECK-NEXT: 0.0

// So does complex arithmetic inside a region (and a host call without a
// reason): |u + u i| = |u| sqrt(2).
// RUN: neuron-translate --nisa-to-executable %S/Inputs/host_complex.mlir -o %t.complex.nxe
// RUN: %python %S/Inputs/npy.py write %t.run/c.npy f32 4 3 -4 0 1.5
// RUN: neuron-run %t.complex.nxe --input=0=%t.run/c.npy --output-dir=%t.run/complex
// RUN: %python %S/Inputs/npy.py print %t.run/complex/result0.npy | FileCheck %s --check-prefix=COMPLEX
// COMPLEX:      f32 4
// COMPLEX-NEXT: 4.24264
// COMPLEX-NEXT: 5.65685
// COMPLEX-NEXT: 0.0
// COMPLEX-NEXT: 2.12132

// A region that compiles (linking runs in a child process, so the options
// of this tool, -verify-diagnostics among them, still hold for the splits
// after it).
func.func @compiles(%x: tensor<4xi32>) -> tensor<4xi32> attributes {neuron.program} {
  %r = neuron.host_call(%x) : (tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%a: tensor<4xi32>):
    %s = neuron.add %a, %a : tensor<4xi32>
    neuron.yield %s : tensor<4xi32>
  }
  return %r : tensor<4xi32>
}

// -----

// An op without a bufferization.
func.func @bitcast(%x: tensor<4xi32>) -> tensor<4xf32> attributes {neuron.program} {
  // expected-error@+1 {{host code: upstream MLIR's CPU pipeline could not compile the host calls (see above)}}
  %r = neuron.host_call(%x) : (tensor<4xi32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xi32>):
    // expected-error@+1 {{op was not bufferized}}
    %b = tensor.bitcast %a : tensor<4xi32> to tensor<4xf32>
    neuron.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// fp8 arithmetic: upstream cannot convert fp8 to and from f32 on the CPU.
func.func @fp8(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> attributes {neuron.program} {
  // expected-error@+1 {{host code: upstream MLIR's CPU pipeline could not compile the host calls}}
  %r = neuron.host_call(%x) : (tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  ^bb0(%a: tensor<4xf8E4M3FN>):
    // expected-error@+1 {{host code: 'f8E4M3FN' arithmetic is not compiled for the host}}
    %s = math.atan %a : tensor<4xf8E4M3FN>
    neuron.yield %s : tensor<4xf8E4M3FN>
  }
  return %r : tensor<4xf8E4M3FN>
}
