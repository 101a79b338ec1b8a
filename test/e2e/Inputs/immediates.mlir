// Scalars in elementwise bodies, which the import makes splat constants
// and the kernels read as immediates: after a matmul (@dense_epilogue: a
// scale and a shift with the constant on either side, a ReLU6 clamp, a
// subtraction from one, a division, and a comparison with the constant on
// its left choosing between them), alone (@divide: one op with no
// producer), and in a batch norm whose statistics are splats
// (@splat_batch_norm). Input of immediates.test.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dense_epilogue(%x: tensor<96x40xf32>, %w: tensor<40x70xf32>)
    -> tensor<96x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x70xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<96x70xf32>) -> tensor<96x70xf32>
  %m = linalg.matmul ins(%x, %w : tensor<96x40xf32>, tensor<40x70xf32>)
                     outs(%f : tensor<96x70xf32>) -> tensor<96x70xf32>
  %r = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<96x70xf32>) outs(%e : tensor<96x70xf32>) {
  ^bb0(%v: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %quarter = arith.constant 0.25 : f32
    %six = arith.constant 6.0 : f32
    %one = arith.constant 1.0 : f32
    %three = arith.constant 3.0 : f32
    %seven = arith.constant 7.0 : f32
    %a = arith.mulf %v, %half : f32
    %b = arith.addf %quarter, %a : f32
    %c = arith.maximumf %b, %zero : f32
    %d = arith.minimumf %six, %c : f32
    %s = arith.subf %one, %d : f32
    %t = arith.divf %v, %seven : f32
    %k = arith.cmpf olt, %three, %v : f32
    %y = arith.select %k, %s, %t : f32
    linalg.yield %y : f32
  } -> tensor<96x70xf32>
  return %r : tensor<96x70xf32>
}

func.func @divide(%x: tensor<5x300xf32>) -> tensor<5x300xf32> {
  %e = tensor.empty() : tensor<5x300xf32>
  %r = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x300xf32>) outs(%e : tensor<5x300xf32>) {
  ^bb0(%v: f32, %o: f32):
    %seven = arith.constant 7.0 : f32
    %t = arith.divf %v, %seven : f32
    linalg.yield %t : f32
  } -> tensor<5x300xf32>
  return %r : tensor<5x300xf32>
}

// Batch normalisation with its statistics and affine parameters written
// as splat constants (as the corpus CNN exports do): rsqrt(var + eps)
// folds to a scalar at compile time and every op reads an immediate.
#img = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @splat_batch_norm(%x: tensor<1x24x7x9xf32>) -> tensor<1x24x7x9xf32> {
  %mean = arith.constant dense<0.25> : tensor<24xf32>
  %var = arith.constant dense<2.0> : tensor<24xf32>
  %gamma = arith.constant dense<1.5> : tensor<24xf32>
  %beta = arith.constant dense<-0.5> : tensor<24xf32>
  %e = tensor.empty() : tensor<1x24x7x9xf32>
  %r = linalg.generic {indexing_maps = [#img, #ch, #ch, #ch, #ch, #img],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean, %var, %gamma, %beta : tensor<1x24x7x9xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24xf32>)
      outs(%e : tensor<1x24x7x9xf32>) {
  ^bb0(%v: f32, %m: f32, %s: f32, %g: f32, %b: f32, %o: f32):
    %eps = arith.constant 1.0e-5 : f64
    %epsf = arith.truncf %eps : f64 to f32
    %d = arith.subf %v, %m : f32
    %se = arith.addf %s, %epsf : f32
    %q = math.rsqrt %se : f32
    %n = arith.mulf %d, %q : f32
    %y = arith.mulf %n, %g : f32
    %z = arith.addf %y, %b : f32
    linalg.yield %z : f32
  } -> tensor<1x24x7x9xf32>
  return %r : tensor<1x24x7x9xf32>
}
