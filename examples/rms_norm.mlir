// A graph calling @rms_norm, written in linalg as torch-mlir would emit
// it: the reference the CPU oracle runs. Compiled with
// --kernel-library=examples/kernels, every call of it runs the user kernel
// examples/kernels/rms_norm.mlir instead of the compiler's tiling; the
// scale before it and the residual add after it are the compiler's.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @forward(%x: tensor<256x512xf32>, %w: tensor<512xf32>) -> tensor<256x512xf32> {
  %e = tensor.empty() : tensor<256x512xf32>
  %c2 = arith.constant 2.0 : f32
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %c2 : f32
    linalg.yield %m : f32
  } -> tensor<256x512xf32>
  %n = func.call @rms_norm(%h, %w) : (tensor<256x512xf32>, tensor<512xf32>) -> tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%n, %x : tensor<256x512xf32>, tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

// y = x * rsqrt(mean(x^2, axis 1) + 1e-6) * w
func.func private @rms_norm(%x: tensor<256x512xf32>, %w: tensor<512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 512.0 : f32
  %eps = arith.constant 1.0e-6 : f32
  %e1 = tensor.empty() : tensor<256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<256xf32>) -> tensor<256xf32>
  %ss = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x512xf32>) outs(%z : tensor<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  %e2 = tensor.empty() : tensor<256x512xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss, %w : tensor<256x512xf32>, tensor<256xf32>, tensor<512xf32>) outs(%e2 : tensor<256x512xf32>) {
  ^bb0(%a: f32, %s: f32, %g: f32, %o: f32):
    %mean = arith.divf %s, %n : f32
    %v = arith.addf %mean, %eps : f32
    %r = math.rsqrt %v : f32
    %xn = arith.mulf %a, %r : f32
    %out = arith.mulf %xn, %g : f32
    linalg.yield %out : f32
  } -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}
