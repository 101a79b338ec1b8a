// One attention head over a variable number of positions (`?`, as
// exporters write a sequence length), with no causal mask: every position
// attends to every other, so in a padded bucket the positions past the
// input's length must be masked out of the softmax and the value product.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @attention(%q: tensor<?x16xf32>, %k: tensor<?x16xf32>, %v: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s = tensor.dim %q, %c0 : tensor<?x16xf32>
  %kt0 = tensor.empty(%s) : tensor<16x?xf32>
  %kt = linalg.transpose ins(%k : tensor<?x16xf32>) outs(%kt0 : tensor<16x?xf32>) permutation = [1, 0]
  %se = tensor.empty(%s, %s) : tensor<?x?xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sc = linalg.matmul ins(%q, %kt : tensor<?x16xf32>, tensor<16x?xf32>) outs(%sf : tensor<?x?xf32>) -> tensor<?x?xf32>
  %me = tensor.empty(%s) : tensor<?xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%me : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sc : tensor<?x?xf32>) outs(%mf : tensor<?xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sc, %mx : tensor<?x?xf32>, tensor<?xf32>) outs(%se : tensor<?x?xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%me : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x?xf32>) outs(%zf : tensor<?xf32>) {
  ^bb0(%a: f32, %t: f32):
    %r = arith.addf %t, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%se : tensor<?x?xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.divf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %oe = tensor.empty(%s) : tensor<?x16xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<?x16xf32>) -> tensor<?x16xf32>
  %o = linalg.matmul ins(%p, %v : tensor<?x?xf32>, tensor<?x16xf32>) outs(%of : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %o : tensor<?x16xf32>
}
