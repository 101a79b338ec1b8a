// Graphs whose operands reach the chip through access patterns the DMA
// model prices per contiguous run: transposes (the tensor engine or a DMA
// transpose, as the cost model chooses) and broadcasts of per-row values;
// see access_patterns.test.

// A batched x @ w^T: the transpose is read only by the batch_matmul, so
// it is the matmul's rhs view, each tile of w's rows transposed.
func.func @linear_batched(%a: tensor<3x70x300xf32>, %w: tensor<3x530x300xf32>) -> tensor<3x70x530xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<3x300x530xf32>
  %wt = linalg.transpose ins(%w : tensor<3x530x300xf32>) outs(%e1 : tensor<3x300x530xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<3x70x530xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x70x530xf32>) -> tensor<3x70x530xf32>
  %r = linalg.batch_matmul ins(%a, %wt : tensor<3x70x300xf32>, tensor<3x300x530xf32>) outs(%f : tensor<3x70x530xf32>) -> tensor<3x70x530xf32>
  return %r : tensor<3x70x530xf32>
}

// A transpose returned and read by an add: copied through SBUF, tile by
// tile, partial tiles both ways.
func.func @returned(%a: tensor<2x300x200xf32>, %b: tensor<2x200x300xf32>) -> (tensor<2x200x300xf32>, tensor<2x200x300xf32>) {
  %e = tensor.empty() : tensor<2x200x300xf32>
  %t = linalg.transpose ins(%a : tensor<2x300x200xf32>) outs(%e : tensor<2x200x300xf32>) permutation = [0, 2, 1]
  %e2 = tensor.empty() : tensor<2x200x300xf32>
  %s = linalg.add ins(%t, %b : tensor<2x200x300xf32>, tensor<2x200x300xf32>) outs(%e2 : tensor<2x200x300xf32>) -> tensor<2x200x300xf32>
  return %t, %s : tensor<2x200x300xf32>, tensor<2x200x300xf32>
}

// A bf16 matmul whose lhs^T tiles load by DMA transpose on trn2 and
// through the tensor engine on trn1.
func.func @bf16(%a: tensor<333x200xbf16>, %b: tensor<200x700xbf16>) -> tensor<333x700xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<333x700xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<333x700xf32>) -> tensor<333x700xf32>
  %r = linalg.matmul ins(%a, %b : tensor<333x200xbf16>, tensor<200x700xbf16>) outs(%f : tensor<333x700xf32>) -> tensor<333x700xf32>
  return %r : tensor<333x700xf32>
}

// Rows centred on their mean: the mean broadcast along each row, stored
// (-O0: no fusion) or read by the subtraction in place (fused).
func.func @centred(%x: tensor<300x700xf32>) -> tensor<300x700xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 700.0 : f32
  %er = tensor.empty() : tensor<300xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<300xf32>) -> tensor<300xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<300x700xf32>) outs(%z : tensor<300xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<300xf32>
  %e = tensor.empty() : tensor<300x700xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<300x700xf32>, tensor<300xf32>) outs(%e : tensor<300x700xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %m = arith.divf %s, %n : f32
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<300x700xf32>
  return %c : tensor<300x700xf32>
}

// Image layouts: an NHWC image to NCHW (150 channels, more than a tile;
// 143 pixels, not a multiple of one), a bf16 NCHW image to NHWC, and a
// strided NHWC convolution (its input and result change layout around
// the NCHW convolution).
func.func @image_layouts(%x: tensor<2x13x11x150xf32>, %y: tensor<1x130x9x7xbf16>,
                         %i: tensor<1x15x15x24xf32>, %w: tensor<3x3x24x40xf32>)
    -> (tensor<2x150x13x11xf32>, tensor<1x9x7x130xbf16>, tensor<1x7x7x40xf32>) {
  %ex = tensor.empty() : tensor<2x150x13x11xf32>
  %tx = linalg.transpose ins(%x : tensor<2x13x11x150xf32>) outs(%ex : tensor<2x150x13x11xf32>) permutation = [0, 3, 1, 2]
  %ey = tensor.empty() : tensor<1x9x7x130xbf16>
  %ty = linalg.transpose ins(%y : tensor<1x130x9x7xbf16>) outs(%ey : tensor<1x9x7x130xbf16>) permutation = [0, 2, 3, 1]
  %z = arith.constant 0.0 : f32
  %ec = tensor.empty() : tensor<1x7x7x40xf32>
  %fc = linalg.fill ins(%z : f32) outs(%ec : tensor<1x7x7x40xf32>) -> tensor<1x7x7x40xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%i, %w : tensor<1x15x15x24xf32>, tensor<3x3x24x40xf32>) outs(%fc : tensor<1x7x7x40xf32>) -> tensor<1x7x7x40xf32>
  return %tx, %ty, %c : tensor<2x150x13x11xf32>, tensor<1x9x7x130xbf16>, tensor<1x7x7x40xf32>
}
