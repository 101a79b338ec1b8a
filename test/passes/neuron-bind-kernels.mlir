// RUN: neuron-opt %s -split-input-file -neuron-bind-kernels -verify-diagnostics | FileCheck %s

// Tests a kernel bound by the op name it implements: the op becomes a
// custom_kernel of it, and the kernel is marked with its inputs and origin.

#hbm = #nisa.memory<hbm>
// CHECK-LABEL: func.func @norm
// CHECK: %[[Y:.*]] = neuron.custom_kernel @rms(%{{.*}}, %{{.*}}) {op = "neuron.rms_norm"} : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
// CHECK: return %[[Y]]
func.func @norm(%x: tensor<128x64xf32>, %w: tensor<64xf32>) -> tensor<128x64xf32> {
  %y = neuron.rms_norm %x weight %w axis 1 epsilon 1.0e-5 : (tensor<128x64xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
// CHECK: func.func private @rms(
// CHECK-SAME: neuron.kernel
// CHECK-SAME: nisa.custom = "{{.*}}neuron-bind-kernels.mlir"
// CHECK-SAME: nisa.num_inputs = 2 : i64
func.func @rms(%x: memref<128x64xf32, #hbm>, %w: memref<64xf32, #hbm>, %y: memref<128x64xf32, #hbm>)
    attributes {nisa.implements = "neuron.rms_norm"} {
  return
}

// -----

// Tests an op-name binding whose kernel fits no op: the op stays, with a
// remark saying why.

#hbm = #nisa.memory<hbm>
// CHECK-LABEL: func.func @other_shape
// CHECK: neuron.rms_norm
func.func @other_shape(%x: tensor<64x64xf32>, %w: tensor<64xf32>) -> tensor<64x64xf32> {
  // expected-remark@+1 {{neuron-bind-kernels: no kernel implementing 'neuron.rms_norm' fits this op (@rms: expected argument #0 to be a buffer of tensor<64x64xf32> (input 0), found memref<128x64xf32, #nisa.memory<hbm>>); the compiler tiles it}}
  %y = neuron.rms_norm %x weight %w axis 1 epsilon 1.0e-5 : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
// CHECK: func.func @rms(
// CHECK-NOT: neuron.kernel
func.func @rms(%x: memref<128x64xf32, #hbm>, %w: memref<64xf32, #hbm>, %y: memref<128x64xf32, #hbm>)
    attributes {nisa.implements = "neuron.rms_norm"} {
  return
}

// -----

// Tests kernels for one op at two shapes: each op takes the one it fits.

#hbm = #nisa.memory<hbm>
// CHECK-LABEL: func.func @two_shapes
// CHECK: neuron.custom_kernel @relu_a(%{{.*}}) {op = "neuron.relu"} : (tensor<8x8xf32>)
// CHECK: neuron.custom_kernel @relu_b(%{{.*}}) {op = "neuron.relu"} : (tensor<4x4xf32>)
func.func @two_shapes(%x: tensor<8x8xf32>, %y: tensor<4x4xf32>) -> (tensor<8x8xf32>, tensor<4x4xf32>) {
  %a = neuron.relu %x : tensor<8x8xf32>
  %b = neuron.relu %y : tensor<4x4xf32>
  return %a, %b : tensor<8x8xf32>, tensor<4x4xf32>
}
func.func @relu_a(%x: memref<8x8xf32, #hbm>, %y: memref<8x8xf32, #hbm>) attributes {nisa.implements = "neuron.relu"} {
  return
}
func.func @relu_b(%x: memref<4x4xf32, #hbm>, %y: memref<4x4xf32, #hbm>) attributes {nisa.implements = "neuron.relu"} {
  return
}

// -----

// Tests the attribute on a linalg op: the kernel takes its inputs, not its
// output, which the body does not read.

#hbm = #nisa.memory<hbm>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @generic
// CHECK: neuron.custom_kernel @square(%{{.*}}) {op = "linalg.generic"} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NOT: linalg.generic
func.func @generic(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attrs = {neuron.custom_kernel = @square} {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}
func.func @square(%x: memref<4x8xf32, #hbm>, %y: memref<4x8xf32, #hbm>) {
  return
}

// -----

// Tests calls of a function a kernel implements (the function, private and
// no longer called, goes, and the kernel stops naming it), and calls of a
// function naming its kernel.

#hbm = #nisa.memory<hbm>
// CHECK-LABEL: func.func @calls
// CHECK: %[[A:.*]] = neuron.custom_kernel @double_kernel(%{{.*}}) {op = "@double"}
// CHECK: neuron.custom_kernel @triple_kernel(%[[A]]) {op = "@triple"}
func.func @calls(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = func.call @double(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %b = func.call @triple(%a) : (tensor<16xf32>) -> tensor<16xf32>
  return %b : tensor<16xf32>
}
// CHECK-NOT: func.func private @double(
// CHECK: func.func private @double_kernel(
// CHECK-SAME: attributes {neuron.kernel, nisa.custom = "{{[^"]*}}", nisa.num_inputs = 1 : i64} {
func.func private @double(%x: tensor<16xf32>) -> tensor<16xf32> {
  %y = neuron.add %x, %x : tensor<16xf32>
  return %y : tensor<16xf32>
}
func.func private @triple(%x: tensor<16xf32>) -> tensor<16xf32> attributes {neuron.custom_kernel = @triple_kernel}
func.func @double_kernel(%x: memref<16xf32, #hbm>, %y: memref<16xf32, #hbm>) attributes {nisa.implements = @double} {
  return
}
func.func @triple_kernel(%x: memref<16xf32, #hbm>, %y: memref<16xf32, #hbm>) {
  return
}

// -----

// Tests a kernel implementing an op name that calls have (func.call): a
// candidate like any op-name binding, so a call it does not fit keeps its
// callee, with a remark, rather than an error.

#hbm = #nisa.memory<hbm>
// CHECK-LABEL: func.func @by_op_name
// CHECK: call @f(
func.func @by_op_name(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-remark@+1 {{no kernel implementing 'func.call' fits this op}}
  %y = func.call @f(%x) : (tensor<16xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}
func.func private @f(%x: tensor<16xf32>) -> tensor<16xf32>
func.func @k(%x: memref<8xf32, #hbm>, %y: memref<8xf32, #hbm>) attributes {nisa.implements = "func.call"} {
  return
}
