// Constant pads whose results are not multiples of 128 elements (99 and
// 3021 = 23 x 128 + 77), with a non-zero pad value. Input of the end-to-end
// oracle test.
func.func @pads(%x: tensor<1x5x7xf32>, %y: tensor<3x50x17xf32>)
    -> (tensor<1x9x11xf32>, tensor<3x53x19xf32>) {
  %v = arith.constant 2.5 : f32
  %a = tensor.pad %x low[0, 1, 2] high[0, 3, 2] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %v : f32
  } : tensor<1x5x7xf32> to tensor<1x9x11xf32>
  %b = tensor.pad %y low[0, 2, 1] high[0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %v : f32
  } : tensor<3x50x17xf32> to tensor<3x53x19xf32>
  return %a, %b : tensor<1x9x11xf32>, tensor<3x53x19xf32>
}
