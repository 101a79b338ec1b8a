// Convolutions finished on chip by the elementwise ops that follow them
// (neuron-fuse groups a tensor-engine convolution with its epilogue):
// a 1x1 convolution, batch normalisation with per-channel parameters
// broadcast as torch-mlir writes them, and ReLU6 (@conv_bn, which also
// returns the raw convolution); a 3x3 stride-2 convolution over 150 input
// channels with a per-channel bias and ReLU (@conv_bias_relu); a depthwise
// convolution (vector engine, 2 images of 40 channels) with a per-channel
// scale and shift, ReLU6 and a residual (@depthwise_bn); a convolution's
// fusion writing into the padded input of a depthwise one
// (@conv_pad_depthwise); immediate scales and shifts one activation applies
// (@conv_scaled_silu, @depthwise_scaled). Input of
// conv_epilogue.test.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @conv_bn(%x: tensor<2x40x6x6xf32>, %w: tensor<70x40x1x1xf32>,
                   %mean: tensor<70xf32>, %var: tensor<70xf32>,
                   %gamma: tensor<70xf32>, %beta: tensor<70xf32>)
    -> (tensor<2x70x6x6xf32>, tensor<2x70x6x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %e = tensor.empty() : tensor<2x70x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x70x6x6xf32>) -> tensor<2x70x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x40x6x6xf32>, tensor<70x40x1x1xf32>) outs(%f : tensor<2x70x6x6xf32>) -> tensor<2x70x6x6xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #ch, #ch, #ch, #id],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %mean, %var, %gamma, %beta : tensor<2x70x6x6xf32>, tensor<70xf32>, tensor<70xf32>, tensor<70xf32>, tensor<70xf32>)
      outs(%e : tensor<2x70x6x6xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %g: f32, %b: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %s2 = arith.mulf %s, %s : f32
    %se = arith.addf %s2, %eps : f32
    %r = math.rsqrt %se : f32
    %n = arith.mulf %d, %r : f32
    %y = arith.mulf %n, %g : f32
    %z = arith.addf %y, %b : f32
    %lo = arith.maximumf %z, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<2x70x6x6xf32>
  return %c, %bn : tensor<2x70x6x6xf32>, tensor<2x70x6x6xf32>
}

func.func @conv_bias_relu(%x: tensor<1x150x9x9xf32>, %w: tensor<20x150x3x3xf32>,
                          %bias: tensor<20xf32>) -> tensor<1x20x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x20x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x20x4x4xf32>) -> tensor<1x20x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x150x9x9xf32>, tensor<20x150x3x3xf32>) outs(%f : tensor<1x20x4x4xf32>) -> tensor<1x20x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<1x20x4x4xf32>, tensor<20xf32>) outs(%e : tensor<1x20x4x4xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %z = arith.addf %v, %b : f32
    %m = arith.maximumf %z, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x20x4x4xf32>
  return %r : tensor<1x20x4x4xf32>
}

func.func @depthwise_bn(%x: tensor<2x40x11x19xf32>, %w: tensor<40x3x3xf32>,
                        %scale: tensor<40xf32>, %shift: tensor<40xf32>, %res: tensor<2x40x9x17xf32>)
    -> tensor<2x40x9x17xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<2x40x9x17xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x9x17xf32>) -> tensor<2x40x9x17xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x40x11x19xf32>, tensor<40x3x3xf32>) outs(%f : tensor<2x40x9x17xf32>) -> tensor<2x40x9x17xf32>
  %bn = linalg.generic {indexing_maps = [#id, #ch, #ch, #id, #id],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %scale, %shift, %res : tensor<2x40x9x17xf32>, tensor<40xf32>, tensor<40xf32>, tensor<2x40x9x17xf32>)
      outs(%e : tensor<2x40x9x17xf32>) {
  ^bb0(%v: f32, %s: f32, %t: f32, %r: f32, %o: f32):
    %y = arith.mulf %v, %s : f32
    %z = arith.addf %y, %t : f32
    %lo = arith.maximumf %z, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    %out = arith.addf %hi, %r : f32
    linalg.yield %out : f32
  } -> tensor<2x40x9x17xf32>
  return %bn : tensor<2x40x9x17xf32>
}

// A MobileNet block's first half: a 1x1 convolution to 150 channels (two
// channel tiles, 10-pixel rows) with a per-channel bias and ReLU6, padded
// by one and read by a 3x3 depthwise convolution (@conv_pad_depthwise).
// The pad's only reader is the depthwise convolution and its input comes
// from a convolution's fusion, so the fusion writes its tiles into the
// padded buffer's interior.
#dw_id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#dw_ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @conv_pad_depthwise(%x: tensor<2x24x7x10xf32>, %w: tensor<150x24x1x1xf32>,
                              %bias: tensor<150xf32>, %dw: tensor<150x3x3xf32>)
    -> tensor<2x150x7x10xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<2x150x7x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x150x7x10xf32>) -> tensor<2x150x7x10xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<2x24x7x10xf32>, tensor<150x24x1x1xf32>) outs(%f : tensor<2x150x7x10xf32>) -> tensor<2x150x7x10xf32>
  %r = linalg.generic {indexing_maps = [#dw_id, #dw_ch, #dw_id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<2x150x7x10xf32>, tensor<150xf32>) outs(%e : tensor<2x150x7x10xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    %lo = arith.maximumf %s, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<2x150x7x10xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x150x7x10xf32> to tensor<2x150x9x12xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%p, %dw : tensor<2x150x9x12xf32>, tensor<150x3x3xf32>) outs(%f : tensor<2x150x7x10xf32>) -> tensor<2x150x7x10xf32>
  return %d : tensor<2x150x7x10xf32>
}

// A 3x3 convolution, batch normalisation folded to immediates (x * 0.75 +
// 0.3, as torchvision exports write an untrained one) and SiLU written as
// torch-mlir does (a sigmoid, then a product): one scalar-engine
// activation evacuates PSUM through all of them (@conv_scaled_silu).
func.func @conv_scaled_silu(%x: tensor<1x24x8x8xf32>, %w: tensor<36x24x3x3xf32>)
    -> tensor<1x36x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %scale = arith.constant 0.75 : f32
  %shift = arith.constant 0.3 : f32
  %e = tensor.empty() : tensor<1x36x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x36x6x6xf32>) -> tensor<1x36x6x6xf32>
  %c = linalg.conv_2d_nchw_fchw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x24x8x8xf32>, tensor<36x24x3x3xf32>) outs(%f : tensor<1x36x6x6xf32>) -> tensor<1x36x6x6xf32>
  %bn = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x36x6x6xf32>) outs(%e : tensor<1x36x6x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %scale : f32
    %a = arith.addf %m, %shift : f32
    linalg.yield %a : f32
  } -> tensor<1x36x6x6xf32>
  %sig = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bn : tensor<1x36x6x6xf32>) outs(%e : tensor<1x36x6x6xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %s = arith.divf %one, %d : f32
    linalg.yield %s : f32
  } -> tensor<1x36x6x6xf32>
  %silu = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sig, %bn : tensor<1x36x6x6xf32>, tensor<1x36x6x6xf32>) outs(%e : tensor<1x36x6x6xf32>) {
  ^bb0(%s: f32, %v: f32, %o: f32):
    %p = arith.mulf %s, %v : f32
    linalg.yield %p : f32
  } -> tensor<1x36x6x6xf32>
  return %silu : tensor<1x36x6x6xf32>
}

// A depthwise convolution whose sums are scaled by an immediate and have
// one subtracted (one scalar-engine activation reading the vector
// engine's sums) (@depthwise_scaled).
func.func @depthwise_scaled(%x: tensor<1x20x9x9xf32>, %w: tensor<20x3x3xf32>)
    -> tensor<1x20x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x20x7x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x20x7x7xf32>) -> tensor<1x20x7x7xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {strides = dense<1> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
      ins(%x, %w : tensor<1x20x9x9xf32>, tensor<20x3x3xf32>) outs(%f : tensor<1x20x7x7xf32>) -> tensor<1x20x7x7xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%c : tensor<1x20x7x7xf32>) outs(%e : tensor<1x20x7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    %s = arith.subf %m, %one : f32
    linalg.yield %s : f32
  } -> tensor<1x20x7x7xf32>
  return %r : tensor<1x20x7x7xf32>
}
