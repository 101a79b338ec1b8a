// Round-trip of every neuron op and attribute in its custom assembly.
// RUN: neuron-opt %s | neuron-opt | FileCheck %s

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

// A target with chip, instance and lnc.
// CHECK-LABEL: module @target_with_instance
// CHECK-SAME: neuron.target = #neuron.target<chip = "trainium2", instance = "trn2.48xlarge", lnc = 2>
module @target_with_instance attributes {neuron.target = #neuron.target<chip = "trainium2", instance = "trn2.48xlarge", lnc = 2>} {
}

// A target with the chip only; lnc = 1 is the default and is not printed.
// CHECK-LABEL: module @target_without_instance
// CHECK-SAME: neuron.target = #neuron.target<chip = "inferentia2">
// CHECK-NOT: instance
module @target_without_instance attributes {neuron.target = #neuron.target<chip = "inferentia2", lnc = 1>} {
}

// The enum attributes, standalone.
// CHECK-LABEL: func.func @enum_attrs
// CHECK-SAME: engine = #neuron.engine<tensor>
// CHECK-SAME: engines = [#neuron.engine<vector>, #neuron.engine<scalar>, #neuron.engine<gpsimd>, #neuron.engine<dma>, #neuron.engine<collective>, #neuron.engine<host>]
// CHECK-SAME: layout = #neuron<conv_layout nhwc_fhwc>
// CHECK-SAME: pool = #neuron<pool_kind sum>
// CHECK-SAME: predicate = #neuron<predicate le>
func.func @enum_attrs() attributes {
    engine = #neuron.engine<tensor>,
    engines = [#neuron.engine<vector>, #neuron.engine<scalar>, #neuron.engine<gpsimd>,
               #neuron.engine<dma>, #neuron.engine<collective>, #neuron.engine<host>],
    layout = #neuron<conv_layout nhwc_fhwc>, pool = #neuron<pool_kind sum>,
    predicate = #neuron<predicate le>} {
  return
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x64xf32>, %[[B:.*]]: tensor<64x32xf32>)
// CHECK: %[[R:.*]] = neuron.matmul %[[A]], %[[B]] : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
// CHECK: return %[[R]]
func.func @matmul_f32(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>) -> tensor<4x32xf32> {
  %0 = neuron.matmul %a, %b : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// bf16 operands accumulate into f32.
// CHECK-LABEL: func.func @matmul_bf16_to_f32
// CHECK: neuron.matmul %{{.*}}, %{{.*}} : (tensor<128x64xbf16>, tensor<64x256xbf16>) -> tensor<128x256xf32>
func.func @matmul_bf16_to_f32(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>) -> tensor<128x256xf32> {
  %0 = neuron.matmul %a, %b : (tensor<128x64xbf16>, tensor<64x256xbf16>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// i8 operands accumulate into i32.
// CHECK-LABEL: func.func @matmul_i8_to_i32
// CHECK: neuron.matmul %{{.*}}, %{{.*}} : (tensor<16x32xi8>, tensor<32x8xi8>) -> tensor<16x8xi32>
func.func @matmul_i8_to_i32(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>) -> tensor<16x8xi32> {
  %0 = neuron.matmul %a, %b : (tensor<16x32xi8>, tensor<32x8xi8>) -> tensor<16x8xi32>
  return %0 : tensor<16x8xi32>
}

// f16 keeps its own type; fp8 accumulates into f32.
// CHECK-LABEL: func.func @matmul_f16_fp8
// CHECK: neuron.matmul %{{.*}}, %{{.*}} : (tensor<8x8xf16>, tensor<8x8xf16>) -> tensor<8x8xf16>
// CHECK: neuron.matmul %{{.*}}, %{{.*}} : (tensor<8x16xf8E4M3FN>, tensor<16x8xf8E4M3FN>) -> tensor<8x8xf32>
// CHECK: neuron.matmul %{{.*}}, %{{.*}} : (tensor<8x16xf8E5M2>, tensor<16x8xf8E5M2>) -> tensor<8x8xf8E5M2>
func.func @matmul_f16_fp8(%a: tensor<8x8xf16>, %b: tensor<8x16xf8E4M3FN>, %c: tensor<16x8xf8E4M3FN>,
                          %d: tensor<8x16xf8E5M2>, %e: tensor<16x8xf8E5M2>)
    -> (tensor<8x8xf16>, tensor<8x8xf32>, tensor<8x8xf8E5M2>) {
  %0 = neuron.matmul %a, %a : (tensor<8x8xf16>, tensor<8x8xf16>) -> tensor<8x8xf16>
  %1 = neuron.matmul %b, %c : (tensor<8x16xf8E4M3FN>, tensor<16x8xf8E4M3FN>) -> tensor<8x8xf32>
  %2 = neuron.matmul %d, %e : (tensor<8x16xf8E5M2>, tensor<16x8xf8E5M2>) -> tensor<8x8xf8E5M2>
  return %0, %1, %2 : tensor<8x8xf16>, tensor<8x8xf32>, tensor<8x8xf8E5M2>
}

// Dynamic M and K are accepted.
// CHECK-LABEL: func.func @matmul_dynamic
// CHECK: neuron.matmul %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
func.func @matmul_dynamic(%a: tensor<?x?xf32>, %b: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %0 = neuron.matmul %a, %b : (tensor<?x?xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[Q:.*]]: tensor<12x64x32xf32>, %[[K:.*]]: tensor<12x32x64xf32>
// CHECK: %[[R:.*]] = neuron.batch_matmul %[[Q]], %[[K]] : (tensor<12x64x32xf32>, tensor<12x32x64xf32>) -> tensor<12x64x64xf32>
// CHECK: neuron.batch_matmul %{{.*}}, %{{.*}} : (tensor<?x8x4xbf16>, tensor<?x4x8xbf16>) -> tensor<?x8x8xf32>
// CHECK: return %[[R]]
func.func @batch_matmul(%q: tensor<12x64x32xf32>, %k: tensor<12x32x64xf32>,
                        %x: tensor<?x8x4xbf16>, %y: tensor<?x4x8xbf16>)
    -> (tensor<12x64x64xf32>, tensor<?x8x8xf32>) {
  %0 = neuron.batch_matmul %q, %k : (tensor<12x64x32xf32>, tensor<12x32x64xf32>) -> tensor<12x64x64xf32>
  %1 = neuron.batch_matmul %x, %y : (tensor<?x8x4xbf16>, tensor<?x4x8xbf16>) -> tensor<?x8x8xf32>
  return %0, %1 : tensor<12x64x64xf32>, tensor<?x8x8xf32>
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// nchw_fchw with a bias, strides and padding.
// CHECK-LABEL: func.func @conv2d_nchw_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x32x32xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[R:.*]] = neuron.conv2d %[[X]], %[[W]] bias %[[B]] layout nchw_fchw strides [2, 2] padding [1, 1, 1, 1] : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
// CHECK: return %[[R]]
func.func @conv2d_nchw_bias(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %0 = neuron.conv2d %x, %w bias %b layout nchw_fchw strides [2, 2] padding [1, 1, 1, 1]
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>
  return %0 : tensor<1x16x16x16xf32>
}

// Without a bias; attributes equal to their defaults are not printed.
// CHECK-LABEL: func.func @conv2d_defaults
// CHECK: neuron.conv2d %{{.*}}, %{{.*}} layout nchw_fchw : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
func.func @conv2d_defaults(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw strides [1, 1] padding [0, 0, 0, 0] dilations [1, 1] groups 1
      : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// nhwc_hwcf with dilations.
// CHECK-LABEL: func.func @conv2d_nhwc_hwcf_dilated
// CHECK: neuron.conv2d %{{.*}}, %{{.*}} layout nhwc_hwcf dilations [2, 2] : (tensor<1x32x32x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x28x28x16xf32>
func.func @conv2d_nhwc_hwcf_dilated(%x: tensor<1x32x32x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x28x28x16xf32> {
  %0 = neuron.conv2d %x, %w layout nhwc_hwcf dilations [2, 2]
      : (tensor<1x32x32x8xf32>, tensor<3x3x8x16xf32>) -> tensor<1x28x28x16xf32>
  return %0 : tensor<1x28x28x16xf32>
}

// nhwc_fhwc depthwise (groups = channels) with a bias.
// CHECK-LABEL: func.func @conv2d_nhwc_fhwc_depthwise
// CHECK: neuron.conv2d %{{.*}}, %{{.*}} bias %{{.*}} layout nhwc_fhwc padding [1, 1, 1, 1] groups 8 : (tensor<1x16x16x8xf16>, tensor<8x3x3x1xf16>, tensor<8xf16>) -> tensor<1x16x16x8xf16>
func.func @conv2d_nhwc_fhwc_depthwise(%x: tensor<1x16x16x8xf16>, %w: tensor<8x3x3x1xf16>, %b: tensor<8xf16>) -> tensor<1x16x16x8xf16> {
  %0 = neuron.conv2d %x, %w bias %b layout nhwc_fhwc padding [1, 1, 1, 1] groups 8
      : (tensor<1x16x16x8xf16>, tensor<8x3x3x1xf16>, tensor<8xf16>) -> tensor<1x16x16x8xf16>
  return %0 : tensor<1x16x16x8xf16>
}

// i8 -> i32 and bf16 -> f32 accumulation; a dynamic batch.
// CHECK-LABEL: func.func @conv2d_accumulators
// CHECK: neuron.conv2d %{{.*}}, %{{.*}} layout nchw_fchw : (tensor<1x4x8x8xi8>, tensor<8x4x1x1xi8>) -> tensor<1x8x8x8xi32>
// CHECK: neuron.conv2d %{{.*}}, %{{.*}} layout nchw_fchw strides [2, 2] : (tensor<?x3x8x8xbf16>, tensor<4x3x3x3xbf16>) -> tensor<?x4x3x3xf32>
func.func @conv2d_accumulators(%x: tensor<1x4x8x8xi8>, %w: tensor<8x4x1x1xi8>,
                               %y: tensor<?x3x8x8xbf16>, %v: tensor<4x3x3x3xbf16>)
    -> (tensor<1x8x8x8xi32>, tensor<?x4x3x3xf32>) {
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x4x8x8xi8>, tensor<8x4x1x1xi8>) -> tensor<1x8x8x8xi32>
  %1 = neuron.conv2d %y, %v layout nchw_fchw strides [2, 2] : (tensor<?x3x8x8xbf16>, tensor<4x3x3x3xbf16>) -> tensor<?x4x3x3xf32>
  return %0, %1 : tensor<1x8x8x8xi32>, tensor<?x4x3x3xf32>
}

// CHECK-LABEL: func.func @pool2d_max
// CHECK-SAME: (%[[X:.*]]: tensor<1x64x112x112xf32>)
// CHECK: %[[R:.*]] = neuron.pool2d max %[[X]] layout nchw kernel [3, 3] strides [2, 2] padding [1, 1, 1, 1] : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
// CHECK: return %[[R]]
func.func @pool2d_max(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %0 = neuron.pool2d max %x layout nchw kernel [3, 3] strides [2, 2] padding [1, 1, 1, 1]
      : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  return %0 : tensor<1x64x56x56xf32>
}

// avg pooling with and without count_include_pad.
// CHECK-LABEL: func.func @pool2d_avg
// CHECK: neuron.pool2d avg %{{.*}} layout nhwc kernel [3, 3] padding [1, 1, 1, 1] count_include_pad : tensor<1x8x8x4xbf16> -> tensor<1x8x8x4xbf16>
// CHECK: neuron.pool2d avg %{{.*}} layout nhwc kernel [3, 3] padding [1, 1, 1, 1] : tensor<1x8x8x4xbf16> -> tensor<1x8x8x4xbf16>
func.func @pool2d_avg(%x: tensor<1x8x8x4xbf16>) -> (tensor<1x8x8x4xbf16>, tensor<1x8x8x4xbf16>) {
  %0 = neuron.pool2d avg %x layout nhwc kernel [3, 3] padding [1, 1, 1, 1] count_include_pad
      : tensor<1x8x8x4xbf16> -> tensor<1x8x8x4xbf16>
  %1 = neuron.pool2d avg %x layout nhwc kernel [3, 3] padding [1, 1, 1, 1]
      : tensor<1x8x8x4xbf16> -> tensor<1x8x8x4xbf16>
  return %0, %1 : tensor<1x8x8x4xbf16>, tensor<1x8x8x4xbf16>
}

// sum pooling with dilations, on i32.
// CHECK-LABEL: func.func @pool2d_sum
// CHECK: neuron.pool2d sum %{{.*}} layout nchw kernel [2, 2] dilations [2, 2] : tensor<1x4x9x9xi32> -> tensor<1x4x7x7xi32>
func.func @pool2d_sum(%x: tensor<1x4x9x9xi32>) -> tensor<1x4x7x7xi32> {
  %0 = neuron.pool2d sum %x layout nchw kernel [2, 2] strides [1, 1] dilations [2, 2]
      : tensor<1x4x9x9xi32> -> tensor<1x4x7x7xi32>
  return %0 : tensor<1x4x7x7xi32>
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>
// CHECK: %[[ADD:.*]] = neuron.add %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[SUB:.*]] = neuron.sub %[[ADD]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[MUL:.*]] = neuron.mul %[[SUB]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[DIV:.*]] = neuron.div %[[MUL]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[MAX:.*]] = neuron.max %[[DIV]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[MIN:.*]] = neuron.min %[[MAX]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[POW:.*]] = neuron.pow %[[MIN]], %[[B]] : tensor<4x8xf32>
// CHECK: return %[[POW]]
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.add %a, %b : tensor<4x8xf32>
  %1 = neuron.sub %0, %b : tensor<4x8xf32>
  %2 = neuron.mul %1, %b : tensor<4x8xf32>
  %3 = neuron.div %2, %b : tensor<4x8xf32>
  %4 = neuron.max %3, %b : tensor<4x8xf32>
  %5 = neuron.min %4, %b : tensor<4x8xf32>
  %6 = neuron.pow %5, %b : tensor<4x8xf32>
  return %6 : tensor<4x8xf32>
}

// Binary ops on the other compute types.
// CHECK-LABEL: func.func @binary_dtypes
// CHECK: neuron.add %{{.*}}, %{{.*}} : tensor<8xbf16>
// CHECK: neuron.mul %{{.*}}, %{{.*}} : tensor<8xf16>
// CHECK: neuron.sub %{{.*}}, %{{.*}} : tensor<8xf8E4M3FN>
// CHECK: neuron.max %{{.*}}, %{{.*}} : tensor<8xf8E5M2>
// CHECK: neuron.min %{{.*}}, %{{.*}} : tensor<8xi8>
// CHECK: neuron.div %{{.*}}, %{{.*}} : tensor<?xi32>
func.func @binary_dtypes(%a: tensor<8xbf16>, %b: tensor<8xf16>, %c: tensor<8xf8E4M3FN>,
                         %d: tensor<8xf8E5M2>, %e: tensor<8xi8>, %f: tensor<?xi32>) {
  %0 = neuron.add %a, %a : tensor<8xbf16>
  %1 = neuron.mul %b, %b : tensor<8xf16>
  %2 = neuron.sub %c, %c : tensor<8xf8E4M3FN>
  %3 = neuron.max %d, %d : tensor<8xf8E5M2>
  %4 = neuron.min %e, %e : tensor<8xi8>
  %5 = neuron.div %f, %f : tensor<?xi32>
  return
}

// CHECK-LABEL: func.func @unary_float
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[EXP:.*]] = neuron.exp %[[X]] : tensor<4x8xf32>
// CHECK: %[[LOG:.*]] = neuron.log %[[EXP]] : tensor<4x8xf32>
// CHECK: %[[TANH:.*]] = neuron.tanh %[[LOG]] : tensor<4x8xf32>
// CHECK: %[[SIG:.*]] = neuron.sigmoid %[[TANH]] : tensor<4x8xf32>
// CHECK: %[[SILU:.*]] = neuron.silu %[[SIG]] : tensor<4x8xf32>
// CHECK: %[[RSQRT:.*]] = neuron.rsqrt %[[SILU]] : tensor<4x8xf32>
// CHECK: %[[SQRT:.*]] = neuron.sqrt %[[RSQRT]] : tensor<4x8xf32>
// CHECK: %[[RECIP:.*]] = neuron.reciprocal %[[SQRT]] : tensor<4x8xf32>
// CHECK: %[[ERF:.*]] = neuron.erf %[[RECIP]] : tensor<4x8xf32>
// CHECK: return %[[ERF]]
func.func @unary_float(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.exp %x : tensor<4x8xf32>
  %1 = neuron.log %0 : tensor<4x8xf32>
  %2 = neuron.tanh %1 : tensor<4x8xf32>
  %3 = neuron.sigmoid %2 : tensor<4x8xf32>
  %4 = neuron.silu %3 : tensor<4x8xf32>
  %5 = neuron.rsqrt %4 : tensor<4x8xf32>
  %6 = neuron.sqrt %5 : tensor<4x8xf32>
  %7 = neuron.reciprocal %6 : tensor<4x8xf32>
  %8 = neuron.erf %7 : tensor<4x8xf32>
  return %8 : tensor<4x8xf32>
}

// relu, neg and abs also take integers.
// CHECK-LABEL: func.func @unary_int
// CHECK-SAME: (%[[X:.*]]: tensor<16xi8>, %[[Y:.*]]: tensor<16xbf16>)
// CHECK: %[[RELU:.*]] = neuron.relu %[[X]] : tensor<16xi8>
// CHECK: %[[NEG:.*]] = neuron.neg %[[RELU]] : tensor<16xi8>
// CHECK: %[[ABS:.*]] = neuron.abs %[[NEG]] : tensor<16xi8>
// CHECK: neuron.relu %[[Y]] : tensor<16xbf16>
// CHECK: return %[[ABS]]
func.func @unary_int(%x: tensor<16xi8>, %y: tensor<16xbf16>) -> tensor<16xi8> {
  %0 = neuron.relu %x : tensor<16xi8>
  %1 = neuron.neg %0 : tensor<16xi8>
  %2 = neuron.abs %1 : tensor<16xi8>
  %3 = neuron.relu %y : tensor<16xbf16>
  return %2 : tensor<16xi8>
}

// The exact form is the default and is not printed.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// CHECK: %[[T:.*]] = neuron.gelu %[[X]] approximate tanh : tensor<4x8xbf16>
// CHECK: %[[E:.*]] = neuron.gelu %[[T]] : tensor<4x8xbf16>
// CHECK: %[[N:.*]] = neuron.gelu %[[E]] : tensor<4x8xbf16>
// CHECK: return %[[N]]
func.func @gelu(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = neuron.gelu %x approximate tanh : tensor<4x8xbf16>
  %1 = neuron.gelu %0 approximate none : tensor<4x8xbf16>
  %2 = neuron.gelu %1 : tensor<4x8xbf16>
  return %2 : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<?xi32>)
// CHECK: neuron.compare eq %[[A]], %[[B]] : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK: neuron.compare ne %[[A]], %[[B]] : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK: neuron.compare lt %[[A]], %[[B]] : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK: neuron.compare le %[[A]], %[[B]] : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK: neuron.compare gt %[[A]], %[[B]] : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK: neuron.compare ge %[[I]], %[[I]] : tensor<?xi32> -> tensor<?xi1>
func.func @compare(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<?xi32>) {
  %0 = neuron.compare eq %a, %b : tensor<4x8xf32> -> tensor<4x8xi1>
  %1 = neuron.compare ne %a, %b : tensor<4x8xf32> -> tensor<4x8xi1>
  %2 = neuron.compare lt %a, %b : tensor<4x8xf32> -> tensor<4x8xi1>
  %3 = neuron.compare le %a, %b : tensor<4x8xf32> -> tensor<4x8xi1>
  %4 = neuron.compare gt %a, %b : tensor<4x8xf32> -> tensor<4x8xi1>
  %5 = neuron.compare ge %i, %i : tensor<?xi32> -> tensor<?xi1>
  return
}

// CHECK-LABEL: func.func @select
// CHECK-SAME: (%[[M:.*]]: tensor<4x8xi1>, %[[A:.*]]: tensor<4x8xbf16>, %[[B:.*]]: tensor<4x8xbf16>)
// CHECK: %[[R:.*]] = neuron.select %[[M]], %[[A]], %[[B]] : tensor<4x8xi1>, tensor<4x8xbf16>
// CHECK: return %[[R]]
func.func @select(%m: tensor<4x8xi1>, %a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = neuron.select %m, %a, %b : tensor<4x8xi1>, tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4x8xi1>, %[[I:.*]]: tensor<4x8xi64>)
// CHECK: %[[BF:.*]] = neuron.cast %[[X]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: neuron.cast %[[BF]] : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>
// CHECK: neuron.cast %[[X]] : tensor<4x8xf32> -> tensor<4x8xf8E5M2>
// CHECK: neuron.cast %[[X]] : tensor<4x8xf32> -> tensor<4x8xi8>
// CHECK: neuron.cast %[[M]] : tensor<4x8xi1> -> tensor<4x8xf16>
// CHECK: neuron.cast %[[I]] : tensor<4x8xi64> -> tensor<4x8xi32>
func.func @cast(%x: tensor<4x8xf32>, %m: tensor<4x8xi1>, %i: tensor<4x8xi64>) {
  %0 = neuron.cast %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  %1 = neuron.cast %0 : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>
  %2 = neuron.cast %x : tensor<4x8xf32> -> tensor<4x8xf8E5M2>
  %3 = neuron.cast %x : tensor<4x8xf32> -> tensor<4x8xi8>
  %4 = neuron.cast %m : tensor<4x8xi1> -> tensor<4x8xf16>
  %5 = neuron.cast %i : tensor<4x8xi64> -> tensor<4x8xi32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and normalisations
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x16xf32>, %[[I:.*]]: tensor<4x8xi32>, %[[H:.*]]: tensor<4x8xbf16>)
// CHECK: neuron.reduce_sum %[[X]] axes [1] keep_dims : tensor<4x8x16xf32> -> tensor<4x1x16xf32>
// CHECK: neuron.reduce_sum %[[X]] axes [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
// CHECK: neuron.reduce_max %[[X]] axes [0, 2] keep_dims : tensor<4x8x16xf32> -> tensor<1x8x1xf32>
// CHECK: neuron.reduce_min %[[I]] axes [1] : tensor<4x8xi32> -> tensor<4xi32>
// CHECK: neuron.reduce_mean %[[H]] axes [1] keep_dims : tensor<4x8xbf16> -> tensor<4x1xbf16>
// CHECK: neuron.reduce_mean %[[H]] axes [0, 1] : tensor<4x8xbf16> -> tensor<bf16>
func.func @reduce(%x: tensor<4x8x16xf32>, %i: tensor<4x8xi32>, %h: tensor<4x8xbf16>) {
  %0 = neuron.reduce_sum %x axes [1] keep_dims : tensor<4x8x16xf32> -> tensor<4x1x16xf32>
  %1 = neuron.reduce_sum %x axes [0, 2] : tensor<4x8x16xf32> -> tensor<8xf32>
  %2 = neuron.reduce_max %x axes [0, 2] keep_dims : tensor<4x8x16xf32> -> tensor<1x8x1xf32>
  %3 = neuron.reduce_min %i axes [1] : tensor<4x8xi32> -> tensor<4xi32>
  %4 = neuron.reduce_mean %h axes [1] keep_dims : tensor<4x8xbf16> -> tensor<4x1xbf16>
  %5 = neuron.reduce_mean %h axes [0, 1] : tensor<4x8xbf16> -> tensor<bf16>
  return
}

// A dynamic dimension that is not reduced is kept.
// CHECK-LABEL: func.func @reduce_dynamic
// CHECK: neuron.reduce_max %{{.*}} axes [1] : tensor<?x8xf16> -> tensor<?xf16>
func.func @reduce_dynamic(%x: tensor<?x8xf16>) -> tensor<?xf16> {
  %0 = neuron.reduce_max %x axes [1] : tensor<?x8xf16> -> tensor<?xf16>
  return %0 : tensor<?xf16>
}

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf16>, %[[Y:.*]]: tensor<16x64xf32>)
// CHECK: %[[R:.*]] = neuron.softmax %[[X]] axis 1 : tensor<16x64xf16>{{$}}
// CHECK: %[[B:.*]] = neuron.softmax %[[Y]] axis 1 {note} : tensor<16x64xf32> -> tensor<16x64xbf16>
// CHECK: return %[[R]], %[[B]]
func.func @softmax(%x: tensor<16x64xf16>, %y: tensor<16x64xf32>) -> (tensor<16x64xf16>, tensor<16x64xbf16>) {
  %0 = neuron.softmax %x axis 1 : tensor<16x64xf16>
  %1 = neuron.softmax %y axis 1 {note} : tensor<16x64xf32> -> tensor<16x64xbf16>
  return %0, %1 : tensor<16x64xf16>, tensor<16x64xbf16>
}

// layer_norm with both affine parameters, with one each and with neither.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<1x12x128xf32>, %[[G:.*]]: tensor<128xf32>, %[[B:.*]]: tensor<128xf32>, %[[G2:.*]]: tensor<12x128xf32>)
// CHECK: %[[N0:.*]] = neuron.layer_norm %[[X]] weight %[[G]] bias %[[B]] axis 2 epsilon 1.000000e-05 : (tensor<1x12x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<1x12x128xf32>
// CHECK: %[[N1:.*]] = neuron.layer_norm %[[N0]] weight %[[G]] axis 2 epsilon 1.000000e-05 : (tensor<1x12x128xf32>, tensor<128xf32>) -> tensor<1x12x128xf32>
// CHECK: %[[N2:.*]] = neuron.layer_norm %[[N1]] bias %[[B]] axis 2 epsilon 0.000000e+00 : (tensor<1x12x128xf32>, tensor<128xf32>) -> tensor<1x12x128xf32>
// CHECK: %[[N3:.*]] = neuron.layer_norm %[[N2]] weight %[[G2]] axis 1 epsilon 9.9999999999999995E-7 : (tensor<1x12x128xf32>, tensor<12x128xf32>) -> tensor<1x12x128xf32>
// CHECK: %[[N4:.*]] = neuron.layer_norm %[[N3]] axis 0 epsilon 1.000000e-05 : (tensor<1x12x128xf32>) -> tensor<1x12x128xf32>
// CHECK: return %[[N4]]
func.func @layer_norm(%x: tensor<1x12x128xf32>, %g: tensor<128xf32>, %b: tensor<128xf32>,
                      %g2: tensor<12x128xf32>) -> tensor<1x12x128xf32> {
  %0 = neuron.layer_norm %x weight %g bias %b axis 2 epsilon 1.0e-05
      : (tensor<1x12x128xf32>, tensor<128xf32>, tensor<128xf32>) -> tensor<1x12x128xf32>
  %1 = neuron.layer_norm %0 weight %g axis 2 epsilon 1.0e-05
      : (tensor<1x12x128xf32>, tensor<128xf32>) -> tensor<1x12x128xf32>
  %2 = neuron.layer_norm %1 bias %b axis 2 epsilon 0.0
      : (tensor<1x12x128xf32>, tensor<128xf32>) -> tensor<1x12x128xf32>
  %3 = neuron.layer_norm %2 weight %g2 axis 1 epsilon 1.0e-06
      : (tensor<1x12x128xf32>, tensor<12x128xf32>) -> tensor<1x12x128xf32>
  %4 = neuron.layer_norm %3 axis 0 epsilon 1.0e-05 : (tensor<1x12x128xf32>) -> tensor<1x12x128xf32>
  return %4 : tensor<1x12x128xf32>
}

// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<40x4096xbf16>, %[[G:.*]]: tensor<4096xbf16>)
// CHECK: %[[N0:.*]] = neuron.rms_norm %[[X]] weight %[[G]] axis 1 epsilon 9.9999999999999995E-7 : (tensor<40x4096xbf16>, tensor<4096xbf16>) -> tensor<40x4096xbf16>
// CHECK: %[[N1:.*]] = neuron.rms_norm %[[N0]] axis 1 epsilon 9.9999999999999995E-7 : (tensor<40x4096xbf16>) -> tensor<40x4096xbf16>
// CHECK: return %[[N1]]
func.func @rms_norm(%x: tensor<40x4096xbf16>, %g: tensor<4096xbf16>) -> tensor<40x4096xbf16> {
  %0 = neuron.rms_norm %x weight %g axis 1 epsilon 1.0e-06
      : (tensor<40x4096xbf16>, tensor<4096xbf16>) -> tensor<40x4096xbf16>
  %1 = neuron.rms_norm %0 axis 1 epsilon 1.0e-06 : (tensor<40x4096xbf16>) -> tensor<40x4096xbf16>
  return %1 : tensor<40x4096xbf16>
}

// A dynamic dimension before the normalised ones.
// CHECK-LABEL: func.func @rms_norm_dynamic
// CHECK: neuron.rms_norm %{{.*}} weight %{{.*}} axis 1 epsilon 9.9999999999999995E-7 : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
func.func @rms_norm_dynamic(%x: tensor<?x64xf32>, %g: tensor<64xf32>) -> tensor<?x64xf32> {
  %0 = neuron.rms_norm %x weight %g axis 1 epsilon 1.0e-06
      : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[M:.*]]: tensor<?x8xi1>)
// CHECK: %[[R:.*]] = neuron.transpose %[[X]] permutation [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK: neuron.transpose %[[M]] permutation [1, 0] : tensor<?x8xi1> -> tensor<8x?xi1>
// CHECK: return %[[R]]
func.func @transpose(%x: tensor<2x3x4xf32>, %m: tensor<?x8xi1>) -> tensor<4x2x3xf32> {
  %0 = neuron.transpose %x permutation [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = neuron.transpose %m permutation [1, 0] : tensor<?x8xi1> -> tensor<8x?xi1>
  return %0 : tensor<4x2x3xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[D:.*]]: tensor<?x8xi8>)
// CHECK: %[[R:.*]] = neuron.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x2x8xf32>
// CHECK: neuron.reshape %[[D]] : tensor<?x8xi8> -> tensor<?xi8>
// CHECK: return %[[R]]
func.func @reshape(%x: tensor<4x8xf32>, %d: tensor<?x8xi8>) -> tensor<2x2x8xf32> {
  %0 = neuron.reshape %x : tensor<4x8xf32> -> tensor<2x2x8xf32>
  %1 = neuron.reshape %d : tensor<?x8xi8> -> tensor<?xi8>
  return %0 : tensor<2x2x8xf32>
}

// A new leading dimension, and a size-1 dimension stretched.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[B:.*]]: tensor<8xf32>, %[[C:.*]]: tensor<4x1xbf16>)
// CHECK: %[[R:.*]] = neuron.broadcast %[[B]] dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: neuron.broadcast %[[C]] dimensions [0, 2] : tensor<4x1xbf16> -> tensor<4x3x5xbf16>
// CHECK: return %[[R]]
func.func @broadcast(%b: tensor<8xf32>, %c: tensor<4x1xbf16>) -> tensor<4x8xf32> {
  %0 = neuron.broadcast %b dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
  %1 = neuron.broadcast %c dimensions [0, 2] : tensor<4x1xbf16> -> tensor<4x3x5xbf16>
  return %0 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.slice %[[X]] offsets [0, 4] strides [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK: neuron.slice %[[X]] offsets [1, 1] strides [2, 3] : tensor<4x8xf32> -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @slice(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %0 = neuron.slice %x offsets [0, 4] strides [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  %1 = neuron.slice %x offsets [1, 1] strides [2, 3] : tensor<4x8xf32> -> tensor<2x3xf32>
  return %0 : tensor<4x4xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x2xf32>, %[[D:.*]]: tensor<?x2xi32>)
// CHECK: %[[R:.*]] = neuron.concat %[[A]], %[[B]], %[[A]] axis 1 : (tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x8xf32>) -> tensor<4x18xf32>
// CHECK: neuron.concat %[[D]], %[[D]] axis 0 : (tensor<?x2xi32>, tensor<?x2xi32>) -> tensor<?x2xi32>
// CHECK: return %[[R]]
func.func @concat(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>, %d: tensor<?x2xi32>) -> tensor<4x18xf32> {
  %0 = neuron.concat %a, %b, %a axis 1 : (tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x8xf32>) -> tensor<4x18xf32>
  %1 = neuron.concat %d, %d axis 0 : (tensor<?x2xi32>, tensor<?x2xi32>) -> tensor<?x2xi32>
  return %0 : tensor<4x18xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x32x32xf32>, %[[I:.*]]: tensor<4xi8>)
// CHECK: %[[R:.*]] = neuron.pad %[[X]] low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.000000e+00 : tensor<1x3x32x32xf32> -> tensor<1x3x34x34xf32>
// CHECK: neuron.pad %[[I]] low [2] high [0] value -1.280000e+02 : tensor<4xi8> -> tensor<6xi8>
// CHECK: return %[[R]]
func.func @pad(%x: tensor<1x3x32x32xf32>, %i: tensor<4xi8>) -> tensor<1x3x34x34xf32> {
  %0 = neuron.pad %x low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0
      : tensor<1x3x32x32xf32> -> tensor<1x3x34x34xf32>
  %1 = neuron.pad %i low [2] high [0] value -128.0 : tensor<4xi8> -> tensor<6xi8>
  return %0 : tensor<1x3x34x34xf32>
}

// A RoPE table's row read at a position read at run time.
// CHECK-LABEL: func.func @dynamic_slice
// CHECK: neuron.dynamic_slice %{{.*}}[%{{.*}}] axis 0 : (tensor<2048x64xf32>, tensor<i32>) -> tensor<1x64xf32>
func.func @dynamic_slice(%cos: tensor<2048x64xf32>, %pos: tensor<i32>) -> tensor<1x64xf32> {
  %0 = neuron.dynamic_slice %cos[%pos] axis 0 : (tensor<2048x64xf32>, tensor<i32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// A KV cache write at a position read at run time, and a prefill's rows
// written at an i64 offset along an inner axis.
// CHECK-LABEL: func.func @dynamic_update_slice
// CHECK: neuron.dynamic_update_slice %{{.*}} into %{{.*}}[%{{.*}}] axis 0 : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i32>) -> tensor<16x64xf32>
// CHECK: neuron.dynamic_update_slice %{{.*}} into %{{.*}}[%{{.*}}] axis 2 : (tensor<1x8x5x16xbf16>, tensor<1x8x128x16xbf16>, tensor<1xi64>) -> tensor<1x8x128x16xbf16>
func.func @dynamic_update_slice(%row: tensor<1x64xf32>, %cache: tensor<16x64xf32>, %pos: tensor<i32>,
                                %rows: tensor<1x8x5x16xbf16>, %kv: tensor<1x8x128x16xbf16>,
                                %at: tensor<1xi64>) -> (tensor<16x64xf32>, tensor<1x8x128x16xbf16>) {
  %0 = neuron.dynamic_update_slice %row into %cache[%pos] axis 0 : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i32>) -> tensor<16x64xf32>
  %1 = neuron.dynamic_update_slice %rows into %kv[%at] axis 2 : (tensor<1x8x5x16xbf16>, tensor<1x8x128x16xbf16>, tensor<1xi64>) -> tensor<1x8x128x16xbf16>
  return %0, %1 : tensor<16x64xf32>, tensor<1x8x128x16xbf16>
}

// An embedding lookup with i64 ids, and a gather on an inner axis with i32 ids.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<30522x128xf32>, %[[IDS:.*]]: tensor<1x12xi64>, %[[X:.*]]: tensor<4x10x8xbf16>, %[[J:.*]]: tensor<3xi32>)
// CHECK: %[[R:.*]] = neuron.gather %[[T]][%[[IDS]]] axis 0 : (tensor<30522x128xf32>, tensor<1x12xi64>) -> tensor<1x12x128xf32>
// CHECK: neuron.gather %[[X]][%[[J]]] axis 1 : (tensor<4x10x8xbf16>, tensor<3xi32>) -> tensor<4x3x8xbf16>
// CHECK: return %[[R]]
func.func @gather(%t: tensor<30522x128xf32>, %ids: tensor<1x12xi64>, %x: tensor<4x10x8xbf16>,
                  %j: tensor<3xi32>) -> tensor<1x12x128xf32> {
  %0 = neuron.gather %t[%ids] axis 0 : (tensor<30522x128xf32>, tensor<1x12xi64>) -> tensor<1x12x128xf32>
  %1 = neuron.gather %x[%j] axis 1 : (tensor<4x10x8xbf16>, tensor<3xi32>) -> tensor<4x3x8xbf16>
  return %0 : tensor<1x12x128xf32>
}

// A splat, a dense array, an i1 mask and a bf16 splat.
// CHECK-LABEL: func.func @constant
// CHECK: neuron.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: neuron.constant dense<[1, 2, 3]> : tensor<3xi32>
// CHECK: neuron.constant dense<[true, false]> : tensor<2xi1>
// CHECK: neuron.constant dense<1.500000e+00> : tensor<2x2xbf16>
func.func @constant() -> (tensor<4x8xf32>, tensor<3xi32>, tensor<2xi1>, tensor<2x2xbf16>) {
  %0 = neuron.constant dense<0.0> : tensor<4x8xf32>
  %1 = neuron.constant dense<[1, 2, 3]> : tensor<3xi32>
  %2 = neuron.constant dense<[true, false]> : tensor<2xi1>
  %3 = neuron.constant dense<1.5> : tensor<2x2xbf16>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<3xi32>, tensor<2xi1>, tensor<2x2xbf16>
}

//===----------------------------------------------------------------------===//
// Host fallback
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @host_call
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = neuron.host_call(%[[X]]) reason "erf: not supported on inf2" : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[E:.*]] = math.erf %[[A]] : tensor<4xf32>
// CHECK-NEXT: neuron.yield %[[E]] : tensor<4xf32>
// CHECK-NEXT: }
// CHECK: return %[[R]]
func.func @host_call(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = neuron.host_call (%x) reason "erf: not supported on inf2" : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = math.erf %a : tensor<4xf32>
    neuron.yield %e : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// Several inputs and results, no reason; and one with neither.
// CHECK-LABEL: func.func @host_call_multi
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<2x2xi64>)
// CHECK: %[[R:.*]]:2 = neuron.host_call(%[[X]], %[[Y]]) : (tensor<4xf32>, tensor<2x2xi64>) -> (tensor<2x2xi64>, tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<2x2xi64>):
// CHECK-NEXT: neuron.yield %[[B]], %[[A]] : tensor<2x2xi64>, tensor<4xf32>
// CHECK: neuron.host_call() : () -> () {
// CHECK-NEXT: neuron.yield{{$}}
// CHECK: return %[[R]]#0
func.func @host_call_multi(%x: tensor<4xf32>, %y: tensor<2x2xi64>) -> tensor<2x2xi64> {
  %0:2 = neuron.host_call (%x, %y) : (tensor<4xf32>, tensor<2x2xi64>) -> (tensor<2x2xi64>, tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>, %b: tensor<2x2xi64>):
    neuron.yield %b, %a : tensor<2x2xi64>, tensor<4xf32>
  }
  neuron.host_call () : () -> () {
    neuron.yield
  }
  return %0#0 : tensor<2x2xi64>
}
