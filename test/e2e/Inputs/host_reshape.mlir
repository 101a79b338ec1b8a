// A causal mask built from i64 positions on the host: the first host region
// adds 1 to the positions, a reshape makes them a column, and the second
// region compares every row position with them. The second region reads the
// first's result through the reshape, as tensor<8x1xi64>.
#row = affine_map<(d0, d1, d2) -> (d1)>
#col = affine_map<(d0, d1, d2) -> (d0, d2)>
#out3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @host_reshape(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %pos = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %one = arith.constant dense<1> : tensor<8xi64>
  %e0 = tensor.empty() : tensor<8xi64>
  %next = linalg.add ins(%pos, %one : tensor<8xi64>, tensor<8xi64>) outs(%e0 : tensor<8xi64>) -> tensor<8xi64>
  %column = tensor.expand_shape %next [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
  %e1 = tensor.empty() : tensor<8x8xi1>
  %later = linalg.generic {indexing_maps = [#row, #col, #out3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%pos, %column : tensor<8xi64>, tensor<8x1xi64>) outs(%e1 : tensor<8x8xi1>) {
  ^bb0(%p: i64, %q: i64, %o: i1):
    %lt = arith.cmpi slt, %p, %q : i64
    linalg.yield %lt : i1
  } -> tensor<8x8xi1>
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant dense<-3.40282347E+38> : tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x8xf32>
  %mask = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%later, %lowest : tensor<8x8xi1>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) {
  ^bb0(%l: i1, %m: f32, %o: f32):
    %v = arith.select %l, %zero, %m : f32
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %r = linalg.add ins(%x, %mask : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e2 : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
