// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2" | FileCheck %s

// Tests that a logical core of two physical cores (lnc=2) keeps every lhs
// row tile of a held rhs in the loop: nisa-split-cores shares loop nests
// between the two physical cores, and a first or last row tile apart
// from the loop (matmul-lead.mlir) would all run on one of them.
// CHECK-LABEL: func.func @first_tiles
// CHECK-NOT: memref<128x256xbf16, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 5 {
// CHECK: return
func.func @first_tiles(%a: tensor<640x256xbf16>, %b: tensor<256x1024xbf16>) -> tensor<640x1024xf32> {
  %0 = neuron.matmul %a, %b : (tensor<640x256xbf16>, tensor<256x1024xbf16>) -> tensor<640x1024xf32>
  return %0 : tensor<640x1024xf32>
}

// -----

// CHECK-LABEL: func.func @last_tile
// CHECK-NOT: memref<128x8x128xbf16, #nisa.memory<sbuf>>
// CHECK: affine.for %{{.*}} = 0 to 8 {
// CHECK-NOT: memref<128x8x128xbf16, #nisa.memory<sbuf>>
// CHECK: return
func.func @last_tile(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  %0 = neuron.matmul %a, %b : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  return %0 : tensor<1024x1024xbf16>
}
