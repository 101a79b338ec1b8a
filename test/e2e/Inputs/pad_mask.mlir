// A MobileBERT-style attention mask: the token mask (1 for a token, 0 for
// padding) arrives at the sentence's length, is padded with zeros to the
// sequence length with tensor.pad, and becomes an additive bias of -10000
// on the scores of padded keys before the softmax.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#key = affine_map<(d0, d1, d2) -> (d0, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @masked_attention(%q: tensor<1x16x32xf32>, %k: tensor<1x16x32xf32>,
                            %v: tensor<1x16x32xf32>, %mask: tensor<1x12xi64>)
    -> tensor<1x16x32xf32> {
  %c0 = arith.constant 0 : i64
  %padded = tensor.pad %mask low[0, 0] high[0, 4] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c0 : i64
  } : tensor<1x12xi64> to tensor<1x16xi64>
  %eb = tensor.empty() : tensor<1x16xf32>
  %bias = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%padded : tensor<1x16xi64>) outs(%eb : tensor<1x16xf32>) {
  ^bb0(%m: i64, %o: f32):
    %one = arith.constant 1 : i64
    %off = arith.subi %one, %m : i64
    %f = arith.sitofp %off : i64 to f32
    %big = arith.constant -10000.0 : f32
    %r = arith.mulf %f, %big : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<1x32x16xf32>
  %kt = linalg.transpose ins(%k : tensor<1x16x32xf32>) outs(%et : tensor<1x32x16xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<1x16x16xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<1x16x32xf32>, tensor<1x32x16xf32>) outs(%fs : tensor<1x16x16xf32>) -> tensor<1x16x16xf32>
  %biased = linalg.generic {indexing_maps = [#id3, #key, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %bias : tensor<1x16x16xf32>, tensor<1x16xf32>) outs(%es : tensor<1x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %scale = arith.constant 0.17677669 : f32
    %x = arith.mulf %a, %scale : f32
    %r = arith.addf %x, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x16x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %em = tensor.empty() : tensor<1x16xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%em : tensor<1x16xf32>) -> tensor<1x16xf32>
  %max = linalg.generic {indexing_maps = [#id3, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%biased : tensor<1x16x16xf32>) outs(%mi : tensor<1x16xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%biased, %max : tensor<1x16x16xf32>, tensor<1x16xf32>) outs(%es : tensor<1x16x16xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x16x16xf32>
  %si = linalg.fill ins(%zero : f32) outs(%em : tensor<1x16xf32>) -> tensor<1x16xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<1x16x16xf32>) outs(%si : tensor<1x16xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.addf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x16xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<1x16x16xf32>, tensor<1x16xf32>) outs(%es : tensor<1x16x16xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.divf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<1x16x16xf32>
  %eo = tensor.empty() : tensor<1x16x32xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
  %out = linalg.batch_matmul ins(%p, %v : tensor<1x16x16xf32>, tensor<1x16x32xf32>) outs(%fo : tensor<1x16x32xf32>) -> tensor<1x16x32xf32>
  return %out : tensor<1x16x32xf32>
}
