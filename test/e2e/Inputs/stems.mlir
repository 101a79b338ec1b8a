// Image networks' first layers, few input channels under large filters, as
// the frontends write them (stems.test): torch-mlir's padded 7x7 stride-2
// convolution over 3 channels (NCHW, FCHW; two tiles of output rows, the
// second partial), TOSA's 5x5 stride-2 convolution with bias and clamp
// (NHWC, OHWI), JAX's dilated 3x3 over 4 channels on two images (NHWC,
// HWCF), a 3x3 convolution to 200 filters (two filter tiles) and a
// grayscale LeNet-style 5x5 over one channel (depthwise with a channel
// multiplier, which stacks its 25 taps too).
func.func @torch_stem(%x: tensor<1x3x61x58xf32>, %w: tensor<24x3x7x7xf32>) -> tensor<1x24x31x29xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 3] high[0, 0, 3, 3] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x61x58xf32> to tensor<1x3x67x64xf32>
  %e = tensor.empty() : tensor<1x24x31x29xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x24x31x29xf32>) -> tensor<1x24x31x29xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%p, %w : tensor<1x3x67x64xf32>, tensor<24x3x7x7xf32>) outs(%f : tensor<1x24x31x29xf32>) -> tensor<1x24x31x29xf32>
  return %c : tensor<1x24x31x29xf32>
}

func.func @tosa_stem(%x: tensor<1x45x49x3xf32>, %w: tensor<16x5x5x3xf32>, %b: tensor<16xf32>) -> tensor<1x23x25x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 2, 2, 2, 2>, stride = array<i64: 2, 2>}
      : (tensor<1x45x49x3xf32>, tensor<16x5x5x3xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x23x25x16xf32>
  %r = tosa.clamp %c {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x23x25x16xf32>) -> tensor<1x23x25x16xf32>
  return %r : tensor<1x23x25x16xf32>
}

func.func @jax_stem(%x: tensor<2x29x31x4xf32>, %w: tensor<3x3x4x20xf32>) -> tensor<2x13x15x20xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x13x15x20xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x13x15x20xf32>) -> tensor<2x13x15x20xf32>
  %c = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : vector<2xi64>, dilations = dense<[2, 1]> : vector<2xi64>}
      ins(%x, %w : tensor<2x29x31x4xf32>, tensor<3x3x4x20xf32>) outs(%f : tensor<2x13x15x20xf32>) -> tensor<2x13x15x20xf32>
  return %c : tensor<2x13x15x20xf32>
}

func.func @wide_stem(%x: tensor<1x3x20x22xf32>, %w: tensor<200x3x3x3xf32>) -> tensor<1x200x18x20xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x200x18x20xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x200x18x20xf32>) -> tensor<1x200x18x20xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x3x20x22xf32>, tensor<200x3x3x3xf32>) outs(%f : tensor<1x200x18x20xf32>) -> tensor<1x200x18x20xf32>
  return %c : tensor<1x200x18x20xf32>
}

func.func @gray_stem(%x: tensor<2x1x32x30xf32>, %w: tensor<6x1x5x5xf32>) -> tensor<2x6x28x26xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6x28x26xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x28x26xf32>) -> tensor<2x6x28x26xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x1x32x30xf32>, tensor<6x1x5x5xf32>) outs(%f : tensor<2x6x28x26xf32>) -> tensor<2x6x28x26xf32>
  return %c : tensor<2x6x28x26xf32>
}
