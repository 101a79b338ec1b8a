// A user kernel in the nisa dialect: fused attention for 2 heads of 128
// tokens by 64, out = softmax(q k^T / 8) v, each head's scores kept on
// chip from the first matmul to the output. It computes every call of
// @attention in a graph compiled with --kernel-library=examples/kernels
// (examples/attention.mlir).
//
// Per head: q^T and k^T are transposed by the tensor engine (the
// contraction dimension, 64, on partitions); the scores s = q k^T land in
// PSUM; the softmax's exponentials exp(s / 8 - max / 8) come out of the
// scalar engine with the row's shift as its per-partition bias; the tensor engine transposes them
// (tokens of k on partitions) for the second matmul, e^T v; the rows are
// divided by their sums on the way out of PSUM.

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>
#psum = #nisa.memory<psum>
#head = strided<[64, 1], offset: ?>

func.func @attention_2x128x64(%q: memref<2x128x64xf32, #hbm>, %k: memref<2x128x64xf32, #hbm>,
                              %v: memref<2x128x64xf32, #hbm>, %out: memref<2x128x64xf32, #hbm>)
    attributes {nisa.implements = @attention} {
  affine.for %h = 0 to 2 {
    %qh = memref.subview %q[%h, 0, 0] [1, 128, 64] [1, 1, 1]
        : memref<2x128x64xf32, #hbm> to memref<128x64xf32, #head, #hbm>
    %kh = memref.subview %k[%h, 0, 0] [1, 128, 64] [1, 1, 1]
        : memref<2x128x64xf32, #hbm> to memref<128x64xf32, #head, #hbm>
    %vh = memref.subview %v[%h, 0, 0] [1, 128, 64] [1, 1, 1]
        : memref<2x128x64xf32, #hbm> to memref<128x64xf32, #head, #hbm>
    // q^T and k^T: rows loaded as they lie (a transposed load would move
    // one element per descriptor), transposed by the tensor engine.
    %qn = memref.alloc() : memref<128x64xf32, #sbuf>
    nisa.dma_copy %qh, %qn queue 0 : memref<128x64xf32, #head, #hbm>, memref<128x64xf32, #sbuf>
    %kn = memref.alloc() : memref<128x64xf32, #sbuf>
    nisa.dma_copy %kh, %kn queue 1 : memref<128x64xf32, #head, #hbm>, memref<128x64xf32, #sbuf>
    %qTp = memref.alloc() : memref<64x128xf32, #psum>
    nisa.transpose %qn, %qTp : memref<128x64xf32, #sbuf>, memref<64x128xf32, #psum>
    %qt = memref.alloc() : memref<64x128xf32, #sbuf>
    nisa.tensor_scalar <bypass> %qTp, %qt scalar 0.0 : memref<64x128xf32, #psum>, memref<64x128xf32, #sbuf>
    %kTp = memref.alloc() : memref<64x128xf32, #psum>
    nisa.transpose %kn, %kTp : memref<128x64xf32, #sbuf>, memref<64x128xf32, #psum>
    %kt = memref.alloc() : memref<64x128xf32, #sbuf>
    nisa.activation <identity> %kTp, %kt : memref<64x128xf32, #psum>, memref<64x128xf32, #sbuf>
    %vt = memref.alloc() : memref<128x64xf32, #sbuf>
    nisa.dma_copy %vh, %vt queue 2 : memref<128x64xf32, #head, #hbm>, memref<128x64xf32, #sbuf>

    // s[i, j] = sum_d q[i, d] k[j, d]
    %s = memref.alloc() : memref<128x128xf32, #psum>
    nisa.matmul %qt, %kt, %s : memref<64x128xf32, #sbuf>, memref<64x128xf32, #sbuf>, memref<128x128xf32, #psum>
    // e = exp(s / 8 - max(s) / 8), l = sum(e) per row
    %max = memref.alloc() : memref<128x1xf32, #sbuf>
    nisa.tensor_reduce <max> %s, %max : memref<128x128xf32, #psum>, memref<128x1xf32, #sbuf>
    %shift = memref.alloc() : memref<128x1xf32, #sbuf>
    nisa.tensor_scalar <multiply> %max, %shift scalar -0.125 : memref<128x1xf32, #sbuf>, memref<128x1xf32, #sbuf>
    %e = memref.alloc() : memref<128x128xf32, #sbuf>
    nisa.activation <exp> %s, %e scale 0.125 bias %shift
        : memref<128x128xf32, #psum>, memref<128x128xf32, #sbuf>, memref<128x1xf32, #sbuf>
    %sum = memref.alloc() : memref<128x1xf32, #sbuf>
    nisa.tensor_reduce <add> %e, %sum : memref<128x128xf32, #sbuf>, memref<128x1xf32, #sbuf>
    // o = (e^T)^T v, then each row over its sum
    %eTp = memref.alloc() : memref<128x128xf32, #psum>
    nisa.transpose %e, %eTp : memref<128x128xf32, #sbuf>, memref<128x128xf32, #psum>
    %eT = memref.alloc() : memref<128x128xf32, #sbuf>
    nisa.activation <identity> %eTp, %eT : memref<128x128xf32, #psum>, memref<128x128xf32, #sbuf>
    %o = memref.alloc() : memref<128x64xf32, #psum>
    nisa.matmul %eT, %vt, %o : memref<128x128xf32, #sbuf>, memref<128x64xf32, #sbuf>, memref<128x64xf32, #psum>
    %res = memref.alloc() : memref<128x64xf32, #sbuf>
    nisa.tensor_scalar <divide> %o, %res scalars %sum
        : memref<128x64xf32, #psum>, memref<128x64xf32, #sbuf>, memref<128x1xf32, #sbuf>
    %oh = memref.subview %out[%h, 0, 0] [1, 128, 64] [1, 1, 1]
        : memref<2x128x64xf32, #hbm> to memref<128x64xf32, #head, #hbm>
    nisa.dma_copy %res, %oh queue 3 : memref<128x64xf32, #sbuf>, memref<128x64xf32, #head, #hbm>
  }
  return
}
