// RUN: neuron-opt %s -split-input-file -convert-linalg-to-neuron | FileCheck %s

// Tests that an identity-map generic computing arith.addf becomes neuron.add.
// CHECK-LABEL: func.func @generic_addf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.add %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_addf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing arith.addi on i32 becomes neuron.add.
// CHECK-LABEL: func.func @generic_addi
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xi32>, %[[Y:.*]]: tensor<4x8xi32>)
// CHECK: %[[R:.*]] = neuron.add %[[X]], %[[Y]] : tensor<4x8xi32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_addi(%x: tensor<4x8xi32>, %y: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %e = tensor.empty() : tensor<4x8xi32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xi32>, tensor<4x8xi32>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%a: i32, %b: i32, %o: i32):
    %v = arith.addi %a, %b : i32
    linalg.yield %v : i32
  } -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// -----

// Tests that an identity-map generic computing arith.subf becomes neuron.sub.
// CHECK-LABEL: func.func @generic_subf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.sub %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_subf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.subf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing arith.mulf becomes neuron.mul.
// CHECK-LABEL: func.func @generic_mulf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.mul %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_mulf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.mulf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing arith.divf becomes neuron.div.
// CHECK-LABEL: func.func @generic_divf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.div %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_divf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.divf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that arith.maxnumf, which ignores a NaN operand, becomes neuron.max
// (which propagates NaN) with the other operand selected where one is NaN.
// CHECK-LABEL: func.func @generic_maxnumf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[M:.*]] = neuron.max %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK: %[[YN:.*]] = neuron.compare ne %[[Y]], %[[Y]]
// CHECK: %[[S:.*]] = neuron.select %[[YN]], %[[X]], %[[M]]
// CHECK: %[[XN:.*]] = neuron.compare ne %[[X]], %[[X]]
// CHECK: %[[R:.*]] = neuron.select %[[XN]], %[[Y]], %[[S]]
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_maxnumf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.maxnumf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing arith.maximumf becomes neuron.max.
// CHECK-LABEL: func.func @generic_maximumf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.max %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_maximumf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.maximumf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing arith.minimumf becomes neuron.min.
// CHECK-LABEL: func.func @generic_minimumf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.min %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_minimumf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = arith.minimumf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing math.powf becomes neuron.pow.
// CHECK-LABEL: func.func @generic_powf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.pow %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_powf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %v = math.powf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing arith.negf becomes neuron.neg.
// CHECK-LABEL: func.func @generic_negf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.neg %[[X]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_negf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = arith.negf %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing math.exp becomes neuron.exp.
// CHECK-LABEL: func.func @generic_exp
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.exp %[[X]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_exp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing math.log becomes neuron.log.
// CHECK-LABEL: func.func @generic_log
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.log %[[X]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_log(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.log %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing math.tanh becomes neuron.tanh.
// CHECK-LABEL: func.func @generic_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.tanh %[[X]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.tanh %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing math.sqrt becomes neuron.sqrt.
// CHECK-LABEL: func.func @generic_sqrt
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.sqrt %[[X]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_sqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sqrt %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing math.rsqrt becomes neuron.rsqrt.
// CHECK-LABEL: func.func @generic_rsqrt
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.rsqrt %[[X]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_rsqrt(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.rsqrt %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing math.erf becomes neuron.erf.
// CHECK-LABEL: func.func @generic_erf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.erf %[[X]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.erf %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an identity-map generic computing math.absf becomes neuron.abs.
// CHECK-LABEL: func.func @generic_absf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.abs %[[X]] : tensor<4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_absf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.absf %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that extf and fptosi in one two-result generic become neuron.cast
// each, the second reading the first.
// CHECK-LABEL: func.func @generic_extf_fptosi
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>)
// CHECK: %[[F:.*]] = neuron.cast %[[X]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK: %[[I:.*]] = neuron.cast %[[F]] : tensor<4x8xf32> -> tensor<4x8xi32>
// CHECK: return %[[F]], %[[I]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_extf_fptosi(%x: tensor<4x8xbf16>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
  %ef = tensor.empty() : tensor<4x8xf32>
  %ei = tensor.empty() : tensor<4x8xi32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xbf16>) outs(%ef, %ei : tensor<4x8xf32>, tensor<4x8xi32>) {
  ^bb0(%a: bf16, %o: f32, %o2: i32):
    %f = arith.extf %a : bf16 to f32
    %i = arith.fptosi %f : f32 to i32
    linalg.yield %f, %i : f32, i32
  } -> (tensor<4x8xf32>, tensor<4x8xi32>)
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xi32>
}

// -----

// Tests that sitofp followed by truncf becomes two neuron.cast ops.
// CHECK-LABEL: func.func @generic_sitofp_truncf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xi32>)
// CHECK: %[[F:.*]] = neuron.cast %[[X]] : tensor<4x8xi32> -> tensor<4x8xf32>
// CHECK: %[[H:.*]] = neuron.cast %[[F]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: return %[[H]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_sitofp_truncf(%x: tensor<4x8xi32>) -> tensor<4x8xbf16> {
  %e = tensor.empty() : tensor<4x8xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xi32>) outs(%e : tensor<4x8xbf16>) {
  ^bb0(%a: i32, %o: bf16):
    %f = arith.sitofp %a : i32 to f32
    %h = arith.truncf %f : f32 to bf16
    linalg.yield %h : bf16
  } -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}

// -----

// Tests that math.fpowi with a captured i32 exponent becomes neuron.pow with
// the exponent as a splat of the base type.
// CHECK-LABEL: func.func @generic_fpowi
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[N:.*]] = neuron.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.pow %[[X]], %[[N]] : tensor<4x8xf32>
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_fpowi(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c2 = arith.constant 2 : i32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = math.fpowi %a, %c2 : f32, i32
    linalg.yield %p : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a cmpf/select that is not a min or max becomes neuron.compare
// and neuron.select.
// CHECK-LABEL: func.func @generic_cmpf_select
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>, %[[Z:.*]]: tensor<4x8xf32>)
// CHECK: %[[C:.*]] = neuron.compare lt %[[X]], %[[Y]] : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK: %[[R:.*]] = neuron.select %[[C]], %[[Z]], %[[X]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_cmpf_select(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %z: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y, %z : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %p = arith.cmpf olt, %a, %b : f32
    %s = arith.select %p, %c, %a : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that the ReLU frontends write as `cmpf ugt` + select against a
// captured zero becomes a neuron.max with a zero splat, no compare.
// CHECK-LABEL: func.func @generic_select_relu
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[Z:.*]] = neuron.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.max %[[X]], %[[Z]] : tensor<4x8xf32>
// CHECK-NOT: neuron.compare
// CHECK-NOT: neuron.select
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_select_relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.cmpf ugt, %a, %c0 : f32
    %s = arith.select %c, %a, %c0 : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a select picking the smaller of its compared values (`a < b ?
// a : b`) becomes neuron.min, and the swapped form (`a < b ? b : a`)
// neuron.max.
// CHECK-LABEL: func.func @generic_select_min_and_max
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[MIN:.*]] = neuron.min %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK-DAG: %[[MAX:.*]] = neuron.max %[[Y]], %[[X]] : tensor<4x8xf32>
// CHECK-NOT: neuron.compare
// CHECK: return %[[MIN]], %[[MAX]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_select_min_and_max(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e, %e : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32, %o2: f32):
    %c = arith.cmpf olt, %a, %b : f32
    %min = arith.select %c, %a, %b : f32
    %max = arith.select %c, %b, %a : f32
    linalg.yield %min, %max : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests the TOSA clamp form (minimumf with FLT_MAX, then maximumf with 0).
// CHECK-LABEL: func.func @generic_clamp
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[LO:.*]] = neuron.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-DAG: %[[HI:.*]] = neuron.constant dense<3.40282347E+38> : tensor<4x8xf32>
// CHECK: %[[MIN:.*]] = neuron.min %[[X]], %[[HI]] : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.max %[[MIN]], %[[LO]] : tensor<4x8xf32>
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_clamp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 3.40282347E+38 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.minimumf %a, %hi : f32
    %n = arith.maximumf %m, %lo : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an operand read through `(d0, d1) -> (d1)` is broadcast along
// the missing loop.
// CHECK-LABEL: func.func @generic_broadcast_row
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[BB:.*]] = neuron.broadcast %[[B]] dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.add %[[X]], %[[BB]] : tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @generic_broadcast_row(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an operand read through `(d0, d1) -> (0, d1)` has its unit
// dimension reshaped away and is then broadcast.
// CHECK-LABEL: func.func @generic_broadcast_unit_dim
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<1x8xf32>)
// CHECK: %[[BR:.*]] = neuron.reshape %[[B]] : tensor<1x8xf32> -> tensor<8xf32>
// CHECK: %[[BB:.*]] = neuron.broadcast %[[BR]] dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.mul %[[X]], %[[BB]] : tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @generic_broadcast_unit_dim(%x: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<1x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.mulf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a 0-d operand read through `()` is broadcast to the loop shape.
// CHECK-LABEL: func.func @generic_broadcast_0d
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<f32>)
// CHECK: %[[SB:.*]] = neuron.broadcast %[[S]] dimensions [] : tensor<f32> -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.sub %[[X]], %[[SB]] : tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @generic_broadcast_0d(%x: tensor<4x8xf32>, %s: tensor<f32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %d = arith.subf %a, %c : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a captured scalar constant becomes a splat, keeping the operand
// order (`1.0 / x` is a reciprocal, not a scale).
// CHECK-LABEL: func.func @generic_captured_constant
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[ONE:.*]] = neuron.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.div %[[ONE]], %[[X]] : tensor<4x8xf32>
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_captured_constant(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %one, %a : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a scalar constant passed as an `ins` operand with a `()` map
// becomes a splat.
// CHECK-LABEL: func.func @generic_scalar_constant_input
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[C:.*]] = neuron.constant dense<3.000000e+00> : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.mul %[[X]], %[[C]] : tensor<4x8xf32>
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_scalar_constant_input(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<4x8xf32>, f32) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests a constant defined inside the body (the sigmoid llama writes):
// one splat serves both of its uses.
// CHECK-LABEL: func.func @generic_body_constant_sigmoid
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[ONE:.*]] = neuron.constant dense<1.000000e+00> : tensor<4x8xf32>
// CHECK-DAG: %[[N:.*]] = neuron.neg %[[X]] : tensor<4x8xf32>
// CHECK: %[[E:.*]] = neuron.exp %[[N]] : tensor<4x8xf32>
// CHECK: %[[D:.*]] = neuron.add %[[E]], %[[ONE]] : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.div %[[ONE]], %[[D]] : tensor<4x8xf32>
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_body_constant_sigmoid(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    %ex = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %one, %d : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that an f64 constant truncated to f32 in the body (a norm epsilon)
// is folded into an f32 splat; no f64 reaches neuron.
// CHECK-LABEL: func.func @generic_f64_constant_truncated
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[EPS:.*]] = neuron.constant dense<9.99999974E-6> : tensor<4x8xf32>
// CHECK: %[[S:.*]] = neuron.add %[[X]], %[[EPS]] : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.rsqrt %[[S]] : tensor<4x8xf32>
// CHECK-NOT: f64
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_f64_constant_truncated(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %eps = arith.constant 1.0000000000000001E-5 : f64
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = arith.truncf %eps : f64 to f32
    %s = arith.addf %a, %t : f32
    %q = math.rsqrt %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a 0-d generic truncating an f64 constant folds to an f32
// constant.
// CHECK-LABEL: func.func @generic_0d_truncf_constant
// CHECK: %[[C:.*]] = neuron.constant dense<6.000000e+00> : tensor<f32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[C]]
func.func @generic_0d_truncf_constant() -> tensor<f32> {
  %c = arith.constant dense<6.0> : tensor<f64>
  %e = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%c : tensor<f64>) outs(%e : tensor<f32>) {
  ^bb0(%a: f64, %o: f32):
    %t = arith.truncf %a : f64 to f32
    linalg.yield %t : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Tests that a transposed output map transposes the computed value.
// CHECK-LABEL: func.func @generic_transposed_output
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = neuron.exp %[[X]] : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.transpose %[[E]] permutation [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK: return %[[R]]
func.func @generic_transposed_output(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

// Tests that an init read in an all-parallel body is used as an input.
// CHECK-LABEL: func.func @generic_reads_init
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.sub %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_reads_init(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.subf %a, %o : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a copy generic with a permuted input map is a transpose.
// CHECK-LABEL: func.func @copy_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK: %[[R:.*]] = neuron.transpose %[[X]] permutation [0, 2, 1, 3] : tensor<2x3x4x5xf32> -> tensor<2x4x3x5xf32>
// CHECK: return %[[R]]
func.func @copy_transpose(%x: tensor<2x3x4x5xf32>) -> tensor<2x4x3x5xf32> {
  %e = tensor.empty() : tensor<2x4x3x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>,
                                        affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x3x4x5xf32>) outs(%e : tensor<2x4x3x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x4x3x5xf32>
  return %r : tensor<2x4x3x5xf32>
}

// -----

// Tests that a copy generic missing a loop in its input map is a broadcast.
// CHECK-LABEL: func.func @copy_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]] = neuron.broadcast %[[X]] dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @copy_broadcast(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a copy generic whose input map has a constant 0 on a unit
// dimension only drops that dimension: a reshape, not a broadcast.
// CHECK-LABEL: func.func @copy_squeeze_unit_dim
// CHECK-SAME: (%[[X:.*]]: tensor<1x80x128xf32>)
// CHECK: %[[R:.*]] = neuron.reshape %[[X]] : tensor<1x80x128xf32> -> tensor<80x128xf32>
// CHECK-NOT: neuron.broadcast
// CHECK: return %[[R]]
func.func @copy_squeeze_unit_dim(%x: tensor<1x80x128xf32>) -> tensor<80x128xf32> {
  %e = tensor.empty() : tensor<80x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x80x128xf32>) outs(%e : tensor<80x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<80x128xf32>
  return %r : tensor<80x128xf32>
}

// -----

// Tests that a copy generic whose output map has a constant 0 on a unit
// dimension is a reshape that adds it.
// CHECK-LABEL: func.func @copy_unsqueeze_unit_dim
// CHECK-SAME: (%[[X:.*]]: tensor<80x128xf32>)
// CHECK: %[[R:.*]] = neuron.reshape %[[X]] : tensor<80x128xf32> -> tensor<1x80x128xf32>
// CHECK: return %[[R]]
func.func @copy_unsqueeze_unit_dim(%x: tensor<80x128xf32>) -> tensor<1x80x128xf32> {
  %e = tensor.empty() : tensor<1x80x128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<80x128xf32>) outs(%e : tensor<1x80x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x80x128xf32>
  return %r : tensor<1x80x128xf32>
}

// -----

// Tests that a copy of a splat through a broadcasting map (BERT's zero
// token_type_ids, i64, which neuron computes nothing in) folds to a splat.
// CHECK-LABEL: func.func @copy_splat_i64_folds
// CHECK: %[[R:.*]] = neuron.constant dense<0> : tensor<1x12xi64>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @copy_splat_i64_folds() -> tensor<1x12xi64> {
  %c = arith.constant dense<0> : tensor<1x12xi64>
  %e = tensor.empty() : tensor<1x12xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<1x12xi64>) outs(%e : tensor<1x12xi64>) {
  ^bb0(%a: i64, %o: i64):
    linalg.yield %a : i64
  } -> tensor<1x12xi64>
  return %r : tensor<1x12xi64>
}

// -----

// Tests that a splat broadcast to more dimensions and widened in the body
// (an exact extf) folds to a splat of the result type, however the output
// map permutes the loops.
// CHECK-LABEL: func.func @broadcast_splat_extf_folds
// CHECK: %[[R:.*]] = neuron.constant dense<1.500000e+00> : tensor<3x4x5xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @broadcast_splat_extf_folds() -> tensor<3x4x5xf32> {
  %c = arith.constant dense<1.5> : tensor<5xbf16>
  %e = tensor.empty() : tensor<3x4x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0)>, affine_map<(d0, d1, d2) -> (d2, d1, d0)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c : tensor<5xbf16>) outs(%e : tensor<3x4x5xf32>) {
  ^bb0(%a: bf16, %o: f32):
    %w = arith.extf %a : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<3x4x5xf32>
  return %r : tensor<3x4x5xf32>
}

// -----

// Tests that the sum of a splat is not taken for the splat: the reduction
// is raised as one.
// CHECK-LABEL: func.func @sum_of_splat_is_not_a_splat
// CHECK: neuron.reduce_sum
// CHECK-NOT: neuron.constant dense<2.000000e+00> : tensor<4xf32>
func.func @sum_of_splat_is_not_a_splat(%init: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<2.0> : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%c : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a copy of an i64 tensor that is not a splat is left alone.
// CHECK-LABEL: func.func @copy_i64_not_splat_left
// CHECK: linalg.generic
func.func @copy_i64_not_splat_left(%x: tensor<1x12xi64>) -> tensor<1x12xi64> {
  %e = tensor.empty() : tensor<1x12xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x12xi64>) outs(%e : tensor<1x12xi64>) {
  ^bb0(%a: i64, %o: i64):
    linalg.yield %a : i64
  } -> tensor<1x12xi64>
  return %r : tensor<1x12xi64>
}

// -----

// Tests that linalg.fill of a constant becomes a neuron.constant splat.
// CHECK-LABEL: func.func @fill_constant
// CHECK: %[[R:.*]] = neuron.constant dense<2.000000e+00> : tensor<4x8xf32>
// CHECK-NOT: linalg.fill
// CHECK: return %[[R]]
func.func @fill_constant() -> tensor<4x8xf32> {
  %c = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.fill ins(%c : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that linalg.fill of a value only known at run time is left.
// CHECK-LABEL: func.func @fill_runtime_scalar
// CHECK: linalg.fill
func.func @fill_runtime_scalar(%c: f32) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.fill ins(%c : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that linalg.map in its short form becomes the neuron op.
// CHECK-LABEL: func.func @map_mulf
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[R:.*]] = neuron.mul %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @map_mulf(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.map { arith.mulf } ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>)
  return %r : tensor<4x8xf32>
}

// -----

// Tests that linalg.transpose becomes neuron.transpose.
// CHECK-LABEL: func.func @named_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = neuron.transpose %[[X]] permutation [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK: return %[[R]]
func.func @named_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %e = tensor.empty() : tensor<4x2x3xf32>
  %r = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<4x2x3xf32>) permutation = [2, 0, 1]
  return %r : tensor<4x2x3xf32>
}

// -----

// Tests that linalg.broadcast becomes neuron.broadcast (its `dimensions` are
// the added ones, neuron's the kept ones).
// CHECK-LABEL: func.func @named_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]] = neuron.broadcast %[[X]] dimensions [1] : tensor<8xf32> -> tensor<4x8x2xf32>
// CHECK: return %[[R]]
func.func @named_broadcast(%x: tensor<8xf32>) -> tensor<4x8x2xf32> {
  %e = tensor.empty() : tensor<4x8x2xf32>
  %r = linalg.broadcast ins(%x : tensor<8xf32>) outs(%e : tensor<4x8x2xf32>) dimensions = [0, 2]
  return %r : tensor<4x8x2xf32>
}

// -----

// Tests that linalg.copy forwards its input.
// CHECK-LABEL: func.func @named_copy
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %{{.*}}: tensor<4x8xf32>)
// CHECK-NOT: linalg.copy
// CHECK: return %[[X]]
func.func @named_copy(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.copy ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests the named elementwise ops (linalg.exp, add, negf, max, sub).
// CHECK-LABEL: func.func @named_elementwise
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = neuron.exp %[[X]] : tensor<4x8xf32>
// CHECK: %[[A:.*]] = neuron.add %[[E]], %[[Y]] : tensor<4x8xf32>
// CHECK: %[[N:.*]] = neuron.neg %[[A]] : tensor<4x8xf32>
// CHECK: %[[M:.*]] = neuron.max %[[N]], %[[Y]] : tensor<4x8xf32>
// CHECK: %[[S:.*]] = neuron.sub %[[M]], %[[Y]] : tensor<4x8xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[S]]
func.func @named_elementwise(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.exp ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = linalg.add ins(%a, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = linalg.negf ins(%b : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = linalg.max ins(%c, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %f = linalg.sub ins(%d, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

// Tests arith/math ops applied directly to tensors (as JAX emits between
// linalg ops), including a tensor constant operand.
// CHECK-LABEL: func.func @tensor_arith_math
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[Z:.*]] = neuron.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-DAG: %[[M:.*]] = neuron.mul %[[X]], %[[Y]] : tensor<4x8xf32>
// CHECK: %[[A:.*]] = neuron.add %[[M]], %[[Y]] : tensor<4x8xf32>
// CHECK: %[[Q:.*]] = neuron.rsqrt %[[A]] : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.max %[[Q]], %[[Z]] : tensor<4x8xf32>
// CHECK-NOT: arith.
// CHECK-NOT: math.
// CHECK: return %[[R]]
func.func @tensor_arith_math(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = arith.mulf %x, %y : tensor<4x8xf32>
  %b = arith.addf %a, %y : tensor<4x8xf32>
  %c = math.rsqrt %b : tensor<4x8xf32>
  %z = arith.constant dense<0.0> : tensor<4x8xf32>
  %d = arith.maximumf %c, %z : tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// Tests tensor-level cmpf, select and a cast.
// CHECK-LABEL: func.func @tensor_cmpf_select_cast
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[C:.*]] = neuron.compare ge %[[X]], %[[Y]] : tensor<4x8xf32> -> tensor<4x8xi1>
// CHECK: %[[S:.*]] = neuron.select %[[C]], %[[X]], %[[Y]] : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.cast %[[S]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: return %[[R]]
func.func @tensor_cmpf_select_cast(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %c = arith.cmpf oge, %x, %y : tensor<4x8xf32>
  %s = arith.select %c, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>
  %t = arith.truncf %s : tensor<4x8xf32> to tensor<4x8xbf16>
  return %t : tensor<4x8xbf16>
}

// -----

// Tests that an elementwise generic on i64, which neuron does not compute
// in, is left.
// CHECK-LABEL: func.func @generic_i64_left
// CHECK: linalg.generic
// CHECK: arith.addi
// CHECK-NOT: neuron.add
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_i64_left(%x: tensor<4x8xi64>, %y: tensor<4x8xi64>) -> tensor<4x8xi64> {
  %e = tensor.empty() : tensor<4x8xi64>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xi64>, tensor<4x8xi64>) outs(%e : tensor<4x8xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.addi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<4x8xi64>
  return %r : tensor<4x8xi64>
}

// -----

// Tests that an i64 arith op on tensors is left.
// CHECK-LABEL: func.func @tensor_i64_left
// CHECK: arith.addi %{{.*}}, %{{.*}} : tensor<4x8xi64>
// CHECK-NOT: neuron.add
func.func @tensor_i64_left(%x: tensor<4x8xi64>, %y: tensor<4x8xi64>) -> tensor<4x8xi64> {
  %a = arith.addi %x, %y : tensor<4x8xi64>
  return %a : tensor<4x8xi64>
}

// -----

// Tests that a body using linalg.index (the value depends on the position)
// is left.
// CHECK-LABEL: func.func @generic_linalg_index_left
// CHECK: linalg.generic
// CHECK: linalg.index 1
// CHECK-NOT: neuron.add
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_linalg_index_left(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %s = arith.addf %a, %f : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a body capturing a scalar that is not a constant (a function
// argument) is left.
// CHECK-LABEL: func.func @generic_captured_runtime_scalar_left
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK-NOT: neuron.mul
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_captured_runtime_scalar_left(%x: tensor<4x8xf32>, %s: f32) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests that a scalar `ins` operand that is not a constant is left.
// CHECK-LABEL: func.func @generic_runtime_scalar_input_left
// CHECK: linalg.generic
// CHECK-NOT: neuron.mul
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_runtime_scalar_input_left(%x: tensor<4x8xf32>, %s: f32) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<4x8xf32>, f32) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests the batch-norm inference generic torch-mlir emits: five inputs, the
// per-channel ones read through `(d1)`, an f64 epsilon truncated in the body.
// CHECK-LABEL: func.func @generic_batch_norm_inference
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[EPS:.*]] = neuron.constant dense<9.99999974E-6> : tensor<1x4x8x8xf32>
// CHECK-DAG: %[[MB:.*]] = neuron.broadcast %[[M]] dimensions [1] : tensor<4xf32> -> tensor<1x4x8x8xf32>
// CHECK-DAG: %[[VB:.*]] = neuron.broadcast %[[V]] dimensions [1] : tensor<4xf32> -> tensor<1x4x8x8xf32>
// CHECK-DAG: %[[WB:.*]] = neuron.broadcast %[[W]] dimensions [1] : tensor<4xf32> -> tensor<1x4x8x8xf32>
// CHECK-DAG: %[[BB:.*]] = neuron.broadcast %[[B]] dimensions [1] : tensor<4xf32> -> tensor<1x4x8x8xf32>
// CHECK-DAG: %[[VE:.*]] = neuron.add %[[VB]], %[[EPS]] : tensor<1x4x8x8xf32>
// CHECK-DAG: %[[RS:.*]] = neuron.rsqrt %[[VE]] : tensor<1x4x8x8xf32>
// CHECK-DAG: %[[XM:.*]] = neuron.sub %[[X]], %[[MB]] : tensor<1x4x8x8xf32>
// CHECK-DAG: %[[N:.*]] = neuron.mul %[[XM]], %[[RS]] : tensor<1x4x8x8xf32>
// CHECK-DAG: %[[S:.*]] = neuron.mul %[[N]], %[[WB]] : tensor<1x4x8x8xf32>
// CHECK: %[[R:.*]] = neuron.add %[[S]], %[[BB]] : tensor<1x4x8x8xf32>
// CHECK: return %[[R]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @generic_batch_norm_inference(%x: tensor<1x4x8x8xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>,
                                        %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %eps = arith.constant 1.0000000000000001E-5 : f64
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id4, #ch, #ch, #ch, #ch, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %w, %b, %m, %v : tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %iw: f32, %ib: f32, %im: f32, %iv: f32, %o: f32):
    %t = arith.truncf %eps : f64 to f32
    %ve = arith.addf %iv, %t : f32
    %rs = math.rsqrt %ve : f32
    %xm = arith.subf %in, %im : f32
    %n = arith.mulf %xm, %rs : f32
    %s = arith.mulf %n, %iw : f32
    %y = arith.addf %s, %ib : f32
    linalg.yield %y : f32
  } -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// Tests the relu6 mobilenet writes: 0-d bounds made by filling an f64
// tensor and truncating it in a 0-d generic, then two cmpf/select generics
// against the bounds. Everything folds to splats, the selects to max/min.
// CHECK-LABEL: func.func @generic_relu6_from_0d_f64_bounds
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[LO:.*]] = neuron.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK-DAG: %[[HI:.*]] = neuron.constant dense<6.000000e+00> : tensor<4x8xf32>
// CHECK: %[[M:.*]] = neuron.max %[[X]], %[[LO]] : tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.min %[[M]], %[[HI]] : tensor<4x8xf32>
// CHECK-NOT: linalg.
// CHECK-NOT: f64
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @generic_relu6_from_0d_f64_bounds(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0.0 : f64
  %c6 = arith.constant 6.0 : f64
  %e64 = tensor.empty() : tensor<f64>
  %f0 = linalg.fill ins(%c0 : f64) outs(%e64 : tensor<f64>) -> tensor<f64>
  %f6 = linalg.fill ins(%c6 : f64) outs(%e64 : tensor<f64>) -> tensor<f64>
  %e32 = tensor.empty() : tensor<f32>
  %lo = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%f0 : tensor<f64>) outs(%e32 : tensor<f32>) {
  ^bb0(%a: f64, %o: f32):
    %t = arith.truncf %a : f64 to f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %hi = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%f6 : tensor<f64>) outs(%e32 : tensor<f32>) {
  ^bb0(%a: f64, %o: f32):
    %t = arith.truncf %a : f64 to f32
    linalg.yield %t : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<4x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %lo : tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %c = arith.cmpf ugt, %a, %b : f32
    %s = arith.select %c, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %r2 = linalg.generic {indexing_maps = [#scalar, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%hi, %r1 : tensor<f32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%b: f32, %a: f32, %o: f32):
    %c = arith.cmpf ult, %a, %b : f32
    %s = arith.select %c, %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r2 : tensor<4x8xf32>
}

// -----

// Tests integer elementwise ops (divsi, maxsi, minsi, trunci): a clamp to
// the i8 range, then a narrowing cast.
// CHECK-LABEL: func.func @generic_integer_clamp_narrow
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xi32>, %[[Y:.*]]: tensor<4x8xi32>)
// CHECK-DAG: %[[LO:.*]] = neuron.constant dense<-128> : tensor<4x8xi32>
// CHECK-DAG: %[[HI:.*]] = neuron.constant dense<127> : tensor<4x8xi32>
// CHECK-DAG: %[[D:.*]] = neuron.div %[[X]], %[[Y]] : tensor<4x8xi32>
// CHECK: %[[MX:.*]] = neuron.max %[[D]], %[[LO]] : tensor<4x8xi32>
// CHECK: %[[MN:.*]] = neuron.min %[[MX]], %[[HI]] : tensor<4x8xi32>
// CHECK: %[[R:.*]] = neuron.cast %[[MN]] : tensor<4x8xi32> -> tensor<4x8xi8>
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @generic_integer_clamp_narrow(%x: tensor<4x8xi32>, %y: tensor<4x8xi32>) -> tensor<4x8xi8> {
  %lo = arith.constant -128 : i32
  %hi = arith.constant 127 : i32
  %e = tensor.empty() : tensor<4x8xi8>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xi32>, tensor<4x8xi32>) outs(%e : tensor<4x8xi8>) {
  ^bb0(%a: i32, %b: i32, %o: i8):
    %d = arith.divsi %a, %b : i32
    %mx = arith.maxsi %d, %lo : i32
    %mn = arith.minsi %mx, %hi : i32
    %t = arith.trunci %mn : i32 to i8
    linalg.yield %t : i8
  } -> tensor<4x8xi8>
  return %r : tensor<4x8xi8>
}

// -----

// Tests math.floor on a whole tensor: the truncation toward zero through i32
// (neuron.cast truncates), one less where it is above x; x itself where
// |x| >= 2^23 (an integer already, or NaN, which the comparison rejects).
// CHECK-LABEL: func.func @floor
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[LIMIT:.*]] = neuron.constant dense<0x4B000000> : tensor<4x8xf32>
// CHECK-DAG: %[[ONE:.*]] = neuron.constant dense<-1.000000e+00> : tensor<4x8xf32>
// CHECK: %[[I:.*]] = neuron.cast %[[X]] : tensor<4x8xf32> -> tensor<4x8xi32>
// CHECK: %[[T:.*]] = neuron.cast %[[I]] : tensor<4x8xi32> -> tensor<4x8xf32>
// CHECK: %[[BELOW:.*]] = neuron.add %[[T]], %[[ONE]]
// CHECK: %[[ABOVE:.*]] = neuron.compare gt %[[T]], %[[X]]
// CHECK: %[[F:.*]] = neuron.select %[[ABOVE]], %[[BELOW]], %[[T]]
// CHECK: %[[MAG:.*]] = neuron.abs %[[X]]
// CHECK: %[[SMALL:.*]] = neuron.compare lt %[[MAG]], %[[LIMIT]]
// CHECK: %[[R:.*]] = neuron.select %[[SMALL]], %[[F]], %[[X]]
// CHECK: return %[[R]]
func.func @floor(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %f = math.floor %x : tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}

// -----

// Tests math.roundeven in a linalg body: a fraction of exactly a half goes
// to the even neighbour (t odd where t differs from twice its half's
// truncation), more than a half away from zero.
// CHECK-LABEL: func.func @roundeven
// CHECK: neuron.compare eq
// CHECK: neuron.compare gt
// CHECK-NOT: linalg.generic
func.func @roundeven(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.roundeven %a : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests a scalar the body reads from a one-element tensor outside it (a
// tensor<f32> operand extracted): the tensor broadcast over the loops.
// CHECK-LABEL: func.func @extracted_scalar
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[T:.*]]: tensor<f32>)
// CHECK: %[[B:.*]] = neuron.broadcast %[[T]] dimensions [] : tensor<f32> -> tensor<4x8xf32>
// CHECK: %[[R:.*]] = neuron.mul %[[X]], %[[B]] : tensor<4x8xf32>
// CHECK: return %[[R]]
func.func @extracted_scalar(%x: tensor<4x8xf32>, %t: tensor<f32>) -> tensor<4x8xf32> {
  %s = tensor.extract %t[] : tensor<f32>
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %s : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
