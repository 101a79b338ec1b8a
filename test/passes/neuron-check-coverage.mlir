// RUN: neuron-opt %s -split-input-file -verify-diagnostics \
// RUN:   --neuron-check-coverage="target=trn2"

// Tests that supported ops pass silently: an f32 MLP block on trn2.
func.func @supported(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = neuron.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = neuron.relu %0 : tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

// -----

// Tests an fp8 transpose only a matmul reads (torch's x @ w.T): the matmul
// loads its operand through it, so it takes the matmul's element types;
// one whose result is returned moves fp8 elements, which the generation
// keeps to the tensor engine's inputs.
func.func @fp8_operand_view(%x: tensor<4x8xf8E4M3FN>, %w: tensor<16x8xf8E4M3FN>) -> (tensor<4x16xf32>, tensor<8x4xf8E4M3FN>) {
  %t = neuron.transpose %w permutation [1, 0] : tensor<16x8xf8E4M3FN> -> tensor<8x16xf8E4M3FN>
  %0 = neuron.matmul %x, %t : (tensor<4x8xf8E4M3FN>, tensor<8x16xf8E4M3FN>) -> tensor<4x16xf32>
  // expected-error@+1 {{'neuron.transpose' (tensor<4x8xf8E4M3FN>) -> tensor<8x4xf8E4M3FN> is not supported on trn2: operand element type f8E4M3FN is not one of f32, bf16, f16, i8, i32, i64, i1 [dtype]}}
  %1 = neuron.transpose %x permutation [1, 0] : tensor<4x8xf8E4M3FN> -> tensor<8x4xf8E4M3FN>
  return %0, %1 : tensor<4x16xf32>, tensor<8x4xf8E4M3FN>
}

// -----

// Tests the op rule: every unsupported op is reported, not just the first.
func.func @every_op(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4x8xf32>) {
  // expected-error@+1 {{'neuron.reduce_mean' (tensor<4x8xf32>) -> tensor<4xf32> is not supported on trn2: the generation has no such op [op]; hint: fallback=decompose rewrites it into supported ops; fallback=host runs it on the host}}
  %0 = neuron.reduce_mean %x axes [1] : tensor<4x8xf32> -> tensor<4xf32>
  %c = neuron.constant dense<2.0> : tensor<4x8xf32>
  // expected-error@+1 {{'neuron.pow' (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32> is not supported on trn2: the generation has no such op [op]}}
  %1 = neuron.pow %x, %c : tensor<4x8xf32>
  return %0, %1 : tensor<4xf32>, tensor<4x8xf32>
}

// -----

// Tests the dtype rule, on an op unsupported here but supported on trn1 and
// inf2: an i8 matmul.
func.func @int8_matmul(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>) -> tensor<4x16xi32> {
  // expected-error@+1 {{'neuron.matmul' (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32> is not supported on trn2: operand element type i8 is not one of f32, bf16, f16, f8E4M3FN, f8E5M2 [dtype]; hint: cast to f32 where the values allow it; fallback=decompose rewrites it into supported ops; fallback=host runs it on the host}}
  %0 = neuron.matmul %a, %b : (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// Tests the index dtype rule: i64 gather indices.
func.func @gather_i64(%t: tensor<100x8xf32>, %i: tensor<4xi64>) -> tensor<4x8xf32> {
  // expected-error@+1 {{index element type i64 is not one of i32 [dtype]}}
  %0 = neuron.gather %t[%i] axis 0 : (tensor<100x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Tests the dynamic-shape rule.
func.func @dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error@+1 {{is not supported on trn2: dynamic dimensions in tensor<?x8xf32> [dynamic-shape]; hint: specialise the shapes (the target compiles static shapes only)}}
  %0 = neuron.exp %x : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Tests the rank rule.
func.func @rank(%x: tensor<1x2x3x4x5x6x7xf32>) -> tensor<1x2x3x4x5x6x7xf32> {
  // expected-error@+1 {{rank 7 exceeds 6 [rank]; hint: reshape to rank 6 or less}}
  %0 = neuron.exp %x : tensor<1x2x3x4x5x6x7xf32>
  return %0 : tensor<1x2x3x4x5x6x7xf32>
}

// -----

// Tests the attribute rule: a dilation above the generation's limit.
func.func @dilation(%x: tensor<1x1x64x64xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x28x28xf32> {
  // expected-error@+1 {{dilations 18 exceeds the limit 8 [attribute]}}
  %0 = neuron.conv2d %x, %w layout nchw_fchw dilations [18, 18] : (tensor<1x1x64x64xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x28x28xf32>
  return %0 : tensor<1x1x28x28xf32>
}

// -----

// Tests the not-raised rule: an op the import left in another dialect.
func.func @not_raised(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error@+1 {{'arith.addi' (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64> is not supported on trn2: the import did not raise it to the neuron dialect [not-raised]; hint: fallback=host runs it on the host}}
  %0 = arith.addi %x, %y : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Tests the not-tiled rule on what the tables allow but the tiler does not
// take: a pool over a padded image, a convolution with padding, one with a
// bias (the imports pad and add separately). The host runs them.
func.func @not_tiled(%x: tensor<1x8x6x6xf32>, %w: tensor<4x8x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x4x4xf32>) {
  // expected-error@+1 {{'neuron.pool2d' (tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> is not supported on trn2: pooling with padding is not tiled yet (pad the image with neuron.pad first) [not-tiled]; hint: fallback=host runs it on the host}}
  %0 = neuron.pool2d max %x layout nchw kernel [3, 3] padding [1, 1, 1, 1] : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
  // expected-error@+1 {{is not supported on trn2: only nchw_fchw convolutions without padding or bias are tiled yet (pad the image with neuron.pad first, add the bias after) [not-tiled]; hint: fallback=host runs it on the host}}
  %1 = neuron.conv2d %x, %w layout nchw_fchw padding [1, 1, 1, 1] : (tensor<1x8x6x6xf32>, tensor<4x8x3x3xf32>) -> tensor<1x4x6x6xf32>
  // expected-error@+1 {{only nchw_fchw convolutions without padding or bias are tiled yet}}
  %2 = neuron.conv2d %x, %w bias %b layout nchw_fchw : (tensor<1x8x6x6xf32>, tensor<4x8x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1, %2 : tensor<1x8x6x6xf32>, tensor<1x4x6x6xf32>, tensor<1x4x4x4xf32>
}
