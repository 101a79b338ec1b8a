// Pooling on the vector engine, channels on the partitions, each tap read
// from the tile's input rows in SBUF (test/e2e/pooling.test): a 3x3
// stride-2 max pool over 16 channels, a 2x2 sum pool in NHWC over two
// images, and a 3x3 max pool over 200 channels (a channel tile of 128 and
// one of 72) with dilation 2.

func.func @pools(%a: tensor<1x16x15x15xf32>, %b: tensor<2x12x12x24xf32>,
                 %c: tensor<1x200x9x9xf32>)
    -> (tensor<1x16x7x7xf32>, tensor<2x6x6x24xf32>, tensor<1x200x5x5xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0.0 : f32
  %k3 = tensor.empty() : tensor<3x3xf32>
  %k2 = tensor.empty() : tensor<2x2xf32>
  %ea = tensor.empty() : tensor<1x16x7x7xf32>
  %fa = linalg.fill ins(%ninf : f32) outs(%ea : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %ya = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%a, %k3 : tensor<1x16x15x15xf32>, tensor<3x3xf32>) outs(%fa : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %eb = tensor.empty() : tensor<2x6x6x24xf32>
  %fb = linalg.fill ins(%z : f32) outs(%eb : tensor<2x6x6x24xf32>) -> tensor<2x6x6x24xf32>
  %yb = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%b, %k2 : tensor<2x12x12x24xf32>, tensor<2x2xf32>) outs(%fb : tensor<2x6x6x24xf32>) -> tensor<2x6x6x24xf32>
  %ec = tensor.empty() : tensor<1x200x5x5xf32>
  %fc = linalg.fill ins(%ninf : f32) outs(%ec : tensor<1x200x5x5xf32>) -> tensor<1x200x5x5xf32>
  %yc = linalg.pooling_nchw_max {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%c, %k3 : tensor<1x200x9x9xf32>, tensor<3x3xf32>) outs(%fc : tensor<1x200x5x5xf32>) -> tensor<1x200x5x5xf32>
  return %ya, %yb, %yc : tensor<1x16x7x7xf32>, tensor<2x6x6x24xf32>, tensor<1x200x5x5xf32>
}

// Windows whose input rows would not fit a tile of whole output rows: a
// 16x16 sum pool with stride 16 over 224x224 (one output row per tile),
// and a 3x3 max pool over rows of 1500 (tiles of fewer columns).
func.func @pools_large(%x: tensor<1x8x224x224xf32>, %w: tensor<1x4x5x1500xf32>)
    -> (tensor<1x8x14x14xf32>, tensor<1x4x3x1498xf32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %k16 = tensor.empty() : tensor<16x16xf32>
  %k3 = tensor.empty() : tensor<3x3xf32>
  %ea = tensor.empty() : tensor<1x8x14x14xf32>
  %fa = linalg.fill ins(%z : f32) outs(%ea : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
  %ya = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<16> : vector<2xi64>}
      ins(%x, %k16 : tensor<1x8x224x224xf32>, tensor<16x16xf32>) outs(%fa : tensor<1x8x14x14xf32>) -> tensor<1x8x14x14xf32>
  %eb = tensor.empty() : tensor<1x4x3x1498xf32>
  %fb = linalg.fill ins(%ninf : f32) outs(%eb : tensor<1x4x3x1498xf32>) -> tensor<1x4x3x1498xf32>
  %yb = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%w, %k3 : tensor<1x4x5x1500xf32>, tensor<3x3xf32>) outs(%fb : tensor<1x4x3x1498xf32>) -> tensor<1x4x3x1498xf32>
  return %ya, %yb : tensor<1x8x14x14xf32>, tensor<1x4x3x1498xf32>
}

// Few outputs under large windows, each output one window reduced: a
// global max pool over 200 channels (7x7 to 1x1, a channel tile of 128 and
// one of 72), and a 4x4 sum pool with stride 4 in NHWC over two images
// (8x8 to 2x2), and a dilated 3x3 max pool to 2x2.
func.func @pools_few_outputs(%x: tensor<1x200x7x7xf32>, %y: tensor<2x8x8x24xf32>,
                             %z: tensor<1x16x6x6xf32>)
    -> (tensor<1x200x1x1xf32>, tensor<2x2x2x24xf32>, tensor<1x16x2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %k7 = tensor.empty() : tensor<7x7xf32>
  %k4 = tensor.empty() : tensor<4x4xf32>
  %k3 = tensor.empty() : tensor<3x3xf32>
  %ex = tensor.empty() : tensor<1x200x1x1xf32>
  %fx = linalg.fill ins(%ninf : f32) outs(%ex : tensor<1x200x1x1xf32>) -> tensor<1x200x1x1xf32>
  %px = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%x, %k7 : tensor<1x200x7x7xf32>, tensor<7x7xf32>) outs(%fx : tensor<1x200x1x1xf32>) -> tensor<1x200x1x1xf32>
  %ey = tensor.empty() : tensor<2x2x2x24xf32>
  %fy = linalg.fill ins(%zero : f32) outs(%ey : tensor<2x2x2x24xf32>) -> tensor<2x2x2x24xf32>
  %py = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<4> : vector<2xi64>}
      ins(%y, %k4 : tensor<2x8x8x24xf32>, tensor<4x4xf32>) outs(%fy : tensor<2x2x2x24xf32>) -> tensor<2x2x2x24xf32>
  %ez = tensor.empty() : tensor<1x16x2x2xf32>
  %fz = linalg.fill ins(%ninf : f32) outs(%ez : tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  %pz = linalg.pooling_nchw_max {dilations = dense<2> : vector<2xi64>, strides = dense<1> : vector<2xi64>}
      ins(%z, %k3 : tensor<1x16x6x6xf32>, tensor<3x3xf32>) outs(%fz : tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  return %px, %py, %pz : tensor<1x200x1x1xf32>, tensor<2x2x2x24xf32>, tensor<1x16x2x2xf32>
}
