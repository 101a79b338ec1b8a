// Tests that bad input to the coverage check is a clear error with a
// non-zero exit: an unknown target, an unknown policy, a malformed
// capability table, a generation without a table.

// RUN: not neuron-opt %s --neuron-check-coverage="target=trn9" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: neuron-check-coverage: unknown target 'trn9'; known chips: inferentia2 (inf2), trainium (trn1), trainium2 (trn2)

// RUN: not neuron-opt %s --neuron-check-coverage="target=trn2 fallback=cpu" 2>&1 | FileCheck %s --check-prefix=POLICY
// POLICY: error: neuron-check-coverage: unknown fallback policy 'cpu'; expected error, decompose or host

// RUN: rm -rf %t && mkdir -p %t/bad %t/empty %t/other
// RUN: echo '{"schema": "neuron-capabilities/1", "generation": "trn2", "note": "bad", "ops": {"matmul": {}}}' > %t/bad/trn2.json
// RUN: not neuron-opt %s --neuron-check-coverage="target=trn2 capability-dir=%t/bad" 2>&1 | FileCheck %s --check-prefix=TABLE
// TABLE: error: neuron-check-coverage: {{.*}}trn2.json: ops.matmul: expected an op name "neuron.OP", found a string "matmul"

// RUN: not neuron-opt %s --neuron-check-coverage="target=trn2 capability-dir=%t/empty" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: neuron-check-coverage: no *.json capability table files in '{{.*}}empty'

// RUN: sed 's/"generation": "trn1"/"generation": "trn7"/' %S/../../runtime/target/data/capabilities/trn1.json > %t/other/trn7.json
// RUN: not neuron-opt %s --neuron-check-coverage="target=trn2 capability-dir=%t/other" 2>&1 | FileCheck %s --check-prefix=NOTABLE
// NOTABLE: error: neuron-check-coverage: no capability table for generation 'trn2' (target 'trainium2,lnc=2')

// RUN: not neuron-opt %s --neuron-check-coverage="target=trn2 report=%t/no/such/dir/r.json" 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: error: neuron-check-coverage: cannot write coverage report '{{.*}}no/such/dir/r.json': No such file or directory

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = neuron.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
