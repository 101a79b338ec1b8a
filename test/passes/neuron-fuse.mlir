// RUN: neuron-opt %s -split-input-file --neuron-fuse | FileCheck %s
// RUN: neuron-opt %s -split-input-file --neuron-fuse=summary \
// RUN:   -verify-diagnostics -o /dev/null

// A matmul with its epilogue: the bias broadcast is read inside the group,
// the intermediates are not results.

// CHECK-LABEL: func.func @dense
// CHECK:       %[[F:.*]] = neuron.fusion(%arg0, %arg1, %arg2) : (tensor<64x32xf32>, tensor<32x16xf32>, tensor<16xf32>) -> tensor<64x16xf32> {
// CHECK-NEXT:  ^bb0(%[[X:.*]]: tensor<64x32xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[B:.*]]: tensor<16xf32>):
// CHECK-NEXT:    %[[E:.*]] = neuron.broadcast %[[B]] dimensions [1]
// CHECK-NEXT:    %[[M:.*]] = neuron.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[S:.*]] = neuron.add %[[M]], %[[E]]
// CHECK-NEXT:    %[[R:.*]] = neuron.relu %[[S]]
// CHECK-NEXT:    neuron.yield %[[R]] : tensor<64x16xf32>
// CHECK:       return %[[F]]
// expected-remark @below {{neuron-fuse: 1 groups; 16384 bytes of HBM traffic stay on chip}}
func.func @dense(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>, %bias: tensor<16xf32>) -> tensor<64x16xf32> {
  %e = neuron.broadcast %bias dimensions [1] : tensor<16xf32> -> tensor<64x16xf32>
  %m = neuron.matmul %x, %w : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %s = neuron.add %m, %e : tensor<64x16xf32>
  %r = neuron.relu %s : tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// -----

// An elementwise chain; a value also used after the group is a result too.

// CHECK-LABEL: func.func @chain
// CHECK:       %[[F:.*]]:2 = neuron.fusion(%arg0, %arg1) : (tensor<8x32xf32>, tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>)
// CHECK:         %[[E:.*]] = neuron.exp
// CHECK:         %[[M:.*]] = neuron.mul %[[E]], %{{.*}}
// CHECK:         %[[T:.*]] = neuron.tanh %[[M]]
// CHECK:         neuron.yield %[[E]], %[[T]]
// CHECK:       %[[S:.*]] = neuron.reduce_sum %[[F]]#0
// CHECK:       return %[[F]]#1, %[[S]]
// expected-remark @below {{neuron-fuse: 1 groups; 2048 bytes of HBM traffic stay on chip}}
func.func @chain(%x: tensor<8x32xf32>, %y: tensor<8x32xf32>) -> (tensor<8x32xf32>, tensor<8xf32>) {
  %e = neuron.exp %x : tensor<8x32xf32>
  %m = neuron.mul %e, %y : tensor<8x32xf32>
  %t = neuron.tanh %m : tensor<8x32xf32>
  %s = neuron.reduce_sum %e axes [1] : tensor<8x32xf32> -> tensor<8xf32>
  return %t, %s : tensor<8x32xf32>, tensor<8xf32>
}

// -----

// A consumer whose other operand is computed after the group starts does
// not join (the group could not stand where its first op stood), nor does
// one of another shape; each seeds or joins its own group.

// CHECK-LABEL: func.func @blocked
// CHECK:       %[[A:.*]] = neuron.fusion(%arg0)
// CHECK:         neuron.exp
// CHECK:         neuron.tanh
// CHECK:       %[[R:.*]] = neuron.reduce_max
// CHECK:       %[[BC:.*]] = neuron.broadcast %[[R]]
// CHECK:       %[[S:.*]] = neuron.sub %[[A]], %[[BC]]
// CHECK:       return %[[S]]
// expected-remark @below {{neuron-fuse: 1 groups}}
func.func @blocked(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %e = neuron.exp %x : tensor<8x32xf32>
  %t = neuron.tanh %e : tensor<8x32xf32>
  %r = neuron.reduce_max %t axes [1] : tensor<8x32xf32> -> tensor<8xf32>
  %b = neuron.broadcast %r dimensions [0] : tensor<8xf32> -> tensor<8x32xf32>
  %s = neuron.sub %t, %b : tensor<8x32xf32>
  return %s : tensor<8x32xf32>
}

// -----

// Programs are left alone.

// CHECK-LABEL: func.func @program
// CHECK-NOT:   neuron.fusion
func.func @program(%x: tensor<8xf32>) -> tensor<8xf32> attributes {neuron.program} {
  %e = neuron.exp %x : tensor<8xf32>
  %t = neuron.tanh %e : tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

// A convolution the tensor engine runs with its epilogue: the per-channel
// scale and shift are broadcasts read inside the group. A depthwise
// convolution (on the vector engine) starts a group with the chain after
// it.

// CHECK-LABEL: func.func @conv
// CHECK:       %[[F:.*]] = neuron.fusion(%arg0, %arg1, %arg2, %arg3) : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32> {
// CHECK:         neuron.broadcast
// CHECK:         neuron.broadcast
// CHECK:         %[[C:.*]] = neuron.conv2d
// CHECK-NEXT:    %[[M:.*]] = neuron.mul %[[C]], %{{.*}}
// CHECK-NEXT:    %[[A:.*]] = neuron.add %[[M]], %{{.*}}
// CHECK-NEXT:    %[[R:.*]] = neuron.relu %[[A]]
// CHECK-NEXT:    neuron.yield %[[R]]
// CHECK:       neuron.fusion(%[[F]], %arg4)
// CHECK:         %[[D:.*]] = neuron.conv2d %{{.*}}, %{{.*}} layout nchw_fchw groups 16
// CHECK-NEXT:    %[[E:.*]] = neuron.exp %[[D]]
// CHECK-NEXT:    neuron.mul %[[E]], %[[D]]
// expected-remark @below {{neuron-fuse: 2 groups; 7168 bytes of HBM traffic stay on chip}}
func.func @conv(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %scale: tensor<16xf32>, %shift: tensor<16xf32>, %dw: tensor<16x1x3x3xf32>) -> tensor<1x16x2x2xf32> {
  %s = neuron.broadcast %scale dimensions [1] : tensor<16xf32> -> tensor<1x16x4x4xf32>
  %t = neuron.broadcast %shift dimensions [1] : tensor<16xf32> -> tensor<1x16x4x4xf32>
  %c = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  %m = neuron.mul %c, %s : tensor<1x16x4x4xf32>
  %a = neuron.add %m, %t : tensor<1x16x4x4xf32>
  %r = neuron.relu %a : tensor<1x16x4x4xf32>
  %d = neuron.conv2d %r, %dw layout nchw_fchw groups 16 : (tensor<1x16x4x4xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x2x2xf32>
  %e = neuron.exp %d : tensor<1x16x2x2xf32>
  %o = neuron.mul %e, %d : tensor<1x16x2x2xf32>
  return %o : tensor<1x16x2x2xf32>
}

// -----

// After a convolution, a broadcast along the output columns alone is not
// a view of whole rows: the group leaves it out and reads it materialised.

// CHECK-LABEL: func.func @conv_columns
// CHECK:       %[[B:.*]] = neuron.broadcast %arg2 dimensions [3]
// CHECK:       neuron.fusion(%arg0, %arg1, %[[B]])
// expected-remark @below {{neuron-fuse: 1 groups; 2048 bytes of HBM traffic stay on chip}}
func.func @conv_columns(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>, %col: tensor<4xf32>) -> tensor<1x8x4x4xf32> {
  %b = neuron.broadcast %col dimensions [3] : tensor<4xf32> -> tensor<1x8x4x4xf32>
  %c = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x4x4xf32>
  %a = neuron.add %c, %b : tensor<1x8x4x4xf32>
  %r = neuron.relu %a : tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// -----

// After a depthwise convolution a broadcast is not read in place (its
// tiles are blocks of rows beside the channels): one made inside the
// group's span moves before the group and is read materialised.

// CHECK-LABEL: func.func @depthwise_broadcast
// CHECK:       %[[B:.*]] = neuron.broadcast %arg2 dimensions [1]
// CHECK-NEXT:  neuron.fusion(%arg0, %arg1, %[[B]])
// CHECK:         neuron.conv2d
// CHECK-NEXT:    neuron.mul
// CHECK-NEXT:    neuron.relu
// expected-remark @below {{neuron-fuse: 1 groups; 4096 bytes of HBM traffic stay on chip}}
func.func @depthwise_broadcast(%x: tensor<1x16x6x6xf32>, %w: tensor<16x1x3x3xf32>, %scale: tensor<16xf32>) -> tensor<1x16x4x4xf32> {
  %c = neuron.conv2d %x, %w layout nchw_fchw groups 16 : (tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32>
  %s = neuron.broadcast %scale dimensions [1] : tensor<16xf32> -> tensor<1x16x4x4xf32>
  %m = neuron.mul %c, %s : tensor<1x16x4x4xf32>
  %r = neuron.relu %m : tensor<1x16x4x4xf32>
  return %r : tensor<1x16x4x4xf32>
}

// -----

// A broadcast the tiles of a convolution cannot read in place: a bias of
// shape [1, C, 1, 1] over one-column output rows would step across the
// rows, so the group reads it materialised.

// CHECK-LABEL: func.func @conv_single_column
// CHECK:       %[[B:.*]] = neuron.broadcast %arg2
// CHECK-NEXT:  neuron.fusion(%arg0, %arg1, %[[B]])
// CHECK-NOT:     neuron.broadcast
// CHECK:         neuron.conv2d
// expected-remark @below {{neuron-fuse: 1 groups; 512 bytes of HBM traffic stay on chip}}
func.func @conv_single_column(%x: tensor<1x8x6x3xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<1x16x1x1xf32>) -> tensor<1x16x4x1xf32> {
  %bb = neuron.broadcast %b dimensions [0, 1, 2, 3] : tensor<1x16x1x1xf32> -> tensor<1x16x4x1xf32>
  %c = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x8x6x3xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x1xf32>
  %a = neuron.add %c, %bb : tensor<1x16x4x1xf32>
  return %a : tensor<1x16x4x1xf32>
}

// -----

// A broadcast the matmul itself reads is an input of the fusion, not read
// in place: the producer's operands come from HBM.

// CHECK-LABEL: func.func @producer_operand
// CHECK:       %[[B:.*]] = neuron.broadcast %arg0
// CHECK-NEXT:  neuron.fusion(%[[B]], %arg1)
// CHECK-NOT:     neuron.broadcast
// CHECK:         neuron.matmul
// expected-remark @below {{neuron-fuse: 1 groups; 512 bytes of HBM traffic stay on chip}}
func.func @producer_operand(%v: tensor<8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %b = neuron.broadcast %v dimensions [1] : tensor<8xf32> -> tensor<8x8xf32>
  %m = neuron.matmul %b, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = neuron.add %m, %b : tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// Batch norm as torch-mlir orders it: rsqrt(var + eps) comes after the
// convolution but does not read it. Those ops join the group with the
// first op that reads them, so the convolution and its whole epilogue are
// one fusion.

// CHECK-LABEL: func.func @conv_bn_order
// CHECK:       neuron.fusion(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK:         %[[C:.*]] = neuron.conv2d
// CHECK-NEXT:    %[[V:.*]] = neuron.add %{{.*}}, %{{.*}}
// CHECK-NEXT:    %[[R:.*]] = neuron.rsqrt %[[V]]
// CHECK-NEXT:    %[[M:.*]] = neuron.mul %[[C]], %[[R]]
// CHECK-NEXT:    neuron.add %[[M]]
// CHECK-NOT:   neuron.rsqrt
// expected-remark @below {{neuron-fuse: 1 groups; 8192 bytes of HBM traffic stay on chip}}
func.func @conv_bn_order(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %var: tensor<1x16x4x4xf32>, %eps: tensor<1x16x4x4xf32>, %beta: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %c = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  %v = neuron.add %var, %eps : tensor<1x16x4x4xf32>
  %r = neuron.rsqrt %v : tensor<1x16x4x4xf32>
  %m = neuron.mul %c, %r : tensor<1x16x4x4xf32>
  %a = neuron.add %m, %beta : tensor<1x16x4x4xf32>
  return %a : tensor<1x16x4x4xf32>
}

// -----

// Batch norm as TOSA writes it: rsqrt(var + eps) per channel, after the
// convolution, reshaped and broadcast over the image. What computes the
// broadcast's input does not read the convolution: it moves before the
// group (where it is a group of its own), so the broadcast is read in
// place and the convolution and both scales are one fusion, with no
// materialised broadcast.

// CHECK-LABEL: func.func @conv_bn_channels
// CHECK:       %[[P:.*]] = neuron.fusion(%arg2) : (tensor<16x1x1xf32>) -> tensor<16x1x1xf32>
// CHECK:         neuron.rsqrt
// CHECK:       %[[S:.*]] = neuron.reshape %[[P]] : tensor<16x1x1xf32> -> tensor<1x16xf32>
// CHECK-NEXT:  neuron.fusion(%arg0, %arg1, %[[S]], %arg3)
// CHECK:         neuron.broadcast
// CHECK-NEXT:    neuron.broadcast
// CHECK-NEXT:    %[[C:.*]] = neuron.conv2d
// CHECK-NEXT:    %[[M:.*]] = neuron.mul %[[C]]
// CHECK-NEXT:    neuron.mul %[[M]]
// CHECK-NEXT:    neuron.yield
// CHECK-NOT:   neuron.broadcast
// expected-remark @below {{neuron-fuse: 2 groups; 4224 bytes of HBM traffic stay on chip}}
func.func @conv_bn_channels(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %var: tensor<16x1x1xf32>, %gamma: tensor<1x16xf32>) -> tensor<1x16x4x4xf32> {
  %c = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
  %eps = neuron.constant dense<1.0e-5> : tensor<16x1x1xf32>
  %v = neuron.add %var, %eps : tensor<16x1x1xf32>
  %r = neuron.rsqrt %v : tensor<16x1x1xf32>
  %s = neuron.reshape %r : tensor<16x1x1xf32> -> tensor<1x16xf32>
  %b = neuron.broadcast %s dimensions [0, 1] : tensor<1x16xf32> -> tensor<1x16x4x4xf32>
  %g = neuron.broadcast %gamma dimensions [0, 1] : tensor<1x16xf32> -> tensor<1x16x4x4xf32>
  %m = neuron.mul %c, %b : tensor<1x16x4x4xf32>
  %n = neuron.mul %m, %g : tensor<1x16x4x4xf32>
  return %n : tensor<1x16x4x4xf32>
}

// -----

// A broadcast whose input reads the group cannot move before it: the
// op reading it starts a group of its own.

// CHECK-LABEL: func.func @broadcast_of_group
// CHECK:       %[[F:.*]] = neuron.fusion(%arg0, %arg1) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
// CHECK:       neuron.reduce_sum
// CHECK:       neuron.broadcast
// CHECK:       neuron.fusion
// CHECK:         neuron.sub
// expected-remark @below {{neuron-fuse: 2 groups;}}
func.func @broadcast_of_group(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %m = neuron.matmul %x, %w : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %e = neuron.exp %m : tensor<8x4xf32>
  %r = neuron.reduce_sum %e axes [1] : tensor<8x4xf32> -> tensor<8xf32>
  %b = neuron.broadcast %r dimensions [0] : tensor<8xf32> -> tensor<8x4xf32>
  %s = neuron.sub %e, %b : tensor<8x4xf32>
  %t = neuron.relu %s : tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}

// -----

// An elementwise group reads broadcasts in place where each reads as a
// matrix at one split of its shape ([rows, columns] with rows of 512 bytes
// or more): a row's maximum subtracted (the seed's own operand), then a
// vector down the rows added; the broadcasts are not materialised.

// CHECK-LABEL: func.func @row_broadcasts
// CHECK:       %[[M:.*]] = neuron.reduce_max %arg0
// CHECK-NEXT:  neuron.fusion(%arg0, %[[M]], %arg1)
// CHECK-NEXT:  ^bb0(
// CHECK-NEXT:    neuron.broadcast
// CHECK-NEXT:    neuron.broadcast
// CHECK-NEXT:    neuron.sub
// CHECK-NEXT:    neuron.exp
// CHECK-NEXT:    neuron.add
// CHECK-NEXT:    neuron.yield
// CHECK-NOT:   neuron.broadcast
// expected-remark @below {{neuron-fuse: 1 groups; 524288 bytes of HBM traffic stay on chip}}
func.func @row_broadcasts(%x: tensor<4x32x256xf32>, %b: tensor<256xf32>) -> tensor<4x32x256xf32> {
  %m = neuron.reduce_max %x axes [2] : tensor<4x32x256xf32> -> tensor<4x32xf32>
  %mb = neuron.broadcast %m dimensions [0, 1] : tensor<4x32xf32> -> tensor<4x32x256xf32>
  %d = neuron.sub %x, %mb : tensor<4x32x256xf32>
  %e = neuron.exp %d : tensor<4x32x256xf32>
  %bb = neuron.broadcast %b dimensions [2] : tensor<256xf32> -> tensor<4x32x256xf32>
  %a = neuron.add %e, %bb : tensor<4x32x256xf32>
  return %a : tensor<4x32x256xf32>
}

// -----

// One elementwise op alone is a fusion where it reads a broadcast in place.

// CHECK-LABEL: func.func @one_op_broadcast
// CHECK:       neuron.fusion(%arg0, %arg1)
// CHECK-NEXT:  ^bb0(
// CHECK-NEXT:    neuron.broadcast
// CHECK-NEXT:    neuron.mul
// CHECK-NEXT:    neuron.yield
// expected-remark @below {{neuron-fuse: 1 groups; 0 bytes of HBM traffic stay on chip}}
func.func @one_op_broadcast(%x: tensor<256x512xf32>, %s: tensor<256xf32>) -> tensor<256x512xf32> {
  %sb = neuron.broadcast %s dimensions [0] : tensor<256xf32> -> tensor<256x512xf32>
  %y = neuron.mul %x, %sb : tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

// -----

// Rows of 16 f32 (64 bytes) would move every operand in runs that short,
// and 8 rows would leave most of the 128 partitions idle that the
// flattened view fills: each broadcast stays outside, materialised, and
// one op alone is no group.

// CHECK-LABEL: func.func @short_rows
// CHECK:       %[[B:.*]] = neuron.broadcast %arg1
// CHECK-NEXT:  neuron.mul %arg0, %[[B]]
// CHECK-NOT:   neuron.fusion
// CHECK-LABEL: func.func @few_rows
// CHECK:       %[[B:.*]] = neuron.broadcast %arg1
// CHECK-NEXT:  neuron.mul %arg0, %[[B]]
// CHECK-NOT:   neuron.fusion
// expected-remark @below {{neuron-fuse: 0 groups; 0 bytes of HBM traffic stay on chip}}
func.func @short_rows(%x: tensor<512x16xf32>, %s: tensor<512xf32>) -> tensor<512x16xf32> {
  %sb = neuron.broadcast %s dimensions [0] : tensor<512xf32> -> tensor<512x16xf32>
  %y = neuron.mul %x, %sb : tensor<512x16xf32>
  return %y : tensor<512x16xf32>
}
// expected-remark @below {{neuron-fuse: 0 groups; 0 bytes of HBM traffic stay on chip}}
func.func @few_rows(%x: tensor<8x512xf32>, %s: tensor<8xf32>) -> tensor<8x512xf32> {
  %sb = neuron.broadcast %s dimensions [0] : tensor<8xf32> -> tensor<8x512xf32>
  %y = neuron.mul %x, %sb : tensor<8x512xf32>
  return %y : tensor<8x512xf32>
}

// -----

// An NCHW channel's value over two images reads as no matrix (the
// channels' stride does not merge with the images' zero one, nor the
// pixels' zero with the channels'): the broadcast is materialised and read
// like any operand.

// CHECK-LABEL: func.func @no_matrix
// CHECK:       %[[C:.*]] = neuron.broadcast %arg1
// CHECK:       neuron.fusion(%arg0, %[[C]])
// CHECK-NEXT:  ^bb0(
// CHECK-NEXT:    neuron.mul
// expected-remark @below {{neuron-fuse: 1 groups; 122880 bytes of HBM traffic stay on chip}}
func.func @no_matrix(%x: tensor<2x4x40x48xf32>, %c: tensor<4xf32>) -> tensor<2x4x40x48xf32> {
  %cb = neuron.broadcast %c dimensions [1] : tensor<4xf32> -> tensor<2x4x40x48xf32>
  %y = neuron.mul %x, %cb : tensor<2x4x40x48xf32>
  %r = neuron.relu %y : tensor<2x4x40x48xf32>
  return %r : tensor<2x4x40x48xf32>
}

// -----

// Splat constants the group reads as immediates (a ReLU6's bounds) are
// copied into the region instead of being its inputs, and the originals
// go when nothing else reads them; one on the left of a subtraction is an
// input like any tensor.

// CHECK-LABEL: func.func @immediates
// CHECK-NOT:   neuron.constant dense<0.000000e+00>
// CHECK-NOT:   neuron.constant dense<6.000000e+00>
// CHECK:       %[[ONE:.*]] = neuron.constant dense<1.000000e+00>
// CHECK:       neuron.fusion(%arg0, %arg1, %[[ONE]]) : (tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32> {
// CHECK-NEXT:  ^bb0(%[[X:.*]]: tensor<64x32xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[L:.*]]: tensor<64x16xf32>):
// CHECK-NEXT:    %[[Z:.*]] = neuron.constant dense<0.000000e+00>
// CHECK-NEXT:    %[[SIX:.*]] = neuron.constant dense<6.000000e+00>
// CHECK-NEXT:    %[[M:.*]] = neuron.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[LO:.*]] = neuron.max %[[Z]], %[[M]]
// CHECK-NEXT:    %[[HI:.*]] = neuron.min %[[LO]], %[[SIX]]
// CHECK-NEXT:    %[[S:.*]] = neuron.sub %[[L]], %[[HI]]
// CHECK-NEXT:    neuron.yield %[[S]]
// expected-remark @below {{neuron-fuse: 1 groups; 24576 bytes of HBM traffic stay on chip}}
func.func @immediates(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %zero = neuron.constant dense<0.0> : tensor<64x16xf32>
  %six = neuron.constant dense<6.0> : tensor<64x16xf32>
  %one = neuron.constant dense<1.0> : tensor<64x16xf32>
  %m = neuron.matmul %x, %w : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %lo = neuron.max %zero, %m : tensor<64x16xf32>
  %hi = neuron.min %lo, %six : tensor<64x16xf32>
  %s = neuron.sub %one, %hi : tensor<64x16xf32>
  return %s : tensor<64x16xf32>
}

// -----

// A splat the group reads both as an immediate and as a tensor (on the
// left of a subtraction) is an input of the region, read as a tensor by
// both: the region has no copy of it.

// CHECK-LABEL: func.func @immediate_and_tensor
// CHECK:       %[[C:.*]] = neuron.constant dense<6.000000e+00>
// CHECK:       neuron.fusion(%arg0, %[[C]])
// CHECK-NEXT:  ^bb0(%[[X:.*]]: tensor<8x32xf32>, %[[K:.*]]: tensor<8x32xf32>):
// CHECK-NEXT:    %[[M:.*]] = neuron.mul %[[X]], %[[K]]
// CHECK-NEXT:    %[[S:.*]] = neuron.sub %[[K]], %[[M]]
// expected-remark @below {{neuron-fuse: 1 groups; 2048 bytes of HBM traffic stay on chip}}
func.func @immediate_and_tensor(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %c = neuron.constant dense<6.0> : tensor<8x32xf32>
  %m = neuron.mul %x, %c : tensor<8x32xf32>
  %s = neuron.sub %c, %m : tensor<8x32xf32>
  return %s : tensor<8x32xf32>
}
