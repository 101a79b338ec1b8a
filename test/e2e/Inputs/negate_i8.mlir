// tosa.negate on int8 with zero points: its TOSA lowering computes in i16.
func.func @negate_i8(%x: tensor<260x4x2xi8>) -> tensor<260x4x2xi8> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.negate %x, %zp, %zp : (tensor<260x4x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<260x4x2xi8>
  return %r : tensor<260x4x2xi8>
}
