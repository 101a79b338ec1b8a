// A bf16 dense layer with a 1024-long reduction: test input of
// matmul_bf16.test.
#row = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @layer(%x: tensor<64x1024xbf16>, %w: tensor<1024x128xbf16>,
                 %b: tensor<128xbf16>) -> tensor<64x128xbf16> {
  %zero = arith.constant 0.0 : bf16
  %empty = tensor.empty() : tensor<64x128xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%empty : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %mm = linalg.matmul ins(%x, %w : tensor<64x1024xbf16>, tensor<1024x128xbf16>) outs(%init : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %out = linalg.generic {indexing_maps = [#row, #bias, #row], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<64x128xbf16>, tensor<128xbf16>) outs(%empty : tensor<64x128xbf16>) {
  ^bb0(%m: bf16, %c: bf16, %o: bf16):
    %s = arith.addf %m, %c : bf16
    linalg.yield %s : bf16
  } -> tensor<64x128xbf16>
  return %out : tensor<64x128xbf16>
}
