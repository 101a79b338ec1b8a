// Schedule-quality suite: layer norm over the last axis of [2048, 1024] f32:
// mean, variance, rsqrt(var + eps), then scale and shift by gamma, beta.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#vec = affine_map<(d0) -> (d0)>

func.func @layernorm(%x: tensor<2048x1024xf32>, %gamma: tensor<1024xf32>,
                     %beta: tensor<1024xf32>) -> tensor<2048x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 1024.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %er = tensor.empty() : tensor<2048xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<2048xf32>) -> tensor<2048xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2048x1024xf32>) outs(%z : tensor<2048xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2048xf32>
  %mean = linalg.generic {indexing_maps = [#vec, #vec],
                          iterator_types = ["parallel"]}
      ins(%sum : tensor<2048xf32>) outs(%er : tensor<2048xf32>) {
  ^bb0(%s: f32, %out: f32):
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<2048xf32>
  %e = tensor.empty() : tensor<2048x1024xf32>
  %xc = linalg.generic {indexing_maps = [#id, #row, #id],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<2048x1024xf32>, tensor<2048xf32>)
      outs(%e : tensor<2048x1024xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<2048x1024xf32>
  %sq = linalg.generic {indexing_maps = [#id, #row],
                        iterator_types = ["parallel", "reduction"]}
      ins(%xc : tensor<2048x1024xf32>) outs(%z : tensor<2048xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %p = arith.mulf %in, %in : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2048xf32>
  %rstd = linalg.generic {indexing_maps = [#vec, #vec],
                          iterator_types = ["parallel"]}
      ins(%sq : tensor<2048xf32>) outs(%er : tensor<2048xf32>) {
  ^bb0(%s: f32, %out: f32):
    %v = arith.divf %s, %n : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<2048xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #col, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%xc, %rstd, %gamma, %beta
          : tensor<2048x1024xf32>, tensor<2048xf32>, tensor<1024xf32>, tensor<1024xf32>)
      outs(%e : tensor<2048x1024xf32>) {
  ^bb0(%in: f32, %r: f32, %g: f32, %b: f32, %out: f32):
    %nrm = arith.mulf %in, %r : f32
    %sc = arith.mulf %nrm, %g : f32
    %sh = arith.addf %sc, %b : f32
    linalg.yield %sh : f32
  } -> tensor<2048x1024xf32>
  return %y : tensor<2048x1024xf32>
}
