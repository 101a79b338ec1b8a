// A graph carrying its own user kernel: the linalg.generic's
// neuron.custom_kernel attribute names @cube, a nisa function of the same
// module (x * x * x on the vector engine); the add after it is the
// compiler's. Used by custom_kernels.test.

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>
#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @forward(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attrs = {neuron.custom_kernel = @cube} {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    %t = arith.mulf %s, %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @cube(%x: memref<4x8xf32, #hbm>, %y: memref<4x8xf32, #hbm>) {
  %t = memref.alloc() : memref<4x8xf32, #sbuf>
  nisa.dma_copy %x, %t queue 0 : memref<4x8xf32, #hbm>, memref<4x8xf32, #sbuf>
  %s = memref.alloc() : memref<4x8xf32, #sbuf>
  nisa.tensor_tensor <multiply> %t, %t, %s : memref<4x8xf32, #sbuf>, memref<4x8xf32, #sbuf>, memref<4x8xf32, #sbuf>
  %c = memref.alloc() : memref<4x8xf32, #sbuf>
  nisa.tensor_tensor <multiply> %s, %t, %c : memref<4x8xf32, #sbuf>, memref<4x8xf32, #sbuf>, memref<4x8xf32, #sbuf>
  nisa.dma_copy %c, %y queue 1 : memref<4x8xf32, #sbuf>, memref<4x8xf32, #hbm>
  return
}
