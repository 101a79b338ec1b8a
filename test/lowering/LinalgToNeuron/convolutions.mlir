// RUN: neuron-opt %s -split-input-file -convert-linalg-to-neuron | FileCheck %s

// Tests that conv_2d_nchw_fchw keeps its strides and dilations and needs no
// layout change; the zero fill init needs no add.
// CHECK-LABEL: func.func @conv_nchw_fchw_strided_dilated
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x17x17xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>)
// CHECK-NOT: neuron.transpose
// CHECK: %[[R:.*]] = neuron.conv2d %[[X]], %[[W]] layout nchw_fchw strides [2, 2] dilations [1, 2] : (tensor<1x3x17x17xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x7xf32>
// CHECK-NOT: neuron.add
// CHECK: return %[[R]]
func.func @conv_nchw_fchw_strided_dilated(%x: tensor<1x3x17x17xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x7xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x7xf32>
  %zero = linalg.fill ins(%c0 : f32) outs(%e : tensor<1x8x8x7xf32>) -> tensor<1x8x8x7xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x17x17xf32>, tensor<8x3x3x3xf32>) outs(%zero : tensor<1x8x8x7xf32>) -> tensor<1x8x8x7xf32>
  return %r : tensor<1x8x8x7xf32>
}

// -----

// Tests that conv_2d_nhwc_hwcf is transposed into NCHW/FCHW and back.
// CHECK-LABEL: func.func @conv_nhwc_hwcf
// CHECK-SAME: (%[[X:.*]]: tensor<1x10x12x3xf32>, %[[W:.*]]: tensor<3x3x3x8xf32>)
// CHECK-DAG: %[[XT:.*]] = neuron.transpose %[[X]] permutation [0, 3, 1, 2] : tensor<1x10x12x3xf32> -> tensor<1x3x10x12xf32>
// CHECK-DAG: %[[WT:.*]] = neuron.transpose %[[W]] permutation [3, 2, 0, 1] : tensor<3x3x3x8xf32> -> tensor<8x3x3x3xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XT]], %[[WT]] layout nchw_fchw : (tensor<1x3x10x12xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x10xf32>
// CHECK: %[[R:.*]] = neuron.transpose %[[C]] permutation [0, 2, 3, 1] : tensor<1x8x8x10xf32> -> tensor<1x8x10x8xf32>
// CHECK: return %[[R]]
func.func @conv_nhwc_hwcf(%x: tensor<1x10x12x3xf32>, %w: tensor<3x3x3x8xf32>) -> tensor<1x8x10x8xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x8x10x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x12x3xf32>, tensor<3x3x3x8xf32>) outs(%zero : tensor<1x8x10x8xf32>) -> tensor<1x8x10x8xf32>
  return %r : tensor<1x8x10x8xf32>
}

// -----

// Tests conv_2d_nhwc_fhwc (what TOSA conv2d lowers to) with a bias folded
// into the init: the init is added after the convolution.
// CHECK-LABEL: func.func @conv_nhwc_fhwc_bias_init
// CHECK-SAME: (%[[X:.*]]: tensor<1x10x10x3xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[BIAS:.*]]: tensor<1x4x4x8xf32>)
// CHECK-DAG: %[[XT:.*]] = neuron.transpose %[[X]] permutation [0, 3, 1, 2] : tensor<1x10x10x3xf32> -> tensor<1x3x10x10xf32>
// CHECK-DAG: %[[WT:.*]] = neuron.transpose %[[W]] permutation [0, 3, 1, 2] : tensor<8x3x3x3xf32> -> tensor<8x3x3x3xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XT]], %[[WT]] layout nchw_fchw strides [2, 2] : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x4x4xf32>
// CHECK: %[[CT:.*]] = neuron.transpose %[[C]] permutation [0, 2, 3, 1] : tensor<1x8x4x4xf32> -> tensor<1x4x4x8xf32>
// CHECK: %[[R:.*]] = neuron.add %[[CT]], %[[BIAS]] : tensor<1x4x4x8xf32>
// CHECK: return %[[R]]
func.func @conv_nhwc_fhwc_bias_init(%x: tensor<1x10x10x3xf32>, %w: tensor<8x3x3x3xf32>, %bias: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x3xf32>, tensor<8x3x3x3xf32>) outs(%bias : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}

// -----

// Tests that a bias broadcast into the init with linalg.broadcast becomes a
// neuron.broadcast added after the convolution.
// CHECK-LABEL: func.func @conv_broadcast_bias_init
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x10x10xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[BIAS:.*]]: tensor<8xf32>)
// CHECK-DAG: %[[B:.*]] = neuron.broadcast %[[BIAS]] dimensions [1] : tensor<8xf32> -> tensor<1x8x8x8xf32>
// CHECK-DAG: %[[C:.*]] = neuron.conv2d %[[X]], %[[W]] layout nchw_fchw : (tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
// CHECK: %[[R:.*]] = neuron.add %[[C]], %[[B]] : tensor<1x8x8x8xf32>
// CHECK: return %[[R]]
func.func @conv_broadcast_bias_init(%x: tensor<1x3x10x10xf32>, %w: tensor<8x3x3x3xf32>, %bias: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %b = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x8x8xf32>) dimensions = [0, 2, 3]
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x10x10xf32>, tensor<8x3x3x3xf32>) outs(%b : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// Tests that depthwise_conv_2d_nchw_chw is a grouped convolution with one
// group per channel and the filter reshaped to C x 1 x KH x KW.
// CHECK-LABEL: func.func @depthwise_nchw_chw
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x10x10xf32>, %[[W:.*]]: tensor<4x3x3xf32>)
// CHECK: %[[WR:.*]] = neuron.reshape %[[W]] : tensor<4x3x3xf32> -> tensor<4x1x3x3xf32>
// CHECK: %[[R:.*]] = neuron.conv2d %[[X]], %[[WR]] layout nchw_fchw strides [2, 2] groups 4 : (tensor<1x4x10x10xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK: return %[[R]]
func.func @depthwise_nchw_chw(%x: tensor<1x4x10x10xf32>, %w: tensor<4x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x4x4x4xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x4x10x10xf32>, tensor<4x3x3xf32>) outs(%zero : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// Tests that depthwise_conv_2d_nhwc_hwc is transposed into the grouped
// NCHW form and back.
// CHECK-LABEL: func.func @depthwise_nhwc_hwc
// CHECK-SAME: (%[[X:.*]]: tensor<1x10x10x4xf32>, %[[W:.*]]: tensor<3x3x4xf32>)
// CHECK-DAG: %[[XT:.*]] = neuron.transpose %[[X]] permutation [0, 3, 1, 2] : tensor<1x10x10x4xf32> -> tensor<1x4x10x10xf32>
// CHECK-DAG: %[[WT:.*]] = neuron.transpose %[[W]] permutation [2, 0, 1] : tensor<3x3x4xf32> -> tensor<4x3x3xf32>
// CHECK-DAG: %[[WR:.*]] = neuron.reshape %[[WT]] : tensor<4x3x3xf32> -> tensor<4x1x3x3xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XT]], %[[WR]] layout nchw_fchw groups 4 : (tensor<1x4x10x10xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
// CHECK: %[[R:.*]] = neuron.transpose %[[C]] permutation [0, 2, 3, 1] : tensor<1x4x8x8xf32> -> tensor<1x8x8x4xf32>
// CHECK: return %[[R]]
func.func @depthwise_nhwc_hwc(%x: tensor<1x10x10x4xf32>, %w: tensor<3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x8x8x4xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x10x10x4xf32>, tensor<3x3x4xf32>) outs(%zero : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %r : tensor<1x8x8x4xf32>
}

// -----

// Tests that depthwise_conv_2d_nhwc_hwcm with a channel multiplier gives
// C*M output channels in C groups, split back into C x M.
// CHECK-LABEL: func.func @depthwise_nhwc_hwcm
// CHECK-SAME: (%[[X:.*]]: tensor<1x10x10x4xf32>, %[[W:.*]]: tensor<3x3x4x2xf32>)
// CHECK-DAG: %[[XT:.*]] = neuron.transpose %[[X]] permutation [0, 3, 1, 2] : tensor<1x10x10x4xf32> -> tensor<1x4x10x10xf32>
// CHECK-DAG: %[[WT:.*]] = neuron.transpose %[[W]] permutation [2, 3, 0, 1] : tensor<3x3x4x2xf32> -> tensor<4x2x3x3xf32>
// CHECK-DAG: %[[WR:.*]] = neuron.reshape %[[WT]] : tensor<4x2x3x3xf32> -> tensor<8x1x3x3xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XT]], %[[WR]] layout nchw_fchw groups 4 : (tensor<1x4x10x10xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
// CHECK: %[[CR:.*]] = neuron.reshape %[[C]] : tensor<1x8x8x8xf32> -> tensor<1x4x2x8x8xf32>
// CHECK: %[[R:.*]] = neuron.transpose %[[CR]] permutation [0, 3, 4, 1, 2] : tensor<1x4x2x8x8xf32> -> tensor<1x8x8x4x2xf32>
// CHECK: return %[[R]]
func.func @depthwise_nhwc_hwcm(%x: tensor<1x10x10x4xf32>, %w: tensor<3x3x4x2xf32>) -> tensor<1x8x8x4x2xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x8x8x4x2xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwcm {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x10x10x4xf32>, tensor<3x3x4x2xf32>) outs(%zero : tensor<1x8x8x4x2xf32>) -> tensor<1x8x8x4x2xf32>
  return %r : tensor<1x8x8x4x2xf32>
}

// -----

// Tests the convolution JAX writes as a generic: unbatched CHW, windows as
// `d2 + d3`, the input-channel reduction loop first, the accumulator the
// first addf operand. It gains and loses a unit batch.
// CHECK-LABEL: func.func @generic_conv_jax_chw
// CHECK-SAME: (%[[X:.*]]: tensor<16x30x30xf32>, %[[W:.*]]: tensor<32x16x3x3xf32>)
// CHECK: %[[XR:.*]] = neuron.reshape %[[X]] : tensor<16x30x30xf32> -> tensor<1x16x30x30xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XR]], %[[W]] layout nchw_fchw : (tensor<1x16x30x30xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x28x28xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[C]] : tensor<1x32x28x28xf32> -> tensor<32x28x28xf32>
// CHECK: return %[[R]]
func.func @generic_conv_jax_chw(%x: tensor<16x30x30xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<32x28x28xf32> {
  %zero = arith.constant dense<0.0> : tensor<32x28x28xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2 + d3, d4 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d0, d3, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4)>],
                       iterator_types = ["reduction", "parallel", "parallel", "reduction", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x30x30xf32>, tensor<32x16x3x3xf32>) outs(%zero : tensor<32x28x28xf32>) {
  ^bb0(%in: f32, %f: f32, %acc: f32):
    %m = arith.mulf %in, %f : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  } -> tensor<32x28x28xf32>
  return %r : tensor<32x28x28xf32>
}

// -----

// Tests the strided JAX generic convolution (`d2 * 2 + d3`).
// CHECK-LABEL: func.func @generic_conv_jax_strided
// CHECK: %[[XR:.*]] = neuron.reshape %{{.*}} : tensor<16x16x16xf32> -> tensor<1x16x16x16xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XR]], %{{.*}} layout nchw_fchw strides [2, 2] : (tensor<1x16x16x16xf32>, tensor<32x16x3x3xf32>) -> tensor<1x32x7x7xf32>
// CHECK: neuron.reshape %[[C]] : tensor<1x32x7x7xf32> -> tensor<32x7x7xf32>
// CHECK-NOT: linalg.generic
func.func @generic_conv_jax_strided(%x: tensor<16x16x16xf32>, %w: tensor<32x16x3x3xf32>) -> tensor<32x7x7xf32> {
  %zero = arith.constant dense<0.0> : tensor<32x7x7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2 * 2 + d3, d4 * 2 + d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d0, d3, d5)>,
                                        affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4)>],
                       iterator_types = ["reduction", "parallel", "parallel", "reduction", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x16x16xf32>, tensor<32x16x3x3xf32>) outs(%zero : tensor<32x7x7xf32>) {
  ^bb0(%in: f32, %f: f32, %acc: f32):
    %m = arith.mulf %in, %f : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  } -> tensor<32x7x7xf32>
  return %r : tensor<32x7x7xf32>
}

// -----

// Tests a generic convolution of a single-channel image (no input-channel
// loop): the image and filter gain a unit channel.
// CHECK-LABEL: func.func @generic_conv_single_channel
// CHECK-SAME: (%[[X:.*]]: tensor<30x30xf32>, %[[W:.*]]: tensor<16x3x3xf32>)
// CHECK-DAG: %[[XR:.*]] = neuron.reshape %[[X]] : tensor<30x30xf32> -> tensor<1x1x30x30xf32>
// CHECK-DAG: %[[WR:.*]] = neuron.reshape %[[W]] : tensor<16x3x3xf32> -> tensor<16x1x3x3xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XR]], %[[WR]] layout nchw_fchw : (tensor<1x1x30x30xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x28x28xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[C]] : tensor<1x16x28x28xf32> -> tensor<16x28x28xf32>
// CHECK: return %[[R]]
func.func @generic_conv_single_channel(%x: tensor<30x30xf32>, %w: tensor<16x3x3xf32>) -> tensor<16x28x28xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x28x28xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1 + d2, d3 + d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4)>,
                                        affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>],
                       iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"]}
      ins(%x, %w : tensor<30x30xf32>, tensor<16x3x3xf32>) outs(%zero : tensor<16x28x28xf32>) {
  ^bb0(%in: f32, %f: f32, %acc: f32):
    %m = arith.mulf %in, %f : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  } -> tensor<16x28x28xf32>
  return %r : tensor<16x28x28xf32>
}

// -----

// Tests that an i8 convolution accumulating in i32 is raised with the i8
// operands as they are.
// CHECK-LABEL: func.func @conv_i8_i32_acc
// CHECK: neuron.conv2d %{{.*}}, %{{.*}} layout nchw_fchw : (tensor<1x3x10x10xi8>, tensor<8x3x3x3xi8>) -> tensor<1x8x8x8xi32>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_i8_i32_acc(%x: tensor<1x3x10x10xi8>, %w: tensor<8x3x3x3xi8>) -> tensor<1x8x8x8xi32> {
  %zero = arith.constant dense<0> : tensor<1x8x8x8xi32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x10x10xi8>, tensor<8x3x3x3xi8>) outs(%zero : tensor<1x8x8x8xi32>) -> tensor<1x8x8x8xi32>
  return %r : tensor<1x8x8x8xi32>
}

// -----

// Tests that a convolution of bf16 by f32 (mismatched element types) is left.
// CHECK-LABEL: func.func @conv_mismatched_element_types
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: neuron.conv2d
func.func @conv_mismatched_element_types(%x: tensor<1x3x10x10xbf16>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x8x8x8xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x3x10x10xbf16>, tensor<8x3x3x3xf32>) outs(%zero : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// Tests that a 1-D convolution is left: neuron.conv2d has two spatial dims.
// CHECK-LABEL: func.func @conv_1d
// CHECK: linalg.conv_1d_nwc_wcf
// CHECK-NOT: neuron.conv2d
func.func @conv_1d(%x: tensor<1x10x3xf32>, %w: tensor<3x3x8xf32>) -> tensor<1x8x8xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x8x8xf32>
  %r = linalg.conv_1d_nwc_wcf {strides = dense<1> : tensor<1xi64>, dilations = dense<1> : tensor<1xi64>}
      ins(%x, %w : tensor<1x10x3xf32>, tensor<3x3x8xf32>) outs(%zero : tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  return %r : tensor<1x8x8xf32>
}

// -----

// Tests that pooling_nchw_max with the -FLT_MAX fill torch-mlir and TOSA use
// as the init keeps that init as a max: -FLT_MAX is not -inf on windows of
// -inf.
// CHECK-LABEL: func.func @pool_nchw_max_flt_max_init
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x9x9xf32>)
// CHECK: %[[P:.*]] = neuron.pool2d {{ *}}max %[[X]] layout {{ *}}nchw kernel [3, 3] strides [2, 2] : tensor<1x4x9x9xf32> -> tensor<1x4x4x4xf32>
// CHECK: %[[R:.*]] = neuron.max %[[P]], %{{.*}} : tensor<1x4x4x4xf32>
// CHECK: return %[[R]]
func.func @pool_nchw_max_flt_max_init(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x4x4xf32> {
  %min = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %init = linalg.fill ins(%min : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %window : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// Tests that pooling_nchw_sum over the whole image (the sum half of a global
// average pool) with a zero init needs no add.
// CHECK-LABEL: func.func @pool_nchw_sum_global
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>)
// CHECK: %[[R:.*]] = neuron.pool2d sum %[[X]] layout nchw kernel [8, 8] : tensor<1x4x8x8xf32> -> tensor<1x4x1x1xf32>
// CHECK-NOT: neuron.add
// CHECK: return %[[R]]
func.func @pool_nchw_sum_global(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x1x1xf32>
  %init = linalg.fill ins(%c0 : f32) outs(%e : tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  %window = tensor.empty() : tensor<8x8xf32>
  %r = linalg.pooling_nchw_sum {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %window : tensor<1x4x8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  return %r : tensor<1x4x1x1xf32>
}

// -----

// Tests that pooling_nhwc_max runs as an NCHW pool between layout
// transposes (the channels on partitions, as a convolution's), and with an
// init that is not -inf takes the max with the init afterwards.
// CHECK-LABEL: func.func @pool_nhwc_max_nonidentity_init
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x4xf32>, %[[INIT:.*]]: tensor<1x4x4x4xf32>)
// CHECK: %[[T:.*]] = neuron.transpose %[[X]] permutation [0, 3, 1, 2] : tensor<1x8x8x4xf32> -> tensor<1x4x8x8xf32>
// CHECK: %[[Q:.*]] = neuron.pool2d max %[[T]] layout nchw kernel [2, 2] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
// CHECK: %[[P:.*]] = neuron.transpose %[[Q]] permutation [0, 2, 3, 1] : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
// CHECK: %[[R:.*]] = neuron.max %[[P]], %[[INIT]] : tensor<1x4x4x4xf32>
// CHECK: return %[[R]]
func.func @pool_nhwc_max_nonidentity_init(%x: tensor<1x8x8x4xf32>, %init: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %window = tensor.empty() : tensor<2x2xf32>
  %r = linalg.pooling_nhwc_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %window : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// Tests that pooling_nhwc_sum with a non-zero init adds it afterwards.
// CHECK-LABEL: func.func @pool_nhwc_sum_nonzero_init
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x4xf32>, %[[INIT:.*]]: tensor<1x4x4x4xf32>)
// CHECK: %[[T:.*]] = neuron.transpose %[[X]] permutation [0, 3, 1, 2]
// CHECK: %[[Q:.*]] = neuron.pool2d sum %[[T]] layout nchw kernel [2, 2] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
// CHECK: %[[P:.*]] = neuron.transpose %[[Q]] permutation [0, 2, 3, 1]
// CHECK: %[[R:.*]] = neuron.add %[[P]], %[[INIT]] : tensor<1x4x4x4xf32>
// CHECK: return %[[R]]
func.func @pool_nhwc_sum_nonzero_init(%x: tensor<1x8x8x4xf32>, %init: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %window = tensor.empty() : tensor<2x2xf32>
  %r = linalg.pooling_nhwc_sum {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %window : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// Tests that min pooling, which neuron.pool2d has no kind for, is left.
// CHECK-LABEL: func.func @pool_nhwc_min
// CHECK: linalg.pooling_nhwc_min
// CHECK-NOT: neuron.pool2d
func.func @pool_nhwc_min(%x: tensor<1x8x8x4xf32>, %init: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %window = tensor.empty() : tensor<2x2xf32>
  %r = linalg.pooling_nhwc_min {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%x, %window : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %r : tensor<1x4x4x4xf32>
}

// -----

// Tests that a strided 1x1 convolution written as JAX writes it (a generic
// with no batch, the image read at `oh * 2, ow * 2`, a [F, C] filter) becomes
// a conv2d on a batch of one with a 1x1 filter and the map's strides.
// CHECK-LABEL: func.func @generic_conv_1x1_strided_jax
// CHECK-SAME: (%[[X:.*]]: tensor<16x28x28xf32>, %[[W:.*]]: tensor<32x16xf32>)
// CHECK-DAG: %[[XB:.*]] = neuron.reshape %[[X]] : tensor<16x28x28xf32> -> tensor<1x16x28x28xf32>
// CHECK-DAG: %[[W4:.*]] = neuron.reshape %[[W]] : tensor<32x16xf32> -> tensor<32x16x1x1xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XB]], %[[W4]] layout nchw_fchw strides [2, 2] : (tensor<1x16x28x28xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x14x14xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[C]] : tensor<1x32x14x14xf32> -> tensor<32x14x14xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @generic_conv_1x1_strided_jax(%x: tensor<16x28x28xf32>, %w: tensor<32x16xf32>) -> tensor<32x14x14xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x14x14xf32>
  %zero = linalg.fill ins(%c0 : f32) outs(%e : tensor<32x14x14xf32>) -> tensor<32x14x14xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2 * 2, d3 * 2)>,
                                        affine_map<(d0, d1, d2, d3) -> (d1, d0)>,
                                        affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>],
                       iterator_types = ["reduction", "parallel", "parallel", "parallel"]}
      ins(%x, %w : tensor<16x28x28xf32>, tensor<32x16xf32>) outs(%zero : tensor<32x14x14xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x14x14xf32>
  return %r : tensor<32x14x14xf32>
}

// -----

// Tests a strided 1x1 convolution generic in NHWC with a batch loop, a
// [C, F] filter, different strides per axis, image rows the windows do not
// read (trimmed) and a non-zero init (added after).
// CHECK-LABEL: func.func @generic_conv_1x1_strided_nhwc
// CHECK-SAME: (%[[X:.*]]: tensor<2x10x8x3xf32>, %[[W:.*]]: tensor<3x4xf32>, %[[INIT:.*]]: tensor<2x3x4x4xf32>)
// CHECK-DAG: %[[XT:.*]] = neuron.transpose %[[X]] permutation [0, 3, 1, 2] : tensor<2x10x8x3xf32> -> tensor<2x3x10x8xf32>
// CHECK-DAG: %[[XS:.*]] = neuron.slice %[[XT]] offsets [0, 0, 0, 0] strides [1, 1, 1, 1] : tensor<2x3x10x8xf32> -> tensor<2x3x7x8xf32>
// CHECK-DAG: %[[WT:.*]] = neuron.transpose %[[W]] permutation [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
// CHECK-DAG: %[[W4:.*]] = neuron.reshape %[[WT]] : tensor<4x3xf32> -> tensor<4x3x1x1xf32>
// CHECK: %[[C:.*]] = neuron.conv2d %[[XS]], %[[W4]] layout nchw_fchw strides [3, 2] : (tensor<2x3x7x8xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x3x4xf32>
// CHECK: %[[CT:.*]] = neuron.transpose %[[C]] permutation [0, 2, 3, 1] : tensor<2x4x3x4xf32> -> tensor<2x3x4x4xf32>
// CHECK: %[[R:.*]] = neuron.add %[[CT]], %[[INIT]] : tensor<2x3x4x4xf32>
// CHECK: return %[[R]]
func.func @generic_conv_1x1_strided_nhwc(%x: tensor<2x10x8x3xf32>, %w: tensor<3x4xf32>, %init: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f, c) -> (n, h * 3, w * 2, c)>,
                                        affine_map<(n, h, w, f, c) -> (c, f)>,
                                        affine_map<(n, h, w, f, c) -> (n, h, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x10x8x3xf32>, tensor<3x4xf32>) outs(%init : tensor<2x3x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3x4x4xf32>
  return %r : tensor<2x3x4x4xf32>
}

// -----

// Tests that a generic with a stride on one image axis only is left: its
// other image loop reads like a batch loop, and nothing says which it is.
// CHECK-LABEL: func.func @generic_conv_1x1_one_strided_axis
// CHECK: linalg.generic
// CHECK-NOT: neuron.conv2d
func.func @generic_conv_1x1_one_strided_axis(%x: tensor<16x28x14xf32>, %w: tensor<32x16xf32>, %init: tensor<32x14x14xf32>) -> tensor<32x14x14xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2 * 2, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d1, d0)>,
                                        affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>],
                       iterator_types = ["reduction", "parallel", "parallel", "parallel"]}
      ins(%x, %w : tensor<16x28x14xf32>, tensor<32x16xf32>) outs(%init : tensor<32x14x14xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<32x14x14xf32>
  return %r : tensor<32x14x14xf32>
}
