// grouped_conv.mlir's computation in linalg and tensor, for the oracle.
func.func @grouped(%x: tensor<1x48x6x6xf32>, %w: tensor<32x24x3x3xf32>) -> tensor<1x32x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %xe = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 24, 6, 6] : tensor<1x48x6x6xf32> into tensor<1x2x24x6x6xf32>
  %we = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 16, 24, 3, 3] : tensor<32x24x3x3xf32> into tensor<2x16x24x3x3xf32>
  %e = tensor.empty() : tensor<1x2x16x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x16x4x4xf32>) -> tensor<1x2x16x4x4xf32>
  %c = linalg.conv_2d_ngchw_gfchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%xe, %we : tensor<1x2x24x6x6xf32>, tensor<2x16x24x3x3xf32>) outs(%f : tensor<1x2x16x4x4xf32>) -> tensor<1x2x16x4x4xf32>
  %r = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x2x16x4x4xf32> into tensor<1x32x4x4xf32>
  return %r : tensor<1x32x4x4xf32>
}
