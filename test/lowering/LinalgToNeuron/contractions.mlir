// RUN: neuron-opt %s -split-input-file -convert-linalg-to-neuron | FileCheck %s

// Tests that linalg.matmul with a zero splat-constant init becomes a bare
// neuron.matmul: the zero accumulator needs no add.
// CHECK-LABEL: func.func @matmul_zero_splat_init
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK: %[[R:.*]] = neuron.matmul %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NOT: neuron.add
// CHECK: return %[[R]]
func.func @matmul_zero_splat_init(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that a linalg.fill of zero counts as a zero accumulator.
// CHECK-LABEL: func.func @matmul_fill_zero_init
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[R:.*]] = neuron.matmul %[[A]], %[[B]]
// CHECK-NOT: neuron.add
// CHECK: return %[[R]]
func.func @matmul_fill_zero_init(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %zero = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that a non-zero accumulator init becomes an explicit add after the
// matmul.
// CHECK-LABEL: func.func @matmul_nonzero_init
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>, %[[C:.*]]: tensor<4x16xf32>)
// CHECK: %[[M:.*]] = neuron.matmul %[[A]], %[[B]]
// CHECK: %[[R:.*]] = neuron.add %[[M]], %[[C]] : tensor<4x16xf32>
// CHECK: return %[[R]]
func.func @matmul_nonzero_init(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that a tensor.empty init (undefined) is treated as zero: no add.
// CHECK-LABEL: func.func @matmul_empty_init
// CHECK: %[[R:.*]] = neuron.matmul
// CHECK-NOT: neuron.add
// CHECK: return %[[R]]
func.func @matmul_empty_init(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>)
                     outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that linalg.batch_matmul becomes neuron.batch_matmul.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>, %[[B:.*]]: tensor<2x8x16xf32>)
// CHECK: %[[R:.*]] = neuron.batch_matmul %[[A]], %[[B]] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
// CHECK: return %[[R]]
func.func @batch_matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x16xf32>
  %zero = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x16xf32>)
                           outs(%zero : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// -----

// Tests that a generic matmul reading B as (n, k) transposes B into (k, n).
// CHECK-LABEL: func.func @generic_matmul_transposed_b
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<16x8xf32>)
// CHECK: %[[BT:.*]] = neuron.transpose %[[B]] permutation [1, 0] : tensor<16x8xf32> -> tensor<8x16xf32>
// CHECK: %[[R:.*]] = neuron.matmul %[[A]], %[[BT]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: return %[[R]]
func.func @generic_matmul_transposed_b(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<16x8xf32>) outs(%zero : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that a matmul with both operands and the result transposed (A read
// as (k, m), B as (n, k), out written as (n, m), the accumulator the second
// addf operand) is out = B x A: the operands swap and no transpose is needed.
// CHECK-LABEL: func.func @generic_matmul_all_transposed
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<16x8xf32>)
// CHECK-NOT: neuron.transpose
// CHECK: %[[M:.*]] = neuron.matmul %[[B]], %[[A]] : (tensor<16x8xf32>, tensor<8x4xf32>) -> tensor<16x4xf32>
// CHECK: return %[[M]]
func.func @generic_matmul_all_transposed(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>) -> tensor<16x4xf32> {
  %zero = arith.constant dense<0.0> : tensor<16x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (n, m)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x4xf32>, tensor<16x8xf32>) outs(%zero : tensor<16x4xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16x4xf32>
  return %r : tensor<16x4xf32>
}

// -----

// Tests that linalg.matmul with transposing indexing_maps is handled like
// the generic form.
// CHECK-LABEL: func.func @matmul_indexing_maps
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<16x8xf32>)
// CHECK: %[[BT:.*]] = neuron.transpose %[[B]] permutation [1, 0]
// CHECK: neuron.matmul %[[A]], %[[BT]]
// CHECK-NOT: linalg.matmul
func.func @matmul_indexing_maps(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<4x8xf32>, tensor<16x8xf32>) outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that a batch dimension that is not leading in an operand is
// transposed to the front.
// CHECK-LABEL: func.func @generic_batch_matmul_batch_in_middle
// CHECK-SAME: (%[[A:.*]]: tensor<4x2x8xf32>, %[[B:.*]]: tensor<2x8x16xf32>)
// CHECK: %[[AT:.*]] = neuron.transpose %[[A]] permutation [1, 0, 2] : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
// CHECK: %[[R:.*]] = neuron.batch_matmul %[[AT]], %[[B]] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
// CHECK: return %[[R]]
func.func @generic_batch_matmul_batch_in_middle(%a: tensor<4x2x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (m, b, k)>,
                                        affine_map<(b, m, n, k) -> (b, k, n)>,
                                        affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x2x8xf32>, tensor<2x8x16xf32>) outs(%zero : tensor<2x4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x4x16xf32>
  return %r : tensor<2x4x16xf32>
}

// -----

// Tests that bf16 x bf16 -> f32 with extf in the body is a mixed-precision
// neuron.matmul on the bf16 operands (no casts).
// CHECK-LABEL: func.func @matmul_bf16_f32_acc
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xbf16>, %[[B:.*]]: tensor<8x16xbf16>)
// CHECK-NOT: neuron.cast
// CHECK: %[[R:.*]] = neuron.matmul %[[A]], %[[B]] : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xf32>
// CHECK: return %[[R]]
func.func @matmul_bf16_f32_acc(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%zero : tensor<4x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that the named i8 x i8 -> i32 matmul (extsi in its body) becomes an
// integer neuron.matmul with an i32 accumulator.
// CHECK-LABEL: func.func @matmul_i8_i32_acc
// CHECK: neuron.matmul %{{.*}}, %{{.*}} : (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32>
// CHECK-NOT: linalg.matmul
func.func @matmul_i8_i32_acc(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>) -> tensor<4x16xi32> {
  %zero = arith.constant dense<0> : tensor<4x16xi32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>)
                     outs(%zero : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %r : tensor<4x16xi32>
}

// -----

// Tests that a matvec (no N dimension) is a matmul against the vector
// reshaped to a column, and the result reshaped back.
// CHECK-LABEL: func.func @matvec
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[V:.*]]: tensor<8xf32>)
// CHECK: %[[COL:.*]] = neuron.reshape %[[V]] : tensor<8xf32> -> tensor<8x1xf32>
// CHECK: %[[M:.*]] = neuron.matmul %[[A]], %[[COL]] : (tensor<4x8xf32>, tensor<8x1xf32>) -> tensor<4x1xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[M]] : tensor<4x1xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @matvec(%a: tensor<4x8xf32>, %v: tensor<8xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.matvec ins(%a, %v : tensor<4x8xf32>, tensor<8xf32>)
                     outs(%zero : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a vecmat (no M dimension) reshapes the vector to a row.
// CHECK-LABEL: func.func @vecmat
// CHECK-SAME: (%[[V:.*]]: tensor<8xf32>, %[[A:.*]]: tensor<8x4xf32>)
// CHECK: %[[ROW:.*]] = neuron.reshape %[[V]] : tensor<8xf32> -> tensor<1x8xf32>
// CHECK: %[[M:.*]] = neuron.matmul %[[ROW]], %[[A]] : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[M]] : tensor<1x4xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @vecmat(%v: tensor<8xf32>, %a: tensor<8x4xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.vecmat ins(%v, %a : tensor<8xf32>, tensor<8x4xf32>)
                     outs(%zero : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that linalg.quantized_matmul with zero zero-points is the plain
// i8 x i8 -> i32 matmul.
// CHECK-LABEL: func.func @quantized_matmul_zero_points_zero
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xi8>, %[[B:.*]]: tensor<8x16xi8>)
// CHECK-NOT: neuron.cast
// CHECK-NOT: neuron.sub
// CHECK: %[[R:.*]] = neuron.matmul %[[A]], %[[B]] : (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32>
// CHECK: return %[[R]]
func.func @quantized_matmul_zero_points_zero(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>) -> tensor<4x16xi32> {
  %zp = arith.constant 0 : i32
  %zero = arith.constant dense<0> : tensor<4x16xi32>
  %r = linalg.quantized_matmul ins(%a, %b, %zp, %zp : tensor<4x8xi8>, tensor<8x16xi8>, i32, i32)
                               outs(%zero : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %r : tensor<4x16xi32>
}

// -----

// Tests that a non-zero zero point widens the operands to i32 and subtracts
// it first, and that the bias init becomes an add.
// CHECK-LABEL: func.func @quantized_matmul_nonzero_zero_point
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xi8>, %[[B:.*]]: tensor<8x16xi8>, %[[BIAS:.*]]: tensor<4x16xi32>)
// CHECK-DAG: %[[ZP:.*]] = neuron.constant dense<-128> : tensor<4x8xi32>
// CHECK-DAG: %[[AW:.*]] = neuron.cast %[[A]] : tensor<4x8xi8> -> tensor<4x8xi32>
// CHECK-DAG: %[[AC:.*]] = neuron.sub %[[AW]], %[[ZP]] : tensor<4x8xi32>
// CHECK-DAG: %[[BW:.*]] = neuron.cast %[[B]] : tensor<8x16xi8> -> tensor<8x16xi32>
// CHECK: %[[M:.*]] = neuron.matmul %[[AC]], %[[BW]] : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
// CHECK: %[[R:.*]] = neuron.add %[[M]], %[[BIAS]] : tensor<4x16xi32>
// CHECK: return %[[R]]
func.func @quantized_matmul_nonzero_zero_point(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %bias: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %azp = arith.constant -128 : i32
  %bzp = arith.constant 0 : i32
  %r = linalg.quantized_matmul ins(%a, %b, %azp, %bzp : tensor<4x8xi8>, tensor<8x16xi8>, i32, i32)
                               outs(%bias : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %r : tensor<4x16xi32>
}

// -----

// Tests that a quantized matmul whose zero point is not a constant is left.
// CHECK-LABEL: func.func @quantized_matmul_dynamic_zero_point
// CHECK: linalg.quantized_matmul
// CHECK-NOT: neuron.matmul
func.func @quantized_matmul_dynamic_zero_point(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %azp: i32) -> tensor<4x16xi32> {
  %zp = arith.constant 0 : i32
  %zero = arith.constant dense<0> : tensor<4x16xi32>
  %r = linalg.quantized_matmul ins(%a, %b, %azp, %zp : tensor<4x8xi8>, tensor<8x16xi8>, i32, i32)
                               outs(%zero : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %r : tensor<4x16xi32>
}

// -----

// Tests that a contraction over two K dimensions merges them: each
// operand reshaped to K = 8 x 2, one matmul.
// CHECK-LABEL: func.func @two_reduction_dims
// CHECK-SAME: (%[[A:.*]]: tensor<4x8x2xf32>, %[[B:.*]]: tensor<8x2x16xf32>)
// CHECK: %[[AK:.*]] = neuron.reshape %[[A]] : tensor<4x8x2xf32> -> tensor<4x16xf32>
// CHECK: %[[BK:.*]] = neuron.reshape %[[B]] : tensor<8x2x16xf32> -> tensor<16x16xf32>
// CHECK: %[[R:.*]] = neuron.matmul %[[AK]], %[[BK]] : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
// CHECK: return %[[R]]
func.func @two_reduction_dims(%a: tensor<4x8x2xf32>, %b: tensor<8x2x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>,
                                        affine_map<(m, n, k1, k2) -> (k1, k2, n)>,
                                        affine_map<(m, n, k1, k2) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : tensor<4x8x2xf32>, tensor<8x2x16xf32>) outs(%zero : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests JAX's dense layer over [batch, sequence, hidden] (two M
// dimensions): the rows merge into one M, one matmul, the result reshaped
// back.
// CHECK-LABEL: func.func @dense_over_sequence
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x8xf32>, %[[W:.*]]: tensor<8x6xf32>)
// CHECK: %[[XM:.*]] = neuron.reshape %[[X]] : tensor<2x5x8xf32> -> tensor<10x8xf32>
// CHECK: %[[P:.*]] = neuron.matmul %[[XM]], %[[W]] : (tensor<10x8xf32>, tensor<8x6xf32>) -> tensor<10x6xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[P]] : tensor<10x6xf32> -> tensor<2x5x6xf32>
// CHECK: return %[[R]]
func.func @dense_over_sequence(%x: tensor<2x5x8xf32>, %w: tensor<8x6xf32>) -> tensor<2x5x6xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x5x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, s, d, h) -> (b, s, h)>,
                                        affine_map<(b, s, d, h) -> (h, d)>,
                                        affine_map<(b, s, d, h) -> (b, s, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x5x8xf32>, tensor<8x6xf32>) outs(%zero : tensor<2x5x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x5x6xf32>
  return %r : tensor<2x5x6xf32>
}

// -----

// Tests attention's scores over images and heads in JAX's [b, q, h, d]
// layout (two batch dimensions): each operand transposed to [b, h, q, d]
// and [b, h, d, k], the batch dimensions merged, one batch_matmul over the
// 6 image-heads, the result reshaped to [b, h, q, k].
// CHECK-LABEL: func.func @scores_over_heads
// CHECK-SAME: (%[[Q:.*]]: tensor<2x5x3x4xf32>, %[[K:.*]]: tensor<2x7x3x4xf32>)
// CHECK: %[[QT:.*]] = neuron.transpose %[[Q]] permutation [0, 2, 1, 3] : tensor<2x5x3x4xf32> -> tensor<2x3x5x4xf32>
// CHECK: %[[KT:.*]] = neuron.transpose %[[K]] permutation [0, 2, 3, 1] : tensor<2x7x3x4xf32> -> tensor<2x3x4x7xf32>
// CHECK: %[[QB:.*]] = neuron.reshape %[[QT]] : tensor<2x3x5x4xf32> -> tensor<6x5x4xf32>
// CHECK: %[[KB:.*]] = neuron.reshape %[[KT]] : tensor<2x3x4x7xf32> -> tensor<6x4x7xf32>
// CHECK: %[[P:.*]] = neuron.batch_matmul %[[QB]], %[[KB]] : (tensor<6x5x4xf32>, tensor<6x4x7xf32>) -> tensor<6x5x7xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[P]] : tensor<6x5x7xf32> -> tensor<2x3x5x7xf32>
// CHECK: return %[[R]]
func.func @scores_over_heads(%q: tensor<2x5x3x4xf32>, %k: tensor<2x7x3x4xf32>) -> tensor<2x3x5x7xf32> {
  %zero = arith.constant dense<0.0> : tensor<2x3x5x7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, i, h, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, j, h, d)>,
                                        affine_map<(b, h, i, j, d) -> (b, h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x5x3x4xf32>, tensor<2x7x3x4xf32>) outs(%zero : tensor<2x3x5x7xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5x7xf32>
  return %r : tensor<2x3x5x7xf32>
}

// -----

// Tests that a matmul of bf16 by f32 (mismatched operand element types) is
// left as it is.
// CHECK-LABEL: func.func @mismatched_element_types
// CHECK: linalg.matmul
// CHECK-NOT: neuron.matmul
func.func @mismatched_element_types(%a: tensor<4x8xbf16>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xf32>)
                     outs(%zero : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that an unsigned i8 matmul (extui in the body) is left: neuron
// integer matmuls are signed.
// CHECK-LABEL: func.func @matmul_unsigned
// CHECK: linalg.matmul
// CHECK-NOT: neuron.matmul
func.func @matmul_unsigned(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>) -> tensor<4x16xi32> {
  %zero = arith.constant dense<0> : tensor<4x16xi32>
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>}
      ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%zero : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %r : tensor<4x16xi32>
}

// -----

// Tests that a multiply-subtract (`acc - a * b`) is not taken for a matmul.
// CHECK-LABEL: func.func @multiply_subtract
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK-NOT: neuron.matmul
func.func @multiply_subtract(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.subf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}
