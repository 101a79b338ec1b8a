// Integer work trn2 cannot run, which --fallback=host moves into host
// calls around one device kernel: an i64 requantisation-like generic (a
// broadcast row, a reversed read x[i, 7 - j], linalg.index, 64-bit products
// shifted down and truncated, a select), an i64 reduction into a constant
// init, whole-tensor arith ops on i64 (raised to nothing the target runs),
// and i32 matmuls (no integer matmul on trn2's tensor engine). The f32
// generic that reads the first host result runs on the device.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#rev = affine_map<(d0, d1) -> (d0, 7 - d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @host_calls(%x: tensor<4x8xi64>, %y: tensor<8xi64>, %f: tensor<4x8xf32>,
                      %p: tensor<4x16xi32>, %q: tensor<16x8xi32>,
                      %u: tensor<2x4x16xi32>, %v: tensor<2x16x8xi32>)
    -> (tensor<4x8xi32>, tensor<4xi64>, tensor<4x8xf32>, tensor<4x8xi64>,
        tensor<4x8xi32>, tensor<2x4x8xi32>) {
  %mul = arith.constant 2039655736 : i64
  %off = arith.constant 137438953472 : i64
  %sh = arith.constant 33 : i64
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<4x8xi32>
  %requant = linalg.generic {indexing_maps = [#id, #row, #rev, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y, %x : tensor<4x8xi64>, tensor<8xi64>, tensor<4x8xi64>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%a: i64, %b: i64, %r: i64, %o: i32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.muli %a, %mul : i64
    %s = arith.addi %m, %off : i64
    %s1 = arith.addi %s, %b : i64
    %s2 = arith.subi %s1, %r : i64
    %s3 = arith.addi %s2, %ii : i64
    %neg = arith.cmpi slt, %a, %zero : i64
    %d = arith.shrsi %s3, %sh : i64
    %t = arith.trunci %d : i64 to i32
    %n = arith.trunci %m : i64 to i32
    %val = arith.select %neg, %n, %t : i32
    linalg.yield %val : i32
  } -> tensor<4x8xi32>
  %init = arith.constant dense<[1, -2, 3, -4]> : tensor<4xi64>
  %squares = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xi64>) outs(%init : tensor<4xi64>) {
  ^bb0(%a: i64, %acc: i64):
    %sq = arith.muli %a, %a : i64
    %sum = arith.addi %acc, %sq : i64
    linalg.yield %sum : i64
  } -> tensor<4xi64>
  %ef = tensor.empty() : tensor<4x8xf32>
  %device = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f, %requant : tensor<4x8xf32>, tensor<4x8xi32>) outs(%ef : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: i32, %o: f32):
    %bf = arith.sitofp %b : i32 to f32
    %s = arith.addf %a, %bf : f32
    %mx = arith.maximumf %s, %a : f32
    linalg.yield %mx : f32
  } -> tensor<4x8xf32>
  %one = arith.constant dense<1> : tensor<4x8xi64>
  %big = arith.constant dense<4611686018427387904> : tensor<4x8xi64>
  %sum = arith.addi %x, %big : tensor<4x8xi64>
  %prod = arith.muli %sum, %x : tensor<4x8xi64>
  %x2 = arith.muli %x, %x : tensor<4x8xi64>
  %x21 = arith.addi %x2, %one : tensor<4x8xi64>
  %quot = arith.divsi %prod, %x21 : tensor<4x8xi64>
  %lt = arith.cmpi slt, %quot, %x : tensor<4x8xi64>
  %chain = arith.select %lt, %quot, %prod : tensor<4x8xi1>, tensor<4x8xi64>
  %zi = arith.constant dense<0> : tensor<4x8xi32>
  %mm = linalg.matmul ins(%p, %q : tensor<4x16xi32>, tensor<16x8xi32>) outs(%zi : tensor<4x8xi32>) -> tensor<4x8xi32>
  %zb = arith.constant dense<0> : tensor<2x4x8xi32>
  %bm = linalg.batch_matmul ins(%u, %v : tensor<2x4x16xi32>, tensor<2x16x8xi32>) outs(%zb : tensor<2x4x8xi32>) -> tensor<2x4x8xi32>
  return %requant, %squares, %device, %chain, %mm, %bm
      : tensor<4x8xi32>, tensor<4xi64>, tensor<4x8xf32>, tensor<4x8xi64>, tensor<4x8xi32>, tensor<2x4x8xi32>
}
