// Convolutions as torch-mlir writes them whose filters take more than one
// tile of input or output channels: 1x1 and 3x3 with stride 2 (@convs),
// 1536 input channels whose 3x3 weights are too many to stay in SBUF
// (@wide), a network's first layer (3 channels, stride 2, and here a
// dilation of 2 along the columns: @stem, two tiles of output rows, each
// tap reading its window of a tile's input rows) and a 1x1 filter in
// bf16. Input of convolutions.test; the grouped form is grouped_conv.mlir
// (the import does not raise linalg's grouped convolutions).
func.func @convs(%x: tensor<2x320x7x7xf32>, %w1: tensor<200x320x1x1xf32>,
                 %w2: tensor<96x200x3x3xf32>) -> (tensor<2x200x7x7xf32>, tensor<2x96x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x200x7x7xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x200x7x7xf32>) -> tensor<2x200x7x7xf32>
  %c1 = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w1 : tensor<2x320x7x7xf32>, tensor<200x320x1x1xf32>) outs(%f1 : tensor<2x200x7x7xf32>) -> tensor<2x200x7x7xf32>
  %e2 = tensor.empty() : tensor<2x96x3x3xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x96x3x3xf32>) -> tensor<2x96x3x3xf32>
  %c2 = linalg.conv_2d_nchw_fchw {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%c1, %w2 : tensor<2x200x7x7xf32>, tensor<96x200x3x3xf32>) outs(%f2 : tensor<2x96x3x3xf32>) -> tensor<2x96x3x3xf32>
  return %c1, %c2 : tensor<2x200x7x7xf32>, tensor<2x96x3x3xf32>
}

func.func @wide(%x: tensor<1x1536x3x3xf32>, %w: tensor<130x1536x3x3xf32>) -> tensor<1x130x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x130x1x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x130x1x1xf32>) -> tensor<1x130x1x1xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x1536x3x3xf32>, tensor<130x1536x3x3xf32>) outs(%f : tensor<1x130x1x1xf32>) -> tensor<1x130x1x1xf32>
  return %c : tensor<1x130x1x1xf32>
}

func.func @stem(%x: tensor<1x3x70x41xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x34x19xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x34x19xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x34x19xf32>) -> tensor<1x16x34x19xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<2> : vector<2xi64>, dilations = dense<[1, 2]> : vector<2xi64>}
      ins(%x, %w : tensor<1x3x70x41xf32>, tensor<16x3x3x3xf32>) outs(%f : tensor<1x16x34x19xf32>) -> tensor<1x16x34x19xf32>
  return %c : tensor<1x16x34x19xf32>
}

func.func @bf16(%x: tensor<1x160x5x5xbf16>, %w: tensor<144x160x1x1xbf16>) -> tensor<1x144x5x5xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1x144x5x5xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<1x144x5x5xbf16>) -> tensor<1x144x5x5xbf16>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x160x5x5xbf16>, tensor<144x160x1x1xbf16>) outs(%f : tensor<1x144x5x5xbf16>) -> tensor<1x144x5x5xbf16>
  return %c : tensor<1x144x5x5xbf16>
}
