// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2" | FileCheck %s
// RUN: neuron-opt %s -split-input-file --neuron-fuse --convert-neuron-to-nisa="target=trn2" | FileCheck %s --check-prefix=FUSED

// Tests compare and select tiled like other elementwise ops: the comparison
// is a vector-engine tensor_tensor writing a 1/0 i1 mask, which goes to HBM
// and back; select reads the mask and both operands and copies the chosen
// elements on the vector engine.
// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[X:.*]]: memref<4x6xf32, #nisa.memory<hbm>>, %[[Y:.*]]: memref<4x6xf32, #nisa.memory<hbm>>, %[[OUT:.*]]: memref<4x6xf32, #nisa.memory<hbm>>)
// CHECK: %[[MASK:.*]] = memref.alloc() : memref<4x6xi1, #nisa.memory<hbm>>
// CHECK: memref.alloc() {nisa.tiling = {{{.*}}op = "neuron.compare"{{.*}}}} : memref<4x6xf32, #nisa.memory<sbuf>>
// CHECK: %[[M:.*]] = memref.alloc() : memref<4x6xi1, #nisa.memory<sbuf>>
// CHECK: nisa.tensor_tensor <is_gt> %{{.*}}, %{{.*}}, %[[M]] : memref<4x6xf32, #nisa.memory<sbuf>>, memref<4x6xf32, #nisa.memory<sbuf>>, memref<4x6xi1, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %[[M]], %[[MASK]] queue {{[0-9]+}} : memref<4x6xi1, #nisa.memory<sbuf>>, memref<4x6xi1, #nisa.memory<hbm>>
// CHECK: %[[M2:.*]] = memref.alloc() {nisa.tiling = {{{.*}}op = "neuron.select"{{.*}}}} : memref<4x6xi1, #nisa.memory<sbuf>>
// CHECK: %[[T:.*]] = memref.alloc() : memref<4x6xf32, #nisa.memory<sbuf>>
// CHECK: %[[F:.*]] = memref.alloc() : memref<4x6xf32, #nisa.memory<sbuf>>
// CHECK: %[[R:.*]] = memref.alloc() : memref<4x6xf32, #nisa.memory<sbuf>>
// CHECK: nisa.select %[[M2]], %[[T]], %[[F]], %[[R]] : memref<4x6xi1, #nisa.memory<sbuf>>, memref<4x6xf32, #nisa.memory<sbuf>>, memref<4x6xf32, #nisa.memory<sbuf>>, memref<4x6xf32, #nisa.memory<sbuf>>
// CHECK: nisa.dma_copy %[[R]]

// Fused, the mask never leaves SBUF.
// FUSED-LABEL: func.func @where
// FUSED-NOT: memref<4x6xi1, #nisa.memory<hbm>>
// FUSED: nisa.tensor_tensor <is_gt> %[[A:.*]], %[[B:.*]], %[[M:.*]] :
// FUSED: nisa.select %[[M]], %[[A]], %[[B]], %{{.*}} :
func.func @where(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %m = neuron.compare gt %x, %y : tensor<4x6xf32> -> tensor<4x6xi1>
  %r = neuron.select %m, %x, %y : tensor<4x6xi1>, tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Tests that each predicate maps to its comparison.
// CHECK-LABEL: func.func @predicates
// CHECK-DAG: nisa.tensor_tensor <is_equal>
// CHECK-DAG: nisa.tensor_tensor <not_equal>
// CHECK-DAG: nisa.tensor_tensor <is_lt>
// CHECK-DAG: nisa.tensor_tensor <is_le>
// CHECK-DAG: nisa.tensor_tensor <is_gt>
// CHECK-DAG: nisa.tensor_tensor <is_ge>
func.func @predicates(%x: tensor<8xi32>, %y: tensor<8xi32>)
    -> (tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>) {
  %0 = neuron.compare eq %x, %y : tensor<8xi32> -> tensor<8xi1>
  %1 = neuron.compare ne %x, %y : tensor<8xi32> -> tensor<8xi1>
  %2 = neuron.compare lt %x, %y : tensor<8xi32> -> tensor<8xi1>
  %3 = neuron.compare le %x, %y : tensor<8xi32> -> tensor<8xi1>
  %4 = neuron.compare gt %x, %y : tensor<8xi32> -> tensor<8xi1>
  %5 = neuron.compare ge %x, %y : tensor<8xi32> -> tensor<8xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>
}

// -----

// Tests a select on a shape that splits over the 128 partitions: every
// operand, the mask included, is viewed as [128, 128].
// CHECK-LABEL: func.func @select_flattened
// CHECK-DAG: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [128, 128], strides: [128, 1] : memref<2x128x64xi1, #nisa.memory<hbm>>
// CHECK-DAG: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [128, 128], strides: [128, 1] : memref<2x128x64xbf16, #nisa.memory<hbm>>
// CHECK: nisa.select %{{.*}} : memref<128x128xi1, #nisa.memory<sbuf>>, memref<128x128xbf16, #nisa.memory<sbuf>>, memref<128x128xbf16, #nisa.memory<sbuf>>, memref<128x128xbf16, #nisa.memory<sbuf>>
func.func @select_flattened(%m: tensor<2x128x64xi1>, %a: tensor<2x128x64xbf16>, %b: tensor<2x128x64xbf16>) -> tensor<2x128x64xbf16> {
  %r = neuron.select %m, %a, %b : tensor<2x128x64xi1>, tensor<2x128x64xbf16>
  return %r : tensor<2x128x64xbf16>
}

// -----

// Tests that a select's splat value operand (a mask's fill) is no tensor:
// a tile filled on chip, with no global and no load of it, alone and fused.
// CHECK-LABEL: func.func @select_fill
// CHECK-NOT: memref.global
// CHECK-NOT: memref.get_global
// CHECK: nisa.memset %[[FILL:.*]] value 0xFFF0000000000000 : memref<4x6xf32, #nisa.memory<sbuf>>
// CHECK: nisa.select %{{.*}}, %{{.*}}, %[[FILL]], %{{.*}} :
// FUSED-LABEL: func.func @select_fill
// FUSED-NOT: memref.get_global
// FUSED: nisa.tensor_tensor <is_gt> %[[A:.*]], %{{.*}}, %[[M:.*]] :
// FUSED: nisa.memset %[[FILL:.*]] value 0xFFF0000000000000
// FUSED: nisa.select %[[M]], %[[A]], %[[FILL]], %{{.*}} :
func.func @select_fill(%x: tensor<4x6xf32>, %y: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %ninf = neuron.constant dense<0xFF800000> : tensor<4x6xf32>
  %m = neuron.compare gt %x, %y : tensor<4x6xf32> -> tensor<4x6xi1>
  %r = neuron.select %m, %x, %ninf : tensor<4x6xi1>, tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
