// i4 arithmetic, an element type no executable stores: a host region
// computes it (the differential tests once found i16, from a lowered
// tosa.negate on i8, which the former interpreter could not run).
func.func @wrap_i4(%x: tensor<8xi32>) -> tensor<8xi32> {
  %e = tensor.empty() : tensor<8xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xi32>) outs(%e : tensor<8xi32>) {
  ^bb0(%u: i32, %o: i32):
    %t = arith.trunci %u : i32 to i4
    %w = arith.extsi %t : i4 to i32
    linalg.yield %w : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}
