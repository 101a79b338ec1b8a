// Multi-head self-attention as torch-mlir writes it (8 heads of 16 over a
// 64-token sequence): Q, K and V projections, head reshapes and transposes,
// softmax(Q K^T) V per head as generics, heads merged, output projection.
// Input of the tensor-parallel tests (heads split across cores).
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @attn(%x: tensor<64x128xf32>, %wq: tensor<128x128xf32>, %wk: tensor<128x128xf32>, %wv: tensor<128x128xf32>, %wo: tensor<128x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<64x128xf32>, tensor<128x128xf32>) outs(%f : tensor<64x128xf32>) -> tensor<64x128xf32>
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
  return %y : tensor<64x128xf32>
}
