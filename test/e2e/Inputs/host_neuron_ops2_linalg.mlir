// Inputs/host_neuron_ops2.mlir's computation in linalg (named ops for the
// convolutions and pooling), tensor, arith and math, for the oracle.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
#nhwc = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @ops2(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>,
                %img: tensor<1x6x6x3xf32>, %w: tensor<4x3x3x3xf32>,
                %bias: tensor<4xf32>, %dw: tensor<3x3x1x3xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x16xf32>, tensor<1x6x6x4xf32>,
        tensor<1x4x4x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %eight = arith.constant 8.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e48 = tensor.empty() : tensor<4x8xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %m4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>

  %gelu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 0.70710678 : f32
    %s = arith.mulf %v, %c : f32
    %e = math.erf %s : f32
    %p = arith.addf %one, %e : f32
    %h = arith.mulf %v, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %gelut = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %c = arith.constant 0.79788456 : f32
    %k = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %kv3 = arith.mulf %k, %v3 : f32
    %in = arith.addf %v, %kv3 : f32
    %a = arith.mulf %c, %in : f32
    %t = math.tanh %a : f32
    %p = arith.addf %one, %t : f32
    %h = arith.mulf %v, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>

  // softmax along d1
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%m4 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<4x8xf32>, tensor<4xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %softmax = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = arith.divf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>

  // sums of x and of x^2 along d1
  %sx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %sxx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %v2 = arith.mulf %v, %v : f32
    %r = arith.addf %acc, %v2 : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  // layer_norm: d = x - mean, var = mean(d^2)
  %d = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sx : tensor<4x8xf32>, tensor<4xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %m = arith.divf %s, %eight : f32
    %r = arith.subf %v, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %sdd = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%d : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %v2 = arith.mulf %v, %v : f32
    %r = arith.addf %acc, %v2 : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %ln = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %sdd, %g, %b : tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %s: f32, %gv: f32, %bv: f32, %o: f32):
    %eps = arith.constant 1.0e-05 : f32
    %var = arith.divf %s, %eight : f32
    %ve = arith.addf %var, %eps : f32
    %sq = math.sqrt %ve : f32
    %inv = arith.divf %one, %sq : f32
    %n = arith.mulf %v, %inv : f32
    %sc = arith.mulf %n, %gv : f32
    %r = arith.addf %sc, %bv : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %rms = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sxx, %g : tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>) outs(%e48 : tensor<4x8xf32>) {
  ^bb0(%v: f32, %s: f32, %gv: f32, %o: f32):
    %eps = arith.constant 1.0e-06 : f32
    %ms = arith.divf %s, %eight : f32
    %me = arith.addf %ms, %eps : f32
    %sq = math.sqrt %me : f32
    %inv = arith.divf %one, %sq : f32
    %n = arith.mulf %v, %inv : f32
    %r = arith.mulf %n, %gv : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e41 = tensor.empty() : tensor<4x1xf32>
  %mean = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sx : tensor<4xf32>) outs(%e41 : tensor<4x1xf32>) {
  ^bb0(%s: f32, %o: f32):
    %r = arith.divf %s, %eight : f32
    linalg.yield %r : f32
  } -> tensor<4x1xf32>
  %e416 = tensor.empty() : tensor<4x16xf32>
  %c0 = tensor.insert_slice %x into %e416[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x16xf32>
  %cat = tensor.insert_slice %gelu into %c0[0, 8] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x16xf32>

  // convolution, padded by 1, with bias
  %padded = tensor.pad %img low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x3xf32> to tensor<1x8x8x3xf32>
  %eo = tensor.empty() : tensor<1x6x6x4xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %conv = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) outs(%fo : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %convb = linalg.generic {indexing_maps = [#nhwc, #chan, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %bias : tensor<1x6x6x4xf32>, tensor<4xf32>) outs(%eo : tensor<1x6x6x4xf32>) {
  ^bb0(%v: f32, %bv: f32, %o: f32):
    %r = arith.addf %v, %bv : f32
    linalg.yield %r : f32
  } -> tensor<1x6x6x4xf32>
  // depthwise convolution
  %dw3 = tensor.collapse_shape %dw [[0], [1], [2, 3]] : tensor<3x3x1x3xf32> into tensor<3x3x3xf32>
  %ed = tensor.empty() : tensor<1x4x4x3xf32>
  %fd = linalg.fill ins(%zero : f32) outs(%ed : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %dconv = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%img, %dw3 : tensor<1x6x6x3xf32>, tensor<3x3x3xf32>) outs(%fd : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  // max pooling 2x2, stride 2
  %ep = tensor.empty() : tensor<1x3x3x3xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%ep : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %win2 = tensor.empty() : tensor<2x2xf32>
  %maxp = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%img, %win2 : tensor<1x6x6x3xf32>, tensor<2x2xf32>) outs(%fm : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  // average pooling 3x3, stride 2, padded before by 1, padding counted
  %pp = tensor.pad %img low[0, 1, 1, 0] high[0, 0, 0, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x3xf32> to tensor<1x7x7x3xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%ep : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %win3 = tensor.empty() : tensor<3x3xf32>
  %sump = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%pp, %win3 : tensor<1x7x7x3xf32>, tensor<3x3xf32>) outs(%fs : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %avgp = linalg.generic {indexing_maps = [#nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sump : tensor<1x3x3x3xf32>) outs(%ep : tensor<1x3x3x3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %nine = arith.constant 9.0 : f32
    %r = arith.divf %v, %nine : f32
    linalg.yield %r : f32
  } -> tensor<1x3x3x3xf32>
  // the same without the padding in the count: each window's elements
  // inside the image, summed over a padded image of ones
  %eimg = tensor.empty() : tensor<1x6x6x3xf32>
  %ones = linalg.fill ins(%one : f32) outs(%eimg : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %po = tensor.pad %ones low[0, 1, 1, 0] high[0, 0, 0, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x3xf32> to tensor<1x7x7x3xf32>
  %count = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%po, %win3 : tensor<1x7x7x3xf32>, tensor<3x3xf32>) outs(%fs : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %avgx = linalg.generic {indexing_maps = [#nhwc, #nhwc, #nhwc], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%sump, %count : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>) outs(%ep : tensor<1x3x3x3xf32>) {
  ^bb0(%v: f32, %n: f32, %o: f32):
    %r = arith.divf %v, %n : f32
    linalg.yield %r : f32
  } -> tensor<1x3x3x3xf32>
  return %gelu, %gelut, %softmax, %ln, %rms, %mean, %cat, %convb, %dconv, %maxp, %avgp, %avgx
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>,
        tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x16xf32>, tensor<1x6x6x4xf32>,
        tensor<1x4x4x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32>
}
