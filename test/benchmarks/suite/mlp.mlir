// Schedule-quality suite: a bf16 feed-forward block,
// gelu(x[512,1024] @ W1[1024,4096]) @ W2[4096,1024], weights as arguments;
// exact GELU, 0.5 x (1 + erf(x / sqrt(2))), computed in f32.
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @mlp(%x: tensor<512x1024xbf16>, %w1: tensor<1024x4096xbf16>,
               %w2: tensor<4096x1024xbf16>) -> tensor<512x1024xbf16> {
  %zero = arith.constant 0.0 : bf16
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %rsqrt2 = arith.constant 0.70710678 : f32
  %e1 = tensor.empty() : tensor<512x4096xbf16>
  %z1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<512x4096xbf16>)
      -> tensor<512x4096xbf16>
  %h = linalg.matmul ins(%x, %w1 : tensor<512x1024xbf16>, tensor<1024x4096xbf16>)
                     outs(%z1 : tensor<512x4096xbf16>) -> tensor<512x4096xbf16>
  %g = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<512x4096xbf16>) outs(%e1 : tensor<512x4096xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %xf = arith.extf %in : bf16 to f32
    %s = arith.mulf %xf, %rsqrt2 : f32
    %e = math.erf %s : f32
    %o = arith.addf %e, %one : f32
    %h2 = arith.mulf %xf, %half : f32
    %g = arith.mulf %h2, %o : f32
    %gb = arith.truncf %g : f32 to bf16
    linalg.yield %gb : bf16
  } -> tensor<512x4096xbf16>
  %e2 = tensor.empty() : tensor<512x1024xbf16>
  %z2 = linalg.fill ins(%zero : bf16) outs(%e2 : tensor<512x1024xbf16>)
      -> tensor<512x1024xbf16>
  %y = linalg.matmul ins(%g, %w2 : tensor<512x4096xbf16>, tensor<4096x1024xbf16>)
                     outs(%z2 : tensor<512x1024xbf16>) -> tensor<512x1024xbf16>
  return %y : tensor<512x1024xbf16>
}
