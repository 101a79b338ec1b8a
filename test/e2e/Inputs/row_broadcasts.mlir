// Elementwise chains reading broadcasts (row_broadcasts.test), as TOSA
// writes them: a softmax in log-sum-exp form over the last axis (each
// row's maximum and log-sum subtracted), a per-row scale and a per-column
// bias then a clamp, an NCHW image's per-channel scale and shift, and
// a rotary embedding's tables over positions broadcast over images and
// heads.
func.func @lse(%x: tensor<6x200x384xf32>) -> tensor<6x200x384xf32> {
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<6x200x384xf32>) -> tensor<6x200x1xf32>
  %d = tosa.sub %x, %m : (tensor<6x200x384xf32>, tensor<6x200x1xf32>) -> tensor<6x200x384xf32>
  %e = tosa.exp %d : (tensor<6x200x384xf32>) -> tensor<6x200x384xf32>
  %s = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<6x200x384xf32>) -> tensor<6x200x1xf32>
  %l = tosa.log %s : (tensor<6x200x1xf32>) -> tensor<6x200x1xf32>
  %t = tosa.add %m, %l : (tensor<6x200x1xf32>, tensor<6x200x1xf32>) -> tensor<6x200x1xf32>
  %y = tosa.sub %x, %t : (tensor<6x200x384xf32>, tensor<6x200x1xf32>) -> tensor<6x200x384xf32>
  %z = tosa.exp %y : (tensor<6x200x384xf32>) -> tensor<6x200x384xf32>
  return %z : tensor<6x200x384xf32>
}

func.func @scales(%x: tensor<3x130x256xf32>, %r: tensor<3x130x1xf32>, %b: tensor<1x1x256xf32>) -> tensor<3x130x256xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.mul %x, %r, %shift : (tensor<3x130x256xf32>, tensor<3x130x1xf32>, tensor<1xi8>) -> tensor<3x130x256xf32>
  %a = tosa.add %s, %b : (tensor<3x130x256xf32>, tensor<1x1x256xf32>) -> tensor<3x130x256xf32>
  %c = tosa.clamp %a {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<3x130x256xf32>) -> tensor<3x130x256xf32>
  return %c : tensor<3x130x256xf32>
}

func.func @image(%x: tensor<1x160x12x14xf32>, %g: tensor<1x160x1x1xf32>, %b: tensor<1x160x1x1xf32>) -> tensor<1x160x12x14xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s = tosa.mul %x, %g, %shift : (tensor<1x160x12x14xf32>, tensor<1x160x1x1xf32>, tensor<1xi8>) -> tensor<1x160x12x14xf32>
  %a = tosa.add %s, %b : (tensor<1x160x12x14xf32>, tensor<1x160x1x1xf32>) -> tensor<1x160x12x14xf32>
  return %a : tensor<1x160x12x14xf32>
}

func.func @rope(%x: tensor<2x6x256x128xf32>, %cos: tensor<1x1x256x128xf32>, %sin: tensor<1x1x256x128xf32>) -> tensor<2x6x256x128xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.mul %x, %cos, %shift : (tensor<2x6x256x128xf32>, tensor<1x1x256x128xf32>, tensor<1xi8>) -> tensor<2x6x256x128xf32>
  %s = tosa.mul %x, %sin, %shift : (tensor<2x6x256x128xf32>, tensor<1x1x256x128xf32>, tensor<1xi8>) -> tensor<2x6x256x128xf32>
  %r = tosa.sub %c, %s : (tensor<2x6x256x128xf32>, tensor<2x6x256x128xf32>) -> tensor<2x6x256x128xf32>
  return %r : tensor<2x6x256x128xf32>
}
