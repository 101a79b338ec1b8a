// Static insert_slice ops as the frontends write them (inserts.test):
// torch's slice_scatter (rows of an argument overwritten), a window inside
// two dimensions of an NCHW image from a rank-reduced source, a padding
// written by hand (a zero fill and one insert), a KV cache written at two
// fixed positions one after the other, and a bf16 column block.
func.func @slice_scatter(%d: tensor<7x131xf32>, %x: tensor<3x131xf32>) -> tensor<7x131xf32> {
  %i = tensor.insert_slice %x into %d[2, 0] [3, 131] [1, 1] : tensor<3x131xf32> into tensor<7x131xf32>
  return %i : tensor<7x131xf32>
}

func.func @window(%d: tensor<2x3x17x19xf32>, %x: tensor<5x7xf32>) -> tensor<2x3x17x19xf32> {
  %i = tensor.insert_slice %x into %d[1, 2, 6, 9] [1, 1, 5, 7] [1, 1, 1, 1] : tensor<5x7xf32> into tensor<2x3x17x19xf32>
  return %i : tensor<2x3x17x19xf32>
}

func.func @hand_pad(%x: tensor<3x5x29xf32>) -> tensor<3x9x33xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x9x33xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x9x33xf32>) -> tensor<3x9x33xf32>
  %i = tensor.insert_slice %x into %f[0, 1, 2] [3, 5, 29] [1, 1, 1] : tensor<3x5x29xf32> into tensor<3x9x33xf32>
  return %i : tensor<3x9x33xf32>
}

func.func @cache_writes(%cache: tensor<2x16x4x24xf32>, %k0: tensor<2x1x4x24xf32>, %k5: tensor<2x1x4x24xf32>) -> tensor<2x16x4x24xf32> {
  %a = tensor.insert_slice %k0 into %cache[0, 0, 0, 0] [2, 1, 4, 24] [1, 1, 1, 1] : tensor<2x1x4x24xf32> into tensor<2x16x4x24xf32>
  %b = tensor.insert_slice %k5 into %a[0, 5, 0, 0] [2, 1, 4, 24] [1, 1, 1, 1] : tensor<2x1x4x24xf32> into tensor<2x16x4x24xf32>
  return %b : tensor<2x16x4x24xf32>
}

func.func @bf16_columns(%d: tensor<40x300xbf16>, %x: tensor<40x77xbf16>) -> tensor<40x300xbf16> {
  %i = tensor.insert_slice %x into %d[0, 150] [40, 77] [1, 1] : tensor<40x77xbf16> into tensor<40x300xbf16>
  return %i : tensor<40x300xbf16>
}
