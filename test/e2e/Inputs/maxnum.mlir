// arith.maxnumf and minnumf ignore a NaN operand (the other one wins),
// unlike maximumf and minimumf, which propagate it.
#id = affine_map<(d0) -> (d0)>
func.func @maxnum(%a: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %e = tensor.empty() : tensor<6xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<6xf32>, tensor<6xf32>) outs(%e, %e, %e : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32, %o2: f32):
    %mx = arith.maxnumf %x, %y : f32
    %mn = arith.minnumf %x, %y : f32
    %mm = arith.maximumf %x, %y : f32
    linalg.yield %mx, %mn, %mm : f32, f32, f32
  } -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
  return %r#0, %r#1, %r#2 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
