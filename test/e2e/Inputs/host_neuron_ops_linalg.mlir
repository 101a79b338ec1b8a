// Inputs/host_neuron_ops.mlir in linalg, tensor, arith and math, for the
// oracle: the same computation written the way frontends write it.
func.func @ops(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %m: tensor<4x8xi64>, %n: tensor<4x8xi64>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xi64>, tensor<4x4xf32>,
        tensor<4x8xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<8xi32>, tensor<2x16xf32>) {
  %onef = arith.constant dense<1.0> : tensor<4x8xf32>
  %zerof = arith.constant dense<0.0> : tensor<4x8xf32>
  %0 = arith.addf %x, %y : tensor<4x8xf32>
  %1 = arith.mulf %0, %x : tensor<4x8xf32>
  %2 = arith.subf %1, %y : tensor<4x8xf32>
  %3 = arith.maximumf %2, %x : tensor<4x8xf32>
  %4 = arith.minimumf %3, %y : tensor<4x8xf32>
  %ex = math.exp %x : tensor<4x8xf32>
  %ey = math.exp %y : tensor<4x8xf32>
  %5 = arith.divf %4, %ey : tensor<4x8xf32>
  %nx = arith.negf %x : tensor<4x8xf32>
  %enx = math.exp %nx : tensor<4x8xf32>
  %dx = arith.addf %onef, %enx : tensor<4x8xf32>
  %sg = arith.divf %onef, %dx : tensor<4x8xf32>
  %ny = arith.negf %y : tensor<4x8xf32>
  %eny = math.exp %ny : tensor<4x8xf32>
  %dy = arith.addf %onef, %eny : tensor<4x8xf32>
  %sgy = arith.divf %onef, %dy : tensor<4x8xf32>
  %sl = arith.mulf %y, %sgy : tensor<4x8xf32>
  %th = math.tanh %x : tensor<4x8xf32>
  %ab = math.absf %y : tensor<4x8xf32>
  %ng = arith.negf %x : tensor<4x8xf32>
  %pos = arith.cmpf ogt, %y, %zerof : tensor<4x8xf32>
  %rl = arith.select %pos, %y, %zerof : tensor<4x8xi1>, tensor<4x8xf32>
  %sq = math.sqrt %ex : tensor<4x8xf32>
  %rs = math.rsqrt %ey : tensor<4x8xf32>
  %rc = arith.divf %onef, %ex : tensor<4x8xf32>
  %ef = math.erf %x : tensor<4x8xf32>
  %lg = math.log %ey : tensor<4x8xf32>
  %pw = math.powf %ex, %y : tensor<4x8xf32>
  %f1 = arith.addf %5, %sg : tensor<4x8xf32>
  %f2 = arith.addf %f1, %sl : tensor<4x8xf32>
  %f3 = arith.addf %f2, %th : tensor<4x8xf32>
  %f4 = arith.addf %f3, %ab : tensor<4x8xf32>
  %f5 = arith.addf %f4, %ng : tensor<4x8xf32>
  %f6 = arith.addf %f5, %rl : tensor<4x8xf32>
  %f7 = arith.addf %f6, %sq : tensor<4x8xf32>
  %f8 = arith.addf %f7, %rs : tensor<4x8xf32>
  %f9 = arith.addf %f8, %rc : tensor<4x8xf32>
  %f10 = arith.addf %f9, %ef : tensor<4x8xf32>
  %f11 = arith.addf %f10, %lg : tensor<4x8xf32>
  %f12 = arith.addf %f11, %pw : tensor<4x8xf32>

  %mi = arith.trunci %m : tensor<4x8xi64> to tensor<4x8xi32>
  %ni = arith.trunci %n : tensor<4x8xi64> to tensor<4x8xi32>
  %gt = arith.cmpf ogt, %x, %y : tensor<4x8xf32>
  %le = arith.cmpi sle, %mi, %ni : tensor<4x8xi32>
  %pick = arith.select %gt, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>
  %lef = arith.uitofp %le : tensor<4x8xi1> to tensor<4x8xf32>
  %mf = arith.sitofp %m : tensor<4x8xi64> to tensor<4x8xf32>
  %c1 = arith.addf %pick, %lef : tensor<4x8xf32>
  %c2 = arith.addf %c1, %mf : tensor<4x8xf32>
  %ten = arith.constant dense<10.0> : tensor<4x8xf32>
  %x10 = arith.mulf %x, %ten : tensor<4x8xf32>
  %xi = arith.fptosi %x10 : tensor<4x8xf32> to tensor<4x8xi32>
  %ints = arith.addi %xi, %mi : tensor<4x8xi32>

  %one = arith.constant dense<1> : tensor<4x8xi32>
  %zero = arith.constant dense<0> : tensor<4x8xi32>
  %s0 = arith.addi %mi, %ni : tensor<4x8xi32>
  %s1 = arith.muli %s0, %mi : tensor<4x8xi32>
  %s2 = arith.subi %s1, %ni : tensor<4x8xi32>
  %nn = arith.muli %ni, %ni : tensor<4x8xi32>
  %nn1 = arith.addi %nn, %one : tensor<4x8xi32>
  %s3 = arith.divsi %s2, %nn1 : tensor<4x8xi32>
  %s4 = arith.maxsi %s3, %mi : tensor<4x8xi32>
  %s5 = arith.minsi %s4, %s1 : tensor<4x8xi32>
  %s6 = arith.subi %zero, %s5 : tensor<4x8xi32>
  %s7 = math.absi %s2 : tensor<4x8xi32>
  %s8 = arith.addi %s6, %s7 : tensor<4x8xi32>
  %s9 = arith.extsi %s8 : tensor<4x8xi32> to tensor<4x8xi64>

  %et = tensor.empty() : tensor<8x4xf32>
  %yt = linalg.transpose ins(%y : tensor<4x8xf32>) outs(%et : tensor<8x4xf32>) permutation = [1, 0]
  %c0 = arith.constant 0.0 : f32
  %em = tensor.empty() : tensor<4x4xf32>
  %zm = linalg.fill ins(%c0 : f32) outs(%em : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%x, %yt : tensor<4x8xf32>, tensor<8x4xf32>) outs(%zm : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %z4 = linalg.fill ins(%c0 : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %rsum = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%z4 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
  %e48 = tensor.empty() : tensor<4x8xf32>
  %bsum = linalg.broadcast ins(%rsum : tensor<4xf32>) outs(%e48 : tensor<4x8xf32>) dimensions = [1]
  %bias = arith.constant dense<[0.5, -1.0, 2.0, 0.25, -0.125, 3.0, -2.5, 1.0]> : tensor<8xf32>
  %bb = linalg.broadcast ins(%bias : tensor<8xf32>) outs(%e48 : tensor<4x8xf32>) dimensions = [0]
  %bsum1 = arith.addf %bsum, %bb : tensor<4x8xf32>
  %sl2 = tensor.extract_slice %x[1, 0] [2, 4] [2, 2] : tensor<4x8xf32> to tensor<2x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %n4 = linalg.fill ins(%ninf : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %rmax = linalg.reduce ins(%y : tensor<4x8xf32>) outs(%n4 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %acc, %in : f32
      linalg.yield %s : f32
    }
  %imax = arith.constant 2147483647 : i32
  %e8 = tensor.empty() : tensor<8xi32>
  %m8 = linalg.fill ins(%imax : i32) outs(%e8 : tensor<8xi32>) -> tensor<8xi32>
  %rmin = linalg.reduce ins(%mi : tensor<4x8xi32>) outs(%m8 : tensor<8xi32>) dimensions = [0]
    (%in: i32, %acc: i32) {
      %s = arith.minsi %acc, %in : i32
      linalg.yield %s : i32
    }
  %flat32 = tensor.collapse_shape %f12 [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %flat = tensor.expand_shape %flat32 [[0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
  return %f12, %c2, %ints, %s9, %mm, %bsum1, %sl2, %rmax, %rmin, %flat
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xi64>, tensor<4x4xf32>,
        tensor<4x8xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<8xi32>, tensor<2x16xf32>
}
