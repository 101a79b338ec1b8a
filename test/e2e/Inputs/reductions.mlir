// Reductions over axes ahead of kept inner ones (reductions.test), in
// linalg as torch-mlir and TOSA lowerings write them.
func.func @reductions(%a: tensor<300x1000xf32>, %b: tensor<3x5x9x130xf32>,
                      %c: tensor<4x600x7xf32>)
    -> (tensor<1000xf32>, tensor<3x130xf32>, tensor<4x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %inf = arith.constant 0x7F800000 : f32
  // A column sum (axis 0).
  %ea = tensor.empty() : tensor<1000xf32>
  %fa = linalg.fill ins(%zero : f32) outs(%ea : tensor<1000xf32>) -> tensor<1000xf32>
  %sa = linalg.reduce ins(%a : tensor<300x1000xf32>) outs(%fa : tensor<1000xf32>) dimensions = [0]
    (%x: f32, %acc: f32) { %s = arith.addf %x, %acc : f32
                           linalg.yield %s : f32 }
  // An NHWC image's maximum per channel (axes 1 and 2).
  %eb = tensor.empty() : tensor<3x130xf32>
  %fb = linalg.fill ins(%ninf : f32) outs(%eb : tensor<3x130xf32>) -> tensor<3x130xf32>
  %mb = linalg.reduce ins(%b : tensor<3x5x9x130xf32>) outs(%fb : tensor<3x130xf32>) dimensions = [1, 2]
    (%x: f32, %acc: f32) { %m = arith.maximumf %x, %acc : f32
                           linalg.yield %m : f32 }
  // A minimum over a long middle axis, 7 kept inner elements.
  %ec = tensor.empty() : tensor<4x7xf32>
  %fc = linalg.fill ins(%inf : f32) outs(%ec : tensor<4x7xf32>) -> tensor<4x7xf32>
  %mc = linalg.reduce ins(%c : tensor<4x600x7xf32>) outs(%fc : tensor<4x7xf32>) dimensions = [1]
    (%x: f32, %acc: f32) { %m = arith.minimumf %x, %acc : f32
                           linalg.yield %m : f32 }
  return %sa, %mb, %mc : tensor<1000xf32>, tensor<3x130xf32>, tensor<4x7xf32>
}
