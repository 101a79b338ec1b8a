// An MLP whose input rows are read from a slice at an offset the data
// gives (as a KV cache is read at the current position): the slice sharding
// rule needs static offsets, so --tensor-parallel cannot partition the
// graph and builds it for one core with a warning.
func.func @mlp(%x: tensor<16x16xf32>, %i: index, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %rows = tensor.extract_slice %x[%i, 0] [8, 16] [1, 1] : tensor<16x16xf32> to tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%rows, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
