// A grouped convolution (2 groups of 24 input and 16 output channels, 3x3)
// in the neuron dialect, for convolutions.test; grouped_conv_linalg.mlir is the same
// computation as upstream linalg writes it, for the oracle.
func.func @grouped(%x: tensor<1x48x6x6xf32>, %w: tensor<32x24x3x3xf32>) -> tensor<1x32x4x4xf32> {
  %0 = neuron.conv2d %x, %w layout nchw_fchw groups 2 : (tensor<1x48x6x6xf32>, tensor<32x24x3x3xf32>) -> tensor<1x32x4x4xf32>
  return %0 : tensor<1x32x4x4xf32>
}
