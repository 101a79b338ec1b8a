// Results that are reshapes: of an argument (no kernel at all), of a
// kernel's result, and of a host call's result (tosa.reduce_max on i32
// keeps its reduced axis through a reshape; it runs on the host under
// --fallback=host).
func.func @reshaped(%a: tensor<64x2x31xf32>, %b: tensor<129x5xf32>,
                    %c: tensor<129x64xi32>)
    -> (tensor<2x32x2x31xf32>, tensor<645xf32>, tensor<129x1xi32>) {
  %expanded = tensor.expand_shape %a [[0, 1], [2], [3]] output_shape [2, 32, 2, 31]
      : tensor<64x2x31xf32> into tensor<2x32x2x31xf32>
  %e = tosa.exp %b : (tensor<129x5xf32>) -> tensor<129x5xf32>
  %shape = tosa.const_shape {values = dense<[645]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %flat = tosa.reshape %e, %shape : (tensor<129x5xf32>, !tosa.shape<1>) -> tensor<645xf32>
  %max = tosa.reduce_max %c {axis = 1 : i32} : (tensor<129x64xi32>) -> tensor<129x1xi32>
  return %expanded, %flat, %max : tensor<2x32x2x31xf32>, tensor<645xf32>, tensor<129x1xi32>
}
