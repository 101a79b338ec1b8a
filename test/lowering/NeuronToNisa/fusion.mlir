// RUN: neuron-opt %s -split-input-file -verify-diagnostics --convert-neuron-to-nisa="target=trn2" | FileCheck %s

// A matmul epilogue: PSUM is evacuated through the relu, the residual is
// loaded once per tile, and only the fusion's result is stored. Nothing in
// between reaches HBM.

// CHECK-LABEL: func.func @epilogue
// CHECK-SAME:    (%[[X:.*]]: memref<64x32xf32, #nisa.memory<hbm>>, %[[W:.*]]: memref<32x16xf32, #nisa.memory<hbm>>, %[[R:.*]]: memref<64x16xf32, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<64x16xf32, #nisa.memory<hbm>>)
// CHECK-NOT:   memref.alloc() {{.*}}: memref<{{.*}}#nisa.memory<hbm>>
// CHECK:       %[[ACC:.*]] = memref.alloc() {nisa.tiling = {{{.*}}partition = "contraction+epilogue"{{.*}}}} : memref<64x16xf32, #nisa.memory<psum>>
// CHECK:       nisa.matmul {{.*}}, %[[ACC]]
// CHECK:       %[[EV:.*]] = memref.alloc() : memref<64x16xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.activation <relu> %[[ACC]], %[[EV]]
// CHECK:       %[[RES:.*]] = memref.alloc() : memref<64x16xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.dma_copy %{{.*}}, %[[RES]]
// CHECK:       %[[SUM:.*]] = memref.alloc() : memref<64x16xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.tensor_tensor <add> %[[EV]], %[[RES]], %[[SUM]]
// CHECK:       nisa.dma_copy %[[SUM]], %[[OUT]]
// CHECK-NOT:   nisa.dma_copy
// CHECK:       return
func.func @epilogue(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>, %r: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %0 = neuron.fusion(%x, %w, %r) : (tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>) -> tensor<64x16xf32> {
  ^bb0(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<64x16xf32>):
    %m = neuron.matmul %a, %b : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
    %y = neuron.relu %m : tensor<64x16xf32>
    %s = neuron.add %y, %c : tensor<64x16xf32>
    neuron.yield %s : tensor<64x16xf32>
  }
  return %0 : tensor<64x16xf32>
}

// -----

// A bias broadcast is read through a zero-stride view, never materialised;
// the product is also a result, so it is stored as well.

// CHECK-LABEL: func.func @bias
// CHECK-SAME:    %[[B:[^:]*]]: memref<16xf32, #nisa.memory<hbm>>, %[[OUT0:.*]]: memref<64x16xf32, #nisa.memory<hbm>>, %[[OUT1:.*]]: memref<64x16xf32, #nisa.memory<hbm>>)
// CHECK:       nisa.activation <identity>
// CHECK:       nisa.dma_copy {{.*}}, %{{.*}} queue
// CHECK:       memref.reinterpret_cast %[[B]] to offset: [0], sizes: [64, 16], strides: [0, 1]
// CHECK:       nisa.tensor_tensor <add>
// CHECK:       nisa.dma_copy
// CHECK-NOT:   nisa.dma_copy
// CHECK:       return
func.func @bias(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>, %bias: tensor<16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  %0:2 = neuron.fusion(%x, %w, %bias) : (tensor<64x32xf32>, tensor<32x16xf32>, tensor<16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  ^bb0(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %c: tensor<16xf32>):
    %e = neuron.broadcast %c dimensions [1] : tensor<16xf32> -> tensor<64x16xf32>
    %m = neuron.matmul %a, %b : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
    %s = neuron.add %m, %e : tensor<64x16xf32>
    neuron.yield %m, %s : tensor<64x16xf32>, tensor<64x16xf32>
  }
  return %0#0, %0#1 : tensor<64x16xf32>, tensor<64x16xf32>
}

// -----

// An elementwise chain: each input loaded once per tile, the chain computed
// in SBUF, one store per tile.

// CHECK-LABEL: func.func @chain
// CHECK-NOT:   memref.alloc() {{.*}}: memref<{{.*}}#nisa.memory<hbm>>
// CHECK:       memref.alloc() {nisa.tiling = {{{.*}}op = "neuron.fusion"{{.*}}}} : memref<128x128xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.dma_copy
// CHECK:       nisa.activation <exp>
// CHECK:       nisa.dma_copy
// CHECK:       nisa.tensor_tensor <multiply>
// CHECK:       nisa.activation <tanh>
// CHECK:       nisa.dma_copy
// CHECK-NOT:   nisa.dma_copy
// CHECK:       return
func.func @chain(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = neuron.fusion(%x, %y) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%a: tensor<64x256xf32>, %b: tensor<64x256xf32>):
    %e = neuron.exp %a : tensor<64x256xf32>
    %m = neuron.mul %e, %b : tensor<64x256xf32>
    %t = neuron.tanh %m : tensor<64x256xf32>
    neuron.yield %t : tensor<64x256xf32>
  }
  return %0 : tensor<64x256xf32>
}

// -----

func.func @unsupported(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = neuron.fusion(%x) : (tensor<8xf32>) -> tensor<8xf32> {
  ^bb0(%a: tensor<8xf32>):
    %e = neuron.exp %a : tensor<8xf32>
    // expected-error @below {{convert-neuron-to-nisa: 'neuron.reduce_sum' cannot be computed in a fusion}}
    %s = neuron.reduce_sum %e axes [0] : tensor<8xf32> -> tensor<f32>
    %b = neuron.broadcast %s dimensions [] : tensor<f32> -> tensor<8xf32>
    neuron.yield %b : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

// A convolution's epilogue: each output tile (16 channels by both rows of
// image 0, then of image 1; one matmul over the 9 taps of the 8 channels,
// stacked along the partitions) is evacuated from PSUM, stored because the
// fusion returns the convolution too, then scaled per channel (a
// broadcast read through its zero-stride view: a column of per-channel
// scalars, one tensor_scalar) and passed
// through the relu; the tiles are [channels, whole output rows].

// CHECK-LABEL: func.func @conv_epilogue
// CHECK-SAME:    %[[S:[^:]*]]: memref<16xf32, #nisa.memory<hbm>>, %[[OUT0:.*]]: memref<2x16x4x4xf32, #nisa.memory<hbm>>, %[[OUT1:.*]]: memref<2x16x4x4xf32, #nisa.memory<hbm>>)
// CHECK:       nisa.transpose
// CHECK:       affine.for %{{.*}} = 0 to 2 {
// CHECK:         %[[ACC:.*]] = memref.alloc() {nisa.tiling = {{{.*}}partition = "taps x input channels+epilogue"{{.*}}}} : memref<16x16xf32, #nisa.memory<psum>>
// CHECK:         nisa.matmul {{.*}}, %[[ACC]] : memref<72x16xf32, {{.*}}>, memref<72x4x4xf32, {{.*}}>, memref<16x16xf32, #nisa.memory<psum>>
// CHECK:       %[[EV:.*]] = memref.alloc() : memref<16x16xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.activation <identity> %[[ACC]], %[[EV]]
// CHECK:       %[[RAW:.*]] = memref.reinterpret_cast %[[OUT0]] to offset: [%{{.*}}], sizes: [16, 16], strides: [16, 1]
// CHECK:       nisa.dma_copy %[[EV]], %[[RAW]]
// CHECK:       memref.reinterpret_cast %[[S]] to offset: [0], sizes: [2, 16, 4, 4], strides: [0, 1, 0, 0]
// CHECK:       nisa.dma_copy %{{.*}}, %[[COL:.*]] queue {{[0-9]+}} : memref<16x1xf32, strided<[1, 0]>, #nisa.memory<hbm>>, memref<16x1xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.tensor_scalar <multiply> %[[EV]], %[[P:.*]] scalars %[[COL]] :
// CHECK:       nisa.activation <relu> %[[P]], %[[R:.*]] :
// CHECK:       %[[FIN:.*]] = memref.reinterpret_cast %[[OUT1]] to offset: [%{{.*}}], sizes: [16, 16], strides: [16, 1]
// CHECK:       nisa.dma_copy %[[R]], %[[FIN]]
func.func @conv_epilogue(%x: tensor<2x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %scale: tensor<16xf32>) -> (tensor<2x16x4x4xf32>, tensor<2x16x4x4xf32>) {
  %0:2 = neuron.fusion(%x, %w, %scale) : (tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> (tensor<2x16x4x4xf32>, tensor<2x16x4x4xf32>) {
  ^bb0(%a: tensor<2x8x6x6xf32>, %b: tensor<16x8x3x3xf32>, %s: tensor<16xf32>):
    %e = neuron.broadcast %s dimensions [1] : tensor<16xf32> -> tensor<2x16x4x4xf32>
    %c = neuron.conv2d %a, %b layout nchw_fchw : (tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x4x4xf32>
    %m = neuron.mul %c, %e : tensor<2x16x4x4xf32>
    %r = neuron.relu %m : tensor<2x16x4x4xf32>
    neuron.yield %c, %r : tensor<2x16x4x4xf32>, tensor<2x16x4x4xf32>
  }
  return %0#0, %0#1 : tensor<2x16x4x4xf32>, tensor<2x16x4x4xf32>
}

// -----

// A depthwise convolution's epilogue: the tile (4 blocks of one row beside
// the 16 channels, [64, 1, 4]) is finished on chip; the relu reads the
// sums, and the result is stored one block of [channels, rows, columns]
// at a time, from the block's 16 partitions.

// CHECK-LABEL: func.func @depthwise_epilogue
// CHECK:       %[[ACC:.*]] = memref.alloc() {nisa.tiling = {{{.*}}partition = "channels x row groups+epilogue"{{.*}}}} : memref<64x1x4xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.tensor_reduce <add> %{{.*}}, %{{.*}} : memref<64x3x3xf32, #nisa.memory<sbuf>>, memref<64x1x1xf32
// CHECK:       nisa.activation <relu> %[[ACC]], %[[R:.*]] :
// CHECK:       memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [16, 1, 4], strides: [16, 4, 1]
// CHECK:       %[[R0:.*]] = memref.subview %[[R]][0, 0, 0] [16, 1, 4]
// CHECK:       nisa.dma_copy %[[R0]]
// CHECK:       memref.reinterpret_cast %{{.*}} to offset: [12], sizes: [16, 1, 4], strides: [16, 4, 1]
// CHECK:       %[[R3:.*]] = memref.subview %[[R]][48, 0, 0] [16, 1, 4]
// CHECK:       nisa.dma_copy %[[R3]]
func.func @depthwise_epilogue(%x: tensor<1x16x6x6xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %0 = neuron.fusion(%x, %w) : (tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  ^bb0(%a: tensor<1x16x6x6xf32>, %b: tensor<16x1x3x3xf32>):
    %c = neuron.conv2d %a, %b layout nchw_fchw groups 16 : (tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32>
    %r = neuron.relu %c : tensor<1x16x4x4xf32>
    neuron.yield %r : tensor<1x16x4x4xf32>
  }
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// A convolution the engines do not tile (padded) takes no epilogue
// (neuron-fuse never groups one).
func.func @padded_epilogue(%x: tensor<1x8x6x6xf32>, %w: tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = neuron.fusion(%x, %w) : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32> {
  ^bb0(%a: tensor<1x8x6x6xf32>, %b: tensor<8x8x3x3xf32>):
    // expected-error @below {{convert-neuron-to-nisa: only an nchw_fchw float convolution without bias or padding takes an epilogue}}
    %c = neuron.conv2d %a, %b layout nchw_fchw padding [1, 1, 1, 1] : (tensor<1x8x6x6xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x6x6xf32>
    %r = neuron.relu %c : tensor<1x8x6x6xf32>
    neuron.yield %r : tensor<1x8x6x6xf32>
  }
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// A broadcast read in place after a convolution must give whole output
// rows as one run; a [1, C, 1, 1] bias over one-column rows does not
// (neuron-fuse never makes this fusion).
func.func @conv_broadcast_columns(%x: tensor<1x8x6x3xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<1x16x1x1xf32>) -> tensor<1x16x4x1xf32> {
  %0 = neuron.fusion(%x, %w, %b) : (tensor<1x8x6x3xf32>, tensor<16x8x3x3xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x4x1xf32> {
  ^bb0(%a: tensor<1x8x6x3xf32>, %c: tensor<16x8x3x3xf32>, %d: tensor<1x16x1x1xf32>):
    // expected-error @below {{convert-neuron-to-nisa: a convolution's epilogue reads this broadcast by whole output rows, which its strides do not give}}
    %bb = neuron.broadcast %d dimensions [0, 1, 2, 3] : tensor<1x16x1x1xf32> -> tensor<1x16x4x1xf32>
    %y = neuron.conv2d %a, %c layout nchw_fchw : (tensor<1x8x6x3xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x1xf32>
    %s = neuron.add %y, %bb : tensor<1x16x4x1xf32>
    neuron.yield %s : tensor<1x16x4x1xf32>
  }
  return %0 : tensor<1x16x4x1xf32>
}

// -----

// A folded batch norm after a convolution (a multiply and an add of
// immediates, then the activation): the scalar engine evacuates PSUM
// through all three at once, silu(x * 0.5 + 0.25), its bias a column
// filled beside it; nothing runs on the vector engine.

// CHECK-LABEL: func.func @conv_scaled_activation
// CHECK:       %[[ACC:.*]] = memref.alloc() {nisa.tiling = {{{.*}}partition = "taps x input channels+epilogue"{{.*}}}} : memref<16x16xf32, #nisa.memory<psum>>
// CHECK:       %[[EV:.*]] = memref.alloc() : memref<16x16xf32, #nisa.memory<sbuf>>
// CHECK-NEXT:  %[[B:.*]] = memref.alloc() : memref<16x1xf32, #nisa.memory<sbuf>>
// CHECK-NEXT:  nisa.memset %[[B]] value 2.500000e-01
// CHECK-NEXT:  nisa.activation <silu> %[[ACC]], %[[EV]] scale 5.000000e-01 bias %[[B]]
// CHECK-NOT:   nisa.tensor_scalar
// CHECK:       nisa.dma_copy %[[EV]]
func.func @conv_scaled_activation(%x: tensor<1x8x6x6xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %0 = neuron.fusion(%x, %w) : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32> {
  ^bb0(%a: tensor<1x8x6x6xf32>, %b: tensor<16x8x3x3xf32>):
    %scale = neuron.constant dense<0.5> : tensor<1x16x4x4xf32>
    %shift = neuron.constant dense<0.25> : tensor<1x16x4x4xf32>
    %c = neuron.conv2d %a, %b layout nchw_fchw : (tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>) -> tensor<1x16x4x4xf32>
    %m = neuron.mul %c, %scale : tensor<1x16x4x4xf32>
    %s = neuron.add %m, %shift : tensor<1x16x4x4xf32>
    %r = neuron.silu %s : tensor<1x16x4x4xf32>
    neuron.yield %r : tensor<1x16x4x4xf32>
  }
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// After a depthwise convolution (summed on the vector engine in SBUF), a
// multiply by an immediate on the left and a subtraction of one become a
// single scalar-engine instruction reading the sums: x * 2 + (-1).

// CHECK-LABEL: func.func @depthwise_scaled
// CHECK:       %[[ACC:.*]] = memref.alloc() {nisa.tiling = {{{.*}}partition = "channels x row groups+epilogue"{{.*}}}}
// CHECK:       nisa.tensor_reduce <add>
// CHECK:       %[[B:.*]] = memref.alloc() : memref<{{[0-9]+}}x1xf32, #nisa.memory<sbuf>>
// CHECK-NEXT:  nisa.memset %[[B]] value -1.000000e+00
// CHECK-NEXT:  nisa.activation <identity> %[[ACC]], %{{.*}} scale 2.000000e+00 bias %[[B]] :
// CHECK-NOT:   nisa.tensor_scalar
// CHECK:       return
func.func @depthwise_scaled(%x: tensor<1x16x6x6xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %0 = neuron.fusion(%x, %w) : (tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  ^bb0(%a: tensor<1x16x6x6xf32>, %b: tensor<16x1x3x3xf32>):
    %two = neuron.constant dense<2.0> : tensor<1x16x4x4xf32>
    %one = neuron.constant dense<1.0> : tensor<1x16x4x4xf32>
    %c = neuron.conv2d %a, %b layout nchw_fchw groups 16 : (tensor<1x16x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32>
    %m = neuron.mul %two, %c : tensor<1x16x4x4xf32>
    %s = neuron.sub %m, %one : tensor<1x16x4x4xf32>
    neuron.yield %s : tensor<1x16x4x4xf32>
  }
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// A scaled product the fusion also returns is evacuated with its scale
// alone and stored; the add and relu after it are one activation reading
// the stored tile. A lone multiply by a tensor stays on the vector engine.

// CHECK-LABEL: func.func @scaled_and_stored
// CHECK:       %[[EV:.*]] = memref.alloc() : memref<64x16xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.activation <identity> %{{.*}}, %[[EV]] scale 5.000000e-01 :
// CHECK:       nisa.dma_copy %[[EV]]
// CHECK:       %[[R:.*]] = memref.alloc() : memref<64x16xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.memset %[[B:.*]] value 3.000000e+00
// CHECK-NEXT:  nisa.activation <relu> %[[EV]], %[[R]] bias %[[B]] :
// CHECK:       nisa.tensor_tensor <multiply> %[[R]]
// CHECK-NOT:   nisa.tensor_scalar
// CHECK:       return
func.func @scaled_and_stored(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>, %g: tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  %0:2 = neuron.fusion(%x, %w, %g) : (tensor<64x32xf32>, tensor<32x16xf32>, tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>) {
  ^bb0(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %h: tensor<64x16xf32>):
    %half = neuron.constant dense<0.5> : tensor<64x16xf32>
    %three = neuron.constant dense<3.0> : tensor<64x16xf32>
    %p = neuron.matmul %a, %b : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
    %m = neuron.mul %p, %half : tensor<64x16xf32>
    %s = neuron.add %m, %three : tensor<64x16xf32>
    %r = neuron.relu %s : tensor<64x16xf32>
    %q = neuron.mul %r, %h : tensor<64x16xf32>
    neuron.yield %m, %q : tensor<64x16xf32>, tensor<64x16xf32>
  }
  return %0#0, %0#1 : tensor<64x16xf32>, tensor<64x16xf32>
}

// -----

// A run inside an elementwise fusion (a multiply by an immediate, then the
// tanh) is one activation, and the fusion's result it computes is stored
// once.

// CHECK-LABEL: func.func @run_stored_once
// CHECK:       nisa.tensor_tensor <add> %{{.*}}, %{{.*}}, %[[S:[^ ]*]] :
// CHECK:       nisa.activation <tanh> %[[S]], %[[T:[^ ]*]] scale 5.000000e-01 :
// CHECK:       nisa.dma_copy %[[T]],
// CHECK-NOT:   nisa.dma_copy %[[T]],
// CHECK:       return
func.func @run_stored_once(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = neuron.fusion(%x, %y) : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32> {
  ^bb0(%a: tensor<64x256xf32>, %b: tensor<64x256xf32>):
    %half = neuron.constant dense<0.5> : tensor<64x256xf32>
    %s = neuron.add %a, %b : tensor<64x256xf32>
    %m = neuron.mul %s, %half : tensor<64x256xf32>
    %t = neuron.tanh %m : tensor<64x256xf32>
    neuron.yield %t : tensor<64x256xf32>
  }
  return %0 : tensor<64x256xf32>
}

// -----

// A subtraction from a splat (1 - x) is no bias: the scale is folded into
// the evacuation, the subtraction stays on the vector engine. The splat,
// held in the body but not read as an immediate (neuron-fuse would make it
// an input), is loaded from a global.

// CHECK-LABEL: func.func @immediate_minus
// CHECK:       nisa.activation <identity> %{{.*}}, %[[EV:[^ ]*]] scale 5.000000e-01 :
// CHECK-NOT:   nisa.memset
// CHECK:       memref.get_global @__neuron_constant_
// CHECK:       nisa.tensor_tensor <subtract> %{{.*}}, %[[EV]],
func.func @immediate_minus(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %0 = neuron.fusion(%x, %w) : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32> {
  ^bb0(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>):
    %half = neuron.constant dense<0.5> : tensor<64x16xf32>
    %one = neuron.constant dense<1.0> : tensor<64x16xf32>
    %p = neuron.matmul %a, %b : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
    %m = neuron.mul %p, %half : tensor<64x16xf32>
    %s = neuron.sub %one, %m : tensor<64x16xf32>
    neuron.yield %s : tensor<64x16xf32>
  }
  return %0 : tensor<64x16xf32>
}

// -----

// An elementwise fusion reading broadcasts in place: split where both read
// as matrices ([3 x 130 rows, 256 columns]), each tile through the
// broadcast's strides; a row's value along its columns loads as a column,
// the per-partition scalars of one tensor_scalar, a vector down the rows
// through a zero row stride; nothing is materialised. Tiles of 128 rows,
// the last 6.

// CHECK-LABEL: func.func @row_and_column_broadcasts
// CHECK-SAME:    %[[R:[^:]*]]: memref<3x130xf32, #nisa.memory<hbm>>, %[[B:[^:]*]]: memref<256xf32, #nisa.memory<hbm>>
// CHECK:       affine.for %{{.*}} = 0 to 3 {
// CHECK:         memref.alloc() {nisa.tiling = {{{.*}}partition = "rows", tile = array<i64: 128, 256>}}
// CHECK:         %[[ROWS:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [3, 130, 256], strides: [130, 1, 0]
// CHECK:         memref.reinterpret_cast %[[ROWS]] to offset: [%{{.*}}], sizes: [128, 256], strides: [1, 0]
// CHECK:         nisa.dma_copy %{{.*}}, %[[COL:.*]] queue {{[0-9]+}} : memref<128x1xf32, strided<[1, 0], offset: ?>, #nisa.memory<hbm>>, memref<128x1xf32, #nisa.memory<sbuf>>
// CHECK-NOT:     nisa.memset
// CHECK:         nisa.tensor_scalar <multiply> %{{.*}}, %{{.*}} scalars %[[COL]]
// CHECK:         %[[COLS:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [3, 130, 256], strides: [0, 0, 1]
// CHECK:         memref.reinterpret_cast %[[COLS]] to offset: [0], sizes: [128, 256], strides: [0, 1]
// CHECK:         nisa.dma_copy {{.*}} : memref<128x256xf32, strided<[0, 1]>, #nisa.memory<hbm>>, memref<128x256xf32, #nisa.memory<sbuf>>
// CHECK:         nisa.tensor_tensor <add>
// CHECK:       memref.alloc() : memref<6x256xf32, #nisa.memory<sbuf>>
func.func @row_and_column_broadcasts(%x: tensor<3x130x256xf32>, %r: tensor<3x130xf32>, %b: tensor<256xf32>) -> tensor<3x130x256xf32> {
  %0 = neuron.fusion(%x, %r, %b) : (tensor<3x130x256xf32>, tensor<3x130xf32>, tensor<256xf32>) -> tensor<3x130x256xf32> {
  ^bb0(%a: tensor<3x130x256xf32>, %s: tensor<3x130xf32>, %c: tensor<256xf32>):
    %rows = neuron.broadcast %s dimensions [0, 1] : tensor<3x130xf32> -> tensor<3x130x256xf32>
    %cols = neuron.broadcast %c dimensions [2] : tensor<256xf32> -> tensor<3x130x256xf32>
    %m = neuron.mul %a, %rows : tensor<3x130x256xf32>
    %n = neuron.add %m, %cols : tensor<3x130x256xf32>
    neuron.yield %n : tensor<3x130x256xf32>
  }
  return %0 : tensor<3x130x256xf32>
}

// -----

// An elementwise fusion's broadcasts must read as matrices with rows of
// 512 bytes or more: one of rows of 16 f32 does not (neuron-fuse
// materialises it instead).
func.func @short_rows_broadcast(%x: tensor<64x16xf32>, %r: tensor<64xf32>) -> tensor<64x16xf32> {
  // expected-error @below {{convert-neuron-to-nisa: the broadcasts this fusion reads have no common [rows, columns] view, tile by tile, with rows of 512 bytes or more}}
  %0 = neuron.fusion(%x, %r) : (tensor<64x16xf32>, tensor<64xf32>) -> tensor<64x16xf32> {
  ^bb0(%a: tensor<64x16xf32>, %s: tensor<64xf32>):
    %rows = neuron.broadcast %s dimensions [0] : tensor<64xf32> -> tensor<64x16xf32>
    %m = neuron.mul %a, %rows : tensor<64x16xf32>
    %e = neuron.exp %m : tensor<64x16xf32>
    neuron.yield %e : tensor<64x16xf32>
  }
  return %0 : tensor<64x16xf32>
}

// -----

// A table over positions broadcast over images and heads: its rows merge
// only within an image's head (256 positions), so the images and heads are
// looped one at a time and each tile's offset stays linear in the loops;
// the table's tiles read it in place, 128 positions each.

// CHECK-LABEL: func.func @table_over_heads
// CHECK-SAME:    %[[X:[^:]*]]: memref<2x6x256x128xf32, #nisa.memory<hbm>>, %[[T:[^:]*]]: memref<256x128xf32, #nisa.memory<hbm>>
// CHECK:       affine.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:    affine.for %[[H:.*]] = 0 to 6 {
// CHECK-NEXT:      affine.for %[[P:.*]] = 0 to 2 {
// CHECK:             memref.reinterpret_cast %[[X]] to offset: [%{{.*}}], sizes: [128, 128], strides: [128, 1]
// CHECK:             %[[VIEW:.*]] = memref.reinterpret_cast %[[T]] to offset: [0], sizes: [2, 6, 256, 128], strides: [0, 0, 128, 1]
// CHECK:             %[[AT:.*]] = affine.apply #{{.*}}(%[[P]])
// CHECK:             memref.reinterpret_cast %[[VIEW]] to offset: [%[[AT]]], sizes: [128, 128], strides: [128, 1]
// CHECK:             nisa.tensor_tensor <multiply>
func.func @table_over_heads(%x: tensor<2x6x256x128xf32>, %c: tensor<256x128xf32>) -> tensor<2x6x256x128xf32> {
  %0 = neuron.fusion(%x, %c) : (tensor<2x6x256x128xf32>, tensor<256x128xf32>) -> tensor<2x6x256x128xf32> {
  ^bb0(%a: tensor<2x6x256x128xf32>, %t: tensor<256x128xf32>):
    %tb = neuron.broadcast %t dimensions [2, 3] : tensor<256x128xf32> -> tensor<2x6x256x128xf32>
    %m = neuron.mul %a, %tb : tensor<2x6x256x128xf32>
    neuron.yield %m : tensor<2x6x256x128xf32>
  }
  return %0 : tensor<2x6x256x128xf32>
}

// -----

// A column of per-row values on the left of a commutative op is the
// scalars of one tensor_scalar all the same; on the left of a subtraction
// it is filled along the rows first (a tile of ones times each row's value).

// CHECK-LABEL: func.func @column_on_the_left
// CHECK:       nisa.dma_copy %{{.*}}, %[[COL:.*]] queue {{[0-9]+}} : memref<128x1xf32, strided<[1, 0], offset: ?>, #nisa.memory<hbm>>, memref<128x1xf32, #nisa.memory<sbuf>>
// CHECK:       nisa.tensor_scalar <max> %{{.*}}, %[[M:.*]] scalars %[[COL]]
// CHECK:       nisa.memset %[[FILLED:.*]] value 1.0
// CHECK-NEXT:  nisa.tensor_scalar <multiply> %[[FILLED]], %[[FILLED]] scalars %[[COL]]
// CHECK-NEXT:  nisa.tensor_tensor <subtract> %[[FILLED]], %[[M]]
func.func @column_on_the_left(%x: tensor<256x512xf32>, %r: tensor<256xf32>) -> tensor<256x512xf32> {
  %0 = neuron.fusion(%x, %r) : (tensor<256x512xf32>, tensor<256xf32>) -> tensor<256x512xf32> {
  ^bb0(%a: tensor<256x512xf32>, %s: tensor<256xf32>):
    %rows = neuron.broadcast %s dimensions [0] : tensor<256xf32> -> tensor<256x512xf32>
    %m = neuron.max %rows, %a : tensor<256x512xf32>
    %d = neuron.sub %rows, %m : tensor<256x512xf32>
    neuron.yield %d : tensor<256x512xf32>
  }
  return %0 : tensor<256x512xf32>
}
