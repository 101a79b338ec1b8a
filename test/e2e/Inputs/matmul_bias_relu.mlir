// A dense layer as torch-mlir writes it: matmul into a zero fill, bias add
// and ReLU as generics, then a residual add of the input's first columns
// through a second matmul. Input of the end-to-end oracle test.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @layer(%x: tensor<64x256xf32>, %w: tensor<256x640xf32>,
                 %b: tensor<64x640xf32>, %v: tensor<640x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x640xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64x640xf32>) -> tensor<64x640xf32>
  %h = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x640xf32>)
                     outs(%f0 : tensor<64x640xf32>) -> tensor<64x640xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %b : tensor<64x640xf32>, tensor<64x640xf32>) outs(%e0 : tensor<64x640xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %c = arith.cmpf ugt, %s, %zero : f32
    %r = arith.select %c, %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x640xf32>
  %e1 = tensor.empty() : tensor<64x96xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x96xf32>) -> tensor<64x96xf32>
  %y = linalg.matmul ins(%a, %v : tensor<64x640xf32>, tensor<640x96xf32>)
                     outs(%f1 : tensor<64x96xf32>) -> tensor<64x96xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<64x96xf32>) outs(%e1 : tensor<64x96xf32>) {
  ^bb0(%p: f32, %o: f32):
    %n = math.tanh %p : f32
    linalg.yield %n : f32
  } -> tensor<64x96xf32>
  return %t : tensor<64x96xf32>
}
