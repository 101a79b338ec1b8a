// Input of the second RUN line of slice-sharding.mlir: upstream shard-partition
// run alone (no propagation) on hand-written shardings that split the
// dimension a slice cuts. The rule refuses it with an error.
shard.grid @cores(shape = 2)
func.func @cut_split_dimension(%q: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %s = shard.sharding @cores split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<4x16xf32>
  %q2 = shard.shard %qs to %s annotate_for_users : tensor<4x16xf32>
  // expected-error@+1 {{cannot partition: dimension 1 is split across cores but the slice does not take all of it}}
  %lo = tensor.extract_slice %q2[0, 4] [4, 8] [1, 1] : tensor<4x16xf32> to tensor<4x8xf32>
  %l1 = shard.shard %lo to %s : tensor<4x8xf32>
  %r = shard.shard %l1 to %s annotate_for_users : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
