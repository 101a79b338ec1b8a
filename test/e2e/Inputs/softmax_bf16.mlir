// Attention probabilities as Hugging Face models compute them: softmax in
// f32 over the scores' last axis, cast to bf16, then applied to bf16
// values (written as torch-mlir emits linalg-on-tensors). Used by
// softmax_bf16.test.

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>

func.func @probs(%scores: tensor<4x64x200xf32>, %v: tensor<4x200x32xbf16>)
    -> (tensor<4x64x200xbf16>, tensor<4x64x32xbf16>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %bzero = arith.constant 0.0 : bf16
  %m0 = tensor.empty() : tensor<4x64xf32>
  %e0 = tensor.empty() : tensor<4x64x200xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%scores : tensor<4x64x200xf32>) outs(%minit : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scores, %max : tensor<4x64x200xf32>, tensor<4x64xf32>) outs(%e0 : tensor<4x64x200xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4x64x200xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%m0 : tensor<4x64xf32>) -> tensor<4x64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<4x64x200xf32>) outs(%sinit : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x64xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<4x64x200xf32>, tensor<4x64xf32>) outs(%e0 : tensor<4x64x200xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x64x200xf32>
  %b0 = tensor.empty() : tensor<4x64x200xbf16>
  %pb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%p : tensor<4x64x200xf32>) outs(%b0 : tensor<4x64x200xbf16>) {
  ^bb0(%a: f32, %out: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<4x64x200xbf16>
  %o0 = tensor.empty() : tensor<4x64x32xbf16>
  %oinit = linalg.fill ins(%bzero : bf16) outs(%o0 : tensor<4x64x32xbf16>) -> tensor<4x64x32xbf16>
  %o = linalg.batch_matmul ins(%pb, %v : tensor<4x64x200xbf16>, tensor<4x200x32xbf16>)
      outs(%oinit : tensor<4x64x32xbf16>) -> tensor<4x64x32xbf16>
  return %pb, %o : tensor<4x64x200xbf16>, tensor<4x64x32xbf16>
}

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row2 = affine_map<(d0, d1) -> (d0)>

// Rows too long for the softmax's on-chip recipe (12000 f32 and bf16
// elements and their exponentials per partition): expanded into
// reductions and elementwise ops, the last a cast to bf16.
func.func @wide_probs(%scores: tensor<2x12000xf32>) -> tensor<2x12000xbf16> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %m0 = tensor.empty() : tensor<2xf32>
  %e0 = tensor.empty() : tensor<2x12000xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<2xf32>) -> tensor<2xf32>
  %max = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%scores : tensor<2x12000xf32>) outs(%minit : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %ex = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%scores, %max : tensor<2x12000xf32>, tensor<2xf32>) outs(%e0 : tensor<2x12000xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<2x12000xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%m0 : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<2x12000xf32>) outs(%sinit : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  %p = linalg.generic {indexing_maps = [#id2, #row2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x12000xf32>, tensor<2xf32>) outs(%e0 : tensor<2x12000xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<2x12000xf32>
  %b0 = tensor.empty() : tensor<2x12000xbf16>
  %pb = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<2x12000xf32>) outs(%b0 : tensor<2x12000xbf16>) {
  ^bb0(%a: f32, %out: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x12000xbf16>
  return %pb : tensor<2x12000xbf16>
}
