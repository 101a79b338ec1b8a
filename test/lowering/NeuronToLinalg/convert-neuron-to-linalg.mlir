// RUN: neuron-opt %s -convert-neuron-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// An elementwise op: a generic whose body is the op on elements.
// CHECK-LABEL: func.func @exp
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK:           math.exp
// CHECK-NOT:     neuron.
func.func @exp(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.exp %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A cast to an integer saturates and maps NaN to 0: from 2^7 up the
// maximum, below -2^7 the minimum, and fptosi only ever sees values in range.
// CHECK-LABEL: func.func @cast_to_int
// CHECK:         linalg.generic
// CHECK:           %[[W:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK:           %[[BIG:.*]] = arith.cmpf oge, %[[W]], %{{.*}} : f64
// CHECK:           %[[SMALL:.*]] = arith.cmpf olt, %[[W]], %{{.*}} : f64
// CHECK:           %[[NAN:.*]] = arith.cmpf uno, %[[W]], %[[W]] : f64
// CHECK:           %[[IN:.*]] = arith.select %{{.*}}, %{{.*}}, %[[W]] : f64
// CHECK:           %[[T:.*]] = arith.fptosi %[[IN]] : f64 to i8
// CHECK:           %[[MAX:.*]] = arith.constant 127 : i8
// CHECK:           %[[HIGH:.*]] = arith.select %[[BIG]], %[[MAX]], %[[T]] : i8
// CHECK:           %[[MIN:.*]] = arith.constant -128 : i8
// CHECK:           arith.select %[[SMALL]], %[[MIN]], %[[HIGH]] : i8
func.func @cast_to_int(%x: tensor<4xf32>) -> tensor<4xi8> {
  %0 = neuron.cast %x : tensor<4xf32> -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// A matmul accumulates into zeros over a reduction loop, widening bf16.
// CHECK-LABEL: func.func @matmul
// CHECK:         %[[Z:.*]] = linalg.fill
// CHECK:         linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} outs(%[[Z]] : tensor<2x3xf32>)
// CHECK:           arith.extf {{.*}} : bf16 to f32
// CHECK:           arith.mulf
// CHECK:           arith.addf
func.func @matmul(%a: tensor<2x4xbf16>, %b: tensor<4x3xbf16>) -> tensor<2x3xf32> {
  %0 = neuron.matmul %a, %b : (tensor<2x4xbf16>, tensor<4x3xbf16>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Data movement becomes tensor ops: a strided slice, a pad, a concat and a
// reshape through one dimension.
// CHECK-LABEL: func.func @movement
// CHECK:         tensor.extract_slice %arg0[0, 1] [4, 2] [1, 2]
// CHECK:         tensor.pad %arg0 low[1, 0] high[0, 2]
// CHECK:           tensor.yield %{{.*}} : f32
// CHECK:         tensor.insert_slice %arg0 into %{{.*}}[0, 0] [4, 8] [1, 1]
// CHECK:         tensor.insert_slice %arg0 into %{{.*}}[4, 0] [4, 8] [1, 1]
// CHECK:         tensor.collapse_shape %arg0 {{\[\[}}0, 1]]
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [2, 4, 4]
func.func @movement(%x: tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<5x10xf32>, tensor<8x8xf32>, tensor<2x4x4xf32>) {
  %s = neuron.slice %x offsets [0, 1] strides [1, 2] : tensor<4x8xf32> -> tensor<4x2xf32>
  %p = neuron.pad %x low [1, 0] high [0, 2] value 0.5 : tensor<4x8xf32> -> tensor<5x10xf32>
  %c = neuron.concat %x, %x axis 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %r = neuron.reshape %x : tensor<4x8xf32> -> tensor<2x4x4xf32>
  return %s, %p, %c, %r : tensor<4x2xf32>, tensor<5x10xf32>, tensor<8x8xf32>, tensor<2x4x4xf32>
}

// -----

// A softmax: max, exp of the difference, sum, division.
// CHECK-LABEL: func.func @softmax
// CHECK:         linalg.generic {{.*}}["parallel", "reduction"]
// CHECK:           arith.maximumf
// CHECK:         linalg.generic
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}}["parallel", "reduction"]
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           arith.divf
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = neuron.softmax %x axis 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A softmax rounded to bf16: computed in f32, the quotient truncated.
// CHECK-LABEL: func.func @softmax_bf16
// CHECK:         arith.maximumf
// CHECK:         math.exp
// CHECK:         arith.addf
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xbf16>)
// CHECK:           %[[Q:.*]] = arith.divf {{.*}} : f32
// CHECK:           arith.truncf %[[Q]] : f32 to bf16
func.func @softmax_bf16(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  %0 = neuron.softmax %x axis 1 : tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// A gather reads the table inside the body; an index outside it reads 0.
// CHECK-LABEL: func.func @gather
// CHECK:         linalg.generic {{.*}}ins(%arg1 : tensor<3xi32>)
// CHECK:           arith.index_cast
// CHECK-DAG:       arith.cmpi sge
// CHECK-DAG:       arith.cmpi slt
// CHECK:           tensor.extract %arg0
// CHECK:           arith.select
func.func @gather(%t: tensor<16x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  %0 = neuron.gather %t[%i] axis 0 : (tensor<16x4xf32>, tensor<3xi32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A collective has no host form.
func.func @collective(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'neuron.all_reduce' has no lowering for the host}}
  %0 = neuron.all_reduce %x grid [2] axes [0] reduction <sum> : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
