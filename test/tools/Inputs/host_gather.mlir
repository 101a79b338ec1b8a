// A host call holding a gather (run as native code).
func.func @main(%table: tensor<16x4xf32>, %ids: tensor<3xi32>) -> tensor<3x4xf32> attributes {neuron.program} {
  %r = neuron.host_call(%table, %ids) reason "test" : (tensor<16x4xf32>, tensor<3xi32>) -> tensor<3x4xf32> {
  ^bb0(%t: tensor<16x4xf32>, %i: tensor<3xi32>):
    %g = neuron.gather %t[%i] axis 0 : (tensor<16x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
    neuron.yield %g : tensor<3x4xf32>
  }
  return %r : tensor<3x4xf32>
}
