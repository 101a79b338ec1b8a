// Schedule-quality suite: a decode-step bf16 GEMV, 1x4096 @ 4096x4096. The
// weight's transfer dominates: DMA bound, the tensor engine mostly idle.
func.func @gemm_decode(%x: tensor<1x4096xbf16>, %w: tensor<4096x4096xbf16>)
    -> tensor<1x4096xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<1x4096xbf16>
  %acc = linalg.fill ins(%zero : bf16) outs(%e : tensor<1x4096xbf16>)
      -> tensor<1x4096xbf16>
  %y = linalg.matmul ins(%x, %w : tensor<1x4096xbf16>, tensor<4096x4096xbf16>)
                     outs(%acc : tensor<1x4096xbf16>) -> tensor<1x4096xbf16>
  return %y : tensor<1x4096xbf16>
}
