// An int8 layer as TFLite quantizes one: int8 activations and weights
// multiplied in i16 with an i16 bias, shifted back to int8. The i16
// products and the i16 bias cross the executable's boundary (a result and
// an input), which needs i16 tensors in the executable.
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @layer(%x: tensor<4x16xi8>, %w: tensor<16xi8>, %bias: tensor<16xi16>)
    -> (tensor<4x16xi8>, tensor<4x16xi16>) {
  %e16 = tensor.empty() : tensor<4x16xi16>
  %prod = linalg.generic {indexing_maps = [#map, #row, #row, #map],
                          iterator_types = ["parallel", "parallel"]}
      ins(%x, %w, %bias : tensor<4x16xi8>, tensor<16xi8>, tensor<16xi16>)
      outs(%e16 : tensor<4x16xi16>) {
  ^bb0(%a: i8, %b: i8, %c: i16, %o: i16):
    %a16 = arith.extsi %a : i8 to i16
    %b16 = arith.extsi %b : i8 to i16
    %m = arith.muli %a16, %b16 : i16
    %s = arith.addi %m, %c : i16
    linalg.yield %s : i16
  } -> tensor<4x16xi16>
  %e8 = tensor.empty() : tensor<4x16xi8>
  %c2 = arith.constant 2 : i16
  %out = linalg.generic {indexing_maps = [#map, #map],
                         iterator_types = ["parallel", "parallel"]}
      ins(%prod : tensor<4x16xi16>) outs(%e8 : tensor<4x16xi8>) {
  ^bb0(%p: i16, %o: i8):
    %s = arith.shrsi %p, %c2 : i16
    %t = arith.trunci %s : i16 to i8
    linalg.yield %t : i8
  } -> tensor<4x16xi8>
  return %out, %prod : tensor<4x16xi8>, tensor<4x16xi16>
}
