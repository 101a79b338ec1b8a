// RUN: neuron-opt %s -split-input-file -convert-shard-to-neuron -verify-diagnostics

// Tests that a reduction the neuron collectives lack is an error.
shard.grid @g(shape = 4)
func.func @product(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shard.all_reduce' op reduction 'product' has no neuron counterpart; the neuron collectives reduce with sum, max or min}}
  %0 = shard.all_reduce %x on @g grid_axes = [0] reduction = product : tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Tests that reduce_scatter's reduction is checked too.
shard.grid @g(shape = 4)
func.func @bitwise_or(%x: tensor<8x16xi32>) -> tensor<2x16xi32> {
  // expected-error@+1 {{'shard.reduce_scatter' op reduction 'bitwise_or' has no neuron counterpart}}
  %0 = shard.reduce_scatter %x on @g grid_axes = [0] reduction = bitwise_or scatter_axis = 0 : tensor<8x16xi32> -> tensor<2x16xi32>
  return %0 : tensor<2x16xi32>
}

// -----

// Tests that a collective with no neuron counterpart is an error naming what
// is supported.
shard.grid @g(shape = 4)
func.func @broadcast(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shard.broadcast' op has no neuron counterpart; convert-shard-to-neuron supports shard.all_reduce, shard.all_gather, shard.reduce_scatter, shard.all_to_all and shard.all_slice}}
  %0 = shard.broadcast %x on @g grid_axes = [0] root = [0] : (tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Tests that shift (a neighbour exchange) is rejected the same way.
shard.grid @g(shape = 4)
func.func @shift(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shard.shift' op has no neuron counterpart}}
  %0 = shard.shift %x on @g grid_axes = [0] shift_axis = 0 offset = 1 rotate : tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Tests that a grid of dynamic size is an error: the neuron ops carry it.
shard.grid @g(shape = ?)
func.func @dynamic_grid(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error@+1 {{'shard.all_reduce' op needs a grid of static shape; grid @g has a dynamic size}}
  %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Tests that an element type the neuron collectives do not carry is an error.
shard.grid @g(shape = 4)
func.func @f64(%x: tensor<8x16xf64>) -> tensor<8x16xf64> {
  // expected-error@+1 {{'shard.all_reduce' op element type 'f64' is not one the neuron collectives carry}}
  %0 = shard.all_reduce %x on @g grid_axes = [0] : tensor<8x16xf64> -> tensor<8x16xf64>
  return %0 : tensor<8x16xf64>
}
