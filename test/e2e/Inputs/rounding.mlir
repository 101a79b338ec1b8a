// math.floor, ceil, trunc, round and roundeven in linalg bodies
// (rounding.test): each on x * 7 (fractions, negatives), on halves
// (floor(x * 8) / 2: exact .5s, where round goes away from zero and
// roundeven to the even neighbour) and on values past 2^23 (already
// integers), in f32; and floor in bf16.
#id = affine_map<(i, j) -> (i, j)>
func.func @rounding(%x: tensor<37x130xf32>) -> (tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>) {
  %e = tensor.empty() : tensor<37x130xf32>
  %r:5 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<37x130xf32>) outs(%e, %e, %e, %e, %e : tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>) {
  ^bb0(%a: f32, %o0: f32, %o1: f32, %o2: f32, %o3: f32, %o4: f32):
    %c7 = arith.constant 7.0 : f32
    %c8 = arith.constant 8.0 : f32
    %half = arith.constant 0.5 : f32
    %big = arith.constant 16777216.0 : f32
    %s = arith.mulf %a, %c7 : f32
    %f = math.floor %s : f32
    %c = math.ceil %s : f32
    %t = math.trunc %s : f32
    %h8 = arith.mulf %a, %c8 : f32
    %h = math.floor %h8 : f32
    %hh = arith.mulf %h, %half : f32
    %rd = math.round %hh : f32
    %re = math.roundeven %hh : f32
    %l = arith.mulf %s, %big : f32
    %lf = math.floor %l : f32
    %sum = arith.addf %f, %lf : f32
    linalg.yield %sum, %c, %t, %rd, %re : f32, f32, f32, f32, f32
  } -> (tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>, tensor<37x130xf32>
}

func.func @floor_bf16(%x: tensor<3x257xbf16>) -> tensor<3x257xbf16> {
  %e = tensor.empty() : tensor<3x257xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x257xbf16>) outs(%e : tensor<3x257xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %c = arith.constant 9.0 : bf16
    %s = arith.mulf %a, %c : bf16
    %f = math.floor %s : bf16
    linalg.yield %f : bf16
  } -> tensor<3x257xbf16>
  return %r : tensor<3x257xbf16>
}
