// neuron-compile writes no executable the runtime could not run: a host
// call whose region has an op without a reference kernel is a located error
// (neuron-translate only warns, test/tools/neuron-translate-host-warnings.mlir).
// Found by the differential tests: i16 arithmetic of a lowered tosa.negate
// compiled with a warning and failed in neuron-run.

// RUN: rm -rf %t && mkdir -p %t
// RUN: not neuron-compile %s --target=trn1 --fallback=host -o %t/g.nxe 2>&1 | FileCheck %s
// RUN: not ls %t/g.nxe
// CHECK: neuron-compile-unrunnable-host.mlir:[[@LINE+4]]:8: error: host_call host0: 'arith.constant' has no reference kernel, so neuron-run could not run this step; no executable is written
// CHECK: note: its type is not a manifest dtype
func.func @negate_i8(%x: tensor<260x4x2xi8>) -> tensor<260x4x2xi8> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.negate %x, %zp, %zp : (tensor<260x4x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<260x4x2xi8>
  return %r : tensor<260x4x2xi8>
}
