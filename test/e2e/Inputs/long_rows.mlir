// Reductions of few long rows (long_rows.test): a sum over a whole vector
// of 100003 elements (a prime: a tail past the partitions' runs), the
// maximum of each of 3 rows of 40000 and the minimum of 5 rows of 9001, as
// torch-mlir writes them; each row's columns are reduced in runs on many
// partitions and the partials brought back to the row's own.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @long_rows(%a: tensor<1x100003xf32>, %b: tensor<3x40000xf32>, %c: tensor<5x9001xf32>)
    -> (tensor<1xf32>, tensor<3xf32>, tensor<5xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %e1 = tensor.empty() : tensor<1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1xf32>) -> tensor<1xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<1x100003xf32>) outs(%f1 : tensor<1xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>
  %e3 = tensor.empty() : tensor<3xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<3x40000xf32>) outs(%f3 : tensor<3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maximumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  %e5 = tensor.empty() : tensor<5xf32>
  %f5 = linalg.fill ins(%inf : f32) outs(%e5 : tensor<5xf32>) -> tensor<5xf32>
  %n = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<5x9001xf32>) outs(%f5 : tensor<5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.minimumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<5xf32>
  return %s, %m, %n : tensor<1xf32>, tensor<3xf32>, tensor<5xf32>
}
