// RUN: neuron-opt %s -split-input-file --convert-neuron-to-nisa="target=trn2 summary=1" 2>&1 | FileCheck %s

// A batched matmul's blocks: the full blocks in a loop over batches and
// blocks, the partial last block in a loop over batches of its own, so
// the allocator never holds the two blocks' accumulators at once. A block
// of lhs then takes as many M tiles as one set of sums (one PSUM bank per
// tile, per full and partial N tile, one bank kept for transposes) fits:
// 3 of the 8 M tiles (1000 rows), where in one loop the partial block's
// sums left room for 1.

// CHECK-LABEL: remark: convert-neuron-to-nisa: 1000x128x600: lhs resident in blocks of 3 M tiles
// CHECK-LABEL: func.func @apart
// The full blocks: 2 of 3 M tiles each, per batch, past N tiles of 512
// and 88 columns.
// CHECK:       affine.for %[[B:.*]] = 0 to 2 {
// CHECK-NEXT:    affine.for %{{.*}} = 0 to 2 {
// CHECK-COUNT-3: nisa.matmul {{.*}}128x512xf32, #nisa.memory<psum>>
// CHECK-COUNT-3: nisa.matmul {{.*}}128x88xf32, #nisa.memory<psum>>
// CHECK:         }
// CHECK-NEXT:  }
// The partial last block (a full M tile and 104 rows), its own loop over
// batches.
// CHECK-NEXT:  affine.for %{{.*}} = 0 to 2 {
// CHECK-NOT:     affine.for
// CHECK:         nisa.matmul {{.*}}128x512xf32, #nisa.memory<psum>>
// CHECK:         nisa.matmul {{.*}}104x512xf32, #nisa.memory<psum>>
// CHECK:         nisa.matmul {{.*}}128x88xf32, #nisa.memory<psum>>
// CHECK:         nisa.matmul {{.*}}104x88xf32, #nisa.memory<psum>>
// CHECK:       }
// CHECK-NEXT:  return
func.func @apart(%a: tensor<2x1000x128xf32>, %b: tensor<2x128x600xf32>) -> tensor<2x1000x600xf32> {
  %0 = neuron.batch_matmul %a, %b : (tensor<2x1000x128xf32>, tensor<2x128x600xf32>) -> tensor<2x1000x600xf32>
  return %0 : tensor<2x1000x600xf32>
}
