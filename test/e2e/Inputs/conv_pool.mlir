// Convolutions as torch-mlir writes them (NCHW, padding as tensor.pad, a
// strided and a depthwise convolution) with ReLU. Input of the end-to-end
// oracle test.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @convs(%x: tensor<2x3x16x16xf32>, %w1: tensor<8x3x3x3xf32>,
                 %w2: tensor<8x1x3x3xf32>) -> tensor<2x8x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x3x16x16xf32> to tensor<2x3x18x18xf32>
  %e1 = tensor.empty() : tensor<2x8x16x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  %c1 = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%p, %w1 : tensor<2x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%f1 : tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c1 : tensor<2x8x16x16xf32>) outs(%e1 : tensor<2x8x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x16x16xf32>
  %e2 = tensor.empty() : tensor<2x8x7x7xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x8x7x7xf32>) -> tensor<2x8x7x7xf32>
  %w2r = tensor.collapse_shape %w2 [[0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
  %c2 = linalg.depthwise_conv_2d_nchw_chw {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%r1, %w2r : tensor<2x8x16x16xf32>, tensor<8x3x3xf32>) outs(%f2 : tensor<2x8x7x7xf32>) -> tensor<2x8x7x7xf32>
  return %c2 : tensor<2x8x7x7xf32>
}
