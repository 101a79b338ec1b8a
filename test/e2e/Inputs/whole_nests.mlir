#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @dense_relu(%x: tensor<200x523xf32>, %w: tensor<523x901xf32>, %b: tensor<901xf32>) -> tensor<200x901xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x901xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<200x901xf32>) -> tensor<200x901xf32>
  %m = linalg.matmul ins(%x, %w : tensor<200x523xf32>, tensor<523x901xf32>) outs(%f : tensor<200x901xf32>) -> tensor<200x901xf32>
  %r = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<200x901xf32>, tensor<901xf32>) outs(%e : tensor<200x901xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.maximumf %s, %z : f32
    linalg.yield %t : f32
  } -> tensor<200x901xf32>
  return %r : tensor<200x901xf32>
}

func.func @projection(%x: tensor<384x768xf32>, %w: tensor<768x901xf32>) -> tensor<384x901xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<384x901xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<384x901xf32>) -> tensor<384x901xf32>
  %m = linalg.matmul ins(%x, %w : tensor<384x768xf32>, tensor<768x901xf32>) outs(%f : tensor<384x901xf32>) -> tensor<384x901xf32>
  return %m : tensor<384x901xf32>
}

func.func @projection_bf16(%x: tensor<200x768xbf16>, %w: tensor<768x512xbf16>) -> tensor<200x512xbf16> {
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<200x512xbf16>
  %f = linalg.fill ins(%z : bf16) outs(%e : tensor<200x512xbf16>) -> tensor<200x512xbf16>
  %m = linalg.matmul ins(%x, %w : tensor<200x768xbf16>, tensor<768x512xbf16>) outs(%f : tensor<200x512xbf16>) -> tensor<200x512xbf16>
  return %m : tensor<200x512xbf16>
}
