// RUN: neuron-opt %s -split-input-file -convert-linalg-to-neuron | FileCheck %s

// Tests an embedding gather whose table is a function argument (it used to
// crash).
// CHECK-LABEL: func.func @gather
// CHECK: neuron.gather %{{.*}}[%{{.*}}] axis 0 : (tensor<100x32xf32>, tensor<1x12xi64>) -> tensor<1x12x32xf32>
// CHECK-NOT: linalg.generic
func.func @gather(%ids: tensor<1x12xi64>, %table: tensor<100x32xf32>) -> tensor<1x12x32xf32> {
  %e = tensor.empty() : tensor<1x12x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ids : tensor<1x12xi64>) outs(%e : tensor<1x12x32xf32>) {
  ^bb0(%in: i64, %o: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 2 : index
    %x = tensor.extract %table[%i, %j] : tensor<100x32xf32>
    linalg.yield %x : f32
  } -> tensor<1x12x32xf32>
  return %r : tensor<1x12x32xf32>
}

// -----

// Tests a select reading an i1 mask input.
// CHECK-LABEL: func.func @mask_select
// CHECK: %[[C:.*]] = neuron.constant dense<-3.40282347E+38> : tensor<4x8xf32>
// CHECK: neuron.select %{{.*}}, %[[C]], %{{.*}} : tensor<4x8xi1>, tensor<4x8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mask_select(%m: tensor<4x8xi1>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %x : tensor<4x8xi1>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: i1, %b: f32, %o: f32):
    %s = arith.select %a, %c, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests a comparison producing an i1 mask.
// CHECK-LABEL: func.func @mask_from_compare
// CHECK: neuron.compare {{ *}}lt %{{.*}}, %{{.*}} : tensor<4x8xf32> -> tensor<4x8xi1>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mask_from_compare(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xi1> {
  %e = tensor.empty() : tensor<4x8xi1>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xi1>) {
  ^bb0(%a: f32, %b: f32, %o: i1):
    %s = arith.cmpf olt, %a, %b : f32
    linalg.yield %s : i1
  } -> tensor<4x8xi1>
  return %r : tensor<4x8xi1>
}

// -----

// Tests linalg.softmax.
// CHECK-LABEL: func.func @softmax
// CHECK: neuron.softmax %{{.*}} axis 1 : tensor<4x8xf32>
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// Tests a convolution whose windows leave the last rows unread: the input is
// trimmed to what they read.
// CHECK-LABEL: func.func @conv
// CHECK: %[[T:.*]] = neuron.slice %{{.*}} offsets [0, 0, 0, 0] strides [1, 1, 1, 1] : tensor<1x3x17x17xf32> -> tensor<1x3x15x15xf32>
// CHECK: neuron.conv2d %[[T]], %{{.*}} strides [2, 2] : (tensor<1x3x15x15xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x7x7xf32>
func.func @conv(%x: tensor<1x3x17x17xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x7x7xf32> {
  %z = arith.constant dense<0.0> : tensor<1x8x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x3x17x17xf32>, tensor<8x3x3x3xf32>) outs(%z : tensor<1x8x7x7xf32>) -> tensor<1x8x7x7xf32>
  return %r : tensor<1x8x7x7xf32>
}

// -----

// Tests the same for pooling.
// CHECK-LABEL: func.func @pool
// CHECK: %[[T:.*]] = neuron.slice %{{.*}} : tensor<1x4x9x9xf32> -> tensor<1x4x7x7xf32>
// CHECK: neuron.pool2d {{ *}}max %[[T]] layout {{ *}}nchw kernel [3, 3] strides [2, 2] : tensor<1x4x7x7xf32> -> tensor<1x4x3x3xf32>
func.func @pool(%x: tensor<1x4x9x9xf32>) -> tensor<1x4x3x3xf32> {
  %m = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x3x3xf32>
  %z = linalg.fill ins(%m : f32) outs(%e : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {strides = dense<2> : vector<2xi64>, dilations = dense<1> : vector<2xi64>}
     ins(%x, %k : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%z : tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %r : tensor<1x4x3x3xf32>
}

// -----

// Tests that matmul on i64 (not a neuron element type) is left as it is.
// CHECK-LABEL: func.func @matmul_i64
// CHECK: linalg.matmul
func.func @matmul_i64(%a: tensor<4x8xi64>, %b: tensor<8x16xi64>) -> tensor<4x16xi64> {
  %z = arith.constant dense<0> : tensor<4x16xi64>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xi64>, tensor<8x16xi64>) outs(%z : tensor<4x16xi64>) -> tensor<4x16xi64>
  return %r : tensor<4x16xi64>
}

// -----

// Tests that matmul on f64 (not a neuron element type) is left as it is.
// CHECK-LABEL: func.func @matmul_f64
// CHECK: linalg.matmul
func.func @matmul_f64(%a: tensor<4x8xf64>, %b: tensor<8x16xf64>) -> tensor<4x16xf64> {
  %z = arith.constant dense<0.0> : tensor<4x16xf64>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf64>, tensor<8x16xf64>) outs(%z : tensor<4x16xf64>) -> tensor<4x16xf64>
  return %r : tensor<4x16xf64>
}

// -----

// Tests that conv on i64 (not a neuron element type) is left as it is.
// CHECK-LABEL: func.func @conv_i64
// CHECK: linalg.conv_2d_nchw_fchw
func.func @conv_i64(%x: tensor<1x3x10x10xi64>, %w: tensor<8x3x3x3xi64>) -> tensor<1x8x8x8xi64> {
  %z = arith.constant dense<0> : tensor<1x8x8x8xi64>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x3x10x10xi64>, tensor<8x3x3x3xi64>) outs(%z : tensor<1x8x8x8xi64>) -> tensor<1x8x8x8xi64>
  return %r : tensor<1x8x8x8xi64>
}

// -----

// Tests that pool on f64 (not a neuron element type) is left as it is.
// CHECK-LABEL: func.func @pool_f64
// CHECK: linalg.pooling_nchw_sum
func.func @pool_f64(%x: tensor<1x4x8x8xf64>, %init: tensor<1x4x4x4xf64>) -> tensor<1x4x4x4xf64> {
  %k = tensor.empty() : tensor<2x2xf64>
  %r = linalg.pooling_nchw_sum {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
     ins(%x, %k : tensor<1x4x8x8xf64>, tensor<2x2xf64>) outs(%init : tensor<1x4x4x4xf64>) -> tensor<1x4x4x4xf64>
  return %r : tensor<1x4x4x4xf64>
}

// -----

// Tests that a truncf with another rounding mode than nearest-even is left
// (neuron.cast rounds to nearest even).
// CHECK-LABEL: func.func @truncf_toward_zero
// CHECK: arith.truncf %{{.*}} toward_zero
func.func @truncf_toward_zero(%a: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = arith.truncf %a toward_zero : tensor<4xf32> to tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Tests that a -FLT_MAX max-init is kept (it is not -inf on rows of -inf).
// CHECK-LABEL: func.func @max_init
// CHECK: %[[C:.*]] = neuron.constant dense<-3.40282347E+38> : tensor<1xf32>
// CHECK: %[[R:.*]] = neuron.reduce_max %{{.*}} axes [1] : tensor<1x4xf32> -> tensor<1xf32>
// CHECK: neuron.max %[[R]], %[[C]] : tensor<1xf32>
func.func @max_init(%a: tensor<1x4xf32>) -> tensor<1xf32> {
  %c = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  %r = linalg.reduce ins(%a : tensor<1x4xf32>) outs(%f : tensor<1xf32>) dimensions = [1]
    (%x: f32, %o: f32) {
      %m = arith.maximumf %x, %o : f32
      linalg.yield %m : f32
    }
  return %r : tensor<1xf32>
}

// -----

// Tests that a matmul whose body rounds an operand through bf16 is left:
// the rounding is part of its meaning.
// CHECK-LABEL: func.func @matmul_truncf
// CHECK: linalg.generic
func.func @matmul_truncf(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %z = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %t = arith.truncf %x : f32 to bf16
    %w = arith.extf %t : bf16 to f32
    %p = arith.mulf %w, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Tests that slices with non-positive strides and pads with negative sizes
// are left, and that an i1 pad of true pads with 1.
// CHECK-LABEL: func.func @odd_tensor_ops
// CHECK: tensor.extract_slice
// CHECK: tensor.pad
// CHECK: neuron.pad %{{.*}} low [1] high [0] value 1.000000e+00 : tensor<4xi1> -> tensor<5xi1>
func.func @odd_tensor_ops(%x: tensor<8xf32>, %m: tensor<4xi1>) -> (tensor<3xf32>, tensor<6xf32>, tensor<5xi1>) {
  %s = tensor.extract_slice %x[6] [3] [-2] : tensor<8xf32> to tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[-2] high[0] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<8xf32> to tensor<6xf32>
  %true = arith.constant true
  %q = tensor.pad %m low[1] high[0] {
  ^bb0(%i: index):
    tensor.yield %true : i1
  } : tensor<4xi1> to tensor<5xi1>
  return %s, %p, %q : tensor<3xf32>, tensor<6xf32>, tensor<5xi1>
}

// -----

// Tests a causal mask whose indices are i32 iota inputs (as
// neuron-prepare-sharding makes them, so that a core's part of the loop
// reads global indices): the comparison reads the inputs broadcast over the
// loops, not iotas of the local loops.
// CHECK-LABEL: func.func @mask_from_iota_inputs
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x6xf32>, %[[COLS:.*]]: tensor<6xi32>, %[[ROWS:.*]]: tensor<4xi32>)
// CHECK-DAG: %[[C:.*]] = neuron.broadcast %[[COLS]] dimensions [2] : tensor<6xi32> -> tensor<2x4x6xi32>
// CHECK-DAG: %[[R:.*]] = neuron.broadcast %[[ROWS]] dimensions [1] : tensor<4xi32> -> tensor<2x4x6xi32>
// CHECK: neuron.compare {{ *}}gt %[[C]], %[[R]] : tensor<2x4x6xi32> -> tensor<2x4x6xi1>
// CHECK-NOT: linalg.generic
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#col = affine_map<(d0, d1, d2) -> (d2)>
#row = affine_map<(d0, d1, d2) -> (d1)>
func.func @mask_from_iota_inputs(%x: tensor<2x4x6xf32>, %cols: tensor<6xi32>, %rows: tensor<4xi32>) -> tensor<2x4x6xf32> {
  %e = tensor.empty() : tensor<2x4x6xf32>
  %m = linalg.generic {indexing_maps = [#id3, #col, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %cols, %rows : tensor<2x4x6xf32>, tensor<6xi32>, tensor<4xi32>) outs(%e : tensor<2x4x6xf32>) {
  ^bb0(%a: f32, %c: i32, %r: i32, %o: f32):
    %j = arith.index_cast %c : i32 to index
    %i = arith.index_cast %r : i32 to index
    %future = arith.cmpi sgt, %j, %i : index
    %lowest = arith.constant -3.0e38 : f32
    %y = arith.select %future, %lowest, %a : f32
    linalg.yield %y : f32
  } -> tensor<2x4x6xf32>
  return %m : tensor<2x4x6xf32>
}
