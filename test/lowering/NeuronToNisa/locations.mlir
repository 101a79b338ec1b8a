// RUN: neuron-opt %s --convert-neuron-to-nisa="target=trn2" \
// RUN:   --mlir-print-debuginfo --mlir-print-local-scope \
// RUN:   | FileCheck %s --implicit-check-not="loc(unknown)"

// Every tile, transfer and instruction of a kernel carries the location of
// the op it was tiled from, so an allocator capacity error or a scheduling
// remark points at the graph (issue #17: tiles were made at unknown
// locations).
// CHECK-LABEL: func.func @located
// CHECK: memref.alloc() {{.*}}loc("{{.*}}locations.mlir":[[@LINE+4]]:8)
// CHECK: nisa.matmul {{.*}}loc("{{.*}}locations.mlir":[[@LINE+3]]:8)
// CHECK: nisa.activation <exp> {{.*}}loc("{{.*}}locations.mlir":[[@LINE+3]]:8)
func.func @located(%a: tensor<64x256xbf16>, %b: tensor<256x640xbf16>) -> tensor<64x640xf32> {
  %0 = neuron.matmul %a, %b : (tensor<64x256xbf16>, tensor<256x640xbf16>) -> tensor<64x640xf32>
  %1 = neuron.exp %0 : tensor<64x640xf32>
  return %1 : tensor<64x640xf32>
}
