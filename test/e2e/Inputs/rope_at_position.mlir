// A decode step reading its rows of the RoPE tables at a position read at
// run time, as exporters write `cos[pos]` (tensor.extract_slice with a
// dynamic offset, rank-reduced), then rotating a head's query by them.
#q = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1)>
func.func @rope(%x: tensor<4x16xf32>, %xr: tensor<4x16xf32>,
                %cos: tensor<64x16xf32>, %sin: tensor<64x16xf32>,
                %pos: tensor<i64>) -> tensor<4x16xf32> {
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %c = tensor.extract_slice %cos[%i, 0] [1, 16] [1, 1] : tensor<64x16xf32> to tensor<16xf32>
  %s = tensor.extract_slice %sin[%i, 0] [1, 16] [1, 1] : tensor<64x16xf32> to tensor<16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#q, #q, #t, #t, #q], iterator_types = ["parallel", "parallel"]}
      ins(%x, %xr, %c, %s : tensor<4x16xf32>, tensor<4x16xf32>, tensor<16xf32>, tensor<16xf32>)
      outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %cv: f32, %sv: f32, %o: f32):
    %m = arith.mulf %a, %cv : f32
    %n = arith.mulf %b, %sv : f32
    %y = arith.addf %m, %n : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
