// Schedule-quality suite: 8-head attention, softmax(Q K^T / sqrt(64)) V
// with sequence 512 and head size 64, f32.
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#red3 = affine_map<(b, i, j) -> (b, i)>

func.func @attention(%q: tensor<8x512x64xf32>, %k: tensor<8x512x64xf32>,
                     %v: tensor<8x512x64xf32>) -> tensor<8x512x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %ekt = tensor.empty() : tensor<8x64x512xf32>
  %kt = linalg.transpose ins(%k : tensor<8x512x64xf32>)
                         outs(%ekt : tensor<8x64x512xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<8x512x512xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<8x512x512xf32>)
      -> tensor<8x512x512xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x512x64xf32>, tensor<8x64x512xf32>)
                           outs(%zs : tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  %er = tensor.empty() : tensor<8x512xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%er : tensor<8x512xf32>) -> tensor<8x512xf32>
  %max = linalg.generic {indexing_maps = [#id3, #red3],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%s : tensor<8x512x512xf32>) outs(%minit : tensor<8x512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<8x512xf32>
  %p = linalg.generic {indexing_maps = [#id3, #red3, #id3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %max : tensor<8x512x512xf32>, tensor<8x512xf32>)
      outs(%es : tensor<8x512x512xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %sd = arith.mulf %d, %scale : f32
    %x = math.exp %sd : f32
    linalg.yield %x : f32
  } -> tensor<8x512x512xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%er : tensor<8x512xf32>) -> tensor<8x512xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #red3],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p : tensor<8x512x512xf32>) outs(%sinit : tensor<8x512xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<8x512xf32>
  %w = linalg.generic {indexing_maps = [#id3, #red3, #id3],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p, %sum : tensor<8x512x512xf32>, tensor<8x512xf32>)
      outs(%es : tensor<8x512x512xf32>) {
  ^bb0(%in: f32, %t: f32, %out: f32):
    %x = arith.divf %in, %t : f32
    linalg.yield %x : f32
  } -> tensor<8x512x512xf32>
  %eo = tensor.empty() : tensor<8x512x64xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<8x512x64xf32>)
      -> tensor<8x512x64xf32>
  %o = linalg.batch_matmul ins(%w, %v : tensor<8x512x512xf32>, tensor<8x512x64xf32>)
                           outs(%zo : tensor<8x512x64xf32>) -> tensor<8x512x64xf32>
  return %o : tensor<8x512x64xf32>
}
