// A LLaMA-style decoder layer's decode step at a reduced size (model width
// 128 in 8 heads of 16, SwiGLU hidden 256, a KV cache of 32 positions laid
// out [batch, heads, positions, head_dim] as the corpus LLaMA's attention
// is), in the linalg form torch-mlir writes: the step's position arrives
// as a tensor, the RoPE tables are read at it (tensor.extract_slice), the
// rotated key and the value are written into the caches at it
// (tensor.insert_slice), and the query attends to the cache with positions
// past it masked. Input of the decode tests, on one core and
// tensor-parallel.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @decode(%x: tensor<1x128xf32>, %pos: tensor<i64>,
                  %k_cache: tensor<1x8x32x16xf32>, %v_cache: tensor<1x8x32x16xf32>,
                  %g1: tensor<128xf32>, %wq: tensor<128x128xf32>, %wk: tensor<128x128xf32>,
                  %wv: tensor<128x128xf32>, %cos: tensor<32x16xf32>, %sin: tensor<32x16xf32>,
                  %wo: tensor<128x128xf32>, %g2: tensor<128xf32>,
                  %wg: tensor<128x256xf32>, %wu: tensor<128x256xf32>, %wd: tensor<256x128xf32>)
    -> (tensor<1x128xf32>, tensor<1x8x32x16xf32>, tensor<1x8x32x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x128xf32>
  %sse = tensor.empty() : tensor<1xf32>
  %ssz = linalg.fill ins(%zero : f32) outs(%sse : tensor<1xf32>) -> tensor<1xf32>
  %ss1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<1x128xf32>) outs(%ssz : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  %xn = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss1, %g1 : tensor<1x128xf32>, tensor<1xf32>, tensor<128xf32>) outs(%e : tensor<1x128xf32>) {
  ^bb0(%na: f32, %ns: f32, %ng: f32, %no: f32):
    %n = arith.constant 128.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %ns, %n : f32
    %nv = arith.addf %mean, %eps : f32
    %nr = math.rsqrt %nv : f32
    %xr = arith.mulf %na, %nr : f32
    %ny = arith.mulf %xr, %ng : f32
    linalg.yield %ny : f32
  } -> tensor<1x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x128xf32>) -> tensor<1x128xf32>
  %q = linalg.matmul ins(%xn, %wq : tensor<1x128xf32>, tensor<128x128xf32>) outs(%f : tensor<1x128xf32>) -> tensor<1x128xf32>
  %k = linalg.matmul ins(%xn, %wk : tensor<1x128xf32>, tensor<128x128xf32>) outs(%f : tensor<1x128xf32>) -> tensor<1x128xf32>
  %v = linalg.matmul ins(%xn, %wv : tensor<1x128xf32>, tensor<128x128xf32>) outs(%f : tensor<1x128xf32>) -> tensor<1x128xf32>
  %q2 = tensor.collapse_shape %q [[0, 1]] : tensor<1x128xf32> into tensor<128xf32>
  %k2 = tensor.collapse_shape %k [[0, 1]] : tensor<1x128xf32> into tensor<128xf32>
  %v2 = tensor.collapse_shape %v [[0, 1]] : tensor<1x128xf32> into tensor<128xf32>
  %qh = tensor.expand_shape %q2 [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %kh = tensor.expand_shape %k2 [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  %vh = tensor.expand_shape %v2 [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  // RoPE at the position: x * cos[pos] + rotate_half(x) * sin[pos].
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %c = tensor.extract_slice %cos[%i, 0] [1, 16] [1, 1] : tensor<32x16xf32> to tensor<16xf32>
  %s = tensor.extract_slice %sin[%i, 0] [1, 16] [1, 1] : tensor<32x16xf32> to tensor<16xf32>
  %eh = tensor.empty() : tensor<8x16xf32>
  %qlo = tensor.extract_slice %qh[0, 0] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %qhi = tensor.extract_slice %qh[0, 8] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %klo = tensor.extract_slice %kh[0, 0] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %khi = tensor.extract_slice %kh[0, 8] [8, 8] [1, 1] : tensor<8x16xf32> to tensor<8x8xf32>
  %e8 = tensor.empty() : tensor<8x8xf32>
  %nqhi = linalg.negf ins(%qhi : tensor<8x8xf32>) outs(%e8 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %nkhi = linalg.negf ins(%khi : tensor<8x8xf32>) outs(%e8 : tensor<8x8xf32>) -> tensor<8x8xf32>
  %qrot = tensor.concat dim(1) %nqhi, %qlo : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x16xf32>
  %krot = tensor.concat dim(1) %nkhi, %klo : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x16xf32>
  %qr = linalg.generic {indexing_maps = [#id, #id, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%qh, %qrot, %c, %s : tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%eh : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %cv: f32, %sv: f32, %o: f32):
    %m1 = arith.mulf %a, %cv : f32
    %m2 = arith.mulf %b, %sv : f32
    %r = arith.addf %m1, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %kr = linalg.generic {indexing_maps = [#id, #id, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%kh, %krot, %c, %s : tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%eh : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %cv: f32, %sv: f32, %o: f32):
    %m1 = arith.mulf %a, %cv : f32
    %m2 = arith.mulf %b, %sv : f32
    %r = arith.addf %m1, %m2 : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  // The caches written at the position.
  %k_new = tensor.insert_slice %kr into %k_cache[0, 0, %i, 0] [1, 8, 1, 16] [1, 1, 1, 1]
      : tensor<8x16xf32> into tensor<1x8x32x16xf32>
  %v_new = tensor.insert_slice %vh into %v_cache[0, 0, %i, 0] [1, 8, 1, 16] [1, 1, 1, 1]
      : tensor<8x16xf32> into tensor<1x8x32x16xf32>
  // Scores against every cached position, those past the step masked.
  %kc = tensor.collapse_shape %k_new [[0, 1], [2], [3]] : tensor<1x8x32x16xf32> into tensor<8x32x16xf32>
  %vc = tensor.collapse_shape %v_new [[0, 1], [2], [3]] : tensor<1x8x32x16xf32> into tensor<8x32x16xf32>
  %ekt = tensor.empty() : tensor<8x16x32xf32>
  %kt = linalg.transpose ins(%kc : tensor<8x32x16xf32>) outs(%ekt : tensor<8x16x32xf32>) permutation = [0, 2, 1]
  %q3 = tensor.expand_shape %qr [[0, 1], [2]] output_shape [8, 1, 16] : tensor<8x16xf32> into tensor<8x1x16xf32>
  %es = tensor.empty() : tensor<8x1x32xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x1x32xf32>) -> tensor<8x1x32xf32>
  %sc = linalg.batch_matmul ins(%q3, %kt : tensor<8x1x16xf32>, tensor<8x16x32xf32>) outs(%fs : tensor<8x1x32xf32>) -> tensor<8x1x32xf32>
  %masked = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sc : tensor<8x1x32xf32>) outs(%es : tensor<8x1x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 2 : index
    %jj = arith.index_cast %j : index to i64
    %future = arith.cmpi sgt, %jj, %p : i64
    %scale = arith.constant 0.25 : f32
    %scaled = arith.mulf %a, %scale : f32
    %lowest = arith.constant -3.40282347E+38 : f32
    %r = arith.select %future, %lowest, %scaled : f32
    linalg.yield %r : f32
  } -> tensor<8x1x32xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %er = tensor.empty() : tensor<8x1xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<8x1xf32>) -> tensor<8x1xf32>
  %mx = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%masked : tensor<8x1x32xf32>) outs(%fm : tensor<8x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8x1xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #red, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%masked, %mx : tensor<8x1x32xf32>, tensor<8x1xf32>) outs(%es : tensor<8x1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e2 = math.exp %d : f32
    linalg.yield %e2 : f32
  } -> tensor<8x1x32xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<8x1xf32>) -> tensor<8x1xf32>
  %sm = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<8x1x32xf32>) outs(%fz : tensor<8x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8x1xf32>
  %pr = linalg.generic {indexing_maps = [#id3, #red, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<8x1x32xf32>, tensor<8x1xf32>) outs(%es : tensor<8x1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q4 = arith.divf %a, %b : f32
    linalg.yield %q4 : f32
  } -> tensor<8x1x32xf32>
  %eo = tensor.empty() : tensor<8x1x16xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x1x16xf32>) -> tensor<8x1x16xf32>
  %o = linalg.batch_matmul ins(%pr, %vc : tensor<8x1x32xf32>, tensor<8x32x16xf32>) outs(%fo : tensor<8x1x16xf32>) -> tensor<8x1x16xf32>
  %oc = tensor.collapse_shape %o [[0, 1, 2]] : tensor<8x1x16xf32> into tensor<128xf32>
  %oe = tensor.expand_shape %oc [[0, 1]] output_shape [1, 128] : tensor<128xf32> into tensor<1x128xf32>
  %y = linalg.matmul ins(%oe, %wo : tensor<1x128xf32>, tensor<128x128xf32>) outs(%f : tensor<1x128xf32>) -> tensor<1x128xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<1x128xf32>, tensor<1x128xf32>) outs(%e : tensor<1x128xf32>) {
  ^bb0(%a1: f32, %b1: f32, %o1: f32):
    %s1 = arith.addf %a1, %b1 : f32
    linalg.yield %s1 : f32
  } -> tensor<1x128xf32>
  %ss2 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%h1 : tensor<1x128xf32>) outs(%ssz : tensor<1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<1xf32>
  %hn = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %ss2, %g2 : tensor<1x128xf32>, tensor<1xf32>, tensor<128xf32>) outs(%e : tensor<1x128xf32>) {
  ^bb0(%na: f32, %ns: f32, %ng: f32, %no: f32):
    %n = arith.constant 128.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %ns, %n : f32
    %nv = arith.addf %mean, %eps : f32
    %nr = math.rsqrt %nv : f32
    %xr = arith.mulf %na, %nr : f32
    %ny = arith.mulf %xr, %ng : f32
    linalg.yield %ny : f32
  } -> tensor<1x128xf32>
  %ef = tensor.empty() : tensor<1x256xf32>
  %ff = linalg.fill ins(%zero : f32) outs(%ef : tensor<1x256xf32>) -> tensor<1x256xf32>
  %gate = linalg.matmul ins(%hn, %wg : tensor<1x128xf32>, tensor<128x256xf32>) outs(%ff : tensor<1x256xf32>) -> tensor<1x256xf32>
  %up = linalg.matmul ins(%hn, %wu : tensor<1x128xf32>, tensor<128x256xf32>) outs(%ff : tensor<1x256xf32>) -> tensor<1x256xf32>
  %act = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<1x256xf32>, tensor<1x256xf32>) outs(%ef : tensor<1x256xf32>) {
  ^bb0(%a2: f32, %b2: f32, %o2: f32):
    %n2 = arith.negf %a2 : f32
    %x2 = math.exp %n2 : f32
    %one = arith.constant 1.0 : f32
    %d2 = arith.addf %one, %x2 : f32
    %sg = arith.divf %a2, %d2 : f32
    %m2 = arith.mulf %sg, %b2 : f32
    linalg.yield %m2 : f32
  } -> tensor<1x256xf32>
  %down = linalg.matmul ins(%act, %wd : tensor<1x256xf32>, tensor<256x128xf32>) outs(%f : tensor<1x128xf32>) -> tensor<1x128xf32>
  %out = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %down : tensor<1x128xf32>, tensor<1x128xf32>) outs(%e : tensor<1x128xf32>) {
  ^bb0(%a3: f32, %b3: f32, %o3: f32):
    %s3 = arith.addf %a3, %b3 : f32
    linalg.yield %s3 : f32
  } -> tensor<1x128xf32>
  return %out, %k_new, %v_new : tensor<1x128xf32>, tensor<1x8x32x16xf32>, tensor<1x8x32x16xf32>
}
