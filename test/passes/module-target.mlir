// Tests that the passes needing the target read the module's neuron.target:
// without an option each compiles for the module's target; an option naming
// the same target is accepted; another target is an error at the module.
// (module-target-kernel.mlir does the same for nisa-schedule.)

// RUN: neuron-opt %s --neuron-check-coverage=summary -o /dev/null 2>&1 | FileCheck %s --check-prefix=COVERAGE
// RUN: neuron-opt %s --convert-neuron-to-nisa | FileCheck %s --check-prefix=TILING
// RUN: neuron-opt %s --neuron-check-coverage=target=trn1 --convert-neuron-to-nisa=target=trainium,lnc=1 -o /dev/null
// RUN: not neuron-opt %s --neuron-check-coverage=target=trn2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not neuron-opt %s --convert-neuron-to-nisa=target=inf2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFLICT-TILING
// RUN: not neuron-opt %s --neuron-place-collectives=target=trn2.48xlarge -o /dev/null 2>&1 | FileCheck %s --check-prefix=CONFLICT-PLACEMENT

// The coverage check judges against trn1's table, the one the module names.
// COVERAGE: coverage on trainium,lnc=1 (trn1)
// trn1's SBUF: 192 KiB per partition.
// TILING: nisa.limits = #nisa.limits<partitions = 128, sbuf_bytes = 196608
// CONFLICT: error: neuron-check-coverage: target=trn2 is trainium2,lnc=2, but the module is compiled for trainium,lnc=1 (neuron.target); drop the option or change the attribute
// CONFLICT-TILING: error: convert-neuron-to-nisa: target=inf2 is inferentia2,lnc=1, but the module is compiled for trainium,lnc=1 (neuron.target)
// CONFLICT-PLACEMENT: error: neuron-place-collectives: target=trn2.48xlarge is trn2.48xlarge,lnc=2, but the module is compiled for trainium,lnc=1 (neuron.target)

module attributes {neuron.target = #neuron.target<chip = "trainium">} {
  func.func @graph(%x: tensor<128x64xf32>) -> tensor<128x64xf32> {
    %y = neuron.exp %x : tensor<128x64xf32>
    return %y : tensor<128x64xf32>
  }
}
