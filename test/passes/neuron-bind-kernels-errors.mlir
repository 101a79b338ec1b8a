// RUN: neuron-opt %s -split-input-file -neuron-bind-kernels -verify-diagnostics
// RUN: echo "module {}" | not neuron-opt -neuron-bind-kernels=library=%t.missing 2>&1 | FileCheck %s --check-prefix=LIBRARY

// LIBRARY: error: neuron-bind-kernels: cannot read the kernel library '{{.*}}.missing': No such file or directory

// Tests a kernel named by an attribute whose signature does not match the
// op's types.

#hbm = #nisa.memory<hbm>
func.func @mismatch(%x: tensor<128x64xf32>, %w: tensor<64xf32>) -> tensor<128x64xf32> {
  // expected-error@+1 {{neuron-bind-kernels: kernel @rms does not fit this op: expected argument #1 to be a buffer of tensor<64xf32> (input 1), found memref<64xbf16, #nisa.memory<hbm>>}}
  %y = neuron.rms_norm %x weight %w axis 1 epsilon 1.0e-5 {neuron.custom_kernel = @rms} : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
// expected-note@+1 {{the kernel}}
func.func @rms(%x: memref<128x64xf32, #hbm>, %w: memref<64xbf16, #hbm>, %y: memref<128x64xf32, #hbm>) {
  return
}

// -----

// Tests a kernel taking fewer buffers than the op has inputs and results.

#hbm = #nisa.memory<hbm>
func.func @count(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{kernel @k does not fit this op: expected 2 buffer arguments (1 inputs, then 1 results), found 1}}
  %y = neuron.relu %x {neuron.custom_kernel = @k} : tensor<8xf32>
  return %y : tensor<8xf32>
}
// expected-note@+1 {{the kernel}}
func.func @k(%x: memref<8xf32, #hbm>) {
  return
}

// -----

// Tests a call of a function whose kernel does not match the call.

#hbm = #nisa.memory<hbm>
func.func @call(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{kernel @k does not fit this op: expected argument #1 to be a buffer of tensor<8xf32> (result 0), found memref<4xf32, #nisa.memory<hbm>>}}
  %y = func.call @f(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func private @f(%x: tensor<8xf32>) -> tensor<8xf32>
// expected-note@+1 {{the kernel}}
func.func @k(%x: memref<8xf32, #hbm>, %y: memref<4xf32, #hbm>) attributes {nisa.implements = @f} {
  return
}

// -----

// Tests an attribute naming no kernel.

func.func @unknown(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{neuron-bind-kernels: no kernel named @nothing in the module (no kernel library given)}}
  %y = neuron.relu %x {neuron.custom_kernel = @nothing} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// Tests an attribute naming a function that is not a kernel.

func.func @not_kernel(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{neuron-bind-kernels: @helper is not a kernel: expected a function on memrefs with a body and no results, found '(tensor<8xf32>) -> tensor<8xf32>'}}
  %y = neuron.relu %x {neuron.custom_kernel = @helper} : tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @helper(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// Tests 'nisa.implements' on a function that is not a kernel.

// expected-error@+1 {{neuron-bind-kernels: expected a kernel (a function on memrefs with a body and no results) to carry 'nisa.implements', found '(tensor<8xf32>) -> tensor<8xf32>'}}
func.func @on_tensors(%x: tensor<8xf32>) -> tensor<8xf32> attributes {nisa.implements = "neuron.relu"} {
  return %x : tensor<8xf32>
}

// -----

// Tests the binding attributes' own checks.

// expected-error@+1 {{expected 'nisa.implements' to be an op name ("dialect.op") or a function (@name) on a kernel, found "relu"}}
func.func @bad_name(%x: memref<8xf32>) attributes {nisa.implements = "relu"} {
  return
}

// -----

func.func @bad_attr(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{expected 'neuron.custom_kernel' to name a kernel (@name), found "k"}}
  %y = neuron.relu %x {neuron.custom_kernel = "k"} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

#sbuf = #nisa.memory<sbuf>

// Tests a kernel whose buffers are not in HBM.
func.func @space(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{kernel @k does not fit this op: expected argument #0 in HBM (#nisa.memory<hbm>), found memref<8xf32, #nisa.memory<sbuf>>}}
  %y = neuron.relu %x {neuron.custom_kernel = @k} : tensor<8xf32>
  return %y : tensor<8xf32>
}
// expected-note@+1 {{the kernel}}
func.func @k(%x: memref<8xf32, #sbuf>, %y: memref<8xf32, #sbuf>) {
  return
}

// -----

#hbm = #nisa.memory<hbm>

// Tests the attribute on an op no kernel can replace (a constant).
func.func @constant() -> tensor<8xf32> {
  // expected-error@+1 {{neuron-bind-kernels: cannot replace this op by @k: a kernel computes an op or call on tensors in a graph function}}
  %c = arith.constant {neuron.custom_kernel = @k} dense<1.0> : tensor<8xf32>
  return %c : tensor<8xf32>
}
func.func @k(%y: memref<8xf32, #hbm>) {
  return
}

// -----

#hbm = #nisa.memory<hbm>

// Tests two kernels implementing one function for other shapes than a
// call's: an error naming each.
func.func @shapes(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{neuron-bind-kernels: none of the 2 kernels bound to this op fits it}}
  %y = func.call @f(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func private @f(%x: tensor<8xf32>) -> tensor<8xf32>
// expected-note@+1 {{@f16: expected argument #0 to be a buffer of tensor<8xf32> (input 0), found memref<16xf32, #nisa.memory<hbm>>}}
func.func @f16(%x: memref<16xf32, #hbm>, %y: memref<16xf32, #hbm>) attributes {nisa.implements = @f} {
  return
}
// expected-note@+1 {{@f4: expected argument #0 to be a buffer of tensor<8xf32> (input 0), found memref<4xf32, #nisa.memory<hbm>>}}
func.func @f4(%x: memref<4xf32, #hbm>, %y: memref<4xf32, #hbm>) attributes {nisa.implements = @f} {
  return
}
