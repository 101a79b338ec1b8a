// A program whose one host call holds the neuron ops that lower to more
// than one generic: gelu (exact and tanh), softmax, layer_norm, rms_norm,
// reduce_mean, concat, a padded convolution with bias, a depthwise
// convolution (groups = channels), max pooling and average pooling
// counting the padding and not. Inputs/host_neuron_ops2_linalg.mlir is the same
// computation in linalg, tensor, arith and math, for the oracle.
func.func @ops2(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>,
                %img: tensor<1x6x6x3xf32>, %w: tensor<4x3x3x3xf32>,
                %bias: tensor<4xf32>, %dw: tensor<3x3x1x3xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x16xf32>, tensor<1x6x6x4xf32>,
        tensor<1x4x4x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>)
    attributes {neuron.program} {
  %r:12 = neuron.host_call(%x, %g, %b, %img, %w, %bias, %dw) reason "test"
      : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<1x6x6x3xf32>,
         tensor<4x3x3x3xf32>, tensor<4xf32>, tensor<3x3x1x3xf32>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
          tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x16xf32>, tensor<1x6x6x4xf32>,
          tensor<1x4x4x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>) {
  ^bb0(%a: tensor<4x8xf32>, %ga: tensor<8xf32>, %ba: tensor<8xf32>,
       %im: tensor<1x6x6x3xf32>, %wa: tensor<4x3x3x3xf32>, %bi: tensor<4xf32>,
       %dwa: tensor<3x3x1x3xf32>):
    %0 = neuron.gelu %a : tensor<4x8xf32>
    %1 = neuron.gelu %a approximate tanh : tensor<4x8xf32>
    %2 = neuron.softmax %a axis 1 : tensor<4x8xf32>
    %3 = neuron.layer_norm %a weight %ga bias %ba axis 1 epsilon 1.0e-05
        : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %4 = neuron.rms_norm %a weight %ga axis 1 epsilon 1.0e-06
        : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %5 = neuron.reduce_mean %a axes [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
    %6 = neuron.concat %a, %0 axis 1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
    %7 = neuron.conv2d %im, %wa bias %bi layout nhwc_fhwc padding [1, 1, 1, 1]
        : (tensor<1x6x6x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
    %8 = neuron.conv2d %im, %dwa layout nhwc_hwcf groups 3
        : (tensor<1x6x6x3xf32>, tensor<3x3x1x3xf32>) -> tensor<1x4x4x3xf32>
    %9 = neuron.pool2d max %im layout nhwc kernel [2, 2] strides [2, 2]
        : tensor<1x6x6x3xf32> -> tensor<1x3x3x3xf32>
    %10 = neuron.pool2d avg %im layout nhwc kernel [3, 3] strides [2, 2] padding [1, 0, 1, 0] count_include_pad
        : tensor<1x6x6x3xf32> -> tensor<1x3x3x3xf32>
    %11 = neuron.pool2d avg %im layout nhwc kernel [3, 3] strides [2, 2] padding [1, 0, 1, 0]
        : tensor<1x6x6x3xf32> -> tensor<1x3x3x3xf32>
    neuron.yield %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
        : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
          tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x16xf32>, tensor<1x6x6x4xf32>,
          tensor<1x4x4x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10, %r#11
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x16xf32>, tensor<1x6x6x4xf32>,
        tensor<1x4x4x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
}
