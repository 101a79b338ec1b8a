// A projection plus rows gathered from a table by position (as RoPE tables
// and embeddings are read: tensor.extract in a generic's body), then a
// second projection. Tensor-parallel, the product is split by columns while
// the gathered rows are computed whole on every core (the gather reads
// global indices), so each core keeps its columns of them: an all_slice.
#pos = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @tp_gather(%x: tensor<16x64xf32>, %w1: tensor<64x128xf32>, %pos: tensor<16xi32>,
                     %table: tensor<32x128xf32>, %w2: tensor<128x64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x128xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<16x64xf32>, tensor<64x128xf32>) outs(%f1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %rows = linalg.generic {indexing_maps = [#pos, #id], iterator_types = ["parallel", "parallel"]}
      ins(%pos : tensor<16xi32>) outs(%e1 : tensor<16x128xf32>) {
  ^bb0(%p: i32, %o: f32):
    %i = arith.index_cast %p : i32 to index
    %j = linalg.index 1 : index
    %v = tensor.extract %table[%i, %j] : tensor<32x128xf32>
    linalg.yield %v : f32
  } -> tensor<16x128xf32>
  %sum = linalg.add ins(%h, %rows : tensor<16x128xf32>, tensor<16x128xf32>) outs(%e1 : tensor<16x128xf32>) -> tensor<16x128xf32>
  %e2 = tensor.empty() : tensor<16x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %y = linalg.matmul ins(%sum, %w2 : tensor<16x128xf32>, tensor<128x64xf32>) outs(%f2 : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
