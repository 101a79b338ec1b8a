// Tests that neuron-compile and neuron-translate take the target from the
// module's neuron.target when no target is given, accept one that agrees
// and reject one that does not, and that neuron-compile writes the
// attribute for every pass to read.

// RUN: rm -rf %t && mkdir -p %t
// RUN: neuron-compile %s -o %t/a.nxe
// RUN: neuron-run %t/a.nxe --describe | FileCheck %s
// RUN: neuron-compile %s --target=trn1 -o %t/b.nxe
// RUN: neuron-run %t/b.nxe --describe | FileCheck %s
// RUN: not neuron-compile %s --target=trn2 -o %t/c.nxe 2>&1 | FileCheck %s --check-prefix=CONFLICT
// CHECK: target: trainium,lnc=1
// CONFLICT: error: neuron-compile: target=trn2 is trainium2,lnc=2, but the module is compiled for trainium,lnc=1 (neuron.target)

// Without the attribute, neuron-compile writes --target's.
// RUN: sed 's/attributes {neuron.target = .*} //' %s > %t/plain.mlir
// RUN: neuron-compile %t/plain.mlir --target=inf2.xlarge -o %t/d.nxe --dump-ir-after-each=%t/plain-ir
// RUN: cat %t/plain-ir/*/*_nisa-schedule.mlir | FileCheck %s --check-prefix=STAMPED
// STAMPED: module attributes {neuron.target = #neuron.target<chip = "inferentia2", instance = "inf2.xlarge">}

// neuron-translate records the module's target unless told another.
// RUN: neuron-opt %s --convert-neuron-to-nisa --nisa-allocate -o %t/k.mlir
// RUN: neuron-translate --nisa-to-executable %t/k.mlir -o %t/e.nxe
// RUN: neuron-run %t/e.nxe --describe | FileCheck %s
// RUN: not neuron-translate --nisa-to-executable --executable-target=inf2 %t/k.mlir -o %t/f.nxe 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TRANSLATE
// TRANSLATE: error: nisa-to-executable: target=inf2 is inferentia2,lnc=1, but the module is compiled for trainium,lnc=1 (neuron.target)

module attributes {neuron.target = #neuron.target<chip = "trainium">} {
  func.func @graph(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
    %y = neuron.exp %x : tensor<128x64xf32>
    return %y : tensor<128x64xf32>
  }
}
