// A softmax over rows as torch-mlir and JAX write it (max, exp of the
// shifted logits, sum, divide; neuron-fuse makes it one neuron.softmax),
// for softmax_shifted.test's logits far from zero.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<70x300xf32>) -> tensor<70x300xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<70xf32>
  %e = tensor.empty() : tensor<70x300xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<70xf32>) -> tensor<70xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<70x300xf32>) outs(%mi : tensor<70xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<70xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<70x300xf32>, tensor<70xf32>) outs(%e : tensor<70x300xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<70x300xf32>
  %si = linalg.fill ins(%zero : f32) outs(%er : tensor<70xf32>) -> tensor<70xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<70x300xf32>) outs(%si : tensor<70xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<70xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %s : tensor<70x300xf32>, tensor<70xf32>) outs(%e : tensor<70x300xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<70x300xf32>
  return %y : tensor<70x300xf32>
}
