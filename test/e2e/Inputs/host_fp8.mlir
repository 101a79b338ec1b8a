// fp8 arithmetic on the host, which is not compiled (upstream MLIR cannot
// convert fp8 on the CPU).
func.func @fp8_atan(%x: tensor<8xf8E4M3FN>) -> tensor<8xf8E4M3FN> {
  %e = tensor.empty() : tensor<8xf8E4M3FN>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf8E4M3FN>) outs(%e : tensor<8xf8E4M3FN>) {
  ^bb0(%u: f8E4M3FN, %o: f8E4M3FN):
    %t = math.atan %u : f8E4M3FN
    linalg.yield %t : f8E4M3FN
  } -> tensor<8xf8E4M3FN>
  return %r : tensor<8xf8E4M3FN>
}
