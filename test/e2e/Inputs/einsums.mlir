// Contractions with several dimensions in one role, as JAX's dot_general
// and einsums lower to linalg.generic (einsums.test): a dense layer over
// [batch, sequence, hidden] (two M dimensions) with a bias, attention's
// scores over images and heads in JAX's [b, q, h, d] layout (two batch
// dimensions, the result [b, h, q, k]), its values back to [b, q, h, d],
// a contraction over two dimensions (K = 8 x 3) and a head projection
// whose output splits into heads (two N dimensions).
#x3 = affine_map<(b, s, d, h) -> (b, s, h)>
#w2 = affine_map<(b, s, d, h) -> (h, d)>
#o3 = affine_map<(b, s, d, h) -> (b, s, d)>
#bias = affine_map<(b, s, d) -> (d)>
#id3 = affine_map<(b, s, d) -> (b, s, d)>
func.func @dense(%x: tensor<3x37x96xf32>, %w: tensor<96x130xf32>, %b: tensor<130xf32>) -> tensor<3x37x130xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x37x130xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x37x130xf32>) -> tensor<3x37x130xf32>
  %y = linalg.generic {indexing_maps = [#x3, #w2, #o3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<3x37x96xf32>, tensor<96x130xf32>) outs(%f : tensor<3x37x130xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<3x37x130xf32>
  %r = linalg.generic {indexing_maps = [#id3, #bias, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<3x37x130xf32>, tensor<130xf32>) outs(%e : tensor<3x37x130xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<3x37x130xf32>
  return %r : tensor<3x37x130xf32>
}

func.func @scores(%q: tensor<2x33x3x16xf32>, %k: tensor<2x40x3x16xf32>) -> tensor<2x3x33x40xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x33x40xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x33x40xf32>) -> tensor<2x3x33x40xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, j, h, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x33x3x16xf32>, tensor<2x40x3x16xf32>) outs(%f : tensor<2x3x33x40xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %t = arith.addf %o, %m : f32
    linalg.yield %t : f32
  } -> tensor<2x3x33x40xf32>
  return %s : tensor<2x3x33x40xf32>
}

func.func @values(%p: tensor<2x3x33x40xf32>, %v: tensor<2x40x3x16xf32>) -> tensor<2x33x3x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x33x3x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x33x3x16xf32>) -> tensor<2x33x3x16xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, i, h, d, j) -> (b, h, i, j)>,
                                        affine_map<(b, i, h, d, j) -> (b, j, h, d)>,
                                        affine_map<(b, i, h, d, j) -> (b, i, h, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x33x40xf32>, tensor<2x40x3x16xf32>) outs(%f : tensor<2x33x3x16xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<2x33x3x16xf32>
  return %o : tensor<2x33x3x16xf32>
}

func.func @two_k(%a: tensor<50x8x3xf32>, %b: tensor<8x3x70xf32>) -> tensor<50x70xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50x70xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<50x70xf32>) -> tensor<50x70xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>,
                                        affine_map<(m, n, k1, k2) -> (k1, k2, n)>,
                                        affine_map<(m, n, k1, k2) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<50x8x3xf32>, tensor<8x3x70xf32>) outs(%f : tensor<50x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<50x70xf32>
  return %r : tensor<50x70xf32>
}

func.func @to_heads(%x: tensor<45x64xf32>, %w: tensor<64x4x24xf32>) -> tensor<45x4x24xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<45x4x24xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<45x4x24xf32>) -> tensor<45x4x24xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(s, h, d, c) -> (s, c)>,
                                        affine_map<(s, h, d, c) -> (c, h, d)>,
                                        affine_map<(s, h, d, c) -> (s, h, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<45x64xf32>, tensor<64x4x24xf32>) outs(%f : tensor<45x4x24xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %m = arith.mulf %a, %c : f32
    %t = arith.addf %o, %m : f32
    linalg.yield %t : f32
  } -> tensor<45x4x24xf32>
  return %r : tensor<45x4x24xf32>
}
