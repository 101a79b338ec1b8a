// Depthwise convolutions on shapes the vector-engine tiling must cut
// unevenly (test/e2e/depthwise.test): 160 channels (a full tile of 128 and
// one of 32), 11 output rows; a channel multiplier of 3 in NHWC with
// stride 2 on two images; dilation 2; rows of 1200 pixels, wider than a
// tile, in column tiles of 512, 512 and 176 (@depthwise); bf16 in and out,
// accumulated in fp32 (@depthwise_bf16).

func.func @depthwise(%a: tensor<1x160x13x11xf32>, %wa: tensor<160x3x3xf32>,
                     %b: tensor<2x9x9x8xf32>, %wb: tensor<3x3x8x3xf32>,
                     %c: tensor<1x40x20x20xf32>, %wc: tensor<40x3x3xf32>,
                     %w: tensor<1x8x5x1202xf32>, %ww: tensor<8x3x3xf32>)
    -> (tensor<1x160x11x9xf32>, tensor<2x4x4x8x3xf32>, tensor<1x40x16x16xf32>,
        tensor<1x8x3x1200xf32>) {
  %z = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<1x160x11x9xf32>
  %fa = linalg.fill ins(%z : f32) outs(%ea : tensor<1x160x11x9xf32>) -> tensor<1x160x11x9xf32>
  %ya = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%a, %wa : tensor<1x160x13x11xf32>, tensor<160x3x3xf32>) outs(%fa : tensor<1x160x11x9xf32>) -> tensor<1x160x11x9xf32>
  %eb = tensor.empty() : tensor<2x4x4x8x3xf32>
  %fb = linalg.fill ins(%z : f32) outs(%eb : tensor<2x4x4x8x3xf32>) -> tensor<2x4x4x8x3xf32>
  %yb = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%b, %wb : tensor<2x9x9x8xf32>, tensor<3x3x8x3xf32>) outs(%fb : tensor<2x4x4x8x3xf32>) -> tensor<2x4x4x8x3xf32>
  %ec = tensor.empty() : tensor<1x40x16x16xf32>
  %fc = linalg.fill ins(%z : f32) outs(%ec : tensor<1x40x16x16xf32>) -> tensor<1x40x16x16xf32>
  %yc = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%c, %wc : tensor<1x40x20x20xf32>, tensor<40x3x3xf32>) outs(%fc : tensor<1x40x16x16xf32>) -> tensor<1x40x16x16xf32>
  %ew = tensor.empty() : tensor<1x8x3x1200xf32>
  %fw = linalg.fill ins(%z : f32) outs(%ew : tensor<1x8x3x1200xf32>) -> tensor<1x8x3x1200xf32>
  %yw = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%w, %ww : tensor<1x8x5x1202xf32>, tensor<8x3x3xf32>) outs(%fw : tensor<1x8x3x1200xf32>) -> tensor<1x8x3x1200xf32>
  return %ya, %yb, %yc, %yw : tensor<1x160x11x9xf32>, tensor<2x4x4x8x3xf32>, tensor<1x40x16x16xf32>, tensor<1x8x3x1200xf32>
}

func.func @depthwise_bf16(%d: tensor<1x64x10x10xbf16>, %wd: tensor<64x3x3xbf16>) -> tensor<1x64x8x8xbf16> {
  %zb = arith.constant 0.0 : bf16
  %ed = tensor.empty() : tensor<1x64x8x8xbf16>
  %fd = linalg.fill ins(%zb : bf16) outs(%ed : tensor<1x64x8x8xbf16>) -> tensor<1x64x8x8xbf16>
  %yd = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%d, %wd : tensor<1x64x10x10xbf16>, tensor<64x3x3xbf16>) outs(%fd : tensor<1x64x8x8xbf16>) -> tensor<1x64x8x8xbf16>
  return %yd : tensor<1x64x8x8xbf16>
}

// Few outputs under large windows, each output one window reduced
// (@depthwise_few_outputs): 5x5 over 200 channels to 2x2 (a tile of 128
// channels and one of 72); stride 2 to 3x3 on two images; a channel
// multiplier of 3 with stride 2 (NHWC); dilation 4 to a single output.
// A 3x3 bf16 window to one output, accumulated in fp32
// (@depthwise_few_outputs_bf16).
func.func @depthwise_few_outputs(%a: tensor<1x200x6x6xf32>, %wa: tensor<200x5x5xf32>,
                                 %b: tensor<2x144x9x9xf32>, %wb: tensor<144x5x5xf32>,
                                 %c: tensor<1x5x5x16xf32>, %wc: tensor<3x3x16x3xf32>,
                                 %d: tensor<1x40x9x9xf32>, %wd: tensor<40x3x3xf32>)
    -> (tensor<1x200x2x2xf32>, tensor<2x144x3x3xf32>, tensor<1x2x2x16x3xf32>,
        tensor<1x40x1x1xf32>) {
  %z = arith.constant 0.0 : f32
  %ea = tensor.empty() : tensor<1x200x2x2xf32>
  %fa = linalg.fill ins(%z : f32) outs(%ea : tensor<1x200x2x2xf32>) -> tensor<1x200x2x2xf32>
  %ya = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%a, %wa : tensor<1x200x6x6xf32>, tensor<200x5x5xf32>) outs(%fa : tensor<1x200x2x2xf32>) -> tensor<1x200x2x2xf32>
  %eb = tensor.empty() : tensor<2x144x3x3xf32>
  %fb = linalg.fill ins(%z : f32) outs(%eb : tensor<2x144x3x3xf32>) -> tensor<2x144x3x3xf32>
  %yb = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%b, %wb : tensor<2x144x9x9xf32>, tensor<144x5x5xf32>) outs(%fb : tensor<2x144x3x3xf32>) -> tensor<2x144x3x3xf32>
  %ec = tensor.empty() : tensor<1x2x2x16x3xf32>
  %fc = linalg.fill ins(%z : f32) outs(%ec : tensor<1x2x2x16x3xf32>) -> tensor<1x2x2x16x3xf32>
  %yc = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%c, %wc : tensor<1x5x5x16xf32>, tensor<3x3x16x3xf32>) outs(%fc : tensor<1x2x2x16x3xf32>) -> tensor<1x2x2x16x3xf32>
  %ed = tensor.empty() : tensor<1x40x1x1xf32>
  %fd = linalg.fill ins(%z : f32) outs(%ed : tensor<1x40x1x1xf32>) -> tensor<1x40x1x1xf32>
  %yd = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<4> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%d, %wd : tensor<1x40x9x9xf32>, tensor<40x3x3xf32>) outs(%fd : tensor<1x40x1x1xf32>) -> tensor<1x40x1x1xf32>
  return %ya, %yb, %yc, %yd : tensor<1x200x2x2xf32>, tensor<2x144x3x3xf32>, tensor<1x2x2x16x3xf32>, tensor<1x40x1x1xf32>
}

func.func @depthwise_few_outputs_bf16(%e: tensor<1x64x3x3xbf16>, %we: tensor<64x3x3xbf16>) -> tensor<1x64x1x1xbf16> {
  %zb = arith.constant 0.0 : bf16
  %ee = tensor.empty() : tensor<1x64x1x1xbf16>
  %fe = linalg.fill ins(%zb : bf16) outs(%ee : tensor<1x64x1x1xbf16>) -> tensor<1x64x1x1xbf16>
  %ye = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%e, %we : tensor<1x64x3x3xbf16>, tensor<64x3x3xbf16>) outs(%fe : tensor<1x64x1x1xbf16>) -> tensor<1x64x1x1xbf16>
  return %ye : tensor<1x64x1x1xbf16>
}
