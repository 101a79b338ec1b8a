// Tests that support is read from each generation's table: the same op is
// supported on one generation and reported, with the generations that do
// support it, on another.

// RUN: not neuron-opt %s -split-input-file --neuron-check-coverage="target=trn1" 2>&1 | FileCheck %s --check-prefix=TRN1 --implicit-check-not=error:
// RUN: not neuron-opt %s -split-input-file --neuron-check-coverage="target=trn2.48xlarge,lnc=1" 2>&1 | FileCheck %s --check-prefix=TRN2 --implicit-check-not=error:
// RUN: not neuron-opt %s -split-input-file --neuron-check-coverage="target=inf2.xlarge" 2>&1 | FileCheck %s --check-prefix=INF2 --implicit-check-not=error:

// An i8 matmul: trn1 and inf2 publish INT8 rates, trn2 does not; on trn1
// and inf2 it is reported for the tiler, which does not tile integer
// contractions yet.
// TRN1-DAG: error: 'neuron.matmul' (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32> is not supported on trn1: integer contractions and pooling are not tiled yet [not-tiled]; hint: fallback=decompose rewrites it into supported ops; fallback=host runs it on the host
// INF2-DAG: error: 'neuron.matmul' (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32> is not supported on inf2: integer contractions and pooling are not tiled yet [not-tiled]
// TRN2-DAG: error: 'neuron.matmul' (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32> is not supported on trn2: operand element type i8 is not one of {{.*}} [dtype]
func.func @int8_matmul(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>) -> tensor<4x16xi32> {
  %0 = neuron.matmul %a, %b : (tensor<4x8xi8>, tensor<8x16xi8>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// A fused RMS norm: native on trn2 only.
// TRN1-DAG: error: 'neuron.rms_norm' (tensor<4x8xf32>) -> tensor<4x8xf32> is not supported on trn1: the generation has no such op [op]; hint: supported on trn2, trn3; fallback=decompose rewrites it into supported ops; fallback=host runs it on the host
// INF2-DAG: error: 'neuron.rms_norm' (tensor<4x8xf32>) -> tensor<4x8xf32> is not supported on inf2: the generation has no such op [op]; hint: supported on trn2, trn3;
func.func @rms_norm(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.rms_norm %x axis 1 epsilon 1.0e-06 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Exact gelu: only the tanh form on inf2.
// INF2-DAG: error: 'neuron.gelu' (tensor<4x8xf32>) -> tensor<4x8xf32> is not supported on inf2: approximate none is not one of tanh [attribute]
func.func @gelu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.gelu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
