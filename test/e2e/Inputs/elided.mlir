// A batch norm and a weight as exporters print them with their data elided:
// test input of materialize_elided.test.
func.func @norm(%x: tensor<1x4xf32>)
    -> (tensor<1x4xf32>, tensor<4x3xf32>, tensor<1x3xi64>) {
  %var = "tosa.const"() <{values = dense_resource<__elided__> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %gamma = "tosa.const"() <{values = dense_resource<__elided__> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %beta = "tosa.const"() <{values = dense_resource<__elided__> : tensor<1x4xf32>}> : () -> tensor<1x4xf32>
  %weight = "tosa.const"() <{values = dense_resource<__elided__> : tensor<4x3xf32>}> : () -> tensor<4x3xf32>
  %ids = arith.constant dense_resource<__elided__> : tensor<1x3xi64>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.add %var, %eps : (tensor<1x4xf32>, tensor<1x1xf32>) -> tensor<1x4xf32>
  %1 = tosa.rsqrt %0 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %2 = tosa.mul %x, %1, %shift : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1xi8>) -> tensor<1x4xf32>
  %3 = tosa.mul %2, %gamma, %shift : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1xi8>) -> tensor<1x4xf32>
  %4 = tosa.add %3, %beta : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %4, %weight, %ids : tensor<1x4xf32>, tensor<4x3xf32>, tensor<1x3xi64>
}
