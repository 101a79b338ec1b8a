// RUN: neuron-opt %s -split-input-file -verify-diagnostics --neuron-place-collectives="target=trn2.48xlarge summary=true" -mlir-print-op-on-diagnostic=false | FileCheck %s
// RUN: neuron-opt %s -split-input-file --neuron-place-collectives="target=trn2.48xlarge await-in-kernels=false" | FileCheck %s --check-prefix=NOAWAIT

// Tests launches awaiting collectives inside. The launch right after an
// all-reduce's done (a reshape between runs nothing) awaits it: the
// executable starts it while the all-reduce is in flight. A later launch
// reading the same result does not (the done is before the first), nor
// does a launch writing it in place. A kernel gets its inputs' predicted
// arrivals (0 for the rest), the earliest over its launches: none for
// @other, which one of its launches reads without waiting.
// CHECK-LABEL: func.func private @next
// CHECK-SAME: neuron.input_arrivals_ns = array<f64: 0.000000e+00, {{[1-9][0-9.e+]*}}>
// CHECK-LABEL: func.func private @other
// CHECK-NOT: input_arrivals_ns
// CHECK-LABEL: func.func @program
// CHECK: %[[R:.*]] = neuron.collective_done
// CHECK-NEXT: %[[V:.*]] = neuron.reshape %[[R]]
// CHECK-NEXT: neuron.launch @next(%arg1, %[[V]]) {awaits = array<i64: 1>}
// CHECK: %[[S:.*]] = neuron.collective_done
// CHECK-NEXT: neuron.launch @other(%arg1, %[[S]]) {awaits = array<i64: 1>}
// CHECK-NEXT: neuron.launch @other(%[[S]], %arg1) :
// CHECK: %[[T:.*]] = neuron.collective_done
// CHECK-NEXT: neuron.launch @write(%[[T]], %arg1) {in_place = array<i64: 0>} :
// NOAWAIT-LABEL: func.func private @next(
// NOAWAIT-NOT: awaits =
// NOAWAIT-NOT: input_arrivals_ns
func.func private @first(%x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {neuron.kernel} {
  %0 = neuron.exp %x : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
func.func private @next(%w: tensor<16x64xf32>, %x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {neuron.kernel} {
  %0 = neuron.add %w, %x : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
func.func private @other(%w: tensor<16x64xf32>, %x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {neuron.kernel} {
  %0 = neuron.mul %w, %x : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
func.func private @write(%c: tensor<16x64xf32>, %x: tensor<16x64xf32>) -> (tensor<16x64xf32> {neuron.in_place = 0 : i64}) attributes {neuron.kernel} {
  %0 = neuron.add %c, %x : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
func.func @program(%x: tensor<16x64xf32>, %w: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %a = neuron.launch @first(%x) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  // expected-remark@+1 {{neuron-place-collectives: all_reduce of 4.0 KiB}}
  %r = neuron.all_reduce %a grid [4] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %v = neuron.reshape %r : tensor<16x64xf32> -> tensor<16x64xf32>
  // expected-remark@+1 {{neuron-place-collectives: launch of @next awaits input 1 (all_reduce) inside: it starts while the collective is in flight, and only its reads of the result wait for it}}
  %n = neuron.launch @next(%w, %v) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  // expected-remark@+1 {{neuron-place-collectives: all_reduce of 4.0 KiB}}
  %s = neuron.all_reduce %n grid [4] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %b = neuron.launch @first(%w) : (tensor<16x64xf32>) -> tensor<16x64xf32>
  // expected-remark@+1 {{launch of @other awaits input 1 (all_reduce) inside}}
  %o = neuron.launch @other(%w, %s) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %p = neuron.launch @other(%s, %w) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  // expected-remark@+1 {{neuron-place-collectives: all_reduce of 4.0 KiB}}
  %t = neuron.all_reduce %b grid [4] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %c = neuron.launch @write(%t, %w) {in_place = array<i64: 0>} : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %o, %p, %c : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Tests a collective started between a done and the launch reading its
// result (an all_gather of the all-reduce's result, started right after
// it): the launch does not await the all-reduce, whose done stays before
// that start.
// CHECK-LABEL: func.func @start_between
// CHECK: %[[R:.*]] = neuron.collective_done
// CHECK-NEXT: neuron.collective_start all_gather %[[R]]
// CHECK-NEXT: neuron.launch @next(%arg1, %[[R]]) :
func.func private @next(%w: tensor<16x64xf32>, %x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {neuron.kernel} {
  %0 = neuron.add %w, %x : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
func.func @start_between(%x: tensor<16x64xf32>, %w: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<64x64xf32>) {
  // expected-remark@+1 {{neuron-place-collectives: all_reduce of 4.0 KiB}}
  %r = neuron.all_reduce %x grid [4] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  // expected-remark@+1 {{neuron-place-collectives: all_gather of 16.0 KiB}}
  %g = neuron.all_gather %r grid [4] axes [0] axis 0 : tensor<16x64xf32> -> tensor<64x64xf32>
  %n = neuron.launch @next(%w, %r) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %n, %g : tensor<16x64xf32>, tensor<64x64xf32>
}

// -----

// Tests a stale `awaits` (a launch now runs between the done and the
// launch that awaited it) and stale arrivals: the pass takes them away.
// CHECK-LABEL: func.func private @next
// CHECK-NOT: input_arrivals_ns
// CHECK-LABEL: func.func @stale
// CHECK: neuron.launch @next(%arg1, %{{.*}}) :
// CHECK-NOT: awaits =
func.func private @next(%w: tensor<16x64xf32>, %x: tensor<16x64xf32>) -> tensor<16x64xf32> attributes {neuron.kernel, neuron.input_arrivals_ns = array<f64: 0.0, 100.0>} {
  %0 = neuron.add %w, %x : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
func.func @stale(%x: tensor<16x64xf32>, %w: tensor<16x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %h = neuron.collective_start all_reduce %x grid [4] axes [0] reduction <sum> : tensor<16x64xf32> -> !neuron.pending<tensor<16x64xf32>>
  %r = neuron.collective_done %h : !neuron.pending<tensor<16x64xf32>> -> tensor<16x64xf32>
  %a = neuron.launch @next(%w, %w) : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %n = neuron.launch @next(%w, %r) {awaits = array<i64: 1>} : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %n, %a : tensor<16x64xf32>, tensor<16x64xf32>
}
