// RUN: neuron-opt %s -split-input-file -convert-linalg-to-neuron | FileCheck %s

// Tests a sum over the last axis with a zero fill init.
// CHECK-LABEL: func.func @sum_last_axis
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NOT: neuron.add
// CHECK: return %[[R]]
func.func @sum_last_axis(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests a max over a middle axis with a -inf fill init.
// CHECK-LABEL: func.func @max_middle_axis
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK: %[[R:.*]] = neuron.reduce_max %[[X]] axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
// CHECK-NOT: neuron.max
// CHECK: return %[[R]]
func.func @max_middle_axis(%x: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<2x4x8xf32>) outs(%init : tensor<2x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// Tests a min over a middle axis with a +inf fill init.
// CHECK-LABEL: func.func @min_middle_axis
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK: %[[R:.*]] = neuron.reduce_min %[[X]] axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
// CHECK-NOT: neuron.min
// CHECK: return %[[R]]
func.func @min_middle_axis(%x: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  %inf = arith.constant 0x7F800000 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %init = linalg.fill ins(%inf : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<2x4x8xf32>) outs(%init : tensor<2x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.minimumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// Tests a keep-dim output map `(d0, d1) -> (d0, 0)`: the reduced value is
// reshaped to keep the unit dimension.
// CHECK-LABEL: func.func @sum_keep_dim
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[S:.*]] = neuron.reduce_sum %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: %[[R:.*]] = neuron.reshape %[[S]] : tensor<4xf32> -> tensor<4x1xf32>
// CHECK: return %[[R]]
func.func @sum_keep_dim(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%zero : tensor<4x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

// Tests a combiner with the accumulator as its first operand (as JAX
// writes it).
// CHECK-LABEL: func.func @sum_out_first
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @sum_out_first(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a sum with an init that is not zero adds the init.
// CHECK-LABEL: func.func @sum_nonzero_init
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4xf32>)
// CHECK: %[[S:.*]] = neuron.reduce_sum %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: %[[R:.*]] = neuron.add %[[S]], %[[I]] : tensor<4xf32>
// CHECK: return %[[R]]
func.func @sum_nonzero_init(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a max starting from 0 (not -inf) takes the max with the init.
// CHECK-LABEL: func.func @max_nonidentity_init
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[Z:.*]] = neuron.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[M:.*]] = neuron.reduce_max %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: %[[R:.*]] = neuron.max %[[M]], %[[Z]] : tensor<4xf32>
// CHECK: return %[[R]]
func.func @max_nonidentity_init(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a max reduction into tensor.empty (llama's uninitialised
// softmax max) is a plain reduce_max.
// CHECK-LABEL: func.func @max_empty_init
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.reduce_max %[[X]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK-NOT: neuron.max
// CHECK: return %[[R]]
func.func @max_empty_init(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests linalg.reduce with an addf combiner.
// CHECK-LABEL: func.func @linalg_reduce_sum
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[X]] axes [2] : tensor<2x4x8xf32> -> tensor<2x4xf32>
// CHECK-NOT: linalg.reduce
// CHECK: return %[[R]]
func.func @linalg_reduce_sum(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %init = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = linalg.reduce ins(%x : tensor<2x4x8xf32>) outs(%init : tensor<2x4xf32>) dimensions = [2]
    (%a: f32, %acc: f32) {
      %s = arith.addf %a, %acc : f32
      linalg.yield %s : f32
    }
  return %r : tensor<2x4xf32>
}

// -----

// Tests linalg.reduce with maximumf and the -FLT_MAX init TOSA uses: the
// init stays as a max (it differs from -inf on rows of -inf).
// CHECK-LABEL: func.func @linalg_reduce_max_flt_max_init
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
// CHECK: %[[M:.*]] = neuron.reduce_max %[[X]] axes [1] : tensor<2x4x8xf32> -> tensor<2x8xf32>
// CHECK: %[[R:.*]] = neuron.max %[[M]], %{{.*}} : tensor<2x8xf32>
// CHECK: return %[[R]]
func.func @linalg_reduce_max_flt_max_init(%x: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  %min = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %init = linalg.fill ins(%min : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = linalg.reduce ins(%x : tensor<2x4x8xf32>) outs(%init : tensor<2x8xf32>) dimensions = [1]
    (%a: f32, %acc: f32) {
      %m = arith.maximumf %a, %acc : f32
      linalg.yield %m : f32
    }
  return %r : tensor<2x8xf32>
}

// -----

// Tests a mean written as divf by a body constant then addf (llama's
// `PPRP` form): the divide runs elementwise before the sum.
// CHECK-LABEL: func.func @mean_divf_addf
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x16xf32>)
// CHECK: %[[N:.*]] = neuron.constant dense<8.000000e+00> : tensor<1x4x8x16xf32>
// CHECK: %[[D:.*]] = neuron.div %[[X]], %[[N]] : tensor<1x4x8x16xf32>
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[D]] axes [2] : tensor<1x4x8x16xf32> -> tensor<1x4x16xf32>
// CHECK: return %[[R]]
func.func @mean_divf_addf(%x: tensor<1x4x8x16xf32>) -> tensor<1x4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>],
                       iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%x : tensor<1x4x8x16xf32>) outs(%zero : tensor<1x4x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %n = arith.constant 8.0 : f32
    %q = arith.divf %a, %n : f32
    %s = arith.addf %q, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1x4x16xf32>
  return %r : tensor<1x4x16xf32>
}

// -----

// Tests a sum over two reduction loops read in permuted order (JAX's global
// average pool): the input is transposed into loop order first.
// CHECK-LABEL: func.func @sum_two_axes_permuted
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x6xf32>)
// CHECK: %[[T:.*]] = neuron.transpose %[[X]] permutation [0, 2, 1] : tensor<4x8x6xf32> -> tensor<4x6x8xf32>
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[T]] axes [1, 2] : tensor<4x6x8xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @sum_two_axes_permuted(%x: tensor<4x8x6xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0)>],
                       iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x8x6xf32>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests a mixed-precision sum: bf16 input extended to f32 in the body is
// cast before the reduction.
// CHECK-LABEL: func.func @sum_bf16_in_f32
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// CHECK: %[[C:.*]] = neuron.cast %[[X]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[C]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @sum_bf16_in_f32(%x: tensor<4x8xbf16>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xbf16>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %w = arith.extf %a : bf16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests the argmax generic (max value and index, two outputs) whose index
// result is unused: the value result is raised to reduce_max and the
// index computation dropped.
// CHECK-LABEL: func.func @argmax_value_only
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>)
// CHECK: %[[R:.*]] = neuron.reduce_max %[[X]] axes [1] : tensor<16x64xf32> -> tensor<16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @argmax_value_only(%x: tensor<16x64xf32>) -> tensor<16xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %ev = tensor.empty() : tensor<16xf32>
  %ei = tensor.empty() : tensor<16xi64>
  %vinit = linalg.fill ins(%ninf : f32) outs(%ev : tensor<16xf32>) -> tensor<16xf32>
  %iinit = linalg.fill ins(%c0 : i64) outs(%ei : tensor<16xi64>) -> tensor<16xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%vinit, %iinit : tensor<16xf32>, tensor<16xi64>) {
  ^bb0(%in: f32, %vacc: f32, %iacc: i64):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %vacc : f32
    %gt = arith.cmpf ogt, %in, %vacc : f32
    %sel = arith.select %gt, %ii, %iacc : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<16xf32>, tensor<16xi64>)
  return %r#0 : tensor<16xf32>
}

// -----

// Tests that the argmax generic is left when its index result is used.
// CHECK-LABEL: func.func @argmax_index_used_left
// CHECK: %[[G:.*]]:2 = linalg.generic
// CHECK-NOT: neuron.reduce_max
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @argmax_index_used_left(%x: tensor<16x64xf32>) -> (tensor<16xf32>, tensor<16xi64>) {
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : i64
  %ev = tensor.empty() : tensor<16xf32>
  %ei = tensor.empty() : tensor<16xi64>
  %vinit = linalg.fill ins(%ninf : f32) outs(%ev : tensor<16xf32>) -> tensor<16xf32>
  %iinit = linalg.fill ins(%c0 : i64) outs(%ei : tensor<16xi64>) -> tensor<16xi64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%vinit, %iinit : tensor<16xf32>, tensor<16xi64>) {
  ^bb0(%in: f32, %vacc: f32, %iacc: i64):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %vacc : f32
    %gt = arith.cmpf ogt, %in, %vacc : f32
    %sel = arith.select %gt, %ii, %iacc : i64
    linalg.yield %m, %sel : f32, i64
  } -> (tensor<16xf32>, tensor<16xi64>)
  return %r#0, %r#1 : tensor<16xf32>, tensor<16xi64>
}

// -----

// Tests that a product reduction (mulf combiner, no neuron counterpart) is
// left.
// CHECK-LABEL: func.func @product_left
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK-NOT: neuron.reduce
func.func @product_left(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%one : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %acc : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a reduction whose inputs are each broadcast along a parallel
// loop (evaluating it elementwise would materialise the M x N x K product)
// is left.
// CHECK-LABEL: func.func @broadcasting_reduction_left
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK-NOT: neuron.reduce_sum
func.func @broadcasting_reduction_left(%x: tensor<4x8xf32>, %y: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<8x16xf32>) outs(%zero : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %s = arith.addf %d, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that a combiner reading the accumulator in the partial value too
// (`acc + acc * x`) is left.
// CHECK-LABEL: func.func @accumulator_in_partial_left
// CHECK: linalg.generic
// CHECK-NOT: neuron.reduce_sum
func.func @accumulator_in_partial_left(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %acc, %a : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests an i8 sum accumulated in i32 (extsi in the body): the input is
// widened before the reduction.
// CHECK-LABEL: func.func @sum_i8_in_i32
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xi8>)
// CHECK: %[[W:.*]] = neuron.cast %[[X]] : tensor<4x8xi8> -> tensor<4x8xi32>
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[W]] axes [1] : tensor<4x8xi32> -> tensor<4xi32>
// CHECK: return %[[R]]
func.func @sum_i8_in_i32(%x: tensor<4x8xi8>) -> tensor<4xi32> {
  %zero = arith.constant dense<0> : tensor<4xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xi8>) outs(%zero : tensor<4xi32>) {
  ^bb0(%a: i8, %acc: i32):
    %w = arith.extsi %a : i8 to i32
    %s = arith.addi %w, %acc : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// Tests the fused softmax denominator `sum(exp(x - max))`: the row max, read
// only along the parallel loop, is broadcast over the reduced one.
// CHECK-LABEL: func.func @sum_exp_minus_max
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4xf32>)
// CHECK: %[[MB:.*]] = neuron.broadcast %[[M]] dimensions [0] : tensor<4xf32> -> tensor<4x8xf32>
// CHECK: %[[D:.*]] = neuron.sub %[[X]], %[[MB]] : tensor<4x8xf32>
// CHECK: %[[E:.*]] = neuron.exp %[[D]] : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.reduce_sum %[[E]] axes [1] : tensor<4x8xf32> -> tensor<4xf32>
// CHECK: return %[[R]]
func.func @sum_exp_minus_max(%x: tensor<4x8xf32>, %m: tensor<4xf32>) -> tensor<4xf32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<4x8xf32>, tensor<4xf32>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests a reduction whose output map permutes the parallel loops: the
// reduced value is transposed into the output layout.
// CHECK-LABEL: func.func @sum_transposed_output
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8xf32>)
// CHECK: %[[S:.*]] = neuron.reduce_sum %[[X]] axes [2] : tensor<2x3x8xf32> -> tensor<2x3xf32>
// CHECK: %[[R:.*]] = neuron.transpose %[[S]] permutation [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @sum_transposed_output(%x: tensor<2x3x8xf32>) -> tensor<3x2xf32> {
  %zero = arith.constant dense<0.0> : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x3x8xf32>) outs(%zero : tensor<3x2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// Tests that a reduction combining with arith.maxnumf (NaN-ignoring)
// replaces each NaN by the identity before neuron.reduce_max.
// CHECK-LABEL: func.func @reduce_maxnumf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[NINF:.*]] = neuron.constant dense<0xFF800000> : tensor<4x8xf32>
// CHECK-DAG: %[[NAN:.*]] = neuron.compare ne %[[X]], %[[X]]
// CHECK: %[[CLEAN:.*]] = neuron.select %[[NAN]], %[[NINF]], %[[X]]
// CHECK: %[[R:.*]] = neuron.reduce_max %[[CLEAN]] axes [1]
// CHECK: return %[[R]]
func.func @reduce_maxnumf(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %i = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%i : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maxnumf %a, %acc : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
