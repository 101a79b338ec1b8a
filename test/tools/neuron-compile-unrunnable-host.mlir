// neuron-compile writes no executable the runtime could not run: a host
// call whose region has an op without a reference kernel is a located error
// (neuron-translate only warns, test/tools/neuron-translate-host-warnings.mlir).
// Here: i4 arithmetic, an element type the manifest has no dtype for.
// (The differential tests found this with i16, the arithmetic of a lowered
// tosa.negate on i8, which now runs: test/e2e/int8_i16.test.)

// RUN: rm -rf %t && mkdir -p %t
// RUN: not neuron-compile %s --target=trn1 --fallback=host -o %t/g.nxe 2>&1 | FileCheck %s
// RUN: not ls %t/g.nxe
// CHECK: neuron-compile-unrunnable-host.mlir:[[@LINE+7]]:10: error: host_call host0: 'arith.trunci' has no reference kernel, so neuron-run could not run this step; no executable is written
// CHECK: note: its type is not a manifest dtype
func.func @wrap_i4(%x: tensor<8xi32>) -> tensor<8xi32> {
  %e = tensor.empty() : tensor<8xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xi32>) outs(%e : tensor<8xi32>) {
  ^bb0(%u: i32, %o: i32):
    %t = arith.trunci %u : i32 to i4
    %w = arith.extsi %t : i4 to i32
    linalg.yield %w : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}
