// RUN: neuron-opt %s -split-input-file -verify-diagnostics --neuron-place-collectives="target=trn2.48xlarge summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s

// Tests the placement: the start is hoisted to just after the relu that
// defines its input (above the independent matmul), the done sunk to just
// before the add that uses it (below the independent exp). Four cores of
// one chip (lnc=2 gives 4 logical cores per trn2 chip) all reach each
// other: the mesh takes one step per phase, two in all (halving-doubling
// four, the ring six).
// CHECK-LABEL: func.func @overlap
// CHECK: %[[P:.*]] = neuron.relu
// CHECK-NEXT: %[[H:.*]] = neuron.collective_start all_reduce %[[P]] grid [4] axes [0] reduction <sum> {algorithm = "mesh", chunks = 1 : i64, predicted_ns = {{.*}}} : tensor<128x512xf32> -> !neuron.pending<tensor<128x512xf32>>
// CHECK-NEXT: neuron.matmul
// CHECK-NEXT: %[[E:.*]] = neuron.exp
// CHECK-NEXT: %[[R:.*]] = neuron.collective_done %[[H]]
// CHECK-NEXT: neuron.add %[[R]], %[[E]]
func.func @overlap(%x: tensor<128x512xf32>, %a: tensor<128x256xf32>, %b: tensor<256x512xf32>) -> tensor<128x512xf32> {
  %p = neuron.relu %x : tensor<128x512xf32>
  %m = neuron.matmul %a, %b : (tensor<128x256xf32>, tensor<256x512xf32>) -> tensor<128x512xf32>
  // expected-remark@+1 {{neuron-place-collectives: all_reduce of 256.0 KiB over 4 cores on 1 chip: mesh, predicted}}
  %r = neuron.all_reduce %p grid [4] axes [0] reduction <sum> : tensor<128x512xf32> -> tensor<128x512xf32>
  %e = neuron.exp %m : tensor<128x512xf32>
  %s = neuron.add %r, %e : tensor<128x512xf32>
  return %s : tensor<128x512xf32>
}

// -----

// Tests an argument input: the start goes to the top of the function, and
// a result only returned finishes just before the return.
// CHECK-LABEL: func.func @argument
// CHECK-NEXT: neuron.collective_start all_gather %{{.*}} grid [2, 4] axes [1] axis 0
// CHECK-NEXT: neuron.exp
// CHECK-NEXT: neuron.collective_done
// CHECK-NEXT: return
func.func @argument(%x: tensor<32x64xf32>, %y: tensor<8xf32>) -> (tensor<128x64xf32>, tensor<8xf32>) {
  %e = neuron.exp %y : tensor<8xf32>
  // expected-remark@+1 {{started at the start of the block (its input is an argument or defined outside), 1 ops earlier; done sunk 0 ops later, before the return}}
  %g = neuron.all_gather %x grid [2, 4] axes [1] axis 0 : tensor<32x64xf32> -> tensor<128x64xf32>
  return %g, %e : tensor<128x64xf32>, tensor<8xf32>
}

// -----

// Tests a group spanning chips: 16 cores along the axis are 4 chips of 4
// logical cores; a large all-reduce goes hierarchical (within each chip,
// then across chips on a quarter of the data), pipelined in chunks.
// CHECK-LABEL: func.func @across_chips
// CHECK: neuron.collective_start all_reduce {{.*}} {algorithm = "hierarchical", chunks = {{[0-9]+}} : i64
func.func @across_chips(%x: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  // expected-remark@+1 {{all_reduce of 65536.0 KiB over 16 cores on 4 chips: hierarchical in}}
  %r = neuron.all_reduce %x grid [16] axes [0] reduction <sum> : tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}

// -----

// Tests a group of one core per chip (grid [4, 4] along axis 0: ranks 0,
// 4, 8 and 12 on 4 chips): no mesh across chips and no hierarchy within
// one, so halving-doubling, in fewer steps than the ring.
// CHECK-LABEL: func.func @one_core_per_chip
// CHECK: neuron.collective_start all_reduce {{.*}} {algorithm = "halving-doubling", chunks = 1 : i64
func.func @one_core_per_chip(%x: tensor<128x512xf32>) -> tensor<128x512xf32> {
  // expected-remark@+1 {{all_reduce of 256.0 KiB over 4 cores on 4 chips: halving-doubling, predicted}}
  %r = neuron.all_reduce %x grid [4, 4] axes [0] reduction <sum> : tensor<128x512xf32> -> tensor<128x512xf32>
  return %r : tensor<128x512xf32>
}

// -----

// Tests an all_slice: nothing crosses a link, so its one algorithm is a
// local copy, whatever the group spans.
// CHECK-LABEL: func.func @slice
// CHECK: neuron.collective_start all_slice {{.*}} {algorithm = "local", chunks = 1 : i64
func.func @slice(%x: tensor<4096x4096xf32>) -> tensor<4096x256xf32> {
  // expected-remark@+1 {{all_slice of 65536.0 KiB over 16 cores on 4 chips: local}}
  %r = neuron.all_slice %x grid [16] axes [0] axis 1 : tensor<4096x4096xf32> -> tensor<4096x256xf32>
  return %r : tensor<4096x256xf32>
}

// -----

// Tests the error for a grid larger than the instance: trn2.48xlarge has
// 16 chips of 4 logical cores at lnc=2.
func.func @too_large(%x: tensor<128xf32>) -> tensor<128xf32> {
  // expected-error@+1 {{neuron-place-collectives: the grid [8, 16] has 128 logical cores, but trn2.48xlarge,lnc=2 holds 64 (4 logical cores per chip at lnc=2, 16 chips); use a smaller grid or a larger instance}}
  %r = neuron.all_reduce %x grid [8, 16] axes [1] reduction <sum> : tensor<128xf32> -> tensor<128xf32>
  return %r : tensor<128xf32>
}

// -----

// Tests a join of collective results (row chunks writing one tensor): the
// join moves to just before its first use, so both dones sink below the
// independent exp, as a whole collective's would.
// CHECK-LABEL: func.func @join_sinks
// CHECK: %[[HY:.*]] = neuron.collective_start all_reduce %arg1
// CHECK: %[[HX:.*]] = neuron.collective_start all_reduce %arg0
// CHECK: %[[E:.*]] = neuron.exp
// CHECK-NEXT: %[[A:.*]] = neuron.collective_done %[[HX]]
// CHECK-NEXT: %[[B:.*]] = neuron.collective_done %[[HY]]
// CHECK-NEXT: %[[J:.*]] = neuron.concat %[[A]], %[[B]] axis 0
// CHECK-NEXT: neuron.add %[[J]], %[[E]]
func.func @join_sinks(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>, %z: tensor<32x64xf32>) -> tensor<32x64xf32> {
  // expected-remark@+1 {{neuron-place-collectives: all_reduce of 4.0 KiB}}
  %a = neuron.all_reduce %x grid [4] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  // expected-remark@+1 {{neuron-place-collectives: all_reduce of 4.0 KiB}}
  %b = neuron.all_reduce %y grid [4] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %j = neuron.concat %a, %b axis 0 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<32x64xf32>
  %e = neuron.exp %z : tensor<32x64xf32>
  %s = neuron.add %j, %e : tensor<32x64xf32>
  return %s : tensor<32x64xf32>
}
