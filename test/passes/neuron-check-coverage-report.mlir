// Tests the JSON report and the summary table for each policy.

// RUN: rm -rf %t && mkdir -p %t
// RUN: not neuron-opt %s --neuron-check-coverage="target=inf2.48xlarge report=%t/error.json summary" -o /dev/null 2> %t/error.txt
// RUN: FileCheck %s --check-prefix=ERROR < %t/error.json
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/error.txt
// RUN: neuron-opt %s --neuron-check-coverage="target=inf2.48xlarge fallback=host report=%t/host.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=HOST < %t/host.json

// ERROR: "schema": "neuron-coverage-report/1",
// ERROR: "compiler": {
// ERROR:   "name": "neuron-mlir",
// ERROR: "target": {
// ERROR:   "spec": "inf2.48xlarge,lnc=1",
// ERROR:   "chip": "inferentia2",
// ERROR:   "generation": "inf2",
// ERROR:   "instance": "inf2.48xlarge",
// ERROR:   "lnc": 1,
// ERROR: "policy": "error",
// ERROR: "totals": {
// ERROR:   "judged_ops": 4,
// ERROR:   "native": 2,
// ERROR:   "decomposed": 0,
// ERROR:   "host": 0,
// ERROR:   "unsupported": 2,
// ERROR:   "device_ops_after_policy": 2,
// ERROR:   "coverage_percent": 50.0
// ERROR: "neuron.erf": {
// ERROR:   "native": 0,
// ERROR:   "unsupported": 1
// ERROR: "unsupported": [
// ERROR:   "op": "neuron.erf",
// ERROR:   "location": "{{.*}}neuron-check-coverage-report.mlir:{{[0-9]+}}:{{[0-9]+}}",
// ERROR:   "rule": "op",
// ERROR:   "op": "neuron.reduce_mean",
// ERROR:   "rule": "op",

// SUMMARY: coverage on inf2.48xlarge,lnc=1 (inf2), policy error: 50.0% of ops on the device
// SUMMARY: op native decomposed host custom unsupported
// SUMMARY: neuron.erf 0 0 0 0 1
// SUMMARY: total 2 0 0 0 2

// HOST: "policy": "host",
// HOST: "judged_ops": 4,
// HOST: "decomposed": 1,
// HOST: "host": 1,
// HOST: "unsupported": 0,
// HOST: "host_calls": [
// HOST:   "reason": "unsupported on inf2: neuron.erf",
// HOST:   "ops": 1,
// HOST:   "bytes_to_host": 128,
// HOST:   "bytes_to_device": 128,
// HOST: "host_transfer": {
// HOST:   "bytes": 256,

func.func @f(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = neuron.exp %x : tensor<4x8xf32>
  %1 = neuron.erf %0 : tensor<4x8xf32>
  %2 = neuron.relu %1 : tensor<4x8xf32>
  %3 = neuron.reduce_mean %2 axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
