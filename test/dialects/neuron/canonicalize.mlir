// Folders and canonicalization patterns of the neuron dialect.
// RUN: neuron-opt %s -canonicalize -split-input-file --allow-unregistered-dialect | FileCheck %s

// x + (-0.0), (-0.0) + x and integer x + 0 fold to x.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK-NOT: neuron.add
// CHECK: return %[[X]], %[[X]], %[[I]]
func.func @add_zero(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %zero = neuron.constant dense<-0.0> : tensor<4xf32>
  %izero = neuron.constant dense<0> : tensor<4xi32>
  %0 = neuron.add %x, %zero : tensor<4xf32>
  %1 = neuron.add %zero, %x : tensor<4xf32>
  %2 = neuron.add %i, %izero : tensor<4xi32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// x + 0.0 is kept: for x = -0.0 it is +0.0, not x.
// CHECK-LABEL: func.func @add_positive_zero
// CHECK: %[[R:.*]] = neuron.add
// CHECK: %[[L:.*]] = neuron.add
// CHECK: return %[[R]], %[[L]]
func.func @add_positive_zero(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = neuron.constant dense<0.0> : tensor<4xf32>
  %0 = neuron.add %x, %zero : tensor<4xf32>
  %1 = neuron.add %zero, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x + 1 and x + a non-splat constant are kept.
// CHECK-LABEL: func.func @add_nonzero
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
// CHECK-DAG: %[[ONE:.*]] = neuron.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[MIXED:.*]] = neuron.constant dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK: %[[A:.*]] = neuron.add %[[X]], %[[ONE]]
// CHECK: %[[B:.*]] = neuron.add %[[X]], %[[MIXED]]
// CHECK: return %[[A]], %[[B]]
func.func @add_nonzero(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %one = neuron.constant dense<1.0> : tensor<2xf32>
  %mixed = neuron.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = neuron.add %x, %one : tensor<2xf32>
  %1 = neuron.add %x, %mixed : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// x - 0 folds to x.
// CHECK-LABEL: func.func @sub_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NOT: neuron.sub
// CHECK: return %[[X]]
func.func @sub_zero(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %zero = neuron.constant dense<0.0> : tensor<4xbf16>
  %0 = neuron.sub %x, %zero : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// x - (-0.0) is kept: for x = -0.0 it is +0.0, not x.
// CHECK-LABEL: func.func @sub_negative_zero
// CHECK: %[[R:.*]] = neuron.sub
// CHECK: return %[[R]]
func.func @sub_negative_zero(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = neuron.constant dense<-0.0> : tensor<4xf32>
  %0 = neuron.sub %x, %zero : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 0 - x is a negation, not x.
// CHECK-LABEL: func.func @zero_sub
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[ZERO:.*]] = neuron.constant dense<0.000000e+00>
// CHECK: %[[R:.*]] = neuron.sub %[[ZERO]], %[[X]]
// CHECK: return %[[R]]
func.func @zero_sub(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = neuron.constant dense<0.0> : tensor<4xf32>
  %0 = neuron.sub %zero, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x * 1 and 1 * x fold to x.
// CHECK-LABEL: func.func @mul_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi8>)
// CHECK-NOT: neuron.mul
// CHECK: return %[[X]], %[[X]], %[[I]]
func.func @mul_one(%x: tensor<4xf32>, %i: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi8>) {
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %ione = neuron.constant dense<1> : tensor<4xi8>
  %0 = neuron.mul %x, %one : tensor<4xf32>
  %1 = neuron.mul %one, %x : tensor<4xf32>
  %2 = neuron.mul %ione, %i : tensor<4xi8>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi8>
}

// -----

// x * 2 is kept.
// CHECK-LABEL: func.func @mul_two
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[TWO:.*]] = neuron.constant dense<2.000000e+00>
// CHECK: %[[R:.*]] = neuron.mul %[[X]], %[[TWO]]
// CHECK: return %[[R]]
func.func @mul_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = neuron.constant dense<2.0> : tensor<4xf32>
  %0 = neuron.mul %x, %two : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// x / 1 folds to x.
// CHECK-LABEL: func.func @div_one
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NOT: neuron.div
// CHECK: return %[[X]]
func.func @div_one(%x: tensor<4xf16>) -> tensor<4xf16> {
  %one = neuron.constant dense<1.0> : tensor<4xf16>
  %0 = neuron.div %x, %one : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// x / 2 is kept.
// CHECK-LABEL: func.func @div_two
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[TWO:.*]] = neuron.constant dense<2.000000e+00>
// CHECK: %[[R:.*]] = neuron.div %[[X]], %[[TWO]]
// CHECK: return %[[R]]
func.func @div_two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = neuron.constant dense<2.0> : tensor<4xf32>
  %0 = neuron.div %x, %two : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// neg(neg(x)) folds to x.
// CHECK-LABEL: func.func @neg_neg
// CHECK-SAME: (%[[X:.*]]: tensor<4xi32>)
// CHECK-NOT: neuron.neg
// CHECK: return %[[X]]
func.func @neg_neg(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = neuron.neg %x : tensor<4xi32>
  %1 = neuron.neg %0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// A single neg, and neg(abs(neg(x))), are kept.
// CHECK-LABEL: func.func @neg_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[N0:.*]] = neuron.neg %[[X]]
// CHECK: %[[A:.*]] = neuron.abs %[[N0]]
// CHECK: %[[N1:.*]] = neuron.neg %[[A]]
// CHECK: return %[[N0]], %[[N1]]
func.func @neg_kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = neuron.neg %x : tensor<4xf32>
  %1 = neuron.abs %0 : tensor<4xf32>
  %2 = neuron.neg %1 : tensor<4xf32>
  return %0, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A cast to the same type folds away.
// CHECK-LABEL: func.func @cast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: neuron.cast
// CHECK: return %[[X]]
func.func @cast_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = neuron.cast %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A converting cast, and a cast that only refines a dynamic dimension, are kept.
// CHECK-LABEL: func.func @cast_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<?xf32>)
// CHECK: %[[C:.*]] = neuron.cast %[[X]] : tensor<4xf32> -> tensor<4xbf16>
// CHECK: %[[R:.*]] = neuron.cast %[[D]] : tensor<?xf32> -> tensor<4xf32>
// CHECK: return %[[C]], %[[R]]
func.func @cast_kept(%x: tensor<4xf32>, %d: tensor<?xf32>) -> (tensor<4xbf16>, tensor<4xf32>) {
  %0 = neuron.cast %x : tensor<4xf32> -> tensor<4xbf16>
  %1 = neuron.cast %d : tensor<?xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4xbf16>, tensor<4xf32>
}

// -----

// A transpose by the identity folds away.
// CHECK-LABEL: func.func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: neuron.transpose
// CHECK: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = neuron.transpose %x permutation [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A non-identity transpose is kept.
// CHECK-LABEL: func.func @transpose_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>)
// CHECK: %[[R:.*]] = neuron.transpose %[[X]] permutation [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK: return %[[R]]
func.func @transpose_kept(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %0 = neuron.transpose %x permutation [1, 0] : tensor<4x4xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// An identity transpose that refines a dynamic dimension changes the type,
// so it is kept.
// CHECK-LABEL: func.func @transpose_identity_refines
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK: %[[R:.*]] = neuron.transpose %[[X]] permutation [0, 1] : tensor<?x4xf32> -> tensor<3x4xf32>
// CHECK: return %[[R]]
func.func @transpose_identity_refines(%x: tensor<?x4xf32>) -> tensor<3x4xf32> {
  %0 = neuron.transpose %x permutation [0, 1] : tensor<?x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Two transposes compose into one.
// CHECK-LABEL: func.func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = neuron.transpose %[[X]] permutation [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
// CHECK-NOT: neuron.transpose
// CHECK: return %[[R]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  %0 = neuron.transpose %x permutation [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %1 = neuron.transpose %0 permutation [0, 2, 1] : tensor<3x2x4xf32> -> tensor<3x4x2xf32>
  return %1 : tensor<3x4x2xf32>
}

// -----

// A layout round trip around elementwise ops and a pad (a TOSA graph's
// NHWC ops between NCHW convolutions): the outer transpose sinks through
// each op whose other operands are splats or broadcasts (a bias along the
// channels, next), and cancels with the inner one; the pad's sizes follow
// the permutation.
// CHECK-LABEL: func.func @transpose_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x6xf32>)
// CHECK-DAG: %[[C:.*]] = neuron.constant dense<1.000000e+00> : tensor<1x3x8x6xf32>
// CHECK: %[[M:.*]] = neuron.add %[[X]], %[[C]] : tensor<1x3x8x6xf32>
// CHECK: %[[R:.*]] = neuron.relu %[[M]] : tensor<1x3x8x6xf32>
// CHECK: %[[P:.*]] = neuron.pad %[[R]] low [0, 0, 1, 2] high [0, 0, 3, 4] value 0.000000e+00 : tensor<1x3x8x6xf32> -> tensor<1x3x12x12xf32>
// CHECK-NOT: neuron.transpose
// CHECK: return %[[P]]
func.func @transpose_round_trip(%x: tensor<1x3x8x6xf32>) -> tensor<1x3x12x12xf32> {
  %c = neuron.constant dense<1.0> : tensor<1x8x6x3xf32>
  %0 = neuron.transpose %x permutation [0, 2, 3, 1] : tensor<1x3x8x6xf32> -> tensor<1x8x6x3xf32>
  %1 = neuron.add %0, %c : tensor<1x8x6x3xf32>
  %2 = neuron.relu %1 : tensor<1x8x6x3xf32>
  %3 = neuron.pad %2 low [0, 1, 2, 0] high [0, 3, 4, 0] value 0.0 : tensor<1x8x6x3xf32> -> tensor<1x12x12x3xf32>
  %4 = neuron.transpose %3 permutation [0, 3, 1, 2] : tensor<1x12x12x3xf32> -> tensor<1x3x12x12xf32>
  return %4 : tensor<1x3x12x12xf32>
}

// -----

// A bias along the channels (a broadcast) is the same broadcast in the
// other layout.
// CHECK-LABEL: func.func @transpose_round_trip_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x6xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[BB:.*]] = neuron.broadcast %[[B]] dimensions [1] : tensor<3xf32> -> tensor<1x3x8x6xf32>
// CHECK: %[[A:.*]] = neuron.add %[[X]], %[[BB]] : tensor<1x3x8x6xf32>
// CHECK-NOT: neuron.transpose
// CHECK: return %[[A]]
func.func @transpose_round_trip_bias(%x: tensor<1x3x8x6xf32>, %b: tensor<3xf32>) -> tensor<1x3x8x6xf32> {
  %0 = neuron.transpose %x permutation [0, 2, 3, 1] : tensor<1x3x8x6xf32> -> tensor<1x8x6x3xf32>
  %bb = neuron.broadcast %b dimensions [3] : tensor<3xf32> -> tensor<1x8x6x3xf32>
  %1 = neuron.add %0, %bb : tensor<1x8x6x3xf32>
  %2 = neuron.transpose %1 permutation [0, 3, 1, 2] : tensor<1x8x6x3xf32> -> tensor<1x3x8x6xf32>
  return %2 : tensor<1x3x8x6xf32>
}

// -----

// A transpose does not sink where it would not cancel: an elementwise op
// of another tensor, an op with another use, or an inner transpose that
// does not invert it.
// CHECK-LABEL: func.func @transpose_not_sunk
// CHECK: %[[T0:.*]] = neuron.transpose
// CHECK: neuron.add %[[T0]], %{{.*}} : tensor<1x8x6x3xf32>
// CHECK: neuron.transpose
// CHECK: neuron.relu
// CHECK: neuron.transpose
// CHECK: neuron.neg
// CHECK: neuron.transpose
func.func @transpose_not_sunk(%x: tensor<1x3x8x6xf32>, %y: tensor<1x8x6x3xf32>) -> (tensor<1x3x8x6xf32>, tensor<1x8x6x3xf32>, tensor<1x3x8x6xf32>, tensor<3x1x8x6xf32>) {
  %0 = neuron.transpose %x permutation [0, 2, 3, 1] : tensor<1x3x8x6xf32> -> tensor<1x8x6x3xf32>
  %1 = neuron.add %0, %y : tensor<1x8x6x3xf32>
  %2 = neuron.transpose %1 permutation [0, 3, 1, 2] : tensor<1x8x6x3xf32> -> tensor<1x3x8x6xf32>
  %3 = neuron.relu %0 : tensor<1x8x6x3xf32>
  %4 = neuron.transpose %3 permutation [0, 3, 1, 2] : tensor<1x8x6x3xf32> -> tensor<1x3x8x6xf32>
  %5 = neuron.neg %0 : tensor<1x8x6x3xf32>
  %6 = neuron.transpose %5 permutation [3, 0, 1, 2] : tensor<1x8x6x3xf32> -> tensor<3x1x8x6xf32>
  return %2, %3, %4, %6 : tensor<1x3x8x6xf32>, tensor<1x8x6x3xf32>, tensor<1x3x8x6xf32>, tensor<3x1x8x6xf32>
}

// -----

// Two transposes that compose to the identity disappear.
// CHECK-LABEL: func.func @transpose_inverse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NOT: neuron.transpose
// CHECK: return %[[X]]
func.func @transpose_inverse(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = neuron.transpose %x permutation [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = neuron.transpose %0 permutation [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// A transpose whose input is not a transpose stays as it is.
// CHECK-LABEL: func.func @transpose_of_other
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[N:.*]] = neuron.neg %[[X]]
// CHECK: %[[R:.*]] = neuron.transpose %[[N]] permutation [1, 0]
// CHECK: return %[[R]]
func.func @transpose_of_other(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = neuron.neg %x : tensor<2x3xf32>
  %1 = neuron.transpose %0 permutation [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// A reshape to the same type folds away.
// CHECK-LABEL: func.func @reshape_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: neuron.reshape
// CHECK: return %[[X]]
func.func @reshape_identity(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A reshape of a dense constant folds into a constant, keeping row-major order.
// CHECK-LABEL: func.func @reshape_constant
// CHECK: %[[C:.*]] = neuron.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
// CHECK-NOT: neuron.reshape
// CHECK: return %[[C]]
func.func @reshape_constant() -> tensor<2x3xi32> {
  %c = neuron.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>
  %0 = neuron.reshape %c : tensor<6xi32> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// A reshape of a reshape reads the original input.
// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
// CHECK-NOT: neuron.reshape
// CHECK: return %[[R]]
func.func @reshape_chain(%x: tensor<4x8xf32>) -> tensor<2x16xf32> {
  %0 = neuron.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = neuron.reshape %0 : tensor<32xf32> -> tensor<2x16xf32>
  return %1 : tensor<2x16xf32>
}

// -----

// A reshape chain back to the input type disappears.
// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: neuron.reshape
// CHECK: return %[[X]]
func.func @reshape_round_trip(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = neuron.reshape %0 : tensor<32xf32> -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A reshape of an argument is kept.
// CHECK-LABEL: func.func @reshape_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.reshape %[[X]] : tensor<4x8xf32> -> tensor<32xf32>
// CHECK: return %[[R]]
func.func @reshape_kept(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %0 = neuron.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// A broadcast to the same type folds away; a broadcast of a splat is a splat.
// CHECK-LABEL: func.func @broadcast_fold
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[C:.*]] = neuron.constant dense<2.500000e+00> : tensor<4x8xf32>
// CHECK-NOT: neuron.broadcast
// CHECK: return %[[X]], %[[C]]
func.func @broadcast_fold(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<4x8xf32>) {
  %0 = neuron.broadcast %x dimensions [0] : tensor<8xf32> -> tensor<8xf32>
  %s = neuron.constant dense<2.5> : tensor<8xf32>
  %1 = neuron.broadcast %s dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0, %1 : tensor<8xf32>, tensor<4x8xf32>
}

// -----

// A broadcast of an argument or of a non-splat constant is kept.
// CHECK-LABEL: func.func @broadcast_kept
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[C:.*]] = neuron.constant dense<[1, 2]> : tensor<2xi32>
// CHECK: %[[A:.*]] = neuron.broadcast %[[X]] dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: %[[B:.*]] = neuron.broadcast %[[C]] dimensions [1] : tensor<2xi32> -> tensor<3x2xi32>
// CHECK: return %[[A]], %[[B]]
func.func @broadcast_kept(%x: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<3x2xi32>) {
  %0 = neuron.broadcast %x dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
  %c = neuron.constant dense<[1, 2]> : tensor<2xi32>
  %1 = neuron.broadcast %c dimensions [1] : tensor<2xi32> -> tensor<3x2xi32>
  return %0, %1 : tensor<4x8xf32>, tensor<3x2xi32>
}

// -----

// A whole-tensor slice folds away; a slice of a splat is a splat.
// CHECK-LABEL: func.func @slice_fold
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[C:.*]] = neuron.constant dense<7> : tensor<2x2xi8>
// CHECK-NOT: neuron.slice
// CHECK: return %[[X]], %[[C]]
func.func @slice_fold(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<2x2xi8>) {
  %0 = neuron.slice %x offsets [0, 0] strides [1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = neuron.constant dense<7> : tensor<4x4xi8>
  %1 = neuron.slice %s offsets [1, 0] strides [2, 3] : tensor<4x4xi8> -> tensor<2x2xi8>
  return %0, %1 : tensor<4x8xf32>, tensor<2x2xi8>
}

// -----

// A proper window of an argument is kept.
// CHECK-LABEL: func.func @slice_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.slice %[[X]] offsets [0, 4] strides [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK: return %[[R]]
func.func @slice_kept(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %0 = neuron.slice %x offsets [0, 4] strides [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A concat of one input folds to it.
// CHECK-LABEL: func.func @concat_single
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: neuron.concat
// CHECK: return %[[X]]
func.func @concat_single(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.concat %x axis 1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A concat of two inputs is kept.
// CHECK-LABEL: func.func @concat_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.concat %[[X]], %[[X]] axis 1
// CHECK: return %[[R]]
func.func @concat_kept(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %0 = neuron.concat %x, %x axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// A pad by zero folds away.
// CHECK-LABEL: func.func @pad_zero
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NOT: neuron.pad
// CHECK: return %[[X]]
func.func @pad_zero(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.pad %x low [0, 0] high [0, 0] value 1.0 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A real pad is kept.
// CHECK-LABEL: func.func @pad_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.pad %[[X]] low [0, 1] high [0, 0] value 0.000000e+00 : tensor<4x8xf32> -> tensor<4x9xf32>
// CHECK: return %[[R]]
func.func @pad_kept(%x: tensor<4x8xf32>) -> tensor<4x9xf32> {
  %0 = neuron.pad %x low [0, 1] high [0, 0] value 0.0 : tensor<4x8xf32> -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// Equal constants are uniqued, and unused ones are dropped.
// CHECK-LABEL: func.func @constant_uniqued
// CHECK: %[[C:.*]] = neuron.constant dense<3.000000e+00> : tensor<4xf32>
// CHECK-NOT: neuron.constant
// CHECK: %[[R:.*]] = neuron.min %[[C]], %[[C]]
// CHECK: return %[[R]]
func.func @constant_uniqued() -> tensor<4xf32> {
  %a = neuron.constant dense<3.0> : tensor<4xf32>
  %b = neuron.constant dense<3.0> : tensor<4xf32>
  %unused = neuron.constant dense<4.0> : tensor<4xf32>
  %0 = neuron.min %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// max(x, 0) and max(0, x) become relu.
// CHECK-LABEL: func.func @max_zero_is_relu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi8>)
// CHECK-NOT: neuron.max
// CHECK: %[[A:.*]] = neuron.relu %[[X]] : tensor<4xf32>
// CHECK: %[[B:.*]] = neuron.relu %[[X]] : tensor<4xf32>
// CHECK: %[[C:.*]] = neuron.relu %[[I]] : tensor<4xi8>
// CHECK-NOT: neuron.max
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @max_zero_is_relu(%x: tensor<4xf32>, %i: tensor<4xi8>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi8>) {
  %zero = neuron.constant dense<0.0> : tensor<4xf32>
  %izero = neuron.constant dense<0> : tensor<4xi8>
  %0 = neuron.max %x, %zero : tensor<4xf32>
  %1 = neuron.max %zero, %x : tensor<4xf32>
  %2 = neuron.max %i, %izero : tensor<4xi8>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi8>
}

// -----

// max(x, 1) is not relu.
// CHECK-LABEL: func.func @max_one_kept
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[ONE:.*]] = neuron.constant dense<1.000000e+00>
// CHECK: %[[R:.*]] = neuron.max %[[X]], %[[ONE]]
// CHECK-NOT: neuron.relu
// CHECK: return %[[R]]
func.func @max_one_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %0 = neuron.max %x, %one : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 1 / x becomes reciprocal(x).
// CHECK-LABEL: func.func @div_is_reciprocal
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = neuron.reciprocal %[[X]] : tensor<4xf32>
// CHECK-NOT: neuron.div
// CHECK: return %[[R]]
func.func @div_is_reciprocal(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %0 = neuron.div %one, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 2 / x is not a reciprocal, nor is an integer 1 / x.
// CHECK-LABEL: func.func @div_not_reciprocal
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[TWO:.*]] = neuron.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[ONE:.*]] = neuron.constant dense<1> : tensor<4xi32>
// CHECK: %[[A:.*]] = neuron.div %[[TWO]], %[[X]]
// CHECK: %[[B:.*]] = neuron.div %[[ONE]], %[[I]]
// CHECK-NOT: neuron.reciprocal
// CHECK: return %[[A]], %[[B]]
func.func @div_not_reciprocal(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %two = neuron.constant dense<2.0> : tensor<4xf32>
  %ione = neuron.constant dense<1> : tensor<4xi32>
  %0 = neuron.div %two, %x : tensor<4xf32>
  %1 = neuron.div %ione, %i : tensor<4xi32>
  return %0, %1 : tensor<4xf32>, tensor<4xi32>
}

// -----

// 1 / (1 + exp(-x)) and 1 / (exp(-x) + 1) become sigmoid(x).
// CHECK-LABEL: func.func @div_is_sigmoid
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xbf16>)
// CHECK-DAG: %[[A:.*]] = neuron.sigmoid %[[X]] : tensor<4xf32>
// CHECK-DAG: %[[B:.*]] = neuron.sigmoid %[[Y]] : tensor<4xbf16>
// CHECK-NOT: neuron.div
// CHECK-NOT: neuron.exp
// CHECK: return %[[A]], %[[B]]
func.func @div_is_sigmoid(%x: tensor<4xf32>, %y: tensor<4xbf16>) -> (tensor<4xf32>, tensor<4xbf16>) {
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %n = neuron.neg %x : tensor<4xf32>
  %e = neuron.exp %n : tensor<4xf32>
  %d = neuron.add %one, %e : tensor<4xf32>
  %0 = neuron.div %one, %d : tensor<4xf32>
  %bone = neuron.constant dense<1.0> : tensor<4xbf16>
  %bn = neuron.neg %y : tensor<4xbf16>
  %be = neuron.exp %bn : tensor<4xbf16>
  %bd = neuron.add %be, %bone : tensor<4xbf16>
  %1 = neuron.div %bone, %bd : tensor<4xbf16>
  return %0, %1 : tensor<4xf32>, tensor<4xbf16>
}

// -----

// 1 / (2 + exp(-x)) and 1 / (1 + exp(x)) are reciprocals, not sigmoids.
// CHECK-LABEL: func.func @div_not_sigmoid
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: neuron.sigmoid
// CHECK-DAG: %[[ONE:.*]] = neuron.constant dense<1.000000e+00>
// CHECK-DAG: %[[TWO:.*]] = neuron.constant dense<2.000000e+00>
// CHECK-DAG: %[[N:.*]] = neuron.neg %[[X]]
// CHECK-DAG: %[[EN:.*]] = neuron.exp %[[N]]
// CHECK-DAG: %[[EX:.*]] = neuron.exp %[[X]]
// CHECK-DAG: %[[D0:.*]] = neuron.add %[[EN]], %[[TWO]]
// CHECK-DAG: %[[D1:.*]] = neuron.add %[[EX]], %[[ONE]]
// CHECK-DAG: %[[A:.*]] = neuron.reciprocal %[[D0]]
// CHECK-DAG: %[[B:.*]] = neuron.reciprocal %[[D1]]
// CHECK-NOT: neuron.sigmoid
// CHECK: return %[[A]], %[[B]]
func.func @div_not_sigmoid(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %two = neuron.constant dense<2.0> : tensor<4xf32>
  %n = neuron.neg %x : tensor<4xf32>
  %e = neuron.exp %n : tensor<4xf32>
  %d = neuron.add %two, %e : tensor<4xf32>
  %0 = neuron.div %one, %d : tensor<4xf32>
  %e2 = neuron.exp %x : tensor<4xf32>
  %d2 = neuron.add %one, %e2 : tensor<4xf32>
  %1 = neuron.div %one, %d2 : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x * sigmoid(x) and sigmoid(x) * x become silu(x).
// CHECK-LABEL: func.func @mul_is_silu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[A:.*]] = neuron.silu %[[X]] : tensor<4xf32>
// CHECK: %[[B:.*]] = neuron.silu %[[X]] : tensor<4xf32>
// CHECK-NOT: neuron.mul
// CHECK-NOT: neuron.sigmoid
// CHECK: return %[[A]], %[[B]]
func.func @mul_is_silu(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = neuron.sigmoid %x : tensor<4xf32>
  %0 = neuron.mul %x, %s : tensor<4xf32>
  %1 = neuron.mul %s, %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x * sigmoid(y) with y != x is not silu.
// CHECK-LABEL: func.func @mul_not_silu
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK: %[[S:.*]] = neuron.sigmoid %[[Y]]
// CHECK: %[[R:.*]] = neuron.mul %[[X]], %[[S]]
// CHECK-NOT: neuron.silu
// CHECK: return %[[R]]
func.func @mul_not_silu(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %s = neuron.sigmoid %y : tensor<4xf32>
  %0 = neuron.mul %x, %s : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that a broadcast adding only unit dimensions becomes a reshape, and
// that the reshape pair it leaves (how batch-1 maps import) folds away.
// CHECK-LABEL: func.func @unit_broadcast_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8xf32>)
// CHECK-NOT: neuron.broadcast
// CHECK-NOT: neuron.reshape
// CHECK: return %[[X]]
func.func @unit_broadcast_round_trip(%x: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %0 = neuron.reshape %x : tensor<1x4x8xf32> -> tensor<4x8xf32>
  %1 = neuron.broadcast %0 dimensions [1, 2] : tensor<4x8xf32> -> tensor<1x4x8xf32>
  return %1 : tensor<1x4x8xf32>
}

// -----

// Tests that a broadcast that really repeats data stays.
// CHECK-LABEL: func.func @real_broadcast
// CHECK: neuron.broadcast %{{.*}} dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
func.func @real_broadcast(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.broadcast %x dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests exp(x - max(x)) / sum(exp(x - max(x))) -> softmax, as torch-mlir's
// decomposition reads once raised.
// CHECK-LABEL: func.func @softmax_parts
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[S:.*]] = neuron.softmax %[[X]] axis 1 : tensor<4x8xf32>
// CHECK: return %[[S]]
func.func @softmax_parts(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = neuron.reduce_max %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %mb = neuron.broadcast %m dimensions [0] : tensor<4xf32> -> tensor<4x8xf32>
  %d = neuron.sub %x, %mb : tensor<4x8xf32>
  %e = neuron.exp %d : tensor<4x8xf32>
  %s = neuron.reduce_sum %e axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sb = neuron.broadcast %s dimensions [0] : tensor<4xf32> -> tensor<4x8xf32>
  %r = neuron.div %e, %sb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests the TOSA spelling: keep-dims through reshapes and a reciprocal.
// CHECK-LABEL: func.func @softmax_reciprocal
// CHECK: neuron.softmax %{{.*}} axis 2 : tensor<2x4x8xf32>
// CHECK-NOT: neuron.reciprocal
func.func @softmax_reciprocal(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %m = neuron.reduce_max %x axes [2] : tensor<2x4x8xf32> -> tensor<2x4xf32>
  %mb = neuron.broadcast %m dimensions [0, 1] : tensor<2x4xf32> -> tensor<2x4x8xf32>
  %d = neuron.sub %x, %mb : tensor<2x4x8xf32>
  %e = neuron.exp %d : tensor<2x4x8xf32>
  %s = neuron.reduce_sum %e axes [2] : tensor<2x4x8xf32> -> tensor<2x4xf32>
  %s1 = neuron.reshape %s : tensor<2x4xf32> -> tensor<2x4x1xf32>
  %rc = neuron.reciprocal %s1 : tensor<2x4x1xf32>
  %r2 = neuron.reshape %rc : tensor<2x4x1xf32> -> tensor<2x4xf32>
  %rb = neuron.broadcast %r2 dimensions [0, 1] : tensor<2x4xf32> -> tensor<2x4x8xf32>
  %r = neuron.mul %e, %rb : tensor<2x4x8xf32>
  return %r : tensor<2x4x8xf32>
}

// -----

// Tests that a max and a sum over different axes are not a softmax.
// CHECK-LABEL: func.func @not_softmax
// CHECK-NOT: neuron.softmax
// CHECK: neuron.div
func.func @not_softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = neuron.reduce_max %x axes [0] : tensor<4x8xf32> -> tensor<8xf32>
  %mb = neuron.broadcast %m dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
  %d = neuron.sub %x, %mb : tensor<4x8xf32>
  %e = neuron.exp %d : tensor<4x8xf32>
  %s = neuron.reduce_sum %e axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sb = neuron.broadcast %s dimensions [0] : tensor<4xf32> -> tensor<4x8xf32>
  %r = neuron.div %e, %sb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests x * (0.5 * (1 + erf(x / sqrt(2)))) -> exact gelu, with f32-rounded
// constants as torch-mlir writes them.
// CHECK-LABEL: func.func @gelu_erf
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[G:.*]] = neuron.gelu %[[X]] : tensor<4xf32>
// CHECK: return %[[G]]
func.func @gelu_erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = neuron.constant dense<1.41421354> : tensor<4xf32>
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %half = neuron.constant dense<0.5> : tensor<4xf32>
  %0 = neuron.div %x, %sqrt2 : tensor<4xf32>
  %1 = neuron.erf %0 : tensor<4xf32>
  %2 = neuron.add %1, %one : tensor<4xf32>
  %3 = neuron.mul %2, %half : tensor<4xf32>
  %4 = neuron.mul %x, %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Tests that the same shape with another scale is not gelu.
// CHECK-LABEL: func.func @not_gelu
// CHECK-NOT: neuron.gelu
// CHECK: neuron.erf
func.func @not_gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %two = neuron.constant dense<2.0> : tensor<4xf32>
  %one = neuron.constant dense<1.0> : tensor<4xf32>
  %half = neuron.constant dense<0.5> : tensor<4xf32>
  %0 = neuron.div %x, %two : tensor<4xf32>
  %1 = neuron.erf %0 : tensor<4xf32>
  %2 = neuron.add %1, %one : tensor<4xf32>
  %3 = neuron.mul %2, %half : tensor<4xf32>
  %4 = neuron.mul %x, %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Tests a softmax whose max is clamped below by -FLT_MAX (TOSA's init): the
// clamp changes nothing for a row holding a finite value, so it is a softmax.
// CHECK-LABEL: func.func @softmax_clamped_max
// CHECK: neuron.softmax %{{.*}} axis 1 : tensor<4x8xf32>
func.func @softmax_clamped_max(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %lowest = neuron.constant dense<-3.40282347E+38> : tensor<4xf32>
  %m0 = neuron.reduce_max %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %m = neuron.max %m0, %lowest : tensor<4xf32>
  %mb = neuron.broadcast %m dimensions [0] : tensor<4xf32> -> tensor<4x8xf32>
  %d = neuron.sub %x, %mb : tensor<4x8xf32>
  %e = neuron.exp %d : tensor<4x8xf32>
  %s = neuron.reduce_sum %e axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %sb = neuron.broadcast %s dimensions [0] : tensor<4xf32> -> tensor<4x8xf32>
  %r = neuron.div %e, %sb : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A select by a splat mask is the operand it picks; a select between one
// value is that value; a select by a mask known only at run time is kept.
// CHECK-LABEL: func.func @select_folds
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xi1>)
// CHECK: %[[S:.*]] = neuron.select %[[M]], %[[A]], %[[B]]
// CHECK: return %[[A]], %[[B]], %[[B]], %[[S]]
func.func @select_folds(%a: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xi1>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %t = neuron.constant dense<true> : tensor<4xi1>
  %f = neuron.constant dense<false> : tensor<4xi1>
  %0 = neuron.select %t, %a, %b : tensor<4xi1>, tensor<4xf32>
  %1 = neuron.select %f, %a, %b : tensor<4xi1>, tensor<4xf32>
  %2 = neuron.select %m, %b, %b : tensor<4xi1>, tensor<4xf32>
  %3 = neuron.select %m, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Float elementwise ops on splat constants are splat constants, each
// result rounded to its element type (bf16 here: rsqrt(1.0078125) is
// 0.99609375): batch norm's rsqrt(var + eps) with the statistics written
// as splats. Min, relu, an op on a splat and a tensor, and integer ops are
// left alone.
// CHECK-LABEL: func.func @splat_elementwise
// CHECK-DAG:   %[[I:.*]] = neuron.constant dense<2> : tensor<2x4xi32>
// CHECK-DAG:   %[[S:.*]] = neuron.constant dense<9.960930e-01> : tensor<2x4xbf16>
// CHECK-DAG:   %[[F:.*]] = neuron.constant dense<0.999994993> : tensor<2x4xf32>
// CHECK-DAG:   %[[SIX:.*]] = neuron.constant dense<6.000000e+00> : tensor<2x4xf32>
// CHECK:       %[[M:.*]] = neuron.min %[[SIX]], %[[F]]
// CHECK:       %[[R:.*]] = neuron.relu %[[F]]
// CHECK:       %[[X:.*]] = neuron.mul %arg0, %[[F]]
// CHECK:       %[[N:.*]] = neuron.add %[[I]], %[[I]]
// CHECK:       return %[[S]], %[[M]], %[[R]], %[[X]], %[[N]]
func.func @splat_elementwise(%x: tensor<2x4xf32>)
    -> (tensor<2x4xbf16>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi32>) {
  %var = neuron.constant dense<1.0> : tensor<2x4xbf16>
  %eps = neuron.constant dense<1.0e-2> : tensor<2x4xbf16>
  %a = neuron.add %var, %eps : tensor<2x4xbf16>
  %r = neuron.rsqrt %a : tensor<2x4xbf16>
  %vf = neuron.constant dense<1.0> : tensor<2x4xf32>
  %ef = neuron.constant dense<1.0e-5> : tensor<2x4xf32>
  %af = neuron.add %vf, %ef : tensor<2x4xf32>
  %rf = neuron.rsqrt %af : tensor<2x4xf32>
  %six = neuron.constant dense<6.0> : tensor<2x4xf32>
  %m = neuron.min %six, %rf : tensor<2x4xf32>
  %relu = neuron.relu %rf : tensor<2x4xf32>
  %xs = neuron.mul %x, %rf : tensor<2x4xf32>
  %i = neuron.constant dense<2> : tensor<2x4xi32>
  %n = neuron.add %i, %i : tensor<2x4xi32>
  return %r, %m, %relu, %xs, %n : tensor<2x4xbf16>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xi32>
}

// -----

// A splat result the element type cannot hold is left to the engines,
// which saturate fp8 (320 x 320 is past f8E5M2's 57344); an op of another
// dialect beside the folds is left alone.
// CHECK-LABEL: func.func @splat_overflow
// CHECK:       %[[C:.*]] = neuron.constant dense<3.200000e+02> : tensor<4xf8E5M2>
// CHECK:       %[[M:.*]] = neuron.mul %[[C]], %[[C]]
// CHECK:       "other.op"(%[[M]])
func.func @splat_overflow() -> tensor<4xf8E5M2> {
  %c = neuron.constant dense<300.0> : tensor<4xf8E5M2>
  %m = neuron.mul %c, %c : tensor<4xf8E5M2>
  %o = "other.op"(%m) : (tensor<4xf8E5M2>) -> tensor<4xf8E5M2>
  return %o : tensor<4xf8E5M2>
}

// -----

// Grouped-query attention's repeated keys and values: the rhs of each
// batch_matmul is one [2048, 128] cache repeated over the 8 heads (a
// broadcast, through a reshape and, for the keys, a transpose that keeps
// the batch first). Each becomes one matmul of the heads' rows folded
// together against the shared matrix, so nothing repeats the cache.
// CHECK-LABEL: func.func @shared_rhs
// CHECK-SAME: (%[[Q:.*]]: tensor<8x1x128xbf16>, %[[P:.*]]: tensor<8x1x2048xbf16>, %[[C:.*]]: tensor<1x2048x128xbf16>)
// CHECK-NOT: neuron.broadcast
// CHECK-NOT: neuron.batch_matmul
// CHECK-DAG: %[[QR:.*]] = neuron.reshape %[[Q]] : tensor<8x1x128xbf16> -> tensor<8x128xbf16>
// CHECK-DAG: %[[CR:.*]] = neuron.reshape %[[C]] : tensor<1x2048x128xbf16> -> tensor<2048x128xbf16>
// CHECK-DAG: %[[KT:.*]] = neuron.transpose %[[CR]] permutation [1, 0] : tensor<2048x128xbf16> -> tensor<128x2048xbf16>
// CHECK-DAG: %[[S:.*]] = neuron.matmul %[[QR]], %[[KT]] : (tensor<8x128xbf16>, tensor<128x2048xbf16>) -> tensor<8x2048xbf16>
// CHECK-DAG: %[[SR:.*]] = neuron.reshape %[[S]] : tensor<8x2048xbf16> -> tensor<8x1x2048xbf16>
// CHECK-DAG: %[[PR:.*]] = neuron.reshape %[[P]] : tensor<8x1x2048xbf16> -> tensor<8x2048xbf16>
// CHECK-DAG: %[[O:.*]] = neuron.matmul %[[PR]], %{{.*}} : (tensor<8x2048xbf16>, tensor<2048x128xbf16>) -> tensor<8x128xbf16>
// CHECK-DAG: %[[OR:.*]] = neuron.reshape %[[O]] : tensor<8x128xbf16> -> tensor<8x1x128xbf16>
// CHECK: return %[[SR]], %[[OR]]
func.func @shared_rhs(%q: tensor<8x1x128xbf16>, %p: tensor<8x1x2048xbf16>, %cache: tensor<1x2048x128xbf16>) -> (tensor<8x1x2048xbf16>, tensor<8x1x128xbf16>) {
  %b = neuron.broadcast %cache dimensions [0, 2, 3] : tensor<1x2048x128xbf16> -> tensor<1x8x2048x128xbf16>
  %r = neuron.reshape %b : tensor<1x8x2048x128xbf16> -> tensor<8x2048x128xbf16>
  %k = neuron.transpose %r permutation [0, 2, 1] : tensor<8x2048x128xbf16> -> tensor<8x128x2048xbf16>
  %s = neuron.batch_matmul %q, %k : (tensor<8x1x128xbf16>, tensor<8x128x2048xbf16>) -> tensor<8x1x2048xbf16>
  %o = neuron.batch_matmul %p, %r : (tensor<8x1x2048xbf16>, tensor<8x2048x128xbf16>) -> tensor<8x1x128xbf16>
  return %s, %o : tensor<8x1x2048xbf16>, tensor<8x1x128xbf16>
}

// -----

// A rhs that differs between batches stays a batch_matmul: a broadcast
// along a non-batch dimension, and a transpose moving the batch.
// CHECK-LABEL: func.func @batch_dependent_rhs
// CHECK-COUNT-2: neuron.batch_matmul
func.func @batch_dependent_rhs(%q: tensor<4x2x8xf32>, %x: tensor<4x8xf32>, %y: tensor<8x4x6xf32>) -> (tensor<4x2x6xf32>, tensor<4x2x6xf32>) {
  %b = neuron.broadcast %x dimensions [0, 1] : tensor<4x8xf32> -> tensor<4x8x6xf32>
  %s = neuron.batch_matmul %q, %b : (tensor<4x2x8xf32>, tensor<4x8x6xf32>) -> tensor<4x2x6xf32>
  %t = neuron.transpose %y permutation [1, 0, 2] : tensor<8x4x6xf32> -> tensor<4x8x6xf32>
  %u = neuron.batch_matmul %q, %t : (tensor<4x2x8xf32>, tensor<4x8x6xf32>) -> tensor<4x2x6xf32>
  return %s, %u : tensor<4x2x6xf32>, tensor<4x2x6xf32>
}

// -----

// A shared rhs under more rows than one tensor-engine pass takes (a
// prefill's 8 heads x 128 tokens): the batches stay.
// CHECK-LABEL: func.func @shared_rhs_long
// CHECK: neuron.batch_matmul
func.func @shared_rhs_long(%q: tensor<8x128x64xf32>, %cache: tensor<1x64x32xf32>) -> tensor<8x128x32xf32> {
  %b = neuron.broadcast %cache dimensions [0, 2, 3] : tensor<1x64x32xf32> -> tensor<1x8x64x32xf32>
  %r = neuron.reshape %b : tensor<1x8x64x32xf32> -> tensor<8x64x32xf32>
  %s = neuron.batch_matmul %q, %r : (tensor<8x128x64xf32>, tensor<8x64x32xf32>) -> tensor<8x128x32xf32>
  return %s : tensor<8x128x32xf32>
}

// -----

// Several KV heads on one core (3 groups of 4 query heads, one token): each
// group's keys are one matrix repeated 4 times; the group's 4 rows fold
// into one batch of a batch_matmul over the 3 groups.
// CHECK-LABEL: func.func @grouped_rhs
// CHECK-SAME: (%[[Q:.*]]: tensor<12x1x32xf32>, %[[C:.*]]: tensor<3x40x32xf32>)
// CHECK-NOT: neuron.broadcast
// CHECK-DAG: %[[KT:.*]] = neuron.transpose %[[C]] permutation [0, 2, 1] : tensor<3x40x32xf32> -> tensor<3x32x40xf32>
// CHECK-DAG: %[[QR:.*]] = neuron.reshape %[[Q]] : tensor<12x1x32xf32> -> tensor<3x4x32xf32>
// CHECK: %[[S:.*]] = neuron.batch_matmul %[[QR]], %[[KT]] : (tensor<3x4x32xf32>, tensor<3x32x40xf32>) -> tensor<3x4x40xf32>
// CHECK: neuron.reshape %[[S]] : tensor<3x4x40xf32> -> tensor<12x1x40xf32>
func.func @grouped_rhs(%q: tensor<12x1x32xf32>, %cache: tensor<3x40x32xf32>) -> tensor<12x1x40xf32> {
  %b = neuron.broadcast %cache dimensions [0, 2, 3] : tensor<3x40x32xf32> -> tensor<3x4x40x32xf32>
  %r = neuron.reshape %b : tensor<3x4x40x32xf32> -> tensor<12x40x32xf32>
  %k = neuron.transpose %r permutation [0, 2, 1] : tensor<12x40x32xf32> -> tensor<12x32x40xf32>
  %s = neuron.batch_matmul %q, %k : (tensor<12x1x32xf32>, tensor<12x32x40xf32>) -> tensor<12x1x40xf32>
  return %s : tensor<12x1x40xf32>
}

// -----

// A repeat outside the groups (batch b holds group b % 3, not b / 4) is
// not a group's rows: the batches stay.
// CHECK-LABEL: func.func @repeat_outside_groups
// CHECK: neuron.broadcast
// CHECK: neuron.batch_matmul
func.func @repeat_outside_groups(%q: tensor<12x1x32xf32>, %cache: tensor<3x32x40xf32>) -> tensor<12x1x40xf32> {
  %b = neuron.broadcast %cache dimensions [1, 2, 3] : tensor<3x32x40xf32> -> tensor<4x3x32x40xf32>
  %r = neuron.reshape %b : tensor<4x3x32x40xf32> -> tensor<12x32x40xf32>
  %s = neuron.batch_matmul %q, %r : (tensor<12x1x32xf32>, tensor<12x32x40xf32>) -> tensor<12x1x40xf32>
  return %s : tensor<12x1x40xf32>
}

// -----

// A causal mask compares positions broadcast over [heads, rows, cols]: it
// compares them over [rows, cols] once and broadcasts the mask over the
// heads. Operands that only add the common dimensions are their inputs.
// CHECK-LABEL: func.func @compare_before_broadcast
// CHECK-SAME: (%[[P:.*]]: tensor<16xi32>, %[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<8xf32>)
// CHECK-DAG: %[[ROWS:.*]] = neuron.broadcast %[[P]] dimensions [0] : tensor<16xi32> -> tensor<16x16xi32>
// CHECK-DAG: %[[COLS:.*]] = neuron.broadcast %[[P]] dimensions [1] : tensor<16xi32> -> tensor<16x16xi32>
// CHECK: %[[MASK:.*]] = neuron.compare gt %[[COLS]], %[[ROWS]] : tensor<16x16xi32> -> tensor<16x16xi1>
// CHECK: %[[HEADS:.*]] = neuron.broadcast %[[MASK]] dimensions [1, 2] : tensor<16x16xi1> -> tensor<4x16x16xi1>
// CHECK: %[[SUM:.*]] = neuron.add %[[X]], %[[Y]] : tensor<8xf32>
// CHECK: %[[ROW:.*]] = neuron.broadcast %[[SUM]] dimensions [1] : tensor<8xf32> -> tensor<3x8xf32>
// CHECK: return %[[HEADS]], %[[ROW]]
func.func @compare_before_broadcast(%p: tensor<16xi32>, %x: tensor<8xf32>, %y: tensor<8xf32>) -> (tensor<4x16x16xi1>, tensor<3x8xf32>) {
  %rows = neuron.broadcast %p dimensions [1] : tensor<16xi32> -> tensor<4x16x16xi32>
  %cols = neuron.broadcast %p dimensions [2] : tensor<16xi32> -> tensor<4x16x16xi32>
  %mask = neuron.compare gt %cols, %rows : tensor<4x16x16xi32> -> tensor<4x16x16xi1>
  %bx = neuron.broadcast %x dimensions [1] : tensor<8xf32> -> tensor<3x8xf32>
  %by = neuron.broadcast %y dimensions [1] : tensor<8xf32> -> tensor<3x8xf32>
  %sum = neuron.add %bx, %by : tensor<3x8xf32>
  return %mask, %sum : tensor<4x16x16xi1>, tensor<3x8xf32>
}

// -----

// Kept: the broadcasts add no dimension in common (an outer sum), a
// unit dimension moves no data, an operand is not a broadcast, the common
// dimension is the innermost (the broadcast after would repeat single
// elements), and a unary op (a cast of a broadcast weight fuses into its
// readers, which read the broadcast in place).
// CHECK-LABEL: func.func @broadcasts_kept
// CHECK-COUNT-4: neuron.add {{.*}} : tensor<
// CHECK-NOT: neuron.add
// CHECK: neuron.cast {{.*}} : tensor<3x8xf32> -> tensor<3x8xbf16>
func.func @broadcasts_kept(%x: tensor<8xf32>, %y: tensor<4xf32>, %z: tensor<3x8xf32>) -> (tensor<4x8xf32>, tensor<1x8xf32>, tensor<3x8xf32>, tensor<4x8xf32>, tensor<3x8xbf16>) {
  %bx = neuron.broadcast %x dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
  %by = neuron.broadcast %y dimensions [0] : tensor<4xf32> -> tensor<4x8xf32>
  %outer = neuron.add %bx, %by : tensor<4x8xf32>
  %ux = neuron.broadcast %x dimensions [1] : tensor<8xf32> -> tensor<1x8xf32>
  %unit = neuron.add %ux, %ux : tensor<1x8xf32>
  %rx = neuron.broadcast %x dimensions [1] : tensor<8xf32> -> tensor<3x8xf32>
  %mixed = neuron.add %rx, %z : tensor<3x8xf32>
  %cy = neuron.broadcast %y dimensions [0] : tensor<4xf32> -> tensor<4x8xf32>
  %inner = neuron.add %cy, %cy : tensor<4x8xf32>
  %cast = neuron.cast %rx : tensor<3x8xf32> -> tensor<3x8xbf16>
  return %outer, %unit, %mixed, %inner, %cast : tensor<4x8xf32>, tensor<1x8xf32>, tensor<3x8xf32>, tensor<4x8xf32>, tensor<3x8xbf16>
}

// -----

// A softmax cast to a narrower float writes that type itself; kept when
// the cast widens, the softmax has another reader or already rounds.
// CHECK-LABEL: func.func @softmax_rounds_once
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[H:.*]]: tensor<4x8xbf16>)
// CHECK-DAG: %[[N:.*]] = neuron.softmax %[[X]] axis 1 : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK-DAG: %[[W:.*]] = neuron.softmax %[[H]] axis 1 : tensor<4x8xbf16>{{$}}
// CHECK-DAG: %[[WC:.*]] = neuron.cast %[[W]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-DAG: %[[K:.*]] = neuron.softmax %[[X]] axis 0 : tensor<4x8xf32>{{$}}
// CHECK-DAG: %[[KC:.*]] = neuron.cast %[[K]] : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-DAG: %[[R:.*]] = neuron.softmax %[[X]] axis 0 : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK-DAG: %[[RC:.*]] = neuron.cast %[[R]] : tensor<4x8xbf16> -> tensor<4x8xf16>
// CHECK: return %[[N]], %[[WC]], %[[K]], %[[KC]], %[[RC]]
func.func @softmax_rounds_once(%x: tensor<4x8xf32>, %h: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf16>) {
  %0 = neuron.softmax %x axis 1 : tensor<4x8xf32>
  %1 = neuron.cast %0 : tensor<4x8xf32> -> tensor<4x8xbf16>
  %2 = neuron.softmax %h axis 1 : tensor<4x8xbf16>
  %3 = neuron.cast %2 : tensor<4x8xbf16> -> tensor<4x8xf32>
  %4 = neuron.softmax %x axis 0 : tensor<4x8xf32>
  %5 = neuron.cast %4 : tensor<4x8xf32> -> tensor<4x8xf16>
  %6 = neuron.softmax %x axis 0 : tensor<4x8xf32> -> tensor<4x8xbf16>
  %7 = neuron.cast %6 : tensor<4x8xbf16> -> tensor<4x8xf16>
  return %1, %3, %4, %5, %7 : tensor<4x8xbf16>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16>, tensor<4x8xf16>
}

// -----

// A 1x1 pooling window that keeps the shape (no padding; a stride over a
// dimension of 1) is its input, whatever the kind.
// CHECK-LABEL: func.func @pool_identity
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x1x1xf32>, %[[Y:.*]]: tensor<1x4x4x8xf32>)
// CHECK-NOT: neuron.pool2d
// CHECK: return %[[X]], %[[Y]], %[[X]]
func.func @pool_identity(%x: tensor<1x8x1x1xf32>, %y: tensor<1x4x4x8xf32>) -> (tensor<1x8x1x1xf32>, tensor<1x4x4x8xf32>, tensor<1x8x1x1xf32>) {
  %0 = neuron.pool2d sum %x layout nchw kernel [1, 1] : tensor<1x8x1x1xf32> -> tensor<1x8x1x1xf32>
  %1 = neuron.pool2d max %y layout nhwc kernel [1, 1] : tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
  %2 = neuron.pool2d avg %x layout nchw kernel [1, 1] strides [2, 2] : tensor<1x8x1x1xf32> -> tensor<1x8x1x1xf32>
  return %0, %1, %2 : tensor<1x8x1x1xf32>, tensor<1x4x4x8xf32>, tensor<1x8x1x1xf32>
}

// -----

// A 1x1 window that strides over, or pads, the image, a larger window, and
// an integer sum into a wider type are kept.
// CHECK-LABEL: func.func @pool_kept
// CHECK-COUNT-4: neuron.pool2d
func.func @pool_kept(%x: tensor<1x8x4x4xf32>, %i: tensor<1x8x1x1xi8>) -> (tensor<1x8x2x2xf32>, tensor<1x8x6x6xf32>, tensor<1x8x3x3xf32>, tensor<1x8x1x1xi32>) {
  %0 = neuron.pool2d max %x layout nchw kernel [1, 1] strides [2, 2] : tensor<1x8x4x4xf32> -> tensor<1x8x2x2xf32>
  %1 = neuron.pool2d max %x layout nchw kernel [1, 1] padding [1, 1, 1, 1] : tensor<1x8x4x4xf32> -> tensor<1x8x6x6xf32>
  %2 = neuron.pool2d sum %x layout nchw kernel [2, 2] : tensor<1x8x4x4xf32> -> tensor<1x8x3x3xf32>
  %3 = neuron.pool2d sum %i layout nchw kernel [1, 1] : tensor<1x8x1x1xi8> -> tensor<1x8x1x1xi32>
  return %0, %1, %2, %3 : tensor<1x8x2x2xf32>, tensor<1x8x6x6xf32>, tensor<1x8x3x3xf32>, tensor<1x8x1x1xi32>
}

// -----

// A sum pool divided by its window's size is an average pool (torch's
// adaptive_avg_pool2d imports so); over a padded image one that counts the
// padding.
// CHECK-LABEL: func.func @pool_sum_over_taps
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x6x6xf32>)
// CHECK: %[[A:.*]] = neuron.pool2d {{ *}}avg %[[X]] layout {{ *}}nchw kernel [4, 4] strides [2, 2] : tensor<1x8x6x6xf32> -> tensor<1x8x2x2xf32>
// CHECK: %[[B:.*]] = neuron.pool2d {{ *}}avg %[[X]] layout {{ *}}nchw kernel [3, 3] padding [1, 1, 1, 1] count_include_pad : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
// CHECK-NOT: neuron.div
// CHECK: return %[[A]], %[[B]]
func.func @pool_sum_over_taps(%x: tensor<1x8x6x6xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x6x6xf32>) {
  %n = neuron.constant dense<16.0> : tensor<1x8x2x2xf32>
  %0 = neuron.pool2d sum %x layout nchw kernel [4, 4] strides [2, 2] : tensor<1x8x6x6xf32> -> tensor<1x8x2x2xf32>
  %1 = neuron.div %0, %n : tensor<1x8x2x2xf32>
  %m = neuron.constant dense<9.0> : tensor<1x8x6x6xf32>
  %2 = neuron.pool2d sum %x layout nchw kernel [3, 3] padding [1, 1, 1, 1] : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
  %3 = neuron.div %2, %m : tensor<1x8x6x6xf32>
  return %1, %3 : tensor<1x8x2x2xf32>, tensor<1x8x6x6xf32>
}

// -----

// Kept: a sum divided by another number, a sum something else also reads,
// and an integer sum.
// CHECK-LABEL: func.func @pool_sum_kept
// CHECK: neuron.pool2d {{ *}}sum
// CHECK-NEXT: neuron.div
// CHECK-NEXT: neuron.pool2d {{ *}}sum
// CHECK-NEXT: neuron.div
// CHECK-NEXT: neuron.pool2d {{ *}}sum
// CHECK-NEXT: neuron.div
// CHECK-NOT: neuron.pool2d {{ *}}avg
func.func @pool_sum_kept(%x: tensor<1x8x4x4xf32>, %i: tensor<1x8x4x4xi32>) -> (tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xi32>) {
  %n = neuron.constant dense<8.0> : tensor<1x8x1x1xf32>
  %t = neuron.constant dense<16.0> : tensor<1x8x1x1xf32>
  %it = neuron.constant dense<16> : tensor<1x8x1x1xi32>
  %0 = neuron.pool2d sum %x layout nchw kernel [4, 4] : tensor<1x8x4x4xf32> -> tensor<1x8x1x1xf32>
  %1 = neuron.div %0, %n : tensor<1x8x1x1xf32>
  %2 = neuron.pool2d sum %x layout nchw kernel [4, 4] : tensor<1x8x4x4xf32> -> tensor<1x8x1x1xf32>
  %3 = neuron.div %2, %t : tensor<1x8x1x1xf32>
  %4 = neuron.pool2d sum %i layout nchw kernel [4, 4] : tensor<1x8x4x4xi32> -> tensor<1x8x1x1xi32>
  %5 = neuron.div %4, %it : tensor<1x8x1x1xi32>
  return %1, %2, %3, %5 : tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xf32>, tensor<1x8x1x1xi32>
}
