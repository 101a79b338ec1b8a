// A graph calling @attention, written in linalg as torch-mlir would emit
// scaled dot-product attention: the reference the CPU oracle runs.
// Compiled with --kernel-library=examples/kernels, every call of it runs
// the fused user kernel examples/kernels/attention.mlir; the query scaling
// before it and the residual add after it are the compiler's kernels.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#tr3 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#rows3 = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @forward(%x: tensor<2x128x64xf32>, %k: tensor<2x128x64xf32>,
                   %v: tensor<2x128x64xf32>) -> tensor<2x128x64xf32> {
  %e = tensor.empty() : tensor<2x128x64xf32>
  %half = arith.constant 0.5 : f32
  %q = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x128x64xf32>) outs(%e : tensor<2x128x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %half : f32
    linalg.yield %m : f32
  } -> tensor<2x128x64xf32>
  %att = func.call @attention(%q, %k, %v)
      : (tensor<2x128x64xf32>, tensor<2x128x64xf32>, tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %y = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%att, %x : tensor<2x128x64xf32>, tensor<2x128x64xf32>) outs(%e : tensor<2x128x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x128x64xf32>
  return %y : tensor<2x128x64xf32>
}

// softmax(q k^T / sqrt(64)) v for each of 2 heads.
func.func private @attention(%q: tensor<2x128x64xf32>, %k: tensor<2x128x64xf32>,
                             %v: tensor<2x128x64xf32>) -> tensor<2x128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.125 : f32
  %ekt = tensor.empty() : tensor<2x64x128xf32>
  %kt = linalg.generic {indexing_maps = [#id3, #tr3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%k : tensor<2x128x64xf32>) outs(%ekt : tensor<2x64x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2x64x128xf32>
  %es = tensor.empty() : tensor<2x128x128xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<2x128x64xf32>, tensor<2x64x128xf32>)
                           outs(%zs : tensor<2x128x128xf32>) -> tensor<2x128x128xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<2x128x128xf32>) outs(%es : tensor<2x128x128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x128x128xf32>
  %er = tensor.empty() : tensor<2x128xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%er : tensor<2x128xf32>) -> tensor<2x128xf32>
  %max = linalg.generic {indexing_maps = [#id3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ss : tensor<2x128x128xf32>) outs(%minit : tensor<2x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2x128xf32>
  %ex = linalg.generic {indexing_maps = [#id3, #rows3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss, %max : tensor<2x128x128xf32>, tensor<2x128xf32>) outs(%es : tensor<2x128x128xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %x = math.exp %d : f32
    linalg.yield %x : f32
  } -> tensor<2x128x128xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%er : tensor<2x128xf32>) -> tensor<2x128xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #rows3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<2x128x128xf32>) outs(%sinit : tensor<2x128xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<2x128xf32>
  %p = linalg.generic {indexing_maps = [#id3, #rows3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x128x128xf32>, tensor<2x128xf32>) outs(%es : tensor<2x128x128xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %d = arith.divf %a, %t : f32
    linalg.yield %d : f32
  } -> tensor<2x128x128xf32>
  %eo = tensor.empty() : tensor<2x128x64xf32>
  %zo = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<2x128x128xf32>, tensor<2x128x64xf32>)
                           outs(%zo : tensor<2x128x64xf32>) -> tensor<2x128x64xf32>
  return %o : tensor<2x128x64xf32>
}
