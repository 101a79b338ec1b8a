// Three residual dense layers whose weights and biases are slices of one
// flat parameter (as Buddy's LLaMA export stores them): y = relu(x W + b) + x.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @layers(%x: tensor<64x128xf32>, %params: tensor<49536xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %wf0 = tensor.extract_slice %params[0] [16384] [1] : tensor<49536xf32> to tensor<16384xf32>
  %w0 = tensor.expand_shape %wf0 [[0, 1]] output_shape [128, 128] : tensor<16384xf32> into tensor<128x128xf32>
  %b0 = tensor.extract_slice %params[16384] [128] [1] : tensor<49536xf32> to tensor<128xf32>
  %e0 = tensor.empty() : tensor<64x128xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m0 = linalg.matmul ins(%x, %w0 : tensor<64x128xf32>, tensor<128x128xf32>) outs(%z0 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y0 = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m0, %b0, %x : tensor<64x128xf32>, tensor<128xf32>, tensor<64x128xf32>) outs(%e0 : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %r: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.maximumf %s, %zero : f32
    %u = arith.addf %t, %r : f32
    linalg.yield %u : f32
  } -> tensor<64x128xf32>
  %wf1 = tensor.extract_slice %params[16512] [16384] [1] : tensor<49536xf32> to tensor<16384xf32>
  %w1 = tensor.expand_shape %wf1 [[0, 1]] output_shape [128, 128] : tensor<16384xf32> into tensor<128x128xf32>
  %b1 = tensor.extract_slice %params[32896] [128] [1] : tensor<49536xf32> to tensor<128xf32>
  %e1 = tensor.empty() : tensor<64x128xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m1 = linalg.matmul ins(%y0, %w1 : tensor<64x128xf32>, tensor<128x128xf32>) outs(%z1 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y1 = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m1, %b1, %y0 : tensor<64x128xf32>, tensor<128xf32>, tensor<64x128xf32>) outs(%e1 : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %r: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.maximumf %s, %zero : f32
    %u = arith.addf %t, %r : f32
    linalg.yield %u : f32
  } -> tensor<64x128xf32>
  %wf2 = tensor.extract_slice %params[33024] [16384] [1] : tensor<49536xf32> to tensor<16384xf32>
  %w2 = tensor.expand_shape %wf2 [[0, 1]] output_shape [128, 128] : tensor<16384xf32> into tensor<128x128xf32>
  %b2 = tensor.extract_slice %params[49408] [128] [1] : tensor<49536xf32> to tensor<128xf32>
  %e2 = tensor.empty() : tensor<64x128xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %m2 = linalg.matmul ins(%y1, %w2 : tensor<64x128xf32>, tensor<128x128xf32>) outs(%z2 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %y2 = linalg.generic {indexing_maps = [#id, #row, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m2, %b2, %y1 : tensor<64x128xf32>, tensor<128xf32>, tensor<64x128xf32>) outs(%e2 : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %r: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.maximumf %s, %zero : f32
    %u = arith.addf %t, %r : f32
    linalg.yield %u : f32
  } -> tensor<64x128xf32>
  return %y2 : tensor<64x128xf32>
}
