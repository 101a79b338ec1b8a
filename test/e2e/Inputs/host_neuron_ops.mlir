// A program whose one host call holds the neuron ops the reference form
// writes as generics: elementwise float and integer arithmetic, unary
// functions, compare and select, casts, matmul with a transpose, a reduction
// kept and broadcast, a strided slice, reductions, a reshape and constants.
// Inputs/host_neuron_ops_linalg.mlir is the same computation in linalg and
// arith, for the oracle.
func.func @ops(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<4x8xi64>, %j: tensor<4x8xi64>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xi64>, tensor<4x4xf32>,
        tensor<4x8xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<8xi32>, tensor<2x16xf32>)
    attributes {neuron.program} {
  %r:10 = neuron.host_call(%a, %b, %i, %j) reason "test"
      : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi64>, tensor<4x8xi64>)
      -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xi64>, tensor<4x4xf32>,
          tensor<4x8xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<8xi32>, tensor<2x16xf32>) {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %m: tensor<4x8xi64>, %n: tensor<4x8xi64>):
    // Float arithmetic and functions.
    %0 = neuron.add %x, %y : tensor<4x8xf32>
    %1 = neuron.mul %0, %x : tensor<4x8xf32>
    %2 = neuron.sub %1, %y : tensor<4x8xf32>
    %3 = neuron.max %2, %x : tensor<4x8xf32>
    %4 = neuron.min %3, %y : tensor<4x8xf32>
    %ex = neuron.exp %x : tensor<4x8xf32>
    %ey = neuron.exp %y : tensor<4x8xf32>
    %5 = neuron.div %4, %ey : tensor<4x8xf32>
    %sg = neuron.sigmoid %x : tensor<4x8xf32>
    %sl = neuron.silu %y : tensor<4x8xf32>
    %th = neuron.tanh %x : tensor<4x8xf32>
    %ab = neuron.abs %y : tensor<4x8xf32>
    %ng = neuron.neg %x : tensor<4x8xf32>
    %rl = neuron.relu %y : tensor<4x8xf32>
    %sq = neuron.sqrt %ex : tensor<4x8xf32>
    %rs = neuron.rsqrt %ey : tensor<4x8xf32>
    %rc = neuron.reciprocal %ex : tensor<4x8xf32>
    %ef = neuron.erf %x : tensor<4x8xf32>
    %lg = neuron.log %ey : tensor<4x8xf32>
    %pw = neuron.pow %ex, %y : tensor<4x8xf32>
    %f1 = neuron.add %5, %sg : tensor<4x8xf32>
    %f2 = neuron.add %f1, %sl : tensor<4x8xf32>
    %f3 = neuron.add %f2, %th : tensor<4x8xf32>
    %f4 = neuron.add %f3, %ab : tensor<4x8xf32>
    %f5 = neuron.add %f4, %ng : tensor<4x8xf32>
    %f6 = neuron.add %f5, %rl : tensor<4x8xf32>
    %f7 = neuron.add %f6, %sq : tensor<4x8xf32>
    %f8 = neuron.add %f7, %rs : tensor<4x8xf32>
    %f9 = neuron.add %f8, %rc : tensor<4x8xf32>
    %f10 = neuron.add %f9, %ef : tensor<4x8xf32>
    %f11 = neuron.add %f10, %lg : tensor<4x8xf32>
    %f12 = neuron.add %f11, %pw : tensor<4x8xf32>
    // Compare, select and casts.
    %mi = neuron.cast %m : tensor<4x8xi64> -> tensor<4x8xi32>
    %ni = neuron.cast %n : tensor<4x8xi64> -> tensor<4x8xi32>
    %gt = neuron.compare gt %x, %y : tensor<4x8xf32> -> tensor<4x8xi1>
    %le = neuron.compare le %mi, %ni : tensor<4x8xi32> -> tensor<4x8xi1>
    %pick = neuron.select %gt, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>
    %lef = neuron.cast %le : tensor<4x8xi1> -> tensor<4x8xf32>
    %mf = neuron.cast %m : tensor<4x8xi64> -> tensor<4x8xf32>
    %c1 = neuron.add %pick, %lef : tensor<4x8xf32>
    %c2 = neuron.add %c1, %mf : tensor<4x8xf32>
    %ten = neuron.constant dense<10.0> : tensor<4x8xf32>
    %x10 = neuron.mul %x, %ten : tensor<4x8xf32>
    %xi = neuron.cast %x10 : tensor<4x8xf32> -> tensor<4x8xi32>
    %ints = neuron.add %xi, %mi : tensor<4x8xi32>
    // Integer arithmetic (i32: the neuron ops' widest integer).
    %one = neuron.constant dense<1> : tensor<4x8xi32>
    %s0 = neuron.add %mi, %ni : tensor<4x8xi32>
    %s1 = neuron.mul %s0, %mi : tensor<4x8xi32>
    %s2 = neuron.sub %s1, %ni : tensor<4x8xi32>
    %nn = neuron.mul %ni, %ni : tensor<4x8xi32>
    %nn1 = neuron.add %nn, %one : tensor<4x8xi32>
    %s3 = neuron.div %s2, %nn1 : tensor<4x8xi32>
    %s4 = neuron.max %s3, %mi : tensor<4x8xi32>
    %s5 = neuron.min %s4, %s1 : tensor<4x8xi32>
    %s6 = neuron.neg %s5 : tensor<4x8xi32>
    %s7 = neuron.abs %s2 : tensor<4x8xi32>
    %s8 = neuron.add %s6, %s7 : tensor<4x8xi32>
    %s9 = neuron.cast %s8 : tensor<4x8xi32> -> tensor<4x8xi64>
    // Layout and contraction.
    %yt = neuron.transpose %y permutation [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
    %mm = neuron.matmul %x, %yt : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %rsum = neuron.reduce_sum %x axes [1] keep_dims : tensor<4x8xf32> -> tensor<4x1xf32>
    %bsum = neuron.broadcast %rsum dimensions [0, 1] : tensor<4x1xf32> -> tensor<4x8xf32>
    %bias = neuron.constant dense<[0.5, -1.0, 2.0, 0.25, -0.125, 3.0, -2.5, 1.0]> : tensor<8xf32>
    %bb = neuron.broadcast %bias dimensions [1] : tensor<8xf32> -> tensor<4x8xf32>
    %bsum1 = neuron.add %bsum, %bb : tensor<4x8xf32>
    %sl2 = neuron.slice %x offsets [1, 0] strides [2, 2] : tensor<4x8xf32> -> tensor<2x4xf32>
    %rmax = neuron.reduce_max %y axes [1] : tensor<4x8xf32> -> tensor<4xf32>
    %rmin = neuron.reduce_min %mi axes [0] : tensor<4x8xi32> -> tensor<8xi32>
    %flat = neuron.reshape %f12 : tensor<4x8xf32> -> tensor<2x16xf32>
    neuron.yield %f12, %c2, %ints, %s9, %mm, %bsum1, %sl2, %rmax, %rmin, %flat
        : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xi64>, tensor<4x4xf32>,
          tensor<4x8xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<8xi32>, tensor<2x16xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi32>, tensor<4x8xi64>, tensor<4x4xf32>,
        tensor<4x8xf32>, tensor<2x4xf32>, tensor<4xf32>, tensor<8xi32>, tensor<2x16xf32>
}
