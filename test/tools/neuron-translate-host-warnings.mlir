// Tests the warnings nisa-to-executable gives for a host call it cannot
// write in reference form: the executable is still written, with the
// step's MLIR text but no reference, and neuron-run names the step.

// RUN: neuron-translate --nisa-to-executable %s -split-input-file -verify-diagnostics -o /dev/null

// RUN: neuron-translate --nisa-to-executable %S/Inputs/host_gather.mlir -o %t.nxe 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COMPILE
// COMPILE: warning: host_call host0: 'neuron.gather' has no reference kernel; the executable compiles but neuron-run cannot run this step
// RUN: %python %S/Inputs/manifest.py %t.nxe | FileCheck %s --check-prefix=MANIFEST
// MANIFEST:      step 0: host_call host0 inputs [0, 1] outputs [2]
// MANIFEST-NEXT:   no reference
// RUN: rm -rf %t.run && mkdir -p %t.run
// RUN: not neuron-run %t.nxe --random-inputs --output-dir=%t.run 2>&1 | FileCheck %s --check-prefix=RUNTIME
// RUNTIME: neuron-run: error: program[0]: host_call "host0" has no reference form (the compiler warned that an op of its region has no reference kernel), so it cannot run here

// An op of a generic's body the runtime has no kernel for.
func.func @body_op(%x: tensor<4xf32>) -> tensor<4xf32> attributes {neuron.program} {
  %r = neuron.host_call(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%u: f32, %o: f32):
      // expected-warning@+1 {{host_call host0: 'math.atan' has no reference kernel; the executable compiles but neuron-run cannot run this step}}
      %t = math.atan %u : f32
      linalg.yield %t : f32
    } -> tensor<4xf32>
    neuron.yield %g : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// An indexing map that is not a linear combination of loops plus a constant.
func.func @floordiv_map(%x: tensor<4xf32>) -> tensor<8xf32> attributes {neuron.program} {
  %r = neuron.host_call(%x) : (tensor<4xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.empty() : tensor<8xf32>
    // expected-warning@+2 {{host_call host0: 'linalg.generic' has no reference kernel}}
    // expected-note@+1 {{an indexing map result is not a linear combination of loops plus a constant}}
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0 floordiv 2)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : tensor<4xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%u: f32, %o: f32):
      linalg.yield %u : f32
    } -> tensor<8xf32>
    neuron.yield %g : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// A scalar type the manifest has no dtype for.
func.func @i4(%x: tensor<4xi32>) -> tensor<4xi32> attributes {neuron.program} {
  %r = neuron.host_call(%x) : (tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%a: tensor<4xi32>):
    %e = tensor.empty() : tensor<4xi32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : tensor<4xi32>) outs(%e : tensor<4xi32>) {
    ^bb0(%u: i32, %o: i32):
      // expected-warning@+2 {{host_call host0: 'arith.trunci' has no reference kernel}}
      // expected-note@+1 {{its type is not a manifest dtype (f32 bf16 f16 f8E4M3FN f8E5M2 i1 i8 i16 i32 i64 index)}}
      %t = arith.trunci %u : i32 to i4
      %w = arith.extsi %t : i4 to i32
      linalg.yield %w : i32
    } -> tensor<4xi32>
    neuron.yield %g : tensor<4xi32>
  }
  return %r : tensor<4xi32>
}

// -----

// The second host call warns under its own name; the first keeps its
// reference.
func.func @second(%x: tensor<4xi32>, %t: tensor<4x2xf32>) -> (tensor<4xi32>, tensor<4x2xf32>) attributes {neuron.program} {
  %r = neuron.host_call(%x) : (tensor<4xi32>) -> tensor<4xi32> {
  ^bb0(%a: tensor<4xi32>):
    %s = neuron.add %a, %a : tensor<4xi32>
    neuron.yield %s : tensor<4xi32>
  }
  %g = neuron.host_call(%t, %x) : (tensor<4x2xf32>, tensor<4xi32>) -> tensor<4x2xf32> {
  ^bb0(%a: tensor<4x2xf32>, %i: tensor<4xi32>):
    // expected-warning@+1 {{host_call host1: 'neuron.softmax' has no reference kernel}}
    %s = neuron.softmax %a axis 1 : tensor<4x2xf32>
    neuron.yield %s : tensor<4x2xf32>
  }
  return %r, %g : tensor<4xi32>, tensor<4x2xf32>
}
