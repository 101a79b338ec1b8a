// RUN: neuron-opt %s --neuron-import --neuron-kernels="target=trn2" 2>&1 | FileCheck %s

// Tests a private kernel of the graph's own module bound by the name of a
// neuron op that only the import raises (neuron.exp from a linalg.generic):
// it survives the inliner between the two binding runs, and binds. The
// user kernel is named like the compiler's first kernel would be, so the
// compiler's kernel takes the next free name.

// CHECK: remark: neuron-outline-kernels: 2 launches of 2 kernels (1 written by the user)
// CHECK-LABEL: func.func @forward(
// CHECK: %[[E:.*]] = neuron.launch @forward_kernel0(%{{.*}})
// CHECK: neuron.launch @forward_kernel1(%[[E]], %{{.*}})
// CHECK-DAG: func.func private @forward_kernel0({{.*}}) attributes {{{.*}}nisa.custom
// CHECK-DAG: func.func private @forward_kernel1(

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func private @forward_kernel0(%x: memref<4x8xf32, #hbm>, %y: memref<4x8xf32, #hbm>)
    attributes {nisa.implements = "neuron.exp"} {
  %t = memref.alloc() : memref<4x8xf32, #sbuf>
  nisa.dma_copy %x, %t queue 0 : memref<4x8xf32, #hbm>, memref<4x8xf32, #sbuf>
  %e = memref.alloc() : memref<4x8xf32, #sbuf>
  nisa.activation <exp> %t, %e : memref<4x8xf32, #sbuf>, memref<4x8xf32, #sbuf>
  nisa.dma_copy %e, %y queue 1 : memref<4x8xf32, #sbuf>, memref<4x8xf32, #hbm>
  return
}
