// A TFLite-style NHWC block in TOSA (nhwc_block.test): a padded 3x3
// convolution with bias and ReLU6-like clamp, a padded 3x3 max pool of
// stride 2, then an unpadded 3x3 convolution with bias and clamp; the
// filters OHWI as TOSA has them, the weights as arguments.
func.func @block(%x: tensor<1x19x17x24xf32>, %w1: tensor<40x3x3x24xf32>,
                 %b1: tensor<40xf32>, %w2: tensor<48x3x3x40xf32>,
                 %b2: tensor<48xf32>) -> tensor<1x8x7x48xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
      : (tensor<1x19x17x24xf32>, tensor<40x3x3x24xf32>, tensor<40xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x19x17x40xf32>
  %r1 = tosa.clamp %c1 {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x19x17x40xf32>) -> tensor<1x19x17x40xf32>
  %p = tosa.max_pool2d %r1 {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>}
      : (tensor<1x19x17x40xf32>) -> tensor<1x10x9x40xf32>
  %c2 = tosa.conv2d %p, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
      : (tensor<1x10x9x40xf32>, tensor<48x3x3x40xf32>, tensor<48xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x7x48xf32>
  %r2 = tosa.clamp %c2 {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x8x7x48xf32>) -> tensor<1x8x7x48xf32>
  return %r2 : tensor<1x8x7x48xf32>
}
