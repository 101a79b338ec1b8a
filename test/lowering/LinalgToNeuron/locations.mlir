// RUN: neuron-opt %s -split-input-file --neuron-import \
// RUN:   --neuron-check-coverage="target=trn1 fallback=error" -verify-diagnostics

// Ops raised from the bodies of named elementwise ops (whose body ops have
// no location) are reported at the named op (found by the differential
// tests: the coverage error was at <unknown>).
func.func @named_min(%a: tensor<129x5xi8>, %b: tensor<129x5xi8>) -> tensor<129x5xi8> {
  %init = tensor.empty() : tensor<129x5xi8>
  // expected-error @+1 {{'neuron.min' (tensor<129x5xi8>, tensor<129x5xi8>) -> tensor<129x5xi8> is not supported on trn1}}
  %r = linalg.min ins(%a, %b : tensor<129x5xi8>, tensor<129x5xi8>) outs(%init : tensor<129x5xi8>) -> tensor<129x5xi8>
  return %r : tensor<129x5xi8>
}

// -----

// A body op with its own location is reported there.
#map = affine_map<(d0) -> (d0)>
func.func @generic_body(%a: tensor<64xi8>, %b: tensor<64xi8>) -> tensor<64xi8> {
  %init = tensor.empty() : tensor<64xi8>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<64xi8>, tensor<64xi8>) outs(%init : tensor<64xi8>) {
  ^bb0(%x: i8, %y: i8, %o: i8):
    // expected-error @+1 {{'neuron.mul' (tensor<64xi8>, tensor<64xi8>) -> tensor<64xi8> is not supported on trn1}}
    %m = arith.muli %x, %y : i8
    linalg.yield %m : i8
  } -> tensor<64xi8>
  return %r : tensor<64xi8>
}
