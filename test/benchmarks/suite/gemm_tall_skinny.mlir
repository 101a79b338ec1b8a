// Schedule-quality suite: a tall-skinny bf16 GEMM, 8192x1024 @ 1024x1024
// (many row tiles streaming past a small weight).
func.func @gemm_tall_skinny(%a: tensor<8192x1024xbf16>, %b: tensor<1024x1024xbf16>)
    -> tensor<8192x1024xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<8192x1024xbf16>
  %acc = linalg.fill ins(%zero : bf16) outs(%e : tensor<8192x1024xbf16>)
      -> tensor<8192x1024xbf16>
  %c = linalg.matmul ins(%a, %b : tensor<8192x1024xbf16>, tensor<1024x1024xbf16>)
                     outs(%acc : tensor<8192x1024xbf16>) -> tensor<8192x1024xbf16>
  return %c : tensor<8192x1024xbf16>
}
