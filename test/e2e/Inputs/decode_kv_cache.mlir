// One attention head's decode step, as an LLM exporter writes it: the
// step's position arrives as a tensor, is read with tensor.extract, and the
// new key and value rows are written into the caches at that position by a
// linalg.generic comparing each row index with it; attention reads the
// caches up to the position (a causal mask built the same way). Everything
// runs on the device: the cache writes as transfers at the position, the
// mask as a comparison of indices with it.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>
#red = affine_map<(d0, d1) -> (d0)>

func.func @decode(%x: tensor<1x64xf32>, %pos: tensor<i64>,
                  %k_cache: tensor<16x64xf32>, %v_cache: tensor<16x64xf32>,
                  %wq: tensor<64x64xf32>, %wk: tensor<64x64xf32>,
                  %wv: tensor<64x64xf32>)
    -> (tensor<1x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x64xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x64xf32>) -> tensor<1x64xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<1x64xf32>, tensor<64x64xf32>) outs(%f1 : tensor<1x64xf32>) -> tensor<1x64xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<1x64xf32>, tensor<64x64xf32>) outs(%f1 : tensor<1x64xf32>) -> tensor<1x64xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<1x64xf32>, tensor<64x64xf32>) outs(%f1 : tensor<1x64xf32>) -> tensor<1x64xf32>
  %p = tensor.extract %pos[] : tensor<i64>
  %ec = tensor.empty() : tensor<16x64xf32>
  // cache[i, :] = i == pos ? new[0, :] : cache[i, :]
  %k_new = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%k_cache, %k : tensor<16x64xf32>, tensor<1x64xf32>) outs(%ec : tensor<16x64xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %here = arith.cmpi eq, %ii, %p : i64
    %r = arith.select %here, %new, %old : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  %v_new = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v_cache, %v : tensor<16x64xf32>, tensor<1x64xf32>) outs(%ec : tensor<16x64xf32>) {
  ^bb0(%old: f32, %new: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %here = arith.cmpi eq, %ii, %p : i64
    %r = arith.select %here, %new, %old : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  // scores[0, i] = q . k_new[i] / 8, masked to -1e9 past the position
  %es = tensor.empty() : tensor<64x16xf32>
  %kt = linalg.transpose ins(%k_new : tensor<16x64xf32>) outs(%es : tensor<64x16xf32>) permutation = [1, 0]
  %e16 = tensor.empty() : tensor<1x16xf32>
  %f16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<1x16xf32>) -> tensor<1x16xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<1x64xf32>, tensor<64x16xf32>) outs(%f16 : tensor<1x16xf32>) -> tensor<1x16xf32>
  %masked = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<1x16xf32>) outs(%e16 : tensor<1x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %future = arith.cmpi sgt, %jj, %p : i64
    %scale = arith.constant 0.125 : f32
    %scaled = arith.mulf %a, %scale : f32
    %neg = arith.constant -1.0e9 : f32
    %r = arith.select %future, %neg, %scaled : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  // softmax over the 16 positions, as exporters write it
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<1xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<1xf32>) -> tensor<1xf32>
  %max = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%masked : tensor<1x16xf32>) outs(%mi : tensor<1xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>
  %ex = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]}
      ins(%masked, %max : tensor<1x16xf32>, tensor<1xf32>) outs(%e16 : tensor<1x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1xf32>) -> tensor<1xf32>
  %sum = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<1x16xf32>) outs(%si : tensor<1xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.addf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<1xf32>
  %probs = linalg.generic {indexing_maps = [#id, #red, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<1x16xf32>, tensor<1xf32>) outs(%e16 : tensor<1x16xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.divf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  %out = linalg.matmul ins(%probs, %v_new : tensor<1x16xf32>, tensor<16x64xf32>) outs(%f1 : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %out, %k_new, %v_new : tensor<1x64xf32>, tensor<16x64xf32>, tensor<16x64xf32>
}
