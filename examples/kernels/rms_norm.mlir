// A user kernel in the nisa dialect: RMSNorm over the last axis of a
// 256x512 f32 tensor, y = x * rsqrt(mean(x^2) + 1e-6) * w, 128 rows (one
// per partition) per step. It computes every call of @rms_norm in a graph
// compiled with --kernel-library=examples/kernels (examples/rms_norm.mlir).
//
// Arguments: the inputs' HBM buffers, then the result's. Tiles are
// memref.allocs in SBUF or PSUM with no address: nisa-allocate places them,
// nisa-schedule orders the engines and nisa-insert-sync adds the
// semaphores, as for the compiler's own kernels.

#hbm = #nisa.memory<hbm>
#sbuf = #nisa.memory<sbuf>
#row = affine_map<(d0) -> (d0 * 128)>

func.func @rms_norm_256x512(%x: memref<256x512xf32, #hbm>, %w: memref<512xf32, #hbm>,
                            %y: memref<256x512xf32, #hbm>)
    attributes {nisa.implements = @rms_norm} {
  // The weight on every partition (a stride-0 read), and epsilon as the
  // scalar engine's per-partition bias, loaded once.
  %wrows = memref.reinterpret_cast %w to offset: [0], sizes: [128, 512], strides: [0, 1]
      : memref<512xf32, #hbm> to memref<128x512xf32, strided<[0, 1]>, #hbm>
  %wt = memref.alloc() : memref<128x512xf32, #sbuf>
  nisa.dma_copy %wrows, %wt queue 0 : memref<128x512xf32, strided<[0, 1]>, #hbm>, memref<128x512xf32, #sbuf>
  %eps = memref.alloc() : memref<128x1xf32, #sbuf>
  nisa.memset %eps value 1.0e-6 : memref<128x1xf32, #sbuf>
  affine.for %i = 0 to 2 {
    %r = affine.apply #row(%i)
    %xin = memref.subview %x[%r, 0] [128, 512] [1, 1]
        : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    %xt = memref.alloc() : memref<128x512xf32, #sbuf>
    nisa.dma_copy %xin, %xt queue 1 : memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>, memref<128x512xf32, #sbuf>
    // Sum of squares per row, then rsqrt(sum / 512 + eps).
    %sq = memref.alloc() : memref<128x512xf32, #sbuf>
    nisa.activation <square> %xt, %sq : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    %ss = memref.alloc() : memref<128x1xf32, #sbuf>
    nisa.tensor_reduce <add> %sq, %ss : memref<128x512xf32, #sbuf>, memref<128x1xf32, #sbuf>
    %rstd = memref.alloc() : memref<128x1xf32, #sbuf>
    nisa.activation <rsqrt> %ss, %rstd scale 0.001953125 bias %eps
        : memref<128x1xf32, #sbuf>, memref<128x1xf32, #sbuf>, memref<128x1xf32, #sbuf>
    // Each row by its own factor, then by the weight.
    %n = memref.alloc() : memref<128x512xf32, #sbuf>
    nisa.tensor_scalar <multiply> %xt, %n scalars %rstd
        : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x1xf32, #sbuf>
    %out = memref.alloc() : memref<128x512xf32, #sbuf>
    nisa.tensor_tensor <multiply> %n, %wt, %out
        : memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>, memref<128x512xf32, #sbuf>
    %yout = memref.subview %y[%r, 0] [128, 512] [1, 1]
        : memref<256x512xf32, #hbm> to memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
    nisa.dma_copy %out, %yout queue 2 : memref<128x512xf32, #sbuf>, memref<128x512xf32, strided<[512, 1], offset: ?>, #hbm>
  }
  return
}
