// Tests host outlining on structures that used to produce invalid IR: a
// cycle through another region, a value captured by a linalg body, a region
// order changed by an earlier outlining, branches (never outlined), and an
// unsupported op inside an scf.for body (judged like any other).

// RUN: neuron-opt %s -split-input-file -verify-each --neuron-check-coverage="target=inf2 fallback=host" | FileCheck %s

// b0 -> relu -> a'; a' and c joined through p; c uses b0.
// CHECK-LABEL: func.func @cycle
// CHECK: %[[E:.*]] = neuron.host_call(%{{.*}}) reason "unsupported on inf2: neuron.erf"
// CHECK: %[[R:.*]] = neuron.relu %[[E]]
// CHECK: neuron.host_call(%{{.*}}, %[[R]], %[[E]]) reason "unsupported on inf2: neuron.pow"
// CHECK-COUNT-3: neuron.pow
func.func @cycle(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %b0 = neuron.erf %x : tensor<4xf32>
  %p = neuron.pow %x, %x : tensor<4xf32>
  %r = neuron.relu %b0 : tensor<4xf32>
  %a = neuron.pow %p, %r : tensor<4xf32>
  %c = neuron.pow %b0, %p : tensor<4xf32>
  return %a, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// %g (unsupported, not raised) captures %u1 only inside its body; %u1 and
// %u3 form one region whose host_call is placed after %g.
// CHECK-LABEL: func.func @capture
// CHECK: neuron.host_call
func.func @capture(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %c0 = arith.constant 0 : index
  %u1 = neuron.erf %x : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = tensor.extract %u1[%c0] : tensor<4xf32>
    %s = arith.addf %a, %e : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %u3 = neuron.erf %u1 : tensor<4xf32>
  return %g, %u3 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Outlining {a, c} moves %s and %y after its host_call; the region
// {u, y, v} was listed in the old block order and is outlined before them.
// CHECK-LABEL: func.func @stale
// CHECK: neuron.host_call
func.func @stale(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = neuron.erf %x : tensor<4xf32>
  %s = neuron.relu %a : tensor<4xf32>
  %u = neuron.erf %x : tensor<4xf32>
  %y = neuron.pow %s, %u : tensor<4xf32>
  %v = neuron.erf %u : tensor<4xf32>
  %c = neuron.erf %a : tensor<4xf32>
  return %y, %v, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A CFG loop whose back edge carries a tensor: the cf.br is outlined.
// CHECK-LABEL: func.func @loop
// CHECK-NOT: neuron.host_call
// CHECK: cf.cond_br
func.func @loop(%c: i1, %a: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1(%a : tensor<4xf32>)
^bb1(%x: tensor<4xf32>):
  %0 = neuron.exp %x : tensor<4xf32>
  cf.cond_br %c, ^bb2, ^bb3
^bb2:
  cf.br ^bb1(%0 : tensor<4xf32>)
^bb3:
  return %0 : tensor<4xf32>
}

// -----

// A conditional branch carrying tensors is judged as an unraised op.
// CHECK-LABEL: func.func @condbr
// CHECK-NOT: neuron.host_call
// CHECK: cf.cond_br
func.func @condbr(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %e = neuron.exp %a : tensor<4xf32>
  cf.cond_br %c, ^bb1(%e : tensor<4xf32>), ^bb1(%b : tensor<4xf32>)
^bb1(%x: tensor<4xf32>):
  %0 = neuron.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// An unsupported op inside an scf.for body is judged and outlined there.
// CHECK-LABEL: func.func @nested
// CHECK: scf.for
// CHECK: neuron.host_call(%{{.*}}) reason "unsupported on inf2: neuron.erf"
// CHECK: scf.yield
func.func @nested(%t: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %t) -> tensor<4xf32> {
    %e = neuron.erf %acc : tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
