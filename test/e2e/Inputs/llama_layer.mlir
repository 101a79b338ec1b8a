// A LLaMA-style decoder layer at a reduced size (64 tokens, model width
// 128 in 8 heads of 16, SwiGLU hidden 256), in the linalg form torch-mlir
// writes: RMSNorm, self-attention, residual add, RMSNorm, SwiGLU MLP,
// residual add. Input of the tensor-parallel tests.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#rowred = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @layer(%x: tensor<64x128xf32>, %g1: tensor<128xf32>, %wq: tensor<128x128xf32>, %wk: tensor<128x128xf32>,
                 %wv: tensor<128x128xf32>, %wo: tensor<128x128xf32>, %g2: tensor<128xf32>,
                 %wg: tensor<128x256xf32>, %wu: tensor<128x256xf32>, %wd: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %ss1e = tensor.empty() : tensor<64xf32>
  %ss1z = linalg.fill ins(%zero : f32) outs(%ss1e : tensor<64xf32>) -> tensor<64xf32>
  %ss1 = linalg.generic {indexing_maps = [#id, #rowred], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x128xf32>) outs(%ss1z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %xn = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss1, %g1 : tensor<64x128xf32>, tensor<64xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%na: f32, %ns: f32, %ng: f32, %no: f32):
    %n = arith.constant 128.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %ns, %n : f32
    %nv = arith.addf %mean, %eps : f32
    %nr = math.rsqrt %nv : f32
    %xr = arith.mulf %na, %nr : f32
    %ny = arith.mulf %xr, %ng : f32
    linalg.yield %ny : f32
  } -> tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %q = linalg.matmul ins(%xn, %wq : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %k = linalg.matmul ins(%xn, %wk : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %v = linalg.matmul ins(%xn, %wv : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [64, 8, 16] : tensor<64x128xf32> into tensor<64x8x16xf32>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [64, 8, 16] : tensor<64x128xf32> into tensor<64x8x16xf32>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [64, 8, 16] : tensor<64x128xf32> into tensor<64x8x16xf32>
  %eh = tensor.empty() : tensor<8x64x16xf32>
  %qh = linalg.transpose ins(%q3 : tensor<64x8x16xf32>) outs(%eh : tensor<8x64x16xf32>) permutation = [1, 0, 2]
  %vh = linalg.transpose ins(%v3 : tensor<64x8x16xf32>) outs(%eh : tensor<8x64x16xf32>) permutation = [1, 0, 2]
  %ekt = tensor.empty() : tensor<8x16x64xf32>
  %kt = linalg.transpose ins(%k3 : tensor<64x8x16xf32>) outs(%ekt : tensor<8x16x64xf32>) permutation = [1, 2, 0]
  %es = tensor.empty() : tensor<8x64x64xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %s = linalg.batch_matmul ins(%qh, %kt : tensor<8x64x16xf32>, tensor<8x16x64xf32>) outs(%fs : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %er = tensor.empty() : tensor<8x64xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%er : tensor<8x64xf32>) -> tensor<8x64xf32>
  %mx = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<8x64x64xf32>) outs(%fm : tensor<8x64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #red, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mx : tensor<8x64x64xf32>, tensor<8x64xf32>) outs(%es : tensor<8x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %e2 = math.exp %d : f32
    linalg.yield %e2 : f32
  } -> tensor<8x64x64xf32>
  %fz = linalg.fill ins(%zero : f32) outs(%er : tensor<8x64xf32>) -> tensor<8x64xf32>
  %sm = linalg.generic {indexing_maps = [#id3, #red], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<8x64x64xf32>) outs(%fz : tensor<8x64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<8x64xf32>
  %p = linalg.generic {indexing_maps = [#id3, #red, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sm : tensor<8x64x64xf32>, tensor<8x64xf32>) outs(%es : tensor<8x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %q2 = arith.divf %a, %b : f32
    linalg.yield %q2 : f32
  } -> tensor<8x64x64xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eh : tensor<8x64x16xf32>) -> tensor<8x64x16xf32>
  %o = linalg.batch_matmul ins(%p, %vh : tensor<8x64x64xf32>, tensor<8x64x16xf32>) outs(%fo : tensor<8x64x16xf32>) -> tensor<8x64x16xf32>
  %eo = tensor.empty() : tensor<64x8x16xf32>
  %ot = linalg.transpose ins(%o : tensor<8x64x16xf32>) outs(%eo : tensor<64x8x16xf32>) permutation = [1, 0, 2]
  %oc = tensor.collapse_shape %ot [[0], [1, 2]] : tensor<64x8x16xf32> into tensor<64x128xf32>
  %y = linalg.matmul ins(%oc, %wo : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %h1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a1: f32, %b1: f32, %o1: f32):
    %s1 = arith.addf %a1, %b1 : f32
    linalg.yield %s1 : f32
  } -> tensor<64x128xf32>
  %ss2e = tensor.empty() : tensor<64xf32>
  %ss2z = linalg.fill ins(%zero : f32) outs(%ss2e : tensor<64xf32>) -> tensor<64xf32>
  %ss2 = linalg.generic {indexing_maps = [#id, #rowred], iterator_types = ["parallel", "reduction"]}
      ins(%h1 : tensor<64x128xf32>) outs(%ss2z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %t = arith.addf %sq, %acc : f32
    linalg.yield %t : f32
  } -> tensor<64xf32>
  %hn = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %ss2, %g2 : tensor<64x128xf32>, tensor<64xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%na: f32, %ns: f32, %ng: f32, %no: f32):
    %n = arith.constant 128.0 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.divf %ns, %n : f32
    %nv = arith.addf %mean, %eps : f32
    %nr = math.rsqrt %nv : f32
    %xr = arith.mulf %na, %nr : f32
    %ny = arith.mulf %xr, %ng : f32
    linalg.yield %ny : f32
  } -> tensor<64x128xf32>
  %ef = tensor.empty() : tensor<64x256xf32>
  %ff = linalg.fill ins(%zero : f32) outs(%ef : tensor<64x256xf32>) -> tensor<64x256xf32>
  %gate = linalg.matmul ins(%hn, %wg : tensor<64x128xf32>, tensor<128x256xf32>) outs(%ff : tensor<64x256xf32>) -> tensor<64x256xf32>
  %up = linalg.matmul ins(%hn, %wu : tensor<64x128xf32>, tensor<128x256xf32>) outs(%ff : tensor<64x256xf32>) -> tensor<64x256xf32>
  %act = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<64x256xf32>, tensor<64x256xf32>) outs(%ef : tensor<64x256xf32>) {
  ^bb0(%a2: f32, %b2: f32, %o2: f32):
    %n2 = arith.negf %a2 : f32
    %x2 = math.exp %n2 : f32
    %one = arith.constant 1.0 : f32
    %d2 = arith.addf %one, %x2 : f32
    %sg = arith.divf %a2, %d2 : f32
    %m2 = arith.mulf %sg, %b2 : f32
    linalg.yield %m2 : f32
  } -> tensor<64x256xf32>
  %fd = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %down = linalg.matmul ins(%act, %wd : tensor<64x256xf32>, tensor<256x128xf32>) outs(%fd : tensor<64x128xf32>) -> tensor<64x128xf32>
  %out = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %down : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%a3: f32, %b3: f32, %o3: f32):
    %s3 = arith.addf %a3, %b3 : f32
    linalg.yield %s3 : f32
  } -> tensor<64x128xf32>
  return %out : tensor<64x128xf32>
}
