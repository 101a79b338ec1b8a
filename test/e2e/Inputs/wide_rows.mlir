// Convolutions whose output rows are wider than a PSUM bank holds (512 f32
// sums), as high-resolution images and 1-D signals give them
// (wide_rows.test): torch-mlir's padded 3x3 over 16 channels with a bias
// and ReLU (two column tiles of 350), JAX's 3x3 over an NHWC image 640
// wide (8 channels: taps stacked), a strided 7x7 over 3 channels on two
// images (648 outputs a row), a 1x1 over 130 channels (two channel tiles)
// and a 1-D convolution over 1029 samples as a row of one.
#nchw = affine_map<(n, c, h, w) -> (n, c, h, w)>
#chan = affine_map<(n, c, h, w) -> (c)>
func.func @torch_wide(%x: tensor<1x16x5x700xf32>, %w: tensor<24x16x3x3xf32>, %bias: tensor<24xf32>) -> tensor<1x24x5x700xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x16x5x700xf32> to tensor<1x16x7x702xf32>
  %e = tensor.empty() : tensor<1x24x5x700xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x24x5x700xf32>) -> tensor<1x24x5x700xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%p, %w : tensor<1x16x7x702xf32>, tensor<24x16x3x3xf32>) outs(%f : tensor<1x24x5x700xf32>) -> tensor<1x24x5x700xf32>
  %r = linalg.generic {indexing_maps = [#nchw, #chan, #nchw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<1x24x5x700xf32>, tensor<24xf32>) outs(%e : tensor<1x24x5x700xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x24x5x700xf32>
  return %r : tensor<1x24x5x700xf32>
}

func.func @jax_wide(%x: tensor<1x4x640x8xf32>, %w: tensor<3x3x8x8xf32>) -> tensor<1x2x638x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x638x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x638x8xf32>) -> tensor<1x2x638x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x4x640x8xf32>, tensor<3x3x8x8xf32>) outs(%f : tensor<1x2x638x8xf32>) -> tensor<1x2x638x8xf32>
  return %c : tensor<1x2x638x8xf32>
}

func.func @strided_wide(%x: tensor<2x3x9x1301xf32>, %w: tensor<10x3x7x7xf32>) -> tensor<2x10x2x648xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x10x2x648xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x10x2x648xf32>) -> tensor<2x10x2x648xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x3x9x1301xf32>, tensor<10x3x7x7xf32>) outs(%f : tensor<2x10x2x648xf32>) -> tensor<2x10x2x648xf32>
  return %c : tensor<2x10x2x648xf32>
}

func.func @pointwise_wide(%x: tensor<1x130x2x1100xf32>, %w: tensor<40x130x1x1xf32>) -> tensor<1x40x2x1100xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40x2x1100xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40x2x1100xf32>) -> tensor<1x40x2x1100xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x130x2x1100xf32>, tensor<40x130x1x1xf32>) outs(%f : tensor<1x40x2x1100xf32>) -> tensor<1x40x2x1100xf32>
  return %c : tensor<1x40x2x1100xf32>
}

func.func @signal_wide(%x: tensor<1x2x1x1030xf32>, %w: tensor<1x2x1x2xf32>) -> tensor<1x1x1x1029xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x1x1029xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x1029xf32>) -> tensor<1x1x1x1029xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x2x1x1030xf32>, tensor<1x2x1x2xf32>) outs(%f : tensor<1x1x1x1029xf32>) -> tensor<1x1x1x1029xf32>
  return %c : tensor<1x1x1x1029xf32>
}
