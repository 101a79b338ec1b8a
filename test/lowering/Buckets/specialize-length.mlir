// RUN: neuron-opt %s -split-input-file -verify-diagnostics -neuron-specialize-length=length=128 | FileCheck %s

// Tests that a per-position graph gets static shapes and needs no mask: the
// dynamic dimension is the size, the results too, no length argument.
// CHECK-LABEL: func.func @per_position
// CHECK-SAME: (%{{.*}}: tensor<1x128x64xf32>, %{{.*}}: tensor<64x32xf32>) -> tensor<1x128x32xf32>
// CHECK-SAME: neuron.length = {inputs = {{\[}}[0, 1]], results = {{\[}}[0, 1]], size = 128 : i64}
// CHECK-NOT: tensor<?
// CHECK-NOT: linalg.index
#x = affine_map<(b, s, n, k) -> (b, s, k)>
#w = affine_map<(b, s, n, k) -> (k, n)>
#o = affine_map<(b, s, n, k) -> (b, s, n)>
func.func @per_position(%x: tensor<1x?x64xf32>, %w: tensor<64x32xf32>) -> tensor<1x?x32xf32> {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s = tensor.dim %x, %c1 : tensor<1x?x64xf32>
  %e = tensor.empty(%s) : tensor<1x?x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x?x32xf32>) -> tensor<1x?x32xf32>
  %y = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<1x?x64xf32>, tensor<64x32xf32>) outs(%f : tensor<1x?x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<1x?x32xf32>
  return %y : tensor<1x?x32xf32>
}

// -----

// Tests that attention over the positions masks the softmax's max (with
// -inf), its sum (with 0) and both operands of the contraction with the
// values (with 0) against an i32 length argument appended last.
// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<128x16xf32>, %[[K:.*]]: tensor<128x16xf32>, %[[V:.*]]: tensor<128x16xf32>, %[[LEN:.*]]: tensor<i32>) -> tensor<128x16xf32>
// CHECK-SAME: length_argument = 3 : i64
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[L:.*]] = tensor.extract %[[LEN]][] : tensor<i32>
// CHECK: %[[MV:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<128x16xf32>)
// CHECK: %[[P0:.*]] = linalg.index 0 : index
// CHECK: %[[P1:.*]] = arith.index_cast %[[P0]] : index to i32
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[P1]], %[[L]] : i32
// CHECK: arith.select %[[IN]], %{{.*}}, %[[ZERO]] : f32
// CHECK: %[[S:.*]] = linalg.matmul ins(%[[Q]],
// CHECK: %[[MS:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<128x128xf32>)
// CHECK: linalg.index 1
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NINF]] : f32
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[MS]]
// CHECK: arith.maximumf
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%[[S]],
// CHECK: %[[ME:.*]] = linalg.generic {{.*}} ins(%[[E]] :
// CHECK: linalg.index 1
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[ME]]
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[E]],
// CHECK: %[[MP:.*]] = linalg.generic {{.*}} ins(%[[P]] :
// CHECK: linalg.index 1
// CHECK: %[[O:.*]] = linalg.matmul ins(%[[MP]], %[[MV]] :
// CHECK: return %[[O]] : tensor<128x16xf32>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @attention(%q: tensor<?x16xf32>, %k: tensor<?x16xf32>, %v: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s = tensor.dim %q, %c0 : tensor<?x16xf32>
  %kt0 = tensor.empty(%s) : tensor<16x?xf32>
  %kt = linalg.transpose ins(%k : tensor<?x16xf32>) outs(%kt0 : tensor<16x?xf32>) permutation = [1, 0]
  %se = tensor.empty(%s, %s) : tensor<?x?xf32>
  %sf = linalg.fill ins(%zero : f32) outs(%se : tensor<?x?xf32>) -> tensor<?x?xf32>
  %sc = linalg.matmul ins(%q, %kt : tensor<?x16xf32>, tensor<16x?xf32>) outs(%sf : tensor<?x?xf32>) -> tensor<?x?xf32>
  %me = tensor.empty(%s) : tensor<?xf32>
  %mf = linalg.fill ins(%ninf : f32) outs(%me : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%sc : tensor<?x?xf32>) outs(%mf : tensor<?xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sc, %mx : tensor<?x?xf32>, tensor<?xf32>) outs(%se : tensor<?x?xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%me : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x?xf32>) outs(%zf : tensor<?xf32>) {
  ^bb0(%a: f32, %t: f32):
    %r = arith.addf %t, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<?x?xf32>, tensor<?xf32>) outs(%se : tensor<?x?xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %r = arith.divf %a, %t : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  %oe = tensor.empty(%s) : tensor<?x16xf32>
  %of = linalg.fill ins(%zero : f32) outs(%oe : tensor<?x16xf32>) -> tensor<?x16xf32>
  %o = linalg.matmul ins(%p, %v : tensor<?x?xf32>, tensor<?x16xf32>) outs(%of : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %o : tensor<?x16xf32>
}

// -----

// Tests that a mean over the positions, which divides by the length, is
// refused where the length is used as a number.
#id2 = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @mean(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{the variable length is used as a number}}
  %s = tensor.dim %x, %c0 : tensor<?x8xf32>
  %si = arith.index_cast %s : index to i64
  // expected-note @+1 {{used here}}
  %sf = arith.sitofp %si : i64 to f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %m = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%f : tensor<8xf32>) {
  ^bb0(%a: f32, %t: f32):
    %d = arith.divf %a, %sf : f32
    %r = arith.addf %t, %d : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Tests that a reduction over the positions whose body padding would
// change (a sum of exponentials computed in the body) is refused.
#id3 = affine_map<(i, j) -> (i, j)>
#col3 = affine_map<(i, j) -> (j)>
func.func @sum_of_exp(%x: tensor<?x8xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{reduces over the variable length (loop 0) with a body whose result the padding would change}}
  %m = linalg.generic {indexing_maps = [#id3, #col3], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %t: f32):
    %e = math.exp %a : f32
    %r = arith.addf %t, %e : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %m : tensor<8xf32>
}

// -----

// Tests that a read shifted along the positions is refused.
#shift = affine_map<(i, j) -> (i + 1, j)>
#id4 = affine_map<(i, j) -> (i, j)>
func.func @shifted(%x: tensor<?x8xf32>, %init: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{reads the variable length (loop 0) through d0 + 1}}
  %m = linalg.generic {indexing_maps = [#shift, #id4], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%init : tensor<?x8xf32>) {
  ^bb0(%a: f32, %t: f32):
    linalg.yield %a : f32
  } -> tensor<?x8xf32>
  return %m : tensor<?x8xf32>
}

// -----

// expected-error @+1 {{@static_only has no argument of dynamic shape: it needs no buckets}}
func.func @static_only(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// Tests that a slice whole along the length (rotate-half's halves) is a
// shape use, and one shifted along it is refused.
// CHECK-LABEL: func.func @halves
// CHECK: tensor.extract_slice %{{.*}}[0, 4] [128, 4] [1, 1] : tensor<128x8xf32> to tensor<128x4xf32>
func.func @halves(%x: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %s = tensor.dim %x, %c0 : tensor<?x8xf32>
  %hi = tensor.extract_slice %x[0, 4] [%s, 4] [1, 1] : tensor<?x8xf32> to tensor<?x4xf32>
  return %hi : tensor<?x4xf32>
}

// -----

func.func @shifted_slice(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{the variable length is used as a number}}
  %s = tensor.dim %x, %c0 : tensor<?x8xf32>
  %n = arith.subi %s, %c1 : index
  // expected-note @+1 {{used here}}
  %tail = tensor.extract_slice %x[1, 0] [%n, 8] [1, 1] : tensor<?x8xf32> to tensor<?x8xf32>
  return %tail : tensor<?x8xf32>
}

// -----

// Tests a linalg.softmax along the length: its input is masked with -inf.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%{{.*}}: tensor<4x128xf32>, %[[LEN:.*]]: tensor<i32>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[M:.*]] = linalg.generic
// CHECK: linalg.index 1
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NINF]] : f32
// CHECK: linalg.softmax dimension(1) ins(%[[M]] : tensor<4x128xf32>)
func.func @softmax(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %s = tensor.dim %x, %c1 : tensor<4x?xf32>
  %e = tensor.empty(%s) : tensor<4x?xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x?xf32>) outs(%e : tensor<4x?xf32>) -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// -----

// Tests a reduction over a dynamic loop that is not the length but a
// reshape's product of it: refused once the shapes are known.
#id2 = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @collapsed(%x: tensor<?x4xf32>, %init: tensor<f32>) -> tensor<f32> {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  // expected-error @+1 {{its dynamic dimension 0 is 512 with the length 128, not the length itself}}
  %s = linalg.generic {indexing_maps = [#id2, #all], iterator_types = ["reduction"]}
      ins(%flat : tensor<?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Tests a result whose dynamic dimension is twice the length (a concat):
// it cannot be cut back to the input's length.
func.func @doubled(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c = tensor.concat dim(0) %x, %x : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // expected-error @+1 {{its dynamic dimension 0 is 256 with the length 128, not the length itself}}
  return %c : tensor<?x4xf32>
}

// -----

// Tests the length splatted as a value: refused, where a splat's size is
// a shape use.
func.func @splat_value(%x: tensor<?xf32>) -> tensor<4xindex> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{the variable length is used as a number}}
  %s = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-note @+1 {{used here}}
  %v = tensor.splat %s : tensor<4xindex>
  return %v : tensor<4xindex>
}

// -----

// Tests one input both maximised and summed over the length in one op: no
// single mask leaves both unchanged, so it is refused.
#in = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (j)>
func.func @max_and_sum(%x: tensor<?x8xf32>, %m: tensor<8xf32>, %s: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  // expected-error @+1 {{reduces over the variable length (loop 0) with a body whose result the padding would change}}
  %r:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%m, %s : tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %mo: f32, %so: f32):
    %mx = arith.maximumf %a, %mo : f32
    %sm = arith.addf %so, %a : f32
    linalg.yield %mx, %sm : f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>)
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xf32>
}
