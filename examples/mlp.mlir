// A two-layer perceptron with a softmax head, written the way torch-mlir
// emits linalg-on-tensors: weight transposes, bias adds and ReLU as
// linalg.generic, matmuls as named ops, softmax decomposed into reductions.
// Used by examples/demo.sh.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @forward(%x: tensor<64x256xf32>, %w1: tensor<512x256xf32>,
                   %b1: tensor<512xf32>, %w2: tensor<10x512xf32>,
                   %b2: tensor<10xf32>) -> tensor<64x10xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32

  // Layer 1: x @ w1^T + b1, ReLU.
  %e1 = tensor.empty() : tensor<256x512xf32>
  %w1t = linalg.generic {indexing_maps = [#id, #tr], iterator_types = ["parallel", "parallel"]}
      ins(%w1 : tensor<512x256xf32>) outs(%e1 : tensor<256x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<256x512xf32>
  %h0 = tensor.empty() : tensor<64x512xf32>
  %h0z = linalg.fill ins(%zero : f32) outs(%h0 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h1 = linalg.matmul ins(%x, %w1t : tensor<64x256xf32>, tensor<256x512xf32>)
                      outs(%h0z : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %b1 : tensor<64x512xf32>, tensor<512xf32>) outs(%h0 : tensor<64x512xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    %c = arith.cmpf ugt, %s, %zero : f32
    %r = arith.select %c, %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x512xf32>

  // Layer 2: h @ w2^T + b2.
  %e2 = tensor.empty() : tensor<512x10xf32>
  %w2t = linalg.generic {indexing_maps = [#id, #tr], iterator_types = ["parallel", "parallel"]}
      ins(%w2 : tensor<10x512xf32>) outs(%e2 : tensor<512x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<512x10xf32>
  %o0 = tensor.empty() : tensor<64x10xf32>
  %o0z = linalg.fill ins(%zero : f32) outs(%o0 : tensor<64x10xf32>) -> tensor<64x10xf32>
  %o1 = linalg.matmul ins(%h2, %w2t : tensor<64x512xf32>, tensor<512x10xf32>)
                      outs(%o0z : tensor<64x10xf32>) -> tensor<64x10xf32>
  %o2 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o1, %b2 : tensor<64x10xf32>, tensor<10xf32>) outs(%o0 : tensor<64x10xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x10xf32>

  // Softmax over the 10 classes.
  %m0 = tensor.empty() : tensor<64xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<64xf32>) -> tensor<64xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%o2 : tensor<64x10xf32>) outs(%minit : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%o2, %max : tensor<64x10xf32>, tensor<64xf32>) outs(%o0 : tensor<64x10xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<64x10xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%m0 : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<64x10xf32>) outs(%sinit : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<64x10xf32>, tensor<64xf32>) outs(%o0 : tensor<64x10xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<64x10xf32>
  return %p : tensor<64x10xf32>
}
