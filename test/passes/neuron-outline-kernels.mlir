// RUN: neuron-opt %s -split-input-file --neuron-outline-kernels | FileCheck %s
// RUN: neuron-opt %s -split-input-file --neuron-outline-kernels="summary" \
// RUN:   -verify-diagnostics -o /dev/null

// Three layers that differ only in their weights: one kernel, three
// launches; the weights (constants) stay in the program.

// CHECK-LABEL: func.func private @layers_kernel0(
// CHECK-SAME:  %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-SAME:  attributes {neuron.kernel}
// CHECK:       neuron.matmul %[[X]], %[[W]]
// CHECK:       neuron.relu
// CHECK:       neuron.add
// CHECK:       neuron.mul
// CHECK-NOT:   func.func private
// CHECK-LABEL: func.func @layers(
// CHECK-SAME: attributes {neuron.program}
// CHECK:       %[[W0:.*]] = neuron.constant dense<1.000000e+00>
// CHECK:       %[[L0:.*]] = neuron.launch @layers_kernel0(%arg0, %[[W0]])
// CHECK:       %[[W1:.*]] = neuron.constant dense<2.000000e+00>
// CHECK:       %[[L1:.*]] = neuron.launch @layers_kernel0(%[[L0]], %[[W1]])
// CHECK:       %[[W2:.*]] = neuron.constant dense<3.000000e+00>
// CHECK:       %[[L2:.*]] = neuron.launch @layers_kernel0(%[[L1]], %[[W2]])
// CHECK:       return %[[L2]]
// expected-remark @below {{neuron-outline-kernels: 3 launches of 1 kernels; a layer of 4 ops repeats 3 times}}
func.func @layers(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %w0 = neuron.constant dense<1.0> : tensor<8x8xf32>
  %a0 = neuron.matmul %x, %w0 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b0 = neuron.relu %a0 : tensor<4x8xf32>
  %c0 = neuron.add %b0, %x : tensor<4x8xf32>
  %d0 = neuron.mul %c0, %c0 : tensor<4x8xf32>
  %w1 = neuron.constant dense<2.0> : tensor<8x8xf32>
  %a1 = neuron.matmul %d0, %w1 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b1 = neuron.relu %a1 : tensor<4x8xf32>
  %c1 = neuron.add %b1, %d0 : tensor<4x8xf32>
  %d1 = neuron.mul %c1, %c1 : tensor<4x8xf32>
  %w2 = neuron.constant dense<3.0> : tensor<8x8xf32>
  %a2 = neuron.matmul %d1, %w2 : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %b2 = neuron.relu %a2 : tensor<4x8xf32>
  %c2 = neuron.add %b2, %d1 : tensor<4x8xf32>
  %d2 = neuron.mul %c2, %c2 : tensor<4x8xf32>
  return %d2 : tensor<4x8xf32>
}

// -----

// Layers repeat after a distinct stem and before a distinct head: the stem,
// the layer and the head are three kernels.

// CHECK-LABEL: func.func @stem_layers_head
// CHECK:       %[[S:.*]] = neuron.launch @stem_layers_head_kernel0(%arg0)
// CHECK:       %[[L0:.*]] = neuron.launch @stem_layers_head_kernel1(%[[S]])
// CHECK:       %[[L1:.*]] = neuron.launch @stem_layers_head_kernel1(%[[L0]])
// CHECK:       %[[H:.*]] = neuron.launch @stem_layers_head_kernel2(%[[L1]])
// CHECK:       return %[[H]]
// expected-remark @below {{4 launches of 3 kernels; a layer of 4 ops repeats 2 times}}
func.func @stem_layers_head(%x: tensor<8x8xf32>) -> tensor<8xf32> {
  %s = neuron.exp %x : tensor<8x8xf32>
  %a0 = neuron.tanh %s : tensor<8x8xf32>
  %b0 = neuron.relu %a0 : tensor<8x8xf32>
  %c0 = neuron.add %b0, %s : tensor<8x8xf32>
  %d0 = neuron.mul %c0, %c0 : tensor<8x8xf32>
  %a1 = neuron.tanh %d0 : tensor<8x8xf32>
  %b1 = neuron.relu %a1 : tensor<8x8xf32>
  %c1 = neuron.add %b1, %d0 : tensor<8x8xf32>
  %d1 = neuron.mul %c1, %c1 : tensor<8x8xf32>
  %r = neuron.reduce_sum %d1 axes [1] : tensor<8x8xf32> -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A host call splits the device ops: the ops before it and the ops after
// it are separate kernels; values crossing are launch results and inputs.

// CHECK-LABEL: func.func @around_host
// CHECK:       %[[A:.*]]:2 = neuron.launch @around_host_kernel0(%arg0) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:       %[[H:.*]] = neuron.host_call(%[[A]]#1)
// CHECK:       %[[B:.*]] = neuron.launch @around_host_kernel1(%[[H]], %[[A]]#0)
// CHECK:       return %[[B]]
// expected-remark @below {{2 launches of 2 kernels}}
func.func @around_host(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = neuron.exp %x : tensor<4xf32>
  %b = neuron.tanh %a : tensor<4xf32>
  %h = neuron.host_call(%b) reason "test" : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%arg: tensor<4xf32>):
    neuron.yield %arg : tensor<4xf32>
  }
  %c = neuron.add %h, %a : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A reshape of an argument is a view: it stays in the program. A returned
// argument needs no kernel.

// CHECK-LABEL: func.func @views
// CHECK:       %[[R:.*]] = neuron.reshape %arg0
// CHECK:       %[[L:.*]] = neuron.launch @views_kernel0(%[[R]])
// CHECK:       return %[[L]], %arg0
// expected-remark @below {{1 launches of 1 kernels}}
func.func @views(%x: tensor<2x8xf32>) -> (tensor<16xf32>, tensor<2x8xf32>) {
  %r = neuron.reshape %x : tensor<2x8xf32> -> tensor<16xf32>
  %e = neuron.exp %r : tensor<16xf32>
  return %e, %x : tensor<16xf32>, tensor<2x8xf32>
}

// -----

// The frontend emitted the second layer's independent ops in another order;
// the layers are still one kernel.

// CHECK-LABEL: func.func @reordered
// CHECK:       %[[L0:.*]] = neuron.launch @reordered_kernel0(%arg0)
// CHECK:       %[[L1:.*]] = neuron.launch @reordered_kernel0(%[[L0]])
// CHECK:       return %[[L1]]
// expected-remark @below {{2 launches of 1 kernels; a layer of 4 ops repeats 2 times}}
func.func @reordered(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a0 = neuron.exp %x : tensor<8xf32>
  %b0 = neuron.tanh %x : tensor<8xf32>
  %c0 = neuron.mul %a0, %b0 : tensor<8xf32>
  %d0 = neuron.add %c0, %x : tensor<8xf32>
  %b1 = neuron.tanh %d0 : tensor<8xf32>
  %a1 = neuron.exp %d0 : tensor<8xf32>
  %c1 = neuron.mul %a1, %b1 : tensor<8xf32>
  %d1 = neuron.add %c1, %d0 : tensor<8xf32>
  return %d1 : tensor<8xf32>
}

// -----

// A splat constant the kernel reads only as an immediate (a ReLU6's
// bounds, on either side of a commutative op) goes into the kernel; one
// also read as a tensor (a matmul's weights), or on the left of a
// subtraction, stays in the program and is an argument.

// CHECK-LABEL: func.func private @immediates_kernel0(
// CHECK-SAME:  %[[X:.*]]: tensor<8x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[ONE:.*]]: tensor<8x8xf32>)
// CHECK-NEXT:  %[[Z:.*]] = neuron.constant dense<0.000000e+00>
// CHECK-NEXT:  %[[SIX:.*]] = neuron.constant dense<6.000000e+00>
// CHECK-NEXT:  %[[M:.*]] = neuron.matmul %[[X]], %[[W]]
// CHECK-NEXT:  %[[LO:.*]] = neuron.max %[[Z]], %[[M]]
// CHECK-NEXT:  %[[HI:.*]] = neuron.min %[[LO]], %[[SIX]]
// CHECK-NEXT:  %[[S:.*]] = neuron.sub %[[ONE]], %[[HI]]
// CHECK-NEXT:  %[[A:.*]] = neuron.add %[[S]], %[[W]]
// CHECK-LABEL: func.func @immediates(
// CHECK-NOT:   neuron.constant dense<0.000000e+00>
// CHECK-NOT:   neuron.constant dense<6.000000e+00>
// CHECK-DAG:   %[[PW:.*]] = neuron.constant dense<2.000000e+00>
// CHECK-DAG:   %[[PONE:.*]] = neuron.constant dense<1.000000e+00>
// CHECK:       neuron.launch @immediates_kernel0(%arg0, %[[PW]], %[[PONE]])
// expected-remark @below {{neuron-outline-kernels: 1 launches of 1 kernels}}
func.func @immediates(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = neuron.constant dense<0.0> : tensor<8x8xf32>
  %six = neuron.constant dense<6.0> : tensor<8x8xf32>
  %one = neuron.constant dense<1.0> : tensor<8x8xf32>
  %w = neuron.constant dense<2.0> : tensor<8x8xf32>
  %m = neuron.matmul %x, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %lo = neuron.max %zero, %m : tensor<8x8xf32>
  %hi = neuron.min %lo, %six : tensor<8x8xf32>
  %s = neuron.sub %one, %hi : tensor<8x8xf32>
  %a = neuron.add %s, %w : tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// Tests a cache written in place: the kernel's result is a
// dynamic_update_slice of its argument, which nothing else reads, and the
// program argument passed for it goes to this launch alone; the result
// attribute names the input, and the launch says which result it holds.
// CHECK-LABEL: func.func private @in_place_kernel0
// CHECK-SAME: -> (tensor<16x64xf32> {neuron.in_place = 1 : i64}, tensor<16x64xf32>)
// CHECK-LABEL: func.func @in_place(
// CHECK: neuron.launch @in_place_kernel0(%{{.*}}, %{{.*}}, %{{.*}}) {in_place = array<i64: 1, -1>}
// expected-remark @below {{1 launches of 1 kernels}}
func.func @in_place(%cache: tensor<16x64xf32>, %row: tensor<1x64xf32>, %pos: tensor<i32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %0 = neuron.dynamic_update_slice %row into %cache[%pos] axis 0 : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i32>) -> tensor<16x64xf32>
  %1 = neuron.exp %0 : tensor<16x64xf32>
  return %0, %1 : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Tests caches that cannot be written in place: one still read after the
// update (by the kernel and by the program), and one a constant.
// CHECK-LABEL: func.func private @not_in_place_kernel0
// CHECK-NOT: neuron.in_place
// CHECK-LABEL: func.func @not_in_place(
// CHECK-NOT: in_place =
// CHECK: return
// expected-remark @below {{1 launches of 1 kernels}}
func.func @not_in_place(%cache: tensor<16x64xf32>, %row: tensor<1x64xf32>, %pos: tensor<i32>) -> (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %0 = neuron.dynamic_update_slice %row into %cache[%pos] axis 0 : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i32>) -> tensor<16x64xf32>
  %1 = neuron.add %0, %cache : tensor<16x64xf32>
  %c = neuron.constant dense<1.0> : tensor<16x64xf32>
  %2 = neuron.dynamic_update_slice %row into %c[%pos] axis 0 : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i32>) -> tensor<16x64xf32>
  return %0, %1, %2, %cache : tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// Tests joins of collective results (neuron-decompose-collectives' row
// chunks): a concat of all-reduces nothing else reads stays in the program
// (the executable lets each all-reduce write its window of it); one whose
// pieces are not contiguous windows (axis 1 of 16 rows), or a piece
// read again, is a kernel's copy.
// CHECK-LABEL: func.func @joins(
// CHECK: %[[A:.*]] = neuron.all_reduce
// CHECK: %[[B:.*]] = neuron.all_reduce
// CHECK-NEXT: %[[J:.*]] = neuron.concat %[[A]], %[[B]] axis 0
// CHECK: neuron.all_reduce
// CHECK: neuron.all_reduce
// CHECK-NOT: neuron.concat
// CHECK: return
// expected-remark @below {{launches of}}
func.func @joins(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> (tensor<32x64xf32>, tensor<16x128xf32>, tensor<32x64xf32>) {
  %e = neuron.exp %x : tensor<16x64xf32>
  %a = neuron.all_reduce %e grid [2] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %f = neuron.exp %y : tensor<16x64xf32>
  %b = neuron.all_reduce %f grid [2] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %j = neuron.concat %a, %b axis 0 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<32x64xf32>
  %g = neuron.relu %x : tensor<16x64xf32>
  %c = neuron.all_reduce %g grid [2] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %h = neuron.relu %y : tensor<16x64xf32>
  %d = neuron.all_reduce %h grid [2] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %k = neuron.concat %c, %d axis 1 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x128xf32>
  %l = neuron.concat %c, %c axis 0 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<32x64xf32>
  return %j, %k, %l : tensor<32x64xf32>, tensor<16x128xf32>, tensor<32x64xf32>
}

// -----

// Tests contiguous slices of an earlier kernel's result (row chunks read
// after a collective): they stay in the program as views, so the kernels
// reading them are the same kernel. A slice of a value the same run
// computes stays in its kernel.
// CHECK-LABEL: func.func @chunk_views(
// CHECK: %[[E:.*]] = neuron.launch @chunk_views_kernel0(
// CHECK: neuron.all_reduce
// CHECK: %[[S0:.*]] = neuron.slice %[[E]] offsets [0, 0]
// CHECK: neuron.launch @chunk_views_kernel1(%[[S0]])
// CHECK: neuron.all_reduce
// CHECK: %[[S1:.*]] = neuron.slice %[[E]] offsets [16, 0]
// CHECK: neuron.launch @chunk_views_kernel1(%[[S1]])
// CHECK-NOT: neuron.slice
// CHECK: return
// expected-remark @below {{3 launches of 2 kernels}}
func.func @chunk_views(%x: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %e = neuron.exp %x : tensor<32x64xf32>
  %a = neuron.all_reduce %e grid [2] axes [0] reduction <sum> : tensor<32x64xf32> -> tensor<32x64xf32>
  %s0 = neuron.slice %e offsets [0, 0] strides [1, 1] : tensor<32x64xf32> -> tensor<16x64xf32>
  %r0 = neuron.relu %s0 : tensor<16x64xf32>
  %b = neuron.all_reduce %r0 grid [2] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  %s1 = neuron.slice %e offsets [16, 0] strides [1, 1] : tensor<32x64xf32> -> tensor<16x64xf32>
  %r1 = neuron.relu %s1 : tensor<16x64xf32>
  %c = neuron.all_reduce %r1 grid [2] axes [0] reduction <sum> : tensor<16x64xf32> -> tensor<16x64xf32>
  return %a, %b, %c : tensor<32x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}
