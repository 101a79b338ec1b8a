// arith.maxnumf and minnumf ignore a NaN operand (the other one wins),
// unlike maximumf and minimumf, which propagate it; as reductions too, from
// the identity (-inf) and from another start (0.5).
#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @maxnum(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<2x3xf32>)
    -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<6xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<6xf32>, tensor<6xf32>) outs(%e, %e, %e : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  ^bb0(%x: f32, %y: f32, %o0: f32, %o1: f32, %o2: f32):
    %mx = arith.maxnumf %x, %y : f32
    %mn = arith.minnumf %x, %y : f32
    %mm = arith.maximumf %x, %y : f32
    linalg.yield %mx, %mn, %mm : f32, f32, f32
  } -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>)
  %ninf = arith.constant 0xFF800000 : f32
  %half = arith.constant 0.5 : f32
  %e2 = tensor.empty() : tensor<2xf32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %i1 = linalg.fill ins(%half : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %mx = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<2x3xf32>) outs(%i0 : tensor<2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %v = arith.maxnumf %x, %acc : f32
    linalg.yield %v : f32
  } -> tensor<2xf32>
  %mn = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<2x3xf32>) outs(%i1 : tensor<2xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %v = arith.minnumf %x, %acc : f32
    linalg.yield %v : f32
  } -> tensor<2xf32>
  return %r#0, %r#1, %r#2, %mx, %mn : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2xf32>
}
