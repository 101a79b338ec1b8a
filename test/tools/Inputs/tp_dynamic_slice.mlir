// An MLP on the first rows of its input, as many as the caller gives (a
// slice of dynamic size): the slice sharding rule needs static sizes, so
// --tensor-parallel cannot partition the graph and builds it for one core
// with a warning.
func.func @mlp(%x: tensor<16x16xf32>, %n: index, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<?x16xf32> {
  %rows = tensor.extract_slice %x[0, 0] [%n, 16] [1, 1] : tensor<16x16xf32> to tensor<?x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty(%n) : tensor<?x32xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %h = linalg.matmul ins(%rows, %w1 : tensor<?x16xf32>, tensor<16x32xf32>) outs(%f1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  %e2 = tensor.empty(%n) : tensor<?x16xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %y = linalg.matmul ins(%h, %w2 : tensor<?x32xf32>, tensor<32x16xf32>) outs(%f2 : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
