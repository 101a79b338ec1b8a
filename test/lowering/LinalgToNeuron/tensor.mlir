// RUN: neuron-opt %s -split-input-file -verify-diagnostics -convert-linalg-to-neuron | FileCheck %s

// Tests that a non-splat dense tensor constant becomes neuron.constant.
// CHECK-LABEL: func.func @dense_constant
// CHECK: %[[C:.*]] = neuron.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-NOT: arith.constant
// CHECK: return %[[C]]
func.func @dense_constant() -> tensor<2x3xf32> {
  %c = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  return %c : tensor<2x3xf32>
}

// -----

// Tests that a dense_resource constant keeps its resource.
// CHECK-LABEL: func.func @dense_resource_constant
// CHECK: %[[C:.*]] = neuron.constant dense_resource<weights> : tensor<4xf32>
// CHECK: return %[[C]]
func.func @dense_resource_constant() -> tensor<4xf32> {
  %c = arith.constant dense_resource<weights> : tensor<4xf32>
  return %c : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Tests that an i64 constant (position ids, gather indices) is raised too:
// neuron carries i64 in data movement.
// CHECK-LABEL: func.func @i64_constant
// CHECK: neuron.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
func.func @i64_constant() -> tensor<4xi64> {
  %c = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  return %c : tensor<4xi64>
}

// -----

// Tests that collapse_shape and expand_shape become neuron.reshape (the
// reshape of a reshape folds to one reshape of the source).
// CHECK-LABEL: func.func @collapse_expand
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[C:.*]] = neuron.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK-DAG: %[[E:.*]] = neuron.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x2x2xf32>
// CHECK-NOT: tensor.
// CHECK: return %[[C]], %[[E]]
func.func @collapse_expand(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<6x2x2xf32>) {
  %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %e = tensor.expand_shape %c [[0], [1, 2]] output_shape [6, 2, 2] : tensor<6x4xf32> into tensor<6x2x2xf32>
  return %c, %e : tensor<6x4xf32>, tensor<6x2x2xf32>
}

// -----

// Tests a static extract_slice with unit strides.
// CHECK-LABEL: func.func @extract_slice_static
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: %[[S:.*]] = neuron.slice %[[X]] offsets [2, 4] strides [1, 1] : tensor<8x16xf32> -> tensor<4x8xf32>
// CHECK: return %[[S]]
func.func @extract_slice_static(%x: tensor<8x16xf32>) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %x[2, 4] [4, 8] [1, 1] : tensor<8x16xf32> to tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// Tests a rank-reducing extract_slice: a slice, then a reshape dropping the
// unit dimension.
// CHECK-LABEL: func.func @extract_slice_rank_reducing
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: %[[S:.*]] = neuron.slice %[[X]] offsets [3, 0] strides [1, 1] : tensor<8x16xf32> -> tensor<1x16xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[S]] : tensor<1x16xf32> -> tensor<16xf32>
// CHECK: return %[[R]]
func.func @extract_slice_rank_reducing(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  %s = tensor.extract_slice %x[3, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
  return %s : tensor<16xf32>
}

// -----

// Tests a strided extract_slice.
// CHECK-LABEL: func.func @extract_slice_strided
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>)
// CHECK: %[[S:.*]] = neuron.slice %[[X]] offsets [0, 1] strides [2, 3] : tensor<8x16xf32> -> tensor<4x5xf32>
// CHECK: return %[[S]]
func.func @extract_slice_strided(%x: tensor<8x16xf32>) -> tensor<4x5xf32> {
  %s = tensor.extract_slice %x[0, 1] [4, 5] [2, 3] : tensor<8x16xf32> to tensor<4x5xf32>
  return %s : tensor<4x5xf32>
}

// -----

// Tests that an extract_slice with a dynamic offset is left.
// CHECK-LABEL: func.func @extract_slice_dynamic_offset_left
// CHECK: tensor.extract_slice
// CHECK-NOT: neuron.slice
func.func @extract_slice_dynamic_offset_left(%x: tensor<8x16xf32>, %i: index) -> tensor<4x8xf32> {
  %s = tensor.extract_slice %x[%i, 0] [4, 8] [1, 1] : tensor<8x16xf32> to tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// Tests the RoPE rotate_half concatenation: two insert_slices side by side
// into a fresh tensor.empty become one neuron.concat.
// CHECK-LABEL: func.func @insert_slice_chain_concat
// CHECK-SAME: (%[[X1:.*]]: tensor<1x2x8x64xf32>, %[[X2:.*]]: tensor<1x2x8x64xf32>)
// CHECK: %[[R:.*]] = neuron.concat %[[X2]], %[[X1]] axis 3 : (tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>) -> tensor<1x2x8x128xf32>
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[R]]
func.func @insert_slice_chain_concat(%x1: tensor<1x2x8x64xf32>, %x2: tensor<1x2x8x64xf32>) -> tensor<1x2x8x128xf32> {
  %e = tensor.empty() : tensor<1x2x8x128xf32>
  %a = tensor.insert_slice %x2 into %e[0, 0, 0, 0] [1, 2, 8, 64] [1, 1, 1, 1] : tensor<1x2x8x64xf32> into tensor<1x2x8x128xf32>
  %b = tensor.insert_slice %x1 into %a[0, 0, 0, 64] [1, 2, 8, 64] [1, 1, 1, 1] : tensor<1x2x8x64xf32> into tensor<1x2x8x128xf32>
  return %b : tensor<1x2x8x128xf32>
}

// -----

// Tests that the concatenation follows the offsets, not the insertion order.
// CHECK-LABEL: func.func @insert_slice_chain_out_of_order
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<4x5xf32>)
// CHECK: %[[R:.*]] = neuron.concat %[[A]], %[[B]] axis 1 : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @insert_slice_chain_out_of_order(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %i = tensor.insert_slice %b into %e[0, 3] [4, 5] [1, 1] : tensor<4x5xf32> into tensor<4x8xf32>
  %j = tensor.insert_slice %a into %i[0, 0] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<4x8xf32>
  return %j : tensor<4x8xf32>
}

// -----

// Tests a slice written into a given tensor (torch's slice_scatter): the
// destination's rows before and after the slice, concatenated with it.
// CHECK-LABEL: func.func @slice_scatter
// CHECK-SAME: (%[[D:.*]]: tensor<7x9xf32>, %[[X:.*]]: tensor<3x9xf32>)
// CHECK: %[[BEFORE:.*]] = neuron.slice %[[D]] offsets [0, 0] strides [1, 1] : tensor<7x9xf32> -> tensor<2x9xf32>
// CHECK: %[[AFTER:.*]] = neuron.slice %[[D]] offsets [5, 0] strides [1, 1] : tensor<7x9xf32> -> tensor<2x9xf32>
// CHECK: %[[R:.*]] = neuron.concat %[[BEFORE]], %[[X]], %[[AFTER]] axis 0 : (tensor<2x9xf32>, tensor<3x9xf32>, tensor<2x9xf32>) -> tensor<7x9xf32>
// CHECK: return %[[R]]
func.func @slice_scatter(%d: tensor<7x9xf32>, %x: tensor<3x9xf32>) -> tensor<7x9xf32> {
  %i = tensor.insert_slice %x into %d[2, 0] [3, 9] [1, 1] : tensor<3x9xf32> into tensor<7x9xf32>
  return %i : tensor<7x9xf32>
}

// -----

// Tests a window inside two dimensions with a rank-reduced source (a
// [2, 4] slice of a [5, 6] image's channel): the source reshaped to
// [1, 2, 4]; along dimension 1 the rows before and after it, along
// dimension 2 within its rows the columns before it (none after).
// CHECK-LABEL: func.func @window_into_image
// CHECK-SAME: (%[[D:.*]]: tensor<3x5x6xf32>, %[[X:.*]]: tensor<2x4xf32>)
// CHECK: %[[C:.*]] = neuron.slice %[[D]] offsets [1, 0, 0] strides [1, 1, 1] : tensor<3x5x6xf32> -> tensor<1x5x6xf32>
// CHECK: %[[ROWS:.*]] = neuron.slice %[[C]] offsets [0, 1, 0] strides [1, 1, 1] : tensor<1x5x6xf32> -> tensor<1x2x6xf32>
// CHECK: %[[X3:.*]] = neuron.reshape %[[X]] : tensor<2x4xf32> -> tensor<1x2x4xf32>
// CHECK: %[[LEFT:.*]] = neuron.slice %[[ROWS]] offsets [0, 0, 0] strides [1, 1, 1] : tensor<1x2x6xf32> -> tensor<1x2x2xf32>
// CHECK: %[[MID:.*]] = neuron.concat %[[LEFT]], %[[X3]] axis 2
// CHECK: neuron.concat {{.*}}, %[[MID]], {{.*}} axis 1
// CHECK: neuron.concat {{.*}} axis 0 : (tensor<1x5x6xf32>, tensor<1x5x6xf32>, tensor<1x5x6xf32>) -> tensor<3x5x6xf32>
// CHECK-NOT: tensor.insert_slice
func.func @window_into_image(%d: tensor<3x5x6xf32>, %x: tensor<2x4xf32>) -> tensor<3x5x6xf32> {
  %i = tensor.insert_slice %x into %d[1, 1, 2] [1, 2, 4] [1, 1, 1] : tensor<2x4xf32> into tensor<3x5x6xf32>
  return %i : tensor<3x5x6xf32>
}

// -----

// Tests that a strided insert_slice is left (not a concatenation).
// CHECK-LABEL: func.func @strided_insert_left
// CHECK: tensor.insert_slice
// CHECK-NOT: neuron.concat
func.func @strided_insert_left(%d: tensor<7x9xf32>, %x: tensor<3x9xf32>) -> tensor<7x9xf32> {
  %i = tensor.insert_slice %x into %d[0, 0] [3, 9] [2, 1] : tensor<3x9xf32> into tensor<7x9xf32>
  return %i : tensor<7x9xf32>
}

// -----

// Tests that an insert_slice chain leaving a gap (elements never written) is
// left.
// CHECK-LABEL: func.func @insert_slice_chain_gap_left
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
// CHECK-NOT: neuron.concat
func.func @insert_slice_chain_gap_left(%x1: tensor<1x2x8x60xf32>, %x2: tensor<1x2x8x64xf32>) -> tensor<1x2x8x128xf32> {
  %e = tensor.empty() : tensor<1x2x8x128xf32>
  %a = tensor.insert_slice %x2 into %e[0, 0, 0, 0] [1, 2, 8, 64] [1, 1, 1, 1] : tensor<1x2x8x64xf32> into tensor<1x2x8x128xf32>
  %b = tensor.insert_slice %x1 into %a[0, 0, 0, 68] [1, 2, 8, 60] [1, 1, 1, 1] : tensor<1x2x8x60xf32> into tensor<1x2x8x128xf32>
  return %b : tensor<1x2x8x128xf32>
}

// -----

// Tests that a chain whose intermediate tensor is also used elsewhere is
// left: the partial result would be lost.
// CHECK-LABEL: func.func @insert_slice_chain_shared_left
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
// CHECK-NOT: neuron.concat
func.func @insert_slice_chain_shared_left(%x1: tensor<4x4xf32>, %x2: tensor<4x4xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = tensor.insert_slice %x2 into %e[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  %b = tensor.insert_slice %x1 into %a[0, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that tensor.concat becomes neuron.concat.
// CHECK-LABEL: func.func @tensor_concat
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<4x5xf32>)
// CHECK: %[[R:.*]] = neuron.concat %[[A]], %[[B]] axis 1 : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @tensor_concat(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %r = tensor.concat dim(1) %a, %b : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests an asymmetric tensor.pad with a zero constant.
// CHECK-LABEL: func.func @pad_zero
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK: %[[R:.*]] = neuron.pad %[[X]] low [0, 0, 1, 2] high [0, 0, 1, 1] value 0.000000e+00 : tensor<1x3x8x8xf32> -> tensor<1x3x10x11xf32>
// CHECK: return %[[R]]
func.func @pad_zero(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x10x11xf32> {
  %c = arith.constant 0.0 : f32
  %r = tensor.pad %x low[0, 0, 1, 2] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x11xf32>
  return %r : tensor<1x3x10x11xf32>
}

// -----

// Tests a pad whose sizes are constant values, not static sizes, as
// tosa.pad lowers to (found by the differential tests: it stayed on the host).
// CHECK-LABEL: func.func @pad_constant_sizes
// CHECK: neuron.pad %{{.*}} low [0, 0] high [0, 3] value -1.000000e+00 : tensor<1x200xbf16> -> tensor<1x203xbf16>
func.func @pad_constant_sizes(%x: tensor<1x200xbf16>) -> tensor<1x203xbf16> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %v = arith.constant -1.0 : bf16
  %r = tensor.pad %x low[%c0, %c0] high[%c0, %c3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : bf16
  } : tensor<1x200xbf16> to tensor<1x203xbf16>
  return %r : tensor<1x203xbf16>
}

// -----

// Tests a pad with -inf (before a max pool).
// CHECK-LABEL: func.func @pad_neg_inf
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// CHECK: %[[R:.*]] = neuron.pad %[[X]] low [0, 0, 1, 1] high [0, 0, 1, 1] value 0xFFF0000000000000 : tensor<1x3x8x8xf32> -> tensor<1x3x10x10xf32>
// CHECK: return %[[R]]
func.func @pad_neg_inf(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x10x10xf32> {
  %c = arith.constant 0xFF800000 : f32
  %r = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  return %r : tensor<1x3x10x10xf32>
}

// -----

// Tests that a pad with a value only known at run time is left.
// CHECK-LABEL: func.func @pad_runtime_value_left
// CHECK: tensor.pad
// CHECK-NOT: neuron.pad
func.func @pad_runtime_value_left(%x: tensor<1x3x8x8xf32>, %v: f32) -> tensor<1x3x10x10xf32> {
  %r = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %v : f32
  } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
  return %r : tensor<1x3x10x10xf32>
}

// -----

// Tests an embedding lookup written as a generic: index_cast of the id, the
// column from linalg.index, becomes a gather on axis 0.
// CHECK-LABEL: func.func @gather_embedding
// CHECK-SAME: (%[[IDS:.*]]: tensor<1x12xi64>, %[[FLAT:.*]]: tensor<3200xf32>)
// CHECK: %[[T:.*]] = neuron.reshape %[[FLAT]] : tensor<3200xf32> -> tensor<100x32xf32>
// CHECK: %[[R:.*]] = neuron.gather %[[T]][%[[IDS]]] axis 0 : (tensor<100x32xf32>, tensor<1x12xi64>) -> tensor<1x12x32xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @gather_embedding(%ids: tensor<1x12xi64>, %flat: tensor<3200xf32>) -> tensor<1x12x32xf32> {
  %table = tensor.expand_shape %flat [[0, 1]] output_shape [100, 32] : tensor<3200xf32> into tensor<100x32xf32>
  %e = tensor.empty() : tensor<1x12x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<1x12xi64>) outs(%e : tensor<1x12x32xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%row, %col] : tensor<100x32xf32>
    linalg.yield %v : f32
  } -> tensor<1x12x32xf32>
  return %r : tensor<1x12x32xf32>
}

// -----

// Tests the TOSA gather form: i32 ids, a leading unit table dimension
// indexed by a captured constant 0, which is reshaped away (here back to
// the 100x32 the table was expanded from).
// CHECK-LABEL: func.func @gather_constant_unit_index
// CHECK-SAME: (%[[IDS:.*]]: tensor<1x40xi32>, %[[T:.*]]: tensor<100x32xf32>)
// CHECK-NOT: neuron.reshape
// CHECK: %[[R:.*]] = neuron.gather %[[T]][%[[IDS]]] axis 0 : (tensor<100x32xf32>, tensor<1x40xi32>) -> tensor<1x40x32xf32>
// CHECK: return %[[R]]
func.func @gather_constant_unit_index(%ids: tensor<1x40xi32>, %t: tensor<100x32xf32>) -> tensor<1x40x32xf32> {
  %c0 = arith.constant 0 : index
  %table = tensor.expand_shape %t [[0, 1], [2]] output_shape [1, 100, 32] : tensor<100x32xf32> into tensor<1x100x32xf32>
  %e = tensor.empty() : tensor<1x40x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<1x40xi32>) outs(%e : tensor<1x40x32xf32>) {
  ^bb0(%id: i32, %o: f32):
    %row = arith.index_cast %id : i32 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%c0, %row, %col] : tensor<1x100x32xf32>
    linalg.yield %v : f32
  } -> tensor<1x40x32xf32>
  return %r : tensor<1x40x32xf32>
}

// -----

// Tests that the bounds checks (cmpi + cf.assert) torch-mlir puts in a
// gather body are dropped: neuron.gather checks its indices at run time.
// CHECK-LABEL: func.func @gather_bounds_checks
// CHECK-SAME: (%[[IDS:.*]]: tensor<1x12xi64>, %[[FLAT:.*]]: tensor<3200xf32>)
// CHECK: %[[T:.*]] = neuron.reshape %[[FLAT]] : tensor<3200xf32> -> tensor<100x32xf32>
// CHECK: %[[R:.*]] = neuron.gather %[[T]][%[[IDS]]] axis 0 : (tensor<100x32xf32>, tensor<1x12xi64>) -> tensor<1x12x32xf32>
// CHECK-NOT: cf.assert
// CHECK: return %[[R]]
func.func @gather_bounds_checks(%ids: tensor<1x12xi64>, %flat: tensor<3200xf32>) -> tensor<1x12x32xf32> {
  %c100 = arith.constant 100 : i64
  %c0 = arith.constant 0 : i64
  %table = tensor.expand_shape %flat [[0, 1]] output_shape [100, 32] : tensor<3200xf32> into tensor<100x32xf32>
  %e = tensor.empty() : tensor<1x12x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<1x12xi64>) outs(%e : tensor<1x12x32xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 2 : index
    %lt = arith.cmpi slt, %id, %c100 : i64
    cf.assert %lt, "index must be smaller than dim size"
    %ge = arith.cmpi sge, %id, %c0 : i64
    cf.assert %ge, "index must be larger or equal to 0"
    %v = tensor.extract %table[%row, %col] : tensor<100x32xf32>
    linalg.yield %v : f32
  } -> tensor<1x12x32xf32>
  return %r : tensor<1x12x32xf32>
}

// -----

// Tests that a gather whose table column comes from a loop that does not
// span the table dimension (a partial read) is left.
// CHECK-LABEL: func.func @gather_partial_column_left
// CHECK: linalg.generic
// CHECK: tensor.extract
// CHECK-NOT: neuron.gather
func.func @gather_partial_column_left(%ids: tensor<1x12xi64>, %flat: tensor<3200xf32>) -> tensor<1x12x16xf32> {
  %table = tensor.expand_shape %flat [[0, 1]] output_shape [100, 32] : tensor<3200xf32> into tensor<100x32xf32>
  %e = tensor.empty() : tensor<1x12x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<1x12xi64>) outs(%e : tensor<1x12x16xf32>) {
  ^bb0(%id: i64, %o: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 2 : index
    %v = tensor.extract %table[%row, %col] : tensor<100x32xf32>
    linalg.yield %v : f32
  } -> tensor<1x12x16xf32>
  return %r : tensor<1x12x16xf32>
}

// -----

// Tests a gather on axis 1: the row comes from linalg.index 0, the column
// from the ids.
// CHECK-LABEL: func.func @gather_axis_1
// CHECK-SAME: (%[[IDS:.*]]: tensor<5xi32>, %[[FLAT:.*]]: tensor<64xf32>)
// CHECK: %[[T:.*]] = neuron.reshape %[[FLAT]] : tensor<64xf32> -> tensor<4x16xf32>
// CHECK: %[[R:.*]] = neuron.gather %[[T]][%[[IDS]]] axis 1 : (tensor<4x16xf32>, tensor<5xi32>) -> tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @gather_axis_1(%ids: tensor<5xi32>, %flat: tensor<64xf32>) -> tensor<4x5xf32> {
  %table = tensor.expand_shape %flat [[0, 1]] output_shape [4, 16] : tensor<64xf32> into tensor<4x16xf32>
  %e = tensor.empty() : tensor<4x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<5xi32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%id: i32, %o: f32):
    %col = arith.index_cast %id : i32 to index
    %row = linalg.index 0 : index
    %v = tensor.extract %table[%row, %col] : tensor<4x16xf32>
    linalg.yield %v : f32
  } -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// Tests a gather whose output map is transposed: the gathered rows are
// transposed into the output layout.
// CHECK-LABEL: func.func @gather_transposed_output
// CHECK-SAME: (%[[IDS:.*]]: tensor<5xi32>, %[[FLAT:.*]]: tensor<64xf32>)
// CHECK: %[[T:.*]] = neuron.reshape %[[FLAT]] : tensor<64xf32> -> tensor<16x4xf32>
// CHECK: %[[G:.*]] = neuron.gather %[[T]][%[[IDS]]] axis 0 : (tensor<16x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>
// CHECK: %[[R:.*]] = neuron.transpose %[[G]] permutation [1, 0] : tensor<5x4xf32> -> tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @gather_transposed_output(%ids: tensor<5xi32>, %flat: tensor<64xf32>) -> tensor<4x5xf32> {
  %table = tensor.expand_shape %flat [[0, 1]] output_shape [16, 4] : tensor<64xf32> into tensor<16x4xf32>
  %e = tensor.empty() : tensor<4x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<5xi32>) outs(%e : tensor<4x5xf32>) {
  ^bb0(%id: i32, %o: f32):
    %row = arith.index_cast %id : i32 to index
    %col = linalg.index 1 : index
    %v = tensor.extract %table[%row, %col] : tensor<16x4xf32>
    linalg.yield %v : f32
  } -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// Tests a KV cache write as exporters spell it: tensor.insert_slice of a
// step's rows at a position read with tensor.extract, whole along every
// other dimension, becomes neuron.dynamic_update_slice on that axis (the
// rank-reduced slice reshaped back to the cache's rank).
// CHECK-LABEL: func.func @insert_at_position
// CHECK-SAME: (%[[CACHE:.*]]: tensor<2x8x16x4xf32>, %[[KV:.*]]: tensor<2x8x4xf32>, %[[POS:.*]]: tensor<1xi64>)
// CHECK: %[[ROWS:.*]] = neuron.reshape %[[KV]] : tensor<2x8x4xf32> -> tensor<2x8x1x4xf32>
// CHECK: %[[NEW:.*]] = neuron.dynamic_update_slice %[[ROWS]] into %[[CACHE]][%[[POS]]] axis 2 : (tensor<2x8x1x4xf32>, tensor<2x8x16x4xf32>, tensor<1xi64>) -> tensor<2x8x16x4xf32>
// CHECK: return %[[NEW]]
func.func @insert_at_position(%cache: tensor<2x8x16x4xf32>, %kv: tensor<2x8x4xf32>, %pos: tensor<1xi64>) -> tensor<2x8x16x4xf32> {
  %c0 = arith.constant 0 : index
  %p = tensor.extract %pos[%c0] : tensor<1xi64>
  %i = arith.index_cast %p : i64 to index
  %0 = tensor.insert_slice %kv into %cache[0, 0, %i, 0] [2, 8, 1, 4] [1, 1, 1, 1] : tensor<2x8x4xf32> into tensor<2x8x16x4xf32>
  return %0 : tensor<2x8x16x4xf32>
}

// -----

// Tests that an insert at a run-time position that is not whole along a
// static dimension, or whose position is not read from a tensor, stays.
// CHECK-LABEL: func.func @insert_not_a_cache_write
// CHECK-NOT: neuron.dynamic_update_slice
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice
func.func @insert_not_a_cache_write(%cache: tensor<16x4xf32>, %row: tensor<1x2xf32>, %pos: tensor<i32>, %i: index) -> (tensor<16x4xf32>, tensor<16x4xf32>) {
  %p = tensor.extract %pos[] : tensor<i32>
  %j = arith.index_cast %p : i32 to index
  %0 = tensor.insert_slice %row into %cache[%j, 0] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<16x4xf32>
  %r = tensor.empty() : tensor<1x4xf32>
  %1 = tensor.insert_slice %r into %cache[%i, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<16x4xf32>
  return %0, %1 : tensor<16x4xf32>, tensor<16x4xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>

// Tests the same write spelt as a generic selecting, at the row whose index
// equals the position, the new row (broadcast along the rows) over the old
// cache; the comparison may put the position on either side. The raise
// warns that a position outside the cache now stops the run.
// CHECK-LABEL: func.func @select_at_position
// CHECK-SAME: (%[[CACHE:.*]]: tensor<16x64xf32>, %[[NEW:.*]]: tensor<64xf32>, %[[POS:.*]]: tensor<i64>)
// CHECK: %[[ROW:.*]] = neuron.reshape %[[NEW]] : tensor<64xf32> -> tensor<1x64xf32>
// CHECK: neuron.dynamic_update_slice %[[ROW]] into %[[CACHE]][%[[POS]]] axis 0 : (tensor<1x64xf32>, tensor<16x64xf32>, tensor<i64>) -> tensor<16x64xf32>
// CHECK-NOT: linalg.generic
func.func @select_at_position(%cache: tensor<16x64xf32>, %new: tensor<64xf32>, %pos: tensor<i64>) -> tensor<16x64xf32> {
  %p = tensor.extract %pos[] : tensor<i64>
  %e = tensor.empty() : tensor<16x64xf32>
  // expected-warning@+1 {{a write selected by a position read at run time becomes a transfer at that position: a position outside [0, 15] stops the run where this op would write nothing}}
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%cache, %new : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%old: f32, %n: f32, %o: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %here = arith.cmpi eq, %p, %ii : i64
    %r = arith.select %here, %n, %old : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests a causal mask against a position read at run time: the column
// indices become an i32 iota broadcast over the rows, the i64 position is
// narrowed to i32 (with a warning) and broadcast, and they are compared.
// CHECK-LABEL: func.func @mask_past_position
// CHECK-SAME: (%[[S:.*]]: tensor<2x8xf32>, %[[POS:.*]]: tensor<i64>)
// CHECK-DAG: %[[IOTA:.*]] = neuron.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi32>
// CHECK-DAG: %[[COLS:.*]] = neuron.broadcast %[[IOTA]] {{.*}} -> tensor<2x8xi32>
// CHECK-DAG: %[[P32:.*]] = neuron.cast %[[POS]] : tensor<i64> -> tensor<i32>
// CHECK-DAG: %[[P:.*]] = neuron.broadcast %[[P32]] {{.*}} -> tensor<2x8xi32>
// CHECK: %[[FUTURE:.*]] = neuron.compare gt %[[COLS]], %[[P]] : tensor<2x8xi32> -> tensor<2x8xi1>
// CHECK: neuron.select %[[FUTURE]]
func.func @mask_past_position(%s: tensor<2x8xf32>, %pos: tensor<i64>) -> tensor<2x8xf32> {
  %p = tensor.extract %pos[] : tensor<i64>
  %e = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    // expected-warning@+1 {{the position read at run time is compared with loop indices in i32 (exact for values below 2^31)}}
    %future = arith.cmpi sgt, %jj, %p : i64
    %neg = arith.constant -1.0e9 : f32
    %r = arith.select %future, %neg, %a : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Tests loop indices compared with constants (the first column, columns
// past 5 as an i64): an i32 iota against an i32 splat.
// CHECK-LABEL: func.func @mask_by_constant
// CHECK-DAG: %[[IOTA:.*]] = neuron.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi32>
// CHECK-DAG: %[[ZERO:.*]] = neuron.constant dense<0> : tensor<2x8xi32>
// CHECK-DAG: %[[FIVE:.*]] = neuron.constant dense<5> : tensor<2x8xi32>
// CHECK-DAG: neuron.broadcast %[[IOTA]] {{.*}} -> tensor<2x8xi32>
// CHECK-DAG: neuron.compare eq %{{.*}}, %[[ZERO]] : tensor<2x8xi32> -> tensor<2x8xi1>
// CHECK-DAG: neuron.compare gt %{{.*}}, %[[FIVE]] : tensor<2x8xi32> -> tensor<2x8xi1>
// CHECK-NOT: linalg.generic
func.func @mask_by_constant(%s: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : i64
  %e = tensor.empty() : tensor<2x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %j = linalg.index 1 : index
    %first = arith.cmpi eq, %j, %c0 : index
    %jj = arith.index_cast %j : index to i64
    %late = arith.cmpi sgt, %jj, %c5 : i64
    %neg = arith.constant -1.0e9 : f32
    %zero = arith.constant 0.0 : f32
    %v = arith.select %first, %neg, %a : f32
    %r = arith.select %late, %zero, %v : f32
    linalg.yield %r : f32
  } -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests a RoPE table read at a position read with tensor.extract: the
// rank-reduced tensor.extract_slice becomes neuron.dynamic_slice on the
// rows, reshaped to the slice's type.
// CHECK-LABEL: func.func @extract_at_position
// CHECK-SAME: (%[[COS:.*]]: tensor<64x16xf32>, %[[POS:.*]]: tensor<i64>)
// CHECK: %[[ROW:.*]] = neuron.dynamic_slice %[[COS]][%[[POS]]] axis 0 : (tensor<64x16xf32>, tensor<i64>) -> tensor<1x16xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[ROW]] : tensor<1x16xf32> -> tensor<16xf32>
// CHECK: return %[[R]]
func.func @extract_at_position(%cos: tensor<64x16xf32>, %pos: tensor<i64>) -> tensor<16xf32> {
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %0 = tensor.extract_slice %cos[%i, 0] [1, 16] [1, 1] : tensor<64x16xf32> to tensor<16xf32>
  return %0 : tensor<16xf32>
}
