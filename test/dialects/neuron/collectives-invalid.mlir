// Diagnostics of the collective verifiers, one case each.
// RUN: neuron-opt %s -split-input-file -verify-diagnostics

// A grid axis must name a dimension of the grid.
func.func @axis_outside(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'neuron.all_reduce' op grid axis 2 is outside the 2-dimensional grid}}
  %0 = neuron.all_reduce %x grid [2, 4] axes [2] reduction <sum> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @axis_twice(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{grid axis 0 appears twice}}
  %0 = neuron.all_reduce %x grid [2] axes [0, 0] reduction <sum> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @empty_grid(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{expected a grid of positive sizes, found [0]}}
  %0 = neuron.all_reduce %x grid [0] axes [0] reduction <sum> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// all_gather multiplies the gathered dimension by the group size.
func.func @gather_shape(%x: tensor<8x4xf32>) -> tensor<8x8xf32> {
  // expected-error@+1 {{expected a result of type 'tensor<8x16xf32>' (all_gather over a group of 4 cores), found 'tensor<8x8xf32>'}}
  %0 = neuron.all_gather %x grid [4] axes [0] axis 1 : tensor<8x4xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @scatter_uneven(%x: tensor<10x4xf32>) -> tensor<2x4xf32> {
  // expected-error@+1 {{dimension 0 (10) does not split evenly over the 4 cores of a group}}
  %0 = neuron.reduce_scatter %x grid [4] axes [0] reduction <sum> axis 0 : tensor<10x4xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @split_axis(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{split axis 2 is outside the rank-2 input}}
  %0 = neuron.all_to_all %x grid [4] axes [0] split 2 concat 0 : tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @start_needs_reduction(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{all_reduce needs 'reduction'}}
  %h = neuron.collective_start all_reduce %x grid [4] axes [0] : tensor<8xf32> -> !neuron.pending<tensor<8xf32>>
  %0 = neuron.collective_done %h : !neuron.pending<tensor<8xf32>> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @start_extra_axis(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{all_reduce takes no 'axis'}}
  %h = neuron.collective_start all_reduce %x grid [4] axes [0] reduction <sum> axis 0 : tensor<8xf32> -> !neuron.pending<tensor<8xf32>>
  %0 = neuron.collective_done %h : !neuron.pending<tensor<8xf32>> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @start_unused(%x: tensor<8xf32>) {
  // expected-error@+1 {{expected its handle to have exactly one use, a 'neuron.collective_done'}}
  %h = neuron.collective_start all_reduce %x grid [4] axes [0] reduction <sum> : tensor<8xf32> -> !neuron.pending<tensor<8xf32>>
  return
}

// -----

func.func @done_type(%x: tensor<8xf32>) -> tensor<4xf32> {
  %h = neuron.collective_start all_reduce %x grid [4] axes [0] reduction <sum> : tensor<8xf32> -> !neuron.pending<tensor<8xf32>>
  // expected-error@+1 {{expected a result of type 'tensor<8xf32>' (the pending collective's), found 'tensor<4xf32>'}}
  %0 = neuron.collective_done %h : !neuron.pending<tensor<8xf32>> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_uneven(%x: tensor<8x6xf32>) -> tensor<8x1xf32> {
  // expected-error@+1 {{dimension 1 (6) does not split evenly over the 4 cores of a group}}
  %0 = neuron.all_slice %x grid [4] axes [0] axis 1 : tensor<8x6xf32> -> tensor<8x1xf32>
  return %0 : tensor<8x1xf32>
}

// -----

func.func @start_slice_needs_axis(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{all_slice needs 'axis'}}
  %h = neuron.collective_start all_slice %x grid [4] axes [0] : tensor<8xf32> -> !neuron.pending<tensor<2xf32>>
  %0 = neuron.collective_done %h : !neuron.pending<tensor<2xf32>> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @start_slice_reduction(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{all_slice takes no 'reduction'}}
  %h = neuron.collective_start all_slice %x grid [4] axes [0] reduction <sum> axis 0 : tensor<8xf32> -> !neuron.pending<tensor<2xf32>>
  %0 = neuron.collective_done %h : !neuron.pending<tensor<2xf32>> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
