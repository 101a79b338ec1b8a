// Tests that stock mlir-opt loads the plugin and runs neuron's passes and
// pipeline through it (plugin passes are reachable only through -p).

// RUN: %preload_sanitizer %mlir_opt %s --load-dialect-plugin=%neuron_lib/NeuronPlugin.so \
// RUN:   --load-pass-plugin=%neuron_lib/NeuronPlugin.so \
// RUN:   -p 'builtin.module(func.func(convert-linalg-to-neuron))' \
// RUN:   | FileCheck %s --check-prefix=CONVERT
// RUN: %preload_sanitizer %mlir_opt %s --load-dialect-plugin=%neuron_lib/NeuronPlugin.so \
// RUN:   --load-pass-plugin=%neuron_lib/NeuronPlugin.so \
// RUN:   -p 'builtin.module(neuron-import)' | FileCheck %s --check-prefix=IMPORT

// CONVERT-LABEL: func.func @relu
// CONVERT: %[[ZERO:.*]] = neuron.constant dense<0.000000e+00> : tensor<4x8xf32>
// CONVERT: %[[R:.*]] = neuron.max %{{.*}}, %[[ZERO]] : tensor<4x8xf32>
// CONVERT: return %[[R]]

// IMPORT-LABEL: func.func @relu
// IMPORT: %[[R:.*]] = neuron.relu %{{.*}} : tensor<4x8xf32>
// IMPORT: return %[[R]]
func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
