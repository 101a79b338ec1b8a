// Schedule-quality suite: a square bf16 GEMM, 4096 x 4096 x 4096.
// Tensor-engine bound; the benchmark the peak-utilisation check uses.
func.func @gemm_4096(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>)
    -> tensor<4096x4096xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<4096x4096xbf16>
  %acc = linalg.fill ins(%zero : bf16) outs(%e : tensor<4096x4096xbf16>)
      -> tensor<4096x4096xbf16>
  %c = linalg.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>)
                     outs(%acc : tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16>
  return %c : tensor<4096x4096xbf16>
}
