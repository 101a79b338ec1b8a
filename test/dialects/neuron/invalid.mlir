// Diagnostics of the neuron verifiers and ODS constraints, one case each.
// RUN: neuron-opt %s -split-input-file -verify-diagnostics

// matmul needs rank-2 operands.
func.func @matmul_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.matmul' op expected rank-2 operands, found ranks 3 and 2}}
  %0 = neuron.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// batch_matmul needs rank-3 operands.
func.func @batch_matmul_rank(%a: tensor<4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error@+1 {{'neuron.batch_matmul' op expected rank-3 operands, found ranks 2 and 3}}
  %0 = neuron.batch_matmul %a, %b : (tensor<4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// Both operands of a contraction have one element type.
func.func @matmul_mixed_operands(%a: tensor<4x8xf32>, %b: tensor<8x4xbf16>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.matmul' op expected operands of one element type, found 'f32' and 'bf16'}}
  %0 = neuron.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xbf16>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// batch_matmul batch dimensions must agree.
func.func @batch_matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error@+1 {{'neuron.batch_matmul' op expected equal batch dimensions, found 2 and 3}}
  %0 = neuron.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// The contracted dimensions must agree.
func.func @matmul_k(%a: tensor<4x64xf32>, %b: tensor<32x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.matmul' op expected the contracted dimensions to match, found lhs K = 64 and rhs K = 32}}
  %0 = neuron.matmul %a, %b : (tensor<4x64xf32>, tensor<32x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The result is M x N.
func.func @matmul_result_shape(%a: tensor<4x64xf32>, %b: tensor<64x32xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'neuron.matmul' op expected result shape 4x32, found 4x16}}
  %0 = neuron.matmul %a, %b : (tensor<4x64xf32>, tensor<64x32xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// batch_matmul result keeps the batch dimension.
func.func @batch_matmul_result_shape(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.batch_matmul' op expected result shape 2x4x4, found 4x4}}
  %0 = neuron.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A float contraction may not narrow its result.
func.func @matmul_narrowing(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xbf16> {
  // expected-error@+1 {{'neuron.matmul' op expected the result element type to be 'f32' or its accumulator type, found 'bf16'}}
  %0 = neuron.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xbf16>
  return %0 : tensor<4x4xbf16>
}

// -----

// i8 accumulates into i32, not f32.
func.func @matmul_i8_to_f32(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.matmul' op expected the result element type to be 'i8' or its accumulator type, found 'f32'}}
  %0 = neuron.matmul %a, %b : (tensor<4x8xi8>, tensor<8x4xi8>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// i64 is not a compute type.
func.func @matmul_i64(%a: tensor<4x8xi64>, %b: tensor<8x4xi64>) -> tensor<4x4xi64> {
  // expected-error@+1 {{'neuron.matmul' op operand #0 must be ranked tensor of neuron compute element type (f32, bf16, f16, f8E4M3FN, f8E5M2, i8, i32) values, but got 'tensor<4x8xi64>'}}
  %0 = neuron.matmul %a, %b : (tensor<4x8xi64>, tensor<8x4xi64>) -> tensor<4x4xi64>
  return %0 : tensor<4x4xi64>
}

// -----

// conv2d needs rank-4 input and filter.
func.func @conv2d_rank(%x: tensor<3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected rank-4 input and filter, found ranks 3 and 4}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// strides has two entries.
func.func @conv2d_strides_size(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected strides to have 2 entries, found 3}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw strides [1, 1, 1] : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// strides are positive.
func.func @conv2d_strides_zero(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected strides entries to be positive, found 0}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw strides [1, 0] : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// padding has four entries.
func.func @conv2d_padding_size(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected padding to have 4 entries, found 2}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw padding [1, 1] : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  return %0 : tensor<1x16x32x32xf32>
}

// -----

// padding is non-negative.
func.func @conv2d_padding_negative(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected padding entries to be non-negative, found -1}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw padding [0, 0, -1, 1] : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// dilations are positive.
func.func @conv2d_dilations_zero(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected dilations entries to be positive, found 0}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw dilations [0, 1] : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// dilations has two entries.
func.func @conv2d_dilations_size(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected dilations to have 2 entries, found 1}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw dilations [1] : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// groups is at least one.
func.func @conv2d_groups_zero(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected groups >= 1, found 0}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw groups 0 : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// Input and filter have one element type.
func.func @conv2d_mixed_types(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf16>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected input and filter of one element type, found 'f32' and 'f16'}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf16>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// Input channels divide into the groups.
func.func @conv2d_input_groups(%x: tensor<1x3x32x32xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected the 3 input channels to divide into 2 groups}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw groups 2 : (tensor<1x3x32x32xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// Output channels divide into the groups.
func.func @conv2d_output_groups(%x: tensor<1x4x32x32xf32>, %w: tensor<9x2x3x3xf32>) -> tensor<1x9x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected the 9 output channels to divide into 2 groups}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw groups 2 : (tensor<1x4x32x32xf32>, tensor<9x2x3x3xf32>) -> tensor<1x9x30x30xf32>
  return %0 : tensor<1x9x30x30xf32>
}

// -----

// The filter holds channels / groups input channels (here nhwc_hwcf: dimension 2).
func.func @conv2d_filter_channels(%x: tensor<1x32x32x4xf32>, %w: tensor<3x3x3x16xf32>) -> tensor<1x30x30x16xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected 4 filter input channels (channels / groups), found 3}}
  %0 = neuron.conv2d %x, %w layout nhwc_hwcf : (tensor<1x32x32x4xf32>, tensor<3x3x3x16xf32>) -> tensor<1x30x30x16xf32>
  return %0 : tensor<1x30x30x16xf32>
}

// -----

// The bias has one entry per output channel.
func.func @conv2d_bias_shape(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected bias of shape 16, found 8}}
  %0 = neuron.conv2d %x, %w bias %b layout nchw_fchw : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<8xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// The bias has the result (accumulator) element type.
func.func @conv2d_bias_type(%x: tensor<1x3x32x32xi8>, %w: tensor<16x3x3x3xi8>, %b: tensor<16xi8>) -> tensor<1x16x30x30xi32> {
  // expected-error@+1 {{'neuron.conv2d' op expected bias of element type 'i32' (the result element type), found 'i8'}}
  %0 = neuron.conv2d %x, %w bias %b layout nchw_fchw : (tensor<1x3x32x32xi8>, tensor<16x3x3x3xi8>, tensor<16xi8>) -> tensor<1x16x30x30xi32>
  return %0 : tensor<1x16x30x30xi32>
}

// -----

// The result size follows strides and padding.
func.func @conv2d_result_shape(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected result shape 1x16x16x16, found 1x16x32x32}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw strides [2, 2] padding [1, 1, 1, 1] : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x32x32xf32>
  return %0 : tensor<1x16x32x32xf32>
}

// -----

// An nhwc_fhwc result is N x OH x OW x F.
func.func @conv2d_result_layout(%x: tensor<1x32x32x3xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32> {
  // expected-error@+1 {{'neuron.conv2d' op expected result shape 1x30x30x16, found 1x16x30x30}}
  %0 = neuron.conv2d %x, %w layout nhwc_fhwc : (tensor<1x32x32x3xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xf32>
  return %0 : tensor<1x16x30x30xf32>
}

// -----

// conv2d follows the accumulator rule.
func.func @conv2d_accumulator(%x: tensor<1x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xi32> {
  // expected-error@+1 {{'neuron.conv2d' op expected the result element type to be 'f32' or its accumulator type, found 'i32'}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw : (tensor<1x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x30x30xi32>
  return %0 : tensor<1x16x30x30xi32>
}

// -----

// pool2d needs a rank-4 input.
func.func @pool2d_rank(%x: tensor<64x8x8xf32>) -> tensor<64x4x4xf32> {
  // expected-error@+1 {{'neuron.pool2d' op expected a rank-4 input, found rank 3}}
  %0 = neuron.pool2d max %x layout nchw kernel [2, 2] strides [2, 2] : tensor<64x8x8xf32> -> tensor<64x4x4xf32>
  return %0 : tensor<64x4x4xf32>
}

// -----

// kernel has two entries.
func.func @pool2d_kernel_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error@+1 {{'neuron.pool2d' op expected kernel to have 2 entries, found 1}}
  %0 = neuron.pool2d max %x layout nchw kernel [2] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// kernel entries are positive.
func.func @pool2d_kernel_zero(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error@+1 {{'neuron.pool2d' op expected kernel entries to be positive, found 0}}
  %0 = neuron.pool2d max %x layout nchw kernel [0, 2] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// pool2d window attributes are checked like conv2d's.
func.func @pool2d_padding_size(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error@+1 {{'neuron.pool2d' op expected padding to have 4 entries, found 3}}
  %0 = neuron.pool2d max %x layout nchw kernel [2, 2] strides [2, 2] padding [0, 0, 0] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// count_include_pad only means something for avg.
func.func @pool2d_count_include_pad(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error@+1 {{'neuron.pool2d' op expected count_include_pad only on avg pooling, found it on max pooling}}
  %0 = neuron.pool2d max %x layout nchw kernel [3, 3] padding [1, 1, 1, 1] count_include_pad : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// An nhwc pool pools dimensions 1 and 2.
func.func @pool2d_result_shape(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error@+1 {{'neuron.pool2d' op expected result shape 1x4x4x4, found 1x8x4x4}}
  %0 = neuron.pool2d avg %x layout nhwc kernel [2, 2] strides [2, 2] : tensor<1x8x8x4xf32> -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// pool2d keeps the element type or widens it to the accumulator.
func.func @pool2d_element_type(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xbf16> {
  // expected-error@+1 {{'neuron.pool2d' op expected the result element type to be 'f32' or its accumulator type, found 'bf16'}}
  %0 = neuron.pool2d max %x layout nchw kernel [2, 2] strides [2, 2] : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xbf16>
  return %0 : tensor<1x4x4x4xbf16>
}

// -----

// f64 is not a compute type.
func.func @add_f64(%a: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error@+1 {{'neuron.add' op operand #0 must be ranked tensor of neuron compute element type (f32, bf16, f16, f8E4M3FN, f8E5M2, i8, i32) values, but got 'tensor<4xf64>'}}
  %0 = neuron.add %a, %a : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Binary elementwise ops take and return one type.
func.func @add_mixed(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.add' op requires the same type for all operands and results}}
  %0 = "neuron.add"(%a, %b) : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Shapes must match too: broadcasting is explicit.
func.func @mul_shapes(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.mul' op all non-scalar operands/results must have the same shape and base type}}
  %0 = "neuron.mul"(%a, %b) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Transcendental ops take floats only.
func.func @exp_int(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'neuron.exp' op operand #0 must be ranked tensor of neuron floating-point element type (f32, bf16, f16, f8E4M3FN, f8E5M2) values, but got 'tensor<4xi32>'}}
  %0 = neuron.exp %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A unary op keeps its type.
func.func @relu_mixed(%a: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error@+1 {{'neuron.relu' op requires the same type for all operands and results}}
  %0 = "neuron.relu"(%a) : (tensor<4xf32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// gelu takes floats only.
func.func @gelu_int(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{'neuron.gelu' op operand #0 must be ranked tensor of neuron floating-point element type}}
  %0 = neuron.gelu %a approximate tanh : tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// An unknown gelu approximation.
func.func @gelu_approximation(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+2 {{expected ::mlir::neuron::GeluApproximation to be one of: none, tanh}}
  // expected-error@+1 {{failed to parse Neuron_GeluApproximationAttr parameter 'value'}}
  %0 = neuron.gelu %a approximate sigmoid : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// compare returns an i1 mask.
func.func @compare_result(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.compare' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %0 = neuron.compare eq %a, %a : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// compare operands have one type.
func.func @compare_mixed(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  // expected-error@+1 {{'neuron.compare' op requires all operands to have the same type}}
  %0 = "neuron.compare"(%a, %b) {predicate = #neuron<predicate eq>} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// compare keeps the shape.
func.func @compare_shape(%a: tensor<4xf32>) -> tensor<8xi1> {
  // expected-error@+1 {{'neuron.compare' op all non-scalar operands/results must have the same shape and base type}}
  %0 = neuron.compare lt %a, %a : tensor<4xf32> -> tensor<8xi1>
  return %0 : tensor<8xi1>
}

// -----

// An unknown predicate.
func.func @compare_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+2 {{expected ::mlir::neuron::ComparePredicate to be one of: eq, ne, lt, le, gt, ge}}
  // expected-error@+1 {{failed to parse Neuron_ComparePredicateAttr parameter 'value'}}
  %0 = neuron.compare ult %a, %a : tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// select's condition is an i1 mask.
func.func @select_condition(%m: tensor<4xi8>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.select' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = neuron.select %m, %a, %a : tensor<4xi8>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select's branches and result have one type.
func.func @select_mixed(%m: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.select' op failed to verify that all of {on_true, on_false, result} have same type}}
  %0 = "neuron.select"(%m, %a, %b) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// select's mask has the shape of the values.
func.func @select_shape(%m: tensor<8xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.select' op all non-scalar operands/results must have the same shape and base type}}
  %0 = neuron.select %m, %a, %a : tensor<8xi1>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// cast keeps the shape.
func.func @cast_shape(%a: tensor<4x8xf32>) -> tensor<32xbf16> {
  // expected-error@+1 {{'neuron.cast' op all non-scalar operands/results must have the same shape and base type}}
  %0 = neuron.cast %a : tensor<4x8xf32> -> tensor<32xbf16>
  return %0 : tensor<32xbf16>
}

// -----

// cast does not produce f64.
func.func @cast_f64(%a: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error@+1 {{'neuron.cast' op result #0 must be ranked tensor of neuron compute element type (f32, bf16, f16, f8E4M3FN, f8E5M2, i8, i32) or 1-bit signless integer or 64-bit signless integer values, but got 'tensor<4xf64>'}}
  %0 = neuron.cast %a : tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// A reduction names at least one axis.
func.func @reduce_no_axes(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.reduce_sum' op expected at least one axis}}
  %0 = neuron.reduce_sum %x axes [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Axes are in range.
func.func @reduce_axis_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.reduce_max' op expected axes in [0, 2), found 2}}
  %0 = neuron.reduce_max %x axes [2] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Axes are not negative.
func.func @reduce_axis_negative(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.reduce_min' op expected axes in [0, 2), found -1}}
  %0 = neuron.reduce_min %x axes [-1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Axes are sorted.
func.func @reduce_axes_unsorted(%x: tensor<4x8xf32>) -> tensor<f32> {
  // expected-error@+1 {{'neuron.reduce_sum' op expected axes sorted and unique, found 1 before 0}}
  %0 = neuron.reduce_sum %x axes [1, 0] : tensor<4x8xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Axes are unique.
func.func @reduce_axes_duplicate(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.reduce_sum' op expected axes sorted and unique, found 1 before 1}}
  %0 = neuron.reduce_sum %x axes [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// keep_dims keeps the reduced dimension with size 1.
func.func @reduce_keep_dims(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.reduce_sum' op expected result shape 4x1, found 4}}
  %0 = neuron.reduce_sum %x axes [1] keep_dims : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Without keep_dims the reduced dimension is dropped.
func.func @reduce_drop_dims(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error@+1 {{'neuron.reduce_sum' op expected result shape 4, found 4x1}}
  %0 = neuron.reduce_sum %x axes [1] : tensor<4x8xf32> -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

// reduce_mean needs floats.
func.func @reduce_mean_int(%x: tensor<4x8xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{'neuron.reduce_mean' op expected a floating-point input, found 'i32'}}
  %0 = neuron.reduce_mean %x axes [1] : tensor<4x8xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A reduction keeps the element type.
func.func @reduce_element_type(%x: tensor<4x8xbf16>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.reduce_sum' op requires the same element type for all operands and results}}
  %0 = neuron.reduce_sum %x axes [1] : tensor<4x8xbf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// softmax's axis is in range.
func.func @softmax_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.softmax' op expected axis in [0, 2), found 2}}
  %0 = neuron.softmax %x axis 2 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// softmax needs floats.
func.func @softmax_int(%x: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error@+1 {{'neuron.softmax' op operand #0 must be ranked tensor of neuron floating-point element type}}
  %0 = neuron.softmax %x axis 1 : tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// softmax rounds to a float type.
func.func @softmax_int_result(%x: tensor<4x8xf32>) -> tensor<4x8xi32> {
  // expected-error@+1 {{'neuron.softmax' op result #0 must be ranked tensor of neuron floating-point element type}}
  %0 = neuron.softmax %x axis 1 : tensor<4x8xf32> -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

// softmax keeps the input's shape.
func.func @softmax_shape(%x: tensor<4x8xf32>) -> tensor<8x4xbf16> {
  // expected-error@+1 {{'neuron.softmax' op requires the same shape for all operands and results}}
  %0 = neuron.softmax %x axis 1 : tensor<4x8xf32> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

// A norm returns the input's type.
func.func @layer_norm_result(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error@+1 {{'neuron.layer_norm' op expected the result type to be 'tensor<4x8xf32>', found 'tensor<4x8xbf16>'}}
  %0 = neuron.layer_norm %x axis 1 epsilon 1.0e-05 : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// A norm's axis is in range.
func.func @layer_norm_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.layer_norm' op expected axis in [0, 2), found -1}}
  %0 = neuron.layer_norm %x axis -1 epsilon 1.0e-05 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// epsilon is not negative.
func.func @layer_norm_epsilon(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.layer_norm' op expected a finite, non-negative epsilon, found -1.000000e+00}}
  %0 = neuron.layer_norm %x axis 1 epsilon -1.0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// epsilon is not NaN.
func.func @rms_norm_epsilon_nan(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.rms_norm' op expected a finite, non-negative epsilon, found nan}}
  %0 = neuron.rms_norm %x axis 1 epsilon 0x7FF8000000000000 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The weight has the input's element type.
func.func @layer_norm_weight_type(%x: tensor<4x8xf32>, %g: tensor<8xbf16>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.layer_norm' op expected weight of element type 'f32', found 'bf16'}}
  %0 = neuron.layer_norm %x weight %g axis 1 epsilon 1.0e-05 : (tensor<4x8xf32>, tensor<8xbf16>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The weight is shaped like the normalised dimensions.
func.func @layer_norm_weight_shape(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // expected-error@+1 {{'neuron.layer_norm' op expected weight of shape 4x8 (the normalised dimensions), found 8}}
  %0 = neuron.layer_norm %x weight %g axis 1 epsilon 1.0e-05 : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// So is the bias.
func.func @layer_norm_bias_shape(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.layer_norm' op expected bias of shape 8 (the normalised dimensions), found 4}}
  %0 = neuron.layer_norm %x weight %g bias %b axis 1 epsilon 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The bias has the input's element type.
func.func @layer_norm_bias_type(%x: tensor<4x8xf32>, %b: tensor<8xf16>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.layer_norm' op expected bias of element type 'f32', found 'f16'}}
  %0 = neuron.layer_norm %x bias %b axis 1 epsilon 1.0e-05 : (tensor<4x8xf32>, tensor<8xf16>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rms_norm's weight is shaped like the normalised dimensions.
func.func @rms_norm_weight_shape(%x: tensor<4x8xf32>, %g: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.rms_norm' op expected weight of shape 8 (the normalised dimensions), found 4x8}}
  %0 = neuron.rms_norm %x weight %g axis 1 epsilon 1.0e-06 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// rms_norm returns the input's type.
func.func @rms_norm_result(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'neuron.rms_norm' op expected the result type to be 'tensor<4x8xf32>', found 'tensor<8x4xf32>'}}
  %0 = neuron.rms_norm %x axis 1 epsilon 1.0e-06 : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Norms take floats only.
func.func @rms_norm_int(%x: tensor<4x8xi8>) -> tensor<4x8xi8> {
  // expected-error@+1 {{'neuron.rms_norm' op operand #0 must be ranked tensor of neuron floating-point element type}}
  %0 = neuron.rms_norm %x axis 1 epsilon 1.0e-06 : (tensor<4x8xi8>) -> tensor<4x8xi8>
  return %0 : tensor<4x8xi8>
}

// -----

// A permutation has one entry per dimension.
func.func @transpose_size(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'neuron.transpose' op expected a permutation of 2 dimensions, found 3 entries}}
  %0 = neuron.transpose %x permutation [1, 0, 2] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Permutation entries are in range.
func.func @transpose_range(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'neuron.transpose' op expected a permutation of [0, 2), found entry 2}}
  %0 = neuron.transpose %x permutation [2, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Permutation entries are unique.
func.func @transpose_duplicate(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.transpose' op expected a permutation of [0, 2), found entry 0}}
  %0 = neuron.transpose %x permutation [0, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// The result is the permuted input shape.
func.func @transpose_result(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  // expected-error@+1 {{'neuron.transpose' op expected result shape 4x2x3, found 4x3x2}}
  %0 = neuron.transpose %x permutation [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// transpose keeps the element type.
func.func @transpose_element_type(%x: tensor<4x8xf32>) -> tensor<8x4xf16> {
  // expected-error@+1 {{'neuron.transpose' op requires the same element type for all operands and results}}
  %0 = neuron.transpose %x permutation [1, 0] : tensor<4x8xf32> -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}

// -----

// reshape keeps the number of elements.
func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<5x6xf32> {
  // expected-error@+1 {{'neuron.reshape' op expected the same number of elements, found 32 (4x8) and 30 (5x6)}}
  %0 = neuron.reshape %x : tensor<4x8xf32> -> tensor<5x6xf32>
  return %0 : tensor<5x6xf32>
}

// -----

// With a dynamic side, its static dimensions must still divide the static size.
func.func @reshape_dynamic_count(%x: tensor<?x4xf32>) -> tensor<3x5xf32> {
  // expected-error@+1 {{'neuron.reshape' op expected the static dimensions of ?x4 (product 4) to divide the 15 elements of 3x5}}
  %0 = neuron.reshape %x : tensor<?x4xf32> -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// broadcast names one result dimension per input dimension.
func.func @broadcast_size(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.broadcast' op expected one entry in dimensions per input dimension (1), found 2}}
  %0 = neuron.broadcast %x dimensions [0, 1] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// broadcast dimensions are in range.
func.func @broadcast_range(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.broadcast' op expected strictly increasing dimensions in [0, 2), found 2}}
  %0 = neuron.broadcast %x dimensions [2] : tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// broadcast dimensions are strictly increasing.
func.func @broadcast_order(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{'neuron.broadcast' op expected strictly increasing dimensions in [0, 2), found 0}}
  %0 = neuron.broadcast %x dimensions [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// Only size-1 dimensions stretch.
func.func @broadcast_stretch(%x: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.broadcast' op expected input dimension 0 of size 3 to be 1 or equal result dimension 1 of size 8}}
  %0 = neuron.broadcast %x dimensions [1] : tensor<3xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// slice offsets have one entry per dimension.
func.func @slice_offsets_size(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.slice' op expected offsets to have 2 entries, found 1}}
  %0 = neuron.slice %x offsets [0] strides [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice offsets are non-negative.
func.func @slice_offsets_negative(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.slice' op expected offsets entries to be non-negative, found -1}}
  %0 = neuron.slice %x offsets [0, -1] strides [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice strides have one entry per dimension.
func.func @slice_strides_size(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.slice' op expected strides to have 2 entries, found 3}}
  %0 = neuron.slice %x offsets [0, 0] strides [1, 1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice strides are positive.
func.func @slice_strides_zero(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.slice' op expected strides entries to be positive, found 0}}
  %0 = neuron.slice %x offsets [0, 0] strides [1, 0] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// The window fits the input.
func.func @slice_window(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error@+1 {{'neuron.slice' op expected the window to fit dimension 1 of size 8, found its last index at 9}}
  %0 = neuron.slice %x offsets [0, 3] strides [1, 2] : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// slice keeps the rank.
func.func @slice_rank(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.slice' op result type has different rank than operands}}
  %0 = neuron.slice %x offsets [0, 0] strides [1, 1] : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// concat needs an input.
func.func @concat_empty() -> tensor<0x2xf32> {
  // expected-error@+1 {{'neuron.concat' op expected 1 or more operands, but found 0}}
  %0 = "neuron.concat"() {axis = 0 : i64} : () -> tensor<0x2xf32>
  return %0 : tensor<0x2xf32>
}

// -----

// concat's axis is in range.
func.func @concat_axis(%a: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'neuron.concat' op expected axis in [0, 2), found 2}}
  %0 = neuron.concat %a, %a axis 2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// concat inputs have the result's rank.
func.func @concat_rank(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'neuron.concat' op expected input 1 of rank 2, found 1}}
  %0 = neuron.concat %a, %b axis 1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// concat inputs agree off the axis.
func.func @concat_dims(%a: tensor<4x8xf32>, %b: tensor<3x2xf32>) -> tensor<4x10xf32> {
  // expected-error@+1 {{'neuron.concat' op expected input 1 dimension 0 to be 4, found 3}}
  %0 = neuron.concat %a, %b axis 1 : (tensor<4x8xf32>, tensor<3x2xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// The result's axis is the sum of the inputs'.
func.func @concat_result(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) -> tensor<4x12xf32> {
  // expected-error@+1 {{'neuron.concat' op expected result shape 4x10, found 4x12}}
  %0 = neuron.concat %a, %b axis 1 : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}

// -----

// concat inputs have one element type.
func.func @concat_element_type(%a: tensor<4x8xf32>, %b: tensor<4x2xbf16>) -> tensor<4x10xf32> {
  // expected-error@+1 {{'neuron.concat' op requires the same element type for all operands and results}}
  %0 = neuron.concat %a, %b axis 1 : (tensor<4x8xf32>, tensor<4x2xbf16>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// pad low has one entry per dimension.
func.func @pad_low_size(%x: tensor<4x8xf32>) -> tensor<6x10xf32> {
  // expected-error@+1 {{'neuron.pad' op expected low to have 2 entries, found 1}}
  %0 = neuron.pad %x low [1] high [1, 1] value 0.0 : tensor<4x8xf32> -> tensor<6x10xf32>
  return %0 : tensor<6x10xf32>
}

// -----

// pad amounts are non-negative.
func.func @pad_high_negative(%x: tensor<4x8xf32>) -> tensor<6x8xf32> {
  // expected-error@+1 {{'neuron.pad' op expected high entries to be non-negative, found -1}}
  %0 = neuron.pad %x low [1, 1] high [1, -1] value 0.0 : tensor<4x8xf32> -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

// The result grows by low + high.
func.func @pad_result(%x: tensor<4x8xf32>) -> tensor<6x8xf32> {
  // expected-error@+1 {{'neuron.pad' op expected result shape 6x10, found 6x8}}
  %0 = neuron.pad %x low [1, 1] high [1, 1] value 0.0 : tensor<4x8xf32> -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

// An integer tensor is padded with an integer.
func.func @pad_fraction(%x: tensor<4xi32>) -> tensor<6xi32> {
  // expected-error@+1 {{'neuron.pad' op expected an integer pad value in [-2147483648, 2147483647] for element type 'i32', found 5.000000e-01}}
  %0 = neuron.pad %x low [1] high [1] value 0.5 : tensor<4xi32> -> tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// ... that the element type holds.
func.func @pad_out_of_range(%x: tensor<4xi8>) -> tensor<6xi8> {
  // expected-error@+1 {{'neuron.pad' op expected an integer pad value in [-128, 127] for element type 'i8', found 2.000000e+02}}
  %0 = neuron.pad %x low [1] high [1] value 200.0 : tensor<4xi8> -> tensor<6xi8>
  return %0 : tensor<6xi8>
}

// -----

// An i1 mask is padded with 0 or 1.
func.func @pad_i1(%x: tensor<4xi1>) -> tensor<6xi1> {
  // expected-error@+1 {{'neuron.pad' op expected an integer pad value in [0, 1] for element type 'i1', found -1.000000e+00}}
  %0 = neuron.pad %x low [1] high [1] value -1.0 : tensor<4xi1> -> tensor<6xi1>
  return %0 : tensor<6xi1>
}

// -----

func.func private @two_results(tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)

// A launch's in_place has one entry per result.
func.func @launch_in_place_count(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.launch' op expected one 'in_place' entry per result (2), found 1}}
  %0:2 = neuron.launch @two_results(%a, %b) {in_place = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func private @two_results(tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)

// A launch holds a result in place of an input that exists.
func.func @launch_in_place_input(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.launch' op expected result 1 in place of an input of its type, found 2}}
  %0:2 = neuron.launch @two_results(%a, %b) {in_place = array<i64: -1, 2>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

func.func private @two_results(tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)

// An input holds at most one result in place.
func.func @launch_in_place_twice(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.launch' op expected input 0 to hold at most one result in place}}
  %0:2 = neuron.launch @two_results(%a, %b) {in_place = array<i64: 0, 0>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

// dynamic_slice's result is whole along every other dimension.
func.func @dynamic_slice_partial(%t: tensor<64x16xf32>, %p: tensor<i32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{'neuron.dynamic_slice' op expected a result spanning every dimension but the axis whole and at most 64 along it, found 'tensor<2x8xf32>'}}
  %0 = neuron.dynamic_slice %t[%p] axis 0 : (tensor<64x16xf32>, tensor<i32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// dynamic_slice keeps the element type.
func.func @dynamic_slice_type(%t: tensor<64x16xf32>, %p: tensor<i32>) -> tensor<1x16xbf16> {
  // expected-error@+1 {{'neuron.dynamic_slice' op expected the result in the element type 'f32', found 'bf16'}}
  %0 = neuron.dynamic_slice %t[%p] axis 0 : (tensor<64x16xf32>, tensor<i32>) -> tensor<1x16xbf16>
  return %0 : tensor<1x16xbf16>
}

// -----

// dynamic_slice's shapes are static, its offset's too.
func.func @dynamic_slice_dynamic_offset(%t: tensor<16x64xf32>, %p: tensor<?xi32>) -> tensor<1x64xf32> {
  // expected-error@+1 {{'neuron.dynamic_slice' op expected static shapes, found 'tensor<?xi32>'}}
  %0 = neuron.dynamic_slice %t[%p] axis 0 : (tensor<16x64xf32>, tensor<?xi32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

func.func private @write(tensor<16x64xf32>, tensor<1x64xf32>) -> tensor<16x64xf32>

// An input held in place is read by its launch alone.
func.func @launch_in_place_shared(%c: tensor<16x64xf32>, %r: tensor<1x64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  // expected-error@+1 {{'neuron.launch' op expected input 0, which holds result 0 in place, to be read by this launch alone and to own its tensor}}
  %0 = neuron.launch @write(%c, %r) {in_place = array<i64: 0>} : (tensor<16x64xf32>, tensor<1x64xf32>) -> tensor<16x64xf32>
  return %0, %c : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

func.func private @write(tensor<16x64xf32>, tensor<1x64xf32>) -> tensor<16x64xf32>

// An input held in place owns its tensor: not a constant.
func.func @launch_in_place_constant(%r: tensor<1x64xf32>) -> tensor<16x64xf32> {
  %c = neuron.constant dense<1.0> : tensor<16x64xf32>
  // expected-error@+1 {{'neuron.launch' op expected input 0, which holds result 0 in place, to be read by this launch alone and to own its tensor}}
  %0 = neuron.launch @write(%c, %r) {in_place = array<i64: 0>} : (tensor<16x64xf32>, tensor<1x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

func.func private @write(tensor<16x64xf32>, tensor<1x64xf32>) -> (tensor<16x64xf32> {neuron.in_place = 0 : i64})

// A launch says what its kernel writes in place.
func.func @launch_in_place_mismatch(%c: tensor<16x64xf32>, %r: tensor<1x64xf32>) -> tensor<16x64xf32> {
  // expected-error@+1 {{'neuron.launch' op result 0 is in place of input -1 but kernel 'write' writes it in place of 0}}
  %0 = neuron.launch @write(%c, %r) : (tensor<16x64xf32>, tensor<1x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// dynamic_update_slice's axis is in range.
func.func @dynamic_update_axis(%row: tensor<1x8xf32>, %c: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.dynamic_update_slice' op expected axis in [0, 2), found 2}}
  %0 = neuron.dynamic_update_slice %row into %c[%p] axis 2 : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// dynamic_update_slice writes its destination's element type.
func.func @dynamic_update_element_type(%row: tensor<1x8xbf16>, %c: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.dynamic_update_slice' op expected the update in the element type 'f32', found 'bf16'}}
  %0 = neuron.dynamic_update_slice %row into %c[%p] axis 0 : (tensor<1x8xbf16>, tensor<4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// dynamic_update_slice's update is whole along every other dimension.
func.func @dynamic_update_partial(%row: tensor<1x4xf32>, %c: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.dynamic_update_slice' op expected an update spanning every dimension but the axis whole and at most 4 along it, found 'tensor<1x4xf32>'}}
  %0 = neuron.dynamic_update_slice %row into %c[%p] axis 0 : (tensor<1x4xf32>, tensor<4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// dynamic_update_slice's update fits along the axis.
func.func @dynamic_update_too_long(%rows: tensor<5x8xf32>, %c: tensor<4x8xf32>, %p: tensor<i32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.dynamic_update_slice' op expected an update spanning every dimension but the axis whole and at most 4 along it, found 'tensor<5x8xf32>'}}
  %0 = neuron.dynamic_update_slice %rows into %c[%p] axis 0 : (tensor<5x8xf32>, tensor<4x8xf32>, tensor<i32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// dynamic_update_slice's offset is one value.
func.func @dynamic_update_offsets(%row: tensor<1x8xf32>, %c: tensor<4x8xf32>, %p: tensor<2xi32>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.dynamic_update_slice' op expected a one-element offset, found 'tensor<2xi32>'}}
  %0 = neuron.dynamic_update_slice %row into %c[%p] axis 0 : (tensor<1x8xf32>, tensor<4x8xf32>, tensor<2xi32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// gather's axis is in range.
func.func @gather_axis(%t: tensor<16x8xf32>, %i: tensor<4xi32>) -> tensor<16x4xf32> {
  // expected-error@+1 {{'neuron.gather' op expected axis in [0, 2), found 2}}
  %0 = neuron.gather %t[%i] axis 2 : (tensor<16x8xf32>, tensor<4xi32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}

// -----

// gather keeps the element type.
func.func @gather_element_type(%t: tensor<16x8xf32>, %i: tensor<4xi32>) -> tensor<4x8xbf16> {
  // expected-error@+1 {{'neuron.gather' op expected the result element type to be 'f32', found 'bf16'}}
  %0 = neuron.gather %t[%i] axis 0 : (tensor<16x8xf32>, tensor<4xi32>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// The indices' shape replaces the gathered axis.
func.func @gather_result(%t: tensor<30522x128xf32>, %i: tensor<1x12xi64>) -> tensor<12x128xf32> {
  // expected-error@+1 {{'neuron.gather' op expected result shape 1x12x128, found 12x128}}
  %0 = neuron.gather %t[%i] axis 0 : (tensor<30522x128xf32>, tensor<1x12xi64>) -> tensor<12x128xf32>
  return %0 : tensor<12x128xf32>
}

// -----

// Indices are i32 or i64.
func.func @gather_indices(%t: tensor<16x8xf32>, %i: tensor<4xi8>) -> tensor<4x8xf32> {
  // expected-error@+1 {{'neuron.gather' op operand #1 must be ranked tensor of index element type (i32 or i64) values, but got 'tensor<4xi8>'}}
  %0 = neuron.gather %t[%i] axis 0 : (tensor<16x8xf32>, tensor<4xi8>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A constant of an element type the accelerator does not have.
func.func @constant_f64() -> tensor<4xf64> {
  // expected-error@+1 {{'neuron.constant' op result #0 must be ranked tensor of neuron compute element type}}
  %0 = neuron.constant dense<1.0> : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// A constant's value has the result type.
func.func @constant_type() -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "neuron.constant"() {value = dense<1.0> : tensor<8xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// One region argument per input.
func.func @host_call_arguments(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.host_call' op expected 1 region arguments (one per input), found 0}}
  %0 = neuron.host_call (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    %c = neuron.constant dense<0.0> : tensor<4xf32>
    neuron.yield %c : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// Region arguments have the input types.
func.func @host_call_argument_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.host_call' op expected region argument 0 of type 'tensor<4xf32>', found 'tensor<4xf16>'}}
  %0 = neuron.host_call (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf16>):
    %c = neuron.constant dense<0.0> : tensor<4xf32>
    neuron.yield %c : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// The region ends in neuron.yield (here it ends in a non-terminator).
func.func @host_call_no_yield(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.host_call' op expected the region to end in neuron.yield, found 'neuron.exp'}}
  %0 = neuron.host_call (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = neuron.exp %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// The region ends in neuron.yield, not another terminator.
func.func @host_call_other_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.host_call' op expected the region to end in neuron.yield, found 'func.return'}}
  %0 = neuron.host_call (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    func.return %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// neuron.yield returns one value per result.
func.func @host_call_yield_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.host_call' op expected neuron.yield to return 1 values (one per result), found 2}}
  %0 = neuron.host_call (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    neuron.yield %a, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

// neuron.yield returns the result types.
func.func @host_call_yield_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'neuron.host_call' op expected neuron.yield value 0 of type 'tensor<4xf32>' (the result type), found 'tensor<4xf16>'}}
  %0 = neuron.host_call (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %c = neuron.cast %a : tensor<4xf32> -> tensor<4xf16>
    neuron.yield %c : tensor<4xf16>
  }
  return %0 : tensor<4xf32>
}

// -----

// neuron.yield only terminates a host_call.
func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error@+1 {{'neuron.yield' op expects parent op to be one of 'neuron.host_call, neuron.fusion'}}
  neuron.yield %x : tensor<4xf32>
}

// -----

// host_call's region has one block.
func.func @host_call_blocks(%x: tensor<4xf32>) {
  // expected-error@+1 {{'neuron.host_call' op expects region #0 to have 0 or 1 blocks}}
  neuron.host_call (%x) : (tensor<4xf32>) -> () {
  ^bb0(%a: tensor<4xf32>):
    neuron.yield
  ^bb1:
    neuron.yield
  }
  return
}

// -----

// The chip is named.
// expected-error@+1 {{expected a non-empty chip name}}
module attributes {neuron.target = #neuron.target<chip = "">} {}

// -----

// An instance, when given, is named.
// expected-error@+1 {{expected a non-empty instance name when given}}
module attributes {neuron.target = #neuron.target<chip = "trainium2", instance = "">} {}

// -----

// lnc is 1 or 2.
// expected-error@+1 {{expected lnc to be 1 or 2 (physical NeuronCores per logical NeuronCore), found 4}}
module attributes {neuron.target = #neuron.target<chip = "trainium2", lnc = 4>} {}

// -----

// The chip is required.
// expected-error@+1 {{struct is missing required parameter: chip}}
module attributes {neuron.target = #neuron.target<lnc = 2>} {}

// -----

// neuron.target holds a #neuron.target.
// expected-error@+1 {{expected 'neuron.target' to be a #neuron.target, found "trn2"}}
module attributes {neuron.target = "trn2"} {}

// -----

// neuron.target names a module's target, not a function's.
// expected-error@+1 {{'neuron.target' belongs on a builtin.module}}
func.func @f() attributes {neuron.target = #neuron.target<chip = "trainium2">} {
  return
}

// -----

// An unknown engine.
// expected-error@+2 {{expected ::mlir::neuron::EngineKind to be one of: tensor, vector, scalar, gpsimd, dma, collective, host}}
// expected-error@+1 {{failed to parse Neuron_EngineKindAttr parameter 'value'}}
func.func @engine() attributes {engine = #neuron.engine<matrix>} {
  return
}

// -----

func.func private @next(tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>

// awaits names inputs of the launch.
func.func @launch_awaits_out_of_range(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error@+1 {{'neuron.launch' op expected 'awaits' to name distinct inputs (0..1), found 2}}
  %0 = neuron.launch @next(%x, %y) {awaits = array<i64: 2>} : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

func.func private @next(tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>

// An awaited input is a collective's result.
func.func @launch_awaits_argument(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error@+1 {{'neuron.launch' op expected awaited input 0 to be a collective's result (neuron.collective_done, through reshapes and joins)}}
  %0 = neuron.launch @next(%x, %y) {awaits = array<i64: 0>} : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

func.func private @next(tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>

// Each input at most once.
func.func @launch_awaits_twice(%x: tensor<16x64xf32>, %y: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %h = neuron.collective_start all_reduce %x grid [2] axes [0] reduction <sum> : tensor<16x64xf32> -> !neuron.pending<tensor<16x64xf32>>
  %r = neuron.collective_done %h : !neuron.pending<tensor<16x64xf32>> -> tensor<16x64xf32>
  // expected-error@+1 {{'neuron.launch' op expected 'awaits' to name distinct inputs (0..1), found 0}}
  %0 = neuron.launch @next(%r, %y) {awaits = array<i64: 0, 0>} : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
