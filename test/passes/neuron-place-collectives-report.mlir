// Tests the placement report: the target with its logical-core mode, the
// model's assumptions, and for each collective what was decided and why.
// RUN: neuron-opt %s --neuron-place-collectives="target=trn2.48xlarge report=%t.json" -o /dev/null
// RUN: FileCheck %s < %t.json
// RUN: not neuron-opt %s --neuron-place-collectives="target=trn2.48xlarge report=%t/no/such/dir/r.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: error: neuron-place-collectives: cannot write placement report '{{.*}}no/such/dir/r.json': No such file or directory

// CHECK: "schema": "neuron-collective-placement/1"
// CHECK: "spec": "trn2.48xlarge,lnc=2"
// CHECK: "lnc": 2
// CHECK: "lnc_definition": "one logical NeuronCore is 2 physical NeuronCore-v3
// CHECK: "logical_cores_per_chip": 4
// CHECK: "chips": 16
// CHECK: "model": "collectives: 1000 ns per step within a chip
// CHECK: "kind": "all_reduce"
// CHECK: "bytes": 262144
// CHECK: "cores": 4
// CHECK: "chips": 1
// CHECK: "algorithm": "mesh"
// CHECK: "chunks": 1
// CHECK: "candidates": "ring {{.*}} us, halving-doubling {{.*}} us, mesh {{.*}} us"
// CHECK: "start": "right after its input is defined"
// CHECK: "start_hoisted_ops": 1
// CHECK: "done_sunk_ops": 1
// CHECK: "overlap_ns": {{[1-9]}}
// CHECK: "explanation": "all_reduce of 256.0 KiB over 4 cores on 1 chip
func.func @overlap(%x: tensor<128x512xf32>, %a: tensor<128x256xf32>, %b: tensor<256x512xf32>) -> tensor<128x512xf32> {
  %p = neuron.relu %x : tensor<128x512xf32>
  %m = neuron.matmul %a, %b : (tensor<128x256xf32>, tensor<256x512xf32>) -> tensor<128x512xf32>
  %r = neuron.all_reduce %p grid [4] axes [0] reduction <sum> : tensor<128x512xf32> -> tensor<128x512xf32>
  %e = neuron.exp %m : tensor<128x512xf32>
  %s = neuron.add %r, %e : tensor<128x512xf32>
  return %s : tensor<128x512xf32>
}
