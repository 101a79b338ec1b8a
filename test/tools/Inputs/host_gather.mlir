// A host call holding a gather, which has no reference kernel: the
// executable is written without a reference for the step.
func.func @main(%table: tensor<16x4xf32>, %ids: tensor<3xi32>) -> tensor<3x4xf32> attributes {neuron.program} {
  %r = neuron.host_call(%table, %ids) reason "test" : (tensor<16x4xf32>, tensor<3xi32>) -> tensor<3x4xf32> {
  ^bb0(%t: tensor<16x4xf32>, %i: tensor<3xi32>):
    %g = neuron.gather %t[%i] axis 0 : (tensor<16x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
    neuron.yield %g : tensor<3x4xf32>
  }
  return %r : tensor<3x4xf32>
}
