// Decode-shaped products for the physical_cores test: a row (f32, its
// 1536-long K in 12 tiles) and two rows (bf16, K 3000 with a partial last
// tile) against weights, each summing over K in its outermost loop. At
// lnc=2 each physical core sums half of K and core 0 adds core 1's part.
func.func @gemv(%x: tensor<1x1536xf32>, %w: tensor<1536x1100xf32>,
                %v: tensor<2x3000xbf16>, %u: tensor<3000x640xbf16>)
    -> (tensor<1x1100xf32>, tensor<2x640xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1100xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<1x1100xf32>) -> tensor<1x1100xf32>
  %r = linalg.matmul ins(%x, %w : tensor<1x1536xf32>, tensor<1536x1100xf32>)
                     outs(%o : tensor<1x1100xf32>) -> tensor<1x1100xf32>
  %e2 = tensor.empty() : tensor<2x640xf32>
  %o2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x640xf32>) -> tensor<2x640xf32>
  %r2 = linalg.matmul ins(%v, %u : tensor<2x3000xbf16>, tensor<3000x640xbf16>)
                      outs(%o2 : tensor<2x640xf32>) -> tensor<2x640xf32>
  return %r, %r2 : tensor<1x1100xf32>, tensor<2x640xf32>
}
