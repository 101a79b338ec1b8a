// A tensor-parallel MLP annotated with upstream `shard` on a 1-D grid of 2
// logical cores: the first weight split by columns, the second by rows, the
// result replicated (Megatron-style). Input of the multi-core tests.
shard.grid @cores(shape = 2)
func.func @mlp(%x: tensor<64x128xf32>, %w1: tensor<128x256xf32>, %w2: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %col = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %w1s = shard.shard %w1 to %col : tensor<128x256xf32>
  %row = shard.sharding @cores split_axes = [[0]] : !shard.sharding
  %w2s = shard.shard %w2 to %row : tensor<256x128xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x256xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h = linalg.matmul ins(%x, %w1s : tensor<64x128xf32>, tensor<128x256xf32>) outs(%f1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y = linalg.matmul ins(%h, %w2s : tensor<64x256xf32>, tensor<256x128xf32>) outs(%f2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %rep = shard.sharding @cores split_axes = [[]] : !shard.sharding
  %ys = shard.shard %y to %rep annotate_for_users : tensor<64x128xf32>
  return %ys : tensor<64x128xf32>
}
