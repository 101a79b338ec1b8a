// A "parallel" transformer block's two feed-forward branches on one input
// (y = mlp_a(x) + mlp_b(x), as GPT-J and PaLM run attention and MLP side by
// side): tensor-parallel, each branch ends in an all-reduce, and the first
// branch's can overlap the second branch's arithmetic.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @block(%x: tensor<512x1024xbf16>, %a1: tensor<1024x4096xbf16>, %a2: tensor<4096x1024xbf16>,
                 %b1: tensor<1024x4096xbf16>, %b2: tensor<4096x1024xbf16>) -> tensor<512x1024xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e1 = tensor.empty() : tensor<512x4096xbf16>
  %f1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<512x4096xbf16>) -> tensor<512x4096xbf16>
  %e2 = tensor.empty() : tensor<512x1024xbf16>
  %f2 = linalg.fill ins(%zero : bf16) outs(%e2 : tensor<512x1024xbf16>) -> tensor<512x1024xbf16>
  %ha = linalg.matmul ins(%x, %a1 : tensor<512x1024xbf16>, tensor<1024x4096xbf16>) outs(%f1 : tensor<512x4096xbf16>) -> tensor<512x4096xbf16>
  %ra = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ha : tensor<512x4096xbf16>) outs(%e1 : tensor<512x4096xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %m = arith.maximumf %v, %zero : bf16
    linalg.yield %m : bf16
  } -> tensor<512x4096xbf16>
  %ya = linalg.matmul ins(%ra, %a2 : tensor<512x4096xbf16>, tensor<4096x1024xbf16>) outs(%f2 : tensor<512x1024xbf16>) -> tensor<512x1024xbf16>
  %hb = linalg.matmul ins(%x, %b1 : tensor<512x1024xbf16>, tensor<1024x4096xbf16>) outs(%f1 : tensor<512x4096xbf16>) -> tensor<512x4096xbf16>
  %rb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hb : tensor<512x4096xbf16>) outs(%e1 : tensor<512x4096xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %m = arith.maximumf %v, %zero : bf16
    linalg.yield %m : bf16
  } -> tensor<512x4096xbf16>
  %yb = linalg.matmul ins(%rb, %b2 : tensor<512x4096xbf16>, tensor<4096x1024xbf16>) outs(%f2 : tensor<512x1024xbf16>) -> tensor<512x1024xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ya, %yb : tensor<512x1024xbf16>, tensor<512x1024xbf16>) outs(%e2 : tensor<512x1024xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %s = arith.addf %p, %q : bf16
    linalg.yield %s : bf16
  } -> tensor<512x1024xbf16>
  return %y : tensor<512x1024xbf16>
}
