// A chunk of three tokens written into a per-head KV cache [B, H, S, D] at
// a position read at run time, as torch-mlir writes `cache[:, :, pos:pos+3]
// = k` (tensor.insert_slice with a dynamic offset), then the chunk's
// queries scored against the whole updated cache.
func.func @chunk(%q: tensor<1x4x3x16xf32>, %k: tensor<1x4x3x16xf32>,
                 %cache: tensor<1x4x32x16xf32>, %pos: tensor<1xi64>)
    -> (tensor<4x3x32xf32>, tensor<1x4x32x16xf32>) {
  %c0 = arith.constant 0 : index
  %p = tensor.extract %pos[%c0] : tensor<1xi64>
  %i = arith.index_cast %p : i64 to index
  %new = tensor.insert_slice %k into %cache[0, 0, %i, 0] [1, 4, 3, 16] [1, 1, 1, 1]
      : tensor<1x4x3x16xf32> into tensor<1x4x32x16xf32>
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x4x3x16xf32> into tensor<4x3x16xf32>
  %c3 = tensor.collapse_shape %new [[0, 1], [2], [3]] : tensor<1x4x32x16xf32> into tensor<4x32x16xf32>
  %et = tensor.empty() : tensor<4x16x32xf32>
  %kt = linalg.transpose ins(%c3 : tensor<4x32x16xf32>) outs(%et : tensor<4x16x32xf32>) permutation = [0, 2, 1]
  %zero = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<4x3x32xf32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<4x3x32xf32>) -> tensor<4x3x32xf32>
  %s = linalg.batch_matmul ins(%q3, %kt : tensor<4x3x16xf32>, tensor<4x16x32xf32>) outs(%fs : tensor<4x3x32xf32>) -> tensor<4x3x32xf32>
  return %s, %new : tensor<4x3x32xf32>, tensor<1x4x32x16xf32>
}
