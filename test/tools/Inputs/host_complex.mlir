// A host call (without a reason) computing with complex numbers inside a
// generic's body: |u + u i|.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {neuron.program} {
  %r = neuron.host_call(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%u: f32, %o: f32):
      %c = complex.create %u, %u : complex<f32>
      %t = complex.abs %c : complex<f32>
      linalg.yield %t : f32
    } -> tensor<4xf32>
    neuron.yield %g : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
